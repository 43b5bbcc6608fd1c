//! The input element formats that CDNA3 (gfx942, MI300) adds: the 8-bit
//! floats `fp8` (E4M3 FNUZ) and `bf8` (E5M2 FNUZ), and `xf32` (an f32 that
//! the instruction truncates to tf32).
//!
//! Everything here is `core` only and bit-level, so nearly all of it is
//! `const fn`. The conversions are exact: decoding builds the f32 bit
//! pattern directly, and encoding rounds the f64 significand as an integer
//! (an f32 input widens to f64 exactly first, so there is one rounding).

use core::fmt;

/// Parameters of an FNUZ format: `E` exponent bits, `M` mantissa bits and the
/// exponent bias. The sign is bit 7; `0x80` is the only NaN.
#[derive(Clone, Copy)]
struct Fnuz {
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
}

/// The code of the one NaN of both formats (a "negative zero" pattern).
const NAN_BITS: u8 = 0x80;
/// The largest finite magnitude code of both formats.
const MAX_BITS: u8 = 0x7f;

impl Fnuz {
    /// The exact value of `bits` as f32 (every FNUZ value is an f32 normal).
    const fn decode(self, bits: u8) -> f32 {
        if bits == NAN_BITS {
            return f32::NAN;
        }
        let m = self.man_bits;
        let sign = ((bits & 0x80) as u32) << 24;
        let field = ((bits & 0x7f) >> m) as i32;
        let man = (bits as u32) & ((1 << m) - 1);
        let magnitude = if field != 0 {
            // (1 + man / 2^m) · 2^(field - bias)
            (((field - self.bias + 127) as u32) << 23) | (man << (23 - m))
        } else if man == 0 {
            0
        } else {
            // man · 2^(1 - bias - m) = 1.f · 2^(p + 1 - bias - m), p = ⌊log2 man⌋
            let p = 31 - man.leading_zeros();
            let exp = p as i32 + 1 - self.bias - m as i32;
            (((exp + 127) as u32) << 23) | ((man - (1 << p)) << (23 - p))
        };
        f32::from_bits(sign | magnitude)
    }

    /// Round `x` to nearest, ties to even. NaN gives NaN; ±∞ and finite values
    /// whose rounded magnitude is above the largest finite one give NaN, or
    /// ±max with `saturate`; a result of zero is always `+0` (`0x00`).
    const fn encode(self, x: f64, saturate: bool) -> u8 {
        let bits = x.to_bits();
        let sign = ((bits >> 56) as u8) & 0x80;
        let abs = bits & !(1 << 63);
        let inf = f64::INFINITY.to_bits();
        if abs > inf {
            return NAN_BITS;
        }
        let overflow = if saturate { MAX_BITS | sign } else { NAN_BITS };
        if abs == inf {
            return overflow;
        }
        let field = (abs >> 52) as i32;
        if field == 0 {
            // ±0 and f64 subnormals (< 2^-1022) round to zero.
            return 0;
        }
        let m = self.man_bits as i32;
        // x = sig · 2^(e - 52) with 2^52 ≤ sig < 2^53.
        let e = field - 1023;
        let sig = (abs & ((1 << 52) - 1)) | (1 << 52);
        let e_min = 1 - self.bias;
        // 2^(e_max + 1): everything at or above it overflows.
        if e > (1 << self.exp_bits) - 1 - self.bias {
            return overflow;
        }
        // The result is n · 2^(q), q the exponent of one unit in the last
        // place at x's binade (subnormals share the smallest normal binade's).
        let binade = if e > e_min { e } else { e_min };
        let q = binade - m;
        let shift = (52 + q - e) as u32; // ≥ 52 - m
        let n = if shift >= 54 {
            // x < 2^(q - 1): below half of the smallest step.
            0
        } else {
            let kept = sig >> shift;
            let rest = sig & ((1 << shift) - 1);
            let half = 1 << (shift - 1);
            kept + (rest > half || (rest == half && kept & 1 == 1)) as u64
        };
        // Normal: code = (e + bias) << m | (n - 2^m), which is this, and a
        // carry of n into 2^(m+1) lands on the next exponent. Subnormal:
        // code = n (n = 2^m is the smallest normal).
        let code = (((binade - e_min) as u64) << m) + n;
        if code > MAX_BITS as u64 {
            overflow
        } else if code == 0 {
            0
        } else {
            code as u8 | sign
        }
    }
}

const E4M3: Fnuz = Fnuz {
    exp_bits: 4,
    man_bits: 3,
    bias: 8,
};
const E5M2: Fnuz = Fnuz {
    exp_bits: 5,
    man_bits: 2,
    bias: 16,
};

