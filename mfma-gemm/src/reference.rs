//! A plain triple-loop GEMM with the MFMA arithmetic (reference section 4),
//! written apart from `mfma_core::soft` so that the two check each other
//! (host only).
//!
//! Flushes here test exponent bits, where the software path compares
//! magnitudes; element types are decoded from raw bits, so one generic
//! entry serves every builtin.

use half::{bf16, f16};
use mfma_core::spec::{Arith, ElemType};
use mfma_core::Element;
use std::vec::Vec;

/// `A·B` for A `m × k` and B `k × n` (dense row-major) with the arithmetic of
/// an instruction sequence that consumes `k_step` of K per instruction, from
/// a zero accumulator, K zero padded to a multiple of `k_step`:
///
/// * [`Arith::ChainedFma`] (f32, f64): `acc = fma(a, b, acc)`, k ascending.
/// * [`Arith::GroupedSum`] (f16, bf16): inputs flushed, products flushed
///   (an exact-zero product is +0), pairwise trees of `group` products,
///   `acc = ftz(acc + tree)`; the accumulator re-enters every instruction as
///   C, whose input flush turns -0 into +0, so that flush happens every
///   `k_step`.
/// * [`Arith::TruncatedDot`] and [`Arith::SplitTruncatedDot`] (CDNA3 f16,
///   bf16, xf32, fp8/bf8): steps of `group` k as reference CDNA3 4.2 and
///   4.3 state them, computed in f64, where every operation of a step is
///   exact (see [`fused`]), unlike the integer arithmetic of the software path.
/// * [`Arith::WrappingInt`] (i8): exact products summed in wrapping i32.
///
/// # Panics
/// If `arith` does not fit the element types, or `k_step` is not a multiple
/// of the group size.
///
/// ```
/// use mfma_core::spec::Arith;
/// let a = [half::f16::from_f32(1.5), half::f16::from_bits(0x0001)]; // 1 × 2, a subnormal
/// let b = [half::f16::from_f32(2.0), half::f16::from_f32(1e4)];     // 2 × 1
/// let c: Vec<f32> = mfma_gemm::reference::gemm(Arith::GroupedSum { group: 4 }, 4, 1, 1, 2, &a, &b);
/// assert_eq!(c, [3.0]); // the subnormal input is flushed before multiplying
/// ```
pub fn gemm<In: Element, Out: Element>(
    arith: Arith,
    k_step: usize,
    m: usize,
    n: usize,
    k: usize,
    a: &[In],
    b: &[In],
) -> Vec<Out> {
    assert_eq!(a.len(), m * k, "A must be {m}x{k}");
    assert_eq!(b.len(), k * n, "B must be {k}x{n}");
    let shape = Padded {
        m,
        n,
        k,
        kp: k.div_ceil(k_step) * k_step,
    };
    let (in_t, out_t) = (In::TYPE, Out::TYPE);
    let bits = match (arith, in_t, out_t) {
        (Arith::ChainedFma, ElemType::F64, ElemType::F64) => {
            let (a, b) = shape.decode(a, b, f64::from_bits);
            shape.each(&a, &b, |a, b| {
                let acc = a
                    .iter()
                    .zip(b)
                    .fold(0.0f64, |acc, (x, y)| x.mul_add(*y, acc));
                acc.to_bits()
            })
        }
        (Arith::ChainedFma, ElemType::F32, ElemType::F32) => {
            let (a, b) = shape.decode(a, b, |x| f32::from_bits(x as u32));
            shape.each(&a, &b, |a, b| {
                let acc = a
                    .iter()
                    .zip(b)
                    .fold(0.0f32, |acc, (x, y)| x.mul_add(*y, acc));
                u64::from(acc.to_bits())
            })
        }
        (Arith::GroupedSum { group }, ElemType::F16 | ElemType::Bf16, ElemType::F32) => {
            assert_eq!(k_step % group, 0, "k_step must hold whole groups");
            let (a, b) = shape.decode(a, b, |x| input(in_t, x));
            shape.each(&a, &b, |a, b| {
                u64::from(grouped(group, k_step, a, b).to_bits())
            })
        }
        (Arith::TruncatedDot { group }, _, ElemType::F32)
        | (Arith::SplitTruncatedDot { group }, _, ElemType::F32) => {
            assert_eq!(k_step % group, 0, "k_step must hold whole groups");
            let split = matches!(arith, Arith::SplitTruncatedDot { .. });
            let (a, b) = shape.decode(a, b, |x| fused::decode(in_t, x));
            shape.each(&a, &b, |a, b| {
                let mut acc = 0.0f32;
                for (ga, gb) in a.chunks(group).zip(b.chunks(group)) {
                    acc = fused::step(split, ga, gb, acc);
                }
                u64::from(acc.to_bits())
            })
        }
        (Arith::WrappingInt, ElemType::I8, ElemType::I32) => {
            let (a, b) = shape.decode(a, b, |x| i32::from(x as u8 as i8));
            shape.each(&a, &b, |a, b| {
                let acc = a
                    .iter()
                    .zip(b)
                    .fold(0i32, |acc, (x, y)| acc.wrapping_add(x * y));
                u64::from(acc as u32)
            })
        }
        _ => panic!("no {arith:?} arithmetic from {in_t:?} to {out_t:?}"),
    };
    bits.into_iter().map(Out::from_bits_u64).collect()
}

