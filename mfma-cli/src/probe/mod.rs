//! `mfma probe`: checks the spec against the silicon. For every call site
//! of the GPU's code object (every builtin of its architecture, with the
//! modifier sets compiled: all legal ones, or a covering sample), a
//! layout probe (inputs that name their own coordinates, so that D shows
//! where each element travelled) and a numerics probe (random and special
//! bit patterns) run on the GPU and on the software path, and every output
//! bit is compared (NaN by class). One line per builtin; a JSON report;
//! exit status 1 on any mismatch, 2 when the GPU path cannot run.
//!
//! Everything but the launches is ordinary code: [`Device`] has the GPU
//! ([`device::Hip`]) and the software path ([`Software`]) behind it, and
//! the tests run the whole probe with the software path, faithful or told
//! to get layouts, routing or values wrong, as the device.

mod check;
mod device;
mod gen;
mod values;

use crate::error::{Error, Result};
use check::{probe_site, Mismatch, SiteOutcome};
pub use device::{Device, Software};
use mfma_spec::{Arch, Builtin, Modifiers, Operand};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use values::hex;

/// What to probe.
#[derive(Clone, Debug)]
pub struct Options {
    /// Only these builtins (resolved names); all if empty.
    pub builtins: Vec<&'static Builtin>,
    /// Numerics runs per pattern.
    pub seeds: u64,
}

/// The modifiers as words: `cbsz 2 abid 3 blgp 4`, `neg [a, c]`, `no modifiers`.
fn describe(b: &Builtin, m: Modifiers) -> String {
    let mut words = Vec::new();
    if m.cbsz != 0 || (b.is_sparse() && m.abid != 0) {
        words.push(format!("cbsz {}", m.cbsz));
    }
    if m.abid != 0 {
        words.push(format!("abid {}", m.abid));
    }
    if m.blgp != 0 {
        words.push(format!("blgp {}", m.blgp));
    }
    if m.neg != 0 {
        let ops: Vec<&str> = [Operand::A, Operand::B, Operand::C]
            .into_iter()
            .filter(|&o| m.negates(o))
            .map(Operand::name)
            .collect();
        words.push(format!("neg [{}]", ops.join(", ")));
    }
    if words.is_empty() {
        "no modifiers".into()
    } else {
        words.join(" ")
    }
}

/// One builtin's result line.
fn line(b: &Builtin, sites: &[SiteOutcome]) -> String {
    let runs: usize = sites.iter().map(|s| s.layout_runs + s.numerics_runs).sum();
    let bad: usize = sites.iter().map(|s| s.mismatched_runs).sum();
    let Some(s) = sites.iter().find(|s| s.first.is_some()) else {
        return format!(
            "ok        {:<34} {} modifier set(s), {runs} runs",
            b.path().to_string(),
            sites.len()
        );
    };
    let m = s.first.as_ref().expect("found above");
    let t = b.cd;
    let d = format!(
        "D[{}][{}][{}]",
        m.element.block, m.element.row, m.element.col
    );
    let detail = match m.probe {
        "layout" => format!(
            "layout ({} differ{}): {}: {d} = {} on the device, reads as {}; the software path: \
             {}, {} ({} of {} elements differ)",
            s.layout_differs.join(", "),
            if s.layout_differs.len() > 1 {
                "; each selects for the others"
            } else {
                "s"
            },
            m.what,
            hex(t, m.got),
            m.got_reads_as.as_deref().unwrap_or("?"),
            hex(t, m.want),
            m.want_reads_as.as_deref().unwrap_or("?"),
            m.differing,
            m.device.len()
        ),
        _ => format!(
            "numerics \"{}\": {d} = {} on the device, {} on the software path ({} of {} \
             elements differ); inputs as read: {}",
            m.what,
            hex(t, m.got),
            hex(t, m.want),
            m.differing,
            m.device.len(),
            m.as_read
        ),
    };
    format!(
        "MISMATCH  {} {} ({}; {bad} of {runs} runs differ): {detail}",
        b.path(),
        describe(b, s.site.modifiers),
        s.site.kernel
    )
}

