//! The seed's matrix-multiply demo on the software path: every policy runs
//! the same tutorial kernel on seeded random inputs, and every output is
//! compared bit for bit with an independent reference GEMM.
//!
//! ```text
//! cargo run --release --example matrix_multiply
//! cargo run --release --example matrix_multiply -- --size 256,128,300 --policy f32_32x32x8f16,scalar_fma_f64
//! cargo run --release --example matrix_multiply -- --compare
//! ```
//! Exits with status 1 if any output differs.
//!
//! `--compare` (size 1024 unless given) times every MFMA policy on one
//! thread and on every core (or `--threads N`) next to the `matrixmultiply`
//! crate's sgemm/dgemm on the same number of threads (the same threads:
//! the GEMM's pool, the calling thread first), the four runs alternating
//! (best of 15 each), and ends with two lines per input type:
//! `ratio dtype=… threads=1 emulated_gflops=… baseline_gflops=… ratio=…`
//! and the same with `threads=all` (`threads=N` under `--threads N`); f64 is
//! measured against dgemm, every other type against sgemm, i8 in ops/s. A dtype is
//! the builtin's input type, with `_1k` for CDNA2's bf16_1k family and
//! `_cdna3` for CDNA3's builtins, and the builtin's shape after that for a
//! family's second policy (`f16_cdna3_16x16x16`). matrixmultiply runs its AVX-512 kernels
//! on a CPU with AVX-512F; built with `--no-default-features` (no
//! `baseline-avx512`) it runs its AVX2 ones, so that
//! `MFMA_KERNELS=avx2` on an AVX-512 machine times both sides as an
//! AVX2-only host would run them.
//!
//! `--device` runs the policies' GPU kernels (the code object that
//! `scripts/check-device.sh` builds for the GPU's target) on an AMD GPU
//! through the HIP runtime: every policy of the GPU's architecture (or the
//! `--policy` ones), on the same inputs, every output compared bit for bit
//! with the software path; the table adds the GPU time and TFLOP/s (TOP/s
//! for i8). Without a usable GPU it prints one line saying why (no HIP
//! runtime library, no AMD GPU, an unsupported target, no code object) and
//! exits with status 2; 1 if any output differs, 2 if a launch fails.
//!
//! `--sweep 1,2,4,8,16` (size 2048 unless given) times every MFMA policy
//! and its baseline at each thread count, alternating, checks that every
//! count gives the bits of the first, and prints where each thread's time
//! went (spawn, packing, chains, stores, waiting for the last thread).
//! Three yardsticks tell the machine's part from the GEMM's: a register-only
//! fma loop before and after the policies; under each policy its chains
//! alone on each thread count (`mfma_gemm::chains_alone`: one staged K tile
//! a thread, no packing, nothing read from beyond L2); and as many
//! independent one-thread GEMMs of the policy as threads, each with inputs
//! of its own, run back to back: the ceiling of any split of one GEMM's
//! work, as the machine's all-core clocks, shared caches and memory and
//! other tenants leave it. A policy that reaches its copies' rate loses
//! nothing to the way its work is split; one that scales as its chains
//! alone do loses nothing to packing or memory; what the chains lose
//! against the loop is the cores'. Each also prints the share of its
//! threads' time the hypervisor gave other guests (`steal`, from
//! `/proc/stat`, on Linux): on a shared virtual machine, time no code of
//! ours can win back. The last lines add `ceiling dtype=… threads=…
//! copies_gflops=… copies_speedup=…` per policy and count.

use clap::Parser;
use mfma_gemm::catalog::{self, Config, Entry, Outcome};
use std::process::ExitCode;

/// Tiled GEMM through the MFMA software path, checked bitwise.
#[derive(Parser, Debug)]
#[command(name = "matrix_multiply")]
struct Args {
    /// Problem size: `M` (square) or `M,N,K` [default: 512, 1024 with --compare].
    #[arg(long, value_parser = parse_size)]
    size: Option<(usize, usize, usize)>,
    /// Rows of A and C (overrides --size).
    #[arg(long)]
    m: Option<usize>,
    /// Columns of B and C (overrides --size).
    #[arg(long)]
    n: Option<usize>,
    /// Columns of A, rows of B (overrides --size).
    #[arg(long)]
    k: Option<usize>,
    /// Policies to run (repeat or separate by commas); default: all.
    #[arg(long = "policy", value_delimiter = ',')]
    policies: Vec<String>,
    /// Host threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Untimed warm-up runs per policy.
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// Timed repetitions per policy; the best time is reported [default:
    /// 3, 15 with --compare].
    #[arg(long)]
    reps: Option<usize>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Compare each MFMA policy with matrixmultiply's sgemm/dgemm, on one
    /// thread and on all cores (see the module docs).
    #[arg(long)]
    compare: bool,
    /// Time each MFMA policy and its baseline at each of these thread
    /// counts, with a breakdown of each thread's time (see the module docs).
    #[arg(long, value_delimiter = ',')]
    sweep: Vec<usize>,
    /// With --compare or --sweep: stop a policy's timed runs once they have
    /// taken this many seconds (at least one of each is run).
    #[arg(long, default_value_t = 60.0)]
    budget: f64,
    /// Run the GPU kernels on an AMD GPU through HIP and compare every
    /// output with the software path (see the module docs).
    #[arg(long, conflicts_with_all = ["compare", "sweep"])]
    device: bool,
}

