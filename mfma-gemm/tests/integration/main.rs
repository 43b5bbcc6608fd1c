//! mfma-gemm's integration tests, as one test binary: as four, each
//! re-instantiated the GEMM for every policy at `opt-level = 2` and linked it
//! again. A failure names its module: `cargo test -p mfma-gemm --test
//! integration policies::`.

mod cross_checks;
mod device;
mod host_loads;
mod policies;
