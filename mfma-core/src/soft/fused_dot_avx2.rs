//! [`DotTile`]'s decoding and steps on 8 lanes with AVX2 (`vpmaddwd`, two k
//! to 8 outputs), for groups of 16 k: `fused_dot_avx512`'s operations, the
//! bits the same.

use super::fused::{Packed, E_BIAS, M_FIELD, TILE};
use super::fused_dot::{DotRows, DotTile, RowsCopy, DOT_WIDTH, I16_WIDTH, NO};
use super::Win;
use core::arch::x86_64::*;

/// The k of a group this copy takes (fp8/bf8's: two registers of inputs).
pub(super) const G: usize = 16;

impl DotTile {
    /// Decodes step `t` of block `blk`: A's `m` rows and B's `N` columns,
    /// `k` each, in groups of [`G`]; `frac` the fraction bits of A's and
    /// B's types. Returns whether some row and column may take the path.
    ///
    /// # Safety
    /// The CPU must have AVX2, and the caller must be compiled with it (so
    /// that these intrinsics inline).
    #[inline(always)]
    pub(super) unsafe fn avx2_decode<const N: usize>(
        &mut self,
        (a, b): (Win<'_, Packed>, Win<'_, Packed>),
        (t, blk): (usize, usize),
        (m, k): (usize, usize),
        (frac_a, frac_b): (i32, i32),
    ) -> bool {
        let groups = k / G;
        assert!(k.is_multiple_of(G) && N.is_multiple_of(16));
        assert!(m * k <= TILE && k * N <= TILE && m * groups <= TILE / 4 && groups * N <= TILE / 4);
        let (cols, decode) = self.cols_of_step::<N>(b, (t, blk), (k, G, frac_b, 8));
        // SAFETY: loads and stores of 8 or 16 elements of slices checked
        // to hold them; the rest are register operations under the
        // caller's features.
        unsafe {
            let set1 = _mm256_set1_epi32;
            let mut min_b = set1(NO);
            let rows = b.run::<N>(t, blk, 0, k);
            for gi in 0..if decode { groups } else { 0 } {
                for j0 in (0..N).step_by(8) {
                    let (mut hi, mut min_e) = (set1(i32::MIN), set1(i32::MAX));
                    for kk in gi * G..(gi + 1) * G {
                        let w = _mm256_loadu_si256(rows.get::<8>(kk, j0).as_ptr().cast());
                        let e = exponents(w);
                        let es = &mut cols.b_e16[kk * N + j0..][..8];
                        let e16 = _mm_packs_epi32(
                            _mm256_castsi256_si128(e),
                            _mm256_extracti128_si256::<1>(e),
                        );
                        _mm_storeu_si128(es.as_mut_ptr().cast(), e16);
                        let zero = zeros(w);
                        hi = _mm256_max_epi32(hi, _mm256_blendv_epi8(e, set1(i32::MIN), zero));
                        min_e =
                            _mm256_min_epi32(min_e, _mm256_blendv_epi8(e, set1(i32::MAX), zero));
                    }
                    let lo = _mm256_sub_epi32(min_e, set1(frac_b));
                    let width = _mm256_sub_epi32(hi, lo);
                    // A column of zeros (hi = i32::MIN) is not taken.
                    let out = _mm256_or_si256(
                        _mm256_cmpeq_epi32(hi, set1(i32::MIN)),
                        _mm256_cmpgt_epi32(width, set1(I16_WIDTH)),
                    );
                    let width = _mm256_blendv_epi8(width, set1(NO), out);
                    let at = gi * N + j0;
                    _mm256_storeu_si256(cols.b_lo[at..][..8].as_mut_ptr().cast(), lo);
                    _mm256_storeu_si256(cols.b_w[at..][..8].as_mut_ptr().cast(), width);
                    min_b = _mm256_min_epi32(min_b, width);
                    for kk in (gi * G..(gi + 1) * G).step_by(2) {
                        let w0 = _mm256_loadu_si256(rows.get::<8>(kk, j0).as_ptr().cast());
                        let w1 = _mm256_loadu_si256(rows.get::<8>(kk + 1, j0).as_ptr().cast());
                        let v0 = counts(w0, min_e, 1 + 10 - frac_b);
                        let v1 = counts(w1, min_e, 1 + 10 - frac_b);
                        let pair = _mm256_or_si256(
                            _mm256_and_si256(v0, set1(0xffff)),
                            _mm256_slli_epi32::<16>(v1),
                        );
                        let out = &mut cols.b_pairs[kk / 2 * N + j0..][..8];
                        _mm256_storeu_si256(out.as_mut_ptr().cast(), pair);
                    }
                }
            }
            if decode {
                cols.min_b = horizontal_min(min_b);
            }
            let min_b = cols.min_b;
            // A's rows, each its own bounds, kept for the next call.
            let min_a = self.rows_of_step::<Avx2>(a, (t, blk), (m, k, G), frac_a);
            min_a + min_b <= DOT_WIDTH
        }
    }
}

