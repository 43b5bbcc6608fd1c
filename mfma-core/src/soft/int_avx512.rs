//! The i8 chain (see `int::wrapping_rows`) with AVX-512 VNNI's `vpdpwssd`,
//! for rows of C of 16 or 32 columns.
//!
//! `vpdpwssd` multiplies i16 lanes and adds adjacent products, and the
//! accumulator, into i32 lanes, wrapping: with B's rows k and k+1
//! interleaved and A's pair `(a_k, a_k+1)` in every lane, one instruction
//! adds two k to 16 outputs. The products and their pair sum are exact
//! (`|a·b| <= 2^14`), and wrap-around addition is associative, so the bits
//! are those of any other order. Interleaving works within 128-bit lanes,
//! so an accumulator pair holds a row's columns in the order of the
//! interleave (see [`LO`]); C is permuted into that order when loaded and
//! back when stored, once per chain.

use super::Win;
use core::arch::x86_64::*;

/// Columns of a 32-column row in the low (`LO`) and high (`HI`) unpack of
/// its two rows of B: within each 128-bit lane `q`, the low unpack holds
/// columns `8q..8q+4`, the high one `8q+4..8q+8`.
const LO: [i32; 16] = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];
/// See [`LO`].
const HI: [i32; 16] = [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31];

