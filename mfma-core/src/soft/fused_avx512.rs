//! Passes 1 and 2 of the fused families' fast chain (see
//! `fused::fast_sums`) on 16 lanes with AVX-512 intrinsics.
//!
//! The operations are the portable code's, on the same values in the same
//! order, so the bits are the same (the tests compare the copies). Written
//! out because LLVM vectorises the portable loops of a group of 8 k across
//! k (a horizontal maximum and gathers per output) rather than across the
//! 16 outputs, five times slower.

use super::fused::{Tile, SHORT_CUT};
use core::arch::x86_64::*;

/// One group of a row of 32 outputs (two vectors of 16), the accumulator
/// step included: pass 1 for both vectors at once in 32 lanes of 16 bits
/// (exponents and their sums lie in −1024..=254), then passes 2 and the
/// step for each; `tb.e16` holds B's exponents as 16-bit integers, 32 a
/// row. Returns the lanes left for the exact path, per
/// vector, as [`fast_combine`] does.
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn fast_pair<const SPLIT: bool>(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (a0, b0): (usize, usize),
    c: &mut [f32; 32],
) -> [u32; 2] {
    // SAFETY: see `fast_sums`; every load reads 32 elements of a slice
    // checked to hold them.
    unsafe {
        let e_dots = pass1_row::<SPLIT>(&ta.e[a0..a0 + g], &tb.e16[b0..]);
        let pre = [
            [widen::<true>(e_dots[0]), widen::<true>(e_dots[1])],
            [widen::<false>(e_dots[0]), widen::<false>(e_dots[1])],
        ];
        let mut redo = [0; 2];
        let (c0, c1) = c.split_at_mut(16);
        for (v, c) in [c0, c1].into_iter().enumerate() {
            let (mut sum, mut e_dot) = ([0; 16], [0; 16]);
            let at = (a0, b0 + v * 16, 32);
            fast_sums::<SPLIT>((ta, tb), g, at, Some(pre[v]), &mut sum, &mut e_dot);
            redo[v] = fast_combine::<SPLIT>(&sum, &e_dot, c.try_into().expect("16 lanes"));
        }
        redo
    }
}

/// Pass 1 for a row of 32 outputs in 32 lanes of 16 bits: the largest
/// exponent per output (per parity of k if `SPLIT`, else in the first
/// entry); A's exponents `ea` (a group's), B's `eb` in 16 bits, 32 a row
/// from the group's first. Exponents lie in −512..=127 (−512: zero), their
/// sums in −1024..=254.
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn pass1_row<const SPLIT: bool>(ea: &[i32], eb: &[i16]) -> [__m512i; 2] {
    // SAFETY: see `fast_sums`; every load reads 32 elements of a slice
    // checked to hold them.
    unsafe {
        let mut e_dots = [_mm512_set1_epi16(i16::MIN); 2];
        for (kk, &ea) in ea.iter().enumerate() {
            let eb = _mm512_loadu_si512(eb[kk * 32..][..32].as_ptr().cast());
            let e = _mm512_add_epi16(_mm512_set1_epi16(ea as i16), eb);
            let p = if SPLIT { kk % 2 } else { 0 };
            e_dots[p] = _mm512_max_epi16(e_dots[p], e);
        }
        e_dots
    }
}

/// Lanes 0..16 (`LO`) or 16..32 of 32 16-bit integers, as 32-bit ones.
#[inline(always)]
pub(super) unsafe fn widen<const LO: bool>(x: __m512i) -> __m512i {
    // SAFETY: see `fast_sums`.
    unsafe {
        if LO {
            _mm512_cvtepi16_epi32(_mm512_castsi512_si256(x))
        } else {
            _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64::<1>(x))
        }
    }
}

/// `fused::fast_sums` for `W = 16`: the sums and largest exponents of a
/// group of `g` k, written to `sum` and `e_dot` (16 each); pass 1 is
/// skipped when its result `e_pre` is given (by [`fast_pair`]).
///
/// # Safety
/// The CPU must have AVX-512 F, BW and DQ, and the caller must be
/// compiled with them (so that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn fast_sums<const SPLIT: bool>(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (a0, b0, stride): (usize, usize, usize),
    e_pre: Option<[__m512i; 2]>,
    sum: &mut [i32; 16],
    e_dot: &mut [i32; 16],
) {
    let (av, ae) = (&ta.v[a0..a0 + g], &ta.e[a0..a0 + g]);
    // SAFETY: see above; every load reads 16 elements of a slice checked
    // to hold them.
    unsafe {
        let parity = |kk: usize| if SPLIT { kk % 2 } else { 0 };
        // Pass 1: the largest exponent per output (per parity if SPLIT).
        let e_dots = match e_pre {
            Some(e_dots) => e_dots,
            None => {
                let mut e_dots = [_mm512_set1_epi32(i32::MIN); 2];
                for kk in 0..g {
                    let eb = _mm512_loadu_si512(tb.e[b0 + kk * stride..][..16].as_ptr().cast());
                    let e = _mm512_add_epi32(_mm512_set1_epi32(ae[kk]), eb);
                    e_dots[parity(kk)] = _mm512_max_epi32(e_dots[parity(kk)], e);
                }
                e_dots
            }
        };
        let mut scale = [_mm512_setzero_ps(); 2];
        for p in 0..1 + usize::from(SPLIT) {
            scale[p] = _mm512_castsi512_ps(scale_bits(e_dots[p]));
        }
        // Pass 2: (a · b) · 2^(24 − e_dot), truncated by the conversion.
        let mut sums = [_mm512_setzero_si512(); 2];
        for kk in 0..g {
            let bv = _mm512_loadu_ps(tb.v[b0 + kk * stride..][..16].as_ptr());
            let x = _mm512_mul_ps(_mm512_set1_ps(av[kk]), bv);
            let x = _mm512_mul_ps(x, scale[parity(kk)]);
            sums[parity(kk)] = _mm512_add_epi32(sums[parity(kk)], _mm512_cvttps_epi32(x));
        }
        let (s, e) = if SPLIT {
            // 4.3 step 3: both parities' sums floored to the larger exponent.
            let e = _mm512_max_epi32(e_dots[0], e_dots[1]);
            let by0 = clamp(_mm512_sub_epi32(e, e_dots[0]), 0, 31);
            let by1 = clamp(_mm512_sub_epi32(e, e_dots[1]), 0, 31);
            let s = _mm512_add_epi32(
                _mm512_srav_epi32(sums[0], by0),
                _mm512_srav_epi32(sums[1], by1),
            );
            (s, e)
        } else {
            (sums[0], e_dots[0])
        };
        _mm512_storeu_si512(sum.as_mut_ptr().cast(), s);
        _mm512_storeu_si512(e_dot.as_mut_ptr().cast(), e);
    }
}

