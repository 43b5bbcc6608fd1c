//! `mfma lookup`: element → slot, or slot → element(s), under modifiers.
//!
//! SMFMAC: an element of A is a logical (block, i, k); the answer is the
//! two compressed slots of its group, either of which may hold it, and the
//! index field that says which (in the set the modifiers pick). A slot of A
//! holds compressed column kc: one of 4 logical k. An index element is
//! (set, i, g), its field read or not as the modifiers say.

use crate::args::{ModifierArgs, TextFormat};
use crate::coords;
use crate::error::Result;
use crate::layout::{Field, Header, View};
use crate::resolve::ArchChoice;
use crate::text;
use mfma_spec::{Coord, Operand, Slot, Sparse};
use serde::Serialize;

/// Where item `item` of a lane sits in the operand's registers: element t
/// of s bits is in VGPR ⌊t·s/32⌋ at bit t·s mod 32; a 64-bit item is a pair.
fn register(v: &View, item: usize) -> String {
    register_of(v.operand, v, item)
}

/// [`register`] of operand `op` of the view's builtin.
fn register_of(op: Operand, v: &View, item: usize) -> String {
    let bits = v.builtin.elem(op).bits() as usize;
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
    /// SMFMAC's A: the compressed column the slot holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    kc: Option<usize>,
}

/// SMFMAC's A: the index field that places a stored value, in the set the
/// instruction reads.
#[derive(Serialize)]
struct IndexJson {
    lane: usize,
    item: usize,
    register: String,
    set: usize,
    /// For a slot lookup: the 2 bits holding that value's position (0..=3).
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<String>,
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
    /// For a slot lookup: the elements it feeds (several under broadcast,
    /// none if ignored; an SMFMAC's A: the logical elements it may hold).
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<Vec<[usize; 3]>>,
    /// SMFMAC's A, slot lookup: the compressed element `[block, i, kc]` it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    stored: Option<[usize; 3]>,
    /// SMFMAC's A: the index field that says where the values lie.
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<IndexJson>,
    /// SMFMAC's index: the field looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<Field>,
}

fn slot_json(v: &View, s: Slot) -> SlotJson {
    SlotJson {
        lane: s.lane,
        item: s.item,
        register: register(v, s.item),
        kc: v.sparse_a().then(|| v.layout().coord(s).col),
    }
}

fn base(v: &View) -> LookupJson {
    LookupJson {
        header: v.header(),
        element: None,
        slot: None,
        slots: None,
        elements: None,
        stored: None,
        index: None,
        field: None,
    }
}

/// `v0[7:4]`: bits `hi:lo` of the 32-bit index register.
fn index_bits(hi: usize, lo: usize) -> String {
    format!("v0[{hi}:{lo}]")
}

/// The slot of the index field of row `i`, group `g` in the set the
/// instruction reads.
fn index_slot(v: &View, i: usize, g: usize) -> (usize, Slot) {
    let b = v.builtin;
    let set = v.index_set().expect("an SMFMAC");
    let idx = b.layout(Operand::Idx);
    (set, idx.slot(Coord::new(set, i, g)))
}

/// `lane 19, item 1 (v0[7:4], set 0)`: the index field of (i, g) read,
/// with the modifiers that pick its set where one is nonzero.
fn index_text(v: &View, i: usize, g: usize) -> String {
    let (set, s) = index_slot(v, i, g);
    let lo = s.item * Sparse::FIELD_BITS as usize;
    let read = if v.routed() {
        format!(", the one read under {}", v.modifier_text())
    } else {
        String::new()
    };
    format!(
        "lane {}, item {} ({}, set {set}{read})",
        s.lane,
        s.item,
        index_bits(lo + 3, lo)
    )
}

/// SMFMAC's A, logical element `c`: the two slots of its group.
fn sparse_a_by_element(v: &View, c: Coord, format: TextFormat) -> String {
    let g = c.col / Sparse::GROUP;
    let l = v.layout();
    let slots: Vec<Slot> = (0..Sparse::STORED)
        .map(|n| l.slot(Coord::new(0, c.row, Sparse::STORED * g + n)))
        .collect();
    let (set, field) = index_slot(v, c.row, g);
    match format {
        TextFormat::Json => text::json_pretty(&LookupJson {
            element: Some([c.block, c.row, c.col]),
            slots: Some(slots.iter().map(|&s| slot_json(v, s)).collect()),
            index: Some(IndexJson {
                lane: field.lane,
                item: field.item,
                register: register_of(Operand::Idx, v, field.item),
                set,
                position: None,
            }),
            ..base(v)
        }),
        TextFormat::Text => {
            let one = |s: Slot| {
                format!(
                    "lane {}, item {} ({}, kc {})",
                    s.lane,
                    s.item,
                    register(v, s.item),
                    l.coord(s).col
                )
            };
            format!(
                "{} operand a: logical element {} is in group g {g} (k {}..={}), whose 2 stored \
                 values are {} and {}: it is one of them or +0, as the index field in {} says\n",
                v.name(),
                describe(Operand::A, c),
                Sparse::GROUP * g,
                Sparse::GROUP * g + 3,
                one(slots[0]),
                one(slots[1]),
                index_text(v, c.row, g),
            )
        }
    }
}

