//! Seeded random matrices for demos and tests (host only).

use half::{bf16, f16};
use mfma_core::spec::ElemType;
use mfma_core::{Bf8, Element, Fp8};
use std::vec::Vec;

/// SplitMix64: tiny, seedable, and the same sequence on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator; equal seeds give equal sequences.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in the open interval (0, 1).
    fn open01(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal deviate (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.open01(), self.open01());
        (-2.0 * u.ln()).sqrt() * (core::f64::consts::TAU * v).cos()
    }
}

/// `len` random elements of `E`: standard normals rounded to the element
/// type for floating-point types (so products and sums round, and a few f16
/// values land in the subnormal range the MFMA flushes), uniform over all
/// 256 values for i8.
///
/// ```
/// let a = mfma_gemm::random::matrix::<half::f16>(4, 7);
/// assert_eq!(a, mfma_gemm::random::matrix::<half::f16>(4, 7));
/// assert_ne!(a, mfma_gemm::random::matrix::<half::f16>(4, 8));
/// ```
pub fn matrix<E: Element>(len: usize, seed: u64) -> Vec<E> {
    let mut rng = Rng::new(seed);
    (0..len)
        .map(|_| {
            let bits = match E::TYPE {
                ElemType::F64 => rng.normal().to_bits(),
                ElemType::F32 => u64::from((rng.normal() as f32).to_bits()),
                ElemType::F16 => u64::from(f16::from_f64(rng.normal()).to_bits()),
                ElemType::Bf16 => u64::from(bf16::from_f64(rng.normal()).to_bits()),
                ElemType::Xf32 => u64::from((rng.normal() as f32).to_bits()),
                ElemType::Fp8 => u64::from(Fp8::from_f64_saturating(rng.normal()).to_bits()),
                ElemType::Bf8 => u64::from(Bf8::from_f64_saturating(rng.normal()).to_bits()),
                ElemType::I8 | ElemType::I32 => rng.next_u64(),
                // Positions: two distinct values in 0..=3.
                ElemType::Idx => {
                    let r = rng.next_u64();
                    let first = r % 4;
                    u64::from(
                        mfma_core::Positions::new(
                            first as u8,
                            ((first + 1 + (r >> 2) % 3) % 4) as u8,
                        )
                        .to_bits(),
                    )
                }
            };
            E::from_bits_u64(bits)
        })
        .collect()
}
