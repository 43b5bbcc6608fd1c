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
//! thread and on every core next to the `matrixmultiply` crate's
//! sgemm/dgemm on the same number of threads, the four runs alternating
//! (best of 15 each), and ends with one line per input type:
//! `ratio dtype=… emulated_gflops=… baseline_gflops=… ratio=…` (all cores;
//! f16, bf16 and i8 are measured against sgemm, i8 in ops/s).

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
    println!(
        "{:<26} {:>15} {:>7} {:>7} {:>9.3} {:>8.3} {:<7} {}",
        e.name,
        format!("{}x{}x{}", cfg.m, cfg.n, cfg.k),
        format!("{}x{}", e.block.0, e.block.1),
        e.workers,
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
        out += &format!(
            "  {:<30} {what}; block tile {}x{}, K strip {}\n",
            e.name, e.block.0, e.block.1, e.k_tile
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
    let entries = match selected(&args.policies) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let size = args.size.unwrap_or(if args.compare {
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
        reps: args.reps.unwrap_or(if args.compare { 15 } else { 3 }),
    };
    if args.compare {
        return compare::run(&entries, &cfg);
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

/// The `--compare` mode: MFMA policies next to matrixmultiply.
mod compare {
    use crate::baseline::Gemm;
    use mfma_gemm::catalog::{Config, Entry};
    use mfma_gemm::random;
    use std::process::ExitCode;
    use std::time::Instant;

    /// The baseline's element type.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Base {
        Sgemm,
        Dgemm,
    }

    /// The type label of an MFMA builtin: its input type, `_1k` kept apart
    /// (the bf16 builtins with and without it are different families).
    fn dtype(e: &Entry) -> Option<String> {
        let x = e.builtin?;
        let suffix = if x.name.ends_with("_1k") { "_1k" } else { "" };
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
    /// process).
    fn baseline_of<E: Gemm>(cfg: &Config) -> Box<dyn FnMut()> {
        let (m, n, k) = (cfg.m, cfg.n, cfg.k);
        let rows = m.div_ceil(cfg.threads.max(1)).max(1);
        let a = random::matrix::<E>(m * k, cfg.seed);
        let b = random::matrix::<E>(k * n, cfg.seed + 1);
        let mut c = vec![E::ZERO; m * n];
        Box::new(move || {
            std::thread::scope(|s| {
                for (a, c) in a.chunks(rows * k).zip(c.chunks_mut(rows * n)) {
                    let b = &b;
                    s.spawn(move || E::gemm(c.len() / n, k, n, a, b, c));
                }
            })
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
    fn paired(e: &Entry, base: Base, cfg: &Config) -> [[f64; 2]; 2] {
        let one = Config { threads: 1, ..*cfg };
        let mut runs: [[Box<dyn FnMut()>; 2]; 2] =
            [one, *cfg].map(|c| [(e.prepare)(&c), baseline(base, &c)]);
        let time = |f: &mut Box<dyn FnMut()>| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        };
        for _ in 0..cfg.warmup {
            runs.iter_mut().flatten().for_each(|f| f());
        }
        let mut best = [[f64::INFINITY; 2]; 2];
        for _ in 0..cfg.reps.max(1) {
            for (best, runs) in best.iter_mut().zip(&mut runs) {
                for (best, f) in best.iter_mut().zip(runs) {
                    *best = best.min(time(f));
                }
            }
        }
        best.map(|b| b.map(|t| 2.0 * (cfg.m * cfg.n * cfg.k) as f64 / t / 1e9))
    }

    pub fn run(entries: &[&'static Entry], cfg: &Config) -> ExitCode {
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
            let [[single, b1], [multi, ball]] = paired(e, b, cfg);
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
            ratios.push((dtype, multi, ball));
        }
        println!(
            "(GFLOP/s; i8 in GOP/s; x = emulated / baseline; scaling = all-core / 1-thread emulated; \
             base scal. = the same for the baseline, in the same alternating runs: what the machine \
             gave to more threads meanwhile)"
        );
        for (dtype, emu, base) in ratios {
            println!(
                "ratio dtype={dtype} emulated_gflops={emu:.2} baseline_gflops={base:.2} ratio={:.3}",
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