/// `fused::fast_combine` for `W = 16`: the same operations lane by lane
/// (the f64 ones on two halves of 8), returning the mask of lanes left for
/// the exact path (whose `c` is left as it was).
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn fast_combine<const SPLIT: bool>(
    sum: &[i32; 16],
    e_dot: &[i32; 16],
    c: &mut [f32; 16],
) -> u32 {
    // SAFETY: see `fast_sums`; the loads and stores are of whole arrays.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let bits = _mm512_loadu_si512(c.as_ptr().cast());
        let e_dot = _mm512_loadu_si512(e_dot.as_ptr().cast());
        let sum = _mm512_loadu_si512(sum.as_ptr().cast());
        let field = _mm512_and_si512(_mm512_srli_epi32::<23>(bits), set1(0xff));
        // (e_c as reference 4 decodes it: −126 for zero and subnormals.)
        let e_c = _mm512_max_epi32(_mm512_sub_epi32(field, set1(127)), set1(-126));
        // (Not for GTR: its two parities' sum may reach 2^30.)
        let narrow = !SPLIT && narrow_lanes(bits, e_dot) == u16::MAX;
        if narrow || near_lanes(bits, e_dot) == u16::MAX {
            let mut c_in = bits;
            if SPLIT {
                let kept = _mm512_cmpge_epi32_mask(e_c, _mm512_sub_epi32(e_dot, set1(25)));
                c_in = _mm512_maskz_mov_epi32(kept, bits);
            }
            let out = if narrow {
                narrow_step(c_in, sum, scale_bits(e_dot))
            } else {
                short_cut(c_in, sum, e_dot)
            };
            _mm512_storeu_ps(c.as_mut_ptr(), out);
            return 0;
        }
        let big_e = _mm512_max_epi32(e_dot, e_c);
        let sh = clamp(
            _mm512_sub_epi32(_mm512_sub_epi32(big_e, e_dot), set1(8)),
            0,
            31,
        );
        let s = _mm512_srav_epi32(sum, sh);
        let unit = _mm512_add_epi32(_mm512_sub_epi32(e_dot, set1(24)), sh);
        // c floored to a multiple of 2^(E − 24) (`fused::floor_f32`).
        let nb = _mm512_sub_epi32(_mm512_sub_epi32(big_e, e_c), set1(1));
        let q = _mm512_sub_epi32(big_e, set1(24));
        let sign = _mm512_and_si512(bits, set1(i32::MIN));
        let mag = _mm512_and_si512(bits, set1(i32::MAX));
        let mask = _mm512_sub_epi32(_mm512_sllv_epi32(set1(1), clamp(nb, 0, 31)), set1(1));
        let up = _mm512_and_si512(_mm512_srai_epi32::<31>(bits), mask);
        let cleared = _mm512_or_si512(sign, _mm512_andnot_si512(mask, _mm512_add_epi32(mag, up)));
        let q_bits = _mm512_slli_epi32::<23>(clamp(_mm512_add_epi32(q, set1(127)), 1, 254));
        let neg_nonzero = _mm512_mask_test_epi32_mask(_mm512_movepi32_mask(bits), mag, mag);
        let below = _mm512_maskz_mov_epi32(neg_nonzero, _mm512_or_si512(sign, q_bits));
        let mut c_used = bits;
        c_used = _mm512_mask_mov_epi32(c_used, _mm512_cmpgt_epi32_mask(nb, set1(0)), cleared);
        c_used = _mm512_mask_mov_epi32(c_used, _mm512_cmpgt_epi32_mask(nb, set1(23)), below);
        if SPLIT {
            let dropped = _mm512_cmplt_epi32_mask(e_c, _mm512_sub_epi32(big_e, set1(25)));
            c_used = _mm512_mask_mov_epi32(c_used, dropped, _mm512_setzero_si512());
        }
        let c_used = _mm512_castsi512_ps(c_used);
        // T = s · 2^unit + c, exact in f64; floored to 31 bits below its
        // leading one; rounded to f32.
        let (lo, tiny_lo) = combine_half::<true>(s, unit, c_used);
        let (hi, tiny_hi) = combine_half::<false>(s, unit, c_used);
        let out = _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi);
        let tiny = u32::from(tiny_lo) | u32::from(tiny_hi) << 8;
        let keep = !(tiny as u16);
        let merged = _mm512_mask_mov_ps(_mm512_castsi512_ps(bits), keep, out);
        _mm512_storeu_ps(c.as_mut_ptr(), merged);
        tiny
    }
}

