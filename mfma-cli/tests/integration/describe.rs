//! `mfma list` and `mfma info`: the table as printed, and the derived
//! figures checked against formulas stated here (reference 1 and 3, seed),
//! for every architecture. `cdna3_facts.rs` checks CDNA3's table itself.

use crate::common;
use crate::common::{all_shapes, broadcast_pairs, json, ok, snapshot, strings, Shape, ARCHS};
use serde_json::Value;

fn bits(t: &str) -> usize {
    match t {
        "f64" => 64,
        "f32" | "xf32" | "i32" => 32,
        "f16" | "bf16" => 16,
        "i8" | "fp8" | "bf8" => 8,
        "idx" => 4,
        _ => panic!("type {t}"),
    }
}

/// `<out>_<M>x<N>x<K><in>[_1k]`, the naming convention of the seed, and
/// CDNA3's `[smfmac_]<out>_<M>x<N>x<K>_<A>[_<B>]` (B's type is A's unless
/// named): (out, M, N, K, A type, B type).
fn parse_name(name: &str) -> (String, usize, usize, usize, String, String) {
    let name = name.strip_prefix("smfmac_").unwrap_or(name);
    let (out, rest) = name.split_once('_').unwrap();
    let rest = rest.trim_end_matches("_1k");
    let mut dims = rest.splitn(3, 'x');
    let m = dims.next().unwrap().parse().unwrap();
    let n = dims.next().unwrap().parse().unwrap();
    let kin = dims.next().unwrap();
    let digits = kin.bytes().take_while(u8::is_ascii_digit).count();
    let (k, input) = kin.split_at(digits);
    let input = input.trim_start_matches('_');
    let (a, b) = input.split_once('_').unwrap_or((input, input));
    (out.into(), m, n, k.parse().unwrap(), a.into(), b.into())
}

#[test]
fn list_agrees_with_names_and_lane_counts() {
    for (arch, count) in ARCHS.into_iter().zip([27, 46]) {
        let all = common::shapes_of(arch);
        assert_eq!(all.len(), count, "{arch}");
        let mut names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "{arch}: names are unique");
        for s in &all {
            assert_eq!(s.arch, arch);
            let (out, m, n, k, a, b) = parse_name(&s.name);
            assert_eq!((m, n, k), (s.m, s.n, s.k), "{}", s.id());
            assert_eq!([&out, &a, &b], [&s.cd, &s.a, &s.b], "{}", s.id());
            // 64 lanes hold every element of every block exactly once
            // (reference 2); an SMFMAC's A stores K/2 of each row (CDNA3 2.1).
            let a_cols = if s.sparse() { s.k / 2 } else { s.k };
            assert_eq!(64 * s.a_per_lane, s.blocks * s.m * a_cols, "{} A", s.id());
            assert_eq!(64 * s.b_per_lane, s.blocks * s.k * s.n, "{} B", s.id());
            assert_eq!(64 * s.cd_per_lane, s.blocks * s.m * s.n, "{} C", s.id());
            assert_eq!(s.sparse_json.is_null(), !s.sparse(), "{}", s.id());
        }
    }
}

#[test]
fn list_json_names_both_input_types() {
    for arch in ARCHS {
        for v in json(&["list", "--arch", arch, "--format", "json"])
            .as_array()
            .unwrap()
        {
            // `ab_type` is the common type, and null where A and B differ.
            let same = v["a_type"] == v["b_type"];
            let want = if same {
                v["a_type"].clone()
            } else {
                Value::Null
            };
            assert_eq!(v["ab_type"], want, "{}", v["name"]);
        }
    }
    let mixed = common::shape("cdna3::f32_16x16x32_bf8_fp8");
    assert_eq!((mixed.a.as_str(), mixed.b.as_str()), ("bf8", "fp8"));
}

