//! The whole probe with the software path as the device: faithful (every
//! builtin of both architectures, every sampled modifier set, must agree),
//! and told to get a layout, the routing or values wrong (the probe must
//! find it and say where each element went).

use super::device::Fault;
use super::*;

fn arch(name: &str) -> &'static Arch {
    mfma_spec::arch(name).unwrap()
}

fn opts(names: &[&str]) -> Options {
    Options {
        builtins: names
            .iter()
            .map(|n| mfma_spec::find(n).unwrap_or_else(|| panic!("{n}")))
            .collect(),
        seeds: 1,
    }
}

/// The line of builtin `name` (`f32_4x4x1f32`, `cdna3::...`).
fn of<'a>(lines: &'a [String], name: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l[10..].starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no line of {name} in {lines:?}"))
}

/// Probes with `dev`, returning the report and the printed lines.
fn probe_lines(dev: &mut dyn Device, o: &Options) -> (Report, Vec<String>) {
    let mut out = Vec::new();
    let report = probe(dev, o, &mut out);
    let text = String::from_utf8(out).unwrap();
    (report, text.lines().map(String::from).collect())
}

#[test]
fn the_software_path_agrees_with_itself_on_every_site_of_both_architectures() {
    for name in ["cdna2", "cdna3"] {
        let a = arch(name);
        let (report, lines) = probe_lines(&mut Software::new(a), &opts(&[]));
        assert!(report.all_ok(), "{}", lines.join("\n"));
        assert_eq!(lines.len(), a.builtins.len());
        assert!(lines.iter().all(|l| l.starts_with("ok  ")), "{lines:?}");
        let s = &report.summary;
        assert_eq!(
            (s.builtins, s.ok, s.mismatched_runs),
            (a.builtins.len(), a.builtins.len(), 0)
        );
        let sites: usize = a
            .builtins
            .iter()
            .map(|b| mfma_spec::sample_modifiers(b).count())
            .sum();
        assert_eq!(s.call_sites, sites);
        // Every site ran layout and numerics runs.
        for b in &report.builtins {
            for site in &b.sites {
                assert!(
                    site.layout_runs >= 3 && site.numerics_runs >= 4,
                    "{}",
                    site.kernel
                );
            }
        }
    }
}

#[test]
fn a_wrong_a_layout_is_found_and_shows_where_elements_went() {
    // Lanes 0 and 1 of f32_32x32x8f16's A hold rows 0 and 1 of k 0..4.
    let mut dev = Software::faulty(
        arch("cdna2"),
        Fault::SwapLanes {
            operand: Operand::A,
            lanes: (0, 1),
        },
    );
    let (report, lines) = probe_lines(&mut dev, &opts(&["f32_32x32x8f16", "f32_32x32x2f32"]));
    assert!(!report.all_ok());
    assert_eq!(lines.len(), 2);
    let l = of(&lines, "f32_32x32x8f16");
    assert!(
        l.starts_with("MISMATCH  f32_32x32x8f16 no modifiers (mfma_f32_32x32x8f16__0_0_0; "),
        "{l}"
    );
    assert!(
        l.contains(
            "layout (A, B differ; each selects for the others): A: D[0][0][0] = 41100000 on the \
             device, reads as A[0][1][0]; the software path: 3f800000, A[0][0][0]"
        ),
        "{l}"
    );
    // f32_32x32x2f32: lane 0 holds A[0][0][0], lane 1 A[0][1][0].
    assert!(
        of(&lines, "f32_32x32x2f32").contains("reads as A[0][1][0]"),
        "{lines:?}"
    );
    let b = report
        .builtins
        .iter()
        .find(|b| b.builtin == "f32_32x32x8f16")
        .unwrap();
    let m = b.sites[0].first_mismatch.as_ref().unwrap();
    assert_eq!(m.probe, "layout");
    assert_eq!(m.device_reads_as.as_deref(), Some("A[0][1][0]"));
    assert_eq!(m.inputs["a"].len(), 32 * 8);
    assert_eq!(
        (m.outputs.device.len(), m.outputs.software.len()),
        (32 * 32, 32 * 32)
    );
}

