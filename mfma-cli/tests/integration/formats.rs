//! `layout` as table and CSV say the same as its JSON; snapshots of a few
//! tables; the header says in words what each modifier does.

use crate::common::{json_line, lanes, ok_line, snapshot, strings, Elem};
use std::collections::BTreeMap;

/// element -> (lane, item) from the JSON, for elements that some slot feeds.
fn sources(line: &str) -> BTreeMap<Elem, (usize, usize)> {
    let mut out = BTreeMap::new();
    for (lane, items) in lanes(&json_line(&format!("{line} --format json")))
        .into_iter()
        .enumerate()
    {
        for (item, fed) in items.into_iter().enumerate() {
            for e in fed {
                assert!(out.insert(e, (lane, item)).is_none(), "{e:?} fed twice");
            }
        }
    }
    out
}

/// element -> (lane, item) read back from the text grid (the header lines
/// before the first block are prose).
fn grid(text: &str) -> BTreeMap<Elem, (usize, usize)> {
    let mut out = BTreeMap::new();
    let mut block = None;
    let mut header = false;
    for line in text.lines().skip_while(|l| !l.starts_with("block ")) {
        if let Some(b) = line.strip_prefix("block ") {
            block = Some(b.parse::<usize>().unwrap());
            header = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if header {
            header = false;
            continue;
        }
        let mut words = line.split_whitespace();
        let row: usize = words.next().unwrap().parse().unwrap();
        for (col, cell) in words.enumerate() {
            let (lane, item) = cell.split_once(':').unwrap();
            out.insert(
                [block.unwrap(), row, col],
                (lane.parse().unwrap(), item.parse().unwrap()),
            );
        }
    }
    out
}

const CASES: &[&str] = &[
    "layout f32_4x4x4f16 --operand c",
    "layout f32_32x32x8bf16_1k --operand a",
    "layout f64_16x16x4f64 --operand d",
    "layout f32_16x16x4f16 --operand a --cbsz 1 --abid 1",
    "layout i32_32x32x4i8 --operand b --blgp 3",
    "layout f32_4x4x2bf16 --operand a --cbsz 4 --abid 9 --blgp 6",
    "layout cdna3::f32_32x32x16_fp8_bf8 --operand b",
    "layout f32_16x16x8_xf32 --arch cdna3 --operand a",
    "layout cdna3::f64_4x4x4f64 --operand c --neg a,b",
    "layout cdna3::i32_4x4x4i8 --operand a --cbsz 3 --abid 6 --blgp 2",
];

#[test]
fn table_cells_are_the_json_sources() {
    for line in CASES {
        let table = ok_line(&format!("{line} --format table"));
        assert_eq!(grid(&table), sources(line), "{line}");
    }
}

#[test]
fn csv_rows_are_the_json_slots() {
    for line in CASES {
        let text = ok_line(&format!("{line} --format csv"));
        let doc = json_line(&format!("{line} --format json"));
        let coords: Vec<&str> = strings(&doc["coords"]);
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            format!("lane,item,{}", coords.join(","))
        );
        let want = lanes(&doc);
        for (lane, items) in want.iter().enumerate() {
            for (item, fed) in items.iter().enumerate() {
                let row = lines.next().unwrap();
                let fields: Vec<&str> = row.split(',').collect();
                assert_eq!(fields[..2], [lane.to_string(), item.to_string()], "{line}");
                // Each coordinate column lists that coordinate of every fed element, `;`-separated.
                for (n, field) in fields[2..].iter().enumerate() {
                    let got: Vec<usize> = field
                        .split(';')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().unwrap())
                        .collect();
                    let want: Vec<usize> = fed.iter().map(|e| e[n]).collect();
                    assert_eq!(got, want, "{line} row {row}");
                }
            }
        }
        assert!(lines.next().is_none(), "{line}: one row per slot");
    }
}

#[test]
fn snapshots_of_tables() {
    for (file, line) in [
        (
            "layout-f32_4x4x4f16-c.txt",
            "layout f32_4x4x4f16 --operand c",
        ),
        (
            "layout-f64_16x16x4f64-c.txt",
            "layout f64_16x16x4f64 --operand c",
        ),
        (
            "layout-f32_16x16x4f16-a-cbsz1-abid1.txt",
            "layout f32_16x16x4f16 --operand a --cbsz 1 --abid 1",
        ),
        (
            "layout-f32_16x16x16f16-b-blgp4.txt",
            "layout f32_16x16x16f16 --operand b --blgp 4",
        ),
        (
            "layout-cdna3-f32_16x16x32_fp8_bf8-a.txt",
            "layout cdna3::f32_16x16x32_fp8_bf8 --operand a",
        ),
        (
            "layout-cdna3-f64_16x16x4f64-b-neg-ab.txt",
            "layout cdna3::f64_16x16x4f64 --operand b --neg a,b",
        ),
        (
            "layout-cdna3-f32_16x16x1f32-a-cbsz2-abid1.txt",
            "layout cdna3::f32_16x16x1f32 --operand a --cbsz 2 --abid 1",
        ),
    ] {
        snapshot(file, &ok_line(line));
    }
}

/// The table's header: the modifiers as given, then one sentence each.
#[test]
fn headers_say_what_the_modifiers_do() {
    for (line, want) in [
        (
            "layout f32_16x16x4f16 --operand b --cbsz 1 --abid 1 --blgp 3",
            &[
                "cbsz 1, abid 1: blocks in groups of 2, each group reads A of its block 1 \
                 (blocks 0..3 read A of 1, 1, 3, 3)",
                "blgp 3: lane L reads B from lane (L+16) mod 64 (rotated by 16 lanes)",
            ][..],
        ),
        (
            "layout cdna3::f32_32x32x2f32 --operand b --blgp 6",
            &[
                "blgp 6: lane L reads B from lane 32 + L mod 16 (lanes 32-47 copied to every \
               16-lane group)",
            ],
        ),
        (
            "layout cdna3::f64_16x16x4f64 --operand a --neg c,a",
            &["neg [a, c]: A and C are negated before the arithmetic; no data moves"],
        ),
        ("layout cdna3::f64_16x16x4f64 --operand a", &[]),
    ] {
        let text = ok_line(line);
        let lines: Vec<&str> = text.lines().collect();
        let blank = lines.iter().position(|l| l.is_empty()).unwrap();
        assert_eq!(&lines[1..blank], want, "{line}");
    }
}
