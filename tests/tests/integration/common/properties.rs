//! What the property tests of every architecture share: every legal set of
//! immediates as a compile-time instantiation of `execute`, random operands
//! with the special values of each format, the modifiers' routing restated
//! from the reference (3.1 and 3.2, with the input layout of 2.1), and the
//! loop that runs random cases through every legal set and compares D with
//! a reference bit for bit (NaN by class).
//!
//! The routing here is not taken from mfma-spec or the kernels: A blocks are
//! substituted by the `src(b)` formula of 3.1, B elements fetched through
//! the blgp lane table of 3.2 mapped back to matrix coordinates by the
//! layout formula of 2.1.

use super::numerics::{hex, same};
use mfma_core::spec::{validate, Builtin, ElemType, Modifiers};
use mfma_core::{
    execute, execute_sparse, Acc, Element, FragA, FragB, FragIdx, Instr, Positions, SparseInstr,
    Visit,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::marker::PhantomData;

// ---------------------------------------------------------------------------
// Legal immediates as compile-time constants.

pub type Exec<X> = fn(FragA<X>, FragB<X>, Acc<X>) -> Acc<X>;

/// One candidate set of the instruction's three immediates for builtin `X`
/// (the third is blgp, or the negation flags where the spec says so).
struct Triple<X, const CBSZ: i32, const ABID: i32, const BLGP: i32>(PhantomData<X>);

impl<X: Instr, const CBSZ: i32, const ABID: i32, const BLGP: i32> Triple<X, CBSZ, ABID, BLGP> {
    const MODIFIERS: Modifiers =
        Modifiers::from_immediates(X::SPEC, [CBSZ as i64, ABID as i64, BLGP as i64]);
    /// `execute` with these immediates if they are legal for `X`. Only the
    /// taken branch of a constant is instantiated, so illegal ones never
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

/// Every legal set of immediates of `X` with its `execute`. The grid is
/// wider than any legal value (cbsz ≤ log2 16, abid < 16, blgp or neg ≤ 7);
/// `triples_are_all_legal_ones` proves nothing legal falls outside it.
pub fn legal<X: Instr>() -> Vec<(Modifiers, Exec<X>)> {
    let mut out = Vec::new();
    legal_triples!(X => out;
        [0 1 2 3 4]
        [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]
        [0 1 2 3 4 5 6 7]);
    out
}

/// The modifiers of every legal set of `X`.
pub struct CountLegal;
impl Visit for CountLegal {
    type Output = Vec<Modifiers>;
    fn visit<X: Instr>(self) -> Vec<Modifiers> {
        legal::<X>().into_iter().map(|(m, _)| m).collect()
    }
    fn visit_sparse<X: SparseInstr>(self) -> Option<Vec<Modifiers>> {
        Some(legal_sparse::<X>().into_iter().map(|(m, _)| m).collect())
    }
}

// ---------------------------------------------------------------------------
// Operands and routing.

/// Operands as row-major bit patterns, all blocks one after the other:
/// A `[blocks][M][K]`, B `[blocks][K][N]`, C `[blocks][M][N]`.
#[derive(Clone, Debug)]
pub struct Operands {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: Vec<u64>,
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
pub fn route(x: &Builtin, m: Modifiers, ops: &Operands) -> (Vec<u64>, Vec<u64>) {
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

// ---------------------------------------------------------------------------
// Random inputs: raw bit patterns, normal-ish values and specials.

/// Bit patterns of one element type: a third random bits (every class),
/// most values of moderate exponent (so sums and cancellations happen), and
/// the special values: zeros, infinities, NaN, subnormal and normal limits
/// (FNUZ 8-bit floats: their one NaN, no infinity, no -0).
pub fn elem(ty: ElemType) -> BoxedStrategy<u64> {
    // (exponent bits, mantissa bits, bias) of the float formats.
    let (e, mant, bias) = match ty {
        ElemType::F32 | ElemType::Xf32 => (8, 23, 127),
        ElemType::F64 => (11, 52, 1023),
        ElemType::F16 => (5, 10, 15),
        ElemType::Bf16 => (8, 7, 127),
        ElemType::Fp8 => (4, 3, 8),
        ElemType::Bf8 => (5, 2, 16),
        ElemType::I8 => return any::<u8>().prop_map(u64::from).boxed(),
        ElemType::Idx => {
            return (0u8..4, 1u8..4)
                .prop_map(|(p, d)| u64::from(p | ((p + d) % 4) << 2))
                .boxed()
        }
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
    // Exponents near 1.0 (±6, or ±3 for 8-bit floats): products and sums
    // stay in range, with rounding and cancellation at work.
    let spread = if width == 8 { 3 } else { 6 };
    let moderate = (any::<bool>(), bias - spread..=bias + spread, any::<u64>())
        .prop_map(move |(s, exp, m)| pack(s, exp, m & ((1 << mant) - 1)));
    let mut specials = vec![
        0,                              // +0
        1,                              // smallest subnormal
        pack(true, 0, (1 << mant) - 1), // largest subnormal, negative
        pack(false, 1, 0),              // smallest normal
        pack(false, bias, 0),           // 1.0
    ];
    if matches!(ty, ElemType::Fp8 | ElemType::Bf8) {
        specials.extend([
            sign,                                  // NaN, the only one
            pack(false, max_exp, (1 << mant) - 1), // largest finite
            pack(true, max_exp, (1 << mant) - 1),  // most negative finite
        ]);
    } else {
        specials.extend([
            sign,                                     // -0
            pack(false, max_exp, 0),                  // +Inf
            pack(true, max_exp, 0),                   // -Inf
            pack(false, max_exp, 1 << (mant - 1)),    // quiet NaN
            pack(true, max_exp - 1, (1 << mant) - 1), // most negative finite
        ]);
    }
    if ty == ElemType::Xf32 {
        // A NaN whose payload lies only in the bits tf32 drops: an infinity.
        specials.push(pack(false, max_exp, 1));
    }
    let specials = prop::sample::select(specials);
    prop_oneof![3 => random, 5 => moderate, 2 => specials].boxed()
}

pub fn operands(x: &'static Builtin) -> impl Strategy<Value = Operands> {
    (
        prop::collection::vec(elem(x.a_type), x.a.elements()),
        prop::collection::vec(elem(x.b_type), x.b.elements()),
        prop::collection::vec(elem(x.cd), x.c.elements()),
    )
        .prop_map(|(a, b, c)| Operands { a, b, c })
}

// ---------------------------------------------------------------------------
// The property.

/// Runs `cases` random operand sets through every legal set of immediates
/// of `X`, comparing D with `reference(x, modifiers, operands)` (D as
/// `[blocks][M][N]` bits); the number of legal sets.
pub struct AgreeWith<F> {
    pub cases: u32,
    pub reference: F,
}

impl<F: Fn(&'static Builtin, Modifiers, &Operands) -> Vec<u64>> Visit for AgreeWith<F> {
    type Output = usize;

    fn visit<X: Instr>(self) -> usize {
        let x = X::SPEC;
        let triples = legal::<X>();
        let config = Config {
            cases: self.cases,
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
                compare(*m, &exec(a, b, c), &(self.reference)(x, *m, &ops))?;
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", x.path());
        }
        triples.len()
    }
}

/// D against the reference's `[blocks][M][N]` bits (NaN by class).
fn compare<X: Instr>(m: Modifiers, d: &Acc<X>, want: &[u64]) -> Result<(), TestCaseError> {
    let x = X::SPEC;
    for (idx, &want) in want.iter().enumerate() {
        let (blk, i, j) = (idx / (x.m * x.n), idx / x.n % x.m, idx % x.n);
        let got = d.get(blk, i, j).to_bits_u64();
        if !same(x.cd, got, want) {
            return Err(TestCaseError::fail(format!(
                "{} {m:?}: D[{blk}][{i}][{j}] = {} but the reference gives {}",
                x.path(),
                hex(x.cd, got),
                hex(x.cd, want)
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Structured sparsity (SMFMAC).

pub type SparseExec<X> = fn(FragA<X>, FragB<X>, Acc<X>, &FragIdx<X>) -> Acc<X>;

/// `execute_sparse` with these immediates if they are legal for `X`.
struct Pair<X, const CBSZ: i32, const ABID: i32>(PhantomData<X>);

impl<X: SparseInstr, const CBSZ: i32, const ABID: i32> Pair<X, CBSZ, ABID> {
    const MODIFIERS: Modifiers = Modifiers::new(CBSZ as i64, ABID as i64, 0);
    const RUN: Option<(Modifiers, SparseExec<X>)> = if validate(X::SPEC, Self::MODIFIERS).is_ok() {
        Some((Self::MODIFIERS, execute_sparse::<X, CBSZ, ABID>))
    } else {
        None
    };
}

/// Every legal cbsz/abid of SMFMAC builtin `X` with its `execute_sparse`
/// (the grid is wider than any legal value: cbsz ≤ 3, abid < 4).
pub fn legal_sparse<X: SparseInstr>() -> Vec<(Modifiers, SparseExec<X>)> {
    let mut out = Vec::new();
    macro_rules! pairs {
        ($($cbsz:literal)*; $abids:tt) => { $( pairs!(@abid $cbsz $abids); )* };
        (@abid $cbsz:literal [$($abid:literal)*]) => {
            $( if let Some(run) = Pair::<X, $cbsz, $abid>::RUN { out.push(run); } )*
        };
    }
    pairs!(0 1 2 3 4; [0 1 2 3 4 5 6 7]);
    out
}

/// The six valid fields of an index: two different positions, ascending.
pub const FIELDS: [(u8, u8); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];

/// SMFMAC operands as bits: the stored values of A `[M][K/2]`, the field
/// (an index into [`FIELDS`]) of every (set, i, g) `[sets][M][K/4]`, B
/// `[K][N]`, C `[M][N]`.
#[derive(Clone, Debug)]
pub struct SparseOperands {
    pub a: Vec<u64>,
    pub fields: Vec<usize>,
    pub b: Vec<u64>,
    pub c: Vec<u64>,
}

impl SparseOperands {
    /// The logical `M × K` A that set `set` describes (reference CDNA3 1.2:
    /// the stored values at their positions, +0 elsewhere), row-major.
    pub fn logical_a(&self, x: &Builtin, set: usize) -> Vec<u64> {
        let (groups, kc) = (x.k / 4, x.k / 2);
        let mut a = vec![0; x.m * x.k];
        for i in 0..x.m {
            for g in 0..groups {
                let (p0, p1) = FIELDS[self.fields[(set * x.m + i) * groups + g]];
                a[i * x.k + 4 * g + p0 as usize] = self.a[i * kc + 2 * g];
                a[i * x.k + 4 * g + p1 as usize] = self.a[i * kc + 2 * g + 1];
            }
        }
        a
    }
}

pub fn sparse_operands(x: &'static Builtin) -> impl Strategy<Value = SparseOperands> {
    let sets = x.sparse.expect("an SMFMAC").sets;
    (
        prop::collection::vec(elem(x.a_type), x.m * x.k / 2),
        prop::collection::vec(0..FIELDS.len(), sets * x.m * x.k / 4),
        prop::collection::vec(elem(x.b_type), x.k * x.n),
        prop::collection::vec(elem(x.cd), x.m * x.n),
    )
        .prop_map(|(a, fields, b, c)| SparseOperands { a, fields, b, c })
}

/// [`AgreeWith`] for SMFMAC: random stored values, index fields (every set
/// different) and B, C through every legal cbsz/abid, against
/// `reference(x, logical A of the set read, B, C)`; the number of legal sets.
pub struct SparseAgreeWith<F> {
    pub cases: u32,
    pub reference: F,
}

impl<F: Fn(&'static Builtin, &[u64], &[u64], &[u64]) -> Vec<u64>> Visit for SparseAgreeWith<F> {
    type Output = usize;

    fn visit<X: Instr>(self) -> usize {
        unreachable!("{} is dense", X::SPEC.name)
    }

    fn visit_sparse<X: SparseInstr>(self) -> Option<usize> {
        let x = X::SPEC;
        let pairs = legal_sparse::<X>();
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let (kc, groups) = (x.k / 2, x.k / 4);
        let result = runner.run(&sparse_operands(x), |ops| {
            let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(ops.a[i * kc + k]));
            let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(ops.b[k * x.n + j]));
            let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(ops.c[i * x.n + j]));
            let idx = FragIdx::<X>::from_fn(|set, i, g| {
                let (p0, p1) = FIELDS[ops.fields[(set * x.m + i) * groups + g]];
                Positions::new(p0, p1)
            });
            for (m, exec) in &pairs {
                let d = exec(a, b, c, &idx);
                let set = x.sparse.unwrap().index_set(*m);
                // Reference 3.4, restated: abid picks the set when cbsz is 0.
                assert_eq!(set, if m.cbsz == 0 { m.abid as usize } else { 0 });
                compare(
                    *m,
                    &d,
                    &(self.reference)(x, &ops.logical_a(x, set), &ops.b, &ops.c),
                )?;
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", x.path());
        }
        Some(pairs.len())
    }
}
