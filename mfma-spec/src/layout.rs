//! Register layouts described as data.
//!
//! Every CDNA2 operand layout is a product of power-of-two digit fields: each
//! [`Mode`] takes one digit of a matrix coordinate (block, row or column) and
//! places it as one digit of the lane or of the item index. From that single
//! description both directions of the map, the bijection tests, tables and
//! pictures are all derived (the same idea as CuTe's thread/value layouts).

use crate::{Message, Operand};

/// A matrix coordinate axis of an operand.
///
/// For A the axes are (block, i, k), for B (block, k, j), for C and D (block, i, j).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Which independent block of the instruction.
    Block,
    /// Matrix row (i for A, C and D; k for B).
    Row,
    /// Matrix column (k for A; j for B, C and D).
    Col,
}

/// Where a digit lands in the register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    /// The lane index (0..64).
    Lane,
    /// The element index inside one lane's registers.
    Item,
}

/// One digit field: `digit = (coord[axis] / axis_stride) % size`, placed at
/// `dest += digit * dest_stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mode {
    /// Matrix axis the digit is taken from.
    pub axis: Axis,
    /// Divisor applied to the coordinate before taking the digit.
    pub axis_stride: usize,
    /// Number of values the digit takes.
    pub size: usize,
    /// Register-side index the digit contributes to.
    pub dest: Dest,
    /// Multiplier of the digit in the register-side index.
    pub dest_stride: usize,
}

/// A (lane, item) position in a wave's registers.
///
/// `item` numbers the elements a lane holds for one operand: element `t` of
/// `s` bits sits in VGPR `t*s/32` at bit `t*s % 32` (for f64, item = VGPR pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot {
    /// Lane, 0..64.
    pub lane: usize,
    /// Element index inside that lane.
    pub item: usize,
}

/// A (block, row, col) position in an operand's matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// Block index.
    pub block: usize,
    /// Row (i for A/C/D, k for B).
    pub row: usize,
    /// Column (k for A, j for B/C/D).
    pub col: usize,
}

impl Coord {
    /// Shorthand constructor.
    pub const fn new(block: usize, row: usize, col: usize) -> Self {
        Coord { block, row, col }
    }

    /// `(row, col)` of block 0: the whole matrix of a 1-block builtin.
    ///
    /// ```
    /// use mfma_spec::Coord;
    /// assert_eq!(Coord::at(5, 7), Coord::new(0, 5, 7));
    /// ```
    pub const fn at(row: usize, col: usize) -> Self {
        Coord { block: 0, row, col }
    }
}

/// Most modes any CDNA layout needs (the 32x32 accumulator uses five).
pub const MAX_MODES: usize = 6;

const PAD: Mode = Mode {
    axis: Axis::Block,
    axis_stride: 1,
    size: 1,
    dest: Dest::Item,
    dest_stride: 0,
};

/// The layout of one operand of one builtin: a list of [`Mode`]s plus the
/// extents of both sides.
///
/// ```
/// use mfma_spec::{find, Coord, Slot};
/// let c = find("f32_32x32x8bf16_1k").unwrap().c;
/// // Row 5, column 7 of the accumulator sits in lane 39, register 1.
/// assert_eq!(c.slot(Coord::new(0, 5, 7)), Slot { lane: 39, item: 1 });
/// assert_eq!(c.coord(Slot { lane: 39, item: 1 }), Coord::new(0, 5, 7));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    modes: [Mode; MAX_MODES],
    len: usize,
    /// The operand it lays out (C for the accumulator, whose layout D shares).
    pub operand: Operand,
    /// The builtin's name, for messages.
    pub builtin: &'static str,
    /// Its architecture's name, for messages.
    pub arch: &'static str,
    /// Number of blocks.
    pub blocks: usize,
    /// Rows of one block's matrix.
    pub rows: usize,
    /// Columns of one block's matrix.
    pub cols: usize,
    /// Lanes in the wave (64).
    pub lanes: usize,
    /// Elements each lane holds.
    pub items: usize,
    /// Whether this is an SMFMAC A: its columns are compressed (kc, 0..K/2).
    compressed: bool,
}

