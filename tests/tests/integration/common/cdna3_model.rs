//! An independent, exact reference model of the CDNA3 (MI300, gfx942) MFMA
//! arithmetic, written from section 4 of `shared/reference/cdna3-mfma.md`
//! and used only by tests, as the check on the production kernels.
//!
//! It is independent on purpose: it decodes every format from its bits with
//! its own tiny descriptors (no `mfma_spec`/`mfma_core` type), and it does
//! the fused families (reference 4.2 and 4.3) in exact arithmetic. Every
//! finite value is a big integer count of [`UNIT`]s, so the truncations,
//! floors and the final rounding are plain integer divisions that a reader
//! can match, line by line, to the sentences of the reference. Nothing here
//! is fast; it only has to be obviously right.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;

// ---------------------------------------------------------------------------
// Public API.

/// An element format, as a bit pattern of `bits()` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    F32,
    F64,
    F16,
    Bf16,
    /// An f32 bit pattern that the instruction truncates to tf32 (reference
    /// 4.2: `bits & 0xffffe000`) before using it.
    Xf32,
    /// E4M3 FNUZ: bias 8, `0x80` the only NaN, no ∞, no −0.
    Fp8,
    /// E5M2 FNUZ: bias 16, `0x80` the only NaN, no ∞, no −0.
    Bf8,
    I8,
    I32,
}

/// The arithmetic of an instruction (reference section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// 4.1 (f32, f64): a chain of IEEE fused multiply-adds over k ascending,
    /// starting from C.
    Fma,
    /// 4.2 "TR" (f16, bf16, xf32): steps of `group` consecutive k, each a
    /// truncated fused dot product whose f32 result is the next step's C.
    Truncated { group: usize },
    /// 4.3 "GTR" (fp8/bf8 FNUZ): steps of `group` consecutive k whose even
    /// and odd positions are summed and truncated separately.
    SplitTruncated { group: usize },
    /// 4.4 (i8 → i32): exact products, sum wrapped to i32.
    Wrapping,
}

/// One block `D = A·B + C`: A is m×k, B is k×n, C is m×n, all row-major raw
/// bit patterns of their formats.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a_fmt: Format,
    pub b_fmt: Format,
    pub c_fmt: Format,
    pub a: &'a [u64],
    pub b: &'a [u64],
    pub c: &'a [u64],
    /// Negate A, B, C before use (reference 3.3 and 4.5: f64 only on CDNA3;
    /// a sign flip, so +0 becomes −0). Only f64 [`Family::Fma`] accepts it.
    pub neg: [bool; 3],
}

/// D of one block, row-major bit patterns of `block.c_fmt`.
pub fn run(family: Family, block: &Block) -> Vec<u64> {
    check(family, block);
    let (m, n, k) = (block.m, block.n, block.k);
    let columns: Vec<Vec<u64>> = (0..n)
        .map(|j| (0..k).map(|kk| block.b[kk * n + j]).collect())
        .collect();
    let mut d = Vec::with_capacity(m * n);
    for i in 0..m {
        let row = &block.a[i * k..][..k];
        for (j, column) in columns.iter().enumerate() {
            d.push(element(family, block, row, column, block.c[i * n + j]));
        }
    }
    d
}

impl Format {
    /// Width of one element in bits.
    pub fn bits(self) -> u32 {
        match self {
            Format::F64 => 64,
            Format::F32 | Format::Xf32 | Format::I32 => 32,
            Format::F16 | Format::Bf16 => 16,
            Format::Fp8 | Format::Bf8 | Format::I8 => 8,
        }
    }

    /// Whether `bits` encode a NaN (never for the integer formats).
    pub fn is_nan(self, bits: u64) -> bool {
        match self {
            Format::I8 | Format::I32 => false,
            _ => matches!(decode(self, bits), Value::Nan),
        }
    }

    /// The float layout: (exponent bits, fraction bits, bias, specials).
    fn layout(self) -> Layout {
        let (exp_bits, frac_bits, bias, specials) = match self {
            Format::F64 => (11, 52, 1023, Specials::Ieee),
            Format::F32 | Format::Xf32 => (8, 23, 127, Specials::Ieee),
            Format::F16 => (5, 10, 15, Specials::Ieee),
            Format::Bf16 => (8, 7, 127, Specials::Ieee),
            Format::Fp8 => (4, 3, 8, Specials::Fnuz),
            Format::Bf8 => (5, 2, 16, Specials::Fnuz),
            Format::I8 | Format::I32 => panic!("{self:?} is not a float format"),
        };
        Layout {
            exp_bits,
            frac_bits,
            bias,
            specials,
        }
    }
}

