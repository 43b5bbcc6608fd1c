//! `mfma info NAME`: the table row of one builtin plus what follows from it.

use crate::args::TableFormat;
use crate::arith::arithmetic;
use crate::csig;
use crate::error::Result;
use crate::explain;
use crate::formula::formula;
use crate::list::{range, Row};
use crate::modifiers;
use crate::resolve::{self, ArchChoice};
use crate::text;
use mfma_spec::{Arch, BlgpBits, Builtin, Dest, Modifier, Operand};
use serde::Serialize;

#[derive(Serialize)]
struct Info {
    #[serde(flatten)]
    row: Row,
    hip_builtin: String,
    llvm_intrinsic: &'static str,
    /// One lane's operand types as LLVM declares them (`<4 x i16>`, `i64`).
    llvm_types: PerOperand<String>,
    isa: &'static str,
    /// LLVM target CPUs a code object for this builtin is built for.
    targets: &'static [&'static str],
    products: &'static str,
    c_signature: String,
    c_types: Vec<String>,
    vgprs: PerOperand<usize>,
    ops: u64,
    cycles: u32,
    peak_ops_per_cu_per_cycle: u64,
    /// `null` both where co-execution is unsupported and where AMD does not
    /// publish it: `valu_coexec_published` tells which.
    valu_coexec_cycles: Option<u32>,
    valu_coexec_published: bool,
    /// What each modifier the builtin takes does (broadcast, lane
    /// patterns, negation), one sentence a line.
    modifier_rules: Vec<Rule>,
    arithmetic: String,
    accumulator_layout: String,
    layouts: PerOperand<LayoutInfo>,
}

#[derive(Serialize)]
struct Rule {
    topic: &'static str,
    text: Vec<String>,
}

/// One value per operand; `idx` only for SMFMAC (absent from the JSON of
/// a dense builtin).
#[derive(Serialize)]
struct PerOperand<T> {
    a: T,
    b: T,
    c: T,
    d: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    idx: Option<T>,
}

