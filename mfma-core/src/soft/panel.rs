//! Packed strips of a larger matrix, for chains of instructions that read
//! them in place: what a GEMM stages once per workgroup and K strip.
//!
//! A wave of a tiled GEMM runs a chain of instructions over each K strip,
//! and every wave of a workgroup reads the same strips. Building fragments
//! for each instruction copies every element once per wave and instruction;
//! a panel holds the strip once, in the form the software kernels compute
//! in (f16/bf16 already widened and flushed, with the fast-path range check
//! already done), and [`execute_chain_panels`] reads fragment after fragment
//! straight out of it.

use super::{Kernel, Win};
use crate::fragment::{Acc, Operand, A, B};
use crate::instr::Instr;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU64, Ordering};
use std::vec::Vec;

/// Bytes of a cache line.
const LINE: usize = 64;

/// Inputs of builtin `X` in computing form.
type Wide<X> = <<X as Instr>::Kernel as Kernel>::Wide;

/// An input operand (A or B) of builtin `X`: how its elements widen into
/// the family's computing form.
pub trait Input<X: Instr>: Operand {
    /// One element.
    fn widen(x: Self::Elem<X>) -> Wide<X>;
    /// A run of elements; whether every one passed [`Kernel::plain`].
    fn widen_slice(from: &[Self::Elem<X>], to: &mut [Wide<X>]) -> bool;
}

impl<X: Instr> Input<X> for A {
    #[inline(always)]
    fn widen(x: X::In) -> Wide<X> {
        X::Kernel::widen_a(x)
    }
    #[inline]
    fn widen_slice(from: &[X::In], to: &mut [Wide<X>]) -> bool {
        X::Kernel::widen_slice_a(from, to)
    }
}

impl<X: Instr> Input<X> for B {
    #[inline(always)]
    fn widen(x: X::InB) -> Wide<X> {
        X::Kernel::widen_b(x)
    }
    #[inline]
    fn widen_slice(from: &[X::InB], to: &mut [Wide<X>]) -> bool {
        X::Kernel::widen_slice_b(from, to)
    }
}

/// A row-major `rows × cols` strip of operand `O` of builtin `X`: for
/// [`PanelA`] rows run along M and columns along K, for [`PanelB`] rows
/// run along K and columns along N. Refilling reuses the allocation.
///
/// ```
/// use mfma_core::soft::{execute_chain_panels, PanelA, PanelB};
/// use mfma_core::{execute_into, mfma, Acc, FragA, FragB};
/// type X = mfma!(f32_32x32x8f16);
/// let (m, n, k) = (32, 32, 16); // two steps of K = 8
/// let h = |x: usize| half::f16::from_f32((x % 13) as f32 - 6.0);
/// let a: Vec<_> = (0..m * k).map(h).collect();
/// let b: Vec<_> = (0..k * n).map(|x| h(x / 3)).collect();
///
/// let (mut pa, mut pb) = (PanelA::<X>::new(), PanelB::<X>::new());
/// pa.fill_rows(m, k, |r| &a[r * k..][..k]);
/// pb.fill_rows(k, n, |r| &b[r * n..][..n]);
/// let mut packed = Acc::<X>::zero();
/// execute_chain_panels(&pa, 0, &pb, 0, 2, &mut packed);
///
/// let mut looped = Acc::<X>::zero();
/// for t in 0..2 {
///     let fa = FragA::<X>::from_fn(|_, i, kk| a[i * k + t * 8 + kk]);
///     let fb = FragB::<X>::from_fn(|_, kk, j| b[(t * 8 + kk) * n + j]);
///     execute_into::<X, 0, 0, 0>(&fa, &fb, &mut looped);
/// }
/// assert_eq!(packed, looped);
/// ```
pub struct Panel<X: Instr, O: Input<X>> {
    /// The elements, from `start` on (see [`Panel::reset`]).
    buf: Vec<Wide<X>>,
    start: usize,
    rows: usize,
    cols: usize,
    /// Elements from one row to the next (see [`Panel::pitch_for`]).
    pitch: usize,
    /// Every element passed the family's fast-path range check.
    plain: bool,
    /// This filling's number, unique in the process (0: never filled).
    fill: u64,
    _m: PhantomData<O>,
}

/// The first fill number no thread has taken yet (0 is never one).
static FILLS: AtomicU64 = AtomicU64::new(1);

/// Fill numbers a thread takes from [`FILLS`] at once.
///
/// One `fetch_add` per filling made every filling of every thread write one
/// cache line, which the linker had also given what every chain call reads
/// to pick its kernel copy (`Kernels::available`), so that each thread's
/// next call missed it after any other thread's filling. On 16 Xeon threads
/// at 1024³ (three alternating rounds) i8, f32 and bf16 ran at 1153–1174,
/// 774–811 and 409–442 G(FL)OP/s that way, at 1470–1641, 872–927 and
/// 654–742 with a block per thread, as before the fill numbers existed.
const FILLS_TAKEN: u64 = 1 << 16;

