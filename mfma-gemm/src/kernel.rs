//! The generic tutorial kernel, one worker at a time.

use crate::compute::ComputePolicy;
use crate::problem::Problem;
use crate::tile::{Crew, TilePolicy, TileStorage};

/// Workers (waves for MFMA policies, threads for the scalar one) in one
/// workgroup: the block tile divided into thread tiles.
///
/// ```
/// use mfma_gemm::{workers_per_block, GlobalTiles, MfmaCdna2F64Policy, ScalarFmaPolicy};
/// assert_eq!(workers_per_block::<GlobalTiles<32, 32, 4>, MfmaCdna2F64Policy>(), 4); // 2×2 waves
/// assert_eq!(workers_per_block::<GlobalTiles<32, 32, 4>, ScalarFmaPolicy>(), 16);
/// ```
pub const fn workers_per_block<T: TilePolicy, P: ComputePolicy>() -> usize {
    (T::BLOCK_TILE_M / P::THREAD_TILE_M) * (T::BLOCK_TILE_N / P::THREAD_TILE_N)
}

/// GPU threads of one workgroup: workers times the lanes each one spans.
pub const fn threads_per_block<T: TilePolicy, P: ComputePolicy>() -> usize {
    workers_per_block::<T, P>() * P::EFFECTIVE_LANES
}

/// Workgroups covering an `m × n` output: `(x over columns, y over rows)`.
///
/// ```
/// use mfma_gemm::{grid, GlobalTiles};
/// assert_eq!(grid::<GlobalTiles<32, 32, 4>>(100, 64), (2, 4));
/// ```
pub const fn grid<T: TilePolicy>(m: usize, n: usize) -> (usize, usize) {
    (n.div_ceil(T::BLOCK_TILE_N), m.div_ceil(T::BLOCK_TILE_M))
}

/// The tutorial's kernel body for one worker: worker `wave_id` of workgroup
/// `(block_x, block_y)` computes its thread tile of `C = A·B`.
///
/// For every K tile: prefetch, acquire; for `ki` in steps of `K_STEP`: load
/// the A and B fragments, `mma` (all in [`ComputePolicy::mma_k_tile`]); release. Finally `store_c`. The last K tile
/// runs only the steps it needs: past `k` the loads read zeros, so a K that
/// is not a multiple of `K_STEP` is zero padded up to the next step.
///
/// The same source runs on the host (a "wave" is then the whole wave, see
/// [`mfma_core::Fragment`]) and on the GPU, where every lane of the wave
/// calls it with the same arguments. A `wave_id` past
/// [`workers_per_block`] writes nothing.
///
/// # Safety
/// Calls that run concurrently on the same `problem` must have distinct
/// `(block_x, block_y, wave_id)`: each call writes its thread tile of C
/// through the problem's shared pointer.
///
/// On the GPU, with a tile policy that stages through LDS
/// ([`StagedTiles`](crate::StagedTiles)), the workgroup is the crew that
/// fills it: it must be one-dimensional with exactly
/// [`threads_per_block`] threads, all calling this with the same problem
/// and block (they meet at barriers), and the launch must pass the policy's
/// [`workgroup_mem_bytes`](crate::StagedTiles::workgroup_mem_bytes) of
/// dynamic LDS.
///
/// ```
/// use mfma_gemm::{gemm_wave, workers_per_block, GlobalTiles, MfmaCdna2F64Policy, Problem};
/// type T = GlobalTiles<32, 32, 4>;
/// let (m, n, k) = (20, 20, 6);
/// let a: Vec<f64> = (0..m * k).map(|x| x as f64).collect();
/// let b: Vec<f64> = (0..k * n).map(|x| (x % 7) as f64).collect();
/// let mut c = vec![0.0; m * n];
/// let p = Problem::new(m, n, k, &a, &b, &mut c);
/// for w in 0..workers_per_block::<T, MfmaCdna2F64Policy>() {
///     // SAFETY: one call at a time.
///     unsafe { gemm_wave::<T, MfmaCdna2F64Policy>(&p, 0, 0, w) };
/// }
/// drop(p);
/// let want: f64 = (0..k).map(|kk| a[19 * k + kk] * b[kk * n + 18]).sum();
/// assert_eq!(c[19 * n + 18], want);
/// ```
#[inline]
pub unsafe fn gemm_wave<T: TilePolicy, P: ComputePolicy>(
    problem: &Problem<'_, P::Elem, P::Out>,
    block_x: usize,
    block_y: usize,
    wave_id: usize,
) {
    const { assert_tiling::<T, P>() };
    if wave_id >= workers_per_block::<T, P>() {
        return;
    }
    let (row, col) = thread_tile_offset::<T, P>(wave_id);
    let (row0, col0) = (block_y * T::BLOCK_TILE_M, block_x * T::BLOCK_TILE_N);
    let k = problem.k();

    let mut tiles = T::prologue(
        problem.a().sub(row0, 0, T::BLOCK_TILE_M, k),
        problem.b_t().sub(col0, 0, T::BLOCK_TILE_N, k),
        crew::<T, P>(wave_id),
    );
    let mut acc = P::zero();
    for t in 0..T::k_tiles(k) {
        tiles.prefetch(t);
        tiles.acquire(t);
        let (tile_a, tile_b_t) = (tiles.tile_a(t), tiles.tile_b_t(t));
        P::mma_k_tile(&mut acc, &tile_a, &tile_b_t, row, col, k_len::<T>(k, t));
        tiles.release(t);
    }
    // SAFETY: distinct workers own disjoint thread tiles (the const checks
    // above make thread tiles partition the block tile), and the caller
    // keeps concurrent calls distinct.
    let mut c =
        unsafe { problem.out_tile(row0 + row, col0 + col, P::THREAD_TILE_M, P::THREAD_TILE_N) };
    P::store_c(&acc, &mut c);
}

