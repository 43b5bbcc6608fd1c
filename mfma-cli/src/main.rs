//! The `mfma` command.
fn main() {}