#[derive(Serialize)]
struct ModifiersReport {
    cbsz: i64,
    abid: i64,
    blgp: i64,
    neg: i64,
}

#[derive(Serialize)]
struct Outputs {
    device: Vec<String>,
    software: Vec<String>,
}

#[derive(Serialize)]
struct MismatchReport {
    probe: &'static str,
    what: String,
    /// `[block, row, col]` of D.
    element: [usize; 3],
    device: String,
    software: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    device_reads_as: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    software_reads_as: Option<String>,
    differing_elements: usize,
    inputs_as_read: String,
    /// Every input, `[block][row][col]` order, hex.
    inputs: BTreeMap<&'static str, Vec<String>>,
    /// D from both, `[block][row][col]` order, hex.
    outputs: Outputs,
}

#[derive(Serialize)]
struct SiteReport {
    kernel: String,
    modifiers: ModifiersReport,
    layout_runs: usize,
    numerics_runs: usize,
    mismatched_runs: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    layout_runs_differ: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_mismatch: Option<MismatchReport>,
}

#[derive(Serialize)]
struct BuiltinReport {
    builtin: String,
    status: &'static str,
    sites: Vec<SiteReport>,
}

#[derive(Serialize, Default)]
struct Summary {
    builtins: usize,
    ok: usize,
    mismatched: usize,
    call_sites: usize,
    runs: usize,
    mismatched_runs: usize,
}

