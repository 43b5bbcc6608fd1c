//! f32 and f64 builtins: chained fused multiply-adds, k ascending (reference 4.1).

use super::cpu::{multiversion, AVX512};
use super::{blocks, Kernel, Win};
use crate::instr::Instr;
use core::marker::PhantomData;
use mfma_spec::Modifiers;

/// IEEE fusedMultiplyAdd of the element type, and its type's chain.
trait FusedMulAdd: Copy + Default {
    fn fma(self, b: Self, c: Self) -> Self;

    /// The chain body of the copy of level `L` (`chain_f32_body`,
    /// `chain_f64_body`).
    fn chain_body<X: Instr, const L: u8>(a: Win<'_, Self>, b: Win<'_, Self>, c: &mut [Self]);
}

impl FusedMulAdd for f32 {
    #[inline(always)]
    fn fma(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }

    #[inline(always)]
    fn chain_body<X: Instr, const L: u8>(a: Win<'_, f32>, b: Win<'_, f32>, c: &mut [f32]) {
        chain_f32_body::<X, L>(a, b, 1, c)
    }
}

impl FusedMulAdd for f64 {
    #[inline(always)]
    fn fma(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }

    #[inline(always)]
    fn chain_body<X: Instr, const L: u8>(a: Win<'_, f64>, b: Win<'_, f64>, c: &mut [f64]) {
        chain_f64_body::<X, L>(a, b, 1, c)
    }
}

