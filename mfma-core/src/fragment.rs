//! Typed fragments: the A, B and accumulator registers of one builtin.

use crate::element::{Element, Storage};
use crate::instr::Instr;
use core::marker::PhantomData;
use mfma_spec::{Coord, Layout, Slot};

/// Which operand a [`Fragment`] holds.
pub trait Operand: Copy + Default + core::fmt::Debug + Send + Sync + 'static {
    /// The spec's operand (D fragments are accumulators, like C).
    const OPERAND: mfma_spec::Operand;
    /// Element type of this operand of `X`.
    type Elem<X: Instr>: Element;
    /// Storage of this operand of `X`.
    type Regs<X: Instr>: Storage<Self::Elem<X>>;
}

/// Marker for the A operand (M×K, coordinates (block, i, k)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct A;
/// Marker for the B operand (K×N, coordinates (block, k, j)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B;
/// Marker for the accumulator, C in and D out (M×N, coordinates (block, i, j)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct C;

impl Operand for A {
    const OPERAND: mfma_spec::Operand = mfma_spec::Operand::A;
    type Elem<X: Instr> = X::In;
    type Regs<X: Instr> = X::ARegs;
}
impl Operand for B {
    const OPERAND: mfma_spec::Operand = mfma_spec::Operand::B;
    type Elem<X: Instr> = X::InB;
    type Regs<X: Instr> = X::BRegs;
}
impl Operand for C {
    const OPERAND: mfma_spec::Operand = mfma_spec::Operand::C;
    type Elem<X: Instr> = X::Out;
    type Regs<X: Instr> = X::OutRegs;
}

/// The A fragment of builtin `X`.
pub type FragA<X> = Fragment<X, A>;
/// The B fragment of builtin `X`.
pub type FragB<X> = Fragment<X, B>;
/// The accumulator (C or D) fragment of builtin `X`.
pub type Acc<X> = Fragment<X, C>;

/// One operand's registers for builtin `X`, typed by builtin and operand:
/// an A fragment of one builtin cannot be passed where another's is expected.
///
/// On the host a fragment holds the registers of the whole wave (64 lanes ×
/// `per_lane` items), stored in matrix order `[block][row][col]` so that
/// kernels and loads are contiguous; [`slot`](Fragment::slot) and
/// [`lane`](Fragment::lane) read it as registers through the layout. On the
/// GPU (`target_arch = "amdgpu"`) it holds the calling lane's items only. The
/// constructors and [`for_each`](Fragment::for_each) mean the same on both.
///
/// ```
/// use mfma_core::{mfma, FragA, Acc};
/// type X = mfma!(f32_32x32x8bf16_1k);
/// let a = FragA::<X>::from_fn(|_b, i, k| half::bf16::from_f32((i * 8 + k) as f32));
/// // A[0][5][3] sits in lane 5 + 32 * (3 / 4) = 5, item 3 % 4 = 3.
/// assert_eq!(a.slot(5, 3), half::bf16::from_f32(43.0));
/// let c = Acc::<X>::zero();
/// assert_eq!(c.get(0, 31, 31), 0.0);
/// ```
// Transparent, so that consecutive fragments are consecutive elements (the
// software path reads a slice of them as one strided window).
#[repr(transparent)]
pub struct Fragment<X: Instr, O: Operand> {
    regs: O::Regs<X>,
    _m: PhantomData<(X, O)>,
}

impl<X: Instr, O: Operand> Clone for Fragment<X, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<X: Instr, O: Operand> Copy for Fragment<X, O> {}

impl<X: Instr, O: Operand> Default for Fragment<X, O> {
    fn default() -> Self {
        Self::zero()
    }
}

impl<X: Instr, O: Operand> PartialEq for Fragment<X, O> {
    fn eq(&self, other: &Self) -> bool {
        self.regs.as_ref() == other.regs.as_ref()
    }
}