/// Who fills worker `worker`'s tile storage. On the GPU, the workgroup's
/// threads: workers one after the other, each `EFFECTIVE_LANES` lanes wide
/// (a whole wave for MFMA policies). On the host a call of [`gemm_wave`] is
/// one worker with storage of its own.
#[inline(always)]
#[cfg_attr(
    not(target_arch = "amdgpu"),
    allow(clippy::extra_unused_type_parameters) // used on the GPU only
)]
fn crew<T: TilePolicy, P: ComputePolicy>(worker: usize) -> Crew {
    #[cfg(target_arch = "amdgpu")]
    {
        let lane = mfma_core::device::lane_id() % P::EFFECTIVE_LANES;
        Crew {
            member: worker * P::EFFECTIVE_LANES + lane,
            size: threads_per_block::<T, P>(),
        }
    }
    #[cfg(not(target_arch = "amdgpu"))]
    {
        let _ = worker;
        Crew::ALONE
    }
}

/// The tutorial's `thread_tile_offset`: workers tile the block row-major.
#[inline]
fn thread_tile_offset<T: TilePolicy, P: ComputePolicy>(worker: usize) -> (usize, usize) {
    let workers_n = T::BLOCK_TILE_N / P::THREAD_TILE_N;
    (
        (worker / workers_n) * P::THREAD_TILE_M,
        (worker % workers_n) * P::THREAD_TILE_N,
    )
}

/// Columns of K tile `t` inside a K extent of `k`.
#[inline]
fn k_len<T: TilePolicy>(k: usize, t: usize) -> usize {
    (k - t * T::K_TILE_SIZE).min(T::K_TILE_SIZE)
}

/// What a host thread keeps from one workgroup to the next while it runs
/// one problem: the staged K tiles (which a policy may reuse, see
/// [`TileKey`]) and one accumulator per worker, so that running a
/// workgroup allocates nothing once the buffers have grown.
///
/// It borrows the problem it serves: A and B cannot change while it
/// lives, which is what makes reusing staged tiles sound.
#[cfg(not(target_arch = "amdgpu"))]
pub struct HostScratch<'p, P: ComputePolicy> {
    problem: *const (),
    staged: P::Staged,
    accs: std::vec::Vec<P::Accumulator>,
    _p: core::marker::PhantomData<&'p ()>,
}

#[cfg(not(target_arch = "amdgpu"))]
impl<'p, P: ComputePolicy> HostScratch<'p, P> {
    /// Scratch for the workgroups of `problem`.
    pub fn new(problem: &'p Problem<'_, P::Elem, P::Out>) -> Self {
        HostScratch {
            problem: core::ptr::from_ref(problem).cast(),
            staged: P::Staged::default(),
            accs: std::vec::Vec::new(),
            _p: core::marker::PhantomData,
        }
    }

