//! [`StagedTiles`](crate::StagedTiles) on the GPU: the tutorial's
//! `SharedStorage`, in the workgroup's LDS.
//!
//! The buffers live in launch-sized workgroup memory
//! ([`mfma_core::device::workgroup_mem`]): Rust 1.99 cannot declare static
//! LDS, so the kernel's code object says nothing of it and the launcher
//! passes [`StagedTiles::workgroup_mem_bytes`](crate::StagedTiles::workgroup_mem_bytes)
//! as dynamic shared memory. Layout, from the start of that memory:
//! `NB` buffers of A (`BM × KT`, row-major), then, 16-byte aligned, `NB`
//! buffers of B^T (`BN × KT`, row-major).
//!
//! The whole workgroup fills each strip together, then waits at a barrier
//! before anyone reads it, and again before a buffer is refilled:
//!
//! * single buffering: `prefetch(t)` stages tile `t`; `acquire(t)` is a
//!   barrier (tile `t` is complete); `release(t)` is a barrier (every wave
//!   is done with the buffer before `prefetch(t + 1)` overwrites it);
//! * double buffering: the prologue stages tile 0 and waits at a barrier;
//!   `prefetch(t)` stages tile `t + 1` into the other buffer while tile `t`
//!   is read; `acquire` does nothing, and `release(t)` is a barrier: after
//!   it, tile `t + 1` is complete and nobody reads buffer `t % 2` any more,
//!   which `prefetch(t + 1)` refills. One barrier per K tile instead of two.
//!
//! Every thread of the workgroup must make the same calls (the kernel's
//! loop bounds depend only on the problem), or a barrier would wait forever.

use crate::staged::b_offset;
use crate::tile::{Crew, TileStorage};
use crate::view::Tile;
use mfma_core::device::{barrier, workgroup_mem};
use mfma_core::Element;

/// The GPU storage of [`StagedTiles`](crate::StagedTiles): where the
/// workgroup's strips come from and where they are staged in LDS.
pub struct LdsStrips<'a, E, const BM: usize, const BN: usize, const KT: usize, const NB: usize> {
    src_a: Tile<'a, E>,
    src_b_t: Tile<'a, E>,
    /// `NB` buffers of `BM × KT` elements.
    a: *mut E,
    /// `NB` buffers of `BN × KT` elements.
    b_t: *mut E,
    crew: Crew,
}

impl<'a, E: Element, const BM: usize, const BN: usize, const KT: usize, const NB: usize>
    LdsStrips<'a, E, BM, BN, KT, NB>
{
    /// The storage of one workgroup; double buffered, tile 0 is staged
    /// (the whole workgroup must call this).
    #[inline(always)]
    pub(crate) fn new(src_a: Tile<'a, E>, src_b_t: Tile<'a, E>, crew: Crew) -> Self {
        const {
            let v = run::<E>();
            assert!(
                KT % v == 0 && BM % v == 0 && BN % v == 0,
                "staged strips copy 4 bytes per run: KT, BM and BN must be multiples of 4 / size"
            );
        };
        let base = workgroup_mem();
        let b_at = b_offset(BM, KT, NB, core::mem::size_of::<E>());
        let s = LdsStrips {
            src_a,
            src_b_t,
            a: base.cast(),
            // In bounds of the launch-sized memory, which holds
            // `workgroup_mem_bytes` by the launch contract.
            b_t: base.wrapping_add(b_at).cast(),
            crew,
        };
        if NB == 2 {
            s.stage(0);
            // Tile 0 complete before anyone reads it. Here rather than in
            // `acquire(0)`: a barrier on the first iteration only would
            // make the compiler peel it off the loop.
            barrier();
        }
        s
    }

    /// Copies K tile `t` of both strips into buffer `t % NB`: this thread's
    /// share of it.
    #[inline(always)]
    fn stage(&self, t: usize) {
        let buf = t % NB;
        let k0 = t * KT;
        // SAFETY: buffer `buf` of each region lies inside the launch-sized
        // memory (`workgroup_mem_bytes`, the launch contract), and the
        // barriers of the hooks keep every reader of it away meanwhile.
        unsafe {
            fill::<E, BM, KT>(self.a.add(buf * BM * KT), &self.src_a, k0, self.crew);
            fill::<E, BN, KT>(self.b_t.add(buf * BN * KT), &self.src_b_t, k0, self.crew);
        }
    }

    /// Whether the strips have a K tile `t`.
    #[inline(always)]
    fn has_tile(&self, t: usize) -> bool {
        t * KT < self.src_a.cols().max(self.src_b_t.cols())
    }

    /// A staged `rows × KT` buffer as a view.
    ///
    /// # Safety
    /// `p` must point to `rows * KT` initialised elements that nobody writes
    /// while the view lives.
    #[inline(always)]
    unsafe fn view(&self, p: *mut E, rows: usize) -> Tile<'_, E> {
        // SAFETY: by the caller.
        Tile::row_major(
            unsafe { core::slice::from_raw_parts(p, rows * KT) },
            rows,
            KT,
        )
    }
}

