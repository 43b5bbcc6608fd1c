//! The operand layouts of every builtin of every architecture, checked three
//! ways: as bijections between 64 lanes × items and (block, row, col)
//! elements; against the reference formulas (reference 2.1 and 2.2 of both
//! architectures: CDNA3 keeps CDNA2's), restated here as plain arithmetic;
//! and against the tables of the seed document, transcribed as data. Also
//! the spec's derived facts and the fragment API over the layouts.
//!
//! SMFMAC's two new layouts are checked against CDNA3 reference 2.1 (the
//! compressed A: the input formula with K/2) and 2.2 (the index operand:
//! each group's field in the lane of its values, sets side by side).

use mfma_core::{Element, Fragment, Instr, SparseInstr, Visit};
use mfma_spec::{BlgpBits, Builtin, Coord, ElemType, Layout, Operand, Slot, ARCHS, WAVE};
use std::collections::BTreeSet;
use std::ops::Range;

/// Every builtin of every architecture.
fn all() -> impl Iterator<Item = &'static Builtin> {
    ARCHS.iter().flat_map(|a| a.builtins)
}

/// Every operand of every builtin, SMFMAC's index included.
fn every_operand() -> impl Iterator<Item = (&'static Builtin, Operand)> {
    all().flat_map(|b| b.operands().iter().map(move |&op| (b, op)))
}

/// Columns of A as stored: K, or K/2 for SMFMAC's compressed A.
fn a_cols(x: &Builtin) -> usize {
    if x.is_sparse() {
        x.k / 2
    } else {
        x.k
    }
}

/// Index sets of an SMFMAC (reference 3.4): 4 for 16-bit inputs, 2 for 8-bit.
fn sets(x: &Builtin) -> usize {
    if x.a_type.bits() == 16 {
        4
    } else {
        2
    }
}

fn elements(l: &Layout) -> impl Iterator<Item = Coord> + '_ {
    (0..l.blocks).flat_map(move |b| {
        (0..l.rows).flat_map(move |r| (0..l.cols).map(move |c| Coord::new(b, r, c)))
    })
}

fn slots(l: &Layout) -> impl Iterator<Item = Slot> + '_ {
    (0..l.lanes).flat_map(move |lane| (0..l.items).map(move |item| Slot { lane, item }))
}

// ---------------------------------------------------------------------------
// Bijection

#[test]
fn every_layout_is_a_bijection_and_its_maps_are_inverse() {
    for (b, op) in every_operand() {
        let l = b.layout(op);
        let what = format!("{} {}", b.name, op.name());
        assert_eq!(l.lanes, WAVE, "{what}: lanes");
        assert_eq!(l.lanes * l.items, l.elements(), "{what}: slot count");
        let mut hit = vec![false; l.lanes * l.items];
        for c in elements(l) {
            let s = l.slot(c);
            assert!(
                s.lane < l.lanes && s.item < l.items,
                "{what}: {c:?} -> {s:?}"
            );
            let i = s.lane * l.items + s.item;
            assert!(!hit[i], "{what}: two elements in {s:?}");
            hit[i] = true;
            assert_eq!(l.coord(s), c, "{what}: coord(slot({c:?}))");
        }
        for s in slots(l) {
            let c = l.coord(s);
            assert!(l.contains(c), "{what}: {s:?} -> {c:?}");
            assert_eq!(l.slot(c), s, "{what}: slot(coord({s:?}))");
        }
        assert!(l.is_bijection(), "{what}: the spec's own check disagrees");
    }
}

#[test]
fn matrix_extents_follow_the_shape() {
    for (b, op) in every_operand() {
        let l = b.layout(op);
        let (blocks, rows, cols) = match op {
            Operand::A => (b.blocks, b.m, a_cols(b)),
            Operand::B => (b.blocks, b.k, b.n),
            Operand::C | Operand::D => (b.blocks, b.m, b.n),
            Operand::Idx => (sets(b), b.m, b.k / 4),
        };
        assert_eq!(
            (l.blocks, l.rows, l.cols),
            (blocks, rows, cols),
            "{} {}",
            b.name,
            op.name()
        );
    }
}

