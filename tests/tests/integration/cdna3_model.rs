//! The independent CDNA3 reference model (`common/cdna3_model.rs`) against
//! the bit-exact vectors of `shared/vectors/cdna3-numerics.json` (MI300
//! arithmetic as modelled by MMA-Sim), and the named consequences of
//! reference section 4 on the model itself.
//!
//! The model is the check on the production CDNA3 kernels, so it must first
//! be proved right: every vector of the file, every D element, bit for bit
//! (NaN by class only, as the file's schema says).
//!
//! Run with `--nocapture` to see the counts per instruction.

use crate::common::cdna3_model as model;
use crate::common::vector_files::{bits, file, Meta, Vector};

use model::{Block, Family, Format};
use std::collections::BTreeMap;

/// A format as the file names it.
fn format(name: &str) -> Format {
    match name {
        "f32" => Format::F32,
        "f64" => Format::F64,
        "f16" => Format::F16,
        "bf16" => Format::Bf16,
        "xf32" => Format::Xf32,
        "fp8" => Format::Fp8,
        "bf8" => Format::Bf8,
        "i8" => Format::I8,
        "i32" => Format::I32,
        _ => panic!("unknown type {name:?}"),
    }
}

/// The arithmetic family of an instruction and its group of k, from the
/// file's own description (reference 4): the input type decides the family;
/// f16/bf16 steps are `min(K, 8)` k, xf32 steps 4 k (4.2), fp8/bf8 steps
/// `min(K, 16)` k (4.3). The name is checked against the types where it
/// carries them: gfx942's bf16 instructions are all the `_1k` ones, and an
/// 8-bit float name ends with `_{A}_{B}` in the order of A's and B's formats.
fn family_of(name: &str, meta: &Meta) -> Family {
    match (meta.a_type.as_str(), meta.b_type.as_str()) {
        ("f32", "f32") | ("f64", "f64") => Family::Fma,
        ("f16", "f16") => Family::Truncated {
            group: meta.shape.k.min(8),
        },
        ("bf16", "bf16") => {
            assert!(
                name.ends_with("_1k"),
                "{name}: CDNA3 bf16 is the _1k family"
            );
            Family::Truncated {
                group: meta.shape.k.min(8),
            }
        }
        ("xf32", "xf32") => Family::Truncated { group: 4 },
        (a @ ("fp8" | "bf8"), b @ ("fp8" | "bf8")) => {
            assert!(name.ends_with(&format!("_{a}_{b}")), "{name}: A {a}, B {b}");
            Family::SplitTruncated {
                group: meta.shape.k.min(16),
            }
        }
        ("i8", "i8") => Family::Wrapping,
        (a, b) => panic!("{name}: no family for {a}×{b}"),
    }
}

/// The family's name in the counts and test names.
fn family_name(family: Family) -> &'static str {
    match family {
        Family::Fma => "fma",
        Family::Truncated { .. } => "truncated",
        Family::SplitTruncated { .. } => "split_truncated",
        Family::Wrapping => "wrapping",
    }
}

/// Equal bits, or both NaN (the file compares NaN by class only).
fn same(fmt: Format, got: u64, want: u64) -> bool {
    got == want || (fmt.is_nan(got) && fmt.is_nan(want))
}

/// Runs one vector through the model; the wrong D elements as messages.
fn check_vector(v: &Vector, meta: &Meta, family: Family) -> Vec<String> {
    assert_eq!(v.shape, meta.shape, "{}: shape", v.id);
    assert_eq!(meta.c_type, meta.d_type, "{}: C and D types", v.id);
    assert_eq!(v.d.len(), v.shape.m * v.shape.n, "{}: D length", v.id);
    let parse = |m: &[String]| m.iter().map(|s| bits(s, &v.id)).collect::<Vec<u64>>();
    let (a, b, c) = (parse(&v.a), parse(&v.b), parse(&v.c));
    let c_fmt = format(&meta.c_type);
    let block = Block {
        m: v.shape.m,
        n: v.shape.n,
        k: v.shape.k,
        a_fmt: format(&meta.a_type),
        b_fmt: format(&meta.b_type),
        c_fmt,
        a: &a,
        b: &b,
        c: &c,
        neg: [false; 3],
    };
    let d = model::run(family, &block);
    let width = c_fmt.bits() as usize / 4;
    v.d.iter()
        .zip(&d)
        .enumerate()
        .filter(|(_, (want, &got))| !same(c_fmt, got, bits(want, &v.id)))
        .map(|(index, (want, got))| {
            let (i, j) = (index / v.shape.n, index % v.shape.n);
            format!(
                "  {} D[{i}][{j}]: model {got:0width$x}, vector {want}",
                v.id
            )
        })
        .collect()
}

