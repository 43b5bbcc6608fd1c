//! The fused families' fast chain (see `fused::fast_sums` and
//! `fused::fast_combine`) on 8 lanes with AVX2 intrinsics.
//!
//! The operations are the portable code's, on the same values in the same
//! order, so the bits are the same (the tests compare the copies). Written
//! out because LLVM left much of the portable accumulator step scalar and
//! branching (mixed i32, f64 and u64 lanes).

use super::fused::{Tile, SHORT_CUT};
use core::arch::x86_64::*;

/// `fused::fast_sums` for `W = 8`: the sums and largest exponents of a
/// group of `g` k, written to `sum` and `e_dot`.
///
/// # Safety
/// The CPU must have AVX2, and the caller must be compiled with it (so
/// that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn fast_sums<const SPLIT: bool>(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (a0, b0, stride): (usize, usize, usize),
    sum: &mut [i32; 8],
    e_dot: &mut [i32; 8],
) {
    let (av, ae) = (&ta.v[a0..a0 + g], &ta.e[a0..a0 + g]);
    // SAFETY: see above; every load reads 8 elements of a slice checked to
    // hold them.
    unsafe {
        let parity = |kk: usize| if SPLIT { kk % 2 } else { 0 };
        // Pass 1: the largest exponent per output (per parity if SPLIT).
        let mut e_dots = [_mm256_set1_epi32(i32::MIN); 2];
        for kk in 0..g {
            let eb = _mm256_loadu_si256(tb.e[b0 + kk * stride..][..8].as_ptr().cast());
            let e = _mm256_add_epi32(_mm256_set1_epi32(ae[kk]), eb);
            e_dots[parity(kk)] = _mm256_max_epi32(e_dots[parity(kk)], e);
        }
        // 2^(24 − e_dot), its biased exponent capped at 254 (see
        // `fused::fast_sums`).
        let mut scale = [_mm256_setzero_ps(); 2];
        for p in 0..1 + usize::from(SPLIT) {
            let x = _mm256_sub_epi32(_mm256_set1_epi32(151), e_dots[p]);
            let x = _mm256_min_epi32(x, _mm256_set1_epi32(254));
            scale[p] = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(x));
        }
        // Pass 2: (a · b) · 2^(24 − e_dot), truncated by the conversion.
        let mut sums = [_mm256_setzero_si256(); 2];
        for kk in 0..g {
            let bv = _mm256_loadu_ps(tb.v[b0 + kk * stride..][..8].as_ptr());
            let x = _mm256_mul_ps(_mm256_set1_ps(av[kk]), bv);
            let x = _mm256_mul_ps(x, scale[parity(kk)]);
            sums[parity(kk)] = _mm256_add_epi32(sums[parity(kk)], _mm256_cvttps_epi32(x));
        }
        let (s, e) = if SPLIT {
            // 4.3 step 3: both parities' sums floored to the larger exponent.
            let e = _mm256_max_epi32(e_dots[0], e_dots[1]);
            let by0 = clamp(_mm256_sub_epi32(e, e_dots[0]), 0, 31);
            let by1 = clamp(_mm256_sub_epi32(e, e_dots[1]), 0, 31);
            let s = _mm256_add_epi32(
                _mm256_srav_epi32(sums[0], by0),
                _mm256_srav_epi32(sums[1], by1),
            );
            (s, e)
        } else {
            (sums[0], e_dots[0])
        };
        _mm256_storeu_si256(sum.as_mut_ptr().cast(), s);
        _mm256_storeu_si256(e_dot.as_mut_ptr().cast(), e);
    }
}

