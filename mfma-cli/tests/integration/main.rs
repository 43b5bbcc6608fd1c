//! The `mfma` command's tests, as one test binary: each module was a
//! binary of its own, each linking mfma-core and mfma-spec again. A
//! failure names its module: `cargo test -p mfma-cli --test integration
//! run::`.

mod common;

mod cdna3_facts;
mod describe;
mod errors;
mod formats;
mod layout;
mod lookup;
mod pictures;
mod probe;
mod run;
mod sparse;