/// Pass 2's scale `2^(24 − e_dot)` as bits, its biased exponent capped at
/// 254 (see `fused::fast_sums`: normal wherever a product is nonzero).
#[inline(always)]
unsafe fn scale_bits(e_dot: __m512i) -> __m512i {
    // SAFETY: see `fast_sums`.
    unsafe {
        let x = _mm512_sub_epi32(_mm512_set1_epi32(151), e_dot);
        _mm512_slli_epi32::<23>(_mm512_min_epi32(x, _mm512_set1_epi32(254)))
    }
}

/// `x` clamped to `lo..=hi`, lane by lane.
#[inline(always)]
unsafe fn clamp(x: __m512i, lo: i32, hi: i32) -> __m512i {
    // SAFETY: see `fast_sums`.
    unsafe {
        _mm512_min_epi32(
            _mm512_max_epi32(x, _mm512_set1_epi32(lo)),
            _mm512_set1_epi32(hi),
        )
    }
}

/// The lanes whose accumulator (the bits of `c`) takes the usual step of a
/// chain (`fused::SHORT_CUT`): finite, with `e_c − e_dot <= SHORT_CUT`.
#[inline(always)]
unsafe fn near_lanes(bits: __m512i, e_dot: __m512i) -> __mmask16 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let field = _mm512_and_si512(_mm512_srli_epi32::<23>(bits), set1(0xff));
        let d = _mm512_sub_epi32(_mm512_sub_epi32(field, set1(127)), e_dot);
        _mm512_mask_cmple_epi32_mask(
            _mm512_cmpneq_epi32_mask(field, set1(0xff)),
            d,
            set1(SHORT_CUT),
        )
    }
}

/// The lanes whose accumulator takes the step in 32-bit integers
/// ([`narrow_step`]): `|c| < 1.75 · 2^(e_dot + 7)`, finite. So `e_c −
/// e_dot <= 7`, and where it is 7 the top two bits of `c`'s fraction are
/// not both set. A group of zero products (`e_dot` about −1000) gives no
/// lane; an `e_dot` above 120 is taken as 120, which leaves out infinities
/// and NaNs (and `c` from `1.75 · 2^127` up) and lets in only `c` whose
/// `e_c − e_dot` is at most 6.
#[inline(always)]
pub(super) unsafe fn narrow_lanes(bits: __m512i, e_dot: __m512i) -> __mmask16 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let mag = _mm512_and_si512(bits, set1(i32::MAX));
        let e = clamp(e_dot, -200, 120);
        let bound = _mm512_add_epi32(_mm512_slli_epi32::<23>(e), set1(134 << 23 | 0x60_0000));
        _mm512_cmplt_epi32_mask(mag, bound)
    }
}

/// TR's step of a chain for lanes that [`narrow_lanes`] lets take it, in
/// 32-bit integers and one rounding: `c` its bits, `sum` in units of `u =
/// 2^(e_dot − 24)`, below 2^29 in magnitude (8 products, each truncated
/// one below 2^26 units), `scale` pass 2's [`scale_bits`] (whose cap does
/// not act here: those lanes have `-102 <= e_dot <= 124`).
///
/// Why it is the reference's step (`e_c − e_dot <= 7`, so `E − e_dot <=
/// 7` and `S` needs no floor; write `N = S + ⌊c/u⌋`, the sum `T` in units
/// of `u`, an integer):
/// - `e_c − e_dot <= 5`: `|N| < 2^29 + 2^30`, an i32; `T` has at most 31
///   bits above `u`, so flooring it to 31 bits below its leading one
///   changes nothing, and the conversion of `N` to f32 is the round to
///   nearest even;
/// - 6 or 7 (`|c| >= 2^(e_dot + 6)`, the lanes called wide): `c/u` is a
///   multiple of `2^7` and `N` may not fit, so the lane works in units of
///   `4u`: `⌊N/4⌋ = (S >> 2) + c/4u`, with the lowest bit set where `S`'s
///   two shifted-out bits are not both zero. That is `N/4` rounded to odd;
///   it has at least 28 bits (`|c/u| >= 2^30 > 2^29 > |S|`), and rounding
///   to odd at 26 bits or more, then to nearest even at 24, is rounding to
///   nearest even once. `|N| < 2^32` (for 7, `c`'s fraction is below
///   `0x60_0000`: `|c/u| < 1.75 · 2^31 = 2^32 − 2^29`), so the floor to
///   31 bits is again a no-op;
/// - `⌊c/u⌋`: `c · 2^(24 − e_dot − σ)` rounded toward −∞ and converted
///   toward −∞ (`σ` = 2 in wide lanes, else 0): exact where it is normal,
///   and a tiny negative `c` still gives −1;
/// - a nonzero `N` times `u` is at least `2^-126` (`e_dot >= -102`), so
///   the product by `u · 2^σ` is exact or overflows to ±∞ as the round
///   would; `N = 0` gives +0.
#[inline(always)]
unsafe fn narrow_step(c: __m512i, sum: __m512i, scale: __m512i) -> __m512 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm512_set1_epi32;
        const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
        const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        let mag = _mm512_and_si512(c, set1(i32::MAX));
        // |c| >= 2^(e_dot + 6), whose bits are (284 << 23) − scale.
        // (Unsigned: for `e_dot` above 121 the bound lies at or past the
        // infinities, above every finite `c`, whose `e_c − e_dot` is then
        // at most 5.)
        let bound = _mm512_sub_epi32(set1((284u32 << 23) as i32), scale);
        let wide = _mm512_cmpge_epu32_mask(mag, bound);
        // 2^(24 − e_dot − σ), and 2^(e_dot − 24 + σ) = u · 2^σ.
        let scale = _mm512_mask_sub_epi32(scale, wide, scale, set1(2 << 23));
        let unit = _mm512_sub_epi32(set1(254 << 23), scale);
        let c_units =
            _mm512_mul_round_ps::<DOWN>(_mm512_castsi512_ps(c), _mm512_castsi512_ps(scale));
        let c_units = _mm512_cvt_roundps_epi32::<DOWN>(c_units);
        let n = _mm512_add_epi32(_mm512_mask_srai_epi32::<2>(sum, wide, sum), c_units);
        let odd = _mm512_mask_test_epi32_mask(wide, sum, set1(3));
        let n = _mm512_mask_or_epi32(n, odd, n, set1(1));
        let r = _mm512_cvt_roundepi32_ps::<NEAREST>(n);
        _mm512_mul_ps(r, _mm512_castsi512_ps(unit))
    }
}

