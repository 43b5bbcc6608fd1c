//! [`DotTile`]'s decoding and steps on 16 lanes with AVX-512 (one
//! `vpdpwssd` per two k).

use super::fused::{Packed, E_BIAS, M_FIELD, TILE};
use super::fused_avx512::{pass1_row, widen};
use super::fused_dot::{DotRows, DotTile, RowsCopy, DOT_WIDTH, I16_WIDTH, NO};
use super::Win;
use core::arch::x86_64::*;

impl DotTile {
    /// Decodes step `t` of block `blk`: A's `m` rows and B's `N` columns,
    /// `k` each, in groups of `g` (even, at most 16); `frac` the fraction
    /// bits of A's and B's types. Returns whether some row and vector of
    /// columns may take the path. A's rows come from
    /// [`DotTile::rows_of_step`], kept from the call before where they can.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI, and the caller must be
    /// compiled with them (so that these intrinsics inline).
    #[inline(always)]
    pub(super) unsafe fn avx512_decode<const N: usize>(
        &mut self,
        (a, b): (Win<'_, Packed>, Win<'_, Packed>),
        (t, blk): (usize, usize),
        (m, k, g): (usize, usize, usize),
        (frac_a, frac_b): (i32, i32),
    ) -> bool {
        let groups = k / g;
        debug_assert!(
            g.is_multiple_of(2) && g <= 16 && k.is_multiple_of(g) && N.is_multiple_of(16)
        );
        assert!(m * k <= TILE && k * N <= TILE && m * groups <= TILE / 4 && groups * N <= TILE / 4);
        let (cols, decode) = self.cols_of_step::<N>(b, (t, blk), (k, g, frac_b, 16));
        // SAFETY: masked loads and stores touch the `g` elements of a
        // group only, inside slices checked to hold them; the rest are
        // register operations under the caller's features.
        unsafe {
            let m_field = _mm512_set1_epi32(M_FIELD as i32);
            let rows = b.run::<N>(t, blk, 0, k);
            let mut min_b = NO;
            for gi in 0..if decode { groups } else { 0 } {
                for j0 in (0..N).step_by(16) {
                    let (mut hi, mut min_e) =
                        (_mm512_set1_epi32(i32::MIN), _mm512_set1_epi32(i32::MAX));
                    for kk in gi * g..(gi + 1) * g {
                        let w = _mm512_loadu_si512(rows.get::<16>(kk, j0).as_ptr().cast());
                        let nz = _mm512_test_epi32_mask(w, m_field);
                        let e = exponents(w);
                        let es = &mut cols.b_e16[kk * N + j0..][..16];
                        _mm256_storeu_si256(es.as_mut_ptr().cast(), _mm512_cvtepi32_epi16(e));
                        hi = _mm512_mask_max_epi32(hi, nz, hi, e);
                        min_e = _mm512_mask_min_epi32(min_e, nz, min_e, e);
                    }
                    let lo = _mm512_sub_epi32(min_e, _mm512_set1_epi32(frac_b));
                    let width = _mm512_sub_epi32(hi, lo);
                    // A column of zeros (hi = i32::MIN) is not taken.
                    let out = _mm512_cmpeq_epi32_mask(hi, _mm512_set1_epi32(i32::MIN))
                        | _mm512_cmpgt_epi32_mask(width, _mm512_set1_epi32(I16_WIDTH));
                    let width = _mm512_mask_mov_epi32(width, out, _mm512_set1_epi32(NO));
                    let at = gi * N + j0;
                    _mm512_storeu_si512(cols.b_lo[at..][..16].as_mut_ptr().cast(), lo);
                    _mm512_storeu_si512(cols.b_w[at..][..16].as_mut_ptr().cast(), width);
                    min_b = min_b.min(_mm512_reduce_min_epi32(width));
                    for kk in (gi * g..(gi + 1) * g).step_by(2) {
                        let w0 = _mm512_loadu_si512(rows.get::<16>(kk, j0).as_ptr().cast());
                        let w1 = _mm512_loadu_si512(rows.get::<16>(kk + 1, j0).as_ptr().cast());
                        let v0 = counts(w0, min_e, 1 + 10 - frac_b);
                        let v1 = counts(w1, min_e, 1 + 10 - frac_b);
                        let pair = _mm512_or_si512(
                            _mm512_and_si512(v0, _mm512_set1_epi32(0xffff)),
                            _mm512_slli_epi32::<16>(v1),
                        );
                        let out = &mut cols.b_pairs[kk / 2 * N + j0..][..16];
                        _mm512_storeu_si512(out.as_mut_ptr().cast(), pair);
                    }
                }
            }
            if decode {
                cols.min_b = min_b;
            }
            let min_b = cols.min_b;
            // A's rows, each its own bounds, kept for the next call.
            let min_a = self.rows_of_step::<Avx512>(a, (t, blk), (m, k, g), frac_a);
            min_a + min_b <= DOT_WIDTH
        }
    }
}

