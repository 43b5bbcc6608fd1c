//! Parsing `--element` and `--slot`: numbers, and a position that exists
//! in the operand, with messages that name the operand and the bounds.

use crate::error::{Error, Result};
use mfma_spec::{Builtin, Coord, Operand, Slot};

/// Comma-separated non-negative integers.
fn numbers(text: &str) -> Option<Vec<usize>> {
    text.split(',').map(|p| p.trim().parse().ok()).collect()
}

fn bad(what: &str, text: &str, expected: &str) -> Error {
    Error::new(format!(
        "bad {what} `{text}`: expected {expected} comma-separated non-negative integers"
    ))
}

/// (blocks, rows, cols) of operand `op` in the coordinates users give:
/// the layout's, but the logical M x K for an SMFMAC's (compressed) A.
pub fn extent(b: &Builtin, op: Operand) -> [usize; 3] {
    let l = b.layout(op);
    if op == Operand::A && b.is_sparse() {
        [1, b.m, b.k]
    } else {
        [l.blocks, l.rows, l.cols]
    }
}

/// An element `BLOCK,ROW,COL` of operand `op` (or `ROW,COL` when the
/// builtin has one block: there is no block to choose), which must lie in
/// its matrices: for an SMFMAC's A the logical `M x K` one, for its index
/// `SET,I,G`.
pub fn element(b: &Builtin, op: Operand, text: &str) -> Result<Coord> {
    let [blocks, rows, cols] = extent(b, op);
    let [blk, row, col] = op.axis_names();
    let single = blocks == 1;
    let expected = if single { "2 or 3" } else { "3" };
    let v = numbers(text).ok_or_else(|| bad("element", text, expected))?;
    let c = match v[..] {
        [block, row, col] => Coord::new(block, row, col),
        [row, col] if single => Coord::at(row, col),
        [_, _] => {
            let (what, give) = if op == Operand::Idx {
                ("index sets", "SET,I,G")
            } else {
                ("blocks", "BLOCK,ROW,COL")
            };
            return Err(Error::new(format!(
                "{} ({} has {blocks} {what}: give {give})",
                bad("element", text, expected),
                b.path(),
            )));
        }
        _ => return Err(bad("element", text, expected)),
    };
    if c.block < blocks && c.row < rows && c.col < cols {
        return Ok(c);
    }
    let logical = if op == Operand::A && b.is_sparse() {
        format!(" (the logical k: A stores {} of them a row)", b.k / 2)
    } else {
        String::new()
    };
    Err(Error::new(format!(
        "element ({blk} {}, {row} {}, {col} {}) is out of range for {} operand {}: \
         it needs {blk} < {blocks}, {row} < {rows}, {col} < {cols}{logical}",
        c.block,
        c.row,
        c.col,
        b.path(),
        op.name(),
    )))
}

/// A register slot `LANE,ITEM` of operand `op`, which must exist.
pub fn slot(b: &Builtin, op: Operand, text: &str) -> Result<Slot> {
    let s = match numbers(text).as_deref() {
        Some(&[lane, item]) => Slot { lane, item },
        _ => return Err(bad("slot", text, "2")),
    };
    let l = b.layout(op);
    if l.has_slot(s) {
        return Ok(s);
    }
    Err(Error::new(format!(
        "slot (lane {}, item {}) is out of range for {} operand {}: it needs lane < {}, item < {}",
        s.lane,
        s.item,
        b.path(),
        op.name(),
        l.lanes,
        l.items
    )))
}
