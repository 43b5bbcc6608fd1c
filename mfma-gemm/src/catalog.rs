//! The policies the demo runs, and the check each run gets: time the
//! tutorial kernel on random inputs, then compare every output bit with the
//! reference (host only).

use crate::compute::ComputePolicy;
use crate::kernel::workers_per_block;
use crate::launch::gemm;
use crate::mfma::{MfmaCdna2F64Policy, MfmaPolicy};
use crate::reference;
use crate::scalar::ScalarFmaPolicy;
use crate::tile::{GlobalTiles, TilePolicy};
use mfma_core::soft::Kernels;
use mfma_core::spec::Builtin;
use mfma_core::{mfma, Element, Instr};
use std::boxed::Box;
use std::format;
use std::time::Instant;
use std::vec::Vec;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Seed of the random inputs (A uses `seed`, B `seed + 1`).
    pub seed: u64,
    /// Host threads.
    pub threads: usize,
    /// Untimed runs before the timed ones.
    pub warmup: usize,
    /// Timed repetitions (the best is reported; all runs must agree bitwise).
    pub reps: usize,
}

/// The first output that differs from the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Row of C.
    pub row: usize,
    /// Column of C.
    pub col: usize,
    /// Bits the kernel wrote.
    pub got: u64,
    /// Bits the reference computed.
    pub want: u64,
}

/// The result of one checked run.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Best wall time of the kernel over the repetitions, in seconds.
    pub seconds: f64,
    /// Wall time of the reference, in seconds.
    pub reference_seconds: f64,
    /// Nominal operations, `2·m·n·k`.
    pub ops: f64,
    /// Outputs whose bits differ from the reference (or between repetitions).
    pub mismatches: usize,
    /// The first of them.
    pub first_mismatch: Option<Mismatch>,
}

impl Outcome {
    /// Whether every output matched bit for bit.
    pub fn bit_exact(&self) -> bool {
        self.mismatches == 0
    }

    /// Nominal operations per second, in units of 10^9.
    pub fn giga_ops_per_second(&self) -> f64 {
        self.ops / self.seconds / 1e9
    }
}

/// Compares two `rows × cols`-shaped outputs bit for bit.
pub fn compare<E: Element>(cols: usize, got: &[E], want: &[E]) -> (usize, Option<Mismatch>) {
    assert_eq!(got.len(), want.len(), "outputs of different sizes");
    let mut bad = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g.to_bits_u64() != w.to_bits_u64());
    let first = bad.next().map(|(idx, (g, w))| Mismatch {
        row: idx / cols.max(1),
        col: idx % cols.max(1),
        got: g.to_bits_u64(),
        want: w.to_bits_u64(),
    });
    (usize::from(first.is_some()) + bad.count(), first)
}

/// Runs the kernel `cfg.warmup` times untimed, then `cfg.reps` times timed;
/// returns the best time and the first result, counting outputs in which
/// later runs disagree with it.
fn timed<T: TilePolicy, P: ComputePolicy>(
    cfg: &Config,
    a: &[P::Elem],
    b: &[P::Elem],
) -> (f64, Vec<P::Out>, usize) {
    let mut best = f64::INFINITY;
    let mut first: Option<Vec<P::Out>> = None;
    let mut unstable = 0;
    let reps = cfg.reps.max(1);
    for rep in 0..cfg.warmup + reps {
        let mut c = std::vec![P::Out::ZERO; cfg.m * cfg.n];
        let start = Instant::now();
        gemm::<T, P>(cfg.m, cfg.n, cfg.k, a, b, &mut c, cfg.threads);
        if rep >= cfg.warmup {
            best = best.min(start.elapsed().as_secs_f64());
        }
        match &first {
            None => first = Some(c),
            Some(f) => unstable += compare(cfg.n, &c, f).0,
        }
    }
    (best, first.unwrap_or_default(), unstable)
}