// ---------------------------------------------------------------------------
// Reference formulas (reference 2.1 and 2.2), written out independently

/// Reference 2.1 for A (r = i, R = M) and B (r = j, R = N): (lane, item) of
/// the element at block `b`, index `r` along R and `k` along K.
fn input_slot(x: &Builtin, op: Operand, b: usize, r: usize, k: usize) -> (usize, usize) {
    let (big_r, big_k) = if op == Operand::A {
        (x.m, a_cols(x))
    } else {
        (x.n, x.k)
    };
    let groups = 64 / (big_r * x.blocks);
    let e = big_k / groups;
    (r + big_r * b + big_r * x.blocks * (k / e), k % e)
}

/// Reference CDNA3 2.2: the field of group g (logical k 4g..4g+4) of row i
/// lies in the lane of A[i][4g], a lane holding 2·(A per lane) logical k;
/// it is the lane's field number f = g mod (fields per set), shifted by
/// 32/sets bits per set: (lane, bit offset / 4).
fn idx_slot(x: &Builtin, set: usize, i: usize, g: usize) -> (usize, usize) {
    let k_per_lane = 2 * x.a_per_lane;
    let lane = i + x.m * (4 * g / k_per_lane);
    let fields = x.a_per_lane / 2;
    let bits = 4 * (g % fields) + set * (32 / sets(x));
    (lane, bits / 4)
}

/// Inverse of [`input_slot`], also as written in reference 2.1: (b, r, k).
fn input_coord(x: &Builtin, op: Operand, lane: usize, item: usize) -> (usize, usize, usize) {
    let (big_r, big_k) = if op == Operand::A {
        (x.m, a_cols(x))
    } else {
        (x.n, x.k)
    };
    let groups = 64 / (big_r * x.blocks);
    let e = big_k / groups;
    (
        (lane / big_r) % x.blocks,
        lane % big_r,
        e * (lane / (big_r * x.blocks)) + item,
    )
}

/// The accumulator families of reference 2.2, told apart by shape and type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Family {
    Rows32,
    Rows16,
    Blocks4x4,
    F64Rows16,
    F64Blocks4x4,
}

fn family(x: &Builtin) -> Family {
    match (x.cd == ElemType::F64, x.m, x.n) {
        (false, 32, 32) => Family::Rows32,
        (false, 16, 16) => Family::Rows16,
        (false, 4, 4) => Family::Blocks4x4,
        (true, 16, 16) => Family::F64Rows16,
        (true, 4, 4) => Family::F64Blocks4x4,
        _ => panic!("{}: no accumulator family in reference 2.2", x.name),
    }
}

/// Reference 2.2: (lane, item) holding C[b][i][j].
fn acc_slot(f: Family, b: usize, i: usize, j: usize) -> (usize, usize) {
    match f {
        Family::Rows32 => (j + 32 * ((i / 4) % 2), 16 * b + 4 * (i / 8) + i % 4),
        Family::Rows16 => (j + 16 * (i / 4), 4 * b + i % 4),
        Family::Blocks4x4 => (j + 4 * b, i),
        Family::F64Rows16 => (j + 16 * (i % 4), i / 4),
        Family::F64Blocks4x4 => (j + 4 * b + 16 * i, 0),
    }
}

/// Reference 2.2, the inverse column (g = item, l = lane): (b, i, j).
fn acc_coord(f: Family, l: usize, g: usize) -> (usize, usize, usize) {
    match f {
        Family::Rows32 => (g / 16, 8 * ((g % 16) / 4) + 4 * (l / 32) + g % 4, l % 32),
        Family::Rows16 => (g / 4, 4 * (l / 16) + g % 4, l % 16),
        Family::Blocks4x4 => (l / 4, g, l % 4),
        Family::F64Rows16 => (0, 4 * g + l / 16, l % 16),
        Family::F64Blocks4x4 => ((l / 4) % 4, l / 16, l % 4),
    }
}

