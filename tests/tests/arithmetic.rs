//! Property tests: for every builtin and every legal (cbsz, abid, blgp),
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

#[macro_use]
#[path = "common/numerics.rs"]
mod numerics;

use half::{bf16, f16};
use mfma_core::spec::{cdna2::BUILTINS, validate, Builtin, ElemType, Modifiers};
use mfma_core::{execute, Acc, Element, FragA, FragB, Instr, Visit};
use numerics::{hex, in_family, same};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::marker::PhantomData;

/// Random inputs per builtin; every case runs all legal modifier triples.
const CASES: u32 = 64;

// ---------------------------------------------------------------------------
// Legal modifier triples as compile-time constants.

type Exec<X> = fn(FragA<X>, FragB<X>, Acc<X>) -> Acc<X>;

/// One candidate triple for builtin `X`.
struct Triple<X, const CBSZ: i32, const ABID: i32, const BLGP: i32>(PhantomData<X>);

impl<X: Instr, const CBSZ: i32, const ABID: i32, const BLGP: i32> Triple<X, CBSZ, ABID, BLGP> {
    const MODIFIERS: Modifiers = Modifiers::new(CBSZ as i64, ABID as i64, BLGP as i64);
    /// `execute` with these modifiers if they are legal for `X`. Only the
    /// taken branch of a constant is instantiated, so illegal triples never
    /// reach `execute`'s compile-time check.
    const RUN: Option<(Modifiers, Exec<X>)> = if validate(X::SPEC, Self::MODIFIERS).is_ok() {
        Some((Self::MODIFIERS, execute::<X, CBSZ, ABID, BLGP>))
    } else {
        None
    };
}

/// Pushes `Triple::<X, c, a, g>::RUN` for every c, a, g of the three lists.
macro_rules! legal_triples {
    ($x:ty => $out:ident; [$($cbsz:literal)*] $abids:tt $blgps:tt) => {
        $( legal_triples!(@abid $x => $out; $cbsz $abids $blgps); )*
    };
    (@abid $x:ty => $out:ident; $cbsz:literal [$($abid:literal)*] $blgps:tt) => {
        $( legal_triples!(@blgp $x => $out; $cbsz $abid $blgps); )*
    };
    (@blgp $x:ty => $out:ident; $cbsz:literal $abid:literal [$($blgp:literal)*]) => {
        $(
            if let Some(run) = Triple::<$x, $cbsz, $abid, $blgp>::RUN {
                $out.push(run);
            }
        )*
    };
}

/// Every legal triple of `X` with its `execute`. The grid is wider than any
/// legal value (cbsz ≤ log2 16, abid < 16, blgp ≤ 7);
/// `triples_are_all_legal_ones` proves nothing legal falls outside it.
fn legal<X: Instr>() -> Vec<(Modifiers, Exec<X>)> {
    let mut out = Vec::new();
    legal_triples!(X => out;
        [0 1 2 3 4]
        [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]
        [0 1 2 3 4 5 6 7]);
    out
}

struct CountLegal;
impl Visit for CountLegal {
    type Output = Vec<Modifiers>;
    fn visit<X: Instr>(self) -> Vec<Modifiers> {
        legal::<X>().into_iter().map(|(m, _)| m).collect()
    }
}

/// The instantiated triples are exactly those `validate` accepts in the whole
/// encodable space (cbsz 3 bits, abid 4 bits, blgp 3 bits), and their number
/// follows reference 3: 2·blocks − 1 (cbsz, abid) pairs on multi-block
/// non-f64 builtins, one otherwise; 8 blgp values, 1 on f64.
#[test]
fn triples_are_all_legal_ones() {
    for x in BUILTINS {
        let got = mfma_core::cdna2::visit(x.name, CountLegal).unwrap();
        let space = (0..8).flat_map(|c| (0..16).flat_map(move |a| (0..8).map(move |g| (c, a, g))));
        let want: Vec<Modifiers> = space
            .map(|(c, a, g)| Modifiers::new(c, a, g))
            .filter(|&m| validate(x, m).is_ok())
            .collect();
        assert_eq!(got, want, "{}", x.name);
        let f64 = x.a_type == ElemType::F64;
        let pairs = if x.blocks > 1 && !f64 {
            2 * x.blocks - 1
        } else {
            1
        };
        let blgps = if f64 { 1 } else { 8 };
        assert_eq!(got.len(), pairs * blgps, "{}", x.name);
    }
}

