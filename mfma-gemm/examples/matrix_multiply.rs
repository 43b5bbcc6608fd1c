//! The seed's matrix-multiply demo on the software path: every policy runs
//! the same tutorial kernel on seeded random inputs, and every output is
//! compared bit for bit with an independent reference GEMM.
//!
//! ```text
//! cargo run --release --example matrix_multiply
//! cargo run --release --example matrix_multiply -- --size 256,128,300 --policy f32_32x32x8f16,scalar_fma_f64
//! ```
//! Exits with status 1 if any output differs.

use clap::Parser;
use mfma_gemm::catalog::{self, Config, Entry, Outcome};
use std::process::ExitCode;

/// Tiled GEMM through the MFMA software path, checked bitwise.
#[derive(Parser, Debug)]
#[command(name = "matrix_multiply")]
struct Args {
    /// Problem size: `M` (square) or `M,N,K`.
    #[arg(long, value_parser = parse_size, default_value = "512")]
    size: (usize, usize, usize),
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
    /// Timed repetitions per policy; the best time is reported.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
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

fn main() -> ExitCode {
    let args = Args::parse();
    let entries = match selected(&args.policies) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let cfg = Config {
        m: args.m.unwrap_or(args.size.0),
        n: args.n.unwrap_or(args.size.1),
        k: args.k.unwrap_or(args.size.2),
        seed: args.seed,
        threads: args.threads.unwrap_or_else(mfma_gemm::available_threads),
        warmup: args.warmup,
        reps: args.reps,
    };
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
