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
        let mut scale = [_mm256_setzero_ps(); 2];
        for p in 0..1 + usize::from(SPLIT) {
            scale[p] = _mm256_castsi256_ps(scale_bits(e_dots[p]));
        }
        let sums = pass2::<SPLIT>(av, &tb.v[b0..], stride, scale);
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

/// Pass 2's scale `2^(24 − e_dot)` as bits, its biased exponent capped at
/// 254 (see `fused::fast_sums`: normal wherever a product is nonzero;
/// `fused_avx512::scale_bits`).
#[inline(always)]
unsafe fn scale_bits(e_dot: __m256i) -> __m256i {
    // SAFETY: see `fast_sums`.
    unsafe {
        let x = _mm256_sub_epi32(_mm256_set1_epi32(151), e_dot);
        _mm256_slli_epi32::<23>(_mm256_min_epi32(x, _mm256_set1_epi32(254)))
    }
}

/// Pass 2 of [`fast_sums`]: `(a · b) · 2^(24 − e_dot)`, truncated by the
/// conversion, summed (per parity of k if `SPLIT`, else in the first
/// entry); A's inputs `av` (a group's), B's `bv` from the group's first,
/// `stride` a k.
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
unsafe fn pass2<const SPLIT: bool>(
    av: &[f32],
    bv: &[f32],
    stride: usize,
    scale: [__m256; 2],
) -> [__m256i; 2] {
    // SAFETY: see `fast_sums`; every load reads 8 elements of a slice
    // checked to hold them.
    unsafe {
        let parity = |kk: usize| if SPLIT { kk % 2 } else { 0 };
        let mut sums = [_mm256_setzero_si256(); 2];
        for (kk, &a) in av.iter().enumerate() {
            let b = _mm256_loadu_ps(bv[kk * stride..][..8].as_ptr());
            let x = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(a), b), scale[parity(kk)]);
            sums[parity(kk)] = _mm256_add_epi32(sums[parity(kk)], _mm256_cvttps_epi32(x));
        }
        sums
    }
}

/// One group of four rows of `N` outputs (32 or 16), `N / 8` vectors of
/// 8 a row: `fused_avx512::fast_quad` with AVX2 (whose doc says how; a
/// byte a row in each 32-bit lane of 8 columns), each vector's step
/// [`fast_combine`]'s. Returns the lanes left for the exact path (bit `32
/// · ri + l` for lane `l` of row `ri`), or `None` as the AVX-512 copy does.
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
    let nv = N / 8;
    let a4 = &ta.x8[r * k + q..][..g];
    // SAFETY: see `fast_sums`; every load reads 8 elements of a slice
    // checked to hold them.
    unsafe {
        let mut raw = [_mm256_setzero_si256(); 4];
        for (kk, &a) in a4.iter().enumerate() {
            let a = _mm256_set1_epi32(a as i32);
            for (v, raw) in raw[..nv].iter_mut().enumerate() {
                let b = &tb.x8[(q + kk) * N + v * 8..][..8];
                let b = _mm256_loadu_si256(b.as_ptr().cast());
                *raw = _mm256_max_epu8(*raw, _mm256_add_epi8(a, b));
            }
        }
        // Every byte at least 2 · (X8_BIAS − 31): no output without a
        // nonzero product.
        let real = _mm256_set1_epi8((2 * (X8_BIAS - *X8_EXP.end())) as i8);
        let mut all_real = _mm256_set1_epi8(-1);
        for &raw in &raw[..nv] {
            let ok = _mm256_cmpeq_epi8(_mm256_max_epu8(raw, real), raw);
            all_real = _mm256_and_si256(all_real, ok);
        }
        let zero = _mm256_movemask_epi8(all_real) != -1;
        #[cfg(test)]
        super::fused::QUAD_GROUPS.with(|n| {
            let [all, zeros] = n.get();
            n.set([all + 1, zeros + usize::from(zero)]);
        });
        if zero {
            return None;
        }
        // 151 − e_dot = 151 + 2 · X8_BIAS − raw, in 89..=213: a byte.
        let top = _mm256_set1_epi8((151 + 2 * X8_BIAS) as u8 as i8);
        let mut s8 = raw;
        for s8 in &mut s8[..nv] {
            *s8 = _mm256_sub_epi8(top, *s8);
        }
        let [c0, c1, c2, c3] = c.each_mut();
        let at = |ri: usize| ((4 * r + ri) * k + q, q * N);
        let mut redo = u128::from(quad_row((ta, tb), g, at(0), c0, row_scales::<0>(s8)));
        redo |= u128::from(quad_row((ta, tb), g, at(1), c1, row_scales::<1>(s8))) << 32;
        redo |= u128::from(quad_row((ta, tb), g, at(2), c2, row_scales::<2>(s8))) << 64;
        redo |= u128::from(quad_row((ta, tb), g, at(3), c3, row_scales::<3>(s8))) << 96;
        Some(redo)
    }
}