/// Runs every vector of the instructions of one family through the model;
/// prints the count per instruction and fails listing the first wrong
/// elements.
fn run_family(wanted: &str) {
    let f = file("cdna3", false);
    // instruction → (vectors bit-exact, vectors, model-only zero signs checked)
    let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for v in &f.vectors {
        let meta = f
            .instructions
            .get(&v.instruction)
            .unwrap_or_else(|| panic!("{}: unknown instruction {}", v.id, v.instruction));
        let family = family_of(&v.instruction, meta);
        if family_name(family) != wanted {
            continue;
        }
        let entry = counts.entry(&v.instruction).or_default();
        let errors = check_vector(v, meta, family);
        entry.1 += 1;
        if errors.is_empty() {
            entry.0 += 1;
            entry.2 += v.model_only_zero_signs();
        }
        wrong.extend(errors);
    }
    let (mut ok, mut total) = (0, 0);
    for (name, (passed, vectors, zero_signs)) in &counts {
        println!(
            "{name:<22} {passed:>3}/{vectors:<3} vectors bit-exact \
             ({zero_signs} model-only zero signs)"
        );
        ok += passed;
        total += vectors;
    }
    println!("{wanted} family: {ok}/{total} vectors bit-exact");
    assert!(total > 0, "no vectors for the {wanted} family");
    assert!(
        wrong.is_empty(),
        "{} wrong D elements, first ones:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}

/// Reference 4.1 (f32 and f64).
#[test]
fn fma_vectors_are_bit_exact() {
    run_family("fma");
}

/// Reference 4.2 (f16, bf16 `_1k`, xf32).
#[test]
fn truncated_vectors_are_bit_exact() {
    run_family("truncated");
}

/// Reference 4.3 (the 8 fp8/bf8 instructions).
#[test]
fn split_truncated_vectors_are_bit_exact() {
    run_family("split_truncated");
}

/// Reference 4.4 (i8).
#[test]
fn wrapping_vectors_are_bit_exact() {
    run_family("wrapping");
}

/// Every instruction of the file has a family (so the four tests above see
/// every vector) and at least one vector; every vector names one of them.
#[test]
fn every_instruction_has_a_family_and_vectors() {
    let f = file("cdna3", false);
    for (name, meta) in &f.instructions {
        family_of(name, meta);
        assert!(
            f.vectors.iter().any(|v| &v.instruction == name),
            "no vector for {name}"
        );
    }
    for v in &f.vectors {
        assert!(
            f.instructions.contains_key(&v.instruction),
            "{}: unknown instruction",
            v.id
        );
    }
}

// ---------------------------------------------------------------------------
// The consequences of reference 4.2 (end of the section), and of 3.3/4.3/4.4,
// on the model itself.

/// The bf16 bits of `±2^e` (a normal bf16).
fn bf16_pow2(negative: bool, e: i32) -> u64 {
    assert!((-126..=127).contains(&e));
    u64::from(negative) << 15 | ((e + 127) as u64) << 7
}

/// A bf16 `2^e`, positive.
fn bf(e: i32) -> u64 {
    bf16_pow2(false, e)
}

/// A bf16 `−2^e`.
fn neg_bf(e: i32) -> u64 {
    bf16_pow2(true, e)
}

/// D[0][0] of one block of `family` with M = N = 32 (the 32x32 shapes):
/// row 0 of A and column 0 of B hold the (A, B) `pairs` from k = 0 (zeros
/// after them, up to K), every C element is `c`. Only D[0][0] sees the
/// pairs; the rest of the block is there so the shape is the instruction's.
fn d00(
    family: Family,
    fmts: (Format, Format, Format),
    k: usize,
    pairs: &[(u64, u64)],
    c: u64,
) -> u64 {
    let (m, n) = (32, 32);
    assert!(pairs.len() <= k);
    let mut a = vec![0; m * k];
    let mut b = vec![0; k * n];
    for (kk, &(x, y)) in pairs.iter().enumerate() {
        a[kk] = x;
        b[kk * n] = y;
    }
    let cs = vec![c; m * n];
    let block = Block {
        m,
        n,
        k,
        a_fmt: fmts.0,
        b_fmt: fmts.1,
        c_fmt: fmts.2,
        a: &a,
        b: &b,
        c: &cs,
        neg: [false; 3],
    };
    let d = model::run(family, &block);
    d[0]
}

/// D[0][0] of bf16 `32x32x8` (one step of 8 k) for the products
/// `2^e · ±1` given as (A, B) bf16 pairs, with C = `c`.
fn bf16_32x32x8(pairs: &[(u64, u64)], c: f32) -> f32 {
    let fmts = (Format::Bf16, Format::Bf16, Format::F32);
    let d = d00(
        Family::Truncated { group: 8 },
        fmts,
        8,
        pairs,
        u64::from(c.to_bits()),
    );
    f32::from_bits(d as u32)
}

fn p2(e: i32) -> f32 {
    2f32.powi(e)
}

/// 4.2: `1 + 2^-24 + 2^-40` is `1.0`, not IEEE's `1 + 2^-23`: the product
/// 2^-40 is truncated away at e_dot − 24 = −24, which leaves the exact tie
/// `1 + 2^-24`, and the tie goes to even.
#[test]
fn products_one_two_pow_minus_24_and_minus_40_give_one() {
    let pairs = [(bf(0), bf(0)), (bf(-12), bf(-12)), (bf(-20), bf(-20))];
    assert_eq!(bf16_32x32x8(&pairs, 0.0), 1.0);
    // IEEE would round the exact sum up.
    assert_eq!(
        (1f64 + 2f64.powi(-24) + 2f64.powi(-40)) as f32,
        1.0 + p2(-23)
    );
}

/// 4.2 step 4: a tiny negative c is floored to `−2^(E−24)`, so product 1
/// with `c = −2^-40` gives `1 − 2^-24` (IEEE: 1.0).
#[test]
fn tiny_negative_c_is_floored() {
    let d = bf16_32x32x8(&[(bf(0), bf(0))], -p2(-40));
    assert_eq!(d, 1.0 - p2(-24));
    assert_eq!(d.to_bits(), 0x3f7f_ffff);
}

/// 4.2: rounding is not symmetric. Products `−1, −2^-24` with
/// `c = −2^-40` give `−(1 + 2^-23)`: c floors to −2^-24, the sum
/// `−(1 + 2^-23)` is exact; the mirror image (positive) gives 1.0
/// because a positive tiny c floors to 0 and the tie `1 + 2^-24` goes to even.
#[test]
fn rounding_is_not_symmetric() {
    let negative = [(neg_bf(0), bf(0)), (neg_bf(-12), bf(-12))];
    assert_eq!(bf16_32x32x8(&negative, -p2(-40)), -(1.0 + p2(-23)));
    let positive = [(bf(0), bf(0)), (bf(-12), bf(-12))];
    assert_eq!(bf16_32x32x8(&positive, p2(-40)), 1.0);
}

/// 4.2 step 2: products `2^30, −2^30, 2^-10` give +0 (CDNA2: 2^-10). The
/// small product is truncated at the big ones' exponent, 30 − 24 = 6.
#[test]
fn small_product_is_truncated_at_the_largest_exponent() {
    let pairs = [(bf(15), bf(15)), (neg_bf(15), bf(15)), (bf(-5), bf(-5))];
    assert_eq!(bf16_32x32x8(&pairs, 0.0).to_bits(), 0);
}

/// 4.2 step 6: an exact zero is +0 whatever the signs: products −0 and c
/// = −0 (IEEE: −0).
#[test]
fn exact_zero_is_positive() {
    let pairs = [(0x8000, bf(0)), (0, neg_bf(3))];
    assert_eq!(bf16_32x32x8(&pairs, -0.0).to_bits(), 0);
}

/// 4.2 (no flush): a subnormal f16 input survives, `2^-24 · 1` is 2^-24
/// (CDNA2 flushed the input to zero), and so does the product of two.
#[test]
fn subnormal_f16_input_survives() {
    let fmts = (Format::F16, Format::F16, Format::F32);
    let one = 0x3c00;
    let d = d00(Family::Truncated { group: 8 }, fmts, 8, &[(0x0001, one)], 0);
    assert_eq!(f32::from_bits(d as u32), p2(-24));
    let d = d00(
        Family::Truncated { group: 8 },
        fmts,
        8,
        &[(0x0001, 0x0001)],
        0,
    );
    assert_eq!(f32::from_bits(d as u32), p2(-48));
}

/// The decoding rule of reference 4: a subnormal input's exponent is e_sub,
/// not ⌊log2|x|⌋. The f16 product `0x0001 · 1` = 2^-24 has e_k = −14, so the
/// truncation point is −14 − 24 = −38, and the second product
/// `−(2^-14·(1 + 2^-10))² = −(2^-28 + 2^-37 + 2^-48)` loses its 2^-48. With
/// e = ⌊log2|x|⌋ = −24 the truncation point would be −48 and the exact sum
/// `2^-24 − 2^-28 − 2^-37 − 2^-48` is an f32 (e_T = −25, ulp 2^-48).
#[test]
fn subnormal_input_has_the_subnormal_exponent() {
    let fmts = (Format::F16, Format::F16, Format::F32);
    let (one, x, minus_x) = (0x3c00, 0x0401, 0x8401);
    let pairs = [(0x0001, one), (minus_x, x)];
    let d = d00(Family::Truncated { group: 8 }, fmts, 8, &pairs, 0);
    let want = 2f64.powi(-24) - 2f64.powi(-28) - 2f64.powi(-37);
    assert_eq!(f64::from(f32::from_bits(d as u32)), want);
    let other_reading = want - 2f64.powi(-48);
    assert_eq!(f64::from(other_reading as f32), other_reading);
}

/// 4.2 step 5 (no flush): a subnormal f32 result survives, from bf16
/// products (2^-70 · 2^-70 = 2^-140) and from a subnormal c alone.
#[test]
fn subnormal_result_survives() {
    let d = bf16_32x32x8(&[(bf(-70), bf(-70))], 0.0);
    assert_eq!(d.to_bits(), 1 << 9);
    assert!(d.is_subnormal());
    let c = f32::from_bits(1);
    assert_eq!(bf16_32x32x8(&[], c).to_bits(), 1);
}

/// 4.2 step 4 keeps S to 32 bits below E, one more than the 31 of step 5
/// once a cancellation with c lowers e_T to E − 1: products 2^-25 and
/// 2^-32 with c = −1 give T = −(1 − 2^-25 − 2^-32), just short of the tie,
/// so D = −(1 − 2^-24). Flooring S to 31 bits would make it the tie and
/// D = −1. (The vectors do not pin this constant: it only shows in such a
/// cancellation, and 32 or finer is then the same as step 5 alone.)
#[test]
fn dot_product_keeps_32_bits_below_e() {
    let pairs = [(bf(-13), bf(-12)), (bf(-16), bf(-16))];
    assert_eq!(bf16_32x32x8(&pairs, -1.0).to_bits(), 0xbf7f_ffff);
}

/// D[0][0] of xf32 `32x32x4` (one step of 4 k) for (A, B) f32 bit pairs.
fn xf32_32x32x4(pairs: &[(u32, u32)], c: f32) -> u32 {
    let fmts = (Format::Xf32, Format::Xf32, Format::F32);
    let pairs: Vec<(u64, u64)> = pairs
        .iter()
        .map(|&(a, b)| (u64::from(a), u64::from(b)))
        .collect();
    d00(
        Family::Truncated { group: 4 },
        fmts,
        4,
        &pairs,
        u64::from(c.to_bits()),
    ) as u32
}

/// 4.2: xf32 inputs lose their low 13 bits before anything else, NaN
/// patterns included: `1 + 2^-23` counts as 1, and a NaN whose payload lies
/// only in those bits is ∞ (the vectors hold such inputs and agree).
#[test]
fn xf32_inputs_are_truncated_to_tf32() {
    let one = 1f32.to_bits();
    assert_eq!(xf32_32x32x4(&[(one + 1, one)], 0.0), one);
    let low_nan = 0xff80_1000;
    assert!(f32::from_bits(low_nan).is_nan());
    assert_eq!(
        xf32_32x32x4(&[(low_nan, one)], 1.0),
        f32::NEG_INFINITY.to_bits()
    );
}

/// 4.2 step 1: a bf16 product of at least 2^128 is ∞ even when the exact
/// sum would be finite, and ∞ of both signs make NaN.
#[test]
fn overflowing_products_are_infinite() {
    let pairs = [(bf(64), bf(64)), (neg_bf(64), bf(64))];
    assert!(bf16_32x32x8(&pairs, 0.0).is_nan());
    let pairs = [(bf(64), bf(64)), (neg_bf(0), bf(0))];
    assert_eq!(bf16_32x32x8(&pairs, 0.0), f32::INFINITY);
}

/// D[0][0] of f64 `4x4x4` with one product `a·b`, C = `c`, negations `neg`.
fn f64_4x4x4(a: f64, b: f64, c: f64, neg: [bool; 3]) -> f64 {
    let (m, n, k) = (4, 4, 4);
    let mut av = vec![0; m * k];
    let mut bv = vec![0; k * n];
    av[0] = a.to_bits();
    bv[0] = b.to_bits();
    let cv = vec![c.to_bits(); m * n];
    let block = Block {
        m,
        n,
        k,
        a_fmt: Format::F64,
        b_fmt: Format::F64,
        c_fmt: Format::F64,
        a: &av,
        b: &bv,
        c: &cv,
        neg,
    };
    f64::from_bits(model::run(Family::Fma, &block)[0])
}

/// Reference 3.3/4.5: f64 negation flips the sign of every element of the
/// chosen operands before the fma chain, zeros included.
#[test]
fn f64_negation_flips_operand_signs() {
    let d = |neg| f64_4x4x4(2.0, 3.0, 1.0, neg);
    assert_eq!(d([false, false, false]), 7.0);
    assert_eq!(d([true, false, false]), -5.0);
    assert_eq!(d([false, true, false]), -5.0);
    assert_eq!(d([true, true, false]), 7.0);
    assert_eq!(d([false, false, true]), 5.0);
    assert_eq!(d([true, true, true]), 5.0);
    // +0·1 + −0 is +0 under IEEE; negating A makes every product −0
    // (the zero products of k = 1..3 included), so D is −0.
    let zero = |neg| f64_4x4x4(0.0, 1.0, -0.0, neg).to_bits();
    assert_eq!(zero([false, false, false]), 0);
    assert_eq!(zero([true, false, false]), (-0.0f64).to_bits());
    // Negating C alone turns −0 into +0: +0 + +0 = +0.
    assert_eq!(
        f64_4x4x4(-0.0, 1.0, -0.0, [false, false, true]).to_bits(),
        0
    );
}

/// D[0][0] of `f32_32x32x16_{A}_{B}` (one step of 16) with `pairs` and C.
fn fp8_32x32x16(fmts: (Format, Format), pairs: &[(u64, u64)], c: f32) -> u32 {
    let fmts = (fmts.0, fmts.1, Format::F32);
    let family = Family::SplitTruncated { group: 16 };
    d00(family, fmts, 16, pairs, u64::from(c.to_bits())) as u32
}

/// FNUZ fp8 (E4M3, bias 8) `2^e`.
fn fp8(e: i32) -> u64 {
    assert!((-7..=7).contains(&e));
    ((e + 8) as u64) << 3
}

/// FNUZ bf8 (E5M2, bias 16) `±2^e`.
fn bf8(negative: bool, e: i32) -> u64 {
    assert!((-15..=15).contains(&e));
    u64::from(negative) << 7 | ((e + 16) as u64) << 2
}

/// 4.3 step 4: c is dropped when `e_c < E − 25`. With product 1 (E = 0), a
/// c = −2^-26 is dropped (D = 1.0), while c = −2^-25 is kept and floored to
/// −2^-24 (D = 1 − 2^-24). The truncated family of 4.2 keeps both.
#[test]
fn fp8_drops_a_small_c() {
    let one = [(fp8(0), fp8(0))];
    let fp8s = (Format::Fp8, Format::Fp8);
    assert_eq!(fp8_32x32x16(fp8s, &one, -p2(-26)), 0x3f80_0000);
    assert_eq!(fp8_32x32x16(fp8s, &one, -p2(-25)), 0x3f7f_ffff);
    let bf16_one = [(bf(0), bf(0))];
    assert_eq!(bf16_32x32x8(&bf16_one, -p2(-26)).to_bits(), 0x3f7f_ffff);
}

/// 4.3 steps 2–3: even and odd k are truncated separately, then floored.
/// Product 1 at k = 0 and −2^-30 at k = 1: the odd sum keeps −2^-30 (its own
/// maximum), which floors to −2^-24: D = 1 − 2^-24. In one sum (4.2) the
/// product would be truncated toward zero at −24: D = 1.0.
#[test]
fn fp8_even_and_odd_sums_are_separate() {
    let bf8s = (Format::Bf8, Format::Bf8);
    let pairs = [
        (bf8(false, 0), bf8(false, 0)),
        (bf8(true, -15), bf8(false, -15)),
    ];
    assert_eq!(fp8_32x32x16(bf8s, &pairs, 0.0), 0x3f7f_ffff);
    // Both at even positions (k = 0 and k = 2): one sum, truncated.
    let pairs = [pairs[0], (0, 0), pairs[1]];
    assert_eq!(fp8_32x32x16(bf8s, &pairs, 0.0), 0x3f80_0000);
}

/// 4.3: 0x80 is the FNUZ NaN (no −0): it makes D NaN even against a
/// zero product, and an ∞ c propagates.
#[test]
fn fp8_nan_and_infinite_c() {
    let fmts = (Format::Fp8, Format::Bf8);
    assert!(f32::from_bits(fp8_32x32x16(fmts, &[(0x80, 0)], 1.0)).is_nan());
    assert_eq!(
        fp8_32x32x16(fmts, &[(fp8(0), bf8(true, 0))], f32::INFINITY),
        f32::INFINITY.to_bits()
    );
}

/// 4.4: i8 products summed into i32 wrap around.
#[test]
fn i8_sum_wraps_around() {
    let fmts = (Format::I8, Format::I8, Format::I32);
    let i8b = |x: i8| u64::from(x as u8);
    let i32b = |x: i32| u64::from(x as u32);
    let d = d00(
        Family::Wrapping,
        fmts,
        16,
        &[(i8b(1), i8b(1))],
        i32b(i32::MAX),
    );
    assert_eq!(d as u32 as i32, i32::MIN);
    // 16 products of (−128)·(−128) = 2^18 onto i32::MAX − 2^17.
    let pairs = [(i8b(-128), i8b(-128)); 16];
    let d = d00(
        Family::Wrapping,
        fmts,
        16,
        &pairs,
        i32b(i32::MAX - (1 << 17)),
    );
    assert_eq!(
        d as u32 as i32,
        (i32::MAX - (1 << 17)).wrapping_add(1 << 18)
    );
}
