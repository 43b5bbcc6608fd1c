//! Element types, their LLVM operand types, and arithmetic families.

use core::fmt;

/// The element type of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// IEEE binary16.
    F16,
    /// bfloat16 (the top half of a binary32).
    Bf16,
    /// An f32 bit pattern that the instruction truncates to tf32 (the low
    /// 13 mantissa bits cleared): CDNA3's xf32 inputs.
    Xf32,
    /// 8-bit float E4M3 FNUZ (bias 8, no infinities, one NaN 0x80, no -0): CDNA3's fp8.
    Fp8,
    /// 8-bit float E5M2 FNUZ (bias 16, no infinities, one NaN 0x80, no -0): CDNA3's bf8.
    Bf8,
    /// Signed 8-bit integer.
    I8,
    /// Signed 32-bit integer.
    I32,
    /// A 4-bit field of an SMFMAC index register: the positions (0..=3)
    /// within a group of 4 logical k of the group's two stored values, the
    /// first in bits 0..2, the second in bits 2..4 (see [`Sparse`](crate::Sparse)).
    Idx,
}

impl ElemType {
    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            ElemType::F64 => 64,
            ElemType::F32 | ElemType::Xf32 | ElemType::I32 => 32,
            ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::Fp8 | ElemType::Bf8 | ElemType::I8 => 8,
            ElemType::Idx => 4,
        }
    }

    /// Short name as used in builtin names (`f32`, `bf16`, `fp8`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::Xf32 => "xf32",
            ElemType::Fp8 => "fp8",
            ElemType::Bf8 => "bf8",
            ElemType::I8 => "i8",
            ElemType::I32 => "i32",
            ElemType::Idx => "idx",
        }
    }

    /// Parses [`ElemType::name`].
    pub fn from_name(name: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Every element type.
    pub const ALL: [ElemType; 10] = [
        ElemType::F32,
        ElemType::F64,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::Xf32,
        ElemType::Fp8,
        ElemType::Bf8,
        ElemType::I8,
        ElemType::I32,
        ElemType::Idx,
    ];

    /// The Rust type that holds one element (`half` provides f16 and bf16,
    /// `mfma-core` the CDNA3 formats).
    pub const fn rust_type(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "half::f16",
            ElemType::Bf16 => "half::bf16",
            ElemType::Xf32 => "mfma_core::Xf32",
            ElemType::Fp8 => "mfma_core::Fp8",
            ElemType::Bf8 => "mfma_core::Bf8",
            ElemType::I8 => "i8",
            ElemType::I32 => "i32",
            ElemType::Idx => "mfma_core::Positions",
        }
    }

    /// The HIP/C scalar type of one element as the seed document writes it.
    /// Not always the type the builtin takes: packed operands travel as
    /// integers or vectors (eight fp8 in a `long`; see
    /// [`Builtin::llvm_a`](crate::Builtin::llvm_a)); the index fields of
    /// SMFMAC travel in one `int`.
    pub const fn c_type(self) -> &'static str {
        match self {
            ElemType::F32 | ElemType::Xf32 => "float",
            ElemType::F64 => "double",
            ElemType::F16 => "_Float16",
            ElemType::Bf16 => "short",
            ElemType::Fp8 | ElemType::Bf8 => "__hip_fp8_storage_t",
            ElemType::I8 => "char",
            ElemType::I32 | ElemType::Idx => "int",
        }
    }

    /// Whether the type is a floating-point format.
    pub const fn is_float(self) -> bool {
        !matches!(self, ElemType::I8 | ElemType::I32 | ElemType::Idx)
    }

    /// Fraction bits of a floating-point type's significand (the stored
    /// mantissa; xf32 as the tf32 the instruction reads): a finite value
    /// is a multiple of `2^(e − fraction_bits)`, `e` its exponent as
    /// [`min_exp`](ElemType::min_exp) clamps it. 0 for integers.
    ///
    /// ```
    /// use mfma_spec::ElemType;
    /// assert_eq!(ElemType::Fp8.fraction_bits(), 3); // E4M3
    /// assert_eq!(ElemType::Xf32.fraction_bits(), 10); // read as tf32
    /// assert_eq!(ElemType::Bf16.fraction_bits(), 7);
    /// ```
    pub const fn fraction_bits(self) -> i32 {
        match self {
            ElemType::F32 => 23,
            ElemType::F64 => 52,
            ElemType::F16 | ElemType::Xf32 => 10,
            ElemType::Bf16 => 7,
            ElemType::Fp8 => 3,
            ElemType::Bf8 => 2,
            ElemType::I8 | ElemType::I32 | ElemType::Idx => 0,
        }
    }

    /// The exponent below which a finite value of this type is subnormal
    /// (its smallest normal is `2^min_exp`); 0 for integers.
    pub const fn min_exp(self) -> i32 {
        match self {
            ElemType::F32 | ElemType::Xf32 | ElemType::Bf16 => -126,
            ElemType::F64 => -1022,
            ElemType::F16 => -14,
            ElemType::Fp8 => -7,
            ElemType::Bf8 => -15,
            ElemType::I8 | ElemType::I32 | ElemType::Idx => 0,
        }
    }
}

