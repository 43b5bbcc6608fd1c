//! Structured sparsity (CDNA3's SMFMAC): compressed A fragments, index
//! fragments, and their execution.
//!
//! An SMFMAC builtin computes `D = A·B + C` with a logical `M × K` A that is
//! 4:2 sparse: of every group of 4 consecutive k of a row, at most 2 values
//! are nonzero. Its [`FragA`] holds the `M × K/2` stored values (compressed
//! column `kc` belongs to group `kc / 2`), and its [`FragIdx`] the
//! [`Positions`] of the two values of each group, for up to 4 index sets
//! (the instruction reads set `abid` when cbsz is 0, set 0 otherwise).
//!
//! ```
//! use mfma_core::{execute, execute_sparse, mfma, Acc, FragA, FragB};
//! type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);
//! type D = mfma!(cdna3::f32_16x16x16f16); // the dense instruction of half the K
//! // A logical 16 x 32 A, 4:2 sparse: in each group of 4 k, k 1 and 3 are nonzero.
//! let logical = |i: usize, k: usize| half::f16::from_f32(if k % 2 == 1 { (i + k) as f32 } else { 0.0 });
//! let (a, idx) = FragA::<S>::compress(logical).unwrap();
//! let b = FragB::<S>::from_fn(|_, k, j| half::f16::from_f32((k * j % 5) as f32));
//! let d = execute_sparse::<S, 0, 0>(a, b, Acc::<S>::zero(), &idx);
//! // The same product through the dense instruction, twice along K.
//! let mut dense = Acc::<D>::zero();
//! for h in 0..2 {
//!     let a = FragA::<D>::from_fn(|_, i, k| logical(i, 16 * h + k));
//!     let b = FragB::<D>::from_fn(|_, k, j| half::f16::from_f32(((16 * h + k) * j % 5) as f32));
//!     dense = execute::<D, 0, 0, 0>(a, b, dense);
//! }
//! assert_eq!(d.as_row_major(), dense.as_row_major());
//! ```
//!
//! # What the software path assumes
//!
//! No bit-accurate description of SMFMAC arithmetic exists (CDNA3
//! reference, section 6). The software path implements the stated
//! assumption: the result is what the dense CDNA3 instruction of the same
//! types and half the K ([`SparseInstr::Dense`]) computes when chained twice
//! along the logical K, on the decompressed A (stored values at their
//! positions, +0 elsewhere). The test vectors of `cdna3-smfmac.json` encode
//! the same assumption. Two values given the same position, which no
//! constructor here makes, have no defined meaning: the software path
//! refuses them.

use crate::element::Element;
use crate::fragment::{Acc, FragA, FragB, Fragment, Operand};
use crate::instr::{Instr, SparseInstr};
use crate::matrix::Matrix;
use core::fmt;
use mfma_spec::{Builtin, Sparse};

/// The 4-bit field an SMFMAC index register holds for one group of 4
/// logical k of one row of A: the positions (0..=3) in the group of the two
/// values stored for it, the first in bits 0..2, the second in bits 2..4.
///
/// The positions of a valid field differ. Fields built here are valid;
/// [`from_bits`](Positions::from_bits) takes any 4 bits. The default (and the
/// [`Element::ZERO`] of the type, since an index has no zero) is `(0, 1)`:
/// the group's first two k.
///
/// ```
/// use mfma_core::Positions;
/// let p = Positions::new(1, 3);
/// assert_eq!((p.first(), p.second(), p.to_bits()), (1, 3, 0b11_01));
/// assert_eq!(Positions::default(), Positions::new(0, 1));
/// assert!(Positions::try_new(2, 2).is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Positions(u8);

impl Positions {
    /// The group's first two k: `(0, 1)`.
    pub const DEFAULT: Positions = Positions(0b01_00);

    /// The field of values at positions `first` and `second` of their group.
    ///
    /// # Panics
    /// If a position is above 3 or the two are equal.
    #[track_caller]
    pub const fn new(first: u8, second: u8) -> Self {
        match Self::try_new(first, second) {
            Some(p) => p,
            None => panic!("index positions must be two different values in 0..=3"),
        }
    }