/// A number for a new filling, unique in the process.
fn next_fill() -> u64 {
    std::thread_local! {
        /// This thread's next fill number and the end of its block.
        static OWN: core::cell::Cell<(u64, u64)> = const { core::cell::Cell::new((0, 0)) };
    }
    OWN.with(|own| {
        let (mut next, mut end) = own.get();
        if next == end {
            next = FILLS.fetch_add(FILLS_TAKEN, Ordering::Relaxed);
            end = next + FILLS_TAKEN;
        }
        own.set((next + 1, end));
        next
    })
}

/// A strip of A: `rows` along M, `cols` along K.
pub type PanelA<X> = Panel<X, A>;
/// A strip of B: `rows` along K, `cols` along N.
pub type PanelB<X> = Panel<X, B>;

impl<X: Instr, O: Input<X>> Default for Panel<X, O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<X: Instr, O: Input<X>> core::fmt::Debug for Panel<X, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Panel")
            .field("builtin", &X::SPEC.name)
            .field("operand", &O::OPERAND)
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .finish()
    }
}

impl<X: Instr, O: Input<X>> Panel<X, O> {
    /// An empty panel (no allocation until filled).
    pub fn new() -> Self {
        Panel {
            buf: Vec::new(),
            start: 0,
            rows: 0,
            cols: 0,
            pitch: 0,
            plain: true,
            fill: 0,
            _m: PhantomData,
        }
    }

    /// Rows of the strip.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the strip.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Refills the panel with `rows × cols` elements, row `r` from the
    /// slice `row(r)`: a slice shorter than `cols` (down to empty, past a
    /// matrix edge) is padded with zeros, a longer one is cut.
    pub fn fill_rows<'s>(
        &mut self,
        rows: usize,
        cols: usize,
        mut row: impl FnMut(usize) -> &'s [O::Elem<X>],
    ) {
        self.reset(rows, cols);
        let mut plain = true;
        for (r, to) in self.rows_mut().enumerate() {
            if r + AHEAD < rows {
                prefetch(&row(r + AHEAD)[..cols.min(row(r + AHEAD).len())]);
            }
            let from = row(r);
            let len = from.len().min(cols);
            plain &= O::widen_slice(from, &mut to[..len]);
            to[len..].fill(Wide::<X>::default());
        }
        self.plain = plain;
    }

    /// Refills the panel with `rows × cols` elements `f(r, c)`.
    ///
    /// ```
    /// use mfma_core::{mfma, soft::PanelB};
    /// type X = mfma!(i32_32x32x8i8);
    /// let mut b = PanelB::<X>::new();
    /// b.fill_with(8, 32, |k, j| (k as i8) - (j as i8));
    /// assert_eq!((b.rows(), b.cols()), (8, 32));
    /// ```
    pub fn fill_with(
        &mut self,
        rows: usize,
        cols: usize,
        mut f: impl FnMut(usize, usize) -> O::Elem<X>,
    ) {
        self.reset(rows, cols);
        let mut plain = true;
        for (r, to) in self.rows_mut().enumerate() {
            for (c, w) in to.iter_mut().enumerate() {
                *w = O::widen(f(r, c));
                plain &= X::Kernel::plain(*w);
            }
        }
        self.plain = plain;
    }

    /// Room for `rows × cols` elements (of unspecified value), reusing the
    /// allocation. The first element sits
    /// on a cache line boundary: the kernels' vector loads of a row then
    /// split no line, whatever address the allocator returned (unaligned,
    /// they made runs up to twice as slow, depending on the allocation).
    fn reset(&mut self, rows: usize, cols: usize) {
        let size = core::mem::size_of::<Wide<X>>().max(1);
        let pitch = Self::pitch_for(cols);
        let len = rows * pitch + LINE / size;
        // Grows with zeros, once; callers overwrite every element anyway.
        if self.buf.len() < len {
            self.buf.resize(len, Wide::<X>::default());
        }
        let misalign = self.buf.as_ptr() as usize % LINE;
        self.start = (LINE - misalign) % LINE / size;
        (self.rows, self.cols, self.pitch) = (rows, cols, pitch);
        self.fill = next_fill();
    }

    /// Elements from one row of a strip of `cols` columns to the next.
    ///
    /// A wave reads a slice of every row of B (its 32 of a block's 128
    /// columns, say). Rows 512 bytes apart put those slices into a quarter
    /// of the L1 cache's 64 sets; on an 8-way L1 (Zen 3's 32 KiB) one
    /// wave's slice of a K tile then fills them. For the AVX2 copies, rows
    /// whose length is a multiple of 4 lines get 2 more (the slices visit
    /// half the sets, and 128-byte line pairs stay whole): on Zen 3, one
    /// thread at 1024³, f64 went from 15–18 to 19–27 GFLOP/s and bf16_1k
    /// from 30–31 to 34–46 in four alternating rounds. The AVX-512 copies
    /// read unpadded rows: on the Xeon (12-way 48 KiB L1) the gap made
    /// f16 and bf16_1k 20–30 % slower. A's rows are read whole, one after
    /// the other: no gap. Any pitch gives the same bits (the kernels read
    /// through windows with the panel's own pitch).
    fn pitch_for(cols: usize) -> usize {
        let size = core::mem::size_of::<Wide<X>>().max(1);
        let bytes = cols * size;
        let spread = O::OPERAND == mfma_spec::Operand::B
            && super::Kernels::active() == super::Kernels::Avx2
            && bytes.is_multiple_of(LINE)
            && (bytes / LINE).is_multiple_of(4)
            && bytes > 0;
        if spread {
            cols + 2 * LINE / size
        } else {
            cols
        }
    }

    /// Elements from one row to the next.
    #[cfg(test)]
    pub(crate) fn pitch(&self) -> usize {
        self.pitch
    }

    /// The rows, `pitch` elements apart (the last one without its gap).
    fn data(&self) -> &[Wide<X>] {
        let len = (self.rows * self.pitch).saturating_sub(self.pitch - self.cols);
        &self.buf[self.start..][..len]
    }

    /// The rows' `cols` elements each, to be filled.
    fn rows_mut(&mut self) -> impl Iterator<Item = &mut [Wide<X>]> {
        let (rows, cols, pitch) = (self.rows, self.cols, self.pitch);
        self.buf[self.start..][..rows * pitch]
            .chunks_exact_mut(pitch.max(1))
            .map(move |row| &mut row[..cols])
    }
}