impl<T> PerOperand<T> {
    fn new(b: &Builtin, f: impl Fn(Operand) -> T) -> Self {
        PerOperand {
            a: f(Operand::A),
            b: f(Operand::B),
            c: f(Operand::C),
            d: f(Operand::D),
            idx: b.is_sparse().then(|| f(Operand::Idx)),
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

fn gather(b: &'static Builtin) -> Info {
    let arch = mfma_spec::arch_of(b);
    Info {
        row: Row::of(b),
        hip_builtin: b.hip_name().to_string(),
        llvm_intrinsic: b.llvm_intrinsic,
        llvm_types: PerOperand::new(b, |op| b.llvm_type(op).to_string()),
        isa: b.isa,
        targets: arch.targets,
        products: arch.products,
        c_signature: csig::signature(b),
        c_types: csig::declarations(b),
        vgprs: PerOperand::new(b, |op| b.vgprs(op)),
        ops: b.ops(),
        cycles: b.cycles,
        peak_ops_per_cu_per_cycle: b.ops_per_cycle(),
        valu_coexec_cycles: b.valu_coexec,
        valu_coexec_published: arch.valu_coexec_published,
        modifier_rules: explain::rules(b)
            .into_iter()
            .map(|(topic, text)| Rule { topic, text })
            .collect(),
        arithmetic: arithmetic(b),
        accumulator_layout: format!("{:?}", b.acc),
        layouts: PerOperand::new(b, |op| {
            let l = b.layout(op);
            LayoutInfo {
                coords: l.axis_names(),
                lanes: l.lanes,
                items: l.items,
                lane: formula(l, Dest::Lane),
                item: formula(l, Dest::Item),
            }
        }),
    }
}

/// The modifier lines: each modifier's legal values (neg only where the
/// architecture has it), the kinds taken with the number of combinations,
/// then what each one does.
fn modifier_lines(b: &Builtin, arch: &Arch, i: &Info) -> Vec<(String, String)> {
    let al = &i.row.modifiers;
    let blgp = match b.blgp {
        _ if b.is_sparse() => "none: the SMFMAC builtin has no blgp operand".to_string(),
        BlgpBits::Negate => format!("{} (its bits are the neg flags)", range(al.blgp_max)),
        BlgpBits::Pattern | BlgpBits::Unused => range(al.blgp_max),
    };
    let mut lines = vec![
        ("cbsz".to_string(), range(al.cbsz_max)),
        ("abid".to_string(), al.abid_text()),
        ("blgp".to_string(), blgp),
    ];
    if Modifier::Neg.in_arch(arch) {
        let neg = if al.neg_max == 0 {
            "none".to_string()
        } else {
            let all = modifiers::negated(mfma_spec::Modifiers::NONE.with_neg(al.neg_max));
            format!("[{}] (any subset)", all.join(", "))
        };
        lines.push(("neg".into(), neg));
    }
    let imm = modifiers::immediates(b);
    let taken = if al.kinds.is_empty() {
        format!("none: {imm} must be all 0")
    } else {
        format!(
            "takes {}: {} legal {imm} combination(s)",
            al.kinds.join(", "),
            al.combinations
        )
    };
    lines.push(("modifiers".into(), taken));
    for rule in &i.modifier_rules {
        for (n, text) in rule.text.iter().enumerate() {
            let label = if n == 0 { rule.topic } else { "" };
            lines.push((label.into(), text.clone()));
        }
    }
    lines
}

fn as_text(b: &Builtin, i: &Info) -> String {
    let arch = mfma_spec::arch_of(b);
    let r = &i.row;
    let plural = if r.blocks == 1 { "" } else { "s" };
    let t = &i.llvm_types;
    let llvm_ab = if t.a == t.b {
        format!("A, B {}", t.a)
    } else {
        format!("A {}, B {}", t.a, t.b)
    };
    let llvm_idx = t
        .idx
        .as_ref()
        .map_or(String::new(), |x| format!("; idx {x}"));
    let mut lines: Vec<(String, String)> = vec![
        ("HIP builtin".into(), i.hip_builtin.clone()),
        ("LLVM intrinsic".into(), i.llvm_intrinsic.into()),
        (
            "LLVM operands".into(),
            format!("{llvm_ab}; C, D {}{llvm_idx}", t.c),
        ),
        ("ISA mnemonic".into(), i.isa.into()),
        (
            "targets".into(),
            format!("{}: {}", arch.targets.join(", "), arch.products),
        ),
        ("C signature".into(), i.c_signature.clone()),
    ];
    for d in &i.c_types {
        lines.push(("".into(), d.clone()));
    }
    let sparse_k = match &r.sparse {
        Some(s) => format!(
            " (logical: A is 4:2 structured-sparse and stores {} of them a row)",
            s.stored_k
        ),
        None => String::new(),
    };
    lines.push((
        "shape".into(),
        format!(
            "D = A*B + C, M {} N {} K {}{sparse_k}, {} block{plural}",
            r.m, r.n, r.k, r.blocks
        ),
    ));
    let operand = |name: &str, ty: &str, rows: usize, cols: usize, per: usize, vgprs: usize| {
        (
            name.to_string(),
            format!("{ty} {rows}x{cols} a block, {per} per lane in {vgprs} VGPR(s)"),
        )
    };
    match &r.sparse {
        None => lines.push(operand("A", r.a_type, r.m, r.k, r.a_per_lane, i.vgprs.a)),
        Some(s) => lines.push((
            "A".into(),
            format!(
                "{} {}x{} stored of a logical {}x{} a block (compressed: 2 values of every \
                 group of 4 k), {} per lane in {} VGPR(s)",
                r.a_type, r.m, s.stored_k, r.m, r.k, r.a_per_lane, i.vgprs.a
            ),
        )),
    }
    lines.push(operand("B", r.b_type, r.k, r.n, r.b_per_lane, i.vgprs.b));
    lines.push(operand(
        "C, D",
        r.cd_type,
        r.m,
        r.n,
        r.cd_per_lane,
        i.vgprs.c,
    ));
    if let (Some(s), Some(vgprs)) = (&r.sparse, i.vgprs.idx) {
        lines.push((
            "idx".into(),
            format!(
                "i32, {vgprs} VGPR a lane: {} index sets of {} bits, each a 4-bit field per \
                 row i and group g of 4 k ({} a lane and set); a field holds the positions \
                 (0..=3) in the group of the row's two stored values, bits 1:0 the first \
                 (kc 2g), 3:2 the second (kc 2g+1)",
                s.sets, s.set_bits, s.fields_per_set
            ),
        ));
        lines.push((
            "dense twin".into(),
            format!(
                "{} (half the K; the software path runs two of it, see arithmetic)",
                b.dense_twin()
                    .map_or(String::new(), |d| d.path().to_string())
            ),
        ));
    }
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
            None if !i.valu_coexec_published => format!("not published for {}", arch.title),
            None => "not supported".into(),
        },
    ));
    lines.extend(modifier_lines(b, arch, i));
    lines.push(("arithmetic".into(), i.arithmetic.clone()));
    let layouts = [
        ("layout A", Some(&i.layouts.a)),
        ("layout B", Some(&i.layouts.b)),
        ("layout C, D", Some(&i.layouts.c)),
        ("layout idx", i.layouts.idx.as_ref()),
    ];
    for (name, l) in layouts {
        let Some(l) = l else { continue };
        let [blk, row, col] = l.coords;
        lines.push((
            name.into(),
            format!(
                "({blk}, {row}, {col}) -> lane = {}, item = {}",
                l.lane, l.item
            ),
        ));
    }
    if b.is_sparse() {
        lines.push((
            "".into(),
            "kc: compressed column of A, stored value kc%2 of group g = kc/2 (logical k \
             4g..=4g+3); idx item t: bits 4t+3:4t of the lane's index VGPR"
                .into(),
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
pub fn run(name: &str, format: TableFormat, arch: ArchChoice) -> Result<()> {
    let b = resolve::builtin(name, arch)?;
    let info = gather(b);
    text::emit(&match format {
        TableFormat::Json => text::json_pretty(&info),
        TableFormat::Table => as_text(b, &info),
    })
}