/// The methods, constants and trait impls common to [`Fp8`] and [`Bf8`].
macro_rules! fnuz_type {
    (
        $name:ident, $fmt:ident, $fmt_name:literal,
        max: $max:literal,
        min_positive: $min_pos_bits:literal = $min_pos:literal,
        min_positive_subnormal: $min_sub:literal,
        epsilon: $eps_bits:literal = $eps:literal,
        halfway_above_max: $overflow_tie:literal $(,)?
    ) => {
        impl $name {
            /// `+0` (`0x00`), the only zero.
            pub const ZERO: Self = Self(0x00);
            /// `1.0` (`0x40`).
            pub const ONE: Self = Self(0x40);
            /// The only NaN, `0x80` (the bit pattern that would be −0).
            pub const NAN: Self = Self(NAN_BITS);
            #[doc = concat!("The largest finite value, ", $max, " (`0x7f`).")]
            pub const MAX: Self = Self(MAX_BITS);
            #[doc = concat!("The most negative finite value, −", $max, " (`0xff`).")]
            pub const MIN: Self = Self(0xff);
            #[doc = concat!(
                "The smallest positive normal value, ", $min_pos, " (`", stringify!($min_pos_bits), "`)."
            )]
            pub const MIN_POSITIVE: Self = Self($min_pos_bits);
            #[doc = concat!("The smallest positive value, ", $min_sub, " (`0x01`, subnormal).")]
            pub const MIN_POSITIVE_SUBNORMAL: Self = Self(0x01);
            #[doc = concat!(
                "The gap between 1 and the next larger value, ", $eps, " (`", stringify!($eps_bits), "`)."
            )]
            pub const EPSILON: Self = Self($eps_bits);

            /// The value with this bit pattern. Every `u8` is valid.
            #[inline]
            pub const fn from_bits(bits: u8) -> Self {
                Self(bits)
            }

            /// The bit pattern.
            #[inline]
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// The exact value as f32 (every value is representable); NaN
            /// (`0x80`) gives an f32 NaN. Zero is `+0.0`.
            #[inline]
            pub const fn to_f32(self) -> f32 {
                $fmt.decode(self.0)
            }

            /// The exact value as f64; NaN gives an f64 NaN.
            #[inline]
            pub const fn to_f64(self) -> f64 {
                self.to_f32() as f64
            }

            #[doc = concat!("Rounds `x` to the nearest ", stringify!($name), ", ties to even.")]
            ///
            /// The FNUZ conventions of ml_dtypes and PyTorch
            #[doc = concat!("(`float8_", $fmt_name, "`):")]
            /// - NaN, +∞ and −∞ give [`NAN`](Self::NAN): there is no infinity;
            /// - a finite `x` whose magnitude rounds (with an unbounded
            ///   exponent) above [`MAX`](Self::MAX) gives `NAN`: the halfway
            #[doc = concat!(
                "  point ±", $overflow_tie, " itself rounds to the even neighbour above `MAX`, so it overflows;"
            )]
            /// - `-0.0` and every `x` that rounds to zero, of either sign, give
            ///   `+0` (`0x00`): `0x80` is the NaN, not −0.
            ///
            /// [`from_f32_saturating`](Self::from_f32_saturating) clamps instead.
            ///
            /// ```
            #[doc = concat!("use mfma_core::", stringify!($name), ";")]
            #[doc = concat!("let max = ", stringify!($name), "::MAX.to_f32();")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::from_f32(max), ", stringify!($name), "::MAX);")]
            #[doc = concat!("assert!(", stringify!($name), "::from_f32(f32::INFINITY).is_nan());")]
            #[doc = concat!("assert!(", stringify!($name), "::from_f32(", $overflow_tie, ".0).is_nan());")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::from_f32(-1e-30).to_bits(), 0x00);")]
            /// ```
            #[inline]
            pub const fn from_f32(x: f32) -> Self {
                Self::from_f64(x as f64)
            }

            /// As [`from_f32`](Self::from_f32), from an f64, rounded once
            /// (not through f32).
            #[inline]
            pub const fn from_f64(x: f64) -> Self {
                Self($fmt.encode(x, false))
            }

            /// Rounds `x` to the nearest value, ties to even, and clamps what
            /// is out of range: finite values whose magnitude rounds above
            /// [`MAX`](Self::MAX), and ±∞, give ±`MAX`. NaN gives
            /// [`NAN`](Self::NAN); zero results are `+0` as in
            /// [`from_f32`](Self::from_f32).
            ///
            /// (This is the usual "saturate to finite" of minifloat and CUDA.
            /// HIP's `__HIP_SATFINITE` differs on infinities: it turns ±∞ into
            /// NaN.)
            ///
            /// ```
            #[doc = concat!("use mfma_core::", stringify!($name), ";")]
            #[doc = concat!(
                "assert_eq!(", stringify!($name), "::from_f32_saturating(f32::NEG_INFINITY), ",
                stringify!($name), "::MIN);"
            )]
            #[doc = concat!(
                "assert_eq!(", stringify!($name), "::from_f32_saturating(1e30), ", stringify!($name), "::MAX);"
            )]
            #[doc = concat!("assert!(", stringify!($name), "::from_f32_saturating(f32::NAN).is_nan());")]
            /// ```
            #[inline]
            pub const fn from_f32_saturating(x: f32) -> Self {
                Self::from_f64_saturating(x as f64)
            }

            /// As [`from_f32_saturating`](Self::from_f32_saturating), from an
            /// f64, rounded once.
            #[inline]
            pub const fn from_f64_saturating(x: f64) -> Self {
                Self($fmt.encode(x, true))
            }

            /// Whether this is the NaN, `0x80`.
            #[inline]
            pub const fn is_nan(self) -> bool {
                self.0 == NAN_BITS
            }

            /// Whether this is a number, i.e. not the NaN (there are no
            /// infinities).
            #[inline]
            pub const fn is_finite(self) -> bool {
                !self.is_nan()
            }

            /// Whether the sign bit is set: true for negative numbers and, as
            /// with `f32::is_sign_negative` and ml_dtypes' `signbit`, for the
            /// NaN `0x80`; false for zero, which is only ever `+0`.
            #[inline]
            pub const fn is_sign_negative(self) -> bool {
                self.0 & 0x80 != 0
            }

            /// The absolute value: clears the sign bit, except that NaN stays
            /// NaN (clearing it would give `+0`).
            #[inline]
            pub const fn abs(self) -> Self {
                if self.is_nan() {
                    self
                } else {
                    Self(self.0 & 0x7f)
                }
            }

            /// Flips the sign bit, except of `+0` and NaN, which are their own
            /// negations (there is no −0).
            #[inline]
            const fn negate(self) -> Self {
                if self.0 & 0x7f == 0 {
                    self
                } else {
                    Self(self.0 ^ 0x80)
                }
            }
        }

        impl core::ops::Neg for $name {
            type Output = Self;
            /// Exact negation; `-ZERO == ZERO` and `-NAN == NAN`.
            #[inline]
            fn neg(self) -> Self {
                self.negate()
            }
        }

        impl From<$name> for f32 {
            #[doc = concat!("Exact, as [`", stringify!($name), "::to_f32`].")]
            #[inline]
            fn from(x: $name) -> f32 {
                x.to_f32()
            }
        }

        impl From<$name> for f64 {
            #[doc = concat!("Exact, as [`", stringify!($name), "::to_f64`].")]
            #[inline]
            fn from(x: $name) -> f64 {
                x.to_f64()
            }
        }

        impl fmt::Display for $name {
            /// The value, as f32 prints it (`1.5`, `240`, `NaN`); precision and
            /// width flags apply.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Debug for $name {
            #[doc = concat!("The value and the bits: `", stringify!($name), "(1.5, 0x..)`.")]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:?}, {:#04x})"), self.to_f32(), self.0)
            }
        }
    };
}

