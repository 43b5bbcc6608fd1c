//! The software execution path: the hardware's arithmetic, bit for bit, on
//! the host (reference sections 3 and 4).
//!
//! Fragments arrive in matrix order (`[block][row][col]`), so a kernel sees
//! plain per-block matrices. Modifiers only route data (reference 4.4):
//! `blgp` is applied first by copying B lanes as the hardware reads them;
//! `cbsz`/`abid` cost nothing, a block simply reads another block's A.
//!
//! Every kernel loops `row of C += a_ik * row k of B`, so the innermost loop
//! runs over the independent outputs j of one row and vectorises, while each
//! output still sees its k in the order the hardware uses.

mod cpu;
mod float;
mod fused;
#[cfg(target_arch = "x86_64")]
mod fused_avx2;
#[cfg(target_arch = "x86_64")]
mod fused_avx512;
#[cfg(target_arch = "x86_64")]
mod fused_dot;
#[cfg(target_arch = "x86_64")]
mod fused_dot_avx2;
#[cfg(target_arch = "x86_64")]
mod fused_dot_avx512;
mod grouped;
#[cfg(target_arch = "x86_64")]
mod grouped_avx2;
#[cfg(target_arch = "x86_64")]
mod grouped_avx512;
mod int;
#[cfg(target_arch = "x86_64")]
mod int_avx2;
#[cfg(target_arch = "x86_64")]
mod int_avx512;
mod panel;

pub use cpu::{with_kernels, Kernels};
pub use float::Fma;
pub use fused::{SplitTruncated, Truncated};
pub use grouped::Grouped;
pub use int::Wrapping;
pub use panel::{execute_chain_panels, Input, Panel, PanelA, PanelB};

use crate::element::Element;
use crate::fragment::{Acc, FragA, FragB};
use crate::instr::Instr;
use cpu::multiversion;
use mfma_spec::{source, Modifiers, Operand};

/// Where the operands of a chain of instructions lie: element `(blk, r, c)`
/// of step `t` is `data[t·step + blk·block + r·row + c]`.
///
/// A slice of fragments is one such window (`step` = the fragment's size,
/// `block` = one block's matrix, `row` = its columns), and so is a strip
/// of a packed matrix ([`Panel`]): kernels read both without copying.
#[derive(Clone, Copy, Debug)]
pub struct Win<'a, W> {
    data: &'a [W],
    step: usize,
    block: usize,
    row: usize,
    /// Which filling of a panel `data` lies in (see [`Win::fill`]); 0:
    /// none known. (Only the x86 dot products read it.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fill: u64,
}

impl<'a, W> Win<'a, W> {
    /// A window of `steps` steps of `blocks` blocks of `rows × cols`.
    ///
    /// # Panics
    /// If the last element of the window lies past the end of `data`:
    /// kernels index inside a checked window only.
    #[inline]
    pub(crate) fn new(
        data: &'a [W],
        [step, block, row]: [usize; 3],
        [steps, blocks, rows, cols]: [usize; 4],
    ) -> Self {
        if steps > 0 && blocks > 0 && rows > 0 && cols > 0 {
            let last = (steps - 1) * step + (blocks - 1) * block + (rows - 1) * row + cols - 1;
            assert!(last < data.len(), "window past the end of its data");
        }
        Win {
            data,
            step,
            block,
            row,
            fill: 0,
        }
    }

    /// This window, its data named as lying in filling `fill` of a panel:
    /// every filling of every panel has its own number, so two windows of
    /// one fill number and address see the same elements, and kernels may
    /// keep what they derived from them (`fused_dot::DotCols`).
    #[inline]
    pub(crate) fn in_fill(self, fill: u64) -> Self {
        Win { fill, ..self }
    }

    /// The fill number given by [`Win::in_fill`] (0: none), and where the
    /// window starts.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn fill(&self) -> (u64, usize) {
        (self.fill, self.data.as_ptr() as usize)
    }

    /// Row `r` of block `blk` of step `t`, `len` elements long.
    #[inline(always)]
    fn row(&self, t: usize, blk: usize, r: usize, len: usize) -> &'a [W] {
        &self.data[t * self.step + blk * self.block + r * self.row..][..len]
    }

    /// How to walk a chain of `steps` steps of `k` over windows `a` (A,
    /// `M × k` per step) and `b` (B, `k × N` per step): `(runs, len)` such
    /// that run `t` covers `len` consecutive k, A's rows being
    /// `a.row(t, blk, i, len)` and B's `b.row(t, blk, kk, n)` for
    /// `kk < len`. Panels continue from one step to the next (one run of
    /// `steps·k`, walked without a per-step restart); fragments do not
    /// (`steps` runs of `k`).
    #[inline(always)]
    fn runs(a: &Self, b: &Self, k: usize, steps: usize) -> (usize, usize) {
        if a.step == k && b.step == k * b.row {
            (usize::from(steps > 0), steps * k)
        } else {
            (steps, k)
        }
    }

    /// Run `t` (`len` k, see [`Win::runs`]) of blocks `blk..blk + G` side
    /// by side: A's rows `row..row + R` of each block, and B's rows of each
    /// as one checked run of `N` columns.
    #[inline(always)]
    fn blocks_run<const R: usize, const N: usize, const G: usize>(
        a: &Self,
        b: &Self,
        (t, len): (usize, usize),
        (blk, row): (usize, usize),
    ) -> ([[&'a [W]; R]; G], [Rows<'a, W, N>; G])
    where
        W: Copy,
    {
        // Loops, not `array::from_fn` (see `Win::rows`).
        let mut a_rows = [a.rows::<R>(t, blk, row, len); G];
        let mut b_rows = [b.run::<N>(t, blk, 0, len); G];
        for g in 1..G {
            a_rows[g] = a.rows::<R>(t, blk + g, row, len);
            b_rows[g] = b.run::<N>(t, blk + g, 0, len);
        }
        (a_rows, b_rows)
    }

    /// Rows `r..r + len` of block `blk` of step `t`, `N` elements each, as
    /// one checked run (see [`Rows`]).
    #[inline(always)]
    fn run<const N: usize>(&self, t: usize, blk: usize, r: usize, len: usize) -> Rows<'a, W, N> {
        Rows::new(
            &self.data[t * self.step + blk * self.block + r * self.row..],
            self.row,
            len,
        )
    }

    /// One instruction's operand in matrix order (`[blocks][rows][cols]`),
    /// as a window of one step.
    #[inline(always)]
    fn of_instruction(data: &'a [W], [blocks, rows, cols]: [usize; 3]) -> Self {
        Win::new(data, [0, rows * cols, cols], [1, blocks, rows, cols])
    }

    /// Whether each step's blocks of `rows × cols` lie one after another,
    /// row after row (a fragment's operands do): then a step's rows of
    /// consecutive blocks are consecutive rows.
    #[inline(always)]
    fn whole_blocks(&self, rows: usize, cols: usize) -> bool {
        self.row == cols && self.block == rows * cols
    }

    /// Rows `r..r + R` of block `blk` of step `t`, `len` elements each.
    #[inline(always)]
    fn rows<const R: usize>(&self, t: usize, blk: usize, r: usize, len: usize) -> [&'a [W]; R] {
        // A loop, not `array::from_fn`: its closure is not always inlined
        // into the AVX2 copy of a kernel.
        let mut out: [&'a [W]; R] = [&[]; R];
        for (i, out) in out.iter_mut().enumerate() {
            *out = self.row(t, blk, r + i, len);
        }
        out
    }
}

/// `len` rows of `N` elements, `stride` apart, checked once when made so
/// that the inner loops of a kernel read them without a bounds check per
/// row: [`Rows::get`]'s own check is one the compiler proves from the
/// loop bounds (`kk < len`) and the constants (`col + L <= N`).
#[derive(Clone, Copy)]
struct Rows<'a, W, const N: usize> {
    data: &'a [W],
    stride: usize,
    len: usize,
}

impl<'a, W, const N: usize> Rows<'a, W, N> {
    #[inline(always)]
    fn new(data: &'a [W], stride: usize, len: usize) -> Self {
        // Checked: an overflowing product must not wrap into a small end
        // that passes, since `get` relies on this check for its unsafe read.
        let end = match len.checked_sub(1) {
            None => Some(0),
            Some(last) => last.checked_mul(stride).and_then(|x| x.checked_add(N)),
        };
        assert!(
            end.is_some_and(|end| end <= data.len()),
            "rows past the end of their data"
        );
        Rows { data, stride, len }
    }