// ---------------------------------------------------------------------------
// The reference: per-block matrices of bit patterns.

/// Operands as row-major bit patterns, all blocks one after the other:
/// A `[blocks][M][K]`, B `[blocks][K][N]`, C `[blocks][M][N]`.
#[derive(Clone, Debug)]
struct Operands {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
}

/// Reference 3.2: the lane whose B value lane `lane` reads under `blgp`.
fn blgp_source(blgp: i64, lane: usize) -> usize {
    match blgp {
        0 => lane,
        1 => lane % 32,
        2 => 32 + lane % 32,
        3 => (lane + 16) % 64,
        4 => lane % 16,
        5 => 16 + lane % 16,
        6 => 32 + lane % 16,
        7 => 48 + lane % 16,
        _ => unreachable!("blgp {blgp}"),
    }
}

/// The matrices the hardware multiplies once modifiers have routed the
/// registers (reference 3.1, 3.2 and the B layout of 2.1).
fn route(x: &Builtin, m: Modifiers, ops: &Operands) -> (Vec<u64>, Vec<u64>) {
    let (blocks, n, k) = (x.blocks, x.n, x.k);
    let a_block = x.m * k;
    let group = 1usize << m.cbsz;
    let mut a = Vec::with_capacity(ops.a.len());
    for b in 0..blocks {
        let src = group * (b / group) + m.abid as usize;
        a.extend_from_slice(&ops.a[src * a_block..][..a_block]);
    }
    // B[b][k][j] sits in lane j + N·b + N·blocks·⌊k/E⌋, item k mod E.
    let per_lane = k / (64 / (n * blocks));
    let mut b = Vec::with_capacity(ops.b.len());
    for blk in 0..blocks {
        for kk in 0..k {
            for j in 0..n {
                let lane = j + n * blk + n * blocks * (kk / per_lane);
                let item = kk % per_lane;
                let from = blgp_source(m.blgp, lane);
                let (fj, fb) = (from % n, (from / n) % blocks);
                let fk = per_lane * (from / (n * blocks)) + item;
                b.push(ops.b[(fb * k + fk) * n + fj]);
            }
        }
    }
    (a, b)
}

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
        ElemType::I32 => unreachable!("no builtin takes i32 inputs"),
        ElemType::Xf32 | ElemType::Fp8 | ElemType::Bf8 => unreachable!("CDNA2 has no {:?}", x.a_type),
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