/// The JSON report.
#[derive(Serialize)]
pub struct Report {
    tool: &'static str,
    version: &'static str,
    device: device::DeviceInfo,
    seeds: u64,
    nan_comparison: &'static str,
    summary: Summary,
    builtins: Vec<BuiltinReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Report {
    /// Whether every output of every run agreed.
    pub fn all_ok(&self) -> bool {
        self.summary.mismatched == 0 && self.error.is_none()
    }
}

fn mismatch_report(b: &Builtin, m: &Mismatch) -> MismatchReport {
    let hexes = |t, v: &[u64]| v.iter().map(|&x| hex(t, x)).collect::<Vec<_>>();
    let inputs = device::inputs_of(b)
        .iter()
        .zip(&m.inputs)
        .map(|(&op, v)| (op.name(), hexes(b.elem(op), v)))
        .collect();
    MismatchReport {
        probe: m.probe,
        what: m.what.clone(),
        element: [m.element.block, m.element.row, m.element.col],
        device: hex(b.cd, m.got),
        software: hex(b.cd, m.want),
        device_reads_as: m.got_reads_as.clone(),
        software_reads_as: m.want_reads_as.clone(),
        differing_elements: m.differing,
        inputs_as_read: m.as_read.clone(),
        inputs,
        outputs: Outputs {
            device: hexes(b.cd, &m.device),
            software: hexes(b.cd, &m.software),
        },
    }
}

/// Probes every selected call site of `dev`, printing one line per
/// builtin to `out` as each finishes.
pub fn probe(dev: &mut dyn Device, opts: &Options, out: &mut dyn Write) -> Report {
    let arch: &'static Arch = dev.arch();
    let mut reference = Software::new(arch);
    let sites = dev.sites();
    let mut report = Report {
        tool: "mfma probe",
        version: env!("CARGO_PKG_VERSION"),
        device: dev.info(),
        seeds: opts.seeds,
        nan_comparison: "by class: any NaN equals any NaN (sign and payload not compared)",
        summary: Summary::default(),
        builtins: Vec::new(),
        error: None,
    };
    let chosen = |b: &Builtin| {
        opts.builtins.is_empty()
            || opts
                .builtins
                .iter()
                .any(|x| x.arch == b.arch && x.name == b.name)
    };
    for b in arch.builtins.iter().filter(|b| chosen(b)) {
        let mine: Vec<&mfma_hip::Site> = sites
            .iter()
            .filter(|s| s.builtin.arch == b.arch && s.builtin.name == b.name)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let mut outcomes = Vec::new();
        for site in mine {
            match probe_site(dev, &mut reference, site, opts.seeds) {
                Ok(o) => outcomes.push(o),
                Err(e) => {
                    let e = format!("{} ({}): {e}", b.path(), site.kernel);
                    let _ = writeln!(out, "ERROR     {e}");
                    report.error = Some(e);
                    return report;
                }
            }
        }
        let _ = writeln!(out, "{}", line(b, &outcomes));
        let _ = out.flush();
        let bad = outcomes.iter().any(|o| o.first.is_some());
        let s = &mut report.summary;
        s.builtins += 1;
        s.ok += usize::from(!bad);
        s.mismatched += usize::from(bad);
        s.call_sites += outcomes.len();
        for o in &outcomes {
            s.runs += o.layout_runs + o.numerics_runs;
            s.mismatched_runs += o.mismatched_runs;
        }
        report.builtins.push(BuiltinReport {
            builtin: b.path().to_string(),
            status: if bad { "mismatch" } else { "ok" },
            sites: outcomes
                .iter()
                .map(|o| SiteReport {
                    kernel: o.site.kernel.clone(),
                    modifiers: ModifiersReport {
                        cbsz: o.site.modifiers.cbsz,
                        abid: o.site.modifiers.abid,
                        blgp: o.site.modifiers.blgp,
                        neg: o.site.modifiers.neg,
                    },
                    layout_runs: o.layout_runs,
                    numerics_runs: o.numerics_runs,
                    mismatched_runs: o.mismatched_runs,
                    layout_runs_differ: o.layout_differs.clone(),
                    first_mismatch: o.first.as_ref().map(|m| mismatch_report(b, m)),
                })
                .collect(),
        });
    }
    report
}

/// `mfma probe`: on the GPU, or with `software` on the software path of
/// `arch` (a dry run); prints the lines, writes the report to `report_path`,
/// and returns the exit status: 0 all agree, 1 a mismatch, 2 a failed run.
pub fn run(
    software: bool,
    arch: crate::resolve::ArchChoice,
    names: &[String],
    seeds: u64,
    report_path: Option<&Path>,
) -> Result<ExitCode> {
    let mut dev: Box<dyn Device> = if software {
        Box::new(Software::new(arch.arch))
    } else {
        let hip = device::Hip::open().map_err(|e| Error::new(e.to_string()))?;
        if let Some(flag) = arch.chosen_by {
            if flag != hip.arch().name {
                return Err(Error::new(format!(
                    "{flag} asked for, but the GPU is {} ({})",
                    hip.info().arch_name,
                    hip.arch().title
                )));
            }
        }
        Box::new(hip)
    };
    let dev_arch = crate::resolve::ArchChoice {
        arch: dev.arch(),
        chosen_by: Some(dev.arch().name),
    };
    let builtins = names
        .iter()
        .map(|n| crate::resolve::builtin(n, dev_arch))
        .collect::<Result<Vec<_>>>()?;
    let info = dev.info();
    println!(
        "probe: {} ({}{}), {} call sites; {} numerics run(s) per pattern",
        info.arch_name,
        info.kind,
        info.code_object
            .as_deref()
            .map(|c| format!(", {c}"))
            .unwrap_or_default(),
        dev.sites().len(),
        seeds
    );
    let opts = Options { builtins, seeds };
    let stdout = std::io::stdout();
    let report = probe(dev.as_mut(), &opts, &mut stdout.lock());
    let s = &report.summary;
    println!(
        "probe: {} builtins: {} ok, {} mismatched; {} call sites, {} runs, {} differ",
        s.builtins, s.ok, s.mismatched, s.call_sites, s.runs, s.mismatched_runs
    );
    if let Some(path) = report_path {
        std::fs::write(path, crate::text::json_line(&report))
            .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))?;
        println!("probe: report in {}", path.display());
    }
    Ok(match &report.error {
        Some(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        None if report.all_ok() => ExitCode::SUCCESS,
        None => ExitCode::FAILURE,
    })
}

#[cfg(test)]
mod tests;
