//! `mfma run`: test vectors through the real software path — matrices to
//! fragments (`Fragment::from_fn`), `mfma_core::execute`, fragments back to
//! matrices — dispatched by qualified name (`cdna3::NAME`) with
//! `mfma_core::visit`, so each architecture's own arithmetic runs.

use crate::error::{Error, Result};
use crate::resolve::{self, ArchChoice};
use crate::text;
use mfma_core::{execute, Acc, Element, FragA, FragB, Instr, Visit};
use mfma_spec::{Builtin, Coord, ElemType, Layout};
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

/// One block's A, B and C as raw bits, row-major.
struct Exec<'a> {
    a: &'a [u64],
    b: &'a [u64],
    c: &'a [u64],
}

/// Row-major index of (row, col) in one block of `l`.
fn at(l: &Layout, row: usize, col: usize) -> usize {
    l.linear(Coord::new(0, row, col))
}

impl Visit for Exec<'_> {
    /// D of every block, as bits, row-major.
    type Output = Vec<Vec<u64>>;

    fn visit<X: Instr>(self) -> Vec<Vec<u64>> {
        let s = X::SPEC;
        // The one block of the vector goes into every block of the instruction.
        let a = FragA::<X>::from_fn(|_, i, k| X::In::from_bits_u64(self.a[at(&s.a, i, k)]));
        let b = FragB::<X>::from_fn(|_, k, j| X::InB::from_bits_u64(self.b[at(&s.b, k, j)]));
        let c = Acc::<X>::from_fn(|_, i, j| X::Out::from_bits_u64(self.c[at(&s.c, i, j)]));
        let d = execute::<X, 0, 0, 0>(a, b, c);
        (0..s.blocks)
            .map(|blk| {
                (0..s.m)
                    .flat_map(|i| (0..s.n).map(move |j| (i, j)))
                    .map(|(i, j)| d.get(blk, i, j).to_bits_u64())
                    .collect()
            })
            .collect()
    }
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
    let a = matrix(v, "A", b.a_type, b.m * b.k, "M*K")?;
    let bm = matrix(v, "B", b.b_type, b.k * b.n, "K*N")?;
    let c = matrix(v, "C", b.cd, b.m * b.n, "M*N")?;
    let blocks = mfma_core::visit_builtin(
        b,
        Exec {
            a: &a,
            b: &bm,
            c: &c,
        },
    )
    .ok_or_else(|| Error::new(format!("no software path for {}", b.path())))?;
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
        Some(who) if !std::ptr::eq(flag.arch, file.arch) => Err(Error::new(format!(
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