fn reference_slot(x: &Builtin, op: Operand, c: Coord) -> (usize, usize) {
    match op {
        Operand::A => input_slot(x, op, c.block, c.row, c.col),
        Operand::B => input_slot(x, op, c.block, c.col, c.row),
        Operand::C | Operand::D => acc_slot(family(x), c.block, c.row, c.col),
        Operand::Idx => idx_slot(x, c.block, c.row, c.col),
    }
}

fn reference_coord(x: &Builtin, op: Operand, s: Slot) -> Coord {
    match op {
        Operand::A => {
            let (b, i, k) = input_coord(x, op, s.lane, s.item);
            Coord::new(b, i, k)
        }
        Operand::B => {
            let (b, j, k) = input_coord(x, op, s.lane, s.item);
            Coord::new(b, k, j)
        }
        Operand::C | Operand::D => {
            let (b, i, j) = acc_coord(family(x), s.lane, s.item);
            Coord::new(b, i, j)
        }
        // The inverse by search: reference 2.2 states the forward map only.
        Operand::Idx => {
            let l = x.layout(op);
            let all =
                elements(l).filter(|c| idx_slot(x, c.block, c.row, c.col) == (s.lane, s.item));
            let found: Vec<Coord> = all.collect();
            assert_eq!(found.len(), 1, "{} idx {s:?}: {found:?}", x.name);
            found[0]
        }
    }
}

#[test]
fn reference_examples_of_the_sparse_layouts() {
    // CDNA3 reference 2.1: smfmac_f32_16x16x32_f16's A[i][k] lives in lane
    // i + 16·⌊k/8⌋, VGPR ⌊(k mod 8)/4⌋; compressed column kc holds a value of
    // logical group kc/2, so k = 4·(kc/2) + any position.
    let x = mfma_spec::find("cdna3::smfmac_f32_16x16x32_f16").unwrap();
    for i in 0..16 {
        for kc in 0..16 {
            let s = x.a.slot(Coord::at(i, kc));
            for k in 4 * (kc / 2)..4 * (kc / 2) + 4 {
                assert_eq!(s.lane, i + 16 * (k / 8), "A[{i}][{k}] (kc {kc})");
                assert_eq!(s.item * 16 / 32, (k % 8) / 4, "A[{i}][{k}] VGPR");
            }
        }
    }
    // Reference 2.2: K[2][31] → lane 50, bits [7:4]; with abid = 3, bits [31:28].
    let idx = x.sparse.unwrap().idx;
    assert_eq!(
        idx.slot(Coord::new(0, 2, 31 / 4)),
        Slot { lane: 50, item: 1 }
    );
    assert_eq!(
        idx.slot(Coord::new(3, 2, 31 / 4)),
        Slot { lane: 50, item: 7 }
    );
}

#[test]
fn sparse_index_fields_share_a_lane_with_their_values_and_fill_the_register() {
    for x in all().filter(|x| x.is_sparse()) {
        let s = x.sparse.unwrap();
        assert_eq!(s.sets, sets(x), "{}", x.name);
        // One 32-bit register of 4-bit fields.
        assert_eq!(s.idx.items * 4, 32, "{}", x.name);
        for set in 0..s.sets {
            let mut fields = BTreeSet::new();
            for i in 0..x.m {
                for g in 0..x.k / 4 {
                    let f = s.idx.slot(Coord::new(set, i, g));
                    // The index of a group lives with both its stored values.
                    for kc in [2 * g, 2 * g + 1] {
                        assert_eq!(
                            x.a.slot(Coord::at(i, kc)).lane,
                            f.lane,
                            "{} {i} {g}",
                            x.name
                        );
                    }
                    // ... inside this set's bits of the register.
                    let bits = 32 / s.sets;
                    assert!(
                        (set * bits..(set + 1) * bits).contains(&(4 * f.item)),
                        "{}",
                        x.name
                    );
                    assert!(fields.insert(f), "{}: two groups in {f:?}", x.name);
                }
            }
            // Every field of the set is used exactly once.
            assert_eq!(
                fields.len(),
                64 * s.fields_per_set(),
                "{} set {set}",
                x.name
            );
        }
    }
}