/// Random A and B, the tutorial GEMM, and a bitwise comparison with
/// [`reference::gemm`] under the policy's arithmetic.
///
/// ```
/// use mfma_gemm::catalog::{check, Config};
/// use mfma_gemm::{GlobalTiles, MfmaPolicy};
/// let cfg = Config { m: 33, n: 40, k: 19, seed: 1, threads: 2, warmup: 0, reps: 1 };
/// let out = check::<GlobalTiles<64, 64, 16>, MfmaPolicy<mfma_core::mfma!(f32_32x32x8f16)>>(&cfg);
/// assert!(out.bit_exact(), "{:?}", out.first_mismatch);
/// ```
pub fn check<T: TilePolicy, P: ComputePolicy>(cfg: &Config) -> Outcome {
    let a = crate::random::matrix::<P::Elem>(cfg.m * cfg.k, cfg.seed);
    let b = crate::random::matrix::<P::Elem>(cfg.k * cfg.n, cfg.seed.wrapping_add(1));
    let (seconds, got, unstable) = timed::<T, P>(cfg, &a, &b);
    let start = Instant::now();
    let want: Vec<P::Out> = reference::gemm(P::ARITH, P::K_STEP, cfg.m, cfg.n, cfg.k, &a, &b);
    let reference_seconds = start.elapsed().as_secs_f64();
    let (mismatches, first_mismatch) = compare(cfg.n, &got, &want);
    Outcome {
        seconds,
        reference_seconds,
        ops: 2.0 * (cfg.m * cfg.n * cfg.k) as f64,
        mismatches: mismatches + unstable,
        first_mismatch,
    }
}

/// The kernel time of [`check`] alone: same inputs, no reference.
pub fn time<T: TilePolicy, P: ComputePolicy>(cfg: &Config) -> f64 {
    let a = crate::random::matrix::<P::Elem>(cfg.m * cfg.k, cfg.seed);
    let b = crate::random::matrix::<P::Elem>(cfg.k * cfg.n, cfg.seed.wrapping_add(1));
    timed::<T, P>(cfg, &a, &b).0
}

/// A closure running [`chains_alone`](crate::chains_alone) `rounds` times
/// per call; it returns the multiply-adds run.
pub type ChainsRun = Box<dyn FnMut(usize) -> usize + Send>;

/// [`Entry::chains`]: random inputs for one workgroup (a block tile of A
/// and of B, one K tile deep; `cfg`'s seed), then a closure that runs
/// [`chains_alone`](crate::chains_alone) on them: each call stages the
/// tile once, then runs every worker's step `rounds` times.
///
/// ```
/// use mfma_gemm::catalog::{find, Config};
/// let cfg = Config { m: 256, n: 256, k: 256, seed: 1, threads: 1, warmup: 0, reps: 1 };
/// let mut run = (find("f32_32x32x2f32").unwrap().chains)(&cfg);
/// assert_eq!(run(2), 2 * 128 * 128 * 64); // block tile 128x128, K strip 64
/// ```
pub fn chains<T: TilePolicy, P: ComputePolicy>(cfg: &Config) -> ChainsRun {
    let (m, n, k) = (T::BLOCK_TILE_M, T::BLOCK_TILE_N, T::K_TILE_SIZE);
    let a = crate::random::matrix::<P::Elem>(m * k, cfg.seed);
    let b = crate::random::matrix::<P::Elem>(k * n, cfg.seed.wrapping_add(1));
    let mut c = std::vec![P::Out::ZERO; m * n];
    Box::new(move |rounds| {
        let p = crate::Problem::new(m, n, k, &a, &b, &mut c);
        crate::chains_alone::<T, P>(&p, &mut crate::HostScratch::new(&p), rounds)
    })
}

/// [`Entry::prepare`]: random inputs as for [`check`], then a closure that
/// runs the GEMM on them.
pub fn prepare<T: TilePolicy, P: ComputePolicy>(cfg: &Config) -> Box<dyn FnMut()> {
    let cfg = *cfg;
    let a = crate::random::matrix::<P::Elem>(cfg.m * cfg.k, cfg.seed);
    let b = crate::random::matrix::<P::Elem>(cfg.k * cfg.n, cfg.seed.wrapping_add(1));
    let mut c = std::vec![P::Out::ZERO; cfg.m * cfg.n];
    Box::new(move || gemm::<T, P>(cfg.m, cfg.n, cfg.k, &a, &b, &mut c, cfg.threads))
}

/// A GEMM ready to run, returning its [`Profile`](crate::Profile) and a
/// hash of its output (see [`prepare_profiled`]).
pub type ProfiledRun = Box<dyn FnMut() -> (crate::Profile, u64)>;