    /// The staged tiles, and one zeroed accumulator for each of `workers`
    /// workers.
    ///
    /// # Panics
    /// If `problem` is not the problem the scratch was made for.
    fn parts(
        &mut self,
        problem: &Problem<'_, P::Elem, P::Out>,
        workers: usize,
    ) -> (&mut P::Staged, &mut [P::Accumulator]) {
        assert!(
            core::ptr::eq(self.problem, core::ptr::from_ref(problem).cast()),
            "a HostScratch serves the problem it was made for"
        );
        self.accs.clear();
        self.accs.resize_with(workers, P::zero);
        (&mut self.staged, &mut self.accs)
    }
}

/// The workers of workgroup `(block_x, block_y)` whose column (of
/// [`worker_cols`]) lies in `cols`: the tile storage of their rows of A and
/// columns of B, and their thread tiles' offsets in the block.
#[cfg(not(target_arch = "amdgpu"))]
fn columns<'a, T: TilePolicy, P: ComputePolicy>(
    problem: &Problem<'a, P::Elem, P::Out>,
    block_x: usize,
    block_y: usize,
    cols: core::ops::Range<usize>,
) -> (
    T::Storage<'a, P::Elem>,
    impl Iterator<Item = (usize, usize)> + Clone,
) {
    let (row0, col0) = (block_y * T::BLOCK_TILE_M, block_x * T::BLOCK_TILE_N);
    let k = problem.k();
    let tiles = T::prologue(
        problem.a().sub(row0, 0, T::BLOCK_TILE_M, k),
        problem.b_t().sub(
            col0 + cols.start * P::THREAD_TILE_N,
            0,
            cols.len() * P::THREAD_TILE_N,
            k,
        ),
        Crew::ALONE,
    );
    let workers = (0..workers_per_block::<T, P>())
        .filter(move |w| cols.contains(&(w % worker_cols::<T, P>())))
        .map(thread_tile_offset::<T, P>);
    (tiles, workers)
}

/// Which part of the problem a staged K tile holds. Within one problem,
/// equal `(block_row, k_tile)` mean the same strip of A, whatever the tile
/// policy, so a host policy may reuse what it staged for it. B's tile is
/// that of `block_col`, or of some of its workers' columns only (the host
/// splits the last workgroups of a call by columns, see [`gemm`](crate::gemm)),
/// so what was staged for B is not reusable by key.
#[cfg(not(target_arch = "amdgpu"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileKey {
    /// The workgroup's block row (`block_y`).
    pub block_row: usize,
    /// The workgroup's block column (`block_x`).
    pub block_col: usize,
    /// The K tile.
    pub k_tile: usize,
}

/// The whole workgroup `(block_x, block_y)` on the host, as the GPU runs
/// it: the tile storage is set up once, and for every K tile all workers
/// take their step between the same barriers ([`TileStorage::acquire`] and
/// [`TileStorage::release`]), reading the tile once staged by
/// [`ComputePolicy::stage`]. Each worker computes exactly what
/// [`gemm_wave`] computes for it, with the same instructions in the same
/// order; only the interleaving of the workers differs, and they share no
/// output.
///
/// # Safety
/// Calls that run concurrently on the same `problem` must be for distinct
/// workgroups.
///
/// # Panics
/// If `scratch` was made for another problem.
///
/// ```
/// use mfma_gemm::{gemm_wave, gemm_workgroup, workers_per_block, GlobalTiles, HostScratch};
/// use mfma_gemm::{MfmaPolicy, Problem};
/// type T = GlobalTiles<64, 64, 16>;
/// type P = MfmaPolicy<mfma_core::mfma!(f32_32x32x8bf16_1k)>;
/// let (m, n, k) = (50, 40, 36);
/// let x = |i: usize| half::bf16::from_f32((i % 9) as f32 - 4.0);
/// let (a, b): (Vec<_>, Vec<_>) = ((0..m * k).map(x).collect(), (0..k * n).map(|i| x(i / 5)).collect());
/// let (mut c1, mut c2) = (vec![0.0f32; m * n], vec![0.0f32; m * n]);
/// let p = Problem::new(m, n, k, &a, &b, &mut c1);
/// // SAFETY: one call at a time.
/// unsafe { gemm_workgroup::<T, P>(&p, 0, 0, &mut HostScratch::new(&p)) };
/// drop(p);
/// let p = Problem::new(m, n, k, &a, &b, &mut c2);
/// for w in 0..workers_per_block::<T, P>() {
///     unsafe { gemm_wave::<T, P>(&p, 0, 0, w) };
/// }
/// drop(p);
/// assert_eq!(c1, c2);
/// ```
#[cfg(not(target_arch = "amdgpu"))]
pub unsafe fn gemm_workgroup<T: TilePolicy, P: ComputePolicy>(
    problem: &Problem<'_, P::Elem, P::Out>,
    block_x: usize,
    block_y: usize,
    scratch: &mut HostScratch<'_, P>,
) {
    let all = 0..worker_cols::<T, P>();
    // SAFETY: the caller's contract.
    unsafe {
        workgroup::<T, P, false>(
            problem,
            block_x,
            block_y,
            all,
            scratch,
            &mut Phases::default(),
        );
    }
}