#[test]
fn wrong_b_c_and_index_layouts_are_found() {
    // A wrong B shows in A's runs too (B selects there), and vice versa;
    // C's runs depend on no other operand; the index also places B's
    // selectors in an SMFMAC's runs.
    for (arch_name, builtin, operand, what) in [
        (
            "cdna2",
            "f32_16x16x16f16",
            Operand::B,
            "layout (A, B differ; ",
        ),
        (
            "cdna3",
            "cdna3::f32_16x16x32_fp8_fp8",
            Operand::B,
            "layout (A (k 0..16), B (k 0..16) differ; ",
        ),
        (
            "cdna2",
            "i32_32x32x8i8",
            Operand::C,
            "layout (C differs): C: ",
        ),
        (
            "cdna3",
            "cdna3::smfmac_f32_16x16x32_f16",
            Operand::Idx,
            "layout (B (k 0..16), the index (k 0..16) differ; ",
        ),
        (
            "cdna3",
            "cdna3::smfmac_i32_16x16x64_i8",
            Operand::A,
            "differ; each selects for the others): A",
        ),
    ] {
        let mut dev = Software::faulty(
            arch(arch_name),
            Fault::SwapLanes {
                operand,
                lanes: (2, 17),
            },
        );
        let (report, lines) = probe_lines(&mut dev, &opts(&[builtin]));
        assert!(!report.all_ok(), "{builtin}");
        assert!(lines[0].contains(what), "{builtin}: {}", lines[0]);
        assert!(lines[0].contains("reads as "), "{}", lines[0]);
    }
}

#[test]
fn ignored_routing_is_found_where_there_is_routing() {
    let mut dev = Software::faulty(arch("cdna2"), Fault::IgnoreModifiers);
    let (report, lines) = probe_lines(
        &mut dev,
        &opts(&["f32_32x32x1f32", "f64_16x16x4f64", "f32_16x16x4f16"]),
    );
    // f64_16x16x4f64 has no modifiers on CDNA2: nothing to ignore.
    assert!(
        of(&lines, "f64_16x16x4f64").starts_with("ok  "),
        "{lines:?}"
    );
    // f32_32x32x1f32, 2 blocks: the first set with routing is cbsz 1 abid 0
    // blgp 1: block 1 reads block 0's A.
    let l = of(&lines, "f32_32x32x1f32");
    assert!(
        l.starts_with("MISMATCH  f32_32x32x1f32 cbsz 1 blgp 1 (mfma_f32_32x32x1f32__1_0_1; "),
        "{l}"
    );
    assert!(l.contains("A: D[1][0][0]"), "{l}");
    assert!(
        l.contains("reads as A[1][0][0]; the software path: "),
        "{l}"
    );
    assert!(l.contains(", A[0][0][0] ("), "{l}");
    let b = report
        .builtins
        .iter()
        .find(|b| b.builtin == "f32_32x32x1f32")
        .unwrap();
    assert_eq!(b.status, "mismatch");
    assert!(b.sites[0].first_mismatch.is_none()); // the all-zero set agrees
    let l = of(&lines, "f32_16x16x4f16");
    assert!(
        l.starts_with("MISMATCH  f32_16x16x4f16 cbsz 1 blgp 1"),
        "{l}"
    );
}