/// `fused::fast_combine` for `W = 8`: the same operations lane by lane
/// (the f64 ones on two halves of 4), returning the mask of lanes left for
/// the exact path (whose `c` is left as it was).
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn fast_combine<const SPLIT: bool>(
    sum: &[i32; 8],
    e_dot: &[i32; 8],
    c: &mut [f32; 8],
) -> u32 {
    // SAFETY: see `fast_sums`; the loads and stores are of whole arrays.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let bits = _mm256_loadu_si256(c.as_ptr().cast());
        let e_dot = _mm256_loadu_si256(e_dot.as_ptr().cast());
        let sum = _mm256_loadu_si256(sum.as_ptr().cast());
        let field = _mm256_and_si256(_mm256_srli_epi32::<23>(bits), set1(0xff));
        // The usual step of a chain (`fused::SHORT_CUT`): every lane finite
        // with e_c − e_dot <= SHORT_CUT.
        let e_c_raw = _mm256_sub_epi32(field, set1(127));
        let d = _mm256_sub_epi32(e_c_raw, e_dot);
        // (e_c as reference 4 decodes it: −126 for zero and subnormals.)
        let e_c = _mm256_max_epi32(e_c_raw, set1(-126));
        if !SPLIT && narrow_lanes(bits, e_dot) {
            // (Not for GTR: its two parities' sum may reach 2^30.)
            _mm256_storeu_ps(c.as_mut_ptr(), narrow_step(bits, sum, e_dot));
            return 0;
        }
        let far = _mm256_or_si256(
            _mm256_cmpgt_epi32(d, set1(SHORT_CUT)),
            _mm256_cmpeq_epi32(field, set1(0xff)),
        );
        if _mm256_testz_si256(far, far) != 0 {
            let mut c_in = bits;
            if SPLIT {
                let dropped = _mm256_cmpgt_epi32(_mm256_sub_epi32(e_dot, set1(25)), e_c);
                c_in = _mm256_andnot_si256(dropped, bits);
            }
            // ⌊c/u⌋.
            let scale = _mm256_slli_epi32::<23>(_mm256_sub_epi32(set1(127 + 24), e_dot));
            let below = floor_scaled(_mm256_castsi256_ps(c_in), scale);
            let lo = short_half::<true>(sum, below);
            let hi = short_half::<false>(sum, below);
            let u = _mm256_slli_epi32::<23>(_mm256_add_epi32(e_dot, set1(127 - 24)));
            let x = _mm256_mul_ps(_mm256_set_m128(hi, lo), _mm256_castsi256_ps(u));
            _mm256_storeu_ps(c.as_mut_ptr(), x);
            return 0;
        }
        let big_e = _mm256_max_epi32(e_dot, e_c);
        let sh = clamp(
            _mm256_sub_epi32(_mm256_sub_epi32(big_e, e_dot), set1(8)),
            0,
            31,
        );
        let s = _mm256_srav_epi32(sum, sh);
        let unit = _mm256_add_epi32(_mm256_sub_epi32(e_dot, set1(24)), sh);
        // 2^unit's biased f64 exponent, clamped as the portable code does.
        let unit_field = clamp(_mm256_add_epi32(unit, set1(1023)), 1, 2046);
        // c floored to a multiple of 2^(E − 24) (`fused::floor_f32`).
        let nb = _mm256_sub_epi32(_mm256_sub_epi32(big_e, e_c), set1(1));
        let q = _mm256_sub_epi32(big_e, set1(24));
        let sign = _mm256_and_si256(bits, set1(i32::MIN));
        let mag = _mm256_and_si256(bits, set1(i32::MAX));
        let mask = _mm256_sub_epi32(_mm256_sllv_epi32(set1(1), clamp(nb, 0, 31)), set1(1));
        let negative = _mm256_srai_epi32::<31>(bits);
        let up = _mm256_and_si256(negative, mask);
        let cleared = _mm256_or_si256(sign, _mm256_andnot_si256(mask, _mm256_add_epi32(mag, up)));
        let q_bits = _mm256_slli_epi32::<23>(clamp(_mm256_add_epi32(q, set1(127)), 1, 254));
        let mag_zero = _mm256_cmpeq_epi32(mag, _mm256_setzero_si256());
        let neg_nonzero = _mm256_andnot_si256(mag_zero, negative);
        let below = _mm256_and_si256(neg_nonzero, _mm256_or_si256(sign, q_bits));
        let mut c_used = bits;
        c_used = _mm256_blendv_epi8(c_used, cleared, _mm256_cmpgt_epi32(nb, set1(0)));
        c_used = _mm256_blendv_epi8(c_used, below, _mm256_cmpgt_epi32(nb, set1(23)));
        if SPLIT {
            let dropped = _mm256_cmpgt_epi32(_mm256_sub_epi32(big_e, set1(25)), e_c);
            c_used = _mm256_andnot_si256(dropped, c_used);
        }
        let c_used = _mm256_castsi256_ps(c_used);
        let (lo, tiny_lo) = combine_half::<true>(s, unit_field, c_used);
        let (hi, tiny_hi) = combine_half::<false>(s, unit_field, c_used);
        let out = _mm256_set_m128(hi, lo);
        let tiny = tiny_lo | tiny_hi << 4;
        // The lanes of `tiny` as a lane mask: keep `c` there.
        let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let keep_c = _mm256_cmpeq_epi32(_mm256_and_si256(set1(tiny as i32), lane_bits), lane_bits);
        let merged = _mm256_blendv_ps(out, _mm256_castsi256_ps(bits), _mm256_castsi256_ps(keep_c));
        _mm256_storeu_ps(c.as_mut_ptr(), merged);
        tiny
    }
}

