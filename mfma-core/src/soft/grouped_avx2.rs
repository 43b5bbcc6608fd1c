//! The plain path of the f16/bf16 kernels (see `grouped::plain_rows`)
//! written with AVX2 intrinsics, for rows of C that are whole 8-lane
//! registers and for 4×4 blocks in the lanes of two.
//!
//! The portable code states the same operations on `[f32; 8]` arrays, but
//! for trees of four products LLVM's vectoriser packs the four products of
//! one lane into a register and shuffles them back, three times slower
//! than one register per row of B. Here every operation is the one the
//! portable code performs, on the same values in the same order (mul,
//! fma, mul, fma, add, add), so both give the same bits; the tests compare
//! the two copies.

use super::Win;
use core::arch::x86_64::*;

/// `flush_in` on 8 lanes: magnitudes below the smallest normal f32
/// (including -0) become +0.
#[inline(always)]
unsafe fn flush_in(x: __m256) -> __m256 {
    // SAFETY (whole module): the caller runs on a CPU with AVX2 and FMA,
    // inside code compiled with them (`grouped::grouped_chain`).
    unsafe {
        let abs = _mm256_andnot_ps(_mm256_set1_ps(-0.0), x);
        let tiny = _mm256_cmp_ps::<_CMP_LT_OQ>(abs, _mm256_set1_ps(f32::MIN_POSITIVE));
        _mm256_andnot_ps(tiny, x)
    }
}

/// `acc` plus one tree of `G` products (2 or 4) a lane, in the portable
/// tree's order: mul, fma (and mul, fma, add for the second pair), add.
/// `x[q]` and `y[q]` are the tree's factors of A and B (`q < G`).
#[inline(always)]
unsafe fn add_tree<const G: usize>(acc: __m256, x: [__m256; 4], y: [__m256; 4]) -> __m256 {
    // SAFETY: see `flush_in`.
    unsafe {
        let left = _mm256_mul_ps(x[0], y[0]);
        let mut tree = _mm256_fmadd_ps(x[1], y[1], left);
        if G == 4 {
            let right = _mm256_mul_ps(x[2], y[2]);
            let right = _mm256_fmadd_ps(x[3], y[3], right);
            tree = _mm256_add_ps(tree, right);
        }
        _mm256_add_ps(acc, tree)
    }
}

/// `grouped::plain_rows` for `W = 8`: `R` rows of block `blk` of C (`c`,
/// from row `row`) through the chain, `V` registers per row, trees of `G`.
///
/// # Safety
/// The CPU must have AVX2 and FMA, and the caller must be compiled with
/// them (so that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn plain_rows<
    const G: usize,
    const N: usize,
    const K: usize,
    const V: usize,
    const R: usize,
>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
    blk: usize,
    row: usize,
) {
    // Instantiated for every shape, called only for whole registers.
    debug_assert!(N == 8 * V && (G == 2 || G == 4));
    let c = &mut c[..R * N];
    // SAFETY: see `flush_in`; every pointer below addresses 8 elements of
    // a slice checked to hold them (`c` above, `Rows::get` for B).
    unsafe {
        let mut acc = [[_mm256_setzero_ps(); V]; R];
        for (r, acc) in acc.iter_mut().enumerate() {
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = flush_in(_mm256_loadu_ps(c[r * N + v * 8..][..8].as_ptr()));
            }
        }
        let (runs, len) = Win::runs(&a, &b, K, steps);
        for t in 0..runs {
            let a = a.rows::<R>(t, blk, row, len);
            let b = b.run::<N>(t, blk, 0, len);
            for kk in (0..len).step_by(G) {
                let y = b.group::<G>(kk);
                for v in 0..V {
                    // No closures here: they would not inherit the
                    // caller's target features, and the intrinsics would
                    // not inline into them.
                    let mut yv = [_mm256_setzero_ps(); 4];
                    for (yv, y) in yv.iter_mut().zip(y) {
                        *yv = _mm256_loadu_ps(y[v * 8..][..8].as_ptr());
                    }
                    for (a, acc) in a.iter().zip(acc.iter_mut()) {
                        let x = &a[kk..][..G];
                        let x = [
                            _mm256_set1_ps(x[0]),
                            _mm256_set1_ps(x[1]),
                            _mm256_set1_ps(x[2 % G]),
                            _mm256_set1_ps(x[3 % G]),
                        ];
                        acc[v] = add_tree::<G>(acc[v], x, yv);
                    }
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (v, &acc) in acc.iter().enumerate() {
                _mm256_storeu_ps(c[r * N + v * 8..][..8].as_mut_ptr(), acc);
            }
        }
    }
}

/// `f16::to_f32_flushed` over a slice, returning whether every result
/// passed `input_ok` (see `grouped`): `vcvtph2ps` converts exactly, then
/// magnitudes below 2^-14 (f16 subnormals and -0) become +0. A chunk
/// holding a NaN is converted element-wise, so that NaN payloads come out
/// as the portable code leaves them (the instruction quiets signalling NaNs).
///
/// # Safety
/// The CPU must have AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn widen_f16(from: &[half::f16], to: &mut [f32]) -> bool {
    use super::grouped::GroupedInput;
    let len = from.len().min(to.len());
    let (from, to) = (&from[..len], &mut to[..len]);
    let min = _mm256_set1_ps(half::f16::MIN_POSITIVE.to_f32());
    let sign = _mm256_set1_ps(-0.0);
    // input_ok: biased exponent 0, or in 76..190.
    let (lo, hi) = (_mm256_set1_epi32(75), _mm256_set1_epi32(190));
    let mut ok = _mm256_set1_epi32(-1);
    let whole = len / 8 * 8;
    let (from_whole, to_whole) = (
        from[..whole].as_chunks::<8>().0,
        to[..whole].as_chunks_mut::<8>().0,
    );
    for (from, to) in from_whole.iter().zip(to_whole) {
        // SAFETY: both chunks hold 8 elements; f16 is 2 bytes.
        let w = unsafe { _mm256_cvtph_ps(_mm_loadu_si128(from.as_ptr().cast())) };
        if _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_UNORD_Q>(w, w)) != 0 {
            for (t, &f) in to.iter_mut().zip(from) {
                *t = f.to_f32_flushed();
            }
        } else {
            let tiny = _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_andnot_ps(sign, w), min);
            // SAFETY: `to` holds 8 elements.
            unsafe { _mm256_storeu_ps(to.as_mut_ptr(), _mm256_andnot_ps(tiny, w)) };
        }
        // SAFETY: as above.
        let w = unsafe { _mm256_loadu_ps(to.as_ptr()) };
        let e = _mm256_and_si256(
            _mm256_srli_epi32::<23>(_mm256_castps_si256(w)),
            _mm256_set1_epi32(0xff),
        );
        let in_range = _mm256_and_si256(_mm256_cmpgt_epi32(e, lo), _mm256_cmpgt_epi32(hi, e));
        let zero = _mm256_cmpeq_epi32(e, _mm256_setzero_si256());
        ok = _mm256_and_si256(ok, _mm256_or_si256(in_range, zero));
    }
    let mut plain = _mm256_movemask_epi8(ok) == -1;
    plain &= super::widen_run::<super::Grouped<half::f16>, half::f16, _>(
        &from[whole..],
        &mut to[whole..],
        half::f16::to_f32_flushed,
    );
    plain
}

