//! `mfma list`: one line per builtin of an architecture.

use crate::args::TableFormat;
use crate::error::Result;
use crate::modifiers;
use crate::text;
use mfma_spec::{validate, Arch, Builtin, Modifier, Modifiers};
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
    /// The A and B element type; `None` (JSON `null`) where they differ
    /// (CDNA3's mixed fp8/bf8), so that a script written for same-typed
    /// builtins cannot read a wrong type for B.
    pub ab_type: Option<&'static str>,
    /// A element type.
    pub a_type: &'static str,
    /// B element type.
    pub b_type: &'static str,
    /// A elements per lane (SMFMAC: compressed values, half of B's).
    pub a_per_lane: usize,
    /// B elements per lane.
    pub b_per_lane: usize,
    /// C and D element type.
    pub cd_type: &'static str,
    /// C and D elements per lane.
    pub cd_per_lane: usize,
    /// Legal modifier values.
    pub modifiers: Allowed,
    /// SMFMAC only (JSON `null` for dense MFMA): the structured sparsity.
    pub sparse: Option<SparseRow>,
}

/// What makes an SMFMAC builtin structured-sparse, for `list` and `info`.
#[derive(Serialize)]
pub struct SparseRow {
    /// Values A stores per row: K/2 of the logical K (2 of every 4 k).
    pub stored_k: usize,
    /// Index sets in the index register (4 for 16-bit inputs, 2 for 8-bit).
    pub sets: usize,
    /// Bits of one index set (8 or 16).
    pub set_bits: u32,
    /// 4-bit index fields of one set in a lane.
    pub fields_per_set: usize,
    /// The dense builtin of half the K; the software path computes the
    /// SMFMAC as two of it, chained (an assumption: see `info`).
    pub dense_twin: &'static str,
}

impl SparseRow {
    /// The sparsity of `b`, `None` for dense MFMA.
    pub fn of(b: &'static Builtin) -> Option<Self> {
        let s = b.sparse?;
        Some(SparseRow {
            stored_k: b.k / 2,
            sets: s.sets,
            set_bits: s.set_bits(),
            fields_per_set: s.fields_per_set(),
            dense_twin: b.dense_twin().map_or("", |d| d.name),
        })
    }
}

/// The legal values of each modifier, as `validate` accepts them.
#[derive(Serialize)]
pub struct Allowed {
    /// The modifiers the builtin takes at all (empty: none).
    pub kinds: Vec<&'static str>,
    /// The same, as values.
    #[serde(skip)]
    taken: Vec<Modifier>,
    /// Whether abid picks an index set (SMFMAC) rather than a block.
    #[serde(skip)]
    index_set: bool,
    /// Largest legal cbsz (0 where broadcast is unsupported).
    pub cbsz_max: i64,
    /// Largest legal abid, reached with the largest cbsz (abid < 2^cbsz;
    /// on SMFMAC below the number of index sets, whatever cbsz is).
    pub abid_max: i64,
    /// Largest legal blgp (0 where the lane pattern is unsupported).
    pub blgp_max: i64,
    /// Largest legal negation mask (7 = a, b and c; 0 where there is none).
    pub neg_max: i64,
    /// Number of legal (cbsz, abid, blgp) triples; (cbsz, abid, neg) where
    /// the blgp bits are negation flags.
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
        let ok = |c, a, g, n| validate(b, Modifiers::new(c, a, g).with_neg(n)).is_ok();
        let cbsz_max = largest(|c| ok(c, 0, 0, 0));
        let abid_max = largest(|a| ok(cbsz_max, a, 0, 0));
        let blgp_max = largest(|g| ok(0, 0, g, 0));
        let neg_max = largest(|n| ok(0, 0, 0, n));
        let pairs = (0..PROBE)
            .flat_map(|c| (0..PROBE).map(move |a| (c, a)))
            .filter(|&(c, a)| ok(c, a, 0, 0))
            .count();
        let patterns = (0..PROBE).filter(|&g| ok(0, 0, g, 0)).count();
        let negations = (0..PROBE).filter(|&n| ok(0, 0, 0, n)).count();
        let taken = modifiers::kinds(b);
        Allowed {
            kinds: taken.iter().map(|m| m.name()).collect(),
            taken,
            index_set: b.is_sparse(),
            cbsz_max,
            abid_max,
            blgp_max,
            neg_max,
            combinations: pairs * patterns * negations,
        }
    }

    /// `0..=3 (below 2^cbsz)`: the largest abid and the rule that bounds it
    /// (on SMFMAC `0..=3 (the index set)`).
    pub fn abid_text(&self) -> String {
        if self.abid_max == 0 {
            "0".into()
        } else if self.index_set {
            format!("0..={} (the index set)", self.abid_max)
        } else {
            format!("0..={} (below 2^cbsz)", self.abid_max)
        }
    }

    /// `cbsz 0..=2, abid 0..=3 (below 2^cbsz), blgp 0..=7`, `neg [a, b, c]`,
    /// or `none`: the modifiers taken and their legal values.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .taken
            .iter()
            .map(|kind| match kind {
                Modifier::Cbsz => format!("cbsz {}", range(self.cbsz_max)),
                Modifier::Abid => format!("abid {}", self.abid_text()),
                Modifier::Blgp => format!("blgp {}", range(self.blgp_max)),
                Modifier::Neg => {
                    let all = Modifiers::NONE.with_neg(self.neg_max);
                    format!("{} (any subset)", modifiers::neg_text(all))
                }
            })
            .collect();
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}