    /// [`new`](Positions::new), or `None` for positions above 3 or equal.
    pub const fn try_new(first: u8, second: u8) -> Option<Self> {
        if first < 4 && second < 4 && first != second {
            Some(Positions(first | second << 2))
        } else {
            None
        }
    }

    /// From the field's 4 bits (higher bits are ignored); the positions may
    /// be equal.
    pub const fn from_bits(bits: u8) -> Self {
        Positions(bits & 0xf)
    }

    /// The field's 4 bits.
    pub const fn to_bits(self) -> u8 {
        self.0
    }

    /// Position of the first stored value (compressed column `2g`).
    pub const fn first(self) -> usize {
        (self.0 & 3) as usize
    }

    /// Position of the second stored value (compressed column `2g + 1`).
    pub const fn second(self) -> usize {
        (self.0 >> 2 & 3) as usize
    }

    /// Position of stored value `s` (0 or 1) of the group.
    pub const fn of(self, s: usize) -> usize {
        if s == 0 {
            self.first()
        } else {
            self.second()
        }
    }
}

impl Default for Positions {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Debug for Positions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Positions({}, {})", self.first(), self.second())
    }
}

impl Element for Positions {
    const TYPE: mfma_spec::ElemType = mfma_spec::ElemType::Idx;
    const ZERO: Self = Positions::DEFAULT;
    #[inline]
    fn to_bits_u64(self) -> u64 {
        u64::from(self.0)
    }
    #[inline]
    fn from_bits_u64(bits: u64) -> Self {
        Positions::from_bits(bits as u8)
    }
}

/// Marker for the index operand of an SMFMAC builtin (coordinates (set, i,
/// g): the field of row i's group g in index set `set`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Idx;

impl Operand for Idx {
    const OPERAND: mfma_spec::Operand = mfma_spec::Operand::Idx;
    type Elem<X: Instr> = Positions;
    type Regs<X: Instr> = X::IdxRegs;
}

/// The index fragment of SMFMAC builtin `X`: one 32-bit register per lane,
/// a [`Positions`] field per (set, row, group). On the host it holds every
/// field in matrix order `[set][i][g]`; on the GPU the lane's 8 fields.
///
/// ```
/// use mfma_core::{mfma, FragIdx, Positions};
/// type S = mfma!(cdna3::smfmac_f32_16x16x32_f16); // 4 sets, 16 rows, 8 groups
/// let idx = FragIdx::<S>::from_fn(|set, i, g| Positions::new(0, 1 + ((set + i + g) % 3) as u8));
/// // A[2][28..32] is group 7 of row 2: lane 50, bits 7:4 of set 0, 31:28 of set 3.
/// assert_eq!(S::IDX.slot(mfma_core::Coord::new(3, 2, 7)).item, 7);
/// assert_eq!(idx.get(3, 2, 7), Positions::new(0, 1 + (12 % 3) as u8));
/// assert_eq!(idx.register(50) >> 28, u32::from(idx.get(3, 2, 7).to_bits()));
/// ```
pub type FragIdx<X> = Fragment<X, Idx>;

/// Why a logical A, or a list of positions, does not make a valid 4:2
/// sparse operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparsityError {
    /// A group of 4 logical k of a row holds more than 2 nonzero values.
    TooDense {
        /// The builtin.
        builtin: &'static Builtin,
        /// Row of A.
        row: usize,
        /// Group: logical k `4·group..4·group + 4`.
        group: usize,
        /// Which of the group's 4 k hold a nonzero value.
        nonzero: [bool; 4],
    },
    /// A position outside 0..=3.
    PositionOutOfRange {
        /// The builtin.
        builtin: &'static Builtin,
        /// Row of A.
        row: usize,
        /// Compressed column.
        kc: usize,
        /// The position given.
        position: u8,
    },
    /// Both values of a group at the same position.
    SamePosition {
        /// The builtin.
        builtin: &'static Builtin,
        /// Row of A.
        row: usize,
        /// Group.
        group: usize,
        /// The position given twice.
        position: u8,
    },
}

