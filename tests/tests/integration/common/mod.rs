//! What several of the test modules share: the numeric helpers and the
//! per-family test macro, the property tests' routing and loop, the exact
//! CDNA3 model, and where the vector files are.

#[macro_use]
pub mod numerics;
pub mod cdna3_model;
pub mod properties;
pub mod vector_files;
