//! The i8 chain (see `int::wrapping_rows`) with `vpmaddwd`, for blocks of
//! C of 16 or 32 columns, and for 4×4 blocks ([`block4`]).
//!
//! `vpmaddwd` multiplies i16 lanes and adds adjacent products into i32:
//! with B's rows k and k+1 interleaved and A's pair `(a_k, a_k+1)` in every
//! lane, one instruction adds two k to 8 outputs. Both sums are exact
//! (`|a·b| <= 2^14`), and wrap-around addition is associative, so the bits
//! are those of any other order. B's rows are interleaved once per block
//! and span of k, into a buffer in natural column order that every group
//! of `R` rows then reads: the inner loop is loads, broadcasts, `vpmaddwd`
//! and `vpaddd`.

use super::int::spans;
use super::Win;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// k of B interleaved into the buffer at a time (4 KiB for 32 columns).
const SPAN: usize = 64;

/// B's rows `kk` and `kk + 1`, `16·H` columns, interleaved: register
/// `[h][s]` holds the pairs of columns `16h + 8s..16h + 8s + 8`.
///
/// # Safety
/// As for [`wrapping_block`].
#[inline(always)]
unsafe fn pairs<const N: usize, const H: usize>(
    b: &super::Rows<'_, i16, N>,
    kk: usize,
) -> [[__m256i; 2]; H] {
    // SAFETY: loads of whole rows that `Rows::get` checks, and register
    // operations; under the caller's features.
    unsafe {
        let mut out = [[_mm256_setzero_si256(); 2]; H];
        for (h, out) in out.iter_mut().enumerate() {
            let y0 = _mm256_loadu_si256(b.get::<16>(kk, h * 16).as_ptr().cast());
            let y1 = _mm256_loadu_si256(b.get::<16>(kk + 1, h * 16).as_ptr().cast());
            // Within 128-bit halves: columns 0-3, 8-11 (low), 4-7, 12-15 (high).
            let (lo, hi) = (_mm256_unpacklo_epi16(y0, y1), _mm256_unpackhi_epi16(y0, y1));
            *out = [
                _mm256_permute2x128_si256::<0x20>(lo, hi),
                _mm256_permute2x128_si256::<0x31>(lo, hi),
            ];
        }
        out
    }
}

/// `int::wrapping_rows` for a whole block `blk` of `m` rows (a multiple of
/// `R`) and `N = 16·H` columns, `k` a step (even), `R` rows at a time.
///
/// # Safety
/// The CPU must have AVX2, and the caller must be compiled with it (so
/// that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn wrapping_block<const N: usize, const H: usize, const R: usize>(
    (a, b): (Win<'_, i16>, Win<'_, i16>),
    (k, steps): (usize, usize),
    c: &mut [i32],
    (blk, m): (usize, usize),
) {
    debug_assert!(N == 16 * H && k.is_multiple_of(2) && m.is_multiple_of(R));
    let c = &mut c[..m * N];
    let (runs, len) = Win::runs(&a, &b, k, steps);
    // SAFETY: the caller runs on a CPU with AVX2, inside code compiled with
    // it; every load and store addresses 8 i32 of `c` (checked above) or
    // rows that `Rows::get` checks, A's pairs two i16 of the k `ks` of a
    // row, checked to hold them (`ks.len()` is even), and `buf` is read
    // only below the `n` entries written first.
    unsafe {
        let mut buf = [const { MaybeUninit::<[[__m256i; 2]; H]>::uninit() }; SPAN / 2];
        for (ts, ks) in spans(runs, len, SPAN) {
            let mut n = 0;
            for t in ts.clone() {
                let b = b.run::<N>(t, blk, 0, len);
                for kk in ks.clone().step_by(2) {
                    buf[n].write(pairs::<N, H>(&b, kk));
                    n += 1;
                }
            }
            for (g, c) in c.chunks_exact_mut(R * N).enumerate() {
                let mut acc = [[[_mm256_setzero_si256(); 2]; H]; R];
                for (r, acc) in acc.iter_mut().enumerate() {
                    for (h, acc) in acc.iter_mut().enumerate() {
                        for (s, acc) in acc.iter_mut().enumerate() {
                            let p = c[r * N + h * 16 + s * 8..][..8].as_ptr();
                            *acc = _mm256_loadu_si256(p.cast());
                        }
                    }
                }
                let mut i = 0;
                for t in ts.clone() {
                    let rows = a.rows::<R>(t, blk, g * R, len);
                    let ys = &buf[i..][..ks.len() / 2];
                    i += ys.len();
                    // Each row from `ks.start` on, checked once here (so
                    // that the inner loop has no bounds checks).
                    let mut a = [core::ptr::null::<i16>(); R];
                    for (a, row) in a.iter_mut().zip(rows) {
                        *a = row[ks.clone()].as_ptr();
                    }
                    for (q, y) in ys.iter().enumerate() {
                        let y = y.assume_init();
                        for (&a, acc) in a.iter().zip(acc.iter_mut()) {
                            // (a_k, a_k+1) in every i32 lane, a_k in the low
                            // half: the two i16 as they lie in memory, read as
                            // one i32 (one broadcast load, no shifts).
                            let x = _mm256_set1_epi32(a.add(2 * q).cast::<i32>().read_unaligned());
                            for (y, acc) in y.iter().zip(acc.iter_mut()) {
                                for (&y, acc) in y.iter().zip(acc.iter_mut()) {
                                    *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(y, x));
                                }
                            }
                        }
                    }
                }
                debug_assert_eq!(i, n);
                for (r, acc) in acc.iter().enumerate() {
                    for (h, acc) in acc.iter().enumerate() {
                        for (s, &acc) in acc.iter().enumerate() {
                            let p = c[r * N + h * 16 + s * 8..][..8].as_mut_ptr();
                            _mm256_storeu_si256(p.cast(), acc);
                        }
                    }
                }
            }
        }
    }
}