impl Row {
    /// The summary of `b`.
    pub fn of(b: &'static Builtin) -> Self {
        Row {
            name: b.name,
            arch: b.arch,
            m: b.m,
            n: b.n,
            k: b.k,
            blocks: b.blocks,
            ab_type: (b.a_type == b.b_type).then_some(b.a_type.name()),
            a_type: b.a_type.name(),
            b_type: b.b_type.name(),
            a_per_lane: b.a_per_lane,
            b_per_lane: b.b_per_lane,
            cd_type: b.cd.name(),
            cd_per_lane: b.cd_per_lane,
            modifiers: Allowed::of(b),
            sparse: SparseRow::of(b),
        }
    }

    /// `f16`, or `fp8,bf8` (A's type, then B's) where they differ.
    pub fn ab_text(&self) -> String {
        match self.ab_type {
            Some(t) => t.to_string(),
            None => format!("{},{}", self.a_type, self.b_type),
        }
    }

    /// The `A,B per lane` cell: `f16 x4`, or `f16 x4,x8` (A's count, then
    /// B's) where they differ, as on SMFMAC.
    pub fn per_lane_text(&self) -> String {
        if self.a_per_lane == self.b_per_lane {
            format!("{} x{}", self.ab_text(), self.a_per_lane)
        } else {
            format!(
                "{} x{},x{}",
                self.ab_text(),
                self.a_per_lane,
                self.b_per_lane
            )
        }
    }
}

/// `0..=max`, or `0` alone.
pub fn range(max: i64) -> String {
    if max == 0 {
        "0".into()
    } else {
        format!("0..={max}")
    }
}

/// `CDNA3 (gfx942; MI300 (MI300A, MI300X, MI325X))`.
pub fn arch_title(a: &Arch) -> String {
    format!("{} ({}; {})", a.title, a.targets.join(", "), a.products)
}

/// The footnote of a table with SMFMAC rows: what their cells mean.
const SPARSE_NOTE: &str = "
smfmac_*: structured-sparse (4:2) A. K is the logical K; A stores 2 of every 4 k, so a lane
holds half as many A values as B values (A,B per lane: `x4,x8` is A's count, then B's). A
32-bit index operand (idx) says where each stored value lies in its group of 4 k; it holds
several index sets, and cbsz/abid pick the one read. `mfma info NAME` says more.
";

/// Runs `mfma list`.
pub fn run(arch: &'static Arch, format: TableFormat) -> Result<()> {
    let rows: Vec<Row> = arch.builtins.iter().map(Row::of).collect();
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
                        r.per_lane_text(),
                        format!("{} x{}", r.cd_type, r.cd_per_lane),
                        r.modifiers.summary(),
                    ]
                })
                .collect();
            let sparse = rows.iter().filter(|r| r.sparse.is_some()).count();
            let title = if sparse == 0 {
                format!(
                    "{}: {} dense MFMA builtins\n\n",
                    arch_title(arch),
                    rows.len()
                )
            } else {
                format!(
                    "{}: {} builtins, {} dense MFMA and {sparse} structured-sparse SMFMAC\n\n",
                    arch_title(arch),
                    rows.len(),
                    rows.len() - sparse
                )
            };
            let note = if sparse == 0 {
                String::new()
            } else {
                SPARSE_NOTE.to_string()
            };
            title
                + &text::table(
                    &[
                        "builtin",
                        "MxNxK",
                        "blocks",
                        "A,B per lane",
                        "C,D per lane",
                        "modifiers",
                    ],
                    &cells,
                )
                + &note
        }
    };
    text::emit(&out)
}
