//! f16, bf16 and bf16_1k builtins: grouped pairwise f32 sums with
//! flush-to-zero (reference 4.2).

#[cfg(target_arch = "x86_64")]
use super::cpu::AVX2;
use super::cpu::{multiversion, AVX512};
#[cfg(target_arch = "x86_64")]
use super::Kernels;
use super::{blocks, Kernel, Win};
use crate::instr::Instr;
use core::marker::PhantomData;
use half::{bf16, f16};
use mfma_spec::{Arith, Modifiers};

/// `flush_in(x, 2^-126)`: below the smallest normal f32, and -0, become +0
/// (NaN and Inf unchanged).
#[inline(always)]
fn flush_in(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE {
        0.0
    } else {
        x
    }
}

/// `ftz(x)`: finite results below the smallest normal f32 become zero of
/// the same sign.
#[inline(always)]
fn ftz(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `prod(a, b)`: the f32 product, flushed; with a zero factor it is +0
/// whatever the signs, but `Inf * 0` stays NaN (`|NaN|` is still NaN).
#[inline(always)]
fn prod(a: f32, b: f32) -> f32 {
    let p = ftz(a * b);
    if a == 0.0 || b == 0.0 {
        p.abs()
    } else {
        p
    }
}

/// An input type of this family, widened exactly to f32 with
/// `flush_in(x, MIN of the type)` applied on the way.
pub(super) trait GroupedInput: Copy + crate::Element {
    fn to_f32_flushed(self) -> f32;

    /// [`Kernel::widen_slice_a`]: the element-wise definition, or faster.
    fn widen_slice(from: &[Self], to: &mut [f32]) -> bool;
}

impl GroupedInput for f16 {
    /// With F16C, a conversion instruction per 8 (AVX-512: 16) elements
    /// (the portable code's integer juggling made packing f16 half again as
    /// slow as bf16).
    #[inline]
    fn widen_slice(from: &[f16], to: &mut [f32]) -> bool {
        #[cfg(target_arch = "x86_64")]
        match Kernels::active() {
            // SAFETY: the CPU has the features the function is compiled for.
            Kernels::Avx512 => return unsafe { super::grouped_avx512::widen_f16(from, to) },
            // SAFETY: as above.
            Kernels::Avx2 => return unsafe { super::grouped_avx2::widen_f16(from, to) },
            Kernels::Portable => {}
        }
        super::widen_run::<Grouped<f16>, f16, _>(from, to, f16::to_f32_flushed)
    }

    /// Exponent 0 (zeros and subnormals) gives +0, so only normal numbers
    /// and Inf/NaN need widening: rebias the exponent, keep the mantissa.
    /// Written on bits, branch-free, so the conversion loop vectorises.
    #[inline(always)]
    fn to_f32_flushed(self) -> f32 {
        let h = u32::from(self.to_bits());
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let mantissa = (h & 0x3ff) << 13;
        // Selects rather than a match: both arms are computed, so the loop
        // vectorises.
        let normal = sign | ((exp + (127 - 15)) << 23) | mantissa;
        let special = sign | 0x7f80_0000 | mantissa;
        let bits = if exp == 0x1f { special } else { normal };
        f32::from_bits(if exp == 0 { 0 } else { bits })
    }
}

impl GroupedInput for bf16 {
    #[inline]
    fn widen_slice(from: &[bf16], to: &mut [f32]) -> bool {
        super::widen_run::<Grouped<bf16>, bf16, _>(from, to, bf16::to_f32_flushed)
    }

    /// bf16 is the top half of an f32 with the same exponent range.
    #[inline(always)]
    fn to_f32_flushed(self) -> f32 {
        flush_in(f32::from_bits(u32::from(self.to_bits()) << 16))
    }
}

/// The largest A or B block of any builtin: room for one block widened to f32.
pub(super) const MAX_BLOCK: usize = {
    let mut max = 0;
    let mut a = 0;
    while a < mfma_spec::ARCHS.len() {
        let table = mfma_spec::ARCHS[a].builtins;
        let mut i = 0;
        while i < table.len() {
            let (m, n, k) = (table[i].m, table[i].n, table[i].k);
            let larger = if m > n { m * k } else { k * n };
            if larger > max {
                max = larger;
            }
            i += 1;
        }
        a += 1;
    }
    max
};

/// Widens one block to f32 (flushing inputs) into `buf`.
#[inline(always)]
fn widen<'b, T: GroupedInput>(x: &[T], buf: &'b mut [f32; MAX_BLOCK]) -> &'b [f32] {
    let out = &mut buf[..x.len()];
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v.to_f32_flushed();
    }
    out
}

