//! One compute policy for every MFMA builtin, written against `Instr`.

use crate::compute::ComputePolicy;
use crate::view::{OutTile, Tile};
use core::marker::PhantomData;
use core::mem::MaybeUninit;
#[cfg(not(target_arch = "amdgpu"))]
use mfma_core::soft::{execute_chain_panels, PanelA, PanelB};
use mfma_core::spec::{Arith, WAVE};
use mfma_core::{execute_chain_into, execute_into, Acc, Element, FragA, FragB, Instr};

/// A wave computes one instruction's output per K step: its tile of C is
/// `blocks·M × N`, block `b` taking rows `b·M..(b+1)·M` (so multi-block
/// builtins stack their blocks down the rows, all reading the same B), and
/// each `mma` is one instruction with all modifiers zero, consuming `K`.
///
/// Element types, shapes and arithmetic all come from `X` (`X::In`,
/// `X::Out`, `X::SPEC`); this is the tutorial's `MfmaCdna2F64Policy` for
/// any builtin whose A and B have one element type (all but CDNA3's mixed
/// fp8/bf8 ones: a problem has one input type).
///
/// ```
/// use mfma_gemm::{ComputePolicy, MfmaPolicy};
/// use mfma_core::mfma;
/// type P = MfmaPolicy<mfma!(f64_16x16x4f64)>;
/// assert_eq!((P::THREAD_TILE_M, P::THREAD_TILE_N, P::K_STEP), (16, 16, 4));
/// type Q = MfmaPolicy<mfma!(f64_4x4x4f64)>; // 4 blocks of 4×4
/// assert_eq!((Q::THREAD_TILE_M, Q::THREAD_TILE_N), (16, 4));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MfmaPolicy<X>(PhantomData<X>);

/// The seed's `MfmaCdna2F64Policy`: `v_mfma_f64_16x16x4f64`, 16×16 per wave, `k_step` 4.
pub type MfmaCdna2F64Policy = MfmaPolicy<mfma_core::mfma!(f64_16x16x4f64)>;

/// MfmaPolicy reads A and B from one problem of one element type, so its
/// builtin must take one type for both (all but CDNA3's mixed fp8/bf8).
/// A run-time check, folded away for every builtin it accepts: a `const`
/// one would also reject the generic code that visits every builtin.
#[inline(always)]
#[track_caller]
fn one_input_type<X: Instr>() {
    assert!(
        X::SPEC.a_type as u8 == X::SPEC.b_type as u8,
        "MfmaPolicy needs a builtin whose A and B have one element type \
         (a mixed fp8/bf8 builtin takes two)"
    );
}

/// A B element from the problem's element type: the same type (the spec
/// maps equal element types to one Rust type), so the bits carry over.
#[inline(always)]
fn as_b<X: Instr>(x: X::In) -> X::InB {
    one_input_type::<X>();
    <X::InB as Element>::from_bits_u64(x.to_bits_u64())
}

/// `&[X::In]` as `&[X::InB]`: the same type (see [`as_b`]).
#[cfg(not(target_arch = "amdgpu"))]
#[inline(always)]
fn same<X: Instr>(x: &[X::In]) -> &[X::InB] {
    one_input_type::<X>();
    assert!(core::any::TypeId::of::<X::In>() == core::any::TypeId::of::<X::InB>());
    // SAFETY: the two types are one (checked just above).
    unsafe { &*(x as *const [X::In] as *const [X::InB]) }
}

/// `&mut [X::InB]` as `&mut [X::In]` (see [`same`]).
#[cfg(not(target_arch = "amdgpu"))]
#[inline(always)]
fn same_mut<X: Instr>(x: &mut [X::InB]) -> &mut [X::In] {
    one_input_type::<X>();
    assert!(core::any::TypeId::of::<X::In>() == core::any::TypeId::of::<X::InB>());
    // SAFETY: the two types are one (checked just above).
    unsafe { &mut *(x as *mut [X::InB] as *mut [X::In]) }
}

