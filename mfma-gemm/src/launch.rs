//! Running the kernel's grid on the host (the software path).

use crate::compute::ComputePolicy;
use crate::kernel::{grid, worker_cols, workgroup, HostScratch, Phases};
use crate::problem::Problem;
use crate::tile::TilePolicy;
use core::sync::atomic::{AtomicUsize, Ordering};
use core::time::Duration;
use mfma_core::soft::{with_kernels, Kernels};
use std::time::Instant;
use std::vec::Vec;

/// Cores the host offers (1 if unknown).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `C = A·B` through the tutorial kernel: every workgroup of the grid (see
/// [`gemm_workgroup`](crate::gemm_workgroup)), spread over `threads` host
/// threads. Each output is computed by exactly one worker in a fixed order,
/// so the result does not depend on `threads` or on scheduling.
///
/// Threads take runs of consecutive workgroups, shorter as the grid
/// empties; the last runs are single columns of a workgroup's workers, so
/// that the threads finish close together. The calling thread is one of
/// them; the others (named `mfma-gemm`) are kept parked between calls, up
/// to four per core, and run the kernel copy of the calling thread (see
/// [`mfma_core::soft::with_kernels`]).
///
/// ```
/// use mfma_gemm::{gemm, GlobalTiles, MfmaPolicy};
/// type P = MfmaPolicy<mfma_core::mfma!(i32_32x32x8i8)>;
/// let (m, n, k) = (40, 70, 9);
/// let a: Vec<i8> = (0..m * k).map(|x| (x % 11) as i8 - 5).collect();
/// let b: Vec<i8> = (0..k * n).map(|x| (x % 13) as i8 - 6).collect();
/// let mut c = vec![0i32; m * n];
/// gemm::<GlobalTiles<64, 64, 16>, P>(m, n, k, &a, &b, &mut c, 2);
/// let want: i32 = (0..k).map(|kk| i32::from(a[39 * k + kk]) * i32::from(b[kk * n + 69])).sum();
/// assert_eq!(c[39 * n + 69], want);
/// ```
///
/// # Panics
/// If a slice does not hold exactly its matrix.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: TilePolicy, P: ComputePolicy>(
    m: usize,
    n: usize,
    k: usize,
    a: &[P::Elem],
    b: &[P::Elem],
    c: &mut [P::Out],
    threads: usize,
) {
    run::<T, P, false>(m, n, k, a, b, c, threads);
}

/// One host thread's share of a [`gemm_profiled`] run.
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadProfile {
    /// From the call's start to this thread's first workgroup: waking it
    /// and setting up its scratch.
    pub start: Duration,
    /// From the call's start to this thread running out of work.
    pub end: Duration,
    /// The phases of its workgroups.
    pub phases: Phases,
}

/// Where the time of one [`gemm_profiled`] call went.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// The whole call, threads woken and waited for.
    pub wall: Duration,
    /// Each thread's share (the calling thread first).
    pub threads: Vec<ThreadProfile>,
}

/// [`gemm`], timing each thread and each phase of its workgroups (a few
/// clock reads per K tile): to see what stops a GEMM from scaling with
/// threads. The result is [`gemm`]'s, bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn gemm_profiled<T: TilePolicy, P: ComputePolicy>(
    m: usize,
    n: usize,
    k: usize,
    a: &[P::Elem],
    b: &[P::Elem],
    c: &mut [P::Out],
    threads: usize,
) -> Profile {
    run::<T, P, true>(m, n, k, a, b, c, threads)
}

/// [`gemm`], timed if `TIMED`.
#[allow(clippy::too_many_arguments)]
fn run<T: TilePolicy, P: ComputePolicy, const TIMED: bool>(
    m: usize,
    n: usize,
    k: usize,
    a: &[P::Elem],
    b: &[P::Elem],
    c: &mut [P::Out],
    threads: usize,
) -> Profile {
    let begin = Instant::now();
    let problem = Problem::new(m, n, k, a, b, c);
    let (gx, gy) = grid::<T>(m, n);
    let cols = worker_cols::<T, P>();
    let units = gx * gy * cols;
    let threads = threads.clamp(1, units.max(1));
    let next = AtomicUsize::new(0);
    // Every thread runs the copy of the kernels that runs here.
    let kernels = Kernels::active();
    let work = || {
        with_kernels(kernels, || {
            let mut scratch = HostScratch::<P>::new(&problem);
            let mut me = ThreadProfile::default();
            let mut first_seen = false;
            while let Some(run) = grab(&next, units, cols, threads) {
                if TIMED && !first_seen {
                    me.start = begin.elapsed();
                    first_seen = true;
                }
                for (blk, cols) in pieces(run, cols) {
                    // SAFETY: `grab` hands every column of workers of every
                    // workgroup to exactly one thread.
                    unsafe {
                        workgroup::<T, P, TIMED>(
                            &problem,
                            blk % gx,
                            blk / gx,
                            cols,
                            &mut scratch,
                            &mut me.phases,
                        )
                    };
                }
            }
            if TIMED {
                me.end = begin.elapsed();
            }
            me
        })
    };
    let threads = crate::pool::run_on(threads, &work);
    Profile {
        wall: begin.elapsed(),
        threads,
    }
}

