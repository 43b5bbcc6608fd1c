//! The plain path of the f16/bf16 kernels (see `grouped::plain_rows`)
//! written with AVX-512 intrinsics, for rows of C that are whole 16-lane
//! registers and for 4×4 blocks in the lanes of one, and the F16C
//! widening of f16 inputs on 16 lanes.
//!
//! Every operation is the one the portable code performs, on the same
//! values in the same order (mul, fma, mul, fma, add, add per tree), so
//! all copies give the same bits; the tests compare them. What differs is
//! the blocking: with 32 registers, a tree's rows of B stay in registers for
//! every row of C of a pass, and each row's factors of A for every register
//! of its row, so that a tree costs two loads per six operations.

use super::Win;
use core::arch::x86_64::*;

/// `flush_in` on 16 lanes: magnitudes below the smallest normal f32
/// (including -0) become +0.
#[inline(always)]
unsafe fn flush_in(x: __m512) -> __m512 {
    // SAFETY (whole module): callers run on a CPU with AVX-512 F, inside
    // code compiled with it (the AVX-512 copy of `grouped::grouped_chain`).
    unsafe {
        let abs = _mm512_abs_ps(x);
        let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(abs, _mm512_set1_ps(f32::MIN_POSITIVE));
        _mm512_mask_mov_ps(x, tiny, _mm512_setzero_ps())
    }
}

/// `acc` plus one tree of `G` products (2 or 4) a lane, in the portable
/// tree's order: mul, fma (and mul, fma, add for the second pair), add.
/// `x[q]` and `y[q]` are the tree's factors of A and B (`q < G`).
#[inline(always)]
unsafe fn add_tree<const G: usize>(acc: __m512, x: [__m512; 4], y: [__m512; 4]) -> __m512 {
    // SAFETY: see `flush_in`.
    unsafe {
        let left = _mm512_mul_ps(x[0], y[0]);
        let mut tree = _mm512_fmadd_ps(x[1], y[1], left);
        if G == 4 {
            let right = _mm512_mul_ps(x[2], y[2]);
            let right = _mm512_fmadd_ps(x[3], y[3], right);
            tree = _mm512_add_ps(tree, right);
        }
        _mm512_add_ps(acc, tree)
    }
}

/// `grouped::plain_rows` for `W = 16`: `R` rows of block `blk` of C (`c`,
/// from row `row`) through the chain, `V` registers per row, trees of `G`.
///
/// # Safety
/// The CPU must have AVX-512 F, and the caller must be compiled with it
/// (so that these intrinsics inline).
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
    debug_assert!(N == 16 * V && (G == 2 || G == 4));
    let c = &mut c[..R * N];
    // SAFETY: see `flush_in`; every pointer below addresses 16 elements of
    // a slice checked to hold them (`c` above, `Rows::get` for B).
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        for (r, acc) in acc.iter_mut().enumerate() {
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = flush_in(_mm512_loadu_ps(c[r * N + v * 16..][..16].as_ptr()));
            }
        }
        let (runs, len) = Win::runs(&a, &b, K, steps);
        for t in 0..runs {
            let a = a.rows::<R>(t, blk, row, len);
            let b = b.run::<N>(t, blk, 0, len);
            for kk in (0..len).step_by(G) {
                // The tree's G rows of B, every register of the row; plain
                // loops (no closures: they would not inherit the caller's
                // target features, and the intrinsics would not inline).
                let rows = b.group::<G>(kk);
                let mut y = [[_mm512_setzero_ps(); 4]; V];
                for (v, y) in y.iter_mut().enumerate() {
                    for (y, row) in y.iter_mut().zip(rows) {
                        *y = _mm512_loadu_ps(row[v * 16..][..16].as_ptr());
                    }
                }
                for (a, acc) in a.iter().zip(acc.iter_mut()) {
                    let x = &a[kk..][..G];
                    // No closure (`map`): it would not inherit the
                    // target features.
                    let x = [
                        _mm512_set1_ps(x[0]),
                        _mm512_set1_ps(x[1]),
                        _mm512_set1_ps(x[2 % G]),
                        _mm512_set1_ps(x[3 % G]),
                    ];
                    for (&y, acc) in y.iter().zip(acc.iter_mut()) {
                        *acc = add_tree::<G>(*acc, x, y);
                    }
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (v, &acc) in acc.iter().enumerate() {
                _mm512_storeu_ps(c[r * N + v * 16..][..16].as_mut_ptr(), acc);
            }
        }
    }
}

