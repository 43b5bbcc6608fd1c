//! The 46 matrix builtins of CDNA3 (gfx942, MI300): the 32 dense MFMA of
//! reference section 1.1, then the 14 structured-sparse SMFMAC of 1.2.
//!
//! Twenty share a name with a CDNA2 builtin, with the same shape and layouts;
//! the single-block f16/bf16 differ in modifier rules, arithmetic and cycles,
//! the multi-block f16/bf16 in arithmetic, f64 in modifier rules, and f32
//! and the multi-block i8 in nothing but their type
//! ([`Builtin::differences`](crate::Builtin::differences)). The seven CDNA2
//! builtins that gfx942 lacks are not here (reference 1.3). The ISA
//! mnemonics are the gfx940 ones (`_2b`/`_4b`/`_16b` block counts, `_` before
//! the type); the builtin and intrinsic names keep the CDNA2 spelling.

use crate::elem::LlvmScalar::{Double, Float, Half, I16, I32, I64};
use crate::table::table;
use crate::{Arch, Arith, LlvmType};

const FMA: Arith = Arith::ChainedFma;
const INT: Arith = Arith::WrappingInt;
/// f16 and bf16: one step per min(K, 8) k.
const TR4: Arith = Arith::TruncatedDot { group: 4 };
const TR8: Arith = Arith::TruncatedDot { group: 8 };
/// xf32: one step per 4 k.
const TRX: Arith = Arith::TruncatedDot { group: 4 };
/// fp8/bf8: one step per min(K, 16) k.
const GTR: Arith = Arith::SplitTruncatedDot { group: 16 };
const F32: LlvmType = LlvmType::scalar(Float);
const F64: LlvmType = LlvmType::scalar(Double);
const V2F: LlvmType = LlvmType::vec(2, Float);
const V4H: LlvmType = LlvmType::vec(4, Half);
const V8H: LlvmType = LlvmType::vec(8, Half);
const V4S: LlvmType = LlvmType::vec(4, I16);
const V8S: LlvmType = LlvmType::vec(8, I16);
const V2I: LlvmType = LlvmType::vec(2, I32);
const V4I: LlvmType = LlvmType::vec(4, I32);
const I8X4: LlvmType = LlvmType::scalar(I32);
const B8X8: LlvmType = LlvmType::scalar(I64);

