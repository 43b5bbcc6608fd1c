//! `mfma info NAME`: the table row of one builtin plus what follows from it.

use crate::args::TableFormat;
use crate::csig;
use crate::error::Result;
use crate::formula::formula;
use crate::list::{range, Row};
use crate::resolve;
use crate::text;
use mfma_spec::{Arith, Builtin, Dest, Operand};
use serde::Serialize;

#[derive(Serialize)]
struct Info {
    #[serde(flatten)]
    row: Row,
    hip_builtin: String,
    llvm_intrinsic: &'static str,
    isa: &'static str,
    c_signature: String,
    c_types: Vec<String>,
    vgprs: PerOperand<usize>,
    ops: u64,
    cycles: u32,
    peak_ops_per_cu_per_cycle: u64,
    valu_coexec_cycles: Option<u32>,
    arithmetic: String,
    accumulator_layout: String,
    layouts: PerOperand<LayoutInfo>,
}

#[derive(Serialize)]
struct PerOperand<T> {
    a: T,
    b: T,
    c: T,
    d: T,
}

impl<T> PerOperand<T> {
    fn new(f: impl Fn(Operand) -> T) -> Self {
        PerOperand {
            a: f(Operand::A),
            b: f(Operand::B),
            c: f(Operand::C),
            d: f(Operand::D),
        }
    }
}

#[derive(Serialize)]
struct LayoutInfo {
    coords: [&'static str; 3],
    lanes: usize,
    items: usize,
    lane: String,
    item: String,
}

fn arithmetic(b: &Builtin) -> String {
    match b.arith {
        Arith::ChainedFma => format!(
            "chained fused multiply-adds in {}, k ascending, IEEE round-to-nearest-even, subnormals kept",
            b.cd.name()
        ),
        Arith::GroupedSum { group } => format!(
            "products summed in pairwise trees of {group} consecutive k, each tree added to the {} \
             accumulator, flush-to-zero at every step",
            b.cd.name()
        ),
        Arith::TruncatedDot { group } => format!(
            "each group of {group} consecutive k one step: exact products truncated at the \
             largest product's exponent (24 bits), summed exactly, added to the floored {} \
             accumulator, floored and rounded once to nearest even; no flush to zero",
            b.cd.name()
        ),
        Arith::SplitTruncatedDot { group } => format!(
            "each group of {group} consecutive k one step: exact products, the even and the odd k \
             truncated and summed apart at their own largest exponent, added, then added to the \
             {} accumulator (dropped when 25 binades smaller), floored and rounded once",
            b.cd.name()
        ),
        Arith::WrappingInt => format!(
            "exact products summed into {} with two's complement wrap-around",
            b.cd.name()
        ),
    }
}

fn gather(b: &'static Builtin) -> Info {
    Info {
        row: Row::of(b),
        hip_builtin: format!("{}{}", Builtin::HIP_PREFIX, b.name),
        llvm_intrinsic: b.llvm_intrinsic,
        isa: b.isa,
        c_signature: csig::signature(b),
        c_types: csig::declarations(b),
        vgprs: PerOperand::new(|op| b.vgprs(op)),
        ops: b.ops(),
        cycles: b.cycles,
        peak_ops_per_cu_per_cycle: b.ops_per_cycle(),
        valu_coexec_cycles: b.valu_coexec,
        arithmetic: arithmetic(b),
        accumulator_layout: format!("{:?}", b.acc),
        layouts: PerOperand::new(|op| {
            let l = b.layout(op);
            LayoutInfo {
                coords: op.axis_names(),
                lanes: l.lanes,
                items: l.items,
                lane: formula(l, op, Dest::Lane),
                item: formula(l, op, Dest::Item),
            }
        }),
    }
}

fn as_text(i: &Info) -> String {
    let r = &i.row;
    let al = &r.modifiers;
    let plural = if r.blocks == 1 { "" } else { "s" };
    let mut lines: Vec<(String, String)> = vec![
        ("HIP builtin".into(), i.hip_builtin.clone()),
        ("LLVM intrinsic".into(), i.llvm_intrinsic.into()),
        ("ISA mnemonic".into(), i.isa.into()),
        ("C signature".into(), i.c_signature.clone()),
    ];
    for d in &i.c_types {
        lines.push(("".into(), d.clone()));
    }
    lines.push((
        "shape".into(),
        format!(
            "D = A*B + C, M {} N {} K {}, {} block{plural}",
            r.m, r.n, r.k, r.blocks
        ),
    ));
    let operand = |name: &str, ty: &str, rows: usize, cols: usize, per: usize, vgprs: usize| {
        (
            name.to_string(),
            format!("{ty} {rows}x{cols} a block, {per} per lane in {vgprs} VGPR(s)"),
        )
    };
    lines.push(operand("A", r.ab_type, r.m, r.k, r.ab_per_lane, i.vgprs.a));
    lines.push(operand("B", r.ab_type, r.k, r.n, r.ab_per_lane, i.vgprs.b));
    lines.push(operand(
        "C, D",
        r.cd_type,
        r.m,
        r.n,
        r.cd_per_lane,
        i.vgprs.c,
    ));
    lines.push(("ops".into(), format!("{} per instruction", i.ops)));
    lines.push(("cycles".into(), i.cycles.to_string()));
    lines.push((
        "peak".into(),
        format!("{} ops per CU per cycle", i.peak_ops_per_cu_per_cycle),
    ));
    lines.push((
        "VALU co-execution".into(),
        match i.valu_coexec_cycles {
            Some(c) => format!("{c} cycles"),
            None => "not supported".into(),
        },
    ));
    lines.push(("cbsz".into(), range(al.cbsz_max)));
    lines.push((
        "abid".into(),
        if al.abid_max == 0 {
            "0".into()
        } else {
            format!("0..={} (below 2^cbsz)", al.abid_max)
        },
    ));
    lines.push(("blgp".into(), range(al.blgp_max)));
    lines.push((
        "modifiers".into(),
        format!(
            "{} legal (cbsz, abid, blgp) combination(s)",
            al.combinations
        ),
    ));
    lines.push(("arithmetic".into(), i.arithmetic.clone()));
    let layouts = [
        ("layout A", &i.layouts.a),
        ("layout B", &i.layouts.b),
        ("layout C, D", &i.layouts.c),
    ];
    for (name, l) in layouts {
        let [blk, row, col] = l.coords;
        lines.push((
            name.into(),
            format!(
                "({blk}, {row}, {col}) -> lane = {}, item = {}",
                l.lane, l.item
            ),
        ));
    }
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = format!("{} ({})\n", r.name, r.arch);
    for (k, v) in lines {
        out.push_str(&format!("  {k:width$}  {v}\n"));
    }
    out
}

/// Runs `mfma info`.
pub fn run(name: &str, format: TableFormat) -> Result<()> {
    let info = gather(resolve::builtin(name)?);
    text::emit(&match format {
        TableFormat::Json => text::json_pretty(&info),
        TableFormat::Table => as_text(&info),
    })
}
