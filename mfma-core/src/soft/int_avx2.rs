//! The i8 chain (see `int::wrapping_rows`) with `vpmaddwd`, for rows of C
//! that are whole pairs of 8-lane registers (`N` a multiple of 16).
//!
//! `vpmaddwd` multiplies i16 lanes and adds adjacent products into i32:
//! with B's rows k and k+1 interleaved and A's pair `(a_k, a_k+1)` in every
//! lane, one instruction adds two k to 8 outputs. Both sums are exact
//! (`|a·b| <= 2^14`), and wrap-around addition is associative, so the bits
//! are those of any other order. Interleaving works within 128-bit halves,
//! so the accumulators hold the columns of 16 in the order 0-3, 8-11 (low
//! unpack) and 4-7, 12-15 (high unpack); C is permuted into that order when
//! loaded and back when stored.

use super::Win;
use core::arch::x86_64::*;

/// `int::wrapping_rows` for `N = 16·H`: `R` rows of block `blk` of C
/// (`c`, from row `row`) through the chain.
///
/// # Safety
/// The CPU must have AVX2, and the caller must be compiled with it (so
/// that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn wrapping_rows<
    const N: usize,
    const K: usize,
    const H: usize,
    const R: usize,
>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
    row: usize,
) {
    // Instantiated for every shape, called only for whole pairs of registers
    // and an even K (every i8 builtin's).
    debug_assert!(N == 16 * H && K.is_multiple_of(2));
    let c = &mut c[..R * N];
    // SAFETY: the caller runs on a CPU with AVX2, inside code compiled with
    // it; every pointer addresses 8 i32 or 16 i16 of a slice checked to
    // hold them (`c` above, `Rows::get` for B).
    unsafe {
        // acc[r][h] = (columns 16h + 0-3, 8-11; columns 16h + 4-7, 12-15).
        let mut acc = [[(_mm256_setzero_si256(), _mm256_setzero_si256()); H]; R];
        for (r, acc) in acc.iter_mut().enumerate() {
            for (h, acc) in acc.iter_mut().enumerate() {
                let p = c[r * N + h * 16..][..16].as_ptr();
                let (lo, hi) = (
                    _mm256_loadu_si256(p.cast()),
                    _mm256_loadu_si256(p.add(8).cast()),
                );
                *acc = (
                    _mm256_permute2x128_si256::<0x20>(lo, hi),
                    _mm256_permute2x128_si256::<0x31>(lo, hi),
                );
            }
        }
        let (runs, len) = Win::runs(&a, &b, K, steps);
        for t in 0..runs {
            let a = a.rows::<R>(t, blk, row, len);
            let b = b.run::<N>(t, blk, 0, len);
            for kk in (0..len).step_by(2) {
                for h in 0..H {
                    let y0 = _mm256_loadu_si256(b.get::<16>(kk, h * 16).as_ptr().cast());
                    let y1 = _mm256_loadu_si256(b.get::<16>(kk + 1, h * 16).as_ptr().cast());
                    let (lo, hi) = (_mm256_unpacklo_epi16(y0, y1), _mm256_unpackhi_epi16(y0, y1));
                    for (a, acc) in a.iter().zip(acc.iter_mut()) {
                        // (a_k, a_k+1) in every i32 lane, a_k in the low half:
                        // the two i16 as they lie in memory, read as one i32
                        // (one broadcast load, no shifts).
                        let pair = a[kk..][..2].as_ptr().cast::<i32>().read_unaligned();
                        let x = _mm256_set1_epi32(pair);
                        let acc = &mut acc[h];
                        acc.0 = _mm256_add_epi32(acc.0, _mm256_madd_epi16(lo, x));
                        acc.1 = _mm256_add_epi32(acc.1, _mm256_madd_epi16(hi, x));
                    }
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (h, &(lo, hi)) in acc.iter().enumerate() {
                let p = c[r * N + h * 16..][..16].as_mut_ptr();
                _mm256_storeu_si256(p.cast(), _mm256_permute2x128_si256::<0x20>(lo, hi));
                _mm256_storeu_si256(p.add(8).cast(), _mm256_permute2x128_si256::<0x31>(lo, hi));
            }
        }
    }
}
