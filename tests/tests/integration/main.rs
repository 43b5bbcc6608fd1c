//! The integration tests of the mfma workspace's libraries, as one test
//! binary: each module was a binary of its own, and each re-instantiated
//! mfma-core's kernels for every builtin at `opt-level = 2` and linked them
//! again. One binary builds in 122 s where the ten took 175 (2 cores, clean
//! build of this package), and its tests run on every thread at once. A
//! failure names its module: `cargo test -p mfma-tests --test integration
//! vectors::`.
//!
//! The UI (compile-fail) tests and the toolchain test stay separate
//! binaries: they call cargo and rustc, and need none of this.

#[macro_use]
mod common;

mod arithmetic;
mod arithmetic_cdna3;
mod cdna3_model;
mod consequences;
mod const_layout;
mod layouts;
mod matrices;
mod ranges;
mod sparse;
mod vectors;