/// [`prepare`], each call of the closure a [`gemm_profiled`](crate::gemm_profiled)
/// run that returns where its time went, and a hash of the output's bits
/// (to compare runs on different thread counts without a reference).
pub fn prepare_profiled<T: TilePolicy, P: ComputePolicy>(cfg: &Config) -> ProfiledRun {
    let cfg = *cfg;
    let a = crate::random::matrix::<P::Elem>(cfg.m * cfg.k, cfg.seed);
    let b = crate::random::matrix::<P::Elem>(cfg.k * cfg.n, cfg.seed.wrapping_add(1));
    let mut c = std::vec![P::Out::ZERO; cfg.m * cfg.n];
    Box::new(move || {
        let p = crate::gemm_profiled::<T, P>(cfg.m, cfg.n, cfg.k, &a, &b, &mut c, cfg.threads);
        // FNV-1a over the output's bits.
        let hash = c.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
            (h ^ x.to_bits_u64()).wrapping_mul(0x0000_0100_0000_01b3)
        });
        (p, hash)
    })
}

/// The seed's demo: a random `m × k` A times the `k × k` identity must give
/// A back exactly (`cfg.n` is ignored).
///
/// ```
/// use mfma_gemm::catalog::{check_identity, Config};
/// use mfma_gemm::{GlobalTiles, MfmaCdna2F64Policy};
/// let cfg = Config { m: 20, n: 0, k: 36, seed: 3, threads: 1, warmup: 0, reps: 1 };
/// assert!(check_identity::<GlobalTiles<32, 32, 4>, MfmaCdna2F64Policy>(&cfg).bit_exact());
/// ```
pub fn check_identity<T, P>(cfg: &Config) -> Outcome
where
    T: TilePolicy,
    P: ComputePolicy<Elem = f64, Out = f64>,
{
    let cfg = Config { n: cfg.k, ..*cfg };
    let a = crate::random::matrix::<f64>(cfg.m * cfg.k, cfg.seed);
    let eye: Vec<f64> = (0..cfg.k * cfg.k)
        .map(|x| if x / cfg.k == x % cfg.k { 1.0 } else { 0.0 })
        .collect();
    let (seconds, got, unstable) = timed::<T, P>(&cfg, &a, &eye);
    let (mismatches, first_mismatch) = compare(cfg.n, &got, &a);
    Outcome {
        seconds,
        reference_seconds: 0.0,
        ops: 2.0 * (cfg.m * cfg.n * cfg.k) as f64,
        mismatches: mismatches + unstable,
        first_mismatch,
    }
}

/// Runs the GPU GEMM kernel of a policy: the HIP launcher on an AMD GPU
/// (the `matrix_multiply` example's `--device`), or in tests a stand-in.
/// Matrices cross as raw element bytes (little-endian, row-major), so that
/// an implementation needs no element types.
///
/// ```
/// use mfma_gemm::catalog::{check_device, find, Config, DeviceError, GemmDevice};
/// use mfma_core::spec::Builtin;
/// /// A "GPU" that returns C = 0.
/// struct Zeros;
/// impl GemmDevice for Zeros {
///     fn gemm(&mut self, b: &'static Builtin, _a: &[u8], _b: &[u8], [m, n, _]: [usize; 3], _reps: usize)
///         -> Result<(Vec<u8>, f64), DeviceError> {
///         Ok((vec![0; m * n * b.cd.bits() as usize / 8], 1e-3))
///     }
/// }
/// let e = find("f32_32x32x8f16").unwrap();
/// let cfg = Config { m: 40, n: 40, k: 8, seed: 1, threads: 1, warmup: 0, reps: 1 };
/// let out = check_device(e, &cfg, &mut Zeros).unwrap();
/// assert!(!out.bit_exact()); // random inputs do not multiply to zero
/// assert_eq!(out.seconds, 1e-3);
/// ```
pub trait GemmDevice {
    /// Runs the GEMM kernel of `builtin`'s policy `reps` times (at least
    /// once) on row-major `a` (`m × k`) and `b` (`k × n`) of its input
    /// type, `[m, n, k] = mnk`; returns C (`m × n` of its output type) and
    /// the best kernel time in seconds.
    ///
    /// # Errors
    /// Whatever stops the run (no kernel for this builtin, a failed launch).
    fn gemm(
        &mut self,
        builtin: &'static Builtin,
        a: &[u8],
        b: &[u8],
        mnk: [usize; 3],
        reps: usize,
    ) -> Result<(Vec<u8>, f64), DeviceError>;
}

/// Why a [`GemmDevice`] could not run.
pub type DeviceError = Box<dyn std::error::Error + Send + Sync>;

