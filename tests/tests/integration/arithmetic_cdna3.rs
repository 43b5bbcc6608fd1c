//! Property tests of CDNA3: for every builtin and every legal set of
//! modifiers (cbsz, abid, blgp, and f64 negation), random inputs through
//! `execute` agree bit for bit (NaN by class) with the independent exact
//! model of reference CDNA3 section 4 (`common/cdna3_model.rs`, proved
//! against every vector of `cdna3-numerics.json` by `tests/cdna3_model.rs`),
//! the modifiers applied to the matrices by the reference's own routing
//! formulas (`common/properties.rs`).
//!
//! The model's family and group for each builtin are stated here from
//! reference 4 (by input type and K), not read from the spec; a test checks
//! that the spec agrees.
//!
//! SMFMAC: random stored values, index fields (a different one in every
//! set) and B, C under every legal cbsz/abid, against the same model run on
//! the logical A of the set read, with the logical K (reference section 6:
//! the assumed arithmetic is the dense one along the logical K).

use crate::common::cdna3_model as model;
use crate::common::numerics;
use crate::common::properties;

use mfma_core::spec::{Arith, Builtin, ElemType, Modifiers, Operand};
use model::{Block, Family, Format};
use numerics::in_family;
use properties::{route, AgreeWith, Operands, SparseAgreeWith};

/// Random inputs per builtin; every case runs all legal modifier sets (up to
/// 248 on the 16-block builtins), through the exact (slow) model.
const CASES: u32 = 24;

/// The model's name of an element type.
fn format(t: ElemType) -> Format {
    match t {
        ElemType::F32 => Format::F32,
        ElemType::F64 => Format::F64,
        ElemType::F16 => Format::F16,
        ElemType::Bf16 => Format::Bf16,
        ElemType::Xf32 => Format::Xf32,
        ElemType::Fp8 => Format::Fp8,
        ElemType::Bf8 => Format::Bf8,
        ElemType::I8 => Format::I8,
        ElemType::I32 => Format::I32,
        ElemType::Idx => unreachable!("index fields are not numbers"),
    }
}

/// Reference CDNA3 4.1-4.4, by input type: f32/f64 chain fmas; f16 and bf16
/// take steps of min(K, 8) k, xf32 of 4; fp8/bf8 split steps of min(K, 16);
/// i8 wraps.
fn family(x: &Builtin) -> Family {
    match x.a_type {
        ElemType::F32 | ElemType::F64 => Family::Fma,
        ElemType::F16 | ElemType::Bf16 => Family::Truncated { group: x.k.min(8) },
        ElemType::Xf32 => Family::Truncated { group: 4 },
        ElemType::Fp8 | ElemType::Bf8 => Family::SplitTruncated { group: x.k.min(16) },
        ElemType::I8 => Family::Wrapping,
        ElemType::I32 | ElemType::Idx => unreachable!("no builtin takes {:?} inputs", x.a_type),
    }
}

/// D `[blocks][M][N]` of builtin `x` under modifiers `m`: the routed
/// matrices through the model, block by block.
fn reference(x: &'static Builtin, m: Modifiers, ops: &Operands) -> Vec<u64> {
    let (a, b) = route(x, m, ops);
    let (a_len, b_len, c_len) = (x.m * x.k, x.k * x.n, x.m * x.n);
    let neg = [Operand::A, Operand::B, Operand::C].map(|op| m.negates(op));
    let mut d = Vec::with_capacity(ops.c.len());
    for blk in 0..x.blocks {
        let (a, b) = (&a[blk * a_len..][..a_len], &b[blk * b_len..][..b_len]);
        d.extend(model::run(
            family(x),
            &block(x, [a, b, &ops.c[blk * c_len..][..c_len]], neg),
        ));
    }
    d
}

/// D `[M][N]` of SMFMAC `x` by the model, on its logical A.
fn sparse_reference(x: &'static Builtin, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    model::run(family(x), &block(x, [a, b, c], [false; 3]))
}

/// One block of `x` for the model: M×K A, K×N B, M×N C (K logical for SMFMAC).
fn block<'a>(x: &Builtin, [a, b, c]: [&'a [u64]; 3], neg: [bool; 3]) -> Block<'a> {
    Block {
        m: x.m,
        n: x.n,
        k: x.k,
        a_fmt: format(x.a_type),
        b_fmt: format(x.b_type),
        c_fmt: format(x.cd),
        a,
        b,
        c,
        neg,
    }
}

fn agree_with_model(arch: &str, family_name: &str) {
    let table = mfma_core::spec::arch(arch).unwrap();
    for x in table.builtins.iter().filter(|x| in_family(family_name, x)) {
        if x.is_sparse() {
            let check = SparseAgreeWith {
                cases: CASES,
                reference: sparse_reference,
            };
            let sets = mfma_core::visit_builtin(x, check).unwrap();
            println!(
                "{:<35} {CASES} cases x {sets:>3} legal modifier sets = {:>5} executions",
                x.path(),
                CASES as usize * sets
            );
            continue;
        }
        let check = AgreeWith {
            cases: CASES,
            reference,
        };
        let sets = mfma_core::visit_builtin(x, check).unwrap();
        println!(
            "{:<29} {CASES} cases x {sets:>3} legal modifier sets = {:>5} executions",
            x.path(),
            CASES as usize * sets
        );
    }
}

family_tests!("cdna3": execute_agrees_with_the_model => agree_with_model;
    f32_family "f32", f64_family "f64", xf32_family "xf32", f16_family "f16",
    bf16_family "bf16_1k", fp8_family "fp8", i8_family "i8",
    smfmac_f16_family "smfmac_f16", smfmac_bf16_family "smfmac_bf16_1k",
    smfmac_fp8_family "smfmac_fp8", smfmac_i8_family "smfmac_i8");

/// The families and groups stated above from the reference are the spec's.
#[test]
fn model_families_match_spec() {
    for x in mfma_core::spec::cdna3::BUILTINS {
        let want = match family(x) {
            Family::Fma => Arith::ChainedFma,
            Family::Truncated { group } => Arith::TruncatedDot { group },
            Family::SplitTruncated { group } => Arith::SplitTruncatedDot { group },
            Family::Wrapping => Arith::WrappingInt,
        };
        assert_eq!(x.arith, want, "{}", x.name);
    }
}
