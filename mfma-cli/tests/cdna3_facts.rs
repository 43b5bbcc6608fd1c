//! `list --arch cdna3` and `info` of every CDNA3 builtin against the table
//! of reference `cdna3-mfma.md` section 1.1, copied here by hand (not read
//! from mfma-spec): names, gfx940 mnemonics, shapes, types, LLVM operand
//! types, cycles and the modifier column.

mod common;

use common::{json, ok, shapes_of, strings};
use serde_json::Value;

/// Reference 1.1, one row a line: name, ISA mnemonic, M N K, blocks, A,B
/// type, A,B per lane, LLVM A,B type (`_` for a space), C,D type, C,D per
/// lane, cycles, mods. `{A}_{B}` rows stand for the four fp8/bf8 pairs.
const TABLE: &str = "
f32_32x32x1f32 v_mfma_f32_32x32x1_2b_f32 32 32 1 2 f32 1 float f32 32 64 cbsz/abid,blgp
f32_16x16x1f32 v_mfma_f32_16x16x1_4b_f32 16 16 1 4 f32 1 float f32 16 32 cbsz/abid,blgp
f32_4x4x1f32 v_mfma_f32_4x4x1_16b_f32 4 4 1 16 f32 1 float f32 4 8 cbsz/abid,blgp
f32_32x32x2f32 v_mfma_f32_32x32x2_f32 32 32 2 1 f32 1 float f32 16 64 blgp
f32_16x16x4f32 v_mfma_f32_16x16x4_f32 16 16 4 1 f32 1 float f32 4 32 blgp
f32_16x16x8_xf32 v_mfma_f32_16x16x8_xf32 16 16 8 1 xf32 2 <2_x_float> f32 4 16 none
f32_32x32x4_xf32 v_mfma_f32_32x32x4_xf32 32 32 4 1 xf32 2 <2_x_float> f32 16 32 none
f32_32x32x4f16 v_mfma_f32_32x32x4_2b_f16 32 32 4 2 f16 4 <4_x_half> f32 32 64 cbsz/abid,blgp
f32_16x16x4f16 v_mfma_f32_16x16x4_4b_f16 16 16 4 4 f16 4 <4_x_half> f32 16 32 cbsz/abid,blgp
f32_4x4x4f16 v_mfma_f32_4x4x4_16b_f16 4 4 4 16 f16 4 <4_x_half> f32 4 8 cbsz/abid,blgp
f32_32x32x8f16 v_mfma_f32_32x32x8_f16 32 32 8 1 f16 4 <4_x_half> f32 16 32 none
f32_16x16x16f16 v_mfma_f32_16x16x16_f16 16 16 16 1 f16 4 <4_x_half> f32 4 16 none
f32_32x32x4bf16_1k v_mfma_f32_32x32x4_2b_bf16 32 32 4 2 bf16 4 <4_x_i16> f32 32 64 cbsz/abid,blgp
f32_16x16x4bf16_1k v_mfma_f32_16x16x4_4b_bf16 16 16 4 4 bf16 4 <4_x_i16> f32 16 32 cbsz/abid,blgp
f32_4x4x4bf16_1k v_mfma_f32_4x4x4_16b_bf16 4 4 4 16 bf16 4 <4_x_i16> f32 4 8 cbsz/abid,blgp
f32_32x32x8bf16_1k v_mfma_f32_32x32x8_bf16 32 32 8 1 bf16 4 <4_x_i16> f32 16 32 none
f32_16x16x16bf16_1k v_mfma_f32_16x16x16_bf16 16 16 16 1 bf16 4 <4_x_i16> f32 4 16 none
i32_32x32x4i8 v_mfma_i32_32x32x4_2b_i8 32 32 4 2 i8 4 i32 i32 32 64 cbsz/abid,blgp
i32_16x16x4i8 v_mfma_i32_16x16x4_4b_i8 16 16 4 4 i8 4 i32 i32 16 32 cbsz/abid,blgp
i32_4x4x4i8 v_mfma_i32_4x4x4_16b_i8 4 4 4 16 i8 4 i32 i32 4 8 cbsz/abid,blgp
i32_32x32x16_i8 v_mfma_i32_32x32x16_i8 32 32 16 1 i8 8 i64 i32 16 32 none
i32_16x16x32_i8 v_mfma_i32_16x16x32_i8 16 16 32 1 i8 8 i64 i32 4 16 none
f64_16x16x4f64 v_mfma_f64_16x16x4_f64 16 16 4 1 f64 1 double f64 4 32 neg
f64_4x4x4f64 v_mfma_f64_4x4x4_4b_f64 4 4 4 4 f64 1 double f64 1 16 neg
f32_16x16x32_{A}_{B} v_mfma_f32_16x16x32_{A}_{B} 16 16 32 1 fp8/bf8 8 i64 f32 4 16 none
f32_32x32x16_{A}_{B} v_mfma_f32_32x32x16_{A}_{B} 32 32 16 1 fp8/bf8 8 i64 f32 16 32 none
";