impl<X: Instr, O: Operand> core::fmt::Debug for Fragment<X, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fragment")
            .field("builtin", &X::SPEC.name)
            .field("operand", &O::OPERAND)
            .field("regs", &self.regs.as_ref())
            .finish()
    }
}

impl<X: Instr, O: Operand> Fragment<X, O> {
    /// This operand's layout (the spec's, as a constant).
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// assert_eq!(Acc::<mfma!(f32_32x32x8bf16_1k)>::LAYOUT.items, 16);
    /// ```
    pub const LAYOUT: Layout = *X::SPEC.layout(O::OPERAND);

    /// Wraps raw storage (matrix order on the host, the lane's items on the GPU).
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f64_4x4x4f64); // 4 blocks of 4 x 4: 64 elements
    /// let c = Acc::<X>::from_regs([1.5; 64]);
    /// assert_eq!(c.get(3, 3, 3), 1.5);
    /// ```
    #[inline]
    pub fn from_regs(regs: O::Regs<X>) -> Self {
        Fragment {
            regs,
            _m: PhantomData,
        }
    }

    /// The raw storage.
    ///
    /// ```
    /// use mfma_core::{mfma, FragA};
    /// type X = mfma!(i32_4x4x4i8);
    /// assert_eq!(FragA::<X>::splat(3).regs().len(), 16 * 4 * 4);
    /// ```
    #[inline]
    pub fn regs(&self) -> &O::Regs<X> {
        &self.regs
    }

    /// The raw storage, mutably.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_16x16x4f32);
    /// let mut c = Acc::<X>::zero();
    /// c.regs_mut()[0] = 2.0; // element (0, 0, 0) on the host (matrix order)
    /// assert_eq!(c.get(0, 0, 0), 2.0);
    /// ```
    #[inline]
    pub fn regs_mut(&mut self) -> &mut O::Regs<X> {
        &mut self.regs
    }

    /// Every element zero.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// assert!(Acc::<mfma!(i32_32x32x4i8)>::zero().as_row_major().iter().all(|&x| x == 0));
    /// ```
    #[inline]
    pub fn zero() -> Self {
        Self::splat(<O::Elem<X> as Element>::ZERO)
    }

    /// Every element `v`.
    ///
    /// ```
    /// use mfma_core::{mfma, FragB, Fp8};
    /// let b = FragB::<mfma!(cdna3::f32_32x32x16_fp8_fp8)>::splat(Fp8::ONE);
    /// assert_eq!(b.at(15, 31), Fp8::ONE);
    /// ```
    #[inline]
    pub fn splat(v: O::Elem<X>) -> Self {
        Self::from_regs(Storage::splat(v))
    }

    /// Builds a fragment from a function of (block, row, col): (b, i, k)
    /// for A, (b, k, j) for B, (b, i, j) for the accumulator. On the GPU only
    /// the calling lane's elements are asked for.
    ///
    /// ```
    /// use mfma_core::{mfma, FragA};
    /// type X = mfma!(f32_4x4x1f32); // 16 blocks, A is 4 x 1
    /// let a = FragA::<X>::from_fn(|b, i, _k| (10 * b + i) as f32);
    /// assert_eq!(a.get(7, 2, 0), 72.0);
    /// ```
    #[inline]
    pub fn from_fn(mut f: impl FnMut(usize, usize, usize) -> O::Elem<X>) -> Self {
        let mut out = Self::zero();
        out.for_each_coord(|s, c| s.write_at(c, f(c.block, c.row, c.col)));
        out
    }

    /// Builds a fragment from row-major matrices, all blocks one after the
    /// other (`blocks * rows * cols` elements); [`as_row_major`](Fragment::as_row_major)
    /// is the way back.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_16x16x4f32);
    /// let data: Vec<f32> = (0..256).map(|x| x as f32).collect();
    /// let c = Acc::<X>::from_row_major(&data);
    /// assert_eq!(c.get(0, 2, 3), 35.0);
    /// assert_eq!(c.as_row_major(), &data[..]);
    /// ```
    ///
    /// # Panics
    /// If `data` has another length.
    pub fn from_row_major(data: &[O::Elem<X>]) -> Self {
        let l = Self::LAYOUT;
        assert_eq!(
            data.len(),
            l.elements(),
            "{} operand {} needs {} blocks x {} x {} = {} elements",
            X::SPEC.name,
            O::OPERAND.name(),
            l.blocks,
            l.rows,
            l.cols,
            l.elements()
        );
        Self::from_fn(|b, r, c| data[l.linear(Coord::new(b, r, c))])
    }

    /// Builds a fragment from one row-major `rows × cols` matrix per block.
    ///
    /// ```
    /// use mfma_core::{mfma, FragB};
    /// type X = mfma!(f32_32x32x1f32); // 2 blocks, B is 1×32 per block
    /// let (b0, b1) = ([1.0f32; 32], [2.0f32; 32]);
    /// let b = FragB::<X>::from_blocks(&[&b0, &b1]);
    /// assert_eq!((b.get(0, 0, 31), b.get(1, 0, 0)), (1.0, 2.0));
    /// assert_eq!(b.block(1), &b1);
    /// ```
    ///
    /// # Panics
    /// If there is not one slice per block, each of `rows * cols` elements.
    pub fn from_blocks<M: AsRef<[O::Elem<X>]>>(blocks: &[M]) -> Self {
        let l = Self::LAYOUT;
        assert_eq!(
            blocks.len(),
            l.blocks,
            "{} operand {} has {} block(s)",
            X::SPEC.name,
            O::OPERAND.name(),
            l.blocks
        );
        for (b, m) in blocks.iter().enumerate() {
            assert_eq!(
                m.as_ref().len(),
                l.rows * l.cols,
                "{} operand {} block {b} needs {} x {} elements",
                X::SPEC.name,
                O::OPERAND.name(),
                l.rows,
                l.cols
            );
        }
        Self::from_fn(|b, r, c| blocks[b].as_ref()[r * l.cols + c])
    }

    /// Calls `f(block, row, col, value)` for every element this fragment
    /// holds: all of them on the host, the calling lane's on the GPU.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// let c = Acc::<mfma!(f32_16x16x4f32)>::from_fn(|_, i, j| (i * j) as f32);
    /// let mut sum = 0.0;
    /// c.for_each(|_b, _i, _j, v| sum += v);
    /// assert_eq!(sum, 120.0 * 120.0);
    /// ```
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize, usize, usize, O::Elem<X>)) {
        let mut this = *self;
        this.for_each_coord(|s, c| f(c.block, c.row, c.col, s.read_at(c)));
    }
}