/// CDNA3's `fp8`: an 8-bit float in the **E4M3 FNUZ** format (ml_dtypes and
/// PyTorch `float8_e4m3fnuz`, LLVM `Float8E4M3FNUZ`, HIP
/// `__hip_fp8_e4m3_fnuz`).
///
/// Bits `s eeee mmm`, exponent bias 8:
///
/// | code | value |
/// |---|---|
/// | `eeee` ≠ 0 | (−1)<sup>s</sup> · 2<sup>eeee − 8</sup> · (1 + mmm/8) |
/// | `eeee` = 0 (subnormal) | (−1)<sup>s</sup> · mmm · 2<sup>−10</sup> |
/// | `0x00` | +0, the only zero |
/// | `0x80` | NaN, the only one |
///
/// There are no infinities; the largest value is `0x7f` = 240, the smallest
/// normal `0x08` = 2<sup>−7</sup>, the smallest subnormal `0x01` =
/// 2<sup>−10</sup>.
///
/// # FNUZ, not OCP
///
/// "FNUZ" is **F**inite (no infinities), one special **N**aN, **U**nsigned
/// **Z**ero. The OCP 8-bit formats (`e4m3fn`, `e5m2`) that NVIDIA Hopper and
/// AMD CDNA4 use spend codes differently: OCP E4M3 has bias 7, NaN at
/// `0x7f`/`0xff`, a −0 at `0x80` and a maximum of 448. The same bits
/// therefore mean different numbers (`0x40` is 1.0 here and 2.0 in OCP
/// E4M3). FNUZ has no −0 because its bit pattern, `0x80`, is the NaN; so a
/// negative value that rounds to zero, and −0.0 itself, become `+0`.
///
/// **CDNA4 (gfx950, MI350) takes the OCP formats**: do not reuse this type
/// for its instructions.
///
/// Equality, `Hash` and `Default` (`+0`) are on the bits. Since there is
/// only one zero this is numeric equality for all numbers; only NaN differs
/// from f32 (`NAN == NAN` here).
///
/// ```
/// use mfma_core::Fp8;
///
/// let x = Fp8::from_f32(1.4); // rounds to the nearest, 1.375
/// assert_eq!((x.to_bits(), x.to_f32()), (0x43, 1.375));
/// assert_eq!(Fp8::MAX.to_f32(), 240.0);
/// assert_eq!(Fp8::from_f32(-0.0), Fp8::ZERO); // no −0
/// assert!(Fp8::from_f32(300.0).is_nan()); // overflow is NaN...
/// assert_eq!(Fp8::from_f32_saturating(300.0), Fp8::MAX); // ...unless saturating
/// assert_eq!(format!("{} {:?}", Fp8::from_f32(1.5), Fp8::NAN), "1.5 Fp8(NaN, 0x80)");
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fp8(u8);

fnuz_type!(
    Fp8, E4M3, "e4m3fnuz",
    max: "240",
    min_positive: 0x08 = "2<sup>−7</sup>",
    min_positive_subnormal: "2<sup>−10</sup>",
    epsilon: 0x28 = "2<sup>−3</sup>",
    halfway_above_max: "248",
);

/// CDNA3's `bf8`: an 8-bit float in the **E5M2 FNUZ** format (ml_dtypes and
/// PyTorch `float8_e5m2fnuz`, LLVM `Float8E5M2FNUZ`, HIP
/// `__hip_fp8_e5m2_fnuz`).
///
/// Bits `s eeeee mm`, exponent bias 16:
///
/// | code | value |
/// |---|---|
/// | `eeeee` ≠ 0 | (−1)<sup>s</sup> · 2<sup>eeeee − 16</sup> · (1 + mm/4) |
/// | `eeeee` = 0 (subnormal) | (−1)<sup>s</sup> · mm · 2<sup>−17</sup> |
/// | `0x00` | +0, the only zero |
/// | `0x80` | NaN, the only one |
///
/// There are no infinities; the largest value is `0x7f` = 57344, the smallest
/// normal `0x04` = 2<sup>−15</sup>, the smallest subnormal `0x01` =
/// 2<sup>−17</sup>.
///
/// # FNUZ, not OCP
///
/// "FNUZ" is **F**inite (no infinities), one special **N**aN, **U**nsigned
/// **Z**ero. OCP E5M2 (NVIDIA Hopper, AMD CDNA4) is IEEE-like instead: bias
/// 15, ±∞ at `0x7c`/`0xfc`, six NaNs, a −0 at `0x80`. Its largest value is
/// also 57344, but most bit patterns mean half of what they mean here
/// (`0x3c` is 1.0 in OCP E5M2 and 0.5 here). FNUZ has no −0 because its bit
/// pattern, `0x80`, is the NaN; so a negative value that rounds to zero, and
/// −0.0 itself, become `+0`.
///
/// **CDNA4 (gfx950, MI350) takes the OCP formats**: do not reuse this type
/// for its instructions.
///
/// Equality, `Hash` and `Default` (`+0`) are on the bits. Since there is
/// only one zero this is numeric equality for all numbers; only NaN differs
/// from f32 (`NAN == NAN` here).
///
/// ```
/// use mfma_core::Bf8;
///
/// let x = Bf8::from_f32(3.0);
/// assert_eq!((x.to_bits(), x.to_f32()), (0x46, 3.0));
/// assert_eq!(Bf8::MAX.to_f32(), 57344.0);
/// assert_eq!(Bf8::MIN_POSITIVE_SUBNORMAL.to_f64(), 2f64.powi(-17));
/// assert_eq!(Bf8::from_f32(-1e-9), Bf8::ZERO); // rounds to +0, never -0
/// assert_eq!(-Bf8::ONE, Bf8::from_f32(-1.0));
/// assert_eq!(format!("{}", Bf8::from_f32(0.3)), "0.3125");
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bf8(u8);