/// One row of the reference table, the `{A}_{B}` rows expanded.
#[derive(Debug)]
struct Row {
    name: String,
    isa: String,
    mnk: [usize; 3],
    blocks: usize,
    a: String,
    b: String,
    ab_per_lane: usize,
    llvm_ab: String,
    cd: String,
    cd_per_lane: usize,
    cycles: usize,
    mods: String,
}

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for line in TABLE.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f[i].parse::<usize>().unwrap();
        let pairs: Vec<(&str, &str)> = if f[0].contains("{A}") {
            // Sorted as the reference lists them: bf8_bf8, bf8_fp8, fp8_bf8, fp8_fp8.
            vec![
                ("bf8", "bf8"),
                ("bf8", "fp8"),
                ("fp8", "bf8"),
                ("fp8", "fp8"),
            ]
        } else {
            vec![(f[6], f[6])]
        };
        for (a, b) in pairs {
            let fill = |s: &str| s.replace("{A}", a).replace("{B}", b);
            out.push(Row {
                name: fill(f[0]),
                isa: fill(f[1]),
                mnk: [num(2), num(3), num(4)],
                blocks: num(5),
                a: a.into(),
                b: b.into(),
                ab_per_lane: num(7),
                llvm_ab: f[8].replace('_', " "),
                cd: f[9].into(),
                cd_per_lane: num(10),
                cycles: num(11),
                mods: f[12].into(),
            });
        }
    }
    out
}

/// The accumulator's LLVM type: `<N x float>`, `<N x i32>`, `<N x double>`,
/// a scalar for one element (reference 5 and CDNA2's 1 note on f64).
fn llvm_cd(r: &Row) -> String {
    let scalar = match r.cd.as_str() {
        "f32" => "float",
        "i32" => "i32",
        "f64" => "double",
        t => panic!("{t}"),
    };
    if r.cd_per_lane == 1 {
        scalar.into()
    } else {
        format!("<{} x {scalar}>", r.cd_per_lane)
    }
}

/// The HIP spelling of an LLVM operand type with the seed's alias names
/// (`long` is clang's 64-bit `Wi` on amdgcn; bf16 travels as `short`, which
/// the seed's aliases call `bfloat`).
fn c_type(llvm: &str, elem: &str) -> String {
    let (lanes, scalar) = match llvm.strip_prefix('<') {
        Some(v) => {
            let (n, t) = v.trim_end_matches('>').split_once(" x ").unwrap();
            (n.parse::<usize>().unwrap(), t)
        }
        None => (1, llvm),
    };
    let (c, word) = match (scalar, elem) {
        ("float", _) => ("float", "float"),
        ("double", _) => ("double", "double"),
        ("half", _) => ("_Float16", "half"),
        ("i16", "bf16") => ("short", "bfloat"),
        ("i32", _) => ("int", "int"),
        ("i64", _) => ("long", "long"),
        other => panic!("{other:?}"),
    };
    if lanes == 1 {
        c.into()
    } else {
        format!("v{lanes}{word}")
    }
}

#[test]
fn the_reference_table_has_32_rows() {
    assert_eq!(rows().len(), 32);
}

#[test]
fn list_is_the_reference_table() {
    let listed = shapes_of("cdna3");
    let want = rows();
    let names = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(listed.iter().map(|s| &s.name).collect()),
        names(want.iter().map(|r| &r.name).collect()),
        "the 32 in the reference's order"
    );
    for (s, r) in listed.iter().zip(&want) {
        assert_eq!([s.m, s.n, s.k], r.mnk, "{}", r.name);
        assert_eq!(s.blocks, r.blocks, "{}", r.name);
        assert_eq!([&s.a, &s.b], [&r.a, &r.b], "{}", r.name);
        assert_eq!(s.ab_per_lane, r.ab_per_lane, "{}", r.name);
        assert_eq!([&s.cd], [&r.cd], "{}", r.name);
        assert_eq!(s.cd_per_lane, r.cd_per_lane, "{}", r.name);
    }
}