impl fmt::Display for SparsityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SparsityError::TooDense {
                builtin,
                row,
                group,
                nonzero,
            } => {
                let count = nonzero.iter().filter(|&&x| x).count();
                write!(
                    f,
                    "row {row}, group {group} (k {}..{}) of the A of {} holds {count} nonzero \
                     values (at k",
                    4 * group,
                    4 * group + 4,
                    builtin.path()
                )?;
                let ks = (0..4).filter(|&p| nonzero[p]).map(|p| 4 * group + p);
                for (n, k) in ks.enumerate() {
                    write!(f, "{}{k}", if n == 0 { " " } else { ", " })?;
                }
                write!(
                    f,
                    "): 4:2 structured sparsity stores at most 2 of every 4 consecutive k"
                )
            }
            SparsityError::PositionOutOfRange {
                builtin,
                row,
                kc,
                position,
            } => write!(
                f,
                "position {position} of A[{row}][kc {kc}] of {} is out of range: a stored value's \
                 place in its group of 4 logical k is 0..=3",
                builtin.path()
            ),
            SparsityError::SamePosition {
                builtin,
                row,
                group,
                position,
            } => write!(
                f,
                "both values stored for row {row}, group {group} of the A of {} have position \
                 {position}: they must lie at two different k of the group",
                builtin.path()
            ),
        }
    }
}

#[cfg(not(target_arch = "amdgpu"))]
impl std::error::Error for SparsityError {}

/// Where the (at most 2) nonzero values of a group lie, as positions: the
/// nonzero ones, completed by the lowest free positions, ascending.
fn group_positions<T: Element>(values: [T; 4]) -> Result<Positions, [bool; 4]> {
    let nonzero = values.map(|v| v.to_bits_u64() != 0);
    let mut chosen = [0u8; 2];
    let mut n = 0;
    for (p, &nz) in nonzero.iter().enumerate() {
        if nz {
            if n == 2 {
                return Err(nonzero);
            }
            chosen[n] = p as u8;
            n += 1;
        }
    }
    // Fill with the lowest positions not taken, then order.
    let mut p = 0u8;
    while n < 2 {
        if !(n == 1 && chosen[0] == p) {
            chosen[n] = p;
            n += 1;
        }
        p += 1;
    }
    let (lo, hi) = (chosen[0].min(chosen[1]), chosen[0].max(chosen[1]));
    Ok(Positions::new(lo, hi))
}

impl<X: SparseInstr> FragA<X> {
    /// Compresses a logical `M × K` A, given as a function of (i, k), into
    /// the stored values and their index (every index set the same).
    ///
    /// A value is zero when its bits are all 0 (`-0.0` is kept, as any other
    /// value). A group with fewer than 2 nonzero values stores zeros at the
    /// lowest free positions: a group `[0, x, 0, 0]` stores `(0, x)` at
    /// positions `(0, 1)`, `[0, 0, 0, x]` stores `(0, x)` at `(0, 3)`.
    /// Decompressing gives the logical A back, bit for bit.
    ///
    /// # Errors
    /// [`SparsityError::TooDense`], naming the row and group, when a group of 4
    /// holds more than 2 nonzero values. On the GPU only the calling lane's
    /// groups are looked at.
    ///
    /// ```
    /// use mfma_core::{mfma, FragA, Fp8};
    /// type S = mfma!(cdna3::smfmac_f32_16x16x64_fp8_fp8);
    /// let dense = |i: usize, k: usize| if k == 4 * i % 64 + (i % 3) { Fp8::ONE } else { Fp8::ZERO };
    /// let (a, idx) = FragA::<S>::compress(dense).unwrap();
    /// assert_eq!(a.logical(&idx, 0, 5, 22), Fp8::ONE); // k = 20 + 5 % 3
    /// let err = FragA::<S>::compress(|i, k| if i == 3 && k < 3 { Fp8::ONE } else { Fp8::ZERO });
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "row 3, group 0 (k 0..4) of the A of cdna3::smfmac_f32_16x16x64_fp8_fp8 holds 3 \
    ///      nonzero values (at k 0, 1, 2): 4:2 structured sparsity stores at most 2 of every 4 \
    ///      consecutive k"
    /// );
    /// ```
    pub fn compress(
        mut logical: impl FnMut(usize, usize) -> X::In,
    ) -> Result<(Self, FragIdx<X>), SparsityError> {
        let mut err = None;
        let mut positions = |i: usize, g: usize| {
            let group = core::array::from_fn(|p| logical(i, Sparse::GROUP * g + p));
            let found = group_positions(group);
            (found.unwrap_or(Positions::DEFAULT), group, found.err())
        };
        let idx = FragIdx::<X>::from_fn(|_set, i, g| {
            let (p, _, bad) = positions(i, g);
            if let (Some(nonzero), None) = (bad, &err) {
                err = Some(SparsityError::TooDense {
                    builtin: X::SPEC,
                    row: i,
                    group: g,
                    nonzero,
                });
            }
            p
        });
        if let Some(e) = err {
            return Err(e);
        }
        let a = Self::from_fn(|_, i, kc| {
            let (p, group, _) = positions(i, kc / Sparse::STORED);
            group[p.of(kc % Sparse::STORED)]
        });
        Ok((a, idx))
    }