fnuz_type!(
    Bf8, E5M2, "e5m2fnuz",
    max: "57344",
    min_positive: 0x04 = "2<sup>−15</sup>",
    min_positive_subnormal: "2<sup>−17</sup>",
    epsilon: 0x38 = "2<sup>−2</sup>",
    halfway_above_max: "61440",
);

/// An `xf32` input of CDNA3's `*_xf32` builtins: an f32 bit pattern of which
/// the instruction uses only the tf32 part.
///
/// The instruction truncates each input to tf32 itself, by clearing the low
/// 13 mantissa bits (`bits & 0xffff_e000`: 1 sign, 8 exponent and 10 mantissa
/// bits are left; rounding toward zero). So this type keeps **all** 32 bits,
/// exactly what the registers hold: [`from_f32`](Self::from_f32) does not
/// round, [`to_f32`](Self::to_f32) gives the stored value back, and
/// [`to_tf32`](Self::to_tf32) is the value the instruction computes with.
/// Being `repr(transparent)` over f32, a slice of `Xf32` is a slice of f32
/// bit patterns for the device path.
///
/// Equality and `Hash` are on the 32 stored bits: `+0 != -0`, a NaN equals
/// itself, and two inputs with the same tf32 value but different low bits are
/// different (`Eq` holds). `Default` is `+0.0`.
///
/// ```
/// use mfma_core::Xf32;
///
/// let x = Xf32::from_f32(1.0 + f32::EPSILON); // 0x3f800001
/// assert_eq!(x.to_bits(), 0x3f80_0001); // stored as given...
/// assert_eq!(x.to_tf32(), 1.0); // ...used as 1.0
/// assert_eq!(Xf32::from_f32(-1.999_999_9).to_tf32(), -1.999_023_4); // toward zero
/// assert_ne!(x, Xf32::from_f32(1.0));
/// assert_eq!(format!("{x} {x:?}"), "1.0000001 Xf32(1.0000001, 0x3f800001)");
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default)]
pub struct Xf32(f32);

impl Xf32 {
    /// The mask of the bits that the instruction keeps.
    const TF32_MASK: u32 = 0xffff_e000;

    /// Stores `x` with all its bits (no rounding: the instruction itself
    /// truncates to tf32).
    #[inline]
    pub const fn from_f32(x: f32) -> Self {
        Self(x)
    }

    /// The value with this f32 bit pattern.
    #[inline]
    pub const fn from_bits(bits: u32) -> Self {
        Self(f32::from_bits(bits))
    }

    /// The stored f32 bit pattern, all 32 bits.
    #[inline]
    pub const fn to_bits(self) -> u32 {
        self.0.to_bits()
    }

    /// The stored value, all bits (not what the instruction uses; see
    /// [`to_tf32`](Self::to_tf32)).
    #[inline]
    pub const fn to_f32(self) -> f32 {
        self.0
    }

    /// The value the instruction uses: the stored bits with the low 13
    /// mantissa bits cleared (tf32, rounded toward zero).
    ///
    /// This is a pure bit mask, so it keeps signs, infinities, zeros and
    /// subnormals' high bits, and a NaN whose payload lies only in the low 13
    /// bits becomes an infinity: `0x7f80_0001` is used as +∞. The reference
    /// model does exactly this (vector `f32_16x16x8_xf32/nan_inf/0` of the
    /// CDNA3 test vectors: `0xff80_0001` times +∞ accumulates as −∞, not NaN).
    ///
    /// ```
    /// use mfma_core::Xf32;
    /// assert_eq!(Xf32::from_bits(0x7f80_0001).to_tf32(), f32::INFINITY);
    /// assert!(Xf32::from_bits(0x7fc0_0000).to_tf32().is_nan());
    /// ```
    #[inline]
    pub const fn to_tf32(self) -> f32 {
        f32::from_bits(self.to_bits() & Self::TF32_MASK)
    }
}

impl PartialEq for Xf32 {
    /// Equality of the stored bits (see the type's documentation).
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Eq for Xf32 {}

impl core::hash::Hash for Xf32 {
    #[inline]
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.to_bits().hash(state);
    }
}

impl fmt::Display for Xf32 {
    /// The stored value, as f32 prints it; flags apply.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Xf32 {
    /// The stored value and its bits: `Xf32(1.0000001, 0x3f800001)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Xf32({:?}, {:#010x})", self.0, self.to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::{Bf8, Fp8, Xf32};
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    /// What the tests know of a format, written from its definition alone
    /// (not from `super::Fnuz`), and its conversions as plain functions.
    struct Spec {
        name: &'static str,
        man_bits: u32,
        bias: i32,
        to_f32: fn(u8) -> f32,
        to_f64: fn(u8) -> f64,
        /// `from_f32`, `from_f32_saturating`.
        from_f32: [fn(f32) -> u8; 2],
        /// `from_f64`, `from_f64_saturating`.
        from_f64: [fn(f64) -> u8; 2],
    }

    const FP8: Spec = Spec {
        name: "fp8",
        man_bits: 3,
        bias: 8,
        to_f32: |b| Fp8::from_bits(b).to_f32(),
        to_f64: |b| Fp8::from_bits(b).to_f64(),
        from_f32: [
            |x| Fp8::from_f32(x).to_bits(),
            |x| Fp8::from_f32_saturating(x).to_bits(),
        ],
        from_f64: [
            |x| Fp8::from_f64(x).to_bits(),
            |x| Fp8::from_f64_saturating(x).to_bits(),
        ],
    };

    const BF8: Spec = Spec {
        name: "bf8",
        man_bits: 2,
        bias: 16,
        to_f32: |b| Bf8::from_bits(b).to_f32(),
        to_f64: |b| Bf8::from_bits(b).to_f64(),
        from_f32: [
            |x| Bf8::from_f32(x).to_bits(),
            |x| Bf8::from_f32_saturating(x).to_bits(),
        ],
        from_f64: [
            |x| Bf8::from_f64(x).to_bits(),
            |x| Bf8::from_f64_saturating(x).to_bits(),
        ],
    };

    const NAN: u8 = 0x80;

