//! i8 builtins: exact products summed into i32 with wrap-around (reference 4.3).

use super::cpu::multiversion;
#[cfg(target_arch = "x86_64")]
use super::cpu::{AVX2, AVX512};
use super::{blocks, Kernel, Win};
use crate::instr::Instr;
use core::ops::Range;
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

/// The spans of a chain of `runs` runs of `len` k that one filling of an
/// intrinsics kernel's buffer of B (at most `span` k) covers, as (runs, k
/// of each): whole runs while they are short (fragments), pieces of the
/// one run when it is long (panels).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) fn spans(
    runs: usize,
    len: usize,
    span: usize,
) -> impl Iterator<Item = (Range<usize>, Range<usize>)> {
    let per = (span / len.max(1)).max(1);
    let pieces = len.div_ceil(span);
    (0..runs).step_by(per).flat_map(move |t0| {
        (0..pieces).map(move |p| {
            (
                t0..(t0 + per).min(runs),
                p * span..((p + 1) * span).min(len),
            )
        })
    })
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
        wrapping_rows::<N, K, W, V, R>(a, b, steps, c, blk, i * R);
    }
    let done = X::SPEC.m / R * R;
    for (i, c) in rows.into_remainder().chunks_exact_mut(n).enumerate() {
        wrapping_rows::<N, K, W, V, 1>(a, b, steps, c, blk, done + i);
    }
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
    // The 4x4 blocks of fragments, 4 at a time, each in the lanes of a
    // vector (AVX-512) or two (AVX2): per block and step, a row's 4 outputs
    // in a register of their own took 4 rows' broadcasts and checks of the
    // window.
    #[cfg(target_arch = "x86_64")]
    if L >= AVX2
        && (s.m, s.n, s.k) == (4, 4, 4)
        && s.blocks.is_multiple_of(4)
        && a.whole_blocks(4, 4)
        && b.whole_blocks(4, 4)
    {
        for (i, c) in c.as_chunks_mut::<{ 4 * 16 }>().0.iter_mut().enumerate() {
            #[cfg(test)]
            super::count_block4_steps(4 * steps);
            if L >= AVX512 {
                // SAFETY: `L >= AVX512` only in the copy of `wrapping_chain`
                // compiled with AVX-512 (VNNI, VL), which runs on CPUs that
                // have it; the windows are whole blocks (checked above).
                unsafe { super::int_avx512::block4::<4>(a, b, steps, c, 4 * i) };
            } else {
                // SAFETY: as above, for AVX2.
                unsafe { super::int_avx2::block4::<4>(a, b, steps, c, 4 * i) };
            }
        }
        return;
    }
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
        // AVX2: the same with `vpmaddwd` (two k), 2 rows of 32 columns or
        // 4 of 16 at a time.
        #[cfg(target_arch = "x86_64")]
        if L >= AVX2 && (s.n == 32 || s.n == 16) && s.k % 2 == 0 && s.m % 4 == 0 {
            use super::int_avx2::wrapping_block as madd;
            let at = (blk, s.m);
            // SAFETY: `L >= AVX2` only in copies compiled with AVX2, which
            // run on CPUs that have it.
            unsafe {
                match s.n {
                    32 => madd::<32, 2, 2>((a, b), (s.k, steps), c, at),
                    _ => madd::<16, 1, 4>((a, b), (s.k, steps), c, at),
                }
            }
            continue;
        }
        match (s.n, s.k) {
            (32, 4) => wrapping_block::<X, 32, 4, 8, 4, 2>(a, b, steps, c, blk),
            (32, 8) => wrapping_block::<X, 32, 8, 8, 4, 2>(a, b, steps, c, blk),
            (16, 4) => wrapping_block::<X, 16, 4, 8, 2, 4>(a, b, steps, c, blk),
            (16, 16) => wrapping_block::<X, 16, 16, 8, 2, 4>(a, b, steps, c, blk),
            (32, 16) => wrapping_block::<X, 32, 16, 8, 4, 2>(a, b, steps, c, blk),
            (16, 32) => wrapping_block::<X, 16, 32, 8, 2, 4>(a, b, steps, c, blk),
            (4, 4) => wrapping_block::<X, 4, 4, 4, 1, 4>(a, b, steps, c, blk),
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
        // The AVX2 copy of the loop ran at 12–21 Gitem/s in the execute
        // bench (Zen 5), where a chain of one step, its B interleaved for
        // `vpmaddwd`, gives 33–126 for the 16x16 and 32x32 shapes: so that,
        // where every block reads its own A (no cbsz broadcast). The
        // AVX-512 copy's loop is the faster one for a lone instruction.
        let s = X::SPEC;
        if super::Kernels::active() == super::Kernels::Avx2 && s.m > 4 && super::own_a::<X>(m) {
            let a = Win::of_instruction(a, [s.blocks, s.m, s.k]);
            let b = Win::of_instruction(b, [s.blocks, s.k, s.n]);
            return Self::chain::<X>(a, b, 1, c);
        }
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

#[cfg(test)]
mod tests {
    use super::spans;

    /// The spans cover every k of every run once, in order, and none holds
    /// more than the buffer.
    #[test]
    fn spans_cover_the_chain_in_order() {
        let cases = [
            (1, 4),
            (1, 64),
            (1, 128),
            (1, 132),
            (1, 1000),
            (33, 8),
            (17, 32),
            (5, 4),
        ];
        for span in [64, 128] {
            for (runs, len) in cases {
                let mut seen = std::vec::Vec::new();
                for (ts, ks) in spans(runs, len, span) {
                    assert!(
                        ts.len() * ks.len() <= span && !ks.is_empty(),
                        "{runs}x{len}"
                    );
                    seen.extend(ts.flat_map(|t| ks.clone().map(move |k| (t, k))));
                }
                let all: std::vec::Vec<_> = (0..runs)
                    .flat_map(|t| (0..len).map(move |k| (t, k)))
                    .collect();
                assert_eq!(seen, all, "{runs}x{len} in spans of {span}");
            }
        }
    }
}