/// Products per tree, from the spec: 2 or 4.
const fn group(arith: Arith) -> usize {
    match arith {
        Arith::GroupedSum { group } => group,
        _ => 0,
    }
}

/// The group size of builtin `X`, checked at compile time.
const fn group_of<X: Instr>() -> usize {
    let g = group(X::SPEC.arith);
    assert!(
        g == 2 || g == 4,
        "grouped kernel needs trees of 2 or 4 products"
    );
    g
}

#[inline(always)]
fn grouped_body<X: Instr, T: GroupedInput>(m: Modifiers, a: &[T], b: &[T], c: &mut [f32]) {
    let (mut a_buf, mut b_buf) = ([0.0; MAX_BLOCK], [0.0; MAX_BLOCK]);
    let s = X::SPEC;
    for (a, b, c) in blocks::<X, T, T, f32>(m, a, b, c) {
        let a = Win::new(widen(a, &mut a_buf), [0, 0, s.k], [1, 1, s.m, s.k]);
        let b = Win::new(widen(b, &mut b_buf), [0, 0, s.n], [1, 1, s.k, s.n]);
        exact_step::<X>(a, b, 0, 0, c);
    }
}

/// Block `blk` of step `t` on widened, flushed inputs, exactly as
/// reference 4.2 states it.
#[inline(always)]
fn exact_step<X: Instr>(a: Win<'_, f32>, b: Win<'_, f32>, t: usize, blk: usize, c: &mut [f32]) {
    let g = const { group_of::<X>() };
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (i, c_row) in c.chunks_exact_mut(n).enumerate() {
        for acc in c_row.iter_mut() {
            *acc = flush_in(*acc);
        }
        let a_row = a.row(t, blk, i, k);
        // One tree of g consecutive k at a time, added to every output of the row.
        for (q, ag) in a_row.chunks_exact(g).enumerate() {
            let b_k = |d: usize| b.row(t, blk, q * g + d, n);
            let (b0, b1) = (b_k(0), b_k(1));
            if g == 2 {
                for ((acc, &x0), &x1) in c_row.iter_mut().zip(b0).zip(b1) {
                    let tree = ftz(prod(ag[0], x0) + prod(ag[1], x1));
                    *acc = ftz(*acc + tree);
                }
            } else {
                let (b2, b3) = (b_k(2), b_k(3));
                let lanes = c_row.iter_mut().zip(b0).zip(b1).zip(b2).zip(b3);
                for ((((acc, &x0), &x1), &x2), &x3) in lanes {
                    let left = ftz(prod(ag[0], x0) + prod(ag[1], x1));
                    let right = ftz(prod(ag[2], x2) + prod(ag[3], x3));
                    *acc = ftz(*acc + ftz(left + right));
                }
            }
        }
    }
}

multiversion! {
    fn grouped<X: Instr, T: GroupedInput>(m: Modifiers, a: &[T], b: &[T], c: &mut [f32]) => grouped_body
}

/// Biased f32 exponents of the widened inputs for which the plain
/// arithmetic is exact (see [`plain_rows`]): nonzero magnitudes in
/// `[2^-51, 2^63)`, so every nonzero product lies in `[2^-102, 2^126)`.
const INPUT_EXP: core::ops::Range<u32> = (127 - 51)..(127 + 63);
/// Biased exponents of accumulators likewise: `|C| >= 2^-103`, finite.
const ACC_EXP: core::ops::Range<u32> = (127 - 103)..0xff;

#[inline(always)]
fn exponent(x: f32) -> u32 {
    (x.to_bits() >> 23) & 0xff
}

/// Whether a widened (flushed, so never -0) input allows the plain path.
#[inline(always)]
fn input_ok(x: f32) -> bool {
    let e = exponent(x);
    e == 0 || INPUT_EXP.contains(&e)
}