/// Row `RI`'s (0..4) bytes of the four vectors of `s8`, each in its
/// 32-bit lane, put in an f32's exponent field: pass 2's scales.
#[inline(always)]
unsafe fn row_scales<const RI: u32>(s8: [__m256i; 4]) -> [__m256; 4] {
    // SAFETY: see `fast_sums`.
    unsafe {
        // (A loop, not `map`: a closure would not inherit the caller's
        // target features.)
        let mut out = [_mm256_setzero_ps(); 4];
        for (out, &x) in out.iter_mut().zip(&s8) {
            let byte = _mm256_and_si256(x, _mm256_set1_epi32(0xff << (8 * RI)));
            *out = _mm256_castsi256_ps(match RI {
                0 => _mm256_slli_epi32::<23>(byte),
                1 => _mm256_slli_epi32::<15>(byte),
                2 => _mm256_slli_epi32::<7>(byte),
                _ => _mm256_srli_epi32::<1>(byte),
            });
        }
        out
    }
}

/// Pass 2 and the step of one row of [`fast_quad`] (A's inputs at `a0`,
/// B's at `b0`), vector by vector; the lanes left for the exact path.
#[inline(always)]
unsafe fn quad_row<const N: usize>(
    (ta, tb): (&Tile, &Tile),
    g: usize,
    (a0, b0): (usize, usize),
    c: &mut [f32; N],
    scale: [__m256; 4],
) -> u32 {
    let av = &ta.v[a0..a0 + g];
    // SAFETY: see `fast_sums`.
    unsafe {
        let mut redo = 0;
        for (v, c) in c.as_chunks_mut::<8>().0.iter_mut().enumerate() {
            let [sum, _] = pass2::<false>(av, &tb.v[b0 + v * 8..], N, [scale[v]; 2]);
            let scale = _mm256_castps_si256(scale[v]);
            let bits = _mm256_loadu_si256(c.as_ptr().cast());
            if narrow_quad_lanes(bits, scale) {
                _mm256_storeu_ps(c.as_mut_ptr(), narrow_step(bits, sum, scale));
                continue;
            }
            let (mut sums, mut e_dot) = ([0; 8], [0; 8]);
            _mm256_storeu_si256(sums.as_mut_ptr().cast(), sum);
            _mm256_storeu_si256(e_dot.as_mut_ptr().cast(), e_of_scale(scale));
            redo |= fast_combine::<false>(&sums, &e_dot, c) << (8 * v);
        }
        redo
    }
}

/// `e_dot` of pass 2's scale where no cap acted ([`fast_quad`]'s).
#[inline(always)]
unsafe fn e_of_scale(scale: __m256i) -> __m256i {
    // SAFETY: see `fast_sums`.
    unsafe { _mm256_sub_epi32(_mm256_set1_epi32(151), _mm256_srli_epi32::<23>(scale)) }
}