/// **Host only**: on the host a fragment holds the whole wave, so any
/// element or register slot can be read and written; on the GPU it holds one
/// lane's items (use [`from_fn`](Fragment::from_fn) and
/// [`for_each`](Fragment::for_each), which mean the same on both paths).
#[cfg(not(target_arch = "amdgpu"))]
impl<X: Instr, O: Operand> Fragment<X, O> {
    #[inline]
    fn for_each_coord(&mut self, mut f: impl FnMut(&mut Self, Coord)) {
        let l = Self::LAYOUT;
        for idx in 0..l.elements() {
            f(self, l.delinear(idx));
        }
    }

    /// Only for coordinates in range (the index is then inside the storage).
    #[inline]
    fn write_at(&mut self, c: Coord, v: O::Elem<X>) {
        self.regs.as_mut()[Self::LAYOUT.linear(c)] = v;
    }

    /// Only for coordinates in range.
    #[inline]
    fn read_at(&self, c: Coord) -> O::Elem<X> {
        self.regs.as_ref()[Self::LAYOUT.linear(c)]
    }

    /// `c`, if it lies in the operand's matrices.
    #[inline]
    #[track_caller]
    fn checked(c: Coord) -> Coord {
        if !Self::LAYOUT.contains(c) {
            panic!("{}", Self::LAYOUT.coord_error(c));
        }
        c
    }

