//! The 27 dense MFMA builtins of CDNA2 (gfx90a, MI200): reference section 1.

use crate::elem::{Arith, ElemType::*};
use crate::layout::AccLayout::*;
use crate::{Arch, Builtin};

const FMA: Arith = Arith::ChainedFma;
const TREE2: Arith = Arith::GroupedSum { group: 2 };
const TREE4: Arith = Arith::GroupedSum { group: 4 };
const INT: Arith = Arith::WrappingInt;

/// Expands one table row into a [`Builtin`]; the A and B layouts follow from
/// the shape (reference 2.1), everything else is written in the row.
macro_rules! table {
    ($( $name:ident $intrinsic:literal : $m:literal $n:literal $k:literal
        blocks $blocks:literal, $ab:ident x $ab_n:literal -> $cd:ident x $cd_n:literal,
        cycles $cycles:literal valu $valu:expr, cbsz $cbsz:expr, blgp $blgp:literal,
        $arith:ident, $acc:ident; )*) => {
        /// Every CDNA2 dense MFMA builtin, in the order of the reference table.
        pub const BUILTINS: &[Builtin] = &[$(
            Builtin {
                name: stringify!($name),
                llvm_intrinsic: $intrinsic,
                isa: concat!("v_mfma_", stringify!($name)),
                m: $m, n: $n, k: $k, blocks: $blocks,
                ab: $ab, ab_per_lane: $ab_n,
                cd: $cd, cd_per_lane: $cd_n,
                cycles: $cycles, valu_coexec: $valu,
                cbsz_max: $cbsz, blgp: $blgp,
                arith: $arith,
                acc: $acc,
                a: crate::Layout::input(false, $m, $k, $blocks),
                b: crate::Layout::input(true, $n, $k, $blocks),
                c: $acc.layout($m, $n, $blocks),
            },
        )*];
    };
}