#[test]
fn reference_formulas_agree_with_the_spec_for_every_element() {
    for (x, op) in every_operand() {
        let l = x.layout(op);
        for c in elements(l) {
            let s = l.slot(c);
            assert_eq!(
                (s.lane, s.item),
                reference_slot(x, op, c),
                "{} {} {c:?}",
                x.name,
                op.name()
            );
        }
        for s in slots(l) {
            assert_eq!(
                l.coord(s),
                reference_coord(x, op, s),
                "{} {} {s:?}",
                x.name,
                op.name()
            );
        }
    }
}

/// The seed document states the 32x32 and f64 4x4 formulas differently
/// from the reference; its versions hold too.
#[test]
fn seed_formulas_agree_with_the_spec() {
    for x in all() {
        let l = &x.c;
        for c in elements(l) {
            let (b, i, j) = (c.block, c.row, c.col);
            let (lane, reg) = match family(x) {
                Family::Rows32 => ((32 * (i / 4)) % 64 + j, 16 * b + 4 * (i / 8) + i % 4),
                Family::Rows16 => (16 * (i / 4) + j, 4 * b + i % 4),
                Family::Blocks4x4 => (4 * b + j, i),
                Family::F64Rows16 => (16 * (i % 4) + j, i / 4),
                Family::F64Blocks4x4 => (16 * i + 4 * b + j, 0),
            };
            assert_eq!(l.slot(c), Slot { lane, item: reg }, "{} {c:?}", x.name);
        }
        for s in slots(l) {
            let (big_l, g) = (s.lane, s.item);
            let (b, i, j) = match family(x) {
                Family::Rows32 => (
                    g / 16,
                    (8 * (g / 4)) % 32 + 4 * (big_l / 32) + g % 4,
                    big_l % 32,
                ),
                Family::Rows16 => (g / 4, 4 * (big_l / 16) + g % 4, big_l % 16),
                Family::Blocks4x4 => (big_l / 4, g % 4, big_l % 4),
                Family::F64Rows16 => (0, 4 * g + big_l / 16, big_l % 16),
                Family::F64Blocks4x4 => ((big_l % 16) / 4, big_l / 16, big_l % 4),
            };
            assert_eq!(l.coord(s), Coord::new(b, i, j), "{} {s:?}", x.name);
        }
    }
}

// ---------------------------------------------------------------------------
// Tables of the seed document, transcribed

/// "The row-to-lane mapping groups rows in bands of four": rows, lanes,
/// accVGPRs of block 0 ("Block 1 uses the same lane pattern with accVGPRs 16--31").
const SEED_32X32_BANDS: [(Range<usize>, Range<usize>, Range<usize>); 8] = [
    (0..4, 0..32, 0..4),
    (4..8, 32..64, 0..4),
    (8..12, 0..32, 4..8),
    (12..16, 32..64, 4..8),
    (16..20, 0..32, 8..12),
    (20..24, 32..64, 8..12),
    (24..28, 0..32, 12..16),
    (28..32, 32..64, 12..16),
];

/// 16x16 "row-to-lane mapping (identical for every block)"; accVGPRs
/// "0--3 for block 0, 4--7 for block 1, 8--11 for block 2, and 12--15 for block 3".
const SEED_16X16_ROWS: [(Range<usize>, Range<usize>); 4] = [
    (0..4, 0..16),
    (4..8, 16..32),
    (8..12, 32..48),
    (12..16, 48..64),
];

