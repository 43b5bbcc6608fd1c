//! Typed, checked bindings to the matrix-core builtins of AMD CDNA2 (gfx90a,
//! MI200: 27 dense MFMA) and CDNA3 (gfx942, MI300: 32 dense MFMA and 14
//! structured-sparse SMFMAC, see [`sparse`]), with a CPU execution path that
//! reproduces each architecture's arithmetic bit for bit.
//!
//! ```
//! use mfma_core::{mfma, Acc, FragA, FragB};
//! use half::bf16;
//!
//! type X = mfma!(f32_32x32x8bf16_1k);
//! let a = FragA::<X>::from_fn(|_b, i, k| bf16::from_f32((i + k) as f32));
//! let b = FragB::<X>::from_fn(|_b, k, j| bf16::from_f32(if k == j { 1.0 } else { 0.0 }));
//! let d = mfma!(f32_32x32x8bf16_1k(a, b, Acc::<X>::zero()));
//! assert_eq!(d.get(0, 3, 5), 8.0); // A·I: row 3, column 5 = A[3][5]
//!
//! // Layout constants are usable in const items.
//! const WHERE: mfma_core::spec::Slot = <mfma!(f32_32x32x8bf16_1k)>::C.slot(mfma_core::spec::Coord::new(0, 5, 7));
//! assert_eq!((WHERE.lane, WHERE.item), (39, 1));
//! ```
#![no_std]
#![warn(missing_docs)]
// The device path calls LLVM's MFMA intrinsics directly and declares
// launch-sized workgroup memory; these features exist only on nightly (or
// stable with RUSTC_BOOTSTRAP), so the host build never enables them.
#![cfg_attr(
    target_arch = "amdgpu",
    feature(
        link_llvm_intrinsics,
        abi_unadjusted,
        repr_simd,
        simd_ffi,
        f16,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    ),
    allow(internal_features)
)]

#[cfg(not(target_arch = "amdgpu"))]
extern crate std;

extern crate self as mfma_core;

#[cfg(target_arch = "amdgpu")]
pub mod device;
mod element;
mod exec;
mod formats;
mod fragment;
mod instr;
mod matrix;
#[cfg(not(target_arch = "amdgpu"))]
pub mod soft;
pub mod sparse;

pub use element::{Element, Storage};
pub use exec::{execute, execute_chain_into, execute_into};
pub use formats::{Bf8, Fp8, Xf32};
pub use fragment::{Acc, FragA, FragB, Fragment, Operand, A, B, C};
pub use matrix::{FromF32, Matrix, MatrixMut};
// The spec's types a user touches, documented here too: layouts and their
// coordinates, a builtin's table row, modifiers.
pub use half;
pub use instr::{Instr, SparseInstr, Visit};
pub use mfma_macros::mfma;
pub use mfma_spec as spec;
#[doc(inline)]
pub use mfma_spec::{
    Arch, Arith, BlgpBits, Builtin, Coord, ElemType, Layout, Modifier, ModifierError, Modifiers,
    Slot,
};
pub use sparse::{
    execute_sparse, execute_sparse_chain_into, execute_sparse_into, FragIdx, Idx, Positions,
    SparsityError,
};

#[doc(hidden)]
pub mod __private {
    pub use crate::exec::{
        assert_legal, assert_modifiers, execute_chain_into_prechecked, execute_into_prechecked,
    };
    pub use crate::sparse::{execute_sparse_chain_into_prechecked, execute_sparse_into_prechecked};
}

mfma_macros::__define_archs!();

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
