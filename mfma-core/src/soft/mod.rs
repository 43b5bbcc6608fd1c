//! The software execution path: the hardware's arithmetic, bit for bit, on
//! the host (reference sections 3 and 4).
//!
//! Fragments arrive in matrix order (`[block][row][col]`), so a kernel sees
//! plain per-block matrices; modifiers are applied first by routing whole
//! A blocks (cbsz/abid) and B lanes (blgp), exactly as the hardware feeds them.

mod float;
mod grouped;
mod int;

use crate::element::{Element, Storage};
use crate::fragment::{Acc, FragA, FragB};
use crate::instr::Instr;
use mfma_spec::{Builtin, Coord, Modifiers, Slot};

/// The arithmetic of one family, for inputs of type `Self` and accumulator `C`.
pub trait Kernel<C>: Sized {
    /// `c[b] = a[b] · b[b] + c[b]` for every block: `a` is
    /// `[blocks][m][k]`, `b` is `[blocks][k][n]`, `c` is `[blocks][m][n]`,
    /// all row-major, modifiers already applied.
    fn run(spec: &Builtin, a: &[Self], b: &[Self], c: &mut [C]);
}

/// Applies modifiers, then the family's kernel.
pub(crate) fn run<X: Instr>(m: Modifiers, a: &FragA<X>, b: &FragB<X>, c: &mut Acc<X>) {
    let spec = X::SPEC;
    let a_routed;
    let a = if m.cbsz != 0 || m.abid != 0 {
        a_routed = route_a::<X>(m, a.regs());
        &a_routed
    } else {
        a.regs()
    };
    let b_routed;
    let b = if m.blgp != 0 {
        b_routed = route_b::<X>(m, b.regs());
        &b_routed
    } else {
        b.regs()
    };
    X::In::run(spec, a.as_ref(), b.as_ref(), c.regs_mut().as_mut());
}

/// Block `b` reads A from block `src(b)` (reference 3.1).
fn route_a<X: Instr>(m: Modifiers, a: &X::InRegs) -> X::InRegs {
    let l = &X::SPEC.a;
    let per_block = l.rows * l.cols;
    let mut out = X::InRegs::splat(X::In::ZERO);
    for blk in 0..l.blocks {
        let src = m.a_source_block(blk);
        out.as_mut()[blk * per_block..][..per_block]
            .copy_from_slice(&a.as_ref()[src * per_block..][..per_block]);
    }
    out
}

/// The B value of lane L is read from lane `T(L)`, same item (reference 3.2).
fn route_b<X: Instr>(m: Modifiers, b: &X::InRegs) -> X::InRegs {
    let l = &X::SPEC.b;
    let mut out = X::InRegs::splat(X::In::ZERO);
    for (idx, v) in out.as_mut().iter_mut().enumerate() {
        let s = l.slot(l.delinear(idx));
        let src = l.coord(Slot {
            lane: m.b_source_lane(s.lane),
            item: s.item,
        });
        *v = b.as_ref()[l.linear(src)];
    }
    out
}

/// Index helpers shared by the kernels.
#[inline(always)]
pub(crate) fn dims(spec: &Builtin) -> (usize, usize, usize, usize) {
    (spec.blocks, spec.m, spec.n, spec.k)
}

#[allow(dead_code)]
fn _coord_is_used(_: Coord) {}
