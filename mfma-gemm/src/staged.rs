//! A host-only tile policy that copies each K strip into a buffer, as the
//! tutorial does into LDS.
//!
//! On the GPU such buffers would be per-lane scratch memory (there is no
//! portable LDS declaration in Rust), so this policy exists on the host only;
//! it shows the tutorial's single/double buffering and cross-checks
//! [`GlobalTiles`](crate::GlobalTiles): both must give the same bits.

use crate::tile::{TilePolicy, TileStorage};
use crate::view::Tile;
use mfma_core::Element;

/// Stages `BM × KT` of A and `BN × KT` of B (transposed, like the tutorial's
/// `tile_b_T`) into `NB` buffers (1: single, 2: double buffering), zero
/// padded at the edges.
///
/// ```
/// use mfma_gemm::{StagedTiles, Tile, TilePolicy, TileStorage};
/// let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]; // A: 2 × 3
/// let v = Tile::row_major(&a, 2, 3);
/// let mut s = StagedTiles::<4, 4, 2, 2>::prologue(v, v);
/// s.prefetch(0);
/// s.acquire(0);
/// assert_eq!(s.tile_a(1).get(1, 0), 6.0); // tile 1 was prefetched
/// assert_eq!(s.tile_a(1).get(1, 1), 0.0); // past K: zero padding
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct StagedTiles<const BM: usize, const BN: usize, const KT: usize, const NB: usize = 1>;

/// The buffers of [`StagedTiles`] and the strips they are filled from.
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

    type Storage<'a, E: Element> = StagedBuffers<'a, E, BM, BN, KT, NB>;

    fn prologue<'a, E: Element>(a: Tile<'a, E>, b_t: Tile<'a, E>) -> Self::Storage<'a, E> {
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
