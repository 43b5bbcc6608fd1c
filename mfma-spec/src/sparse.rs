//! Structured sparsity: what SMFMAC adds to a dense instruction (CDNA3
//! reference 1.2, 2.1, 2.2 and 3.4).

use crate::{Builtin, Layout, Modifiers};

/// What makes an SMFMAC instruction structured-sparse.
///
/// A is 4:2 sparse: of every group of 4 consecutive logical k of a row, 2
/// values are stored. The A operand holds the compressed `M × K/2` matrix:
/// compressed columns `2g` and `2g + 1` hold the two values of group `g`
/// (logical k `4g..4g+4`), and [`Builtin::a`] lays it out with the dense input
/// formula, K/2 in place of K. The index operand, one 32-bit register per
/// lane, says where in its group each stored value lies: a 4-bit field per
/// (row, group), the first value's position (0..=3) in bits 0..2 and the
/// second's in bits 2..4.
///
/// The register holds [`sets`](Sparse::sets) index sets side by side (4 of
/// 8 bits for 16-bit inputs, 2 of 16 bits for 8-bit inputs); the
/// instruction reads set `abid` when cbsz is 0 and set 0 otherwise
/// ([`index_set`](Sparse::index_set)). [`idx`](Sparse::idx) lays out every
/// set: coordinates (set, i, g), item t is the field at bits `4t..4t+4`.
///
/// ```
/// use mfma_spec::{find, Coord, Slot};
/// let x = find("cdna3::smfmac_f32_16x16x32_f16").unwrap();
/// let s = x.sparse.unwrap();
/// assert_eq!(s.sets, 4);
/// // The index of A[2][28..32] (group 7): lane 50, bits 7:4 in set 0 ...
/// assert_eq!(s.idx.slot(Coord::new(0, 2, 7)), Slot { lane: 50, item: 1 });
/// // ... and bits 31:28 in set 3.
/// assert_eq!(s.idx.slot(Coord::new(3, 2, 7)), Slot { lane: 50, item: 7 });
/// // Its stored values: compressed columns 14 and 15, in the same lane.
/// assert_eq!(x.a.slot(Coord::at(2, 14)).lane, 50);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sparse {
    /// Index sets in the index register: 4 for 16-bit inputs, 2 for 8-bit.
    pub sets: usize,
    /// Layout of the index operand: (set, i, g) ↔ (lane, 4-bit field).
    pub idx: Layout,
}

impl Sparse {
    /// Logical k in one group.
    pub const GROUP: usize = 4;
    /// Values stored per group.
    pub const STORED: usize = 2;
    /// Bits of one index field (two 2-bit positions).
    pub const FIELD_BITS: u32 = 4;
    /// Largest legal cbsz on SMFMAC (the calculator: "CBSZ\[2\] is undefined").
    pub const CBSZ_MAX: u32 = 3;

    /// The index set the instruction reads with modifiers `m`: `abid` when
    /// cbsz is 0, set 0 otherwise.
    ///
    /// ```
    /// use mfma_spec::{find, Modifiers};
    /// let s = find("cdna3::smfmac_f32_32x32x16_bf16").unwrap().sparse.unwrap();
    /// assert_eq!(s.index_set(Modifiers::new(0, 3, 0)), 3);
    /// assert_eq!(s.index_set(Modifiers::new(2, 3, 0)), 0);
    /// ```
    pub const fn index_set(&self, m: Modifiers) -> usize {
        if m.cbsz == 0 {
            m.abid as usize
        } else {
            0
        }
    }

    /// Bits of one index set in the register: 8 or 16.
    pub const fn set_bits(&self) -> u32 {
        32 / self.sets as u32
    }

    /// Fields of one set in a lane: 2 for 16-bit inputs, 4 for 8-bit.
    pub const fn fields_per_set(&self) -> usize {
        self.idx.items / self.sets
    }
}

impl Builtin {
    /// The logical k of compressed column `kc` when its value sits at
    /// `position` (0..=3) of its group: `4·⌊kc/2⌋ + position`.
    ///
    /// ```
    /// assert_eq!(mfma_spec::Builtin::logical_k(5, 3), 11);
    /// ```
    pub const fn logical_k(kc: usize, position: usize) -> usize {
        Sparse::GROUP * (kc / Sparse::STORED) + position
    }
}

impl Layout {
    /// The layout of an SMFMAC index operand: rows `m`, one column per group
    /// of 4 logical k (`groups` of them), `sets` index sets. Each set is laid
    /// out as a one-block input with `groups` columns (a field shares its
    /// lane with the A values it indexes); set `s` occupies the fields after
    /// those of sets `0..s` (reference 2.2).
    pub const fn index(names: [&'static str; 2], m: usize, groups: usize, sets: usize) -> Self {
        let one = Layout::input(names, crate::Operand::Idx, m, groups, 1);
        let mut modes =
            [crate::layout::mode(crate::Axis::Block, 1, 1, crate::Dest::Item, 0); crate::MAX_MODES];
        let base = one.modes();
        let mut n = 0;
        while n < base.len() {
            modes[n] = base[n];
            n += 1;
        }
        modes[n] = crate::layout::mode(crate::Axis::Block, 1, sets, crate::Dest::Item, one.items);
        let (modes, _) = modes.split_at(n + 1);
        Layout::from_modes(names, crate::Operand::Idx, modes, [sets, m, groups])
    }
}

impl Builtin {
    /// SMFMAC: the dense instruction of the same architecture, shape M×N,
    /// element types and arithmetic with half the K (`smfmac_f32_16x16x32_f16`
    /// → `f32_16x16x16f16`). The software path computes an SMFMAC as two of
    /// them chained along the logical K, on the decompressed A: the stated
    /// assumption of CDNA3 reference section 6, which no hardware source
    /// confirms. `None` for a dense builtin.
    ///
    /// ```
    /// let x = mfma_spec::find("cdna3::smfmac_f32_32x32x32_fp8_bf8").unwrap();
    /// assert_eq!(x.dense_twin().unwrap().name, "f32_32x32x16_fp8_bf8");
    /// ```
    pub const fn dense_twin(&self) -> Option<&'static Builtin> {
        if self.sparse.is_none() {
            return None;
        }
        let table = crate::arch_of(self).builtins;
        let mut i = 0;
        while i < table.len() {
            let d = &table[i];
            if d.sparse.is_none()
                && d.blocks == 1
                && d.m == self.m
                && d.n == self.n
                && d.k * 2 == self.k
                && d.a_type as u8 == self.a_type as u8
                && d.b_type as u8 == self.b_type as u8
                && d.cd as u8 == self.cd as u8
            {
                return Some(d);
            }
            i += 1;
        }
        None
    }
}
