//! The 27 dense MFMA builtins of CDNA2 (gfx90a, MI200): reference section 1.

use crate::elem::LlvmScalar::{Double, Float, Half, I16, I32};
use crate::table::table;
use crate::{Arch, Arith, LlvmType};

const FMA: Arith = Arith::ChainedFma;
const TREE2: Arith = Arith::GroupedSum { group: 2 };
const TREE4: Arith = Arith::GroupedSum { group: 4 };
const INT: Arith = Arith::WrappingInt;
const F32: LlvmType = LlvmType::scalar(Float);
const F64: LlvmType = LlvmType::scalar(Double);
const V4H: LlvmType = LlvmType::vec(4, Half);
const V2S: LlvmType = LlvmType::vec(2, I16);
const V4S: LlvmType = LlvmType::vec(4, I16);
const I8X4: LlvmType = LlvmType::scalar(I32);

table! {
    arch "cdna2";
//  name                intrinsic                                  ISA mnemonic                M  N  K         blocks  A x B  /lane (LLVM)    C,D/lane    cycles  VALU           cbsz max     blgp     arith  C layout
    f32_32x32x1f32      "llvm.amdgcn.mfma.f32.32x32x1f32"      "v_mfma_f32_32x32x1f32"      : 32 32  1 blocks  2, F32 x F32 x 1 (F32)    -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp Pattern, FMA, Rows32;
    f32_16x16x1f32      "llvm.amdgcn.mfma.f32.16x16x1f32"      "v_mfma_f32_16x16x1f32"      : 16 16  1 blocks  4, F32 x F32 x 1 (F32)    -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp Pattern, FMA, Rows16;
    f32_4x4x1f32        "llvm.amdgcn.mfma.f32.4x4x1f32"        "v_mfma_f32_4x4x1f32"        :  4  4  1 blocks 16, F32 x F32 x 1 (F32)    -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp Pattern, FMA, Blocks4x4;
    f32_32x32x2f32      "llvm.amdgcn.mfma.f32.32x32x2f32"      "v_mfma_f32_32x32x2f32"      : 32 32  2 blocks  1, F32 x F32 x 1 (F32)    -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp Pattern, FMA, Rows32;
    f32_16x16x4f32      "llvm.amdgcn.mfma.f32.16x16x4f32"      "v_mfma_f32_16x16x4f32"      : 16 16  4 blocks  1, F32 x F32 x 1 (F32)    -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp Pattern, FMA, Rows16;
    f32_32x32x4f16      "llvm.amdgcn.mfma.f32.32x32x4f16"      "v_mfma_f32_32x32x4f16"      : 32 32  4 blocks  2, F16 x F16 x 4 (V4H)    -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp Pattern, TREE4, Rows32;
    f32_16x16x4f16      "llvm.amdgcn.mfma.f32.16x16x4f16"      "v_mfma_f32_16x16x4f16"      : 16 16  4 blocks  4, F16 x F16 x 4 (V4H)    -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp Pattern, TREE4, Rows16;
    f32_4x4x4f16        "llvm.amdgcn.mfma.f32.4x4x4f16"        "v_mfma_f32_4x4x4f16"        :  4  4  4 blocks 16, F16 x F16 x 4 (V4H)    -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp Pattern, TREE4, Blocks4x4;
    f32_32x32x8f16      "llvm.amdgcn.mfma.f32.32x32x8f16"      "v_mfma_f32_32x32x8f16"      : 32 32  8 blocks  1, F16 x F16 x 4 (V4H)    -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp Pattern, TREE4, Rows32;
    f32_16x16x16f16     "llvm.amdgcn.mfma.f32.16x16x16f16"     "v_mfma_f32_16x16x16f16"     : 16 16 16 blocks  1, F16 x F16 x 4 (V4H)    -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp Pattern, TREE4, Rows16;
    f32_32x32x2bf16     "llvm.amdgcn.mfma.f32.32x32x2bf16"     "v_mfma_f32_32x32x2bf16"     : 32 32  2 blocks  2, Bf16 x Bf16 x 2 (V2S) -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp Pattern, TREE2, Rows32;
    f32_16x16x2bf16     "llvm.amdgcn.mfma.f32.16x16x2bf16"     "v_mfma_f32_16x16x2bf16"     : 16 16  2 blocks  4, Bf16 x Bf16 x 2 (V2S) -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp Pattern, TREE2, Rows16;
    f32_4x4x2bf16       "llvm.amdgcn.mfma.f32.4x4x2bf16"       "v_mfma_f32_4x4x2bf16"       :  4  4  2 blocks 16, Bf16 x Bf16 x 2 (V2S) -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp Pattern, TREE2, Blocks4x4;
    f32_32x32x4bf16     "llvm.amdgcn.mfma.f32.32x32x4bf16"     "v_mfma_f32_32x32x4bf16"     : 32 32  4 blocks  1, Bf16 x Bf16 x 2 (V2S) -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp Pattern, TREE2, Rows32;
    f32_16x16x8bf16     "llvm.amdgcn.mfma.f32.16x16x8bf16"     "v_mfma_f32_16x16x8bf16"     : 16 16  8 blocks  1, Bf16 x Bf16 x 2 (V2S) -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp Pattern, TREE2, Rows16;
    f32_32x32x4bf16_1k  "llvm.amdgcn.mfma.f32.32x32x4bf16.1k"  "v_mfma_f32_32x32x4bf16_1k"  : 32 32  4 blocks  2, Bf16 x Bf16 x 4 (V4S) -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp Pattern, TREE4, Rows32;
    f32_16x16x4bf16_1k  "llvm.amdgcn.mfma.f32.16x16x4bf16.1k"  "v_mfma_f32_16x16x4bf16_1k"  : 16 16  4 blocks  4, Bf16 x Bf16 x 4 (V4S) -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp Pattern, TREE4, Rows16;
    f32_4x4x4bf16_1k    "llvm.amdgcn.mfma.f32.4x4x4bf16.1k"    "v_mfma_f32_4x4x4bf16_1k"    :  4  4  4 blocks 16, Bf16 x Bf16 x 4 (V4S) -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp Pattern, TREE4, Blocks4x4;
    f32_32x32x8bf16_1k  "llvm.amdgcn.mfma.f32.32x32x8bf16.1k"  "v_mfma_f32_32x32x8bf16_1k"  : 32 32  8 blocks  1, Bf16 x Bf16 x 4 (V4S) -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp Pattern, TREE4, Rows32;
    f32_16x16x16bf16_1k "llvm.amdgcn.mfma.f32.16x16x16bf16.1k" "v_mfma_f32_16x16x16bf16_1k" : 16 16 16 blocks  1, Bf16 x Bf16 x 4 (V4S) -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp Pattern, TREE4, Rows16;
    f64_16x16x4f64      "llvm.amdgcn.mfma.f64.16x16x4f64"      "v_mfma_f64_16x16x4f64"      : 16 16  4 blocks  1, F64 x F64 x 1 (F64)    -> F64 x  4, cycles 32 valu None,     cbsz None,    blgp Unused,  FMA, F64Rows16;
    f64_4x4x4f64        "llvm.amdgcn.mfma.f64.4x4x4f64"        "v_mfma_f64_4x4x4f64"        :  4  4  4 blocks  4, F64 x F64 x 1 (F64)    -> F64 x  1, cycles 16 valu None,     cbsz None,    blgp Unused,  FMA, F64Blocks4x4;
    i32_32x32x4i8       "llvm.amdgcn.mfma.i32.32x32x4i8"       "v_mfma_i32_32x32x4i8"       : 32 32  4 blocks  2, I8 x I8 x 4 (I8X4)    -> I32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp Pattern, INT, Rows32;
    i32_16x16x4i8       "llvm.amdgcn.mfma.i32.16x16x4i8"       "v_mfma_i32_16x16x4i8"       : 16 16  4 blocks  4, I8 x I8 x 4 (I8X4)    -> I32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp Pattern, INT, Rows16;
    i32_4x4x4i8         "llvm.amdgcn.mfma.i32.4x4x4i8"         "v_mfma_i32_4x4x4i8"         :  4  4  4 blocks 16, I8 x I8 x 4 (I8X4)    -> I32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp Pattern, INT, Blocks4x4;
    i32_32x32x8i8       "llvm.amdgcn.mfma.i32.32x32x8i8"       "v_mfma_i32_32x32x8i8"       : 32 32  8 blocks  1, I8 x I8 x 4 (I8X4)    -> I32 x 16, cycles 64 valu Some(60), cbsz None,    blgp Pattern, INT, Rows32;
    i32_16x16x16i8      "llvm.amdgcn.mfma.i32.16x16x16i8"      "v_mfma_i32_16x16x16i8"      : 16 16 16 blocks  1, I8 x I8 x 4 (I8X4)    -> I32 x  4, cycles 32 valu Some(28), cbsz None,    blgp Pattern, INT, Rows16;
}

/// CDNA2: gfx90a, the MI200 series.
pub const ARCH: Arch = Arch {
    name: "cdna2",
    title: "CDNA2",
    products: "MI200 (MI210, MI250, MI250X)",
    targets: &["gfx90a"],
    wave: 64,
    valu_coexec_published: true,
    builtins: BUILTINS,
};
