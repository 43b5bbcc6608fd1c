//! The tile policy that copies each K strip into buffers, as the tutorial
//! does into LDS: on the GPU into the workgroup's LDS (see `lds.rs`), on the
//! host into buffers of the worker. It cross-checks
//! [`GlobalTiles`](crate::GlobalTiles): both must give the same bits.

#[cfg(not(target_arch = "amdgpu"))]
use crate::tile::TileStorage;
use crate::tile::{Crew, TilePolicy};
use crate::view::Tile;
use mfma_core::Element;

/// Stages `BM × KT` of A and `BN × KT` of B (transposed, like the tutorial's
/// `tile_b_T`) into `NB` buffers (1: single, 2: double buffering), zero
/// padded at the edges.
///
/// On the GPU the buffers are in LDS, shared by the workgroup, which fills
/// each strip together (every thread copies its share) between barriers;
/// the launch must pass [`workgroup_mem_bytes`](Self::workgroup_mem_bytes)
/// of dynamic LDS. On the host each worker owns its buffers.
///
/// ```
/// use mfma_gemm::{Crew, StagedTiles, Tile, TilePolicy, TileStorage};
/// let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]; // A: 2 × 3
/// let v = Tile::row_major(&a, 2, 3);
/// let mut s = StagedTiles::<4, 4, 2, 2>::prologue(v, v, Crew::ALONE);
/// s.prefetch(0);
/// s.acquire(0);
/// assert_eq!(s.tile_a(1).get(1, 0), 6.0); // tile 1 was prefetched
/// assert_eq!(s.tile_a(1).get(1, 1), 0.0); // past K: zero padding
/// // A GPU launch passes 2 buffers × (4 + 4) rows × 2 × 8 bytes of LDS.
/// assert_eq!(StagedTiles::<4, 4, 2, 2>::workgroup_mem_bytes::<f64>(), 256);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct StagedTiles<const BM: usize, const BN: usize, const KT: usize, const NB: usize = 1>;

/// Bytes of LDS that [`StagedTiles`]`<bm, bn, kt, buffers>` stages elements
/// of `elem_bytes` bytes in: the A buffers, then, from the next multiple of
/// 16 bytes, the B^T buffers.
///
/// ```
/// // The GPU tile of f32_32x32x2f32: 64 x 64 block, K strip 8, double buffered.
/// assert_eq!(mfma_gemm::staged_bytes(64, 64, 8, 2, 4), 8192);
/// ```
pub const fn staged_bytes(
    bm: usize,
    bn: usize,
    kt: usize,
    buffers: usize,
    elem_bytes: usize,
) -> usize {
    b_offset(bm, kt, buffers, elem_bytes) + buffers * bn * kt * elem_bytes
}

/// Where the B^T buffers start, in bytes: after A's, 16-byte aligned so
/// that both regions can be read 16 bytes at a time.
pub(crate) const fn b_offset(bm: usize, kt: usize, buffers: usize, elem_bytes: usize) -> usize {
    (buffers * bm * kt * elem_bytes).next_multiple_of(16)
}

impl<const BM: usize, const BN: usize, const KT: usize, const NB: usize>
    StagedTiles<BM, BN, KT, NB>
{
    /// Workgroup memory (LDS) a GPU launch of a kernel on this policy must
    /// pass (HIP's `sharedMemBytes`) for elements of type `E`.
    pub const fn workgroup_mem_bytes<E>() -> usize {
        staged_bytes(BM, BN, KT, NB, core::mem::size_of::<E>())
    }
}

/// The buffers of [`StagedTiles`] on the host and the strips they are
/// filled from.
#[cfg(not(target_arch = "amdgpu"))]
pub struct StagedBuffers<'a, E, const BM: usize, const BN: usize, const KT: usize, const NB: usize>
{
    src_a: Tile<'a, E>,
    src_b_t: Tile<'a, E>,
    a: [[[E; KT]; BM]; NB],
    b_t: [[[E; KT]; BN]; NB],
}

impl<const BM: usize, const BN: usize, const KT: usize, const NB: usize> TilePolicy
    for StagedTiles<BM, BN, KT, NB>
{
    const NUM_BUFFERS: usize = NB;
    const BLOCK_TILE_M: usize = BM;
    const BLOCK_TILE_N: usize = BN;
    const K_TILE_SIZE: usize = KT;

    #[cfg(not(target_arch = "amdgpu"))]
    type Storage<'a, E: Element> = StagedBuffers<'a, E, BM, BN, KT, NB>;
    #[cfg(target_arch = "amdgpu")]
    type Storage<'a, E: Element> = crate::lds::LdsStrips<'a, E, BM, BN, KT, NB>;

    #[cfg(target_arch = "amdgpu")]
    #[inline(always)]
    fn prologue<'a, E: Element>(
        a: Tile<'a, E>,
        b_t: Tile<'a, E>,
        crew: Crew,
    ) -> Self::Storage<'a, E> {
        const { assert!(NB == 1 || NB == 2, "one or two buffers") };
        crate::lds::LdsStrips::new(a, b_t, crew)
    }

    // The host's buffers belong to one worker: there is no one to share
    // the copying with.
    #[cfg(not(target_arch = "amdgpu"))]
    fn prologue<'a, E: Element>(
        a: Tile<'a, E>,
        b_t: Tile<'a, E>,
        _crew: Crew,
    ) -> Self::Storage<'a, E> {
        const { assert!(NB == 1 || NB == 2, "one or two buffers") };
        let mut s = StagedBuffers {
            src_a: a,
            src_b_t: b_t,
            a: [[[E::ZERO; KT]; BM]; NB],
            b_t: [[[E::ZERO; KT]; BN]; NB],
        };
        if NB == 2 {
            s.load(0);
        }
        s
    }
}

#[cfg(not(target_arch = "amdgpu"))]
impl<E: Element, const BM: usize, const BN: usize, const KT: usize, const NB: usize>
    StagedBuffers<'_, E, BM, BN, KT, NB>
{
    /// The tutorial's `buf_idx`.
    #[inline]
    fn buf_idx(t: usize) -> usize {
        t % NB
    }

    /// Copies K tile `t` into its buffer; reads past the edges give the padding.
    fn load(&mut self, t: usize) {
        let (buf, k0) = (Self::buf_idx(t), t * KT);
        for (r, row) in self.a[buf].iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = self.src_a.get(r, k0 + c);
            }
        }
        for (r, row) in self.b_t[buf].iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = self.src_b_t.get(r, k0 + c);
            }
        }
    }
}

#[cfg(not(target_arch = "amdgpu"))]
impl<E: Element, const BM: usize, const BN: usize, const KT: usize, const NB: usize> TileStorage<E>
    for StagedBuffers<'_, E, BM, BN, KT, NB>
{
    fn prefetch(&mut self, t: usize) {
        if NB == 1 {
            self.load(t);
        } else if (t + 1) * KT < self.src_a.cols().max(self.src_b_t.cols()) {
            self.load(t + 1);
        }
    }

    // On the host each worker owns its buffers (waves of a workgroup run one
    // after the other), so the tutorial's barriers have nothing to order.
    fn acquire(&mut self, _t: usize) {}
    fn release(&mut self, _t: usize) {}

    fn tile_a(&self, t: usize) -> Tile<'_, E> {
        Tile::row_major(self.a[Self::buf_idx(t)].as_flattened(), BM, KT)
    }

    fn tile_b_t(&self, t: usize) -> Tile<'_, E> {
        Tile::row_major(self.b_t[Self::buf_idx(t)].as_flattened(), BN, KT)
    }
}