/// The short cut's step for lanes that [`near_lanes`] lets take it: `c_in`
/// the bits of `c` (4.3's dropped lanes zeroed), `sum` in units of `u =
/// 2^(e_dot − 24)`: `⌊c/u⌋` (`c · 2^(24 − e_dot)` rounded toward −∞,
/// floored), `S + ⌊c/u⌋` in f64, floored to 31 bits below its leading one,
/// rounded to f32, times `u`.
#[inline(always)]
unsafe fn short_cut(c_in: __m512i, sum: __m512i, e_dot: __m512i) -> __m512 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm512_set1_epi32;
        const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
        let scale = _mm512_slli_epi32::<23>(_mm512_sub_epi32(set1(127 + 24), e_dot));
        let below =
            _mm512_mul_round_ps::<DOWN>(_mm512_castsi512_ps(c_in), _mm512_castsi512_ps(scale));
        let below = _mm512_roundscale_ps::<DOWN>(below);
        let lo = short_half::<true>(sum, below);
        let hi = short_half::<false>(sum, below);
        let x = _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi);
        let u = _mm512_slli_epi32::<23>(_mm512_add_epi32(e_dot, set1(127 - 24)));
        _mm512_mul_ps(x, _mm512_castsi512_ps(u))
    }
}

/// The short cut's f64 part for lanes 0..8 (`LO`) or 8..16: `X/u = S +
/// ⌊c/u⌋` (exact), floored to 31 bits below its leading one and rounded
/// to f32.
#[inline(always)]
unsafe fn short_half<const LO: bool>(s: __m512i, below: __m512) -> __m256 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let (s, _, below) = halves::<LO>(s, s, below);
        let x = _mm512_add_pd(_mm512_cvtepi32_pd(s), _mm512_cvtps_pd(below));
        _mm512_cvtpd_ps(floor_31(x))
    }
}

/// Lanes 0..8 (`LO`) or 8..16 of two integer vectors and a float one.
#[inline(always)]
unsafe fn halves<const LO: bool>(
    s: __m512i,
    unit: __m512i,
    c: __m512,
) -> (__m256i, __m256i, __m256) {
    // SAFETY: see `fast_sums`.
    unsafe {
        if LO {
            (
                _mm512_castsi512_si256(s),
                _mm512_castsi512_si256(unit),
                _mm512_castps512_ps256(c),
            )
        } else {
            (
                _mm512_extracti64x4_epi64::<1>(s),
                _mm512_extracti64x4_epi64::<1>(unit),
                _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(c))),
            )
        }
    }
}

/// `t` floored to a multiple of 2^-31 times its leading one: the low 21
/// bits of its significand cleared, a negative value rounded away from zero.
#[inline(always)]
unsafe fn floor_31(t: __m512d) -> __m512d {
    // SAFETY: see `fast_sums`.
    unsafe {
        let tb = _mm512_castpd_si512(t);
        let low = _mm512_set1_epi64(0x1f_ffff);
        let up = _mm512_and_si512(_mm512_srai_epi64::<63>(tb), low);
        _mm512_castsi512_pd(_mm512_andnot_si512(low, _mm512_add_epi64(tb, up)))
    }
}