#[test]
fn list_modifier_ranges_follow_reference_3() {
    for arch in ARCHS {
        let list = json(&["list", "--arch", arch, "--format", "json"]);
        for (v, s) in list.as_array().unwrap().iter().zip(common::shapes_of(arch)) {
            let pairs = broadcast_pairs(&s);
            let cbsz_max = pairs.iter().map(|p| p.0).max().unwrap();
            let abid_max = pairs.iter().map(|p| p.1).max().unwrap();
            let blgp = common::blgp_max(&s);
            let neg = common::neg_max(&s);
            let m = &v["modifiers"];
            assert_eq!(m["cbsz_max"], cbsz_max, "{}", s.id());
            assert_eq!(m["abid_max"], abid_max, "{}", s.id());
            assert_eq!(m["blgp_max"], blgp, "{}", s.id());
            assert_eq!(m["neg_max"], neg, "{}", s.id());
            assert_eq!(
                m["combinations"],
                pairs.len() * (blgp + 1) * (neg + 1),
                "{}",
                s.id()
            );
            let mut kinds = Vec::new();
            if cbsz_max > 0 {
                kinds.extend(["cbsz", "abid"]);
            }
            if blgp > 0 {
                kinds.push("blgp");
            }
            if neg > 0 {
                kinds.push("neg");
            }
            assert_eq!(strings(&m["kinds"]), kinds, "{}", s.id());
        }
    }
}

/// The modifiers column of `list`: what each builtin takes, the abid rule,
/// `none` for those that take nothing.
#[test]
fn list_table_states_the_modifiers_in_words() {
    for arch in ARCHS {
        let text = ok(&["list", "--arch", arch]);
        for s in common::shapes_of(arch) {
            let line = text
                .lines()
                .find(|l| l.split_whitespace().next() == Some(s.name.as_str()))
                .unwrap_or_else(|| panic!("{}: no line", s.id()));
            let (cbsz, blgp, neg) = (
                broadcast_pairs(&s).last().unwrap().0,
                common::blgp_max(&s),
                common::neg_max(&s),
            );
            let want = match (cbsz, blgp, neg) {
                _ if s.sparse() => format!("cbsz 0..=3, abid 0..={} (the index set)", s.sets() - 1),
                (0, 0, 0) => "none".to_string(),
                (0, 7, 0) => "blgp 0..=7".to_string(),
                (0, 0, 7) => "neg [a, b, c] (any subset)".to_string(),
                (c, 7, 0) => format!(
                    "cbsz 0..={c}, abid 0..={} (below 2^cbsz), blgp 0..=7",
                    (1 << c) - 1
                ),
                other => panic!("{}: no such combination {other:?}", s.id()),
            };
            assert!(line.ends_with(&format!("  {want}")), "{}: {line}", s.id());
            let ab = if s.a == s.b {
                s.a.clone()
            } else {
                format!("{},{}", s.a, s.b)
            };
            let per_lane = if s.a_per_lane == s.b_per_lane {
                format!("x{}", s.a_per_lane)
            } else {
                format!("x{},x{}", s.a_per_lane, s.b_per_lane)
            };
            assert!(line.contains(&format!("  {ab} {per_lane}  ")), "{line}");
        }
    }
}

/// The seed's alias for `count` elements of `t` per lane (i8 travels packed in ints).
fn alias(t: &str, count: usize) -> String {
    let (kind, scalar, count) = match t {
        "f32" => ("float", "float", count),
        "f64" => ("double", "double", count),
        "i32" => ("int", "int", count),
        "i8" => ("int", "int", count / 4),
        "f16" => ("half", "_Float16", count),
        "bf16" => ("bfloat", "short", count),
        _ => panic!("{t}"),
    };
    if count == 1 {
        scalar.into()
    } else {
        format!("v{count}{kind}")
    }
}

fn info(s: &Shape) -> Value {
    json(&["info", &s.id(), "--format", "json"])
}

