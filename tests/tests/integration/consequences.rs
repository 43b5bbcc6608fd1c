//! The consequences of the MI200 arithmetic listed at the end of reference
//! 4.2 (plus i8 wrap-around, 4.3), one named test each, through `mfma!`
//! calls on real fragments. Where a rule is only visible against a
//! contrast, the contrast (IEEE behaviour, or the f32 path) is checked too.

use half::{bf16, f16};
use mfma_core::{mfma, Acc, Element, FragA, FragB, Instr};

fn bf(x: f32) -> bf16 {
    let v = bf16::from_f32(x);
    assert_eq!(v.to_f32(), x, "{x:e} is not a bf16");
    v
}

fn h(x: f32) -> f16 {
    let v = f16::from_f32(x);
    assert_eq!(v.to_f32(), x, "{x:e} is not an f16");
    v
}

fn p2(e: i32) -> f32 {
    2f32.powi(e)
}

/// Every A row is `row` (by k), every B column is `col` (by k), in every block.
fn inputs<X: Instr>(row: &[X::In], col: &[X::InB]) -> (FragA<X>, FragB<X>) {
    assert_eq!((row.len(), col.len()), (X::SPEC.k, X::SPEC.k));
    (
        FragA::<X>::from_fn(|_, _, k| row[k]),
        FragB::<X>::from_fn(|_, k, _| col[k]),
    )
}

/// The bits of every element of D, which must all be the same.
fn only_bits<X: Instr>(d: &Acc<X>) -> u64 {
    let first = d.as_row_major()[0].to_bits_u64();
    for v in d.as_row_major() {
        assert_eq!(v.to_bits_u64(), first, "{}: D is not uniform", X::SPEC.name);
    }
    first
}

fn f32_bits(d: u64) -> f32 {
    f32::from_bits(d as u32)
}

/// Products that are all -0 under IEEE and the model alike: bf16 products
/// that underflow keep their sign when flushed.
const TINY: f32 = 7.888_609e-31; // 2^-100

#[test]
fn negative_zero_in_c_becomes_positive_zero() {
    assert_eq!(TINY, p2(-100));
    // Every product is -2^-200 → -0, so every tree is -0: without the flush
    // of C, D would be -0 + -0 = -0.
    type X = mfma!(f32_32x32x4bf16);
    let (a, b) = inputs::<X>(&[bf(TINY); 4], &[bf(-TINY); 4]);
    let d = mfma!(f32_32x32x4bf16(a, b, Acc::<X>::splat(-0.0)));
    assert_eq!(only_bits(&d), 0, "f32_32x32x4bf16");

    type Y = mfma!(f32_32x32x8bf16_1k);
    let (a, b) = inputs::<Y>(&[bf(TINY); 8], &[bf(-TINY); 8]);
    let d = mfma!(f32_32x32x8bf16_1k(a, b, Acc::<Y>::splat(-0.0)));
    assert_eq!(only_bits(&d), 0, "f32_32x32x8bf16_1k");

    // A subnormal C is flushed the same way.
    let d = mfma!(f32_32x32x8bf16_1k(a, b, Acc::<Y>::splat(-p2(-130))));
    assert_eq!(only_bits(&d), 0, "subnormal C");

    // Contrast: the f32 path keeps -0 (fma(2^-100, -2^-100, -0) rounds to -0).
    type F = mfma!(f32_32x32x2f32);
    let (a, b) = inputs::<F>(&[TINY; 2], &[-TINY; 2]);
    let d = mfma!(f32_32x32x2f32(a, b, Acc::<F>::splat(-0.0)));
    assert_eq!(only_bits(&d), u64::from((-0.0f32).to_bits()), "f32 path");
}

/// Makes the accumulator -0 after the first tree of 2 (reference 4.2):
/// C = 1.5·2^-126 plus the product -1.75·2^-126 gives -2^-128, flushed
/// with its sign. Returns (C, A row, B column) for the first two k.
fn acc_to_negative_zero() -> (f32, [bf16; 2], [bf16; 2]) {
    let c = 1.5 * p2(-126);
    (c, [bf(-1.75 * p2(-63)), bf(1.0)], [bf(p2(-63)), bf(0.0)])
}

