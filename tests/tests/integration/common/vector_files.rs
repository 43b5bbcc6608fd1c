//! The bit-exact vector files: where they are (`../shared/vectors/<stem>.json`
//! beside the checkout, or the path in the stem's variable: how prebuilt
//! test binaries find them on a machine without the checkout), what they
//! hold, and each parsed once for every module of the test binary.

use mfma_core::spec::{Arch, Builtin};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

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

#[derive(Deserialize)]
pub struct VectorFile {
    pub schema_version: u32,
    /// Absent in the CDNA2 file, which predates CDNA3.
    #[serde(default = "default_arch")]
    pub arch: String,
    pub instructions: BTreeMap<String, Meta>,
    pub vectors: Vec<Vector>,
}

fn default_arch() -> String {
    String::from("cdna2")
}

/// M, N, K as the file spells them.
#[derive(Deserialize, Debug, PartialEq)]
pub struct Shape {
    #[serde(rename = "M")]
    pub m: usize,
    #[serde(rename = "N")]
    pub n: usize,
    #[serde(rename = "K")]
    pub k: usize,
}

impl Shape {
    pub fn of(x: &Builtin) -> Shape {
        Shape {
            m: x.m,
            n: x.n,
            k: x.k,
        }
    }
}

/// The file's own description of a builtin, cross-checked against the spec.
#[derive(Deserialize)]
pub struct Meta {
    pub builtin: String,
    pub isa: String,
    #[serde(flatten)]
    pub shape: Shape,
    pub hw_blocks: usize,
    pub a_type: String,
    pub b_type: String,
    pub c_type: String,
    pub d_type: String,
    /// Set in the SMFMAC file.
    #[serde(default)]
    pub sparse: bool,
}

#[derive(Deserialize)]
pub struct Vector {
    pub id: String,
    pub instruction: String,
    #[serde(flatten)]
    pub shape: Shape,
    /// A list of D indices in the CDNA2 file, a count in the CDNA3 one.
    pub zero_sign_model_specific: serde_json::Value,
    #[serde(rename = "A")]
    pub a: Vec<String>,
    #[serde(rename = "B")]
    pub b: Vec<String>,
    #[serde(rename = "C")]
    pub c: Vec<String>,
    #[serde(rename = "D")]
    pub d: Vec<String>,
    /// SMFMAC: the position (0..=3) of each stored value of A in its group.
    #[serde(rename = "IDX", default)]
    pub idx: Vec<u8>,
}

impl Vector {
    pub fn model_only_zero_signs(&self) -> usize {
        match &self.zero_sign_model_specific {
            serde_json::Value::Array(list) => list.len(),
            v => v.as_u64().unwrap_or(0) as usize,
        }
    }
}

/// The vector files: one of dense vectors per architecture, one of SMFMAC
/// vectors where the architecture has SMFMAC. `(file stem, arch, sparse)`.
pub fn files() -> impl Iterator<Item = (String, &'static Arch, bool)> {
    mfma_core::spec::ARCHS.iter().flat_map(|a| {
        let dense = (format!("{}-numerics", a.name), *a, false);
        let sparse = a
            .builtins
            .iter()
            .any(|x| x.is_sparse())
            .then(|| (format!("{}-smfmac", a.name), *a, true));
        std::iter::once(dense).chain(sparse)
    })
}

/// The vector file of `arch` (its SMFMAC file if `sparse`), parsed once for
/// all tests of this binary. A missing file is a failure, never a skip:
/// these vectors are the only bit-exact evidence.
pub fn file(arch: &str, sparse: bool) -> &'static VectorFile {
    static FILES: OnceLock<BTreeMap<(&'static str, bool), VectorFile>> = OnceLock::new();
    let files = FILES.get_or_init(|| {
        files()
            .map(|(stem, a, sparse)| {
                let p = path(&stem);
                let text = std::fs::read_to_string(&p).unwrap_or_else(|e| {
                    panic!(
                        "cannot read the {} vectors `{stem}` at {} ({e}); set {} to the file's \
                         path",
                        a.title,
                        p.display(),
                        var(&stem)
                    )
                });
                let f: VectorFile = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{} is not a vector file: {e}", p.display()));
                assert_eq!(f.schema_version, 1, "{}: unknown schema", p.display());
                assert_eq!(
                    f.arch,
                    a.name,
                    "{}: vectors of another architecture",
                    p.display()
                );
                for (name, m) in &f.instructions {
                    assert_eq!(
                        m.sparse,
                        sparse,
                        "{}: {name} in the wrong file",
                        p.display()
                    );
                }
                ((a.name, sparse), f)
            })
            .collect()
    });
    files
        .iter()
        .find(|((a, s), _)| *a == arch && *s == sparse)
        .map(|(_, f)| f)
        .unwrap_or_else(|| panic!("no {arch} vector file (sparse: {sparse})"))
}

/// A value of the file: its bits in hex.
pub fn bits(s: &str, id: &str) -> u64 {
    u64::from_str_radix(s, 16).unwrap_or_else(|e| panic!("{id}: bad hex {s:?}: {e}"))
}