    /// The value of `code` from the textbook formula: sign, biased exponent
    /// field, mantissa field; exponent field 0 is subnormal. `None` for NaN.
    fn formula(s: &Spec, code: u8) -> Option<f64> {
        if code == NAN {
            return None;
        }
        let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
        let e = i32::from((code & 0x7f) >> s.man_bits);
        let m = f64::from(code & ((1 << s.man_bits) - 1));
        let frac = m / f64::from(1u32 << s.man_bits);
        let magnitude = if e == 0 {
            frac * 2f64.powi(1 - s.bias)
        } else {
            (1.0 + frac) * 2f64.powi(e - s.bias)
        };
        Some(sign * magnitude)
    }

    /// Every representable value with its code, ascending, between two
    /// sentinels `∓(MAX + ulp(MAX))` standing for the overflow: the even
    /// neighbour that ties above `MAX` round to. The sentinels have code NaN.
    fn table(s: &Spec) -> Vec<(f64, u8)> {
        let mut t: Vec<(f64, u8)> = (0..=255u8)
            .filter_map(|c| formula(s, c).map(|v| (v, c)))
            .collect();
        t.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(t.len(), 255, "{}: one NaN, 255 numbers", s.name);
        let values: Vec<f64> = t.iter().map(|e| e.0).collect();
        assert!(
            values.windows(2).all(|w| w[0] < w[1]),
            "{}: no two codes share a value (one zero)",
            s.name
        );
        let max = t[254].0;
        let sentinel = 2.0 * max - t[253].0;
        t.insert(0, (-sentinel, NAN));
        t.push((sentinel, NAN));
        t
    }

    /// Round to nearest by search in `t`: the neighbours `lo ≤ x ≤ hi`, the
    /// nearer one, on a tie the one with an even code (the sentinels count
    /// as even). The FNUZ conventions: NaN, ±∞ and overflow are NaN; with
    /// `saturate`, x is first clamped to [MIN, MAX].
    fn reference(t: &[(f64, u8)], x: f64, saturate: bool) -> u8 {
        if x.is_nan() {
            return NAN;
        }
        let (min, max) = (t[1].0, t[t.len() - 2].0);
        let x = if saturate { x.clamp(min, max) } else { x };
        if x <= t[0].0 || x >= t[t.len() - 1].0 {
            return NAN;
        }
        let j = t.partition_point(|e| e.0 <= x);
        let (lo, hi) = (t[j - 1], t[j]);
        if x == lo.0 {
            return lo.1;
        }
        // Exact: both are short dyadic numbers.
        let mid = (lo.0 + hi.0) / 2.0;
        let pick = if x < mid {
            lo
        } else if x > mid {
            hi
        } else if lo.1 == NAN || lo.1 & 1 == 0 {
            lo
        } else {
            hi
        };
        pick.1
    }

    fn f32_next(x: f32, ulps: i32) -> f32 {
        // Steps along the f32 bit patterns of one sign; callers keep away
        // from zero and infinity where that would wrap.
        f32::from_bits(x.to_bits().wrapping_add_signed(ulps))
    }

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// Checks all four encoders on one f32 input against the reference.
    fn check_f32(s: &Spec, t: &[(f64, u8)], x: f32) {
        for (sat, from_f32) in s.from_f32.iter().enumerate() {
            let want = reference(t, f64::from(x), sat == 1);
            let got = from_f32(x);
            assert_eq!(
                got,
                want,
                "{} from_f32{} of {x:e} ({:#010x}): got {got:#04x}, want {want:#04x}",
                s.name,
                ["", "_saturating"][sat],
                x.to_bits()
            );
            assert_eq!(
                s.from_f64[sat](f64::from(x)),
                want,
                "{} from_f64 of {x:e}",
                s.name
            );
        }
    }

    fn check_f64(s: &Spec, t: &[(f64, u8)], x: f64) {
        for (sat, from_f64) in s.from_f64.iter().enumerate() {
            let want = reference(t, x, sat == 1);
            let got = from_f64(x);
            assert_eq!(
                got,
                want,
                "{} from_f64{} of {x:e} ({:#018x}): got {got:#04x}, want {want:#04x}",
                s.name,
                ["", "_saturating"][sat],
                x.to_bits()
            );
        }
    }

    #[test]
    fn formats_decode_every_code() {
        for s in [&FP8, &BF8] {
            for code in 0..=255u8 {
                let got = (s.to_f32)(code);
                let got64 = (s.to_f64)(code);
                match formula(s, code) {
                    None => {
                        assert!(got.is_nan() && got64.is_nan(), "{} {code:#04x}", s.name);
                    }
                    Some(v) => {
                        // Bits, so that the sign of zero counts too.
                        assert_eq!(
                            f64::from(got).to_bits(),
                            v.to_bits(),
                            "{} {code:#04x}",
                            s.name
                        );
                        assert_eq!(got64.to_bits(), v.to_bits(), "{} {code:#04x}", s.name);
                    }
                }
            }
        }
    }

    /// The predicates, `abs`, `neg`, `From` and the formatting of every code.
    #[test]
    fn formats_methods_every_code() {
        macro_rules! each {
            ($t:ident, $s:expr) => {
                for code in 0..=255u8 {
                    let x = $t::from_bits(code);
                    assert_eq!(x.to_bits(), code);
                    let v = formula($s, code);
                    assert_eq!(x.is_nan(), v.is_none());
                    assert_eq!(x.is_finite(), v.is_some());
                    assert_eq!(x.is_sign_negative(), code & 0x80 != 0);
                    assert_eq!(x.is_sign_negative(), v.is_none_or(|v| v < 0.0));
                    match v {
                        None => {
                            assert!(x.abs().is_nan() && (-x).is_nan());
                            assert_eq!(format!("{x}"), "NaN");
                            assert_eq!(format!("{x:?}"), concat!(stringify!($t), "(NaN, 0x80)"));
                        }
                        Some(v) => {
                            assert_eq!(x.abs().to_f64(), v.abs());
                            assert_eq!((-x).to_f64(), -v);
                            assert_eq!(-(-x), x);
                            assert!(!x.abs().is_sign_negative());
                            assert_eq!(f32::from(x), v as f32);
                            assert_eq!(f64::from(x), v);
                            assert_eq!(format!("{x}"), format!("{}", v as f32));
                            assert_eq!(format!("{x:.3}"), format!("{:.3}", v as f32));
                            assert_eq!(
                                format!("{x:?}"),
                                format!(concat!(stringify!($t), "({:?}, {:#04x})"), v as f32, code)
                            );
                        }
                    }
                }
                // Zero is its own negation and absolute value; never 0x80.
                assert_eq!((-$t::ZERO).to_bits(), 0x00);
                assert_eq!($t::ZERO.abs().to_bits(), 0x00);
                assert_eq!($t::default(), $t::ZERO);
            };
        }
        each!(Fp8, &FP8);
        each!(Bf8, &BF8);
    }

