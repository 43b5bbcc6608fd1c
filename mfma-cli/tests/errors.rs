//! Every user error: a clear message on stderr, nothing on stdout, exit 2.
//! Modifier errors carry exactly `mfma_spec::ModifierError`'s text.

mod common;

use common::{fails, shapes};
use mfma_spec::{find, validate, Modifiers};

/// The message `mfma!` gives for these modifiers on builtin `name`.
fn spec_message(name: &str, m: [i64; 3]) -> String {
    let b = find(name).expect("a builtin");
    let e = validate(b, Modifiers::new(m[0], m[1], m[2])).expect_err("illegal modifiers");
    format!("error: {e}\n")
}

#[test]
fn unknown_builtin_suggests_the_closest() {
    for (typo, want) in [
        ("f32_32x32x8bf16", "f32_32x32x8bf16_1k"),
        ("f64_16x16x4", "f64_16x16x4f64"),
        ("f32_16x16x16fp16", "f32_16x16x16f16"),
    ] {
        let want = format!("error: unknown builtin `{typo}`: did you mean `{want}`?\n");
        for args in [
            vec!["info", typo],
            vec!["layout", typo, "--operand", "c"],
            vec!["lookup", typo, "--operand", "c", "--element", "0,0,0"],
        ] {
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
    ];
    for (extra, msg) in cases {
        let mut args = vec!["lookup", "f32_32x32x8bf16_1k"];
        args.extend_from_slice(extra);
        assert_eq!(fails(&args), format!("error: {msg}\n"), "{args:?}");
    }
}

#[test]
fn malformed_coordinates() {
    for (flag, value, what, n) in [
        ("--element", "0,1", "element", 3),
        ("--element", "0,1,x", "element", 3),
        ("--element", "-1,0,0", "element", 3),
        ("--slot", "3", "slot", 2),
        ("--slot", "1,2,3", "slot", 2),
    ] {
        let args = ["lookup", "f32_4x4x4f16", "--operand", "c", flag, value];
        assert_eq!(
            fails(&args),
            format!(
                "error: bad {what} `{value}`: expected {n} comma-separated non-negative integers\n"
            ),
            "{args:?}"
        );
    }
}

#[test]
fn illegal_modifiers_use_the_spec_text_exactly() {
    let cases: &[(&str, [i64; 3])] = &[
        ("f64_16x16x4f64", [0, 0, 1]),
        ("f64_4x4x4f64", [1, 0, 0]),
        ("f64_4x4x4f64", [0, 1, 0]),
        ("f32_32x32x8bf16_1k", [1, 0, 0]),
        ("f32_32x32x8bf16_1k", [0, 1, 0]),
        ("f32_16x16x4f16", [3, 0, 0]),
        ("f32_4x4x4f16", [5, 0, 0]),
        ("f32_16x16x4f16", [1, 2, 0]),
        ("f32_16x16x4f16", [0, 1, 0]),
        ("f32_4x4x1f32", [0, 0, 8]),
        ("f32_4x4x1f32", [-1, 0, 0]),
        ("i32_32x32x4i8", [0, 0, -3]),
    ];
    for (name, m) in cases {
        let want = spec_message(name, *m);
        let v = m.map(|x| x.to_string());
        let mods = ["--cbsz", &v[0], "--abid", &v[1], "--blgp", &v[2]];
        for op in ["a", "b", "c"] {
            let mut layout = vec!["layout", name, "--operand", op];
            layout.extend_from_slice(&mods);
            assert_eq!(fails(&layout), want, "{layout:?}");
        }
        let mut lookup = vec!["lookup", name, "--operand", "a", "--slot", "0,0"];
        lookup.extend_from_slice(&mods);
        assert_eq!(fails(&lookup), want, "{lookup:?}");
    }
}

#[test]
fn one_past_every_legal_range_is_rejected() {
    // Reference 3: cbsz <= log2(blocks) on multi-block non-f64 builtins, abid < 2^cbsz, blgp <= 7 (0 on f64).
    for s in shapes() {
        let broadcast = s.ab != "f64" && s.blocks > 1;
        let cbsz_max = if broadcast {
            s.blocks.trailing_zeros() as i64
        } else {
            0
        };
        let blgp_max = if s.ab == "f64" { 0 } else { 7 };
        for m in [
            [cbsz_max + 1, 0, 0],
            [cbsz_max, 1 << cbsz_max, 0],
            [0, 0, blgp_max + 1],
        ] {
            let v = m.map(|x| x.to_string());
            let args = [
                "layout",
                &s.name,
                "--operand",
                "a",
                "--cbsz",
                &v[0],
                "--abid",
                &v[1],
                "--blgp",
                &v[2],
            ];
            assert_eq!(fails(&args), spec_message(&s.name, m), "{args:?}");
        }
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
