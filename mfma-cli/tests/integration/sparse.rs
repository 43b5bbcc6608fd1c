//! SMFMAC (CDNA3 structured-sparse) in `layout`, `lookup` and the errors,
//! against CDNA3 reference 2.1 (compressed A), 2.2 (index fields) and 3.4
//! (cbsz/abid pick the index set), restated in `common` without mfma-spec.

use crate::common::{
    broadcast_pairs, candidates, fails, index_set, json, json_line, lanes, ok, ok_line, shapes_of,
    snapshot, Elem, Shape,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The 14 SMFMAC builtins, as `list` gives them.
fn sparse() -> Vec<Shape> {
    let all: Vec<Shape> = shapes_of("cdna3")
        .into_iter()
        .filter(Shape::sparse)
        .collect();
    assert_eq!(all.len(), 14);
    all
}

fn layout(s: &Shape, op: &str, extra: &[&str]) -> Value {
    let id = s.id();
    let mut args = vec!["layout", &id, "--operand", op, "--format", "json"];
    args.extend_from_slice(extra);
    json(&args)
}

fn mods(cbsz: usize, abid: usize) -> [String; 4] {
    [
        "--cbsz".into(),
        cbsz.to_string(),
        "--abid".into(),
        abid.to_string(),
    ]
}

/// CDNA3 2.1: slot (lane, item) of A holds compressed element (0, i, kc),
/// which may be any of the 4 logical k of its group; every compressed
/// element is in exactly one slot; no cbsz/abid moves A (3.4).
#[test]
fn sparse_a_slots_hold_one_compressed_value_of_4_candidates() {
    for s in sparse() {
        let want = s.slots('a');
        for (cbsz, abid) in broadcast_pairs(&s) {
            let m = mods(cbsz, abid);
            let m: Vec<&str> = m.iter().map(String::as_str).collect();
            let doc = layout(&s, "a", &m);
            assert_eq!(doc["coords"], serde_json::json!(["block", "i", "k"]));
            assert_eq!(
                doc["stored_coords"],
                serde_json::json!(["block", "i", "kc"])
            );
            let stored: Vec<Vec<Elem>> = serde_json::from_value(doc["stored"].clone()).unwrap();
            assert_eq!(stored, want, "{} cbsz {cbsz} abid {abid}", s.id());
            let got = lanes(&doc);
            for (lane, items) in got.iter().enumerate() {
                assert_eq!(items.len(), s.a_per_lane, "{}", s.id());
                for (item, fed) in items.iter().enumerate() {
                    let [_, i, kc] = want[lane][item];
                    let ks: Vec<usize> = fed.iter().map(|e| e[2]).collect();
                    assert_eq!(ks, candidates(kc), "{} ({lane}, {item})", s.id());
                    assert!(fed.iter().all(|e| e[0] == 0 && e[1] == i));
                }
            }
        }
        // Each logical k of a row is a candidate of exactly 2 slots (its
        // group's two stored values), both in the same lane.
        let doc = layout(&s, "a", &[]);
        let mut seen: BTreeMap<Elem, Vec<(usize, usize)>> = BTreeMap::new();
        for (lane, items) in lanes(&doc).into_iter().enumerate() {
            for (item, fed) in items.into_iter().enumerate() {
                for e in fed {
                    seen.entry(e).or_default().push((lane, item));
                }
            }
        }
        assert_eq!(seen.len(), s.m * s.k, "{}", s.id());
        for (e, slots) in seen {
            assert_eq!(slots.len(), 2, "{} {e:?}", s.id());
            assert_eq!(slots[0].0, slots[1].0, "{} {e:?}: one lane", s.id());
        }
    }
}

/// CDNA3 2.2 and 3.4: field t of a lane is bits 4t+3:4t; it is (set, i, g)
/// as the formula says, places A[i][4g..=4g+3] (kc 2g, 2g+1, in its own
/// lane), and is read exactly when its set is the one cbsz/abid pick.
/// Every field of every set is used exactly once; a set is a run of items.
#[test]
fn idx_fields_follow_reference_2_2_and_3_4() {
    for s in sparse() {
        let want = s.slots('x');
        let a = s.slots('a');
        for (cbsz, abid) in broadcast_pairs(&s) {
            let m = mods(cbsz, abid);
            let m: Vec<&str> = m.iter().map(String::as_str).collect();
            let doc = layout(&s, "idx", &m);
            let read = index_set(cbsz, abid);
            assert_eq!(doc["index_set"], read, "{}", s.id());
            assert_eq!(doc["coords"], serde_json::json!(["set", "i", "g"]));
            let fields = doc["fields"].as_array().unwrap();
            let fed = lanes(&doc);
            let mut used = BTreeSet::new();
            for lane in 0..64 {
                let items = fields[lane].as_array().unwrap();
                assert_eq!(items.len(), 8, "{}: 8 fields a lane", s.id());
                for (t, f) in items.iter().enumerate() {
                    let e @ [set, i, g] = want[lane][t];
                    let n = |k: &str| f[k].as_u64().unwrap() as usize;
                    assert_eq!([n("set"), n("i"), n("g")], e, "{} ({lane}, {t})", s.id());
                    assert_eq!(f["bits"], serde_json::json!([4 * t + 3, 4 * t]));
                    let ks: Vec<Elem> = candidates(2 * g).iter().map(|&k| [0, i, k]).collect();
                    assert_eq!(f["a"], serde_json::json!(ks), "{}", s.id());
                    assert_eq!(f["kc"], serde_json::json!([2 * g, 2 * g + 1]));
                    assert_eq!(f["read"], set == read, "{} ({lane}, {t})", s.id());
                    let feeds: Vec<Elem> = if set == read { vec![e] } else { vec![] };
                    assert_eq!(fed[lane][t], feeds, "{} ({lane}, {t})", s.id());
                    // The field shares its lane with the values it places.
                    for kc in [2 * g, 2 * g + 1] {
                        let lane_of_a = (0..64).find(|&l| a[l].contains(&[0, i, kc])).unwrap();
                        assert_eq!(lane_of_a, lane, "{} A[{i}][kc {kc}]", s.id());
                    }
                    assert!(used.insert(e), "{}: {e:?} twice", s.id());
                    // Set `set` holds the items set*F..set*F+F-1 (F = 8 / sets).
                    assert_eq!(t / (8 / s.sets()), set, "{} item {t}", s.id());
                }
            }
            assert_eq!(used.len(), s.sets() * s.m * s.k / 4, "{}", s.id());
        }
    }
}

/// The table's cells are the JSON's slots (the compressed grid of A, every
/// set's own fields for idx), and CSV's rows too.
#[test]
fn tables_and_csv_say_what_json_says() {
    for line in [
        "layout cdna3::smfmac_f32_16x16x32_f16 --operand a",
        "layout cdna3::smfmac_i32_32x32x32_i8 --operand a --cbsz 2 --abid 1",
        "layout cdna3::smfmac_f32_16x16x32_f16 --operand idx --abid 2",
        "layout cdna3::smfmac_f32_32x32x32_fp8_bf8 --operand idx --cbsz 1 --abid 1",
    ] {
        let doc = json_line(&format!("{line} --format json"));
        let idx = line.contains("idx");
        // (lane, item) -> the element of the register layout it holds.
        let mut own = BTreeMap::new();
        let key = if idx { "fields" } else { "stored" };
        for (lane, items) in doc[key].as_array().unwrap().iter().enumerate() {
            for (item, x) in items.as_array().unwrap().iter().enumerate() {
                let e: Elem = if idx {
                    ["set", "i", "g"].map(|k| x[k].as_u64().unwrap() as usize)
                } else {
                    serde_json::from_value(x.clone()).unwrap()
                };
                own.insert(e, (lane, item));
            }
        }
        let table = ok_line(&format!("{line} --format table"));
        let mut grid = BTreeMap::new();
        let mut block = None;
        let mut header = false;
        for l in table.lines() {
            if let Some(rest) = l.strip_prefix("block ").or(l.strip_prefix("set ")) {
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                block = Some(n.parse::<usize>().unwrap());
                header = true;
                continue;
            }
            if block.is_none() || l.is_empty() {
                continue;
            }
            if std::mem::take(&mut header) {
                continue;
            }
            let mut words = l.split_whitespace();
            let row: usize = words.next().unwrap().parse().unwrap();
            for (col, cell) in words.enumerate() {
                let (lane, item) = cell.split_once(':').unwrap();
                let slot = (lane.parse().unwrap(), item.parse().unwrap());
                grid.insert([block.unwrap(), row, col], slot);
            }
        }
        assert_eq!(grid, own, "{line}");
        // Each set's heading says whether it is read.
        if idx {
            let read = doc["index_set"].as_u64().unwrap();
            for l in table.lines().filter(|l| l.starts_with("set ")) {
                let set: u64 = l[4..].split(' ').next().unwrap().parse().unwrap();
                assert_eq!(l.contains(": read under"), set == read, "{l}");
                assert_eq!(l.contains(": not read under"), set != read, "{l}");
            }
        }

        let csv = ok_line(&format!("{line} --format csv"));
        let mut rows = csv.lines();
        let head = rows.next().unwrap();
        if idx {
            assert_eq!(head, "lane,item,set,i,g,bits,read");
            let fields = doc["fields"].as_array().unwrap();
            for row in rows {
                let f: Vec<&str> = row.split(',').collect();
                let (lane, item): (usize, usize) = (f[0].parse().unwrap(), f[1].parse().unwrap());
                let x = &fields[lane][item];
                for (n, k) in ["set", "i", "g"].iter().enumerate() {
                    assert_eq!(f[2 + n], x[k].to_string(), "{line}: {row}");
                }
                assert_eq!(f[5], format!("{}:{}", x["bits"][0], x["bits"][1]));
                assert_eq!(f[6] == "1", x["read"] == true, "{line}: {row}");
            }
        } else {
            assert_eq!(head, "lane,item,block,i,k,kc");
            let fed = lanes(&doc);
            for row in rows {
                let f: Vec<&str> = row.split(',').collect();
                let (lane, item): (usize, usize) = (f[0].parse().unwrap(), f[1].parse().unwrap());
                let ks: Vec<String> = fed[lane][item].iter().map(|e| e[2].to_string()).collect();
                assert_eq!(f[4], ks.join(";"), "{line}: {row}");
                assert_eq!(f[5], doc["stored"][lane][item][2].to_string(), "{row}");
            }
        }
    }
}

#[test]
fn snapshots_of_sparse_tables() {
    for (file, line) in [
        (
            "layout-cdna3-smfmac_f32_16x16x32_f16-a.txt",
            "layout cdna3::smfmac_f32_16x16x32_f16 --operand a",
        ),
        (
            "layout-cdna3-smfmac_i32_16x16x64_i8-idx-abid1.txt",
            "layout cdna3::smfmac_i32_16x16x64_i8 --operand idx --abid 1",
        ),
    ] {
        snapshot(file, &ok_line(line));
    }
}

fn lookup(line: &str) -> Value {
    json_line(&format!("{line} --format json"))
}

fn slot_of(v: &Value) -> (usize, usize) {
    (
        v["lane"].as_u64().unwrap() as usize,
        v["item"].as_u64().unwrap() as usize,
    )
}

/// A logical element of A: the two slots of its group (kc 2g and 2g+1,
/// CDNA3 2.1) and the field of the set read (2.2, 3.4); a slot: its kc,
/// its 4 candidates and the 2 bits of its position in that field.
#[test]
fn sparse_a_lookups_name_the_group_slots_and_the_index_field() {
    for s in sparse() {
        let id = s.id();
        let (last_set, cbsz) = (s.sets() - 1, 0);
        for (i, k) in [(0, 0), (s.m - 1, s.k - 1), (s.m / 2, s.k / 3 + 1)] {
            for abid in [0, last_set] {
                let g = k / 4;
                let read = index_set(cbsz, abid);
                let v = lookup(&format!(
                    "lookup {id} --operand a --element {i},{k} --abid {abid}"
                ));
                assert_eq!(v["element"], serde_json::json!([0, i, k]));
                let slots = v["slots"].as_array().unwrap();
                let want: Vec<(usize, usize)> = [2 * g, 2 * g + 1]
                    .map(|kc| s.slot('a', [0, i, kc]))
                    .to_vec();
                let got: Vec<(usize, usize)> = slots.iter().map(slot_of).collect();
                assert_eq!(got, want, "{id} ({i}, {k})");
                assert_eq!(slots[0]["kc"], 2 * g);
                assert_eq!(slots[1]["kc"], 2 * g + 1);
                let field = s.slot('x', [read, i, g]);
                assert_eq!(slot_of(&v["index"]), field, "{id} ({i}, {k}) abid {abid}");
                assert_eq!(v["index"]["set"], read);
                let t = field.1;
                assert_eq!(
                    v["index"]["register"],
                    format!("v0[{}:{}]", 4 * t + 3, 4 * t)
                );

                // The slot of the second stored value, looked up back.
                let (lane, item) = want[1];
                let v = lookup(&format!(
                    "lookup {id} --operand a --slot {lane},{item} --abid {abid}"
                ));
                assert_eq!(v["stored"], serde_json::json!([0, i, 2 * g + 1]));
                let ks: Vec<Elem> = candidates(2 * g + 1).iter().map(|&k| [0, i, k]).collect();
                assert_eq!(v["elements"], serde_json::json!(ks));
                assert_eq!(
                    v["index"]["position"],
                    format!("v0[{}:{}]", 4 * t + 3, 4 * t + 2)
                );
            }
        }
    }
    // In words, the reference's example (CDNA3 2.2): K[2][31] of
    // smfmac_f32_16x16x32_f16 is indexed by lane 50, bits 7:4; abid 3: 31:28.
    assert_eq!(
        ok_line("lookup cdna3::smfmac_f32_16x16x32_f16 --operand a --element 2,31"),
        "cdna3::smfmac_f32_16x16x32_f16 operand a: logical element (block 0, i 2, k 31) is in \
         group g 7 (k 28..=31), whose 2 stored values are lane 50, item 2 (v1[15:0], kc 14) and \
         lane 50, item 3 (v1[31:16], kc 15): it is one of them or +0, as the index field in \
         lane 50, item 1 (v0[7:4], set 0) says\n"
    );
    assert_eq!(
        ok_line("lookup cdna3::smfmac_f32_16x16x32_f16 --operand a --slot 50,3 --abid 3"),
        "cdna3::smfmac_f32_16x16x32_f16 operand a: lane 50, item 3 (v1[31:16]) holds compressed \
         element (block 0, i 2, kc 15): stored value 1 of group g 7, one of logical k 28, 29, \
         30, 31; its position is v0[31:30] of the index field in lane 50, item 7 (v0[31:28], \
         set 3, the one read under cbsz 0, abid 3)\n"
    );
}

#[test]
fn idx_lookups_say_what_a_field_places_and_whether_it_is_read() {
    for s in sparse() {
        let id = s.id();
        for (cbsz, abid) in broadcast_pairs(&s) {
            let read = index_set(cbsz, abid);
            for e @ [set, i, g] in [[0, 0, 0], [s.sets() - 1, s.m - 1, s.k / 4 - 1]] {
                let (lane, t) = s.slot('x', e);
                let m = format!("--cbsz {cbsz} --abid {abid}");
                let v = lookup(&format!(
                    "lookup {id} --operand idx --element {set},{i},{g} {m}"
                ));
                assert_eq!(slot_of(&v["slots"][0]), (lane, t), "{id} {e:?}");
                assert_eq!(v["field"]["read"], set == read, "{id} {e:?} {m}");
                let v = lookup(&format!("lookup {id} --operand idx --slot {lane},{t} {m}"));
                let fed: Vec<Elem> = serde_json::from_value(v["elements"].clone()).unwrap();
                let want: Vec<Elem> = if set == read { vec![e] } else { vec![] };
                assert_eq!(fed, want, "{id} {e:?} {m}");
                assert_eq!(
                    v["slot"]["register"],
                    format!("v0[{}:{}]", 4 * t + 3, 4 * t)
                );
            }
        }
    }
    assert_eq!(
        ok_line("lookup cdna3::smfmac_f32_16x16x32_f16 --operand idx --element 3,2,7 --abid 1"),
        "cdna3::smfmac_f32_16x16x32_f16 operand idx: element (set 3, i 2, g 7) is lane 50, item \
         7 (v0[31:28]): the positions of row 2's two stored values in group 7 (logical k \
         28..=31; kc 14 and 15 of A, in lane 50, items 2 and 3); not read under cbsz 0, abid 1 \
         (the instruction reads set 1)\n"
    );
}

/// The table's header and each picture say what cbsz/abid do on SMFMAC.
#[test]
fn headers_say_which_index_set_is_read() {
    let text = ok_line("layout cdna3::smfmac_i32_16x16x64_i8 --operand idx --cbsz 2 --abid 1");
    assert!(
        text.contains(
            "cbsz 2, abid 1: the instruction reads index set 0 (bits 15:0 of idx; cbsz 2 reads \
             set 0 whatever abid is); A is never broadcast\n"
        ),
        "{text}"
    );
    let svg = ok_line("layout cdna3::smfmac_f32_16x16x32_bf16 --operand idx --abid 3 --format svg");
    for want in [
        ">set 3: bits 31:24, read<",
        ">set 0: bits 7:0, not read<",
        ">cbsz 0, abid 3: the instruction reads index set 3 (bits 31:24 of idx; abid picks it \
         as cbsz is 0); A is never broadcast<",
    ] {
        assert!(svg.contains(want), "no {want}");
    }
    let svg = ok_line("layout cdna3::smfmac_f32_16x16x32_f16 --operand a --format svg");
    for g in 0..8 {
        assert!(svg.contains(&format!(">g{g}: k {}-{}<", 4 * g, 4 * g + 3)));
    }
}

/// Errors: the index operand of a dense builtin, SMFMAC's modifier rules
/// (the spec's own messages), logical A coordinates, sets as blocks.
#[test]
fn sparse_errors_say_what_is_allowed() {
    assert_eq!(
        fails(&["layout", "cdna3::f32_16x16x16f16", "--operand", "idx"]),
        "error: operand idx is the index register of a structured-sparse SMFMAC builtin, and \
         cdna3::f32_16x16x16f16 is a dense MFMA builtin: its operands are a, b, c, d; CDNA3's \
         SMFMAC builtins (`cdna3::smfmac_f32_16x16x32_f16`, ...) have one\n"
    );
    assert_eq!(
        fails(&[
            "lookup",
            "f32_4x4x4f16",
            "--operand",
            "idx",
            "--slot",
            "0,0"
        ]),
        "error: operand idx is the index register of a structured-sparse SMFMAC builtin, and \
         f32_4x4x4f16 is a dense MFMA builtin: its operands are a, b, c, d; CDNA2 has no SMFMAC \
         builtin (CDNA3's `cdna3::smfmac_f32_16x16x32_f16` is one)\n"
    );
    assert_eq!(
        fails(&["layout", "cdna3::smfmac_f32_16x16x32_f16", "--operand", "e"]),
        "error: unknown operand `e`: expected one of a, b, c, d, idx\n"
    );
    for (m, ops) in [
        (
            ["--blgp", "1"],
            "blgp must be 0 for cdna3::smfmac_f32_16x16x32_f16: structured-sparse SMFMAC has no \
             B lane-group pattern (its modifiers are cbsz and abid, which pick the index set)",
        ),
        (
            ["--abid", "4"],
            "abid must be in 0..=3 for cdna3::smfmac_f32_16x16x32_f16 (got 4): it picks one of \
             the 4 index sets of the index register (8 bits each), whatever cbsz is",
        ),
        (
            ["--cbsz", "4"],
            "cbsz must be in 0..=3 for cdna3::smfmac_f32_16x16x32_f16 (got 4): on SMFMAC cbsz 0 \
             lets abid pick the index set and 1..=3 use set 0; larger values are undefined",
        ),
        (
            ["--neg", "a"],
            "neg must be empty for cdna3::smfmac_f32_16x16x32_f16: CDNA3 negates operands only \
             in cdna3::f64_16x16x4f64 and cdna3::f64_4x4x4f64",
        ),
    ] {
        for op in ["a", "idx"] {
            let mut args = vec!["layout", "cdna3::smfmac_f32_16x16x32_f16", "--operand", op];
            args.extend(m);
            assert_eq!(fails(&args), format!("error: {ops}\n"), "{args:?}");
        }
    }
    for (args, msg) in [
        (
            &["--operand", "a", "--element", "0,16,64"][..],
            "element (block 0, i 16, k 64) is out of range for cdna3::smfmac_i32_16x16x64_i8 \
             operand a: it needs block < 1, i < 16, k < 64 (the logical k: A stores 32 of them \
             a row)",
        ),
        (
            &["--operand", "a", "--slot", "0,8"][..],
            "slot (lane 0, item 8) is out of range for cdna3::smfmac_i32_16x16x64_i8 operand a: \
             it needs lane < 64, item < 8",
        ),
        (
            &["--operand", "idx", "--element", "2,0,0"][..],
            "element (set 2, i 0, g 0) is out of range for cdna3::smfmac_i32_16x16x64_i8 operand \
             idx: it needs set < 2, i < 16, g < 16",
        ),
        (
            &["--operand", "idx", "--element", "3,4"][..],
            "bad element `3,4`: expected 3 comma-separated non-negative integers \
             (cdna3::smfmac_i32_16x16x64_i8 has 2 index sets: give SET,I,G)",
        ),
    ] {
        let mut all = vec!["lookup", "cdna3::smfmac_i32_16x16x64_i8"];
        all.extend_from_slice(args);
        assert_eq!(fails(&all), format!("error: {msg}\n"), "{all:?}");
    }
    // An SMFMAC name on CDNA2: the spec's message, nothing like it there.
    assert_eq!(
        fails(&["info", "smfmac_f32_16x16x32_f16"]),
        "error: unknown CDNA2 builtin `smfmac_f32_16x16x32_f16`: gfx90a has no such instruction \
         (it is CDNA3's); CDNA2 has nothing like it\n"
    );
    // A misspelt SMFMAC name suggests the closest SMFMAC.
    assert_eq!(
        fails(&["info", "cdna3::smfmac_f32_16x16x32f16"]),
        "error: unknown CDNA3 builtin `smfmac_f32_16x16x32f16`: did you mean \
         `cdna3::smfmac_f32_16x16x32_f16`?\n"
    );
    let _ = ok(&[
        "layout",
        "cdna3::smfmac_f32_16x16x32_f16",
        "--operand",
        "idx",
        "--cbsz",
        "3",
        "--abid",
        "3",
    ]);
}