/// The f64 part of [`fast_combine`] for lanes 0..8 (`LO`) or 8..16: `T =
/// s · 2^unit + c` (exact), floored to 31 bits below its leading one and
/// rounded to f32, and the mask of lanes whose `T` is nonzero and below
/// 2^-126. Written as functions, not closures: a closure would not inherit
/// the caller's target features, and its intrinsics would not inline.
#[inline(always)]
unsafe fn combine_half<const LO: bool>(s: __m512i, unit: __m512i, c: __m512) -> (__m256, u8) {
    // SAFETY: see `fast_sums`.
    unsafe {
        let (s, unit, c) = halves::<LO>(s, unit, c);
        let t = _mm512_add_pd(
            _mm512_scalef_pd(_mm512_cvtepi32_pd(s), _mm512_cvtepi32_pd(unit)),
            _mm512_cvtps_pd(c),
        );
        let floored = floor_31(t);
        let nonzero = _mm512_cmp_pd_mask::<_CMP_NEQ_UQ>(t, _mm512_setzero_pd());
        let tiny = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(
            nonzero,
            _mm512_abs_pd(t),
            _mm512_set1_pd(f64::from(f32::MIN_POSITIVE)),
        );
        (_mm512_cvtpd_ps(floored), tiny)
    }
}

/// One group of a row of 32 outputs (two vectors of 16) without `SPLIT`,
/// A's inputs at `a0`, B's at `b0`: the operations of [`fast_sums`] and
/// of [`fast_combine`]'s short cut, both vectors' side by side (A's inputs
/// broadcast once for both). Where a lane of either vector cannot take
/// the short cut, both take [`fast_combine`]. Returns the lanes left for
/// the exact path, per vector.
///
/// One vector's group is a chain of dependent operations (pass 1, the
/// scale, pass 2, the step) longer than the out-of-order window overlaps
/// with the next vector's; side by side, the two chains issue together.
/// On Zen 5 (one thread, 1024³, production builds in alternating
/// processes) that made the f16 and bf16 chains 3–10 % faster; two rows
/// (four vectors) at once spilled registers and ran 4 % slower than one
/// vector at a time. Pass 1 runs on both vectors at once in 16-bit lanes
/// ([`pass1_row`]), 8 operations a group where it took 16: on the Xeon,
/// whose 512-bit operations issue on two ports, that made f16 5–7 %
/// faster; on Zen 5 it is within the noise. (Where the step's tiles allow
/// it, [`fast_quad`] does pass 1 for four rows at once in bytes.)
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn fast_row(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (a0, b0): (usize, usize),
    c: &mut [f32; 32],
) -> [u32; 2] {
    // SAFETY: see `fast_sums`.
    unsafe {
        let [e16, _] = pass1_row::<false>(&ta.e[a0..a0 + g], &tb.e16[b0..]);
        let e_dots = [widen::<true>(e16), widen::<false>(e16)];
        let mut scale = [_mm512_setzero_si512(); 2];
        for v in 0..2 {
            scale[v] = scale_bits(e_dots[v]);
        }
        let at = [(a0, b0), (a0, b0 + 16)];
        pair_tail((ta, tb), g, (at, 32), halves_of(c), scale, Some(e_dots))
    }
}

/// The first `M` of `N` outputs (a row of 32 when `M` is `N`).
#[inline(always)]
fn first<const N: usize, const M: usize>(c: &mut [f32; N]) -> &mut [f32; M] {
    (&mut c[..M]).try_into().expect("M lanes")
}

/// A row of 32 outputs as its two vectors.
#[inline(always)]
fn halves_of(c: &mut [f32; 32]) -> [&mut [f32; 16]; 2] {
    let (c0, c1) = c.split_at_mut(16);
    [c0.try_into().expect("16"), c1.try_into().expect("16")]
}

