//! Element types and arithmetic families.

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
    /// Signed 8-bit integer.
    I8,
    /// Signed 32-bit integer.
    I32,
}

impl ElemType {
    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            ElemType::F64 => 64,
            ElemType::F32 | ElemType::I32 => 32,
            ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::I8 => 8,
        }
    }

    /// Short name as used in builtin names (`f32`, `bf16`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::I8 => "i8",
            ElemType::I32 => "i32",
        }
    }

    /// The Rust type that holds one element (`half` provides f16 and bf16).
    pub const fn rust_type(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "half::f16",
            ElemType::Bf16 => "half::bf16",
            ElemType::I8 => "i8",
            ElemType::I32 => "i32",
        }
    }

    /// The HIP/C scalar type the seed document uses for this element.
    pub const fn c_type(self) -> &'static str {
        match self {
            ElemType::F32 => "float",
            ElemType::F64 => "double",
            ElemType::F16 => "_Float16",
            ElemType::Bf16 => "short",
            ElemType::I8 => "char",
            ElemType::I32 => "int",
        }
    }

    /// Whether the type is a floating-point format.
    pub const fn is_float(self) -> bool {
        !matches!(self, ElemType::I8 | ElemType::I32)
    }
}

/// How a family computes `D = A*B + C` (reference section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arith {
    /// f32 and f64: `acc = fma(a_k, b_k, acc)` for k ascending, IEEE, subnormals kept.
    ChainedFma,
    /// f16, bf16 and bf16_1k: products summed in pairwise trees of `group`
    /// consecutive k, each tree added to the accumulator, flush-to-zero at every step.
    GroupedSum {
        /// Products per tree: 4 for f16 and bf16_1k, 2 for non-`_1k` bf16.
        group: usize,
    },
    /// i8: exact products summed into i32 with two's complement wrap-around.
    WrappingInt,
}