/// Elements as little-endian bytes.
fn to_bytes<E: Element>(v: &[E]) -> Vec<u8> {
    let n = E::TYPE.bits() as usize / 8;
    v.iter()
        .flat_map(|x| x.to_bits_u64().to_le_bytes().into_iter().take(n))
        .collect()
}

/// Little-endian bytes as elements (a trailing partial element is dropped).
fn from_bytes<E: Element>(b: &[u8]) -> Vec<E> {
    let n = E::TYPE.bits() as usize / 8;
    b.chunks_exact(n)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(c);
            E::from_bits_u64(u64::from_le_bytes(w))
        })
        .collect()
}

/// [`Entry::check_device`]: the inputs of [`check`], the policy's GPU
/// kernel on `device`, and every output bit compared with the software
/// path's (the host's `gemm` with the same policy). In the outcome,
/// `seconds` is the best GPU time and `reference_seconds` the software
/// path's.
fn device_check<T: TilePolicy, P: ComputePolicy>(
    entry: &Entry,
    cfg: &Config,
    device: &mut dyn GemmDevice,
) -> Result<Outcome, DeviceError> {
    let builtin = entry
        .builtin
        .filter(|_| entry.gpu.is_some())
        .ok_or_else(|| format!("{} has no GPU kernel", entry.name))?;
    let a = crate::random::matrix::<P::Elem>(cfg.m * cfg.k, cfg.seed);
    let b = crate::random::matrix::<P::Elem>(cfg.k * cfg.n, cfg.seed.wrapping_add(1));
    let (c, seconds) = device.gemm(
        builtin,
        &to_bytes(&a),
        &to_bytes(&b),
        [cfg.m, cfg.n, cfg.k],
        cfg.reps,
    )?;
    let out_bytes = cfg.m * cfg.n * P::Out::TYPE.bits() as usize / 8;
    if c.len() != out_bytes {
        return Err(format!(
            "{}: the device returned {} bytes of C, not {out_bytes}",
            entry.name,
            c.len()
        )
        .into());
    }
    let got = from_bytes::<P::Out>(&c);
    let start = Instant::now();
    let mut want = std::vec![P::Out::ZERO; cfg.m * cfg.n];
    gemm::<T, P>(cfg.m, cfg.n, cfg.k, &a, &b, &mut want, cfg.threads);
    let reference_seconds = start.elapsed().as_secs_f64();
    let (mismatches, first_mismatch) = compare(cfg.n, &got, &want);
    Ok(Outcome {
        seconds,
        reference_seconds,
        ops: 2.0 * (cfg.m * cfg.n * cfg.k) as f64,
        mismatches,
        first_mismatch,
    })
}

/// Runs `entry`'s GPU kernel on `device` at `cfg` and compares every output
/// bit with the software path ([`Entry::check_device`]).
///
/// # Errors
/// For an entry without a GPU kernel, or what `device` reports.
pub fn check_device(
    entry: &Entry,
    cfg: &Config,
    device: &mut dyn GemmDevice,
) -> Result<Outcome, DeviceError> {
    (entry.check_device)(entry, cfg, device)
}

/// The policies with a GPU kernel for an architecture (`cdna2`, `cdna3`),
/// in catalog order: what `--device` runs on a GPU of it.
///
/// ```
/// let names: Vec<_> = mfma_gemm::catalog::for_arch("cdna3").map(|e| e.name).collect();
/// assert_eq!(
///     names,
///     [
///         "cdna3::f32_32x32x8f16",
///         "cdna3::f32_32x32x8bf16_1k",
///         "cdna3::f32_32x32x16_fp8_fp8",
///         "cdna3::f64_16x16x4f64",
///         "cdna3::f32_32x32x2f32",
///         "cdna3::i32_32x32x16_i8",
///         "cdna3::f32_32x32x4_xf32",
///         "cdna3::f32_32x32x16_bf8_bf8",
///         "cdna3::f32_16x16x16f16",
///         "cdna3::f32_16x16x16bf16_1k",
///         "cdna3::f32_16x16x32_fp8_fp8",
///     ]
/// );
/// ```
pub fn for_arch(arch: &str) -> impl Iterator<Item = &'static Entry> + '_ {
    POLICIES
        .iter()
        .filter(move |e| e.gpu.is_some() && e.builtin.is_some_and(|b| b.arch == arch))
}

