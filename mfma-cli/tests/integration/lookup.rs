//! `mfma lookup` both ways, plain and under modifiers, against the
//! reference formulas; text and JSON say the same.

use crate::common::{a_source, all_shapes, b_source, json_line, ok_line, shape, Elem, Shape};
use serde_json::Value;

fn csv(e: &[usize]) -> String {
    e.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// A few elements of each operand: the corners and one inside.
fn probes(s: &Shape, op: char) -> Vec<Elem> {
    let (bl, r, c) = s.extent(op);
    vec![
        [0, 0, 0],
        [bl - 1, r - 1, c - 1],
        [bl / 2, r / 2, c / 3],
        [0, r - 1, 0],
    ]
}

fn slot_of(v: &Value) -> (usize, usize) {
    let n = |f: &str| v[f].as_u64().unwrap() as usize;
    (n("lane"), n("item"))
}

/// `lookup NAME --operand OP EXTRA --format json`.
fn lookup(name: &str, op: char, extra: &str) -> Value {
    json_line(&format!(
        "lookup {name} --operand {op} {extra} --format json"
    ))
}

fn fed(v: &Value) -> Vec<Elem> {
    serde_json::from_value(v["elements"].clone()).expect("elements: [[b, r, c], ...]")
}

#[test]
fn element_and_slot_lookups_match_reference_2() {
    for s in all_shapes() {
        // SMFMAC's A (a logical element, two candidate slots) and index:
        // `sparse.rs`.
        let ops: &[char] = if s.sparse() {
            &['b', 'c', 'd']
        } else {
            &['a', 'b', 'c', 'd']
        };
        for &op in ops {
            for e in probes(&s, op) {
                let (lane, item) = s.slot(op, e);
                // A 1-block builtin's element may also be given as ROW,COL.
                let forms = if s.blocks == 1 {
                    vec![csv(&e), csv(&e[1..])]
                } else {
                    vec![csv(&e)]
                };
                for form in forms {
                    let v = lookup(&s.id(), op, &format!("--element {form}"));
                    assert_eq!(v["element"], Value::from(e.to_vec()));
                    let slots = v["slots"].as_array().unwrap();
                    assert_eq!(slots.len(), 1, "every element reads one slot");
                    assert_eq!(slot_of(&slots[0]), (lane, item), "{} {op} {form}", s.id());
                }

                let v = lookup(&s.id(), op, &format!("--slot {lane},{item}"));
                assert_eq!(slot_of(&v["slot"]), (lane, item));
                assert_eq!(fed(&v), [e], "{} {op}", s.id());
                assert_eq!(v["arch"], s.arch.as_str());
            }
        }
    }
}

/// Reference 1 note: item t of s bits sits in VGPR ⌊t·s/32⌋ at bit t·s mod 32; f64 items are pairs.
#[test]
fn register_names_follow_the_packing_rule() {
    for (name, op, item, want) in [
        ("f32_32x32x8bf16_1k", 'a', 3, "v1[31:16]"),
        ("f32_32x32x8bf16_1k", 'c', 15, "v15"),
        ("f32_32x32x2bf16", 'b', 1, "v0[31:16]"),
        ("i32_4x4x4i8", 'a', 2, "v0[23:16]"),
        ("f64_16x16x4f64", 'c', 3, "v[7:6]"),
        ("f32_16x16x16f16", 'a', 2, "v1[15:0]"),
        // CDNA3: 8 bytes of fp8/bf8/i8 in two VGPRs, xf32 pairs, B's own type.
        ("cdna3::f32_32x32x16_fp8_fp8", 'a', 5, "v1[15:8]"),
        ("cdna3::f32_16x16x32_fp8_bf8", 'b', 7, "v1[31:24]"),
        ("cdna3::i32_16x16x32_i8", 'b', 3, "v0[31:24]"),
        ("cdna3::f32_16x16x8_xf32", 'a', 1, "v1"),
        ("cdna3::f64_4x4x4f64", 'd', 0, "v[1:0]"),
    ] {
        let v = lookup(name, op, &format!("--slot 0,{item}"));
        assert_eq!(v["slot"]["register"], want, "{name} {op} item {item}");
    }
}

#[test]
fn broadcast_lookups_follow_reference_3_1() {
    // f32_4x4x4f16: 16 blocks; cbsz 2, abid 1: blocks 4g..4g+3 read A of block 4g+1.
    let s = shape("f32_4x4x4f16");
    for own in 0..s.blocks {
        let e = [own, 2, 3];
        let (lane, item) = s.slot('a', e);
        let got = fed(&lookup(
            &s.name,
            'a',
            &format!("--cbsz 2 --abid 1 --slot {lane},{item}"),
        ));
        let want: Vec<Elem> = (0..s.blocks)
            .filter(|&b| a_source(2, 1, b) == own)
            .map(|b| [b, 2, 3])
            .collect();
        assert_eq!(got, want, "slot of block {own}");
        assert_eq!(got.len(), if own % 4 == 1 { 4 } else { 0 });

        let v = lookup(
            &s.name,
            'a',
            &format!("--cbsz 2 --abid 1 --element {}", csv(&e)),
        );
        let slots = v["slots"].as_array().unwrap();
        assert_eq!(slots.len(), 1);
        assert_eq!(slot_of(&slots[0]), s.slot('a', [a_source(2, 1, own), 2, 3]));
    }
}

#[test]
fn blgp_lookups_follow_reference_3_2() {
    // f32_16x16x16f16, blgp 4: B[k][j] is read from the slot of B[k % 4][j] (reference 3.2).
    let s = shape("f32_16x16x16f16");
    for k in 0..s.k {
        let v = lookup(&s.name, 'b', &format!("--blgp 4 --element 0,{k},5"));
        assert_eq!(slot_of(&v["slots"][0]), s.slot('b', [0, k % 4, 5]), "k {k}");
    }
    // Every blgp: a lane outside the source range feeds nothing; a lane inside feeds its readers.
    let slots = s.slots('b');
    for g in 1..=7 {
        for lane in [0, 17, 40, 63] {
            let got = fed(&lookup(
                &s.name,
                'b',
                &format!("--blgp {g} --slot {lane},1"),
            ));
            let want: Vec<Elem> = (0..64)
                .filter(|&r| b_source(g, r) == lane)
                .map(|r| slots[r][1])
                .collect();
            assert_eq!(got, want, "blgp {g} lane {lane}");
        }
    }
}

#[test]
fn text_answers() {
    let s = shape("f32_32x32x8bf16_1k");
    let (lane, item) = s.slot('c', [0, 5, 7]);
    assert_eq!(
        ok_line("lookup f32_32x32x8bf16_1k --operand c --element 0,5,7"),
        format!(
            "f32_32x32x8bf16_1k operand c: element (block 0, i 5, j 7) reads lane {lane}, \
             item {item} (v{item})\n"
        )
    );
    assert_eq!(
        ok_line(&format!(
            "lookup f32_32x32x8bf16_1k --operand c --slot {lane},{item}"
        )),
        format!(
            "f32_32x32x8bf16_1k operand c: lane {lane}, item {item} (v{item}) feeds element \
             (block 0, i 5, j 7)\n"
        )
    );
    assert_eq!(
        ok_line("lookup f32_16x16x4f16 --operand a --slot 0,0 --cbsz 1 --abid 1"),
        "f32_16x16x4f16 operand a: lane 0, item 0 (v0[15:0]) feeds no element under cbsz 1, \
         abid 1, blgp 0: the hardware ignores it\n"
    );
    let (lane, item) = shape("f32_16x16x4f16").slot('a', [1, 3, 2]);
    assert_eq!(
        item, 2,
        "k 2 of 4 f16 per lane: the low half of the second VGPR"
    );
    assert_eq!(
        ok_line(&format!(
            "lookup f32_16x16x4f16 --operand a --slot {lane},{item} --cbsz 1 --abid 1"
        )),
        format!(
            "f32_16x16x4f16 operand a: lane {lane}, item {item} (v1[15:0]) feeds 2 elements \
             under cbsz 1, abid 1, blgp 0:\n  (block 0, i 3, k 2)\n  (block 1, i 3, k 2)\n"
        )
    );
    // CDNA3 answers name the builtin as users write it, and say which
    // operands are negated (which moves nothing).
    let s = shape("cdna3::f32_16x16x32_fp8_bf8");
    let (lane, item) = s.slot('a', [0, 3, 17]);
    assert_eq!(
        ok_line("lookup f32_16x16x32_fp8_bf8 --arch cdna3 --operand a --element 3,17"),
        format!(
            "cdna3::f32_16x16x32_fp8_bf8 operand a: element (block 0, i 3, k 17) reads lane \
             {lane}, item {item} (v0[15:8])\n"
        )
    );
    let (lane, item) = shape("cdna3::f64_4x4x4f64").slot('c', [1, 2, 3]);
    assert_eq!(
        ok_line("lookup cdna3::f64_4x4x4f64 --operand c --element 1,2,3 --neg c,a"),
        format!(
            "cdna3::f64_4x4x4f64 operand c: element (block 1, i 2, j 3) reads lane {lane}, \
             item {item} (v[1:0]) under cbsz 0, abid 0, neg [a, c]\n"
        )
    );
}
