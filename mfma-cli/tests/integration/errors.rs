//! Every user error: a clear message on stderr, nothing on stdout, exit 2.
//! Modifier errors carry exactly `mfma_spec::ModifierError`'s text, unknown
//! names and architectures `mfma_spec::LookupError`'s.

use crate::common;
use crate::common::{all_shapes, fails, shape};
use mfma_spec::{find, validate, Modifiers};

/// The message `mfma!` gives for these modifiers (cbsz, abid, blgp, neg
/// mask) on builtin `name`.
fn spec_message(name: &str, m: [i64; 4]) -> String {
    let b = find(name).expect("a builtin");
    let e = validate(b, Modifiers::new(m[0], m[1], m[2]).with_neg(m[3]))
        .expect_err("illegal modifiers");
    format!("error: {e}\n")
}

/// `--neg` for a mask (bit 0 a, bit 1 b, bit 2 c).
fn neg_flag(mask: i64) -> String {
    ["a", "b", "c"]
        .iter()
        .enumerate()
        .filter(|(n, _)| mask >> n & 1 == 1)
        .map(|(_, o)| *o)
        .collect::<Vec<_>>()
        .join(",")
}

/// Every subcommand that takes a name, with that name.
fn commands(name: &str) -> Vec<Vec<&str>> {
    vec![
        vec!["info", name],
        vec!["layout", name, "--operand", "c"],
        vec!["lookup", name, "--operand", "c", "--element", "0,0,0"],
    ]
}

#[test]
fn unknown_builtin_suggests_the_closest() {
    for (typo, want) in [
        ("f32_32x32x8bf16", "f32_32x32x8bf16_1k"),
        ("f64_16x16x4", "f64_16x16x4f64"),
        ("f32_16x16x16fp16", "f32_16x16x16f16"),
    ] {
        let want = format!("error: unknown CDNA2 builtin `{typo}`: did you mean `{want}`?\n");
        for args in commands(typo) {
            assert_eq!(fails(&args), want, "{args:?}");
        }
    }
}

/// Names unknown in the architecture asked for: the spec's message, which
/// names the counterpart where the other architecture has the name.
#[test]
fn unknown_names_use_the_spec_lookup_message() {
    for (name, arch, want) in [
        (
            "f32_32x32x4bf16",
            "cdna3",
            "unknown CDNA3 builtin `f32_32x32x4bf16`: gfx942 has no such instruction (it is \
             CDNA2's); CDNA3 has `cdna3::f32_32x32x8bf16_1k`",
        ),
        (
            "i32_16x16x16i8",
            "cdna3",
            "unknown CDNA3 builtin `i32_16x16x16i8`: gfx942 has no such instruction (it is \
             CDNA2's); CDNA3 has `cdna3::i32_16x16x32_i8`",
        ),
        (
            "f32_32x32x16_fp8_fp8",
            "cdna2",
            "unknown CDNA2 builtin `f32_32x32x16_fp8_fp8`: gfx90a has no such instruction (it \
             is CDNA3's); CDNA2 has nothing like it",
        ),
        (
            "f32_32x32x16fp8_fp8",
            "cdna3",
            "unknown CDNA3 builtin `f32_32x32x16fp8_fp8`: did you mean `cdna3::f32_32x32x16_fp8_fp8`?",
        ),
    ] {
        let prefixed = format!("{arch}::{name}");
        let spec = mfma_spec::lookup(&prefixed).unwrap_err().to_string();
        assert_eq!(spec, want, "the spec says so");
        let want = format!("error: {want}\n");
        for args in commands(&prefixed) {
            assert_eq!(fails(&args), want, "{args:?}");
        }
        for mut args in commands(name) {
            args.extend(["--arch", arch]);
            assert_eq!(fails(&args), want, "{args:?}");
        }
    }
}

#[test]
fn unknown_architecture_lists_the_known_ones() {
    let want = "error: unknown architecture `cdna4`: expected `cdna2` (CDNA2) or `cdna3` (CDNA3)\n";
    for args in [
        &["list", "--arch", "cdna4"][..],
        &["info", "f64_4x4x4f64", "--arch", "cdna4"],
        &["info", "cdna4::f64_4x4x4f64"],
        &["layout", "cdna4::f64_4x4x4f64", "--operand", "a"],
        &["pictures", "--arch", "cdna4", "--out", "/nonexistent"],
        &["run", "--arch", "cdna4", "--input", "/nonexistent"],
    ] {
        assert_eq!(fails(args), want, "{args:?}");
    }
}