// ---------------------------------------------------------------------------
// Decoding (reference 4, "Notation"; 4.3 for FNUZ).

/// Where a float format keeps its NaN and infinities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Specials {
    /// IEEE 754: an all-ones exponent field is ∞ (zero fraction) or NaN.
    Ieee,
    /// FNUZ: the pattern "−0" (`0x80`) is the only NaN; no ∞; every other
    /// pattern is finite.
    Fnuz,
}

#[derive(Clone, Copy, Debug)]
struct Layout {
    exp_bits: u32,
    frac_bits: u32,
    bias: i32,
    specials: Specials,
}

/// A decoded element. A finite value is `±sig · 2^(e − frac)`: `sig / 2^frac`
/// is the reference's `|s|` and `e` its exponent, which never goes below the
/// format's subnormal exponent (so a subnormal has `|s| < 1`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Nan,
    Inf { negative: bool },
    Finite(Float),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Float {
    negative: bool,
    sig: u128,
    e: i32,
    frac: u32,
}

/// Decodes `bits` of a float format, following the notation of reference 4:
/// `x = s·2^e` with `1 ≤ |s| < 2`, except that `e` never goes below
/// `e_sub = 1 − bias` (then `|s| < 1`); zero has `s = 0` (and `e = e_sub`).
/// xf32 is first truncated to tf32 (4.2: `bits & 0xffffe000`).
fn decode(fmt: Format, bits: u64) -> Value {
    assert!(
        fmt.bits() == 64 || bits >> fmt.bits() == 0,
        "{bits:#x} is wider than {fmt:?}"
    );
    let bits = if fmt == Format::Xf32 {
        bits & 0xffff_e000
    } else {
        bits
    };
    let l = fmt.layout();
    let negative = (bits >> (l.exp_bits + l.frac_bits)) & 1 == 1;
    let field = (bits >> l.frac_bits) & ((1 << l.exp_bits) - 1);
    let fraction = u128::from(bits & ((1 << l.frac_bits) - 1));
    match l.specials {
        Specials::Ieee if field == (1 << l.exp_bits) - 1 => {
            return if fraction == 0 {
                Value::Inf { negative }
            } else {
                Value::Nan
            };
        }
        Specials::Fnuz if negative && field == 0 && fraction == 0 => return Value::Nan,
        _ => {}
    }
    let e_sub = 1 - l.bias;
    let (sig, e) = if field == 0 {
        (fraction, e_sub)
    } else {
        ((1 << l.frac_bits) | fraction, field as i32 - l.bias)
    };
    Value::Finite(Float {
        negative,
        sig,
        e,
        frac: l.frac_bits,
    })
}

// ---------------------------------------------------------------------------
// Exact values: big integers counting units of 2^UNIT.

/// The exponent of the unit of every exact value. Small enough for every
/// quantity of 4.2 and 4.3: the smallest is a product of two bf16
/// subnormals, 2^-266, truncated at `e_dot − 24` ≥ −252 − 24 = −276.
const UNIT: i32 = -400;

/// `2^e` in units.
fn pow2(e: i32) -> BigInt {
    assert!(e >= UNIT, "2^{e} is below the model's unit 2^{UNIT}");
    BigInt::one() << (e - UNIT) as usize
}