#[test]
fn exact_zero_product_is_positive_zero() {
    // After the first group the accumulator is -0; the second group has
    // only zero-factor products with a negative other factor: IEEE -0 each,
    // so D would stay -0; as +0 they make D = -0 + +0 = +0.
    type X = mfma!(f32_32x32x4bf16);
    let (c, row, col) = acc_to_negative_zero();
    let (a, b) = inputs::<X>(
        &[row[0], row[1], bf(-1.0), bf(-3.0)],
        &[col[0], col[1], bf(0.0), bf(0.0)],
    );
    let d = mfma!(f32_32x32x4bf16(a, b, Acc::<X>::splat(c)));
    assert_eq!(only_bits(&d), 0, "f32_32x32x4bf16");

    // The same with trees of 4: the first tree is the single product.
    type Y = mfma!(f32_32x32x8bf16_1k);
    let zero = bf(0.0);
    let (a, b) = inputs::<Y>(
        &[
            row[0],
            row[1],
            row[1],
            row[1],
            bf(-1.0),
            bf(-2.0),
            bf(-3.0),
            bf(-4.0),
        ],
        &[col[0], col[1], col[1], col[1], zero, zero, zero, zero],
    );
    let d = mfma!(f32_32x32x8bf16_1k(a, b, Acc::<Y>::splat(c)));
    assert_eq!(only_bits(&d), 0, "f32_32x32x8bf16_1k");

    // Contrast: on the f32 path the IEEE sign of -1·0 survives.
    type F = mfma!(f32_32x32x2f32);
    let (a, b) = inputs::<F>(&[-1.0; 2], &[0.0; 2]);
    let d = mfma!(f32_32x32x2f32(a, b, Acc::<F>::splat(-0.0)));
    assert_eq!(only_bits(&d), u64::from((-0.0f32).to_bits()), "f32 path");
}

#[test]
fn inf_times_subnormal_is_nan_on_f16_and_bf16_but_inf_on_f32() {
    let inf16 = f16::INFINITY;
    let sub16 = f16::from_bits(1); // 2^-24
    type H = mfma!(f32_4x4x4f16);
    let (a, b) = inputs::<H>(
        &[inf16, h(0.0), h(0.0), h(0.0)],
        &[sub16, h(1.0), h(1.0), h(1.0)],
    );
    let d = mfma!(f32_4x4x4f16(a, b, Acc::<H>::zero()));
    assert!(f32_bits(only_bits(&d)).is_nan(), "f16");

    let infb = bf16::INFINITY;
    let subb = bf16::from_bits(1); // 2^-133
    type B = mfma!(f32_4x4x2bf16);
    let (a, b) = inputs::<B>(&[infb, bf(0.0)], &[subb, bf(1.0)]);
    let d = mfma!(f32_4x4x2bf16(a, b, Acc::<B>::zero()));
    assert!(f32_bits(only_bits(&d)).is_nan(), "bf16");

    type K = mfma!(f32_4x4x4bf16_1k);
    let (a, b) = inputs::<K>(
        &[infb, bf(0.0), bf(0.0), bf(0.0)],
        &[subb, bf(1.0), bf(1.0), bf(1.0)],
    );
    let d = mfma!(f32_4x4x4bf16_1k(a, b, Acc::<K>::zero()));
    assert!(f32_bits(only_bits(&d)).is_nan(), "bf16_1k");

    // The f32 and f64 paths keep subnormals: Inf × 2^-149 = Inf.
    type F = mfma!(f32_4x4x1f32);
    let (a, b) = inputs::<F>(&[f32::INFINITY], &[f32::from_bits(1)]);
    let d = mfma!(f32_4x4x1f32(a, b, Acc::<F>::zero()));
    assert_eq!(f32_bits(only_bits(&d)), f32::INFINITY, "f32");

    type D = mfma!(f64_4x4x4f64);
    let (a, b) = inputs::<D>(
        &[f64::INFINITY, 0.0, 0.0, 0.0],
        &[f64::from_bits(1), 1.0, 1.0, 1.0],
    );
    let d = mfma!(f64_4x4x4f64(a, b, Acc::<D>::zero()));
    assert_eq!(f64::from_bits(only_bits(&d)), f64::INFINITY, "f64");
}

#[test]
fn bf16_products_overflow_to_inf() {
    // 2^64 · 2^64 = 2^128 overflows binary32 before C = -MAX is added,
    // although the exact sum 2^104 is finite.
    type X = mfma!(f32_4x4x2bf16);
    let (a, b) = inputs::<X>(&[bf(p2(64)), bf(1.0)], &[bf(p2(64)), bf(0.0)]);
    let d = mfma!(f32_4x4x2bf16(a, b, Acc::<X>::splat(-f32::MAX)));
    assert_eq!(f32_bits(only_bits(&d)), f32::INFINITY);

    // Contrast: the fused f32 path rounds only the exact result.
    type F = mfma!(f32_4x4x1f32);
    let (a, b) = inputs::<F>(&[p2(64)], &[p2(64)]);
    let d = mfma!(f32_4x4x1f32(a, b, Acc::<F>::splat(-f32::MAX)));
    assert_eq!(f32_bits(only_bits(&d)), p2(104));
}

#[test]
fn bf16_products_underflow_and_flush_keeping_sign() {
    // 1.5·2^-64 · 2^-64 = 1.5·2^-128 is subnormal and flushed: the tree is
    // 2^-126 alone, not 1.375·2^-126.
    type X = mfma!(f32_4x4x2bf16);
    let (a, b) = inputs::<X>(
        &[bf(1.5 * p2(-64)), bf(p2(-63))],
        &[bf(p2(-64)), bf(p2(-63))],
    );
    let d = mfma!(f32_4x4x2bf16(a, b, Acc::<X>::zero()));
    assert_eq!(f32_bits(only_bits(&d)), p2(-126));

    // The flushed product keeps its sign: with the accumulator at -0 after
    // the first group, two products -2^-200 → -0 leave D = -0.
    type Y = mfma!(f32_32x32x4bf16);
    let (c, row, col) = acc_to_negative_zero();
    let (a, b) = inputs::<Y>(
        &[row[0], row[1], bf(TINY), bf(TINY)],
        &[col[0], col[1], bf(-TINY), bf(-TINY)],
    );
    let d = mfma!(f32_32x32x4bf16(a, b, Acc::<Y>::splat(c)));
    assert_eq!(only_bits(&d), u64::from((-0.0f32).to_bits()));
}

