//! `mfma run`: the copied vectors reproduce D bit for bit (NaN by class),
//! and every kind of bad input is a clear error with exit status 2.

use crate::common::{fails, mfma, ok, same_bits, scratch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vectors.json")
}

/// The CDNA3 vectors, all of them: a missing file fails the test (they are
/// the only bit-exact evidence for CDNA3's arithmetic).
fn cdna3_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors/cdna3-numerics.json")
}

fn vectors_of(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

fn vectors() -> Vec<Value> {
    vectors_of(&data())
}

/// Whether a hex pattern is a NaN of its width.
fn is_nan(x: &str) -> bool {
    same_bits(
        x,
        if x.len() == 8 {
            "7fc00000"
        } else {
            "7ff8000000000000"
        },
    )
}

/// Runs `mfma run` on `path` and compares every D with the file's, bit for
/// bit (NaN by class); returns (instructions covered, vectors with a NaN).
fn reproduce(path: &Path) -> (usize, usize) {
    let out: Value =
        serde_json::from_str(&ok(&["run", "--input", path.to_str().unwrap()])).unwrap();
    let obj = out.as_object().unwrap();
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["results"]);
    let results = out["results"].as_array().unwrap();
    let want = vectors_of(path);
    assert_eq!(results.len(), want.len());
    let mut names: Vec<&str> = want
        .iter()
        .map(|v| v["instruction"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    names.dedup();
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
    let nan_vectors = want
        .iter()
        .filter(|v| {
            v["D"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| is_nan(x.as_str().unwrap()))
        })
        .count();
    (names.len(), nan_vectors)
}

#[test]
fn vectors_reproduce_d_bit_for_bit() {
    let (covered, nans) = reproduce(&data());
    assert_eq!(covered, 27, "the data covers every builtin");
    // The subset includes NaN results, so the by-class comparison is exercised.
    assert!(nans > 0);
}

#[test]
fn every_cdna3_vector_reproduces_d_bit_for_bit() {
    let path = cdna3_data();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        doc["arch"], "cdna3",
        "the file says whose instructions it names"
    );
    let (covered, nans) = reproduce(&path);
    assert_eq!(vectors_of(&path).len(), 694);
    assert_eq!(covered, 32, "the file covers every CDNA3 builtin");
    assert!(nans > 0);
}

/// The architecture decides the arithmetic: the CDNA3 vectors of the 20
/// builtins both architectures have, run as CDNA2, give other results.
#[test]
fn arch_selects_the_arithmetic() {
    let both: Vec<Value> = vectors_of(&cdna3_data())
        .into_iter()
        .filter(|v| mfma_spec::find(v["instruction"].as_str().unwrap()).is_some())
        .collect();
    assert!(both.len() > 400, "{}", both.len());
    let dir = scratch("run-as-cdna2");
    let path = dir.join("in.json");
    std::fs::write(&path, json!({"arch": "cdna2", "vectors": both}).to_string()).unwrap();
    let out: Value =
        serde_json::from_str(&ok(&["run", "--input", path.to_str().unwrap()])).unwrap();
    let differ = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&both)
        .filter(|(got, v)| {
            got["D"]
                .as_array()
                .unwrap()
                .iter()
                .zip(v["D"].as_array().unwrap())
                .any(|(g, w)| !same_bits(w.as_str().unwrap(), g.as_str().unwrap()))
        })
        .count();
    // Flush-to-zero, pairwise trees and (for f32/f64/i8) nothing: many differ, not all.
    assert!(
        differ > 50 && differ < both.len(),
        "{differ} of {}",
        both.len()
    );
}