impl Float {
    /// The exact value in units.
    fn exact(&self) -> BigInt {
        let magnitude = BigInt::from(self.sig) * pow2(self.e - self.frac as i32);
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    fn is_zero(&self) -> bool {
        self.sig == 0
    }
}

/// `⌊log2 |x|⌋` of a nonzero exact value.
fn log2_floor(x: &BigInt) -> i32 {
    assert!(!x.is_zero(), "log2 of zero");
    x.bits() as i32 - 1 + UNIT
}

/// "trunc ... to a multiple of 2^e": toward zero.
fn trunc_to(x: &BigInt, e: i32) -> BigInt {
    let step = pow2(e);
    (x / &step) * step
}

/// "floor ... to a multiple of 2^e": toward −∞.
fn floor_to(x: &BigInt, e: i32) -> BigInt {
    let step = pow2(e);
    x.div_floor(&step) * step
}

// ---------------------------------------------------------------------------
// The families, one output element at a time.

/// Panics on a block the model cannot run: wrong lengths, formats that do
/// not belong to the family, negation outside 4.1.
fn check(family: Family, block: &Block) {
    let (m, n, k) = (block.m, block.n, block.k);
    assert_eq!(block.a.len(), m * k, "A is not m×k");
    assert_eq!(block.b.len(), k * n, "B is not k×n");
    assert_eq!(block.c.len(), m * n, "C is not m×n");
    let (a, b, c) = (block.a_fmt, block.b_fmt, block.c_fmt);
    use Format::*;
    match family {
        Family::Fma => assert!(
            matches!((a, b, c), (F32, F32, F32) | (F64, F64, F64)),
            "fma family: {a:?}×{b:?}+{c:?}"
        ),
        Family::Truncated { group } => {
            assert!(
                a == b && matches!(a, F16 | Bf16 | Xf32) && c == F32,
                "truncated family: {a:?}×{b:?}+{c:?}"
            );
            assert!(
                group > 0 && k % group == 0,
                "K {k} is not groups of {group}"
            );
        }
        Family::SplitTruncated { group } => {
            assert!(
                matches!(a, Fp8 | Bf8) && matches!(b, Fp8 | Bf8) && c == F32,
                "split-truncated family: {a:?}×{b:?}+{c:?}"
            );
            assert!(
                group > 0 && k % group == 0,
                "K {k} is not groups of {group}"
            );
        }
        Family::Wrapping => assert!(
            (a, b, c) == (I8, I8, I32),
            "wrapping family: {a:?}×{b:?}+{c:?}"
        ),
    }
    if c != F64 {
        assert_eq!(block.neg, [false; 3], "only f64 negates (reference 3.3)");
    }
}

/// One element of D from row `a` of A, column `b` of B (k ascending) and `c`.
fn element(family: Family, block: &Block, a: &[u64], b: &[u64], c: u64) -> u64 {
    let formats = (block.a_fmt, block.b_fmt);
    match family {
        Family::Fma => fma_chain(block.c_fmt, block.neg, a, b, c),
        Family::Truncated { group } => {
            let mut acc = c as u32;
            for (a, b) in a.chunks(group).zip(b.chunks(group)) {
                acc = truncated_step(formats, a, b, acc);
            }
            u64::from(acc)
        }
        Family::SplitTruncated { group } => {
            let mut acc = c as u32;
            for (a, b) in a.chunks(group).zip(b.chunks(group)) {
                acc = split_truncated_step(formats, a, b, acc);
            }
            u64::from(acc)
        }
        Family::Wrapping => wrapping_dot(a, b, c),
    }
}

/// Reference 4.1: `acc = fma(a_k, b_k, acc)` over k ascending from C, after
/// the negations of 3.3 (a sign-bit flip: +0 becomes −0, NaN stays NaN).
fn fma_chain(fmt: Format, neg: [bool; 3], a: &[u64], b: &[u64], c: u64) -> u64 {
    let sign = 1u64 << (fmt.bits() - 1);
    let flip = |bits: u64, negate: bool| if negate { bits ^ sign } else { bits };
    let operands = a
        .iter()
        .zip(b)
        .map(|(&a, &b)| (flip(a, neg[0]), flip(b, neg[1])));
    let c = flip(c, neg[2]);
    match fmt {
        Format::F32 => {
            let f = |bits: u64| f32::from_bits(bits as u32);
            let acc = operands.fold(f(c), |acc, (a, b)| f(a).mul_add(f(b), acc));
            u64::from(acc.to_bits())
        }
        Format::F64 => {
            let acc = operands.fold(f64::from_bits(c), |acc, (a, b)| {
                f64::from_bits(a).mul_add(f64::from_bits(b), acc)
            });
            acc.to_bits()
        }
        _ => unreachable!("checked: fma is f32 or f64"),
    }
}

/// Reference 4.4: exact products summed with C, then wrapped to i32 (the
/// exact sum of at most 64 products of i8 and an i32 fits an i64).
fn wrapping_dot(a: &[u64], b: &[u64], c: u64) -> u64 {
    let i8_of = |bits: u64| i64::from(bits as u8 as i8);
    let exact: i64 = i64::from(c as u32 as i32)
        + a.iter()
            .zip(b)
            .map(|(&a, &b)| i8_of(a) * i8_of(b))
            .sum::<i64>();
    u64::from(exact as i32 as u32)
}

/// Reference 4.2 step 1 (and 4.3 step 1): the exact product `s_a·s_b ·
/// 2^(e_a+e_b)`; a finite product of magnitude at least 2^128 is ±∞, ∞·0 is
/// NaN.
fn product(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Nan, _) | (_, Value::Nan) => Value::Nan,
        (Value::Inf { .. }, Value::Finite(x)) | (Value::Finite(x), Value::Inf { .. })
            if x.is_zero() =>
        {
            Value::Nan
        }
        (Value::Inf { negative: x }, Value::Inf { negative: y }) => Value::Inf { negative: x != y },
        (Value::Inf { negative: x }, Value::Finite(y))
        | (Value::Finite(y), Value::Inf { negative: x }) => Value::Inf {
            negative: *x != y.negative,
        },
        (Value::Finite(x), Value::Finite(y)) => {
            let p = Float {
                negative: x.negative != y.negative,
                sig: x.sig * y.sig,
                e: x.e + y.e,
                frac: x.frac + y.frac,
            };
            if !p.is_zero() && log2_floor(&p.exact()) >= 128 {
                Value::Inf {
                    negative: p.negative,
                }
            } else {
                Value::Finite(p)
            }
        }
    }
}