/// SMFMAC's A, slot `s`: the compressed value it holds and where its
/// position is written.
fn sparse_a_by_slot(v: &View, s: Slot, format: TextFormat) -> String {
    let c = v.layout().coord(s);
    let (g, n) = (c.col / Sparse::STORED, c.col % Sparse::STORED);
    let (set, field) = index_slot(v, c.row, g);
    let lo = field.item * Sparse::FIELD_BITS as usize + 2 * n;
    let position = index_bits(lo + 1, lo);
    let fed = v.feeds(s);
    match format {
        TextFormat::Json => text::json_pretty(&LookupJson {
            slot: Some(slot_json(v, s)),
            elements: Some(fed.iter().map(|c| [c.block, c.row, c.col]).collect()),
            stored: Some([c.block, c.row, c.col]),
            index: Some(IndexJson {
                lane: field.lane,
                item: field.item,
                register: register_of(Operand::Idx, v, field.item),
                set,
                position: Some(position),
            }),
            ..base(v)
        }),
        TextFormat::Text => {
            let ks: Vec<String> = fed.iter().map(|c| c.col.to_string()).collect();
            format!(
                "{} operand a: lane {}, item {} ({}) holds compressed element (block {}, i {}, \
                 kc {}): stored value {n} of group g {g}, one of logical k {}; its position is \
                 {position} of the index field in {}\n",
                v.name(),
                s.lane,
                s.item,
                register(v, s.item),
                c.block,
                c.row,
                c.col,
                ks.join(", "),
                index_text(v, c.row, g),
            )
        }
    }
}

/// SMFMAC's index, slot `s`: the field, what it places and whether it is read.
fn field_answer(v: &View, s: Slot, element: Option<Coord>, format: TextFormat) -> String {
    let f = Field::of(v, s);
    let c = v.layout().coord(s);
    match format {
        TextFormat::Json => {
            let fed = v.feeds(s);
            text::json_pretty(&LookupJson {
                element: element.map(|c| [c.block, c.row, c.col]),
                slots: element.map(|_| vec![slot_json(v, s)]),
                slot: element.is_none().then(|| slot_json(v, s)),
                elements: element
                    .is_none()
                    .then(|| fed.iter().map(|c| [c.block, c.row, c.col]).collect()),
                field: Some(f),
                ..base(v)
            })
        }
        TextFormat::Text => {
            let a = v.builtin.layout(Operand::A);
            let (g, i) = (c.col, c.row);
            let first = a.slot(Coord::new(0, i, Sparse::STORED * g));
            let second = a.slot(Coord::new(0, i, Sparse::STORED * g + 1));
            let head = match element {
                Some(e) => format!(
                    "element {} is lane {}, item {} ({})",
                    describe(Operand::Idx, e),
                    s.lane,
                    s.item,
                    register(v, s.item)
                ),
                None => format!(
                    "lane {}, item {} ({}) is the field {}",
                    s.lane,
                    s.item,
                    register(v, s.item),
                    describe(Operand::Idx, c)
                ),
            };
            format!(
                "{} operand idx: {head}: the positions of row {i}'s two stored values in group \
                 {g} (logical k {}..={}; kc {} and {} of A, in lane {}, items {} and {}); {}\n",
                v.name(),
                Sparse::GROUP * g,
                Sparse::GROUP * g + 3,
                Sparse::STORED * g,
                Sparse::STORED * g + 1,
                first.lane,
                first.item,
                second.item,
                v.read_text(c.block)
            )
        }
    }
}

fn by_element(v: &View, c: Coord, format: TextFormat) -> String {
    if v.sparse_a() {
        return sparse_a_by_element(v, c, format);
    }
    if v.is_idx() {
        return field_answer(v, v.layout().slot(c), Some(c), format);
    }
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
    if v.sparse_a() {
        return sparse_a_by_slot(v, s, format);
    }
    if v.is_idx() {
        return field_answer(v, s, None, format);
    }
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