/// The next run of consecutive units for a thread, or `None` when all are
/// handed out. A unit is one column of a workgroup's workers (`cols` of
/// them a workgroup, workgroups row-major); a run is a share of what is
/// left (guided self-scheduling), at least one unit, and ends on a whole
/// workgroup while it spans one.
///
/// Early runs are long: a thread meets the same block row, whose staged
/// strips of A it reuses, several times in a row. Runs shrink as the grid
/// empties, so that threads finish together: with fixed runs of a quarter
/// of a thread's share, a thread that took the last run while the others
/// had nothing left idled them for up to a quarter of the whole call; with
/// whole workgroups as the last runs, for up to a workgroup (0.7–0.9 ms of
/// a 15 ms f32 call at 2048³ on 16 threads, on average).
fn grab(
    next: &AtomicUsize,
    units: usize,
    cols: usize,
    threads: usize,
) -> Option<core::ops::Range<usize>> {
    let mut first = next.load(Ordering::Relaxed);
    loop {
        if first >= units {
            return None;
        }
        let len = ((units - first) / (2 * threads)).max(1);
        // Rounding down to a whole workgroup keeps at least one unit: with
        // `len >= cols`, the last boundary at or below `first + len` lies
        // above `first`.
        let end = if len >= cols {
            (first + len) / cols * cols
        } else {
            first + len
        };
        match next.compare_exchange_weak(first, end, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(first..end),
            Err(now) => first = now,
        }
    }
}

/// The workgroups a run of units covers, each with the range of its worker
/// columns in the run.
fn pieces(
    run: core::ops::Range<usize>,
    cols: usize,
) -> impl Iterator<Item = (usize, core::ops::Range<usize>)> {
    let mut at = run.start;
    core::iter::from_fn(move || {
        (at < run.end).then(|| {
            let (blk, c0) = (at / cols, at % cols);
            let c1 = cols.min(c0 + run.end - at);
            at += c1 - c0;
            (blk, c0..c1)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{grab, pieces};
    use core::sync::atomic::AtomicUsize;
    use std::vec::Vec;

    /// Runs cover the units once, in order, end on whole workgroups while
    /// they span one, and shrink to single units; their pieces cover each
    /// workgroup's columns once, in order.
    #[test]
    fn runs_cover_every_unit_once() {
        for (blocks, cols, threads) in [
            (1, 1, 1),
            (1, 4, 3),
            (7, 2, 3),
            (64, 4, 1),
            (256, 4, 16),
            (1000, 8, 7),
        ] {
            let units = blocks * cols;
            let next = AtomicUsize::new(0);
            let runs: Vec<_> = core::iter::from_fn(|| grab(&next, units, cols, threads)).collect();
            assert_eq!(runs.first().map(|r| r.start), Some(0));
            assert!(runs.iter().all(|r| !r.is_empty()));
            assert!(runs.windows(2).all(|w| w[0].end == w[1].start));
            assert_eq!(runs.last().map(|r| r.end), Some(units));
            assert_eq!(runs.last().map(|r| r.len()), Some(1));
            assert!(runs.iter().all(|r| r.len() < cols || r.end % cols == 0));
            let pieces: Vec<_> = runs.into_iter().flat_map(|r| pieces(r, cols)).collect();
            let mut seen = 0;
            for (blk, c) in pieces {
                assert!(!c.is_empty() && c.end <= cols);
                assert_eq!((blk, c.start), (seen / cols, seen % cols));
                seen += c.len();
            }
            assert_eq!(seen, units);
        }
    }
}