    /// [`compress`](FragA::compress) of the logical `M × K` tile of `m` whose
    /// top-left element is `(row, col)`; elements past the edges of `m` are
    /// zero (as [`Fragment::load`] reads them).
    ///
    /// # Errors
    /// As [`compress`](FragA::compress).
    ///
    /// ```
    /// use mfma_core::{mfma, FragA, Matrix};
    /// type S = mfma!(cdna3::smfmac_i32_16x16x64_i8);
    /// let data: Vec<i8> = (0..20 * 70).map(|x| if x % 4 == 2 { (x % 100) as i8 } else { 0 }).collect();
    /// let m = Matrix::row_major(&data, 20, 70);
    /// let (a, idx) = FragA::<S>::compress_tile(m, 4, 8).unwrap();
    /// assert_eq!(a.logical(&idx, 0, 1, 2), *m.get(5, 10).unwrap());
    /// ```
    pub fn compress_tile(
        m: Matrix<'_, X::In>,
        row: usize,
        col: usize,
    ) -> Result<(Self, FragIdx<X>), SparsityError> {
        Self::compress(|i, k| m.get(row + i, col + k).copied().unwrap_or(X::In::ZERO))
    }
}

impl<X: SparseInstr> FragIdx<X> {
    /// The index of stored values given their positions: `position(i, kc)`
    /// is where compressed column `kc` of row `i` lies in its group of 4
    /// logical k (0..=3), the form of the test vectors' `IDX`. Every index
    /// set gets the same positions.
    ///
    /// # Errors
    /// A position above 3, or both values of a group at the same position.
    ///
    /// ```
    /// use mfma_core::{mfma, FragIdx, Positions};
    /// type S = mfma!(cdna3::smfmac_f32_32x32x16_bf16);
    /// let idx = FragIdx::<S>::from_positions(|_, kc| if kc % 2 == 0 { 1 } else { 3 }).unwrap();
    /// assert_eq!(idx.get(2, 5, 3), Positions::new(1, 3));
    /// assert!(FragIdx::<S>::from_positions(|_, _| 2).is_err());
    /// ```
    pub fn from_positions(
        mut position: impl FnMut(usize, usize) -> u8,
    ) -> Result<Self, SparsityError> {
        let mut err = None;
        let idx = Self::from_fn(|_set, i, g| {
            let kc = Sparse::STORED * g;
            let (p0, p1) = (position(i, kc), position(i, kc + 1));
            let bad = if p0 > 3 || p1 > 3 {
                Some(SparsityError::PositionOutOfRange {
                    builtin: X::SPEC,
                    row: i,
                    kc: if p0 > 3 { kc } else { kc + 1 },
                    position: p0.max(p1),
                })
            } else if p0 == p1 {
                Some(SparsityError::SamePosition {
                    builtin: X::SPEC,
                    row: i,
                    group: g,
                    position: p0,
                })
            } else {
                None
            };
            if err.is_none() {
                err = bad;
            }
            Positions::try_new(p0, p1).unwrap_or_default()
        });
        match err {
            Some(e) => Err(e),
            None => Ok(idx),
        }
    }
}

/// **Host only**: reading the whole wave's index and A.
#[cfg(not(target_arch = "amdgpu"))]
impl<X: SparseInstr> FragIdx<X> {
    /// The logical k of compressed column `kc` of row `i` in index set `set`.
    ///
    /// ```
    /// use mfma_core::{mfma, FragIdx, Positions};
    /// type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);
    /// let idx = FragIdx::<S>::from_fn(|_, _, _| Positions::new(1, 2));
    /// assert_eq!((idx.k_of(0, 0, 6), idx.k_of(0, 0, 7)), (13, 14));
    /// ```
    ///
    /// # Panics
    /// If (set, i, kc) is out of range.
    #[track_caller]
    pub fn k_of(&self, set: usize, i: usize, kc: usize) -> usize {
        let g = kc / Sparse::STORED;
        Builtin::logical_k(kc, self.get(set, i, g).of(kc % Sparse::STORED))
    }

