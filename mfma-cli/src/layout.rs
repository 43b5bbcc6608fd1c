//! `mfma layout`: every element of an operand with the register slot it
//! reads, as a grid, CSV, JSON or SVG.

use crate::args::{LayoutFormat, ModifierArgs};
use crate::error::Result;
use crate::explain;
use crate::modifiers;
use crate::resolve::{self, ArchChoice};
use crate::svg;
use crate::text;
use mfma_spec::{Builtin, Coord, Layout, Modifiers, Operand, Slot};
use serde::Serialize;

/// One operand of one builtin under given (legal) modifiers.
#[derive(Clone, Copy)]
pub struct View {
    /// The builtin.
    pub builtin: &'static Builtin,
    /// The operand.
    pub operand: Operand,
    /// The modifiers, already validated.
    pub modifiers: Modifiers,
}

impl View {
    /// Resolves and checks the command-line words.
    pub fn parse(name: &str, operand: &str, m: &ModifierArgs, arch: ArchChoice) -> Result<Self> {
        let builtin = resolve::builtin(name, arch)?;
        let operand = resolve::operand(operand)?;
        let modifiers = modifiers::parse(builtin, m)?;
        Ok(View {
            builtin,
            operand,
            modifiers,
        })
    }

    /// The operand's layout.
    pub fn layout(&self) -> &'static Layout {
        self.builtin.layout(self.operand)
    }

    /// The elements slot `s` feeds.
    pub fn feeds(&self, s: Slot) -> Vec<Coord> {
        mfma_spec::feeds(self.builtin, self.operand, self.modifiers, s).collect()
    }

    /// The slot element `c` reads.
    pub fn source(&self, c: Coord) -> Slot {
        mfma_spec::source(self.builtin, self.operand, self.modifiers, c)
    }

    /// Whether any modifier is nonzero (negation included: it moves no
    /// data, but a reader should see it was applied).
    pub fn routed(&self) -> bool {
        self.modifiers != Modifiers::NONE
    }

    /// `cbsz 1, abid 1, blgp 0` (or `neg [a, c]` in blgp's place where its
    /// bits are negation flags).
    pub fn modifier_text(&self) -> String {
        modifiers::text(self.builtin, self.modifiers)
    }

    /// What each nonzero modifier does, one sentence each.
    pub fn modifier_words(&self) -> Vec<String> {
        explain::all(self.builtin, self.modifiers)
    }

    /// The builtin as users write it (`cdna3::` in front for CDNA3).
    pub fn name(&self) -> String {
        self.builtin.path().to_string()
    }

    /// The common start of a JSON answer.
    pub fn header(&self) -> Header {
        Header {
            builtin: self.builtin.name,
            arch: self.builtin.arch,
            operand: self.operand.name(),
            cbsz: self.modifiers.cbsz,
            abid: self.modifiers.abid,
            blgp: self.modifiers.blgp,
            neg: modifiers::negated(self.modifiers),
            coords: self.operand.axis_names(),
        }
    }

    /// Every slot in lane-major order.
    pub fn slots(&self) -> impl Iterator<Item = Slot> {
        let l = self.layout();
        (0..l.lanes).flat_map(move |lane| (0..l.items).map(move |item| Slot { lane, item }))
    }
}

/// The fields every JSON answer about one view starts with.
#[derive(Serialize)]
pub struct Header {
    /// The bare name; `arch` says whose.
    builtin: &'static str,
    arch: &'static str,
    operand: &'static str,
    cbsz: i64,
    abid: i64,
    blgp: i64,
    /// Negated operands (`["a", "c"]`); they move no data.
    neg: Vec<&'static str>,
    coords: [&'static str; 3],
}

/// The JSON document of `layout --format json`.
#[derive(Serialize)]
struct LayoutJson {
    #[serde(flatten)]
    header: Header,
    /// `lanes[lane][item]`: the `[block, row, col]` elements that slot feeds.
    lanes: Vec<Vec<Vec<[usize; 3]>>>,
}

fn json(v: &View) -> String {
    let l = v.layout();
    let lanes = (0..l.lanes)
        .map(|lane| {
            (0..l.items)
                .map(|item| {
                    v.feeds(Slot { lane, item })
                        .into_iter()
                        .map(|c| [c.block, c.row, c.col])
                        .collect()
                })
                .collect()
        })
        .collect();
    text::json_line(&LayoutJson {
        header: v.header(),
        lanes,
    })
}

fn csv(v: &View) -> String {
    let [blk, row, col] = v.operand.axis_names();
    let mut out = format!("lane,item,{blk},{row},{col}\n");
    for s in v.slots() {
        let fed = v.feeds(s);
        let join = |f: fn(&Coord) -> usize| {
            fed.iter()
                .map(|c| f(c).to_string())
                .collect::<Vec<_>>()
                .join(";")
        };
        out.push_str(&format!(
            "{},{},{},{},{}\n",
            s.lane,
            s.item,
            join(|c| c.block),
            join(|c| c.row),
            join(|c| c.col)
        ));
    }
    out
}

fn table(v: &View) -> String {
    let l = v.layout();
    let [_, row, col] = v.operand.axis_names();
    let mut out = format!(
        "{} operand {}: {} block(s) of {} x {} ({row} down, {col} across); cell = lane:item",
        v.name(),
        v.operand.name(),
        l.blocks,
        l.rows,
        l.cols
    );
    if v.routed() {
        out.push_str(&format!(" the element reads under {}", v.modifier_text()));
    }
    out.push('\n');
    for line in v.modifier_words() {
        out.push_str(&line);
        out.push('\n');
    }
    let cell = |c: Coord| {
        let s = v.source(c);
        format!("{}:{}", s.lane, s.item)
    };
    let width = (0..l.elements())
        .map(|n| cell(l.delinear(n)).len())
        .chain([(l.cols - 1).to_string().len()])
        .max()
        .unwrap_or(1);
    let corner = format!("{row}\\{col}");
    let label = corner.len().max((l.rows - 1).to_string().len());
    for blk in 0..l.blocks {
        out.push_str(&format!("\nblock {blk}\n{corner:>label$}"));
        for c in 0..l.cols {
            out.push_str(&format!(" {c:>width$}"));
        }
        out.push('\n');
        for r in 0..l.rows {
            out.push_str(&format!("{r:>label$}"));
            for c in 0..l.cols {
                out.push_str(&format!(" {:>width$}", cell(Coord::new(blk, r, c))));
            }
            out.push('\n');
        }
    }
    out
}

/// Runs `mfma layout`.
pub fn run(
    name: &str,
    operand: &str,
    m: &ModifierArgs,
    format: LayoutFormat,
    arch: ArchChoice,
) -> Result<()> {
    let v = View::parse(name, operand, m, arch)?;
    text::emit(&match format {
        LayoutFormat::Table => table(&v),
        LayoutFormat::Csv => csv(&v),
        LayoutFormat::Json => json(&v),
        LayoutFormat::Svg => svg::render(&v),
    })
}
