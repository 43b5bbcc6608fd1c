//! The tutorial's `TilePolicy`: block tile shape and the staging hooks of
//! the K loop.
//!
//! In the HIP tutorial a tile policy stages a `block_tile_m × k_tile_size`
//! strip of A and a transposed strip of B into LDS (`SharedStorage`), zero
//! padded at the matrix edges, with barriers around each use. Here a tile is
//! a [`Tile`] *view*, and a policy decides what it points into:
//! [`GlobalTiles`] reads global memory in place (its bounds checks do the
//! zero padding), and `StagedTiles` copies each strip into one or two
//! buffers as the tutorial does: on the GPU into LDS shared by the
//! workgroup, with barriers; on the host into buffers of the worker.
//! Compute policies see only the view, so they cannot tell them apart.

use crate::view::Tile;
use mfma_core::Element;

/// Block tile shape and K-loop hooks (the tutorial's `TilePolicy`).
///
/// The kernel calls, for every K tile `t`: [`prefetch`](TileStorage::prefetch),
/// [`acquire`](TileStorage::acquire), then reads
/// [`tile_a`](TileStorage::tile_a)/[`tile_b_t`](TileStorage::tile_b_t), then
/// [`release`](TileStorage::release).
pub trait TilePolicy {
    /// 1 for single buffering, 2 for double buffering.
    const NUM_BUFFERS: usize;
    /// Rows of C one workgroup computes.
    const BLOCK_TILE_M: usize;
    /// Columns of C one workgroup computes.
    const BLOCK_TILE_N: usize;
    /// K extent of one staged strip.
    const K_TILE_SIZE: usize;

    /// What a worker keeps across the K loop (the tutorial's `SharedStorage`).
    type Storage<'a, E: Element>: TileStorage<E>;

    /// The tutorial's `prologue`: sets up the storage for one workgroup, given
    /// its strip of A (`BLOCK_TILE_M × k`) and of B transposed
    /// (`BLOCK_TILE_N × k`), both already clipped to the matrices. `crew`
    /// says who shares the storage and fills it together: on the GPU the
    /// workgroup's threads, each calling `prologue` and every hook with the
    /// same arguments; on the host one worker or one workgroup run by one
    /// thread ([`Crew::ALONE`]).
    fn prologue<'a, E: Element>(
        a: Tile<'a, E>,
        b_t: Tile<'a, E>,
        crew: Crew,
    ) -> Self::Storage<'a, E>;

    /// Number of K tiles covering `k`.
    #[inline]
    fn k_tiles(k: usize) -> usize {
        k.div_ceil(Self::K_TILE_SIZE)
    }
}

/// The threads that fill one tile storage together, and which of them the
/// caller is: staging splits the copying between them. A GPU kernel's crew
/// is its workgroup; the host's is a single thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crew {
    /// The caller's index, `0..size`.
    pub member: usize,
    /// Threads in the crew.
    pub size: usize,
}

impl Crew {
    /// A crew of one: the caller stages everything itself.
    pub const ALONE: Crew = Crew { member: 0, size: 1 };
}

/// The per-K-tile hooks of a [`TilePolicy`]'s storage.
pub trait TileStorage<E: Element> {
    /// Starts loading what K tile `t` (or, double buffered, `t + 1`) needs.
    fn prefetch(&mut self, t: usize);
    /// [`prefetch`](Self::prefetch), told whether the caller will read the
    /// next tile of A at all: a host policy that keeps a block row's tiles
    /// of A staged from an earlier workgroup
    /// ([`ComputePolicy::stages_a`](crate::ComputePolicy::stages_a)) does
    /// not. Storage whose `prefetch` is only a cache hint may then leave A
    /// out; any other must do what `prefetch` does (the default).
    #[inline]
    fn prefetch_for(&mut self, t: usize, a: bool) {
        let _ = a;
        self.prefetch(t);
    }
    /// Waits until K tile `t` is readable (a barrier on the GPU where the
    /// workgroup shares the storage).
    fn acquire(&mut self, t: usize);
    /// Declares K tile `t` consumed (a barrier on the GPU where the
    /// workgroup shares the storage).
    fn release(&mut self, t: usize);
    /// A's `BLOCK_TILE_M × K_TILE_SIZE` tile `t`, zero past the matrix edges.
    fn tile_a(&self, t: usize) -> Tile<'_, E>;
    /// B's tile `t`, transposed: `BLOCK_TILE_N × K_TILE_SIZE`, zero past the edges.
    fn tile_b_t(&self, t: usize) -> Tile<'_, E>;
}