/// 16x16 FP64: rows, lanes; the k-th row listed sits in accVGPR pair k.
const SEED_F64_16X16_ROWS: [([usize; 4], Range<usize>); 4] = [
    ([0, 4, 8, 12], 0..16),
    ([1, 5, 9, 13], 16..32),
    ([2, 6, 10, 14], 32..48),
    ([3, 7, 11, 15], 48..64),
];

/// 4x4 FP64: row, blocks, lanes, all in accVGPR pair 0.
const SEED_F64_4X4: [(usize, Range<usize>, Range<usize>); 7] = [
    (0, 0..1, 0..4),
    (0, 1..2, 4..8),
    (0, 2..3, 8..12),
    (0, 3..4, 12..16),
    (1, 0..4, 16..32),
    (2, 0..4, 32..48),
    (3, 0..4, 48..64),
];

/// Asserts that the elements `cs` occupy exactly the slots `lanes × items`.
fn occupy(
    x: &Builtin,
    cs: impl IntoIterator<Item = Coord>,
    lanes: Range<usize>,
    items: Range<usize>,
) {
    let got: BTreeSet<Slot> = cs.into_iter().map(|c| x.c.slot(c)).collect();
    let want: BTreeSet<Slot> = lanes
        .flat_map(|lane| items.clone().map(move |item| Slot { lane, item }))
        .collect();
    assert_eq!(got, want, "{}", x.name);
}

fn with_family(f: Family) -> impl Iterator<Item = &'static Builtin> {
    let found: Vec<_> = all().filter(move |x| family(x) == f).collect();
    assert!(!found.is_empty(), "no builtin of family {f:?}");
    found.into_iter()
}

#[test]
fn seed_32x32_row_bands() {
    for x in with_family(Family::Rows32) {
        for b in 0..x.blocks {
            for (rows, lanes, regs) in SEED_32X32_BANDS {
                let band = rows
                    .clone()
                    .flat_map(|i| (0..32).map(move |j| Coord::new(b, i, j)));
                occupy(
                    x,
                    band,
                    lanes.clone(),
                    regs.start + 16 * b..regs.end + 16 * b,
                );
                // "Column j gives the lane offset within the group."
                for i in rows {
                    for j in 0..32 {
                        assert_eq!(x.c.slot(Coord::new(b, i, j)).lane, lanes.start + j);
                    }
                }
            }
        }
    }
}

#[test]
fn seed_16x16_rows_to_lanes() {
    for x in with_family(Family::Rows16) {
        for b in 0..x.blocks {
            for (rows, lanes) in SEED_16X16_ROWS {
                let band = rows.flat_map(|i| (0..16).map(move |j| Coord::new(b, i, j)));
                occupy(x, band, lanes, 4 * b..4 * b + 4);
            }
        }
    }
}

#[test]
fn seed_4x4_blocks_in_lane_quads() {
    // "Each group of 4 consecutive lanes (lanes 4b through 4b + 3) holds all
    // 16 output elements of block b across 4 accVGPRs."
    for x in with_family(Family::Blocks4x4) {
        for b in 0..x.blocks {
            let block = (0..4).flat_map(|i| (0..4).map(move |j| Coord::new(b, i, j)));
            occupy(x, block, 4 * b..4 * b + 4, 0..4);
        }
    }
}

#[test]
fn seed_f64_16x16_rows_to_lanes() {
    for x in with_family(Family::F64Rows16) {
        for (rows, lanes) in SEED_F64_16X16_ROWS {
            for (pair, i) in rows.into_iter().enumerate() {
                let row = (0..16).map(|j| Coord::new(0, i, j));
                occupy(x, row, lanes.clone(), pair..pair + 1);
            }
        }
    }
}

#[test]
fn seed_f64_4x4_rows_and_blocks_to_lanes() {
    for x in with_family(Family::F64Blocks4x4) {
        for (i, blocks, lanes) in SEED_F64_4X4 {
            let cells = blocks.flat_map(|b| (0..4).map(move |j| Coord::new(b, i, j)));
            occupy(x, cells, lanes, 0..1);
        }
    }
}