/// One group of four rows of `N` outputs (32 or 16: rows `4r..4r + 4` of
/// the step's tiles, `r` the first of `at = (r, q, k)`, the group at `q`,
/// `k` per step), `c` the rows' accumulators: pass 1 for all of them at
/// once in bytes (the tiles' `x8`, see `fused::X8_BIAS`: a byte a row in
/// each 32-bit lane of 16 columns, one vector per 16 columns), then pass 2
/// and the step two vectors side by side as [`fast_row`] does them: a
/// row's two where `N` is 32, two rows' one each where it is 16 (B's
/// inputs loaded once for both). Returns the lanes left for the exact
/// path (bit `32 · ri + l` for lane `l` of row `ri`), or `None`, leaving
/// `c` as it was, where one of the `4 · N` outputs has no nonzero product
/// (the caller takes the rows one at a time).
///
/// Pass 1 costs 2 operations a k for 64 outputs here, where [`pass1_row`]
/// takes 2 for 32 and a broadcast; the scale comes out of its byte in 2
/// operations where it took 3, and with `e_dot` known to lie in
/// −62..=62, [`narrow_lanes`]'s clamps and shift give way to one
/// subtraction from the scale.
///
/// # Safety
/// As [`fast_sums`]; both tiles' `x8` as [`tile_bytes`] leaves them,
/// having found that every exponent fits.
#[inline(always)]
pub(super) unsafe fn fast_quad<const N: usize>(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (r, q, k): (usize, usize, usize),
    c: &mut [[f32; N]; 4],
) -> Option<u128> {
    use super::fused::{X8_BIAS, X8_EXP};
    assert!(N == 16 || N == 32, "rows of {N}");
    let nv = N / 16;
    let a4 = &ta.x8[r * k + q..][..g];
    let a0 = |ri: usize| (4 * r + ri) * k + q;
    // SAFETY: see `fast_sums`; every load reads 16 elements of a slice
    // checked to hold them.
    unsafe {
        let mut raw = [_mm512_setzero_si512(); 2];
        for (kk, &a) in a4.iter().enumerate() {
            let a = _mm512_set1_epi32(a as i32);
            for (v, raw) in raw[..nv].iter_mut().enumerate() {
                let b = &tb.x8[(q + kk) * N + v * 16..][..16];
                let b = _mm512_loadu_si512(b.as_ptr().cast());
                *raw = _mm512_max_epu8(*raw, _mm512_add_epi8(a, b));
            }
        }
        let real = _mm512_set1_epi8((2 * (X8_BIAS - *X8_EXP.end())) as i8);
        let mut zero = 0;
        for &raw in &raw[..nv] {
            zero |= _mm512_cmplt_epu8_mask(raw, real);
        }
        #[cfg(test)]
        super::fused::QUAD_GROUPS.with(|n| {
            let [all, zeros] = n.get();
            n.set([all + 1, zeros + usize::from(zero != 0)]);
        });
        if zero != 0 {
            return None;
        }
        // 151 − e_dot = 151 + 2 · X8_BIAS − raw, in 89..=213: a byte.
        let top = _mm512_set1_epi8((151 + 2 * X8_BIAS) as u8 as i8);
        let s8 = [_mm512_sub_epi8(top, raw[0]), _mm512_sub_epi8(top, raw[1])];
        let [c0, c1, c2, c3] = c.each_mut();
        let lanes = if N == 32 {
            let b = [(q * 32), (q * 32 + 16)];
            let at = |ri: usize| ([(a0(ri), b[0]), (a0(ri), b[1])], 32);
            let [s0, s1] = s8;
            // (Written out, not a closure over the rows: a closure would
            // not inherit the caller's target features.)
            let sc0 = [row_scale::<0>(s0), row_scale::<0>(s1)];
            let r0 = pair_tail((ta, tb), g, at(0), halves_of(first(c0)), sc0, None);
            let sc1 = [row_scale::<1>(s0), row_scale::<1>(s1)];
            let r1 = pair_tail((ta, tb), g, at(1), halves_of(first(c1)), sc1, None);
            let sc2 = [row_scale::<2>(s0), row_scale::<2>(s1)];
            let r2 = pair_tail((ta, tb), g, at(2), halves_of(first(c2)), sc2, None);
            let sc3 = [row_scale::<3>(s0), row_scale::<3>(s1)];
            let r3 = pair_tail((ta, tb), g, at(3), halves_of(first(c3)), sc3, None);
            [r0, r1, r2, r3].map(|[v0, v1]| v0 | v1 << 16)
        } else {
            let at = |ri: usize| ([(a0(ri), q * 16), (a0(ri + 1), q * 16)], 16);
            let s = s8[0];
            let [r0, r1] = pair_tail(
                (ta, tb),
                g,
                at(0),
                [first(c0), first(c1)],
                [row_scale::<0>(s), row_scale::<1>(s)],
                None,
            );
            let [r2, r3] = pair_tail(
                (ta, tb),
                g,
                at(2),
                [first(c2), first(c3)],
                [row_scale::<2>(s), row_scale::<3>(s)],
                None,
            );
            [r0, r1, r2, r3]
        };
        let mut redo = 0;
        for (ri, lanes) in lanes.into_iter().enumerate() {
            redo |= u128::from(lanes) << (32 * ri);
        }
        Some(redo)
    }
}

/// Row `RI`'s (0..4) byte of each 32-bit lane of `s8`, put in an f32's
/// exponent field: pass 2's scales.
#[inline(always)]
unsafe fn row_scale<const RI: u32>(s8: __m512i) -> __m512i {
    // SAFETY: see `fast_sums`.
    unsafe {
        let byte = _mm512_and_si512(s8, _mm512_set1_epi32(0xff << (8 * RI)));
        match RI {
            0 => _mm512_slli_epi32::<23>(byte),
            1 => _mm512_slli_epi32::<15>(byte),
            2 => _mm512_slli_epi32::<7>(byte),
            _ => _mm512_srli_epi32::<1>(byte),
        }
    }
}