#[test]
fn info_derived_figures() {
    for s in all_shapes() {
        let v = info(&s);
        assert_eq!(v["name"], s.name.as_str());
        assert_eq!(v["arch"], s.arch.as_str());
        // SMFMAC names carry their own `smfmac_` (CDNA3 reference 1).
        let family = if s.sparse() { "" } else { "mfma_" };
        assert_eq!(
            v["hip_builtin"],
            format!("__builtin_amdgcn_{family}{}", s.name)
        );
        assert_eq!(
            v["llvm_intrinsic"],
            format!("llvm.amdgcn.{family}{}", s.name).replace('_', ".")
        );
        let ops = 2 * s.m * s.n * s.k * s.blocks;
        assert_eq!(v["ops"], ops, "{}", s.id());
        let cycles = v["cycles"].as_u64().unwrap() as usize;
        assert_eq!(v["peak_ops_per_cu_per_cycle"], ops / cycles, "{}", s.id());
        // CDNA2 reference 1: VALU co-execution is unsupported exactly on
        // FP64; CDNA3's figures are not published at all.
        let unknown = s.cdna3() || s.a == "f64";
        assert_eq!(v["valu_coexec_cycles"].is_null(), unknown, "{}", s.id());
        assert_eq!(v["valu_coexec_published"], !s.cdna3(), "{}", s.id());
        let targets = if s.cdna3() { "gfx942" } else { "gfx90a" };
        assert_eq!(v["targets"], Value::from(vec![targets]), "{}", s.id());
        let mut operands = vec![
            ("a", s.a_per_lane, s.a.as_str()),
            ("b", s.b_per_lane, s.b.as_str()),
            ("c", s.cd_per_lane, s.cd.as_str()),
            ("d", s.cd_per_lane, s.cd.as_str()),
        ];
        // The index: 8 fields of 4 bits, one VGPR (CDNA3 2.2).
        if s.sparse() {
            operands.push(("idx", 8, "idx"));
        } else {
            assert!(v["layouts"].get("idx").is_none(), "{}", s.id());
        }
        for (op, per, t) in operands {
            assert_eq!(
                v["vgprs"][op],
                (per * bits(t)).div_ceil(32),
                "{} {op}",
                s.id()
            );
            assert_eq!(v["layouts"][op]["items"], per, "{} {op}", s.id());
            assert_eq!(v["layouts"][op]["lanes"], 64, "{} {op}", s.id());
        }
        if s.cdna3() {
            continue; // ISA names and C types: cdna3_facts.rs, from the reference table.
        }
        assert_eq!(v["isa"], format!("v_mfma_{}", s.name));
        let ab = alias(&s.a, s.a_per_lane);
        let cd = alias(&s.cd, s.cd_per_lane);
        assert_eq!(
            v["c_signature"],
            format!(
                "{cd} __builtin_amdgcn_mfma_{}({ab} a, {ab} b, {cd} c, int cbsz, int abid, int blgp)",
                s.name
            )
        );
        // Every vector alias in the signature is declared, with its element count.
        let decls: Vec<&str> = strings(&v["c_types"]);
        for t in [&ab, &cd] {
            if let Some(rest) = t.strip_prefix('v') {
                let count: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let want = format!("using {t} = ");
                let d = decls
                    .iter()
                    .find(|d| d.starts_with(&want))
                    .unwrap_or_else(|| panic!("{}: no declaration of {t} in {decls:?}", s.name));
                assert!(
                    d.contains(&format!("[[clang::ext_vector_type({count})]]")),
                    "{d}"
                );
            }
        }
    }
}

