//! i8 builtins: exact products summed into i32 with wrap-around (reference 4.3).

use super::cpu::multiversion;
use super::grouped::MAX_BLOCK;
use super::{blocks, Kernel};
use crate::instr::Instr;
use mfma_spec::Modifiers;

/// Wrap-around addition is associative, so any order gives the hardware's
/// bits; the k-outer order keeps the j loop vectorisable like the others.
#[inline(always)]
fn wrapping_body<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) {
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (a, b, c) in blocks::<X, i8, i32>(m, a, b, c) {
        for (a_row, c_row) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
            for (&aik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
                let aik = i32::from(aik);
                for (acc, &bkj) in c_row.iter_mut().zip(b_row) {
                    // |a*b| <= 2^14: the product itself never overflows.
                    *acc = acc.wrapping_add(aik * i32::from(bkj));
                }
            }
        }
    }
}

multiversion! {
    fn wrapping<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) => wrapping_body
}

/// `R` rows of C (`c`) through the chain, `V` registers of `W` lanes per
/// row; A's rows start at `a_off` of each A, `b` is each B block widened.
/// Wrapping addition is associative, so keeping rows in registers across
/// the chain changes nothing in the bits.
#[inline(always)]
fn wrapping_rows<const K: usize, const W: usize, const V: usize, const R: usize>(
    a: &[&[i8]],
    b: &[[i16; MAX_BLOCK]],
    c: &mut [i32],
    a_off: usize,
) {
    let n = V * W;
    let mut acc: [[[i32; W]; V]; R] = core::array::from_fn(|r| {
        core::array::from_fn(|v| core::array::from_fn(|l| c[r * n + v * W + l]))
    });
    for (a, b) in a.iter().zip(b) {
        let a = &a[a_off..][..R * K];
        for kk in 0..K {
            for (r, acc) in acc.iter_mut().enumerate() {
                // |a·b| <= 2^14: the i16 operands' product fits an i32 lane.
                let x = i32::from(a[r * K + kk]);
                for (v, acc) in acc.iter_mut().enumerate() {
                    let y: &[i16; W] = b[kk * n + v * W..][..W].try_into().expect("W lanes");
                    for l in 0..W {
                        acc[l] = acc[l].wrapping_add(x * i32::from(y[l]));
                    }
                }
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        for (v, acc) in acc.iter().enumerate() {
            c[r * n + v * W..][..W].copy_from_slice(acc);
        }
    }
}

/// One block of a chain, `R` rows of C at a time.
#[inline(always)]
fn wrapping_block<X: Instr, const K: usize, const W: usize, const V: usize, const R: usize>(
    a: &[&[i8]],
    b: &[[i16; MAX_BLOCK]],
    c: &mut [i32],
    blk: usize,
) {
    let (m, n) = (X::SPEC.m, V * W);
    let a_blk = blk * m * K;
    let mut rows = c.chunks_exact_mut(R * n);
    for (i, c) in rows.by_ref().enumerate() {
        wrapping_rows::<K, W, V, R>(a, b, c, a_blk + i * R * K);
    }
    let done = m / R * R;
    for (i, c) in rows.into_remainder().chunks_exact_mut(n).enumerate() {
        wrapping_rows::<K, W, V, 1>(a, b, c, a_blk + (done + i) * K);
    }
}

/// One block of one instruction on a widened B.
#[inline(always)]
fn wrapping_block_once<X: Instr>(a: &[i8], b: &[i16], c: &mut [i32]) {
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for (a_row, c_row) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
        for (&aik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            for (acc, &bkj) in c_row.iter_mut().zip(b_row) {
                *acc = acc.wrapping_add(i32::from(aik) * i32::from(bkj));
            }
        }
    }
}

/// Instructions whose B is widened at once by a chain.
const WIDE_CHAIN: usize = 16;

/// A chain (modifiers zero): B widened to i16 once per block and
/// instruction, rows of C kept in registers over the chain.
#[inline(always)]
fn wrapping_chain_body<X: Instr>(a: &[&[i8]], b: &[&[i8]], c: &mut [i32]) {
    let s = X::SPEC;
    let b_len = s.k * s.n;
    let mut wb = [[0i16; MAX_BLOCK]; WIDE_CHAIN];
    for (a, b) in a.chunks(WIDE_CHAIN).zip(b.chunks(WIDE_CHAIN)) {
        for (blk, c) in c.chunks_exact_mut(s.m * s.n).enumerate() {
            for (w, b) in wb.iter_mut().zip(b) {
                for (w, &x) in w.iter_mut().zip(&b[blk * b_len..][..b_len]) {
                    *w = i16::from(x);
                }
            }
            let wb = &wb[..b.len()];
            match (s.n, s.k) {
                (32, 4) => wrapping_block::<X, 4, 8, 4, 2>(a, wb, c, blk),
                (32, 8) => wrapping_block::<X, 8, 8, 4, 2>(a, wb, c, blk),
                (16, 4) => wrapping_block::<X, 4, 8, 2, 4>(a, wb, c, blk),
                (16, 16) => wrapping_block::<X, 16, 8, 2, 4>(a, wb, c, blk),
                (4, 4) => wrapping_block::<X, 4, 4, 1, 4>(a, wb, c, blk),
                _ => {
                    // No register blocking for this shape: the block's
                    // instructions one at a time.
                    let a_len = s.m * s.k;
                    for (a, b) in a.iter().zip(wb) {
                        wrapping_block_once::<X>(&a[blk * a_len..][..a_len], &b[..b_len], c);
                    }
                }
            }
        }
    }
}

multiversion! {
    fn wrapping_chain<X: Instr>(a: &[&[i8]], b: &[&[i8]], c: &mut [i32]) => wrapping_chain_body
}

impl Kernel<i32> for i8 {
    fn run<X: Instr>(m: Modifiers, a: &[i8], b: &[i8], c: &mut [i32]) {
        wrapping::<X>(m, a, b, c)
    }

    fn chain<X: Instr>(a: &[&[i8]], b: &[&[i8]], c: &mut [i32]) {
        wrapping_chain::<X>(a, b, c)
    }
}