/// `fused_avx512::block4` with AVX2, for rows `2h` and `2h + 1` of the
/// 4×4 block (lanes `4i + j` of the two): A's column by a permutation of
/// the two rows' 8 inputs, B's row by a 128-bit broadcast.
///
/// # Safety
/// As [`fast_sums`].
#[inline(always)]
pub(super) unsafe fn block4(
    h: usize,
    a: (&[f32; 16], &[i32; 16]),
    b: (&[f32; 16], &[i32; 16]),
    c: &mut [f32; 8],
) -> u32 {
    // SAFETY: see `fast_sums`; the loads are of 8 or 4 elements of an
    // array that holds them.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let (va, ea) = (
            _mm256_loadu_ps(a.0[8 * h..][..8].as_ptr()),
            _mm256_loadu_si256(a.1[8 * h..][..8].as_ptr().cast()),
        );
        let row = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
        let mut e_dot = set1(i32::MIN);
        for kk in 0..4 {
            let ea = _mm256_permutevar8x32_epi32(ea, _mm256_add_epi32(row, set1(kk as i32)));
            let eb = _mm_loadu_si128(b.1[4 * kk..][..4].as_ptr().cast());
            let eb = _mm256_broadcastsi128_si256(eb);
            e_dot = _mm256_max_epi32(e_dot, _mm256_add_epi32(ea, eb));
        }
        let scale = _mm256_castsi256_ps(scale_bits(e_dot));
        let mut sum = _mm256_setzero_si256();
        for kk in 0..4 {
            let av = _mm256_permutevar8x32_ps(va, _mm256_add_epi32(row, set1(kk as i32)));
            let bv = _mm256_broadcast_ps(&_mm_loadu_ps(b.0[4 * kk..][..4].as_ptr()));
            let x = _mm256_mul_ps(_mm256_mul_ps(av, bv), scale);
            sum = _mm256_add_epi32(sum, _mm256_cvttps_epi32(x));
        }
        let (mut sums, mut e_dots) = ([0; 8], [0; 8]);
        _mm256_storeu_si256(sums.as_mut_ptr().cast(), sum);
        _mm256_storeu_si256(e_dots.as_mut_ptr().cast(), e_dot);
        fast_combine::<false>(&sums, &e_dots, c)
    }
}

/// `fused_avx512::tile_bytes` with AVX2: pass 1's bytes of a step's tiles
/// (`fused::Tile::x8`), A's `m × k` (`m` a multiple of 4), B's `k × n`;
/// whether every exponent fits its byte. `k` must be 4, 8 or 16, `n` 16
/// or 32.
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
        let mut misfits = _mm256_setzero_si256();
        // A: the four rows of a quad, k each, in one u32 a column, 8
        // columns at a time.
        for r in 0..m / 4 {
            let e = &ta.e[4 * r * k..][..4 * k];
            for h in 0..k.div_ceil(8) {
                let mut x = _mm256_setzero_si256();
                for i in 0..4 {
                    let ei = if k >= 8 {
                        _mm256_loadu_si256(e[k * i + 8 * h..][..8].as_ptr().cast())
                    } else {
                        _mm256_zextsi128_si256(_mm_loadu_si128(e[4 * i..][..4].as_ptr().cast()))
                    };
                    let (b, m) = exp_bytes(ei);
                    misfits = _mm256_or_si256(misfits, m);
                    x = _mm256_or_si256(x, _mm256_sllv_epi32(b, _mm256_set1_epi32(8 * i as i32)));
                }
                let out = &mut ta.x8[r * k + 8 * h..];
                if k >= 8 {
                    _mm256_storeu_si256(out[..8].as_mut_ptr().cast(), x);
                } else {
                    _mm_storeu_si128(out[..4].as_mut_ptr().cast(), _mm256_castsi256_si128(x));
                }
            }
        }
        // B: each byte copied to the four of its u32.
        let spread = _mm256_setr_epi8(
            0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8,
            12, 12, 12, 12,
        );
        let (xs, es) = (
            tb.x8[..n * k].as_chunks_mut::<8>().0,
            tb.e.as_chunks::<8>().0,
        );
        for (x, e) in xs.iter_mut().zip(es) {
            let (b, m) = exp_bytes(_mm256_loadu_si256(e.as_ptr().cast()));
            misfits = _mm256_or_si256(misfits, m);
            _mm256_storeu_si256(x.as_mut_ptr().cast(), _mm256_shuffle_epi8(b, spread));
        }
        _mm256_testz_si256(misfits, misfits) != 0
    }
}

