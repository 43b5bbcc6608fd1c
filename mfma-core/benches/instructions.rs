//! One software execution of every builtin of every architecture, listed from the spec
//! table (`execute`), and a chain of [`STEPS`] of each dense one on random inputs as a
//! GEMM's K loop runs them (`chain`): time per instruction or chain, and throughput as
//! items/s with one item per nominal operation (`2·M·N·K·blocks` an instruction), i.e.
//! flop/s (integer operations for i8).
//!
//! `cargo bench -p mfma-core`; `cargo bench -p mfma-core -- chain` for the chains alone.

use divan::counter::ItemsCount;
use divan::Bencher;
use mfma_core::{
    execute_chain_into, execute_into, execute_sparse_into, Acc, Element, FragA, FragB, FragIdx,
    Instr, Positions, SparseInstr, Visit,
};

/// Instructions in a chain of the `chain` bench.
const STEPS: usize = 64;

/// Every builtin, as `mfma!` would name it (`cdna3::` prefix for CDNA3).
fn builtins() -> impl Iterator<Item = String> {
    mfma_core::spec::ARCHS
        .iter()
        .flat_map(|a| a.builtins)
        .map(|x| x.path().to_string())
}

/// Small values of every type: ordinary arithmetic, no specials.
fn value<T: Element>(i: usize) -> T {
    if T::TYPE == mfma_core::spec::ElemType::Idx {
        return T::from_bits_u64(u64::from(Positions::new(i as u8 % 3, 3).to_bits()));
    }
    of_f64((i % 7) as f64 - 3.0)
}

/// Values spread as a GEMM's are: uniform in −1..1 (for the integer types
/// −3..=3: −1, 0 and 1 alone would be too plain).
fn random<T: Element>(state: &mut u64) -> T {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    let unit = (*state >> 11) as f64 / (1u64 << 53) as f64;
    match T::TYPE {
        mfma_core::spec::ElemType::I8 | mfma_core::spec::ElemType::I32 => {
            of_f64((unit * 7.0).floor() - 3.0)
        }
        _ => of_f64(2.0 * unit - 1.0),
    }
}

/// `x` in `T` (not an index type), rounded as the type's conversion rounds.
fn of_f64<T: Element>(x: f64) -> T {
    let bits = match T::TYPE {
        mfma_core::spec::ElemType::F64 => x.to_bits(),
        mfma_core::spec::ElemType::F32 => u64::from((x as f32).to_bits()),
        mfma_core::spec::ElemType::F16 => u64::from(half::f16::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::Bf16 => u64::from(half::bf16::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::Xf32 => u64::from((x as f32).to_bits()),
        mfma_core::spec::ElemType::Fp8 => u64::from(mfma_core::Fp8::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::Bf8 => u64::from(mfma_core::Bf8::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::I8 | mfma_core::spec::ElemType::I32 => x as i64 as u64,
        mfma_core::spec::ElemType::Idx => unreachable!("indices are not numbers"),
    };
    T::from_bits_u64(bits)
}

struct Execute<'a, 'b>(Bencher<'a, 'b>);

impl Visit for Execute<'_, '_> {
    type Output = ();
    fn visit<X: Instr>(self) {
        let s = X::SPEC;
        let a = FragA::<X>::from_fn(|b, i, k| value(b + i + 2 * k));
        let b = FragB::<X>::from_fn(|b, k, j| value(3 * b + k + j));
        let mut c = Acc::<X>::zero();
        self.0
            .counter(ItemsCount::new(2 * s.m * s.n * s.k * s.blocks))
            .bench_local(|| {
                execute_into::<X, 0, 0, 0>(
                    divan::black_box(&a),
                    divan::black_box(&b),
                    divan::black_box(&mut c),
                )
            });
    }

    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        let s = X::SPEC;
        let a = FragA::<X>::from_fn(|b, i, k| value(b + i + 2 * k));
        let b = FragB::<X>::from_fn(|b, k, j| value(3 * b + k + j));
        let idx = FragIdx::<X>::from_fn(|set, i, g| value(set + i + g));
        let mut c = Acc::<X>::zero();
        self.0
            .counter(ItemsCount::new(2 * s.m * s.n * s.k))
            .bench_local(|| {
                execute_sparse_into::<X, 0, 0>(
                    divan::black_box(&a),
                    divan::black_box(&b),
                    divan::black_box(&mut c),
                    divan::black_box(&idx),
                )
            });
        Some(())
    }
}

#[divan::bench(args = builtins(), min_time = 0.05, max_time = 0.2)]
fn execute(bencher: Bencher, name: &str) {
    mfma_core::visit(name, Execute(bencher)).expect("a builtin of the table");
}

struct Chain<'a, 'b>(Bencher<'a, 'b>);

impl Visit for Chain<'_, '_> {
    type Output = ();
    fn visit<X: Instr>(self) {
        let s = X::SPEC;
        let mut state = 0x9e37_79b9_7f4a_7c15;
        let a: Vec<FragA<X>> = (0..STEPS)
            .map(|_| FragA::<X>::from_fn(|_, _, _| random(&mut state)))
            .collect();
        let b: Vec<FragB<X>> = (0..STEPS)
            .map(|_| FragB::<X>::from_fn(|_, _, _| random(&mut state)))
            .collect();
        let c = Acc::<X>::zero();
        self.0
            .counter(ItemsCount::new(2 * s.m * s.n * s.k * s.blocks * STEPS))
            .bench_local(|| {
                let mut c = c;
                execute_chain_into::<X, 0, 0, 0>(
                    divan::black_box(&a),
                    divan::black_box(&b),
                    divan::black_box(&mut c),
                );
                c
            });
    }

    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        None
    }
}

/// Every dense builtin, as [`builtins`] names them.
fn dense() -> impl Iterator<Item = String> {
    mfma_core::spec::ARCHS
        .iter()
        .flat_map(|a| a.builtins)
        .filter(|x| !x.is_sparse())
        .map(|x| x.path().to_string())
}

#[divan::bench(args = dense(), min_time = 0.05, max_time = 0.2)]
fn chain(bencher: Bencher, name: &str) {
    mfma_core::visit(name, Chain(bencher)).expect("a dense builtin of the table");
}

fn main() {
    divan::main();
}
