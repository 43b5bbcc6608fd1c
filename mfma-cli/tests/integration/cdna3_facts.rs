//! `list --arch cdna3` and `info` of every CDNA3 builtin against the tables
//! of reference `cdna3-mfma.md` sections 1.1 (dense) and 1.2 (SMFMAC),
//! copied here by hand (not read from mfma-spec): names, gfx940 mnemonics,
//! shapes, types, LLVM operand types, cycles and the modifier column.

use crate::common::{json, ok, shapes_of, strings};
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

/// Reference 1.2, one row a line: name, ISA mnemonic, M N K, A,B type, A
/// per lane, its LLVM type, B per lane, its LLVM type, C,D type, C,D per
/// lane, cycles, and the dense builtin the software path chains twice (the
/// vector file's ASSUMPTION, `shared/vectors/cdna3-smfmac.json`). One block;
/// the mods are reference 3.4's.
const SPARSE: &str = "
smfmac_f32_16x16x32_f16 v_smfmac_f32_16x16x32_f16 16 16 32 f16 4 <4_x_half> 8 <8_x_half> f32 4 16 f32_16x16x16f16
smfmac_f32_32x32x16_f16 v_smfmac_f32_32x32x16_f16 32 32 16 f16 4 <4_x_half> 8 <8_x_half> f32 16 32 f32_32x32x8f16
smfmac_f32_16x16x32_bf16 v_smfmac_f32_16x16x32_bf16 16 16 32 bf16 4 <4_x_i16> 8 <8_x_i16> f32 4 16 f32_16x16x16bf16_1k
smfmac_f32_32x32x16_bf16 v_smfmac_f32_32x32x16_bf16 32 32 16 bf16 4 <4_x_i16> 8 <8_x_i16> f32 16 32 f32_32x32x8bf16_1k
smfmac_i32_16x16x64_i8 v_smfmac_i32_16x16x64_i8 16 16 64 i8 8 <2_x_i32> 16 <4_x_i32> i32 4 16 i32_16x16x32_i8
smfmac_i32_32x32x32_i8 v_smfmac_i32_32x32x32_i8 32 32 32 i8 8 <2_x_i32> 16 <4_x_i32> i32 16 32 i32_32x32x16_i8
smfmac_f32_16x16x64_{A}_{B} v_smfmac_f32_16x16x64_{A}_{B} 16 16 64 fp8/bf8 8 <2_x_i32> 16 <4_x_i32> f32 4 16 f32_16x16x32_{A}_{B}
smfmac_f32_32x32x32_{A}_{B} v_smfmac_f32_32x32x32_{A}_{B} 32 32 32 fp8/bf8 8 <2_x_i32> 16 <4_x_i32> f32 16 32 f32_32x32x16_{A}_{B}
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
    a_per_lane: usize,
    b_per_lane: usize,
    llvm_a: String,
    llvm_b: String,
    cd: String,
    cd_per_lane: usize,
    cycles: usize,
    mods: String,
    /// SMFMAC: the dense builtin of half the K.
    twin: Option<String>,
}

impl Row {
    /// Reference 3.4: SMFMAC index sets, 4 for 16-bit inputs, 2 for 8-bit.
    fn sets(&self) -> usize {
        if self.a == "f16" || self.a == "bf16" {
            4
        } else {
            2
        }
    }
}

