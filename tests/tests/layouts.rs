//! The operand layouts of every builtin of every architecture, checked three
//! ways: as bijections between 64 lanes × items and (block, row, col)
//! elements; against the reference formulas (reference 2.1 and 2.2 of both
//! architectures: CDNA3 keeps CDNA2's), restated here as plain arithmetic;
//! and against the tables of the seed document, transcribed as data. Also
//! the spec's derived facts and the fragment API over the layouts.

use mfma_core::{Element, Fragment, Instr, Visit};
use mfma_spec::{BlgpBits, Builtin, Coord, ElemType, Layout, Operand, Slot, ARCHS, WAVE};
use std::collections::BTreeSet;
use std::ops::Range;

/// Every builtin of every architecture.
fn all() -> impl Iterator<Item = &'static Builtin> {
    ARCHS.iter().flat_map(|a| a.builtins)
}

fn every_operand() -> impl Iterator<Item = (&'static Builtin, Operand)> {
    all().flat_map(|b| Operand::ALL.into_iter().map(move |op| (b, op)))
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
        let (rows, cols) = match op {
            Operand::A => (b.m, b.k),
            Operand::B => (b.k, b.n),
            Operand::C | Operand::D => (b.m, b.n),
        };
        assert_eq!(
            (l.blocks, l.rows, l.cols),
            (b.blocks, rows, cols),
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
    let big_r = if op == Operand::A { x.m } else { x.n };
    let groups = 64 / (big_r * x.blocks);
    let e = x.k / groups;
    (r + big_r * b + big_r * x.blocks * (k / e), k % e)
}

/// Inverse of [`input_slot`], also as written in reference 2.1: (b, r, k).
fn input_coord(x: &Builtin, op: Operand, lane: usize, item: usize) -> (usize, usize, usize) {
    let big_r = if op == Operand::A { x.m } else { x.n };
    let groups = 64 / (big_r * x.blocks);
    let e = x.k / groups;
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
/// CDNA3 also writes `<out>_<M>x<N>x<K>_<in>` and `_<a>_<b>` for two inputs).
fn name_fields(name: &str) -> (&str, usize, usize, usize, &str, bool) {
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
        if x.a_type == ElemType::Bf16 {
            assert_eq!(x.ab_per_lane, if one_k { 4 } else { 2 }, "{}", x.name);
        }
    }
}

#[test]
fn per_lane_counts_and_vgprs_follow_the_reference() {
    for x in all() {
        // Reference 2.1: E = K / G elements of A and B per lane, G = 64 / (R * blocks).
        for (op, big_r) in [(Operand::A, x.m), (Operand::B, x.n)] {
            let e = x.k / (64 / (big_r * x.blocks));
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
        assert_eq!(
            x.llvm_intrinsic,
            format!("llvm.amdgcn.mfma.{}", x.name.replace('_', "."))
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
        for spelling in [
            format!("{}{}", Builtin::HIP_PREFIX, x.name),
            x.isa.to_string(),
        ] {
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
        for op in Operand::ALL {
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
    if x.arch == "cdna2" {
        return format!("v_mfma_{}", x.name);
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
        let want = (!f64 && x.blocks > 1).then_some(log2);
        assert_eq!(x.cbsz_max, want, "{}", x.name);
        let blgp = match (x.arch, f64) {
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

/// Byte `digit` of element number `n`: an 8-bit type cannot give 512
/// elements distinct values, so those are checked one byte of `n` at a time.
fn digit_of(n: usize, digit: usize) -> usize {
    (n >> (8 * digit)) & 0xff
}

fn check_fragment<X: Instr, O: mfma_core::Operand>() {
    // Two bytes cover the largest fragment (512 elements); a wider type
    // takes the whole number in one pass.
    for digit in 0..2 {
        check_fragment_digit::<X, O>(digit);
    }
}

fn check_fragment_digit<X: Instr, O: mfma_core::Operand>(digit: usize) {
    let l = Fragment::<X, O>::LAYOUT;
    let what = format!("{} {} byte {digit}", X::SPEC.name, O::OPERAND.name());
    assert_eq!(&l, X::SPEC.layout(O::OPERAND), "{what}");
    let bits = |v: O::Elem<X>| v.to_bits_u64() as usize;
    let linear = |c: Coord| digit_of(l.linear(c), digit);
    let value = |n: usize| <O::Elem<X> as Element>::from_bits_u64(digit_of(n, digit) as u64);

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
}

#[test]
fn fragments_agree_with_layouts() {
    for x in all() {
        let name = x.path().to_string();
        assert!(mfma_core::visit(&name, CheckFragments).is_some(), "{name}");
    }
}
