//! `mfma layout`: every element of an operand with the register slot it
//! reads, as a grid, CSV, JSON or SVG.
//!
//! SMFMAC adds two kinds of slot. A compressed A value (column kc of the
//! `M x K/2` stored matrix) is one of the 4 logical k of its group, which
//! the data decides; an index field is the 4-bit (set, i, g) the
//! instruction reads only when cbsz/abid pick its set. Their grids show the
//! register layout itself (i x kc, and one i x g grid per set).

use crate::args::{LayoutFormat, ModifierArgs};
use crate::error::Result;
use crate::explain;
use crate::modifiers;
use crate::resolve::{self, ArchChoice};
use crate::svg;
use crate::text;
use mfma_spec::{Builtin, Coord, Layout, Modifiers, Operand, Slot, Sparse};
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
        let operand = resolve::operand(operand, builtin)?;
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

    /// The elements slot `s` feeds, in the operand's logical coordinates
    /// ([`Operand::axis_names`]): for an SMFMAC A the 4 logical k of its
    /// group, any of which it may hold (the index decides).
    pub fn feeds(&self, s: Slot) -> Vec<Coord> {
        if self.sparse_a() {
            let c = self.layout().coord(s);
            return candidates(c);
        }
        mfma_spec::feeds(self.builtin, self.operand, self.modifiers, s).collect()
    }

    /// The slot element `c` reads.
    pub fn source(&self, c: Coord) -> Slot {
        mfma_spec::source(self.builtin, self.operand, self.modifiers, c)
    }

    /// The slot a grid cell shows for element `c` of the register layout:
    /// the one it reads, except for SMFMAC's A (never routed) and index
    /// (each set's own fields, read or not), which show their own slot.
    pub fn cell(&self, c: Coord) -> Slot {
        if self.builtin.is_sparse() {
            self.layout().slot(c)
        } else {
            self.source(c)
        }
    }

    /// Whether this is an SMFMAC's compressed A.
    pub fn sparse_a(&self) -> bool {
        self.operand == Operand::A && self.builtin.is_sparse()
    }

    /// Whether this is an SMFMAC's index operand.
    pub fn is_idx(&self) -> bool {
        self.operand == Operand::Idx
    }

    /// SMFMAC: the index set the instruction reads under the modifiers.
    pub fn index_set(&self) -> Option<usize> {
        self.builtin.sparse.map(|s| s.index_set(self.modifiers))
    }

    /// `set 2 (bits 23:16, items 4..=5)`: where index set `set` lies in
    /// every lane's index register.
    pub fn set_text(&self, set: usize) -> String {
        let s = self.builtin.sparse.expect("an SMFMAC");
        let bits = s.set_bits() as usize;
        let fields = s.fields_per_set();
        format!(
            "set {set} (bits {}:{}, items {}..={})",
            bits * (set + 1) - 1,
            bits * set,
            fields * set,
            fields * (set + 1) - 1
        )
    }

    /// Whether the modifiers make the instruction read index set `set`, in
    /// words: `read` or `not read (the instruction reads set 2)`.
    pub fn read_text(&self, set: usize) -> String {
        match self.index_set() {
            Some(read) if read == set => format!("read under {}", self.modifier_text()),
            Some(read) => format!(
                "not read under {} (the instruction reads set {read})",
                self.modifier_text()
            ),
            None => String::new(),
        }
    }

    /// The lines a table or picture of an SMFMAC's A or index starts with:
    /// what a compressed column or a field is.
    pub fn sparse_words(&self) -> Vec<String> {
        let b = self.builtin;
        if self.sparse_a() {
            vec![format!(
                "A is 4:2 structured-sparse: compressed column kc holds stored value kc%2 of \
                 group g = kc/2, one of logical k 4g..=4g+3 (of K = {}), as the index operand \
                 says (--operand idx)",
                b.k
            )]
        } else if self.is_idx() {
            let s = b.sparse.expect("an SMFMAC");
            vec![
                "field (set, i, g) holds the positions (0..=3) in group g (logical k 4g..=4g+3) \
                 of row i's two stored A values: bits 1:0 the first (kc 2g), 3:2 the second (kc \
                 2g+1)"
                    .to_string(),
                format!(
                    "{} index sets of {} bits; cbsz 0: abid picks the set read, cbsz 1..=3: set \
                     0 (here: set {})",
                    s.sets,
                    s.set_bits(),
                    s.index_set(self.modifiers)
                ),
            ]
        } else {
            Vec::new()
        }
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
            index_set: self.index_set(),
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
    /// SMFMAC only: the index set the instruction reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    index_set: Option<usize>,
}

/// The logical elements an SMFMAC's compressed element `c` (block, i, kc)
/// may be: the 4 k of its group.
pub fn candidates(c: Coord) -> Vec<Coord> {
    let g = c.col / Sparse::STORED;
    (0..Sparse::GROUP)
        .map(|p| Coord::new(c.block, c.row, Sparse::GROUP * g + p))
        .collect()
}