    /// The slot's coordinate, if the slot exists.
    #[inline]
    #[track_caller]
    fn checked_slot(lane: usize, item: usize) -> Coord {
        Self::LAYOUT.coord(Slot { lane, item })
    }

    /// The element at (block, row, col).
    ///
    /// # Panics
    /// If the coordinate lies outside the operand's matrices, with the
    /// message [`Layout::slot`] gives (operand and ranges).
    ///
    /// ```should_panic
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_32x32x8bf16_1k); // 1 block of 32×32
    /// // panics: coordinate (block 0, i 5, j 40) is out of range for operand c
    /// // of f32_32x32x8bf16_1k: it needs block < 1, i < 32, j < 32
    /// Acc::<X>::zero().get(0, 5, 40);
    /// ```
    #[inline]
    #[track_caller]
    pub fn get(&self, block: usize, row: usize, col: usize) -> O::Elem<X> {
        self.read_at(Self::checked(Coord::new(block, row, col)))
    }

    /// Sets the element at (block, row, col).
    ///
    /// # Panics
    /// As [`get`](Fragment::get).
    #[inline]
    #[track_caller]
    pub fn set(&mut self, block: usize, row: usize, col: usize, v: O::Elem<X>) {
        self.write_at(Self::checked(Coord::new(block, row, col)), v)
    }

    /// The element at (row, col) of a 1-block builtin's matrix.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_32x32x8bf16_1k);
    /// let mut c = Acc::<X>::zero();
    /// c.set_at(3, 5, 1.5);
    /// assert_eq!((c.at(3, 5), c.get(0, 3, 5)), (1.5, 1.5));
    /// ```
    ///
    /// # Panics
    /// As [`get`](Fragment::get). On a builtin of several blocks it does not
    /// compile: say which block with [`get`](Fragment::get).
    #[inline]
    #[track_caller]
    pub fn at(&self, row: usize, col: usize) -> O::Elem<X> {
        const { one_block::<X>() };
        self.get(0, row, col)
    }

    /// Sets the element at (row, col) of a 1-block builtin's matrix.
    ///
    /// # Panics
    /// As [`at`](Fragment::at).
    #[inline]
    #[track_caller]
    pub fn set_at(&mut self, row: usize, col: usize, v: O::Elem<X>) {
        const { one_block::<X>() };
        self.set(0, row, col, v)
    }

    /// The value in register slot (lane, item).
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_32x32x8bf16_1k);
    /// let c = Acc::<X>::from_fn(|_, i, j| (100 * i + j) as f32);
    /// assert_eq!(c.slot(39, 1), 507.0); // C[5][7] sits in lane 39, item 1
    /// ```
    ///
    /// # Panics
    /// If the slot does not exist (lane ≥ 64 or item ≥ the items a lane
    /// holds), with the message [`Layout::coord`] gives.
    #[inline]
    #[track_caller]
    pub fn slot(&self, lane: usize, item: usize) -> O::Elem<X> {
        self.read_at(Self::checked_slot(lane, item))
    }

    /// Sets register slot (lane, item).
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_32x32x8bf16_1k);
    /// let mut c = Acc::<X>::zero();
    /// c.set_slot(39, 1, 4.0);
    /// assert_eq!(c.at(5, 7), 4.0);
    /// ```
    ///
    /// # Panics
    /// As [`slot`](Fragment::slot).
    #[inline]
    #[track_caller]
    pub fn set_slot(&mut self, lane: usize, item: usize, v: O::Elem<X>) {
        self.write_at(Self::checked_slot(lane, item), v)
    }

    /// The items of one lane, in register order.
    ///
    /// ```
    /// use mfma_core::{mfma, FragA};
    /// type X = mfma!(f32_32x32x8bf16_1k); // A: lane i + 32·(k / 4), item k % 4
    /// let a = FragA::<X>::from_fn(|_, i, k| half::bf16::from_f32((10 * i + k) as f32));
    /// let lane: Vec<f32> = a.lane(33).map(|x| x.to_f32()).collect();
    /// assert_eq!(lane, [14.0, 15.0, 16.0, 17.0]); // row 1, k = 4..8
    /// ```
    ///
    /// # Panics
    /// If `lane` is not below 64.
    #[track_caller]
    pub fn lane(&self, lane: usize) -> impl Iterator<Item = O::Elem<X>> + '_ {
        let _ = Self::checked_slot(lane, 0);
        (0..Self::LAYOUT.items).map(move |item| self.slot(lane, item))
    }

    /// Block `b` as a row-major `rows × cols` matrix (how a result is read back).
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// type X = mfma!(f32_4x4x1f32);
    /// let c = Acc::<X>::from_fn(|b, _, _| b as f32);
    /// assert_eq!(c.block(9), &[9.0; 16]);
    /// ```
    ///
    /// # Panics
    /// If `b` is not a block of the builtin.
    #[inline]
    #[track_caller]
    pub fn block(&self, b: usize) -> &[O::Elem<X>] {
        let l = Self::LAYOUT;
        let _ = Self::checked(Coord::new(b, 0, 0));
        &self.regs.as_ref()[b * l.rows * l.cols..][..l.rows * l.cols]
    }

    /// All elements in row-major order, blocks one after the other (the
    /// inverse of [`from_row_major`](Fragment::from_row_major)).
    ///
    /// ```
    /// use mfma_core::{mfma, Acc};
    /// let c = Acc::<mfma!(f64_4x4x4f64)>::from_fn(|b, i, j| (b * 16 + i * 4 + j) as f64);
    /// assert_eq!(c.as_row_major()[37], 37.0);
    /// ```
    #[inline]
    pub fn as_row_major(&self) -> &[O::Elem<X>] {
        self.regs.as_ref()
    }
}

