//! Structured sparsity through the user's API, for every SMFMAC builtin:
//! compressing a logical 4:2 A and reading it back, the errors for what is
//! not 4:2, the index register as the hardware reads it, and the product
//! against the dense path (two `execute`s of the dense twin on the logical
//! halves of K, which is what the stated assumption says SMFMAC computes).

use crate::common::numerics;
use crate::common::properties;

use mfma_core::spec::{Coord, Sparse};
use mfma_core::{
    execute, execute_sparse, Acc, Element, FragA, FragB, FragIdx, Instr, Positions, SparseInstr,
    SparsityError, Visit,
};
use numerics::{hex, same};
use properties::{elem, FIELDS};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Random cases per builtin.
const CASES: u32 = 32;

/// Runs `v` on every SMFMAC builtin; how many there were.
fn every_smfmac<V: Visit<Output = ()> + Copy>(v: V) -> usize {
    let sparse = mfma_core::spec::ARCHS
        .iter()
        .flat_map(|a| a.builtins)
        .filter(|x| x.is_sparse());
    let mut n = 0;
    for x in sparse {
        mfma_core::visit_builtin(x, v).expect("visits SMFMAC");
        n += 1;
    }
    n
}

/// A random logical 4:2 A, as bits `[M][K]`: per group, two positions and
/// two values (any of which may be zero, or -0, or special).
fn logical<X: SparseInstr>() -> impl Strategy<Value = Vec<u64>> {
    let x = X::SPEC;
    (
        prop::collection::vec(0..FIELDS.len(), x.m * x.k / 4),
        prop::collection::vec(elem(x.a_type), x.m * x.k / 2),
    )
        .prop_map(move |(fields, values)| {
            let mut a = vec![0; x.m * x.k];
            for (g, &f) in fields.iter().enumerate() {
                let (p0, p1) = FIELDS[f];
                a[4 * g + p0 as usize] = values[2 * g];
                a[4 * g + p1 as usize] = values[2 * g + 1];
            }
            a
        })
}

fn config() -> Config {
    Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    }
}

