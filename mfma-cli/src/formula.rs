//! A layout's maps written out as formulas, read off its modes (so they are
//! exactly what the spec computes, never a second statement of it).

use mfma_spec::{Axis, Dest, Layout};

/// The lane or item index of element (b, row, col) as an expression, e.g.
/// `j + 32*((i/4)%2)`, in the layout's own coordinates (`kc` for an SMFMAC
/// A, `set, i, g` for its index). Division is integer division.
pub fn formula(l: &Layout, dest: Dest) -> String {
    let [block, row, col] = l.axis_names();
    // Blocks are `b` in a formula; the index operand's sets keep their name.
    let block = if block == "block" { "b" } else { block };
    let mut modes: Vec<_> = l
        .modes()
        .iter()
        .filter(|m| m.dest == dest && m.size > 1)
        .collect();
    modes.sort_by_key(|m| m.dest_stride);
    let terms: Vec<String> = modes
        .iter()
        .map(|m| {
            let (name, extent) = match m.axis {
                Axis::Block => (block, l.blocks),
                Axis::Row => (row, l.rows),
                Axis::Col => (col, l.cols),
            };
            let divided = m.axis_stride > 1;
            let wrapped = m.axis_stride * m.size < extent;
            let digit = match (divided, wrapped) {
                (false, false) => name.to_string(),
                (true, false) => format!("{name}/{}", m.axis_stride),
                (false, true) => format!("{name}%{}", m.size),
                (true, true) => format!("({name}/{})%{}", m.axis_stride, m.size),
            };
            match (m.dest_stride, divided || wrapped) {
                (1, _) => digit,
                (s, false) => format!("{s}*{digit}"),
                (s, true) => format!("{s}*({digit})"),
            }
        })
        .collect();
    if terms.is_empty() {
        "0".into()
    } else {
        terms.join(" + ")
    }
}