    /// The 32-bit index register of lane `lane`, as the instruction reads it.
    ///
    /// # Panics
    /// If `lane` is not below 64.
    #[track_caller]
    pub fn register(&self, lane: usize) -> u32 {
        self.lane(lane).enumerate().fold(0, |r, (t, p)| {
            r | u32::from(p.to_bits()) << (Sparse::FIELD_BITS as usize * t)
        })
    }
}

#[cfg(not(target_arch = "amdgpu"))]
impl<X: SparseInstr> FragA<X> {
    /// Element (i, k) of the logical A that these stored values and index
    /// set `set` of `idx` describe: the stored value placed at k, or zero.
    ///
    /// # Panics
    /// If (i, k) or the set is out of range, or the group's two positions
    /// are equal.
    #[track_caller]
    pub fn logical(&self, idx: &FragIdx<X>, set: usize, i: usize, k: usize) -> X::In {
        let (g, p) = (k / Sparse::GROUP, k % Sparse::GROUP);
        assert!(
            k < X::SPEC.k,
            "k {k} is out of range for the logical A of {}: it needs k < {}",
            X::SPEC.path(),
            X::SPEC.k
        );
        let pos = valid(idx.get(set, i, g), i, g);
        (0..Sparse::STORED)
            .find(|&s| pos.of(s) == p)
            .map_or(X::In::ZERO, |s| self.get(0, i, Sparse::STORED * g + s))
    }
}

/// `p`, refused when its two positions are equal (no defined meaning).
#[cfg(not(target_arch = "amdgpu"))]
#[track_caller]
fn valid(p: Positions, row: usize, group: usize) -> Positions {
    assert!(
        p.first() != p.second(),
        "the index field of row {row}, group {group} gives both stored values position {}: \
         what the hardware does then is not known, and the software path does not guess",
        p.first()
    );
    p
}

/// Runs SMFMAC builtin `X`: `D = A·B + C` with A the logical matrix that
/// `a` and index set `CBSZ == 0 ? ABID : 0` of `idx` describe. This is what
/// `mfma!(cdna3::smfmac_...(a, b, c, idx, cbsz = .., abid = ..))` expands to.
///
/// `CBSZ` must be at most 3 and `ABID` below the number of index sets
/// (checked at compile time). The software path's arithmetic is an
/// assumption: see [the module](crate::sparse).
///
/// ```
/// use mfma_core::{execute_sparse, mfma, Acc, FragA, FragB, FragIdx, Positions};
/// type S = mfma!(cdna3::smfmac_i32_16x16x64_i8);
/// let a = FragA::<S>::from_fn(|_, i, kc| (i + kc) as i8);
/// // Set 0: values at k 0 and 1 of each group; set 1: at k 2 and 3.
/// let idx = FragIdx::<S>::from_fn(|set, _, _| if set == 0 { Positions::new(0, 1) } else { Positions::new(2, 3) });
/// let b = FragB::<S>::from_fn(|_, k, _| if k % 4 < 2 { 1 } else { 100 });
/// let d0 = execute_sparse::<S, 0, 0>(a, b, Acc::<S>::zero(), &idx);
/// let d1 = execute_sparse::<S, 0, 1>(a, b, Acc::<S>::zero(), &idx);
/// assert_eq!(d1.at(3, 0), 100 * d0.at(3, 0));
/// ```
#[inline]
pub fn execute_sparse<X: SparseInstr, const CBSZ: i32, const ABID: i32>(
    a: FragA<X>,
    b: FragB<X>,
    c: Acc<X>,
    idx: &FragIdx<X>,
) -> Acc<X> {
    let mut d = c;
    execute_sparse_into::<X, CBSZ, ABID>(&a, &b, &mut d, idx);
    d
}