/// The problem's shape, with K padded to `kp`.
struct Padded {
    m: usize,
    n: usize,
    k: usize,
    kp: usize,
}

impl Padded {
    /// Rows of A and columns of B, decoded from bits and zero padded to `kp`.
    fn decode<In: Element, V: Copy + Default>(
        &self,
        a: &[In],
        b: &[In],
        f: impl Fn(u64) -> V,
    ) -> (Vec<V>, Vec<V>) {
        let (n, k, kp) = (self.n, self.k, self.kp);
        let mut ra = std::vec![V::default(); self.m * kp];
        let mut cb = std::vec![V::default(); n * kp];
        for i in 0..self.m {
            for kk in 0..k {
                ra[i * kp + kk] = f(a[i * k + kk].to_bits_u64());
            }
        }
        for j in 0..n {
            for kk in 0..k {
                cb[j * kp + kk] = f(b[kk * n + j].to_bits_u64());
            }
        }
        (ra, cb)
    }

    /// `f(row of A, column of B)` for every output, row-major.
    ///
    /// Without the `fma` target feature every `mul_add` is a call into
    /// libm; so, when the CPU has AVX2+FMA, the loop (with `f` inlined) runs
    /// from a copy compiled for them. Same operations, same bits.
    fn each<V>(&self, a: &[V], b: &[V], f: impl Fn(&[V], &[V]) -> u64) -> Vec<u64> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2_fma<V>(
                p: &Padded,
                a: &[V],
                b: &[V],
                f: impl Fn(&[V], &[V]) -> u64,
            ) -> Vec<u64> {
                p.each_portable(a, b, f)
            }
            // SAFETY: the CPU has the features `avx2_fma` is compiled for.
            return unsafe { avx2_fma(self, a, b, f) };
        }
        self.each_portable(a, b, f)
    }

    #[inline(always)]
    fn each_portable<V>(&self, a: &[V], b: &[V], f: impl Fn(&[V], &[V]) -> u64) -> Vec<u64> {
        let kp = self.kp;
        let mut out = Vec::with_capacity(self.m * self.n);
        for i in 0..self.m {
            for j in 0..self.n {
                out.push(f(&a[i * kp..][..kp], &b[j * kp..][..kp]));
            }
        }
        out
    }
}

const F32_EXP: u32 = 0x7f80_0000;
const F32_SIGN: u32 = 0x8000_0000;

/// An input of type `t` as f32, +0 if its exponent field is zero (zero or subnormal).
fn input(t: ElemType, bits: u64) -> f32 {
    let bits = bits as u16;
    match t {
        ElemType::F16 if bits & 0x7c00 == 0 => 0.0,
        ElemType::F16 => f16::from_bits(bits).to_f32(),
        ElemType::Bf16 if bits & 0x7f80 == 0 => 0.0,
        ElemType::Bf16 => bf16::from_bits(bits).to_f32(),
        _ => unreachable!("grouped sums take f16 or bf16"),
    }
}

/// Subnormal results become zero, keeping the sign.
fn ftz(x: f32) -> f32 {
    let bits = x.to_bits();
    if bits & F32_EXP == 0 {
        f32::from_bits(bits & F32_SIGN)
    } else {
        x
    }
}

/// The accumulator as it re-enters an instruction: zero or subnormal becomes +0.
fn flush_c(x: f32) -> f32 {
    if x.to_bits() & F32_EXP == 0 {
        0.0
    } else {
        x
    }
}

fn product(a: f32, b: f32) -> f32 {
    let p = a * b;
    if (a == 0.0 || b == 0.0) && !p.is_nan() {
        0.0
    } else {
        ftz(p)
    }
}

/// One output of a grouped-sum instruction sequence over flushed inputs.
fn grouped(group: usize, k_step: usize, a: &[f32], b: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    for (g, (ga, gb)) in a.chunks(group).zip(b.chunks(group)).enumerate() {
        if (g * group).is_multiple_of(k_step) {
            acc = flush_c(acc);
        }
        let p = |x: usize| product(ga[x], gb[x]);
        let tree = match group {
            2 => ftz(p(0) + p(1)),
            4 => ftz(ftz(p(0) + p(1)) + ftz(p(2) + p(3))),
            _ => panic!("no pairwise tree of {group}"),
        };
        acc = ftz(acc + tree);
    }
    acc
}

