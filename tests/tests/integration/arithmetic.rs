//! Property tests of CDNA2: for every builtin and every legal (cbsz, abid, blgp),
//! random inputs through `execute` agree bit for bit (NaN by class) with an
//! independent reference written here from the reference document:
//!
//! * the arithmetic of section 4 as a plain per-block dot product, on bit
//!   patterns, with its own decoding, flushing and rounding formulation;
//! * the modifiers applied to the matrices: A blocks substituted by the
//!   `src(b)` formula of 3.1, B elements fetched through the blgp lane table
//!   of 3.2 mapped back to matrix coordinates by the layout formula of 2.1 —
//!   neither taken from mfma-spec or the kernels.
//!
//! Modifiers must be compile-time constants for `execute`, so every
//! candidate triple is a const-generic instantiation that exists only if
//! `validate` accepts it; a test checks that these are all the legal ones.

use crate::common::numerics;
use crate::common::properties;

use half::{bf16, f16};
use mfma_core::spec::{cdna2::BUILTINS, validate, BlgpBits, Builtin, ElemType, Modifiers, ARCHS};
use numerics::in_family;
use properties::{route, AgreeWith, CountLegal, Operands};

/// Random inputs per builtin; every case runs all legal modifier triples.
const CASES: u32 = 64;

/// The instantiated sets of immediates are exactly those `validate` accepts
/// in the whole encodable space (cbsz 3 bits, abid 4 bits, blgp 3 bits), for
/// every architecture, and their number follows reference 3 of each:
/// 2·blocks − 1 (cbsz, abid) pairs on multi-block non-f64 builtins, one
/// otherwise; 8 blgp values where they select a lane pattern, 8 negation
/// masks on CDNA3's f64, 1 otherwise; on SMFMAC (CDNA3 3.4) cbsz 0..=3
/// with abid below the number of index sets, no blgp.
#[test]
fn triples_are_all_legal_ones() {
    for x in ARCHS.iter().flat_map(|a| a.builtins) {
        let got = mfma_core::visit_builtin(x, CountLegal).unwrap();
        let space = (0..8).flat_map(|c| (0..16).flat_map(move |a| (0..8).map(move |g| [c, a, g])));
        let want: Vec<Modifiers> = space
            .map(|imm| Modifiers::from_immediates(x, imm))
            .filter(|&m| validate(x, m).is_ok())
            .collect();
        assert_eq!(got, want, "{}", x.path());
        let f64 = x.a_type == ElemType::F64;
        let pairs = if x.is_sparse() {
            4 * if x.a_type.bits() == 16 { 4 } else { 2 }
        } else if x.blocks > 1 && !f64 {
            2 * x.blocks - 1
        } else {
            1
        };
        let thirds = match x.blgp {
            BlgpBits::Pattern | BlgpBits::Negate => 8,
            BlgpBits::Unused => 1,
        };
        assert_eq!(got.len(), pairs * thirds, "{}", x.path());
    }
}

// ---------------------------------------------------------------------------
// The reference: per-block matrices of bit patterns.

/// Reference 4.2 `flush_in`: zeros (either sign) and values below `min`
/// become +0.
fn flush_in(x: f32, min: f32) -> f32 {
    if x == 0.0 || (x.is_finite() && x.abs() < min) {
        0.0
    } else {
        x
    }
}

/// Reference 4.2 `ftz`: subnormal results become zero of their sign.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Reference 4.2 `prod`. The product of two inputs of at most 11
/// significant bits is exact in f64, so `as f32` is the single RNE rounding
/// (overflowing to Inf) of the exact product.
fn prod(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a == 0.0 || b == 0.0 {
        if a.is_infinite() || b.is_infinite() {
            f32::NAN
        } else {
            0.0
        }
    } else {
        ftz((f64::from(a) * f64::from(b)) as f32)
    }
}

/// Products per tree, from the builtin's name (reference 4.2): f16 and `_1k`
/// bf16 sum 4, other bf16 sum 2.
fn group_of(x: &Builtin) -> usize {
    if x.a_type == ElemType::F16 || x.name.ends_with("_1k") {
        4
    } else {
        2
    }
}