/// [`execute_sparse`] in place: `c = A·B + c`.
#[inline]
pub fn execute_sparse_into<X: SparseInstr, const CBSZ: i32, const ABID: i32>(
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
    idx: &FragIdx<X>,
) {
    const { crate::exec::assert_legal(X::SPEC, CBSZ, ABID, 0) };
    execute_sparse_into_prechecked::<X, CBSZ, ABID>(a, b, c, idx);
}

/// [`execute_sparse_into`] whose caller has checked the immediates.
#[doc(hidden)]
#[inline]
pub fn execute_sparse_into_prechecked<X: SparseInstr, const CBSZ: i32, const ABID: i32>(
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
    idx: &FragIdx<X>,
) {
    #[cfg(not(target_arch = "amdgpu"))]
    soft::run::<X>(
        index_set::<X, CBSZ, ABID>(),
        core::slice::from_ref(a),
        core::slice::from_ref(b),
        c,
        core::slice::from_ref(idx),
    );
    #[cfg(target_arch = "amdgpu")]
    {
        let r = idx.regs().as_ref();
        let mut reg = 0u32;
        for (t, p) in r.iter().enumerate() {
            reg |= u32::from(p.to_bits()) << (Sparse::FIELD_BITS as usize * t);
        }
        // SAFETY: modifiers are validated; fragments hold this lane's registers.
        let d =
            unsafe { X::device_sparse::<CBSZ, ABID>(*a.regs(), *b.regs(), *c.regs(), reg as i32) };
        *c = Acc::<X>::from_regs(d);
    }
}

/// A chain of SMFMAC instructions on one accumulator:
/// `for t { execute_sparse_into(&a[t], &b[t], c, &idx[t]) }`, as
/// [`execute_chain_into`](crate::execute_chain_into) is for dense ones: on
/// the host the chain keeps C in registers.
///
/// ```
/// use mfma_core::{execute_sparse_chain_into, execute_sparse_into, mfma, Acc, FragA, FragB, FragIdx};
/// type S = mfma!(cdna3::smfmac_f32_32x32x16_bf16);
/// let v = |x: usize| half::bf16::from_f32((x % 7) as f32 - 3.0);
/// let a: Vec<_> = (0..3).map(|t| FragA::<S>::from_fn(|_, i, kc| v(i + kc + t))).collect();
/// let b: Vec<_> = (0..3).map(|t| FragB::<S>::from_fn(|_, k, j| v(k * j + t))).collect();
/// let idx: Vec<_> = (0..3).map(|t| FragIdx::<S>::from_positions(|i, kc| ((i + t) % 2 + 2 * (kc % 2)) as u8).unwrap()).collect();
/// let (mut chained, mut looped) = (Acc::<S>::splat(0.5), Acc::<S>::splat(0.5));
/// execute_sparse_chain_into::<S, 0, 0>(&a, &b, &mut chained, &idx);
/// for t in 0..3 {
///     execute_sparse_into::<S, 0, 0>(&a[t], &b[t], &mut looped, &idx[t]);
/// }
/// assert_eq!(chained, looped);
/// ```
///
/// # Panics
/// If the three slices have different lengths.
#[inline]
#[track_caller]
pub fn execute_sparse_chain_into<X: SparseInstr, const CBSZ: i32, const ABID: i32>(
    a: &[FragA<X>],
    b: &[FragB<X>],
    c: &mut Acc<X>,
    idx: &[FragIdx<X>],
) {
    const { crate::exec::assert_legal(X::SPEC, CBSZ, ABID, 0) };
    execute_sparse_chain_into_prechecked::<X, CBSZ, ABID>(a, b, c, idx);
}

/// [`execute_sparse_chain_into`] whose caller has checked the immediates.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn execute_sparse_chain_into_prechecked<X: SparseInstr, const CBSZ: i32, const ABID: i32>(
    a: &[FragA<X>],
    b: &[FragB<X>],
    c: &mut Acc<X>,
    idx: &[FragIdx<X>],
) {
    assert!(
        a.len() == b.len() && a.len() == idx.len(),
        "a chain needs as many A, B and index fragments (got {}, {}, {})",
        a.len(),
        b.len(),
        idx.len()
    );
    #[cfg(not(target_arch = "amdgpu"))]
    soft::run::<X>(index_set::<X, CBSZ, ABID>(), a, b, c, idx);
    #[cfg(target_arch = "amdgpu")]
    for ((a, b), idx) in a.iter().zip(b).zip(idx) {
        execute_sparse_into_prechecked::<X, CBSZ, ABID>(a, b, c, idx);
    }
}