#[test]
fn info_layout_formulas_evaluate_to_reference_2() {
    // The printed formulas are plain integer arithmetic; evaluate them at every element.
    for s in all_shapes() {
        let v = info(&s);
        for op in s.operands().into_iter().filter(|&o| o != 'd') {
            let l = &v["layouts"][common::op_name(op)];
            let names: Vec<&str> = strings(&l["coords"]);
            // An SMFMAC's A is indexed by its compressed column, its index by set.
            let want = match op {
                'a' if s.sparse() => ["block", "i", "kc"],
                'a' => ["block", "i", "k"],
                'b' => ["block", "k", "j"],
                'x' => ["set", "i", "g"],
                _ => ["block", "i", "j"],
            };
            assert_eq!(names, want, "{} {op}", s.id());
            let block = if op == 'x' { "set" } else { "b" };
            for e in s.elements(op) {
                let vars = [(block, e[0]), (names[1], e[1]), (names[2], e[2])];
                let lane = eval(l["lane"].as_str().unwrap(), &vars);
                let item = eval(l["item"].as_str().unwrap(), &vars);
                assert_eq!((lane, item), s.slot(op, e), "{} {op} {e:?}", s.id());
            }
        }
    }
}

/// Evaluates `+ - * / %` and parentheses over non-negative integers and named variables.
fn eval(expr: &str, vars: &[(&str, usize)]) -> usize {
    fn sum(t: &mut std::iter::Peekable<std::vec::IntoIter<String>>, v: &[(&str, usize)]) -> usize {
        let mut x = product(t, v);
        while t.peek().map(String::as_str) == Some("+") {
            t.next();
            x += product(t, v);
        }
        x
    }
    fn product(
        t: &mut std::iter::Peekable<std::vec::IntoIter<String>>,
        v: &[(&str, usize)],
    ) -> usize {
        let mut x = atom(t, v);
        while let Some(op) = t
            .peek()
            .cloned()
            .filter(|o| ["*", "/", "%"].contains(&o.as_str()))
        {
            t.next();
            let y = atom(t, v);
            x = match op.as_str() {
                "*" => x * y,
                "/" => x / y,
                _ => x % y,
            };
        }
        x
    }
    fn atom(t: &mut std::iter::Peekable<std::vec::IntoIter<String>>, v: &[(&str, usize)]) -> usize {
        let tok = t.next().expect("an operand");
        if tok == "(" {
            let x = sum(t, v);
            assert_eq!(t.next().as_deref(), Some(")"));
            return x;
        }
        tok.parse().unwrap_or_else(|_| {
            v.iter()
                .find(|(n, _)| *n == tok)
                .unwrap_or_else(|| panic!("unknown name {tok}"))
                .1
        })
    }
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in expr.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    let mut t = tokens.into_iter().peekable();
    let x = sum(&mut t, vars);
    assert!(t.next().is_none(), "trailing tokens in {expr}");
    x
}

#[test]
fn names_are_accepted_in_every_spelling() {
    let bare = ok(&["info", "f64_4x4x4f64"]);
    for alias in ["__builtin_amdgcn_mfma_f64_4x4x4f64", "v_mfma_f64_4x4x4f64"] {
        assert_eq!(ok(&["info", alias]), bare, "{alias}");
    }
    assert_eq!(ok(&["info", "cdna2::f64_4x4x4f64"]), bare);
    assert_eq!(ok(&["info", "f64_4x4x4f64", "--arch", "cdna2"]), bare);
    // CDNA3: the prefix, or --arch (before or after the subcommand), with
    // the bare, HIP, gfx940 ISA and pre-gfx940 ISA spellings.
    let cdna3 = ok(&["info", "cdna3::f32_32x32x1f32"]);
    assert!(cdna3.starts_with("f32_32x32x1f32 (cdna3)\n"), "{cdna3}");
    for args in [
        &["info", "f32_32x32x1f32", "--arch", "cdna3"][..],
        &["--arch", "cdna3", "info", "f32_32x32x1f32"],
        &["info", "cdna3::f32_32x32x1f32", "--arch", "cdna3"],
        &["info", "cdna3::__builtin_amdgcn_mfma_f32_32x32x1f32"],
        &[
            "info",
            "__builtin_amdgcn_mfma_f32_32x32x1f32",
            "--arch",
            "CDNA3",
        ],
        &["info", "cdna3::v_mfma_f32_32x32x1_2b_f32"],
        &["info", "v_mfma_f32_32x32x1_2b_f32", "--arch", "cdna3"],
        &["info", "v_mfma_f32_32x32x1f32", "--arch", "cdna3"],
    ] {
        assert_eq!(ok(args), cdna3, "{args:?}");
    }
    assert_ne!(ok(&["info", "f32_32x32x1f32"]), cdna3, "bare means CDNA2");
    // SMFMAC: the HIP builtin has no `mfma_`, the mnemonic is `v_smfmac_...`.
    let sparse = ok(&["info", "cdna3::smfmac_f32_16x16x32_f16"]);
    for args in [
        &["info", "cdna3::__builtin_amdgcn_smfmac_f32_16x16x32_f16"][..],
        &["info", "v_smfmac_f32_16x16x32_f16", "--arch", "cdna3"],
        &["info", "smfmac_f32_16x16x32_f16", "--arch", "cdna3"],
    ] {
        assert_eq!(ok(args), sparse, "{args:?}");
    }
}