impl<X: Instr> ComputePolicy for MfmaPolicy<X> {
    type Elem = X::In;
    type Out = X::Out;
    type FragA = FragA<X>;
    type FragB = FragB<X>;
    type Accumulator = Acc<X>;

    const THREAD_TILE_M: usize = X::SPEC.m * X::SPEC.blocks;
    const THREAD_TILE_N: usize = X::SPEC.n;
    const EFFECTIVE_LANES: usize = WAVE;
    const K_STEP: usize = X::SPEC.k;
    const ARITH: Arith = X::SPEC.arith;

    #[inline]
    fn zero() -> Acc<X> {
        Acc::<X>::zero()
    }

    #[inline]
    fn load_a(tile: &Tile<'_, X::In>, row: usize, ki: usize) -> FragA<X> {
        // On the host a fragment is the wave's operand in matrix order, so
        // blocks stacked down the rows form one window of the tile.
        #[cfg(not(target_arch = "amdgpu"))]
        {
            let mut f = FragA::<X>::zero();
            let rows = Self::THREAD_TILE_M;
            tile.copy_window(row, ki, rows, X::SPEC.k, f.regs_mut().as_mut());
            f
        }
        #[cfg(target_arch = "amdgpu")]
        FragA::<X>::from_fn(|b, i, k| tile.get(row + b * X::SPEC.m + i, ki + k))
    }

    #[inline]
    fn load_b(tile_b_t: &Tile<'_, X::In>, col: usize, ki: usize) -> FragB<X> {
        // On the host: B's `K × N` window (B^T read back transposed), once
        // per block.
        #[cfg(not(target_arch = "amdgpu"))]
        {
            let mut f = FragB::<X>::zero();
            let (k, n) = (X::SPEC.k, X::SPEC.n);
            let mut blocks = f.regs_mut().as_mut().chunks_exact_mut(k * n);
            if let Some(first) = blocks.next() {
                tile_b_t
                    .transposed()
                    .copy_window(ki, col, k, n, same_mut::<X>(first));
                let first: &[X::InB] = first;
                for other in blocks {
                    other.copy_from_slice(first);
                }
            }
            f
        }
        #[cfg(target_arch = "amdgpu")]
        FragB::<X>::from_fn(|_, k, j| as_b::<X>(tile_b_t.get(col + j, ki + k)))
    }

    /// Loads up to 16 steps' fragments on the host (one on the GPU), then runs them as one
    /// [`execute_chain_into`]: the same instructions in the same order.
    #[inline]
    fn mma_k_tile(
        acc: &mut Acc<X>,
        tile_a: &Tile<'_, X::In>,
        tile_b_t: &Tile<'_, X::In>,
        row: usize,
        col: usize,
        k_len: usize,
    ) {
        let k = X::SPEC.k;
        let steps = k_len.div_ceil(k);
        let mut first = 0;
        while first < steps {
            let len = (steps - first).min(CHAIN);
            let ki = |t: usize| (first + t) * k;
            // Only the first `len` slots are written and read: no zeroing.
            let mut a = [const { MaybeUninit::<FragA<X>>::uninit() }; CHAIN];
            let mut b = [const { MaybeUninit::<FragB<X>>::uninit() }; CHAIN];
            Self::load_a_chain(tile_a, row, ki(0), &mut a[..len]);
            for (t, b) in b[..len].iter_mut().enumerate() {
                b.write(Self::load_b(tile_b_t, col, ki(t)));
            }
            // SAFETY: slots 0..len were initialised just above.
            let (a, b) = unsafe { (init(&a[..len]), init(&b[..len])) };
            execute_chain_into::<X, 0, 0, 0>(a, b, acc);
            first += len;
        }
    }

    /// On the host a workgroup packs each K tile once into panels in the
    /// software path's computing form, and every wave's chain reads its
    /// fragments straight out of them.
    #[cfg(not(target_arch = "amdgpu"))]
    type Staged = MfmaStaging<X>;

