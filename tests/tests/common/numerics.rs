//! Comparing results by bits, as the reference asks: exact bits, except that
//! NaN is compared by class only (its payload and sign are unspecified).

#![allow(dead_code)] // each test binary uses its own part

use mfma_core::spec::{Builtin, ElemType};

/// Whether `bits` of an element of type `ty` encode a NaN.
pub fn is_nan(ty: ElemType, bits: u64) -> bool {
    match ty {
        ElemType::F32 => f32::from_bits(bits as u32).is_nan(),
        ElemType::F64 => f64::from_bits(bits).is_nan(),
        ElemType::F16 => half::f16::from_bits(bits as u16).is_nan(),
        ElemType::Bf16 => half::bf16::from_bits(bits as u16).is_nan(),
        ElemType::I8 | ElemType::I32 => false,
    }
}

/// Equal bits, or both NaN.
pub fn same(ty: ElemType, got: u64, want: u64) -> bool {
    got == want || (is_nan(ty, got) && is_nan(ty, want))
}

/// Fixed-width hex of an element's bits, as the vector file writes them.
pub fn hex(ty: ElemType, bits: u64) -> String {
    format!("{bits:0width$x}", width = ty.bits() as usize / 4)
}

/// Whether builtin `x` belongs to the arithmetic family `family` (named by
/// its input type; `_1k` bf16 is a family of its own).
pub fn in_family(family: &str, x: &Builtin) -> bool {
    let is_1k = x.name.ends_with("_1k");
    match family {
        "f32" => x.ab == ElemType::F32,
        "f64" => x.ab == ElemType::F64,
        "f16" => x.ab == ElemType::F16,
        "bf16" => x.ab == ElemType::Bf16 && !is_1k,
        "bf16_1k" => x.ab == ElemType::Bf16 && is_1k,
        "i8" => x.ab == ElemType::I8,
        _ => panic!("unknown family {family}"),
    }
}

/// Defines, for every family, `mod <family>_family { #[test] fn $test() }`
/// calling `$run(family)`, so the families run in parallel and a failure
/// names its family; plus a test that the families partition the builtins.
macro_rules! family_tests {
    ($test:ident => $run:ident) => {
        family_tests!(@ $test $run;
            f32_family "f32", f64_family "f64", f16_family "f16",
            bf16_family "bf16", bf16_1k_family "bf16_1k", i8_family "i8");
    };
    (@ $test:ident $run:ident; $($module:ident $family:literal),*) => {
        $(
            mod $module {
                #[test]
                fn $test() {
                    super::$run($family);
                }
            }
        )*

        #[test]
        fn families_cover_every_builtin_once() {
            for x in mfma_core::spec::cdna2::BUILTINS {
                let of: Vec<&str> = [$($family),*]
                    .into_iter()
                    .filter(|f| numerics::in_family(f, x))
                    .collect();
                assert_eq!(of.len(), 1, "{} is in families {of:?}", x.name);
            }
        }
    };
}