/// Bit patterns of one element type: a third random bits (every class),
/// most values of moderate exponent (so sums and cancellations happen), and
/// the special values: zeros, infinities, NaN, subnormal and normal limits.
fn elem(ty: ElemType) -> BoxedStrategy<u64> {
    // (exponent bits, mantissa bits, bias) of the float formats.
    let (e, mant, bias) = match ty {
        ElemType::F32 => (8, 23, 127),
        ElemType::F64 => (11, 52, 1023),
        ElemType::F16 => (5, 10, 15),
        ElemType::Bf16 => (8, 7, 127),
        ElemType::Xf32 | ElemType::Fp8 | ElemType::Bf8 => unreachable!("CDNA2 has no {ty:?}"),
        ElemType::I8 => return any::<u8>().prop_map(u64::from).boxed(),
        ElemType::I32 => {
            let edge = prop_oneof![Just(i32::MAX), Just(i32::MIN), Just(-1), Just(0)];
            return prop_oneof![3 => any::<i32>(), 1 => edge]
                .prop_map(|v| u64::from(v as u32))
                .boxed();
        }
    };
    let width = 1 + e + mant;
    let all = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let sign = 1u64 << (e + mant);
    let max_exp = (1u64 << e) - 1;
    let pack = move |s: bool, exp: u64, m: u64| if s { sign } else { 0 } | exp << mant | m;
    let random = any::<u64>().prop_map(move |v| v & all);
    // Exponents within ±6 of 1.0: products and sums stay in range, with
    // rounding and cancellation at work.
    let moderate = (any::<bool>(), bias - 6..=bias + 6, any::<u64>())
        .prop_map(move |(s, exp, m)| pack(s, exp, m & ((1 << mant) - 1)));
    let specials = prop::sample::select(vec![
        0,                                        // +0
        sign,                                     // -0
        pack(false, max_exp, 0),                  // +Inf
        pack(true, max_exp, 0),                   // -Inf
        pack(false, max_exp, 1 << (mant - 1)),    // quiet NaN
        1,                                        // smallest subnormal
        pack(true, 0, (1 << mant) - 1),           // largest subnormal, negative
        pack(false, 1, 0),                        // smallest normal
        pack(true, max_exp - 1, (1 << mant) - 1), // most negative finite
        pack(false, bias, 0),                     // 1.0
    ]);
    prop_oneof![3 => random, 5 => moderate, 2 => specials].boxed()
}

fn operands(x: &'static Builtin) -> impl Strategy<Value = Operands> {
    let input = |len| prop::collection::vec(elem(x.a_type), len);
    (
        input(x.a.elements()),
        input(x.b.elements()),
        prop::collection::vec(elem(x.cd), x.c.elements()),
    )
        .prop_map(|(a, b, c)| Operands { a, b, c })
}

// ---------------------------------------------------------------------------
// The property.

/// Runs `CASES` random operand sets through every legal triple of `X`.
struct AgreeWithReference;

impl Visit for AgreeWithReference {
    type Output = usize;

    fn visit<X: Instr>(self) -> usize {
        let x = X::SPEC;
        let triples = legal::<X>();
        let config = Config {
            cases: CASES,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let result = runner.run(&operands(x), |ops| {
            // Row-major `[blocks][rows][cols]` bits at (block, row, col).
            let at = |bits: &[u64], rows: usize, cols: usize, b: usize, r: usize, c: usize| {
                bits[(b * rows + r) * cols + c]
            };
            let a =
                FragA::<X>::from_fn(|b, i, k| X::In::from_bits_u64(at(&ops.a, x.m, x.k, b, i, k)));
            let b =
                FragB::<X>::from_fn(|b, k, j| X::InB::from_bits_u64(at(&ops.b, x.k, x.n, b, k, j)));
            let c =
                Acc::<X>::from_fn(|b, i, j| X::Out::from_bits_u64(at(&ops.c, x.m, x.n, b, i, j)));
            for (m, exec) in &triples {
                let d = exec(a, b, c);
                let want = reference(x, *m, &ops);
                for (idx, &want) in want.iter().enumerate() {
                    let (blk, i, j) = (idx / (x.m * x.n), idx / x.n % x.m, idx % x.n);
                    let got = d.get(blk, i, j).to_bits_u64();
                    if !same(x.cd, got, want) {
                        return Err(TestCaseError::fail(format!(
                            "{} {m:?}: D[{blk}][{i}][{j}] = {} but the reference gives {}",
                            x.name,
                            hex(x.cd, got),
                            hex(x.cd, want)
                        )));
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", x.name);
        }
        triples.len()
    }
}

fn agree_with_reference(_arch: &str, family: &str) {
    for x in BUILTINS.iter().filter(|x| in_family(family, x)) {
        let triples = mfma_core::cdna2::visit(x.name, AgreeWithReference).unwrap();
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