/// The AVX-512 copy's part in keeping A's rows.
pub(super) struct Avx512;

impl RowsCopy for Avx512 {
    const LANES: usize = 16;

    /// Whether a row of A's packed inputs is the one kept (`k` of them).
    #[inline(always)]
    unsafe fn same_inputs(row: &[Packed], kept: &[Packed]) -> bool {
        assert_eq!(row.len(), kept.len());
        let mut same = true;
        // SAFETY: masked loads of the elements of two slices of one length.
        unsafe {
            for at in (0..row.len()).step_by(16) {
                let live = ((1u32 << (row.len() - at).min(16)) - 1) as __mmask16;
                let x = _mm512_maskz_loadu_epi32(live, row[at..].as_ptr().cast());
                let y = _mm512_maskz_loadu_epi32(live, kept[at..].as_ptr().cast());
                same &= _mm512_cmpneq_epi32_mask(x, y) == 0;
            }
        }
        same
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
        let groups = k / g;
        let live = ((1u32 << g) - 1) as __mmask16;
        // SAFETY: masked loads and stores as in `DotTile::avx512_decode`;
        // the features are the trait's condition.
        unsafe {
            let m_field = _mm512_set1_epi32(M_FIELD as i32);
            for i in 0..m {
                let w = group_of_row(a.row(t, blk, i, k), gi, g);
                let raw = &mut rows.raw[i * k + gi * g..][..g];
                _mm512_mask_storeu_epi32(raw.as_mut_ptr().cast(), live, w);
                let nz = _mm512_mask_test_epi32_mask(live, w, m_field);
                let e = exponents(w);
                let es = &mut rows.a_e[i * k + gi * g..][..g];
                _mm512_mask_storeu_epi32(es.as_mut_ptr(), live, e);
                let hi = _mm512_mask_reduce_max_epi32(nz, e);
                let min_e = _mm512_mask_reduce_min_epi32(nz, e);
                let width = hi.wrapping_sub(min_e.wrapping_sub(frac_a));
                let width = if nz != 0 && width <= I16_WIDTH {
                    width
                } else {
                    NO
                };
                let at = i * groups + gi;
                rows.a_lo[at] = min_e.wrapping_sub(frac_a);
                rows.a_w[at] = width;
                rows.min_a = rows.min_a.min(width);
                let v = counts(w, _mm512_set1_epi32(min_e), 3 + 10 - frac_a);
                let vals = &mut rows.a_vals[i * k + gi * g..][..g];
                _mm512_mask_cvtepi32_storeu_epi16(vals.as_mut_ptr(), live, v);
            }
        }
    }
}

