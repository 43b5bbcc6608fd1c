//! A stand-in HIP runtime, for tests of programs that use this crate on
//! machines without a GPU: a small `libamdhip64.so` that answers the calls
//! this crate makes, built from source with rustc. Point
//! [`LIBRARY_VAR`](crate::LIBRARY_VAR) at it.
//!
//! It reports one gfx90a GPU unless told otherwise, by environment
//! variables read at each call:
//!
//! * `FAKE_HIP_INIT=fail`: `hipInit` returns `hipErrorNoDevice`;
//! * `FAKE_HIP_DEVICES=N`: the device count (default 1);
//! * `FAKE_HIP_ARCH`: `gcnArchName` (default `gfx90a:sramecc+:xnack-`);
//! * `FAKE_HIP_LDS`: the value of every `*_lds_bytes` global (default 8192);
//! * `FAKE_HIP_LOG=FILE`: each launch appends a line `kernel gx,gy,gz
//!   bx,by,bz lds kernarg-hex`.
//!
//! Device memory is host memory. Kernels compute nothing, except that a
//! call site (`mfma_*`) copies its C into its D: what `D = A·B + C` gives
//! for `A = B = 0`. Every launch takes 1.5 ms.

use std::io;
use std::path::{Path, PathBuf};

/// The source of the stand-in (one file, no dependencies).
pub const SOURCE: &str = include_str!("../stand-in/libamdhip64.rs");

/// Builds the stand-in into `dir/libamdhip64.so` with `$RUSTC` (else
/// `rustc` from `PATH`) and returns its path; `Ok(None)` on platforms whose
/// shared libraries are not ELF `.so` files (it is written for Linux).
///
/// # Errors
/// When the directory cannot be written or rustc fails.
pub fn build(dir: &Path) -> io::Result<Option<PathBuf>> {
    if !cfg!(target_os = "linux") {
        return Ok(None);
    }
    std::fs::create_dir_all(dir)?;
    let src = dir.join("libamdhip64.rs");
    std::fs::write(&src, SOURCE)?;
    let out = dir.join("libamdhip64.so");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let status = std::process::Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "cdylib",
            "--crate-name",
            "amdhip64",
        ])
        .args(["-C", "opt-level=1", "--cap-lints", "allow"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "rustc failed on {}",
            src.display()
        )));
    }
    Ok(Some(out))
}
