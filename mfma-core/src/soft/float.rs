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

/// `W` lanes of a vector register, written as an array: inlined into the
/// AVX2 copy, each operation is one instruction on a whole register.
#[derive(Clone, Copy)]
struct Lanes<T, const W: usize>([T; W]);

impl<T: Fma, const W: usize> Lanes<T, W> {
    #[inline(always)]
    fn load(s: &[T]) -> Self {
        Lanes(core::array::from_fn(|l| s[l]))
    }

    #[inline(always)]
    fn store(self, s: &mut [T]) {
        s[..W].copy_from_slice(&self.0);
    }

    /// `fma(a, self, acc)` in every lane.
    #[inline(always)]
    fn fma_into(self, a: T, acc: &mut Self) {
        for (acc, &b) in acc.0.iter_mut().zip(&self.0) {
            *acc = a.fma(b, *acc);
        }
    }
}

/// A chain of instructions (modifiers zero) for builtins whose C rows are
/// `V` registers of `W` lanes (`N = V·W`) and that consume `K` per
/// instruction: per block, `R` rows of C stay in registers while every
/// instruction's k run over them in order. Each output sees the same fmas
/// in the same order as in the instruction-by-instruction loop.
#[inline(always)]
fn fma_chain<X: Instr, T: Fma, const K: usize, const W: usize, const V: usize, const R: usize>(
    a: &[&[T]],
    b: &[&[T]],
    c: &mut [T],
) {
    let (m, n) = (X::SPEC.m, V * W);
    debug_assert!(X::SPEC.n == n && X::SPEC.k == K);
    for (blk, c) in c.chunks_exact_mut(m * n).enumerate() {
        let (a_blk, b_blk) = (blk * m * K, blk * K * n);
        let mut rows = c.chunks_exact_mut(R * n);
        for (i, c) in rows.by_ref().enumerate() {
            fma_rows::<T, K, W, V, R>(a, b, c, a_blk + i * R * K, b_blk);
        }
        let done = m / R * R;
        for (i, c) in rows.into_remainder().chunks_exact_mut(n).enumerate() {
            fma_rows::<T, K, W, V, 1>(a, b, c, a_blk + (done + i) * K, b_blk);
        }
    }
}

/// `R` rows of C (`c`) through the chain; their A rows start at `a_off`
/// and B's block at `b_off` of each instruction's operands.
#[inline(always)]
fn fma_rows<T: Fma, const K: usize, const W: usize, const V: usize, const R: usize>(
    a: &[&[T]],
    b: &[&[T]],
    c: &mut [T],
    a_off: usize,
    b_off: usize,
) {
    let n = V * W;
    let mut acc: [[Lanes<T, W>; V]; R] =
        core::array::from_fn(|r| core::array::from_fn(|v| Lanes::load(&c[r * n + v * W..])));
    for (a, b) in a.iter().zip(b) {
        let a: &[T] = &a[a_off..][..R * K];
        let b: &[T] = &b[b_off..][..K * n];
        for kk in 0..K {
            let b_row: [Lanes<T, W>; V] =
                core::array::from_fn(|v| Lanes::load(&b[kk * n + v * W..]));
            for (r, acc) in acc.iter_mut().enumerate() {
                let aik = a[r * K + kk];
                for (b, acc) in b_row.iter().zip(acc.iter_mut()) {
                    b.fma_into(aik, acc);
                }
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        for (v, acc) in acc.iter().enumerate() {
            acc.store(&mut c[r * n + v * W..]);
        }
    }
}

/// The chain kernel whose register blocking fits builtin `X`, or the
/// instruction-by-instruction loop for a shape without one.
macro_rules! chain_by_shape {
    ($x:ty, $t:ty, $a:ident, $b:ident, $c:ident; $(($n:literal, $k:literal) => ($w:literal, $v:literal, $r:literal)),* $(,)?) => {
        match (<$x>::SPEC.n, <$x>::SPEC.k) {
            $(($n, $k) => fma_chain::<$x, $t, $k, $w, $v, $r>($a, $b, $c),)*
            _ => {
                for (a, b) in $a.iter().zip($b) {
                    chained_fma_body::<$x, $t>(Modifiers::NONE, a, b, $c);
                }
            }
        }
    };
}

/// f32: 8 lanes per register; 8 registers of C live at once.
#[inline(always)]
fn chain_f32_body<X: Instr>(a: &[&[f32]], b: &[&[f32]], c: &mut [f32]) {
    chain_by_shape!(X, f32, a, b, c;
        (32, 1) => (8, 4, 2), (32, 2) => (8, 4, 2),
        (16, 1) => (8, 2, 4), (16, 4) => (8, 2, 4),
        (4, 1) => (4, 1, 4));
}

/// f64: 4 lanes per register.
#[inline(always)]
fn chain_f64_body<X: Instr>(a: &[&[f64]], b: &[&[f64]], c: &mut [f64]) {
    chain_by_shape!(X, f64, a, b, c;
        (16, 4) => (4, 4, 2),
        (4, 4) => (4, 1, 4));
}

multiversion! {
    fn chain_f32<X: Instr>(a: &[&[f32]], b: &[&[f32]], c: &mut [f32]) => chain_f32_body
}

multiversion! {
    fn chain_f64<X: Instr>(a: &[&[f64]], b: &[&[f64]], c: &mut [f64]) => chain_f64_body
}

impl Kernel<f32> for f32 {
    fn run<X: Instr>(m: Modifiers, a: &[f32], b: &[f32], c: &mut [f32]) {
        chained_fma::<X, f32>(m, a, b, c)
    }

    fn chain<X: Instr>(a: &[&[f32]], b: &[&[f32]], c: &mut [f32]) {
        chain_f32::<X>(a, b, c)
    }
}

impl Kernel<f64> for f64 {
    fn run<X: Instr>(m: Modifiers, a: &[f64], b: &[f64], c: &mut [f64]) {
        chained_fma::<X, f64>(m, a, b, c)
    }

    fn chain<X: Instr>(a: &[&[f64]], b: &[&[f64]], c: &mut [f64]) {
        chain_f64::<X>(a, b, c)
    }
}