impl DotTile {
    /// One group `gi` (of `g` k, `k` a step) of row `i` of C (`c`, its
    /// `N` columns), if no product of theirs can be truncated: `None` (and
    /// `c` as it was) if some can. Else, per vector of 16 columns (one or
    /// two of the four entries), the lanes left for the exact path as
    /// `fused::fast_combine` returns them (their `c` as it was): none if
    /// the row takes the direct step (see `fused_dot`).
    ///
    /// # Safety
    /// As [`DotTile::avx512_decode`], which decoded this step.
    #[inline(always)]
    pub(super) unsafe fn avx512_step<const N: usize, const SPLIT: bool>(
        &self,
        (i, gi): (usize, usize),
        (k, g): (usize, usize),
        c: &mut [f32; N],
    ) -> Option<[u32; 4]> {
        let (ai, bi) = (i * (k / g) + gi, gi * N);
        assert!(N == 16 || N == 32, "a row of 16 or 32 outputs");
        // SAFETY: loads of 16 or 32 elements of slices checked to hold
        // them, A's pairs two i16 of the group's `g` (even), and register
        // operations.
        unsafe {
            let set1 = _mm512_set1_epi32;
            let room = set1(DOT_WIDTH - self.a().a_w[ai]);
            let mut narrow = _mm512_cmple_epi32_mask(load16(&self.b().b_w[bi..]), room) == u16::MAX;
            if N == 32 {
                narrow &=
                    _mm512_cmple_epi32_mask(load16(&self.b().b_w[bi + 16..]), room) == u16::MAX;
            }
            if !narrow {
                return None;
            }
            let vals = &self.a().a_vals[i * k + gi * g..][..g];
            let (a_lo, a_hi) = (self.a().a_lo[ai], self.a().a_lo[ai] + self.a().a_w[ai]);
            let mut acc = [_mm512_setzero_si512(); 2];
            let (mut lo, mut e_hat) = ([_mm512_setzero_si512(); 2], [_mm512_setzero_si512(); 2]);
            for v in 0..N / 16 {
                let j0 = v * 16;
                for p in 0..g / 2 {
                    let x = set1(vals.as_ptr().add(2 * p).cast::<i32>().read_unaligned());
                    let y = load16(&self.b().b_pairs[(gi * g / 2 + p) * N + j0..]);
                    acc[v] = _mm512_dpwssd_epi32(acc[v], x, y);
                }
                let b_lo = load16(&self.b().b_lo[bi + j0..]);
                lo[v] = _mm512_add_epi32(set1(a_lo), b_lo);
                e_hat[v] = _mm512_add_epi32(
                    set1(a_hi),
                    _mm512_add_epi32(b_lo, load16(&self.b().b_w[bi + j0..])),
                );
            }
            let chunks = c.as_chunks_mut::<16>().0;
            let mut direct = true;
            for v in 0..N / 16 {
                direct &= direct_lanes(&chunks[v], acc[v], lo[v], e_hat[v]) == u16::MAX;
            }
            if direct {
                #[cfg(test)]
                super::fused::DOT_DIRECT.set(super::fused::DOT_DIRECT.get() + N / 16);
                for v in 0..N / 16 {
                    direct_step(&mut chunks[v], acc[v], lo[v]);
                }
                return Some([0; 4]);
            }
            // Pass 1: e_dot per output (all k of the group: nothing is
            // truncated, so 4.3's parities need no maxima of their own);
            // for 32 columns in 32 lanes of 16 bits (exponents and their
            // sums lie in −1024..=254).
            let ea = &self.a().a_e[i * k + gi * g..][..g];
            let mut e_dot = [set1(i32::MIN); 2];
            if N == 32 {
                let [e16, _] = pass1_row::<false>(ea, &self.b().b_e16[gi * g * N..]);
                e_dot = [widen::<true>(e16), widen::<false>(e16)];
            } else {
                for (kk, &ea) in (gi * g..).zip(ea) {
                    let eb = _mm512_cvtepi16_epi32(_mm256_loadu_si256(
                        self.b().b_e16[kk * N..][..16].as_ptr().cast(),
                    ));
                    e_dot[0] = _mm512_max_epi32(e_dot[0], _mm512_add_epi32(set1(ea), eb));
                }
            }
            let mut redo = [0; 4];
            for (v, c) in chunks.iter_mut().enumerate() {
                // S = acc · 2^(LO − (e_dot − 24)), an integer below 2^30
                // (`LO ≥ e_dot − 24`); a group of zero products (e_dot near
                // −1000) shifts its zero sum out.
                let by = _mm512_sub_epi32(_mm512_add_epi32(lo[v], set1(24)), e_dot[v]);
                let (mut s, mut e) = ([0i32; 16], [0i32; 16]);
                _mm512_storeu_si512(s.as_mut_ptr().cast(), _mm512_sllv_epi32(acc[v], by));
                _mm512_storeu_si512(e.as_mut_ptr().cast(), e_dot[v]);
                redo[v] = super::fused_avx512::fast_combine::<SPLIT>(&s, &e, c);
            }
            Some(redo)
        }
    }
}

/// The lanes that may take [`direct_step`]: `c` finite, a multiple of
/// `2^(Ê − 24)` (so of the step's grid `2^(e_dot − 24)`), below
/// `2^(LO + 31)`, and the dot product `acc` exact in f32.
///
/// On the grid: `|c| · 2^(24 − Ê)` is an integer, tested by rounding it
/// (six vector operations where the bits of `c` took twelve: 5–7 % of
/// fp8's time). The product is exact unless it lands among the subnormals
/// with bits below 2^-149; then `c` is no multiple of the grid, and the
/// product, rounded up, is nonzero and below 1: no integer either (a zero
/// `c` gives 0, which is). An infinite `c` passes this test but not the
/// bound; a NaN neither. (For fp8/bf8 `−34 <= LO` and `Ê <= 30`: both
/// powers of two are normal f32.)
#[inline(always)]
pub(super) unsafe fn direct_lanes(
    c: &[f32; 16],
    acc: __m512i,
    lo: __m512i,
    e_hat: __m512i,
) -> __mmask16 {
    // SAFETY: register operations and a load of a whole array.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let mag = _mm512_abs_ps(_mm512_loadu_ps(c.as_ptr()));
        const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
        const INT: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        let y = _mm512_mul_round_ps::<UP>(mag, power(_mm512_sub_epi32(set1(127 + 24), e_hat)));
        let on_grid = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(_mm512_roundscale_ps::<INT>(y), y);
        let bound = power(_mm512_add_epi32(lo, set1(127 + 31)));
        let ok = _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(on_grid, mag, bound);
        _mm512_mask_cmplt_epi32_mask(ok, _mm512_abs_epi32(acc), set1(1 << 24))
    }
}

