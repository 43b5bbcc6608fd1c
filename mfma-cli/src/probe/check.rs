//! Running one call site's probes on the device and on the software path,
//! comparing every output bit (NaN by class), and saying what a differing
//! element holds.

use super::device::{inputs_of, Device, Software};
use super::gen::{self, Inputs, LayoutGroup, Pattern};
use super::values::{from_bytes, hex, same, to_bytes, value};
use mfma_hip::Site;
use mfma_spec::{Builtin, Coord, Modifiers, Operand, Sparse};

/// The first element that differs in a site's runs.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// `layout` or `numerics`.
    pub probe: &'static str,
    /// Which run: `A (k 0..16)`, `specials, seed 1`.
    pub what: String,
    /// The element of D.
    pub element: Coord,
    /// Its bits on the device.
    pub got: u64,
    /// Its bits on the software path.
    pub want: u64,
    /// Layout runs: which element of the probed operand the device's value
    /// names, over all digit runs.
    pub got_reads_as: Option<String>,
    /// The same for the software path's value.
    pub want_reads_as: Option<String>,
    /// How many elements of D differ in that run.
    pub differing: usize,
    /// The inputs of the run.
    pub inputs: Inputs,
    /// D from the device.
    pub device: Vec<u64>,
    /// D from the software path.
    pub software: Vec<u64>,
    /// The inputs the element is computed from, as the spec routes them.
    pub as_read: String,
}

/// What probing one call site found.
#[derive(Clone, Debug)]
pub struct SiteOutcome {
    /// The call site.
    pub site: Site,
    /// Layout runs made.
    pub layout_runs: usize,
    /// Numerics runs made.
    pub numerics_runs: usize,
    /// Runs in which some element differed.
    pub mismatched_runs: usize,
    /// The layout groups with a differing run (`C`, `A`, `B (k 16..32)`,
    /// `the index`): each group's selectors are the other operands, so a
    /// wrong layout of A shows in B's runs too, and vice versa.
    pub layout_differs: Vec<String>,
    /// The first differing element.
    pub first: Option<Mismatch>,
}

/// Runs `site` on `ins` and returns D's bit patterns.
fn run(dev: &mut dyn Device, site: &Site, ins: &Inputs) -> Result<Vec<u64>, String> {
    let b = site.builtin;
    let bytes: Vec<Vec<u8>> = inputs_of(b)
        .iter()
        .zip(ins)
        .map(|(&op, bits)| to_bytes(b.elem(op), bits))
        .collect();
    let d = dev.run(site, &bytes)?;
    let want = mfma_hip::operand_bytes(b, Operand::D);
    if d.len() != want {
        return Err(format!(
            "{} returned {} bytes of D, not {want}",
            site.kernel,
            d.len()
        ));
    }
    Ok(from_bytes(b.cd, &d))
}

/// The first element (in matrix order) where `got` and `want` differ, and
/// how many do.
fn first_difference(b: &Builtin, got: &[u64], want: &[u64]) -> Option<(usize, usize)> {
    let mut diff = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| !same(b.cd, **g, **w))
        .map(|(i, _)| i);
    let first = diff.next()?;
    Some((first, 1 + diff.count()))
}

/// Probes one call site: every layout group and numerics pattern, on the
/// device and on the software path.
///
/// # Errors
/// What the device reports when a run fails (a failed launch).
pub fn probe_site(
    dev: &mut dyn Device,
    reference: &mut Software,
    site: &Site,
    seeds: u64,
) -> Result<SiteOutcome, String> {
    let b = site.builtin;
    let mut out = SiteOutcome {
        site: site.clone(),
        layout_runs: 0,
        numerics_runs: 0,
        mismatched_runs: 0,
        layout_differs: Vec::new(),
        first: None,
    };
    for g in gen::layout(b) {
        let mut got = Vec::new();
        let mut want = Vec::new();
        for ins in &g.runs {
            got.push(run(dev, site, ins)?);
            want.push(run(reference, site, ins)?);
            out.layout_runs += 1;
        }
        let diffs: Vec<Option<(usize, usize)>> = got
            .iter()
            .zip(&want)
            .map(|(g, w)| first_difference(b, g, w))
            .collect();
        out.mismatched_runs += diffs.iter().flatten().count();
        let Some(at) = diffs.iter().flatten().map(|&(at, _)| at).min() else {
            continue;
        };
        out.layout_differs.push(g.label(b));
        if out.first.is_some() {
            continue;
        }
        let run_no = (0..g.runs.len())
            .find(|&r| !same(b.cd, got[r][at], want[r][at]))
            .expect("a run differs there");
        let e = b.c.delinear(at);
        let pick = |d: &[Vec<u64>]| d.iter().map(|v| v[at]).collect::<Vec<_>>();
        out.first = Some(Mismatch {
            probe: "layout",
            what: g.label(b),
            element: e,
            got: got[run_no][at],
            want: want[run_no][at],
            got_reads_as: Some(reads_as(b, &g, e, &pick(&got))),
            want_reads_as: Some(reads_as(b, &g, e, &pick(&want))),
            differing: diffs[run_no].map_or(0, |(_, n)| n),
            inputs: g.runs[run_no].clone(),
            device: got[run_no].clone(),
            software: want[run_no].clone(),
            as_read: as_read(b, site.modifiers, &g.runs[run_no], e),
        });
    }
    for (p, &pattern) in Pattern::for_builtin(b).iter().enumerate() {
        for seed in 0..seeds {
            let ins = gen::numerics(b, pattern, seed * 1_000_003 + p as u64);
            let got = run(dev, site, &ins)?;
            let want = run(reference, site, &ins)?;
            out.numerics_runs += 1;
            let Some((at, n)) = first_difference(b, &got, &want) else {
                continue;
            };
            out.mismatched_runs += 1;
            if out.first.is_none() {
                let e = b.c.delinear(at);
                out.first = Some(Mismatch {
                    probe: "numerics",
                    what: format!("{}, seed {seed}", pattern.name()),
                    element: e,
                    got: got[at],
                    want: want[at],
                    got_reads_as: None,
                    want_reads_as: None,
                    differing: n,
                    as_read: as_read(b, site.modifiers, &ins, e),
                    inputs: ins,
                    device: got,
                    software: want,
                });
            }
        }
    }
    Ok(out)
}

