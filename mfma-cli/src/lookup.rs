//! `mfma lookup`: element → slot, or slot → element(s), under modifiers.

use crate::args::{ModifierArgs, TextFormat};
use crate::coords;
use crate::error::Result;
use crate::layout::{Header, View};
use crate::resolve::ArchChoice;
use crate::text;
use mfma_spec::{Coord, Operand, Slot};
use serde::Serialize;

/// Where item `item` of a lane sits in the operand's registers: element t
/// of s bits is in VGPR ⌊t·s/32⌋ at bit t·s mod 32; a 64-bit item is a pair.
fn register(v: &View, item: usize) -> String {
    let bits = v.builtin.elem(v.operand).bits() as usize;
    let start = item * bits;
    let (reg, lo) = (start / 32, start % 32);
    match bits {
        64 => format!("v[{}:{}]", reg + 1, reg),
        32 => format!("v{reg}"),
        _ => format!("v{reg}[{}:{lo}]", lo + bits - 1),
    }
}

fn describe(op: Operand, c: Coord) -> String {
    let [blk, row, col] = op.axis_names();
    format!("({blk} {}, {row} {}, {col} {})", c.block, c.row, c.col)
}

#[derive(Serialize)]
struct SlotJson {
    lane: usize,
    item: usize,
    register: String,
}

#[derive(Serialize)]
struct LookupJson {
    #[serde(flatten)]
    header: Header,
    #[serde(skip_serializing_if = "Option::is_none")]
    element: Option<[usize; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slot: Option<SlotJson>,
    /// For an element lookup: the slot(s) it reads (always one: every
    /// element has a single source, even under broadcast).
    #[serde(skip_serializing_if = "Option::is_none")]
    slots: Option<Vec<SlotJson>>,
    /// For a slot lookup: the elements it feeds (several under broadcast, none if ignored).
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<Vec<[usize; 3]>>,
}

fn slot_json(v: &View, s: Slot) -> SlotJson {
    SlotJson {
        lane: s.lane,
        item: s.item,
        register: register(v, s.item),
    }
}

fn base(v: &View) -> LookupJson {
    LookupJson {
        header: v.header(),
        element: None,
        slot: None,
        slots: None,
        elements: None,
    }
}

fn by_element(v: &View, c: Coord, format: TextFormat) -> String {
    let s = v.source(c);
    match format {
        TextFormat::Json => text::json_pretty(&LookupJson {
            element: Some([c.block, c.row, c.col]),
            slots: Some(vec![slot_json(v, s)]),
            ..base(v)
        }),
        TextFormat::Text => {
            let via = if v.routed() {
                format!(" under {}", v.modifier_text())
            } else {
                String::new()
            };
            format!(
                "{} operand {}: element {} reads lane {}, item {} ({}){via}\n",
                v.name(),
                v.operand.name(),
                describe(v.operand, c),
                s.lane,
                s.item,
                register(v, s.item)
            )
        }
    }
}

fn by_slot(v: &View, s: Slot, format: TextFormat) -> String {
    let fed = v.feeds(s);
    match format {
        TextFormat::Json => text::json_pretty(&LookupJson {
            slot: Some(slot_json(v, s)),
            elements: Some(fed.iter().map(|c| [c.block, c.row, c.col]).collect()),
            ..base(v)
        }),
        TextFormat::Text => {
            let head = format!(
                "{} operand {}: lane {}, item {} ({})",
                v.name(),
                v.operand.name(),
                s.lane,
                s.item,
                register(v, s.item)
            );
            let via = if v.routed() {
                format!(" under {}", v.modifier_text())
            } else {
                String::new()
            };
            match fed.as_slice() {
                [] => format!("{head} feeds no element{via}: the hardware ignores it\n"),
                [c] => format!("{head} feeds element {}{via}\n", describe(v.operand, *c)),
                many => {
                    let mut out = format!("{head} feeds {} elements{via}:\n", many.len());
                    for c in many {
                        out.push_str(&format!("  {}\n", describe(v.operand, *c)));
                    }
                    out
                }
            }
        }
    }
}

/// Runs `mfma lookup`.
pub fn run(
    name: &str,
    operand: &str,
    element: Option<&str>,
    slot: Option<&str>,
    m: &ModifierArgs,
    format: TextFormat,
    arch: ArchChoice,
) -> Result<()> {
    let v = View::parse(name, operand, m, arch)?;
    let out = match (element, slot) {
        (Some(e), _) => by_element(&v, coords::element(v.builtin, v.operand, e)?, format),
        (None, Some(s)) => by_slot(&v, coords::slot(v.builtin, v.operand, s)?, format),
        (None, None) => unreachable!("clap requires --element or --slot"),
    };
    text::emit(&out)
}
