//! i8 builtins: exact products summed into i32 with wrap-around (reference 4.3).

use super::cpu::{multiversion, AVX2, AVX512};
use super::{blocks, Kernel, Win};
use crate::instr::Instr;
use mfma_spec::Modifiers;

/// Wrap-around addition is associative, so any order gives the hardware's
/// bits; the k-outer order keeps the j loop vectorisable like the others.
#[inline(always)]
fn wrapping_body<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) {
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (a, b, c) in blocks::<X, i8, i8, i32>(m, a, b, c) {
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

/// `R` rows of block `blk` of C (`c`, from row `row`) through the chain,
/// `V` registers of `W` lanes per row. Wrapping addition is associative,
/// so keeping rows in registers across the chain changes nothing in the bits.
#[inline(always)]
fn wrapping_rows<const N: usize, const K: usize, const W: usize, const V: usize, const R: usize>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
    row: usize,
) {
    let n = V * W;
    let mut acc: [[[i32; W]; V]; R] = core::array::from_fn(|r| {
        core::array::from_fn(|v| core::array::from_fn(|l| c[r * n + v * W + l]))
    });
    let (runs, len) = Win::runs(&a, &b, K, steps);
    for t in 0..runs {
        let a = a.rows::<R>(t, blk, row, len);
        let b = b.run::<N>(t, blk, 0, len);
        for kk in 0..len {
            // B's row widened once into i32 lanes, reused by every row of C.
            // Plain loops, not `array::from_fn`: its closures are not
            // always inlined into the AVX2 copy.
            let mut y = [[0i32; W]; V];
            for (v, y) in y.iter_mut().enumerate() {
                for (y, &x) in y.iter_mut().zip(b.get::<W>(kk, v * W)) {
                    *y = i32::from(x);
                }
            }
            for (a, acc) in a.iter().zip(acc.iter_mut()) {
                // |a·b| <= 2^14: the product fits an i32 lane.
                let x = i32::from(a[kk]);
                for (y, acc) in y.iter().zip(acc.iter_mut()) {
                    for l in 0..W {
                        acc[l] = acc[l].wrapping_add(x * y[l]);
                    }
                }
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        for (v, acc) in acc.iter().enumerate() {
            c[r * n + v * W..][..W].copy_from_slice(acc);
        }
    }
}

/// Block `blk` of a chain, `R` rows of C at a time.
#[inline(always)]
fn wrapping_block<
    X: Instr,
    const L: u8,
    const N: usize,
    const K: usize,
    const W: usize,
    const V: usize,
    const R: usize,
>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
) {
    let n = V * W;
    let mut rows = c.chunks_exact_mut(R * n);
    for (i, c) in rows.by_ref().enumerate() {
        wrapping_rows_in::<L, N, K, W, V, R>(a, b, steps, c, blk, i * R);
    }
    let done = X::SPEC.m / R * R;
    for (i, c) in rows.into_remainder().chunks_exact_mut(n).enumerate() {
        wrapping_rows_in::<L, N, K, W, V, 1>(a, b, steps, c, blk, done + i);
    }
}

/// [`wrapping_rows`], from the AVX2 copy (`vpmaddwd`) when the caller's
/// level has it (see `cpu::PORTABLE`) and rows are whole pairs of its
/// registers.
#[inline(always)]
fn wrapping_rows_in<
    const L: u8,
    const N: usize,
    const K: usize,
    const W: usize,
    const V: usize,
    const R: usize,
>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
    row: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if L >= AVX2 && K.is_multiple_of(2) {
        use super::int_avx2::wrapping_rows as madd;
        // SAFETY: `L >= AVX2` only in copies compiled with AVX2, which run
        // on CPUs that have it.
        match N {
            32 => return unsafe { madd::<N, K, 2, R>(a, b, steps, c, blk, row) },
            16 => return unsafe { madd::<N, K, 1, R>(a, b, steps, c, blk, row) },
            _ => {}
        }
    }
    wrapping_rows::<N, K, W, V, R>(a, b, steps, c, blk, row);
}

/// Block `blk` of a chain, one output row at a time: for shapes without a
/// register blocking.
#[inline(always)]
fn wrapping_block_rowwise<X: Instr>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
) {
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (i, c_row) in c.chunks_exact_mut(n).enumerate() {
        for t in 0..steps {
            for (kk, &aik) in a.row(t, blk, i, k).iter().enumerate() {
                for (acc, &bkj) in c_row.iter_mut().zip(b.row(t, blk, kk, n)) {
                    *acc = acc.wrapping_add(i32::from(aik) * i32::from(bkj));
                }
            }
        }
    }
}

