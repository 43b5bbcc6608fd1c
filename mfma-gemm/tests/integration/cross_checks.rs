//! Agreements between independent routes through the tutorial kernel, and
//! arithmetic corner cases worked out by hand from reference section 4.

use half::bf16;
use mfma_core::{mfma, Element};
use mfma_gemm::catalog::compare;
use mfma_gemm::{
    gemm, random, reference, ComputePolicy, GlobalTiles, MfmaCdna2F64Policy, MfmaPolicy,
    ScalarFmaPolicy, StagedTiles, TilePolicy,
};

fn run<T: TilePolicy, P: ComputePolicy>(
    (m, n, k): (usize, usize, usize),
    a: &[P::Elem],
    b: &[P::Elem],
    threads: usize,
) -> Vec<P::Out> {
    let mut c = vec![P::Out::ZERO; m * n];
    gemm::<T, P>(m, n, k, a, b, &mut c, threads);
    c
}

fn assert_same<E: Element>(what: &str, n: usize, got: &[E], want: &[E]) {
    let (count, first) = compare(n, got, want);
    assert_eq!(count, 0, "{what}: first difference {first:?}");
}

#[test]
fn scalar_fma_policy_equals_the_f64_mfma_policies_bitwise() {
    // All three are chains of fused multiply-adds over k ascending from +0,
    // reached through entirely different code: per-thread arrays, and the
    // 16x16x4 and 4x4x4 (four blocks) instructions with their layouts.
    for (s, shape) in [(64, 64, 64), (50, 37, 23), (3, 70, 9)]
        .into_iter()
        .enumerate()
    {
        let (m, n, k) = shape;
        let a = random::matrix::<f64>(m * k, 100 + s as u64);
        let b = random::matrix::<f64>(k * n, 200 + s as u64);
        let scalar = run::<GlobalTiles<32, 32, 8>, ScalarFmaPolicy>(shape, &a, &b, 2);
        let f64_16 = run::<GlobalTiles<32, 32, 4>, MfmaCdna2F64Policy>(shape, &a, &b, 2);
        let f64_4 =
            run::<GlobalTiles<32, 32, 4>, MfmaPolicy<mfma!(f64_4x4x4f64)>>(shape, &a, &b, 1);
        assert_same("scalar vs f64_16x16x4f64", n, &scalar, &f64_16);
        assert_same("scalar vs f64_4x4x4f64", n, &scalar, &f64_4);
        // The agreement has teeth: a plain multiply-then-add loop over the
        // same order rounds differently somewhere.
        let unfused: Vec<f64> = (0..m * n)
            .map(|x| (0..k).fold(0.0, |acc, kk| acc + a[x / n * k + kk] * b[kk * n + x % n]))
            .collect();
        assert_ne!(compare(n, &scalar, &unfused).0, 0, "{shape:?}");
    }
}

#[test]
fn staged_tiles_equal_global_tiles_bitwise() {
    // Single and double buffering copy strips (zero padded) into buffers;
    // the global views pad by bounds checks. The kernel must not tell them apart.
    fn for_policy<P: ComputePolicy>(shape: (usize, usize, usize), seed: u64) {
        let (m, n, k) = shape;
        let a = random::matrix::<P::Elem>(m * k, seed);
        let b = random::matrix::<P::Elem>(k * n, seed + 1);
        let global = run::<GlobalTiles<64, 64, 16>, P>(shape, &a, &b, 2);
        let single = run::<StagedTiles<64, 64, 16, 1>, P>(shape, &a, &b, 2);
        let double = run::<StagedTiles<64, 64, 16, 2>, P>(shape, &a, &b, 2);
        let odd_strip = run::<StagedTiles<64, 32, 24, 2>, P>(shape, &a, &b, 1);
        assert_same("single buffer", n, &single, &global);
        assert_same("double buffer", n, &double, &global);
        assert_same("24-wide strips", n, &odd_strip, &global);
    }
    for shape in [(64, 64, 64), (70, 45, 19), (9, 100, 50)] {
        for_policy::<ScalarFmaPolicy>(shape, 1);
        for_policy::<MfmaCdna2F64Policy>(shape, 2);
        for_policy::<MfmaPolicy<mfma!(f32_32x32x8f16)>>(shape, 3);
        for_policy::<MfmaPolicy<mfma!(f32_32x32x8bf16_1k)>>(shape, 4);
        for_policy::<MfmaPolicy<mfma!(i32_32x32x8i8)>>(shape, 5);
    }
}

