//! The bit-exact vectors of `shared/vectors/cdna2-numerics.json` (MI200
//! arithmetic) and `cdna3-numerics.json` (MI300), both as modelled by
//! MMA-Sim, through the real fragment path: matrices → `Fragment::from_fn`
//! → `execute` → D read back through the layout. Each vector is one block;
//! it is put into every block of the instruction and every block must give
//! the vector's D.
//!
//! `cdna3-smfmac.json` holds the structured-sparse (SMFMAC) vectors: the
//! compressed A and its positions go through `FragA::from_fn` and
//! `FragIdx::from_positions` into `execute_sparse`, under every legal
//! cbsz/abid, the set the instruction reads holding the vector's positions
//! and every other set different ones. These vectors encode an assumption
//! about SMFMAC arithmetic (see `mfma_core::sparse`), not hardware facts.
//!
//! Run with `--nocapture` to see the counts per builtin.

use crate::common::numerics;
use crate::common::vector_files::{bits, file, files, Shape, Vector};

use mfma_core::spec::{arch, Arch, Builtin, Modifiers};
use mfma_core::{
    execute, Acc, Element, FragA, FragB, FragIdx, Instr, Positions, SparseInstr, Visit,
};
use numerics::{hex, in_family, same};
use std::collections::BTreeMap;

/// One wrong element: which vector, which block, which D index (row-major).
struct Mismatch {
    id: String,
    block: usize,
    index: usize,
    got: String,
    want: String,
}

/// Runs one vector on builtin `X`; the mismatches, if any.
struct RunVector<'v>(&'v Vector);

impl Visit for RunVector<'_> {
    type Output = Vec<Mismatch>;

    fn visit<X: Instr>(self) -> Vec<Mismatch> {
        let v = self.0;
        let s = X::SPEC;
        assert_eq!(v.shape, Shape::of(s), "{}: shape", v.id);
        assert_eq!(v.a.len(), s.m * s.k, "{}: A length", v.id);
        assert_eq!(v.b.len(), s.k * s.n, "{}: B length", v.id);
        assert_eq!(v.c.len(), s.m * s.n, "{}: C length", v.id);
        assert_eq!(v.d.len(), s.m * s.n, "{}: D length", v.id);
        let at = |m: &[String], r: usize, c: usize, cols: usize| bits(&m[r * cols + c], &v.id);
        let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(at(&v.a, i, k, s.k)));
        let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(at(&v.b, k, j, s.n)));
        let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(at(&v.c, i, j, s.n)));
        let d = execute::<X, 0, 0, 0>(a, b, c);

        let mut out = Vec::new();
        for block in 0..s.blocks {
            for (index, want) in v.d.iter().enumerate() {
                let (i, j) = (index / s.n, index % s.n);
                let got = d.get(block, i, j).to_bits_u64();
                // Identical inputs must give identical bits, NaN payload included.
                let first = d.get(0, i, j).to_bits_u64();
                let want = bits(want, &v.id);
                if !same(s.cd, got, want) || got != first {
                    out.push(Mismatch {
                        id: v.id.clone(),
                        block,
                        index,
                        got: hex(s.cd, got),
                        want: hex(s.cd, want),
                    });
                }
            }
        }
        out
    }

    fn visit_sparse<X: SparseInstr>(self) -> Option<Vec<Mismatch>> {
        let v = self.0;
        let s = X::SPEC;
        let kc = s.k / 2;
        assert_eq!(v.shape, Shape::of(s), "{}: shape", v.id);
        assert_eq!(v.a.len(), s.m * kc, "{}: A length", v.id);
        assert_eq!(v.idx.len(), s.m * kc, "{}: IDX length", v.id);
        assert_eq!(v.b.len(), s.k * s.n, "{}: B length", v.id);
        assert_eq!(v.c.len(), s.m * s.n, "{}: C length", v.id);
        assert_eq!(v.d.len(), s.m * s.n, "{}: D length", v.id);
        let at = |m: &[String], r: usize, c: usize, cols: usize| bits(&m[r * cols + c], &v.id);
        let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(at(&v.a, i, k, kc)));
        let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(at(&v.b, k, j, s.n)));
        let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(at(&v.c, i, j, s.n)));
        let exact = FragIdx::<X>::from_positions(|i, k| v.idx[i * kc + k])
            .unwrap_or_else(|e| panic!("{}: {e}", v.id));
        let sets = s.sparse.expect("an SMFMAC").sets;
        let mut out = Vec::new();
        // Every legal cbsz/abid: the set read holds the vector's positions,
        // the others the positions moved by one (still valid, different).
        for (cbsz, abid) in (0..4).flat_map(|c| (0..sets).map(move |a| (c, a as i64))) {
            let m = Modifiers::new(cbsz, abid, 0);
            assert!(mfma_core::spec::validate(s, m).is_ok(), "{m:?}");
            let read = s.sparse.unwrap().index_set(m);
            let idx = FragIdx::<X>::from_fn(|set, i, g| {
                let p = exact.get(0, i, g);
                if set == read {
                    p
                } else {
                    Positions::new((p.first() as u8 + 1) % 4, (p.second() as u8 + 1) % 4)
                }
            });
            let d = run_sparse::<X>(m, a, b, c, &idx);
            for (index, want) in v.d.iter().enumerate() {
                let (i, j) = (index / s.n, index % s.n);
                let got = d.get(0, i, j).to_bits_u64();
                let want = bits(want, &v.id);
                if !same(s.cd, got, want) {
                    out.push(Mismatch {
                        id: format!("{} cbsz {cbsz} abid {abid}", v.id),
                        block: 0,
                        index,
                        got: hex(s.cd, got),
                        want: hex(s.cd, want),
                    });
                }
            }
        }
        Some(out)
    }
}