/// Whether an accumulator allows the plain path: a zero of either sign,
/// or a normal number of at least 2^-103.
#[inline(always)]
fn acc_ok(x: f32) -> bool {
    x == 0.0 || ACC_EXP.contains(&exponent(x))
}

/// Whether every accumulator of `c` passes [`acc_ok`] (a fold, not `all`:
/// one branch after the whole check rather than one per accumulator).
#[inline(always)]
fn accs_ok(c: &[f32]) -> bool {
    c.iter().fold(true, |ok, &x| ok & acc_ok(x))
}

/// When every input passes [`input_ok`] and every accumulator [`acc_ok`],
/// the flushes of reference 4.2 never fire and plain f32 arithmetic in the
/// same tree order gives the same bits:
///
/// * every product is exact (8- or 11-bit significands, no over- or
///   underflow) and, if nonzero, at least 2^-102, so a multiple of 2^-126;
///   so is every accumulator. Every sum of such values is then either zero
///   or at least 2^-126 (normal), and rounding keeps it a multiple of
///   2^-126: no `ftz` ever fires;
/// * the accumulator is never -0 (C enters flushed, and `x + y` is -0 only
///   if both are -0), so a tree that is -0 where the reference has +0 (a
///   product of a zero with a negative factor) adds the same;
/// * a product `p0` being exact, `round(p0 + p1) == fma(a1, b1, p0)`.
///
/// Inf and NaN inputs fail the checks and take the exact path.
#[inline(always)]
fn plain_rows<
    const G: usize,
    const N: usize,
    const K: usize,
    const W: usize,
    const V: usize,
    const R: usize,
    const NB: usize,
>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
    blk: usize,
    row: usize,
) {
    let n = V * W;
    let mut acc = [[[[0.0f32; W]; V]; R]; NB];
    for (nb, acc) in acc.iter_mut().enumerate() {
        for (r, acc) in acc.iter_mut().enumerate() {
            for (v, acc) in acc.iter_mut().enumerate() {
                for (acc, &x) in acc.iter_mut().zip(&c[(nb * R + r) * n + v * W..][..W]) {
                    *acc = flush_in(x);
                }
            }
        }
    }
    // K is a whole number of trees, so a run of whole steps is too.
    let (runs, len) = Win::runs(&a, &b, K, steps);
    if NB > 1 && len == K && a.whole_blocks(R, K) && b.whole_blocks(K, N) {
        // Fragments, `NB` whole blocks at a time (the 4x4 shapes): each
        // step's blocks of A and of B are consecutive rows, checked once
        // a step.
        for t in 0..runs {
            let a = a.run::<K>(t, blk, 0, NB * R);
            let b = b.run::<N>(t, blk, 0, NB * K);
            for kk in (0..K).step_by(G) {
                for (nb, acc) in acc.iter_mut().enumerate() {
                    let rows = b.group::<G>(nb * K + kk);
                    for (r, acc) in acc.iter_mut().enumerate() {
                        let a = a.get::<K>(nb * R + r, 0);
                        add_trees::<G, N, W, V>(&a[kk..], rows, acc);
                    }
                }
            }
        }
    } else {
        for t in 0..runs {
            let (a_rows, b_rows) = Win::blocks_run::<R, N, NB>(&a, &b, (t, len), (blk, row));
            for kk in (0..len).step_by(G) {
                // Opaque to the loop vectoriser, which would otherwise
                // vectorise this loop across trees with gathers (seen for
                // G = 4).
                let kk = core::hint::black_box(kk);
                for ((a, b), acc) in a_rows.iter().zip(&b_rows).zip(acc.iter_mut()) {
                    let rows = b.group::<G>(kk);
                    for (a, acc) in a.iter().zip(acc.iter_mut()) {
                        add_trees::<G, N, W, V>(&a[kk..], rows, acc);
                    }
                }
            }
        }
    }
    for (nb, acc) in acc.iter().enumerate() {
        for (r, acc) in acc.iter().enumerate() {
            for (v, acc) in acc.iter().enumerate() {
                c[(nb * R + r) * n + v * W..][..W].copy_from_slice(acc);
            }
        }
    }
}

