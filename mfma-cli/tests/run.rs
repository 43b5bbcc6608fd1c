//! `mfma run`: the copied vectors reproduce D bit for bit (NaN by class),
//! and every kind of bad input is a clear error with exit status 2.

mod common;

use common::{fails, mfma, ok, same_bits, scratch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vectors.json")
}

fn vectors() -> Vec<Value> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(data()).unwrap()).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

#[test]
fn vectors_reproduce_d_bit_for_bit() {
    let out: Value =
        serde_json::from_str(&ok(&["run", "--input", data().to_str().unwrap()])).unwrap();
    let obj = out.as_object().unwrap();
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["results"]);
    let results = out["results"].as_array().unwrap();
    let want = vectors();
    assert_eq!(results.len(), want.len());
    let mut names: Vec<&str> = want
        .iter()
        .map(|v| v["instruction"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 27, "the data covers every builtin");
    for (got, v) in results.iter().zip(&want) {
        assert_eq!(got["id"], v["id"]);
        // Only id and D: a `disagreeing_blocks` field would mean the blocks differ.
        assert_eq!(
            got.as_object().unwrap().len(),
            2,
            "{}: {:?}",
            v["id"],
            got.as_object().unwrap().keys()
        );
        let (g, w) = (got["D"].as_array().unwrap(), v["D"].as_array().unwrap());
        assert_eq!(g.len(), w.len(), "{}", v["id"]);
        for (n, (g, w)) in g.iter().zip(w).enumerate() {
            let (g, w) = (g.as_str().unwrap(), w.as_str().unwrap());
            assert_eq!(g.len(), w.len(), "{} D[{n}]: fixed width", v["id"]);
            assert!(
                g.bytes()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)),
                "lowercase hex {g}"
            );
            assert!(same_bits(w, g), "{} D[{n}]: want {w}, got {g}", v["id"]);
        }
    }
    // The subset includes NaN results, so the by-class comparison is exercised.
    let nan_vectors = want
        .iter()
        .filter(|v| {
            v["D"].as_array().unwrap().iter().any(|x| {
                let x = x.as_str().unwrap();
                same_bits(
                    x,
                    if x.len() == 8 {
                        "7fc00000"
                    } else {
                        "7ff8000000000000"
                    },
                )
            })
        })
        .count();
    assert!(nan_vectors > 0);
}

/// Writes a vectors file holding `vectors` and runs `mfma run` on it, expecting failure.
fn run_fails(test: &str, doc: &str) -> String {
    let dir = scratch(&format!("run-{test}"));
    let path = dir.join("in.json");
    std::fs::write(&path, doc).unwrap();
    fails(&["run", "--input", path.to_str().unwrap()])
}

fn with(v: &Value, field: &str, value: Value) -> String {
    let mut v = v.clone();
    v[field] = value;
    json!({ "vectors": [v] }).to_string()
}

