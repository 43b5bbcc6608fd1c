//! i8 builtins: exact products summed into i32 with wrap-around (reference 4.3).

use super::cpu::multiversion;
use super::{blocks, Kernel};
use crate::instr::Instr;
use mfma_spec::Modifiers;

/// Wrap-around addition is associative, so any order gives the hardware's
/// bits; the k-outer order keeps the j loop vectorisable like the others.
#[inline(always)]
fn wrapping_body<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) {
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (a, b, c) in blocks::<X, i8, i32>(m, a, b, c) {
        for (a_row, c_row) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
            for (&aik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
                let aik = i32::from(aik);
                for (acc, &bkj) in c_row.iter_mut().zip(b_row) {
                    // |a*b| <= 2^14: the product itself never overflows.
                    *acc = acc.wrapping_add(aik * i32::from(bkj));
                }
            }
        }
    }
}

multiversion! {
    fn wrapping<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) => wrapping_body
}

impl Kernel<i32> for i8 {
    fn run<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) {
        wrapping::<X>(m, a, b, c)
    }
}
