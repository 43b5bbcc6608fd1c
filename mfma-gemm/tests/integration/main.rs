//! mfma-gemm's integration tests, as one test binary: as four, each
//! re-instantiated the GEMM for every policy at `opt-level = 2` and linked it
//! again. A failure names its module: `cargo test -p mfma-gemm --test
//! integration policies::`.

mod cross_checks;
mod device;
mod host_loads;
mod policies;
mod sweep;

/// The `matrix_multiply` example. `cargo test` builds examples beside the
/// test binaries (target/<profile>/examples/); run alone (`--test
/// integration device::`) it may not have, and then the tests that run it
/// say so and pass.
pub(crate) fn example() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("examples");
    let path = dir.join(format!("matrix_multiply{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("skipped: {} is not built", path.display());
        None
    }
}
