//! `mfma run`: test vectors through the real software path — matrices to
//! fragments (`Fragment::from_fn`), `mfma_core::execute`, fragments back to
//! matrices — dispatched by qualified name (`cdna3::NAME`) with
//! `mfma_core::visit`, so each architecture's own arithmetic runs.
//!
//! An SMFMAC vector (the schema of `cdna3-smfmac.json`) gives A compressed,
//! `M x K/2`, and `IDX`, the position (0..=3) of each stored value in its
//! group of 4 k; they become `FragA` and `FragIdx::from_positions` (every
//! index set the same) and run through `execute_sparse` with the vector's
//! optional `cbsz`/`abid`, checked by the spec's rules first.

use crate::error::{Error, Result};
use crate::resolve::{self, ArchChoice};
use crate::text;
use mfma_core::__private::execute_sparse_into_prechecked;
use mfma_core::{execute, Acc, Element, FragA, FragB, FragIdx, Instr, SparseInstr, Visit};
use mfma_spec::{Builtin, Coord, ElemType, Layout, Modifiers};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// One vector's result. `reported_block` and `disagreeing_blocks` appear
/// only if the blocks of the instruction, all given the same data, differ.
#[derive(Serialize)]
struct Outcome {
    id: String,
    #[serde(rename = "D")]
    d: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reported_block: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disagreeing_blocks: Option<Vec<usize>>,
}

#[derive(Serialize)]
struct Output {
    results: Vec<Outcome>,
}

/// One block's A, B and C as raw bits, row-major; for SMFMAC A is the
/// compressed `M x K/2` and `idx` the position of each of its values.
struct Exec<'a> {
    a: &'a [u64],
    b: &'a [u64],
    c: &'a [u64],
    idx: &'a [u8],
    /// SMFMAC's cbsz/abid, legal (checked against the spec).
    modifiers: Modifiers,
}

/// Row-major index of (row, col) in one block of `l`.
fn at(l: &Layout, row: usize, col: usize) -> usize {
    l.linear(Coord::new(0, row, col))
}

impl Visit for Exec<'_> {
    /// D of every block, as bits, row-major; or why the data is no valid
    /// sparse operand.
    type Output = Result<Vec<Vec<u64>>>;

    fn visit<X: Instr>(self) -> Result<Vec<Vec<u64>>> {
        let s = X::SPEC;
        // The one block of the vector goes into every block of the instruction.
        let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(self.a[at(&s.a, i, k)]));
        let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(self.b[at(&s.b, k, j)]));
        let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(self.c[at(&s.c, i, j)]));
        let d = execute::<X, 0, 0, 0>(a, b, c);
        Ok((0..s.blocks)
            .map(|blk| {
                (0..s.m)
                    .flat_map(|i| (0..s.n).map(move |j| (i, j)))
                    .map(|(i, j)| d.get(blk, i, j).to_bits_u64())
                    .collect()
            })
            .collect())
    }

    fn visit_sparse<X: SparseInstr>(self) -> Option<Result<Vec<Vec<u64>>>> {
        let s = X::SPEC;
        let kc = s.k / 2;
        let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(self.a[i * kc + k]));
        let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(self.b[at(&s.b, k, j)]));
        let mut d = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(self.c[at(&s.c, i, j)]));
        let idx = match FragIdx::<X>::from_positions(|i, k| self.idx[i * kc + k]) {
            Ok(idx) => idx,
            Err(e) => return Some(Err(Error::new(format!("`IDX`: {e}")))),
        };
        sparse_into::<X>(self.modifiers, &a, &b, &mut d, &idx);
        let out = (0..s.m)
            .flat_map(|i| (0..s.n).map(move |j| (i, j)))
            .map(|(i, j)| d.get(0, i, j).to_bits_u64())
            .collect();
        Some(Ok(vec![out]))
    }
}