// ---------------------------------------------------------------------------
// Counts per lane and derived facts

/// Bits of an element type, by the name the builtin names use.
fn bits(name: &str) -> usize {
    match name {
        "f64" => 64,
        "f32" | "i32" => 32,
        "f16" | "bf16" => 16,
        "xf32" => 32,
        "i8" | "fp8" | "bf8" => 8,
        _ => panic!("unknown element type {name}"),
    }
}

/// The fields of `<out>_<M>x<N>x<K><in>[_1k]` (seed: "Naming convention";
/// CDNA3 also writes `<out>_<M>x<N>x<K>_<in>` and `_<a>_<b>` for two inputs,
/// and `smfmac_` before the sparse ones).
fn name_fields(name: &str) -> (&str, usize, usize, usize, &str, bool) {
    let name = name.strip_prefix("smfmac_").unwrap_or(name);
    let (out, rest) = name.split_once('_').expect("out type");
    let (rest, one_k) = match rest.strip_suffix("_1k") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let mut dims = rest.splitn(3, 'x');
    let m = dims.next().unwrap().parse().unwrap();
    let n = dims.next().unwrap().parse().unwrap();
    let last = dims.next().unwrap();
    let digits = last.bytes().take_while(u8::is_ascii_digit).count();
    (
        out,
        m,
        n,
        last[..digits].parse().unwrap(),
        // CDNA3 writes `_` before the type (`16x16x32_fp8_bf8`).
        last[digits..].trim_start_matches('_'),
        one_k,
    )
}

#[test]
fn names_encode_shape_and_types() {
    for a in ARCHS {
        let names: BTreeSet<_> = a.builtins.iter().map(|x| x.name).collect();
        assert_eq!(
            names.len(),
            a.builtins.len(),
            "duplicate names in {}",
            a.name
        );
    }
    for x in all() {
        let (out, m, n, k, input, one_k) = name_fields(x.name);
        assert_eq!((x.m, x.n, x.k), (m, n, k), "{}", x.name);
        let (a_in, b_in) = input.split_once('_').unwrap_or((input, input));
        assert_eq!(
            (x.cd.name(), x.a_type.name(), x.b_type.name()),
            (out, a_in, b_in),
            "{}",
            x.name
        );
        // `_1k` marks the bf16 variants that pack 4 elements per lane.
        if x.a_type == ElemType::Bf16 && !x.is_sparse() {
            assert_eq!(x.a_per_lane, if one_k { 4 } else { 2 }, "{}", x.name);
        }
        assert_eq!(x.is_sparse(), x.name.starts_with("smfmac_"), "{}", x.name);
    }
}

#[test]
fn per_lane_counts_and_vgprs_follow_the_reference() {
    for x in all() {
        // Reference 2.1: E = K / G elements of A and B per lane, G = 64 / (R
        // * blocks); K/2 for SMFMAC's compressed A (CDNA3 2.1).
        for (op, big_r, big_k) in [(Operand::A, x.m, a_cols(x)), (Operand::B, x.n, x.k)] {
            let e = big_k / (64 / (big_r * x.blocks));
            assert_eq!(x.per_lane(op), e, "{} {}", x.name, op.name());
            assert_eq!(x.layout(op).items, e, "{} {}", x.name, op.name());
        }
        // Seed: "accVGPRs per lane = blocks * M * N / wavefront size" (pairs for f64).
        let acc = x.blocks * x.m * x.n / 64;
        for op in [Operand::C, Operand::D] {
            assert_eq!(x.per_lane(op), acc, "{} {}", x.name, op.name());
            assert_eq!(x.layout(op).items, acc, "{} {}", x.name, op.name());
        }
        // Element t of s bits sits in VGPR t*s/32: ceil(count * s / 32) VGPRs.
        let (out, _, _, _, input, _) = name_fields(x.name);
        let (a_in, b_in) = input.split_once('_').unwrap_or((input, input));
        for (op, ty) in [
            (Operand::A, a_in),
            (Operand::B, b_in),
            (Operand::C, out),
            (Operand::D, out),
        ] {
            let want = (x.per_lane(op) * bits(ty)).div_ceil(32);
            assert_eq!(x.vgprs(op), want, "{} {}", x.name, op.name());
        }
    }
}