    #[cfg(not(target_arch = "amdgpu"))]
    fn stage(
        staged: &mut MfmaStaging<X>,
        tile_a: &Tile<'_, X::In>,
        tile_b_t: &Tile<'_, X::In>,
        k_len: usize,
        key: crate::TileKey,
    ) {
        // Whole steps: past `k_len` the panels hold the tiles' zero padding.
        let k = k_len.next_multiple_of(X::SPEC.k);
        let rows = tile_a.rows().next_multiple_of(Self::THREAD_TILE_M);
        let cols = tile_b_t.rows().next_multiple_of(Self::THREAD_TILE_N);
        if let Some(a) = staged.a_for(key) {
            match tile_a.row_run(0, 0, 0) {
                Some(_) => a.fill_rows(rows, k, |r| tile_a.row_run(r, 0, k).unwrap_or_default()),
                None => a.fill_with(rows, k, |r, c| tile_a.get(r, c)),
            }
        }
        let (b, tile_b) = (&mut staged.b, tile_b_t.transposed());
        match tile_b.row_run(0, 0, 0) {
            Some(_) => b.fill_rows(k, cols, |r| {
                same::<X>(tile_b.row_run(r, 0, cols).unwrap_or_default())
            }),
            None => b.fill_with(k, cols, |r, c| as_b::<X>(tile_b.get(r, c))),
        }
    }

    #[cfg(not(target_arch = "amdgpu"))]
    fn stages_a(staged: &MfmaStaging<X>, key: crate::TileKey) -> bool {
        !staged.holds_a(key)
    }

    #[cfg(not(target_arch = "amdgpu"))]
    fn mma_staged(
        acc: &mut Acc<X>,
        staged: &MfmaStaging<X>,
        _tile_a: &Tile<'_, X::In>,
        _tile_b_t: &Tile<'_, X::In>,
        row: usize,
        col: usize,
        k_len: usize,
    ) {
        let (a, b) = (staged.a(), &staged.b);
        // A worker whose tile lies wholly past the matrix edge finds no
        // rows (or columns) staged for it, and has nothing to add.
        if row >= a.rows() || col >= b.cols() {
            return;
        }
        execute_chain_panels(a, row, b, col, k_len.div_ceil(X::SPEC.k), acc);
    }

    #[inline]
    fn mma(acc: &mut Acc<X>, a: &FragA<X>, b: &FragB<X>) {
        execute_into::<X, 0, 0, 0>(a, b, acc);
    }

    #[inline]
    fn store_c(acc: &Acc<X>, c: &mut OutTile<'_, X::Out>) {
        // On the host the accumulator is in matrix order, blocks stacked
        // down the rows as in the tile: row by row, one copy each (element
        // by element, storing C took an eighth of an f32 GEMM's time).
        #[cfg(not(target_arch = "amdgpu"))]
        for (r, row) in acc.regs().as_ref().chunks_exact(X::SPEC.n).enumerate() {
            c.store_row(r, row);
        }
        #[cfg(target_arch = "amdgpu")]
        acc.for_each(|b, i, j, v| c.store(b * X::SPEC.m + i, j, v));
    }
}

impl<X: Instr> MfmaPolicy<X> {
    /// `load_a` for `a.len()` consecutive steps from `ki`, into `a`.
    ///
    /// On the host, a window inside the tile is read row by row, each row's
    /// K run once and in order: fragment by fragment, the rows would be
    /// visited with A's row stride once per step, which for power-of-two
    /// strides keeps evicting the very cache lines the next step needs.
    #[inline(always)]
    fn load_a_chain(
        tile: &Tile<'_, X::In>,
        row: usize,
        ki: usize,
        a: &mut [MaybeUninit<FragA<X>>],
    ) {
        let k = X::SPEC.k;
        #[cfg(not(target_arch = "amdgpu"))]
        if let Some(rows) = tile.rows_of(row, ki, Self::THREAD_TILE_M, a.len() * k) {
            for f in a.iter_mut() {
                f.write(FragA::<X>::zero());
            }
            // SAFETY: every slot was initialised just above.
            let a = unsafe { init_mut(a) };
            for (r, src) in rows.enumerate() {
                for (f, src) in a.iter_mut().zip(src.chunks_exact(k)) {
                    f.regs_mut().as_mut()[r * k..][..k].copy_from_slice(src);
                }
            }
            return;
        }
        for (t, f) in a.iter_mut().enumerate() {
            f.write(Self::load_a(tile, row, ki + t * k));
        }
    }
}

