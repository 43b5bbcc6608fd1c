//! The bit-exact vectors of `shared/vectors/cdna2-numerics.json` (MI200
//! arithmetic) and `cdna3-numerics.json` (MI300), both as modelled by
//! MMA-Sim, through the real fragment path: matrices → `Fragment::from_fn`
//! → `execute` → D read back through the layout. Each vector is one block;
//! it is put into every block of the instruction and every block must give
//! the vector's D.
//!
//! Run with `--nocapture` to see the counts per builtin.

#[macro_use]
#[path = "common/numerics.rs"]
mod numerics;

use mfma_core::spec::{arch, Arch, Builtin};
use mfma_core::{execute, Acc, Element, FragA, FragB, Instr, Visit};
use numerics::{hex, in_family, same};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

#[derive(Deserialize)]
struct VectorFile {
    schema_version: u32,
    /// Absent in the CDNA2 file, which predates CDNA3.
    #[serde(default = "default_arch")]
    arch: String,
    instructions: BTreeMap<String, Meta>,
    vectors: Vec<Vector>,
}

fn default_arch() -> String {
    String::from("cdna2")
}

/// M, N, K as the file spells them.
#[derive(Deserialize, Debug, PartialEq)]
struct Shape {
    #[serde(rename = "M")]
    m: usize,
    #[serde(rename = "N")]
    n: usize,
    #[serde(rename = "K")]
    k: usize,
}

impl Shape {
    fn of(x: &Builtin) -> Shape {
        Shape {
            m: x.m,
            n: x.n,
            k: x.k,
        }
    }
}

/// The file's own description of a builtin, cross-checked against the spec.
#[derive(Deserialize)]
struct Meta {
    builtin: String,
    isa: String,
    #[serde(flatten)]
    shape: Shape,
    hw_blocks: usize,
    a_type: String,
    b_type: String,
    c_type: String,
    d_type: String,
}

#[derive(Deserialize)]
struct Vector {
    id: String,
    instruction: String,
    #[serde(flatten)]
    shape: Shape,
    /// A list of D indices in the CDNA2 file, a count in the CDNA3 one.
    zero_sign_model_specific: serde_json::Value,
    #[serde(rename = "A")]
    a: Vec<String>,
    #[serde(rename = "B")]
    b: Vec<String>,
    #[serde(rename = "C")]
    c: Vec<String>,
    #[serde(rename = "D")]
    d: Vec<String>,
}

impl Vector {
    fn model_only_zero_signs(&self) -> usize {
        match &self.zero_sign_model_specific {
            serde_json::Value::Array(list) => list.len(),
            v => v.as_u64().unwrap_or(0) as usize,
        }
    }
}

/// The vector file of an architecture: `MFMA_VECTORS_<ARCH>` (e.g.
/// `MFMA_VECTORS_CDNA3`) or `../shared/vectors/<arch>-numerics.json`.
fn path(arch: &str) -> PathBuf {
    let var = format!("MFMA_VECTORS_{}", arch.to_uppercase());
    match std::env::var_os(&var) {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(format!(
            "{}/../../shared/vectors/{arch}-numerics.json",
            env!("CARGO_MANIFEST_DIR")
        )),
    }
}

/// The vector file of `arch`, parsed once for all tests of this binary. A
/// missing file is a failure, never a skip: these vectors are the only
/// bit-exact evidence.
fn file(arch: &str) -> &'static VectorFile {
    static FILES: OnceLock<BTreeMap<&'static str, VectorFile>> = OnceLock::new();
    let files = FILES.get_or_init(|| {
        mfma_core::spec::ARCHS
            .iter()
            .map(|a| {
                let p = path(a.name);
                let text = std::fs::read_to_string(&p).unwrap_or_else(|e| {
                    panic!(
                        "cannot read the {} numerics vectors at {} ({e}); set MFMA_VECTORS_{} \
                         to the file's path",
                        a.title,
                        p.display(),
                        a.name.to_uppercase()
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
                (a.name, f)
            })
            .collect()
    });
    &files[arch]
}

fn bits(s: &str, id: &str) -> u64 {
    u64::from_str_radix(s, 16).unwrap_or_else(|e| panic!("{id}: bad hex {s:?}: {e}"))
}

/// One wrong element: which vector, which block, which D index (row-major).
struct Mismatch {
    id: String,
    block: usize,
    index: usize,
    got: String,
    want: String,
}

/// Runs one vector on builtin `X`; the mismatches, if any.
struct RunVector<'v>(&'v Vector);

impl Visit for RunVector<'_> {
    type Output = Vec<Mismatch>;

    fn visit<X: Instr>(self) -> Vec<Mismatch> {
        let v = self.0;
        let s = X::SPEC;
        assert_eq!(v.shape, Shape::of(s), "{}: shape", v.id);
        assert_eq!(v.a.len(), s.m * s.k, "{}: A length", v.id);
        assert_eq!(v.b.len(), s.k * s.n, "{}: B length", v.id);
        assert_eq!(v.c.len(), s.m * s.n, "{}: C length", v.id);
        assert_eq!(v.d.len(), s.m * s.n, "{}: D length", v.id);
        let at = |m: &[String], r: usize, c: usize, cols: usize| bits(&m[r * cols + c], &v.id);
        let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(at(&v.a, i, k, s.k)));
        let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(at(&v.b, k, j, s.n)));
        let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(at(&v.c, i, j, s.n)));
        let d = execute::<X, 0, 0, 0>(a, b, c);

        let mut out = Vec::new();
        for block in 0..s.blocks {
            for (index, want) in v.d.iter().enumerate() {
                let (i, j) = (index / s.n, index % s.n);
                let got = d.get(block, i, j).to_bits_u64();
                // Identical inputs must give identical bits, NaN payload included.
                let first = d.get(0, i, j).to_bits_u64();
                let want = bits(want, &v.id);
                if !same(s.cd, got, want) || got != first {
                    out.push(Mismatch {
                        id: v.id.clone(),
                        block,
                        index,
                        got: hex(s.cd, got),
                        want: hex(s.cd, want),
                    });
                }
            }
        }
        out
    }
}