/// Columns of workers in a workgroup (workers tile the block row-major).
#[cfg(not(target_arch = "amdgpu"))]
pub(crate) const fn worker_cols<T: TilePolicy, P: ComputePolicy>() -> usize {
    T::BLOCK_TILE_N / P::THREAD_TILE_N
}

/// Where a host thread's time went while it ran workgroups (see
/// [`gemm_profiled`](crate::gemm_profiled)): the wall time of each phase
/// of [`gemm_workgroup`], summed over its workgroups.
#[cfg(not(target_arch = "amdgpu"))]
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Staging K tiles ([`ComputePolicy::stage`]: packing panels), and
    /// asking the cache for the next one ([`TileStorage::prefetch_for`]):
    /// issuing those requests waits on memory about as long as they save
    /// the packing, so the two are one cost.
    pub stage: core::time::Duration,
    /// The workers' steps ([`ComputePolicy::mma_staged`]).
    pub compute: core::time::Duration,
    /// Storing C ([`ComputePolicy::store_c`]).
    pub store: core::time::Duration,
    /// Workgroups run.
    pub workgroups: usize,
}

/// The workers of workgroup `(block_x, block_y)` whose column (of
/// [`worker_cols`]) lies in `cols`, as [`gemm_workgroup`] runs them, adding
/// the time of each phase to `phases` if `TIMED` (otherwise no clock is
/// read). Each worker computes what it computes in the whole workgroup:
/// splitting a workgroup by columns only changes which of B's columns are
/// staged together.
///
/// # Safety
/// As for [`gemm_workgroup`], with "distinct workgroups" read as "disjoint
/// workers".
#[cfg(not(target_arch = "amdgpu"))]
#[inline]
pub(crate) unsafe fn workgroup<T: TilePolicy, P: ComputePolicy, const TIMED: bool>(
    problem: &Problem<'_, P::Elem, P::Out>,
    block_x: usize,
    block_y: usize,
    cols: core::ops::Range<usize>,
    scratch: &mut HostScratch<'_, P>,
    phases: &mut Phases,
) {
    const { assert_tiling::<T, P>() };
    let clock = || TIMED.then(std::time::Instant::now);
    let lap = |since: Option<std::time::Instant>, total: &mut core::time::Duration| {
        if let Some(since) = since {
            *total += since.elapsed();
        }
    };
    let (row0, col0) = (block_y * T::BLOCK_TILE_M, block_x * T::BLOCK_TILE_N);
    let b0 = cols.start * P::THREAD_TILE_N;
    let (mut tiles, workers) = columns::<T, P>(problem, block_x, block_y, cols);
    let (staged, accs) = scratch.parts(problem, workers.clone().count());
    let k = problem.k();
    for t in 0..T::k_tiles(k) {
        let key = TileKey {
            block_row: block_y,
            block_col: block_x,
            k_tile: t,
        };
        let next = TileKey {
            k_tile: t + 1,
            ..key
        };
        let start = clock();
        tiles.prefetch_for(t, P::stages_a(staged, next));
        tiles.acquire(t);
        let (tile_a, tile_b_t) = (tiles.tile_a(t), tiles.tile_b_t(t));
        let k_len = k_len::<T>(k, t);
        P::stage(staged, &tile_a, &tile_b_t, k_len, key);
        lap(start, &mut phases.stage);
        let start = clock();
        for (acc, (row, col)) in accs.iter_mut().zip(workers.clone()) {
            P::mma_staged(acc, staged, &tile_a, &tile_b_t, row, col - b0, k_len);
        }
        lap(start, &mut phases.compute);
        tiles.release(t);
    }
    let start = clock();
    for (acc, (row, col)) in accs.iter().zip(workers) {
        // SAFETY: the workers' thread tiles partition the block tile (the
        // const checks above), and the caller keeps workgroups distinct.
        let mut c =
            unsafe { problem.out_tile(row0 + row, col0 + col, P::THREAD_TILE_M, P::THREAD_TILE_N) };
        P::store_c(acc, &mut c);
    }
    lap(start, &mut phases.store);
    phases.workgroups += 1;
}