#[derive(Clone, Copy)]
struct RoundTrip;
impl Visit for RoundTrip {
    type Output = ();
    fn visit<X: Instr>(self) {}
    /// compress, then read back every logical element, in every set, bit
    /// for bit; k_of names the k each stored value came from.
    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        let x = X::SPEC;
        let sets = x.sparse.unwrap().sets;
        TestRunner::new(config())
            .run(&logical::<X>(), |bits| {
                let at = |i: usize, k: usize| X::In::from_bits_u64(bits[i * x.k + k]);
                let (a, idx) =
                    FragA::<X>::compress(at).map_err(|e| TestCaseError::fail(e.to_string()))?;
                for set in 0..sets {
                    for i in 0..x.m {
                        for k in 0..x.k {
                            let got = a.logical(&idx, set, i, k).to_bits_u64();
                            prop_assert_eq!(
                                got,
                                bits[i * x.k + k],
                                "{} set {} ({}, {})",
                                x.name,
                                set,
                                i,
                                k
                            );
                        }
                        for kc in 0..x.k / 2 {
                            let k = idx.k_of(set, i, kc);
                            prop_assert_eq!(
                                k / 4,
                                kc / 2,
                                "{}: k of kc {} outside its group",
                                x.name,
                                kc
                            );
                            prop_assert_eq!(a.get(0, i, kc).to_bits_u64(), at(i, k).to_bits_u64());
                        }
                    }
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", x.name));
        Some(())
    }
}

#[test]
fn compress_then_read_back_is_the_identity() {
    assert_eq!(every_smfmac(RoundTrip), 14);
}

#[derive(Clone, Copy)]
struct Errors;
impl Visit for Errors {
    type Output = ();
    fn visit<X: Instr>(self) {}
    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        let x = X::SPEC;
        let one = <X::In as Element>::from_bits_u64(0x38);
        // Three nonzero values in row 5, group 3 (k 12..16), and again in a
        // later group: the first in row-major order is reported.
        let dense = |i: usize, k: usize| {
            let bad = (i == 5 && (12..16).contains(&k) && k != 13) || (i == 9 && k < 4);
            if bad {
                one
            } else {
                X::In::ZERO
            }
        };
        let err = FragA::<X>::compress(dense).unwrap_err();
        assert_eq!(
            err,
            SparsityError::TooDense {
                builtin: x,
                row: 5,
                group: 3,
                nonzero: [true, false, true, true]
            }
        );
        assert!(err.to_string().starts_with(&format!(
            "row 5, group 3 (k 12..16) of the A of {} holds 3 nonzero values (at k 12, 14, 15)",
            x.path()
        )));
        // Positions: out of range, and both values at one k.
        let err = FragIdx::<X>::from_positions(
            |i, kc| if (i, kc) == (2, 7) { 4 } else { (kc % 2) as u8 },
        )
        .unwrap_err();
        assert_eq!(
            err,
            SparsityError::PositionOutOfRange {
                builtin: x,
                row: 2,
                kc: 7,
                position: 4
            }
        );
        let err = FragIdx::<X>::from_positions(|i, kc| {
            if i == 3 && kc / 2 == 1 {
                2
            } else {
                (kc % 2) as u8
            }
        })
        .unwrap_err();
        assert_eq!(
            err,
            SparsityError::SamePosition {
                builtin: x,
                row: 3,
                group: 1,
                position: 2
            }
        );
        // A group of fewer than 2 nonzero values stores zeros at the lowest
        // free positions.
        let (a, idx) =
            FragA::<X>::compress(|_, k| if k % 4 == 2 { one } else { X::In::ZERO }).unwrap();
        assert_eq!(idx.get(0, 0, 0), Positions::new(0, 2));
        assert_eq!((a.get(0, 0, 0), a.get(0, 0, 1)), (X::In::ZERO, one));
        let (_, idx) = FragA::<X>::compress(|_, _| X::In::ZERO).unwrap();
        assert_eq!(idx.get(0, 0, 0), Positions::new(0, 1));
        Some(())
    }
}

#[test]
fn what_is_not_4_2_sparse_is_refused_with_its_place() {
    assert_eq!(every_smfmac(Errors), 14);
}

#[derive(Clone, Copy)]
struct Register;
impl Visit for Register {
    type Output = ();
    fn visit<X: Instr>(self) {}
    /// The register of each lane holds the field of (set, i, g) at bits
    /// 4·item (reference 2.2), every field once.
    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        let x = X::SPEC;
        let s: Sparse = x.sparse.unwrap();
        let field = |set: usize, i: usize, g: usize| {
            let (p0, p1) = FIELDS[(set * 7 + i * 3 + g) % FIELDS.len()];
            Positions::new(p0, p1)
        };
        let idx = FragIdx::<X>::from_fn(field);
        let mut seen = vec![0u32; 64];
        for set in 0..s.sets {
            for i in 0..x.m {
                for g in 0..x.k / 4 {
                    let slot = s.idx.slot(Coord::new(set, i, g));
                    let bits = idx.register(slot.lane) >> (4 * slot.item) & 0xf;
                    assert_eq!(bits, u32::from(field(set, i, g).to_bits()), "{}", x.name);
                    // Within set `set`'s bits of the register.
                    assert_eq!(
                        4 * slot.item as u32 / s.set_bits(),
                        set as u32,
                        "{}",
                        x.name
                    );
                    assert_eq!(seen[slot.lane] >> (4 * slot.item) & 0xf, 0);
                    seen[slot.lane] |= 0xf << (4 * slot.item);
                }
            }
        }
        assert!(
            seen.iter().all(|&r| r == u32::MAX),
            "{}: unused fields",
            x.name
        );
        Some(())
    }
}

#[test]
fn the_index_register_holds_every_field_once() {
    assert_eq!(every_smfmac(Register), 14);
}