#[test]
fn accumulator_reenters_each_instruction_as_a_flushed_c() {
    // f32_32x32x8bf16_1k, K = 16: two instructions for C[0][0].
    // Instruction 1: tree 1 = 2^-110 + 2^-120; tree 2 = -(2^-110 + 2^-120 + 2^-127)
    // (every product and sum exact and normal), so acc = ftz(-2^-127) = -0.
    // Instruction 2: products -2^-200 underflow to -0 (sign kept: the factors
    // are not zero), so every tree is -0. Chained, -0 + -0 = -0; but the
    // accumulator enters instruction 2 as C, flushed to +0, and +0 + -0 = +0.
    type P = MfmaPolicy<mfma!(f32_32x32x8bf16_1k)>;
    let p2 = |e: i32| bf16::from_f32(2f32.powi(e));
    let (m, n, k) = (1, 1, 16);
    let mut a = vec![bf16::ZERO; k];
    let mut b = vec![bf16::ZERO; k];
    (a[0], b[0]) = (p2(-55), p2(-55));
    (a[1], b[1]) = (p2(-60), p2(-60));
    (a[4], b[4]) = (-p2(-55), p2(-55));
    (a[5], b[5]) = (
        -bf16::from_f32((1.0 + 2f32.powi(-7)) * 2f32.powi(-60)),
        p2(-60),
    );
    for kk in 8..16 {
        (a[kk], b[kk]) = (-p2(-100), p2(-100));
    }
    let kernel = run::<GlobalTiles<64, 64, 16>, P>((m, n, k), &a, &b, 1);
    let want: Vec<f32> = reference::gemm(P::ARITH, P::K_STEP, m, n, k, &a, &b);
    assert_eq!(want[0].to_bits(), 0.0f32.to_bits(), "reference gives +0");
    assert_eq!(kernel[0].to_bits(), 0.0f32.to_bits(), "kernel gives +0");
    // Without the second instruction the -0 survives.
    let first: Vec<f32> = reference::gemm(P::ARITH, P::K_STEP, m, n, 8, &a[..8], &b[..8]);
    assert_eq!(first[0].to_bits(), (-0.0f32).to_bits());
}

/// The host runs a workgroup's waves together, staging each K tile once
/// into panels (`gemm_workgroup`, behind `gemm`); the GPU runs each
/// wave on its own (`gemm_wave`), building fragments element by element.
/// For every builtin, on ragged shapes and on inputs that keep the f16/bf16
/// fast path off in some K tiles (huge and tiny values), both give the same bits.
#[test]
fn the_host_workgroup_runner_equals_the_wave_by_wave_kernel() {
    use mfma_core::{Instr, Visit};
    use mfma_gemm::{gemm_wave, workers_per_block, Problem};
    struct Check;
    impl Visit for Check {
        type Output = ();
        fn visit<X: Instr>(self) {
            type T = GlobalTiles<64, 64, 16>;
            type P<X> = MfmaPolicy<X>;
            let (m, n, k) = (70, 45, 37);
            let mut a = random::matrix::<X::In>(m * k, 7);
            let b = random::matrix::<X::In>(k * n, 8);
            // Outside the fast path's range: 2^100 and 2^-60 in bf16 (and
            // f32), an infinity in f16.
            for (at, bits) in [(5 * k + 20, 0x7180_0000u64), (60 * k + 3, 0x2180_0000)] {
                a[at] = match X::In::TYPE {
                    mfma_core::spec::ElemType::Bf16 => X::In::from_bits_u64(bits >> 16),
                    mfma_core::spec::ElemType::F32 => X::In::from_bits_u64(bits),
                    mfma_core::spec::ElemType::F16 => X::In::from_bits_u64(0x7c00),
                    _ => a[at],
                };
            }
            let host = run::<T, P<X>>((m, n, k), &a, &b, 2);
            let mut waves = vec![X::Out::ZERO; m * n];
            {
                let p = Problem::new(m, n, k, &a, &b, &mut waves);
                let (gx, gy) = mfma_gemm::grid::<T>(m, n);
                for blk in 0..gx * gy {
                    for w in 0..workers_per_block::<T, P<X>>() {
                        // SAFETY: one call at a time.
                        unsafe { gemm_wave::<T, P<X>>(&p, blk % gx, blk / gx, w) };
                    }
                }
            }
            assert_same(X::SPEC.name, n, &host, &waves);
        }
    }
    for x in mfma_core::spec::cdna2::BUILTINS {
        mfma_core::cdna2::visit(x.name, Check).unwrap();
    }
}