/// `execute_sparse_into` with run-time cbsz/abid, which the caller has
/// checked with `mfma_spec::validate` (the compile-time check of
/// `execute_sparse_into` needs constants).
fn sparse_into<X: SparseInstr>(
    m: Modifiers,
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
    idx: &FragIdx<X>,
) {
    debug_assert!(mfma_spec::validate(X::SPEC, m).is_ok(), "{m:?}");
    macro_rules! dispatch {
        ($($cbsz:literal $abid:literal),*) => {
            match (m.cbsz, m.abid) {
                $(($cbsz, $abid) => execute_sparse_into_prechecked::<X, $cbsz, $abid>(a, b, c, idx),)*
                _ => unreachable!("cbsz/abid were validated: {m:?}"),
            }
        };
    }
    dispatch!(0 0, 0 1, 0 2, 0 3, 1 0, 1 1, 1 2, 1 3, 2 0, 2 1, 2 2, 2 3, 3 0, 3 1, 3 2, 3 3);
}

fn hex_digits(t: ElemType) -> usize {
    t.bits() as usize / 4
}

/// A matrix field: a list of exactly `len` fixed-width hex bit patterns.
fn matrix(v: &Value, field: &str, t: ElemType, len: usize, shape: &str) -> Result<Vec<u64>> {
    let list = v
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| Error::new(format!("missing list field `{field}`")))?;
    if list.len() != len {
        return Err(Error::new(format!(
            "`{field}` has {} elements but needs {shape} = {len}",
            list.len()
        )));
    }
    let width = hex_digits(t);
    list.iter()
        .enumerate()
        .map(|(n, x)| {
            let bad = || {
                Error::new(format!(
                    "`{field}`[{n}] = {x}: expected a {width}-digit hex bit pattern of {}",
                    t.name()
                ))
            };
            let s = x.as_str().ok_or_else(bad)?;
            if s.len() != width || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad());
            }
            u64::from_str_radix(s, 16).map_err(|_| bad())
        })
        .collect()
}