/// Pass 2 and the step of two vectors of 16 outputs side by side: A's
/// inputs of vector `v` at `at[v].0`, B's at `at[v].1`, `stride` a k
/// (a row's two vectors for [`fast_row`], two rows' for [`fast_quad`] of
/// rows of 16), given pass 2's scale per vector and, unless [`fast_quad`]
/// calls it, `e_dot` ([`fast_quad`]'s lie in −62..=62, so it is the
/// scale's and the lanes of the i32 step take one comparison, see
/// [`narrow_quad_lanes`]).
#[inline(always)]
unsafe fn pair_tail(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (at, stride): ([(usize, usize); 2], usize),
    cs: [&mut [f32; 16]; 2],
    scale: [__m512i; 2],
    e_dots: Option<[__m512i; 2]>,
) -> [u32; 2] {
    let av = [&ta.v[at[0].0..][..g], &ta.v[at[1].0..][..g]];
    // SAFETY: see `fast_sums`; every load reads 16 elements of a slice
    // checked to hold them. (Loops over the two vectors, not closures: a
    // closure would not inherit the caller's target features.)
    unsafe {
        let mut sums = [_mm512_setzero_si512(); 2];
        for (kk, (&a0, &a1)) in av[0].iter().zip(av[1]).enumerate() {
            for (v, a) in [a0, a1].into_iter().enumerate() {
                let a = _mm512_set1_ps(a);
                let bv = _mm512_loadu_ps(tb.v[at[v].1 + kk * stride..][..16].as_ptr());
                let x = _mm512_mul_ps(_mm512_mul_ps(a, bv), _mm512_castsi512_ps(scale[v]));
                sums[v] = _mm512_add_epi32(sums[v], _mm512_cvttps_epi32(x));
            }
        }
        let (mut bits, mut narrow) = ([_mm512_setzero_si512(); 2], u16::MAX);
        for v in 0..2 {
            bits[v] = _mm512_loadu_si512(cs[v].as_ptr().cast());
            narrow &= match e_dots {
                Some(e_dots) => narrow_lanes(bits[v], e_dots[v]),
                None => narrow_quad_lanes(bits[v], scale[v]),
            };
        }
        if narrow == u16::MAX {
            for v in 0..2 {
                _mm512_storeu_ps(cs[v].as_mut_ptr(), narrow_step(bits[v], sums[v], scale[v]));
            }
            return [0; 2];
        }
        let e_dots = match e_dots {
            Some(e_dots) => e_dots,
            None => [e_of_scale(scale[0]), e_of_scale(scale[1])],
        };
        let mut near = u16::MAX;
        for v in 0..2 {
            near &= near_lanes(bits[v], e_dots[v]);
        }
        if near == u16::MAX {
            for v in 0..2 {
                _mm512_storeu_ps(cs[v].as_mut_ptr(), short_cut(bits[v], sums[v], e_dots[v]));
            }
            return [0; 2];
        }
        let mut redo = [0; 2];
        for (v, c) in cs.into_iter().enumerate() {
            let (mut sum, mut e_dot) = ([0; 16], [0; 16]);
            _mm512_storeu_si512(sum.as_mut_ptr().cast(), sums[v]);
            _mm512_storeu_si512(e_dot.as_mut_ptr().cast(), e_dots[v]);
            redo[v] = fast_combine::<false>(&sum, &e_dot, c);
        }
        redo
    }
}

/// `e_dot` of pass 2's scale where no cap acted (`fast_quad`'s).
#[inline(always)]
unsafe fn e_of_scale(scale: __m512i) -> __m512i {
    // SAFETY: see `fast_sums`.
    unsafe { _mm512_sub_epi32(_mm512_set1_epi32(151), _mm512_srli_epi32::<23>(scale)) }
}

/// [`narrow_lanes`] for an `e_dot` in −62..=62, from pass 2's scale
/// `(151 − e_dot) << 23`: the bound `((e_dot + 134) << 23) + 0x60_0000`
/// is `(285 << 23) + 0x60_0000 − scale`, positive and below the
/// infinities' bits, so no clamp is needed and infinities and NaNs fail.
#[inline(always)]
pub(super) unsafe fn narrow_quad_lanes(bits: __m512i, scale: __m512i) -> __mmask16 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let mag = _mm512_and_si512(bits, set1(i32::MAX));
        let bound = _mm512_sub_epi32(set1(285 << 23 | 0x60_0000), scale);
        _mm512_cmplt_epi32_mask(mag, bound)
    }
}

/// One step of a 4×4 block (`fused::fast_block4`), its 16 outputs in the
/// lanes `4i + j` (C's order), without `SPLIT`: A's decoded inputs `a`
/// (values and exponents, `4i + kk`, row by row) and B's `b` (`4kk + j`).
/// Per k, A's column goes to the lanes of each row by a permutation and
/// B's row to every row by a 128-bit broadcast; passes 1 and 2 are then
/// [`fast_sums`]', and the step [`fast_combine`]'s, whose lanes left for
/// the exact path it returns.
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn block4(
    a: (&[f32; 16], &[i32; 16]),
    b: (&[f32; 16], &[i32; 16]),
    c: &mut [f32; 16],
) -> u32 {
    // SAFETY: see `fast_sums`; the loads are of whole arrays or of 4
    // elements of one.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let (va, ea) = (
            _mm512_loadu_ps(a.0.as_ptr()),
            _mm512_loadu_si512(a.1.as_ptr().cast()),
        );
        // Lane 4i + j reads A's 4i + kk.
        let row = _mm512_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
        let mut e_dot = set1(i32::MIN);
        for kk in 0..4 {
            let ea = _mm512_permutexvar_epi32(_mm512_add_epi32(row, set1(kk as i32)), ea);
            let eb = _mm512_broadcast_i32x4(_mm_loadu_si128(b.1[4 * kk..].as_ptr().cast()));
            e_dot = _mm512_max_epi32(e_dot, _mm512_add_epi32(ea, eb));
        }
        let scale = _mm512_castsi512_ps(scale_bits(e_dot));
        let mut sum = _mm512_setzero_si512();
        for kk in 0..4 {
            let av = _mm512_permutexvar_ps(_mm512_add_epi32(row, set1(kk as i32)), va);
            let bv = _mm512_broadcast_f32x4(_mm_loadu_ps(b.0[4 * kk..].as_ptr()));
            let x = _mm512_mul_ps(_mm512_mul_ps(av, bv), scale);
            sum = _mm512_add_epi32(sum, _mm512_cvttps_epi32(x));
        }
        let (mut sums, mut e_dots) = ([0; 16], [0; 16]);
        _mm512_storeu_si512(sums.as_mut_ptr().cast(), sum);
        _mm512_storeu_si512(e_dots.as_mut_ptr().cast(), e_dot);
        fast_combine::<false>(&sums, &e_dots, c)
    }
}