/// `grouped_avx512::block4` with AVX2: `NB` 4×4 blocks of fragments from
/// block `blk`, rows `2h` and `2h + 1` of a block in the lanes `4i + j` of
/// its register `h`. A's column goes to a register's rows by a
/// permutation of those rows' inputs, B's row by a 128-bit broadcast.
///
/// # Safety
/// As [`plain_rows`]; `a` and `b` must be [`Win::whole_blocks`] of 4 × `K`
/// and `K` × 4, and `K` 2 or 4.
#[inline(always)]
pub(super) unsafe fn block4<const G: usize, const K: usize, const NB: usize>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
    blk: usize,
) {
    debug_assert!((K == 2 || K == 4) && K.is_multiple_of(G));
    let c = &mut c[..NB * 16];
    // SAFETY: see `flush_in`; every pointer below addresses elements of a
    // slice checked to hold them.
    unsafe {
        let set1 = _mm256_set1_epi32;
        // Register h's lane 4i' + j reads input (2h + i')·K + kk of the
        // block's A, at index `row[h] + kk` of the 8 inputs loaded for it
        // (K = 4: rows 2h and 2h + 1; K = 2: all four rows).
        let row = if K == 4 {
            [_mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4); 2]
        } else {
            [
                _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2),
                _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6),
            ]
        };
        let mut acc = [[_mm256_setzero_ps(); 2]; NB];
        for (nb, acc) in acc.iter_mut().enumerate() {
            for (h, acc) in acc.iter_mut().enumerate() {
                *acc = flush_in(_mm256_loadu_ps(c[nb * 16 + 8 * h..][..8].as_ptr()));
            }
        }
        for t in 0..steps {
            // The blocks' A and B, 4·K inputs a block, one after another.
            let (ar, br) = (a.row(t, blk, 0, NB * 4 * K), b.row(t, blk, 0, NB * 4 * K));
            for (nb, acc) in acc.iter_mut().enumerate() {
                let (ar, br) = (&ar[nb * 4 * K..], &br[nb * 4 * K..]);
                let va = if K == 4 {
                    [
                        _mm256_loadu_ps(ar[..8].as_ptr()),
                        _mm256_loadu_ps(ar[8..16].as_ptr()),
                    ]
                } else {
                    [_mm256_loadu_ps(ar[..8].as_ptr()); 2]
                };
                for kk in (0..K).step_by(G) {
                    let mut y = [_mm256_setzero_ps(); 4];
                    for (q, y) in y.iter_mut().enumerate().take(G) {
                        let y4 = _mm_loadu_ps(br[4 * (kk + q)..][..4].as_ptr());
                        *y = _mm256_broadcast_ps(&y4);
                    }
                    for (h, acc) in acc.iter_mut().enumerate() {
                        let mut x = [_mm256_setzero_ps(); 4];
                        for (q, x) in x.iter_mut().enumerate().take(G) {
                            let at = _mm256_add_epi32(row[h], set1((kk + q) as i32));
                            *x = _mm256_permutevar8x32_ps(va[h], at);
                        }
                        *acc = add_tree::<G>(*acc, x, y);
                    }
                }
            }
        }
        for (nb, acc) in acc.iter().enumerate() {
            for (h, &acc) in acc.iter().enumerate() {
                _mm256_storeu_ps(c[nb * 16 + 8 * h..][..8].as_mut_ptr(), acc);
            }
        }
    }
}