/// What an [`MfmaPolicy`] stages on the host: the current K tile of B, and
/// the K tiles of A of the block row last seen. Workgroups of one block
/// row read the same strip of A, so a thread that runs several of them
/// (the grid is handed out row by row) packs it once: half the packing of
/// a square problem.
#[cfg(not(target_arch = "amdgpu"))]
pub struct MfmaStaging<X: Instr> {
    /// Direct mapped by K tile.
    a: std::vec::Vec<CachedA<X>>,
    current: usize,
    b: PanelB<X>,
}

#[cfg(not(target_arch = "amdgpu"))]
impl<X: Instr> Default for MfmaStaging<X> {
    fn default() -> Self {
        MfmaStaging {
            a: std::vec::Vec::new(),
            current: 0,
            b: PanelB::new(),
        }
    }
}

#[cfg(not(target_arch = "amdgpu"))]
impl<X: Instr> MfmaStaging<X> {
    /// K tiles of A kept: enough for K up to 64 tiles, a bounded amount
    /// of memory beyond.
    const SLOTS: usize = 64;

    /// Makes the slot of `key`'s A tile current; returns it to be filled,
    /// or `None` if it already holds that tile.
    fn a_for(&mut self, key: crate::TileKey) -> Option<&mut PanelA<X>> {
        let slot = key.k_tile % Self::SLOTS;
        if self.a.len() <= slot {
            self.a.resize_with(slot + 1, || CachedA {
                tag: None,
                panel: PanelA::new(),
            });
        }
        self.current = slot;
        let cached = &mut self.a[slot];
        let want = Some((key.block_row, key.k_tile));
        if cached.tag == want {
            return None;
        }
        cached.tag = want;
        Some(&mut cached.panel)
    }

    /// Whether the slot of `key`'s A tile holds it.
    fn holds_a(&self, key: crate::TileKey) -> bool {
        self.a
            .get(key.k_tile % Self::SLOTS)
            .is_some_and(|c| c.tag == Some((key.block_row, key.k_tile)))
    }

    /// The current K tile of A.
    fn a(&self) -> &PanelA<X> {
        &self.a[self.current].panel
    }
}

/// A slot of [`MfmaStaging`]'s A tiles, tagged with the `(block_row,
/// k_tile)` it holds.
#[cfg(not(target_arch = "amdgpu"))]
struct CachedA<X: Instr> {
    tag: Option<(usize, usize)>,
    panel: PanelA<X>,
}

/// Steps of a K tile run as one chain. On the host a chain keeps C in
/// registers across its instructions; on the GPU the accumulator lives in
/// registers anyway, and one step at a time keeps the fragments there too.
const CHAIN: usize = if cfg!(target_arch = "amdgpu") { 1 } else { 16 };

/// The values of initialised slots.
///
/// # Safety
/// Every slot of `s` must be initialised.
#[inline(always)]
unsafe fn init<T>(s: &[MaybeUninit<T>]) -> &[T] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; the caller vouches
    // for initialisation.
    unsafe { core::slice::from_raw_parts(s.as_ptr().cast::<T>(), s.len()) }
}

/// [`init`], mutably.
///
/// # Safety
/// Every slot of `s` must be initialised.
#[cfg(not(target_arch = "amdgpu"))]
#[inline(always)]
unsafe fn init_mut<T>(s: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: as for `init`.
    unsafe { core::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<T>(), s.len()) }
}