#[test]
fn derived_names_and_counts() {
    for x in all() {
        assert_eq!(x.isa, isa_mnemonic(x), "{}", x.name);
        let family = if x.is_sparse() { "" } else { "mfma." };
        assert_eq!(
            x.llvm_intrinsic,
            format!("llvm.amdgcn.{family}{}", x.name.replace('_', "."))
        );
        assert_eq!(
            x.ops(),
            2 * (x.m * x.n * x.k * x.blocks) as u64,
            "{}",
            x.name
        );
        assert_eq!(
            x.ops_per_cycle(),
            x.ops() / u64::from(x.cycles),
            "{}",
            x.name
        );
        let hip = if x.is_sparse() {
            format!("__builtin_amdgcn_{}", x.name)
        } else {
            format!("__builtin_amdgcn_mfma_{}", x.name)
        };
        assert_eq!(x.hip_name().to_string(), hip);
        for spelling in [hip, x.isa.to_string()] {
            let arch = mfma_spec::arch(x.arch).unwrap();
            assert_eq!(arch.find(&spelling), Some(x), "{spelling}");
            assert_eq!(
                mfma_spec::find(&format!("{}::{spelling}", x.arch)),
                Some(x),
                "{spelling}"
            );
        }
        // The LLVM operand types hold exactly the lane's elements: the
        // device path transmutes one into the other.
        for &op in x.operands() {
            let bits = x.per_lane(op) * x.elem(op).bits() as usize;
            assert_eq!(
                x.llvm_type(op).bits() as usize,
                bits,
                "{} {}",
                x.name,
                op.name()
            );
        }
    }
}

/// The ISA mnemonic: `v_mfma_<name>` on CDNA2; on CDNA3 (reference CDNA3
/// 1.1) the block count of a multi-block instruction follows the shape
/// (`_2b`, `_4b`, `_16b`), an underscore precedes the input type, and the
/// `_1k` of the builtin name is dropped.
fn isa_mnemonic(x: &Builtin) -> String {
    if x.arch == "cdna2" || x.is_sparse() {
        // SMFMAC mnemonics are the builtin names (reference CDNA3 1.2).
        let family = if x.is_sparse() { "v_" } else { "v_mfma_" };
        return format!("{family}{}", x.name);
    }
    let (out, m, n, k, input, _) = name_fields(x.name);
    let blocks = if x.blocks > 1 {
        format!("_{}b", x.blocks)
    } else {
        String::new()
    };
    format!("v_mfma_{out}_{m}x{n}x{k}{blocks}_{input}")
}

#[test]
fn modifier_support_follows_blocks_and_type() {
    for x in all() {
        let f64 = x.a_type == ElemType::F64;
        assert!(x.blocks.is_power_of_two(), "{}", x.name);
        let log2 = x.blocks.trailing_zeros();
        // Reference 3.1 (CDNA3 3.1): broadcast only on multi-block, non-f64 builtins.
        let want = if x.is_sparse() {
            // CDNA3 3.4: SMFMAC's cbsz is 0..=3 and picks the index set.
            Some(3)
        } else {
            (!f64 && x.blocks > 1).then_some(log2)
        };
        assert_eq!(x.cbsz_max, want, "{}", x.name);
        let blgp = match (x.arch, f64) {
            // CDNA3 3.4: no blgp on SMFMAC.
            _ if x.is_sparse() => BlgpBits::Unused,
            // CDNA2 3.2: blgp on every non-f64 builtin.
            ("cdna2", true) => BlgpBits::Unused,
            ("cdna2", false) => BlgpBits::Pattern,
            // CDNA3 3.3: FP64's blgp bits negate A, B, C.
            (_, true) => BlgpBits::Negate,
            // CDNA3 3.1/3.2: multi-block ones and the two single-block f32
            // keep blgp; the other single-block ones take no modifier.
            (_, false) if x.blocks > 1 || x.a_type == ElemType::F32 => BlgpBits::Pattern,
            (_, false) => BlgpBits::Unused,
        };
        assert_eq!(x.blgp, blgp, "{}::{}", x.arch, x.name);
    }
}