#[test]
fn a_prefix_that_contradicts_arch_is_an_error() {
    for (name, arch, named, asked) in [
        ("cdna3::f64_4x4x4f64", "cdna2", "CDNA3", "CDNA2 (cdna2)"),
        ("cdna2::f64_4x4x4f64", "cdna3", "CDNA2", "CDNA3 (cdna3)"),
    ] {
        let want = format!(
            "error: `{name}` names a {named} builtin but --arch asks for {asked}: drop the \
             prefix or change --arch\n"
        );
        for mut args in commands(name) {
            args.extend(["--arch", arch]);
            assert_eq!(fails(&args), want, "{args:?}");
        }
    }
}

#[test]
fn unknown_operand() {
    for args in [
        [
            "layout",
            "f32_4x4x4f16",
            "--operand",
            "e",
            "--format",
            "table",
        ],
        ["lookup", "f32_4x4x4f16", "--operand", "ab", "--slot", "0,0"],
    ] {
        assert_eq!(
            fails(&args),
            "error: unknown operand `{}`: expected one of a, b, c, d\n".replace("{}", args[3]),
            "{args:?}"
        );
    }
}

#[test]
fn coordinates_out_of_range() {
    let cases = [
        // One past each extent, per axis: the message names the axis and its bound.
        (
            &["--operand", "a", "--element", "1,0,0"][..],
            "element (block 1, i 0, k 0) is out of range for f32_32x32x8bf16_1k operand a: \
             it needs block < 1, i < 32, k < 8",
        ),
        (
            &["--operand", "b", "--element", "0,8,0"][..],
            "element (block 0, k 8, j 0) is out of range for f32_32x32x8bf16_1k operand b: \
             it needs block < 1, k < 8, j < 32",
        ),
        (
            &["--operand", "c", "--element", "0,0,32"][..],
            "element (block 0, i 0, j 32) is out of range for f32_32x32x8bf16_1k operand c: \
             it needs block < 1, i < 32, j < 32",
        ),
        (
            &["--operand", "d", "--slot", "64,0"][..],
            "slot (lane 64, item 0) is out of range for f32_32x32x8bf16_1k operand d: \
             it needs lane < 64, item < 16",
        ),
        (
            &["--operand", "a", "--slot", "0,4"][..],
            "slot (lane 0, item 4) is out of range for f32_32x32x8bf16_1k operand a: \
             it needs lane < 64, item < 4",
        ),
        // A 1-block builtin takes ROW,COL too, with the same bounds.
        (
            &["--operand", "b", "--element", "8,0"][..],
            "element (block 0, k 8, j 0) is out of range for f32_32x32x8bf16_1k operand b: \
             it needs block < 1, k < 8, j < 32",
        ),
    ];
    for (extra, msg) in cases {
        for name in ["f32_32x32x8bf16_1k", "cdna3::f32_32x32x8bf16_1k"] {
            let mut args = vec!["lookup", name];
            args.extend_from_slice(extra);
            let msg = msg.replace("for f32_32x32x8bf16_1k", &format!("for {name}"));
            assert_eq!(fails(&args), format!("error: {msg}\n"), "{args:?}");
        }
    }
    // CDNA3's 8-bit inputs: 8 items a lane, K up to 32.
    for (extra, msg) in [
        (
            &["--operand", "a", "--element", "3,32"][..],
            "element (block 0, i 3, k 32) is out of range for cdna3::f32_16x16x32_fp8_bf8 \
             operand a: it needs block < 1, i < 16, k < 32",
        ),
        (
            &["--operand", "b", "--slot", "63,8"][..],
            "slot (lane 63, item 8) is out of range for cdna3::f32_16x16x32_fp8_bf8 operand b: \
             it needs lane < 64, item < 8",
        ),
    ] {
        let mut args = vec!["lookup", "cdna3::f32_16x16x32_fp8_bf8"];
        args.extend_from_slice(extra);
        assert_eq!(fails(&args), format!("error: {msg}\n"), "{args:?}");
    }
}