/// The policy with a GPU kernel for `arch` whose builtin does `entry`'s job
/// there ([`Builtin::counterpart`]): what to suggest when `entry` has no
/// kernel for it.
///
/// ```
/// use mfma_gemm::catalog::{counterpart, find};
/// let on = |name, arch| counterpart(find(name).unwrap(), arch).map(|e| e.name);
/// assert_eq!(on("f64_16x16x4f64", "cdna3"), Some("cdna3::f64_16x16x4f64"));
/// assert_eq!(on("i32_32x32x8i8", "cdna3"), Some("cdna3::i32_32x32x16_i8"));
/// assert_eq!(on("cdna3::f32_32x32x4_xf32", "cdna2"), None); // CDNA3 only
/// assert_eq!(on("scalar_fma_f64", "cdna3"), None);
/// ```
pub fn counterpart(entry: &Entry, arch: &str) -> Option<&'static Entry> {
    let there = entry.builtin?.counterpart(mfma_core::spec::arch(arch)?)?;
    for_arch(arch).find(|e| e.builtin == Some(there))
}

/// A policy pair the demo can run by name. The fields describe it as data,
/// so that a build script can generate the same kernels for the GPU.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Name on the command line and in the table.
    pub name: &'static str,
    /// Whether results count integer operations (GOP/s) rather than flops.
    pub integer: bool,
    /// The host tiles.
    pub tiles: HostTiles,
    /// The host tiles when the AVX-512 kernels run, if they differ (see
    /// [`LongF64Tiles512`]); [`Entry::host_tiles`] picks.
    pub avx512: Option<HostTiles>,
    /// The builtin of an MFMA policy (`None` for the scalar one).
    pub builtin: Option<&'static Builtin>,
    /// The tile policy of the policy's GPU kernel (`None`: no GPU kernel).
    /// The host's `block` is tuned for the host's caches; on the GPU the
    /// strips are staged in LDS, whose size limits how many workgroups a
    /// compute unit holds.
    pub gpu: Option<GpuTiles>,
    /// Checked run at a configuration.
    pub run: fn(&Config) -> Outcome,
    /// Timing only: the best kernel time over `cfg.reps` runs, in seconds,
    /// on the same inputs as `run` (for extra thread counts of one check).
    pub time: fn(&Config) -> f64,
    /// The inputs of `run`, ready: each call of the returned closure is one
    /// untimed, unchecked GEMM at `cfg` (for benchmark harnesses).
    pub prepare: fn(&Config) -> Box<dyn FnMut()>,
    /// As `prepare`, each run timed phase by phase (to see what limits
    /// scaling with threads).
    pub prepare_profiled: fn(&Config) -> ProfiledRun,
    /// The chains alone on one workgroup's inputs (see [`chains`]), with
    /// the host tiles a GEMM of `cfg` uses.
    pub chains: fn(&Config) -> ChainsRun,
    /// The policy's GPU kernel on a [`GemmDevice`], checked bit for bit
    /// against the software path (see [`check_device`]).
    pub check_device: fn(&Entry, &Config, &mut dyn GemmDevice) -> Result<Outcome, DeviceError>,
}

/// A host tile policy as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostTiles {
    /// Block tile (rows, columns).
    pub block: (usize, usize),
    /// K strip.
    pub k_tile: usize,
    /// Workers per workgroup.
    pub workers: usize,
}

impl HostTiles {
    const fn of<T: TilePolicy, P: ComputePolicy>() -> HostTiles {
        HostTiles {
            block: (T::BLOCK_TILE_M, T::BLOCK_TILE_N),
            k_tile: T::K_TILE_SIZE,
            workers: workers_per_block::<T, P>(),
        }
    }
}

impl Entry {
    /// The host tiles a run of `cfg` on this thread uses: [`Entry::avx512`]
    /// where the AVX-512 kernels run ([`Kernels::active`]) and its grid
    /// gives each thread at least 8 workgroups, the others elsewhere.
    ///
    /// ```
    /// use mfma_core::soft::{with_kernels, Kernels};
    /// use mfma_gemm::catalog::{find, Config};
    /// let cfg = Config { m: 2048, n: 2048, k: 2048, seed: 1, threads: 1, warmup: 0, reps: 1 };
    /// let f64 = find("f64_16x16x4f64").unwrap();
    /// let tiles = with_kernels(Kernels::Avx2, || f64.host_tiles(&cfg));
    /// assert_eq!((tiles.block, tiles.k_tile, tiles.workers), ((64, 64), 64, 16));
    /// if Kernels::available() == Kernels::Avx512 {
    ///     assert_eq!(f64.host_tiles(&cfg).block, (128, 128));
    /// }
    /// // 64 workgroups of 128×128 at 1024², too few for 16 threads.
    /// let small = Config { m: 1024, n: 1024, threads: 16, ..cfg };
    /// assert_eq!(f64.host_tiles(&small).block, (64, 64));
    /// ```
    pub fn host_tiles(&self, cfg: &Config) -> HostTiles {
        self.avx512
            .filter(|wide| wide_fits(wide.block, cfg))
            .unwrap_or(self.tiles)
    }
}