/// One index field, for JSON: whose positions it holds and whether it is read.
#[derive(Serialize)]
pub struct Field {
    /// Its index set.
    set: usize,
    /// Row of A.
    i: usize,
    /// Group of 4 logical k.
    g: usize,
    /// Its bits in the lane's index register, high then low.
    bits: [usize; 2],
    /// The logical A elements `[block, i, k]` whose stored values it places.
    a: Vec<[usize; 3]>,
    /// The compressed columns of A it gives positions to (first, second).
    kc: [usize; 2],
    /// Whether the instruction reads it under the modifiers.
    read: bool,
}

impl Field {
    /// The field in slot `s` of the index operand of `v`.
    pub fn of(v: &View, s: Slot) -> Self {
        let c = v.layout().coord(s);
        let lo = s.item * Sparse::FIELD_BITS as usize;
        Field {
            set: c.block,
            i: c.row,
            g: c.col,
            bits: [lo + Sparse::FIELD_BITS as usize - 1, lo],
            a: candidates(Coord::new(0, c.row, Sparse::STORED * c.col))
                .iter()
                .map(|x| [x.block, x.row, x.col])
                .collect(),
            kc: [Sparse::STORED * c.col, Sparse::STORED * c.col + 1],
            read: v.index_set() == Some(c.block),
        }
    }
}

/// The JSON document of `layout --format json`.
#[derive(Serialize)]
struct LayoutJson {
    #[serde(flatten)]
    header: Header,
    /// `lanes[lane][item]`: the `[block, row, col]` elements that slot feeds
    /// (an SMFMAC's A: the logical elements it may hold).
    lanes: Vec<Vec<Vec<[usize; 3]>>>,
    /// SMFMAC's A: the coordinates of `stored`.
    #[serde(skip_serializing_if = "Option::is_none")]
    stored_coords: Option<[&'static str; 3]>,
    /// SMFMAC's A: `stored[lane][item]` = `[block, i, kc]`, the compressed
    /// element the slot holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    stored: Option<Vec<Vec<[usize; 3]>>>,
    /// SMFMAC's index: `fields[lane][item]`, the field in that slot.
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<Vec<Vec<Field>>>,
}

/// `f(slot)` for every slot, as `[lane][item]`.
fn per_slot<T>(v: &View, f: impl Fn(Slot) -> T) -> Vec<Vec<T>> {
    let l = v.layout();
    (0..l.lanes)
        .map(|lane| (0..l.items).map(|item| f(Slot { lane, item })).collect())
        .collect()
}

fn json(v: &View) -> String {
    let l = v.layout();
    let lanes = per_slot(v, |s| {
        v.feeds(s)
            .into_iter()
            .map(|c| [c.block, c.row, c.col])
            .collect()
    });
    let stored = v.sparse_a().then(|| {
        per_slot(v, |s| {
            let c = l.coord(s);
            [c.block, c.row, c.col]
        })
    });
    text::json_line(&LayoutJson {
        header: v.header(),
        lanes,
        stored_coords: v.sparse_a().then(|| l.axis_names()),
        stored,
        fields: v.is_idx().then(|| per_slot(v, |s| Field::of(v, s))),
    })
}

fn csv(v: &View) -> String {
    let [blk, row, col] = v.operand.axis_names();
    if v.is_idx() {
        // One field a row, with its own (set, i, g) whether it is read or not.
        let mut out = format!("lane,item,{blk},{row},{col},bits,read\n");
        for s in v.slots() {
            let f = Field::of(v, s);
            out.push_str(&format!(
                "{},{},{},{},{},{}:{},{}\n",
                s.lane,
                s.item,
                f.set,
                f.i,
                f.g,
                f.bits[0],
                f.bits[1],
                u8::from(f.read)
            ));
        }
        return out;
    }
    let kc = if v.sparse_a() { ",kc" } else { "" };
    let mut out = format!("lane,item,{blk},{row},{col}{kc}\n");
    for s in v.slots() {
        let fed = v.feeds(s);
        let join = |f: fn(&Coord) -> usize| {
            fed.iter()
                .map(|c| f(c).to_string())
                .collect::<Vec<_>>()
                .join(";")
        };
        let kc = if v.sparse_a() {
            format!(",{}", v.layout().coord(s).col)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{},{},{},{},{}{kc}\n",
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
    let [blk_name, row, col] = l.axis_names();
    let what = if v.is_idx() {
        "index sets".to_string()
    } else {
        format!("{blk_name}(s)")
    };
    let compressed = if v.sparse_a() { " compressed" } else { "" };
    let item = if v.is_idx() {
        ", item t = bits 4t+3:4t of the lane's index VGPR"
    } else {
        ""
    };
    let mut out = format!(
        "{} operand {}: {} {what} of {} x {}{compressed} ({row} down, {col} across); cell = \
         lane:item{item}",
        v.name(),
        v.operand.name(),
        l.blocks,
        l.rows,
        l.cols
    );
    if v.routed() && !v.builtin.is_sparse() {
        out.push_str(&format!(" the element reads under {}", v.modifier_text()));
    }
    out.push('\n');
    for line in v.sparse_words().into_iter().chain(v.modifier_words()) {
        out.push_str(&line);
        out.push('\n');
    }
    let cell = |c: Coord| {
        let s = v.cell(c);
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
        let heading = if v.is_idx() {
            format!("{}: {}", v.set_text(blk), v.read_text(blk))
        } else {
            format!("block {blk}")
        };
        out.push_str(&format!("\n{heading}\n{corner:>label$}"));
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