/// Runs every vector of the builtins of `family` of architecture `arch`;
/// fails listing the first mismatches. Prints the count per builtin.
fn run_family(arch_name: &str, family: &str) {
    let table: &Arch = arch(arch_name).expect("a known architecture");
    let f = file(arch_name);
    let mut passed: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for x in table.builtins.iter().filter(|x| in_family(family, x)) {
        passed.insert(x.name, (0, 0, 0));
    }
    for v in &f.vectors {
        let Some(entry) = passed.get_mut(v.instruction.as_str()) else {
            continue;
        };
        let name = format!("{arch_name}::{}", v.instruction);
        let wrong = mfma_core::visit(&name, RunVector(v))
            .unwrap_or_else(|| panic!("{}: unknown instruction {name}", v.id));
        entry.1 += 1;
        if wrong.is_empty() {
            entry.0 += 1;
            entry.2 += v.model_only_zero_signs();
        }
        mismatches.extend(wrong);
    }
    for (name, (ok, total, zero_signs)) in &passed {
        println!(
            "{arch_name}::{name:<22} {ok:>3}/{total:<3} vectors bit-exact ({zero_signs} model-only zero signs)"
        );
    }
    for (name, (_, total, _)) in &passed {
        assert!(*total > 0, "no vectors for {name}");
    }
    if !mismatches.is_empty() {
        let shown: Vec<String> = mismatches
            .iter()
            .take(20)
            .map(|m| {
                format!(
                    "  {} block {} D[{}]: got {} want {}",
                    m.id, m.block, m.index, m.got, m.want
                )
            })
            .collect();
        panic!(
            "{} wrong D elements, first ones:\n{}",
            mismatches.len(),
            shown.join("\n")
        );
    }
}

mod cdna2 {
    use super::{numerics, run_family};
    family_tests!("cdna2": vectors_are_bit_exact => run_family;
        f32_family "f32", f64_family "f64", f16_family "f16",
        bf16_family "bf16", bf16_1k_family "bf16_1k", i8_family "i8");
}

mod cdna3 {
    use super::{numerics, run_family};
    family_tests!("cdna3": vectors_are_bit_exact => run_family;
        f32_family "f32", f64_family "f64", xf32_family "xf32", f16_family "f16",
        bf16_family "bf16_1k", fp8_family "fp8", i8_family "i8");
}

/// Every vector of every file names a builtin of its architecture.
#[test]
fn every_vector_names_a_builtin() {
    for a in mfma_core::spec::ARCHS {
        for v in &file(a.name).vectors {
            assert!(
                a.find(&v.instruction).is_some(),
                "{}: unknown {}",
                v.id,
                v.instruction
            );
        }
    }
}

/// Each file's `instructions` table describes exactly its architecture's
/// builtins, with the same shape, block count, types and names.
#[test]
fn instruction_metadata_matches_spec() {
    for a in mfma_core::spec::ARCHS {
        let f = file(a.name);
        let names: Vec<&str> = f.instructions.keys().map(String::as_str).collect();
        let mut spec_names: Vec<&str> = a.builtins.iter().map(|x| x.name).collect();
        spec_names.sort_unstable();
        assert_eq!(names, spec_names, "{}", a.name);
        for (name, m) in &f.instructions {
            let x = a.find(name).unwrap();
            assert_eq!(m.builtin, format!("{}{}", Builtin::HIP_PREFIX, x.name));
            assert_eq!(m.isa, x.isa, "{name}");
            assert_eq!(m.shape, Shape::of(x), "{name}");
            assert_eq!(m.hw_blocks, x.blocks, "{name}");
            assert_eq!(
                [&m.a_type, &m.b_type],
                [x.a_type.name(), x.b_type.name()],
                "{name}"
            );
            assert_eq!([&m.c_type, &m.d_type], [x.cd.name(); 2], "{name}");
        }
    }
}