/// Pass 1's bytes of a step's tiles (`fused::Tile::x8`, see
/// `fused::X8_BIAS`), from their decoded exponents: A's `m × k` (`m` a
/// multiple of 4), B's `k × n`. Returns whether every exponent fits its
/// byte (and leaves `x8` unspecified where not); `k` must be 4, 8 or 16,
/// `n` 16 or 32.
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn tile_bytes(
    ta: &mut Tile,
    tb: &mut Tile,
    (m, k, n): (usize, usize, usize),
) -> bool {
    assert!(
        matches!(k, 4 | 8 | 16) && matches!(n, 16 | 32),
        "k {k}, n {n}"
    );
    // SAFETY: see `fast_sums`; every load and store is of a slice checked
    // to hold it.
    unsafe {
        let mut misfits = 0;
        // A: a quad's 4 · k exponents (rows 4r..4r + 4, k each) as bytes,
        // then transposed so that the 4 rows of a column share a u32.
        let transpose = if k == 4 {
            _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15)
        } else {
            _mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15)
        };
        for r in 0..m / 4 {
            let e = &ta.e[4 * r * k..][..4 * k];
            let x = &mut ta.x8[r * k..][..k];
            if k == 16 {
                // A row's 16 bytes a vector; interleaved by bytes, then
                // by pairs of bytes: k 0..8 of rows 0 and 1 in `t[0]`.
                let mut rows = [_mm_setzero_si128(); 4];
                for (i, row) in rows.iter_mut().enumerate() {
                    let (b, m) = exp_bytes(_mm512_loadu_si512(e[16 * i..].as_ptr().cast()));
                    misfits |= m;
                    *row = _mm512_cvtepi32_epi8(b);
                }
                let t = [
                    _mm_unpacklo_epi8(rows[0], rows[1]),
                    _mm_unpacklo_epi8(rows[2], rows[3]),
                    _mm_unpackhi_epi8(rows[0], rows[1]),
                    _mm_unpackhi_epi8(rows[2], rows[3]),
                ];
                _mm_storeu_si128(x.as_mut_ptr().cast(), _mm_unpacklo_epi16(t[0], t[1]));
                _mm_storeu_si128(x[4..].as_mut_ptr().cast(), _mm_unpackhi_epi16(t[0], t[1]));
                _mm_storeu_si128(x[8..].as_mut_ptr().cast(), _mm_unpacklo_epi16(t[2], t[3]));
                _mm_storeu_si128(x[12..].as_mut_ptr().cast(), _mm_unpackhi_epi16(t[2], t[3]));
                continue;
            }
            let (b0, m0) = exp_bytes(_mm512_loadu_si512(e.as_ptr().cast()));
            misfits |= m0;
            let b0 = _mm_shuffle_epi8(_mm512_cvtepi32_epi8(b0), transpose);
            if k == 4 {
                _mm_storeu_si128(x.as_mut_ptr().cast(), b0);
            } else {
                let (b1, m1) = exp_bytes(_mm512_loadu_si512(e[16..].as_ptr().cast()));
                misfits |= m1;
                let b1 = _mm_shuffle_epi8(_mm512_cvtepi32_epi8(b1), transpose);
                _mm_storeu_si128(x.as_mut_ptr().cast(), _mm_unpacklo_epi16(b0, b1));
                _mm_storeu_si128(x[4..].as_mut_ptr().cast(), _mm_unpackhi_epi16(b0, b1));
            }
        }
        // B: each byte copied to the four of its u32.
        let spread = _mm512_set_epi8(
            12, 12, 12, 12, 8, 8, 8, 8, 4, 4, 4, 4, 0, 0, 0, 0, 12, 12, 12, 12, 8, 8, 8, 8, 4, 4,
            4, 4, 0, 0, 0, 0, 12, 12, 12, 12, 8, 8, 8, 8, 4, 4, 4, 4, 0, 0, 0, 0, 12, 12, 12, 12,
            8, 8, 8, 8, 4, 4, 4, 4, 0, 0, 0, 0,
        );
        let (xs, es) = (
            tb.x8[..n * k].as_chunks_mut::<16>().0,
            tb.e.as_chunks::<16>().0,
        );
        for (x, e) in xs.iter_mut().zip(es) {
            let (b, m) = exp_bytes(_mm512_loadu_si512(e.as_ptr().cast()));
            misfits |= m;
            _mm512_storeu_si512(x.as_mut_ptr().cast(), _mm512_shuffle_epi8(b, spread));
        }
        misfits == 0
    }
}

/// `fused::X8_BIAS` of 16 exponents, one a 32-bit lane, and the mask of
/// those outside `fused::X8_EXP` (zeros' −512 aside).
#[inline(always)]
unsafe fn exp_bytes(e: __m512i) -> (__m512i, __mmask16) {
    use super::fused::{E_BIAS, X8_BIAS, X8_EXP};
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let nonzero = _mm512_cmpneq_epi32_mask(e, set1(-E_BIAS));
        let off = _mm512_sub_epi32(e, set1(*X8_EXP.start()));
        let span = set1(*X8_EXP.end() - *X8_EXP.start());
        let misfits = _mm512_mask_cmpgt_epu32_mask(nonzero, off, span);
        (_mm512_maskz_add_epi32(nonzero, e, set1(X8_BIAS)), misfits)
    }
}
