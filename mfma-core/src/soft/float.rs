//! f32 and f64 builtins: chained fused multiply-adds, k ascending (reference 4.1).

use super::{dims, Kernel};
use mfma_spec::Builtin;

macro_rules! chained_fma {
    ($t:ty) => {
        impl Kernel<$t> for $t {
            fn run(spec: &Builtin, a: &[$t], b: &[$t], c: &mut [$t]) {
                let (blocks, m, n, k) = dims(spec);
                for blk in 0..blocks {
                    let a = &a[blk * m * k..][..m * k];
                    let b = &b[blk * k * n..][..k * n];
                    let c = &mut c[blk * m * n..][..m * n];
                    for i in 0..m {
                        let row = &mut c[i * n..][..n];
                        for kk in 0..k {
                            let aik = a[i * k + kk];
                            let brow = &b[kk * n..][..n];
                            for (acc, &bkj) in row.iter_mut().zip(brow) {
                                *acc = aik.mul_add(bkj, *acc);
                            }
                        }
                    }
                }
            }
        }
    };
}

chained_fma!(f32);
chained_fma!(f64);
