//! f32 and f64 builtins: chained fused multiply-adds, k ascending (reference 4.1).

use super::cpu::multiversion;
use super::{blocks, Kernel};
use crate::instr::Instr;
use mfma_spec::Modifiers;

/// IEEE fusedMultiplyAdd of the element type.
trait Fma: Copy {
    fn fma(self, b: Self, c: Self) -> Self;
}

impl Fma for f32 {
    #[inline(always)]
    fn fma(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
}

impl Fma for f64 {
    #[inline(always)]
    fn fma(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// `acc = fma(a_ik, b_kj, acc)` for k ascending: k is the middle loop, so
/// every output still gets its fmas in k order while j runs innermost.
#[inline(always)]
fn chained_fma_body<X: Instr, T: Fma>(m: Modifiers, a: &[T], b: &[T], c: &mut [T]) {
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (a, b, c) in blocks::<X, T, T>(m, a, b, c) {
        for (a_row, c_row) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
            for (&aik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
                for (acc, &bkj) in c_row.iter_mut().zip(b_row) {
                    *acc = aik.fma(bkj, *acc);
                }
            }
        }
    }
}

multiversion! {
    fn chained_fma<X: Instr, T: Fma>(m: Modifiers, a: &[T], b: &[T], c: &mut [T]) => chained_fma_body
}

impl Kernel<f32> for f32 {
    fn run<X: Instr>(m: Modifiers, a: &[f32], b: &[f32], c: &mut [f32]) {
        chained_fma::<X, f32>(m, a, b, c)
    }
}

impl Kernel<f64> for f64 {
    fn run<X: Instr>(m: Modifiers, a: &[f64], b: &[f64], c: &mut [f64]) {
        chained_fma::<X, f64>(m, a, b, c)
    }
}
