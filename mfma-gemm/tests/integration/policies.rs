//! Every policy of the demo, and every builtin through the generic MFMA
//! policy, bit for bit against the independent reference GEMM, at sizes that
//! are and are not multiples of the tiles.

use mfma_core::soft::{with_kernels, Kernels};
use mfma_core::{mfma, Instr, Visit};
use mfma_gemm::catalog::{
    check, check_identity, find, Config, HostTiles, LongF64Tiles512, SeedTiles, POLICIES,
};
use mfma_gemm::TilePolicy;
use mfma_gemm::{GlobalTiles, MfmaCdna2F64Policy, MfmaPolicy};

/// (m, n, k): whole tiles, ragged edges in every dimension, smaller than one
/// tile, K not a multiple of any K step, and empty K.
const SIZES: &[(usize, usize, usize)] = &[
    (64, 64, 32),
    (70, 45, 19),
    (33, 97, 37),
    (1, 1, 1),
    (5, 7, 0),
];

fn config(m: usize, n: usize, k: usize, seed: u64, threads: usize) -> Config {
    Config {
        m,
        n,
        k,
        seed,
        threads,
        warmup: 0,
        reps: 1,
    }
}

/// The kernel copies this CPU runs.
fn copies() -> impl Iterator<Item = Kernels> {
    Kernels::ALL
        .into_iter()
        .filter(|&k| k <= Kernels::available())
}

#[test]
fn every_demo_policy_matches_the_reference_bitwise() {
    // Under every copy: each runs its own kernels, and an entry may pick
    // its host tiles by copy (at larger sizes: see the f64 test below).
    for copy in copies() {
        for e in POLICIES {
            for (s, &(m, n, k)) in SIZES.iter().enumerate() {
                let out = with_kernels(copy, || (e.run)(&config(m, n, k, 10 + s as u64, 2)));
                assert!(
                    out.bit_exact(),
                    "{} ({}) at {m}x{n}x{k}: {} outputs differ, first {:?}",
                    e.name,
                    copy.name(),
                    out.mismatches,
                    out.first_mismatch
                );
            }
        }
    }
}

/// The f64 entry's tiles for the AVX-512 kernels, run under every copy this
/// CPU has (so also where AVX-512 is missing), at the test sizes and at
/// sizes that span several of its blocks and K strips.
#[test]
fn the_avx512_tiles_of_f64_match_the_reference_under_every_copy() {
    type X = mfma!(f64_16x16x4f64);
    type P = mfma_gemm::MfmaPolicy<X>;
    type W = LongF64Tiles512;
    let e = find("f64_16x16x4f64").expect("in the catalog");
    let wide = HostTiles {
        block: (W::BLOCK_TILE_M, W::BLOCK_TILE_N),
        k_tile: W::K_TILE_SIZE,
        workers: (W::BLOCK_TILE_M / 16) * (W::BLOCK_TILE_N / 16),
    };
    assert_eq!(e.avx512, Some(wide));
    // Through the entry too, at a size that takes these tiles where the
    // AVX-512 kernels run (16 workgroups for one thread).
    for copy in copies() {
        let out = with_kernels(copy, || (e.run)(&config(512, 500, 21, 39, 1)));
        assert!(out.bit_exact(), "{}: {:?}", copy.name(), out.first_mismatch);
    }
    let sizes = SIZES
        .iter()
        .copied()
        .chain([(300, 260, 100), (129, 130, 97)]);
    for copy in copies() {
        for (s, (m, n, k)) in sizes.clone().enumerate() {
            let out = with_kernels(copy, || check::<W, P>(&config(m, n, k, 40 + s as u64, 3)));
            assert!(
                out.bit_exact(),
                "{} at {m}x{n}x{k}: {:?}",
                copy.name(),
                out.first_mismatch
            );
        }
    }
}

#[test]
fn demo_policies_are_deterministic_across_threads_and_repetitions() {
    for e in POLICIES {
        // Three repetitions on three threads must agree with each other
        // (counted as mismatches) and with the reference.
        let cfg = Config {
            reps: 3,
            ..config(130, 70, 45, 5, 3)
        };
        let out = (e.run)(&cfg);
        assert!(out.bit_exact(), "{}: {:?}", e.name, out.first_mismatch);
    }
}

/// Runs one builtin through `MfmaPolicy` on a block tile that every
/// builtin's wave tile divides (`blocks·M` is at most 64, N at most 32, and
/// every K step divides 16).
struct EveryBuiltin(Config);

impl Visit for EveryBuiltin {
    type Output = ();
    fn visit<X: Instr>(self) {
        let out = check::<GlobalTiles<64, 64, 16>, MfmaPolicy<X>>(&self.0);
        assert!(
            out.bit_exact(),
            "{}: {} outputs differ, first {:?}",
            X::SPEC.name,
            out.mismatches,
            out.first_mismatch
        );
    }
}

#[test]
fn every_builtin_as_a_generic_policy_matches_the_reference() {
    for b in mfma_core::spec::cdna2::BUILTINS {
        mfma_core::cdna2::visit(b.name, EveryBuiltin(config(70, 45, 19, 99, 2)))
            .expect("a table name is visitable");
    }
}

#[test]
fn a_times_identity_is_a() {
    for (m, k) in [(512, 64), (45, 19), (1, 3)] {
        let out = check_identity::<SeedTiles, MfmaCdna2F64Policy>(&config(m, 0, k, 7, 2));
        assert!(out.bit_exact(), "{m}x{k}: {:?}", out.first_mismatch);
    }
}
