//! The manifest `mfma-kernels/build.rs` writes beside the kernels it
//! generates: what each kernel is, takes and must compile to. The checks
//! compare the compiler's output with it.
//!
//! The launcher plans its launches from the same file, so the format is
//! read in one place, [`mfma_hip::manifest`]; this module names its items
//! where the checks have always found them.

pub use mfma_hip::manifest::{parse, Arg, Kernel, Kind, ParseError};