#[derive(Clone, Copy)]
struct AgreesWithDense;
impl Visit for AgreesWithDense {
    type Output = ();
    fn visit<X: Instr>(self) {}
    /// SMFMAC on a compressed A = the dense twin, twice along K, on the
    /// logical A (abid 1 reads set 1, where compress put the same index).
    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        type D<X> = <X as SparseInstr>::Dense;
        let x = X::SPEC;
        let d = <D<X> as Instr>::SPEC;
        assert_eq!(
            (d.m, d.n, 2 * d.k, d.blocks),
            (x.m, x.n, x.k, 1),
            "{}",
            x.name
        );
        let operands = (
            logical::<X>(),
            prop::collection::vec(elem(x.b_type), x.k * x.n),
            prop::collection::vec(elem(x.cd), x.m * x.n),
        );
        TestRunner::new(config())
            .run(&operands, |(a_bits, b_bits, c_bits)| {
                let at = |i: usize, k: usize| X::In::from_bits_u64(a_bits[i * x.k + k]);
                let (a, idx) = FragA::<X>::compress(at).unwrap();
                let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(b_bits[k * x.n + j]));
                let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(c_bits[i * x.n + j]));
                let sparse = execute_sparse::<X, 0, 1>(a, b, c, &idx);

                let mut dense = Acc::<D<X>>::from_fn(|_, i, j| c.at(i, j));
                for h in 0..2 {
                    let a = FragA::<D<X>>::from_fn(|_, i, k| at(i, h * d.k + k));
                    let b = FragB::<D<X>>::from_fn(|_, k, j| {
                        <D<X> as Instr>::InB::from_bits_u64(b_bits[(h * d.k + k) * x.n + j])
                    });
                    dense = execute::<D<X>, 0, 0, 0>(a, b, dense);
                }
                for i in 0..x.m {
                    for j in 0..x.n {
                        let (got, want) =
                            (sparse.at(i, j).to_bits_u64(), dense.at(i, j).to_bits_u64());
                        prop_assert!(
                            same(x.cd, got, want),
                            "{} D[{}][{}]: SMFMAC {} dense {}",
                            x.name,
                            i,
                            j,
                            hex(x.cd, got),
                            hex(x.cd, want)
                        );
                    }
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", x.name));
        Some(())
    }
}

#[test]
fn smfmac_is_the_dense_twin_twice_on_the_logical_a() {
    assert_eq!(every_smfmac(AgreesWithDense), 14);
}

/// The assumption is stated where users read: every SMFMAC type's rustdoc
/// comes from the spec row, and the module docs say it; here, that the
/// dense twin the docs name is the spec's.
#[test]
fn every_smfmac_has_a_dense_twin_of_half_the_k() {
    for x in mfma_core::spec::cdna3::BUILTINS
        .iter()
        .filter(|x| x.is_sparse())
    {
        let d = x.dense_twin().unwrap_or_else(|| panic!("{}", x.name));
        assert_eq!(
            (d.a_type, d.b_type, d.cd, d.arith),
            (x.a_type, x.b_type, x.cd, x.arith),
            "{}",
            x.name
        );
        assert_eq!(
            x.name,
            format!("smfmac_{}", name_of_sparse(d)),
            "{}",
            x.name
        );
    }
}

/// The SMFMAC name of a dense twin: its K doubled, CDNA3 spelling
/// (`f32_16x16x16f16` → `f32_16x16x32_f16`, `bf16_1k` → `bf16`).
fn name_of_sparse(d: &mfma_core::spec::Builtin) -> String {
    let eight_bit = d.a_type.bits() == 8 && d.a_type.is_float();
    let types = if d.a_type == d.b_type && !eight_bit {
        d.a_type.name().to_string()
    } else {
        format!("{}_{}", d.a_type.name(), d.b_type.name())
    };
    format!("{}_{}x{}x{}_{types}", d.cd.name(), d.m, d.n, 2 * d.k)
}