/// The AVX2 copy's part in keeping A's rows.
pub(super) struct Avx2;

impl RowsCopy for Avx2 {
    const LANES: usize = 8;

    /// Whether a row of A's packed inputs (a multiple of 8 of them) is the one
    /// kept.
    #[inline(always)]
    unsafe fn same_inputs(row: &[Packed], kept: &[Packed]) -> bool {
        assert!(row.len() == kept.len() && row.len().is_multiple_of(8));
        let mut differ = _mm256_setzero_si256();
        // SAFETY: loads of 8 elements of two slices checked to hold them.
        unsafe {
            for at in (0..row.len()).step_by(8) {
                let x = _mm256_loadu_si256(row[at..][..8].as_ptr().cast());
                let y = _mm256_loadu_si256(kept[at..][..8].as_ptr().cast());
                differ = _mm256_or_si256(differ, _mm256_xor_si256(x, y));
            }
            _mm256_testz_si256(differ, differ) == 1
        }
    }

    #[inline(always)]
    unsafe fn decode_group(
        rows: &mut DotRows,
        a: Win<'_, Packed>,
        (t, blk): (usize, usize),
        (m, k, g): (usize, usize, usize),
        gi: usize,
        frac_a: i32,
    ) {
        assert_eq!(g, G, "groups of {G} k");
        let groups = k / G;
        // SAFETY: loads and stores as in `DotTile::avx2_decode`; the
        // features are the trait's condition.
        unsafe {
            let set1 = _mm256_set1_epi32;
            for i in 0..m {
                let words = &a.row(t, blk, i, k)[gi * G..][..G];
                let w = [
                    _mm256_loadu_si256(words[..8].as_ptr().cast()),
                    _mm256_loadu_si256(words[8..].as_ptr().cast()),
                ];
                let raw = &mut rows.raw[i * k + gi * G..][..G];
                _mm256_storeu_si256(raw[..8].as_mut_ptr().cast(), w[0]);
                _mm256_storeu_si256(raw[8..].as_mut_ptr().cast(), w[1]);
                let e = [exponents(w[0]), exponents(w[1])];
                let es = &mut rows.a_e[i * k + gi * G..][..G];
                _mm256_storeu_si256(es[..8].as_mut_ptr().cast(), e[0]);
                _mm256_storeu_si256(es[8..].as_mut_ptr().cast(), e[1]);
                let z = [zeros(w[0]), zeros(w[1])];
                let hi = horizontal_max(_mm256_max_epi32(
                    _mm256_blendv_epi8(e[0], set1(i32::MIN), z[0]),
                    _mm256_blendv_epi8(e[1], set1(i32::MIN), z[1]),
                ));
                let min_e = horizontal_min(_mm256_min_epi32(
                    _mm256_blendv_epi8(e[0], set1(i32::MAX), z[0]),
                    _mm256_blendv_epi8(e[1], set1(i32::MAX), z[1]),
                ));
                let width = hi.wrapping_sub(min_e.wrapping_sub(frac_a));
                let width = if hi != i32::MIN && width <= I16_WIDTH {
                    width
                } else {
                    NO
                };
                let at = i * groups + gi;
                rows.a_lo[at] = min_e.wrapping_sub(frac_a);
                rows.a_w[at] = width;
                rows.min_a = rows.min_a.min(width);
                let v = [
                    counts(w[0], set1(min_e), 3 + 10 - frac_a),
                    counts(w[1], set1(min_e), 3 + 10 - frac_a),
                ];
                // In-lane packing puts the two registers' halves in
                // turn; the permutation restores k order.
                let v16 = _mm256_permute4x64_epi64::<0xd8>(_mm256_packs_epi32(v[0], v[1]));
                let vals = &mut rows.a_vals[i * k + gi * G..][..G];
                _mm256_storeu_si256(vals.as_mut_ptr().cast(), v16);
            }
        }
    }
}