/// Whether every lane's accumulator takes the step in 32-bit integers
/// (`fused_avx512::narrow_lanes`, whose doc says why: `|c| < 1.75 ·
/// 2^(e_dot + 7)`, finite).
#[inline(always)]
unsafe fn narrow_lanes(bits: __m256i, e_dot: __m256i) -> bool {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let mag = _mm256_and_si256(bits, set1(i32::MAX));
        let e = clamp(e_dot, -200, 120);
        let bound = _mm256_add_epi32(_mm256_slli_epi32::<23>(e), set1(134 << 23 | 0x60_0000));
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(bound, mag))) == 0xff
    }
}

/// TR's step in 32-bit integers and one rounding for lanes that
/// [`narrow_lanes`] lets take it: `fused_avx512::narrow_step`, whose doc
/// proves it, on 8 lanes (the floor of `c/u` as the short cut takes it).
#[inline(always)]
unsafe fn narrow_step(c: __m256i, sum: __m256i, e_dot: __m256i) -> __m256 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm256_set1_epi32;
        // Wide lanes: |c| >= 2^(e_dot + 6), i.e. |c|'s bits above those of
        // 2^(e_dot + 6) − 1 ulp, compared unsigned (for `e_dot` above 121 the
        // bound lies at or past the infinities, which `narrow_lanes` keeps
        // out with NaN; it stays below 2^32 since `e_dot <= 124`). AVX2
        // compares signed only: both sides' top bits are flipped, so
        // |c| | SIGN stands for |c|.
        let e_bits = _mm256_slli_epi32::<23>(e_dot);
        let flipped_bound = _mm256_add_epi32(e_bits, set1(((133u32 << 23) - 1 + (1 << 31)) as i32));
        let wide = _mm256_cmpgt_epi32(_mm256_or_si256(c, set1(i32::MIN)), flipped_bound);
        // 2^(24 − e_dot − σ) (σ = 2 in wide lanes), and u · 2^σ.
        let scale = _mm256_sub_epi32(set1(151 << 23), e_bits);
        let scale = _mm256_sub_epi32(scale, _mm256_and_si256(wide, set1(2 << 23)));
        let unit = _mm256_sub_epi32(set1(254 << 23), scale);
        let c_units = _mm256_cvttps_epi32(floor_scaled(_mm256_castsi256_ps(c), scale));
        let n = _mm256_add_epi32(
            _mm256_srav_epi32(sum, _mm256_and_si256(wide, set1(2))),
            c_units,
        );
        // Rounded to odd: the lowest bit set where S's shifted-out bits are not both zero.
        let out = _mm256_and_si256(sum, _mm256_and_si256(wide, set1(3)));
        let n = _mm256_or_si256(n, _mm256_min_epi32(out, set1(1)));
        _mm256_mul_ps(_mm256_cvtepi32_ps(n), _mm256_castsi256_ps(unit))
    }
}

/// `c` times the power of two `scale` (its bits), floored: exact where the
/// product is normal; where it underflowed to −0, −1 (a negative `c` gives
/// at most −1).
#[inline(always)]
unsafe fn floor_scaled(c: __m256, scale: __m256i) -> __m256 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let x = _mm256_mul_ps(c, _mm256_castsi256_ps(scale));
        let x = _mm256_round_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(x);
        let negative = _mm256_cmp_ps::<_CMP_LT_OQ>(c, _mm256_setzero_ps());
        let most = _mm256_blendv_ps(
            _mm256_set1_ps(f32::INFINITY),
            _mm256_set1_ps(-1.0),
            negative,
        );
        _mm256_min_ps(x, most)
    }
}

