//! Executing a builtin: the modifier backstop, then the hardware or the
//! software path.

use crate::fragment::{Acc, FragA, FragB};
use crate::instr::Instr;
use mfma_spec::{validate, Builtin, Modifiers};

/// Compile-time check of modifiers given as constants rather than
/// literals; `mfma!` places it at the call. Fires at monomorphization (when
/// a generic caller is instantiated), with the message `mfma!` gives for a
/// literal.
#[doc(hidden)]
#[track_caller]
pub const fn assert_modifiers(spec: &'static Builtin, cbsz: i32, abid: i32, blgp: i32, neg: i32) {
    let m = Modifiers::new(cbsz as i64, abid as i64, blgp as i64).with_neg(neg as i64);
    if let Err(e) = validate(spec, m) {
        panic!("{}", e.message().as_str());
    }
}

/// Refuses an SMFMAC builtin where a dense one is expected (at
/// monomorphization: `execute::<S>` for an SMFMAC type `S`).
#[track_caller]
pub(crate) const fn assert_dense(spec: &'static Builtin) {
    if spec.is_sparse() {
        let m = mfma_spec::Message::new()
            .path(spec)
            .str(
                " is structured-sparse (SMFMAC): it takes an index operand; call execute_sparse, \
                  or write mfma!(",
            )
            .path(spec)
            .str("(a, b, c, idx))");
        panic!("{}", m.as_str());
    }
}

/// [`assert_modifiers`] for the instruction's three immediates.
#[doc(hidden)]
#[track_caller]
pub const fn assert_legal(spec: &'static Builtin, cbsz: i32, abid: i32, blgp: i32) {
    let m = Modifiers::from_immediates(spec, [cbsz as i64, abid as i64, blgp as i64]);
    if let Err(e) = validate(spec, m) {
        panic!("{}", e.message().as_str());
    }
}

/// Runs builtin `X` on fragments: `D = A·B + C` for every block, with the
/// modifiers applied. This is what `mfma!(name(a, b, c, ...))` expands to.
///
/// Modifier values are checked at compile time: `mfma!` checks literals with
/// a spanned error; any other constant is checked here when the call is
/// monomorphized.
///
/// ```
/// use mfma_core::{execute, mfma, Acc, FragA, FragB};
/// type X = mfma!(f32_16x16x4f32);
/// let a = FragA::<X>::from_fn(|_, i, k| (i + k) as f32);
/// let b = FragB::<X>::from_fn(|_, k, j| if k == 0 { j as f32 } else { 0.0 });
/// let d = execute::<X, 0, 0, 0>(a, b, Acc::<X>::splat(1.0));
/// assert_eq!(d.get(0, 3, 5), 3.0 * 5.0 + 1.0);
/// ```
#[inline]
pub fn execute<X: Instr, const CBSZ: i32, const ABID: i32, const BLGP: i32>(
    a: FragA<X>,
    b: FragB<X>,
    c: Acc<X>,
) -> Acc<X> {
    let mut d = c;
    execute_into::<X, CBSZ, ABID, BLGP>(&a, &b, &mut d);
    d
}

/// [`execute`] in place: `c = A·B + c`. Avoids copying the accumulator,
/// which matters on the host where it holds the whole wave.
#[inline]
pub fn execute_into<X: Instr, const CBSZ: i32, const ABID: i32, const BLGP: i32>(
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
) {
    const { assert_legal(X::SPEC, CBSZ, ABID, BLGP) };
    execute_into_prechecked::<X, CBSZ, ABID, BLGP>(a, b, c);
}

/// [`execute_into`] whose caller has checked the immediates (`mfma!` does,
/// at the call, so that an illegal named constant is reported there once).
#[doc(hidden)]
#[inline]
pub fn execute_into_prechecked<X: Instr, const CBSZ: i32, const ABID: i32, const BLGP: i32>(
    a: &FragA<X>,
    b: &FragB<X>,
    c: &mut Acc<X>,
) {
    const { assert_dense(X::SPEC) };
    // The grouped and fused families without modifiers: a chain of one,
    // which scans the inputs for the fast path; the per-instruction kernel
    // (the exact statement of reference 4.2, kept for routed operands) does
    // not. The other families' per-instruction kernels are as fast as a
    // chain of one.
    #[cfg(not(target_arch = "amdgpu"))]
    if CBSZ == 0 && ABID == 0 && BLGP == 0 && X::SPEC.arith.group().is_some() {
        crate::soft::run_chain::<X>(core::slice::from_ref(a), core::slice::from_ref(b), c);
    } else {
        crate::soft::run::<X>(
            Modifiers::from_immediates(X::SPEC, [CBSZ as i64, ABID as i64, BLGP as i64]),
            a,
            b,
            c,
        );
    }
    #[cfg(target_arch = "amdgpu")]
    {
        // SAFETY: modifiers are validated above; fragments hold this lane's registers.
        let d = unsafe { X::device::<CBSZ, ABID, BLGP>(*a.regs(), *b.regs(), *c.regs()) };
        *c = Acc::<X>::from_regs(d);
    }
}

/// A chain of instructions on one accumulator: `for t { execute_into(&a[t], &b[t], c) }`.
///
/// It means exactly that loop, and on gfx90a it is that loop. On the host it
/// lets the software path keep a block of C in registers across the whole
/// chain instead of loading and storing the accumulator once per
/// instruction, which is what a GEMM's K loop needs.
///
/// ```
/// use mfma_core::{execute_chain_into, execute_into, mfma, Acc, FragA, FragB};
/// type X = mfma!(f32_32x32x2f32);
/// let a: Vec<_> = (0..3).map(|t| FragA::<X>::from_fn(|_, i, k| (i + k + t) as f32 / 7.0)).collect();
/// let b: Vec<_> = (0..3).map(|t| FragB::<X>::from_fn(|_, k, j| (j * k + t) as f32 / 3.0)).collect();
/// let (mut chained, mut looped) = (Acc::<X>::splat(0.5), Acc::<X>::splat(0.5));
/// execute_chain_into::<X, 0, 0, 0>(&a, &b, &mut chained);
/// for t in 0..3 {
///     execute_into::<X, 0, 0, 0>(&a[t], &b[t], &mut looped);
/// }
/// assert_eq!(chained, looped);
/// ```
///
/// # Panics
/// If `a` and `b` have different lengths.
#[inline]
pub fn execute_chain_into<X: Instr, const CBSZ: i32, const ABID: i32, const BLGP: i32>(
    a: &[FragA<X>],
    b: &[FragB<X>],
    c: &mut Acc<X>,
) {
    const { assert_legal(X::SPEC, CBSZ, ABID, BLGP) };
    execute_chain_into_prechecked::<X, CBSZ, ABID, BLGP>(a, b, c);
}

/// [`execute_chain_into`] whose caller has checked the immediates.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn execute_chain_into_prechecked<
    X: Instr,
    const CBSZ: i32,
    const ABID: i32,
    const BLGP: i32,
>(
    a: &[FragA<X>],
    b: &[FragB<X>],
    c: &mut Acc<X>,
) {
    const { assert_dense(X::SPEC) };
    assert_eq!(a.len(), b.len(), "a chain needs as many A as B fragments");
    #[cfg(not(target_arch = "amdgpu"))]
    if CBSZ == 0 && ABID == 0 && BLGP == 0 {
        crate::soft::run_chain::<X>(a, b, c);
        return;
    }
    for (a, b) in a.iter().zip(b) {
        execute_into_prechecked::<X, CBSZ, ABID, BLGP>(a, b, c);
    }
}