/// One tree of a row of C: its `G` factors of A (`x`, from the tree's
/// first k) times the tree's `G` rows of B, added to the row's `V`
/// registers of `W` lanes.
#[inline(always)]
fn add_trees<const G: usize, const N: usize, const W: usize, const V: usize>(
    x: &[f32],
    rows: [&[f32; N]; G],
    acc: &mut [[f32; W]; V],
) {
    // One register of each of the tree's G rows of B at a time.
    for (v, acc) in acc.iter_mut().enumerate() {
        // Named registers, not an array of G: given one, the vectoriser
        // packs across its rows instead of the lanes.
        let y0 = &rows[0][v * W..][..W];
        let y1 = &rows[1][v * W..][..W];
        // Each factor of A broadcast to its own register.
        let (x0, x1) = ([x[0]; W], [x[1]; W]);
        let mut tree = [0.0f32; W];
        for l in 0..W {
            tree[l] = x1[l].mul_add(y1[l], x0[l] * y0[l]);
        }
        if G == 4 {
            let (x2, x3) = ([x[2 % G]; W], [x[3 % G]; W]);
            let y2 = &rows[2 % G][v * W..][..W];
            let y3 = &rows[3 % G][v * W..][..W];
            for l in 0..W {
                tree[l] += x3[l].mul_add(y3[l], x2[l] * y2[l]);
            }
        }
        for l in 0..W {
            acc[l] += tree[l];
        }
    }
}

/// Block `blk` of a chain on the plain path, `R` rows of C at a time.
#[inline(always)]
fn plain_block<
    X: Instr,
    const L: u8,
    const G: usize,
    const N: usize,
    const K: usize,
    const W: usize,
    const V: usize,
    const R: usize,
>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
    blk: usize,
) {
    let n = V * W;
    let mut rows = c.chunks_exact_mut(R * n);
    for (i, c) in rows.by_ref().enumerate() {
        plain_rows_in::<L, G, N, K, W, V, R>(a, b, steps, c, blk, i * R);
    }
    let done = X::SPEC.m / R * R;
    for (i, c) in rows.into_remainder().chunks_exact_mut(n).enumerate() {
        plain_rows_in::<L, G, N, K, W, V, 1>(a, b, steps, c, blk, done + i);
    }
}

/// [`plain_rows`], from the intrinsics copy of the caller's level (see
/// `cpu::PORTABLE`) when rows are whole registers of it.
#[inline(always)]
fn plain_rows_in<
    const L: u8,
    const G: usize,
    const N: usize,
    const K: usize,
    const W: usize,
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
    #[cfg(target_arch = "x86_64")]
    {
        if L >= AVX512 && W == 16 {
            // SAFETY: `L >= AVX512` only in the copy of `grouped_chain`
            // compiled with AVX-512, which runs on CPUs that have it.
            unsafe { super::grouped_avx512::plain_rows::<G, N, K, V, R>(a, b, steps, c, blk, row) };
            return;
        }
        if L >= AVX2 && W == 8 {
            // SAFETY: `L >= AVX2` only in copies compiled with AVX2 and
            // FMA, which run on CPUs that have them.
            unsafe { super::grouped_avx2::plain_rows::<G, N, K, V, R>(a, b, steps, c, blk, row) };
            return;
        }
    }
    plain_rows::<G, N, K, W, V, R, 1>(a, b, steps, c, blk, row);
}

/// A chain (modifiers zero) on widened inputs: per block (see
/// [`grouped_block`]), the plain path keeps rows of C in registers over
/// the whole chain.
#[inline(always)]
fn grouped_chain_body<X: Instr, const L: u8>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    plain: bool,
    c: &mut [f32],
) {
    let s = X::SPEC;
    // The 4x4 blocks, all on the plain path if all of them can take it:
    // one block's rows are too few to fill the pipeline, and a step of one
    // block too short to pay for its own checks of the window.
    // (Every such builtin has 16 blocks, whole passes of 4 or 2.)
    let whole = s.blocks % 4 == 0;
    if (s.m, s.n) == (4, 4) && whole && plain && accs_ok(c) {
        match (s.k, const { group_of::<X>() }) {
            (2, 2) => return plain_blocks4::<L, 2, 2>(a, b, steps, c),
            (4, 4) => return plain_blocks4::<L, 4, 4>(a, b, steps, c),
            _ => {}
        }
    }
    for (blk, c) in c.chunks_exact_mut(s.m * s.n).enumerate() {
        grouped_block::<X, L>(a, b, steps, plain, c, blk);
    }
}

