//! Compile-time diagnostics of `mfma!`, pinned with trybuild: one file per
//! rule under `ui/<category>/`, with the exact compiler output beside it in
//! a `.stderr` file (regenerate with `TRYBUILD=overwrite`, then read them).
//!
//! `ui/pass/` holds what must compile and run. Having a pass set also makes
//! trybuild build rather than only check, which `ui/constants/` needs: a
//! modifier given as a named constant is rejected when the call is
//! monomorphized, and `cargo check` never gets that far.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    for entry in std::fs::read_dir("ui").expect("tests/ui exists") {
        let dir = entry.expect("readable tests/ui").path();
        if dir.is_dir() && dir.file_name() != Some("pass".as_ref()) {
            t.compile_fail(dir.join("*.rs"));
        }
    }
    t.pass("ui/pass/*.rs");
}