/// `vpdpwssd acc, a, b` on 16 lanes, as one instruction: LLVM's generic
/// x86-64 tuning rewrites the intrinsic into `vpmaddwd` + `vpaddd` (two
/// uops, the second on the port the unpacks need), which left the AVX-512
/// i8 chain no faster than the AVX2 one. The same arithmetic, exactly: the
/// pair sum is exact and added with wrap-around either way.
#[inline]
#[target_feature(enable = "avx512f,avx512vnni")]
fn dpwssd(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
    let mut acc = acc;
    // SAFETY: the instruction only reads and writes these registers, and
    // the function is compiled (and called) only with AVX-512 VNNI.
    unsafe {
        core::arch::asm!(
            "vpdpwssd {acc}, {a}, {b}",
            acc = inout(zmm_reg) acc,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}

/// [`dpwssd`] on 8 lanes (EVEX encoded, AVX-512 VL).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512vnni")]
fn dpwssd_256(acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
    let mut acc = acc;
    // SAFETY: as for `dpwssd`.
    unsafe {
        core::arch::asm!(
            "vpdpwssd {acc}, {a}, {b}",
            acc = inout(ymm_reg) acc,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}

/// The index vector of `_mm512_permutex2var_epi32` picking columns `cols`
/// of a row held as two registers (columns 0-15 and 16-31).
#[inline(always)]
fn gather(cols: [i32; 16]) -> __m512i {
    // SAFETY: `[i32; 16]` and `__m512i` have the same size; any bits are valid.
    unsafe { core::mem::transmute::<[i32; 16], __m512i>(cols) }
}

/// The inverse of `gather(LO), gather(HI)`: where column `j` lies in the
/// pair `(lo, hi)` (index `16 + i` for `hi`'s lane `i`).
const fn scatter(half: usize) -> [i32; 16] {
    let mut out = [0i32; 16];
    let mut i = 0;
    while i < 16 {
        let j = half * 16 + i;
        // Column j sits in LO or HI at lane (j / 8) * 4 + j % 4.
        let lane = (j / 8) * 4 + j % 4;
        out[i] = if j % 8 < 4 { lane } else { 16 + lane } as i32;
        i += 1;
    }
    out
}

/// `int::wrapping_rows` for `N = 32`: `R` rows of block `blk` of C (`c`,
/// from row `row`) through the chain, one register of B per row of K.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VNNI, and the caller must be
/// compiled with them (so that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn wrapping_rows_32<const K: usize, const R: usize>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
    row: usize,
) {
    const N: usize = 32;
    debug_assert!(K.is_multiple_of(2));
    let c = &mut c[..R * N];
    // SAFETY: the caller runs on a CPU with the features, inside code
    // compiled with them; every pointer addresses 16 i32 or 32 i16 of a
    // slice checked to hold them (`c` above, `Rows::get` for B), and A's
    // pairs two i16 of a row checked to hold them (`kk + 1 < len`).
    unsafe {
        let (lo_of, hi_of) = (gather(LO), gather(HI));
        let mut acc = [(_mm512_setzero_si512(), _mm512_setzero_si512()); R];
        for (r, acc) in acc.iter_mut().enumerate() {
            let p = c[r * N..][..N].as_ptr();
            let (c0, c1) = (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(16).cast()),
            );
            *acc = (
                _mm512_permutex2var_epi32(c0, lo_of, c1),
                _mm512_permutex2var_epi32(c0, hi_of, c1),
            );
        }
        let (runs, len) = Win::runs(&a, &b, K, steps);
        for t in 0..runs {
            let a = a.rows::<R>(t, blk, row, len);
            let b = b.run::<N>(t, blk, 0, len);
            for kk in (0..len).step_by(2) {
                let y0 = _mm512_loadu_si512(b.get::<32>(kk, 0).as_ptr().cast());
                let y1 = _mm512_loadu_si512(b.get::<32>(kk + 1, 0).as_ptr().cast());
                let (lo, hi) = (_mm512_unpacklo_epi16(y0, y1), _mm512_unpackhi_epi16(y0, y1));
                for (a, acc) in a.iter().zip(acc.iter_mut()) {
                    // (a_k, a_k+1) in every i32 lane, a_k in the low half:
                    // the two i16 as they lie in memory, read as one i32.
                    let pair = a[kk..][..2].as_ptr().cast::<i32>().read_unaligned();
                    let x = _mm512_set1_epi32(pair);
                    acc.0 = dpwssd(acc.0, lo, x);
                    acc.1 = dpwssd(acc.1, hi, x);
                }
            }
        }
        let (first, second) = (gather(scatter(0)), gather(scatter(1)));
        for (r, &(lo, hi)) in acc.iter().enumerate() {
            let p = c[r * N..][..N].as_mut_ptr();
            _mm512_storeu_si512(p.cast(), _mm512_permutex2var_epi32(lo, first, hi));
            _mm512_storeu_si512(p.add(16).cast(), _mm512_permutex2var_epi32(lo, second, hi));
        }
    }
}

/// `int::wrapping_rows` for `N = 16`: as [`wrapping_rows_32`], on 256-bit
/// registers (`vpdpwssd` with AVX-512 VL), whose two 128-bit lanes hold
/// columns 0-3, 8-11 (low unpack) and 4-7, 12-15 (high unpack).
///
/// # Safety
/// As for [`wrapping_rows_32`], with AVX-512 VL.
#[inline(always)]
pub(super) unsafe fn wrapping_rows_16<const K: usize, const R: usize>(
    a: Win<'_, i16>,
    b: Win<'_, i16>,
    steps: usize,
    c: &mut [i32],
    blk: usize,
    row: usize,
) {
    const N: usize = 16;
    debug_assert!(K.is_multiple_of(2));
    let c = &mut c[..R * N];
    // SAFETY: as in `wrapping_rows_32`.
    unsafe {
        let mut acc = [(_mm256_setzero_si256(), _mm256_setzero_si256()); R];
        for (r, acc) in acc.iter_mut().enumerate() {
            let p = c[r * N..][..N].as_ptr();
            let (c0, c1) = (
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(8).cast()),
            );
            *acc = (
                _mm256_permute2x128_si256::<0x20>(c0, c1),
                _mm256_permute2x128_si256::<0x31>(c0, c1),
            );
        }
        let (runs, len) = Win::runs(&a, &b, K, steps);
        for t in 0..runs {
            let a = a.rows::<R>(t, blk, row, len);
            let b = b.run::<N>(t, blk, 0, len);
            for kk in (0..len).step_by(2) {
                let y0 = _mm256_loadu_si256(b.get::<16>(kk, 0).as_ptr().cast());
                let y1 = _mm256_loadu_si256(b.get::<16>(kk + 1, 0).as_ptr().cast());
                let (lo, hi) = (_mm256_unpacklo_epi16(y0, y1), _mm256_unpackhi_epi16(y0, y1));
                for (a, acc) in a.iter().zip(acc.iter_mut()) {
                    let pair = a[kk..][..2].as_ptr().cast::<i32>().read_unaligned();
                    let x = _mm256_set1_epi32(pair);
                    acc.0 = dpwssd_256(acc.0, lo, x);
                    acc.1 = dpwssd_256(acc.1, hi, x);
                }
            }
        }
        for (r, &(lo, hi)) in acc.iter().enumerate() {
            let p = c[r * N..][..N].as_mut_ptr();
            _mm256_storeu_si256(p.cast(), _mm256_permute2x128_si256::<0x20>(lo, hi));
            _mm256_storeu_si256(p.add(8).cast(), _mm256_permute2x128_si256::<0x31>(lo, hi));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{scatter, HI, LO};

    /// Storing through `scatter` puts every column back where it came from.
    #[test]
    fn scatter_inverts_the_unpack_order() {
        let pair: std::vec::Vec<i32> = LO.iter().chain(&HI).copied().collect();
        for half in 0..2 {
            for (i, &at) in scatter(half).iter().enumerate() {
                assert_eq!(pair[at as usize], (half * 16 + i) as i32);
            }
        }
    }
}