#[test]
fn malformed_coordinates() {
    let expected = |what: &str, value: &str, n: &str| {
        format!("error: bad {what} `{value}`: expected {n} comma-separated non-negative integers")
    };
    for (name, flag, value, what, n, why) in [
        (
            "f32_4x4x4f16",
            "--element",
            "0,1",
            "element",
            "3",
            " (f32_4x4x4f16 has 16 blocks: give BLOCK,ROW,COL)",
        ),
        (
            "cdna3::f64_4x4x4f64",
            "--element",
            "0,1",
            "element",
            "3",
            " (cdna3::f64_4x4x4f64 has 4 blocks: give BLOCK,ROW,COL)",
        ),
        ("f32_4x4x4f16", "--element", "0,1,x", "element", "3", ""),
        ("f32_4x4x4f16", "--element", "-1,0,0", "element", "3", ""),
        ("f32_4x4x4f16", "--element", "1,2,3,4", "element", "3", ""),
        ("f32_16x16x16f16", "--element", "1", "element", "2 or 3", ""),
        (
            "cdna3::f32_16x16x32_fp8_fp8",
            "--element",
            "1,2,3,4",
            "element",
            "2 or 3",
            "",
        ),
        (
            "cdna3::f32_16x16x32_fp8_fp8",
            "--element",
            "1,-2",
            "element",
            "2 or 3",
            "",
        ),
        ("f32_4x4x4f16", "--slot", "3", "slot", "2", ""),
        ("f32_4x4x4f16", "--slot", "1,2,3", "slot", "2", ""),
    ] {
        let args = ["lookup", name, "--operand", "c", flag, value];
        assert_eq!(
            fails(&args),
            format!("{}{why}\n", expected(what, value, n)),
            "{args:?}"
        );
    }
}

/// Runs `layout` (operands a, b, c) and `lookup` with these modifiers and
/// expects the spec's message for them.
fn rejected(name: &str, m: [i64; 4]) {
    let want = spec_message(name, m);
    let v = m.map(|x| x.to_string());
    let neg = neg_flag(m[3]);
    let mut mods = vec!["--cbsz", &v[0], "--abid", &v[1], "--blgp", &v[2]];
    if m[3] != 0 {
        mods.extend(["--neg", &neg]);
    }
    for op in ["a", "b", "c"] {
        let mut layout = vec!["layout", name, "--operand", op];
        layout.extend_from_slice(&mods);
        assert_eq!(fails(&layout), want, "{layout:?}");
    }
    let mut lookup = vec!["lookup", name, "--operand", "a", "--slot", "0,0"];
    lookup.extend_from_slice(&mods);
    assert_eq!(fails(&lookup), want, "{lookup:?}");
}

#[test]
fn illegal_modifiers_use_the_spec_text_exactly() {
    let cases: &[(&str, [i64; 4])] = &[
        ("f64_16x16x4f64", [0, 0, 1, 0]),
        ("f64_4x4x4f64", [1, 0, 0, 0]),
        ("f64_4x4x4f64", [0, 1, 0, 0]),
        ("f64_16x16x4f64", [0, 0, 0, 5]),
        ("f32_32x32x8bf16_1k", [1, 0, 0, 0]),
        ("f32_32x32x8bf16_1k", [0, 1, 0, 0]),
        ("f32_16x16x4f16", [3, 0, 0, 0]),
        ("f32_4x4x4f16", [5, 0, 0, 0]),
        ("f32_16x16x4f16", [1, 2, 0, 0]),
        ("f32_16x16x4f16", [0, 1, 0, 0]),
        ("f32_4x4x1f32", [0, 0, 8, 0]),
        ("f32_4x4x1f32", [-1, 0, 0, 0]),
        ("i32_32x32x4i8", [0, 0, -3, 0]),
        // CDNA3: f64's blgp bits are negation flags; single-block f16 lost blgp.
        ("cdna3::f64_16x16x4f64", [0, 0, 1, 0]),
        ("cdna3::f64_4x4x4f64", [1, 0, 0, 0]),
        ("cdna3::f32_32x32x8f16", [0, 0, 4, 0]),
        ("cdna3::f32_32x32x16_fp8_bf8", [0, 0, 1, 0]),
        ("cdna3::f32_32x32x16_fp8_bf8", [0, 0, 0, 1]),
        ("cdna3::f32_16x16x8_xf32", [0, 1, 0, 0]),
        ("cdna3::i32_16x16x32_i8", [0, 0, 0, 4]),
        ("cdna3::f32_4x4x4f16", [2, 4, 0, 0]),
    ];
    for (name, m) in cases {
        rejected(name, *m);
    }
}

