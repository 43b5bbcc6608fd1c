//! The i8 chain (see `int::wrapping_rows`) with AVX-512 VNNI's `vpdpbusd`,
//! for blocks of C of 16 or 32 columns and a multiple of 8 rows, and with
//! its `vpdpwssd` for 4×4 blocks ([`block4`]).
//!
//! `vpdpbusd` multiplies unsigned bytes by signed bytes and adds each group
//! of four products, and the accumulator, into an i32 lane, wrapping: with
//! B's rows k..k+4 interleaved byte by byte and A's quad `a_k..a_k+4` in
//! every lane, one instruction adds four k to 16 outputs (twice the work of
//! `vpdpwssd`'s pairs of i16, at the same throughput). A is the unsigned
//! side, offset by 128 (`a ^ 0x80`), so each output gains `128·Σ_k b_kj`
//! too, which is taken off C first: a column's, so computed once per block
//! and span of k (with `vpdpbusd` as well) and shared by every row. Each
//! product and each group's sum is exact (`|(a + 128)·b| <= 2^15`) and
//! wrap-around addition is associative, so the bits are those of any other
//! order: `C − 128·Σ b + Σ (a + 128)·b` is `C + Σ a·b` modulo 2^32.
//!
//! The panels hold i8 widened to i16 (what the AVX2 and portable copies
//! compute in). B's rows are packed back to bytes (saturating packs, exact
//! on i8 values) and interleaved once per block and span of k, into a
//! buffer that every group of 8 rows then reads; A's rows are packed a
//! chunk of 32 k at a time.

use super::int::spans;
use super::Win;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Rows of C kept in registers at a time (`V·R` accumulators of 32).
const R: usize = 8;
/// k of A packed to bytes at a time: one register of i16.
const CHUNK: usize = 32;
/// k of B interleaved into the buffer at a time (4 KiB for 32 columns).
const SPAN: usize = 128;

/// Within each 128-bit lane, the bytes of two rows' 8 columns (`r0` in
/// bytes 0-7, `r1` in 8-15) as 8 pairs `(r0[j], r1[j])`.
const PAIRS: [i8; 16] = [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15];

