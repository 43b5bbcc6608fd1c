//! The bit-exact vectors of `shared/vectors/cdna2-numerics.json` (MI200
//! arithmetic as modelled by MMA-Sim) through the real fragment path:
//! matrices → `Fragment::from_fn` → `execute` → D read back through the
//! layout. Each vector is one block; it is put into every block of the
//! instruction and every block must give the vector's D.
//!
//! Run with `--nocapture` to see the counts per builtin.

#[macro_use]
#[path = "common/numerics.rs"]
mod numerics;

use mfma_core::spec::{cdna2::BUILTINS, find, Builtin};
use mfma_core::{execute, Acc, Element, FragA, FragB, Instr, Visit};
use numerics::{hex, in_family, same};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

#[derive(Deserialize)]
struct VectorFile {
    schema_version: u32,
    instructions: BTreeMap<String, Meta>,
    vectors: Vec<Vector>,
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
    zero_sign_model_specific: Vec<usize>,
    #[serde(rename = "A")]
    a: Vec<String>,
    #[serde(rename = "B")]
    b: Vec<String>,
    #[serde(rename = "C")]
    c: Vec<String>,
    #[serde(rename = "D")]
    d: Vec<String>,
}

fn path() -> PathBuf {
    match std::env::var_os("MFMA_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/vectors/cdna2-numerics.json"
        )),
    }
}

/// The vector file, parsed once for all tests of this binary. A missing file
/// is a failure, never a skip: these vectors are the only bit-exact evidence.
fn file() -> &'static VectorFile {
    static FILE: OnceLock<VectorFile> = OnceLock::new();
    FILE.get_or_init(|| {
        let p = path();
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| {
            panic!(
                "cannot read the CDNA2 numerics vectors at {} ({e}); \
                 set MFMA_VECTORS to the file's path",
                p.display()
            )
        });
        let f: VectorFile = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not a vector file: {e}", p.display()));
        assert_eq!(f.schema_version, 1, "{}: unknown schema", p.display());
        f
    })
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
        let input = |m: &[String], r: usize, c: usize, cols: usize| {
            X::In::from_bits_u64(bits(&m[r * cols + c], &v.id))
        };
        let a = FragA::<X>::from_fn(|_, i, k| input(&v.a, i, k, s.k));
        let b = FragB::<X>::from_fn(|_, k, j| input(&v.b, k, j, s.n));
        let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(bits(&v.c[i * s.n + j], &v.id)));
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

/// Runs every vector of the builtins of `family`; fails listing the first
/// mismatches. Prints the count per builtin.
fn run_family(family: &str) {
    let f = file();
    let mut passed: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for x in BUILTINS.iter().filter(|x| in_family(family, x)) {
        passed.insert(x.name, (0, 0, 0));
    }
    for v in &f.vectors {
        let Some(entry) = passed.get_mut(v.instruction.as_str()) else {
            continue;
        };
        let wrong = mfma_core::cdna2::visit(&v.instruction, RunVector(v))
            .unwrap_or_else(|| panic!("{}: unknown instruction {}", v.id, v.instruction));
        entry.1 += 1;
        if wrong.is_empty() {
            entry.0 += 1;
            entry.2 += v.zero_sign_model_specific.len();
        }
        mismatches.extend(wrong);
    }
    for (name, (ok, total, zero_signs)) in &passed {
        println!(
            "{name:<22} {ok:>3}/{total:<3} vectors bit-exact ({zero_signs} model-only zero signs)"
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

family_tests!(vectors_are_bit_exact => run_family);

/// Every vector names a builtin of the spec.
#[test]
fn every_vector_names_a_builtin() {
    for v in &file().vectors {
        assert!(
            find(&v.instruction).is_some(),
            "{}: unknown {}",
            v.id,
            v.instruction
        );
    }
}

/// The file's `instructions` table describes exactly the spec's builtins,
/// with the same shape, block count, types and names.
#[test]
fn instruction_metadata_matches_spec() {
    let f = file();
    let names: Vec<&str> = f.instructions.keys().map(String::as_str).collect();
    let mut spec_names: Vec<&str> = BUILTINS.iter().map(|x| x.name).collect();
    spec_names.sort_unstable();
    assert_eq!(names, spec_names);
    for (name, m) in &f.instructions {
        let x = find(name).unwrap();
        assert_eq!(m.builtin, format!("{}{}", Builtin::HIP_PREFIX, x.name));
        assert_eq!(m.isa, x.isa, "{name}");
        assert_eq!(m.shape, Shape::of(x), "{name}");
        assert_eq!(m.hw_blocks, x.blocks, "{name}");
        assert_eq!([&m.a_type, &m.b_type], [x.ab.name(); 2], "{name}");
        assert_eq!([&m.c_type, &m.d_type], [x.cd.name(); 2], "{name}");
    }
}