/// SMFMAC's `IDX`: exactly `len` integers 0..=3 (the pair of a group is
/// checked by `FragIdx::from_positions`).
fn positions(v: &Value, len: usize) -> Result<Vec<u8>> {
    let list = v
        .get("IDX")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::new("`IDX` is not a list"))?;
    if list.len() != len {
        return Err(Error::new(format!(
            "`IDX` has {} elements but needs M*K/2 = {len} (one position per stored A value)",
            list.len()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(n, x)| {
            x.as_u64()
                .filter(|&p| p <= 3)
                .map(|p| p as u8)
                .ok_or_else(|| {
                    Error::new(format!(
                        "`IDX`[{n}] = {x}: expected a position 0..=3 in the group of 4 k"
                    ))
                })
        })
        .collect()
}

/// SMFMAC's optional `cbsz` and `abid` (default 0), checked by the spec's
/// rules, so the message is the one `mfma!` gives.
fn sparse_modifiers(v: &Value, b: &'static Builtin) -> Result<Modifiers> {
    let field = |name: &str| match v.get(name) {
        None => Ok(0),
        Some(x) => x
            .as_i64()
            .ok_or_else(|| Error::new(format!("`{name}` is {x}, not an integer"))),
    };
    let m = Modifiers::new(field("cbsz")?, field("abid")?, 0);
    mfma_spec::validate(b, m).map_err(|e| Error::new(e.to_string()))?;
    Ok(m)
}

/// `M`, `N` or `K`, if the vector states it, must be the builtin's.
fn check_dim(v: &Value, field: &str, want: usize, b: &Builtin) -> Result<()> {
    match v.get(field) {
        None => Ok(()),
        Some(x) if x.as_u64() == Some(want as u64) => Ok(()),
        Some(x) => Err(Error::new(format!(
            "`{field}` is {x} but {} has {field} = {want}",
            b.path()
        ))),
    }
}

fn one(v: &Value, arch: ArchChoice) -> Result<Outcome> {
    let b = resolve::builtin(
        v.get("instruction")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::new("missing string field `instruction`"))?,
        arch,
    )?;
    check_dim(v, "M", b.m, b)?;
    check_dim(v, "N", b.n, b)?;
    check_dim(v, "K", b.k, b)?;
    let (a, idx, modifiers) = if b.is_sparse() {
        let stored = b.m * b.k / 2;
        if v.get("IDX").is_none() {
            return Err(Error::new(format!(
                "missing list field `IDX`: {} is a structured-sparse SMFMAC builtin, so its \
                 vector gives A compressed (M*K/2 = {stored} values) and IDX, the position \
                 (0..=3) of each in its group of 4 k (the schema of cdna3-smfmac.json)",
                b.path()
            )));
        }
        (
            matrix(v, "A", b.a_type, stored, "M*K/2 (A is compressed)")?,
            positions(v, stored)?,
            sparse_modifiers(v, b)?,
        )
    } else {
        if v.get("IDX").is_some() {
            return Err(Error::new(format!(
                "`IDX` is given but {} is a dense MFMA builtin: only the structured-sparse \
                 SMFMAC builtins (`smfmac_...`) take an index, and a dense A is all M*K values",
                b.path()
            )));
        }
        (
            matrix(v, "A", b.a_type, b.m * b.k, "M*K")?,
            Vec::new(),
            Modifiers::NONE,
        )
    };
    let bm = matrix(v, "B", b.b_type, b.k * b.n, "K*N")?;
    let c = matrix(v, "C", b.cd, b.m * b.n, "M*N")?;
    let blocks = mfma_core::visit_builtin(
        b,
        Exec {
            a: &a,
            b: &bm,
            c: &c,
            idx: &idx,
            modifiers,
        },
    )
    .ok_or_else(|| Error::new(format!("no software path for {}", b.path())))??;
    let width = hex_digits(b.cd);
    let d = blocks[0].iter().map(|x| format!("{x:0width$x}")).collect();
    let differ: Vec<usize> = (1..blocks.len())
        .filter(|&n| blocks[n] != blocks[0])
        .collect();
    let (reported_block, disagreeing_blocks) = if differ.is_empty() {
        (None, None)
    } else {
        (Some(0), Some(differ))
    };
    Ok(Outcome {
        id: String::new(),
        d,
        reported_block,
        disagreeing_blocks,
    })
}

/// The architecture the vectors' names mean: the input's top-level `arch`
/// (which `--arch`, if given, must agree with), else `--arch`'s choice.
fn arch_of_input(doc: &Value, flag: ArchChoice) -> Result<ArchChoice> {
    let Some(given) = doc.get("arch") else {
        return Ok(flag);
    };
    let name = given
        .as_str()
        .ok_or_else(|| Error::new(format!("top-level `arch` is {given}, not a string")))?;
    let file = ArchChoice::named(name, "the input's `arch`")?;
    match flag.chosen_by {
        Some(who) if flag.arch != file.arch => Err(Error::new(format!(
            "the input's `arch` is {} but {who} asks for {}: drop one of them",
            file.arch.name, flag.arch.name
        ))),
        _ => Ok(file),
    }
}

/// Runs `mfma run`.
pub fn run(path: &Path, flag: ArchChoice) -> Result<()> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read `{shown}`: {e}")))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| Error::new(format!("`{shown}` is not valid JSON: {e}")))?;
    let vectors = doc
        .get("vectors")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::new(format!("`{shown}` has no top-level `vectors` list")))?;
    let arch = arch_of_input(&doc, flag).map_err(|e| e.context(format!("`{shown}`")))?;
    let mut results = Vec::with_capacity(vectors.len());
    for (n, v) in vectors.iter().enumerate() {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::new(format!("vector {n}: missing string field `id`")))?;
        let mut outcome = one(v, arch).map_err(|e| e.context(format!("vector `{id}`")))?;
        outcome.id = id.to_string();
        if let Some(differ) = &outcome.disagreeing_blocks {
            eprintln!(
                "warning: vector `{id}`: blocks {differ:?} computed a different D than block 0 \
                 from the same data; reporting block 0"
            );
        }
        results.push(outcome);
    }
    text::emit(&text::json_line(&Output { results }))
}