/// A 4x4 chain on the plain path, every block (`c`): with AVX2 or
/// AVX-512 and fragments, a block in the lanes of a vector (`block4` of
/// `grouped_avx512`, `grouped_avx2`), several blocks a pass; otherwise
/// [`plain_rows`], two blocks side by side.
#[inline(always)]
fn plain_blocks4<const L: u8, const G: usize, const K: usize>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    c: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if L >= AVX2 && a.whole_blocks(4, K) && b.whole_blocks(K, 4) {
        // 4 blocks a pass: 4 registers of C with AVX-512, 8 with AVX2.
        for (i, c) in c.as_chunks_mut::<{ 4 * 16 }>().0.iter_mut().enumerate() {
            #[cfg(test)]
            super::count_block4_steps(4 * steps);
            if L >= AVX512 {
                // SAFETY: `L >= AVX512` only in the copy of `grouped_chain`
                // compiled with AVX-512, which runs on CPUs that have it;
                // the windows are whole blocks (checked above).
                unsafe { super::grouped_avx512::block4::<G, K, 4>(a, b, steps, c, 4 * i) };
            } else {
                // SAFETY: as above, for AVX2 and FMA.
                unsafe { super::grouped_avx2::block4::<G, K, 4>(a, b, steps, c, 4 * i) };
            }
        }
        return;
    }
    for (i, c) in c.as_chunks_mut::<{ 2 * 16 }>().0.iter_mut().enumerate() {
        plain_rows::<G, 4, K, 4, 1, 4, 2>(a, b, steps, c, 2 * i, 0);
    }
}

/// Block `blk` of a chain: on the plain path if the inputs (`plain`) and
/// the block's accumulators pass the range checks, otherwise every
/// instruction on the exact path.
#[inline(always)]
fn grouped_block<X: Instr, const L: u8>(
    a: Win<'_, f32>,
    b: Win<'_, f32>,
    steps: usize,
    plain: bool,
    c: &mut [f32],
    blk: usize,
) {
    let s = X::SPEC;
    let plain = plain && accs_ok(c);
    let exact = |c: &mut [f32]| {
        for t in 0..steps {
            exact_step::<X>(a, b, t, blk, c);
        }
    };
    if !plain {
        exact(c);
        return;
    }
    // Blockings `W` lanes × `V` registers per row, `R` rows per pass.
    // AVX-512: 32 registers of 16 lanes hold R·V accumulators, a
    // tree's G·V registers of B and G broadcast factors.
    if L >= AVX512 {
        match (s.n, s.k, const { group_of::<X>() }) {
            (32, 2, 2) => plain_block::<X, L, 2, 32, 2, 16, 2, 8>(a, b, steps, c, blk),
            (32, 4, 2) => plain_block::<X, L, 2, 32, 4, 16, 2, 8>(a, b, steps, c, blk),
            (16, 2, 2) => plain_block::<X, L, 2, 16, 2, 16, 1, 16>(a, b, steps, c, blk),
            (16, 8, 2) => plain_block::<X, L, 2, 16, 8, 16, 1, 16>(a, b, steps, c, blk),
            (4, 2, 2) => plain_block::<X, L, 2, 4, 2, 4, 1, 4>(a, b, steps, c, blk),
            // 4 rows, not 8: 16 accumulators, 8 registers of B and 4
            // factors spilled to the stack.
            (32, 4, 4) => plain_block::<X, L, 4, 32, 4, 16, 2, 4>(a, b, steps, c, blk),
            (32, 8, 4) => plain_block::<X, L, 4, 32, 8, 16, 2, 4>(a, b, steps, c, blk),
            (16, 4, 4) => plain_block::<X, L, 4, 16, 4, 16, 1, 16>(a, b, steps, c, blk),
            (16, 16, 4) => plain_block::<X, L, 4, 16, 16, 16, 1, 16>(a, b, steps, c, blk),
            (4, 4, 4) => plain_block::<X, L, 4, 4, 4, 4, 1, 4>(a, b, steps, c, blk),
            _ => exact(c),
        }
        return;
    }
    match (s.n, s.k, const { group_of::<X>() }) {
        (32, 2, 2) => plain_block::<X, L, 2, 32, 2, 8, 4, 2>(a, b, steps, c, blk),
        (32, 4, 2) => plain_block::<X, L, 2, 32, 4, 8, 4, 1>(a, b, steps, c, blk),
        (16, 2, 2) => plain_block::<X, L, 2, 16, 2, 8, 2, 4>(a, b, steps, c, blk),
        (16, 8, 2) => plain_block::<X, L, 2, 16, 8, 8, 2, 4>(a, b, steps, c, blk),
        (4, 2, 2) => plain_block::<X, L, 2, 4, 2, 4, 1, 4>(a, b, steps, c, blk),
        (32, 4, 4) => plain_block::<X, L, 4, 32, 4, 8, 4, 2>(a, b, steps, c, blk),
        (32, 8, 4) => plain_block::<X, L, 4, 32, 8, 8, 4, 1>(a, b, steps, c, blk),
        (16, 4, 4) => plain_block::<X, L, 4, 16, 4, 8, 2, 4>(a, b, steps, c, blk),
        (16, 16, 4) => plain_block::<X, L, 4, 16, 16, 8, 2, 4>(a, b, steps, c, blk),
        (4, 4, 4) => plain_block::<X, L, 4, 4, 4, 4, 1, 4>(a, b, steps, c, blk),
        _ => exact(c),
    }
}

