//! Element bit patterns: bytes as the kernels read them, small integers and
//! ordinary values in every element type, special values, NaN classes, hex.

use mfma_core::{Bf8, Fp8};
use mfma_spec::ElemType;

/// Bytes one element occupies in a call-site kernel's buffer (an index
/// field: one byte).
pub fn width(t: ElemType) -> usize {
    match t {
        ElemType::Idx => 1,
        t => t.bits() as usize / 8,
    }
}

/// Elements as little-endian bytes.
pub fn to_bytes(t: ElemType, bits: &[u64]) -> Vec<u8> {
    let w = width(t);
    bits.iter()
        .flat_map(|b| b.to_le_bytes().into_iter().take(w))
        .collect()
}

/// Little-endian bytes as elements.
pub fn from_bytes(t: ElemType, bytes: &[u8]) -> Vec<u64> {
    let w = width(t);
    bytes
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// `v` in type `t`, rounded to nearest (8-bit floats saturate, integers
/// wrap): exact for the small integers the layout probe uses.
pub fn encode(t: ElemType, v: f64) -> u64 {
    match t {
        ElemType::F64 => v.to_bits(),
        ElemType::F32 | ElemType::Xf32 => u64::from((v as f32).to_bits()),
        ElemType::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        ElemType::Bf16 => u64::from(half::bf16::from_f64(v).to_bits()),
        ElemType::Fp8 => u64::from(Fp8::from_f64_saturating(v).to_bits()),
        ElemType::Bf8 => u64::from(Bf8::from_f64_saturating(v).to_bits()),
        ElemType::I8 => u64::from(v as i64 as i8 as u8),
        ElemType::I32 => u64::from(v as i64 as i32 as u32),
        ElemType::Idx => v as u64 & 0xf,
    }
}

/// The value of bits `b` of type `t` (NaN for NaN; an index field's bits).
pub fn value(t: ElemType, b: u64) -> f64 {
    match t {
        ElemType::F64 => f64::from_bits(b),
        ElemType::F32 | ElemType::Xf32 => f64::from(f32::from_bits(b as u32)),
        ElemType::F16 => half::f16::from_bits(b as u16).to_f64(),
        ElemType::Bf16 => half::bf16::from_bits(b as u16).to_f64(),
        ElemType::Fp8 => Fp8::from_bits(b as u8).to_f64(),
        ElemType::Bf8 => Bf8::from_bits(b as u8).to_f64(),
        ElemType::I8 => f64::from(b as u8 as i8),
        ElemType::I32 => f64::from(b as u32 as i32),
        ElemType::Idx => b as f64,
    }
}

/// Whether bits `b` of type `t` are a NaN.
pub fn is_nan(t: ElemType, b: u64) -> bool {
    t.is_float() && value(t, b).is_nan()
}

/// Two outputs agree: the same bits, or both NaN ("NaN by class": sign
/// and payload of a NaN are not compared).
pub fn same(t: ElemType, got: u64, want: u64) -> bool {
    got == want || (is_nan(t, got) && is_nan(t, want))
}

/// Fixed-width hex of one element (`3c00`, `7fc00000`).
pub fn hex(t: ElemType, b: u64) -> String {
    let digits = (t.bits() as usize).div_ceil(4).max(1);
    format!("{b:0digits$x}")
}

/// How many small integers (1, 2, ...) type `t` holds exactly and a
/// product with 1 and a sum with zeros keeps exact: the radix of the
/// layout probe's coordinate digits.
pub fn radix(t: ElemType) -> u64 {
    match t {
        ElemType::F64 | ElemType::F32 | ElemType::I32 => 1 << 16,
        // 10 and 11 bits of significand (xf32 is truncated to tf32).
        ElemType::F16 | ElemType::Xf32 => 2048,
        ElemType::Bf16 => 256,
        ElemType::Fp8 => 16,
        ElemType::Bf8 => 8,
        ElemType::I8 => 127,
        ElemType::Idx => 1,
    }
}

/// The special bit patterns of an element type: zeros of both signs, the
/// smallest and largest subnormals, the smallest normal, the largest
/// finite values, infinities and NaNs (quiet and signalling) where the
/// type has them, ±1; for the FNUZ 8-bit floats their one NaN (0x80) and
/// no -0; for integers the extremes.
pub fn specials(t: ElemType) -> &'static [u64] {
    match t {
        ElemType::F32 => &[
            0,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7fa0_0000,
            0xffc0_0001,
            0x3f80_0000,
            0xbf80_0000,
        ],
        // As f32, and a value whose low 13 bits the truncation to tf32 drops.
        ElemType::Xf32 => &[
            0,
            0x8000_0000,
            1,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7fa0_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x3f80_1fff,
        ],
        ElemType::F64 => &[
            0,
            0x8000_0000_0000_0000,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0x7ff4_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0xbff0_0000_0000_0000,
        ],
        ElemType::F16 => &[
            0, 0x8000, 1, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d00,
            0x3c00, 0xbc00,
        ],
        ElemType::Bf16 => &[
            0, 0x8000, 1, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fa0,
            0x3f80, 0xbf80,
        ],
        // E4M3 FNUZ: bias 8, 0x80 the one NaN, max 0x7f = 240.
        ElemType::Fp8 => &[0x00, 0x80, 0x01, 0x81, 0x07, 0x08, 0x7f, 0xff, 0x40, 0xc0],
        // E5M2 FNUZ: bias 16, 0x80 the one NaN, max 0x7f = 57344.
        ElemType::Bf8 => &[0x00, 0x80, 0x01, 0x81, 0x03, 0x04, 0x7f, 0xff, 0x40, 0xc0],
        ElemType::I8 => &[0, 1, 0xff, 0x7f, 0x80, 0x40, 0xc0],
        ElemType::I32 => &[0, 1, 0xffff_ffff, 0x7fff_ffff, 0x8000_0000, 0x4000_0000],
        ElemType::Idx => &[],
    }
}