/// `int_avx512::block4` with `vpmaddwd`: `NB` 4×4×4 blocks of fragments
/// from block `blk`, rows `2r` and `2r + 1` of a block in the lanes
/// `4i + j` of its register `r`. A's pair `(a_i,kk, a_i,kk+1)` goes to
/// row i's lanes by a permutation of the block's 8 pairs, B's pairs
/// `(b_kk,j, b_kk+1,j)` to every row by a 128-bit broadcast.
///
/// # Safety
/// The CPU must have AVX2, and the caller must be compiled with it; `a`
/// and `b` must be [`Win::whole_blocks`] of 4 × 4.
#[inline(always)]
pub(super) unsafe fn block4<const NB: usize>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
) {
    let c = &mut c[..NB * 16];
    // SAFETY: see above; every load and store addresses elements of a
    // slice checked to hold them.
    unsafe {
        // Register r's lane 4i' + j reads A's pair 2(2r + i') + h.
        let row = [
            _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2),
            _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6),
        ];
        let mut acc = [[_mm256_setzero_si256(); 2]; NB];
        for (nb, acc) in acc.iter_mut().enumerate() {
            for (r, acc) in acc.iter_mut().enumerate() {
                *acc = _mm256_loadu_si256(c[nb * 16 + 8 * r..][..8].as_ptr().cast());
            }
        }
        for t in 0..steps {
            // The blocks' A and B, 16 inputs a block, one after another.
            let (ar, br) = (a.row(t, blk, 0, NB * 16), b.row(t, blk, 0, NB * 16));
            for (nb, acc) in acc.iter_mut().enumerate() {
                let va = _mm256_loadu_si256(ar[nb * 16..][..16].as_ptr().cast());
                // B's rows 2h and 2h + 1 interleaved in 128-bit lane h.
                let vb = _mm256_loadu_si256(br[nb * 16..][..16].as_ptr().cast());
                let pairs = _mm256_unpacklo_epi16(vb, _mm256_srli_si256::<8>(vb));
                let y = [
                    _mm256_permute2x128_si256::<0x00>(pairs, pairs),
                    _mm256_permute2x128_si256::<0x11>(pairs, pairs),
                ];
                for (h, y) in y.into_iter().enumerate() {
                    for (r, acc) in acc.iter_mut().enumerate() {
                        let at = _mm256_add_epi32(row[r], _mm256_set1_epi32(h as i32));
                        let x = _mm256_permutevar8x32_epi32(va, at);
                        *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(x, y));
                    }
                }
            }
        }
        for (nb, acc) in acc.iter().enumerate() {
            for (r, &acc) in acc.iter().enumerate() {
                _mm256_storeu_si256(c[nb * 16 + 8 * r..][..8].as_mut_ptr().cast(), acc);
            }
        }
    }
}