    /// Rows `kk..kk + G` whole, with one check for all of them: for a
    /// kernel that reads a tree's `G` rows of B, a check per row was four
    /// compares and branches a tree in the AVX2 f16 kernel's inner loop.
    #[inline(always)]
    fn group<const G: usize>(&self, kk: usize) -> [&'a [W; N]; G] {
        assert!(
            G > 0 && kk < self.len && G <= self.len - kk,
            "outside the rows"
        );
        // SAFETY (both blocks): row `kk + d` for `d < G` is at most row
        // `len - 1` (`kk + G <= len`, checked above without overflow), and
        // `new` checked that row `len - 1` has `N` elements inside `data`.
        let first = unsafe { self.data.as_ptr().add(kk * self.stride) };
        // A loop without closures, not `array::from_fn` (see `Win::rows`).
        let mut out = [unsafe { &*first.cast::<[W; N]>() }; G];
        for (d, out) in out.iter_mut().enumerate().skip(1) {
            // SAFETY: as above.
            *out = unsafe { &*first.add(d * self.stride).cast::<[W; N]>() };
        }
        out
    }

    /// `L` elements of row `kk` from column `col`.
    #[inline(always)]
    fn get<const L: usize>(&self, kk: usize, col: usize) -> &'a [W; L] {
        assert!(kk < self.len && col + L <= N, "outside the rows");
        // SAFETY: `kk < len` and `col + L <= N`, and `new` checked that
        // row `len - 1` has `N` elements inside `data`.
        unsafe {
            &*self
                .data
                .as_ptr()
                .add(kk * self.stride + col)
                .cast::<[W; L]>()
        }
    }
}

/// The arithmetic of one family (reference section 4 of each
/// architecture): implemented by the family types ([`Fma`], [`Grouped`],
/// [`Wrapping`], [`Truncated`], [`SplitTruncated`]); every builtin type names
/// its family as [`Instr::Kernel`](crate::Instr), chosen from its spec row's
/// [`Arith`](mfma_spec::Arith) and element types.
pub trait Kernel: Sized + 'static {
    /// Element type of A.
    type A: Element;
    /// Element type of B.
    type B: Element;
    /// Element type of C and D.
    type C: Element;
    /// The form the family computes its inputs in: the type itself for
    /// f32 and f64, f32 (widened exactly, inputs flushed) for CDNA2's f16
    /// and bf16, i16 for i8, decoded significand and exponent for CDNA3's
    /// fused families.
    type Wide: Copy + Default + Send + Sync + 'static;

    /// One A input in computing form.
    fn widen_a(x: Self::A) -> Self::Wide;

    /// One B input in computing form.
    fn widen_b(x: Self::B) -> Self::Wide;

    /// Whether a widened input allows the family's fast path (every input
    /// must, see `grouped`); always for families without one.
    #[inline(always)]
    fn plain(_w: Self::Wide) -> bool {
        true
    }

    /// Widens A inputs `from` into `to` (as far as the shorter reaches);
    /// returns whether every widened value passed [`plain`](Kernel::plain).
    #[inline]
    fn widen_slice_a(from: &[Self::A], to: &mut [Self::Wide]) -> bool {
        widen_run::<Self, Self::A, _>(from, to, Self::widen_a)
    }

    /// [`widen_slice_a`](Kernel::widen_slice_a) for B.
    #[inline]
    fn widen_slice_b(from: &[Self::B], to: &mut [Self::Wide]) -> bool {
        widen_run::<Self, Self::B, _>(from, to, Self::widen_b)
    }

    /// `c[blk] = a[src(blk)] · b[blk] + c[blk]` for every block `blk` of
    /// builtin `X`, where `src` is the cbsz/abid routing of `m` (its blgp is
    /// ignored: `b` must already be routed, and negation applied). All
    /// operands are in matrix order: `a` is `[blocks][M][K]`, `b` is
    /// `[blocks][K][N]`, `c` is `[blocks][M][N]`, with the extents of `X::SPEC`.
    fn run<X: Instr>(m: Modifiers, a: &[Self::A], b: &[Self::B], c: &mut [Self::C]);

    /// `run` with all modifiers zero for steps `t = 0..steps` ascending, on
    /// the same `c`, the operands being windows of widened inputs.
    /// `plain`: every input of the chain passed [`plain`](Kernel::plain).
    /// Families keep C in registers across the chain; the result must be
    /// the loop's, bit for bit.
    fn chain_wide<X: Instr>(
        a: Win<'_, Self::Wide>,
        b: Win<'_, Self::Wide>,
        steps: usize,
        plain: bool,
        c: &mut [Self::C],
    );

    /// [`chain_wide`](Kernel::chain_wide) on operands not yet widened:
    /// widens them, `CHAIN` steps at a time.
    #[inline(always)]
    fn chain<X: Instr>(a: Win<'_, Self::A>, b: Win<'_, Self::B>, steps: usize, c: &mut [Self::C]) {
        // A lone instruction needs one slot, not CHAIN of them to zero.
        if steps == 1 {
            widen_chain::<X, Self, 1>(a, b, steps, c);
        } else {
            widen_chain::<X, Self, CHAIN>(a, b, steps, c);
        }
    }
}

/// [`Kernel::chain`]'s default, `S` steps widened at a time.
#[inline(always)]
fn widen_chain<X: Instr, K: Kernel, const S: usize>(
    a: Win<'_, K::A>,
    b: Win<'_, K::B>,
    steps: usize,
    c: &mut [K::C],
) {
    let s = X::SPEC;
    let mut wa = [[K::Wide::default(); MAX_FRAGMENT]; S];
    let mut wb = [[K::Wide::default(); MAX_FRAGMENT]; S];
    let mut first = 0;
    while first < steps {
        let len = (steps - first).min(S);
        let mut plain = true;
        for t in 0..len {
            let (a_shape, b_shape) = ([s.blocks, s.m, s.k], [s.blocks, s.k, s.n]);
            plain &= widen_operand(a, first + t, a_shape, &mut wa[t], K::widen_slice_a);
            plain &= widen_operand(b, first + t, b_shape, &mut wb[t], K::widen_slice_b);
        }
        let shape = |rows, cols| [len, s.blocks, rows, cols];
        let wa = Win::new(
            wa.as_flattened(),
            [MAX_FRAGMENT, s.m * s.k, s.k],
            shape(s.m, s.k),
        );
        let wb = Win::new(
            wb.as_flattened(),
            [MAX_FRAGMENT, s.k * s.n, s.n],
            shape(s.k, s.n),
        );
        K::chain_wide::<X>(wa, wb, len, plain, c);
        first += len;
    }
}

/// Widens step `t` of an operand window of `blocks × rows × cols` into
/// `to` (matrix order) with `widen` (a family's `widen_slice_*`); whether
/// every value passed [`Kernel::plain`].
#[inline(always)]
fn widen_operand<T: Copy, W>(
    w: Win<'_, T>,
    t: usize,
    [blocks, rows, cols]: [usize; 3],
    to: &mut [W],
    widen: impl Fn(&[T], &mut [W]) -> bool,
) -> bool {
    // A fragment's operand is one contiguous run: widen it in one call.
    if w.whole_blocks(rows, cols) {
        let len = blocks * rows * cols;
        return widen(&w.data[t * w.step..][..len], &mut to[..len]);
    }
    let mut plain = true;
    for blk in 0..blocks {
        for r in 0..rows {
            let to = &mut to[(blk * rows + r) * cols..][..cols];
            plain &= widen(w.row(t, blk, r, cols), to);
        }
    }
    plain
}

/// [`Kernel::widen_slice_a`]'s default: the element-wise definition, from
/// the best copy the CPU has.
///
/// `widen` is a type parameter, not a `fn` pointer: each family's function
/// item is then inlined into the loop, which vectorises. Through a pointer,
/// packing f32 into panels cost an indirect call per element, a third of
/// the time of an f32 GEMM.
#[inline(always)]
fn widen_run_body<K: Kernel, T: Copy, F: Fn(T) -> K::Wide>(
    from: &[T],
    to: &mut [K::Wide],
    widen: F,
) -> bool {
    let mut plain = true;
    for (w, &x) in to.iter_mut().zip(from) {
        *w = widen(x);
        plain &= K::plain(*w);
    }
    plain
}

multiversion! {
    pub(crate) fn widen_run<K: Kernel, T: Copy, F: Fn(T) -> K::Wide>(from: &[T], to: &mut [K::Wide], widen: F) -> bool => widen_run_body
}

/// Instructions widened at once by [`Kernel::chain`]: enough to amortise
/// the accumulator's loads and stores, small enough for the stack.
const CHAIN: usize = 16;

