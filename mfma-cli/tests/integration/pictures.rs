//! The SVG pictures: well-formed XML, one cell per element, each cell naming
//! the slot the reference formulas give; docs/ is what `mfma pictures` makes.

use crate::common;
use crate::common::{a_source, all_shapes, ok, scratch, shapes_of, Elem, Shape};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cells of a picture: element -> (lane, item), from each cell's
/// `<title>`, after checking the visible labels say the same.
fn cells(svg: &str, s: &Shape, op: char) -> BTreeMap<Elem, (usize, usize)> {
    let doc =
        roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{} {op}: not XML: {e}", s.name));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    // The title names the builtin as users write it (`cdna3::` for CDNA3).
    let title = root
        .descendants()
        .find(|n| n.attribute("class") == Some("t"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(
        title.starts_with(&format!(
            "{}: operand {}",
            s.id(),
            common::op_name(op).to_uppercase()
        )),
        "{title}"
    );
    // An SMFMAC's A is drawn compressed (kc), its index one grid per set.
    let axes = match op {
        'a' if s.sparse() => ("block", "i", "kc"),
        'a' => ("block", "i", "k"),
        'b' => ("block", "k", "j"),
        'x' => ("set", "i", "g"),
        _ => ("block", "i", "j"),
    };
    let mut out = BTreeMap::new();
    for g in root
        .descendants()
        .filter(|n| n.attribute("class") == Some("cell"))
    {
        let kids: Vec<_> = g.children().filter(|n| n.is_element()).collect();
        let names: Vec<&str> = kids.iter().map(|n| n.tag_name().name()).collect();
        assert_eq!(
            names,
            ["title", "rect", "text", "text"],
            "{} {op}: cell shape",
            s.name
        );
        let title = kids[0].text().unwrap();
        // "block B, i R, k C: lane L, item T"
        let nums: Vec<usize> = title
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect();
        let want_title = format!(
            "{} {}, {} {}, {} {}: lane {}, item {}",
            axes.0, nums[0], axes.1, nums[1], axes.2, nums[2], nums[3], nums[4]
        );
        assert_eq!(title, want_title, "{} {op}", s.name);
        assert_eq!(
            kids[2].text(),
            Some(nums[4].to_string().as_str()),
            "item label"
        );
        assert_eq!(
            kids[3].text(),
            Some(nums[3].to_string().as_str()),
            "lane label"
        );
        let e = [nums[0], nums[1], nums[2]];
        assert!(
            out.insert(e, (nums[3], nums[4])).is_none(),
            "{} {op}: {e:?} drawn twice",
            s.name
        );
    }
    assert_eq!(
        out.len(),
        s.elements(op).len(),
        "{} {op}: one cell per element",
        s.name
    );
    out
}

/// Runs `mfma pictures` (every architecture: 4 pictures for each of the
/// 27 + 32 dense builtins, 5 for each of the 14 SMFMAC) into a directory of
/// its own (tests run in parallel).
fn pictures_dir(test: &str) -> PathBuf {
    let dir = scratch(&format!("pictures-{test}"));
    let said = ok(&["pictures", "--out", dir.to_str().unwrap()]);
    assert_eq!(
        said,
        format!("wrote {} pictures to {}\n", 4 * 59 + 5 * 14, dir.display())
    );
    dir
}

/// `NAME-OPERAND.svg` for CDNA2, whose names are bare; `cdna3-NAME-OPERAND.svg`
/// (OPERAND `idx` for SMFMAC's index).
fn file_name(s: &Shape, op: char) -> String {
    let op = common::op_name(op);
    if s.cdna3() {
        format!("cdna3-{}-{op}.svg", s.name)
    } else {
        format!("{}-{op}.svg", s.name)
    }
}

#[test]
fn every_picture_shows_reference_2_slots() {
    let dir = pictures_dir("every");
    let mut files = std::fs::read_dir(&dir).unwrap().count();
    for s in all_shapes() {
        // Each cell is its element's slot: for an SMFMAC's A the compressed
        // element's, for its index every set's own field (CDNA3 2.1, 2.2).
        for op in s.operands() {
            let path = dir.join(file_name(&s, op));
            let svg = std::fs::read_to_string(&path).unwrap();
            for (e, slot) in cells(&svg, &s, op) {
                assert_eq!(slot, s.slot(op, e), "{} {op} {e:?}", s.name);
            }
            files -= 1;
        }
    }
    assert_eq!(files, 0, "nothing but [ARCH-]NAME-OPERAND.svg files");
}

/// `--arch` writes one architecture's pictures, the same files as without it.
#[test]
fn pictures_of_one_architecture() {
    let all = pictures_dir("arch-all");
    for (arch, count) in [("cdna2", 4 * 27), ("cdna3", 4 * 32 + 5 * 14)] {
        let dir = scratch(&format!("pictures-arch-{arch}"));
        let said = ok(&["pictures", "--arch", arch, "--out", dir.to_str().unwrap()]);
        assert_eq!(
            said,
            format!("wrote {count} pictures to {}\n", dir.display())
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), count);
        for s in shapes_of(arch) {
            for op in s.operands() {
                let name = file_name(&s, op);
                let one = std::fs::read(dir.join(&name)).unwrap();
                assert!(one == std::fs::read(all.join(&name)).unwrap(), "{name}");
            }
        }
    }
}

#[test]
fn layout_svg_is_the_picture() {
    let dir = pictures_dir("layout");
    for (name, op, file) in [
        ("f32_4x4x1f32", "b", "f32_4x4x1f32-b.svg"),
        ("f64_4x4x4f64", "d", "f64_4x4x4f64-d.svg"),
        ("i32_32x32x4i8", "a", "i32_32x32x4i8-a.svg"),
        (
            "cdna3::f32_32x32x16_bf8_fp8",
            "b",
            "cdna3-f32_32x32x16_bf8_fp8-b.svg",
        ),
        ("cdna3::f64_4x4x4f64", "d", "cdna3-f64_4x4x4f64-d.svg"),
        (
            "cdna3::smfmac_i32_16x16x64_i8",
            "idx",
            "cdna3-smfmac_i32_16x16x64_i8-idx.svg",
        ),
        (
            "cdna3::smfmac_f32_32x32x16_bf16",
            "a",
            "cdna3-smfmac_f32_32x32x16_bf16-a.svg",
        ),
    ] {
        let file = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(
            ok(&["layout", name, "--operand", op, "--format", "svg"]),
            file
        );
    }
}

#[test]
fn pictures_under_broadcast_show_the_source_slot() {
    for s in all_shapes().into_iter().filter(|s| s.blocks == 16) {
        let svg = ok(&[
            "layout",
            &s.id(),
            "--operand",
            "a",
            "--cbsz",
            "3",
            "--abid",
            "5",
            "--format",
            "svg",
        ]);
        for ([b, i, k], slot) in cells(&svg, &s, 'a') {
            assert_eq!(slot, s.slot('a', [a_source(3, 5, b), i, k]), "{}", s.id());
        }
        assert!(
            svg.contains(
                ">cbsz 3, abid 5: blocks in groups of 8, each group reads A of its block 5"
            ),
            "{}: the broadcast is described",
            s.id()
        );
    }
}

/// Negation is shown, and changes no cell.
#[test]
fn pictures_under_negation_show_the_plain_slots() {
    let s = common::shape("cdna3::f64_16x16x4f64");
    let args = |neg: &[&'static str]| {
        let mut a = vec![
            "layout",
            "cdna3::f64_16x16x4f64",
            "--operand",
            "c",
            "--format",
            "svg",
        ];
        a.extend_from_slice(neg);
        a
    };
    let plain = ok(&args(&[]));
    let negated = ok(&args(&["--neg", "b,c"]));
    assert_eq!(cells(&plain, &s, 'c'), cells(&negated, &s, 'c'));
    assert!(
        negated.contains(">neg [b, c]: B and C are negated before the arithmetic; no data moves<")
    );
    assert!(!plain.contains("negated"));
}

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs")
}

#[test]
fn docs_pictures_are_up_to_date() {
    let dir = pictures_dir("docs");
    let mut kept: Vec<String> = std::fs::read_dir(docs())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    kept.sort();
    for want in [
        "f32_32x32x8bf16_1k-a.svg",
        "f32_32x32x8bf16_1k-c.svg",
        "f32_16x16x16f16-c.svg",
        "f32_4x4x4f16-c.svg",
        "f64_16x16x4f64-c.svg",
        "f64_4x4x4f64-c.svg",
        "cdna3-f32_32x32x16_fp8_fp8-a.svg",
        "cdna3-smfmac_f32_16x16x32_f16-a.svg",
        "cdna3-smfmac_f32_16x16x32_f16-idx.svg",
    ] {
        assert!(kept.iter().any(|k| k == want), "docs/{want} is missing");
    }
    for name in kept {
        let fresh = std::fs::read(dir.join(&name))
            .unwrap_or_else(|_| panic!("docs/{name} is not a picture `mfma pictures` makes"));
        let old = std::fs::read(docs().join(&name)).unwrap();
        assert!(
            old == fresh,
            "docs/{name} is stale: regenerate with `mfma pictures --out DIR` and copy it"
        );
    }
}