table! {
//  name                  intrinsic                                    M  N  K         blocks  A,B/lane  C,D/lane  cycles  VALU            cbsz max        blgp  arith  C layout
    f32_32x32x1f32      "llvm.amdgcn.mfma.f32.32x32x1f32"      : 32 32  1 blocks  2, F32 x 1 -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp true, FMA, Rows32;
    f32_16x16x1f32      "llvm.amdgcn.mfma.f32.16x16x1f32"      : 16 16  1 blocks  4, F32 x 1 -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp true, FMA, Rows16;
    f32_4x4x1f32        "llvm.amdgcn.mfma.f32.4x4x1f32"        :  4  4  1 blocks 16, F32 x 1 -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp true, FMA, Blocks4x4;
    f32_32x32x2f32      "llvm.amdgcn.mfma.f32.32x32x2f32"      : 32 32  2 blocks  1, F32 x 1 -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp true, FMA, Rows32;
    f32_16x16x4f32      "llvm.amdgcn.mfma.f32.16x16x4f32"      : 16 16  4 blocks  1, F32 x 1 -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp true, FMA, Rows16;
    f32_32x32x4f16      "llvm.amdgcn.mfma.f32.32x32x4f16"      : 32 32  4 blocks  2, F16 x 4 -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp true, TREE4, Rows32;
    f32_16x16x4f16      "llvm.amdgcn.mfma.f32.16x16x4f16"      : 16 16  4 blocks  4, F16 x 4 -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp true, TREE4, Rows16;
    f32_4x4x4f16        "llvm.amdgcn.mfma.f32.4x4x4f16"        :  4  4  4 blocks 16, F16 x 4 -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp true, TREE4, Blocks4x4;
    f32_32x32x8f16      "llvm.amdgcn.mfma.f32.32x32x8f16"      : 32 32  8 blocks  1, F16 x 4 -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp true, TREE4, Rows32;
    f32_16x16x16f16     "llvm.amdgcn.mfma.f32.16x16x16f16"     : 16 16 16 blocks  1, F16 x 4 -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp true, TREE4, Rows16;
    f32_32x32x2bf16     "llvm.amdgcn.mfma.f32.32x32x2bf16"     : 32 32  2 blocks  2, Bf16 x 2 -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp true, TREE2, Rows32;
    f32_16x16x2bf16     "llvm.amdgcn.mfma.f32.16x16x2bf16"     : 16 16  2 blocks  4, Bf16 x 2 -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp true, TREE2, Rows16;
    f32_4x4x2bf16       "llvm.amdgcn.mfma.f32.4x4x2bf16"       :  4  4  2 blocks 16, Bf16 x 2 -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp true, TREE2, Blocks4x4;
    f32_32x32x4bf16     "llvm.amdgcn.mfma.f32.32x32x4bf16"     : 32 32  4 blocks  1, Bf16 x 2 -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp true, TREE2, Rows32;
    f32_16x16x8bf16     "llvm.amdgcn.mfma.f32.16x16x8bf16"     : 16 16  8 blocks  1, Bf16 x 2 -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp true, TREE2, Rows16;
    f32_32x32x4bf16_1k  "llvm.amdgcn.mfma.f32.32x32x4bf16.1k"  : 32 32  4 blocks  2, Bf16 x 4 -> F32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp true, TREE4, Rows32;
    f32_16x16x4bf16_1k  "llvm.amdgcn.mfma.f32.16x16x4bf16.1k"  : 16 16  4 blocks  4, Bf16 x 4 -> F32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp true, TREE4, Rows16;
    f32_4x4x4bf16_1k    "llvm.amdgcn.mfma.f32.4x4x4bf16.1k"    :  4  4  4 blocks 16, Bf16 x 4 -> F32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp true, TREE4, Blocks4x4;
    f32_32x32x8bf16_1k  "llvm.amdgcn.mfma.f32.32x32x8bf16.1k"  : 32 32  8 blocks  1, Bf16 x 4 -> F32 x 16, cycles 64 valu Some(60), cbsz None,    blgp true, TREE4, Rows32;
    f32_16x16x16bf16_1k "llvm.amdgcn.mfma.f32.16x16x16bf16.1k" : 16 16 16 blocks  1, Bf16 x 4 -> F32 x  4, cycles 32 valu Some(28), cbsz None,    blgp true, TREE4, Rows16;
    f64_16x16x4f64      "llvm.amdgcn.mfma.f64.16x16x4f64"      : 16 16  4 blocks  1, F64 x 1 -> F64 x  4, cycles 32 valu None,     cbsz None,    blgp false, FMA, F64Rows16;
    f64_4x4x4f64        "llvm.amdgcn.mfma.f64.4x4x4f64"        :  4  4  4 blocks  4, F64 x 1 -> F64 x  1, cycles 16 valu None,     cbsz None,    blgp false, FMA, F64Blocks4x4;
    i32_32x32x4i8       "llvm.amdgcn.mfma.i32.32x32x4i8"       : 32 32  4 blocks  2, I8 x 4 -> I32 x 32, cycles 64 valu Some(60), cbsz Some(1), blgp true, INT, Rows32;
    i32_16x16x4i8       "llvm.amdgcn.mfma.i32.16x16x4i8"       : 16 16  4 blocks  4, I8 x 4 -> I32 x 16, cycles 32 valu Some(28), cbsz Some(2), blgp true, INT, Rows16;
    i32_4x4x4i8         "llvm.amdgcn.mfma.i32.4x4x4i8"         :  4  4  4 blocks 16, I8 x 4 -> I32 x  4, cycles  8 valu Some(4),  cbsz Some(4), blgp true, INT, Blocks4x4;
    i32_32x32x8i8       "llvm.amdgcn.mfma.i32.32x32x8i8"       : 32 32  8 blocks  1, I8 x 4 -> I32 x 16, cycles 64 valu Some(60), cbsz None,    blgp true, INT, Rows32;
    i32_16x16x16i8      "llvm.amdgcn.mfma.i32.16x16x16i8"      : 16 16 16 blocks  1, I8 x 4 -> I32 x  4, cycles 32 valu Some(28), cbsz None,    blgp true, INT, Rows16;
}

/// CDNA2: gfx90a, the MI200 series.
pub const ARCH: Arch = Arch {
    name: "cdna2",
    gfx: "gfx90a",
    wave: 64,
    builtins: BUILTINS,
};
