//! A rustc miscompile that users of this crate would hit: rust-lang/rust#155241
//! (I-miscompile, P-high), fixed by rust-lang/rust#155343 in 1.97.1.
//!
//! A closure that takes a large `Copy` value by value and mutates it through
//! `&mut` in non-inlined calls, called twice with the same value: on rustc
//! 1.95.0 and 1.96.0 at opt-level 1 and 2, the second call starts from the
//! first call's result. MIR's GVN makes the closure's argument the caller's
//! copy, and code generation then passes that copy by pointer to a closure
//! that writes to it. No unsafe code is involved (Miri finds nothing): it is
//! the compiler's bug, and a bit-exact emulator built with it is not
//! bit-exact. Fragments are exactly such values (`Copy`, up to 4 KiB), and
//! `|mut c| { mfma!(..); c }` is how users write a step of a kernel.
//!
//! `rust-toolchain.toml` pins a toolchain with the fix; these tests fail on
//! one without it. The test profile is optimised (opt-level 2), as it must
//! be for the bug to show.

use mfma_core::{execute_into, mfma, Acc, FragA, FragB};

/// The minimal program of the upstream report.
#[derive(Clone, Copy)]
struct Counter([u32; 8]);

#[inline(never)]
fn bump(c: &mut Counter) {
    c.0[0] += 1;
}

#[test]
fn a_closure_taking_a_copy_starts_from_the_callers_value() {
    let c = Counter([0; 8]);
    let each = |mut c: Counter| {
        bump(&mut c);
        bump(&mut c);
        bump(&mut c);
        bump(&mut c);
        c
    };
    // 4 and 8 on rustc 1.95/1.96.
    assert_eq!((each(c).0[0], each(c).0[0]), (4, 4));
}

type X = mfma!(f32_32x32x2f32);

/// One instruction, never inlined, as in a kernel split into functions.
#[inline(never)]
fn step(a: &FragA<X>, b: &FragB<X>, c: &mut Acc<X>) {
    execute_into::<X, 0, 0, 0>(a, b, c);
}

/// The same pattern on a real fragment: a closure that takes the
/// accumulator by value and runs instructions on it.
#[test]
fn a_closure_running_instructions_on_a_copied_accumulator() {
    let a = FragA::<X>::from_fn(|_, i, k| (i + k) as f32);
    let b = FragB::<X>::from_fn(|_, k, j| (k * 3 + j) as f32);
    let c = Acc::<X>::splat(1.0);
    let each = |mut c: Acc<X>| {
        step(&a, &b, &mut c);
        step(&a, &b, &mut c);
        c
    };
    let (first, second) = (each(c), each(c));
    assert_eq!(first, second, "the second call saw the first one's result");
    // And both are what two instructions from C = 1 give: 1 + 2·Σ_k a·b.
    let dot: usize = (0..2).map(|k| (5 + k) * (3 * k + 7)).sum();
    let want = 1.0 + 2.0 * dot as f32;
    assert_eq!(first.get(0, 5, 7), want);
}

/// Through `mfma!`'s call form, which binds the operands to locals itself.
#[test]
fn a_closure_calling_mfma_on_a_copied_accumulator() {
    type Y = mfma!(f64_16x16x4f64);
    let a = FragA::<Y>::from_fn(|_, i, k| (i * 4 + k) as f64);
    let b = FragB::<Y>::from_fn(|_, k, j| if k == 0 { j as f64 } else { 0.5 });
    let c = Acc::<Y>::zero();
    let each = |mut c: Acc<Y>| {
        for _ in 0..3 {
            c = mfma!(f64_16x16x4f64(a, b, c));
            std::hint::black_box(&mut c);
        }
        c
    };
    let (first, second) = (each(c), each(c));
    assert_eq!(first, second, "the second call saw the first one's result");
}
