//! `mfma list` and `mfma info`: the table as printed, and the derived
//! figures checked against formulas stated here (reference 1 and 3, seed).

mod common;

use common::{broadcast_pairs, json, ok, shapes, snapshot, strings, Shape};
use serde_json::Value;

fn bits(t: &str) -> usize {
    match t {
        "f64" => 64,
        "f32" | "i32" => 32,
        "f16" | "bf16" => 16,
        "i8" => 8,
        _ => panic!("type {t}"),
    }
}

/// `<out>_<M>x<N>x<K><in>[_1k]`, the naming convention of the seed.
fn parse_name(name: &str) -> (String, usize, usize, usize, String) {
    let (out, rest) = name.split_once('_').unwrap();
    let rest = rest.trim_end_matches("_1k");
    let mut dims = rest.splitn(3, 'x');
    let m = dims.next().unwrap().parse().unwrap();
    let n = dims.next().unwrap().parse().unwrap();
    let kin = dims.next().unwrap();
    let digits = kin.bytes().take_while(u8::is_ascii_digit).count();
    let (k, input) = kin.split_at(digits);
    (out.into(), m, n, k.parse().unwrap(), input.into())
}

#[test]
fn list_agrees_with_names_and_lane_counts() {
    let all = shapes();
    assert_eq!(all.len(), 27);
    let mut names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 27, "names are unique");
    for s in &all {
        let (out, m, n, k, input) = parse_name(&s.name);
        assert_eq!((m, n, k), (s.m, s.n, s.k), "{}", s.name);
        assert_eq!(
            (out.as_str(), input.as_str()),
            (s.cd.as_str(), s.ab.as_str())
        );
        // 64 lanes hold every element of every block exactly once (reference 2).
        assert_eq!(64 * s.ab_per_lane, s.blocks * s.m * s.k, "{} A", s.name);
        assert_eq!(64 * s.cd_per_lane, s.blocks * s.m * s.n, "{} C", s.name);
    }
}

#[test]
fn list_modifier_ranges_follow_reference_3() {
    let list = json(&["list", "--format", "json"]);
    for (v, s) in list.as_array().unwrap().iter().zip(shapes()) {
        let pairs = broadcast_pairs(&s);
        let cbsz_max = pairs.iter().map(|p| p.0).max().unwrap();
        let abid_max = pairs.iter().map(|p| p.1).max().unwrap();
        let blgp = common::blgp_max(&s);
        let m = &v["modifiers"];
        assert_eq!(m["cbsz_max"], cbsz_max, "{}", s.name);
        assert_eq!(m["abid_max"], abid_max, "{}", s.name);
        assert_eq!(m["blgp_max"], blgp, "{}", s.name);
        assert_eq!(m["combinations"], pairs.len() * (blgp + 1), "{}", s.name);
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
    json(&["info", &s.name, "--format", "json"])
}

#[test]
fn info_derived_figures() {
    for s in shapes() {
        let v = info(&s);
        assert_eq!(v["name"], s.name.as_str());
        assert_eq!(v["arch"], "cdna2");
        assert_eq!(
            v["hip_builtin"],
            format!("__builtin_amdgcn_mfma_{}", s.name)
        );
        assert_eq!(v["isa"], format!("v_mfma_{}", s.name));
        assert_eq!(
            v["llvm_intrinsic"],
            format!("llvm.amdgcn.mfma.{}", s.name.replace('_', "."))
        );
        let ops = 2 * s.m * s.n * s.k * s.blocks;
        assert_eq!(v["ops"], ops, "{}", s.name);
        let cycles = v["cycles"].as_u64().unwrap() as usize;
        assert_eq!(v["peak_ops_per_cu_per_cycle"], ops / cycles, "{}", s.name);
        // Reference 1: VALU co-execution is unsupported exactly on FP64.
        assert_eq!(
            v["valu_coexec_cycles"].is_null(),
            s.ab == "f64",
            "{}",
            s.name
        );
        for (op, per, t) in [
            ("a", s.ab_per_lane, &s.ab),
            ("b", s.ab_per_lane, &s.ab),
            ("c", s.cd_per_lane, &s.cd),
            ("d", s.cd_per_lane, &s.cd),
        ] {
            assert_eq!(
                v["vgprs"][op],
                (per * bits(t)).div_ceil(32),
                "{} {op}",
                s.name
            );
            assert_eq!(v["layouts"][op]["items"], per, "{} {op}", s.name);
            assert_eq!(v["layouts"][op]["lanes"], 64, "{} {op}", s.name);
        }
        let ab = alias(&s.ab, s.ab_per_lane);
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
    for s in shapes() {
        let v = info(&s);
        for op in ['a', 'b', 'c'] {
            let l = &v["layouts"][op.to_string()];
            let names: Vec<&str> = strings(&l["coords"]);
            for e in s.elements(op) {
                let vars = [("b", e[0]), (names[1], e[1]), (names[2], e[2])];
                let lane = eval(l["lane"].as_str().unwrap(), &vars);
                let item = eval(l["item"].as_str().unwrap(), &vars);
                assert_eq!((lane, item), s.slot(op, e), "{} {op} {e:?}", s.name);
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
}

#[test]
fn snapshots_of_list_and_info() {
    snapshot("list.txt", &ok(&["list"]));
    snapshot(
        "info-f32_32x32x8bf16_1k.txt",
        &ok(&["info", "f32_32x32x8bf16_1k"]),
    );
    snapshot("info-f64_4x4x4f64.txt", &ok(&["info", "f64_4x4x4f64"]));
    snapshot("info-i32_16x16x4i8.txt", &ok(&["info", "i32_16x16x4i8"]));
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
        assert!(
            examples.contains(&format!("mfma {sub} ")),
            "{sub}: {examples}"
        );
    }
}