#[test]
fn cdna3_negation_and_index_sets_are_checked() {
    let mut dev = Software::faulty(arch("cdna3"), Fault::IgnoreModifiers);
    let (_, lines) = probe_lines(
        &mut dev,
        &opts(&["cdna3::f64_4x4x4f64", "cdna3::smfmac_f32_32x32x16_bf16"]),
    );
    // neg [a]: D = -A·B + C; ignoring it flips the sign.
    assert!(
        lines[0].contains("neg [a] (mfma_f64_4x4x4f64__0_0_1; ")
            && lines[0].contains("reads as A[0][0][0]; the software path: ")
            && lines[0].contains(", -A[0][0][0] ("),
        "{}",
        lines[0]
    );
    // abid 1 reads index set 1; ignoring it reads set 0.
    assert!(
        lines[1].contains("abid 1 (mfma_smfmac_f32_32x32x16_bf16__0_1_0; "),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("the index: "), "{}", lines[1]);
    assert!(lines[1].contains("stored value"), "{}", lines[1]);
}

#[test]
fn nans_compare_by_class_and_flushed_outputs_do_not() {
    let names = ["cdna3::f32_16x16x8_xf32", "f32_16x16x4f32", "f64_4x4x4f64"];
    let (report, lines) = probe_lines(
        &mut Software::faulty(arch("cdna2"), Fault::OtherNaN),
        &opts(&names[1..]),
    );
    assert!(report.all_ok(), "{lines:?}");
    let (report, _) = probe_lines(
        &mut Software::faulty(arch("cdna3"), Fault::OtherNaN),
        &opts(&names[..1]),
    );
    assert!(report.all_ok());
    let (report, lines) = probe_lines(
        &mut Software::faulty(arch("cdna2"), Fault::FlushOutputs),
        &opts(&names[1..]),
    );
    assert!(!report.all_ok());
    for l in &lines {
        // Layouts are fine; some numerics run makes subnormal outputs.
        assert!(l.contains(": numerics \""), "{l}");
        assert!(l.contains("inputs as read: A["), "{l}");
        assert!(l.contains("on the software path"), "{l}");
    }
}

#[test]
fn values_that_are_not_one_element_are_shown_as_they_are() {
    let b = mfma_spec::find("f32_4x4x4f16").unwrap();
    let g = gen::layout(b)
        .into_iter()
        .find(|g| g.operand == Operand::A)
        .unwrap();
    let e = mfma_spec::Coord::new(0, 0, 0);
    let f32_bits = |v: f32| u64::from(v.to_bits());
    assert_eq!(check::reads_as(b, &g, e, &[0]), "nothing");
    assert_eq!(check::reads_as(b, &g, e, &[f32_bits(5.0)]), "A[0][1][0]");
    assert_eq!(check::reads_as(b, &g, e, &[f32_bits(-5.0)]), "-A[0][1][0]");
    assert_eq!(
        check::reads_as(b, &g, e, &[f32_bits(2.5)]),
        "no single element (40200000)"
    );
}

#[test]
fn the_report_is_json_with_inputs_and_outputs_of_the_first_mismatch() {
    let mut dev = Software::faulty(arch("cdna2"), Fault::FlushOutputs);
    let (report, _) = probe_lines(&mut dev, &opts(&["f32_4x4x1f32"]));
    let v: serde_json::Value = serde_json::from_str(&crate::text::json_pretty(&report)).unwrap();
    assert_eq!(v["tool"], "mfma probe");
    assert_eq!(v["device"]["kind"], "software");
    assert_eq!(v["summary"]["mismatched"], 1);
    let b = &v["builtins"][0];
    assert_eq!(b["builtin"], "f32_4x4x1f32");
    assert_eq!(b["sites"].as_array().unwrap().len(), 9);
    let m = b["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| s.get("first_mismatch"))
        .unwrap();
    assert_eq!(m["probe"], "numerics");
    assert_eq!(m["inputs"]["a"].as_array().unwrap().len(), 16 * 4);
    assert_eq!(m["inputs"]["b"].as_array().unwrap().len(), 16 * 4);
    assert_eq!(m["outputs"]["device"].as_array().unwrap().len(), 16 * 16);
    assert_eq!(m["device"].as_str().unwrap().len(), 8);
}
