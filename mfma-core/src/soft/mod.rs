//! The software execution path: the hardware's arithmetic, bit for bit, on
//! the host (reference sections 3 and 4).
//!
//! Fragments arrive in matrix order (`[block][row][col]`), so a kernel sees
//! plain per-block matrices. Modifiers only route data (reference 4.4):
//! `blgp` is applied first by copying B lanes as the hardware reads them;
//! `cbsz`/`abid` cost nothing, a block simply reads another block's A.
//!
//! Every kernel loops `row of C += a_ik * row k of B`, so the innermost loop
//! runs over the independent outputs j of one row and vectorises, while each
//! output still sees its k in the order the hardware uses.

mod cpu;
mod float;
mod grouped;
mod int;

use crate::fragment::{Acc, FragA, FragB};
use crate::instr::Instr;
use mfma_spec::{source, Modifiers, Operand};

/// The arithmetic of one family, for inputs of type `Self` and accumulator `C`.
pub trait Kernel<C>: Sized {
    /// `c[blk] = a[src(blk)] · b[blk] + c[blk]` for every block `blk` of
    /// builtin `X`, where `src` is the cbsz/abid routing of `m` (its blgp is
    /// ignored: `b` must already be routed). All operands are in matrix
    /// order: `a` is `[blocks][M][K]`, `b` is `[blocks][K][N]`, `c` is
    /// `[blocks][M][N]`, with the extents of `X::SPEC`.
    fn run<X: Instr>(m: Modifiers, a: &[Self], b: &[Self], c: &mut [C]);

    /// `run` with all modifiers zero for `(a[t], b[t])`, t ascending, on
    /// the same `c`. Families override it to keep C in registers across
    /// the chain; the result must be the loop's, bit for bit.
    #[inline]
    fn chain<X: Instr>(a: &[&[Self]], b: &[&[Self]], c: &mut [C]) {
        for (a, b) in a.iter().zip(b) {
            Self::run::<X>(Modifiers::NONE, a, b, c);
        }
    }
}

/// Instructions handed to a kernel's `chain` at once: enough to amortise
/// the accumulator's loads and stores, small enough for the stack.
const CHAIN: usize = 16;

/// [`Kernel::chain`] over fragments, all modifiers zero.
pub(crate) fn run_chain<X: Instr>(a: &[FragA<X>], b: &[FragB<X>], c: &mut Acc<X>) {
    let mut a_regs: [&[X::In]; CHAIN] = [&[]; CHAIN];
    let mut b_regs: [&[X::In]; CHAIN] = [&[]; CHAIN];
    for (a, b) in a.chunks(CHAIN).zip(b.chunks(CHAIN)) {
        for (slot, f) in a_regs.iter_mut().zip(a) {
            *slot = f.regs().as_ref();
        }
        for (slot, f) in b_regs.iter_mut().zip(b) {
            *slot = f.regs().as_ref();
        }
        X::In::chain::<X>(
            &a_regs[..a.len()],
            &b_regs[..b.len()],
            c.regs_mut().as_mut(),
        );
    }
}

/// Applies blgp, then the family's kernel.
pub(crate) fn run<X: Instr>(m: Modifiers, a: &FragA<X>, b: &FragB<X>, c: &mut Acc<X>) {
    let b_routed;
    let b = if m.blgp != 0 {
        b_routed = route_b::<X>(m, b.regs());
        &b_routed
    } else {
        b.regs()
    };
    X::In::run::<X>(m, a.regs().as_ref(), b.as_ref(), c.regs_mut().as_mut());
}

/// B as the blgp lane pattern presents it: each element is read from the
/// slot that [`source`] names (reference 3.2).
fn route_b<X: Instr>(m: Modifiers, b: &X::InRegs) -> X::InRegs {
    let l = &X::SPEC.b;
    let mut out = *b;
    for (idx, v) in out.as_mut().iter_mut().enumerate() {
        let from = l.coord(source(X::SPEC, Operand::B, m, l.delinear(idx)));
        *v = b.as_ref()[l.linear(from)];
    }
    out
}