/// The most elements an A or B fragment of any dense builtin holds (SMFMAC
/// runs as its dense twin, see [`sparse`](crate::sparse)).
pub(crate) const MAX_FRAGMENT: usize = {
    let mut max = 0;
    let mut a = 0;
    while a < mfma_spec::ARCHS.len() {
        let table = mfma_spec::ARCHS[a].builtins;
        let mut i = 0;
        while i < table.len() {
            let x = &table[i];
            let larger = x.blocks * x.k * if x.m > x.n { x.m } else { x.n };
            if larger > max && x.sparse.is_none() {
                max = larger;
            }
            i += 1;
        }
        a += 1;
    }
    max
};

/// [`Kernel::chain`] over fragments, all modifiers zero.
pub(crate) fn run_chain<X: Instr>(a: &[FragA<X>], b: &[FragB<X>], c: &mut Acc<X>) {
    let s = X::SPEC;
    let len = FragA::<X>::LAYOUT.elements();
    let steps = a.len().min(b.len());
    let a = Win::new(flat(a), [len, s.m * s.k, s.k], [steps, s.blocks, s.m, s.k]);
    let b = Win::new(flat(b), [len, s.k * s.n, s.n], [steps, s.blocks, s.k, s.n]);
    X::Kernel::chain::<X>(a, b, steps, c.regs_mut().as_mut());
}

/// The elements of consecutive fragments, as one slice.
#[inline(always)]
fn flat<X: Instr, O: crate::fragment::Operand>(f: &[crate::Fragment<X, O>]) -> &[O::Elem<X>] {
    let len = crate::Fragment::<X, O>::LAYOUT.elements();
    // Storage is sealed to arrays; that this array is the layout's elements
    // is a fact of the generated types, checked here once per type.
    const {
        assert!(
            core::mem::size_of::<O::Regs<X>>()
                == crate::Fragment::<X, O>::LAYOUT.elements() * core::mem::size_of::<O::Elem<X>>()
        )
    };
    // SAFETY: a fragment is `repr(transparent)` over its storage, an array
    // (`Storage` is sealed) of `len` elements (asserted above), so a slice of
    // them is `f.len() * len` contiguous elements.
    unsafe { core::slice::from_raw_parts(f.as_ptr().cast(), f.len() * len) }
}

/// Applies blgp and negation, then the family's kernel.
pub(crate) fn run<X: Instr>(m: Modifiers, a: &FragA<X>, b: &FragB<X>, c: &mut Acc<X>) {
    let (a_neg, b_neg);
    let a = if m.negates(Operand::A) {
        a_neg = negated(a.regs());
        &a_neg
    } else {
        a.regs()
    };
    let b_routed;
    let b = if m.blgp != 0 {
        b_routed = route_b::<X>(m, b.regs());
        &b_routed
    } else {
        b.regs()
    };
    let b = if m.negates(Operand::B) {
        b_neg = negated(b);
        &b_neg
    } else {
        b
    };
    if m.negates(Operand::C) {
        *c.regs_mut() = negated(c.regs());
    }
    X::Kernel::run::<X>(m, a.as_ref(), b.as_ref(), c.regs_mut().as_mut());
}

/// Runs dense builtin `X` with modifiers chosen at run time: `c = A·B + c`
/// as [`execute_into`](crate::execute_into) computes it with the same
/// modifiers as constants, bit for bit. **Host only** (the GPU encodes
/// modifiers in the instruction, so they must be constants there); for
/// tools that pick builtins and modifiers from data, such as a probe that
/// compares the software path with a GPU.
///
/// ```
/// use mfma_core::{execute, mfma, soft::execute_dynamic, Acc, FragA, FragB, Modifiers};
/// type X = mfma!(f32_16x16x4f16);
/// let a = FragA::<X>::from_fn(|b, i, k| half::f16::from_f32((b * 7 + i + k) as f32));
/// let b = FragB::<X>::from_fn(|b, k, j| half::f16::from_f32((b + k * j % 3) as f32));
/// let c = Acc::<X>::splat(0.5);
/// let mut d = c;
/// execute_dynamic::<X>(Modifiers::new(1, 1, 4), &a, &b, &mut d).unwrap();
/// assert_eq!(d, execute::<X, 1, 1, 4>(a, b, c));
/// // Illegal modifiers are refused with the spec's message; `c` is left alone.
/// let err = execute_dynamic::<X>(Modifiers::new(3, 0, 0), &a, &b, &mut d).unwrap_err();
/// assert!(err.to_string().starts_with("cbsz must be in 0..=2 for f32_16x16x4f16"));
/// ```
///
/// # Errors
/// The [`ModifierError`](mfma_spec::ModifierError) of
/// [`validate`](mfma_spec::validate) if `m` is illegal for `X`.
pub fn execute_dynamic<X: Instr>(
    m: Modifiers,
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
) -> Result<(), mfma_spec::ModifierError> {
    const { crate::exec::assert_dense(X::SPEC) };
    mfma_spec::validate(X::SPEC, m)?;
    run::<X>(m, a, b, c);
    Ok(())
}

/// [`execute_dynamic`] for an SMFMAC builtin: `c = A·B + c` with the
/// logical A of `a` and the index set of `idx` that `m`'s cbsz/abid pick,
/// as [`execute_sparse_into`](crate::execute_sparse_into) computes it.
/// **Host only.**
///
/// ```
/// use mfma_core::{execute_sparse, mfma, soft::execute_sparse_dynamic, Acc, FragA, FragB, FragIdx, Modifiers};
/// type S = mfma!(cdna3::smfmac_f32_16x16x32_bf16);
/// let a = FragA::<S>::from_fn(|_, i, kc| half::bf16::from_f32((i + kc) as f32));
/// let b = FragB::<S>::from_fn(|_, k, j| half::bf16::from_f32((k % 3 + j) as f32));
/// let idx = FragIdx::<S>::from_positions(|i, kc| ((i + kc) % 2 + 2 * (kc % 2)) as u8).unwrap();
/// let mut d = Acc::<S>::zero();
/// execute_sparse_dynamic::<S>(Modifiers::new(0, 2, 0), &a, &b, &mut d, &idx).unwrap();
/// assert_eq!(d, execute_sparse::<S, 0, 2>(a, b, Acc::<S>::zero(), &idx));
/// ```
///
/// # Errors
/// The [`ModifierError`](mfma_spec::ModifierError) if `m` is illegal for `X`.
///
/// # Panics
/// If a field of the index set read gives both stored values the same
/// position (see [`sparse`](crate::sparse)).
pub fn execute_sparse_dynamic<X: crate::SparseInstr>(
    m: Modifiers,
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
    idx: &crate::FragIdx<X>,
) -> Result<(), mfma_spec::ModifierError> {
    mfma_spec::validate(X::SPEC, m)?;
    let set = X::SPEC.sparse.map_or(0, |s| s.index_set(m));
    crate::sparse::run_soft::<X>(set, a, b, c, idx);
    Ok(())
}

/// Every element with its sign flipped (reference CDNA3 3.3: negation flips
/// the sign of the operand's values before use, so +0 becomes -0). Only
/// floating-point operands are ever negated.
fn negated<T: Element, R: crate::Storage<T>>(regs: &R) -> R {
    debug_assert!(T::TYPE.is_float());
    let sign = 1u64 << (T::TYPE.bits() - 1);
    let mut out = *regs;
    for v in out.as_mut() {
        *v = T::from_bits_u64(v.to_bits_u64() ^ sign);
    }
    out
}

/// B as the blgp lane pattern presents it: each element is read from the
/// slot that [`source`] names (reference 3.2).
fn route_b<X: Instr>(m: Modifiers, b: &X::BRegs) -> X::BRegs {
    let l = &X::SPEC.b;
    let mut out = *b;
    for (idx, v) in out.as_mut().iter_mut().enumerate() {
        let from = l.coord_unchecked(source(X::SPEC, Operand::B, m, l.delinear(idx)));
        *v = b.as_ref()[l.linear(from)];
    }
    out
}

/// Whether every block of `X` reads its own A under `m` (no cbsz
/// broadcast), as a chain's blocks do.
#[inline(always)]
fn own_a<X: Instr>(m: Modifiers) -> bool {
    (0..X::SPEC.blocks).all(|blk| m.a_source_block(blk) == blk)
}