/// The four fp8/bf8 pairs, sorted as the reference lists them.
const PAIRS: [(&str, &str); 4] = [
    ("bf8", "bf8"),
    ("bf8", "fp8"),
    ("fp8", "bf8"),
    ("fp8", "fp8"),
];

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for line in TABLE.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f[i].parse::<usize>().unwrap();
        let pairs: Vec<(&str, &str)> = if f[0].contains("{A}") {
            PAIRS.to_vec()
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
                a_per_lane: num(7),
                b_per_lane: num(7),
                llvm_a: f[8].replace('_', " "),
                llvm_b: f[8].replace('_', " "),
                cd: f[9].into(),
                cd_per_lane: num(10),
                cycles: num(11),
                mods: f[12].into(),
                twin: None,
            });
        }
    }
    for line in SPARSE.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f[i].parse::<usize>().unwrap();
        let pairs: Vec<(&str, &str)> = if f[0].contains("{A}") {
            PAIRS.to_vec()
        } else {
            vec![(f[5], f[5])]
        };
        for (a, b) in pairs {
            let fill = |s: &str| s.replace("{A}", a).replace("{B}", b);
            out.push(Row {
                name: fill(f[0]),
                isa: fill(f[1]),
                mnk: [num(2), num(3), num(4)],
                blocks: 1,
                a: a.into(),
                b: b.into(),
                a_per_lane: num(6),
                b_per_lane: num(8),
                llvm_a: f[7].replace('_', " "),
                llvm_b: f[9].replace('_', " "),
                cd: f[10].into(),
                cd_per_lane: num(11),
                cycles: num(12),
                mods: "smfmac".into(),
                twin: Some(fill(f[13])),
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
fn the_reference_tables_have_32_and_14_rows() {
    let all = rows();
    assert_eq!(all.len(), 46);
    assert_eq!(all.iter().filter(|r| r.twin.is_some()).count(), 14);
}

#[test]
fn list_is_the_reference_table() {
    let listed = shapes_of("cdna3");
    let want = rows();
    let names = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(listed.iter().map(|s| &s.name).collect()),
        names(want.iter().map(|r| &r.name).collect()),
        "the 32 dense then the 14 SMFMAC, in the reference's order"
    );
    for (s, r) in listed.iter().zip(&want) {
        assert_eq!([s.m, s.n, s.k], r.mnk, "{}", r.name);
        assert_eq!(s.blocks, r.blocks, "{}", r.name);
        assert_eq!([&s.a, &s.b], [&r.a, &r.b], "{}", r.name);
        assert_eq!(
            [s.a_per_lane, s.b_per_lane],
            [r.a_per_lane, r.b_per_lane],
            "{}",
            r.name
        );
        assert_eq!([&s.cd], [&r.cd], "{}", r.name);
        assert_eq!(s.cd_per_lane, r.cd_per_lane, "{}", r.name);
        // The sparse object: stored K/2, the sets and their width, the twin.
        match &r.twin {
            None => assert!(s.sparse_json.is_null(), "{}", r.name),
            Some(twin) => {
                let j = &s.sparse_json;
                assert_eq!(j["stored_k"], r.mnk[2] / 2, "{}", r.name);
                assert_eq!(j["sets"], r.sets(), "{}", r.name);
                assert_eq!(j["set_bits"], 32 / r.sets(), "{}", r.name);
                assert_eq!(j["fields_per_set"], 8 / r.sets(), "{}", r.name);
                assert_eq!(j["dense_twin"], twin.as_str(), "{}", r.name);
            }
        }
    }
}

/// The table marks SMFMAC: its title counts them, each row gives A's and
/// B's per-lane counts apart, and a note says what the counts mean.
#[test]
fn list_table_shows_smfmac_apart() {
    let text = ok(&["list", "--arch", "cdna3"]);
    assert!(
        text.starts_with(
            "CDNA3 (gfx942; MI300 (MI300A, MI300X, MI325X)): 46 builtins, 32 dense MFMA and 14 \
             structured-sparse SMFMAC\n"
        ),
        "{text}"
    );
    for r in rows().iter().filter(|r| r.twin.is_some()) {
        let ab = if r.a == r.b {
            r.a.clone()
        } else {
            format!("{},{}", r.a, r.b)
        };
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(r.name.as_str()))
            .unwrap();
        assert!(
            line.contains(&format!("  {ab} x{},x{}  ", r.a_per_lane, r.b_per_lane)),
            "{line}"
        );
    }
    assert!(
        text.contains("\nsmfmac_*: structured-sparse (4:2) A."),
        "{text}"
    );
    assert!(text.contains("`x4,x8` is A's count, then B's"), "{text}");
    // CDNA2 has no SMFMAC: neither the counts nor the note.
    let cdna2 = ok(&["list"]);
    assert!(cdna2.contains(": 27 dense MFMA builtins\n"));
    assert!(!cdna2.contains("smfmac"));
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
            "smfmac" => (
                vec!["cbsz", "abid"],
                [3, r.sets() - 1, 0, 0],
                format!("cbsz 0..=3, abid 0..={} (the index set)", r.sets() - 1),
            ),
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
        let sparse = r.twin.is_some();
        for (op, want) in [("a", &r.llvm_a), ("b", &r.llvm_b), ("c", &cd), ("d", &cd)] {
            assert_eq!(llvm[op], want.as_str(), "{id} {op}");
        }
        // SMFMAC's index operand: one i32 (one VGPR) a lane (reference 1.2).
        if sparse {
            assert_eq!(llvm["idx"], "i32", "{id}");
            assert_eq!(v["vgprs"]["idx"], 1, "{id}");
        } else {
            assert!(llvm.get("idx").is_none(), "{id}");
            assert!(v["vgprs"].get("idx").is_none(), "{id}");
        }
        // The C signature spells the LLVM types in C; the last immediate of
        // f64 holds its negation flags (reference 3.3); the SMFMAC builtin
        // is `(A, B, C, idx, cbsz, abid)`, named without `mfma_` (1, 1.2).
        let a = c_type(&r.llvm_a, &r.a);
        let b = c_type(&r.llvm_b, &r.b);
        let cdt = c_type(&cd, &r.cd);
        let (hip, sig) = if sparse {
            let hip = format!("__builtin_amdgcn_{}", r.name);
            let sig = format!("{cdt} {hip}({a} a, {b} b, {cdt} c, int idx, int cbsz, int abid)");
            (hip, sig)
        } else {
            let last = if r.mods == "neg" { "neg" } else { "blgp" };
            let hip = format!("__builtin_amdgcn_mfma_{}", r.name);
            let sig = format!("{cdt} {hip}({a} a, {b} b, {cdt} c, int cbsz, int abid, int {last})");
            (hip, sig)
        };
        assert_eq!(v["hip_builtin"], hip.as_str(), "{id}");
        assert_eq!(v["c_signature"], sig, "{id}");
        let text = ok(&["info", &id]);
        let (llvm_line, a_line) = if sparse {
            (
                format!(
                    "  LLVM operands      A {}, B {}; C, D {cd}; idx i32\n",
                    r.llvm_a, r.llvm_b
                ),
                format!(
                    "  A                  {} {}x{} stored of a logical {}x{} a block",
                    r.a,
                    r.mnk[0],
                    r.mnk[2] / 2,
                    r.mnk[0],
                    r.mnk[2]
                ),
            )
        } else {
            (
                format!("  LLVM operands      A, B {}; C, D {cd}\n", r.llvm_a),
                format!(
                    "  A                  {} {}x{} a block",
                    r.a, r.mnk[0], r.mnk[2]
                ),
            )
        };
        for want in [
            format!("{} (cdna3)\n", r.name),
            format!("  HIP builtin        {hip}\n"),
            format!("  ISA mnemonic       {}\n", r.isa),
            llvm_line,
            format!("  cycles             {}\n", r.cycles),
            "  VALU co-execution  not published for CDNA3\n".into(),
            "  targets            gfx942: MI300 (MI300A, MI300X, MI325X)\n".into(),
            a_line,
            format!(
                "  B                  {} {}x{} a block, {} per lane",
                r.b, r.mnk[2], r.mnk[1], r.b_per_lane
            ),
        ] {
            assert!(text.contains(&want), "{id}: no {want:?} in\n{text}");
        }
        if let Some(twin) = &r.twin {
            let sets = r.sets();
            for want in [
                format!(
                    "  idx                i32, 1 VGPR a lane: {sets} index sets of {} bits",
                    32 / sets
                ),
                format!("  dense twin         cdna3::{twin} (half the K"),
                "  blgp               none: the SMFMAC builtin has no blgp operand\n".into(),
                format!("  abid               0..={} (the index set)\n", sets - 1),
                format!(
                    "  modifiers          takes cbsz, abid: {} legal (cbsz, abid) combination(s)\n",
                    4 * sets
                ),
            ] {
                assert!(text.contains(&want), "{id}: no {want:?} in\n{text}");
            }
        }
    }
}

