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
