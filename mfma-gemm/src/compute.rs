//! The tutorial's `ComputePolicy`: what one worker loads, multiplies and
//! stores.

use crate::view::{OutTile, Tile};
use mfma_core::spec::Arith;
use mfma_core::Element;

/// The multiply-accumulate half of the tutorial kernel.
///
/// A *worker* owns a `THREAD_TILE_M × THREAD_TILE_N` tile of C: a whole wave
/// for MFMA policies (`EFFECTIVE_LANES = 64`), a single thread for
/// [`ScalarFmaPolicy`](crate::ScalarFmaPolicy) (`EFFECTIVE_LANES = 1`).
/// Implementations must express per-lane work only through
/// [`Fragment::from_fn`](mfma_core::Fragment::from_fn),
/// [`Fragment::for_each`](mfma_core::Fragment::for_each) and
/// [`execute_into`](mfma_core::execute_into), which cover the whole wave on
/// the host and the calling lane on the GPU; then the same code runs on both.
pub trait ComputePolicy {
    /// Element type of A and B (the tutorial's `elem_a`/`elem_b`, which
    /// coincide for every MFMA builtin).
    type Elem: Element;
    /// Element type of C.
    type Out: Element;
    /// What `load_a` returns.
    type FragA;
    /// What `load_b` returns.
    type FragB;
    /// The worker's running sums.
    type Accumulator;

    /// Rows of C one worker owns.
    const THREAD_TILE_M: usize;
    /// Columns of C one worker owns.
    const THREAD_TILE_N: usize;
    /// GPU lanes that cooperate on one worker's tile.
    const EFFECTIVE_LANES: usize;
    /// K consumed by one `mma`.
    const K_STEP: usize;
    /// The arithmetic of one `mma` (what a reference must reproduce).
    const ARITH: Arith;

    /// An accumulator of zeros.
    fn zero() -> Self::Accumulator;
    /// The A operand for rows `row..row + THREAD_TILE_M` and K columns
    /// `ki..ki + K_STEP` of a K tile (`tile` is `BLOCK_TILE_M × K_TILE_SIZE`).
    fn load_a(tile: &Tile<'_, Self::Elem>, row: usize, ki: usize) -> Self::FragA;
    /// The B operand for columns `col..col + THREAD_TILE_N` (`tile_b_t` is
    /// B's K tile transposed, `BLOCK_TILE_N × K_TILE_SIZE`).
    fn load_b(tile_b_t: &Tile<'_, Self::Elem>, col: usize, ki: usize) -> Self::FragB;
    /// `acc += a · b`.
    fn mma(acc: &mut Self::Accumulator, a: &Self::FragA, b: &Self::FragB);
    /// All of one K tile: for `ki` in `0..k_len` by `K_STEP`, ascending,
    /// `acc += load_a(ki) · load_b(ki)`. The default is exactly that loop;
    /// a policy may override it to hand the tile's steps to the hardware
    /// (or the software path) as one chain, with the same result.
    #[inline]
    fn mma_k_tile(
        acc: &mut Self::Accumulator,
        tile_a: &Tile<'_, Self::Elem>,
        tile_b_t: &Tile<'_, Self::Elem>,
        row: usize,
        col: usize,
        k_len: usize,
    ) {
        let mut ki = 0;
        while ki < k_len {
            let a = Self::load_a(tile_a, row, ki);
            let b = Self::load_b(tile_b_t, col, ki);
            Self::mma(acc, &a, &b);
            ki += Self::K_STEP;
        }
    }
    /// What a workgroup stages once per K tile for all its workers, when
    /// the host runs them together (see
    /// [`gemm_workgroup`](crate::gemm_workgroup)): the host's counterpart of
    /// a layout in LDS chosen for the policy's loads.
    #[cfg(not(target_arch = "amdgpu"))]
    type Staged: Default;
    /// Host: prepares `staged` from one K tile (`k_len` columns of it are
    /// inside the matrix) for every worker of the workgroup; `key` says
    /// which strips of A and B the tiles are, so that what was staged for
    /// the same strips before may be reused. The default stages nothing.
    #[cfg(not(target_arch = "amdgpu"))]
    #[inline]
    fn stage(
        staged: &mut Self::Staged,
        tile_a: &Tile<'_, Self::Elem>,
        tile_b_t: &Tile<'_, Self::Elem>,
        k_len: usize,
        key: crate::TileKey,
    ) {
        let _ = (staged, tile_a, tile_b_t, k_len, key);
    }

    /// Whether [`stage`](Self::stage) will read A's tile `key` (`false`: it
    /// kept that tile from an earlier workgroup), so that the host need not
    /// ask the cache for it (see [`TileStorage::prefetch_for`](crate::TileStorage::prefetch_for)).
    /// The default: it will.
    ///
    /// ```
    /// use mfma_gemm::{ComputePolicy, MfmaPolicy, ScalarFmaPolicy, TileKey};
    /// type P = MfmaPolicy<mfma_core::mfma!(f32_32x32x2f32)>;
    /// let key = TileKey { block_row: 0, block_col: 0, k_tile: 0 };
    /// assert!(P::stages_a(&Default::default(), key)); // nothing staged yet
    /// assert!(<ScalarFmaPolicy>::stages_a(&Default::default(), key)); // reads tiles in place
    /// ```
    #[cfg(not(target_arch = "amdgpu"))]
    #[inline]
    fn stages_a(staged: &Self::Staged, key: crate::TileKey) -> bool {
        let _ = (staged, key);
        true
    }

    /// Host: one worker's [`mma_k_tile`](ComputePolicy::mma_k_tile), which
    /// may read what [`stage`](ComputePolicy::stage) prepared instead of the
    /// tiles; the result must be the same, bit for bit. The default is
    /// `mma_k_tile` on the tiles.
    #[cfg(not(target_arch = "amdgpu"))]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn mma_staged(
        acc: &mut Self::Accumulator,
        staged: &Self::Staged,
        tile_a: &Tile<'_, Self::Elem>,
        tile_b_t: &Tile<'_, Self::Elem>,
        row: usize,
        col: usize,
        k_len: usize,
    ) {
        let _ = staged;
        Self::mma_k_tile(acc, tile_a, tile_b_t, row, col, k_len);
    }
    /// Writes the accumulator to the worker's tile of C (coordinates
    /// relative to the tile; the view drops what lies past the matrix edge).
    fn store_c(acc: &Self::Accumulator, c: &mut OutTile<'_, Self::Out>);
}