multiversion! {
    fn grouped_chain<X: Instr>(a: Win<'_, f32>, b: Win<'_, f32>, steps: usize, plain: bool, c: &mut [f32]) => grouped_chain_body with intrinsics
}

/// The family of CDNA2's f16, bf16 and bf16_1k builtins: pairwise trees
/// of products with flush-to-zero (reference CDNA2 4.2), the tree size from
/// the spec's [`Arith::GroupedSum`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Grouped<T>(PhantomData<T>);

macro_rules! grouped_kernel {
    ($t:ty) => {
        impl Kernel for Grouped<$t> {
            type A = $t;
            type B = $t;
            type C = f32;
            type Wide = f32;

            #[inline(always)]
            fn widen_a(x: $t) -> f32 {
                x.to_f32_flushed()
            }

            #[inline(always)]
            fn widen_b(x: $t) -> f32 {
                x.to_f32_flushed()
            }

            #[inline(always)]
            fn plain(w: f32) -> bool {
                input_ok(w)
            }

            #[inline]
            fn widen_slice_a(from: &[$t], to: &mut [f32]) -> bool {
                <$t as GroupedInput>::widen_slice(from, to)
            }

            #[inline]
            fn widen_slice_b(from: &[$t], to: &mut [f32]) -> bool {
                <$t as GroupedInput>::widen_slice(from, to)
            }

            fn run<X: Instr>(m: Modifiers, a: &[$t], b: &[$t], c: &mut [f32]) {
                grouped::<X, $t>(m, a, b, c)
            }

            fn chain_wide<X: Instr>(
                a: Win<'_, f32>,
                b: Win<'_, f32>,
                steps: usize,
                plain: bool,
                c: &mut [f32],
            ) {
                grouped_chain::<X>(a, b, steps, plain, c)
            }
        }
    };
}

grouped_kernel!(f16);
grouped_kernel!(bf16);

#[cfg(test)]
mod tests {
    use super::*;

    /// `half`'s exact conversion followed by the reference's input flush.
    fn widen_then_flush(x: f32, min: f32) -> f32 {
        if x.abs() < min {
            0.0
        } else {
            x
        }
    }

    fn assert_same(what: &str, bits: u16, got: f32, want: f32) {
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{what} {bits:#06x}: {got:e} != {want:e}"
        );
    }