table! {
    arch "cdna3";
//  name                  intrinsic                                    ISA mnemonic (gfx940)           M  N  K          blocks  A x B  /lane (LLVM)      C,D/lane    cycles  VALU       cbsz max     blgp     arith  C layout
    f32_32x32x1f32        "llvm.amdgcn.mfma.f32.32x32x1f32"        "v_mfma_f32_32x32x1_2b_f32"   : 32 32  1 blocks  2, F32 x F32 x 1 (F32)     -> F32 x 32, cycles 64 valu None, cbsz Some(1), blgp Pattern, FMA, Rows32;
    f32_16x16x1f32        "llvm.amdgcn.mfma.f32.16x16x1f32"        "v_mfma_f32_16x16x1_4b_f32"   : 16 16  1 blocks  4, F32 x F32 x 1 (F32)     -> F32 x 16, cycles 32 valu None, cbsz Some(2), blgp Pattern, FMA, Rows16;
    f32_4x4x1f32          "llvm.amdgcn.mfma.f32.4x4x1f32"          "v_mfma_f32_4x4x1_16b_f32"    :  4  4  1 blocks 16, F32 x F32 x 1 (F32)     -> F32 x  4, cycles  8 valu None, cbsz Some(4), blgp Pattern, FMA, Blocks4x4;
    f32_32x32x2f32        "llvm.amdgcn.mfma.f32.32x32x2f32"        "v_mfma_f32_32x32x2_f32"      : 32 32  2 blocks  1, F32 x F32 x 1 (F32)     -> F32 x 16, cycles 64 valu None, cbsz None,    blgp Pattern, FMA, Rows32;
    f32_16x16x4f32        "llvm.amdgcn.mfma.f32.16x16x4f32"        "v_mfma_f32_16x16x4_f32"      : 16 16  4 blocks  1, F32 x F32 x 1 (F32)     -> F32 x  4, cycles 32 valu None, cbsz None,    blgp Pattern, FMA, Rows16;
    f32_16x16x8_xf32      "llvm.amdgcn.mfma.f32.16x16x8.xf32"      "v_mfma_f32_16x16x8_xf32"     : 16 16  8 blocks  1, Xf32 x Xf32 x 2 (V2F)   -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  TRX, Rows16;
    f32_32x32x4_xf32      "llvm.amdgcn.mfma.f32.32x32x4.xf32"      "v_mfma_f32_32x32x4_xf32"     : 32 32  4 blocks  1, Xf32 x Xf32 x 2 (V2F)   -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  TRX, Rows32;
    f32_32x32x4f16        "llvm.amdgcn.mfma.f32.32x32x4f16"        "v_mfma_f32_32x32x4_2b_f16"   : 32 32  4 blocks  2, F16 x F16 x 4 (V4H)     -> F32 x 32, cycles 64 valu None, cbsz Some(1), blgp Pattern, TR4, Rows32;
    f32_16x16x4f16        "llvm.amdgcn.mfma.f32.16x16x4f16"        "v_mfma_f32_16x16x4_4b_f16"   : 16 16  4 blocks  4, F16 x F16 x 4 (V4H)     -> F32 x 16, cycles 32 valu None, cbsz Some(2), blgp Pattern, TR4, Rows16;
    f32_4x4x4f16          "llvm.amdgcn.mfma.f32.4x4x4f16"          "v_mfma_f32_4x4x4_16b_f16"    :  4  4  4 blocks 16, F16 x F16 x 4 (V4H)     -> F32 x  4, cycles  8 valu None, cbsz Some(4), blgp Pattern, TR4, Blocks4x4;
    f32_32x32x8f16        "llvm.amdgcn.mfma.f32.32x32x8f16"        "v_mfma_f32_32x32x8_f16"      : 32 32  8 blocks  1, F16 x F16 x 4 (V4H)     -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  TR8, Rows32;
    f32_16x16x16f16       "llvm.amdgcn.mfma.f32.16x16x16f16"       "v_mfma_f32_16x16x16_f16"     : 16 16 16 blocks  1, F16 x F16 x 4 (V4H)     -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  TR8, Rows16;
    f32_32x32x4bf16_1k    "llvm.amdgcn.mfma.f32.32x32x4bf16.1k"    "v_mfma_f32_32x32x4_2b_bf16"  : 32 32  4 blocks  2, Bf16 x Bf16 x 4 (V4S)   -> F32 x 32, cycles 64 valu None, cbsz Some(1), blgp Pattern, TR4, Rows32;
    f32_16x16x4bf16_1k    "llvm.amdgcn.mfma.f32.16x16x4bf16.1k"    "v_mfma_f32_16x16x4_4b_bf16"  : 16 16  4 blocks  4, Bf16 x Bf16 x 4 (V4S)   -> F32 x 16, cycles 32 valu None, cbsz Some(2), blgp Pattern, TR4, Rows16;
    f32_4x4x4bf16_1k      "llvm.amdgcn.mfma.f32.4x4x4bf16.1k"      "v_mfma_f32_4x4x4_16b_bf16"   :  4  4  4 blocks 16, Bf16 x Bf16 x 4 (V4S)   -> F32 x  4, cycles  8 valu None, cbsz Some(4), blgp Pattern, TR4, Blocks4x4;
    f32_32x32x8bf16_1k    "llvm.amdgcn.mfma.f32.32x32x8bf16.1k"    "v_mfma_f32_32x32x8_bf16"     : 32 32  8 blocks  1, Bf16 x Bf16 x 4 (V4S)   -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  TR8, Rows32;
    f32_16x16x16bf16_1k   "llvm.amdgcn.mfma.f32.16x16x16bf16.1k"   "v_mfma_f32_16x16x16_bf16"    : 16 16 16 blocks  1, Bf16 x Bf16 x 4 (V4S)   -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  TR8, Rows16;
    i32_32x32x4i8         "llvm.amdgcn.mfma.i32.32x32x4i8"         "v_mfma_i32_32x32x4_2b_i8"    : 32 32  4 blocks  2, I8 x I8 x 4 (I8X4)      -> I32 x 32, cycles 64 valu None, cbsz Some(1), blgp Pattern, INT, Rows32;
    i32_16x16x4i8         "llvm.amdgcn.mfma.i32.16x16x4i8"         "v_mfma_i32_16x16x4_4b_i8"    : 16 16  4 blocks  4, I8 x I8 x 4 (I8X4)      -> I32 x 16, cycles 32 valu None, cbsz Some(2), blgp Pattern, INT, Rows16;
    i32_4x4x4i8           "llvm.amdgcn.mfma.i32.4x4x4i8"           "v_mfma_i32_4x4x4_16b_i8"     :  4  4  4 blocks 16, I8 x I8 x 4 (I8X4)      -> I32 x  4, cycles  8 valu None, cbsz Some(4), blgp Pattern, INT, Blocks4x4;
    i32_32x32x16_i8       "llvm.amdgcn.mfma.i32.32x32x16.i8"       "v_mfma_i32_32x32x16_i8"      : 32 32 16 blocks  1, I8 x I8 x 8 (B8X8)      -> I32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  INT, Rows32;
    i32_16x16x32_i8       "llvm.amdgcn.mfma.i32.16x16x32.i8"       "v_mfma_i32_16x16x32_i8"      : 16 16 32 blocks  1, I8 x I8 x 8 (B8X8)      -> I32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  INT, Rows16;
    f64_16x16x4f64        "llvm.amdgcn.mfma.f64.16x16x4f64"        "v_mfma_f64_16x16x4_f64"      : 16 16  4 blocks  1, F64 x F64 x 1 (F64)     -> F64 x  4, cycles 32 valu None, cbsz None,    blgp Negate,  FMA, F64Rows16;
    f64_4x4x4f64          "llvm.amdgcn.mfma.f64.4x4x4f64"          "v_mfma_f64_4x4x4_4b_f64"     :  4  4  4 blocks  4, F64 x F64 x 1 (F64)     -> F64 x  1, cycles 16 valu None, cbsz None,    blgp Negate,  FMA, F64Blocks4x4;
    f32_16x16x32_bf8_bf8  "llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8"  "v_mfma_f32_16x16x32_bf8_bf8" : 16 16 32 blocks  1, Bf8 x Bf8 x 8 (B8X8)    -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  GTR, Rows16;
    f32_16x16x32_bf8_fp8  "llvm.amdgcn.mfma.f32.16x16x32.bf8.fp8"  "v_mfma_f32_16x16x32_bf8_fp8" : 16 16 32 blocks  1, Bf8 x Fp8 x 8 (B8X8)    -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  GTR, Rows16;
    f32_16x16x32_fp8_bf8  "llvm.amdgcn.mfma.f32.16x16x32.fp8.bf8"  "v_mfma_f32_16x16x32_fp8_bf8" : 16 16 32 blocks  1, Fp8 x Bf8 x 8 (B8X8)    -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  GTR, Rows16;
    f32_16x16x32_fp8_fp8  "llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8"  "v_mfma_f32_16x16x32_fp8_fp8" : 16 16 32 blocks  1, Fp8 x Fp8 x 8 (B8X8)    -> F32 x  4, cycles 16 valu None, cbsz None,    blgp Unused,  GTR, Rows16;
    f32_32x32x16_bf8_bf8  "llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8"  "v_mfma_f32_32x32x16_bf8_bf8" : 32 32 16 blocks  1, Bf8 x Bf8 x 8 (B8X8)    -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  GTR, Rows32;
    f32_32x32x16_bf8_fp8  "llvm.amdgcn.mfma.f32.32x32x16.bf8.fp8"  "v_mfma_f32_32x32x16_bf8_fp8" : 32 32 16 blocks  1, Bf8 x Fp8 x 8 (B8X8)    -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  GTR, Rows32;
    f32_32x32x16_fp8_bf8  "llvm.amdgcn.mfma.f32.32x32x16.fp8.bf8"  "v_mfma_f32_32x32x16_fp8_bf8" : 32 32 16 blocks  1, Fp8 x Bf8 x 8 (B8X8)    -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  GTR, Rows32;
    f32_32x32x16_fp8_fp8  "llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8"  "v_mfma_f32_32x32x16_fp8_fp8" : 32 32 16 blocks  1, Fp8 x Fp8 x 8 (B8X8)    -> F32 x 16, cycles 32 valu None, cbsz None,    blgp Unused,  GTR, Rows32;

    @sparse
//  name                     intrinsic                                        ISA mnemonic                     M  N  K   A x B  /lane (LLVM) / B/lane (LLVM)  C,D/lane    cycles  index sets  arith  C layout
    smfmac_f32_16x16x32_f16   "llvm.amdgcn.smfmac.f32.16x16x32.f16"          "v_smfmac_f32_16x16x32_f16"     : 16 16 32, F16 x F16 x 4 (V4H) /  8 (V8H) -> F32 x  4, cycles 16, sets 4, TR8, Rows16;
    smfmac_f32_32x32x16_f16   "llvm.amdgcn.smfmac.f32.32x32x16.f16"          "v_smfmac_f32_32x32x16_f16"     : 32 32 16, F16 x F16 x 4 (V4H) /  8 (V8H) -> F32 x 16, cycles 32, sets 4, TR8, Rows32;
    smfmac_f32_16x16x32_bf16  "llvm.amdgcn.smfmac.f32.16x16x32.bf16"         "v_smfmac_f32_16x16x32_bf16"    : 16 16 32, Bf16 x Bf16 x 4 (V4S) /  8 (V8S) -> F32 x  4, cycles 16, sets 4, TR8, Rows16;
    smfmac_f32_32x32x16_bf16  "llvm.amdgcn.smfmac.f32.32x32x16.bf16"         "v_smfmac_f32_32x32x16_bf16"    : 32 32 16, Bf16 x Bf16 x 4 (V4S) /  8 (V8S) -> F32 x 16, cycles 32, sets 4, TR8, Rows32;
    smfmac_i32_16x16x64_i8    "llvm.amdgcn.smfmac.i32.16x16x64.i8"           "v_smfmac_i32_16x16x64_i8"      : 16 16 64, I8 x I8 x 8 (V2I) / 16 (V4I) -> I32 x  4, cycles 16, sets 2, INT, Rows16;
    smfmac_i32_32x32x32_i8    "llvm.amdgcn.smfmac.i32.32x32x32.i8"           "v_smfmac_i32_32x32x32_i8"      : 32 32 32, I8 x I8 x 8 (V2I) / 16 (V4I) -> I32 x 16, cycles 32, sets 2, INT, Rows32;
    smfmac_f32_16x16x64_bf8_bf8 "llvm.amdgcn.smfmac.f32.16x16x64.bf8.bf8"      "v_smfmac_f32_16x16x64_bf8_bf8" : 16 16 64, Bf8 x Bf8 x 8 (V2I) / 16 (V4I) -> F32 x  4, cycles 16, sets 2, GTR, Rows16;
    smfmac_f32_16x16x64_bf8_fp8 "llvm.amdgcn.smfmac.f32.16x16x64.bf8.fp8"      "v_smfmac_f32_16x16x64_bf8_fp8" : 16 16 64, Bf8 x Fp8 x 8 (V2I) / 16 (V4I) -> F32 x  4, cycles 16, sets 2, GTR, Rows16;
    smfmac_f32_16x16x64_fp8_bf8 "llvm.amdgcn.smfmac.f32.16x16x64.fp8.bf8"      "v_smfmac_f32_16x16x64_fp8_bf8" : 16 16 64, Fp8 x Bf8 x 8 (V2I) / 16 (V4I) -> F32 x  4, cycles 16, sets 2, GTR, Rows16;
    smfmac_f32_16x16x64_fp8_fp8 "llvm.amdgcn.smfmac.f32.16x16x64.fp8.fp8"      "v_smfmac_f32_16x16x64_fp8_fp8" : 16 16 64, Fp8 x Fp8 x 8 (V2I) / 16 (V4I) -> F32 x  4, cycles 16, sets 2, GTR, Rows16;
    smfmac_f32_32x32x32_bf8_bf8 "llvm.amdgcn.smfmac.f32.32x32x32.bf8.bf8"      "v_smfmac_f32_32x32x32_bf8_bf8" : 32 32 32, Bf8 x Bf8 x 8 (V2I) / 16 (V4I) -> F32 x 16, cycles 32, sets 2, GTR, Rows32;
    smfmac_f32_32x32x32_bf8_fp8 "llvm.amdgcn.smfmac.f32.32x32x32.bf8.fp8"      "v_smfmac_f32_32x32x32_bf8_fp8" : 32 32 32, Bf8 x Fp8 x 8 (V2I) / 16 (V4I) -> F32 x 16, cycles 32, sets 2, GTR, Rows32;
    smfmac_f32_32x32x32_fp8_bf8 "llvm.amdgcn.smfmac.f32.32x32x32.fp8.bf8"      "v_smfmac_f32_32x32x32_fp8_bf8" : 32 32 32, Fp8 x Bf8 x 8 (V2I) / 16 (V4I) -> F32 x 16, cycles 32, sets 2, GTR, Rows32;
    smfmac_f32_32x32x32_fp8_fp8 "llvm.amdgcn.smfmac.f32.32x32x32.fp8.fp8"      "v_smfmac_f32_32x32x32_fp8_fp8" : 32 32 32, Fp8 x Fp8 x 8 (V2I) / 16 (V4I) -> F32 x 16, cycles 32, sets 2, GTR, Rows32;
}

/// CDNA3: gfx942, the MI300 series.
pub const ARCH: Arch = Arch {
    name: "cdna3",
    title: "CDNA3",
    products: "MI300 (MI300A, MI300X, MI325X)",
    targets: &["gfx942"],
    wave: 64,
    valu_coexec_published: false,
    builtins: BUILTINS,
};
