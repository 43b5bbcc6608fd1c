//! Running the kernel's grid on the host (the software path).

use crate::compute::ComputePolicy;
use crate::kernel::{grid, workgroup, HostScratch, Phases};
use crate::problem::Problem;
use crate::tile::TilePolicy;
use core::sync::atomic::{AtomicUsize, Ordering};
use core::time::Duration;
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
    /// From the call's start to this thread's first workgroup: spawning it
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
    /// The whole call, threads spawned and joined.
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
    let blocks = gx * gy;
    let threads = threads.clamp(1, blocks.max(1));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut scratch = HostScratch::<P>::new(&problem);
        let mut me = ThreadProfile::default();
        let mut first_seen = false;
        while let Some(run) = grab(&next, blocks, threads) {
            if TIMED && !first_seen {
                me.start = begin.elapsed();
                first_seen = true;
            }
            for blk in run {
                // SAFETY: `grab` hands every workgroup to exactly one thread.
                unsafe {
                    workgroup::<T, P, TIMED>(
                        &problem,
                        blk % gx,
                        blk / gx,
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
    };
    let mut profile = Profile::default();
    std::thread::scope(|s| {
        let others: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        profile.threads.push(work());
        for t in others {
            profile
                .threads
                .push(t.join().expect("a GEMM thread panicked"));
        }
    });
    profile.wall = begin.elapsed();
    profile
}

/// The next run of consecutive workgroups (row-major) for a thread, or
/// `None` when all are handed out: a share of what is left (guided
/// self-scheduling), at least one.
///
/// Early runs are long: a thread meets the same block row, whose staged
/// strips of A it reuses, several times in a row. Runs shrink as the grid
/// empties, so that threads finish together: with fixed runs of a quarter
/// of a thread's share, a thread that took the last run while the others
/// had nothing left idled them for up to a quarter of the whole call.
fn grab(next: &AtomicUsize, blocks: usize, threads: usize) -> Option<core::ops::Range<usize>> {
    let mut first = next.load(Ordering::Relaxed);
    loop {
        if first >= blocks {
            return None;
        }
        let len = ((blocks - first) / (2 * threads)).max(1);
        match next.compare_exchange_weak(first, first + len, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(first..first + len),
            Err(now) => first = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::grab;
    use core::sync::atomic::AtomicUsize;
    use std::vec::Vec;

    /// Runs cover the grid once, in order, and shrink to single workgroups.
    #[test]
    fn runs_cover_every_workgroup_once() {
        for (blocks, threads) in [(1, 1), (7, 3), (64, 1), (256, 16), (1000, 7)] {
            let next = AtomicUsize::new(0);
            let runs: Vec<_> = core::iter::from_fn(|| grab(&next, blocks, threads)).collect();
            assert_eq!(runs.first().map(|r| r.start), Some(0));
            assert!(runs.windows(2).all(|w| w[0].end == w[1].start));
            assert_eq!(runs.last().map(|r| r.end), Some(blocks));
            assert_eq!(runs.last().map(|r| r.len()), Some(1));
        }
    }
}