/// Tiles read in place from global memory: no staging, no barriers, and the
/// views' bounds checks pad with zeros; the same on the host and the GPU,
/// where it needs no LDS (`StagedTiles` is the tutorial's staging).
///
/// `GlobalTiles<32, 32, 4>` is the tutorial's FP64 MFMA configuration.
///
/// ```
/// use mfma_gemm::{Crew, GlobalTiles, Tile, TilePolicy, TileStorage};
/// type T = GlobalTiles<2, 2, 4>;
/// let data: Vec<f32> = (0..15).map(|x| x as f32).collect();
/// let a = Tile::row_major(&data, 3, 5); // A: 3 × 5
/// // The workgroup at block row 1 owns rows 2..4 of A, clipped to row 2.
/// let s = T::prologue(a.sub(2, 0, 2, 5), a.transposed(), Crew::ALONE);
/// assert_eq!(T::k_tiles(5), 2);
/// let t1 = s.tile_a(1); // K columns 4..8
/// assert_eq!(t1.get(0, 0), 14.0); // A[2][4]
/// assert_eq!((t1.get(0, 1), t1.get(1, 0)), (0.0, 0.0)); // past K, past M: padding
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobalTiles<const BM: usize, const BN: usize, const KT: usize>;

/// The storage of [`GlobalTiles`]: the workgroup's strips of A and B^T.
#[derive(Clone, Copy, Debug)]
pub struct GlobalStrips<'a, E, const BM: usize, const BN: usize, const KT: usize> {
    a: Tile<'a, E>,
    b_t: Tile<'a, E>,
}

impl<const BM: usize, const BN: usize, const KT: usize> GlobalTiles<BM, BN, KT> {
    /// Workgroup memory (LDS) a GPU launch must pass: none, nothing is staged.
    pub const fn workgroup_mem_bytes<E>() -> usize {
        0
    }
}

impl<const BM: usize, const BN: usize, const KT: usize> TilePolicy for GlobalTiles<BM, BN, KT> {
    const NUM_BUFFERS: usize = 1;
    const BLOCK_TILE_M: usize = BM;
    const BLOCK_TILE_N: usize = BN;
    const K_TILE_SIZE: usize = KT;

    type Storage<'a, E: Element> = GlobalStrips<'a, E, BM, BN, KT>;

    #[inline]
    fn prologue<'a, E: Element>(
        a: Tile<'a, E>,
        b_t: Tile<'a, E>,
        _crew: Crew,
    ) -> Self::Storage<'a, E> {
        GlobalStrips { a, b_t }
    }
}

impl<E: Element, const BM: usize, const BN: usize, const KT: usize> TileStorage<E>
    for GlobalStrips<'_, E, BM, BN, KT>
{
    // Nothing is staged, so there is nothing to wait for: every read goes
    // to global memory and the workgroup's waves share no buffer. On the
    // host, prefetching asks the cache for the next K tile while this one
    // is computed: B^T's strip is read with a row stride of N, which the
    // hardware prefetchers do not follow.
    #[inline]
    fn prefetch(&mut self, t: usize) {
        self.prefetch_for(t, true);
    }
    // A's tiles are left out where the policy keeps them: prefetching the
    // 32 KiB of A's next tile for every K tile of every workgroup, when
    // only a thread's first workgroup of a block row packs them, cost
    // f32 at 2048³ about a tenth of its time (one thread, Xeon).
    #[inline]
    fn prefetch_for(&mut self, t: usize, a: bool) {
        #[cfg(not(target_arch = "amdgpu"))]
        {
            if a {
                self.a.prefetch(0, (t + 1) * KT, BM, KT);
            }
            self.b_t.prefetch(0, (t + 1) * KT, BN, KT);
        }
        #[cfg(target_arch = "amdgpu")]
        let _ = (t, a);
    }
    #[inline]
    fn acquire(&mut self, _t: usize) {}
    #[inline]
    fn release(&mut self, _t: usize) {}

    #[inline]
    fn tile_a(&self, t: usize) -> Tile<'_, E> {
        self.a.sub(0, t * KT, BM, KT)
    }

    #[inline]
    fn tile_b_t(&self, t: usize) -> Tile<'_, E> {
        self.b_t.sub(0, t * KT, BN, KT)
    }
}