/// `fused::X8_BIAS`'s bytes of 8 exponents, one a 32-bit lane, and the
/// lanes (all ones) outside `fused::X8_EXP` (zeros' −512 aside).
#[inline(always)]
unsafe fn exp_bytes(e: __m256i) -> (__m256i, __m256i) {
    use super::fused::{E_BIAS, X8_BIAS, X8_EXP};
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let zero = _mm256_cmpeq_epi32(e, set1(-E_BIAS));
        let off = _mm256_sub_epi32(e, set1(*X8_EXP.start()));
        // off >= span + 1, unsigned: its maximum with span + 1 is itself.
        let past = set1(*X8_EXP.end() - *X8_EXP.start() + 1);
        let out = _mm256_cmpeq_epi32(_mm256_max_epu32(off, past), off);
        let misfits = _mm256_andnot_si256(zero, out);
        (
            _mm256_andnot_si256(zero, _mm256_add_epi32(e, set1(X8_BIAS))),
            misfits,
        )
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
        if !SPLIT && narrow_lanes(bits, e_dot) {
            // (Not for GTR: its two parities' sum may reach 2^30.)
            _mm256_storeu_ps(c.as_mut_ptr(), narrow_step(bits, sum, scale_bits(e_dot)));
            return 0;
        }
        let field = _mm256_and_si256(_mm256_srli_epi32::<23>(bits), set1(0xff));
        // The usual step of a chain (`fused::SHORT_CUT`): every lane finite
        // with e_c − e_dot <= SHORT_CUT.
        let e_c_raw = _mm256_sub_epi32(field, set1(127));
        let d = _mm256_sub_epi32(e_c_raw, e_dot);
        // (e_c as reference 4 decodes it: −126 for zero and subnormals.)
        let e_c = _mm256_max_epi32(e_c_raw, set1(-126));
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
pub(super) unsafe fn narrow_lanes(bits: __m256i, e_dot: __m256i) -> bool {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let mag = _mm256_and_si256(bits, set1(i32::MAX));
        let e = clamp(e_dot, -200, 120);
        let bound = _mm256_add_epi32(_mm256_slli_epi32::<23>(e), set1(134 << 23 | 0x60_0000));
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(bound, mag))) == 0xff
    }
}

/// [`narrow_lanes`] for [`fast_quad`]'s `e_dot` (−62..=62), from pass 2's
/// scale: `fused_avx512::narrow_quad_lanes`.
#[inline(always)]
pub(super) unsafe fn narrow_quad_lanes(bits: __m256i, scale: __m256i) -> bool {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let mag = _mm256_and_si256(bits, set1(i32::MAX));
        let bound = _mm256_sub_epi32(set1(285 << 23 | 0x60_0000), scale);
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(bound, mag))) == 0xff
    }
}

/// TR's step in 32-bit integers and one rounding for lanes that
/// [`narrow_lanes`] lets take it: `fused_avx512::narrow_step`, whose doc
/// proves it, on 8 lanes (the floor of `c/u` as the short cut takes it);
/// `scale` is `(151 − e_dot) << 23`, pass 2's.
#[inline(always)]
unsafe fn narrow_step(c: __m256i, sum: __m256i, scale: __m256i) -> __m256 {
    // SAFETY: see `fast_sums`.
    unsafe {
        let set1 = _mm256_set1_epi32;
        // Wide lanes: |c| >= 2^(e_dot + 6), i.e. |c|'s bits above those of
        // 2^(e_dot + 6) − 1 ulp, `((e_dot + 133) << 23) − 1` or `(284 << 23)
        // − 1 − scale`, compared unsigned (for `e_dot` above 121 the bound
        // lies at or past the infinities, which `narrow_lanes` keeps out
        // with NaN; it stays below 2^32 since `e_dot <= 124`). AVX2
        // compares signed only: both sides' top bits are flipped, so
        // |c| | SIGN stands for |c|.
        let top = ((284u32 << 23) - 1).wrapping_add(1 << 31) as i32;
        let flipped_bound = _mm256_sub_epi32(set1(top), scale);
        let wide = _mm256_cmpgt_epi32(_mm256_or_si256(c, set1(i32::MIN)), flipped_bound);
        // 2^(24 − e_dot − σ) (σ = 2 in wide lanes), and u · 2^σ.
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