/// One output: row `a` of A, column `b` of B (k ascending), and C.
fn dot(x: &Builtin, a: &[u64], b: &[u64], c: u64) -> u64 {
    let f32_of = |v: u64| f32::from_bits(v as u32);
    match x.a_type {
        ElemType::F32 => {
            let mut acc = f32_of(c);
            for (&a, &b) in a.iter().zip(b) {
                acc = f32_of(a).mul_add(f32_of(b), acc);
            }
            u64::from(acc.to_bits())
        }
        ElemType::F64 => {
            let mut acc = f64::from_bits(c);
            for (&a, &b) in a.iter().zip(b) {
                acc = f64::from_bits(a).mul_add(f64::from_bits(b), acc);
            }
            acc.to_bits()
        }
        ElemType::F16 | ElemType::Bf16 => {
            let (widen, min): (fn(u64) -> f32, f32) = if x.a_type == ElemType::F16 {
                (
                    |v| f16::from_bits(v as u16).to_f32(),
                    f16::MIN_POSITIVE.to_f32(),
                )
            } else {
                (
                    |v| bf16::from_bits(v as u16).to_f32(),
                    bf16::MIN_POSITIVE.to_f32(),
                )
            };
            let p: Vec<f32> = a
                .iter()
                .zip(b)
                .map(|(&a, &b)| prod(flush_in(widen(a), min), flush_in(widen(b), min)))
                .collect();
            let mut acc = flush_in(f32_of(c), f32::MIN_POSITIVE);
            for g in p.chunks(group_of(x)) {
                let tree = match *g {
                    [p0, p1] => ftz(p0 + p1),
                    [p0, p1, p2, p3] => ftz(ftz(p0 + p1) + ftz(p2 + p3)),
                    _ => unreachable!("K is a multiple of the group"),
                };
                acc = ftz(acc + tree);
            }
            u64::from(acc.to_bits())
        }
        ElemType::I8 => {
            // Exact in i64; wrap-around is the final reduction mod 2^32.
            let exact: i64 = a
                .iter()
                .zip(b)
                .map(|(&a, &b)| i64::from(a as u8 as i8) * i64::from(b as u8 as i8))
                .sum::<i64>()
                + i64::from(c as u32 as i32);
            u64::from(exact as i32 as u32)
        }
        ElemType::I32 | ElemType::Idx => unreachable!("no builtin takes {:?} inputs", x.a_type),
        ElemType::Xf32 | ElemType::Fp8 | ElemType::Bf8 => {
            unreachable!("CDNA2 has no {:?}", x.a_type)
        }
    }
}

/// D `[blocks][M][N]` for builtin `x` under modifiers `m`.
fn reference(x: &Builtin, m: Modifiers, ops: &Operands) -> Vec<u64> {
    let (a, b) = route(x, m, ops);
    let (mm, n, k) = (x.m, x.n, x.k);
    let mut d = Vec::with_capacity(ops.c.len());
    for blk in 0..x.blocks {
        let cols: Vec<Vec<u64>> = (0..n)
            .map(|j| (0..k).map(|kk| b[(blk * k + kk) * n + j]).collect())
            .collect();
        for i in 0..mm {
            let row = &a[(blk * mm + i) * k..][..k];
            for (j, col) in cols.iter().enumerate() {
                d.push(dot(x, row, col, ops.c[(blk * mm + i) * n + j]));
            }
        }
    }
    d
}

// ---------------------------------------------------------------------------
// Random inputs: raw bit patterns, normal-ish values and specials.

fn agree_with_reference(_arch: &str, family: &str) {
    for x in BUILTINS.iter().filter(|x| in_family(family, x)) {
        let check = AgreeWith {
            cases: CASES,
            reference,
        };
        let triples = mfma_core::cdna2::visit(x.name, check).unwrap();
        println!(
            "{:<22} {CASES} cases x {triples:>3} legal triples = {:>5} executions",
            x.name,
            CASES as usize * triples
        );
    }
}

family_tests!("cdna2": execute_agrees_with_reference => agree_with_reference;
    f32_family "f32", f64_family "f64", f16_family "f16",
    bf16_family "bf16", bf16_1k_family "bf16_1k", i8_family "i8");

/// The reference's group size, from the name, is the spec's.
#[test]
fn reference_groups_match_spec() {
    use mfma_core::spec::Arith;
    for x in BUILTINS
        .iter()
        .filter(|x| matches!(x.a_type, ElemType::F16 | ElemType::Bf16))
    {
        assert_eq!(
            x.arith,
            Arith::GroupedSum { group: group_of(x) },
            "{}",
            x.name
        );
    }
}
