//! The GPU side (`target_arch = "amdgpu"`): the operand types the LLVM MFMA
//! intrinsics take, and the calling lane's index.
//!
//! Fragments on the GPU hold plain arrays of elements; the generated
//! `Instr::device` functions transmute them to these vectors only at the
//! intrinsic call, because LLVM rejects (fatally, at codegen) any operand
//! type other than the exact vector it declares.

/// An LLVM vector `<N x T>`, as the MFMA intrinsics take packed operands
/// (`<4 x half>`, `<2 x i16>`, `<16 x float>`, ...).
///
/// Values only pass through it by transmute at the intrinsic call: projecting
/// into a SIMD type (as a derived `Clone` would) is not allowed.
#[repr(simd)]
pub struct Simd<T, const N: usize>(pub [T; N]);

/// The primitive half-precision type, LLVM's `half`. Named here so that the
/// generated code does not depend on how the crate using it spells `f16`
/// (`half::f16` is a struct, not this primitive).
pub type Half = f16;

#[allow(improper_ctypes)]
extern "unadjusted" {
    // mbcnt counts the set bits of `mask` below the calling lane, in the low
    // and high 32 lanes respectively; with an all-ones mask that is the lane.
    #[link_name = "llvm.amdgcn.mbcnt.lo"]
    fn mbcnt_lo(mask: u32, add: u32) -> u32;
    #[link_name = "llvm.amdgcn.mbcnt.hi"]
    fn mbcnt_hi(mask: u32, add: u32) -> u32;
}

/// The calling lane's index in its wave, `0..64`.
///
/// Counted from the execution mask rather than derived from the work-item
/// id, so it is right whatever the workgroup's shape.
#[inline(always)]
pub fn lane_id() -> usize {
    // SAFETY: both intrinsics only read the lane's position; they have no
    // preconditions.
    unsafe { mbcnt_hi(u32::MAX, mbcnt_lo(u32::MAX, 0)) as usize }
}