/// A chain (modifiers zero) on widened inputs, rows of C kept in registers.
#[inline(always)]
fn wrapping_chain_body<X: Instr, const L: u8>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
) {
    let s = X::SPEC;
    for (blk, c) in c.chunks_exact_mut(s.m * s.n).enumerate() {
        // AVX-512: whole blocks of 16 or 32 columns, 8 rows at a time, with
        // `vpdpbusd` (four k an instruction: every such i8 builtin's K is a
        // multiple of four).
        #[cfg(target_arch = "x86_64")]
        if L >= AVX512 && (s.n == 32 || s.n == 16) && s.k % 4 == 0 && s.m % 8 == 0 {
            use super::int_avx512::wrapping_block as vnni;
            let at = (blk, s.m);
            // SAFETY: `L >= AVX512` only in the copy of `wrapping_chain`
            // compiled with AVX-512 (VNNI, VL), which runs on CPUs that
            // have it.
            unsafe {
                match s.n {
                    32 => vnni::<32, 2>((a, b), (s.k, steps), c, at),
                    _ => vnni::<16, 1>((a, b), (s.k, steps), c, at),
                }
            }
            continue;
        }
        match (s.n, s.k) {
            (32, 4) => wrapping_block::<X, L, 32, 4, 8, 4, 2>(a, b, steps, c, blk),
            (32, 8) => wrapping_block::<X, L, 32, 8, 8, 4, 2>(a, b, steps, c, blk),
            (16, 4) => wrapping_block::<X, L, 16, 4, 8, 2, 4>(a, b, steps, c, blk),
            (16, 16) => wrapping_block::<X, L, 16, 16, 8, 2, 4>(a, b, steps, c, blk),
            (32, 16) => wrapping_block::<X, L, 32, 16, 8, 4, 2>(a, b, steps, c, blk),
            (16, 32) => wrapping_block::<X, L, 16, 32, 8, 2, 4>(a, b, steps, c, blk),
            (4, 4) => wrapping_block::<X, L, 4, 4, 4, 1, 4>(a, b, steps, c, blk),
            _ => wrapping_block_rowwise::<X>(a, b, steps, c, blk),
        }
    }
}

multiversion! {
    fn wrapping_chain<X: Instr>(a: Win<'_, i16>, b: Win<'_, i16>, steps: usize, c: &mut [i32]) => wrapping_chain_body with intrinsics
}

/// The family of i8 builtins (both architectures): exact products summed
/// into i32 with wrap-around (reference 4.3 of CDNA2, 4.4 of CDNA3).
#[derive(Clone, Copy, Debug, Default)]
pub struct Wrapping;

impl Kernel for Wrapping {
    type A = i8;
    type B = i8;
    type C = i32;
    type Wide = i16;

    #[inline(always)]
    fn widen_a(x: i8) -> i16 {
        i16::from(x)
    }

    #[inline(always)]
    fn widen_b(x: i8) -> i16 {
        i16::from(x)
    }

    fn run<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) {
        wrapping::<X>(m, a, b, c)
    }

    fn chain_wide<X: Instr>(
        a: Win<'_, i16>,
        b: Win<'_, i16>,
        steps: usize,
        _plain: bool,
        c: &mut [i32],
    ) {
        wrapping_chain::<X>(a, b, steps, c)
    }
}
