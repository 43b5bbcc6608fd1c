//! Finding the code object of a target at run time.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The environment variable naming the directory that holds
/// `<gfx>/mfma_kernels.hsaco` and `<gfx>/kernels.tsv` (what
/// `scripts/check-device.sh` leaves in `target/device`).
pub const DIR_VAR: &str = "MFMA_CODE_OBJECT_DIR";

/// The code object of a target and its manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeObjectFiles {
    /// `<dir>/<gfx>/mfma_kernels.hsaco`.
    pub code_object: PathBuf,
    /// `<dir>/<gfx>/kernels.tsv`.
    pub manifest: PathBuf,
}

impl CodeObjectFiles {
    /// The two files of `processor` under `dir`.
    ///
    /// ```
    /// let f = mfma_hip::CodeObjectFiles::under("target/device".as_ref(), "gfx942");
    /// assert_eq!(f.code_object, std::path::Path::new("target/device/gfx942/mfma_kernels.hsaco"));
    /// ```
    pub fn under(dir: &Path, processor: &str) -> CodeObjectFiles {
        let d = dir.join(processor);
        CodeObjectFiles {
            code_object: d.join("mfma_kernels.hsaco"),
            manifest: d.join("kernels.tsv"),
        }
    }
}

/// The directories searched for code objects, in order: `$MFMA_CODE_OBJECT_DIR`
/// alone if set; otherwise `device/` in the directories above the running
/// program (a cargo target directory holds the program in
/// `target/release/examples/` and the code objects in `target/device/`),
/// `$CARGO_TARGET_DIR/device`, and `target/device` under the current
/// directory.
pub fn search_dirs() -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os(DIR_VAR) {
        return vec![PathBuf::from(dir)];
    }
    let mut dirs = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        for up in exe.ancestors().skip(1).take(4) {
            dirs.push(up.join("device"));
        }
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        dirs.push(PathBuf::from(t).join("device"));
    }
    dirs.push(PathBuf::from("target").join("device"));
    let mut seen = Vec::new();
    dirs.retain(|d| {
        let fresh = !seen.contains(d);
        seen.push(d.clone());
        fresh
    });
    dirs
}

/// The first of `dirs` holding both files of `processor`.
///
/// # Errors
/// [`Error::NoCodeObject`] listing every code object path looked for, with
/// how to build one.
pub fn find_in(dirs: &[PathBuf], processor: &str) -> Result<CodeObjectFiles> {
    let candidates: Vec<CodeObjectFiles> = dirs
        .iter()
        .map(|d| CodeObjectFiles::under(d, processor))
        .collect();
    candidates
        .iter()
        .find(|f| f.code_object.is_file() && f.manifest.is_file())
        .cloned()
        .ok_or_else(|| Error::NoCodeObject {
            processor: processor.to_string(),
            looked: candidates.into_iter().map(|f| f.code_object).collect(),
        })
}

/// [`find_in`] the [`search_dirs`].
///
/// # Errors
/// As [`find_in`].
pub fn find(processor: &str) -> Result<CodeObjectFiles> {
    find_in(&search_dirs(), processor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_directory_with_both_files_wins() {
        let root = std::env::temp_dir().join(format!("mfma-hip-locate-{}", std::process::id()));
        let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
        // a: only the code object; b: both; c: both.
        for (d, manifest) in [(&a, false), (&b, true), (&c, true)] {
            std::fs::create_dir_all(d.join("gfx90a")).unwrap();
            std::fs::write(d.join("gfx90a/mfma_kernels.hsaco"), b"x").unwrap();
            if manifest {
                std::fs::write(d.join("gfx90a/kernels.tsv"), b"x").unwrap();
            }
        }
        let dirs = [a.clone(), b.clone(), c];
        assert_eq!(
            find_in(&dirs, "gfx90a").unwrap(),
            CodeObjectFiles::under(&b, "gfx90a")
        );
        let e = find_in(&dirs, "gfx942").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("no code object for gfx942 (looked for "),
            "{text}"
        );
        assert!(text.contains(&a.join("gfx942/mfma_kernels.hsaco").display().to_string()));
        assert!(
            text.contains("bash scripts/check-device.sh gfx942"),
            "{text}"
        );
        assert!(text.contains(DIR_VAR), "{text}");
        assert!(!text.contains('\n'));
        assert!(e.is_unavailable());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
