//! f16, bf16 and bf16_1k builtins: grouped pairwise f32 sums with
//! flush-to-zero (reference 4.2).

use super::cpu::multiversion;
use super::{blocks, Kernel};
use crate::instr::Instr;
use half::{bf16, f16};
use mfma_spec::{Arith, Modifiers};

/// `flush_in(x, 2^-126)`: below the smallest normal f32, and -0, become +0
/// (NaN and Inf unchanged).
#[inline(always)]
fn flush_in(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE {
        0.0
    } else {
        x
    }
}

/// `ftz(x)`: finite results below the smallest normal f32 become zero of
/// the same sign.
#[inline(always)]
fn ftz(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `prod(a, b)`: the f32 product, flushed; with a zero factor it is +0
/// whatever the signs, but `Inf * 0` stays NaN (`|NaN|` is still NaN).
#[inline(always)]
fn prod(a: f32, b: f32) -> f32 {
    let p = ftz(a * b);
    if a == 0.0 || b == 0.0 {
        p.abs()
    } else {
        p
    }
}

/// An input type of this family, widened exactly to f32 with
/// `flush_in(x, MIN of the type)` applied on the way.
trait GroupedInput: Copy {
    fn to_f32_flushed(self) -> f32;
}

impl GroupedInput for f16 {
    /// Exponent 0 (zeros and subnormals) gives +0, so only normal numbers
    /// and Inf/NaN need widening: rebias the exponent, keep the mantissa.
    /// Written on bits, branch-free, so the conversion loop vectorises.
    #[inline(always)]
    fn to_f32_flushed(self) -> f32 {
        let h = u32::from(self.to_bits());
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let mantissa = (h & 0x3ff) << 13;
        let bits = match exp {
            0 => 0,
            0x1f => sign | 0x7f80_0000 | mantissa,
            _ => sign | ((exp + (127 - 15)) << 23) | mantissa,
        };
        f32::from_bits(bits)
    }
}

impl GroupedInput for bf16 {
    /// bf16 is the top half of an f32 with the same exponent range.
    #[inline(always)]
    fn to_f32_flushed(self) -> f32 {
        flush_in(f32::from_bits(u32::from(self.to_bits()) << 16))
    }
}

/// The largest A or B block of any builtin: room for one block widened to f32.
const MAX_BLOCK: usize = {
    let mut max = 0;
    let mut a = 0;
    while a < mfma_spec::ARCHS.len() {
        let table = mfma_spec::ARCHS[a].builtins;
        let mut i = 0;
        while i < table.len() {
            let (m, n, k) = (table[i].m, table[i].n, table[i].k);
            let larger = if m > n { m * k } else { k * n };
            if larger > max {
                max = larger;
            }
            i += 1;
        }
        a += 1;
    }
    max
};

/// Widens one block to f32 (flushing inputs) into `buf`.
#[inline(always)]
fn widen<'b, T: GroupedInput>(x: &[T], buf: &'b mut [f32; MAX_BLOCK]) -> &'b [f32] {
    let out = &mut buf[..x.len()];
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v.to_f32_flushed();
    }
    out
}

/// Products per tree, from the spec: 2 or 4.
const fn group(arith: Arith) -> usize {
    match arith {
        Arith::GroupedSum { group } => group,
        _ => 0,
    }
}

#[inline(always)]
fn grouped_body<X: Instr, T: GroupedInput>(m: Modifiers, a: &[T], b: &[T], c: &mut [f32]) {
    let g = const {
        let g = group(X::SPEC.arith);
        assert!(
            g == 2 || g == 4,
            "grouped kernel needs trees of 2 or 4 products"
        );
        g
    };
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    let (mut a_buf, mut b_buf) = ([0.0; MAX_BLOCK], [0.0; MAX_BLOCK]);
    for (a, b, c) in blocks::<X, T, f32>(m, a, b, c) {
        let a = widen(a, &mut a_buf);
        let b = widen(b, &mut b_buf);
        for (a_row, c_row) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
            for acc in c_row.iter_mut() {
                *acc = flush_in(*acc);
            }
            // One tree of g consecutive k at a time, added to every output of the row.
            for (ag, bg) in a_row.chunks_exact(g).zip(b.chunks_exact(g * n)) {
                let (b0, rest) = bg.split_at(n);
                let (b1, rest) = rest.split_at(n);
                if g == 2 {
                    for ((acc, &x0), &x1) in c_row.iter_mut().zip(b0).zip(b1) {
                        let tree = ftz(prod(ag[0], x0) + prod(ag[1], x1));
                        *acc = ftz(*acc + tree);
                    }
                } else {
                    let (b2, b3) = rest.split_at(n);
                    let lanes = c_row.iter_mut().zip(b0).zip(b1).zip(b2).zip(b3);
                    for ((((acc, &x0), &x1), &x2), &x3) in lanes {
                        let left = ftz(prod(ag[0], x0) + prod(ag[1], x1));
                        let right = ftz(prod(ag[2], x2) + prod(ag[3], x3));
                        *acc = ftz(*acc + ftz(left + right));
                    }
                }
            }
        }
    }
}

multiversion! {
    fn grouped<X: Instr, T: GroupedInput>(m: Modifiers, a: &[T], b: &[T], c: &mut [f32]) => grouped_body
}

impl Kernel<f32> for f16 {
    fn run<X: Instr>(m: Modifiers, a: &[f16], b: &[f16], c: &mut [f32]) {
        grouped::<X, f16>(m, a, b, c)
    }
}

impl Kernel<f32> for bf16 {
    fn run<X: Instr>(m: Modifiers, a: &[bf16], b: &[bf16], c: &mut [f32]) {
        grouped::<X, bf16>(m, a, b, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `half`'s exact conversion followed by the reference's input flush.
    fn widen_then_flush(x: f32, min: f32) -> f32 {
        if x.abs() < min {
            0.0
        } else {
            x
        }
    }

    fn assert_same(what: &str, bits: u16, got: f32, want: f32) {
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{what} {bits:#06x}: {got:e} != {want:e}"
        );
    }

    /// The bit-level widening agrees with `half`'s conversion and the input
    /// flush, for every f16 and bf16.
    #[test]
    fn widening_is_exact_with_input_flush() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            let want = widen_then_flush(h.to_f32(), f16::MIN_POSITIVE.to_f32());
            assert_same("f16", bits, h.to_f32_flushed(), want);
            let b = bf16::from_bits(bits);
            let want = widen_then_flush(b.to_f32(), f32::MIN_POSITIVE);
            assert_same("bf16", bits, b.to_f32_flushed(), want);
        }
    }

    #[test]
    fn max_block_holds_every_input_block() {
        for x in mfma_spec::cdna2::BUILTINS {
            assert!(
                x.m * x.k <= MAX_BLOCK && x.k * x.n <= MAX_BLOCK,
                "{}",
                x.name
            );
        }
        assert!(mfma_spec::cdna2::BUILTINS
            .iter()
            .any(|x| x.m * x.k == MAX_BLOCK || x.k * x.n == MAX_BLOCK));
    }
}