fn parse_size(s: &str) -> Result<(usize, usize, usize), String> {
    let dims = s
        .split(',')
        .map(|d| d.trim().parse::<usize>().map_err(|e| format!("`{d}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    match dims[..] {
        [x] => Ok((x, x, x)),
        [m, n, k] => Ok((m, n, k)),
        _ => Err("expected M or M,N,K".into()),
    }
}

fn selected(names: &[String]) -> Result<Vec<&'static Entry>, String> {
    if names.is_empty() {
        return Ok(catalog::POLICIES.iter().collect());
    }
    names
        .iter()
        .map(|name| {
            catalog::find(name).ok_or_else(|| {
                let known: Vec<_> = catalog::POLICIES.iter().map(|e| e.name).collect();
                format!("unknown policy `{name}`; known: {}", known.join(", "))
            })
        })
        .collect()
}

fn row(e: &Entry, cfg: &Config, out: &Outcome) {
    let unit = if e.integer { "GOP/s" } else { "GFLOP/s" };
    let tiles = e.host_tiles(cfg);
    println!(
        "{:<26} {:>15} {:>7} {:>7} {:>9.3} {:>8.3} {:<7} {}",
        e.name,
        format!("{}x{}x{}", cfg.m, cfg.n, cfg.k),
        format!("{}x{}", tiles.block.0, tiles.block.1),
        tiles.workers,
        out.seconds,
        out.giga_ops_per_second(),
        unit,
        if out.bit_exact() { "yes" } else { "NO" },
    );
    if let Some(m) = out.first_mismatch {
        println!(
            "    {} outputs differ; first C[{}][{}] = {:#x}, reference {:#x}",
            out.mismatches, m.row, m.col, m.got, m.want
        );
    } else if !out.bit_exact() {
        println!("    repetitions disagree in {} outputs", out.mismatches);
    }
}

/// The `--help` epilogue: every policy `--policy` takes, from the catalog.
fn policies_help() -> String {
    let mut out =
        String::from("Policies (--policy NAME; default: all of them, then the identity demo):\n");
    for e in catalog::POLICIES {
        let what = match e.builtin {
            Some(b) => format!(
                "{}x{}x{} {} -> {}, {} block(s)",
                b.m,
                b.n,
                b.k,
                b.a_type.name(),
                b.cd.name(),
                b.blocks
            ),
            None => String::from("the tutorial's scalar FMA fallback"),
        };
        let wide = match e.avx512 {
            Some(t) => format!("; AVX-512: {}x{}, {}", t.block.0, t.block.1, t.k_tile),
            None => String::new(),
        };
        out += &format!(
            "  {:<30} {what}; block tile {}x{}, K strip {}{wide}\n",
            e.name, e.tiles.block.0, e.tiles.block.1, e.tiles.k_tile
        );
    }
    out
}

fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Args::command().after_help(policies_help()).get_matches();
    let args = match Args::from_arg_matches(&matches) {
        Ok(a) => a,
        Err(e) => e.exit(),
    };
    if args.device {
        return device::run(&args.policies, args.size, [args.m, args.n, args.k], &args);
    }
    let entries = match selected(&args.policies) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let size = args.size.unwrap_or(if !args.sweep.is_empty() {
        (2048, 2048, 2048)
    } else if args.compare {
        (1024, 1024, 1024)
    } else {
        (512, 512, 512)
    });
    let cfg = Config {
        m: args.m.unwrap_or(size.0),
        n: args.n.unwrap_or(size.1),
        k: args.k.unwrap_or(size.2),
        seed: args.seed,
        threads: args.threads.unwrap_or_else(mfma_gemm::available_threads),
        warmup: args.warmup,
        reps: args.reps.unwrap_or(if !args.sweep.is_empty() {
            5
        } else if args.compare {
            15
        } else {
            3
        }),
    };
    let kernels = mfma_core::soft::Kernels::active();
    println!(
        "kernels: {} (this CPU: {}; MFMA_KERNELS caps them)",
        kernels.name(),
        mfma_core::soft::Kernels::detected().name()
    );
    if args.compare || !args.sweep.is_empty() {
        println!(
            "baseline: matrixmultiply, {}",
            if cfg!(feature = "baseline-avx512") {
                "its AVX-512 kernels where the CPU has AVX-512F"
            } else {
                "its AVX2+FMA kernels at most (built without the baseline-avx512 feature)"
            }
        );
    }
    if !args.sweep.is_empty() {
        return compare::sweep(&entries, &cfg, &args.sweep, args.budget);
    }
    if args.compare {
        let label = match args.threads {
            Some(n) if n != mfma_gemm::available_threads() => n.to_string(),
            _ => "all".to_string(),
        };
        return compare::run(&entries, &cfg, &label, args.budget);
    }
    let mut runs: Vec<(&Entry, Config)> = entries.iter().map(|&e| (e, cfg)).collect();
    // The seed's demo: A times the identity must be A.
    if entries.iter().any(|e| e.name == "f64_16x16x4f64") {
        runs.push((&catalog::IDENTITY, Config { n: cfg.k, ..cfg }));
    }

    println!(
        "tiled GEMM on the MFMA software path: {} thread(s), {} warm-up + best of {} run(s), seed {}",
        cfg.threads,
        cfg.warmup,
        cfg.reps.max(1),
        cfg.seed
    );
    println!(
        "{:<26} {:>15} {:>7} {:>7} {:>9} {:>16} bit-exact",
        "policy", "size (MxNxK)", "block", "workers", "time (s)", "throughput"
    );
    let mut failed = 0;
    for (idx, (e, cfg)) in runs.iter().enumerate() {
        eprintln!(
            "[{}/{}] {} {}x{}x{} ...",
            idx + 1,
            runs.len(),
            e.name,
            cfg.m,
            cfg.n,
            cfg.k
        );
        let out = (e.run)(cfg);
        eprintln!(
            "[{}/{}] {}: kernel {:.3} s, reference {:.3} s",
            idx + 1,
            runs.len(),
            e.name,
            out.seconds,
            out.reference_seconds
        );
        row(e, cfg, &out);
        failed += usize::from(!out.bit_exact());
    }
    if failed > 0 {
        eprintln!("{failed} run(s) differ from the reference");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[path = "../benches/support/baseline.rs"]
mod baseline;

/// `--device`: the policies' GPU kernels through the HIP launcher.
mod device {
    use crate::Args;
    use mfma_core::spec::Builtin;
    use mfma_gemm::catalog::{self, Config, DeviceError, Entry, GemmDevice};
    use std::process::ExitCode;

    /// The launcher as the catalog's device: the code object's GEMM kernel
    /// of the builtin, its C and best time.
    struct Hip {
        gpu: mfma_hip::Gpu,
        module: mfma_hip::Module,
    }

    impl GemmDevice for Hip {
        fn gemm(
            &mut self,
            builtin: &'static Builtin,
            a: &[u8],
            b: &[u8],
            mnk: [usize; 3],
            reps: usize,
        ) -> Result<(Vec<u8>, f64), DeviceError> {
            let kernel = self.module.catalog().gemm(builtin).ok_or_else(|| {
                format!("the code object has no GEMM kernel of {}", builtin.path())
            })?;
            let run = self.module.run_gemm(&self.gpu, kernel, [a, b], mnk, reps)?;
            let best = run.best();
            Ok((run.c, best))
        }
    }

    /// `60_342_134` as `6.3.42134`.
    fn version(v: i32) -> String {
        format!("{}.{}.{}", v / 10_000_000, v / 100_000 % 100, v % 100_000)
    }

    pub fn run(
        names: &[String],
        size: Option<(usize, usize, usize)>,
        [m, n, k]: [Option<usize>; 3],
        args: &Args,
    ) -> ExitCode {
        let (gpu, module) = match mfma_hip::open() {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        let arch = gpu.target().arch().expect("open refuses other targets");
        let entries: Vec<&'static Entry> = if names.is_empty() {
            catalog::for_arch(arch.name).collect()
        } else {
            let mut out = Vec::new();
            for name in names {
                match catalog::find(name) {
                    Some(e) if catalog::for_arch(arch.name).any(|x| x.name == e.name) => {
                        out.push(e)
                    }
                    found => {
                        let known: Vec<_> = catalog::for_arch(arch.name).map(|e| e.name).collect();
                        let instead = found
                            .and_then(|e| catalog::counterpart(e, arch.name))
                            .map(|c| format!("; `{}` does its job there", c.name))
                            .unwrap_or_default();
                        eprintln!(
                            "error: `{name}` has no GPU kernel for {} ({}){instead}; these have one: {}",
                            gpu.target().processor,
                            arch.title,
                            known.join(", ")
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            out
        };
        let size = size.unwrap_or((512, 512, 512));
        let cfg = Config {
            m: m.unwrap_or(size.0),
            n: n.unwrap_or(size.1),
            k: k.unwrap_or(size.2),
            seed: args.seed,
            threads: args.threads.unwrap_or_else(mfma_gemm::available_threads),
            warmup: 0,
            reps: args.reps.unwrap_or(3),
        };
        let cat = module.catalog();
        println!(
            "GPU: {} (HIP device {}, {}, HIP runtime {}); code object v{}: {}",
            gpu.arch_name(),
            gpu.ordinal(),
            gpu.library(),
            version(gpu.runtime_version()),
            cat.version,
            cat.path.display()
        );
        println!(
            "tiled GEMM kernels on the GPU (best of {} launches) against the software path \
             ({} thread(s)), seed {}",
            cfg.reps.max(1),
            cfg.threads,
            cfg.seed
        );
        println!(
            "{:<30} {:>15} {:>7} {:>7} {:>9} {:>16} {:>11} {:>13} bit-exact",
            "policy",
            "size (MxNxK)",
            "block",
            "waves",
            "CPU (s)",
            "CPU throughput",
            "GPU (s)",
            "GPU"
        );
        let mut hip = Hip { gpu, module };
        let (mut differ, mut failed) = (0, 0);
        for e in entries {
            let gpu_tile = e.gpu.expect("for_arch gives GPU policies");
            let b = e.builtin.expect("for_arch gives MFMA policies");
            eprintln!("{} {}x{}x{} ...", e.name, cfg.m, cfg.n, cfg.k);
            match catalog::check_device(e, &cfg, &mut hip) {
                Ok(out) => {
                    let (cpu_unit, gpu_unit) = if e.integer {
                        ("GOP/s", "TOP/s")
                    } else {
                        ("GFLOP/s", "TFLOP/s")
                    };
                    println!(
                        "{:<30} {:>15} {:>7} {:>7} {:>9.3} {:>8.3} {:<7} {:>11.6} {:>7.2} {:<5} {}",
                        e.name,
                        format!("{}x{}x{}", cfg.m, cfg.n, cfg.k),
                        format!("{}x{}", gpu_tile.block.0, gpu_tile.block.1),
                        gpu_tile.threads(b) / 64,
                        out.reference_seconds,
                        out.ops / out.reference_seconds / 1e9,
                        cpu_unit,
                        out.seconds,
                        out.ops / out.seconds / 1e12,
                        gpu_unit,
                        if out.bit_exact() { "yes" } else { "NO" },
                    );
                    if let Some(m) = out.first_mismatch {
                        println!(
                            "    {} outputs differ; first C[{}][{}] = {:#x} on the GPU, {:#x} on the software path",
                            out.mismatches, m.row, m.col, m.got, m.want
                        );
                    }
                    differ += usize::from(!out.bit_exact());
                }
                Err(err) => {
                    println!("{:<30} failed: {err}", e.name);
                    eprintln!("error: {}: {err}", e.name);
                    failed += 1;
                }
            }
        }
        if failed > 0 {
            ExitCode::from(2)
        } else if differ > 0 {
            eprintln!("{differ} policy(ies) differ from the software path");
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// The register-only fma loops of `--sweep`'s machine probe.
mod probe {
    /// Independent accumulators: enough to cover the fma latency.
    pub const CHAINS: usize = 16;

    /// Clock ticks (1/100 s) that all CPUs have spent stolen by the
    /// hypervisor (running another guest while this one's vCPU was ready
    /// to run): `/proc/stat`'s steal time. `None` where there is none.
    pub fn steal_ticks() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        stat.lines().next()?.split_whitespace().nth(8)?.parse().ok()
    }

    /// Seconds stolen since [`steal_ticks`] read `before`.
    pub fn stolen_since(before: Option<u64>) -> Option<f64> {
        Some((steal_ticks()? - before?) as f64 / 100.0)
    }

    /// `iters` rounds of `CHAINS` fmas on `lanes` (8 or 16) f32 lanes.
    pub fn spin(lanes: usize, iters: usize) -> f32 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the caller picked `lanes` from the kernels the CPU runs.
            if lanes == 16 {
                return unsafe { spin512(iters) };
            }
            // SAFETY: as above.
            unsafe { spin256(iters) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (lanes, iters);
            0.0
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn spin512(iters: usize) -> f32 {
        use core::arch::x86_64::*;
        let (x, y) = (_mm512_set1_ps(0.999), _mm512_set1_ps(1e-7));
        let mut acc = [_mm512_set1_ps(1.0); CHAINS];
        for _ in 0..iters {
            for a in &mut acc {
                *a = _mm512_fmadd_ps(*a, x, y);
            }
        }
        acc.iter().map(|&a| _mm512_reduce_add_ps(a)).sum()
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn spin256(iters: usize) -> f32 {
        use core::arch::x86_64::*;
        let (x, y) = (_mm256_set1_ps(0.999), _mm256_set1_ps(1e-7));
        let mut acc = [_mm256_set1_ps(1.0); CHAINS];
        for _ in 0..iters {
            for a in &mut acc {
                *a = _mm256_fmadd_ps(*a, x, y);
            }
        }
        let mut out = [0.0f32; 8];
        let sum = acc
            .iter()
            .fold(_mm256_setzero_ps(), |s, &a| _mm256_add_ps(s, a));
        // SAFETY: `out` holds 8 f32.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), sum) };
        out.iter().sum()
    }
}

/// The `--compare` mode: MFMA policies next to matrixmultiply.
mod compare {
    use crate::baseline::Gemm;
    use mfma_gemm::catalog::{Config, Entry};
    use mfma_gemm::random;
    use std::process::ExitCode;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::Instant;

    /// The baseline's element type.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Base {
        Sgemm,
        Dgemm,
    }

    /// The type label of an MFMA policy: its family's ([`family`]) for the
    /// family's first policy in the catalog, the one the targets name;
    /// with the builtin's shape after it for the others
    /// (`f16_cdna3_16x16x16`).
    fn dtype(e: &Entry) -> Option<String> {
        let (x, label) = (e.builtin?, family(e)?);
        let first = mfma_gemm::catalog::POLICIES
            .iter()
            .find(|p| family(p).as_deref() == Some(&label));
        Some(match first {
            Some(first) if first.name != e.name => format!("{label}_{}x{}x{}", x.m, x.n, x.k),
            _ => label,
        })
    }

    /// The family label of an MFMA builtin: its input type; on the first
    /// architecture of the spec (CDNA2) `_1k` kept apart (its bf16 builtins
    /// with and without it are different families), on the others the
    /// architecture's name instead (`bf16_cdna3`: all its bf16 are `_1k`).
    fn family(e: &Entry) -> Option<String> {
        let x = e.builtin?;
        let base = mfma_core::spec::ARCHS.first().map(|a| a.name);
        let suffix = if Some(x.arch) != base {
            format!("_{}", x.arch)
        } else if x.name.ends_with("_1k") {
            "_1k".to_string()
        } else {
            String::new()
        };
        Some(format!("{}{suffix}", x.a_type.name()))
    }

    /// f64 inputs are measured against dgemm, everything else against sgemm.
    fn base_of(e: &Entry) -> Base {
        match e.builtin.map(|x| x.a_type.name()) {
            Some("f64") => Base::Dgemm,
            _ => Base::Sgemm,
        }
    }

    /// One matrixmultiply GEMM on `cfg.threads` threads, ready to run:
    /// C's rows split into one panel per thread, each a plain sgemm/dgemm
    /// call (the crate's own threading fixes its thread count once per
    /// process), on the emulated GEMM's own threads (`run_on_threads`, the
    /// calling thread first), so that both start alike. Before, each call
    /// spawned its threads, even one: a thread spawned per call is placed
    /// anew by the scheduler each time, so the best of N runs picked the
    /// baseline's best vCPU while the emulated runs stayed on the
    /// caller's (on the Xeon VM, f32 one thread 0.57–0.90 of sgemm so,
    /// 0.81–0.95 with the process pinned to one vCPU), and on 16 threads
    /// the baseline paid for spawning 15 that the emulated GEMM keeps.
    fn baseline_of<E: Gemm>(cfg: &Config) -> Box<dyn FnMut()> {
        let (m, n, k) = (cfg.m, cfg.n, cfg.k);
        let rows = m.div_ceil(cfg.threads.max(1)).max(1);
        let a = random::matrix::<E>(m * k, cfg.seed);
        let b = random::matrix::<E>(k * n, cfg.seed + 1);
        let mut c = vec![E::ZERO; m * n];
        Box::new(move || {
            // Each thread claims a panel; the locks are never contended.
            let panels: Vec<Mutex<&mut [E]>> = c.chunks_mut(rows * n).map(Mutex::new).collect();
            let next = AtomicUsize::new(0);
            mfma_gemm::run_on_threads(panels.len(), &|| {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let mut c = panels[i].lock().unwrap();
                E::gemm(c.len() / n, k, n, &a[i * rows * k..], &b, &mut c);
            });
        })
    }

    fn baseline(base: Base, cfg: &Config) -> Box<dyn FnMut()> {
        match base {
            Base::Sgemm => baseline_of::<f32>(cfg),
            Base::Dgemm => baseline_of::<f64>(cfg),
        }
    }

    /// Best GFLOP/s of the policy and of its baseline, each on one thread
    /// and on `cfg.threads`: `[[emulated, baseline]; 1 thread, all]`. The
    /// four runs alternate, so that on a shared machine all of them see the
    /// same spells of contention and the ratios of the bests (including the
    /// scaling) compare like with like.
    fn paired(e: &Entry, base: Base, cfg: &Config, budget: f64) -> [[f64; 2]; 2] {
        let one = Config { threads: 1, ..*cfg };
        let mut runs: [[Box<dyn FnMut()>; 2]; 2] =
            [one, *cfg].map(|c| [(e.prepare)(&c), baseline(base, &c)]);
        for _ in 0..cfg.warmup {
            runs.iter_mut().flatten().for_each(|f| f());
        }
        let mut best = [[f64::INFINITY; 2]; 2];
        let start = Instant::now();
        for _ in 0..cfg.reps.max(1) {
            for (best, runs) in best.iter_mut().zip(&mut runs) {
                for (best, f) in best.iter_mut().zip(runs) {
                    *best = best.min(time(f));
                }
            }
            if start.elapsed().as_secs_f64() > budget {
                break;
            }
        }
        best.map(|b| b.map(|t| gflops(cfg, t)))
    }

    /// Seconds of one call.
    fn time(f: &mut Box<dyn FnMut()>) -> f64 {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    }

    /// Nominal GFLOP/s (GOP/s) of a GEMM of `cfg`'s size taking `t` seconds.
    fn gflops(cfg: &Config, t: f64) -> f64 {
        2.0 * (cfg.m * cfg.n * cfg.k) as f64 / t / 1e9
    }

    /// Chunks of work per thread in [`chunked`].
    const CHUNKS: usize = 64;

    /// What [`chunked`] measured.
    #[derive(Clone, Copy)]
    struct Probed {
        /// Units of work per second.
        rate: f64,
        /// Of the time the threads ran, the share the hypervisor ran
        /// something else on their vCPUs (all CPUs' steal time, over the
        /// threads' time), from `/proc/stat`.
        steal: Option<f64>,
    }

    /// Best of 3 runs of `threads` threads doing `threads * CHUNKS` chunks
    /// of work: each thread makes its own state with `setup`, then, once
    /// all have, runs `chunk` on it, taking the chunks from a shared
    /// counter as the GEMM takes workgroups if `shared` (so that a slow
    /// core takes fewer), or `CHUNKS` of them each if not. The rate is the
    /// units of work that `chunk` counted, per second from the first
    /// thread's start to the last one's end (each thread reads the clock
    /// itself: a coordinating thread, one more than the vCPUs, may not run
    /// until a worker is preempted); the steal is the best run's.
    fn chunked<S>(
        threads: usize,
        shared: bool,
        setup: &(dyn Fn() -> S + Sync),
        chunk: &(dyn Fn(&mut S) -> usize + Sync),
    ) -> Probed {
        let mut best = (f64::INFINITY, None);
        for _ in 0..3 {
            let next = AtomicUsize::new(0);
            let ready = std::sync::Barrier::new(threads);
            let (next, ready) = (&next, &ready);
            let ticks = crate::probe::steal_ticks();
            let runs: Vec<_> = std::thread::scope(|s| {
                let workers: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(move || {
                            let mut state = setup();
                            ready.wait();
                            let start = Instant::now();
                            let (mut units, mut mine) = (0, 0);
                            while if shared {
                                next.fetch_add(1, Ordering::Relaxed) < threads * CHUNKS
                            } else {
                                mine < CHUNKS
                            } {
                                units += chunk(&mut state);
                                mine += 1;
                            }
                            (start, Instant::now(), units)
                        })
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            let start = runs.iter().map(|r| r.0).min().unwrap();
            let end = runs.iter().map(|r| r.1).max().unwrap();
            let seconds = (end - start).as_secs_f64();
            if seconds >= best.0 {
                continue;
            }
            let busy: f64 = runs.iter().map(|r| (r.1 - r.0).as_secs_f64()).sum();
            let steal = crate::probe::stolen_since(ticks).map(|s| s / busy);
            let units: usize = runs.iter().map(|r| r.2).sum();
            best = (
                seconds,
                Some(Probed {
                    rate: units as f64 / seconds,
                    steal,
                }),
            );
        }
        best.1.unwrap()
    }

    /// GFLOP/s of `threads` threads running independent fmas on registers
    /// only (no memory), with the widest copy the kernels use: what the
    /// machine itself gives to more threads of such code (clock speed under
    /// load, cores shared with other tenants), the work handed out as
    /// [`chunked`] says.
    fn fma_probe(threads: usize, shared: bool) -> Option<Probed> {
        const ITERS: usize = 1 << 16;
        let lanes = match mfma_core::soft::Kernels::active() {
            mfma_core::soft::Kernels::Avx512 => 16,
            mfma_core::soft::Kernels::Avx2 => 8,
            mfma_core::soft::Kernels::Portable => return None,
        };
        let spin = |_: &mut ()| {
            std::hint::black_box(crate::probe::spin(lanes, ITERS));
            ITERS * crate::probe::CHAINS * lanes * 2
        };
        let probed = chunked(threads, shared, &|| (), &spin);
        Some(Probed {
            rate: probed.rate / 1e9,
            ..probed
        })
    }

    /// `count: rate (speedup over the first count, share of the threads'
    /// time stolen by the hypervisor where measured)`, comma separated.
    fn speedups(counts: &[usize], probes: &[Probed]) -> String {
        let line: Vec<String> = counts
            .iter()
            .zip(probes)
            .map(|(t, p)| {
                let steal = p
                    .steal
                    .map_or(String::new(), |s| format!(", steal {:.1}%", 100.0 * s));
                format!(
                    "{t}: {:.0} ({:.2}x{steal})",
                    p.rate,
                    p.rate / probes[0].rate
                )
            })
            .collect();
        line.join(", ")
    }

    /// GFLOP/s (GOP/s) of `threads` threads running policy `e`'s chains
    /// alone ([`mfma_gemm::chains_alone`]): each thread stages its own copy
    /// of one workgroup's inputs once, then runs every worker's step over
    /// it, the work handed out in chunks of about 4 ms of one thread's, as
    /// the GEMM hands out workgroups. No packing, no memory beyond the
    /// staged tile and the accumulators: what the cores give to more
    /// threads of the kernels themselves.
    fn chains_probe(e: &Entry, cfg: &Config, threads: usize) -> Probed {
        let cfg = Config { threads, ..*cfg };
        let mut run = (e.chains)(&cfg);
        run(1);
        let start = Instant::now();
        run(4);
        let round = start.elapsed().as_secs_f64() / 4.0;
        let rounds = ((0.004 / round).ceil() as usize).max(1);
        let setup = || {
            let mut run = (e.chains)(&cfg);
            run(1);
            run
        };
        let probed = chunked(threads, true, &setup, &|run| run(rounds));
        Probed {
            rate: 2.0 * probed.rate / 1e9,
            ..probed
        }
    }

    /// Seconds over which [`copies_probe`] counts each thread's calls.
    const COPIES_WINDOW: f64 = 2.0;

    /// GFLOP/s (GOP/s) of `threads` independent one-thread GEMMs of policy
    /// `e` at `cfg`'s size, each thread with inputs and C of its own,
    /// calling it back to back: the most that any split of one GEMM's work
    /// over `threads` threads could get from this machine (short of the
    /// inputs that the threads of one GEMM share), whatever the machine's
    /// all-core clocks, its shared caches and memory, or other tenants take
    /// from each vCPU. Each thread counts the calls it completes in its
    /// first [`COPIES_WINDOW`] seconds (at least two) and then keeps calling
    /// until every thread has counted, so that every counted call ran with
    /// all of them busy; the rate sums each thread's counted work over its
    /// counted time, so a slow vCPU adds what it did, as it does in the GEMM
    /// (which hands out work in shrinking runs to let it).
    fn copies_probe(e: &Entry, cfg: &Config, threads: usize) -> Probed {
        let one = Config { threads: 1, ..*cfg };
        let counted = AtomicUsize::new(0);
        let ready = std::sync::Barrier::new(threads);
        let (counted, ready, one) = (&counted, &ready, &one);
        let ticks = crate::probe::steal_ticks();
        let runs: Vec<(usize, f64, f64)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(move || {
                        let mut run = (e.prepare)(one);
                        run();
                        ready.wait();
                        let start = Instant::now();
                        let (mut calls, mut seconds) = (0, 0.0);
                        while calls < 2 || seconds < COPIES_WINDOW {
                            run();
                            calls += 1;
                            seconds = start.elapsed().as_secs_f64();
                        }
                        counted.fetch_add(1, Ordering::AcqRel);
                        while counted.load(Ordering::Acquire) < threads {
                            run();
                        }
                        (calls, seconds, start.elapsed().as_secs_f64())
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let calls_per_second: f64 = runs.iter().map(|&(c, s, _)| c as f64 / s).sum();
        let busy: f64 = runs.iter().map(|r| r.2).sum();
        Probed {
            rate: calls_per_second * gflops(one, 1.0),
            steal: crate::probe::stolen_since(ticks).map(|s| s / busy),
        }
    }

    /// `--sweep`: every policy and its baseline at each thread count of
    /// `counts`, alternating, then one profiled run per count.
    pub fn sweep(
        entries: &[&'static Entry],
        cfg: &Config,
        counts: &[usize],
        budget: f64,
    ) -> ExitCode {
        println!(
            "MFMA software path vs matrixmultiply, {}x{}x{}, threads {counts:?}, {} warm-up + best of {} alternating runs",
            cfg.m, cfg.n, cfg.k, cfg.warmup, cfg.reps.max(1)
        );
        println!(
            "(GFLOP/s; i8 in GOP/s; speedup = over the first count; breakdown from one profiled run, \
             ms per thread on average: spawn = until its first workgroup, pack = staging panels and prefetching the next, \
             chains = the waves' instructions, store = writing C, tail = waiting for the last thread; \
             steal = share of the timed runs' thread time the hypervisor gave other guests, from /proc/stat)"
        );
        // The machine's own scaling, before and after the policies.
        let probe = |when: &str| {
            for (shared, how) in [
                (false, "each thread its share"),
                (true, "shared out in chunks"),
            ] {
                let probes: Option<Vec<Probed>> =
                    counts.iter().map(|&t| fma_probe(t, shared)).collect();
                let Some(probes) = probes else {
                    return println!("register-only fma loop: none (no vector kernels)");
                };
                println!(
                    "register-only fma loop {when}, {how}, GFLOP/s (speedup): {}",
                    speedups(counts, &probes)
                );
            }
        };
        probe("before");
        let mut summary = Vec::new();
        let mut ceilings = Vec::new();
        let mut failed = 0;
        for e in entries {
            let Some(dtype) = dtype(e) else { continue };
            eprintln!("{} ...", e.name);
            let base = base_of(e);
            let cfgs: Vec<Config> = counts
                .iter()
                .map(|&t| Config { threads: t, ..*cfg })
                .collect();
            let mut runs: Vec<[Box<dyn FnMut()>; 2]> = cfgs
                .iter()
                .map(|c| [(e.prepare)(c), baseline(base, c)])
                .collect();
            for _ in 0..cfg.warmup {
                runs.iter_mut().flatten().for_each(|f| f());
            }
            let mut best = vec![[f64::INFINITY; 2]; counts.len()];
            // Per count: seconds stolen from the emulated runs' vCPUs, and
            // those runs' thread-seconds.
            let mut stolen = vec![Some((0.0, 0.0)); counts.len()];
            let start = Instant::now();
            for _ in 0..cfg.reps.max(1) {
                for (((best, [emu, base]), stolen), &threads) in
                    best.iter_mut().zip(&mut runs).zip(&mut stolen).zip(counts)
                {
                    let ticks = crate::probe::steal_ticks();
                    let t = time(emu);
                    *stolen = stolen
                        .zip(crate::probe::stolen_since(ticks))
                        .map(|((s, busy), new)| (s + new, busy + t * threads as f64));
                    best[0] = best[0].min(t);
                    best[1] = best[1].min(time(base));
                }
                if start.elapsed().as_secs_f64() > budget {
                    break;
                }
            }
            drop(runs);
            println!(
                "{:<22} {:<10} {:>7} {:>9} {:>9} {:>7} {:>7} {:>8} {:>6} {:>6} {:>7} {:>8} {:>6} {:>6} {:>8}",
                e.name, "dtype", "threads", "emu", "base", "x", "speedup", "base sp.", "steal",
                "spawn", "pack", "chains", "store", "tail", "same bits"
            );
            let mut first_hash = None;
            for (((c, &[emu_t, base_t]), &threads), stolen) in
                cfgs.iter().zip(&best).zip(counts).zip(&stolen)
            {
                // The second run: the first faults C's pages in.
                let mut profiled = (e.prepare_profiled)(c);
                profiled();
                let (profile, hash) = profiled();
                let same = *first_hash.get_or_insert(hash) == hash;
                failed += usize::from(!same);
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                let n = profile.threads.len().max(1) as f64;
                let mean = |f: &dyn Fn(&mfma_gemm::ThreadProfile) -> f64| {
                    profile.threads.iter().map(f).sum::<f64>() / n
                };
                let wall = ms(profile.wall);
                let (emu, bl) = (gflops(cfg, emu_t), gflops(cfg, base_t));
                let [emu1, bl1] = best[0].map(|t| gflops(cfg, t));
                let steal =
                    stolen.map_or("-".into(), |(s, busy)| format!("{:.1}%", 100.0 * s / busy));
                println!(
                    "{:<22} {:<10} {:>7} {:>9.2} {:>9.2} {:>7.3} {:>7.2} {:>8.2} {:>6} {:>6.2} {:>7.2} {:>8.2} {:>6.2} {:>6.2} {:>8}",
                    "",
                    dtype,
                    threads,
                    emu,
                    bl,
                    emu / bl,
                    emu / emu1,
                    bl / bl1,
                    steal,
                    mean(&|t| ms(t.start)),
                    mean(&|t| ms(t.phases.stage)),
                    mean(&|t| ms(t.phases.compute)),
                    mean(&|t| ms(t.phases.store)),
                    mean(&|t| wall - ms(t.end)),
                    if same { "yes" } else { "NO" },
                );
                summary.push(format!(
                    "scaling dtype={dtype} threads={threads} emulated_gflops={emu:.2} baseline_gflops={bl:.2} \
                     speedup={:.2} baseline_speedup={:.2}",
                    emu / emu1,
                    bl / bl1
                ));
            }
            let alone: Vec<Probed> = counts.iter().map(|&t| chains_probe(e, cfg, t)).collect();
            println!(
                "{:<22} chains alone (a staged K tile a thread, shared out in chunks), {} (speedup): {}",
                "",
                if e.integer { "GOP/s" } else { "GFLOP/s" },
                speedups(counts, &alone)
            );
            let copies: Vec<Probed> = counts.iter().map(|&t| copies_probe(e, cfg, t)).collect();
            let of_copies: Vec<String> = counts
                .iter()
                .zip(&best)
                .zip(&copies)
                .map(|((t, [emu_t, _]), c)| format!("{t}: {:.2}", gflops(cfg, *emu_t) / c.rate))
                .collect();
            println!(
                "{:<22} independent one-thread GEMMs, one a thread, back to back, {} (speedup): {}; the GEMM's best over theirs: {}",
                "",
                if e.integer { "GOP/s" } else { "GFLOP/s" },
                speedups(counts, &copies),
                of_copies.join(", ")
            );
            ceilings.push((dtype, copies));
        }
        probe("after");
        for line in summary {
            println!("{line}");
        }
        for (dtype, copies) in ceilings {
            for (&threads, c) in counts.iter().zip(&copies) {
                println!(
                    "ceiling dtype={dtype} threads={threads} copies_gflops={:.2} copies_speedup={:.2}",
                    c.rate,
                    c.rate / copies[0].rate
                );
            }
        }
        if failed > 0 {
            eprintln!("{failed} run(s) differ from the first thread count's bits");
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }

    pub fn run(entries: &[&'static Entry], cfg: &Config, label: &str, budget: f64) -> ExitCode {
        let all = cfg.threads.max(1);
        println!(
            "MFMA software path vs matrixmultiply, {}x{}x{}, 1 and {all} thread(s), {} warm-up + best of {} alternating runs",
            cfg.m, cfg.n, cfg.k, cfg.warmup, cfg.reps.max(1)
        );
        println!(
            "{:<22} {:<8} {:>7} {:>11} {:>11} {:>7} {:>11} {:>11} {:>7} {:>8} {:>10} bit-exact",
            "policy",
            "dtype",
            "base",
            "1t emu",
            "1t base",
            "1t x",
            "all emu",
            "all base",
            "all x",
            "scaling",
            "base scal."
        );
        let mut ratios = Vec::new();
        let mut failed = 0;
        for e in entries {
            let Some(dtype) = dtype(e) else { continue };
            eprintln!("{} ...", e.name);
            // Bits once; speed in the paired runs.
            let checked = (e.run)(&Config {
                warmup: 0,
                reps: 1,
                ..*cfg
            });
            let b = base_of(e);
            let [[single, b1], [multi, ball]] = paired(e, b, cfg, budget);
            println!(
                "{:<22} {:<8} {:>7} {:>11.2} {:>11.2} {:>7.3} {:>11.2} {:>11.2} {:>7.3} {:>8.2} {:>10.2} {}",
                e.name,
                dtype,
                format!("{b:?}").to_lowercase(),
                single,
                b1,
                single / b1,
                multi,
                ball,
                multi / ball,
                multi / single,
                ball / b1,
                if checked.bit_exact() { "yes" } else { "NO" }
            );
            failed += usize::from(!checked.bit_exact());
            ratios.push((dtype.clone(), "1", single, b1));
            ratios.push((dtype, label, multi, ball));
        }
        println!(
            "(GFLOP/s; i8 in GOP/s; x = emulated / baseline; scaling = all-core / 1-thread emulated; \
             base scal. = the same for the baseline, in the same alternating runs: what the machine \
             gave to more threads meanwhile)"
        );
        for (dtype, threads, emu, base) in ratios {
            println!(
                "ratio dtype={dtype} threads={threads} emulated_gflops={emu:.2} baseline_gflops={base:.2} ratio={:.3}",
                emu / base
            );
        }
        if failed > 0 {
            eprintln!("{failed} policy(ies) differ from the reference");
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}
