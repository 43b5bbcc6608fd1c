//! The layout maps, the builtin constants and the modifier rules are `const`:
//! usable in `const` items, array lengths and compile-time assertions. Every
//! `const _: () = assert!(..)` here is checked by the compiler, so a layout
//! that stopped being const (or stopped agreeing) fails the build.

use mfma_core::spec::{cdna2::BUILTINS, validate, Coord, Layout, Modifiers, Slot};
use mfma_core::{mfma, Acc, FragA};

type X = mfma!(f32_32x32x8bf16_1k);

/// Where row 5, column 7 of the accumulator lives, computed by the compiler.
const S: Slot = <mfma!(f32_32x32x8bf16_1k)>::C.slot(Coord::new(0, 5, 7));

/// Reference 2.2, 32x32 family: C[b][i][j] is in lane `j + 32((i/4) mod 2)`,
/// item `16b + 4(i/8) + i mod 4`.
const fn rows32(b: usize, i: usize, j: usize) -> Slot {
    Slot {
        lane: j + 32 * ((i / 4) % 2),
        item: 16 * b + 4 * (i / 8) + i % 4,
    }
}

const _: () = assert!(S.lane == rows32(0, 5, 7).lane && S.item == rows32(0, 5, 7).item);

/// The builtin's constants size arrays: one entry per accumulator element.
const C_ELEMENTS: usize = X::BLOCKS * X::M * X::N;

/// For every accumulator element in `[block][row][col]` order, its slot.
const SLOTS: [Slot; C_ELEMENTS] = slots(X::C);

/// For every (lane, item), the linear index of the element it holds.
const OWNERS: [[usize; X::C_PER_LANE]; 64] = owners(X::C);

const fn slots<const N: usize>(l: Layout) -> [Slot; N] {
    let mut out = [Slot { lane: 0, item: 0 }; N];
    let mut idx = 0;
    while idx < N {
        out[idx] = l.slot(l.delinear(idx));
        idx += 1;
    }
    out
}

const fn owners<const ITEMS: usize>(l: Layout) -> [[usize; ITEMS]; 64] {
    let mut out = [[usize::MAX; ITEMS]; 64];
    let mut lane = 0;
    while lane < 64 {
        let mut item = 0;
        while item < ITEMS {
            out[lane][item] = l.linear(l.coord(Slot { lane, item }));
            item += 1;
        }
        lane += 1;
    }
    out
}

/// The two tables are inverse permutations of each other.
const fn inverse(slots: &[Slot], owners: &[[usize; X::C_PER_LANE]; 64]) -> bool {
    let mut idx = 0;
    while idx < slots.len() {
        if owners[slots[idx].lane][slots[idx].item] != idx {
            return false;
        }
        idx += 1;
    }
    true
}

/// Every entry of the table agrees with the reference formula.
const fn matches_reference(slots: &[Slot]) -> bool {
    let mut idx = 0;
    while idx < slots.len() {
        let c = X::C.delinear(idx);
        let want = rows32(c.block, c.row, c.col);
        if slots[idx].lane != want.lane || slots[idx].item != want.item {
            return false;
        }
        idx += 1;
    }
    true
}

const _: () = assert!(inverse(&SLOTS, &OWNERS));
const _: () = assert!(matches_reference(&SLOTS));
const _: () = assert!(SLOTS.len() == 64 * X::C_PER_LANE);

/// Every layout of every builtin is a bijection, checked by the compiler.
const fn all_bijections() -> bool {
    let mut i = 0;
    while i < BUILTINS.len() {
        let b = &BUILTINS[i];
        if !(b.a.is_bijection() && b.b.is_bijection() && b.c.is_bijection()) {
            return false;
        }
        i += 1;
    }
    true
}

const _: () = assert!(all_bijections());

/// The operand layout constants of a fragment type are the spec's.
const A_LAYOUT: Layout = FragA::<X>::LAYOUT;
const _: () = assert!(A_LAYOUT.items == X::A_PER_LANE && Acc::<X>::LAYOUT.items == X::C_PER_LANE);

/// The modifier rules are `const fn` as well (the backstop relies on it).
const _: () = assert!(validate(<mfma!(f32_32x32x4bf16_1k)>::SPEC, Modifiers::new(1, 1, 3)).is_ok());
const _: () = assert!(validate(<mfma!(f64_4x4x4f64)>::SPEC, Modifiers::new(1, 0, 0)).is_err());

#[test]
fn const_tables_match_runtime_evaluation() {
    let l = X::C;
    for (idx, s) in SLOTS.iter().enumerate() {
        assert_eq!(*s, l.slot(l.delinear(idx)));
    }
    for (lane, items) in OWNERS.iter().enumerate() {
        for (item, &owner) in items.iter().enumerate() {
            assert_eq!(l.delinear(owner), l.coord(Slot { lane, item }));
        }
    }
    assert_eq!(S, l.slot(Coord::new(0, 5, 7)));
    assert_eq!(A_LAYOUT, X::SPEC.a);
}
