//! The generic tutorial kernel, one worker at a time.

use crate::compute::ComputePolicy;
use crate::problem::Problem;
use crate::tile::{TilePolicy, TileStorage};

/// Workers (waves for MFMA policies, threads for the scalar one) in one
/// workgroup: the block tile divided into thread tiles.
///
/// ```
/// use mfma_gemm::{workers_per_block, GlobalTiles, MfmaCdna2F64Policy, ScalarFmaPolicy};
/// assert_eq!(workers_per_block::<GlobalTiles<32, 32, 4>, MfmaCdna2F64Policy>(), 4); // 2×2 waves
/// assert_eq!(workers_per_block::<GlobalTiles<32, 32, 4>, ScalarFmaPolicy>(), 16);
/// ```
pub const fn workers_per_block<T: TilePolicy, P: ComputePolicy>() -> usize {
    (T::BLOCK_TILE_M / P::THREAD_TILE_M) * (T::BLOCK_TILE_N / P::THREAD_TILE_N)
}

/// GPU threads of one workgroup: workers times the lanes each one spans.
pub const fn threads_per_block<T: TilePolicy, P: ComputePolicy>() -> usize {
    workers_per_block::<T, P>() * P::EFFECTIVE_LANES
}

/// Workgroups covering an `m × n` output: `(x over columns, y over rows)`.
///
/// ```
/// use mfma_gemm::{grid, GlobalTiles};
/// assert_eq!(grid::<GlobalTiles<32, 32, 4>>(100, 64), (2, 4));
/// ```
pub const fn grid<T: TilePolicy>(m: usize, n: usize) -> (usize, usize) {
    (n.div_ceil(T::BLOCK_TILE_N), m.div_ceil(T::BLOCK_TILE_M))
}

/// The tutorial's kernel body for one worker: worker `wave_id` of workgroup
/// `(block_x, block_y)` computes its thread tile of `C = A·B`.
///
/// For every K tile: prefetch, acquire; for `ki` in steps of `K_STEP`: load
/// the A and B fragments, `mma` (all in [`ComputePolicy::mma_k_tile`]); release. Finally `store_c`. The last K tile
/// runs only the steps it needs: past `k` the loads read zeros, so a K that
/// is not a multiple of `K_STEP` is zero padded up to the next step.
///
/// The same source runs on the host (a "wave" is then the whole wave, see
/// [`mfma_core::Fragment`]) and on gfx90a, where every lane of the wave
/// calls it with the same arguments. A `wave_id` past
/// [`workers_per_block`] writes nothing.
///
/// # Safety
/// Calls that run concurrently on the same `problem` must have distinct
/// `(block_x, block_y, wave_id)`: each call writes its thread tile of C
/// through the problem's shared pointer.
///
/// ```
/// use mfma_gemm::{gemm_wave, workers_per_block, GlobalTiles, MfmaCdna2F64Policy, Problem};
/// type T = GlobalTiles<32, 32, 4>;
/// let (m, n, k) = (20, 20, 6);
/// let a: Vec<f64> = (0..m * k).map(|x| x as f64).collect();
/// let b: Vec<f64> = (0..k * n).map(|x| (x % 7) as f64).collect();
/// let mut c = vec![0.0; m * n];
/// let p = Problem::new(m, n, k, &a, &b, &mut c);
/// for w in 0..workers_per_block::<T, MfmaCdna2F64Policy>() {
///     // SAFETY: one call at a time.
///     unsafe { gemm_wave::<T, MfmaCdna2F64Policy>(&p, 0, 0, w) };
/// }
/// drop(p);
/// let want: f64 = (0..k).map(|kk| a[19 * k + kk] * b[kk * n + 18]).sum();
/// assert_eq!(c[19 * n + 18], want);
/// ```
#[inline]
pub unsafe fn gemm_wave<T: TilePolicy, P: ComputePolicy>(
    problem: &Problem<'_, P::Elem, P::Out>,
    block_x: usize,
    block_y: usize,
    wave_id: usize,
) {
    const {
        assert!(
            T::BLOCK_TILE_M % P::THREAD_TILE_M == 0 && T::BLOCK_TILE_N % P::THREAD_TILE_N == 0,
            "the block tile must be a whole number of thread tiles"
        );
        assert!(
            T::K_TILE_SIZE % P::K_STEP == 0,
            "the K tile must be a whole number of K steps"
        );
    };
    let waves_n = T::BLOCK_TILE_N / P::THREAD_TILE_N;
    if wave_id >= workers_per_block::<T, P>() {
        return;
    }
    // The tutorial's `thread_tile_offset`: workers tile the block row-major.
    let (row, col) = (
        (wave_id / waves_n) * P::THREAD_TILE_M,
        (wave_id % waves_n) * P::THREAD_TILE_N,
    );
    let (row0, col0) = (block_y * T::BLOCK_TILE_M, block_x * T::BLOCK_TILE_N);
    let k = problem.k();

    let mut tiles = T::prologue(
        problem.a().sub(row0, 0, T::BLOCK_TILE_M, k),
        problem.b_t().sub(col0, 0, T::BLOCK_TILE_N, k),
    );
    let mut acc = P::zero();
    for t in 0..T::k_tiles(k) {
        tiles.prefetch(t);
        tiles.acquire(t);
        let (tile_a, tile_b_t) = (tiles.tile_a(t), tiles.tile_b_t(t));
        let k_len = (k - t * T::K_TILE_SIZE).min(T::K_TILE_SIZE);
        P::mma_k_tile(&mut acc, &tile_a, &tile_b_t, row, col, k_len);
        tiles.release(t);
    }
    // SAFETY: distinct workers own disjoint thread tiles (the const checks
    // above make thread tiles partition the block tile), and the caller
    // keeps concurrent calls distinct.
    let mut c =
        unsafe { problem.out_tile(row0 + row, col0 + col, P::THREAD_TILE_M, P::THREAD_TILE_N) };
    P::store_c(&acc, &mut c);
}