/// One SMFMAC on the software path, reading index set `set` (for
/// [`soft::execute_sparse_dynamic`](crate::soft::execute_sparse_dynamic)).
#[cfg(not(target_arch = "amdgpu"))]
#[track_caller]
pub(crate) fn run_soft<X: SparseInstr>(
    set: usize,
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
    idx: &FragIdx<X>,
) {
    soft::run::<X>(
        set,
        core::slice::from_ref(a),
        core::slice::from_ref(b),
        c,
        core::slice::from_ref(idx),
    );
}

/// The index set the instruction reads (the software path's question).
#[cfg(not(target_arch = "amdgpu"))]
const fn index_set<X: SparseInstr, const CBSZ: i32, const ABID: i32>() -> usize {
    match X::SPEC.sparse {
        Some(s) => s.index_set(mfma_spec::Modifiers::new(CBSZ as i64, ABID as i64, 0)),
        None => 0,
    }
}

/// The software path: each SMFMAC as two chained instructions of its dense
/// twin on the decompressed A (the stated assumption, see the module docs).
#[cfg(not(target_arch = "amdgpu"))]
mod soft {
    use super::{valid, FragIdx, SparseInstr};
    use crate::fragment::{Acc, FragA, FragB};
    use crate::Element;
    use mfma_spec::Sparse;

    /// SMFMAC steps decompressed at once (two dense fragments each).
    const STEPS: usize = 8;

    #[track_caller]
    pub(super) fn run<X: SparseInstr>(
        set: usize,
        a: &[FragA<X>],
        b: &[FragB<X>],
        c: &mut Acc<X>,
        idx: &[FragIdx<X>],
    ) {
        let mut acc = Acc::<X::Dense>::from_regs(*c.regs());
        let mut da = [FragA::<X::Dense>::zero(); 2 * STEPS];
        let mut db = [FragB::<X::Dense>::zero(); 2 * STEPS];
        let steps = a.len().min(b.len()).min(idx.len());
        let mut first = 0;
        while first < steps {
            let len = (steps - first).min(STEPS);
            for t in 0..len {
                let s = first + t;
                let (lo, hi) = da[2 * t..].split_at_mut(1);
                decompress::<X>(&a[s], &idx[s], set, [&mut lo[0], &mut hi[0]]);
                let half = db[2 * t].regs().as_ref().len();
                let rows = b[s].regs().as_ref();
                db[2 * t].regs_mut().as_mut().copy_from_slice(&rows[..half]);
                db[2 * t + 1]
                    .regs_mut()
                    .as_mut()
                    .copy_from_slice(&rows[half..]);
            }
            crate::soft::run_chain::<X::Dense>(&da[..2 * len], &db[..2 * len], &mut acc);
            first += len;
        }
        *c.regs_mut() = *acc.regs();
    }

    /// The logical A of `a` and set `set` of `idx`, split at K/2 into the
    /// A operands of the two dense instructions.
    #[track_caller]
    fn decompress<X: SparseInstr>(
        a: &FragA<X>,
        idx: &FragIdx<X>,
        set: usize,
        out: [&mut FragA<X::Dense>; 2],
    ) {
        let (m, k) = (X::SPEC.m, X::SPEC.k);
        let (half, groups) = (k / 2, k / Sparse::GROUP);
        let (stored, fields) = (a.regs().as_ref(), idx.regs().as_ref());
        let [lo, hi] = out;
        let (lo, hi) = (lo.regs_mut().as_mut(), hi.regs_mut().as_mut());
        lo.fill(X::In::ZERO);
        hi.fill(X::In::ZERO);
        for i in 0..m {
            for g in 0..groups {
                let p = valid(fields[(set * m + i) * groups + g], i, g);
                for s in 0..Sparse::STORED {
                    let v = stored[i * half + Sparse::STORED * g + s];
                    let kk = Sparse::GROUP * g + p.of(s);
                    if kk < half {
                        lo[i * half + kk] = v;
                    } else {
                        hi[i * half + kk - half] = v;
                    }
                }
            }
        }
    }
}