/// `A[1][2][3]`.
fn coord(op: Operand, c: Coord) -> String {
    format!(
        "{}[{}][{}][{}]",
        op.name().to_uppercase(),
        c.block,
        c.row,
        c.col
    )
}

/// Which element of the probed operand the values of one element `e` of D
/// over a group's digit runs name: `A[0][5][3]`, `-C[1][0][2]` (negated),
/// `nothing` (all zero), or the values when they are not one element.
pub fn reads_as(b: &Builtin, g: &LayoutGroup, e: Coord, bits: &[u64]) -> String {
    let t = b.cd;
    let vals: Vec<f64> = bits.iter().map(|&x| value(t, x)).collect();
    let raw = || {
        let v: Vec<String> = bits.iter().map(|&x| hex(t, x)).collect();
        format!("no single element ({})", v.join(", "))
    };
    if vals.iter().all(|&v| v == 0.0) {
        return "nothing".into();
    }
    let negative = vals[0] < 0.0;
    let mut code = 0u64;
    for (d, &v) in vals.iter().enumerate() {
        let m = v.abs();
        if !m.is_finite()
            || m.fract() != 0.0
            || m < 1.0
            || m > g.radix as f64
            || (v < 0.0) != negative
        {
            return raw();
        }
        code += (m as u64 - 1) * g.radix.pow(d as u32);
    }
    let sign = if negative { "-" } else { "" };
    if g.operand == Operand::Idx {
        // The stored value (1 or 2) that landed at this logical k.
        let k = g.phase * b.n + e.col;
        let (grp, s) = (k / Sparse::GROUP, code as usize);
        if s >= Sparse::STORED {
            return raw();
        }
        return format!(
            "{sign}stored value {s} of row {}, group {grp} (A[0][{}][{}]) at k {k}",
            e.row,
            e.row,
            Sparse::STORED * grp + s
        );
    }
    let l = b.layout(g.operand);
    if code as usize >= l.elements() {
        return raw();
    }
    format!("{sign}{}", coord(g.operand, l.delinear(code as usize)))
}

/// The inputs element `e` of D is computed from, as the spec routes them
/// under `m`: A's row (from the block cbsz/abid pick), B's column (from the
/// lanes blgp picks), C's element; for SMFMAC the stored row of A, the
/// index fields of the set read and B's column of logical k.
pub fn as_read(b: &Builtin, m: Modifiers, ins: &Inputs, e: Coord) -> String {
    let (ta, tb, tc) = (b.a_type, b.b_type, b.cd);
    let list = |t, v: Vec<u64>| v.iter().map(|&x| hex(t, x)).collect::<Vec<_>>().join(" ");
    let (la, lb, lc) = (&b.a, &b.b, &b.c);
    let b_col: Vec<u64> = (0..b.k)
        .map(|k| {
            let s = mfma_spec::source(b, Operand::B, m, Coord::new(e.block, k, e.col));
            ins[1][lb.linear(lb.coord(s))]
        })
        .collect();
    let c = ins[2][lc.linear(e)];
    let neg = if m.neg != 0 {
        let ops: Vec<&str> = [Operand::A, Operand::B, Operand::C]
            .into_iter()
            .filter(|&o| m.negates(o))
            .map(Operand::name)
            .collect();
        format!(" (negated: {})", ops.join(", "))
    } else {
        String::new()
    };
    match b.sparse {
        None => {
            let src = m.a_source_block(e.block);
            let a_row: Vec<u64> = (0..b.k)
                .map(|k| ins[0][la.linear(Coord::new(src, e.row, k))])
                .collect();
            format!(
                "A[{src}][{}][*] = [{}], B[{}][*][{}] as read = [{}], C[{}][{}][{}] = {}{neg}",
                e.row,
                list(ta, a_row),
                e.block,
                e.col,
                list(tb, b_col),
                e.block,
                e.row,
                e.col,
                hex(tc, c)
            )
        }
        Some(sp) => {
            let set = sp.index_set(m);
            let a_row: Vec<u64> = (0..b.k / 2)
                .map(|kc| ins[0][la.linear(Coord::at(e.row, kc))])
                .collect();
            let fields: Vec<String> = (0..b.k / Sparse::GROUP)
                .map(|g| {
                    let f = ins[3][sp.idx.linear(Coord::new(set, e.row, g))];
                    format!("({},{})", f & 3, f >> 2 & 3)
                })
                .collect();
            format!(
                "A[0][{}][*] (stored) = [{}], index set {set} of row {} = [{}], B[0][*][{}] = [{}], \
                 C[0][{}][{}] = {}",
                e.row,
                list(ta, a_row),
                e.row,
                fields.join(" "),
                e.col,
                list(tb, b_col),
                e.row,
                e.col,
                hex(tc, c)
            )
        }
    }
}