    /// The bit-level widening agrees with `half`'s conversion and the input
    /// flush, for every f16 and bf16.
    #[test]
    fn widening_is_exact_with_input_flush() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            let want = widen_then_flush(h.to_f32(), f16::MIN_POSITIVE.to_f32());
            assert_same("f16", bits, h.to_f32_flushed(), want);
            let b = bf16::from_bits(bits);
            let want = widen_then_flush(b.to_f32(), f32::MIN_POSITIVE);
            assert_same("bf16", bits, b.to_f32_flushed(), want);
        }
    }

    /// Widening a slice (F16C on x86-64 with it, bits otherwise) gives
    /// every f16 the element-wise result, and the same fast-path verdict.
    #[test]
    fn widening_a_slice_is_widening_each_element() {
        let all: std::vec::Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        super::super::each_copy(|k| {
            // Chunks of every length up to 19 (whole registers and tails),
            // so that each chunk's verdict is tested, not only the total.
            let mut at = 0;
            for len in (1..20).cycle() {
                if at >= all.len() {
                    break;
                }
                let from = &all[at..(at + len).min(all.len())];
                let mut got = [0.0f32; 20];
                let plain = <Grouped<f16> as Kernel>::widen_slice_a(from, &mut got);
                for (&x, &g) in from.iter().zip(&got) {
                    assert_same("f16 slice", x.to_bits(), g, x.to_f32_flushed());
                }
                let want = from.iter().all(|x| input_ok(x.to_f32_flushed()));
                assert_eq!(plain, want, "verdict at {at}, {} kernels", k.name());
                at += len;
            }
        });
    }

    type Bf16Builtin = crate::mfma!(f32_32x32x8bf16_1k);

    /// One instruction with A's row 0 = `[a0, a1, 0, ...]`, every column
    /// of B = `[b, b, 0, ...]` and C zero but `C[0][0] = c00`, run as a chain
    /// and by the per-instruction (exact) kernel; returns both `D[0][0]`.
    fn row0(a0: f32, a1: f32, b: f32, c00: f32) -> (u32, u32) {
        type X = Bf16Builtin;
        let bf = |x: f32| {
            let h = bf16::from_f32(x);
            assert_eq!(h.to_f32(), x, "{x:e} must be a bf16");
            h
        };
        let a = crate::FragA::<X>::from_fn(|_, i, k| match (i, k) {
            (0, 0) => bf(a0),
            (0, 1) => bf(a1),
            _ => bf16::ZERO,
        });
        let b = crate::FragB::<X>::from_fn(|_, k, _| if k < 2 { bf(b) } else { bf16::ZERO });
        let c = crate::Acc::<X>::from_fn(|_, i, j| if (i, j) == (0, 0) { c00 } else { 0.0 });
        let mut chained = c;
        crate::execute_chain_into::<X, 0, 0, 0>(&[a], &[b], &mut chained);
        let mut one = c;
        super::super::run::<X>(Modifiers::NONE, &a, &b, &mut one);
        (chained.get(0, 0, 0).to_bits(), one.get(0, 0, 0).to_bits())
    }

    /// Just outside the limits of the plain path, the reference's flushes
    /// fire: the chain must notice and give the exact result.
    #[test]
    fn the_plain_path_stops_where_flushes_start() {
        let p = |e: i32| 2f32.powi(e);
        // Products of 2^-60 cancel to 2^-127: subnormal, flushed to +0.
        assert_eq!(row0(p(-60) * (1.0 + p(-7)), -p(-60), p(-60), 0.0), (0, 0));
        // A tree of 2^-109 meets C = -2^-109·(1 + 2^-20): the sum is
        // subnormal and flushed to -0, which the next tree (all zeros)
        // turns into +0; the plain path would keep -2^-129.
        let c = -p(-109) * (1.0 + p(-20));
        let at_limit = (p(-51) * (1.0 + p(-7)), -p(-51), p(-51));
        assert_eq!(row0(at_limit.0, at_limit.1, at_limit.2, c), (0, 0));
        // The same products on C = -2^-103: the plain path, exact.
        let want = (-p(-103) + p(-109)).to_bits();
        assert_eq!(
            row0(at_limit.0, at_limit.1, at_limit.2, -p(-103)),
            (want, want)
        );
    }

    #[test]
    fn max_block_holds_every_input_block() {
        for x in mfma_spec::ARCHS.iter().flat_map(|a| a.builtins) {
            assert!(
                x.m * x.k <= MAX_BLOCK && x.k * x.n <= MAX_BLOCK,
                "{}",
                x.name
            );
        }
        assert!(mfma_spec::ARCHS
            .iter()
            .flat_map(|a| a.builtins)
            .any(|x| x.m * x.k == MAX_BLOCK || x.k * x.n == MAX_BLOCK));
    }
}