impl DotTile {
    /// One group `gi` (of [`G`] k, `k` a step) of row `i` of C (`c`, its
    /// `N` columns), if no product of theirs can be truncated: `None` (and
    /// `c` as it was) if some can. Else, per vector of 8 columns, the lanes
    /// left for the exact path as `fused::fast_combine` returns them.
    ///
    /// # Safety
    /// As [`DotTile::avx2_decode`], which decoded this step.
    #[inline(always)]
    pub(super) unsafe fn avx2_step<const N: usize, const SPLIT: bool>(
        &self,
        (i, gi): (usize, usize),
        k: usize,
        c: &mut [f32; N],
    ) -> Option<[u32; 4]> {
        let (ai, bi) = (i * (k / G) + gi, gi * N);
        assert!(N == 16 || N == 32, "a row of 16 or 32 outputs");
        // SAFETY: loads of 8 or 16 elements of slices checked to hold them,
        // A's pairs two i16 of the group's 16, and register operations.
        unsafe {
            let set1 = _mm256_set1_epi32;
            let room = set1(DOT_WIDTH - self.a().a_w[ai]);
            let mut wide = _mm256_setzero_si256();
            for j0 in (0..N).step_by(8) {
                wide = _mm256_or_si256(
                    wide,
                    _mm256_cmpgt_epi32(load8(&self.b().b_w[bi + j0..]), room),
                );
            }
            if _mm256_testz_si256(wide, wide) == 0 {
                return None;
            }
            let ea = &self.a().a_e[i * k + gi * G..][..G];
            let vals = &self.a().a_vals[i * k + gi * G..][..G];
            let (a_lo, a_hi) = (self.a().a_lo[ai], self.a().a_lo[ai] + self.a().a_w[ai]);
            let mut redo = [0; 4];
            for (h, c) in c.as_chunks_mut::<16>().0.iter_mut().enumerate() {
                let mut acc = [_mm256_setzero_si256(); 2];
                let (mut lo, mut bad) = ([_mm256_setzero_si256(); 2], _mm256_setzero_si256());
                for (v, c) in c.as_chunks::<8>().0.iter().enumerate() {
                    let j0 = h * 16 + v * 8;
                    for p in 0..G / 2 {
                        let x = set1(vals.as_ptr().add(2 * p).cast::<i32>().read_unaligned());
                        let y = load8(&self.b().b_pairs[(gi * G / 2 + p) * N + j0..]);
                        acc[v] = _mm256_add_epi32(acc[v], _mm256_madd_epi16(x, y));
                    }
                    let b_lo = load8(&self.b().b_lo[bi + j0..]);
                    lo[v] = _mm256_add_epi32(set1(a_lo), b_lo);
                    let b_hi = _mm256_add_epi32(b_lo, load8(&self.b().b_w[bi + j0..]));
                    let e_hat = _mm256_add_epi32(set1(a_hi), b_hi);
                    bad = _mm256_or_si256(bad, not_direct(c, acc[v], lo[v], e_hat));
                }
                if _mm256_testz_si256(bad, bad) != 0 {
                    #[cfg(test)]
                    super::fused::DOT_DIRECT.set(super::fused::DOT_DIRECT.get() + 1);
                    for (v, c) in c.as_chunks_mut::<8>().0.iter_mut().enumerate() {
                        direct_step(c, acc[v], lo[v]);
                    }
                    continue;
                }
                // Pass 1 for 16 columns in 16-bit lanes (see the AVX-512 copy).
                let mut e16 = _mm256_set1_epi16(i16::MIN);
                for (kk, &ea) in (gi * G..).zip(ea) {
                    let eb =
                        _mm256_loadu_si256(self.b().b_e16[kk * N + h * 16..][..16].as_ptr().cast());
                    e16 = _mm256_max_epi16(e16, _mm256_add_epi16(_mm256_set1_epi16(ea as i16), eb));
                }
                let e_dot = [
                    _mm256_cvtepi16_epi32(_mm256_castsi256_si128(e16)),
                    _mm256_cvtepi16_epi32(_mm256_extracti128_si256::<1>(e16)),
                ];
                for (v, c) in c.as_chunks_mut::<8>().0.iter_mut().enumerate() {
                    // S = acc · 2^(LO − (e_dot − 24)), as the AVX-512 copy.
                    let by = _mm256_sub_epi32(_mm256_add_epi32(lo[v], set1(24)), e_dot[v]);
                    let (mut s, mut e) = ([0i32; 8], [0i32; 8]);
                    _mm256_storeu_si256(s.as_mut_ptr().cast(), _mm256_sllv_epi32(acc[v], by));
                    _mm256_storeu_si256(e.as_mut_ptr().cast(), e_dot[v]);
                    redo[h * 2 + v] = super::fused_avx2::fast_combine::<SPLIT>(&s, &e, c);
                }
            }
            Some(redo)
        }
    }
}

