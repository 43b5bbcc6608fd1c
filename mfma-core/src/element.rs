//! Element types and register storage.

use crate::formats::{Bf8, Fp8, Xf32};
use half::{bf16, f16};
use mfma_spec::ElemType;

/// A matrix element type of some MFMA operand.
///
/// Bits convert both ways losslessly; this is what the CLI and the test
/// vectors use (`to_bits` of an `i8` is its two's complement byte).
///
/// ```
/// use mfma_core::Element;
/// assert_eq!(half::bf16::from_f32(1.0).to_bits_u64(), 0x3f80);
/// assert_eq!(<i8 as Element>::from_bits_u64(0xff), -1);
/// ```
pub trait Element: Copy + Default + PartialEq + core::fmt::Debug + Send + Sync + 'static {
    /// The spec's name for this type.
    const TYPE: ElemType;
    /// Zero of the type.
    const ZERO: Self;
    /// The raw bits, zero-extended.
    fn to_bits_u64(self) -> u64;
    /// From raw bits (the low `TYPE.bits()` bits are used).
    fn from_bits_u64(bits: u64) -> Self;
}

macro_rules! element {
    ($t:ty, $e:ident, $zero:expr, |$x:ident| $to:expr, |$b:ident| $from:expr) => {
        impl Element for $t {
            const TYPE: ElemType = ElemType::$e;
            const ZERO: Self = $zero;
            #[inline]
            fn to_bits_u64(self) -> u64 {
                let $x = self;
                $to
            }
            #[inline]
            fn from_bits_u64($b: u64) -> Self {
                $from
            }
        }
    };
}

element!(f32, F32, 0.0, |x| u64::from(x.to_bits()), |b| {
    f32::from_bits(b as u32)
});
element!(f64, F64, 0.0, |x| x.to_bits(), |b| f64::from_bits(b));
element!(f16, F16, f16::ZERO, |x| u64::from(x.to_bits()), |b| {
    f16::from_bits(b as u16)
});
element!(bf16, Bf16, bf16::ZERO, |x| u64::from(x.to_bits()), |b| {
    bf16::from_bits(b as u16)
});
element!(
    Xf32,
    Xf32,
    Xf32::from_bits(0),
    |x| u64::from(x.to_bits()),
    |b| Xf32::from_bits(b as u32)
);
element!(Fp8, Fp8, Fp8::ZERO, |x| u64::from(x.to_bits()), |b| {
    Fp8::from_bits(b as u8)
});
element!(Bf8, Bf8, Bf8::ZERO, |x| u64::from(x.to_bits()), |b| {
    Bf8::from_bits(b as u8)
});
element!(i8, I8, 0, |x| u64::from(x as u8), |b| b as u8 as i8);
element!(i32, I32, 0, |x| u64::from(x as u32), |b| b as u32 as i32);

/// Register storage of a fragment: a fixed-size array of elements.
///
/// On the host a fragment holds the whole wave (in matrix order, see
/// [`Fragment`](crate::Fragment)); on the GPU it holds the calling lane's items.
///
/// Sealed: implemented for `[T; N]` only. The software path reads a slice of
/// fragments as one run of elements, which is sound only for plain arrays.
pub trait Storage<T: Element>:
    sealed::Array + Copy + AsRef<[T]> + AsMut<[T]> + Send + Sync + 'static
{
    /// Every element set to `v`.
    fn splat(v: T) -> Self;
}

mod sealed {
    /// Only arrays are fragment storage.
    pub trait Array {}
    impl<T, const N: usize> Array for [T; N] {}
}

impl<T: Element, const N: usize> Storage<T> for [T; N] {
    #[inline]
    fn splat(v: T) -> Self {
        [v; N]
    }
}