/// `grouped::plain_rows` for `NB` 4×4 blocks of fragments from block
/// `blk` (`grouped::plain_blocks4`), each block's 16 outputs in the lanes
/// `4i + j` of one register (C's order): per tree of `G` k, each of A's
/// columns goes to the lanes of its rows by one permutation of the
/// block's `4·K` inputs, and each of B's rows to every row by a 128-bit
/// broadcast. The operations per output are the portable tree's (mul,
/// fma, mul, fma, add, add).
///
/// # Safety
/// As [`plain_rows`]; `a` and `b` must be [`Win::whole_blocks`] of 4 × `K`
/// and `K` × 4, and `K` 2 or 4.
#[inline(always)]
pub(super) unsafe fn block4<const G: usize, const K: usize, const NB: usize>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
    blk: usize,
) {
    debug_assert!((K == 2 || K == 4) && K.is_multiple_of(G));
    let c = &mut c[..NB * 16];
    // SAFETY: see `flush_in`; every pointer below addresses elements of a
    // slice checked to hold them.
    unsafe {
        let set1 = _mm512_set1_epi32;
        let k = K as i32;
        // Lane 4i + j reads A's i·K + kk.
        let row = _mm512_setr_epi32(
            0,
            0,
            0,
            0,
            k,
            k,
            k,
            k,
            2 * k,
            2 * k,
            2 * k,
            2 * k,
            3 * k,
            3 * k,
            3 * k,
            3 * k,
        );
        let mut acc = [_mm512_setzero_ps(); NB];
        for (nb, acc) in acc.iter_mut().enumerate() {
            *acc = flush_in(_mm512_loadu_ps(c[nb * 16..][..16].as_ptr()));
        }
        for t in 0..steps {
            // The blocks' A and B, 4·K inputs a block, one after another.
            let (ar, br) = (a.row(t, blk, 0, NB * 4 * K), b.row(t, blk, 0, NB * 4 * K));
            for (nb, acc) in acc.iter_mut().enumerate() {
                let (ar, br) = (&ar[nb * 4 * K..], &br[nb * 4 * K..]);
                let va = if K == 4 {
                    _mm512_loadu_ps(ar[..16].as_ptr())
                } else {
                    _mm512_castps256_ps512(_mm256_loadu_ps(ar[..8].as_ptr()))
                };
                for kk in (0..K).step_by(G) {
                    let mut x = [_mm512_setzero_ps(); 4];
                    let mut y = [_mm512_setzero_ps(); 4];
                    for q in 0..G {
                        let at = _mm512_add_epi32(row, set1((kk + q) as i32));
                        x[q] = _mm512_permutexvar_ps(at, va);
                        let y4 = _mm_loadu_ps(br[4 * (kk + q)..][..4].as_ptr());
                        y[q] = _mm512_broadcast_f32x4(y4);
                    }
                    *acc = add_tree::<G>(*acc, x, y);
                }
            }
        }
        for (nb, &acc) in acc.iter().enumerate() {
            _mm512_storeu_ps(c[nb * 16..][..16].as_mut_ptr(), acc);
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
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")]
pub(super) unsafe fn widen_f16(from: &[half::f16], to: &mut [f32]) -> bool {
    use super::grouped::GroupedInput;
    let len = from.len().min(to.len());
    let (from, to) = (&from[..len], &mut to[..len]);
    let min = _mm512_set1_ps(half::f16::MIN_POSITIVE.to_f32());
    // input_ok: biased exponent 0, or in 76..190.
    let (lo, hi) = (_mm512_set1_epi32(75), _mm512_set1_epi32(190));
    let mut bad: __mmask16 = 0;
    let whole = len / 16 * 16;
    let (from_whole, to_whole) = (
        from[..whole].as_chunks::<16>().0,
        to[..whole].as_chunks_mut::<16>().0,
    );
    for (from, to) in from_whole.iter().zip(to_whole) {
        // SAFETY: both chunks hold 16 elements; f16 is 2 bytes.
        let w = _mm512_cvtph_ps(unsafe { _mm256_loadu_si256(from.as_ptr().cast()) });
        let w = if _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(w, w) != 0 {
            for (t, &f) in to.iter_mut().zip(from) {
                *t = f.to_f32_flushed();
            }
            // SAFETY: `to` holds 16 elements.
            unsafe { _mm512_loadu_ps(to.as_ptr()) }
        } else {
            let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(_mm512_abs_ps(w), min);
            let w = _mm512_mask_mov_ps(w, tiny, _mm512_setzero_ps());
            // SAFETY: `to` holds 16 elements.
            unsafe { _mm512_storeu_ps(to.as_mut_ptr(), w) };
            w
        };
        let e = _mm512_and_si512(
            _mm512_srli_epi32::<23>(_mm512_castps_si512(w)),
            _mm512_set1_epi32(0xff),
        );
        let in_range = _mm512_cmpgt_epi32_mask(e, lo) & _mm512_cmpgt_epi32_mask(hi, e);
        let zero = _mm512_cmpeq_epi32_mask(e, _mm512_setzero_si512());
        bad |= !(in_range | zero);
    }
    let mut plain = bad == 0;
    plain &= super::widen_run::<super::Grouped<half::f16>, half::f16, _>(
        &from[whole..],
        &mut to[whole..],
        half::f16::to_f32_flushed,
    );
    plain
}