/// The per-block matrices a kernel works on: `(A of src(blk), B of blk, C of
/// blk)` for each block `blk` in order, with cbsz/abid applied by slicing.
#[inline(always)]
fn blocks<'s, X: Instr, T, C>(
    m: Modifiers,
    a: &'s [T],
    b: &'s [T],
    c: &'s mut [C],
) -> impl Iterator<Item = (&'s [T], &'s [T], &'s mut [C])> {
    let s = X::SPEC;
    let a_len = s.m * s.k;
    b.chunks_exact(s.k * s.n)
        .zip(c.chunks_exact_mut(s.m * s.n))
        .enumerate()
        .map(move |(blk, (b, c))| (&a[m.a_source_block(blk) * a_len..][..a_len], b, c))
}

#[cfg(test)]
mod tests {
    use crate::{execute, Acc, Element, FragA, FragB, Instr, Visit};
    use mfma_spec::ElemType;

    /// A small xorshift: enough to spread bit patterns, no dependency.
    struct Bits(u64);
    impl Bits {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// Random bits half the time, otherwise a small integer: both the
        /// special values and ordinary sums get exercised.
        fn elem<T: Element>(&mut self) -> T {
            let r = self.next();
            if r & 1 == 0 {
                T::from_bits_u64(r >> 1)
            } else {
                let small = (r >> 8) % 7;
                match T::TYPE {
                    ElemType::F32 => T::from_bits_u64(u64::from((small as f32 - 3.0).to_bits())),
                    ElemType::F64 => T::from_bits_u64((small as f64 - 3.0).to_bits()),
                    ElemType::F16 => T::from_bits_u64(u64::from(
                        half::f16::from_f32(small as f32 - 3.0).to_bits(),
                    )),
                    ElemType::Bf16 => T::from_bits_u64(u64::from(
                        half::bf16::from_f32(small as f32 - 3.0).to_bits(),
                    )),
                    ElemType::I8 | ElemType::I32 => T::from_bits_u64(small),
                }
            }
        }
    }

    fn is_nan(ty: ElemType, bits: u64) -> bool {
        match ty {
            ElemType::F32 => f32::from_bits(bits as u32).is_nan(),
            ElemType::F64 => f64::from_bits(bits).is_nan(),
            _ => false,
        }
    }

    /// Two accumulators have the same bits (NaN by class).
    fn assert_same_bits<X: Instr>(got: &Acc<X>, want: &Acc<X>, what: &str) {
        for (g, w) in got.as_row_major().iter().zip(want.as_row_major()) {
            let (g, w) = (g.to_bits_u64(), w.to_bits_u64());
            let ty = X::SPEC.cd;
            assert!(
                g == w || (is_nan(ty, g) && is_nan(ty, w)),
                "{} {what}: {g:x} vs {w:x}",
                X::SPEC.name
            );
        }
    }

    /// Runs builtin `X` on random inputs with both compiled copies of its
    /// kernel; the two results must have the same bits (NaN by class).
    struct BothCopiesAgree;
    impl Visit for BothCopiesAgree {
        type Output = ();
        fn visit<X: Instr>(self) {
            let mut rng = Bits(0x9e37_79b9_7f4a_7c15 ^ X::SPEC.name.len() as u64);
            for _ in 0..50 {
                let a = FragA::<X>::from_fn(|_, _, _| rng.elem());
                let b = FragB::<X>::from_fn(|_, _, _| rng.elem());
                let c = Acc::<X>::from_fn(|_, _, _| rng.elem());
                let fast = execute::<X, 0, 0, 0>(a, b, c);
                super::cpu::FORCE_PORTABLE.set(true);
                #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
                assert!(!super::cpu::has_avx2_fma());
                let portable = execute::<X, 0, 0, 0>(a, b, c);
                super::cpu::FORCE_PORTABLE.set(false);
                assert_same_bits(&fast, &portable, "portable");
            }
        }
    }

