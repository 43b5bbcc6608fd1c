//! One compute policy for every MFMA builtin, written against `Instr`.

use crate::compute::ComputePolicy;
use crate::view::{OutTile, Tile};
use core::marker::PhantomData;
use mfma_core::spec::{Arith, WAVE};
use mfma_core::{execute_into, Acc, FragA, FragB, Instr};

/// A wave computes one instruction's output per K step: its tile of C is
/// `blocks·M × N`, block `b` taking rows `b·M..(b+1)·M` (so multi-block
/// builtins stack their blocks down the rows, all reading the same B), and
/// each `mma` is one instruction with all modifiers zero, consuming `K`.
///
/// Element types, shapes and arithmetic all come from `X` (`X::In`,
/// `X::Out`, `X::SPEC`); this is the tutorial's `MfmaCdna2F64Policy` for
/// any builtin.
///
/// ```
/// use mfma_gemm::{ComputePolicy, MfmaPolicy};
/// use mfma_core::mfma;
/// type P = MfmaPolicy<mfma!(f64_16x16x4f64)>;
/// assert_eq!((P::THREAD_TILE_M, P::THREAD_TILE_N, P::K_STEP), (16, 16, 4));
/// type Q = MfmaPolicy<mfma!(f64_4x4x4f64)>; // 4 blocks of 4×4
/// assert_eq!((Q::THREAD_TILE_M, Q::THREAD_TILE_N), (16, 4));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MfmaPolicy<X>(PhantomData<X>);

/// The seed's `MfmaCdna2F64Policy`: `v_mfma_f64_16x16x4f64`, 16×16 per wave, `k_step` 4.
pub type MfmaCdna2F64Policy = MfmaPolicy<mfma_core::mfma!(f64_16x16x4f64)>;

impl<X: Instr> ComputePolicy for MfmaPolicy<X> {
    type Elem = X::In;
    type Out = X::Out;
    type FragA = FragA<X>;
    type FragB = FragB<X>;
    type Accumulator = Acc<X>;

    const THREAD_TILE_M: usize = X::SPEC.m * X::SPEC.blocks;
    const THREAD_TILE_N: usize = X::SPEC.n;
    const EFFECTIVE_LANES: usize = WAVE;
    const K_STEP: usize = X::SPEC.k;
    const ARITH: Arith = X::SPEC.arith;

    #[inline]
    fn zero() -> Acc<X> {
        Acc::<X>::zero()
    }

    #[inline]
    fn load_a(tile: &Tile<'_, X::In>, row: usize, ki: usize) -> FragA<X> {
        FragA::<X>::from_fn(|b, i, k| tile.get(row + b * X::SPEC.m + i, ki + k))
    }

    #[inline]
    fn load_b(tile_b_t: &Tile<'_, X::In>, col: usize, ki: usize) -> FragB<X> {
        FragB::<X>::from_fn(|_, k, j| tile_b_t.get(col + j, ki + k))
    }

    #[inline]
    fn mma(acc: &mut Acc<X>, a: &FragA<X>, b: &FragB<X>) {
        execute_into::<X, 0, 0, 0>(a, b, acc);
    }

    #[inline]
    fn store_c(acc: &Acc<X>, c: &mut OutTile<'_, X::Out>) {
        acc.for_each(|b, i, j, v| c.store(b * X::SPEC.m + i, j, v));
    }
}
