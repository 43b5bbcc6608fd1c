//! Running the kernel's grid on the host (the software path).

use crate::compute::ComputePolicy;
use crate::kernel::{gemm_workgroup, grid, HostScratch};
use crate::problem::Problem;
use crate::tile::TilePolicy;
use core::sync::atomic::{AtomicUsize, Ordering};

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
    let problem = Problem::new(m, n, k, a, b, c);
    let (gx, gy) = grid::<T>(m, n);
    let blocks = gx * gy;
    let threads = threads.clamp(1, blocks.max(1));
    // Workgroups are handed out in runs of consecutive ones (row-major), a
    // few runs per thread: a thread then meets the same block row, whose
    // staged strips of A it can reuse, several times in a row, and the runs
    // are still small enough to even out threads that run slower.
    let run = (blocks / (threads * 4)).max(1);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut scratch = HostScratch::<P>::new(&problem);
        loop {
            let first = next.fetch_add(run, Ordering::Relaxed);
            if first >= blocks {
                break;
            }
            for blk in first..(first + run).min(blocks) {
                // SAFETY: the counter hands every workgroup to exactly one thread.
                unsafe { gemm_workgroup::<T, P>(&problem, blk % gx, blk / gx, &mut scratch) };
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
}