/// The workers' steps of workgroup `(0, 0)` on its first K tile, `rounds`
/// times over, the tile staged once: the chains alone, with no packing
/// between them and no data beyond the staged tile and the accumulators
/// (which stay in L1 or L2). What a GEMM's chains would run at if memory
/// cost nothing; `--sweep` of the `matrix_multiply` example times it on
/// several threads at once, next to the GEMM, to tell what the machine's
/// cores give to more threads of the kernels themselves from what the GEMM
/// around them loses. Returns the multiply-adds run.
///
/// The accumulators keep adding up, so their values mean nothing.
///
/// ```
/// use mfma_gemm::{chains_alone, GlobalTiles, HostScratch, MfmaPolicy, Problem};
/// type P = MfmaPolicy<mfma_core::mfma!(f32_32x32x2f32)>;
/// let (m, n, k) = (64, 64, 32);
/// let (a, b, mut c) = (vec![1.0f32; m * k], vec![0.5f32; k * n], vec![0.0f32; m * n]);
/// let p = Problem::new(m, n, k, &a, &b, &mut c);
/// let macs = chains_alone::<GlobalTiles<64, 64, 16>, P>(&p, &mut HostScratch::new(&p), 3);
/// assert_eq!(macs, 3 * 64 * 64 * 16);
/// ```
///
/// # Panics
/// If `scratch` was made for another problem.
#[cfg(not(target_arch = "amdgpu"))]
pub fn chains_alone<T: TilePolicy, P: ComputePolicy>(
    problem: &Problem<'_, P::Elem, P::Out>,
    scratch: &mut HostScratch<'_, P>,
    rounds: usize,
) -> usize {
    const { assert_tiling::<T, P>() };
    let (mut tiles, workers) = columns::<T, P>(problem, 0, 0, 0..worker_cols::<T, P>());
    let (staged, accs) = scratch.parts(problem, workers.clone().count());
    tiles.acquire(0);
    let (tile_a, tile_b_t) = (tiles.tile_a(0), tiles.tile_b_t(0));
    let k_len = k_len::<T>(problem.k(), 0);
    let key = TileKey {
        block_row: 0,
        block_col: 0,
        k_tile: 0,
    };
    P::stage(staged, &tile_a, &tile_b_t, k_len, key);
    for _ in 0..rounds {
        for (acc, (row, col)) in accs.iter_mut().zip(workers.clone()) {
            P::mma_staged(acc, staged, &tile_a, &tile_b_t, row, col, k_len);
        }
    }
    tiles.release(0);
    let (rows, cols) = (T::BLOCK_TILE_M, T::BLOCK_TILE_N);
    rounds * rows.min(problem.m()) * cols.min(problem.n()) * k_len
}

/// What the kernel needs of its policies, checked at compile time: thread
/// tiles partition the block tile, and K steps the K tile.
const fn assert_tiling<T: TilePolicy, P: ComputePolicy>() {
    assert!(
        T::BLOCK_TILE_M % P::THREAD_TILE_M == 0 && T::BLOCK_TILE_N % P::THREAD_TILE_N == 0,
        "the block tile must be a whole number of thread tiles"
    );
    assert!(
        T::K_TILE_SIZE % P::K_STEP == 0,
        "the K tile must be a whole number of K steps"
    );
}