/// Whether a run of `cfg` takes an entry's AVX-512 tiles (blocks of
/// `block`): under the AVX-512 kernels, if their grid gives each thread at
/// least 8 workgroups. On 16 Xeon threads at 1024³ (4 workgroups each, and
/// each strip of A packed by two threads) the 128×128 f64 tiles ran 7–10 %
/// slower than 64×64; at 2048³ (16 each) 12–17 % faster.
fn wide_fits((bm, bn): (usize, usize), cfg: &Config) -> bool {
    let workgroups = cfg.m.div_ceil(bm) * cfg.n.div_ceil(bn);
    Kernels::active() == Kernels::Avx512 && workgroups >= 8 * cfg.threads.max(1)
}

const fn entry<T: TilePolicy, P: ComputePolicy>(name: &'static str) -> Entry {
    Entry {
        name,
        integer: !P::Out::TYPE.is_float(),
        tiles: HostTiles::of::<T, P>(),
        avx512: None,
        builtin: None,
        gpu: None,
        run: check::<T, P>,
        time: time::<T, P>,
        prepare: prepare::<T, P>,
        prepare_profiled: prepare_profiled::<T, P>,
        chains: chains::<T, P>,
        check_device: device_check::<T, P>,
    }
}

/// An MFMA policy, named after its builtin, with the GPU tile
/// [`GpuTiles::for_builtin`] chooses.
const fn mfma<T: TilePolicy, X: Instr>() -> Entry {
    Entry {
        builtin: Some(X::SPEC),
        gpu: Some(GpuTiles::for_builtin(X::SPEC)),
        ..entry::<T, MfmaPolicy<X>>(X::SPEC.name)
    }
}

/// An MFMA policy on host tiles `T`, or `W` where the AVX-512 kernels run.
const fn mfma_by_copy<T: TilePolicy, W: TilePolicy, X: Instr>() -> Entry {
    type P<X> = MfmaPolicy<X>;
    Entry {
        avx512: Some(HostTiles::of::<W, P<X>>()),
        run: by_copy::check::<T, W, P<X>>,
        time: by_copy::time::<T, W, P<X>>,
        prepare: by_copy::prepare::<T, W, P<X>>,
        prepare_profiled: by_copy::prepare_profiled::<T, W, P<X>>,
        chains: by_copy::chains::<T, W, P<X>>,
        check_device: by_copy::device_check::<T, W, P<X>>,
        ..mfma::<T, X>()
    }
}

/// The entry points of an entry whose host tiles depend on the kernel copy
/// that runs: `T`'s, or `W`'s under the AVX-512 kernels. The bits are the
/// same either way (each output gets its k in order, whatever the tiles).
mod by_copy {
    use super::*;

    fn wide<W: TilePolicy>(cfg: &Config) -> bool {
        wide_fits((W::BLOCK_TILE_M, W::BLOCK_TILE_N), cfg)
    }

    /// `$name::<T, W, P>`: `super::$name::<W, P>` where `W` fits
    /// `$cfg`'s problem under the AVX-512 kernels, else
    /// `super::$name::<T, P>`, with the same arguments.
    macro_rules! dispatch {
        ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, by $cfg:ident;)*) => {$(
            pub(super) fn $name<T: TilePolicy, W: TilePolicy, P: ComputePolicy>(
                $($arg: $ty),*
            ) -> $ret {
                if wide::<W>($cfg) {
                    super::$name::<W, P>($($arg),*)
                } else {
                    super::$name::<T, P>($($arg),*)
                }
            }
        )*};
    }

    dispatch! {
        check(cfg: &Config) -> Outcome, by cfg;
        time(cfg: &Config) -> f64, by cfg;
        prepare(cfg: &Config) -> Box<dyn FnMut()>, by cfg;
        prepare_profiled(cfg: &Config) -> ProfiledRun, by cfg;
        chains(cfg: &Config) -> ChainsRun, by cfg;
        device_check(
            entry: &Entry,
            cfg: &Config,
            device: &mut dyn GemmDevice
        ) -> Result<Outcome, DeviceError>, by cfg;
    }
}