#[test]
fn bad_input_is_an_error() {
    let v = vectors()
        .into_iter()
        .find(|v| v["instruction"] == "f32_4x4x4f16")
        .unwrap();
    let id = v["id"].as_str().unwrap().to_string();
    let short: Vec<Value> = v["A"].as_array().unwrap()[1..].to_vec();
    let mut bad_hex = v["B"].as_array().unwrap().clone();
    bad_hex[3] = json!("3c0g");
    let mut wide = v["C"].as_array().unwrap().clone();
    wide[0] = json!("3f80000000");
    let cases = [
        (
            "json",
            "{\"vectors\": [".to_string(),
            "is not valid JSON".to_string(),
        ),
        (
            "novectors",
            "{\"tests\": []}".to_string(),
            "has no top-level `vectors` list".to_string(),
        ),
        (
            "noid",
            json!({"vectors": [{"instruction": "f32_4x4x4f16"}]}).to_string(),
            "vector 0: missing string field `id`".to_string(),
        ),
        (
            "unknown",
            with(&v, "instruction", json!("f32_4x4x4fp16")),
            format!("vector `{id}`: unknown builtin `f32_4x4x4fp16`: did you mean `f32_4x4x4f16`?"),
        ),
        (
            "m",
            with(&v, "M", json!(16)),
            format!("vector `{id}`: `M` is 16 but f32_4x4x4f16 has M = 4"),
        ),
        (
            "k",
            with(&v, "K", json!("4")),
            format!("vector `{id}`: `K` is \"4\" but f32_4x4x4f16 has K = 4"),
        ),
        (
            "length",
            with(&v, "A", Value::from(short)),
            format!("vector `{id}`: `A` has 15 elements but needs M*K = 16"),
        ),
        (
            "hex",
            with(&v, "B", Value::from(bad_hex)),
            format!("vector `{id}`: `B`[3] = \"3c0g\": expected a 4-digit hex bit pattern of f16"),
        ),
        (
            "width",
            with(&v, "C", Value::from(wide)),
            format!(
                "vector `{id}`: `C`[0] = \"3f80000000\": expected a 8-digit hex bit pattern of f32"
            ),
        ),
        (
            "missing",
            with(&v, "C", Value::Null),
            format!("vector `{id}`: missing list field `C`"),
        ),
    ];
    for (test, doc, want) in cases {
        let err = run_fails(test, &doc);
        assert!(
            err.starts_with("error: ") && err.contains(&want),
            "{test}: {err}"
        );
    }
    let err = fails(&["run", "--input", "/nonexistent/vectors.json"]);
    assert!(
        err.starts_with("error: cannot read `/nonexistent/vectors.json`: "),
        "{err}"
    );
}

#[test]
fn one_bad_vector_prints_no_results() {
    let vs = vectors();
    let mut bad = vs[1].clone();
    bad["instruction"] = json!("nope");
    let doc = json!({ "vectors": [vs[0].clone(), bad] }).to_string();
    let dir = scratch("run-partial");
    let path = dir.join("in.json");
    std::fs::write(&path, doc).unwrap();
    let out = mfma(&["run", "--input", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn identity_b_copies_a() {
    // The seed's demo check, through the CLI: D = A*I + 0 = A, in every family.
    for (name, one, zero, m, k) in [
        ("f32_16x16x4f32", "3f800000", "00000000", 16, 4),
        ("f64_4x4x4f64", "3ff0000000000000", "0000000000000000", 4, 4),
        ("f32_4x4x4f16", "3c00", "0000", 4, 4),
        ("i32_16x16x16i8", "01", "00", 16, 16),
    ] {
        let n = m;
        let a: Vec<String> = (0..m * k)
            .map(|x| if x % 3 == 0 { one.into() } else { zero.into() })
            .collect();
        let b: Vec<String> = (0..k * n)
            .map(|x| {
                if x / n == x % n {
                    one.into()
                } else {
                    zero.into()
                }
            })
            .collect();
        let width = if name.starts_with("f64") { 16 } else { 8 };
        let c: Vec<String> = vec!["0".repeat(width); m * n];
        let doc =
            json!({"vectors": [{"id": "identity", "instruction": name, "A": a, "B": b, "C": c}]});
        let dir = scratch(&format!("run-identity-{name}"));
        let path = dir.join("in.json");
        std::fs::write(&path, doc.to_string()).unwrap();
        let out: Value =
            serde_json::from_str(&ok(&["run", "--input", path.to_str().unwrap()])).unwrap();
        let d = out["results"][0]["D"].as_array().unwrap();
        let one_out = match name {
            n if n.starts_with("f64") => "3ff0000000000000",
            n if n.starts_with("i32") => "00000001",
            _ => "3f800000",
        };
        let zero_out = "0".repeat(one_out.len());
        for i in 0..m {
            for j in 0..n {
                // A is m x k; with K < N the columns past K of A*I are zero.
                let want = if j < k && (i * k + j) % 3 == 0 {
                    one_out
                } else {
                    &zero_out
                };
                assert_eq!(d[i * n + j], want, "{name} D[{i}][{j}]");
            }
        }
    }
}
