//! One software execution of every builtin of every architecture, listed from the spec
//! table: time per instruction, and throughput as items/s with one item per
//! nominal operation of the instruction (`2·M·N·K·blocks`), i.e. flop/s
//! (integer operations for i8).
//!
//! `cargo bench -p mfma-core`.

use divan::counter::ItemsCount;
use divan::Bencher;
use mfma_core::{
    execute_into, execute_sparse_into, Acc, Element, FragA, FragB, FragIdx, Instr, Positions,
    SparseInstr, Visit,
};

/// Every builtin, as `mfma!` would name it (`cdna3::` prefix for CDNA3).
fn builtins() -> impl Iterator<Item = String> {
    mfma_core::spec::ARCHS
        .iter()
        .flat_map(|a| a.builtins)
        .map(|x| x.path().to_string())
}

/// Small values of every type: ordinary arithmetic, no specials.
fn value<T: Element>(i: usize) -> T {
    let x = (i % 7) as f64 - 3.0;
    let bits = match T::TYPE {
        mfma_core::spec::ElemType::F64 => x.to_bits(),
        mfma_core::spec::ElemType::F32 => u64::from((x as f32).to_bits()),
        mfma_core::spec::ElemType::F16 => u64::from(half::f16::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::Bf16 => u64::from(half::bf16::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::Xf32 => u64::from((x as f32).to_bits()),
        mfma_core::spec::ElemType::Fp8 => u64::from(mfma_core::Fp8::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::Bf8 => u64::from(mfma_core::Bf8::from_f64(x).to_bits()),
        mfma_core::spec::ElemType::I8 | mfma_core::spec::ElemType::I32 => x as i64 as u64,
        mfma_core::spec::ElemType::Idx => u64::from(Positions::new(i as u8 % 3, 3).to_bits()),
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

fn main() {
    divan::main();
}