/// A random subnormal (or, for integers, small) bit pattern of type `t`.
pub fn subnormal(t: ElemType, r: u64) -> u64 {
    let sign = |bits: u32| (r >> 63) << (bits - 1);
    match t {
        ElemType::F64 => sign(64) | (r & 0x000f_ffff_ffff_ffff).max(1),
        ElemType::F32 | ElemType::Xf32 => sign(32) | (r & 0x007f_ffff).max(1),
        ElemType::F16 => sign(16) | (r & 0x03ff).max(1),
        ElemType::Bf16 => sign(16) | (r & 0x007f).max(1),
        ElemType::Fp8 => sign(8) | (r & 0x07).max(1),
        ElemType::Bf8 => sign(8) | (r & 0x03).max(1),
        ElemType::I8 | ElemType::I32 => r % 5,
        ElemType::Idx => 0,
    }
}

/// SplitMix64: small, seedable, the same sequence everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator; equal seeds give equal sequences.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A standard normal deviate (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let open = |x: u64| ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let (u, v) = (open(self.next()), open(self.next()));
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// An ordinary value of type `t`: a normal deviate rounded to it
    /// (integers: uniform over the type).
    pub fn ordinary(&mut self, t: ElemType) -> u64 {
        match t {
            ElemType::I8 => self.next() & 0xff,
            ElemType::I32 => self.next() & 0xffff_ffff,
            t => encode(t, self.normal()),
        }
    }

    /// Uniformly random bits of type `t`.
    pub fn bits(&mut self, t: ElemType) -> u64 {
        let w = t.bits();
        self.next() & if w >= 64 { u64::MAX } else { (1 << w) - 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPES: [ElemType; 9] = [
        ElemType::F64,
        ElemType::F32,
        ElemType::Xf32,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::Fp8,
        ElemType::Bf8,
        ElemType::I8,
        ElemType::I32,
    ];

    #[test]
    fn every_digit_of_the_radix_is_exact() {
        for t in TYPES {
            for v in 1..=radix(t).min(4096) {
                assert_eq!(value(t, encode(t, v as f64)), v as f64, "{t:?} {v}");
            }
        }
    }

    #[test]
    fn bytes_round_trip_and_specials_are_what_they_say() {
        for t in TYPES {
            let s = specials(t);
            assert_eq!(from_bytes(t, &to_bytes(t, s)), s);
            if t.is_float() {
                assert!(s.iter().any(|&b| is_nan(t, b)), "{t:?} has a NaN");
                // The smallest subnormal: bits 1, a positive value below every normal.
                assert!(s.contains(&1) && value(t, 1) > 0.0, "{t:?}");
            }
        }
        assert_eq!(value(ElemType::Fp8, 0x7f), 240.0);
        assert_eq!(value(ElemType::Bf8, 0x7f), 57344.0);
        assert_eq!(value(ElemType::Fp8, 0x40), 1.0);
        assert!(same(ElemType::F32, 0x7fc0_0000, 0xffc0_1234));
        assert!(!same(ElemType::F32, 0x7f80_0000, 0x7fc0_0000));
        assert!(!same(ElemType::I32, 1, 2));
        assert_eq!(hex(ElemType::Bf16, 0x3f80), "3f80");
        assert_eq!(hex(ElemType::Fp8, 0x8), "08");
    }
}