/// The tile policy of an MFMA policy's GPU kernel:
/// [`StagedTiles`](crate::StagedTiles)`<BM, BN, KT, NB>` with these
/// parameters, staging each K strip through LDS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuTiles {
    /// Block tile (rows, columns).
    pub block: (usize, usize),
    /// K strip.
    pub k_tile: usize,
    /// 1: single buffering, 2: double buffering.
    pub buffers: usize,
}

impl GpuTiles {
    /// The GPU tile for builtin `b`: 2 × 2 waves (256 threads, the
    /// tutorial's MFMA launch), each computing one instruction's output;
    /// K strips of 32 bytes per row, and at least two K steps; double
    /// buffered.
    ///
    /// That stages 8 KiB of LDS per workgroup for the one-block 32×32
    /// builtins (12 KiB for the two-block ones), so LDS leaves room for 8
    /// workgroups per compute unit, and a thread's share of a strip is 4 to
    /// 8 elements, which keeps the kernels well inside the 128 VGPRs LLVM
    /// allows a kernel that may be launched with 1024 threads (Rust cannot
    /// declare a smaller maximum). Registers then allow 5 to 8 waves per
    /// SIMD; the device check prints and verifies the figure (at least 2).
    ///
    /// ```
    /// use mfma_gemm::catalog::GpuTiles;
    /// let f32 = GpuTiles::for_builtin(mfma_core::spec::find("f32_32x32x2f32").unwrap());
    /// assert_eq!(f32, GpuTiles { block: (64, 64), k_tile: 8, buffers: 2 });
    /// let i8 = GpuTiles::for_builtin(mfma_core::spec::find("i32_32x32x8i8").unwrap());
    /// assert_eq!((i8.k_tile, i8.lds_bytes(1)), (32, 8192));
    /// let f64 = GpuTiles::for_builtin(mfma_core::spec::find("f64_16x16x4f64").unwrap());
    /// assert_eq!((f64.block, f64.k_tile), ((32, 32), 8)); // two steps of 4
    /// ```
    pub const fn for_builtin(b: &Builtin) -> GpuTiles {
        let per_row = 32 * 8 / b.a_type.bits() as usize;
        let k_tile = if per_row > 2 * b.k { per_row } else { 2 * b.k };
        GpuTiles {
            block: (2 * b.m * b.blocks, 2 * b.n),
            k_tile: k_tile.next_multiple_of(b.k),
            buffers: 2,
        }
    }

    /// Workgroup memory (LDS) the kernel stages its strips in, for elements
    /// of `elem_bytes` bytes: what the launch must pass as dynamic LDS.
    pub const fn lds_bytes(&self, elem_bytes: usize) -> usize {
        let (bm, bn) = self.block;
        crate::staged_bytes(bm, bn, self.k_tile, self.buffers, elem_bytes)
    }

    /// Threads of one workgroup of an [`MfmaPolicy`] over `b`: one wave per
    /// instruction tile of the block.
    pub const fn threads(&self, b: &Builtin) -> usize {
        let (bm, bn) = self.block;
        (bm / (b.m * b.blocks)) * (bn / b.n) * mfma_core::spec::WAVE
    }
}