/// Rows [`Panel::fill_rows`] asks the memory system for ahead of the one
/// it widens. A strip's rows lie a matrix row apart (4 KiB and more), a
/// stride the hardware prefetchers do not follow, so without this every
/// row waits for its lines from L3 or DRAM one row at a time: with 16
/// threads packing B, packing took up to twice its single-thread share.
const AHEAD: usize = 4;

/// Asks for the cache lines of `s` (a hint: no effect on any value).
#[inline(always)]
fn prefetch<T>(s: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = core::mem::size_of_val(s);
        let base = s.as_ptr().cast::<i8>();
        for off in (0..bytes).step_by(LINE) {
            // SAFETY: `off < bytes`, so the address lies inside `s`; a
            // prefetch never faults and changes no value (SSE, baseline
            // on x86-64).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.add(off)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = s;
}

/// A chain of `steps` instructions of `X` (modifiers zero) on fragments
/// read out of panels: `for t in 0..steps { execute_into(&a_t, &b_t, c) }`
/// with
///
/// * `a_t(blk, i, k) = a[a_row + blk·M + i][t·K + k]`: a multi-block
///   builtin's blocks stacked down the rows of A,
/// * `b_t(blk, k, j) = b[t·K + k][b_col + j]`: the same B for every block,
///
/// which is how a wave computes its `blocks·M × N` tile of a GEMM. The
/// result is that loop's, bit for bit (see [`Panel`] for an example).
///
/// # Panics
/// If a fragment would reach past a panel: `a` needs rows up to
/// `a_row + blocks·M` and `steps·K` columns, `b` needs `steps·K` rows and
/// columns up to `b_col + N`.
pub fn execute_chain_panels<X: Instr>(
    a: &PanelA<X>,
    a_row: usize,
    b: &PanelB<X>,
    b_col: usize,
    steps: usize,
    c: &mut Acc<X>,
) {
    let s = X::SPEC;
    let k = steps * s.k;
    assert!(
        a_row + s.blocks * s.m <= a.rows && k <= a.cols,
        "{}: {steps} steps from row {a_row} need a {}x{k} A panel, not {}x{}",
        s.name,
        a_row + s.blocks * s.m,
        a.rows,
        a.cols
    );
    assert!(
        k <= b.rows && b_col + s.n <= b.cols,
        "{}: {steps} steps from column {b_col} need a {k}x{} B panel, not {}x{}",
        s.name,
        b_col + s.n,
        b.rows,
        b.cols
    );
    if steps == 0 {
        return;
    }
    let a_win = Win::new(
        &a.data()[a_row * a.pitch..],
        [s.k, s.m * a.pitch, a.pitch],
        [steps, s.blocks, s.m, s.k],
    )
    .in_fill(a.fill);
    let b_win = Win::new(
        &b.data()[b_col..],
        [s.k * b.pitch, 0, b.pitch],
        [steps, s.blocks, s.k, s.n],
    )
    .in_fill(b.fill);
    X::Kernel::chain_wide::<X>(
        a_win,
        b_win,
        steps,
        a.plain && b.plain,
        c.regs_mut().as_mut(),
    );
}

#[cfg(test)]
mod tests {
    use super::{next_fill, FILLS_TAKEN};
    use std::vec::Vec;

    /// Fill numbers stay unique and nonzero across threads and across the
    /// blocks each thread takes.
    #[test]
    fn fill_numbers_are_unique_across_threads() {
        let per_thread = FILLS_TAKEN as usize + 3;
        let mut all: Vec<u64> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..3)
                .map(|_| s.spawn(|| (0..per_thread).map(|_| next_fill()).collect::<Vec<_>>()))
                .collect();
            threads
                .into_iter()
                .flat_map(|t| t.join().unwrap())
                .collect()
        });
        assert!(!all.contains(&0));
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 3 * per_thread);
    }
}