/// A scalar LLVM type of an intrinsic operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LlvmScalar {
    /// `half`.
    Half,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
}

impl LlvmScalar {
    /// The LLVM spelling.
    pub const fn name(self) -> &'static str {
        match self {
            LlvmScalar::Half => "half",
            LlvmScalar::Float => "float",
            LlvmScalar::Double => "double",
            LlvmScalar::I16 => "i16",
            LlvmScalar::I32 => "i32",
            LlvmScalar::I64 => "i64",
        }
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            LlvmScalar::Half | LlvmScalar::I16 => 16,
            LlvmScalar::Float | LlvmScalar::I32 => 32,
            LlvmScalar::Double | LlvmScalar::I64 => 64,
        }
    }
}

/// The LLVM IR type of one lane's operand: a scalar, or a vector `<N x T>`.
/// Packed inputs are integers or vectors as LLVM declares them (four i8 in
/// an `i32`, eight fp8 in an `i64`, bf16 in `<4 x i16>`); a mismatch is a
/// fatal LLVM error, not a Rust type error, so the spec states them.
///
/// ```
/// use mfma_spec::{LlvmScalar, LlvmType};
/// assert_eq!(LlvmType::vec(4, LlvmScalar::Half).to_string(), "<4 x half>");
/// assert_eq!(LlvmType::scalar(LlvmScalar::I64).to_string(), "i64");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LlvmType {
    /// Vector length; 1 for a scalar.
    pub lanes: usize,
    /// Element (or scalar) type.
    pub scalar: LlvmScalar,
}

impl LlvmType {
    /// A scalar type.
    pub const fn scalar(scalar: LlvmScalar) -> Self {
        LlvmType { lanes: 1, scalar }
    }

    /// A vector `<lanes x scalar>`.
    pub const fn vec(lanes: usize, scalar: LlvmScalar) -> Self {
        LlvmType { lanes, scalar }
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        self.lanes as u32 * self.scalar.bits()
    }

    /// The accumulator type LLVM declares for `per_lane` elements of `t`
    /// (`<16 x float>`, `<4 x double>`, a scalar `double` for one).
    pub const fn accumulator(t: ElemType, per_lane: usize) -> Self {
        let scalar = match t {
            ElemType::F64 => LlvmScalar::Double,
            ElemType::I32 => LlvmScalar::I32,
            _ => LlvmScalar::Float,
        };
        LlvmType {
            lanes: per_lane,
            scalar,
        }
    }
}

impl fmt::Display for LlvmType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lanes == 1 {
            f.write_str(self.scalar.name())
        } else {
            write!(f, "<{} x {}>", self.lanes, self.scalar.name())
        }
    }
}

/// How a family computes `D = A*B + C` (reference section 4 of each
/// architecture). The family, not the architecture, decides the arithmetic:
/// the same element types compute differently on CDNA2 and CDNA3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arith {
    /// f32 and f64: `acc = fma(a_k, b_k, acc)` for k ascending, IEEE, subnormals kept.
    ChainedFma,
    /// CDNA2 f16, bf16 and bf16_1k: products summed in pairwise trees of
    /// `group` consecutive k, each tree added to the accumulator,
    /// flush-to-zero at every step.
    GroupedSum {
        /// Products per tree: 4 for f16 and bf16_1k, 2 for non-`_1k` bf16.
        group: usize,
    },
    /// CDNA3 f16, bf16 and xf32, the "truncated fused dot product": each
    /// group of `group` consecutive k is one step, its exact products
    /// truncated at the largest product's exponent, summed exactly, added
    /// to the floored accumulator and rounded once; no flush to zero.
    TruncatedDot {
        /// k per step: min(K, 8) for f16 and bf16, 4 for xf32.
        group: usize,
    },
    /// CDNA3 fp8/bf8, the "grouped truncated" dot product: as
    /// [`TruncatedDot`](Arith::TruncatedDot), but the even and the odd k of
    /// a group are truncated and summed separately before they are added,
    /// and a tiny accumulator is dropped.
    SplitTruncatedDot {
        /// k per step: min(K, 16).
        group: usize,
    },
    /// i8: exact products summed into i32 with two's complement wrap-around.
    WrappingInt,
}

impl Arith {
    /// Whether two families compute alike (`==` for `const` code).
    pub const fn same(self, other: Arith) -> bool {
        // One kind: both have a group or neither has.
        let groups = match (self.group(), other.group()) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        self.kind() == other.kind() && groups
    }

    /// The variant alone (no wildcard: a new one must be numbered here).
    const fn kind(self) -> u8 {
        match self {
            Arith::ChainedFma => 0,
            Arith::GroupedSum { .. } => 1,
            Arith::TruncatedDot { .. } => 2,
            Arith::SplitTruncatedDot { .. } => 3,
            Arith::WrappingInt => 4,
        }
    }

    /// The k of one step of the fused families (`None` for the others).
    pub const fn group(self) -> Option<usize> {
        match self {
            Arith::GroupedSum { group }
            | Arith::TruncatedDot { group }
            | Arith::SplitTruncatedDot { group } => Some(group),
            Arith::ChainedFma | Arith::WrappingInt => None,
        }
    }
}