/// `execute_sparse` with run-time modifiers (legal ones: checked by the caller).
fn run_sparse<X: SparseInstr>(
    m: Modifiers,
    a: FragA<X>,
    b: FragB<X>,
    mut c: Acc<X>,
    idx: &FragIdx<X>,
) -> Acc<X> {
    macro_rules! dispatch {
        ($($cbsz:literal $abid:literal),*) => {
            match (m.cbsz, m.abid) {
                $(($cbsz, $abid) => mfma_core::__private::execute_sparse_into_prechecked::<X, $cbsz, $abid>(&a, &b, &mut c, idx),)*
                _ => unreachable!("{m:?}"),
            }
        };
    }
    dispatch!(0 0, 0 1, 0 2, 0 3, 1 0, 1 1, 1 2, 1 3, 2 0, 2 1, 2 2, 2 3, 3 0, 3 1, 3 2, 3 3);
    c
}

/// Runs every vector of the builtins of `family` of architecture `arch`;
/// fails listing the first mismatches. Prints the count per builtin.
fn run_family(arch_name: &str, family: &str) {
    let table: &Arch = arch(arch_name).expect("a known architecture");
    let f = file(arch_name, family.starts_with("smfmac_"));
    let mut passed: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for x in table.builtins.iter().filter(|x| in_family(family, x)) {
        passed.insert(x.name, (0, 0, 0));
    }
    for v in &f.vectors {
        let Some(entry) = passed.get_mut(v.instruction.as_str()) else {
            continue;
        };
        let name = format!("{arch_name}::{}", v.instruction);
        let wrong = mfma_core::visit(&name, RunVector(v))
            .unwrap_or_else(|| panic!("{}: unknown instruction {name}", v.id));
        entry.1 += 1;
        if wrong.is_empty() {
            entry.0 += 1;
            entry.2 += v.model_only_zero_signs();
        }
        mismatches.extend(wrong);
    }
    for (name, (ok, total, zero_signs)) in &passed {
        println!(
            "{arch_name}::{name:<29} {ok:>3}/{total:<3} vectors bit-exact ({zero_signs} model-only zero signs)"
        );
    }
    for (name, (_, total, _)) in &passed {
        assert!(*total > 0, "no vectors for {name}");
    }
    if !mismatches.is_empty() {
        let shown: Vec<String> = mismatches
            .iter()
            .take(20)
            .map(|m| {
                format!(
                    "  {} block {} D[{}]: got {} want {}",
                    m.id, m.block, m.index, m.got, m.want
                )
            })
            .collect();
        panic!(
            "{} wrong D elements, first ones:\n{}",
            mismatches.len(),
            shown.join("\n")
        );
    }
}

mod cdna2 {
    use super::{numerics, run_family};
    family_tests!("cdna2": vectors_are_bit_exact => run_family;
        f32_family "f32", f64_family "f64", f16_family "f16",
        bf16_family "bf16", bf16_1k_family "bf16_1k", i8_family "i8");
}

mod cdna3 {
    use super::{numerics, run_family};
    family_tests!("cdna3": vectors_are_bit_exact => run_family;
        f32_family "f32", f64_family "f64", xf32_family "xf32", f16_family "f16",
        bf16_family "bf16_1k", fp8_family "fp8", i8_family "i8",
        smfmac_f16_family "smfmac_f16", smfmac_bf16_family "smfmac_bf16_1k",
        smfmac_fp8_family "smfmac_fp8", smfmac_i8_family "smfmac_i8");
}

/// Every vector of every file names a builtin of its architecture.
#[test]
fn every_vector_names_a_builtin() {
    for (_, a, sparse) in files() {
        for v in &file(a.name, sparse).vectors {
            let x = a.find(&v.instruction);
            assert!(x.is_some(), "{}: unknown {}", v.id, v.instruction);
            assert_eq!(x.unwrap().is_sparse(), sparse, "{}", v.id);
        }
    }
}

/// Each file's `instructions` table describes exactly its architecture's
/// dense (or SMFMAC) builtins, with the same shape, block count, types and names.
#[test]
fn instruction_metadata_matches_spec() {
    for (_, a, sparse) in files() {
        let f = file(a.name, sparse);
        let names: Vec<&str> = f.instructions.keys().map(String::as_str).collect();
        let mut spec_names: Vec<&str> = a
            .builtins
            .iter()
            .filter(|x| x.is_sparse() == sparse)
            .map(|x| x.name)
            .collect();
        spec_names.sort_unstable();
        assert_eq!(names, spec_names, "{}", a.name);
        for (name, m) in &f.instructions {
            let x: &Builtin = a.find(name).unwrap();
            assert_eq!(m.builtin, x.hip_name().to_string());
            assert_eq!(m.isa, x.isa, "{name}");
            assert_eq!(m.shape, Shape::of(x), "{name}");
            assert_eq!(m.hw_blocks, x.blocks, "{name}");
            assert_eq!(
                [&m.a_type, &m.b_type],
                [x.a_type.name(), x.b_type.name()],
                "{name}"
            );
            assert_eq!([&m.c_type, &m.d_type], [x.cd.name(); 2], "{name}");
        }
    }
}