/// CDNA3's fused steps (reference CDNA3 4.2, 4.3) in f64. Inputs have at
/// most 11 significant bits, so products are exact in f64; truncated
/// products are multiples of `2^(e_dot − 24)` below `2^(e_dot + 2)`, so a
/// sum of 16 fits 30 bits; the floored sum and accumulator fit 40: every
/// step below is an exact f64 operation, and `as f32` is the one rounding.
pub mod fused {
    use half::{bf16, f16};
    use mfma_core::spec::ElemType;
    use mfma_core::{Bf8, Fp8, Xf32};

    /// An input: its exact value, and its exponent `max(⌊log2|x|⌋, e_sub)`
    /// (`e_sub` the input type's smallest normal exponent; meaningless for
    /// zero, infinity and NaN).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Input {
        value: f64,
        e: i32,
    }

    /// Decodes bits of input type `t`.
    pub fn decode(t: ElemType, bits: u64) -> Input {
        let value = match t {
            ElemType::F16 => f64::from(f16::from_bits(bits as u16).to_f32()),
            ElemType::Bf16 => f64::from(bf16::from_bits(bits as u16).to_f32()),
            ElemType::Xf32 => f64::from(Xf32::from_bits(bits as u32).to_tf32()),
            ElemType::Fp8 => f64::from(Fp8::from_bits(bits as u8).to_f32()),
            ElemType::Bf8 => f64::from(Bf8::from_bits(bits as u8).to_f32()),
            _ => unreachable!("no fused family takes {t:?}"),
        };
        Input {
            value,
            e: exponent(value).max(t.min_exp()),
        }
    }

    /// `⌊log2|x|⌋` of a finite nonzero f64 (every value here is normal in f64).
    fn exponent(x: f64) -> i32 {
        ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
    }

    fn pow2(e: i32) -> f64 {
        f64::from_bits(((e + 1023) as u64) << 52)
    }

    /// `x` rounded toward −∞ / toward 0 to a multiple of `2^e`.
    fn floor_to(x: f64, e: i32) -> f64 {
        (x * pow2(-e)).floor() * pow2(e)
    }
    fn trunc_to(x: f64, e: i32) -> f64 {
        (x * pow2(-e)).trunc() * pow2(e)
    }

    /// One step on the group's inputs `a[k]`, `b[k]` and accumulator `c`.
    pub fn step(split: bool, a: &[Input], b: &[Input], c: f32) -> f32 {
        // Groups have at most 16 k.
        let mut buf = [(0.0f64, 0i32, 0usize); 16];
        let mut len = 0;
        let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            let p = x.value * y.value;
            if x.value.is_nan() || y.value.is_nan() || p.is_nan() {
                nan = true; // a NaN input, or ∞·0
            } else if p.is_infinite() || p.abs() >= pow2(128) {
                // An infinite input, or a product of 2^128 or more.
                if p > 0.0 {
                    pos_inf = true;
                } else {
                    neg_inf = true;
                }
            } else if p != 0.0 {
                buf[len] = (p, x.e + y.e, k);
                len += 1;
            }
        }
        let products = &buf[..len];
        let c64 = f64::from(c);
        if split {
            if nan {
                return f32::NAN;
            }
            if !c.is_finite() {
                return c;
            }
        } else {
            pos_inf |= c == f32::INFINITY;
            neg_inf |= c == f32::NEG_INFINITY;
            if nan || c.is_nan() || (pos_inf && neg_inf) {
                return f32::NAN;
            }
            if pos_inf || neg_inf {
                return if pos_inf {
                    f32::INFINITY
                } else {
                    f32::NEG_INFINITY
                };
            }
        }
        // Step 2 (4.3: per parity, then floored to the larger e_dot and added).
        let sum = |keep: &dyn Fn(usize) -> bool| {
            let e_dot = products.iter().filter(|p| keep(p.2)).map(|p| p.1).max()?;
            let s: f64 = products
                .iter()
                .filter(|p| keep(p.2))
                .map(|p| trunc_to(p.0, e_dot - 24))
                .sum();
            Some((s, e_dot))
        };
        let total = if split {
            match (sum(&|k| k % 2 == 0), sum(&|k| k % 2 == 1)) {
                (Some((se, ee)), Some((so, eo))) => {
                    let e = ee.max(eo);
                    Some((floor_to(se, e - 24) + floor_to(so, e - 24), e))
                }
                (x, None) | (None, x) => x,
            }
        } else {
            sum(&|_| true)
        };
        // Steps 3–5.
        let e_c = if c64 == 0.0 {
            -126
        } else {
            exponent(c64).max(-126)
        };
        let big_e = total.map_or(e_c, |(_, e)| e.max(e_c));
        let c64 = if split && e_c < big_e - 25 { 0.0 } else { c64 };
        let s = total.map_or(0.0, |(s, _)| floor_to(s, big_e - 32));
        let t = s + floor_to(c64, big_e - 24);
        if t == 0.0 {
            return 0.0;
        }
        let e_t = exponent(t).max(-126);
        floor_to(t, e_t - 31) as f32
    }
}
