//! Launches the kernels of the mfma code objects on an AMD GPU through the
//! HIP runtime.
//!
//! `scripts/check-device.sh` builds one code object per target
//! (`target/device/<gfx>/mfma_kernels.hsaco`, code object v5) with a
//! manifest of its kernels (`kernels.tsv`): call sites `mfma_<builtin>`
//! (one instruction, `D = A·B + C`) and tutorial GEMM kernels
//! `gemm_<builtin>`. This crate finds the one for the GPU's target, loads
//! it, and launches its kernels:
//!
//! ```no_run
//! use mfma_hip::Operand;
//! let (gpu, module) = mfma_hip::open()?; // the GPU, its target's code object
//! let site = &module.catalog().sites[0];
//! let inputs: Vec<Vec<u8>> = site.operands()[..site.operands().len() - 1]
//!     .iter()
//!     .map(|&op| vec![0u8; mfma_hip::operand_bytes(site.builtin, op)])
//!     .collect();
//! let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
//! let d = module.run_site(&gpu, site, &refs)?; // D, [block][row][col]
//! assert_eq!(d.len(), mfma_hip::operand_bytes(site.builtin, Operand::D));
//! # Ok::<(), mfma_hip::Error>(())
//! ```
//!
//! * **No link-time dependency on ROCm.** `libamdhip64` is opened at run
//!   time ([`LIBRARY_VAR`] names it, else the loader's search, then
//!   `$ROCM_PATH/lib` and `/opt/rocm/lib`), so everything builds and tests
//!   on machines without it; there, [`open`] returns an error whose
//!   message says why in one line ([`Error::is_unavailable`]).
//! * **The right code object.** The GPU's `gcnArchName` gives its target
//!   ([`TargetId`]); a processor the spec has no builtins for is refused
//!   ([`Error::UnsupportedTarget`]), the code object is looked for under
//!   [`DIR_VAR`] or `target/device` ([`find`]), and one whose ELF header
//!   names another target, or xnack/sramecc settings the GPU does not run,
//!   is refused before the runtime sees it ([`Error::TargetMismatch`]).
//! * **Launches planned from the metadata.** [`Catalog`] reads the code
//!   object's kernel metadata and the manifest and checks them against each
//!   other; every launch's kernarg buffer is packed at the offsets the
//!   metadata states ([`pack`]) and passed whole
//!   (`HIP_LAUNCH_PARAM_BUFFER_POINTER`). All of that is ordinary code,
//!   tested without a GPU; the runtime calls are a table of function
//!   pointers, one call each.
//! * **Errors as values.** Every HIP call's `hipError_t` becomes
//!   [`Error::Hip`] with HIP's own name and message.
//!
//! The safe launches check buffer sizes against the spec
//! ([`Module::run_site`], [`Module::run_gemm`]); [`Module::launch`] takes
//! any planned launch and is `unsafe`.
//!
//! **Not yet run on hardware**: this project has no AMD GPU; the crate is
//! tested against a [stand-in runtime](stand_in) (a small library that
//! answers the same calls) and the real code objects' metadata, not
//! against ROCm.
#![warn(missing_docs)]

mod codeobj;
mod elf;
mod error;
mod ffi;
mod locate;
pub mod manifest;
mod plan;
mod runtime;
pub mod stand_in;
mod target;

pub use codeobj::{ArgMeta, CodeObjectInfo, KernelMeta};
pub use elf::{metadata_note, ElfFlags, Setting, ELFOSABI_AMDGPU_HSA, EM_AMDGPU};
pub use error::{Error, Result};
pub use ffi::LIBRARY_VAR;
pub use locate::{find, find_in, search_dirs, CodeObjectFiles, DIR_VAR};
pub use mfma_spec::Operand;
pub use plan::{operand_bytes, pack, parse_modifiers, ArgValue, Catalog, Gemm, Launch, Site};
pub use runtime::{check_target, DeviceBuffer, GemmRun, Gpu, Module, DEVICE_VAR};
pub use target::{arch_name_in_properties, Feature, TargetId};

/// Opens the GPU ([`Gpu::open`]) and loads the code object of its target
/// ([`find`], [`Gpu::load`]).
///
/// # Errors
/// Those of the three; all but [`Error::Hip`] and [`Error::CodeObject`]
/// say the GPU path cannot run here ([`Error::is_unavailable`]).
pub fn open() -> Result<(Gpu, Module)> {
    let gpu = Gpu::open()?;
    let files = find(&gpu.target().processor)?;
    let module = gpu.load(&files)?;
    Ok((gpu, module))
}

/// The crate README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
