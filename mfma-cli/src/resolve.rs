//! Turning command-line words into spec values, with the messages users see
//! when a word is wrong. Every such failure is an [`Error`] (exit status 2).

use crate::args::ModifierArgs;
use crate::error::{Error, Result};
use mfma_spec::{Builtin, Coord, Layout, Modifiers, Operand, Slot};

/// The builtin called `name` (any accepted spelling), or a suggestion.
pub fn builtin(name: &str) -> Result<&'static Builtin> {
    mfma_spec::find(name).ok_or_else(|| {
        Error::new(format!(
            "unknown builtin `{name}`: did you mean `{}`?",
            mfma_spec::closest(name).name
        ))
    })
}

/// Operand `a`, `b`, `c` or `d`.
pub fn operand(name: &str) -> Result<Operand> {
    Operand::from_name(name).ok_or_else(|| {
        Error::new(format!(
            "unknown operand `{name}`: expected one of a, b, c, d"
        ))
    })
}

/// The modifiers, checked by the same rules (and with the same messages) as `mfma!`.
pub fn modifiers(b: &'static Builtin, m: ModifierArgs) -> Result<Modifiers> {
    let m = Modifiers::new(m.cbsz, m.abid, m.blgp);
    mfma_spec::validate(b, m).map_err(|e| Error::new(e.to_string()))?;
    Ok(m)
}

/// `N,N,...` with exactly `n` non-negative integers.
fn numbers(text: &str, what: &str, n: usize) -> Result<Vec<usize>> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = || {
        Error::new(format!(
            "bad {what} `{text}`: expected {n} comma-separated non-negative integers"
        ))
    };
    if parts.len() != n {
        return Err(bad());
    }
    parts.iter().map(|p| p.parse().map_err(|_| bad())).collect()
}

/// An element `BLOCK,ROW,COL` of operand `op`, which must lie in its matrices.
pub fn element(b: &Builtin, op: Operand, text: &str) -> Result<Coord> {
    let v = numbers(text, "element", 3)?;
    let c = Coord::new(v[0], v[1], v[2]);
    let l = b.layout(op);
    if l.contains(c) {
        return Ok(c);
    }
    let [blk, row, col] = op.axis_names();
    Err(Error::new(format!(
        "element ({blk} {}, {row} {}, {col} {}) is out of range for {} operand {}: \
         it needs {blk} < {}, {row} < {}, {col} < {}",
        c.block,
        c.row,
        c.col,
        b.name,
        op.name(),
        l.blocks,
        l.rows,
        l.cols
    )))
}

/// A register slot `LANE,ITEM` of operand `op`, which must exist.
pub fn slot(b: &Builtin, op: Operand, text: &str) -> Result<Slot> {
    let v = numbers(text, "slot", 2)?;
    let s = Slot {
        lane: v[0],
        item: v[1],
    };
    let l: &Layout = b.layout(op);
    if s.lane < l.lanes && s.item < l.items {
        return Ok(s);
    }
    Err(Error::new(format!(
        "slot (lane {}, item {}) is out of range for {} operand {}: it needs lane < {}, item < {}",
        s.lane,
        s.item,
        b.name,
        op.name(),
        l.lanes,
        l.items
    )))
}