    #[test]
    fn formats_constants() {
        macro_rules! constants {
            ($t:ident, $s:expr, max: $max:expr, min_normal: $mn:expr, min_sub: $ms:expr, eps: $eps:expr) => {{
                let t = table($s);
                let numbers = &t[1..t.len() - 1];
                let value = |x: $t| formula($s, x.to_bits()).unwrap();
                assert!($t::NAN.is_nan() && $t::NAN.to_bits() == 0x80);
                assert_eq!(value($t::ZERO).to_bits(), 0f64.to_bits());
                assert_eq!(value($t::ONE), 1.0);
                assert_eq!(value($t::MAX), $max);
                assert_eq!(value($t::MAX), numbers[numbers.len() - 1].0);
                assert_eq!(value($t::MIN), -$max);
                assert_eq!(value($t::MIN), numbers[0].0);
                assert_eq!(value($t::MIN_POSITIVE), $mn);
                assert_eq!(value($t::MIN_POSITIVE_SUBNORMAL), $ms);
                let above_zero = numbers.iter().find(|e| e.0 > 0.0).unwrap();
                assert_eq!(value($t::MIN_POSITIVE_SUBNORMAL), above_zero.0);
                // The smallest normal: the smallest positive code with a
                // nonzero exponent field.
                let smallest_normal = (1..0x80u8).find(|c| c >> $s.man_bits != 0).unwrap();
                assert_eq!($t::MIN_POSITIVE.to_bits(), smallest_normal);
                let above_one = numbers.iter().find(|e| e.0 > 1.0).unwrap();
                assert_eq!(value($t::EPSILON), above_one.0 - 1.0);
                assert_eq!(value($t::EPSILON), $eps);
                // Usable in const context.
                const ONE_BITS: u8 = $t::from_f32(1.0).to_bits();
                const MAX_F32: f32 = $t::MAX.to_f32();
                const SAT_BITS: u8 = $t::from_f64_saturating(f64::INFINITY).to_bits();
                assert_eq!(ONE_BITS, $t::ONE.to_bits());
                assert_eq!(MAX_F32 as f64, $max);
                assert_eq!(SAT_BITS, 0x7f);
                assert_eq!(core::mem::size_of::<$t>(), 1);
            }};
        }
        constants!(Fp8, &FP8, max: 240.0, min_normal: 2f64.powi(-7), min_sub: 2f64.powi(-10), eps: 0.125);
        constants!(Bf8, &BF8, max: 57344.0, min_normal: 2f64.powi(-15), min_sub: 2f64.powi(-17), eps: 0.25);
    }

    #[test]
    fn formats_round_trip_every_code() {
        for s in [&FP8, &BF8] {
            for code in (0..=255u8).filter(|&c| c != NAN) {
                let x = (s.to_f32)(code);
                for sat in 0..2 {
                    assert_eq!(s.from_f32[sat](x), code, "{} {code:#04x}", s.name);
                    assert_eq!(
                        s.from_f64[sat]((s.to_f64)(code)),
                        code,
                        "{} {code:#04x}",
                        s.name
                    );
                }
            }
            assert_eq!(s.from_f32[0]((s.to_f32)(NAN)), NAN);
        }
    }

