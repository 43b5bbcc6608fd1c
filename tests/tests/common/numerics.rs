//! Comparing results by bits, as the reference asks: exact bits, except that
//! NaN is compared by class only (its payload and sign are unspecified).

#![allow(dead_code)] // each test binary uses its own part

use mfma_core::spec::ElemType;

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