/// The per-block matrices a kernel works on: `(A of src(blk), B of blk, C of
/// blk)` for each block `blk` in order, with cbsz/abid applied by slicing.
#[inline(always)]
fn blocks<'s, X: Instr, TA, TB, C>(
    m: Modifiers,
    a: &'s [TA],
    b: &'s [TB],
    c: &'s mut [C],
) -> impl Iterator<Item = (&'s [TA], &'s [TB], &'s mut [C])> {
    let s = X::SPEC;
    let a_len = s.m * s.k;
    b.chunks_exact(s.k * s.n)
        .zip(c.chunks_exact_mut(s.m * s.n))
        .enumerate()
        .map(move |(blk, (b, c))| (&a[m.a_source_block(blk) * a_len..][..a_len], b, c))
}

/// Runs `f` once under every compiled copy of the kernels this CPU can run
/// (see [`Kernels`]), printing the copies it cannot, so that a test compares
/// all of them wherever it runs.
#[cfg(test)]
pub(crate) fn each_copy(mut f: impl FnMut(Kernels)) {
    for k in Kernels::ALL {
        if k <= Kernels::available() {
            with_kernels(k, || f(k));
        } else {
            std::println!("skipped: the {} kernels (this CPU lacks them)", k.name());
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
std::thread_local! {
    /// Steps of 4×4 blocks that an AVX2 or AVX-512 chain took in the lanes
    /// of a vector (`block4` of `fused_*`, `grouped_*` and `int_*`) on this
    /// thread, a block's step counted once.
    static BLOCK4_STEPS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Counts `n` steps of blocks in [`BLOCK4_STEPS`].
#[cfg(all(test, target_arch = "x86_64"))]
fn count_block4_steps(n: usize) {
    BLOCK4_STEPS.set(BLOCK4_STEPS.get() + n);
}

#[cfg(test)]
mod tests {
    use super::{each_copy, with_kernels, Kernels};
    use crate::{execute, Acc, Element, FragA, FragB, Instr, Visit};
    use mfma_spec::ElemType;
    use mfma_spec::Modifiers;

    /// Runs `f(copy)` under the AVX2 and the AVX-512 kernels, those the CPU has,
    /// saying which it skipped.
    #[cfg(target_arch = "x86_64")]
    fn each_simd_copy(mut f: impl FnMut(Kernels)) {
        for copy in [Kernels::Avx2, Kernels::Avx512] {
            if Kernels::available() < copy {
                std::println!("skipped: the {} kernels (this CPU lacks them)", copy.name());
                continue;
            }
            with_kernels(copy, || f(copy));
        }
    }

    /// A small xorshift: enough to spread bit patterns, no dependency.
    struct Bits(u64);
    impl Bits {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// Random bits half the time, otherwise a small integer: both the
        /// special values and ordinary sums get exercised.
        fn elem<T: Element>(&mut self) -> T {
            let r = self.next();
            if T::TYPE == ElemType::Idx {
                // Two different positions (equal ones are refused).
                let first = r % 4;
                return T::from_bits_u64(first | ((first + 1 + (r >> 2) % 3) % 4) << 2);
            }
            if r & 1 == 0 {
                T::from_bits_u64(r >> 1)
            } else {
                from_f64((((r >> 8) % 7) as f64) - 3.0)
            }
        }
    }

    /// `x` in the element type, rounded to nearest (8-bit floats saturate).
    fn from_f64<T: Element>(x: f64) -> T {
        let bits = match T::TYPE {
            ElemType::F32 | ElemType::Xf32 => u64::from((x as f32).to_bits()),
            ElemType::F64 => x.to_bits(),
            ElemType::F16 => u64::from(half::f16::from_f64(x).to_bits()),
            ElemType::Bf16 => u64::from(half::bf16::from_f64(x).to_bits()),
            ElemType::Fp8 => u64::from(crate::Fp8::from_f64_saturating(x).to_bits()),
            ElemType::Bf8 => u64::from(crate::Bf8::from_f64_saturating(x).to_bits()),
            ElemType::I8 | ElemType::I32 => x as i64 as u64,
            ElemType::Idx => unreachable!("no kernel computes with index fields"),
        };
        T::from_bits_u64(bits)
    }

    fn is_nan(ty: ElemType, bits: u64) -> bool {
        match ty {
            ElemType::F32 => f32::from_bits(bits as u32).is_nan(),
            ElemType::F64 => f64::from_bits(bits).is_nan(),
            _ => false,
        }
    }

    /// Runs `v` for every builtin of every architecture (the SMFMAC ones
    /// if `v` visits them).
    fn every_builtin<V: Visit<Output = ()> + Copy>(v: V) {
        for x in mfma_spec::ARCHS.iter().flat_map(|a| a.builtins) {
            let visited = crate::visit(&std::format!("{}", x.path()), v);
            assert!(visited.is_some() || x.is_sparse(), "{}", x.name);
        }
    }

    /// `c` after the instructions `a[t]·b[t]` one by one, through the
    /// per-instruction kernel (not `execute_into`, which is itself a
    /// chain of one when modifiers are zero): what a chain must equal.
    fn the_loop<X: Instr>(a: &[FragA<X>], b: &[FragB<X>], c: Acc<X>) -> Acc<X> {
        let mut looped = c;
        for (a, b) in a.iter().zip(b) {
            super::run::<X>(Modifiers::NONE, a, b, &mut looped);
        }
        looped
    }

    /// Two accumulators have the same bits (NaN by class).
    fn assert_same_bits<X: Instr>(got: &Acc<X>, want: &Acc<X>, what: &str) {
        for (idx, (g, w)) in got
            .as_row_major()
            .iter()
            .zip(want.as_row_major())
            .enumerate()
        {
            let (g, w) = (g.to_bits_u64(), w.to_bits_u64());
            let ty = X::SPEC.cd;
            assert!(
                g == w || (is_nan(ty, g) && is_nan(ty, w)),
                "{} {what}: {g:x} vs {w:x} at {idx}",
                X::SPEC.name
            );
        }
    }

    /// `c` after one instruction of the per-instruction kernel.
    ///
    /// (A closure `|mut c: Acc<X>| { run(.., &mut c); c }` called twice with
    /// the same `c` is miscompiled by rustc 1.95 and 1.96 at opt-level 1 and
    /// 2, in code generation: rust-lang/rust#155241, fixed in 1.97.1. The
    /// pinned toolchain has the fix; `tests/tests/toolchain.rs` checks it.)
    fn each<X: Instr>(a: &FragA<X>, b: &FragB<X>, mut c: Acc<X>) -> Acc<X> {
        super::run::<X>(Modifiers::NONE, a, b, &mut c);
        c
    }

    /// Runs builtin `X` on random inputs with every compiled copy of its
    /// kernel the CPU runs; each result must have the portable copy's bits
    /// (NaN by class).
    #[derive(Clone, Copy)]
    struct BothCopiesAgree {
        inputs: Source,
        acc: Source,
    }
    impl Visit for BothCopiesAgree {
        type Output = ();
        fn visit<X: Instr>(self) {
            let mut rng = Bits(0x9e37_79b9_7f4a_7c15 ^ X::SPEC.name.len() as u64);
            for _ in 0..20 {
                let a = FragA::<X>::from_fn(|_, _, _| rng.from(self.inputs));
                let b = FragB::<X>::from_fn(|_, _, _| rng.from(self.inputs));
                let c = Acc::<X>::from_fn(|_, _, _| rng.from(self.acc));
                // Both the chain kernels (what `execute` runs without
                // modifiers) and the per-instruction ones.
                let (portable, portable_each) = with_kernels(Kernels::Portable, || {
                    assert_eq!(Kernels::active(), Kernels::Portable);
                    (execute::<X, 0, 0, 0>(a, b, c), each(&a, &b, c))
                });
                each_copy(|k| {
                    let (fast, fast_each) = (execute::<X, 0, 0, 0>(a, b, c), each(&a, &b, c));
                    let what = std::format!("{} chain", k.name());
                    assert_same_bits(&fast, &portable, &what);
                    let what = std::format!("{} instruction", k.name());
                    assert_same_bits(&fast_each, &portable_each, &what);
                });
            }
        }
    }

    /// Where the elements of a test come from.
    #[derive(Clone, Copy, Debug)]
    enum Source {
        /// [`Bits::elem`]: specials, subnormals, small integers.
        Mixed,
        /// Random values with a binary exponent in the range.
        Scaled(i32, i32),
        /// As `Scaled` (one zero in eight), half of the rest zeros too: 9
        /// in 16 zeros, so that 3 % of the outputs of a group of 16 have no
        /// nonzero product (for the x86 dot product's test).
        #[cfg(target_arch = "x86_64")]
        Sparse(i32, i32),
    }

    /// A chain's operands: `len` fragments of A and of B.
    type Operands<X> = (std::vec::Vec<FragA<X>>, std::vec::Vec<FragB<X>>);

    impl Bits {
        /// `len` fragments of A and of B, every input from `src`.
        fn fragments<X: Instr>(&mut self, len: usize, src: Source) -> Operands<X> {
            let a = (0..len)
                .map(|_| FragA::<X>::from_fn(|_, _, _| self.from(src)))
                .collect();
            let b = (0..len)
                .map(|_| FragB::<X>::from_fn(|_, _, _| self.from(src)))
                .collect();
            (a, b)
        }

        fn from<T: Element>(&mut self, src: Source) -> T {
            match src {
                Source::Mixed => self.elem(),
                #[cfg(target_arch = "x86_64")]
                Source::Sparse(lo, hi) => {
                    if self.next().is_multiple_of(2) {
                        T::from_bits_u64(0)
                    } else {
                        self.from(Source::Scaled(lo, hi))
                    }
                }
                Source::Scaled(lo, hi) => {
                    let r = self.next();
                    let e = lo + ((r >> 8) % (hi - lo + 1) as u64) as i32;
                    let mantissa = 1.0 + ((r >> 20) & 0xff_ffff) as f64 / (1u64 << 24) as f64;
                    let sign = if r & 16 == 0 { 1.0 } else { -1.0 };
                    // One in eight a zero, of either sign.
                    let magnitude = if r.is_multiple_of(8) {
                        0.0
                    } else {
                        mantissa * 2f64.powi(e)
                    };
                    let x = sign * magnitude;
                    match T::TYPE {
                        ElemType::I8 | ElemType::I32 => T::from_bits_u64(r >> 32),
                        _ => from_f64(x),
                    }
                }
            }
        }
    }

    /// The input regimes (inputs, accumulators) of the tests: specials,
    /// ordinary values, accumulators far below the products (subnormal
    /// ones too, which CDNA3's short cut scales below f32's range), the
    /// limits of the grouped families' fast path: products near 2^-103 with
    /// accumulators near the smallest normal, and products near overflow;
    /// and inputs of a few binades, whose fp8/bf8 groups CDNA3's AVX2 and
    /// AVX-512 chains sum as integer dot products, with accumulators around
    /// and below the products and specials.
    const REGIMES: [(Source, Source); 9] = [
        (Source::Mixed, Source::Mixed),
        (Source::Scaled(-20, 20), Source::Scaled(-20, 20)),
        (Source::Scaled(-20, 20), Source::Mixed),
        (Source::Scaled(-20, 20), Source::Scaled(-149, -120)),
        (Source::Scaled(-56, -48), Source::Scaled(-130, -98)),
        (Source::Scaled(-14, -10), Source::Scaled(-130, -120)),
        (Source::Scaled(58, 66), Source::Scaled(120, 127)),
        (Source::Scaled(-3, 1), Source::Scaled(-12, 8)),
        (Source::Scaled(-3, 1), Source::Mixed),
    ];

    /// Runs random chains of builtin `X` through `execute_chain_into` and
    /// through the instruction-by-instruction loop it stands for: same bits.
    #[derive(Clone, Copy)]
    struct ChainIsTheLoop {
        inputs: Source,
        acc: Source,
    }
    impl Visit for ChainIsTheLoop {
        type Output = ();
        fn visit<X: Instr>(self) {
            let mut rng = Bits(0x2545_f491_4f6c_dd1d ^ X::SPEC.name.len() as u64);
            for len in [1, 2, 3, 8, 17, 33] {
                let (a, b) = rng.fragments::<X>(len, self.inputs);
                let c = Acc::<X>::from_fn(|_, _, _| rng.from(self.acc));
                let mut chained = c;
                crate::execute_chain_into::<X, 0, 0, 0>(&a, &b, &mut chained);
                let looped = the_loop(&a, &b, c);
                assert_same_bits(&chained, &looped, &std::format!("chain of {len}"));
            }
        }
    }

    /// Chains agree with the loop in every regime (see [`REGIMES`]), in
    /// every copy.
    #[test]
    fn run_time_modifiers_give_the_constant_ones_bits() {
        #[derive(Clone, Copy)]
        struct Same;
        impl Visit for Same {
            type Output = ();
            fn visit<X: Instr>(self) {
                let mut r = Bits(0x5eed ^ X::SPEC.m as u64);
                let a = FragA::<X>::from_fn(|_, _, _| r.elem());
                let b = FragB::<X>::from_fn(|_, _, _| r.elem());
                let c = Acc::<X>::from_fn(|_, _, _| r.elem());
                let mut d = c;
                super::execute_dynamic::<X>(Modifiers::NONE, &a, &b, &mut d).unwrap();
                assert_same_bits(&d, &execute::<X, 0, 0, 0>(a, b, c), "dynamic");
                // The blgp field is never 9: refused, and `c` untouched.
                let mut e = c;
                assert!(
                    super::execute_dynamic::<X>(Modifiers::new(0, 0, 9), &a, &b, &mut e).is_err()
                );
                assert_same_bits(&e, &c, "refused");
            }
        }
        every_builtin(Same);
    }

    #[test]
    fn a_chain_is_the_loop_of_its_instructions() {
        each_copy(|_| {
            for (inputs, acc) in REGIMES {
                every_builtin(ChainIsTheLoop { inputs, acc });
            }
        });
    }

    /// Runs random chains of builtin `X` out of panels, from a row and
    /// column inside them, and through fragments built element by element
    /// from the same matrices: same bits.
    #[derive(Clone, Copy)]
    struct PanelsAreTheLoop {
        inputs: Source,
        acc: Source,
    }
    impl Visit for PanelsAreTheLoop {
        type Output = ();
        fn visit<X: Instr>(self) {
            use super::{execute_chain_panels, PanelA, PanelB};
            let s = X::SPEC;
            let mut rng = Bits(0x5851_f42d_4c95_7f2d ^ s.name.len() as u64);
            let (mut pa, mut pb) = (PanelA::<X>::new(), PanelB::<X>::new());
            for steps in [1, 2, 5, 16] {
                // A margin of rows and columns around the fragments, and
                // columns of K past the chain, which it must not read.
                let (row, col) = (1 + rng.next() as usize % 3, 2 + rng.next() as usize % 5);
                let (rows, cols, k) = (row + s.blocks * s.m + 2, col + s.n + 3, steps * s.k + 1);
                let a: std::vec::Vec<X::In> =
                    (0..rows * k).map(|_| rng.from(self.inputs)).collect();
                let b: std::vec::Vec<X::InB> =
                    (0..k * cols).map(|_| rng.from(self.inputs)).collect();
                if steps % 2 == 0 {
                    pa.fill_rows(rows, k, |r| &a[r * k..][..k]);
                    pb.fill_rows(k, cols, |r| &b[r * cols..][..cols]);
                } else {
                    pa.fill_with(rows, k, |r, c| a[r * k + c]);
                    pb.fill_with(k, cols, |r, c| b[r * cols + c]);
                }
                let c = Acc::<X>::from_fn(|_, _, _| rng.from(self.acc));
                let mut packed = c;
                execute_chain_panels(&pa, row, &pb, col, steps, &mut packed);
                let mut looped = c;
                for t in 0..steps {
                    let fa = FragA::<X>::from_fn(|blk, i, kk| {
                        a[(row + blk * s.m + i) * k + t * s.k + kk]
                    });
                    let fb = FragB::<X>::from_fn(|_, kk, j| b[(t * s.k + kk) * cols + col + j]);
                    super::run::<X>(Modifiers::NONE, &fa, &fb, &mut looped);
                }
                assert_same_bits(&packed, &looped, &std::format!("{steps} steps from panels"));
            }
        }
    }

    /// Panels agree with fragments on the same cases as chains.
    #[test]
    fn a_chain_out_of_panels_is_the_loop_of_its_instructions() {
        use Source::*;
        let cases = [
            (Mixed, Mixed),
            (Scaled(-20, 20), Scaled(-20, 20)),
            (Scaled(-56, -48), Scaled(-130, -98)),
            (Scaled(58, 66), Scaled(120, 127)),
            (Scaled(-3, 1), Scaled(-12, 8)),
        ];
        each_copy(|_| {
            for (inputs, acc) in cases {
                every_builtin(PanelsAreTheLoop { inputs, acc });
            }
        });
    }

    #[test]
    fn a_panel_too_small_for_the_chain_is_refused() {
        type X = crate::mfma!(f32_32x32x2f32);
        let (mut a, mut b) = (super::PanelA::<X>::new(), super::PanelB::<X>::new());
        a.fill_with(32, 4, |_, _| 1.0);
        b.fill_with(4, 32, |_, _| 1.0);
        let mut c = Acc::<X>::zero();
        super::execute_chain_panels(&a, 0, &b, 0, 2, &mut c);
        assert_eq!(c.get(0, 31, 31), 4.0);
        let three_steps = std::panic::catch_unwind(move || {
            super::execute_chain_panels(&a, 0, &b, 0, 3, &mut c);
        });
        assert!(three_steps.is_err());
    }

    /// B's row gap depends on the copy that packs (AVX2 only), and a panel
    /// carries its pitch: packed for one copy and read by another, or by
    /// the same copy, it gives the bits of the fragment loop. Also: a panel
    /// without columns packs.
    #[test]
    fn panels_read_the_same_whatever_copy_packed_them() {
        use super::{execute_chain_panels, with_kernels, Kernels, PanelA, PanelB};
        type X = crate::mfma!(f32_32x32x8f16);
        let (m, n, k) = (64, 128, 32); // B rows 512 bytes: gapped for AVX2
        let h = |x: usize| half::f16::from_f32((x % 13) as f32 - 6.0);
        let a: std::vec::Vec<_> = (0..m * k).map(h).collect();
        let b: std::vec::Vec<_> = (0..k * n).map(|x| h(x / 3 + 1)).collect();
        let mut want = Acc::<X>::zero();
        for t in 0..k / 8 {
            let fa = crate::FragA::<X>::from_fn(|_, i, kk| a[(32 + i) * k + t * 8 + kk]);
            let fb = crate::FragB::<X>::from_fn(|_, kk, j| b[(t * 8 + kk) * n + 96 + j]);
            crate::execute_into::<X, 0, 0, 0>(&fa, &fb, &mut want);
        }
        for packer in Kernels::ALL {
            let (mut pa, mut pb) = (PanelA::<X>::new(), PanelB::<X>::new());
            with_kernels(packer, || {
                pa.fill_rows(m, k, |r| &a[r * k..][..k]);
                pb.fill_rows(k, n, |r| &b[r * n..][..n]);
            });
            let gapped = pb.pitch() > n;
            assert_eq!(gapped, Kernels::available().min(packer) == Kernels::Avx2);
            for reader in Kernels::ALL {
                let mut got = Acc::<X>::zero();
                with_kernels(reader, || {
                    execute_chain_panels(&pa, 32, &pb, 96, k / 8, &mut got)
                });
                assert_eq!(got, want, "packed by {packer:?}, read by {reader:?}");
            }
            pb.fill_rows(k, 0, |r| &b[r * n..][..0]);
            assert_eq!((pb.rows(), pb.cols()), (k, 0));
        }
    }

    /// An end past `usize::MAX` must not wrap into one that passes (in a
    /// release build, unchecked arithmetic would wrap to 6 here).
    #[test]
    #[should_panic(expected = "rows past the end of their data")]
    fn rows_whose_end_overflows_are_refused() {
        let data = [0.0f32; 64];
        let _ = super::Rows::<f32, 8>::new(&data, usize::MAX / 2, 3);
    }

    #[test]
    fn every_fragment_fits_the_widening_buffers() {
        // SMFMAC runs as its dense twin, whose fragments are these.
        let dense = mfma_spec::ARCHS.iter().flat_map(|a| a.builtins);
        for x in dense.filter(|x| !x.is_sparse()) {
            assert!(x.blocks * x.m * x.k <= super::MAX_FRAGMENT, "{}", x.name);
            assert!(x.blocks * x.k * x.n <= super::MAX_FRAGMENT, "{}", x.name);
        }
    }

    /// Every path of the software execution once for every builtin, with
    /// a different value in every element: the per-instruction kernel,
    /// chains over fragments and over panels (the code with `unsafe` reads).
    /// Small enough to run under Miri, which is what it is for (README,
    /// "Checking for undefined behaviour").
    #[derive(Clone, Copy)]
    struct EveryPathOnce;
    impl Visit for EveryPathOnce {
        type Output = ();
        fn visit<X: Instr>(self) {
            let s = X::SPEC;
            let mut rng = Bits(0x6a09_e667_f3bc_c908);
            let a: [FragA<X>; 2] =
                core::array::from_fn(|_| FragA::<X>::from_fn(|_, _, _| rng.elem()));
            let b: [FragB<X>; 2] =
                core::array::from_fn(|_| FragB::<X>::from_fn(|_, _, _| rng.elem()));
            let c = Acc::<X>::from_fn(|_, _, _| rng.elem());
            let looped = the_loop(&a, &b, c);
            let mut chained = c;
            crate::execute_chain_into::<X, 0, 0, 0>(&a, &b, &mut chained);
            assert_same_bits(&chained, &looped, "chain of fragments");
            // The same two steps out of panels: A's blocks stacked down the
            // rows, B of block 0 (the loop reads every block's own B, so
            // give every block the same B for this comparison).
            let b0: [FragB<X>; 2] =
                core::array::from_fn(|t| FragB::<X>::from_fn(|_, k, j| b[t].get(0, k, j)));
            let looped = the_loop(&a, &b0, c);
            let (mut pa, mut pb) = (super::PanelA::<X>::new(), super::PanelB::<X>::new());
            pa.fill_with(s.blocks * s.m, 2 * s.k, |r, kk| {
                a[kk / s.k].get(r / s.m, r % s.m, kk % s.k)
            });
            pb.fill_with(2 * s.k, s.n, |kk, j| b0[kk / s.k].get(0, kk % s.k, j));
            let mut packed = c;
            super::execute_chain_panels(&pa, 0, &pb, 0, 2, &mut packed);
            assert_same_bits(&packed, &looped, "chain of panels");
        }

        /// SMFMAC: decompression into the dense twin's fragments, one
        /// instruction and a chain, under the set that abid picks.
        fn visit_sparse<X: crate::SparseInstr>(self) -> Option<()> {
            let mut rng = Bits(0xbb67_ae85_84ca_a73b);
            let a: [FragA<X>; 2] =
                core::array::from_fn(|_| FragA::<X>::from_fn(|_, _, _| rng.elem()));
            let b: [FragB<X>; 2] =
                core::array::from_fn(|_| FragB::<X>::from_fn(|_, _, _| rng.elem()));
            let idx: [crate::FragIdx<X>; 2] =
                core::array::from_fn(|_| crate::FragIdx::<X>::from_fn(|_, _, _| rng.elem()));
            let c = Acc::<X>::from_fn(|_, _, _| rng.elem());
            let mut looped = c;
            for t in 0..2 {
                crate::execute_sparse_into::<X, 0, 1>(&a[t], &b[t], &mut looped, &idx[t]);
            }
            let mut chained = c;
            crate::execute_sparse_chain_into::<X, 0, 1>(&a, &b, &mut chained, &idx);
            assert_same_bits(&chained, &looped, "chain of SMFMAC");
            Some(())
        }
    }

    #[test]
    fn miri_every_path_of_every_builtin_once() {
        every_builtin(EveryPathOnce);
    }

    /// Every compiled copy the CPU can run gives the portable copy's bits,
    /// for every builtin (chains and single instructions).
    #[test]
    fn every_copy_agrees_with_the_portable_one() {
        for (inputs, acc) in REGIMES {
            every_builtin(BothCopiesAgree { inputs, acc });
        }
    }

    /// Inputs of a few binades take CDNA3's integer dot product in the
    /// AVX2 and AVX-512 chains (those the CPU has), and their chains, from
    /// fragments and from panels, are the loop of the exact instruction.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn narrow_fp8_groups_take_the_integer_dot_product() {
        use super::fused::{DOT_DIRECT, DOT_GROUPS};
        use crate::cdna3::{f32_16x16x32_bf8_fp8, f32_32x32x16_fp8_fp8};
        each_simd_copy(|copy| {
            let (inputs, acc) = (Source::Scaled(-3, 1), Source::Scaled(-12, 8));
            let (before, direct) = (DOT_GROUPS.get(), DOT_DIRECT.get());
            ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x16_fp8_fp8>();
            PanelsAreTheLoop { inputs, acc }.visit::<f32_32x32x16_fp8_fp8>();
            let wide = DOT_GROUPS.get();
            // Both steps: the direct one (vectors of 16 outputs whose
            // accumulators lie on the products' grid) and pass 1's.
            let direct = DOT_DIRECT.get() - direct;
            std::println!(
                "{}: {direct} of {} vectors direct",
                copy.name(),
                2 * (wide - before)
            );
            assert!(
                direct > 0 && direct < 2 * (wide - before),
                "{}",
                copy.name()
            );
            ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x32_bf8_fp8>();
            // Chains of 1 + 2 + 3 + 8 + 17 + 33 and 1 + 2 + 5 + 16
            // steps, 32 rows of one group each; 16 rows of two groups.
            assert_eq!(wide - before, (64 + 24) * 32, "{}", copy.name());
            assert_eq!(DOT_GROUPS.get() - wide, 64 * 16 * 2, "{}", copy.name());
            // Rows about as wide as the path allows (fp8: 2^-6..2^5 is
            // 13 binades a side with its fraction bits, bf8 2^-8..2^5
            // 14): some groups take it, some are refused, and some
            // refused ones do truncate a product.
            for inputs in [Source::Scaled(-6, 4), Source::Scaled(-8, 4)] {
                let before = DOT_GROUPS.get();
                ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x16_fp8_fp8>();
                ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x32_bf8_fp8>();
                let taken = DOT_GROUPS.get() - before;
                assert!(
                    taken > 0 && taken < 64 * (32 + 32),
                    "{taken} rows of groups taken"
                );
            }
            // 9 in 16 inputs zero: outputs with no nonzero product in
            // rows that take the path (3 % of them: 0.81^16), beside
            // accumulators of every kind (tiny ones are where such an
            // output's largest exponent, far below any real one,
            // matters: it must leave `c` as it is).
            let before = DOT_GROUPS.get();
            for acc in [Source::Mixed, Source::Scaled(-90, -40)] {
                let inputs = Source::Sparse(-3, 1);
                ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x16_fp8_fp8>();
                PanelsAreTheLoop { inputs, acc }.visit::<f32_32x32x16_fp8_fp8>();
            }
            // Of 2 × (64 + 24) × 32 rows of groups, all but those with a
            // column or row of zeros (or too wide) take it.
            assert!(DOT_GROUPS.get() - before > 2 * 64 * 32, "{}", copy.name());
        });
    }

    /// In the AVX2 and AVX-512 chains (those the CPU has), four rows at a
    /// time take pass 1 in bytes (`fused_avx512::fast_quad`,
    /// `fused_avx2::fast_quad`) where every exponent of the step's tiles
    /// fits one, and their chains, from fragments and from panels, are the
    /// loop of the exact instruction: across the bytes' whole range, with
    /// outputs of no nonzero product (left to the row-by-row pass 1), and
    /// with inputs one binade past the range (the tile refused).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn four_rows_take_pass_1_in_bytes() {
        each_simd_copy(|_| four_rows_in_bytes());
    }

    /// [`four_rows_take_pass_1_in_bytes`] in the copy of the thread's
    /// kernels.
    #[cfg(target_arch = "x86_64")]
    fn four_rows_in_bytes() {
        use super::fused::QUAD_GROUPS;
        use crate::cdna3::{
            f32_16x16x16bf16_1k, f32_16x16x16f16, f32_16x16x4f16, f32_16x16x8_xf32,
            f32_32x32x4_xf32, f32_32x32x4f16, f32_32x32x8bf16_1k, f32_32x32x8f16,
        };
        // Groups of four rows in the chains of `ChainIsTheLoop`: 64 steps
        // of 8 for each of the four instructions, rows of 32 and of 16
        // (16 a step for the blocks of 32x32x4f16 and 16x16x4f16 below).
        let quads = |inputs: Source, acc: Source| {
            let before = QUAD_GROUPS.get();
            ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x8bf16_1k>();
            ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x4_xf32>();
            ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x16bf16_1k>();
            ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x8_xf32>();
            let after = QUAD_GROUPS.get();
            PanelsAreTheLoop { inputs, acc }.visit::<f32_32x32x8bf16_1k>();
            PanelsAreTheLoop { inputs, acc }.visit::<f32_16x16x16bf16_1k>();
            [after[0] - before[0], after[1] - before[1]]
        };
        // (Inputs drawn at 2^30 and 2^14 may round up a binade, to
        // bf16's 2^31 and f16's 2^15; f16's smallest are subnormal.)
        for acc in [Source::Scaled(-40, 40), Source::Mixed] {
            let [all, zeros] = quads(Source::Scaled(-31, 30), acc);
            assert_eq!(all, 4 * 64 * 8, "{acc:?}");
            // (One input in eight zero: 0.3 % of xf32's outputs, of 4
            // products, have no nonzero one, and about 19 % of its groups
            // of four rows such an output; bf16's, of 8, almost none.)
            assert!(zeros < all / 4, "{zeros} of {all}");
            // 81 % of the products zero: 19 % of bf16's outputs and 43 %
            // of xf32's have no nonzero one, and nearly every group of four
            // rows such an output.
            let [all, zeros] = quads(Source::Sparse(-31, 30), acc);
            assert_eq!(all, 4 * 64 * 8, "{acc:?}");
            assert!(zeros > all / 2, "{zeros} of {all}");
            for inputs in [Source::Scaled(-32, 31), Source::Scaled(-31, 32)] {
                let [all, _] = quads(inputs, acc);
                assert!(all < 4 * 64 * 8, "{inputs:?}: {all}");
            }
            let before = QUAD_GROUPS.get()[0];
            let inputs = Source::Scaled(-24, 14);
            ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x8f16>();
            ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x4f16>();
            ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x16f16>();
            ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x4f16>();
            assert_eq!(
                QUAD_GROUPS.get()[0] - before,
                2 * (64 * 8 + 64 * 16),
                "f16 {acc:?}"
            );
        }
        // Outputs of zero products whose largest byte sum is the most
        // a zero input allows (one at 2^31), beside accumulators that
        // any step but leaving them as they are would change: those
        // outputs must not pass for real ones.
        let (inputs, acc) = (Source::Sparse(31, 31), Source::Scaled(-149, -100));
        let before = QUAD_GROUPS.get();
        ChainIsTheLoop { inputs, acc }.visit::<f32_32x32x4_xf32>();
        let after = QUAD_GROUPS.get();
        assert!(after[1] - before[1] > 0, "{before:?} {after:?}");
        ChainIsTheLoop { inputs, acc }.visit::<f32_16x16x8_xf32>();
        let last = QUAD_GROUPS.get();
        assert!(last[1] - after[1] > 0, "{after:?} {last:?}");
    }

    /// In the AVX2 and AVX-512 chains (those the CPU has), every step of
    /// every block of the 4×4 chains takes the lanes of a vector (`block4`
    /// of `fused_*`, `grouped_*` and `int_*`): CDNA3's f16 and bf16, f16's
    /// subnormals and bf16's wide range included; CDNA2's f16 and bf16 on
    /// the plain path; both architectures' i8. The chains are the loop of
    /// the exact instruction.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn four_by_four_blocks_take_the_lanes_of_a_vector() {
        use super::BLOCK4_STEPS;
        use crate::cdna2::{f32_4x4x2bf16, f32_4x4x4bf16_1k, f32_4x4x4f16, i32_4x4x4i8};
        use crate::cdna3;
        /// The inputs' and the accumulators' source.
        #[derive(Clone, Copy)]
        struct Taken(Source, Source);
        impl Visit for Taken {
            type Output = ();
            fn visit<X: Instr>(self) {
                let mut rng = Bits(0x4a4a_0404 ^ X::SPEC.name.len() as u64);
                let len = 9;
                let (a, b) = rng.fragments::<X>(len, self.0);
                let c = Acc::<X>::from_fn(|_, _, _| rng.from(self.1));
                let mut chained = c;
                let before = BLOCK4_STEPS.get();
                crate::execute_chain_into::<X, 0, 0, 0>(&a, &b, &mut chained);
                let taken = BLOCK4_STEPS.get() - before;
                assert_eq!(taken, len * X::SPEC.blocks, "{}", X::SPEC.name);
                assert_same_bits(&chained, &the_loop(&a, &b, c), X::SPEC.name);
            }
        }
        // CDNA2's trees: inputs and accumulators their plain path takes.
        let plain = Taken(Source::Scaled(-12, 12), Source::Scaled(-20, 20));
        let any = Taken(Source::Mixed, Source::Mixed);
        each_simd_copy(|_| {
            Taken(Source::Scaled(-24, 14), Source::Mixed).visit::<cdna3::f32_4x4x4f16>();
            Taken(Source::Scaled(-31, 30), Source::Mixed).visit::<cdna3::f32_4x4x4bf16_1k>();
            plain.visit::<f32_4x4x4f16>();
            plain.visit::<f32_4x4x2bf16>();
            plain.visit::<f32_4x4x4bf16_1k>();
            any.visit::<i32_4x4x4i8>();
            any.visit::<cdna3::i32_4x4x4i8>();
        });
    }

    /// Chains that share A, as the waves of a workgroup row do one after
    /// the other, reuse its decoded rows in the x86 dot products (AVX2 and
    /// AVX-512, those the CPU has) for their first `KEPT_STEPS` steps, and
    /// give the loop's bits; a chain whose A differs in one input of its
    /// last row does not reuse them.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn chains_sharing_a_reuse_its_decoded_rows() {
        use super::fused::DOT_ROWS_KEPT;
        use super::fused_dot::KEPT_STEPS;
        use crate::cdna3::f32_32x32x16_fp8_fp8 as X;
        let mut rng = Bits(0x05ee_da11);
        let narrow = Source::Scaled(-3, 1);
        for len in [1, KEPT_STEPS, KEPT_STEPS + 2] {
            let a: std::vec::Vec<FragA<X>> = (0..len)
                .map(|_| FragA::<X>::from_fn(|_, _, _| rng.from(narrow)))
                .collect();
            // The third chain's A: one input of the last row of its last
            // step changed (to a value the path still takes).
            let mut a_changed = a.clone();
            let last = a_changed.last_mut().expect("a step");
            let (m, k) = (X::SPEC.m, X::SPEC.k);
            let old = last.get(0, m - 1, k - 1);
            let new = (1..)
                .map(|_| rng.from(narrow))
                .find(|x: &_| *x != old)
                .expect("a value");
            *last = FragA::<X>::from_fn(|blk, i, kk| {
                if (blk, i, kk) == (0, m - 1, k - 1) {
                    new
                } else {
                    last.get(blk, i, kk)
                }
            });
            let chains: std::vec::Vec<_> = [&a, &a, &a_changed, &a_changed]
                .into_iter()
                .map(|a| {
                    let b: std::vec::Vec<FragB<X>> = (0..len)
                        .map(|_| FragB::<X>::from_fn(|_, _, _| rng.from(narrow)))
                        .collect();
                    let c = Acc::<X>::from_fn(|_, _, _| rng.from(Source::Scaled(-12, 8)));
                    (a, b, c)
                })
                .collect();
            each_copy(|copy| {
                if copy == Kernels::Portable {
                    return;
                }
                let before = DOT_ROWS_KEPT.get();
                let got: std::vec::Vec<Acc<X>> = chains
                    .iter()
                    .map(|(a, b, c)| {
                        let mut d = *c;
                        crate::execute_chain_into::<X, 0, 0, 0>(a, b, &mut d);
                        d
                    })
                    .collect();
                let reused = DOT_ROWS_KEPT.get() - before;
                for ((a, b, c), got) in chains.iter().zip(&got) {
                    let looped = the_loop(a, b, *c);
                    assert_same_bits(got, &looped, &std::format!("chain of {len}"));
                }
                // The second and fourth chains reuse every kept step, the
                // third all but its last (if kept).
                let kept = len.min(KEPT_STEPS);
                let changed = usize::from(len <= KEPT_STEPS);
                assert_eq!(
                    reused,
                    3 * kept - changed,
                    "{}: chains of {len}",
                    copy.name()
                );
            });
        }
    }

    /// The waves of a workgroup, row by row out of one filling of its
    /// panels, reuse A's decoded rows (the waves of a row) and B's decoded
    /// columns (the waves of a column, each position its own) in the x86
    /// dot products (AVX2 and AVX-512, those the CPU has) for their first
    /// `KEPT_STEPS` steps, telling them by the panels' fill numbers, and
    /// give the loop's bits; after a panel is filled again (here with one
    /// input changed) nothing decoded from it before is reused. For both
    /// fp8 shapes in a 128-wide workgroup: 4 waves of 32x32x16 a row, 8 of
    /// 16x16x32 (whose columns had shared 4 positions' slots, so that no
    /// wave found its columns kept).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn waves_of_a_workgroup_reuse_decoded_rows_and_columns() {
        waves_reuse::<crate::cdna3::f32_32x32x16_fp8_fp8>(4);
        waves_reuse::<crate::cdna3::f32_16x16x32_fp8_fp8>(8);
    }

    #[cfg(target_arch = "x86_64")]
    fn waves_reuse<X: Instr<In = crate::formats::Fp8, InB = crate::formats::Fp8, Out = f32>>(
        waves: usize,
    ) {
        use super::fused::{DOT_COLS_KEPT, DOT_ROWS_KEPT};
        use super::fused_dot::KEPT_STEPS;
        use super::{execute_chain_panels, PanelA, PanelB};
        let s = X::SPEC;
        let mut rng = Bits(0xc01d_ca11);
        let narrow = Source::Scaled(-3, 1);
        let steps = KEPT_STEPS + 1;
        let (rows, cols, k) = (waves * s.m, waves * s.n, steps * s.k);
        let mut a: std::vec::Vec<_> = (0..rows * k).map(|_| rng.from(narrow)).collect();
        let mut b: std::vec::Vec<_> = (0..k * cols).map(|_| rng.from(narrow)).collect();
        let c = Acc::<X>::from_fn(|_, _, _| rng.from(Source::Scaled(-12, 8)));
        let looped = |a: &[_], b: &[_], row: usize, col: usize| {
            let mut d = c;
            for t in 0..steps {
                let fa = FragA::<X>::from_fn(|_, i, kk| a[(row + i) * k + t * s.k + kk]);
                let fb = FragB::<X>::from_fn(|_, kk, j| b[(t * s.k + kk) * cols + col + j]);
                super::run::<X>(Modifiers::NONE, &fa, &fb, &mut d);
            }
            d
        };
        // An input of the last kept step changed, to a value the path
        // still takes.
        let mut change = |x: &mut std::vec::Vec<_>, at: usize| {
            x[at] = (1..)
                .map(|_| rng.from(narrow))
                .find(|y: &_| *y != x[at])
                .expect("a value");
        };
        let kept = || (DOT_ROWS_KEPT.get(), DOT_COLS_KEPT.get());
        let (last_row, last_col) = ((waves - 1) * s.m, (waves - 1) * s.n);
        each_copy(|copy| {
            if copy == Kernels::Portable {
                return;
            }
            let name = std::format!("{} {}", s.name, copy.name());
            let (mut pa, mut pb) = (PanelA::<X>::new(), PanelB::<X>::new());
            pa.fill_rows(rows, k, |r| &a[r * k..][..k]);
            pb.fill_rows(k, cols, |r| &b[r * cols..][..cols]);
            let before = kept();
            for (row, col) in (0..waves).flat_map(|r| (0..waves).map(move |c| (r * s.m, c * s.n))) {
                let mut got = c;
                execute_chain_panels(&pa, row, &pb, col, steps, &mut got);
                let want = looped(&a, &b, row, col);
                assert_same_bits(&got, &want, &std::format!("{name}: wave {row} {col}"));
            }
            // Every wave but the first of its row (column) reuses the
            // row's (column's) kept steps.
            let reused = (waves - 1) * waves * KEPT_STEPS;
            let after = kept();
            assert_eq!(
                (after.0 - before.0, after.1 - before.1),
                (reused, reused),
                "{name}"
            );
            for refill_a in [true, false] {
                if refill_a {
                    change(
                        &mut a,
                        (last_row + s.m - 1) * k + (KEPT_STEPS - 1) * s.k + 3,
                    );
                    pa.fill_rows(rows, k, |r| &a[r * k..][..k]);
                } else {
                    change(&mut b, (KEPT_STEPS - 1) * s.k * cols + last_col + 5);
                    pb.fill_rows(k, cols, |r| &b[r * cols..][..cols]);
                }
                // The last wave's rows and columns, at the same addresses:
                // only the fill number tells them apart.
                let before = kept();
                let mut got = c;
                execute_chain_panels(&pa, last_row, &pb, last_col, steps, &mut got);
                let want = looped(&a, &b, last_row, last_col);
                assert_same_bits(&got, &want, &std::format!("{name}: after the refill"));
                let after = kept();
                let refilled = if refill_a {
                    after.0 - before.0
                } else {
                    after.1 - before.1
                };
                assert_eq!(refilled, 0, "{name}: refilled A {refill_a}");
            }
        });
    }

    /// Says which copies this CPU runs, and so which the tests compare
    /// (`cargo test -- --nocapture copies_this_cpu_runs`).
    #[test]
    fn copies_this_cpu_runs() {
        let mut ran = std::vec::Vec::new();
        each_copy(|k| ran.push(k.name()));
        std::println!("ran: the {} kernels", ran.join(", "));
        assert_eq!(ran.first(), Some(&"portable"));
    }
}