/// This thread's share of copying the `R × KT` window of `src` at column
/// `k0` into `dst` (row-major, `R × KT`). Reads past `src`'s edges give
/// the zero padding.
///
/// The window is cut into runs of [`run`] elements along whichever
/// direction is contiguous in global memory (along K for A, which is
/// row-major; along the rows for B^T, B's rows), and the crew takes runs
/// `member`, `member + size`, ...: a wave's loads coalesce, and a run's
/// elements share one address. Loads go in batches, all of a batch before
/// any of its stores, so that the thread waits for memory once per batch
/// rather than once per element.
///
/// # Safety
/// `dst` must be valid for writes of `R * KT` elements.
#[inline(always)]
unsafe fn fill<E: Element, const R: usize, const KT: usize>(
    dst: *mut E,
    src: &Tile<'_, E>,
    k0: usize,
    crew: Crew,
) {
    const BATCH: usize = 8;
    let v = run::<E>();
    // A view has contiguous rows exactly when it gives them as slices.
    let along_k = src.row_run(0, 0, 0).is_some();
    let (runs_per_line, lines) = if along_k { (KT / v, R) } else { (R / v, KT) };
    let runs = runs_per_line * lines;
    // `% size` changes nothing for a member of the crew, but tells the
    // compiler the bound: when the crew divides the runs, every run is
    // known to be inside the window and the test goes away.
    let member = crew.member % crew.size;
    // Element `e` of run `j` of this thread's share, as (row, column).
    let at = |j: usize, e: usize| {
        let q = member + j * crew.size;
        let (line, start) = (q / runs_per_line, q % runs_per_line * v + e);
        let rc = if along_k {
            (line, start)
        } else {
            (start, line)
        };
        (q < runs).then_some(rc)
    };
    // Trip counts known at compile time (the crew's size is a constant of
    // the kernel): the loops unroll and the batch lives in registers.
    let share = runs.div_ceil(crew.size) * v;
    let mut first = 0;
    while first < share {
        let len = (share - first).min(BATCH);
        let mut batch = [E::ZERO; BATCH];
        for (n, x) in batch[..len].iter_mut().enumerate() {
            let i = first + n;
            if let Some((r, c)) = at(i / v, i % v) {
                *x = src.get(r, k0 + c);
            }
        }
        for (n, x) in batch[..len].iter().enumerate() {
            let i = first + n;
            if let Some((r, c)) = at(i / v, i % v) {
                // SAFETY: r < R and c < KT: inside `dst` by the caller.
                unsafe { dst.add(r * KT + c).write(*x) };
            }
        }
        first += len;
    }
}

/// Elements a thread copies together: 4 bytes' worth (one element of 4
/// bytes or more). Both strips' contiguous extents are multiples of it for
/// every tile the kernels use (checked at compile time in `new`).
const fn run<E>() -> usize {
    let size = core::mem::size_of::<E>();
    if size >= 4 {
        1
    } else {
        4 / size
    }
}

impl<E: Element, const BM: usize, const BN: usize, const KT: usize, const NB: usize> TileStorage<E>
    for LdsStrips<'_, E, BM, BN, KT, NB>
{
    #[inline(always)]
    fn prefetch(&mut self, t: usize) {
        if NB == 1 {
            self.stage(t);
        } else if self.has_tile(t + 1) {
            self.stage(t + 1);
        }
    }

    #[inline(always)]
    fn acquire(&mut self, _t: usize) {
        // Double buffered, tile `t` was complete at the barrier of the
        // prologue (t = 0) or of `release(t - 1)`.
        if NB == 1 {
            barrier();
        }
    }

    #[inline(always)]
    fn release(&mut self, _t: usize) {
        barrier();
    }

    #[inline(always)]
    fn tile_a(&self, t: usize) -> Tile<'_, E> {
        // SAFETY: buffer `t % NB` holds tile `t` (staged before the barrier
        // of `acquire(t)`, of the prologue or of `release(t - 1)`), and it
        // is not refilled before `release(t)`, which comes after the last
        // read.
        unsafe { self.view(self.a.add((t % NB) * BM * KT), BM) }
    }

    #[inline(always)]
    fn tile_b_t(&self, t: usize) -> Tile<'_, E> {
        // SAFETY: as for `tile_a`.
        unsafe { self.view(self.b_t.add((t % NB) * BN * KT), BN) }
    }
}
