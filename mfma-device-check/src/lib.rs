//! Checks the device build of this workspace without a GPU.
//!
//! `scripts/check-device.sh` compiles `mfma-kernels` for one target
//! (gfx90a, gfx942) and hands this crate three files: the manifest its
//! build script wrote (what each kernel is, takes and must compile to), the
//! assembly, and the code object. [`check::check`] then verifies, per
//! kernel:
//!
//! * the assembly: each call site holds exactly one MFMA with its ISA
//!   mnemonic and exactly its modifiers; each GEMM kernel holds its MFMA in
//!   a loop that also stages through LDS (`ds_write*`), reads LDS
//!   (`ds_read*`) and waits at a barrier preceded by `s_waitcnt
//!   lgkmcnt(0)`; no kernel touches scratch, calls, or uses flat accesses;
//! * the code object: an HSA code object of the asked version for the
//!   target, xnack and sramecc "any"; per kernel wavefront size 64, the
//!   arguments of the Rust signature in order, no scratch (private segment,
//!   dynamic stack, spills, descriptor), registers within the target's, no
//!   static LDS and the dynamic LDS the manifest states, exported by the
//!   kernel itself;
//! * occupancy in waves per SIMD from registers, workgroup size and LDS
//!   ([`occupancy`]), at least 2 for GEMM kernels, and the register part
//!   equal to LLVM's own figure.
//!
//! The `check` command also hands the manifest and the code object to
//! `mfma-hip`, the launcher, which must plan every kernel's launch from
//! them as it would on a GPU.
//!
//! [`compare`] sets one kernel's metadata beside another code object's
//! (what clang emits for the equivalent HIP kernel).
#![warn(missing_docs)]

pub mod asm;
pub mod check;
pub mod codeobj;
pub mod compare;
pub mod manifest;
pub mod occupancy;
