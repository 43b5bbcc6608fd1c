//! The tutorial GEMM for every demo policy, on one thread and on every
//! core, next to matrixmultiply's sgemm and dgemm. Throughput is reported
//! as items/s with one item per nominal operation (`2·m·n·k`), i.e. flop/s.
//!
//! `cargo bench -p mfma-gemm`. The size is kept small so that the whole run
//! stays short; `cargo run --release --example matrix_multiply -- --compare`
//! measures 1024³.

#[path = "support/baseline.rs"]
mod baseline;

use baseline::Gemm;
use divan::counter::ItemsCount;
use divan::Bencher;
use mfma_gemm::catalog::{Config, POLICIES};

/// Edge of the square problems.
const SIZE: usize = 256;

fn config(threads: usize) -> Config {
    Config {
        m: SIZE,
        n: SIZE,
        k: SIZE,
        seed: 2024,
        threads,
        warmup: 0,
        reps: 1,
    }
}

fn ops() -> ItemsCount {
    ItemsCount::new(2 * SIZE * SIZE * SIZE)
}

fn policy(bencher: Bencher, name: &str, threads: usize) {
    let e = mfma_gemm::catalog::find(name).expect("a catalog policy");
    let mut run = (e.prepare)(&config(threads));
    bencher.counter(ops()).bench_local(&mut run);
}

fn policies() -> impl Iterator<Item = &'static str> {
    POLICIES.iter().map(|e| e.name)
}

#[divan::bench(args = policies(), sample_count = 10, sample_size = 1)]
fn one_thread(bencher: Bencher, name: &str) {
    policy(bencher, name, 1);
}

#[divan::bench(args = policies(), sample_count = 10, sample_size = 1)]
fn all_cores(bencher: Bencher, name: &str) {
    policy(bencher, name, mfma_gemm::available_threads());
}

/// matrixmultiply on one thread, on the same random inputs as the policies.
#[divan::bench(types = [f32, f64], sample_count = 10, sample_size = 1)]
fn baseline<E: Gemm>(bencher: Bencher) {
    let a = mfma_gemm::random::matrix::<E>(SIZE * SIZE, 2024);
    let b = mfma_gemm::random::matrix::<E>(SIZE * SIZE, 2025);
    let mut c = vec![E::ZERO; SIZE * SIZE];
    bencher
        .counter(ops())
        .bench_local(|| E::gemm(SIZE, SIZE, SIZE, &a, &b, &mut c));
}

fn main() {
    divan::main();
}
