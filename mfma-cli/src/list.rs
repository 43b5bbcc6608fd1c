//! `mfma list`: one line per builtin.

use crate::args::TableFormat;
use crate::error::Result;
use crate::text;
use mfma_spec::{validate, Builtin, Modifiers, ARCHS};
use serde::Serialize;

/// The summary of a builtin that `list` prints and `info` extends.
#[derive(Serialize)]
pub struct Row {
    /// Bare name.
    pub name: &'static str,
    /// Architecture (`cdna2`).
    pub arch: &'static str,
    /// Rows of A, C, D.
    pub m: usize,
    /// Columns of B, C, D.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Independent blocks.
    pub blocks: usize,
    /// A and B element type.
    pub ab_type: &'static str,
    /// A and B elements per lane.
    pub ab_per_lane: usize,
    /// C and D element type.
    pub cd_type: &'static str,
    /// C and D elements per lane.
    pub cd_per_lane: usize,
    /// Legal modifier values.
    pub modifiers: Allowed,
}

/// The legal values of each modifier, as `validate` accepts them.
#[derive(Serialize)]
pub struct Allowed {
    /// Largest legal cbsz (0 where broadcast is unsupported).
    pub cbsz_max: i64,
    /// Largest legal abid, reached with the largest cbsz (abid < 2^cbsz).
    pub abid_max: i64,
    /// Largest legal blgp (0 where the lane pattern is unsupported).
    pub blgp_max: i64,
    /// Number of legal (cbsz, abid, blgp) triples.
    pub combinations: usize,
}

/// Values probed: every encodable one and then some, so the ranges come
/// from the rules rather than from a second copy of them.
const PROBE: i64 = 32;

fn largest(ok: impl Fn(i64) -> bool) -> i64 {
    (0..PROBE).filter(|&v| ok(v)).max().unwrap_or(0)
}

impl Allowed {
    /// The legal ranges of `b`.
    pub fn of(b: &'static Builtin) -> Self {
        let ok = |c, a, g| validate(b, Modifiers::new(c, a, g)).is_ok();
        let cbsz_max = largest(|c| ok(c, 0, 0));
        let abid_max = largest(|a| ok(cbsz_max, a, 0));
        let blgp_max = largest(|g| ok(0, 0, g));
        let pairs = (0..PROBE)
            .flat_map(|c| (0..PROBE).map(move |a| (c, a)))
            .filter(|&(c, a)| ok(c, a, 0))
            .count();
        let patterns = (0..PROBE).filter(|&g| ok(0, 0, g)).count();
        Allowed {
            cbsz_max,
            abid_max,
            blgp_max,
            combinations: pairs * patterns,
        }
    }
}

impl Row {
    /// The summary of `b`.
    pub fn of(b: &'static Builtin) -> Self {
        Row {
            name: b.name,
            arch: arch_of(b),
            m: b.m,
            n: b.n,
            k: b.k,
            blocks: b.blocks,
            ab_type: b.a_type.name(),
            ab_per_lane: b.ab_per_lane,
            cd_type: b.cd.name(),
            cd_per_lane: b.cd_per_lane,
            modifiers: Allowed::of(b),
        }
    }
}

/// The architecture whose table holds `b`.
pub fn arch_of(b: &Builtin) -> &'static str {
    b.arch
}

/// Every builtin of every architecture, in table order.
pub fn all() -> impl Iterator<Item = &'static Builtin> {
    ARCHS.iter().flat_map(|a| a.builtins.iter())
}

/// `0..=max`, or `0` alone.
pub fn range(max: i64) -> String {
    if max == 0 {
        "0".into()
    } else {
        format!("0..={max}")
    }
}

/// Runs `mfma list`.
pub fn run(format: TableFormat) -> Result<()> {
    let rows: Vec<Row> = all().map(Row::of).collect();
    let out = match format {
        TableFormat::Json => text::json_pretty(&rows),
        TableFormat::Table => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.name.to_string(),
                        format!("{}x{}x{}", r.m, r.n, r.k),
                        r.blocks.to_string(),
                        format!("{} x{}", r.ab_type, r.ab_per_lane),
                        format!("{} x{}", r.cd_type, r.cd_per_lane),
                        range(r.modifiers.cbsz_max),
                        range(r.modifiers.abid_max),
                        range(r.modifiers.blgp_max),
                    ]
                })
                .collect();
            text::table(
                &[
                    "builtin",
                    "MxNxK",
                    "blocks",
                    "A,B per lane",
                    "C,D per lane",
                    "cbsz",
                    "abid",
                    "blgp",
                ],
                &cells,
            )
        }
    };
    text::emit(&out)
}
