//! Comparing results by bits, as the reference asks: exact bits, except that
//! NaN is compared by class only (its payload and sign are unspecified).

use mfma_core::spec::{Builtin, ElemType};

/// Whether `bits` of an element of type `ty` encode a NaN.
pub fn is_nan(ty: ElemType, bits: u64) -> bool {
    match ty {
        ElemType::F32 => f32::from_bits(bits as u32).is_nan(),
        ElemType::F64 => f64::from_bits(bits).is_nan(),
        ElemType::F16 => half::f16::from_bits(bits as u16).is_nan(),
        ElemType::Bf16 => half::bf16::from_bits(bits as u16).is_nan(),
        ElemType::Xf32 => f32::from_bits(bits as u32).is_nan(),
        ElemType::Fp8 | ElemType::Bf8 => bits as u8 == 0x80,
        ElemType::I8 | ElemType::I32 | ElemType::Idx => false,
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
/// its input type; CDNA2's `_1k` bf16 is a family of its own, CDNA3 has only
/// those; `fp8` is every 8-bit float builtin; `smfmac_<type>` the
/// structured-sparse builtins of that input type).
pub fn in_family(family: &str, x: &Builtin) -> bool {
    let family = match (family.strip_prefix("smfmac_"), x.is_sparse()) {
        (Some(f), true) => f,
        (None, false) => family,
        _ => return false,
    };
    let is_1k = x.name.ends_with("_1k") || x.is_sparse();
    match family {
        "f32" => x.a_type == ElemType::F32,
        "f64" => x.a_type == ElemType::F64,
        "xf32" => x.a_type == ElemType::Xf32,
        "f16" => x.a_type == ElemType::F16,
        "bf16" => x.a_type == ElemType::Bf16 && !is_1k,
        "bf16_1k" => x.a_type == ElemType::Bf16 && is_1k,
        "fp8" => matches!(x.a_type, ElemType::Fp8 | ElemType::Bf8),
        "i8" => x.a_type == ElemType::I8,
        _ => panic!("unknown family {family}"),
    }
}

/// Defines, for every family of an architecture, `mod <module> { #[test] fn
/// $test() }` calling `$run(arch, family)`, so the families run in parallel
/// and a failure names its family; plus a test that the families partition
/// the architecture's builtins.
macro_rules! family_tests {
    ($arch:literal: $test:ident => $run:ident; $($module:ident $family:literal),* $(,)?) => {
        $(
            mod $module {
                #[test]
                fn $test() {
                    super::$run($arch, $family);
                }
            }
        )*

        mod families {
            #[test]
            fn cover_every_builtin_once() {
                let arch = mfma_core::spec::arch($arch).unwrap();
                for x in arch.builtins {
                    let of: Vec<&str> = [$($family),*]
                        .into_iter()
                        .filter(|f| super::numerics::in_family(f, x))
                        .collect();
                    assert_eq!(of.len(), 1, "{} is in families {of:?}", x.name);
                }
            }
        }
    };
}