/// The products of one step, k ascending.
fn products(formats: (Format, Format), a: &[u64], b: &[u64]) -> Vec<Value> {
    a.iter()
        .zip(b)
        .map(|(&a, &b)| product(&decode(formats.0, a), &decode(formats.1, b)))
        .collect()
}

/// Reference 4.2 step 2 (and 4.3 step 2 for each half): `e_dot = max e_k`
/// over the nonzero products, each product truncated toward zero to a
/// multiple of `2^(e_dot−24)`, the truncated products summed exactly.
/// `None` when every product is zero ("left out of everything").
fn truncated_sum<'p>(products: impl IntoIterator<Item = &'p Float>) -> Option<(i32, BigInt)> {
    let nonzero: Vec<&Float> = products.into_iter().filter(|p| !p.is_zero()).collect();
    let e_dot = nonzero.iter().map(|p| p.e).max()?;
    let sum = nonzero
        .iter()
        .map(|p| trunc_to(&p.exact(), e_dot - 24))
        .sum();
    Some((e_dot, sum))
}

/// Reference 4.2 steps 3 to 5 (4.3 step 4 with `drop_small_c`): the dot
/// product `S` at exponent `e_dot` (none if every product was zero) plus the
/// finite accumulator `c`, as f32 bits.
fn add_accumulator(dot: Option<(i32, BigInt)>, c: &Float, drop_small_c: bool) -> u32 {
    // 3. Decode c (f32; a zero or subnormal c has e_c = −126). E = max(e_dot, e_c).
    let e_c = c.e;
    let (e_dot, s) = dot.unwrap_or((e_c, BigInt::zero()));
    let big_e = e_dot.max(e_c);
    // 4.3 step 4: c is dropped entirely (taken as 0) when e_c < E − 25.
    let c = if drop_small_c && e_c < big_e - 25 {
        BigInt::zero()
    } else {
        c.exact()
    };
    // 4. S floored to a multiple of 2^(E−32), c to a multiple of 2^(E−24); T exact.
    let t = floor_to(&s, big_e - 32) + floor_to(&c, big_e - 24);
    round_to_f32(&t)
}

/// Reference 4.2 step 5 (and the zero rule of step 6): renormalise T
/// (`e_T = max(⌊log2|T|⌋, −126)`), floor it to a multiple of `2^(e_T−31)`,
/// then round to nearest even to f32, subnormals kept, overflow to ±∞. An
/// exact zero is +0; −0 only comes from a negative T that rounds to zero.
fn round_to_f32(t: &BigInt) -> u32 {
    if t.is_zero() {
        return 0;
    }
    let e_t = log2_floor(t).max(-126);
    let t = floor_to(t, e_t - 31);
    // f32 keeps 24 significant bits: a multiple of 2^(e_T−23) (2^-149 for
    // e_T = −126, the subnormal spacing).
    let ulp_exp = e_t - 23;
    let ulp = pow2(ulp_exp);
    let (q, r) = t.abs().div_rem(&ulp);
    let twice_r: BigInt = r << 1;
    let q = match twice_r.cmp(&ulp) {
        Ordering::Less => q,
        Ordering::Greater => q + 1,
        Ordering::Equal if q.is_odd() => q + 1,
        Ordering::Equal => q,
    };
    let q = q.to_u64().expect("at most 2^24 ulps");
    f32_bits(t.is_negative(), q, ulp_exp)
}