/// Reference 3.1-3.3: the mods column as JSON ranges and as list's words.
#[test]
fn list_modifiers_are_the_reference_mods_column() {
    let list = json(&["list", "--arch", "cdna3", "--format", "json"]);
    let text = ok(&["list", "--arch", "cdna3"]);
    for (v, r) in list.as_array().unwrap().iter().zip(rows()) {
        let m = &v["modifiers"];
        let log2 = r.blocks.trailing_zeros() as usize;
        let (kinds, ranges, words) = match r.mods.as_str() {
            "cbsz/abid,blgp" => (
                vec!["cbsz", "abid", "blgp"],
                [log2, (1 << log2) - 1, 7, 0],
                format!(
                    "cbsz 0..={log2}, abid 0..={} (below 2^cbsz), blgp 0..=7",
                    (1 << log2) - 1
                ),
            ),
            "blgp" => (vec!["blgp"], [0, 0, 7, 0], "blgp 0..=7".into()),
            "neg" => (
                vec!["neg"],
                [0, 0, 0, 7],
                "neg [a, b, c] (any subset)".into(),
            ),
            "none" => (vec![], [0, 0, 0, 0], "none".into()),
            other => panic!("{other}"),
        };
        assert_eq!(strings(&m["kinds"]), kinds, "{}", r.name);
        let got = ["cbsz_max", "abid_max", "blgp_max", "neg_max"].map(|f| m[f].as_u64().unwrap());
        assert_eq!(got, ranges.map(|x| x as u64), "{}", r.name);
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(r.name.as_str()))
            .unwrap();
        assert!(line.ends_with(&format!("  {words}")), "{line}");
    }
}

#[test]
fn info_is_the_reference_row() {
    for r in rows() {
        let id = format!("cdna3::{}", r.name);
        let v = json(&["info", &id, "--format", "json"]);
        assert_eq!(v["arch"], "cdna3");
        assert_eq!(v["isa"], r.isa.as_str(), "{id}");
        assert_eq!(v["cycles"], r.cycles, "{id}");
        assert_eq!(v["targets"], Value::from(vec!["gfx942"]), "{id}");
        let llvm = &v["llvm_types"];
        let cd = llvm_cd(&r);
        for (op, want) in [("a", &r.llvm_ab), ("b", &r.llvm_ab), ("c", &cd), ("d", &cd)] {
            assert_eq!(llvm[op], want.as_str(), "{id} {op}");
        }
        // The C signature spells the LLVM types in C; the last immediate of
        // f64 holds its negation flags (reference 3.3).
        let ab = c_type(&r.llvm_ab, &r.a);
        let cdt = c_type(&cd, &r.cd);
        let last = if r.mods == "neg" { "neg" } else { "blgp" };
        assert_eq!(
            v["c_signature"],
            format!(
                "{cdt} __builtin_amdgcn_mfma_{}({ab} a, {ab} b, {cdt} c, int cbsz, int abid, int {last})",
                r.name
            ),
            "{id}"
        );
        let text = ok(&["info", &id]);
        for want in [
            format!("{} (cdna3)\n", r.name),
            format!("  ISA mnemonic       {}\n", r.isa),
            format!("  LLVM operands      A, B {}; C, D {cd}\n", r.llvm_ab),
            format!("  cycles             {}\n", r.cycles),
            "  VALU co-execution  not published for CDNA3\n".into(),
            "  targets            gfx942: MI300 (MI300A, MI300X, MI325X)\n".into(),
            format!(
                "  A                  {} {}x{} a block",
                r.a, r.mnk[0], r.mnk[2]
            ),
            format!(
                "  B                  {} {}x{} a block",
                r.b, r.mnk[2], r.mnk[1]
            ),
        ] {
            assert!(text.contains(&want), "{id}: no {want:?} in\n{text}");
        }
    }
}

/// Reference 4: the arithmetic line names the family of each row.
#[test]
fn info_names_the_arithmetic_family() {
    for r in rows() {
        let v = json(&["info", &format!("cdna3::{}", r.name), "--format", "json"]);
        let arith = v["arithmetic"].as_str().unwrap();
        let want = match r.a.as_str() {
            "f32" | "f64" => "chained fused multiply-adds",
            "i8" => "wrap-around",
            "fp8" | "bf8" => "the even and the odd k truncated and summed apart",
            _ => "truncated at the largest product's exponent",
        };
        assert!(arith.contains(want), "{}: {arith}", r.name);
        // The group of one step: min(K, 8) for f16/bf16, 4 for xf32, min(K, 16) for fp8/bf8.
        let k = r.mnk[2];
        let group = match r.a.as_str() {
            "f16" | "bf16" => Some(k.min(8)),
            "xf32" => Some(4),
            "fp8" | "bf8" => Some(k.min(16)),
            _ => None,
        };
        if let Some(g) = group {
            assert!(
                arith.starts_with(&format!("each group of {g} consecutive k")),
                "{}: {arith}",
                r.name
            );
        }
        assert_eq!(arith.contains("tf32"), r.a == "xf32", "{}", r.name);
        assert_eq!(arith.contains("neg flips"), r.mods == "neg", "{}", r.name);
    }
}