/// On one thread, `gemm` runs the grid row by row and reuses the packed K
/// tiles of A within a block row. With 75 K tiles the 64 slots of the
/// cache wrap around, so tiles `t` and `t + 64` share a slot: reusing a
/// tile of another row or K tile would show in the bits.
#[test]
fn staged_a_tiles_are_reused_only_for_their_own_row_and_k_tile() {
    fn check<T: TilePolicy, P: ComputePolicy>((m, n, k): (usize, usize, usize)) {
        let a = random::matrix::<P::Elem>(m * k, 11);
        let b = random::matrix::<P::Elem>(k * n, 12);
        let got = run::<T, P>((m, n, k), &a, &b, 1);
        let want: Vec<P::Out> = reference::gemm(P::ARITH, P::K_STEP, m, n, k, &a, &b);
        assert_same(std::any::type_name::<P>(), n, &got, &want);
    }
    check::<GlobalTiles<32, 32, 4>, MfmaCdna2F64Policy>((100, 70, 300));
    check::<GlobalTiles<64, 64, 8>, MfmaPolicy<mfma!(f32_32x32x8f16)>>((150, 130, 597));
    check::<GlobalTiles<64, 32, 8>, MfmaPolicy<mfma!(i32_16x16x4i8)>>((130, 100, 600));
}

#[test]
#[should_panic(expected = "a HostScratch serves the problem it was made for")]
fn a_host_scratch_serves_one_problem() {
    use mfma_gemm::{gemm_workgroup, HostScratch, Problem};
    type P = MfmaCdna2F64Policy;
    let (a, b) = (vec![1.0; 16], vec![1.0; 16]);
    let (mut c1, mut c2) = (vec![0.0; 16], vec![0.0; 16]);
    let first = Problem::new(4, 4, 4, &a, &b, &mut c1);
    let second = Problem::new(4, 4, 4, &a, &b, &mut c2);
    let mut scratch = HostScratch::<P>::new(&first);
    // SAFETY: one call at a time.
    unsafe { gemm_workgroup::<GlobalTiles<32, 32, 4>, P>(&second, 0, 0, &mut scratch) };
}

/// The host asks the cache for A's next tile only where staging will read
/// it: `stages_a` must say no exactly for the tile a slot holds, so that
/// a tile that is about to be packed is never left out.
#[test]
fn stages_a_is_false_only_for_the_tile_its_slot_holds() {
    use mfma_gemm::{MfmaStaging, Tile, TileKey};
    type X = mfma!(f32_32x32x2f32);
    type P = MfmaPolicy<X>;
    let (rows, k) = (64, 16);
    let data = random::matrix::<f32>(rows * k, 3);
    let tile = Tile::row_major(&data, rows, k);
    let mut staged = MfmaStaging::<X>::default();
    let key = |block_row, k_tile| TileKey {
        block_row,
        block_col: 5,
        k_tile,
    };
    assert!(P::stages_a(&staged, key(2, 7)));
    P::stage(&mut staged, &tile, &tile, k, key(2, 7));
    assert!(!P::stages_a(&staged, key(2, 7)));
    // Another workgroup column of the same block row reads the same A.
    assert!(!P::stages_a(
        &staged,
        TileKey {
            block_col: 0,
            ..key(2, 7)
        }
    ));
    assert!(P::stages_a(&staged, key(3, 7)), "another block row");
    assert!(P::stages_a(&staged, key(2, 8)), "another K tile");
    assert!(
        P::stages_a(&staged, key(2, 7 + 64)),
        "a K tile of the same slot"
    );
}