impl Layout {
    /// Builds the layout of `operand` of builtin `arch::builtin` from its
    /// modes. Extents of the register side are derived: `lanes * items` must
    /// equal `blocks * rows * cols` (checked by the tests for every builtin,
    /// and by [`Layout::is_bijection`]).
    pub const fn from_modes(
        [arch, builtin]: [&'static str; 2],
        operand: Operand,
        modes: &[Mode],
        [blocks, rows, cols]: [usize; 3],
    ) -> Self {
        assert!(modes.len() <= MAX_MODES, "too many modes");
        let mut out = [PAD; MAX_MODES];
        let mut lanes = 1;
        let mut items = 1;
        let mut n = 0;
        while n < modes.len() {
            out[n] = modes[n];
            match modes[n].dest {
                Dest::Lane => lanes *= modes[n].size,
                Dest::Item => items *= modes[n].size,
            }
            n += 1;
        }
        Layout {
            modes: out,
            len: modes.len(),
            operand,
            builtin,
            arch,
            blocks,
            rows,
            cols,
            lanes,
            items,
            compressed: false,
        }
    }

    /// The same layout over compressed columns: an SMFMAC A, whose column
    /// `kc` is a stored value, not a logical k (messages and pictures say `kc`).
    pub const fn compressed(self) -> Self {
        Layout {
            compressed: true,
            ..self
        }
    }

    /// Whether the columns are an SMFMAC A's compressed ones (see [`compressed`](Layout::compressed)).
    pub const fn is_compressed(&self) -> bool {
        self.compressed
    }

    /// Names of the (block, row, col) axes: the operand's
    /// ([`Operand::axis_names`]), with `kc` for compressed columns.
    ///
    /// ```
    /// let x = mfma_spec::find("cdna3::smfmac_f32_16x16x32_f16").unwrap();
    /// assert_eq!(x.a.axis_names(), ["block", "i", "kc"]);
    /// assert_eq!(x.b.axis_names(), ["block", "k", "j"]);
    /// ```
    pub const fn axis_names(&self) -> [&'static str; 3] {
        let names = self.operand.axis_names();
        if self.compressed {
            [names[0], names[1], "kc"]
        } else {
            names
        }
    }

    /// The modes that define this layout.
    pub const fn modes(&self) -> &[Mode] {
        self.modes.split_at(self.len).0
    }

    /// Number of elements in all blocks (= `lanes * items`).
    pub const fn elements(&self) -> usize {
        self.blocks * self.rows * self.cols
    }

    /// (block, row, col) → (lane, item).
    ///
    /// # Panics
    /// If `c` lies outside the operand's matrices (in a `const`, a compile
    /// error), with a message naming the operand and the ranges.
    ///
    /// ```
    /// let c = mfma_spec::find("f32_32x32x8bf16_1k").unwrap().c;
    /// assert_eq!(c.slot(mfma_spec::Coord::at(5, 7)).lane, 39);
    /// assert!(std::panic::catch_unwind(|| c.slot(mfma_spec::Coord::at(5, 40))).is_err());
    /// ```
    pub const fn slot(&self, c: Coord) -> Slot {
        if !self.contains(c) {
            self.out_of_range(self.coord_error(c));
        }
        self.slot_unchecked(c)
    }

    /// [`slot`](Layout::slot), or `None` for a coordinate outside the matrices.
    pub const fn try_slot(&self, c: Coord) -> Option<Slot> {
        if self.contains(c) {
            Some(self.slot_unchecked(c))
        } else {
            None
        }
    }

    /// (lane, item) → (block, row, col).
    ///
    /// # Panics
    /// If the slot does not exist (lane ≥ 64 or item ≥ the lane's items; in
    /// a `const`, a compile error), with a message naming the operand and the ranges.
    pub const fn coord(&self, s: Slot) -> Coord {
        if !self.has_slot(s) {
            self.out_of_range(self.slot_error(s));
        }
        self.coord_unchecked(s)
    }

    /// [`coord`](Layout::coord), or `None` for a slot that does not exist.
    pub const fn try_coord(&self, s: Slot) -> Option<Coord> {
        if self.has_slot(s) {
            Some(self.coord_unchecked(s))
        } else {
            None
        }
    }

    /// Whether the slot exists: `lane < lanes` and `item < items`.
    pub const fn has_slot(&self, s: Slot) -> bool {
        s.lane < self.lanes && s.item < self.items
    }

    /// The panic of an out-of-range lookup. On the GPU the message is not
    /// built (a kernel has no room for it): the wave traps.
    #[track_caller]
    const fn out_of_range(&self, _message: Message) -> ! {
        #[cfg(target_arch = "amdgpu")]
        panic!("MFMA layout lookup out of range");
        #[cfg(not(target_arch = "amdgpu"))]
        panic!("{}", _message.as_str())
    }

    /// The message of an out-of-range coordinate: `coordinate (block 0, i 5,
    /// j 40) is out of range for operand c of f32_32x32x8bf16_1k: it needs
    /// block < 1, i < 32, j < 32`.
    pub const fn coord_error(&self, c: Coord) -> Message {
        let [blk, row, col] = self.axis_names();
        let m = Message::new()
            .str("coordinate (")
            .str(blk)
            .str(" ")
            .uint(c.block as u64)
            .str(", ")
            .str(row)
            .str(" ")
            .uint(c.row as u64)
            .str(", ")
            .str(col)
            .str(" ")
            .uint(c.col as u64)
            .str(") is out of range for ");
        self.what(m)
            .str(": it needs ")
            .str(blk)
            .str(" < ")
            .uint(self.blocks as u64)
            .str(", ")
            .str(row)
            .str(" < ")
            .uint(self.rows as u64)
            .str(", ")
            .str(col)
            .str(" < ")
            .uint(self.cols as u64)
    }

    /// The message of a slot that does not exist: `slot (lane 39, item 20)
    /// is out of range for operand c of ...: it needs lane < 64, item < 16`.
    pub const fn slot_error(&self, s: Slot) -> Message {
        let m = Message::new()
            .str("slot (lane ")
            .uint(s.lane as u64)
            .str(", item ")
            .uint(s.item as u64)
            .str(") is out of range for ");
        self.what(m)
            .str(": it needs lane < ")
            .uint(self.lanes as u64)
            .str(", item < ")
            .uint(self.items as u64)
    }

    /// `operand c of cdna3::f32_32x32x8f16`.
    const fn what(&self, m: Message) -> Message {
        let m = m.str("operand ").str(self.operand.name()).str(" of ");
        if crate::message::is_default_arch(self.arch) {
            m.str(self.builtin)
        } else {
            m.str(self.arch).str("::").str(self.builtin)
        }
    }

    /// [`slot`](Layout::slot) without the range check, for callers whose
    /// coordinates are in range by construction; out of range, the result
    /// is some slot (never undefined behaviour).
    #[doc(hidden)]
    pub const fn slot_unchecked(&self, c: Coord) -> Slot {
        let mut lane = 0;
        let mut item = 0;
        let mut n = 0;
        while n < self.len {
            let m = self.modes[n];
            let v = match m.axis {
                Axis::Block => c.block,
                Axis::Row => c.row,
                Axis::Col => c.col,
            };
            let digit = (v / m.axis_stride) % m.size;
            match m.dest {
                Dest::Lane => lane += digit * m.dest_stride,
                Dest::Item => item += digit * m.dest_stride,
            }
            n += 1;
        }
        Slot { lane, item }
    }

    /// [`coord`](Layout::coord) without the range check (see
    /// [`slot_unchecked`](Layout::slot_unchecked)).
    #[doc(hidden)]
    pub const fn coord_unchecked(&self, s: Slot) -> Coord {
        let mut c = Coord::new(0, 0, 0);
        let mut n = 0;
        while n < self.len {
            let m = self.modes[n];
            let v = match m.dest {
                Dest::Lane => s.lane,
                Dest::Item => s.item,
            };
            let digit = (v / m.dest_stride) % m.size;
            match m.axis {
                Axis::Block => c.block += digit * m.axis_stride,
                Axis::Row => c.row += digit * m.axis_stride,
                Axis::Col => c.col += digit * m.axis_stride,
            }
            n += 1;
        }
        c
    }

    /// Row-major index of a coordinate in `[block][row][col]` order.
    pub const fn linear(&self, c: Coord) -> usize {
        (c.block * self.rows + c.row) * self.cols + c.col
    }

    /// Inverse of [`Layout::linear`].
    pub const fn delinear(&self, index: usize) -> Coord {
        Coord::new(
            index / (self.rows * self.cols),
            (index / self.cols) % self.rows,
            index % self.cols,
        )
    }

    /// Whether `c` lies inside the operand's matrices.
    pub const fn contains(&self, c: Coord) -> bool {
        c.block < self.blocks && c.row < self.rows && c.col < self.cols
    }

    /// Checks, by walking every element, that the two maps are inverse
    /// bijections between the `lanes x items` slots and the elements.
    pub const fn is_bijection(&self) -> bool {
        if self.lanes * self.items != self.elements() {
            return false;
        }
        let mut idx = 0;
        while idx < self.elements() {
            let c = self.delinear(idx);
            let s = self.slot_unchecked(c);
            if !self.has_slot(s) {
                return false;
            }
            let back = self.coord_unchecked(s);
            if back.block != c.block || back.row != c.row || back.col != c.col {
                return false;
            }
            idx += 1;
        }
        true
    }

    /// The A or B layout shared by every dense CDNA builtin (reference 2.1
    /// of both architectures): `lane = r + R*b + R*blocks*(k / E)`,
    /// `item = k % E`, where `r` is the row of A or the column of B, `R` its
    /// extent, `G = 64 / (R*blocks)` the lane groups that split K, and
    /// `E = K / G` the items per lane.
    pub const fn input(
        names: [&'static str; 2],
        operand: Operand,
        r_extent: usize,
        k: usize,
        blocks: usize,
    ) -> Self {
        let groups = 64 / (r_extent * blocks);
        let per_lane = k / groups;
        let (r_axis, k_axis, rows, cols) = if matches!(operand, Operand::B) {
            (Axis::Col, Axis::Row, k, r_extent)
        } else {
            (Axis::Row, Axis::Col, r_extent, k)
        };
        Layout::from_modes(
            names,
            operand,
            &[
                mode(r_axis, 1, r_extent, Dest::Lane, 1),
                mode(Axis::Block, 1, blocks, Dest::Lane, r_extent),
                mode(k_axis, per_lane, groups, Dest::Lane, r_extent * blocks),
                mode(k_axis, 1, per_lane, Dest::Item, 1),
            ],
            [blocks, rows, cols],
        )
    }
}

/// Shorthand for a [`Mode`] literal.
pub const fn mode(
    axis: Axis,
    axis_stride: usize,
    size: usize,
    dest: Dest,
    dest_stride: usize,
) -> Mode {
    Mode {
        axis,
        axis_stride,
        size,
        dest,
        dest_stride,
    }
}

/// The accumulator (C and D) layout families of CDNA2 and CDNA3 (reference 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccLayout {
    /// 32x32, 1 or 2 blocks: item `16b + 4(i/8) + i%4`, lane `j + 32((i/4)%2)`.
    Rows32,
    /// 16x16, 1 or 4 blocks: item `4b + i%4`, lane `j + 16(i/4)`.
    Rows16,
    /// 4x4, 16 blocks: item `i`, lane `j + 4b`.
    Blocks4x4,
    /// f64 16x16: item `i/4`, lane `j + 16(i%4)`.
    F64Rows16,
    /// f64 4x4, 4 blocks: item 0, lane `j + 4b + 16i`.
    F64Blocks4x4,
}

impl AccLayout {
    /// The layout of C/D for an `m x n` accumulator with `blocks` blocks.
    pub const fn layout(
        self,
        names: [&'static str; 2],
        m: usize,
        n: usize,
        blocks: usize,
    ) -> Layout {
        use Axis::{Block, Col, Row};
        use Dest::{Item, Lane};
        let modes: &[Mode] = match self {
            AccLayout::Rows32 => &[
                mode(Col, 1, 32, Lane, 1),
                mode(Row, 4, 2, Lane, 32),
                mode(Row, 1, 4, Item, 1),
                mode(Row, 8, 4, Item, 4),
                mode(Block, 1, 2, Item, 16),
            ],
            AccLayout::Rows16 => &[
                mode(Col, 1, 16, Lane, 1),
                mode(Row, 4, 4, Lane, 16),
                mode(Row, 1, 4, Item, 1),
                mode(Block, 1, 4, Item, 4),
            ],
            AccLayout::Blocks4x4 => &[
                mode(Col, 1, 4, Lane, 1),
                mode(Block, 1, 16, Lane, 4),
                mode(Row, 1, 4, Item, 1),
            ],
            AccLayout::F64Rows16 => &[
                mode(Col, 1, 16, Lane, 1),
                mode(Row, 1, 4, Lane, 16),
                mode(Row, 4, 4, Item, 1),
            ],
            AccLayout::F64Blocks4x4 => &[
                mode(Col, 1, 4, Lane, 1),
                mode(Block, 1, 4, Lane, 4),
                mode(Row, 1, 4, Lane, 16),
            ],
        };
        let mut l = Layout::from_modes(names, Operand::C, modes, [blocks, m, n]);
        // The block digit is written for the widest case; a builtin with
        // fewer blocks keeps only as many block values as it has.
        let mut i = 0;
        while i < l.len {
            if matches!(l.modes[i].axis, Axis::Block) && l.modes[i].size > blocks {
                match l.modes[i].dest {
                    Dest::Lane => l.lanes = l.lanes / l.modes[i].size * blocks,
                    Dest::Item => l.items = l.items / l.modes[i].size * blocks,
                }
                l.modes[i].size = blocks;
            }
            i += 1;
        }
        l
    }
}