/// `x` clamped to `lo..=hi`, lane by lane.
#[inline(always)]
unsafe fn clamp(x: __m256i, lo: i32, hi: i32) -> __m256i {
    // SAFETY: see `fast_sums`.
    unsafe {
        _mm256_min_epi32(
            _mm256_max_epi32(x, _mm256_set1_epi32(lo)),
            _mm256_set1_epi32(hi),
        )
    }
}

/// The short cut's f64 part for lanes 0..4 (`LO`) or 4..8: `X/u = S +
/// ⌊c/u⌋` (exact), floored to 31 bits below its leading one and rounded
/// to f32.
#[inline(always)]
unsafe fn short_half<const LO: bool>(s: __m256i, below: __m256) -> __m128 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let (s, _, below) = halves::<LO>(s, s, below);
        let x = _mm256_add_pd(_mm256_cvtepi32_pd(s), _mm256_cvtps_pd(below));
        _mm256_cvtpd_ps(floor_31(x))
    }
}

/// The f64 power of two of each biased exponent.
#[inline(always)]
unsafe fn power(field: __m128i) -> __m256d {
    // SAFETY: see `fast_sums`.
    unsafe { _mm256_castsi256_pd(_mm256_slli_epi64::<52>(_mm256_cvtepi32_epi64(field))) }
}

/// Lanes 0..4 (`LO`) or 4..8 of two integer vectors and a float one.
#[inline(always)]
unsafe fn halves<const LO: bool>(s: __m256i, u: __m256i, c: __m256) -> (__m128i, __m128i, __m128) {
    // SAFETY: see `fast_sums`.
    unsafe {
        if LO {
            (
                _mm256_castsi256_si128(s),
                _mm256_castsi256_si128(u),
                _mm256_castps256_ps128(c),
            )
        } else {
            (
                _mm256_extracti128_si256::<1>(s),
                _mm256_extracti128_si256::<1>(u),
                _mm256_extractf128_ps::<1>(c),
            )
        }
    }
}

/// `t` floored to a multiple of 2^-31 times its leading one: the low 21
/// bits of its significand cleared, a negative value rounded away from zero.
#[inline(always)]
unsafe fn floor_31(t: __m256d) -> __m256d {
    // SAFETY: see `fast_sums`.
    unsafe {
        let tb = _mm256_castpd_si256(t);
        let low = _mm256_set1_epi64x(0x1f_ffff);
        let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), tb);
        let up = _mm256_and_si256(negative, low);
        _mm256_castsi256_pd(_mm256_andnot_si256(low, _mm256_add_epi64(tb, up)))
    }
}

/// The f64 part of [`fast_combine`] for lanes 0..4 (`LO`) or 4..8: `T =
/// s · 2^unit + c` (exact; `unit_field` is 2^unit's biased exponent),
/// floored to 31 bits below its leading one and rounded to f32, and the
/// mask of lanes whose `T` is nonzero and below 2^-126. A function, not a
/// closure: a closure would not inherit the caller's target features.
#[inline(always)]
unsafe fn combine_half<const LO: bool>(
    s: __m256i,
    unit_field: __m256i,
    c: __m256,
) -> (__m128, u32) {
    // SAFETY: see `fast_sums`.
    unsafe {
        let (s, unit_field, c) = halves::<LO>(s, unit_field, c);
        let t = _mm256_add_pd(
            _mm256_mul_pd(_mm256_cvtepi32_pd(s), power(unit_field)),
            _mm256_cvtps_pd(c),
        );
        let floored = floor_31(t);
        let abs = _mm256_andnot_pd(_mm256_set1_pd(-0.0), t);
        let nonzero = _mm256_cmp_pd::<_CMP_NEQ_UQ>(t, _mm256_setzero_pd());
        let small = _mm256_cmp_pd::<_CMP_LT_OQ>(abs, _mm256_set1_pd(f64::from(f32::MIN_POSITIVE)));
        let tiny = _mm256_movemask_pd(_mm256_and_pd(nonzero, small)) as u32;
        (_mm256_cvtpd_ps(floored), tiny)
    }
}
