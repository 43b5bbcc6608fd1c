//! `mfma layout --format json` against an independent statement of the
//! reference layouts (2.1, 2.2) and modifier routing (3.1, 3.2), for every
//! architecture: CDNA3 uses CDNA2's formulas (CDNA3 reference 2, 3.1-3.3);
//! SMFMAC's A and index as CDNA3 2.1, 2.2 and 3.4 say (more in `sparse.rs`).

use crate::common::{
    a_source, all_shapes, b_source, blgp_max, broadcast_pairs, candidates, index_set, json, lanes,
    op_name, shape, Elem, Shape,
};
use serde_json::Value;

/// `layout` of a builtin by the name users write (`cdna3::` for CDNA3).
fn layout(s: &Shape, op: char, extra: &[&str]) -> Value {
    let op = op_name(op);
    let id = s.id();
    let mut args = vec!["layout", &id, "--operand", &op, "--format", "json"];
    args.extend_from_slice(extra);
    json(&args)
}

fn check_header(doc: &Value, s: &Shape, op: char, m: [usize; 3]) {
    check_header_neg(doc, s, op, m, &[]);
}

fn check_header_neg(doc: &Value, s: &Shape, op: char, m: [usize; 3], neg: &[&str]) {
    let obj = doc.as_object().expect("one JSON object");
    let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    let mut want = vec![
        "abid", "arch", "blgp", "builtin", "cbsz", "coords", "lanes", "neg", "operand",
    ];
    // SMFMAC: the index set read; A's compressed elements; the index fields.
    if s.sparse() {
        want.push("index_set");
        match op {
            'a' => want.extend(["stored", "stored_coords"]),
            'x' => want.push("fields"),
            _ => {}
        }
    }
    want.sort_unstable();
    let mut got = keys.clone();
    got.sort_unstable();
    assert_eq!(got, want, "{} {op}: fields", s.id());
    assert_eq!(doc["builtin"], s.name.as_str());
    assert_eq!(doc["arch"], s.arch.as_str());
    assert_eq!(doc["operand"], op_name(op).as_str());
    assert_eq!(
        [&doc["cbsz"], &doc["abid"], &doc["blgp"]],
        m.map(Value::from).each_ref()
    );
    assert_eq!(doc["neg"], Value::from(neg.to_vec()));
    let coords = match op {
        'a' => ["block", "i", "k"],
        'b' => ["block", "k", "j"],
        'x' => ["set", "i", "g"],
        _ => ["block", "i", "j"],
    };
    assert_eq!(doc["coords"], Value::from(coords.to_vec()));
    if s.sparse() {
        assert_eq!(doc["index_set"], index_set(m[0], m[1]), "{}", s.id());
    }
}

/// What slot of element `e` of the register layout feeds with modifiers
/// zero: the element itself; an SMFMAC's compressed A value may be any of
/// the 4 logical k of its group (CDNA3 2.1); an index field is read only
/// in set 0 (3.4).
fn plain_feeds(s: &Shape, op: char, e: Elem) -> Vec<Elem> {
    match op {
        'a' if s.sparse() => candidates(e[2]).into_iter().map(|k| [0, e[1], k]).collect(),
        'x' if e[0] != 0 => vec![],
        _ => vec![e],
    }
}

#[test]
fn every_builtin_and_operand_matches_reference_2() {
    let all = all_shapes();
    assert_eq!(all.len(), 27 + 46);
    for s in &all {
        for op in s.operands() {
            let doc = layout(s, op, &[]);
            check_header(&doc, s, op, [0, 0, 0]);
            let got = lanes(&doc);
            let want: Vec<Vec<Vec<Elem>>> = s
                .slots(op)
                .into_iter()
                .map(|lane| lane.into_iter().map(|e| plain_feeds(s, op, e)).collect())
                .collect();
            assert_eq!(got.len(), 64, "{} {op}", s.id());
            assert!(
                got.iter().all(|l| l.len() == s.per_lane(op)),
                "{} {op}",
                s.id()
            );
            assert_eq!(got, want, "{} operand {op}", s.id());
        }
    }
}