/// The names of one file mean the architecture its `arch` names, which a
/// prefix or `--arch` may repeat but not contradict.
#[test]
fn arch_of_the_input() {
    let v = vectors_of(&cdna3_data())
        .into_iter()
        .find(|v| v["instruction"] == "f32_16x16x16f16")
        .unwrap();
    let id = v["id"].as_str().unwrap().to_string();
    let want = v["D"].clone();
    let prefixed = {
        let mut p = v.clone();
        p["instruction"] = json!("cdna3::f32_16x16x16f16");
        p
    };
    let dir = scratch("run-arch");
    let write = |name: &str, doc: Value| {
        let path = dir.join(name);
        std::fs::write(&path, doc.to_string()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let in_file = write(
        "file.json",
        json!({"arch": "cdna3", "vectors": [v.clone()]}),
    );
    let bare = write("bare.json", json!({"vectors": [v.clone()]}));
    let prefix = write("prefix.json", json!({"vectors": [prefixed.clone()]}));
    let both = write("both.json", json!({"arch": "cdna3", "vectors": [prefixed]}));
    for args in [
        vec!["run", "--input", &in_file],
        vec!["run", "--input", &in_file, "--arch", "cdna3"],
        vec!["run", "--input", &bare, "--arch", "cdna3"],
        vec!["run", "--input", &prefix],
        vec!["run", "--input", &both],
    ] {
        let out: Value = serde_json::from_str(&ok(&args)).unwrap();
        let got = out["results"][0]["D"].as_array().unwrap();
        let want = want.as_array().unwrap();
        let same = got
            .iter()
            .zip(want)
            .all(|(g, w)| same_bits(w.as_str().unwrap(), g.as_str().unwrap()));
        assert!(same, "{args:?}");
    }
    for (args, msg) in [
        (
            vec!["run", "--input", &in_file, "--arch", "cdna2"],
            format!(
                "error: `{in_file}`: the input's `arch` is cdna3 but --arch asks for cdna2: \
                 drop one of them\n"
            ),
        ),
        (
            vec!["run", "--input", &prefix, "--arch", "cdna2"],
            format!(
                "error: vector `{id}`: `cdna3::f32_16x16x16f16` names a CDNA3 builtin but \
                 --arch asks for CDNA2 (cdna2): drop the prefix or change --arch\n"
            ),
        ),
        (
            vec!["run", "--input", &both, "--arch", "cdna2"],
            format!(
                "error: `{both}`: the input's `arch` is cdna3 but --arch asks for cdna2: drop \
                 one of them\n"
            ),
        ),
    ] {
        assert_eq!(fails(&args), msg, "{args:?}");
    }
    let mut p = v.clone();
    p["instruction"] = json!("cdna3::f32_16x16x16f16");
    let contradict = write("contradict.json", json!({"arch": "cdna2", "vectors": [p]}));
    assert_eq!(
        fails(&["run", "--input", &contradict]),
        format!(
            "error: vector `{id}`: `cdna3::f32_16x16x16f16` names a CDNA3 builtin but the \
             input's `arch` asks for CDNA2 (cdna2): drop the prefix or change the input's `arch`\n"
        )
    );
    for (arch, msg) in [
        (
            json!("cdna4"),
            "unknown architecture `cdna4`: expected `cdna2` (CDNA2) or `cdna3` (CDNA3)",
        ),
        (json!(3), "top-level `arch` is 3, not a string"),
    ] {
        let path = write(
            "bad-arch.json",
            json!({"arch": arch, "vectors": [v.clone()]}),
        );
        assert_eq!(
            fails(&["run", "--input", &path]),
            format!("error: `{path}`: {msg}\n")
        );
    }
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
            format!(
                "vector `{id}`: unknown CDNA2 builtin `f32_4x4x4fp16`: did you mean `f32_4x4x4f16`?"
            ),
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
    // The seed's demo check, through the CLI: D = A*I + 0 = A, in every family
    // (one and zero in the input type, then one in the output type).
    for (name, one, zero, one_out, [m, n, k]) in [
        (
            "f32_16x16x4f32",
            "3f800000",
            "00000000",
            "3f800000",
            [16, 16, 4],
        ),
        (
            "f64_4x4x4f64",
            "3ff0000000000000",
            "0000000000000000",
            "3ff0000000000000",
            [4, 4, 4],
        ),
        ("f32_4x4x4f16", "3c00", "0000", "3f800000", [4, 4, 4]),
        ("i32_16x16x16i8", "01", "00", "00000001", [16, 16, 16]),
        // CDNA3: 1.0 is 0x40 in both FNUZ formats (bias 8 and 16); xf32 is f32 bits.
        (
            "cdna3::f32_16x16x32_fp8_bf8",
            "40",
            "00",
            "3f800000",
            [16, 16, 32],
        ),
        (
            "cdna3::f32_32x32x16_bf8_bf8",
            "40",
            "00",
            "3f800000",
            [32, 32, 16],
        ),
        (
            "cdna3::f32_16x16x8_xf32",
            "3f800000",
            "00000000",
            "3f800000",
            [16, 16, 8],
        ),
        (
            "cdna3::i32_16x16x32_i8",
            "01",
            "00",
            "00000001",
            [16, 16, 32],
        ),
        (
            "cdna3::f64_4x4x4f64",
            "3ff0000000000000",
            "0000000000000000",
            "3ff0000000000000",
            [4, 4, 4],
        ),
    ] {
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
        let zero_out = "0".repeat(one_out.len());
        let c: Vec<String> = vec![zero_out.clone(); m * n];
        let doc =
            json!({"vectors": [{"id": "identity", "instruction": name, "A": a, "B": b, "C": c}]});
        let dir = scratch(&format!("run-identity-{}", name.replace("::", "-")));
        let path = dir.join("in.json");
        std::fs::write(&path, doc.to_string()).unwrap();
        let out: Value =
            serde_json::from_str(&ok(&["run", "--input", path.to_str().unwrap()])).unwrap();
        let d = out["results"][0]["D"].as_array().unwrap();
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

/// Hex widths follow the element type: 2 digits fp8/bf8, 8 xf32.
#[test]
fn hex_widths_follow_the_element_types() {
    let v = vectors_of(&cdna3_data())
        .into_iter()
        .find(|v| v["instruction"] == "f32_16x16x32_fp8_bf8")
        .unwrap();
    let mut a = v["A"].as_array().unwrap().clone();
    a[0] = json!("040");
    let doc = json!({"arch": "cdna3", "vectors": [{"id": "w", "instruction": "f32_16x16x32_fp8_bf8", "A": a, "B": v["B"], "C": v["C"]}]});
    assert_eq!(
        run_fails("width-fp8", &doc.to_string()),
        "error: vector `w`: `A`[0] = \"040\": expected a 2-digit hex bit pattern of fp8\n"
    );
    let mut b = v["B"].as_array().unwrap().clone();
    b[1] = json!("3f80");
    let doc = json!({"arch": "cdna3", "vectors": [{"id": "w", "instruction": "f32_16x16x32_fp8_bf8", "A": v["A"], "B": b, "C": v["C"]}]});
    assert_eq!(
        run_fails("width-bf8", &doc.to_string()),
        "error: vector `w`: `B`[1] = \"3f80\": expected a 2-digit hex bit pattern of bf8\n"
    );
}

/// The SMFMAC vectors (CDNA3, schema of `cdna3-smfmac.json`): all of them;
/// a missing file fails the test.
fn smfmac_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors/cdna3-smfmac.json")
}

/// Every SMFMAC vector: compressed A and IDX in, D bit for bit out (NaN by
/// class). These D rest on the file's stated ASSUMPTION (two chained dense
/// instructions of half the K), which `info` repeats.
#[test]
fn every_smfmac_vector_reproduces_d_bit_for_bit() {
    let path = smfmac_data();
    let all = vectors_of(&path);
    assert_eq!(all.len(), 112);
    let (covered, _) = reproduce(&path);
    assert_eq!(covered, 14, "the file covers every SMFMAC builtin");
    // Each vector states the compressed shape: A and IDX are M x K/2.
    for v in &all {
        let (m, k) = (v["M"].as_u64().unwrap(), v["K"].as_u64().unwrap());
        assert_eq!(v["A"].as_array().unwrap().len() as u64, m * k / 2);
        assert_eq!(v["IDX"].as_array().unwrap().len() as u64, m * k / 2);
    }
}

/// One SMFMAC vector of `name`, with the file's `arch`.
fn smfmac_vector(name: &str) -> Value {
    vectors_of(&smfmac_data())
        .into_iter()
        .find(|v| v["instruction"] == name)
        .unwrap()
}

fn run_one(test: &str, v: &Value) -> Value {
    let dir = scratch(&format!("run-{test}"));
    let path = dir.join("in.json");
    std::fs::write(&path, json!({"arch": "cdna3", "vectors": [v]}).to_string()).unwrap();
    let out: Value =
        serde_json::from_str(&ok(&["run", "--input", path.to_str().unwrap()])).unwrap();
    out["results"][0]["D"].clone()
}

/// cbsz/abid pick which index set the instruction reads (CDNA3 3.4); IDX
/// fills every set, so every legal pair runs and gives the vector's D.
/// Illegal pairs are refused with the spec's message before anything runs.
#[test]
fn smfmac_modifiers_are_checked_then_run() {
    for (name, sets) in [
        ("smfmac_f32_32x32x16_bf16", 4),
        ("smfmac_f32_16x16x64_fp8_bf8", 2),
    ] {
        let v = smfmac_vector(name);
        for cbsz in 0..=3 {
            for abid in 0..sets {
                let mut w = v.clone();
                w["cbsz"] = json!(cbsz);
                w["abid"] = json!(abid);
                let d = run_one(&format!("mods-{name}-{cbsz}-{abid}"), &w);
                let same = d
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(v["D"].as_array().unwrap())
                    .all(|(g, w)| same_bits(w.as_str().unwrap(), g.as_str().unwrap()));
                assert!(same, "{name} cbsz {cbsz} abid {abid}");
            }
        }
        let id = v["id"].as_str().unwrap();
        for (field, value, msg) in [
            (
                "abid",
                json!(sets),
                format!(
                    "abid must be in 0..={} for cdna3::{name} (got {sets}): it picks one of the \
                     {sets} index sets of the index register ({} bits each), whatever cbsz is",
                    sets - 1,
                    32 / sets
                ),
            ),
            (
                "cbsz",
                json!(4),
                format!(
                    "cbsz must be in 0..=3 for cdna3::{name} (got 4): on SMFMAC cbsz 0 lets abid \
                     pick the index set and 1..=3 use set 0; larger values are undefined"
                ),
            ),
            ("cbsz", json!("1"), "`cbsz` is \"1\", not an integer".into()),
        ] {
            let mut w = v.clone();
            w[field] = value;
            let doc = json!({"arch": "cdna3", "vectors": [w]}).to_string();
            assert_eq!(
                run_fails(&format!("mods-bad-{name}-{field}"), &doc),
                format!("error: vector `{id}`: {msg}\n")
            );
        }
    }
}

/// A dense vector given an SMFMAC name, an SMFMAC vector given a dense
/// name, and bad IDX: each error says what the schema wants.
#[test]
fn smfmac_input_errors_say_why() {
    let v = smfmac_vector("smfmac_f32_16x16x32_f16");
    let id = v["id"].as_str().unwrap().to_string();
    let doc = |v: Value| json!({"arch": "cdna3", "vectors": [v]}).to_string();
    let with = |field: &str, value: Value| {
        let mut w = v.clone();
        w[field] = value;
        w
    };
    let mut no_idx = v.clone();
    no_idx.as_object_mut().unwrap().remove("IDX");
    let mut idx = v["IDX"].as_array().unwrap().clone();
    let mut same = idx.clone();
    same[1] = same[0].clone();
    idx[5] = json!(4);
    let mut dense = with("instruction", json!("f32_16x16x16f16"));
    dense["K"] = json!(16);
    for (test, input, msg) in [
        (
            "no-idx",
            no_idx,
            "missing list field `IDX`: cdna3::smfmac_f32_16x16x32_f16 is a structured-sparse \
             SMFMAC builtin, so its vector gives A compressed (M*K/2 = 256 values) and IDX, the \
             position (0..=3) of each in its group of 4 k (the schema of cdna3-smfmac.json)"
                .to_string(),
        ),
        (
            "idx-on-dense",
            dense,
            "`IDX` is given but cdna3::f32_16x16x16f16 is a dense MFMA builtin: only the \
             structured-sparse SMFMAC builtins (`smfmac_...`) take an index, and a dense A is \
             all M*K values"
                .to_string(),
        ),
        (
            "idx-range",
            with("IDX", Value::from(idx)),
            "`IDX`[5] = 4: expected a position 0..=3 in the group of 4 k".to_string(),
        ),
        (
            "idx-same",
            with("IDX", Value::from(same.clone())),
            format!(
                "`IDX`: both values stored for row 0, group 0 of the A of \
                 cdna3::smfmac_f32_16x16x32_f16 have position {}: they must lie at two \
                 different k of the group",
                same[0]
            ),
        ),
        (
            "idx-len",
            with("IDX", Value::from(vec![json!(0); 512])),
            "`IDX` has 512 elements but needs M*K/2 = 256 (one position per stored A value)"
                .to_string(),
        ),
        (
            "a-len",
            with("A", Value::from(vec![json!("0000"); 512])),
            "`A` has 512 elements but needs M*K/2 (A is compressed) = 256".to_string(),
        ),
    ] {
        assert_eq!(
            run_fails(&format!("smfmac-{test}"), &doc(input)),
            format!("error: vector `{id}`: {msg}\n"),
            "{test}"
        );
    }
}

/// A sparse A of ones at the positions IDX names times B = I gives D = the
/// decompressed A (one row of I per logical k), whatever the positions.
#[test]
fn smfmac_identity_b_decompresses_a() {
    for (name, one, one_out, [m, n, k]) in [
        ("smfmac_f32_16x16x32_f16", "3c00", "3f800000", [16, 16, 32]),
        ("smfmac_i32_16x16x64_i8", "01", "00000001", [16, 16, 64]),
        (
            "smfmac_f32_32x32x32_bf8_fp8",
            "40",
            "3f800000",
            [32, 32, 32],
        ),
    ] {
        let zero = "0".repeat(one.len());
        let zero_out = "0".repeat(one_out.len());
        let kc = k / 2;
        // Row i stores ones at positions (p, q) of every group: a pair
        // chosen by (i + g) among the 6 ordered pairs.
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let pos = |i: usize, c: usize| {
            let (p, q) = pairs[(i + c / 2) % 6];
            if c.is_multiple_of(2) {
                p
            } else {
                q
            }
        };
        let a: Vec<&str> = (0..m * kc).map(|_| one).collect();
        let idx: Vec<usize> = (0..m * kc).map(|x| pos(x / kc, x % kc)).collect();
        let b: Vec<String> = (0..k * n)
            .map(|x| {
                if x / n == x % n {
                    one.into()
                } else {
                    zero.clone()
                }
            })
            .collect();
        let c = vec![zero_out.clone(); m * n];
        let v = json!({"id": "identity", "instruction": name, "A": a, "IDX": idx, "B": b, "C": c});
        let d = run_one(&format!("identity-{name}"), &v);
        let d = d.as_array().unwrap();
        for i in 0..m {
            for j in 0..n {
                // D[i][j] = A_dec[i][j]: 1 where column j is a stored position of row i.
                let stored = (0..kc).any(|c| 4 * (c / 2) + pos(i, c) == j);
                let want = if j < k && stored { one_out } else { &zero_out };
                assert_eq!(d[i * n + j], want, "{name} D[{i}][{j}]");
            }
        }
    }
}