/// The bits of the f32 `±q · 2^e` (exact, q ≤ 2^24, e ≥ −149), or ±∞ if it
/// exceeds the largest finite f32.
fn f32_bits(negative: bool, mut q: u64, mut e: i32) -> u32 {
    let sign = u32::from(negative) << 31;
    if q == 0 {
        return sign;
    }
    while q >= 1 << 24 {
        assert!(q.is_multiple_of(2), "{q}·2^{e} is not an f32");
        q >>= 1;
        e += 1;
    }
    if q < 1 << 23 {
        assert_eq!(e, -149, "{q}·2^{e} is not an f32 subnormal");
        return sign | q as u32;
    }
    let biased = e + 23 + 127;
    if biased >= 255 {
        return sign | 0x7f80_0000;
    }
    sign | (biased as u32) << 23 | (q - (1 << 23)) as u32
}

/// Reference 4.2 step 6 for the specials: NaN if any product is NaN (a NaN
/// input, or ∞·0) or c is NaN, or ∞ of both signs meet among the products
/// and c; otherwise ±∞ if any product or c is ±∞; `None` if all are finite.
fn truncated_specials(products: &[Value], c: &Value) -> Option<u32> {
    let all = || products.iter().chain(std::iter::once(c));
    if all().any(|v| *v == Value::Nan) {
        return Some(F32_NAN);
    }
    let positive = all().any(|v| *v == Value::Inf { negative: false });
    let negative = all().any(|v| *v == Value::Inf { negative: true });
    match (positive, negative) {
        (true, true) => Some(F32_NAN),
        (true, false) => Some(f32_inf(false)),
        (false, true) => Some(f32_inf(true)),
        (false, false) => None,
    }
}

/// The f32 ∞ of a sign.
fn f32_inf(negative: bool) -> u32 {
    u32::from(negative) << 31 | 0x7f80_0000
}

/// The canonical f32 NaN (NaN results are compared by class only).
const F32_NAN: u32 = 0x7fc0_0000;

/// One step of reference 4.2 ("TR") with accumulator `c`: f32 bits.
fn truncated_step(formats: (Format, Format), a: &[u64], b: &[u64], c: u32) -> u32 {
    // 1. Exact products (±∞ beyond 2^128).
    let products = products(formats, a, b);
    let c = decode(Format::F32, u64::from(c));
    // 6. Specials.
    if let Some(special) = truncated_specials(&products, &c) {
        return special;
    }
    let finite = |v: &Value| match v {
        Value::Finite(x) => *x,
        _ => unreachable!("specials handled"),
    };
    let products: Vec<Float> = products.iter().map(finite).collect();
    // 2. Truncate at e_dot and sum exactly; 3–5. add c, renormalise, round.
    let dot = truncated_sum(&products);
    add_accumulator(dot, &finite(&c), false)
}

/// One step of reference 4.3 ("GTR") with accumulator `c`: f32 bits.
fn split_truncated_step(formats: (Format, Format), a: &[u64], b: &[u64], c: u32) -> u32 {
    // 5. Specials: NaN if any input is NaN; a NaN or ∞ c propagates.
    let input_nan =
        a.iter().any(|&x| formats.0.is_nan(x)) || b.iter().any(|&x| formats.1.is_nan(x));
    let c = match decode(Format::F32, u64::from(c)) {
        _ if input_nan => return F32_NAN,
        Value::Nan => return F32_NAN,
        Value::Inf { negative } => return f32_inf(negative),
        Value::Finite(c) => c,
    };
    // 1. Exact products (FNUZ has no ∞ and a product cannot overflow).
    let products: Vec<Float> = products(formats, a, b)
        .into_iter()
        .map(|p| match p {
            Value::Finite(p) => p,
            other => unreachable!("fp8 product {other:?} without a NaN input"),
        })
        .collect();
    // 2. Even and odd positions of the group summed separately, each
    //    truncated at its own maximum exponent.
    let even = truncated_sum(products.iter().step_by(2));
    let odd = truncated_sum(products.iter().skip(1).step_by(2));
    // 3. e_dot = max(e_even, e_odd); each sum floored to a multiple of
    //    2^(e_dot−24), then added (a half without nonzero products is 0).
    let halves: Vec<(i32, BigInt)> = [even, odd].into_iter().flatten().collect();
    let dot = halves.iter().map(|&(e, _)| e).max().map(|e_dot| {
        let sum = halves.iter().map(|(_, s)| floor_to(s, e_dot - 24)).sum();
        (e_dot, sum)
    });
    // 4. As 4.2 steps 3–5, c dropped when e_c < E − 25.
    add_accumulator(dot, &c, true)
}
