// CDNA3's fused families (f16, bf16, xf32, fp8/bf8) run on a thread of 2 MiB
// of stack, the default of spawned and test threads, in a build with no
// optimisation (trybuild's, like a user's `cargo test`): every shape and
// every kernel copy the CPU has, with the bits of the main thread's run.
// Once, their chain's frame held every shape's locals (1.8 MB with
// AVX-512) and such a thread aborted on its first instruction.
use mfma_core::half::{bf16, f16};
use mfma_core::soft::{with_kernels, Kernels};
use mfma_core::{execute, mfma, Acc, Bf8, Fp8, FragA, FragB, Instr, Xf32};

fn run<X: Instr<Out = f32>>(a: FragA<X>, b: FragB<X>) -> Vec<Vec<f32>> {
    // Four steps, so that the chain runs its steps one after another.
    Kernels::ALL
        .iter()
        .filter(|&&k| k <= Kernels::available())
        .map(|&k| {
            with_kernels(k, || {
                let mut c = Acc::<X>::zero();
                for _ in 0..4 {
                    c = execute::<X, 0, 0, 0>(a, b, c);
                }
                c.as_row_major().to_vec()
            })
        })
        .collect()
}

fn all() -> Vec<Vec<Vec<f32>>> {
    let h = |x: usize| f16::from_f32((x % 13) as f32 / 3.0 - 2.0);
    let g = |x: usize| bf16::from_f32((x % 11) as f32 / 5.0 - 1.0);
    let e = |x: usize| Fp8::from_f32((x % 9) as f32 / 4.0 - 1.0);
    let q = |x: usize| Bf8::from_f32((x % 7) as f32 / 2.0 - 1.5);
    let x = |x: usize| Xf32::from_f32((x % 17) as f32 / 8.0 - 1.0);
    macro_rules! both {
        ($t:ty, $f:ident) => {{
            type X = $t;
            run::<X>(
                FragA::<X>::from_fn(|blk, i, k| $f(blk + 3 * i + 5 * k)),
                FragB::<X>::from_fn(|blk, k, j| $f(7 * blk + 2 * k + j)),
            )
        }};
    }
    vec![
        both!(mfma!(cdna3::f32_32x32x8f16), h),
        both!(mfma!(cdna3::f32_16x16x16f16), h),
        both!(mfma!(cdna3::f32_4x4x4f16), h),
        both!(mfma!(cdna3::f32_32x32x8bf16_1k), g),
        both!(mfma!(cdna3::f32_32x32x4_xf32), x),
        both!(mfma!(cdna3::f32_32x32x16_fp8_fp8), e),
        both!(mfma!(cdna3::f32_16x16x32_fp8_fp8), e),
        both!(mfma!(cdna3::f32_32x32x16_bf8_bf8), q),
    ]
}

fn main() {
    let here = all();
    let small = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(all)
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(here, small);
    for copies in &here {
        assert!(copies.windows(2).all(|w| w[0] == w[1]), "every copy, the same bits");
    }
}
