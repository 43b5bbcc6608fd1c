//! The tutorial's fallback compute policy: plain FP64 fused multiply-adds.

use crate::compute::ComputePolicy;
use crate::view::{OutTile, Tile};
use mfma_core::spec::Arith;

/// The tutorial's `ScalarFMADPolicy<8, 8, 8>`: one thread owns `TM × TN`
/// f64 outputs and consumes one K per `mma`, so every output is a chain of
/// fused multiply-adds over k ascending, from zero: the same arithmetic as
/// the f64 MFMA builtins, by a different route.
///
/// A worker is a single thread (`EFFECTIVE_LANES = 1`), so on the GPU the
/// worker index passed to [`gemm_wave`](crate::gemm_wave) is the thread index.
///
/// ```
/// use mfma_gemm::{ComputePolicy, ScalarFmaPolicy};
/// assert_eq!((ScalarFmaPolicy::<8, 8>::THREAD_TILE_M, ScalarFmaPolicy::<8, 8>::K_STEP), (8, 1));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ScalarFmaPolicy<const TM: usize = 8, const TN: usize = 8>;

impl<const TM: usize, const TN: usize> ComputePolicy for ScalarFmaPolicy<TM, TN> {
    type Elem = f64;
    type Out = f64;
    type FragA = [f64; TM];
    type FragB = [f64; TN];
    type Accumulator = [[f64; TN]; TM];

    const THREAD_TILE_M: usize = TM;
    const THREAD_TILE_N: usize = TN;
    const EFFECTIVE_LANES: usize = 1;
    const K_STEP: usize = 1;
    const ARITH: Arith = Arith::ChainedFma;

    // A thread's loads are a few scalars: nothing worth staging.
    #[cfg(not(target_arch = "amdgpu"))]
    type Staged = ();

    #[inline]
    fn zero() -> Self::Accumulator {
        [[0.0; TN]; TM]
    }

    #[inline]
    fn load_a(tile: &Tile<'_, f64>, row: usize, ki: usize) -> [f64; TM] {
        core::array::from_fn(|r| tile.get(row + r, ki))
    }

    #[inline]
    fn load_b(tile_b_t: &Tile<'_, f64>, col: usize, ki: usize) -> [f64; TN] {
        core::array::from_fn(|c| tile_b_t.get(col + c, ki))
    }

    #[inline]
    fn mma(acc: &mut Self::Accumulator, a: &[f64; TM], b: &[f64; TN]) {
        for (row, &ar) in acc.iter_mut().zip(a) {
            for (v, &bc) in row.iter_mut().zip(b) {
                *v = fma(ar, bc, *v);
            }
        }
    }

    #[inline]
    fn store_c(acc: &Self::Accumulator, c: &mut OutTile<'_, f64>) {
        for (r, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                c.store(r, j, v);
            }
        }
    }
}

/// `a·b + c` rounded once. `f64::mul_add` lives in std; core's version is
/// still unstable, and the device build (nightly features via
/// `RUSTC_BOOTSTRAP`) uses it there.
#[inline(always)]
fn fma(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(not(target_arch = "amdgpu"))]
    return a.mul_add(b, c);
    #[cfg(target_arch = "amdgpu")]
    return core::f64::math::mul_add(a, b, c);
}
