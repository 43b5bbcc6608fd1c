//! The GPU side (`target_arch = "amdgpu"`): the operand types the LLVM MFMA
//! intrinsics take, where the calling lane sits in the dispatch, and the two
//! workgroup primitives a kernel staging tiles needs: the workgroup memory
//! (LDS) the launcher sizes, and a barrier.
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
    #[link_name = "llvm.amdgcn.readfirstlane.i32"]
    fn readfirstlane(v: u32) -> u32;
    #[link_name = "llvm.amdgcn.workitem.id.x"]
    fn workitem_id_x() -> u32;
    #[link_name = "llvm.amdgcn.workgroup.id.x"]
    fn workgroup_id_x() -> u32;
    #[link_name = "llvm.amdgcn.workgroup.id.y"]
    fn workgroup_id_y() -> u32;
    #[link_name = "llvm.amdgcn.workgroup.id.z"]
    fn workgroup_id_z() -> u32;
    #[link_name = "llvm.trap"]
    fn llvm_trap() -> !;
    #[link_name = "llvm.amdgcn.s.waitcnt"]
    fn s_waitcnt(imm: i32);
    #[link_name = "llvm.amdgcn.s.barrier"]
    fn s_barrier();
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

/// The calling wave's index in its workgroup, for a one-dimensional
/// workgroup (work items numbered along x only).
///
/// Read from the first active lane, so the compiler knows it is the same in
/// every lane of the wave and keeps it in a scalar register.
#[inline(always)]
pub fn wave_id() -> usize {
    // SAFETY: reading the work-item id has no preconditions, and every lane
    // of a wave of a one-dimensional workgroup has the same id / 64.
    unsafe { readfirstlane(workitem_id_x()) as usize / mfma_spec::WAVE }
}

/// The calling workgroup's position in the grid, `(x, y, z)`.
#[inline(always)]
pub fn workgroup_id() -> (usize, usize, usize) {
    // SAFETY: reading the dispatch position has no preconditions.
    unsafe {
        (
            workgroup_id_x() as usize,
            workgroup_id_y() as usize,
            workgroup_id_z() as usize,
        )
    }
}

/// `s_waitcnt lgkmcnt(0)` on gfx9 (gfx90a, gfx942): the immediate packs
/// vmcnt in bits 3:0 and 15:14, expcnt in 6:4 and lgkmcnt in 11:8; all but
/// lgkmcnt are at their maximum, which waits for nothing.
const WAIT_LGKMCNT_0: i32 = 0xC07F;

/// Waits until every wave of the workgroup has reached this point, with the
/// calling wave's LDS writes done first: what HIP's `__syncthreads()`
/// compiles to on gfx90a and gfx942 (`s_waitcnt lgkmcnt(0)` then
/// `s_barrier`).
///
/// `s_barrier` alone is not enough: LDS instructions complete out of
/// program order with the barrier, so a wave could pass it with its
/// `ds_write`s still in flight and another wave read stale LDS. The wait
/// drains them (and scalar loads, which share the counter). The compiler
/// fences keep the compiler from moving memory accesses across it. Global
/// memory is not ordered by it, as in HIP.
///
/// Every wave of the workgroup must call it the same number of times (a
/// wave that has ended no longer counts): call it from uniform control flow.
#[inline(always)]
pub fn barrier() {
    use core::sync::atomic::{compiler_fence, Ordering};
    compiler_fence(Ordering::Release);
    // SAFETY: waiting on a counter and the barrier have no preconditions;
    // the immediate is a valid gfx9 encoding.
    unsafe {
        s_waitcnt(WAIT_LGKMCNT_0);
        s_barrier();
    }
    compiler_fence(Ordering::Acquire);
}

/// The start of the workgroup memory (LDS) sized by the launcher, 16-byte
/// aligned: HIP's dynamic shared memory (`extern __shared__`), whose size
/// is `sharedMemBytes` of `hipModuleLaunchKernel`.
///
/// Every call in a workgroup returns the same address; the memory is
/// uninitialised at launch and private to the workgroup. Rust 1.99 has no
/// static LDS declaration, and this memory does not appear in the code
/// object's `.group_segment_fixed_size`: whoever uses it must say how many
/// bytes the launcher must pass.
///
/// Reads and writes through the pointer are sound only below the size
/// passed at launch, and only if ordered between the workgroup's waves (see
/// [`barrier`]).
#[inline(always)]
pub fn workgroup_mem() -> *mut u8 {
    /// The unit the memory is declared in, for its alignment: 16 bytes, so
    /// that LLVM may use `ds_read_b128`/`ds_write_b128`.
    #[repr(C, align(16))]
    struct Align16([u8; 16]);
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Align16>().cast()
}

/// The `-C target-cpu` this crate is compiled for (`gfx942`), empty if none.
pub const TARGET: &str = env!("MFMA_DEVICE_TARGET");

/// The name of its architecture's table (`cdna3`), empty if no table lists it.
pub const ARCH: &str = env!("MFMA_DEVICE_ARCH");

/// Refuses, at compile time, an instruction of another architecture than
/// the target's: the message names the builtin to use instead. Called by
/// every builtin's `Instr::device`, so it fires only for builtins a kernel uses.
pub const fn check_target(b: &'static mfma_spec::Builtin) {
    use mfma_spec::Message;
    let Some(here) = mfma_spec::arch_named(ARCH) else {
        let m = Message::new().path(b);
        let m = m.str(" needs a GPU target CPU: build with RUSTFLAGS=\"-C target-cpu=");
        let m = if TARGET.is_empty() {
            m.str("gfx90a")
        } else {
            m.str(TARGET)
        };
        panic!(
            "{}",
            m.str("\" naming a CDNA target (gfx90a, gfx942)").as_str()
        );
    };
    if !here.holds(b) {
        panic!("{}", b.wrong_arch(here, TARGET).as_str());
    }
}

/// Stops the wave with a trap (`s_trap`): what a device panic handler
/// should do, since a kernel cannot unwind and a spinning wave would hang the
/// whole dispatch instead of failing it.
#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: trapping has no preconditions; it never returns.
    unsafe { llvm_trap() }
}
