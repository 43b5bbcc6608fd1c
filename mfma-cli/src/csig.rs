//! The C (HIP) signature of a builtin with the seed document's vector type
//! aliases (`v16float`, `v4bfloat`, ...), derived from the LLVM operand
//! types of the spec: the builtin's C types are those types spelt in C, so
//! packed operands come out right without a rule per element type (eight
//! fp8 or i8 in an `i64` are a `long`, four i8 in an `i32` an `int`, xf32
//! pairs a `<2 x float>`).

use mfma_spec::{BlgpBits, Builtin, ElemType, LlvmScalar, Operand};

/// A C type for one operand: a scalar or a named `ext_vector_type` alias.
pub struct CType {
    /// `float`, `v4half`, `v32int`, `long`, ...
    pub name: String,
    /// The alias declaration, for vector types.
    pub declaration: Option<String>,
}

/// The type of operand `op` of `b` as the builtin takes it.
pub fn operand_type(b: &Builtin, op: Operand) -> CType {
    let t = b.llvm_type(op);
    let bf16 = b.elem(op) == ElemType::Bf16;
    // (C scalar, alias word); HIP passes bf16 as 16-bit integers, which the
    // seed's aliases call `bfloat`.
    let (scalar, kind) = match t.scalar {
        LlvmScalar::Half => ("_Float16", "half"),
        LlvmScalar::Float => ("float", "float"),
        LlvmScalar::Double => ("double", "double"),
        LlvmScalar::I16 if bf16 => ("short", "bfloat"),
        LlvmScalar::I16 => ("short", "short"),
        LlvmScalar::I32 => ("int", "int"),
        LlvmScalar::I64 => ("long", "long"),
    };
    if t.lanes == 1 {
        return CType {
            name: scalar.to_string(),
            declaration: None,
        };
    }
    let count = t.lanes;
    let name = format!("v{count}{kind}");
    let note = if bf16 { "  // bf16 storage" } else { "" };
    CType {
        declaration: Some(format!(
            "using {name} = {scalar} [[clang::ext_vector_type({count})]];{note}"
        )),
        name,
    }
}

/// `v16float __builtin_amdgcn_mfma_...(v4bfloat a, v4bfloat b, v16float c, int cbsz, int abid, int blgp)`;
/// the last immediate is called `neg` where its bits are negation flags.
/// SMFMAC's builtin takes the index register after C and no blgp:
/// `v4float __builtin_amdgcn_smfmac_...(v4half a, v8half b, v4float c, int idx, int cbsz, int abid)`.
pub fn signature(b: &Builtin) -> String {
    let a = operand_type(b, Operand::A).name;
    let bt = operand_type(b, Operand::B).name;
    let cd = operand_type(b, Operand::C).name;
    let hip = b.hip_name();
    if b.is_sparse() {
        let idx = operand_type(b, Operand::Idx).name;
        return format!("{cd} {hip}({a} a, {bt} b, {cd} c, {idx} idx, int cbsz, int abid)");
    }
    let last = match b.blgp {
        BlgpBits::Negate => "neg",
        BlgpBits::Pattern | BlgpBits::Unused => "blgp",
    };
    format!("{cd} {hip}({a} a, {bt} b, {cd} c, int cbsz, int abid, int {last})")
}

/// The alias declarations the signature needs, A/B first, without repeats.
pub fn declarations(b: &Builtin) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for op in [Operand::A, Operand::B, Operand::C] {
        if let Some(d) = operand_type(b, op).declaration {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}