/// `vpdpbusd acc, u, s` on 16 lanes: `acc` plus the four products of
/// `u`'s unsigned and `s`'s signed bytes, per lane, wrapping. As one
/// instruction (LLVM keeps it so; written out like the AVX2 copies'
/// `vpmaddwd` for the same reason: it is the one the kernel is built on).
#[inline]
#[target_feature(enable = "avx512f,avx512vnni")]
fn dpbusd(acc: __m512i, u: __m512i, s: __m512i) -> __m512i {
    let mut acc = acc;
    // SAFETY: the instruction only reads and writes these registers, and
    // the function is compiled (and called) only with AVX-512 VNNI.
    unsafe {
        core::arch::asm!(
            "vpdpbusd {acc}, {u}, {s}",
            acc = inout(zmm_reg) acc,
            u = in(zmm_reg) u,
            s = in(zmm_reg) s,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}

/// A register of 8 i64 lanes, `lanes`.
#[inline(always)]
fn lanes64(lanes: [i64; 8]) -> __m512i {
    // SAFETY: `[i64; 8]` and `__m512i` have the same size; any bits are valid.
    unsafe { core::mem::transmute::<[i64; 8], __m512i>(lanes) }
}

/// B's rows `kk..kk + 4`, `V·16` columns of i16 from `b`, as the signed
/// byte quads of `vpdpbusd`: register `v`, lane `l` holds column `16v + l`.
///
/// # Safety
/// As for [`wrapping_block`].
#[inline(always)]
unsafe fn quads<const N: usize, const V: usize>(
    b: &super::Rows<'_, i16, N>,
    kk: usize,
) -> [__m512i; V] {
    // SAFETY: register operations, and loads of whole rows that
    // `Rows::get` checks; under the caller's features.
    unsafe {
        let pairs128 = core::mem::transmute::<[i8; 16], __m128i>(PAIRS);
        let mut out = [_mm512_setzero_si512(); V];
        if N == 32 {
            let row = |i| _mm512_loadu_si512(b.get::<32>(kk + i, 0).as_ptr().cast());
            let pairs = _mm512_broadcast_i32x4(pairs128);
            // Lane q: the bytes of rows 0 and 1 (2 and 3), columns 8q..8q+8,
            // as pairs; their unpacks hold columns 8q..8q+4 (low) and
            // 8q+4..8q+8 (high) as quads.
            let p01 = _mm512_shuffle_epi8(_mm512_packs_epi16(row(0), row(1)), pairs);
            let p23 = _mm512_shuffle_epi8(_mm512_packs_epi16(row(2), row(3)), pairs);
            let (lo, hi) = (
                _mm512_unpacklo_epi16(p01, p23),
                _mm512_unpackhi_epi16(p01, p23),
            );
            // Columns in order: 128-bit lanes lo.0, hi.0, lo.1, hi.1 | lo.2, ...
            out[0] = _mm512_permutex2var_epi64(lo, lanes64([0, 1, 8, 9, 2, 3, 10, 11]), hi);
            out[V - 1] = _mm512_permutex2var_epi64(lo, lanes64([4, 5, 12, 13, 6, 7, 14, 15]), hi);
        } else {
            let row = |i| _mm256_loadu_si256(b.get::<16>(kk + i, 0).as_ptr().cast());
            let pairs = _mm256_broadcastsi128_si256(pairs128);
            let p01 = _mm256_shuffle_epi8(_mm256_packs_epi16(row(0), row(1)), pairs);
            let p23 = _mm256_shuffle_epi8(_mm256_packs_epi16(row(2), row(3)), pairs);
            let (lo, hi) = (
                _mm256_unpacklo_epi16(p01, p23),
                _mm256_unpackhi_epi16(p01, p23),
            );
            // [lo.0, lo.1, hi.0, hi.1] = columns 0-3, 8-11, 4-7, 12-15.
            let both = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
            out[0] = _mm512_shuffle_i64x2::<0b11_01_10_00>(both, both);
        }
        out
    }
}

/// `R` rows of A from `k0`, `len` k (a multiple of four, at most
/// [`CHUNK`]), as unsigned byte quads `a + 128`, one `i32` each.
///
/// # Safety
/// As for [`wrapping_block`].
#[inline(always)]
unsafe fn a_quads(a: &[&[i16]; R], k0: usize, len: usize, quads: &mut [[i32; CHUNK / 4]; R]) {
    // SAFETY: each masked load reads the `len` elements of a row from
    // `k0` on, which `a[k0..][..len]` checks it holds; the store writes a
    // whole `[i32; 8]`.
    unsafe {
        for (a, quads) in a.iter().zip(quads.iter_mut()) {
            let z = _mm512_maskz_loadu_epi16(u32::MAX >> (CHUNK - len), a[k0..][..len].as_ptr());
            // The low byte of a ^ 0x80 is a + 128.
            let z = _mm512_xor_si512(z, _mm512_set1_epi16(0x80));
            _mm256_storeu_si256(quads.as_mut_ptr().cast(), _mm512_cvtepi16_epi8(z));
        }
    }
}

/// `int::wrapping_rows` for a whole block `blk` of `m` rows (a multiple of
/// [`R`]) and `N = 16·V` columns (16 or 32), `k` a step (a multiple of 4).
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and VNNI, and the caller must be
/// compiled with them (so that these intrinsics inline).
#[inline(always)]
pub(super) unsafe fn wrapping_block<const N: usize, const V: usize>(
    (a, b): (Win<'_, i16>, Win<'_, i16>),
    (k, steps): (usize, usize),
    c: &mut [i32],
    (blk, m): (usize, usize),
) {
    debug_assert!(N == 16 * V && (V == 1 || V == 2) && k.is_multiple_of(4) && m.is_multiple_of(R));
    let c = &mut c[..m * N];
    let (runs, len) = Win::runs(&a, &b, k, steps);
    // SAFETY: the caller runs on a CPU with the features, inside code
    // compiled with them; every load and store addresses 16 i32 of `c`
    // (checked above) or rows that `Rows::get` and `a_quads` check, `buf`
    // is read only below the `n` entries written first, and `aq`'s quads
    // below `clen / 4 <= CHUNK / 4`.
    unsafe {
        let mut buf = [const { MaybeUninit::<[__m512i; V]>::uninit() }; SPAN / 4];
        let mut aq = [[0; CHUNK / 4]; R];
        let offset = _mm512_set1_epi8(i8::MIN);
        for (ts, ks) in spans(runs, len, SPAN) {
            // B's quads for the span, and what the offset of A adds to each
            // column: 128·Σ b.
            let (mut n, mut extra) = (0, [_mm512_setzero_si512(); V]);
            for t in ts.clone() {
                let b = b.run::<N>(t, blk, 0, len);
                for kk in ks.clone().step_by(4) {
                    let q = quads::<N, V>(&b, kk);
                    for (e, &q) in extra.iter_mut().zip(&q) {
                        *e = dpbusd(*e, offset, q);
                    }
                    buf[n].write(q);
                    n += 1;
                }
            }
            for (g, c) in c.chunks_exact_mut(R * N).enumerate() {
                let mut acc = [[_mm512_setzero_si512(); V]; R];
                for (r, acc) in acc.iter_mut().enumerate() {
                    for (v, acc) in acc.iter_mut().enumerate() {
                        let x = _mm512_loadu_si512(c[r * N + v * 16..][..16].as_ptr().cast());
                        *acc = _mm512_sub_epi32(x, extra[v]);
                    }
                }
                let mut i = 0;
                for t in ts.clone() {
                    let a = a.rows::<R>(t, blk, g * R, len);
                    for k0 in ks.clone().step_by(CHUNK) {
                        let clen = (ks.end - k0).min(CHUNK);
                        a_quads(&a, k0, clen, &mut aq);
                        let ys = &buf[i..][..clen / 4];
                        i += ys.len();
                        for (q, y) in ys.iter().enumerate() {
                            let y = y.assume_init();
                            for (aq, acc) in aq.iter().zip(acc.iter_mut()) {
                                let x = _mm512_set1_epi32(*aq.get_unchecked(q));
                                for (acc, &y) in acc.iter_mut().zip(&y) {
                                    *acc = dpbusd(*acc, x, y);
                                }
                            }
                        }
                    }
                }
                debug_assert_eq!(i, n);
                for (r, acc) in acc.iter().enumerate() {
                    for (v, &acc) in acc.iter().enumerate() {
                        _mm512_storeu_si512(c[r * N + v * 16..][..16].as_mut_ptr().cast(), acc);
                    }
                }
            }
        }
    }
}

/// `NB` 4×4×4 blocks of fragments from block `blk` (`int::wrapping_chain`),
/// each block's 16 outputs in the lanes `4i + j` of one register (C's
/// order), with `vpdpwssd` (pairs of i16, two k an instruction): A's pair
/// `(a_i,kk, a_i,kk+1)` goes to row i's lanes by one permutation of the
/// block's 8 pairs, and B's pairs `(b_kk,j, b_kk+1,j)`, interleaved from
/// its rows, to every row by a 128-bit broadcast. Each pair's sum is exact
/// (`|a·b| <= 2^14`) and wrap-around addition is associative.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and VNNI, and the caller must be
/// compiled with them; `a` and `b` must be [`Win::whole_blocks`] of 4 × 4.
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
        // Lane 4i + j reads A's pair 2i + h (its i32 lane).
        let row = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
        let mut acc = [_mm512_setzero_si512(); NB];
        for (nb, acc) in acc.iter_mut().enumerate() {
            *acc = _mm512_loadu_si512(c[nb * 16..][..16].as_ptr().cast());
        }
        for t in 0..steps {
            // The blocks' A and B, 16 inputs a block, one after another.
            let (ar, br) = (a.row(t, blk, 0, NB * 16), b.row(t, blk, 0, NB * 16));
            for (nb, acc) in acc.iter_mut().enumerate() {
                let va = _mm256_loadu_si256(ar[nb * 16..][..16].as_ptr().cast());
                let va = _mm512_castsi256_si512(va);
                // B's rows 2h and 2h + 1 interleaved in 128-bit lane h.
                let vb = _mm256_loadu_si256(br[nb * 16..][..16].as_ptr().cast());
                let pairs = _mm256_unpacklo_epi16(vb, _mm256_srli_si256::<8>(vb));
                let y = [
                    _mm512_broadcast_i32x4(_mm256_castsi256_si128(pairs)),
                    _mm512_broadcast_i32x4(_mm256_extracti128_si256::<1>(pairs)),
                ];
                for (h, y) in y.into_iter().enumerate() {
                    let x = _mm512_permutexvar_epi32(
                        _mm512_add_epi32(row, _mm512_set1_epi32(h as i32)),
                        va,
                    );
                    *acc = _mm512_dpwssd_epi32(*acc, x, y);
                }
            }
        }
        for (nb, &acc) in acc.iter().enumerate() {
            _mm512_storeu_si512(c[nb * 16..][..16].as_mut_ptr().cast(), acc);
        }
    }
}