    /// Hand-worked cases, several cross-checked with ml_dtypes 0.6.0.
    #[test]
    fn formats_known_values() {
        let fp8 = |x: f32| Fp8::from_f32(x).to_bits();
        let bf8 = |x: f32| Bf8::from_f32(x).to_bits();
        // 1.0 is 0x40 in both; OCP E4M3 would say 0x38, OCP E5M2 0x3c.
        assert_eq!((fp8(1.0), bf8(1.0)), (0x40, 0x40));
        // Ties to even: 1.0625 is halfway between 1.0 (0x40) and 1.125 (0x41).
        assert_eq!(fp8(1.0625), 0x40);
        assert_eq!(fp8(1.1875), 0x42); // halfway 1.125 (0x41) / 1.25 (0x42)
        assert_eq!(fp8(-1.1875), 0xc2);
        // The top: 247.9 rounds to 240; 248 ties to the even 256, overflow.
        assert_eq!(fp8(247.9), 0x7f);
        assert_eq!(fp8(248.0), 0x80);
        assert_eq!(fp8(-248.0), 0x80);
        assert_eq!(Fp8::from_f32_saturating(-248.0).to_bits(), 0xff);
        assert_eq!(bf8(61439.0), 0x7f);
        assert_eq!(bf8(61440.0), 0x80);
        // Subnormals: fp8 m·2^-10, bf8 m·2^-17.
        assert_eq!(fp8(3.0 * 2f32.powi(-10)), 0x03);
        assert_eq!(fp8(-3.0 * 2f32.powi(-10)), 0x83);
        assert_eq!(bf8(2f32.powi(-17)), 0x01);
        assert_eq!(fp8(7.5 * 2f32.powi(-10)), 0x08); // tie 0x07 / 0x08 (smallest normal)
                                                     // Halfway to the smallest subnormal ties to zero; above it, not.
        assert_eq!(fp8(2f32.powi(-11)), 0x00);
        assert_eq!(fp8(-2f32.powi(-11)), 0x00);
        assert_eq!(fp8(f32_next(2f32.powi(-11), 1)), 0x01);
        assert_eq!(fp8(-f32_next(2f32.powi(-11), 1)), 0x81);
        // Zeros and specials.
        assert_eq!((fp8(0.0), fp8(-0.0), bf8(-0.0)), (0, 0, 0));
        for x in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!((fp8(x), bf8(x)), (0x80, 0x80));
        }
        assert_eq!(Bf8::from_f32_saturating(f32::INFINITY).to_bits(), 0x7f);
        assert_eq!(Bf8::from_f32_saturating(-f32::NAN).to_bits(), 0x80);
        // from_f64 rounds once: just above the fp8 halfway point 1.0625 goes up,
        // while the same value through f32 lands on the tie and goes down.
        let x = 1.0625 + 2f64.powi(-40);
        assert_eq!(Fp8::from_f64(x).to_bits(), 0x41);
        assert_eq!(Fp8::from_f32(x as f32).to_bits(), 0x40);
    }

    /// The f32 inputs: codes and their neighbours, every midpoint and its
    /// neighbours, specials, sweeps of every binade around the range at two
    /// resolutions (finely near the boundaries), a stride through all f32
    /// and random bit patterns.
    fn f32_inputs(s: &Spec, t: &[(f64, u8)]) -> Vec<f32> {
        let mut v = Vec::new();
        let near = |v: &mut Vec<f32>, x: f32| {
            for d in -3..=3 {
                let y = f32_next(x, d);
                if x != 0.0 && y.is_finite() && y.is_sign_negative() == x.is_sign_negative() {
                    v.push(y);
                }
            }
            v.push(x);
        };
        for e in t {
            near(&mut v, e.0 as f32);
        }
        for w in t.windows(2) {
            let mid = (w[0].0 + w[1].0) / 2.0;
            assert_eq!(f64::from(mid as f32), mid, "midpoints are f32 numbers");
            near(&mut v, mid as f32);
        }
        let specials = [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0xffff_ffff),
            f32::from_bits(0x7fa0_0000),
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::from_bits(0x007f_ffff),
            1e30,
            -1e30,
            1e-30,
            -1e-30,
        ];
        v.extend(specials);
        let (m, bias) = (s.man_bits as i32, s.bias);
        let (e_min, e_max) = (1 - bias, (1 << (7 - m)) - 1 - bias);
        // Coarse: 2^13 mantissas in every binade from four below the
        // smallest subnormal to two above the largest.
        let binade = |e: i32| ((e + 127) as u32) << 23;
        for e in (e_min - m - 4)..=(e_max + 2) {
            for j in 0..(1u32 << 13) {
                let bits = binade(e) | (j << 10) | (j & 0x3ff);
                v.push(f32::from_bits(bits));
                v.push(-f32::from_bits(bits));
            }
        }
        // Fine: 2^19 mantissas where the rules change.
        for e in [e_min - m - 1, e_min - m, e_min - 1, e_min, e_max, e_max + 1] {
            for j in 0..(1u32 << 19) {
                let bits = binade(e) | (j << 4) | (j & 0xf);
                v.push(f32::from_bits(bits));
                v.push(-f32::from_bits(bits));
            }
        }
        // All of f32, by a prime stride, and random patterns.
        v.extend((0..=u32::MAX).step_by(65_521).map(f32::from_bits));
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        v.extend((0..1 << 20).map(|_| f32::from_bits(rng.next() as u32)));
        v
    }

    #[test]
    fn formats_from_f32_against_reference() {
        for s in [&FP8, &BF8] {
            let t = table(s);
            let inputs = f32_inputs(s, &t);
            assert!(
                inputs.len() > 7_000_000,
                "{}: {} inputs",
                s.name,
                inputs.len()
            );
            for &x in &inputs {
                check_f32(s, &t, x);
            }
            std::eprintln!(
                "{}: from_f32 checked on {} f32 inputs",
                s.name,
                inputs.len()
            );
        }
    }

    /// f64 inputs that f32 cannot hold: the encoder must round them once.
    #[test]
    fn formats_from_f64_against_reference() {
        for s in [&FP8, &BF8] {
            let t = table(s);
            let mut n = 0;
            let mut points: Vec<f64> = t.iter().map(|e| e.0).collect();
            points.extend(t.windows(2).map(|w| (w[0].0 + w[1].0) / 2.0));
            for p in points {
                for k in [0, 1, 2, 3, 30, 40, 52] {
                    for d in [p * 2f64.powi(-k - 24), 2f64.powi(-1074)] {
                        for x in [p, p + d, p - d] {
                            check_f64(s, &t, x);
                            n += 1;
                        }
                    }
                }
                for ulps in -3..=3i64 {
                    if p != 0.0 {
                        let x = f64::from_bits(p.to_bits().wrapping_add_signed(ulps));
                        check_f64(s, &t, x);
                        n += 1;
                    }
                }
            }
            for x in [
                f64::MAX,
                f64::MIN,
                f64::MIN_POSITIVE,
                5e-324,
                -5e-324,
                1e300,
                -1e-300,
            ] {
                check_f64(s, &t, x);
                n += 1;
            }
            for x in [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                check_f64(s, &t, x);
                n += 1;
            }
            let mut rng = Rng(0x0123_4567_89ab_cdef);
            for _ in 0..1 << 20 {
                // Random bits, and random values spread over the range.
                check_f64(s, &t, f64::from_bits(rng.next()));
                let mag = f64::from_bits(rng.next() >> 12 | 0x3ff0_0000_0000_0000);
                let e = (rng.next() % 48) as i32 - 30;
                let sign = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
                check_f64(s, &t, sign * mag * 2f64.powi(e));
                n += 2;
            }
            std::eprintln!("{}: from_f64 checked on {n} f64 inputs", s.name);
        }
    }

    /// All 2^32 f32 inputs, both formats, both overflow conventions, against
    /// a reference that walks the value table in step with the inputs (one
    /// thread per format; about three minutes in the test profile):
    /// `cargo test -p mfma-core formats -- --ignored`.
    #[test]
    #[ignore = "exhaustive over all f32: slow"]
    fn formats_from_f32_exhaustive() {
        std::thread::scope(|scope| {
            for s in [&FP8, &BF8] {
                scope.spawn(move || exhaustive(s));
            }
        });
    }

    fn exhaustive(s: &Spec) {
        let t = table(s);
        let zero = t.iter().position(|e| e.0 == 0.0).unwrap();
        for negative in [false, true] {
            // Table entries of this sign by increasing magnitude, from zero
            // to the sentinel.
            let side: Vec<(f64, u8)> = if negative {
                t[..=zero].iter().rev().map(|&(v, c)| (-v, c)).collect()
            } else {
                t[zero..].to_vec()
            };
            let sign = if negative { 0x8000_0000 } else { 0 };
            let mut j = 0; // side[j] ≤ |x| < side[j + 1]
            for bits in 0..=0x7fff_ffffu32 {
                let x = f32::from_bits(bits | sign);
                let a = f64::from(bits_abs(bits));
                let want = if bits > 0x7f80_0000 {
                    [NAN, NAN]
                } else {
                    while j + 1 < side.len() && side[j + 1].0 <= a {
                        j += 1;
                    }
                    let over = if negative { 0xff } else { 0x7f };
                    if j + 1 == side.len() {
                        [NAN, over] // at or past the sentinel, or ∞
                    } else {
                        let (lo, hi) = (side[j], side[j + 1]);
                        let mid = (lo.0 + hi.0) / 2.0;
                        let pick = if a == lo.0 || a < mid || (a == mid && lo.1 & 1 == 0) {
                            lo.1
                        } else {
                            hi.1
                        };
                        if pick == NAN {
                            [NAN, over]
                        } else {
                            [pick, pick]
                        }
                    }
                };
                for (sat, (from_f32, want)) in s.from_f32.iter().zip(want).enumerate() {
                    let got = from_f32(x);
                    assert_eq!(got, want, "{} sat={sat} {:#010x}", s.name, x.to_bits());
                }
            }
        }
    }

    fn bits_abs(bits: u32) -> f32 {
        f32::from_bits(bits & 0x7fff_ffff)
    }

    /// f32 bit patterns for the xf32 tests: specials, boundaries, every low
    /// 13-bit pattern under a few high parts, random ones.
    fn xf32_samples() -> Vec<u32> {
        let mut v: Vec<u32> = std::vec![
            0x0000_0000,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0xff80_0001,
            0x7f80_1fff,
            0x7f80_2000,
            0x7fff_ffff,
            0xffff_ffff,
            0x0000_0001,
            0x8000_1fff,
            0x0000_2000,
            0x007f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0x3f80_0001,
            0xbfff_ffff,
            0x7f7f_ffff,
            0xff7f_ffff,
        ];
        for high in [
            0x3f80_0000u32,
            0xc2aa_4000,
            0x0000_0000,
            0x8040_0000,
            0x7f80_0000,
            0xff80_0000,
        ] {
            v.extend((0..1u32 << 13).map(|low| high | low));
        }
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        v.extend((0..1 << 16).map(|_| rng.next() as u32));
        v
    }

    /// tf32 truncation by arithmetic: keep 11 significant bits of the
    /// magnitude (at f32's smallest exponent for subnormals), toward zero.
    fn tf32_by_value(x: f32) -> f32 {
        if !x.is_finite() || x == 0.0 {
            return x;
        }
        let v = f64::from(x);
        let e = (v.abs().log2().floor() as i32).max(-126);
        let q = 2f64.powi(e - 10);
        ((v / q).trunc() * q) as f32
    }

    #[test]
    fn formats_xf32() {
        let samples = xf32_samples();
        for &b in &samples {
            let f = f32::from_bits(b);
            let x = Xf32::from_bits(b);
            assert_eq!(x.to_bits(), b);
            assert_eq!(x.to_f32().to_bits(), b);
            assert_eq!(Xf32::from_f32(f).to_bits(), b, "from_f32 keeps every bit");
            let tf = x.to_tf32();
            assert_eq!(tf.to_bits(), b & 0xffff_e000, "{b:#010x}");
            if f.is_nan() {
                // NaN stays NaN unless its payload was all in the low bits.
                assert_eq!(tf.is_nan(), b & 0x007f_e000 != 0, "{b:#010x}");
                assert_eq!(tf.is_infinite(), b & 0x007f_e000 == 0, "{b:#010x}");
            } else {
                assert_eq!(tf.to_bits(), tf32_by_value(f).to_bits(), "{b:#010x}");
                assert!(tf.abs() <= f.abs() && tf.is_sign_negative() == f.is_sign_negative());
            }
            assert_eq!(x, Xf32::from_f32(f));
            assert_eq!(format!("{x}"), format!("{f}"));
            assert_eq!(format!("{x:?}"), format!("Xf32({f:?}, {b:#010x})"));
        }
        std::eprintln!("xf32: {} bit patterns", samples.len());
    }

    #[test]
    fn formats_xf32_eq_hash_default() {
        use core::hash::BuildHasher;
        let state = std::hash::RandomState::new();
        let h = |x: Xf32| state.hash_one(x);
        let nan = Xf32::from_bits(0x7fc0_0000);
        assert_eq!(nan, nan);
        assert_eq!(h(nan), h(Xf32::from_bits(0x7fc0_0000)));
        assert_ne!(Xf32::from_f32(0.0), Xf32::from_f32(-0.0));
        assert_ne!(Xf32::from_bits(0x3f80_0000), Xf32::from_bits(0x3f80_0001));
        assert_eq!(
            Xf32::from_bits(0x3f80_0000).to_tf32(),
            Xf32::from_bits(0x3f80_0001).to_tf32()
        );
        assert_eq!(Xf32::default().to_bits(), 0);
        assert_eq!(core::mem::size_of::<Xf32>(), 4);
        assert_eq!(core::mem::align_of::<Xf32>(), core::mem::align_of::<f32>());
        const T: f32 = Xf32::from_bits(0x3fff_ffff).to_tf32();
        assert_eq!(T.to_bits(), 0x3fff_e000);
        let s: String = format!("{:.2}", Xf32::from_f32(1.0 / 3.0));
        assert_eq!(s, "0.33");
    }
}