/// `c + acc · 2^LO`, rounded once: the step where [`direct_lanes`].
#[inline(always)]
pub(super) unsafe fn direct_step(c: &mut [f32; 16], acc: __m512i, lo: __m512i) {
    // SAFETY: register operations and a load and store of a whole array.
    unsafe {
        let unit = power(_mm512_add_epi32(lo, _mm512_set1_epi32(127)));
        let x = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), unit, _mm512_loadu_ps(c.as_ptr()));
        _mm512_storeu_ps(c.as_mut_ptr(), x);
    }
}

/// `2^(e − 127)` of biased exponents `e` in 1..=254. (A function, not a
/// closure: see `fused_avx512::combine_half`.)
#[inline(always)]
unsafe fn power(e: __m512i) -> __m512 {
    // SAFETY: register operations under the caller's features.
    unsafe { _mm512_castsi512_ps(_mm512_slli_epi32::<23>(e)) }
}

/// Group `gi` (`g` k) of a row of A, in the low `g` lanes.
#[inline(always)]
unsafe fn group_of_row(row: &[Packed], gi: usize, g: usize) -> __m512i {
    let words = &row[gi * g..][..g];
    // SAFETY: a masked load of the `g` elements of a slice checked to hold
    // them (`g <= 16`).
    unsafe { _mm512_maskz_loadu_epi32(((1u32 << g) - 1) as __mmask16, words.as_ptr().cast()) }
}

/// The first 16 of `x`. (A function, not a closure: see
/// `fused_avx512::combine_half`.)
#[inline(always)]
unsafe fn load16(x: &[i32]) -> __m512i {
    // SAFETY: a load of 16 elements of a slice checked to hold them.
    unsafe { _mm512_loadu_si512(x[..16].as_ptr().cast()) }
}

/// The exponents `e` of 16 packed inputs (−512 for a zero).
#[inline(always)]
unsafe fn exponents(w: __m512i) -> __m512i {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let field = _mm512_and_si512(_mm512_srli_epi32::<16>(w), _mm512_set1_epi32(0x7ff));
        _mm512_sub_epi32(field, _mm512_set1_epi32(E_BIAS))
    }
}

/// 16 packed inputs as signed counts of `2^(min_e − frac)`, `frac` their
/// type's fraction bits: the significand `m` (value `m · 2^(e − 10)`)
/// without the `10 − frac` low bits its type leaves zero (`shift` is those
/// plus the packing's own shift of `m`), shifted up by `e − min_e`. Exact
/// for the inputs of a row or column the path takes; zeros (exponent −512)
/// give 0.
#[inline(always)]
unsafe fn counts(w: __m512i, min_e: __m512i, shift: i32) -> __m512i {
    // SAFETY: register operations under the caller's features.
    unsafe {
        let m = _mm512_and_si512(w, _mm512_set1_epi32(M_FIELD as i32));
        let m = _mm512_srl_epi32(m, _mm_cvtsi32_si128(shift));
        // A negative count (a zero's exponent) shifts everything out.
        let mag = _mm512_sllv_epi32(m, _mm512_sub_epi32(exponents(w), min_e));
        _mm512_mask_sub_epi32(mag, _mm512_movepi32_mask(w), _mm512_setzero_si512(), mag)
    }
}

#[cfg(test)]
mod tests {
    /// `same_inputs` compares exactly the words of its slices, whatever
    /// their length (the last masked load short), and nothing past them.
    #[test]
    fn same_inputs_sees_every_word_and_no_other() {
        if !std::is_x86_feature_detected!("avx512f") {
            std::println!("skipped: no AVX-512 on this CPU");
            return;
        }
        let words: std::vec::Vec<u32> = (0..40u32).map(|x| x.wrapping_mul(0x9e37_79b9)).collect();
        for len in [1, 8, 15, 16, 17, 24, 32] {
            let mut kept = words.clone();
            // SAFETY (all three calls): the CPU has AVX-512 F (above).
            assert!(unsafe {
                <super::Avx512 as super::RowsCopy>::same_inputs(&words[..len], &kept[..len])
            });
            // Past the slices: not compared.
            kept[len] ^= 1;
            assert!(unsafe {
                <super::Avx512 as super::RowsCopy>::same_inputs(&words[..len], &kept[..len])
            });
            for at in 0..len {
                kept[at] ^= 1 << (at % 32);
                assert!(
                    !unsafe {
                        <super::Avx512 as super::RowsCopy>::same_inputs(&words[..len], &kept[..len])
                    },
                    "{len} {at}"
                );
                kept[at] ^= 1 << (at % 32);
            }
        }
    }
}