    /// Where the elements of a test come from.
    #[derive(Clone, Copy)]
    enum Source {
        /// [`Bits::elem`]: specials, subnormals, small integers.
        Mixed,
        /// Random values with a binary exponent in the range.
        Scaled(i32, i32),
    }

    impl Bits {
        fn from<T: Element>(&mut self, src: Source) -> T {
            match src {
                Source::Mixed => self.elem(),
                Source::Scaled(lo, hi) => {
                    let r = self.next();
                    let e = lo + ((r >> 8) % (hi - lo + 1) as u64) as i32;
                    let mantissa = 1.0 + ((r >> 20) & 0xff_ffff) as f64 / (1u64 << 24) as f64;
                    let sign = if r & 16 == 0 { 1.0 } else { -1.0 };
                    // One in eight a zero, of either sign.
                    let magnitude = if r.is_multiple_of(8) {
                        0.0
                    } else {
                        mantissa * 2f64.powi(e)
                    };
                    let x = sign * magnitude;
                    match T::TYPE {
                        ElemType::F32 => T::from_bits_u64(u64::from((x as f32).to_bits())),
                        ElemType::F64 => T::from_bits_u64(x.to_bits()),
                        ElemType::F16 => {
                            T::from_bits_u64(u64::from(half::f16::from_f64(x).to_bits()))
                        }
                        ElemType::Bf16 => {
                            T::from_bits_u64(u64::from(half::bf16::from_f64(x).to_bits()))
                        }
                        ElemType::I8 | ElemType::I32 => T::from_bits_u64(r >> 32),
                    }
                }
            }
        }
    }

    /// Runs random chains of builtin `X` through `execute_chain_into` and
    /// through the instruction-by-instruction loop it stands for: same bits.
    struct ChainIsTheLoop {
        inputs: Source,
        acc: Source,
    }
    impl Visit for ChainIsTheLoop {
        type Output = ();
        fn visit<X: Instr>(self) {
            let mut rng = Bits(0x2545_f491_4f6c_dd1d ^ X::SPEC.name.len() as u64);
            for len in [1, 2, 3, 8, 17, 33] {
                let a: std::vec::Vec<FragA<X>> = (0..len)
                    .map(|_| FragA::<X>::from_fn(|_, _, _| rng.from(self.inputs)))
                    .collect();
                let b: std::vec::Vec<FragB<X>> = (0..len)
                    .map(|_| FragB::<X>::from_fn(|_, _, _| rng.from(self.inputs)))
                    .collect();
                let c = Acc::<X>::from_fn(|_, _, _| rng.from(self.acc));
                let mut chained = c;
                crate::execute_chain_into::<X, 0, 0, 0>(&a, &b, &mut chained);
                let mut looped = c;
                for (a, b) in a.iter().zip(&b) {
                    crate::execute_into::<X, 0, 0, 0>(a, b, &mut looped);
                }
                assert_same_bits(&chained, &looped, &std::format!("chain of {len}"));
            }
        }
    }

    /// Chains agree with the loop on specials, on ordinary values, and
    /// around the limits of the grouped families' fast path: products near
    /// 2^-103 with accumulators near the smallest normal, and products near
    /// overflow.
    #[test]
    fn a_chain_is_the_loop_of_its_instructions() {
        use Source::*;
        let cases = [
            (Mixed, Mixed),
            (Scaled(-20, 20), Scaled(-20, 20)),
            (Scaled(-20, 20), Mixed),
            (Scaled(-56, -48), Scaled(-130, -98)),
            (Scaled(-14, -10), Scaled(-130, -120)),
            (Scaled(58, 66), Scaled(120, 127)),
        ];
        for x in mfma_spec::cdna2::BUILTINS {
            for (inputs, acc) in cases {
                crate::cdna2::visit(x.name, ChainIsTheLoop { inputs, acc }).unwrap();
            }
        }
    }

    #[test]
    fn portable_and_avx2_fma_copies_agree() {
        for x in mfma_spec::cdna2::BUILTINS {
            crate::cdna2::visit(x.name, BothCopiesAgree).unwrap();
        }
    }
}
