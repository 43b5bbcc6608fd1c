//! The C (HIP) signature of a builtin with the seed document's vector type
//! aliases (`v16float`, `v4bfloat`, ...), derived from element type and count.

use mfma_spec::{Builtin, ElemType, Operand};

/// A C type for one operand: a scalar or a named `ext_vector_type` alias.
pub struct CType {
    /// `float`, `v4half`, `v32int`, ...
    pub name: String,
    /// The alias declaration, for vector types.
    pub declaration: Option<String>,
}

/// The type of operand `op` of `b` as the builtin takes it.
pub fn operand_type(b: &Builtin, op: Operand) -> CType {
    let elem = b.elem(op);
    let count = b.per_lane(op);
    // i8 inputs travel packed in whole ints; every other type is its own lane element.
    let (scalar, kind, count) = match elem {
        ElemType::I8 if count * 8 == 64 => ("long", "long", 1),
        ElemType::I8 => ("int", "int", count * elem.bits() as usize / 32),
        ElemType::F32 => (elem.c_type(), "float", count),
        ElemType::F64 => (elem.c_type(), "double", count),
        ElemType::F16 => (elem.c_type(), "half", count),
        ElemType::Bf16 => (elem.c_type(), "bfloat", count),
        ElemType::I32 => (elem.c_type(), "int", count),
        // Packed 8-bit floats travel as one `long` (8 per lane); xf32 as floats.
        ElemType::Fp8 | ElemType::Bf8 => ("long", "long", count * elem.bits() as usize / 64),
        ElemType::Xf32 => ("float", "float", count),
    };
    if count == 1 {
        return CType {
            name: scalar.to_string(),
            declaration: None,
        };
    }
    let name = format!("v{count}{kind}");
    let note = if elem == ElemType::Bf16 {
        "  // bf16 storage"
    } else {
        ""
    };
    CType {
        declaration: Some(format!(
            "using {name} = {scalar} [[clang::ext_vector_type({count})]];{note}"
        )),
        name,
    }
}

/// `v16float __builtin_amdgcn_mfma_...(v4bfloat a, v4bfloat b, v16float c, int cbsz, int abid, int blgp)`.
pub fn signature(b: &Builtin) -> String {
    let ab = operand_type(b, Operand::A).name;
    let cd = operand_type(b, Operand::C).name;
    format!(
        "{cd} {}{}({ab} a, {ab} b, {cd} c, int cbsz, int abid, int blgp)",
        Builtin::HIP_PREFIX,
        b.name
    )
}

/// The alias declarations the signature needs, A/B first, without repeats.
pub fn declarations(b: &Builtin) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for op in [Operand::A, Operand::C] {
        if let Some(d) = operand_type(b, op).declaration {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}