#[test]
fn f16_flushes_after_the_input_flush_never_fire() {
    // f16 normals are ≥ 2^-14 with 11 significant bits, so every product is
    // an exact multiple of 2^-48 and ≥ 2^-28, and so is every nonzero sum:
    // nothing ever gets below 2^-126 to be flushed.
    type X = mfma!(f32_4x4x4f16);
    let min = p2(-14);
    let (a, b) = inputs::<X>(
        &[h(min), h(0.0), h(0.0), h(0.0)],
        &[h(min), h(1.0), h(1.0), h(1.0)],
    );
    let d = mfma!(f32_4x4x4f16(a, b, Acc::<X>::zero()));
    assert_eq!(f32_bits(only_bits(&d)), p2(-28), "smallest product");

    // (2^-14(1+2^-10))^2 - 2^-14(1+2^-9)·2^-14 = 2^-48: the smallest
    // cancellation residue survives exactly.
    let x = min * (1.0 + p2(-10));
    let y = min * (1.0 + p2(-9));
    let (a, b) = inputs::<X>(
        &[h(x), h(-y), h(0.0), h(0.0)],
        &[h(x), h(min), h(0.0), h(0.0)],
    );
    let d = mfma!(f32_4x4x4f16(a, b, Acc::<X>::zero()));
    assert_eq!(f32_bits(only_bits(&d)), p2(-48), "cancellation residue");

    // Subnormal f16 inputs are the only thing flushed.
    let (a, b) = inputs::<X>(
        &[f16::from_bits(0x3ff), h(0.0), h(0.0), h(0.0)],
        &[h(1.0); 4],
    );
    let d = mfma!(f32_4x4x4f16(a, b, Acc::<X>::zero()));
    assert_eq!(only_bits(&d), 0, "subnormal input");
}

#[test]
fn bf16_and_bf16_1k_differ_only_in_group_size() {
    // Products [2^20, 2^-10, 2^-10, 2^-10] with C = -2^20.
    // Trees of 2: (2^20 + 2^-10 → 2^20) cancels C, then 2^-10 + 2^-10 = 2^-9.
    // Trees of 4: 2^20 + 2^-9 → 2^20 cancels C: 0.
    let row = [bf(p2(10)), bf(p2(-5)), bf(p2(-5)), bf(p2(-5))];
    type X = mfma!(f32_32x32x4bf16);
    let (a, b) = inputs::<X>(&row, &row);
    let d = mfma!(f32_32x32x4bf16(a, b, Acc::<X>::splat(-p2(20))));
    assert_eq!(f32_bits(only_bits(&d)), p2(-9), "f32_32x32x4bf16");

    type K = mfma!(f32_32x32x4bf16_1k);
    let (a, b) = inputs::<K>(&row, &row);
    let d = mfma!(f32_32x32x4bf16_1k(a, b, Acc::<K>::splat(-p2(20))));
    assert_eq!(only_bits(&d), 0, "f32_32x32x4bf16_1k");
}

#[test]
fn i8_accumulation_wraps_around() {
    // i32::MAX + 4·1 wraps to i32::MIN + 3: no saturation.
    type X = mfma!(i32_4x4x4i8);
    let (a, b) = inputs::<X>(&[1; 4], &[1; 4]);
    let d = mfma!(i32_4x4x4i8(a, b, Acc::<X>::splat(i32::MAX)));
    assert_eq!(only_bits(&d) as u32 as i32, i32::MIN + 3);

    // i32::MIN + 8·(-128·127) wraps below to i32::MAX + 1 - 130048.
    type Y = mfma!(i32_32x32x8i8);
    let (a, b) = inputs::<Y>(&[-128; 8], &[127; 8]);
    let d = mfma!(i32_32x32x8i8(a, b, Acc::<Y>::splat(i32::MIN)));
    assert_eq!(
        only_bits(&d) as u32 as i32,
        i32::MIN.wrapping_add(8 * -128 * 127)
    );
    assert_eq!(only_bits(&d) as u32 as i32, i32::MAX - 130_047);

    // (-128)·(-128) = 2^14 in every product: 16 of them reach 2^18 exactly.
    type Z = mfma!(i32_16x16x16i8);
    let (a, b) = inputs::<Z>(&[-128; 16], &[-128; 16]);
    let d = mfma!(i32_16x16x16i8(a, b, Acc::<Z>::zero()));
    assert_eq!(only_bits(&d), 1 << 18);
}