/// Reference 4: the arithmetic line names the family of each row.
#[test]
fn info_names_the_arithmetic_family() {
    for r in rows() {
        let v = json(&["info", &format!("cdna3::{}", r.name), "--format", "json"]);
        let full = v["arithmetic"].as_str().unwrap();
        // SMFMAC (reference 6): the assumption comes first, in words, then
        // the arithmetic of the dense builtin of half the K.
        let (arith, k) = match &r.twin {
            None => (full, r.mnk[2]),
            Some(twin) => {
                let half = r.mnk[2] / 2;
                let head = format!(
                    "ASSUMPTION: no bit-accurate reference of SMFMAC arithmetic exists; the \
                     software path computes two chained dense cdna3::{twin} instructions \
                     (logical k 0..={}, then {half}..={}) on the decompressed A (the stored \
                     values at their positions, +0 elsewhere). Each of them: ",
                    half - 1,
                    r.mnk[2] - 1
                );
                let rest = full
                    .strip_prefix(&head)
                    .unwrap_or_else(|| panic!("{}: {full}", r.name));
                (rest, half)
            }
        };
        let want = match r.a.as_str() {
            "f32" | "f64" => "chained fused multiply-adds",
            "i8" => "wrap-around",
            "fp8" | "bf8" => "the even and the odd k truncated and summed apart",
            _ => "truncated at the largest product's exponent",
        };
        assert!(arith.contains(want), "{}: {arith}", r.name);
        // The group of one step: min(K, 8) for f16/bf16, 4 for xf32, min(K, 16) for fp8/bf8.
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
