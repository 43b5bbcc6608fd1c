//! The layout picture: one cell per element showing the register item (and
//! lane) it reads, lane groups in alternating teal and grey as in the seed
//! document's figures, blocks drawn apart, a lane ruler as legend.
//!
//! Hand-written SVG: the picture is a few hundred rectangles and labels, and
//! the output must be byte-for-byte reproducible (docs/ keeps some).
//!
//! SMFMAC: A is drawn as its compressed `M x K/2` (columns kc, a label over
//! each pair naming the group's logical k), the index operand as one i x g
//! grid per index set, each saying whether the modifiers make it read.

use crate::layout::View;
use mfma_spec::{Coord, Dest};
use std::fmt::Write;

const MARGIN: usize = 20;
const CELL: usize = 28;
const ROW_LABEL: usize = 26;
const BLOCK_HEAD: usize = 34;
const GAP: usize = 24;
const LANES: usize = mfma_spec::WAVE;
const RULER_LEFT: usize = 44;
const RULER_CELL: usize = 10;
const GROUP_ROW: usize = 14;

const STYLE: &str = ".g0{fill:#8fcfc9}.g1{fill:#d6d6d6}\
rect.c{stroke:#ffffff;stroke-width:1}\
text{fill:#222222}\
.t{font-size:16px;font-weight:bold}.s{font-size:12px}\
.b{font-size:12px;font-weight:bold}.h{font-size:9px;fill:#666666}\
.i{font-size:11px;text-anchor:middle}.l{font-size:7px;text-anchor:middle;fill:#555555}\
.m{text-anchor:middle}.e{text-anchor:end}";

/// Escapes text for XML content and attribute values.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Lanes that share a colour: the run of consecutive lanes the layout's
/// fastest lane digit spans (32 for the 32x32 accumulator, 4 for 4x4 ...).
fn lane_group(v: &View) -> usize {
    v.layout()
        .modes()
        .iter()
        .find(|m| m.dest == Dest::Lane && m.dest_stride == 1)
        .map_or(LANES, |m| m.size)
}