/// `acc = fma(a_ik, b_kj, acc)` for k ascending: k is the middle loop, so
/// every output still gets its fmas in k order while j runs innermost.
///
/// The AVX-512 copy runs the 16x16 and 32x32 shapes, where every block
/// reads its own A (no cbsz broadcast), as a chain of one step: the same
/// fmas in the same order. LLVM vectorised this loop across rows there,
/// with gathers and scatters (f32_32x32x1f32 at 4 Gitem/s, against 51
/// for the AVX2 copy of the loop and 37 for the chain).
#[inline(always)]
fn chained_fma_body<X: Instr, T: FusedMulAdd, const L: u8>(
    m: Modifiers,
    a: &[T],
    b: &[T],
    c: &mut [T],
) {
    let s = X::SPEC;
    if L >= AVX512 && s.m > 4 && super::own_a::<X>(m) {
        let a = Win::of_instruction(a, [s.blocks, s.m, s.k]);
        let b = Win::of_instruction(b, [s.blocks, s.k, s.n]);
        return T::chain_body::<X, L>(a, b, c);
    }
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (a, b, c) in blocks::<X, T, T, T>(m, a, b, c) {
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
    fn chained_fma<X: Instr, T: FusedMulAdd>(m: Modifiers, a: &[T], b: &[T], c: &mut [T]) => chained_fma_body with intrinsics
}

/// `W` lanes of a vector register, written as an array: inlined into the
/// AVX2 copy, each operation is one instruction on a whole register.
#[derive(Clone, Copy)]
struct Lanes<T, const W: usize>([T; W]);

impl<T: FusedMulAdd, const W: usize> Lanes<T, W> {
    #[inline(always)]
    fn load(s: &[T]) -> Self {
        let mut x = [T::default(); W];
        x.copy_from_slice(&s[..W]);
        Lanes(x)
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
///
/// `G` blocks at a time when a block is `R` rows (the 4x4 shapes): one
/// block's 4 rows are only 4 chains of dependent fmas, too few to cover
/// the fma's latency, and a step of one block too short to pay for its
/// own checks of the window, so `G` blocks' rows run side by side.
#[inline(always)]
fn fma_chain<
    X: Instr,
    T: FusedMulAdd,
    const N: usize,
    const K: usize,
    const W: usize,
    const V: usize,
    const R: usize,
    const G: usize,
>(
    a: Win<'_, T>,
    b: Win<'_, T>,
    steps: usize,
    c: &mut [T],
) {
    const { assert!(N == V * W) };
    let (m, n) = (X::SPEC.m, N);
    debug_assert!(X::SPEC.n == n && X::SPEC.k == K);
    if G > 1 && m == R && X::SPEC.blocks % G == 0 {
        for (g, c) in c.chunks_exact_mut(G * m * n).enumerate() {
            fma_rows::<T, N, K, W, V, R, G>(a, b, steps, c, g * G, 0);
        }
        return;
    }
    for (blk, c) in c.chunks_exact_mut(m * n).enumerate() {
        let mut rows = c.chunks_exact_mut(R * n);
        for (i, c) in rows.by_ref().enumerate() {
            fma_rows::<T, N, K, W, V, R, 1>(a, b, steps, c, blk, i * R);
        }
        let done = m / R * R;
        for (i, c) in rows.into_remainder().chunks_exact_mut(n).enumerate() {
            fma_rows::<T, N, K, W, V, 1, 1>(a, b, steps, c, blk, done + i);
        }
    }
}

/// `R` rows of each of blocks `blk..blk + G` of C (`c`, from row `row`;
/// for `G > 1` whole blocks, `R` = M and `row` = 0) through the chain.
#[inline(always)]
fn fma_rows<
    T: FusedMulAdd,
    const N: usize,
    const K: usize,
    const W: usize,
    const V: usize,
    const R: usize,
    const G: usize,
>(
    a: Win<'_, T>,
    b: Win<'_, T>,
    steps: usize,
    c: &mut [T],
    blk: usize,
    row: usize,
) {
    let n = V * W;
    // Loops, not `array::from_fn`: its closure is not inlined into the AVX2
    // copy, which then called it once per block of rows and read C back
    // from the stack after a `vzeroupper`.
    let mut acc = [[[Lanes([T::default(); W]); V]; R]; G];
    for (g, acc) in acc.iter_mut().enumerate() {
        for (r, acc) in acc.iter_mut().enumerate() {
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = Lanes::load(&c[(g * R + r) * n + v * W..]);
            }
        }
    }
    let (runs, len) = Win::runs(&a, &b, K, steps);
    if G > 1 && len == K && a.whole_blocks(R, K) && b.whole_blocks(K, N) {
        // Fragments: each step's `G` blocks of A and of B are consecutive
        // rows, checked once a step.
        for t in 0..runs {
            let a = a.run::<K>(t, blk, 0, G * R);
            let b = b.run::<N>(t, blk, 0, G * K);
            for kk in 0..K {
                for (g, acc) in acc.iter_mut().enumerate() {
                    let mut b_row = [Lanes([T::default(); W]); V];
                    for (v, b_row) in b_row.iter_mut().enumerate() {
                        b_row.0 = *b.get::<W>(g * K + kk, v * W);
                    }
                    for (r, acc) in acc.iter_mut().enumerate() {
                        let [aik] = *a.get::<1>(g * R + r, kk);
                        for (b, acc) in b_row.iter().zip(acc.iter_mut()) {
                            b.fma_into(aik, acc);
                        }
                    }
                }
            }
        }
    } else {
        for t in 0..runs {
            fma_step::<T, N, W, V, R, G>(a, b, t, len, &mut acc, (blk, row));
        }
    }
    for (g, acc) in acc.iter().enumerate() {
        for (r, acc) in acc.iter().enumerate() {
            for (v, acc) in acc.iter().enumerate() {
                acc.store(&mut c[(g * R + r) * n + v * W..]);
            }
        }
    }
}

/// Run `t` (`len` k) of blocks `blk..blk + G`, rows `row..row + R`, into
/// their accumulators.
#[inline(always)]
fn fma_step<
    T: FusedMulAdd,
    const N: usize,
    const W: usize,
    const V: usize,
    const R: usize,
    const G: usize,
>(
    a: Win<'_, T>,
    b: Win<'_, T>,
    t: usize,
    len: usize,
    acc: &mut [[[Lanes<T, W>; V]; R]; G],
    (blk, row): (usize, usize),
) {
    let (a_rows, b_rows) = Win::blocks_run::<R, N, G>(&a, &b, (t, len), (blk, row));
    for kk in 0..len {
        for ((a, b), acc) in a_rows.iter().zip(&b_rows).zip(acc.iter_mut()) {
            let mut b_row = [Lanes([T::default(); W]); V];
            for (v, b_row) in b_row.iter_mut().enumerate() {
                b_row.0 = *b.get::<W>(kk, v * W);
            }
            for (a, acc) in a.iter().zip(acc.iter_mut()) {
                let aik = a[kk];
                for (b, acc) in b_row.iter().zip(acc.iter_mut()) {
                    b.fma_into(aik, acc);
                }
            }
        }
    }
}

/// A chain, one output row at a time: for shapes without a register blocking.
#[inline(always)]
fn fma_chain_rowwise<X: Instr, T: FusedMulAdd>(
    a: Win<'_, T>,
    b: Win<'_, T>,
    steps: usize,
    c: &mut [T],
) {
    let (m, n, k) = (X::SPEC.m, X::SPEC.n, X::SPEC.k);
    for (blk, c) in c.chunks_exact_mut(m * n).enumerate() {
        for (i, c_row) in c.chunks_exact_mut(n).enumerate() {
            for t in 0..steps {
                for (kk, &aik) in a.row(t, blk, i, k).iter().enumerate() {
                    for (acc, &bkj) in c_row.iter_mut().zip(b.row(t, blk, kk, n)) {
                        *acc = aik.fma(bkj, *acc);
                    }
                }
            }
        }
    }
}

/// The chain kernel whose register blocking fits builtin `X`, or the
/// row-by-row loop for a shape without one.
macro_rules! chain_by_shape {
    ($x:ty, $t:ty, $a:ident, $b:ident, $steps:ident, $c:ident; $(($n:literal, $k:literal) => ($w:literal, $v:literal, $r:literal $(, $g:literal)?)),* $(,)?) => {
        match (<$x>::SPEC.n, <$x>::SPEC.k) {
            $(($n, $k) => fma_chain::<$x, $t, $n, $k, $w, $v, $r, { 1 $(* $g)? }>($a, $b, $steps, $c),)*
            _ => fma_chain_rowwise::<$x, $t>($a, $b, $steps, $c),
        }
    };
}

/// f32 (`(N, K) => (W lanes, V registers per row, R rows[, G blocks])`).
/// AVX2 and the portable copy: 8 lanes, 8 registers of C live at once (of
/// 16). AVX-512: 16 lanes, 16 registers of C (of 32), so that every
/// register of B loaded serves 8 fmas and each broadcast of A 2. The 4x4
/// blocks: two at a time in every copy (AVX-512: 56 Gitem/s in the chain
/// bench on a Zen 5, against 43 for four at a time and 10 for one).
#[inline(always)]
fn chain_f32_body<X: Instr, const L: u8>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
) {
    if L >= AVX512 {
        chain_by_shape!(X, f32, a, b, steps, c;
            (32, 1) => (16, 2, 8), (32, 2) => (16, 2, 8),
            (16, 1) => (16, 1, 16), (16, 4) => (16, 1, 16),
            (4, 1) => (4, 1, 4, 2));
    } else {
        chain_by_shape!(X, f32, a, b, steps, c;
            (32, 1) => (8, 4, 2), (32, 2) => (8, 4, 2),
            (16, 1) => (8, 2, 4), (16, 4) => (4, 4, 2),
            (4, 1) => (4, 1, 4, 2));
    }
}

/// f64: 4 lanes per register (AVX-512: 8, and 16 registers of C). The 4x4
/// blocks: all four at a time with AVX-512 (16 of its 32 registers), two
/// with AVX2.
#[inline(always)]
fn chain_f64_body<X: Instr, const L: u8>(
    a: Win<'_, f64>,
    b: Win<'_, f64>,
    steps: usize,
    c: &mut [f64],
) {
    if L >= AVX512 {
        chain_by_shape!(X, f64, a, b, steps, c;
            (16, 4) => (8, 2, 8),
            (4, 4) => (4, 1, 4, 4));
    } else {
        chain_by_shape!(X, f64, a, b, steps, c;
            (16, 4) => (4, 4, 2),
            (4, 4) => (4, 1, 4, 2));
    }
}

multiversion! {
    fn chain_f32<X: Instr>(a: Win<'_, f32>, b: Win<'_, f32>, steps: usize, c: &mut [f32]) => chain_f32_body with intrinsics
}

multiversion! {
    fn chain_f64<X: Instr>(a: Win<'_, f64>, b: Win<'_, f64>, steps: usize, c: &mut [f64]) => chain_f64_body with intrinsics
}

/// The family of f32 and f64 builtins (both architectures): chained fused
/// multiply-adds in `T`, k ascending (reference 4.1).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fma<T>(PhantomData<T>);

/// The kernels of a family that computes in its own type.
macro_rules! fma_kernel {
    ($t:ty, $chain:ident) => {
        impl Kernel for Fma<$t> {
            type A = $t;
            type B = $t;
            type C = $t;
            type Wide = $t;

            #[inline(always)]
            fn widen_a(x: $t) -> $t {
                x
            }

            #[inline(always)]
            fn widen_b(x: $t) -> $t {
                x
            }

            fn run<X: Instr>(m: Modifiers, a: &[$t], b: &[$t], c: &mut [$t]) {
                chained_fma::<X, $t>(m, a, b, c)
            }

            fn chain_wide<X: Instr>(
                a: Win<'_, $t>,
                b: Win<'_, $t>,
                steps: usize,
                _plain: bool,
                c: &mut [$t],
            ) {
                $chain::<X>(a, b, steps, c)
            }

            // Already in computing form: no copy.
            fn chain<X: Instr>(a: Win<'_, $t>, b: Win<'_, $t>, steps: usize, c: &mut [$t]) {
                $chain::<X>(a, b, steps, c)
            }
        }
    };
}

fma_kernel!(f32, chain_f32);
fma_kernel!(f64, chain_f64);