#[test]
fn neg_names_only_input_operands() {
    for value in ["d", "a,x", "a;c"] {
        let args = [
            "layout",
            "cdna3::f64_4x4x4f64",
            "--operand",
            "a",
            "--neg",
            value,
        ];
        let err = fails(&args);
        assert!(
            err.starts_with(&format!(
                "error: bad --neg `{value}`: expected operands among a, b, c, comma-separated"
            )),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn one_past_every_legal_range_is_rejected() {
    // Reference 3 (CDNA2) and CDNA3 3.1-3.3: cbsz <= log2(blocks) on
    // multi-block non-f64 builtins, abid < 2^cbsz, blgp as common::blgp_max,
    // neg (a mask) only on CDNA3's f64. CDNA3 3.4: SMFMAC cbsz <= 3, abid
    // below the number of index sets whatever cbsz is, no blgp, no neg.
    for s in all_shapes() {
        let broadcast = s.a != "f64" && s.blocks > 1;
        let cbsz_max = if s.sparse() {
            3
        } else if broadcast {
            s.blocks.trailing_zeros() as i64
        } else {
            0
        };
        let blgp_max = common::blgp_max(&s) as i64;
        let abid_past = if s.sparse() {
            s.sets() as i64
        } else {
            1 << cbsz_max
        };
        let mut cases = vec![
            [cbsz_max + 1, 0, 0, 0],
            [cbsz_max, abid_past, 0, 0],
            [0, 0, blgp_max + 1, 0],
        ];
        if s.sparse() {
            cases.push([0, abid_past, 0, 0]);
        }
        // The mask cannot go past 7 from the command line; one past "none" can.
        if common::neg_max(&s) == 0 {
            cases.push([0, 0, 0, 1]);
        }
        for m in cases {
            let v = m.map(|x| x.to_string());
            let mut args = vec![
                "layout".to_string(),
                s.id(),
                "--operand".into(),
                "a".into(),
                "--cbsz".into(),
                v[0].clone(),
                "--abid".into(),
                v[1].clone(),
                "--blgp".into(),
                v[2].clone(),
            ];
            if m[3] != 0 {
                args.extend(["--neg".into(), neg_flag(m[3])]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(fails(&args), spec_message(&s.id(), m), "{args:?}");
        }
    }
}

/// The largest legal values pass: the ranges above are not too tight.
#[test]
fn the_largest_legal_values_are_accepted() {
    for id in [
        "cdna3::f32_4x4x4bf16_1k",
        "cdna3::f32_16x16x4f32",
        "cdna3::f64_4x4x4f64",
    ] {
        let s = shape(id);
        let (c, a) = *common::broadcast_pairs(&s).last().unwrap();
        let v = [c, a, common::blgp_max(&s)].map(|x| x.to_string());
        let mut args = vec![
            "layout",
            id,
            "--operand",
            "b",
            "--cbsz",
            &v[0],
            "--abid",
            &v[1],
            "--blgp",
            &v[2],
        ];
        if common::neg_max(&s) == 7 {
            args.extend(["--neg", "a,b,c"]);
        }
        common::ok(&args);
    }
}

#[test]
fn clap_usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["layout", "f32_4x4x4f16"][..],
        &[
            "layout",
            "f32_4x4x4f16",
            "--operand",
            "c",
            "--format",
            "xml",
        ][..],
        &["lookup", "f32_4x4x4f16", "--operand", "c"][..],
        &[
            "lookup",
            "f32_4x4x4f16",
            "--operand",
            "c",
            "--slot",
            "0,0",
            "--element",
            "0,0,0",
        ][..],
        &["layout", "f32_4x4x4f16", "--operand", "c", "--cbsz", "one"][..],
        &["run"][..],
        &["pictures"][..],
    ] {
        let err = fails(args);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}
