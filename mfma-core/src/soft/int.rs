//! i8 builtins: exact products summed into i32 with wrap-around (reference 4.3).

use super::{dims, Kernel};
use mfma_spec::Builtin;

impl Kernel<i32> for i8 {
    fn run(spec: &Builtin, a: &[i8], b: &[i8], c: &mut [i32]) {
        let (blocks, m, n, k) = dims(spec);
        for blk in 0..blocks {
            let a = &a[blk * m * k..][..m * k];
            let b = &b[blk * k * n..][..k * n];
            let c = &mut c[blk * m * n..][..m * n];
            for i in 0..m {
                let row = &mut c[i * n..][..n];
                for kk in 0..k {
                    let aik = i32::from(a[i * k + kk]);
                    for (acc, &bkj) in row.iter_mut().zip(&b[kk * n..][..n]) {
                        *acc = acc.wrapping_add(aik * i32::from(bkj));
                    }
                }
            }
        }
    }
}
