//! The plain path of the f16/bf16 kernels (see `grouped::plain_rows`)
//! written with AVX2 intrinsics, for rows of C that are whole 8-lane
//! registers.
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
                    let y0 = _mm256_loadu_ps(y[0][v * 8..][..8].as_ptr());
                    let y1 = _mm256_loadu_ps(y[1][v * 8..][..8].as_ptr());
                    for (a, acc) in a.iter().zip(acc.iter_mut()) {
                        let x = &a[kk..][..G];
                        let left = _mm256_mul_ps(_mm256_set1_ps(x[0]), y0);
                        let mut tree = _mm256_fmadd_ps(_mm256_set1_ps(x[1]), y1, left);
                        if G == 4 {
                            let y2 = _mm256_loadu_ps(y[2 % G][v * 8..][..8].as_ptr());
                            let y3 = _mm256_loadu_ps(y[3 % G][v * 8..][..8].as_ptr());
                            let right = _mm256_mul_ps(_mm256_set1_ps(x[2 % G]), y2);
                            let right = _mm256_fmadd_ps(_mm256_set1_ps(x[3 % G]), y3, right);
                            tree = _mm256_add_ps(tree, right);
                        }
                        acc[v] = _mm256_add_ps(acc[v], tree);
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
