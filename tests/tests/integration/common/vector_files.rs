//! Where the bit-exact vector files are: `../shared/vectors/<stem>.json`
//! beside the checkout, or the path in the stem's variable (how prebuilt
//! test binaries find them on a machine without the checkout). One rule
//! for every test binary that reads them.

use std::path::PathBuf;

/// The name of the variable that overrides a file's path: `MFMA_VECTORS_CDNA3`
/// for `cdna3-numerics`, `MFMA_VECTORS_CDNA3_SMFMAC` for `cdna3-smfmac`.
pub fn var(stem: &str) -> String {
    let name = stem.trim_end_matches("-numerics").replace('-', "_");
    format!("MFMA_VECTORS_{}", name.to_uppercase())
}

/// The vector file `stem`: its variable (see [`var`]) or
/// `../shared/vectors/<stem>.json`.
pub fn path(stem: &str) -> PathBuf {
    match std::env::var_os(var(stem)) {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(format!(
            "{}/../../shared/vectors/{stem}.json",
            env!("CARGO_MANIFEST_DIR")
        )),
    }
}