/// The 1-block accessors' compile-time check.
#[cfg(not(target_arch = "amdgpu"))]
const fn one_block<X: Instr>() {
    if X::SPEC.blocks != 1 {
        let m = mfma_spec::Message::new()
            .str("`at`/`set_at` take (row, col) of a 1-block builtin, but ")
            .path(X::SPEC)
            .str(" has ")
            .uint(X::SPEC.blocks as u64)
            .str(" blocks: say which with `get(block, row, col)` / `set(block, row, col, v)`");
        panic!("{}", m.as_str());
    }
}

/// **GPU only**: a fragment holds the calling lane's items.
#[cfg(target_arch = "amdgpu")]
impl<X: Instr, O: Operand> Fragment<X, O> {
    // Coordinates here come from the layout's own slots, so the range
    // checks (and their panic path) are left out of the kernels.
    #[inline(always)]
    fn for_each_coord(&mut self, mut f: impl FnMut(&mut Self, Coord)) {
        let l = Self::LAYOUT;
        let lane = crate::device::lane_id();
        for item in 0..l.items {
            f(self, l.coord_unchecked(Slot { lane, item }));
        }
    }

    #[inline(always)]
    fn write_at(&mut self, c: Coord, v: O::Elem<X>) {
        self.regs.as_mut()[Self::LAYOUT.slot_unchecked(c).item] = v;
    }

    #[inline(always)]
    fn read_at(&self, c: Coord) -> O::Elem<X> {
        self.regs.as_ref()[Self::LAYOUT.slot_unchecked(c).item]
    }

    /// The calling lane's item `item`.
    #[inline(always)]
    pub fn item(&self, item: usize) -> O::Elem<X> {
        self.regs.as_ref()[item]
    }
}