#[test]
fn broadcast_routes_a_blocks_as_reference_3_1() {
    let mut checked = [0, 0];
    // SMFMAC's cbsz/abid broadcast nothing (CDNA3 3.4): `sparse.rs`.
    for s in all_shapes().into_iter().filter(|s| !s.sparse()) {
        let slots = s.slots('a');
        for (cbsz, abid) in broadcast_pairs(&s) {
            let (c, a) = (cbsz.to_string(), abid.to_string());
            let doc = layout(&s, 'a', &["--cbsz", &c, "--abid", &a]);
            check_header(&doc, &s, 'a', [cbsz, abid, 0]);
            // Slot (L, t) holds A[own][i][k]; it feeds every block whose source is `own`.
            let want: Vec<Vec<Vec<Elem>>> = slots
                .iter()
                .map(|lane| {
                    lane.iter()
                        .map(|&[own, i, k]| {
                            (0..s.blocks)
                                .filter(|&b| a_source(cbsz, abid, b) == own)
                                .map(|b| [b, i, k])
                                .collect()
                        })
                        .collect()
                })
                .collect();
            assert_eq!(lanes(&doc), want, "{} cbsz {cbsz} abid {abid}", s.id());
            checked[usize::from(s.cdna3())] += 1;
        }
    }
    // Every builtin at (0, 0), plus 2, 6 and 30 nonzero pairs for the 2-,
    // 4- and 16-block ones: 5 each on CDNA2, 4 each on CDNA3 (no non-_1k bf16).
    assert_eq!(checked, [27 + 5 * (2 + 6 + 30), 32 + 4 * (2 + 6 + 30)]);
}

#[test]
fn blgp_routes_b_lanes_as_reference_3_2() {
    let mut checked = [0, 0];
    for s in all_shapes() {
        let slots = s.slots('b');
        for g in 1..=blgp_max(&s) {
            let gs = g.to_string();
            let doc = layout(&s, 'b', &["--blgp", &gs]);
            check_header(&doc, &s, 'b', [0, 0, g]);
            // Slot (L, t) feeds the element of every slot (L', t) that reads lane L.
            let want: Vec<Vec<Vec<Elem>>> = (0..64)
                .map(|lane| {
                    (0..s.b_per_lane)
                        .map(|item| {
                            (0..64)
                                .filter(|&reader| b_source(g, reader) == lane)
                                .map(|reader| slots[reader][item])
                                .collect()
                        })
                        .collect()
                })
                .collect();
            assert_eq!(lanes(&doc), want, "{} blgp {g}", s.id());
            checked[usize::from(s.cdna3())] += 1;
        }
    }
    // CDNA2: every non-f64 builtin; CDNA3: the 12 multi-block non-f64 ones
    // and the 2 single-block f32 ones.
    assert_eq!(checked, [25 * 7, 14 * 7], "blgp 1..=7");
}

/// CDNA3 3.3: negation moves no data, so every layout under every subset is
/// the plain one, and the header says which operands are negated.
#[test]
fn negation_leaves_layouts_alone() {
    for id in ["cdna3::f64_16x16x4f64", "cdna3::f64_4x4x4f64"] {
        let s = shape(id);
        for op in ['a', 'b', 'c', 'd'] {
            let plain = lanes(&layout(&s, op, &[]));
            for neg in ["a", "b", "c", "a,c", "b,a", "a,b,c"] {
                let doc = layout(&s, op, &["--neg", neg]);
                let mut names: Vec<&str> = neg.split(',').collect();
                names.sort_unstable();
                check_header_neg(&doc, &s, op, [0, 0, 0], &names);
                assert_eq!(lanes(&doc), plain, "{id} {op} --neg {neg}");
            }
        }
    }
}

#[test]
fn modifiers_route_only_their_own_operand() {
    for s in all_shapes() {
        let (cbsz, abid) = *broadcast_pairs(&s).last().expect("at least (0, 0)");
        let g = blgp_max(&s).min(3);
        let m = [cbsz, abid, g].map(|v| v.to_string());
        let args = ["--cbsz", &m[0], "--abid", &m[1], "--blgp", &m[2]];
        for op in s.operands() {
            let both = layout(&s, op, &args);
            check_header(&both, &s, op, [cbsz, abid, g]);
            // A (and SMFMAC's index) depends on cbsz/abid only, B on blgp
            // only, C and D on nothing.
            let alone: &[&str] = match op {
                'a' | 'x' => &args[..4],
                'b' => &args[4..],
                _ => &[],
            };
            assert_eq!(
                lanes(&both),
                lanes(&layout(&s, op, alone)),
                "{} operand {op} with {args:?}",
                s.id()
            );
        }
    }
}