// ---------------------------------------------------------------------------
// The fragment API reads and writes through the same layouts

/// Digit `digit` (of `width` bits, at most 8) of element number `n`: an
/// 8-bit type cannot give 512 elements distinct values, nor a 4-bit index
/// field, so those are checked one digit of `n` at a time.
fn digit_of(n: usize, digit: usize, width: usize) -> usize {
    (n >> (width * digit)) & ((1 << width) - 1)
}

fn check_fragment<X: Instr, O: mfma_core::Operand>() {
    // Enough digits for the largest fragment (1024 elements); a wider type
    // takes the whole number in one pass.
    let width = (<O::Elem<X> as Element>::TYPE.bits() as usize).min(8);
    for digit in 0..10usize.div_ceil(width) {
        check_fragment_digit::<X, O>(digit, width);
    }
}

fn check_fragment_digit<X: Instr, O: mfma_core::Operand>(digit: usize, width: usize) {
    let l = Fragment::<X, O>::LAYOUT;
    let what = format!("{} {} digit {digit}", X::SPEC.name, O::OPERAND.name());
    assert_eq!(&l, X::SPEC.layout(O::OPERAND), "{what}");
    let bits = |v: O::Elem<X>| v.to_bits_u64() as usize;
    let linear = |c: Coord| digit_of(l.linear(c), digit, width);
    let value = |n: usize| <O::Elem<X> as Element>::from_bits_u64(digit_of(n, digit, width) as u64);

    let f = Fragment::<X, O>::from_fn(|b, r, c| value(l.linear(Coord::new(b, r, c))));
    for s in slots(&l) {
        assert_eq!(
            bits(f.slot(s.lane, s.item)),
            linear(l.coord(s)),
            "{what} {s:?}"
        );
    }
    for lane in 0..l.lanes {
        let items: Vec<_> = f.lane(lane).map(bits).collect();
        let want: Vec<_> = (0..l.items)
            .map(|item| linear(l.coord(Slot { lane, item })))
            .collect();
        assert_eq!(items, want, "{what} lane {lane}");
    }

    let data: Vec<O::Elem<X>> = (0..l.elements()).map(value).collect();
    let g = Fragment::<X, O>::from_row_major(&data);
    assert!(g == f, "{what}: from_row_major and from_fn disagree");
    assert_eq!(g.as_row_major(), &data[..], "{what}: round trip");
    for c in elements(&l) {
        assert_eq!(
            bits(g.get(c.block, c.row, c.col)),
            linear(c),
            "{what} {c:?}"
        );
    }

    let mut h = Fragment::<X, O>::zero();
    for s in slots(&l) {
        h.set_slot(s.lane, s.item, value(l.linear(l.coord(s))));
    }
    assert!(h == f, "{what}: set_slot and from_fn disagree");
}

struct CheckFragments;

impl Visit for CheckFragments {
    type Output = ();
    fn visit<X: Instr>(self) {
        check_fragment::<X, mfma_core::A>();
        check_fragment::<X, mfma_core::B>();
        check_fragment::<X, mfma_core::C>();
    }
    fn visit_sparse<X: SparseInstr>(self) -> Option<()> {
        self.visit::<X>();
        check_fragment::<X, mfma_core::Idx>();
        Some(())
    }
}

#[test]
fn fragments_agree_with_layouts() {
    for x in all() {
        let name = x.path().to_string();
        assert!(mfma_core::visit(&name, CheckFragments).is_some(), "{name}");
    }
}