/// The seed's tile for the FP64 MFMA policy: 32×32 block, K strip of 4.
pub type SeedTiles = GlobalTiles<32, 32, 4>;
/// The tile for the 32×32 builtins: 64×64 block (2×2 waves), K strip of 16.
pub type WideTiles = GlobalTiles<64, 64, 16>;
/// The demo's tile for the 32×32 builtins: a 128×128 block (4×4 waves, the
/// 1024 threads a gfx90a workgroup may have) and a K strip of 64. On the
/// host a workgroup packs each strip once for its 16 waves, so a larger
/// block packs each element of A and B fewer times; 64 steps of K keep a
/// wave's slice of the packed strip in the L1 cache.
pub type LongTiles = GlobalTiles<128, 128, 64>;
/// The demo's tile for `f64_16x16x4f64`: a 64×64 block (4×4 waves of
/// 16×16), K strip of 64 (16 steps).
pub type LongF64Tiles = GlobalTiles<64, 64, 64>;
/// The host's tile for `f64_16x16x4f64` where the AVX-512 kernels run: a
/// 128×128 block, K strip of 32.
///
/// A workgroup packs a K strip of B for itself, so the block's height sets
/// how often each element of B is packed: with 64×64 blocks packing took a
/// fifth of an f64 GEMM's time on one Xeon thread (2048³), twice f32's
/// share, for f64 packs twice the bytes per product. A taller block packs
/// half as often, but its strip of A must still fit the L1 cache beside a
/// wave's columns of B, as the waves of a column walk down it: hence the
/// shorter strip, 32 KiB of A in the Xeon's 48 KiB. (On Zen 3's 32 KiB L1
/// the AVX2 kernels ran their chains 25 % slower so: they keep
/// [`LongF64Tiles`].) On the Xeon, three alternating rounds each: 2048³ on
/// one thread 37–41 GFLOP/s became 47–49 (packing 78–89 ms became 29), on
/// 16 threads 450–498 became 528–571; 1024³ on one thread 35–41 became
/// 42–47. Runs that would give a thread fewer than 8 of these workgroups
/// keep the smaller tiles (see [`Entry::host_tiles`]). The host runs the
/// workgroup's 64 waves as it runs 16; no GPU launches this tile (see
/// [`GpuTiles`]).
pub type LongF64Tiles512 = GlobalTiles<128, 128, 32>;

/// An MFMA policy entry named as `mfma!` names its builtin
/// (`cdna3::f32_32x32x8f16`).
macro_rules! policy {
    (($tiles:ty, avx512: $wide:ty), $($builtin:tt)+) => {
        Entry {
            name: stringify!($($builtin)+),
            ..mfma_by_copy::<$tiles, $wide, mfma!($($builtin)+)>()
        }
    };
    ($tiles:ty, $($builtin:tt)+) => {
        Entry {
            name: stringify!($($builtin)+),
            ..mfma::<$tiles, mfma!($($builtin)+)>()
        }
    };
}

/// Every policy the demo runs by default, fallback first: the CDNA2 ones,
/// then the CDNA3 ones, so that each architecture's GPU has a GEMM kernel
/// of every input type it multiplies ([`for_arch`]).
pub const POLICIES: &[Entry] = &[
    entry::<GlobalTiles<32, 32, 8>, ScalarFmaPolicy>("scalar_fma_f64"),
    policy!((LongF64Tiles, avx512: LongF64Tiles512), f64_16x16x4f64),
    policy!(LongTiles, f32_32x32x2f32),
    policy!(LongTiles, f32_32x32x8f16),
    policy!(LongTiles, f32_32x32x4bf16),
    policy!(LongTiles, f32_32x32x8bf16_1k),
    policy!(LongTiles, i32_32x32x8i8),
    // The families whose arithmetic differs from CDNA2's first (the
    // `--compare` targets name them), then those computed as on CDNA2,
    // which a gfx942 still needs kernels of: the seed's FP64 GEMM, f32, and
    // i8, whose CDNA2 instruction MI300 lacks (it has twice the K); then
    // the types CDNA2 lacks: xf32, and bf8 (fp8's family).
    policy!(LongTiles, cdna3::f32_32x32x8f16),
    policy!(LongTiles, cdna3::f32_32x32x8bf16_1k),
    policy!(LongTiles, cdna3::f32_32x32x16_fp8_fp8),
    policy!((LongF64Tiles, avx512: LongF64Tiles512), cdna3::f64_16x16x4f64),
    policy!(LongTiles, cdna3::f32_32x32x2f32),
    policy!(LongTiles, cdna3::i32_32x32x16_i8),
    policy!(LongTiles, cdna3::f32_32x32x4_xf32),
    policy!(LongTiles, cdna3::f32_32x32x16_bf8_bf8),
    // The 16x16 shapes MI300 kernels use most, after their families'
    // 32x32 ones (which `--compare`'s targets name).
    policy!(LongTiles, cdna3::f32_16x16x16f16),
    policy!(LongTiles, cdna3::f32_16x16x16bf16_1k),
    policy!(LongTiles, cdna3::f32_16x16x32_fp8_fp8),
];

/// The policy of the identity demo row.
pub const IDENTITY: Entry = Entry {
    name: "identity (f64_16x16x4f64)",
    run: check_identity::<SeedTiles, MfmaCdna2F64Policy>,
    ..entry::<SeedTiles, MfmaCdna2F64Policy>("")
};

/// Looks a policy up by name.
pub fn find(name: &str) -> Option<&'static Entry> {
    POLICIES.iter().find(|e| e.name == name)
}