/// The SVG document for one operand.
pub fn render(v: &View) -> String {
    let l = v.layout();
    let b = v.builtin;
    let op = v.operand;
    let [blk_name, row_name, col_name] = l.axis_names();
    let group = lane_group(v);
    let per_row = (LANES / l.cols).clamp(1, l.blocks);
    let grid_rows = l.blocks.div_ceil(per_row);
    let block_w = ROW_LABEL + l.cols * CELL;
    // An SMFMAC's A has a row of group labels above its column numbers.
    let block_head = if v.sparse_a() {
        BLOCK_HEAD + GROUP_ROW
    } else {
        BLOCK_HEAD
    };
    let block_h = block_head + l.rows * CELL;
    let grid_w = per_row * block_w + (per_row - 1) * GAP;
    let grid_h = grid_rows * block_h + (grid_rows - 1) * GAP;

    let mut y = MARGIN + 16;
    let mut head = String::new();
    let mut longest_line = 0;
    let upper = op.name().to_uppercase();
    let _ = writeln!(
        head,
        r#"<text class="t" x="{MARGIN}" y="{y}">{}: operand {upper} ({blk_name}, {row_name}, {col_name})</text>"#,
        esc(&v.name())
    );
    y += 20;
    let elem = b.elem(op);
    let item_word = if elem.bits() == 64 {
        "item = VGPR pair"
    } else {
        "item t of a lane = its t-th element"
    };
    let what = if v.is_idx() {
        format!(
            "{} index sets of {}x{} 4-bit fields",
            l.blocks, l.rows, l.cols
        )
    } else if v.sparse_a() {
        format!(
            "{} block(s) of {}x{} {} stored (compressed from {}x{})",
            l.blocks,
            l.rows,
            l.cols,
            elem.name(),
            b.m,
            b.k
        )
    } else {
        format!(
            "{} block(s) of {}x{} {}",
            l.blocks,
            l.rows,
            l.cols,
            elem.name()
        )
    };
    let item_word = if v.is_idx() {
        "item t = bits 4t+3:4t"
    } else {
        item_word
    };
    let mut lines = vec![format!(
        "{what}; {} item(s) per lane in {} VGPR(s) ({item_word}). Cell: item (large), lane \
         (small).",
        l.items,
        b.vgprs(op)
    )];
    lines.extend(v.sparse_words());
    if v.routed() && b.is_sparse() {
        lines.extend(v.modifier_words());
    } else if v.routed() {
        lines.push(format!(
            "With {}: each cell shows the slot the hardware reads for that element.",
            v.modifier_text()
        ));
        lines.extend(v.modifier_words());
    }
    for line in lines {
        longest_line = longest_line.max(line.len());
        let _ = writeln!(
            head,
            r#"<text class="s" x="{MARGIN}" y="{y}">{}</text>"#,
            esc(&line)
        );
        y += 18;
    }
    y -= 18;

    // Lane ruler: the legend of the colours.
    y += 14;
    let _ = writeln!(
        head,
        r#"<text class="s" x="{MARGIN}" y="{}">lanes</text>"#,
        y + 10
    );
    for lane in 0..LANES {
        let _ = writeln!(
            head,
            r#"<rect class="c g{}" x="{}" y="{y}" width="{RULER_CELL}" height="12"/>"#,
            (lane / group) % 2,
            MARGIN + RULER_LEFT + lane * RULER_CELL
        );
    }
    for lane in (0..LANES).step_by(group.max(4)) {
        let _ = writeln!(
            head,
            r#"<text class="h" x="{}" y="{}">{lane}</text>"#,
            MARGIN + RULER_LEFT + lane * RULER_CELL,
            y + 22
        );
    }
    y += 40;

    let mut body = String::new();
    for blk in 0..l.blocks {
        let bx = MARGIN + (blk % per_row) * (block_w + GAP);
        let by = y + (blk / per_row) * (block_h + GAP);
        let gx = bx + ROW_LABEL;
        let gy = by + block_head;
        let label = if v.is_idx() {
            let s = b.sparse.expect("an SMFMAC").set_bits() as usize;
            let read = if v.index_set() == Some(blk) {
                "read"
            } else {
                "not read"
            };
            format!("set {blk}: bits {}:{}, {read}", s * (blk + 1) - 1, s * blk)
        } else {
            format!("block {blk}")
        };
        let _ = writeln!(
            body,
            r#"<text class="b" x="{bx}" y="{}">{}</text>"#,
            by + 12,
            esc(&label)
        );
        if v.sparse_a() {
            // Compressed columns 2g, 2g+1 hold group g: logical k 4g..=4g+3.
            for g in 0..l.cols / 2 {
                let _ = writeln!(
                    body,
                    r#"<text class="h m" x="{}" y="{}">g{g}: k {}-{}</text>"#,
                    gx + 2 * g * CELL + CELL,
                    gy - 18,
                    4 * g,
                    4 * g + 3
                );
            }
        }
        let _ = writeln!(
            body,
            r#"<text class="h e" x="{}" y="{}">{row_name}\{col_name}</text>"#,
            gx - 4,
            gy - 4
        );
        for c in 0..l.cols {
            let _ = writeln!(
                body,
                r#"<text class="h m" x="{}" y="{}">{c}</text>"#,
                gx + c * CELL + CELL / 2,
                gy - 4
            );
        }
        for r in 0..l.rows {
            let cy = gy + r * CELL;
            let _ = writeln!(
                body,
                r#"<text class="h e" x="{}" y="{}">{r}</text>"#,
                gx - 4,
                cy + CELL / 2 + 3
            );
            for c in 0..l.cols {
                let cx = gx + c * CELL;
                let s = v.cell(Coord::new(blk, r, c));
                let _ = writeln!(
                    body,
                    r#"<g class="cell"><title>{blk_name} {blk}, {row_name} {r}, {col_name} {c}: lane {}, item {}</title><rect class="c g{}" x="{cx}" y="{cy}" width="{CELL}" height="{CELL}"/><text class="i" x="{}" y="{}">{}</text><text class="l" x="{}" y="{}">{}</text></g>"#,
                    s.lane,
                    s.item,
                    (s.lane / group) % 2,
                    cx + CELL / 2,
                    cy + 13,
                    s.item,
                    cx + CELL / 2,
                    cy + 23,
                    s.lane
                );
            }
        }
    }

    // Text is not measured by SVG; 7 px a character bounds 12 px sans-serif.
    let text_w = longest_line * 7;
    let width = 2 * MARGIN + grid_w.max(RULER_LEFT + LANES * RULER_CELL + 40).max(text_w);
    let height = y + grid_h + MARGIN;
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\">\n\
         <style>{STYLE}</style>\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n\
         {head}{body}</svg>\n"
    )
}
