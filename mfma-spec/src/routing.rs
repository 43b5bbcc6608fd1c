//! Which elements a register slot feeds once modifiers route the data
//! (reference 3): the view a layout picture or a lookup needs.
//!
//! With all modifiers zero a slot feeds exactly the element its layout maps
//! it to. `cbsz`/`abid` make one A block feed a whole group of blocks (so a
//! slot of the chosen block feeds several elements and a slot of any other
//! block feeds none); `blgp` makes lanes read B from other lanes (so a source
//! lane may feed several elements or none). C and D are never routed.
//! Seen from an element, the feeding slot is always unique: [`source`].
//!
//! SMFMAC routes nothing: its cbsz/abid pick which index set the
//! instruction reads ([`Sparse::index_set`](crate::Sparse::index_set)), so
//! an index slot feeds its own (set, i, g) when its set is the one read, and
//! nothing otherwise; its A is never broadcast (one block).

use crate::{Builtin, Coord, Modifiers, Operand, Slot};

/// The elements that register slot `s` of operand `op` feeds under
/// modifiers `m` (which must be legal, see [`validate`](crate::validate)).
///
/// Elements come in ascending block order for A and ascending reading lane
/// for B; the slot must be in range.
///
/// ```
/// use mfma_spec::{feeds, find, Coord, Modifiers, Operand, Slot};
/// let x = find("f32_16x16x4f16").unwrap();
/// // 4 blocks, cbsz = 1, abid = 1: block 1 feeds blocks 0 and 1, block 0 feeds nothing.
/// let m = Modifiers::new(1, 1, 0);
/// let slot = x.a.slot(Coord::new(1, 3, 2));
/// let fed: Vec<Coord> = feeds(x, Operand::A, m, slot).collect();
/// assert_eq!(fed, [Coord::new(0, 3, 2), Coord::new(1, 3, 2)]);
/// assert_eq!(feeds(x, Operand::A, m, x.a.slot(Coord::new(0, 3, 2))).count(), 0);
/// ```
pub fn feeds(
    b: &Builtin,
    op: Operand,
    m: Modifiers,
    s: Slot,
) -> impl Iterator<Item = Coord> + 'static {
    let l = *b.layout(op);
    let own = l.coord(s);
    // Candidates are indexed by what the routing chooses among: blocks for
    // A, reading lanes for B, nothing for the accumulator.
    let set = b.sparse.map(|sp| sp.index_set(m));
    let candidates = match op {
        Operand::A if set.is_some() => 1,
        Operand::A => l.blocks,
        Operand::B => l.lanes,
        Operand::C | Operand::D | Operand::Idx => 1,
    };
    (0..candidates).filter_map(move |x| match op {
        Operand::A if set.is_some() => Some(own),
        Operand::A => (m.a_source_block(x) == own.block).then_some(Coord::new(x, own.row, own.col)),
        Operand::Idx => (set == Some(own.block)).then_some(own),
        Operand::B => (m.b_source_lane(x) == s.lane).then(|| {
            l.coord(Slot {
                lane: x,
                item: s.item,
            })
        }),
        Operand::C | Operand::D => Some(own),
    })
}

/// The register slot whose value element `c` of operand `op` receives under
/// modifiers `m` (which must be legal); `c` must be in range. The inverse
/// view of [`feeds`]: `c` is among `feeds(source(c))`. For the index
/// operand, `c.block` is ignored: group (i, g) is read from the set the
/// modifiers pick.
///
/// ```
/// use mfma_spec::{find, source, Coord, Modifiers, Operand, Slot};
/// let x = find("f32_16x16x16f16").unwrap();
/// // blgp 4: every lane reads B from lanes 0..16, so B[k][j] comes from the slot of B[k % 4][j].
/// let m = Modifiers::new(0, 0, 4);
/// let c = Coord::new(0, 13, 5);
/// assert_eq!(source(x, Operand::B, m, c), x.b.slot(Coord::new(0, 13 % 4, 5)));
/// ```
pub const fn source(b: &Builtin, op: Operand, m: Modifiers, c: Coord) -> Slot {
    let l = b.layout(op);
    match (op, &b.sparse) {
        (Operand::A, Some(_)) => l.slot(c),
        (Operand::Idx, Some(s)) => l.slot(Coord::new(s.index_set(m), c.row, c.col)),
        (Operand::A, None) => l.slot(Coord::new(m.a_source_block(c.block), c.row, c.col)),
        (Operand::B, _) => {
            let own = l.slot(c);
            Slot {
                lane: m.b_source_lane(own.lane),
                item: own.item,
            }
        }
        (Operand::C | Operand::D | Operand::Idx, _) => l.slot(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{validate, ARCHS};

    /// Every builtin of every architecture.
    fn all() -> impl Iterator<Item = &'static Builtin> {
        ARCHS.iter().flat_map(|a| a.builtins)
    }

    /// Every legal modifier combination of a builtin.
    fn legal(b: &'static Builtin) -> impl Iterator<Item = Modifiers> {
        (0..5)
            .flat_map(|c| (0..16).flat_map(move |a| (0..8).map(move |g| Modifiers::new(c, a, g))))
            .flat_map(|m| (0..8).map(move |n| m.with_neg(n)))
            .filter(move |&m| validate(b, m).is_ok())
    }

    #[test]
    fn feeds_and_source_are_inverse_views() {
        for b in all() {
            for m in legal(b) {
                for &op in b.operands() {
                    let l = b.layout(op);
                    let mut fed = 0;
                    for lane in 0..l.lanes {
                        for item in 0..l.items {
                            let s = Slot { lane, item };
                            for c in feeds(b, op, m, s) {
                                assert!(l.contains(c));
                                assert_eq!(source(b, op, m, c), s, "{} {op:?} {m:?}", b.name);
                                fed += 1;
                            }
                        }
                    }
                    // Each element has exactly one source, so the slots feed
                    // every element once; of the index, one set is read.
                    let sets = if op == Operand::Idx { l.blocks } else { 1 };
                    assert_eq!(fed * sets, l.elements(), "{} {op:?} {m:?}", b.name);
                }
            }
        }
    }

    #[test]
    fn zero_modifiers_feed_the_own_element() {
        for b in all() {
            for &op in b.operands() {
                let l = b.layout(op);
                for idx in 0..l.elements() {
                    let c = l.delinear(idx);
                    if op == Operand::Idx && c.block != 0 {
                        continue; // sets 1.. are read only with abid
                    }
                    let mut fed = feeds(b, op, Modifiers::NONE, l.slot(c));
                    assert_eq!((fed.next(), fed.next()), (Some(c), None));
                }
            }
        }
    }
}