#[test]
fn snapshots_of_list_and_info() {
    snapshot("list.txt", &ok(&["list"]));
    snapshot("list-cdna3.txt", &ok(&["list", "--arch", "cdna3"]));
    snapshot(
        "info-f32_32x32x8bf16_1k.txt",
        &ok(&["info", "f32_32x32x8bf16_1k"]),
    );
    snapshot("info-f64_4x4x4f64.txt", &ok(&["info", "f64_4x4x4f64"]));
    snapshot("info-i32_16x16x4i8.txt", &ok(&["info", "i32_16x16x4i8"]));
    snapshot(
        "info-cdna3-f32_32x32x16_fp8_bf8.txt",
        &ok(&["info", "cdna3::f32_32x32x16_fp8_bf8"]),
    );
    snapshot(
        "info-cdna3-f64_16x16x4f64.txt",
        &ok(&["info", "cdna3::f64_16x16x4f64"]),
    );
    snapshot(
        "info-cdna3-smfmac_f32_16x16x32_f16.txt",
        &ok(&["info", "cdna3::smfmac_f32_16x16x32_f16"]),
    );
    snapshot(
        "info-cdna3-smfmac_i32_32x32x32_i8.txt",
        &ok(&["info", "cdna3::smfmac_i32_32x32x32_i8"]),
    );
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    let top = ok(&["--help"]);
    for sub in ["list", "info", "layout", "lookup", "run", "pictures"] {
        assert!(
            top.contains(&format!("mfma {sub}")),
            "top-level help shows `mfma {sub}`"
        );
        let help = ok(&[sub, "--help"]);
        let examples = help
            .split("Examples:")
            .nth(1)
            .unwrap_or_else(|| panic!("{sub}: no Examples"));
        let lines: Vec<&str> = examples
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with(&format!("mfma {sub} ")))
            .collect();
        assert!(!lines.is_empty(), "{sub}: {examples}");
        // At least one example is a CDNA3 one (a prefix or --arch).
        assert!(
            lines.iter().any(|l| l.contains("cdna3")),
            "{sub}: no CDNA3 example in {lines:?}"
        );
        assert!(
            help.contains("--arch <ARCH>"),
            "{sub}: --arch is documented"
        );
    }
}

/// The examples of `layout`, `lookup`, `info` and `list` run as printed
/// (`run` and `pictures` need files and directories of their own).
#[test]
fn help_examples_run() {
    for sub in ["list", "info", "layout", "lookup"] {
        let help = ok(&[sub, "--help"]);
        let examples = help.split("Examples:").nth(1).unwrap();
        for line in examples.lines().map(str::trim) {
            let Some(args) = line.strip_prefix("mfma ") else {
                continue;
            };
            // Drop a redirection: the output goes to the test instead.
            let args = args.split(" > ").next().unwrap();
            let out = ok(&args.split_whitespace().collect::<Vec<_>>());
            assert!(!out.is_empty(), "{line}");
        }
    }
}