/// All ones in the lanes that may not take [`direct_step`] (see the
/// AVX-512 copy's `direct_lanes`).
#[inline(always)]
pub(super) unsafe fn not_direct(
    c: &[f32; 8],
    acc: __m256i,
    lo: __m256i,
    e_hat: __m256i,
) -> __m256i {
    // SAFETY: register operations and a load of a whole array.
    unsafe {
        let set1 = _mm256_set1_epi32;
        let bits = _mm256_loadu_si256(c.as_ptr().cast());
        let field = _mm256_and_si256(_mm256_srli_epi32::<23>(bits), set1(0xff));
        let e_c = _mm256_max_epi32(_mm256_sub_epi32(field, set1(127)), set1(-126));
        let mut bad = _mm256_cmpeq_epi32(field, set1(0xff));
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(e_c, _mm256_add_epi32(lo, set1(30))));
        let nb = _mm256_max_epi32(
            _mm256_sub_epi32(_mm256_sub_epi32(e_hat, set1(1)), e_c),
            set1(0),
        );
        let below = _mm256_sub_epi32(_mm256_sllv_epi32(set1(1), nb), set1(1));
        let zero = _mm256_setzero_si256();
        let off_grid = _mm256_andnot_si256(
            _mm256_cmpeq_epi32(
                _mm256_and_si256(_mm256_or_si256(bits, set1(1 << 23)), below),
                zero,
            ),
            _mm256_cmpeq_epi32(zero, zero),
        );
        let nonzero = _mm256_andnot_si256(
            _mm256_cmpeq_epi32(_mm256_and_si256(bits, set1(i32::MAX)), zero),
            off_grid,
        );
        bad = _mm256_or_si256(bad, nonzero);
        _mm256_or_si256(
            bad,
            _mm256_cmpgt_epi32(_mm256_abs_epi32(acc), set1((1 << 24) - 1)),
        )
    }
}

/// `c + acc · 2^LO`, rounded once: the step where [`not_direct`] is zero.
#[inline(always)]
pub(super) unsafe fn direct_step(c: &mut [f32; 8], acc: __m256i, lo: __m256i) {
    // SAFETY: register operations and a load and store of a whole array.
    unsafe {
        let unit = _mm256_slli_epi32::<23>(_mm256_add_epi32(lo, _mm256_set1_epi32(127)));
        let x = _mm256_fmadd_ps(
            _mm256_cvtepi32_ps(acc),
            _mm256_castsi256_ps(unit),
            _mm256_loadu_ps(c.as_ptr()),
        );
        _mm256_storeu_ps(c.as_mut_ptr(), x);
    }
}

/// The first 8 of `x`. (A function, not a closure: see
/// `fused_avx512::combine_half`.)
#[inline(always)]
unsafe fn load8(x: &[i32]) -> __m256i {
    // SAFETY: a load of 8 elements of a slice checked to hold them.
    unsafe { _mm256_loadu_si256(x[..8].as_ptr().cast()) }
}

/// The largest of 8 lanes.
#[inline(always)]
unsafe fn horizontal_max(x: __m256i) -> i32 {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let x = _mm256_max_epi32(x, _mm256_permute2x128_si256::<1>(x, x));
        let x = _mm256_max_epi32(x, _mm256_shuffle_epi32::<0x4e>(x));
        let x = _mm256_max_epi32(x, _mm256_shuffle_epi32::<0xb1>(x));
        _mm256_cvtsi256_si32(x)
    }
}

/// The smallest of 8 lanes.
#[inline(always)]
unsafe fn horizontal_min(x: __m256i) -> i32 {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let x = _mm256_min_epi32(x, _mm256_permute2x128_si256::<1>(x, x));
        let x = _mm256_min_epi32(x, _mm256_shuffle_epi32::<0x4e>(x));
        let x = _mm256_min_epi32(x, _mm256_shuffle_epi32::<0xb1>(x));
        _mm256_cvtsi256_si32(x)
    }
}

/// All ones in the lanes of 8 packed inputs that are zero.
#[inline(always)]
unsafe fn zeros(w: __m256i) -> __m256i {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let m = _mm256_and_si256(w, _mm256_set1_epi32(M_FIELD as i32));
        _mm256_cmpeq_epi32(m, _mm256_setzero_si256())
    }
}

/// The exponents `e` of 8 packed inputs (−512 for a zero).
#[inline(always)]
unsafe fn exponents(w: __m256i) -> __m256i {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let field = _mm256_and_si256(_mm256_srli_epi32::<16>(w), _mm256_set1_epi32(0x7ff));
        _mm256_sub_epi32(field, _mm256_set1_epi32(E_BIAS))
    }
}

/// `fused_dot_avx512`'s `counts` on 8 inputs.
#[inline(always)]
unsafe fn counts(w: __m256i, min_e: __m256i, shift: i32) -> __m256i {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let m = _mm256_and_si256(w, _mm256_set1_epi32(M_FIELD as i32));
        let m = _mm256_srl_epi32(m, _mm_cvtsi32_si128(shift));
        let mag = _mm256_sllv_epi32(m, _mm256_sub_epi32(exponents(w), min_e));
        // Negated where the sign bit is set (a word of 0 has mag 0).
        _mm256_sign_epi32(mag, w)
    }
}
