//! The seed's tiled matrix-multiply tutorial, ported to MFMA fragments: one
//! kernel source that runs on the CPU through the bit-exact software path
//! and compiles for the GPU (gfx90a, gfx942).
//!
//! The tutorial splits a GEMM kernel into a [`TilePolicy`] (block tile,
//! K strips, staging hooks) and a [`ComputePolicy`] (what a worker loads,
//! multiplies and stores). [`gemm_wave`] is the kernel body for one worker;
//! the policies are [`ScalarFmaPolicy`] (the tutorial's FP64 fallback) and
//! [`MfmaPolicy`] over any builtin type (`MfmaPolicy<mfma!(f32_32x32x8f16)>`;
//! [`MfmaCdna2F64Policy`] is the seed's).
//!
//! Policies touch lanes only through [`mfma_core::Fragment::from_fn`],
//! [`for_each`](mfma_core::Fragment::for_each) and
//! [`execute_into`](mfma_core::execute_into): on the host a fragment is the
//! whole wave, on the GPU the calling lane's registers, so the kernel needs
//! no lane index and no `cfg`. (The exceptions are for speed on the host:
//! [`gemm`] runs whole workgroups with [`gemm_workgroup`], whose waves share
//! each K tile staged once by [`ComputePolicy::stage`], and `MfmaPolicy`
//! stages it as packed panels that
//! [`execute_chain_panels`](mfma_core::soft::execute_chain_panels) reads;
//! a test pins that this gives the bits of [`gemm_wave`] run wave by wave.)
//!
//! Tiles are [`Tile`] views with zero-padded reads: [`GlobalTiles`] reads
//! global memory in place, [`StagedTiles`] copies each K strip into one or
//! two buffers as the tutorial does: on the GPU into LDS shared by the
//! workgroup (launch-sized: the launcher passes
//! [`StagedTiles::workgroup_mem_bytes`]), with barriers; on the host into
//! buffers of the worker.
//!
//! ```
//! use mfma_gemm::{gemm, GlobalTiles, MfmaCdna2F64Policy};
//! let (m, n, k) = (3, 2, 5);
//! let a: Vec<f64> = (0..m * k).map(|x| x as f64).collect();
//! let eye: Vec<f64> = (0..k * n).map(|x| if x / n == x % n { 1.0 } else { 0.0 }).collect();
//! let mut c = vec![0.0; m * n];
//! gemm::<GlobalTiles<32, 32, 4>, MfmaCdna2F64Policy>(m, n, k, &a, &eye, &mut c, 1);
//! assert_eq!(c, [0.0, 1.0, 5.0, 6.0, 10.0, 11.0]); // the first two columns of A
//! ```
#![no_std]
#![warn(missing_docs)]
// core's fused multiply-add is still unstable; the device build enables
// nightly features anyway (RUSTC_BOOTSTRAP, reference section 5).
#![cfg_attr(target_arch = "amdgpu", feature(core_float_math))]

#[cfg(not(target_arch = "amdgpu"))]
extern crate std;

mod compute;
mod kernel;
#[cfg(target_arch = "amdgpu")]
mod lds;
mod mfma;
mod problem;
mod scalar;
mod staged;
mod tile;
mod view;

#[cfg(not(target_arch = "amdgpu"))]
pub mod catalog;
#[cfg(not(target_arch = "amdgpu"))]
mod launch;
#[cfg(not(target_arch = "amdgpu"))]
mod pool;
#[cfg(not(target_arch = "amdgpu"))]
pub mod random;
#[cfg(not(target_arch = "amdgpu"))]
pub mod reference;

pub use compute::ComputePolicy;
pub use kernel::{gemm_wave, grid, threads_per_block, workers_per_block};
#[cfg(not(target_arch = "amdgpu"))]
pub use mfma::MfmaStaging;
pub use mfma::{MfmaCdna2F64Policy, MfmaPolicy};
pub use problem::Problem;
pub use scalar::ScalarFmaPolicy;
pub use staged::{staged_bytes, StagedTiles};
pub use tile::{Crew, GlobalStrips, GlobalTiles, TilePolicy, TileStorage};
pub use view::{OutTile, Tile};

#[cfg(not(target_arch = "amdgpu"))]
pub use kernel::{chains_alone, gemm_workgroup, HostScratch, Phases, TileKey};
#[cfg(not(target_arch = "amdgpu"))]
pub use launch::{available_threads, gemm, gemm_profiled, Profile, ThreadProfile};
#[cfg(not(target_arch = "amdgpu"))]
pub use pool::run_on_threads;
#[cfg(not(target_arch = "amdgpu"))]
pub use staged::StagedBuffers;

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
