//! No coordinate or slot that does not exist gets an answer: for every
//! builtin of every architecture and every operand, layout lookups refuse
//! out-of-range input in both directions (`None` from `try_*`, a panic
//! naming the operand and the ranges from the others), and so do the
//! fragment accessors; everything in range is accepted. Random out-of-range
//! input comes from proptest; the borders are checked exhaustively.

use mfma_core::spec::{Builtin, Coord, Layout, Operand, Slot, ARCHS};
use mfma_core::{Fragment, Instr, Visit};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn all() -> impl Iterator<Item = &'static Builtin> {
    ARCHS.iter().flat_map(|a| a.builtins)
}

/// The panic message of `f`, which must panic.
fn panic_message(what: &str, f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err(what);
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Coordinates just outside the matrices along each axis, and far outside.
fn border_coords(l: &Layout) -> Vec<Coord> {
    let (b, r, c) = (l.blocks, l.rows, l.cols);
    vec![
        Coord::new(b, 0, 0),
        Coord::new(0, r, 0),
        Coord::new(0, 0, c),
        Coord::new(b - 1, r - 1, c),
        Coord::new(b - 1, r, c - 1),
        Coord::new(b, r - 1, c - 1),
        Coord::new(usize::MAX, 0, 0),
        Coord::new(0, 0, usize::MAX),
    ]
}

/// Slots just outside the register file of an operand, and far outside.
fn border_slots(l: &Layout) -> Vec<Slot> {
    vec![
        Slot { lane: 64, item: 0 },
        Slot {
            lane: 0,
            item: l.items,
        },
        Slot {
            lane: 63,
            item: l.items,
        },
        Slot {
            lane: 64,
            item: l.items - 1,
        },
        Slot {
            lane: usize::MAX,
            item: 0,
        },
    ]
}

#[test]
fn layouts_refuse_every_border_coordinate_and_slot() {
    for x in all() {
        for &op in x.operands() {
            let l = *x.layout(op);
            for c in border_coords(&l) {
                assert_eq!(l.try_slot(c), None, "{} {op:?} {c:?}", x.path());
                let msg = panic_message("slot of a coordinate outside", || {
                    l.slot(c);
                });
                // An SMFMAC's A is indexed by compressed column kc.
                let axes = match (x.is_sparse(), op) {
                    (true, Operand::A) => ["block", "i", "kc"],
                    _ => op.axis_names(),
                };
                let want = format!(
                    "it needs {} < {}, {} < {}, {} < {}",
                    axes[0], l.blocks, axes[1], l.rows, axes[2], l.cols
                );
                assert!(msg.contains(&want), "{}: {msg}", x.path());
                let operand = format!("operand {} of {}", l.operand.name(), x.path());
                assert!(msg.contains(&operand), "{}: {msg}", x.path());
            }
            for s in border_slots(&l) {
                assert_eq!(l.try_coord(s), None, "{} {op:?} {s:?}", x.path());
                let msg = panic_message("coord of a slot outside", || {
                    l.coord(s);
                });
                let want = format!("it needs lane < 64, item < {}", l.items);
                assert!(msg.contains(&want), "{}: {msg}", x.path());
            }
            // Everything inside answers, and the answers are the inverse maps.
            for lane in 0..l.lanes {
                for item in 0..l.items {
                    let s = Slot { lane, item };
                    let c = l.try_coord(s).expect("a slot of the register file");
                    assert_eq!(l.try_slot(c), Some(s));
                }
            }
        }
    }
}

/// Random out-of-range input: one axis beyond its extent by any amount.
fn outside(l: Layout) -> impl Strategy<Value = Coord> {
    let (b, r, c) = (l.blocks, l.rows, l.cols);
    prop_oneof![
        (b..usize::MAX, 0..r, 0..c).prop_map(|(b, r, c)| Coord::new(b, r, c)),
        (0..b, r..usize::MAX, 0..c).prop_map(|(b, r, c)| Coord::new(b, r, c)),
        (0..b, 0..r, c..usize::MAX).prop_map(|(b, r, c)| Coord::new(b, r, c)),
    ]
}

#[test]
fn layouts_refuse_random_outside_input() {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    for x in all() {
        for &op in x.operands() {
            let l = *x.layout(op);
            runner
                .run(&outside(l), |c| {
                    prop_assert_eq!(l.try_slot(c), None);
                    Ok(())
                })
                .unwrap();
            let slots = prop_oneof![
                (64..usize::MAX, 0..l.items).prop_map(|(lane, item)| Slot { lane, item }),
                (0usize..64, l.items..usize::MAX).prop_map(|(lane, item)| Slot { lane, item }),
            ];
            runner
                .run(&slots, |s| {
                    prop_assert_eq!(l.try_coord(s), None);
                    Ok(())
                })
                .unwrap();
        }
    }
}

/// Fragment accessors refuse what the layout refuses, with the same message.
struct FragmentsRefuse;

impl Visit for FragmentsRefuse {
    type Output = ();
    fn visit<X: Instr>(self) {
        check::<X, mfma_core::A>();
        check::<X, mfma_core::B>();
        check::<X, mfma_core::C>();
    }
    fn visit_sparse<X: mfma_core::SparseInstr>(self) -> Option<()> {
        self.visit::<X>();
        check::<X, mfma_core::Idx>();
        Some(())
    }
}

fn check<X: Instr, O: mfma_core::Operand>() {
    let l = Fragment::<X, O>::LAYOUT;
    let mut f = Fragment::<X, O>::zero();
    for c in border_coords(&l) {
        let want = l.coord_error(c).to_string();
        let got = panic_message("get outside", || {
            f.get(c.block, c.row, c.col);
        });
        assert_eq!(got, want);
        let got = panic_message("set outside", || {
            f.set(c.block, c.row, c.col, Default::default());
        });
        assert_eq!(got, want);
    }
    for s in border_slots(&l) {
        let want = l.slot_error(s).to_string();
        let got = panic_message("slot outside", || {
            f.slot(s.lane, s.item);
        });
        assert_eq!(got, want);
        let got = panic_message("set_slot outside", || {
            f.set_slot(s.lane, s.item, Default::default());
        });
        assert_eq!(got, want);
    }
    let _ = panic_message("a lane past 63", || {
        f.lane(64).count();
    });
    let _ = panic_message("a block past the last", || {
        f.block(l.blocks);
    });
}

#[test]
fn fragments_refuse_every_border_coordinate_and_slot() {
    for x in all() {
        mfma_core::visit_builtin(x, FragmentsRefuse).unwrap();
    }
}
