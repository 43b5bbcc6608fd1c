//! CDNA3's fused families (reference CDNA3 section 4): f16, bf16 and xf32
//! compute a "truncated fused dot product" ([`Truncated`], 4.2), fp8/bf8 a
//! "grouped truncated" one with even and odd k summed apart
//! ([`SplitTruncated`], 4.3).
//!
//! Nothing here is IEEE arithmetic: products are exact, truncated at the
//! group's largest exponent, summed exactly, added to an accumulator floored
//! to a fixed grid, floored again and rounded once. So every step is done in
//! integers: a value is a signed integer count of units `2^u`. Every input
//! (f16, bf16, tf32, fp8, bf8) widens exactly to f32, and decodes from there
//! into a significand of at most 24 bits and an exponent no lower than its
//! own type's subnormal exponent, which is what the truncation is relative to.

use super::{blocks, Kernel, Win, MAX_FRAGMENT};
use crate::element::Element;
use crate::formats::{Bf8, Fp8, Xf32};
use crate::instr::Instr;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use half::{bf16, f16};
use mfma_spec::{Arith, Modifiers};

/// An input decoded as reference 4 does: `sign · m · 2^(e − 23)` with
/// `m < 2^24` and `e` at least the input type's subnormal exponent (so a
/// subnormal input has `m < 2^23`); zero has `m = 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dec {
    m: u32,
    e: i16,
    /// Bit 0: negative; bit 1: infinite; bit 2: NaN.
    flags: u8,
}

const NEG: u8 = 1;
const INF: u8 = 2;
const NAN: u8 = 4;

impl Dec {
    /// Decodes `v`, a value of a type whose smallest normal is `2^e_sub`
    /// (exact in f32), as reference 4's notation says.
    #[inline(always)]
    const fn new(v: f32, e_sub: i32) -> Dec {
        let bits = v.to_bits();
        let sign = (bits >> 31) as u8;
        let exp = ((bits >> 23) & 0xff) as i32;
        let frac = bits & 0x7f_ffff;
        if exp == 0xff {
            let flags = if frac != 0 { NAN } else { INF | sign };
            return Dec { m: 0, e: 0, flags };
        }
        let (mut m, mut e) = if exp == 0 {
            (frac, -126)
        } else {
            (frac | 1 << 23, exp - 127)
        };
        if m == 0 {
            return Dec {
                m: 0,
                e: 0,
                flags: sign,
            };
        }
        // Exact: below its own smallest normal an input type has fewer
        // significant bits than the shift removes.
        if e < e_sub {
            m >>= e_sub - e;
            e = e_sub;
        }
        Dec {
            m,
            e: e as i16,
            flags: sign,
        }
    }
}

/// An input type of the fused families.
pub trait FusedInput: Element {
    /// The exact value as f32 (xf32: after truncation to tf32).
    fn value(self) -> f32;

    /// This input packed for the chains (see [`Packed`]), significand
    /// shifted by `shift` (3 on side A, 1 on side B).
    #[inline(always)]
    fn packed(self, shift: u32) -> Packed {
        pack_value(self.value(), Self::TYPE.min_exp(), shift)
    }

    /// [`packed`](FusedInput::packed) as the kernel copy of level `L`
    /// (`cpu::PORTABLE`, `AVX2`, `AVX512`) computes it fastest: the same
    /// word, from a table where that beats arithmetic.
    #[inline(always)]
    fn packed_at<const L: u8>(self, shift: u32) -> Packed {
        self.packed(shift)
    }

    /// Decoded at this type's subnormal exponent.
    #[inline(always)]
    fn decode(self) -> Dec {
        Dec::new(self.value(), Self::TYPE.min_exp())
    }
}

impl FusedInput for f16 {
    /// On the bit pattern, without branches (half's conversion asks the
    /// CPU for F16C at every call): the f16's exponent and significand
    /// fields placed as an f32's and scaled by 2^112, which is exact for
    /// normals and subnormals alike; infinities and NaNs set apart.
    #[inline(always)]
    fn value(self) -> f32 {
        let h = u32::from(self.to_bits());
        let (sign, mag) = ((h & 0x8000) << 16, h & 0x7fff);
        let scaled = f32::from_bits(mag << 13) * f32::from_bits(0x7780_0000);
        let v = if mag >= 0x7c00 {
            f32::from_bits(0x7f80_0000 | (mag & 0x3ff) << 13)
        } else {
            scaled
        };
        f32::from_bits(v.to_bits() | sign)
    }
}

impl FusedInput for bf16 {
    #[inline(always)]
    fn value(self) -> f32 {
        f32::from_bits(u32::from(self.to_bits()) << 16)
    }
}

impl FusedInput for Xf32 {
    /// The instruction reads tf32: the low 13 mantissa bits cleared first
    /// (so a NaN whose payload lies only there is an infinity).
    #[inline(always)]
    fn value(self) -> f32 {
        self.to_tf32()
    }
}

/// The 8-bit input types: their values and packed words from tables of
/// all 256 bit patterns, built at compile time.
macro_rules! eight_bit_input {
    ($($t:ident),*) => {$(
        impl FusedInput for $t {
            /// From a table of all 256 values (the decoding branches).
            #[inline(always)]
            fn value(self) -> f32 {
                static VALUES: [f32; 256] = {
                    let mut t = [0.0; 256];
                    let mut i = 0;
                    while i < 256 {
                        t[i] = $t::from_bits(i as u8).to_f32();
                        i += 1;
                    }
                    t
                };
                VALUES[usize::from(self.to_bits())]
            }

            /// On the byte, without branches or a table: the exponent
            /// field `ef`, the significand `m` as 11 bits (the hidden bit
            /// where `ef > 0`), the exponent `max(ef, 1) − bias`; zero and
            /// the one NaN (0x80) set apart. `packing_is_decoding` checks
            /// every byte.
            #[inline(always)]
            fn packed(self, shift: u32) -> Packed {
                const M: u32 = $t::TYPE.fraction_bits() as u32;
                // 1 − bias.
                const E_SUB: i32 = $t::TYPE.min_exp();
                let b = u32::from(self.to_bits());
                let mag = b & 0x7f;
                let ef = mag >> M;
                let hidden = u32::from(ef != 0) << M;
                let m = (mag & ((1 << M) - 1) | hidden) << (10 - M);
                let e = ef.max(1) as i32 + E_SUB - 1;
                let finite = (b & 0x80) << 24 | ((e + E_BIAS) as u32) << 16 | m << shift;
                // Zero is 0, the one NaN (0x80) NAN_BIT (0x80 << 8).
                if mag == 0 {
                    b << 8
                } else {
                    finite
                }
            }

            /// The AVX-512 copy computes the word ([`packed`]); the others
            /// read it from a table of all 256 per shift. Vectorised, the
            /// table is a gather: with AVX-512 on a Zen 5 the arithmetic
            /// made an fp8 chain from fragments 24–35 % faster, with AVX2
            /// 5–9 % slower (its gathers are quick), and the portable copy
            /// reads one word where it would compute a dozen operations.
            ///
            /// [`packed`]: FusedInput::packed
            #[inline(always)]
            fn packed_at<const L: u8>(self, shift: u32) -> Packed {
                static PACKED: [[Packed; 256]; 2] = {
                    let (mut t, mut i) = ([[0; 256]; 2], 0);
                    while i < 256 {
                        let v = $t::from_bits(i as u8).to_f32();
                        t[0][i] = pack_value(v, $t::TYPE.min_exp(), 1);
                        t[1][i] = pack_value(v, $t::TYPE.min_exp(), 3);
                        i += 1;
                    }
                    t
                };
                if L >= super::cpu::AVX512 {
                    self.packed(shift)
                } else {
                    PACKED[usize::from(shift == 3)][usize::from(self.to_bits())]
                }
            }
        }
    )*};
}

eight_bit_input!(Fp8, Bf8);

/// `x · 2^s` for an integer count, floored (toward −∞) when `s < 0`.
#[inline(always)]
fn scale_floor(x: i64, s: i32) -> i64 {
    if s >= 0 {
        x << s
    } else if s > -63 {
        x >> -s
    } else if x < 0 {
        -1
    } else {
        0
    }
}

/// The products of one step, exact, zero ones left out.
#[derive(Clone, Copy)]
struct Products {
    /// `m_a · m_b`, the magnitude of a product in units `2^(e − 46)`.
    p: [u64; 16],
    /// `e_a + e_b`.
    e: [i32; 16],
    neg: [bool; 16],
    /// Position of the k in its group (its parity splits fp8/bf8 sums).
    k: [u8; 16],
    len: usize,
    /// Specials met: NaN, +∞, −∞.
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
}

impl Products {
    /// Step 1 of 4.2 (and 4.3): exact products, with the specials of step 6.
    #[inline(always)]
    fn of(pairs: impl Iterator<Item = (Dec, Dec)>) -> Products {
        let mut out = Products {
            p: [0; 16],
            e: [0; 16],
            neg: [false; 16],
            k: [0; 16],
            len: 0,
            nan: false,
            pos_inf: false,
            neg_inf: false,
        };
        for (k, (x, y)) in pairs.enumerate() {
            let neg = (x.flags ^ y.flags) & NEG != 0;
            if (x.flags | y.flags) & NAN != 0 {
                out.nan = true;
                continue;
            }
            if (x.flags | y.flags) & INF != 0 {
                let zero = (x.flags & INF == 0 && x.m == 0) || (y.flags & INF == 0 && y.m == 0);
                if zero {
                    out.nan = true; // ∞ · 0
                } else {
                    out.infinite(neg);
                }
                continue;
            }
            if x.m == 0 || y.m == 0 {
                continue;
            }
            let (p, e) = (
                u64::from(x.m) * u64::from(y.m),
                i32::from(x.e) + i32::from(y.e),
            );
            // |p| = p · 2^(e − 46) >= 2^128 is infinite (bf16 and xf32 can get there).
            let limit = 174 - e;
            if limit <= 0 || (limit < 64 && p >= 1u64 << limit) {
                out.infinite(neg);
                continue;
            }
            let n = out.len;
            (out.p[n], out.e[n], out.neg[n], out.k[n]) = (p, e, neg, k as u8);
            out.len += 1;
        }
        out
    }

    fn infinite(&mut self, neg: bool) {
        if neg {
            self.neg_inf = true;
        } else {
            self.pos_inf = true;
        }
    }

    /// Step 2: the largest exponent among the products passing `keep`, and
    /// their sum with each truncated (toward zero) to a multiple of
    /// `2^(e_dot − 24)`, in those units.
    #[inline(always)]
    fn truncated_sum(&self, keep: impl Fn(u8) -> bool) -> Option<(i64, i32)> {
        let mut e_dot = None;
        for n in 0..self.len {
            if keep(self.k[n]) {
                e_dot = Some(e_dot.map_or(self.e[n], |d: i32| d.max(self.e[n])));
            }
        }
        let e_dot = e_dot?;
        let mut sum = 0i64;
        for n in 0..self.len {
            if keep(self.k[n]) {
                // In units 2^(e_dot − 24): p · 2^(e − 46 − e_dot + 24).
                let shift = e_dot - self.e[n] + 22;
                let t = if shift < 64 {
                    (self.p[n] >> shift) as i64
                } else {
                    0
                };
                sum += if self.neg[n] { -t } else { t };
            }
        }
        Some((sum, e_dot))
    }
}

/// `c` decoded as f32: a signed count of units `2^(e_c − 23)`, and `e_c`
/// (−126 for zero and subnormals).
#[inline(always)]
fn decode_acc(c: f32) -> (i64, i32) {
    let bits = c.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = i64::from(bits & 0x7f_ffff);
    let (m, e) = if exp == 0 {
        (frac, -126)
    } else {
        (frac | 1 << 23, exp - 127)
    };
    (if bits >> 31 != 0 { -m } else { m }, e)
}

/// Steps 3–5 of 4.2 for a sum `S` (units `2^(e_dot − 24)`, `None` when
/// every product was zero) and the accumulator `c`; `drop_tiny_c` is 4.3's
/// rule that a `c` with `e_c < E − 25` counts as 0.
#[inline(always)]
pub(super) fn combine(sum: Option<(i64, i32)>, c: f32, drop_tiny_c: bool) -> f32 {
    let (mc, e_c) = decode_acc(c);
    let big_e = sum.map_or(e_c, |(_, e_dot)| e_dot.max(e_c));
    let mc = if drop_tiny_c && e_c < big_e - 25 {
        0
    } else {
        mc
    };
    // Step 4, in units 2^(E − 32): S floored to them, c floored to 2^(E − 24).
    let s = sum.map_or(0, |(s, e_dot)| scale_floor(s, e_dot - big_e + 8));
    let c = scale_floor(mc, e_c - big_e + 1) << 8;
    round(s + c, big_e - 32)
}

/// Step 5: `t · 2^unit` renormalised, floored to a multiple of
/// `2^(e_T − 31)`, then rounded to nearest even to f32 (subnormals kept,
/// overflow to ±∞); an exact zero is +0.
#[inline(always)]
fn round(t: i64, unit: i32) -> f32 {
    if t == 0 {
        return 0.0;
    }
    let log2 = 63 - t.unsigned_abs().leading_zeros() as i32;
    let e_t = (unit + log2).max(-126);
    // In units 2^(e_T − 31): |v| ≤ 2^32.
    let v = scale_floor(t, unit - (e_t - 31));
    let neg = v < 0;
    let mag = v.unsigned_abs();
    // Round to nearest even, 8 bits off: units 2^(e_T − 23).
    let (q, rest) = (mag >> 8, mag & 0xff);
    let r = q + u64::from(rest > 0x80 || (rest == 0x80 && q & 1 == 1));
    let (r, e_t) = if r == 1 << 24 {
        (1 << 23, e_t + 1)
    } else {
        (r, e_t)
    };
    let sign = if neg { 1u32 << 31 } else { 0 };
    let bits = if r < 1 << 23 {
        // Only at e_T = −126: a subnormal, or zero (−0 from a negative
        // result too small for f32).
        r as u32
    } else if e_t + 127 >= 0xff {
        0x7f80_0000
    } else {
        (((e_t + 127) as u32) << 23) | (r as u32 & 0x7f_ffff)
    };
    f32::from_bits(sign | bits)
}

/// One step of 4.2 (`SPLIT` false) or 4.3 (true): the group's products and
/// the accumulator `c` give the next accumulator.
#[inline(always)]
fn step<const SPLIT: bool>(pairs: impl Iterator<Item = (Dec, Dec)>, c: f32) -> f32 {
    let p = Products::of(pairs);
    if SPLIT {
        // 4.3 step 5: NaN if any input is NaN; a NaN or ∞ c propagates.
        if p.nan {
            return f32::NAN;
        }
        if !c.is_finite() {
            return c;
        }
        let even = p.truncated_sum(|k| k % 2 == 0);
        let odd = p.truncated_sum(|k| k % 2 == 1);
        let sum = match (even, odd) {
            (None, None) => None,
            (Some(x), None) | (None, Some(x)) => Some(x),
            (Some((se, ee)), Some((so, eo))) => {
                // Step 3: both floored to multiples of 2^(e_dot − 24), then added.
                let e_dot = ee.max(eo);
                Some((
                    scale_floor(se, ee - e_dot) + scale_floor(so, eo - e_dot),
                    e_dot,
                ))
            }
        };
        combine(sum, c, true)
    } else {
        // 4.2 step 6.
        let pos_inf = p.pos_inf || c == f32::INFINITY;
        let neg_inf = p.neg_inf || c == f32::NEG_INFINITY;
        if p.nan || c.is_nan() || (pos_inf && neg_inf) {
            return f32::NAN;
        }
        if pos_inf {
            return f32::INFINITY;
        }
        if neg_inf {
            return f32::NEG_INFINITY;
        }
        combine(p.truncated_sum(|_| true), c, false)
    }
}

/// The k of one step, from the spec.
const fn group_of<X: Instr>() -> usize {
    let g = match X::SPEC.arith {
        Arith::TruncatedDot { group } | Arith::SplitTruncatedDot { group } => group,
        _ => 0,
    };
    assert!(
        g > 0 && g <= 16 && X::SPEC.k % g == 0,
        "a fused family steps through whole groups of at most 16 k"
    );
    g
}

// ---------------------------------------------------------------------------
// Packed inputs: what panels and chains hold.

/// An input packed in 32 bits for the chain kernels: bits 0..=13 the
/// significand field (A: `m << 3`, B: `m << 1`, with `m < 2^11` and value
/// `m · 2^(e − 10)`, the one scale every fused input type fits), bit 14
/// infinite, bit 15 NaN, bits 16..=26 `e + 512`, bit 31 the sign. Zero has
/// `m = 0` and exponent field 0, below every real exponent (≥ 363).
///
/// (The two shifts are what [`unpack`] undoes; the fast chain decodes
/// values instead, see [`fast_decode`].)
pub type Packed = u32;

pub(super) const M_FIELD: u32 = 0x3fff;
const INF_BIT: u32 = 1 << 14;
const NAN_BIT: u32 = 1 << 15;
const SIGN_BIT: u32 = 1 << 31;
pub(super) const E_BIAS: i32 = 512;

/// [`FusedInput::packed`] of a value `v` of a type whose subnormal
/// exponent is `e_sub`: [`Dec::new`]'s decoding written without early
/// returns, so that packing a panel vectorises (`packing_is_decoding`
/// checks it against `Dec::new`).
#[inline(always)]
const fn pack_value(v: f32, e_sub: i32, shift: u32) -> Packed {
    let bits = v.to_bits();
    let sign = bits & SIGN_BIT;
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = bits & 0x7f_ffff;
    let (m, e) = if exp == 0 {
        (frac, -126)
    } else {
        (frac | 1 << 23, exp - 127)
    };
    let zero = m == 0;
    // Exact: below its own smallest normal an input type has fewer
    // significant bits than the shift removes, and every fused input type
    // has at most 11 significant bits at its own exponent (subnormals
    // included), so the low 13 bits of the f32-scale significand are zero.
    // (`clamp` and `max` spelt out: they are not `const`.)
    let below = e_sub - e;
    let below = if below < 0 { 0 } else { below };
    let below = if below > 31 { 31 } else { below };
    let (m, e) = (m >> below, if e > e_sub { e } else { e_sub });
    let finite = sign | (((e + E_BIAS) as u32) << 16) | ((m >> 13) << shift);
    let special = if frac != 0 { NAN_BIT } else { sign | INF_BIT };
    let word = if zero { sign } else { finite };
    if exp == 0xff {
        special
    } else {
        word
    }
}

/// The decoded input of a packed one (`shift` as it was packed).
#[inline(always)]
fn unpack(w: Packed, shift: u32) -> Dec {
    let flags = if w & NAN_BIT != 0 {
        NAN
    } else {
        u8::from(w & SIGN_BIT != 0) | if w & INF_BIT != 0 { INF } else { 0 }
    };
    let m = ((w & M_FIELD) >> shift) << 13;
    let e = if m == 0 {
        0
    } else {
        ((w >> 16) & 0x7ff) as i32 - E_BIAS
    };
    Dec {
        m,
        e: e as i16,
        flags,
    }
}

/// Exponents of the inputs the fast chain takes: products stay below 2^126
/// (no overflow to handle) and at or above 2^-102 (so that pass 2's scale
/// `2^(24 − e_dot)` is a normal f32).
const FAST_EXP: core::ops::RangeInclusive<i32> = -51..=62;

/// Whether a packed input suits the fast chain: finite, and zero or of a
/// moderate exponent (see [`FAST_EXP`]).
#[inline(always)]
fn fast_input(w: Packed) -> bool {
    let e = ((w >> 16) & 0x7ff) as i32 - E_BIAS;
    // `&` and `|`, not `&&` and `||`: no branches in the packing loops.
    (w & (INF_BIT | NAN_BIT) == 0)
        & ((w & M_FIELD == 0) | (e >= *FAST_EXP.start()) & (e <= *FAST_EXP.end()))
}

// ---------------------------------------------------------------------------
// The exact statement, output by output.

/// Block `blk` of steps `0..steps` on packed inputs, output by output,
/// exactly as reference 4.2/4.3 state it.
#[inline(always)]
fn exact<X: Instr, const SPLIT: bool>(
    a: Win<'_, Packed>,
    b: Win<'_, Packed>,
    steps: usize,
    blk: usize,
    c: &mut [f32],
) {
    let g = const { group_of::<X>() };
    let (n, k) = (X::SPEC.n, X::SPEC.k);
    for t in 0..steps {
        for (i, c_row) in c.chunks_exact_mut(n).enumerate() {
            let a_row = a.row(t, blk, i, k);
            for (j, acc) in c_row.iter_mut().enumerate() {
                for q in (0..k).step_by(g) {
                    *acc = exact_step::<SPLIT>(a_row, b, (t, blk, q, g, j), *acc);
                }
            }
        }
    }
}

/// One step of output column `j` on group `q..q + g` of step `t`.
#[inline(always)]
fn exact_step<const SPLIT: bool>(
    a_row: &[Packed],
    b: Win<'_, Packed>,
    (t, blk, q, g, j): (usize, usize, usize, usize, usize),
    acc: f32,
) -> f32 {
    let pairs = (q..q + g).map(|kk| (unpack(a_row[kk], 3), unpack(b.row(t, blk, kk, j + 1)[j], 1)));
    step::<SPLIT>(pairs, acc)
}

/// One instruction, operands routed: pack each block, then [`exact`].
fn run_blocks<X: Instr, A: FusedInput, B: FusedInput, const SPLIT: bool>(
    m: Modifiers,
    a: &[A],
    b: &[B],
    c: &mut [f32],
) {
    let s = X::SPEC;
    let (mut pa, mut pb) = ([0 as Packed; MAX_FRAGMENT], [0 as Packed; MAX_FRAGMENT]);
    for (a, b, c) in blocks::<X, A, B, f32>(m, a, b, c) {
        for (p, &x) in pa.iter_mut().zip(a) {
            *p = x.packed(3);
        }
        for (p, &x) in pb.iter_mut().zip(b) {
            *p = x.packed(1);
        }
        let a = Win::new(&pa[..a.len()], [0, 0, s.k], [1, 1, s.m, s.k]);
        let b = Win::new(&pb[..b.len()], [0, 0, s.n], [1, 1, s.k, s.n]);
        exact::<X, SPLIT>(a, b, 1, 0, c);
    }
}

// ---------------------------------------------------------------------------
// The fast chain: the same steps, W outputs at a time, in f32, integer and
// f64 lanes (what the vector units do), for inputs that passed `fast_input`.

/// The most elements of one block's A (`M × K`) or B (`K × N`) tile.
pub(super) const TILE: usize = 512;

/// An input in the fast chain's form: its exact value as f32 and its
/// exponent `e` (reference 4's, so a subnormal of its own type has the
/// type's `e_sub`). A zero has exponent −512 (its packed field is 0), far
/// enough below every fast input's product (≥ 2^-102) that a zero product
/// never sets the group's largest exponent.
#[inline(always)]
fn fast_decode(w: Packed, shift: u32) -> (f32, i32) {
    let m = (w & M_FIELD) >> shift;
    let e = ((w >> 16) & 0x7ff) as i32 - E_BIAS;
    // Exact: m < 2^11, and 2^(e − 10) is a normal f32 for every fast input.
    let unit = f32::from_bits((((e - 10 + 127).clamp(1, 254)) as u32) << 23);
    let v = f32::from_bits((m as f32 * unit).to_bits() | (w & SIGN_BIT));
    (v, e)
}

/// One step's A (`M × K`, row by row) or B (`K × N`, in vectors of `W`
/// columns, k by k) decoded by [`fast_decode`]: decoded once per step, read
/// by every output.
pub(super) struct Tile {
    pub(super) v: [f32; TILE],
    pub(super) e: [i32; TILE],
    /// `e` as 16-bit integers (B's, for the AVX-512 copy's pass 1 on rows
    /// of 32 outputs).
    pub(super) e16: [i16; TILE],
    /// `e` as bytes (see [`X8_BIAS`]) for the AVX2 and AVX-512 copies' pass
    /// 1 on four rows of 32 or 16 outputs at once (`fused_avx512::fast_quad`,
    /// `fused_avx2::fast_quad`): A's four rows `4r..4r + 4` of column `kk`
    /// in the bytes of `x8[r · k + kk]`, B's in every byte of `x8[kk · N +
    /// j]` (`fused_avx512::tile_bytes`, `fused_avx2::tile_bytes`).
    #[cfg(target_arch = "x86_64")]
    pub(super) x8: [u32; TILE],
}

/// The exponents a byte of pass 1 holds (see [`X8_BIAS`]).
#[cfg(target_arch = "x86_64")]
pub(super) const X8_EXP: core::ops::RangeInclusive<i32> = -31..=31;

/// Pass 1's byte of an input (`Tile::x8`) is `e + X8_BIAS` (63..=125) for
/// an exponent in [`X8_EXP`], 0 for a zero (`e` −512). Two bytes' sum (no
/// carry: at most 250) is then `e_a + e_b + 2 · X8_BIAS >= 126` for a
/// nonzero product and at most 125 where an input is zero, so the largest
/// sum of a group is its `e_dot + 2 · X8_BIAS` unless every product is
/// zero. (The bias puts the smallest sum of two nonzero inputs' bytes
/// above the largest with a zero one, and the largest below 256.)
#[cfg(target_arch = "x86_64")]
pub(super) const X8_BIAS: i32 = 94;

#[cfg(target_arch = "x86_64")]
const _: () = {
    assert!(2 * (X8_BIAS - *X8_EXP.end()) > X8_BIAS + *X8_EXP.end());
    assert!(2 * (X8_BIAS + *X8_EXP.end()) < 256);
    assert!(*X8_EXP.start() == -*X8_EXP.end());
    // `fast_quad`'s `e_dot` lies within ±2 · 31: its scale's biased
    // exponent `151 − e_dot` is a byte below the cap at 254, and the i32
    // step's needs (`e_dot` at least −102, and at most 120 for
    // `narrow_quad_lanes`' bound to stay below the infinities) hold.
    assert!(151 + 2 * *X8_EXP.end() < 254 && 2 * *X8_EXP.end() <= 102);
};

impl Tile {
    const fn new() -> Self {
        Tile {
            v: [0.0; TILE],
            e: [0; TILE],
            e16: [0; TILE],
            #[cfg(target_arch = "x86_64")]
            x8: [0; TILE],
        }
    }

    /// The `W` values and exponents from `at`.
    #[inline(always)]
    fn get<const W: usize>(&self, at: usize) -> (&[f32; W], &[i32; W]) {
        let v = self.v[at..at + W].try_into().expect("W values");
        let e = self.e[at..at + W].try_into().expect("W exponents");
        (v, e)
    }
}

/// Block `blk` of a chain on the fast path, `W` columns at a time: per
/// step and group, the largest product exponent (pass 1), the products
/// scaled to units of `2^(e_dot − 24)` and truncated by the conversion to
/// integers (pass 2: `(a · b) · 2^(24 − e_dot)` is exact in f32 and below
/// 2^26 in magnitude), summed exactly, then the accumulator step
/// ([`fast_combine`]); lanes it cannot take are redone by [`exact_step`].
///
/// Where no product of a group can be truncated (fp8/bf8 inputs: see
/// `fused_dot::DOT_FRACTION_BITS`), a row of outputs is first offered to
/// the integer dot product (`fused_dot`); A's and B's tiles are then
/// decoded for passes 1 and 2 only once a row of the step needs them.
#[inline(always)]
fn fast_block<X: Instr, const SPLIT: bool, const N: usize, const W: usize, const L: u8>(
    a: Win<'_, Packed>,
    b: Win<'_, Packed>,
    steps: usize,
    blk: usize,
    c: &mut [f32],
) {
    let g = const { group_of::<X>() };
    let (m, k) = (X::SPEC.m, X::SPEC.k);
    // Rows of 32 outputs, two AVX-512 vectors, read B's exponents in 16
    // bits (see `row_group`).
    let row32 = cfg!(target_arch = "x86_64") && L >= super::cpu::AVX512 && W == 16 && N == 32;
    // Four rows at a time where pass 1's bytes hold every exponent of the
    // step's tiles (`fused_avx512::fast_quad`, `fused_avx2::fast_quad`).
    #[cfg(target_arch = "x86_64")]
    let quads = !SPLIT
        && matches!(N, 16 | 32)
        && X::SPEC.m.is_multiple_of(4)
        && matches!(X::SPEC.k, 4 | 8 | 16)
        && (L >= super::cpu::AVX512 && W == 16 || L == super::cpu::AVX2 && W == 8);
    // The integer dot product (`fused_dot`) for inputs of few fraction
    // bits, in rows of 16 or 32 outputs.
    #[cfg(target_arch = "x86_64")]
    let dot_types = const {
        X::SPEC.a_type.fraction_bits() <= super::fused_dot::DOT_FRACTION_BITS
            && X::SPEC.b_type.fraction_bits() <= super::fused_dot::DOT_FRACTION_BITS
    };
    #[cfg(target_arch = "x86_64")]
    let dot512 = L >= super::cpu::AVX512 && W == 16 && N.is_multiple_of(16) && dot_types;
    #[cfg(target_arch = "x86_64")]
    let dot2 = L == super::cpu::AVX2
        && W == 8
        && N.is_multiple_of(16)
        && g == super::fused_dot_avx2::G
        && dot_types;
    const {
        assert!(X::SPEC.m * X::SPEC.k <= TILE && X::SPEC.k * X::SPEC.n <= TILE);
        assert!(N.is_multiple_of(W) && W <= 32 && N / W <= 4);
    }
    let scratch = SCRATCH.with(UnsafeCell::get);
    // SAFETY: this thread's scratch tiles, which nothing else borrows:
    // `fast_block` calls nothing that reaches them again.
    #[cfg(target_arch = "x86_64")]
    let Scratch { ta, tb, dot } = unsafe { &mut *scratch };
    #[cfg(not(target_arch = "x86_64"))]
    let Scratch { ta, tb } = unsafe { &mut *scratch };
    #[cfg(target_arch = "x86_64")]
    let frac = (
        X::SPEC.a_type.fraction_bits(),
        X::SPEC.b_type.fraction_bits(),
    );
    for t in 0..steps {
        // SAFETY (this and the `step` calls below): `dot512` only in the
        // copy compiled with AVX-512, `dot2` in the one with AVX2, each
        // run only on CPUs that have them.
        #[cfg(target_arch = "x86_64")]
        let dot_step = if dot512 {
            unsafe { dot.avx512_decode::<N>((a, b), (t, blk), (m, k, g), frac) }
        } else if dot2 {
            unsafe { dot.avx2_decode::<N>((a, b), (t, blk), (m, k), frac) }
        } else {
            false
        };
        let mut decoded = false;
        #[cfg(target_arch = "x86_64")]
        if quads && !dot_step {
            // (B's 16-bit exponents only where a row takes `fast_row`.)
            decode_tiles::<N>((a, b), (t, blk), (m, k), false, (ta, tb));
            decoded = true;
            // SAFETY (this and `fast_quad`): `quads` only in the copies
            // compiled with AVX-512 (W = 16) and AVX2 (W = 8), each run
            // only on CPUs that have it.
            let fits = unsafe {
                if W == 16 {
                    super::fused_avx512::tile_bytes(ta, tb, (m, k, N))
                } else {
                    super::fused_avx2::tile_bytes(ta, tb, (m, k, N))
                }
            };
            let mut e16 = false;
            if fits {
                let quads = c.as_chunks_mut::<N>().0.as_chunks_mut::<4>().0;
                for (r, rows) in quads.iter_mut().enumerate() {
                    for q in (0..k).step_by(g) {
                        let redo = unsafe {
                            if W == 16 {
                                super::fused_avx512::fast_quad((ta, tb), g, (r, q, k), rows)
                            } else {
                                super::fused_avx2::fast_quad((ta, tb), g, (r, q, k), rows)
                            }
                        };
                        let Some(redo) = redo else {
                            // An output of no nonzero product: the rows
                            // one at a time.
                            if row32 && !e16 {
                                fill_e16(tb, k * N);
                                e16 = true;
                            }
                            for (ri, c_row) in rows.iter_mut().enumerate() {
                                let at = (t, blk, 4 * r + ri, k);
                                row_group::<SPLIT, N, W, L>((ta, tb), (a, b), at, (q, g), c_row);
                            }
                            continue;
                        };
                        if redo == 0 {
                            continue;
                        }
                        for (ri, v) in (0..4).flat_map(|ri| (0..N / W).map(move |v| (ri, v))) {
                            let lanes = (redo >> (32 * ri + W * v)) as u32 & ((1 << W) - 1);
                            let c = &mut rows[ri][v * W..][..W];
                            let at = (t, blk, 4 * r + ri, k);
                            redo_exact::<SPLIT>(lanes, c, (a, b), at, (q, g, v * W));
                        }
                    }
                }
                continue;
            }
            if row32 {
                fill_e16(tb, k * N);
            }
        }
        for (i, c_row) in c.as_chunks_mut::<N>().0.iter_mut().enumerate() {
            for q in (0..k).step_by(g) {
                #[cfg(target_arch = "x86_64")]
                if dot_step {
                    let c_row: &mut [f32; N] = c_row;
                    let (redo, w) = if dot512 {
                        (
                            unsafe { dot.avx512_step::<N, SPLIT>((i, q / g), (k, g), c_row) },
                            16,
                        )
                    } else {
                        (
                            unsafe { dot.avx2_step::<N, SPLIT>((i, q / g), k, c_row) },
                            8,
                        )
                    };
                    if let Some(redo) = redo {
                        #[cfg(test)]
                        DOT_GROUPS.set(DOT_GROUPS.get() + 1);
                        for (v, &redo) in redo[..N / w].iter().enumerate() {
                            let c = &mut c_row[v * w..][..w];
                            redo_exact::<SPLIT>(redo, c, (a, b), (t, blk, i, k), (q, g, v * w));
                        }
                        continue;
                    }
                }
                if !decoded {
                    decode_tiles::<N>((a, b), (t, blk), (m, k), row32, (ta, tb));
                    decoded = true;
                }
                row_group::<SPLIT, N, W, L>((ta, tb), (a, b), (t, blk, i, k), (q, g), c_row);
            }
        }
    }
}

/// Passes 1 and 2 and the step of group `q..q + g` of row `i` (step `t`
/// of block `blk`, `k` a step) on the decoded tiles ([`fast_block`]'s row
/// by row path), its lanes left for the exact path redone there: `W`
/// outputs at a time, or, with AVX-512 on rows of 32 outputs, pass 1 on
/// both vectors at once in 16-bit lanes (half its operations) and the
/// rest of the group per vector (`fused_avx512::fast_pair`, fp8/bf8) or
/// both vectors side by side (`fused_avx512::fast_row`, the others), both
/// reading B's exponents in 16 bits (`Tile::e16`).
#[inline(always)]
fn row_group<const SPLIT: bool, const N: usize, const W: usize, const L: u8>(
    (ta, tb): (&Tile, &Tile),
    (a, b): (Win<'_, Packed>, Win<'_, Packed>),
    (t, blk, i, k): (usize, usize, usize, usize),
    (q, g): (usize, usize),
    c_row: &mut [f32; N],
) {
    #[cfg(target_arch = "x86_64")]
    if L >= super::cpu::AVX512 && W == 16 && N == 32 {
        let c32: &mut [f32; 32] = (&mut c_row[..]).try_into().expect("32 lanes");
        // SAFETY: only in the copy compiled with AVX-512, which runs on
        // CPUs that have it; `fast_block` has filled `tb.e16`.
        let redo = unsafe {
            if SPLIT {
                super::fused_avx512::fast_pair::<SPLIT>((ta, tb), g, (i * k + q, q * N), c32)
            } else {
                super::fused_avx512::fast_row((ta, tb), g, (i * k + q, q * N), c32)
            }
        };
        for (v, redo) in redo.into_iter().enumerate() {
            let c = &mut c32[v * 16..][..16];
            redo_exact::<SPLIT>(redo, c, (a, b), (t, blk, i, k), (q, g, v * 16));
        }
        return;
    }
    for (v, c) in c_row.as_chunks_mut::<W>().0.iter_mut().enumerate() {
        let at = (i * k + q, q * N + v * W, N);
        let (sum, e_dot) = fast_sums::<SPLIT, W, L>(ta, tb, g, at);
        let redo = fast_combine::<SPLIT, W, L>(&sum, &e_dot, c);
        redo_exact::<SPLIT>(redo, c, (a, b), (t, blk, i, k), (q, g, v * W));
    }
}

/// B's exponents of a step's tile (its first `len`) as 16-bit integers, for
/// `fused_avx512::pass1_row`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fill_e16(tb: &mut Tile, len: usize) {
    for (x, &e) in tb.e16[..len].iter_mut().zip(&tb.e[..len]) {
        // Exponents lie in −512..=127 (−512: zero).
        *x = e as i16;
    }
}

/// Block `blk` of a chain of 4×4 blocks (CDNA3's `f32_4x4x4f16` and
/// `f32_4x4x4bf16_1k`, a group a step) on the AVX2 or AVX-512 fast path
/// (`L`), its 16 outputs in the lanes `4i + j` of one AVX-512 vector or
/// two AVX2 ones (`fused_avx512::block4`, `fused_avx2::block4`), where
/// the kernels of rows of `W` outputs would run rows of 4, in portable
/// code: on Zen 5, one thread, 1.1 → 6.9–8.1 Gitem/s with AVX-512 and 1.0
/// → 3.7–4.5 with AVX2 (`cargo bench -p mfma-core -- chain`). Both tiles'
/// 16 inputs are decoded in one loop that vectorises.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_block4<X: Instr, const L: u8>(
    a: Win<'_, Packed>,
    b: Win<'_, Packed>,
    steps: usize,
    blk: usize,
    c: &mut [f32],
) {
    let (m, n, k) = (X::SPEC.m, X::SPEC.n, X::SPEC.k);
    // (Not a const assertion: `chain_body` names this function for every
    // shape, and picks it for these only.)
    assert!(m == 4 && n == 4 && k == 4 && const { group_of::<X>() } == k);
    let c: &mut [f32; 16] = c.try_into().expect("a 4x4 block");
    for t in 0..steps {
        let (mut wa, mut wb) = ([0; 16], [0; 16]);
        for r in 0..4 {
            wa[4 * r..][..4].copy_from_slice(a.row(t, blk, r, 4));
            wb[4 * r..][..4].copy_from_slice(b.row(t, blk, r, 4));
        }
        let (va, ea) = decode16(&wa, 3);
        let (vb, eb) = decode16(&wb, 1);
        // SAFETY: `L >= AVX512` only in the copy of the chain compiled
        // with AVX-512, `L == AVX2` in the one with AVX2, each run only on
        // CPUs that have it.
        let redo = unsafe {
            if L >= super::cpu::AVX512 {
                super::fused_avx512::block4((&va, &ea), (&vb, &eb), c)
            } else {
                let (c0, c1) = c.split_at_mut(8);
                let lo =
                    super::fused_avx2::block4(0, (&va, &ea), (&vb, &eb), c0.try_into().expect("8"));
                let hi =
                    super::fused_avx2::block4(1, (&va, &ea), (&vb, &eb), c1.try_into().expect("8"));
                lo | hi << 8
            }
        };
        for (i, c) in c.as_chunks_mut::<4>().0.iter_mut().enumerate() {
            redo_exact::<false>(redo >> (4 * i) & 0xf, c, (a, b), (t, blk, i, k), (0, k, 0));
        }
        #[cfg(test)]
        super::count_block4_steps(1);
    }
}

/// [`fast_decode`] of 16 inputs, in a loop that vectorises.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn decode16(w: &[Packed; 16], shift: u32) -> ([f32; 16], [i32; 16]) {
    let (mut v, mut e) = ([0.0; 16], [0; 16]);
    for l in 0..16 {
        (v[l], e[l]) = fast_decode(w[l], shift);
    }
    (v, e)
}

/// The tiles of `fast_block`, kept per thread. Built anew for every call
/// (one block of a chain, a few steps), the dot product's tile was copied
/// out of an `Option` by a `memmove` that took a third of fp8's AVX-512
/// chain time on Zen 4. Kept, they also carry A's decoded rows from one
/// call to the next (`fused_dot::DotRows`).
struct Scratch {
    ta: Tile,
    tb: Tile,
    #[cfg(target_arch = "x86_64")]
    dot: super::fused_dot::DotTile,
}

std::thread_local! {
    static SCRATCH: UnsafeCell<Scratch> = const {
        UnsafeCell::new(Scratch {
            ta: Tile::new(),
            tb: Tile::new(),
            #[cfg(target_arch = "x86_64")]
            dot: super::fused_dot::DotTile::new(),
        })
    };
}

#[cfg(all(test, target_arch = "x86_64"))]
std::thread_local! {
    /// Rows of a group that the integer dot product took on this thread:
    /// the tests check that their inputs reach it.
    pub(super) static DOT_GROUPS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
    /// Groups of four rows whose pass 1 the AVX2 or AVX-512 chain did in
    /// bytes (`fused_avx512::fast_quad`, `fused_avx2::fast_quad`) on this
    /// thread, and those of them left to the row-by-row pass 1 for an
    /// output with no nonzero product.
    pub(super) static QUAD_GROUPS: core::cell::Cell<[usize; 2]> = const { core::cell::Cell::new([0; 2]) };
    /// Vectors of 16 outputs of those whose step the x86 dot products took
    /// directly, without pass 1 (`fused_dot::direct`).
    pub(super) static DOT_DIRECT: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
    /// Steps whose decoded rows of A the x86 dot products took from the
    /// call before (`fused_dot::KEPT_STEPS`) on this thread.
    pub(super) static DOT_ROWS_KEPT: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
    /// Steps whose decoded columns of B the x86 dot products took from a
    /// call before (`fused_dot::DotTile::cols_of_step`) on this thread.
    pub(super) static DOT_COLS_KEPT: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Step `t` of block `blk`: A's `m × k` and B's `k × N` inputs decoded into
/// the tiles of passes 1 and 2 (`e16`: B's exponents in 16 bits too).
#[inline(always)]
fn decode_tiles<const N: usize>(
    (a, b): (Win<'_, Packed>, Win<'_, Packed>),
    (t, blk): (usize, usize),
    (m, k): (usize, usize),
    e16: bool,
    (ta, tb): (&mut Tile, &mut Tile),
) {
    for i in 0..m {
        for (kk, &w) in a.row(t, blk, i, k).iter().enumerate() {
            (ta.v[i * k + kk], ta.e[i * k + kk]) = fast_decode(w, 3);
        }
    }
    let b_rows = b.run::<N>(t, blk, 0, k);
    for kk in 0..k {
        let row = b_rows.get::<N>(kk, 0);
        let at = kk * N;
        for (j, &w) in row.iter().enumerate() {
            // Vector v of row kk at (kk · nv + v) · W = kk · N + v · W.
            let (v, e) = fast_decode(w, 1);
            (tb.v[at + j], tb.e[at + j]) = (v, e);
            if e16 {
                // Exponents lie in −512..=127 (−512: zero).
                tb.e16[at + j] = e as i16;
            }
        }
    }
}

/// The lanes of `c` (columns `j0..` of row `i`) that the fast step left
/// for the exact path (bits of `redo`), redone by [`exact_step`] on the
/// group `q..q + g` of step `t`: `c` still holds the step's input there.
#[inline(always)]
fn redo_exact<const SPLIT: bool>(
    redo: u32,
    c: &mut [f32],
    (a, b): (Win<'_, Packed>, Win<'_, Packed>),
    (t, blk, i, k): (usize, usize, usize, usize),
    (q, g, j0): (usize, usize, usize),
) {
    if redo != 0 {
        redo_lanes::<SPLIT>(redo, c, (a, b), (t, blk, i, k), (q, g, j0));
    }
}

/// [`redo_exact`]'s lanes, out of the fast kernels' line: portable code, and
/// rare. (Inlined into a kernel whose arms are copies of their own, it cost
/// fp8 16x16x32's GEMM 5–8 % on Zen 5.)
#[cold]
#[inline(never)]
fn redo_lanes<const SPLIT: bool>(
    redo: u32,
    c: &mut [f32],
    (a, b): (Win<'_, Packed>, Win<'_, Packed>),
    (t, blk, i, k): (usize, usize, usize, usize),
    (q, g, j0): (usize, usize, usize),
) {
    let a_row = a.row(t, blk, i, k);
    for (l, c) in c.iter_mut().enumerate().filter(|(l, _)| redo >> l & 1 != 0) {
        *c = exact_step::<SPLIT>(a_row, b, (t, blk, q, g, j0 + l), *c);
    }
}

/// Passes 1 and 2 of one group of `g` k for `W` outputs: A's decoded
/// inputs from `ta` at `a0..a0 + g`, B's W-vectors from `tb` at `b0`,
/// `stride` apart. Returns the sum (units of `2^(e_dot − 24)`) and `e_dot`,
/// the parities already merged as 4.3 step 3 says when `SPLIT`.
#[inline(always)]
fn fast_sums<const SPLIT: bool, const W: usize, const L: u8>(
    ta: &Tile,
    tb: &Tile,
    g: usize,
    (a0, b0, stride): (usize, usize, usize),
) -> ([i32; W], [i32; W]) {
    #[cfg(target_arch = "x86_64")]
    if L >= super::cpu::AVX512 && W == 16 {
        let (mut sum, mut e_dot) = ([0; W], [0; W]);
        let (s16, e16) = (&mut sum[..16], &mut e_dot[..16]);
        // SAFETY: `L >= AVX512` only in the copy of the chain compiled
        // with AVX-512, which runs on CPUs that have it.
        unsafe {
            super::fused_avx512::fast_sums::<SPLIT>(
                (ta, tb),
                g,
                (a0, b0, stride),
                None,
                s16.try_into().expect("16 lanes"),
                e16.try_into().expect("16 lanes"),
            )
        };
        return (sum, e_dot);
    }
    #[cfg(target_arch = "x86_64")]
    if L >= super::cpu::AVX2 && W == 8 {
        let (mut sum, mut e_dot) = ([0; W], [0; W]);
        let (s8, e8) = (&mut sum[..8], &mut e_dot[..8]);
        // SAFETY: `L >= AVX2` only in copies of the chain compiled with
        // AVX2, which run on CPUs that have it.
        unsafe {
            super::fused_avx2::fast_sums::<SPLIT>(
                (ta, tb),
                g,
                (a0, b0, stride),
                s8.try_into().expect("8 lanes"),
                e8.try_into().expect("8 lanes"),
            )
        };
        return (sum, e_dot);
    }
    let (av, ae) = (&ta.v[a0..a0 + g], &ta.e[a0..a0 + g]);
    // Pass 1: the largest exponent per output (per parity if SPLIT).
    let mut e_dots = [[i32::MIN; W]; 2];
    for kk in 0..g {
        let ea = ae[kk];
        let (_, eb) = tb.get::<W>(b0 + kk * stride);
        let e_dot = &mut e_dots[if SPLIT { kk % 2 } else { 0 }];
        for l in 0..W {
            e_dot[l] = e_dot[l].max(ea + eb[l]);
        }
    }
    // 2^(24 − e_dot): normal for every group with a nonzero product
    // (−102 <= e_dot <= 124, see `FAST_EXP`, so the biased exponent lies in
    // 27..=253); a group of zero products (e_dot <= −450) gets 2^127 by the
    // cap and sums zeros. (No lower bound is needed, which saves the
    // vector copies an operation per group.)
    let mut scale = [[0f32; W]; 2];
    for (scale, e_dot) in scale.iter_mut().zip(&e_dots).take(1 + usize::from(SPLIT)) {
        for l in 0..W {
            scale[l] = f32::from_bits(((151 - e_dot[l]).min(254) as u32) << 23);
        }
    }
    // Pass 2: each product truncated toward zero to a multiple of
    // 2^(e_dot − 24) by the conversion, summed exactly (|sum| < 2^29).
    let mut sums = [[0i32; W]; 2];
    for (kk, &a) in av.iter().enumerate() {
        let (bv, _) = tb.get::<W>(b0 + kk * stride);
        let p = if SPLIT { kk % 2 } else { 0 };
        let (sum, scale) = (&mut sums[p], &scale[p]);
        for l in 0..W {
            let x = a * bv[l] * scale[l];
            // SAFETY: x is finite and |x| < 2^26 (see fast_block).
            sum[l] += unsafe { x.to_int_unchecked::<i32>() };
        }
    }
    if !SPLIT {
        return (sums[0], e_dots[0]);
    }
    // 4.3 step 3: both parities' sums floored to the larger exponent.
    let (mut sum, mut e_dot) = ([0; W], [0; W]);
    for l in 0..W {
        let (e0, e1) = (e_dots[0][l], e_dots[1][l]);
        let e = e0.max(e1);
        let sh = |x: i32, by: i32| x >> by.min(31);
        sum[l] = sh(sums[0][l], e - e0) + sh(sums[1][l], e - e1);
        e_dot[l] = e;
    }
    (sum, e_dot)
}

/// The x86 copies' short cut through [`fast_combine`], taken for a vector
/// whose lanes all have a finite `c` and `e_c − e_dot <= SHORT_CUT` (true of
/// nearly every step of a chain; it fails for groups of zero products, whose
/// `e_dot` is about −1000). With `u = 2^(e_dot − 24)` it takes `X = S·u +
/// ⌊c/u⌋·u` (4.3 drops `c` first where the reference says) and floors `X`
/// to 31 bits below its own leading one, skipping the separate floors of
/// `c` and `S`. That is the reference's value:
/// - if `e_c < e_dot`, then `E = e_dot`: `⌊c/u⌋·u` is `c` floored to
///   `2^(E − 24)`, and `S` needs no floor;
/// - if `0 <= e_c − e_dot <= 8`, then `E = e_c`: `c` is a multiple of `u`
///   and `X` one of `2^(E − 32)`, so neither floor changes anything;
/// - if it is larger, `|S·u| < 2^(e_dot + 6) <= 2^(e_c − 3)`, so `T` and
///   `X` are at least `2^(e_c − 1)` in magnitude, and flooring `X` to
///   `2^(e_c − 32)` and then to `2^(e_T − 31)`, a multiple of it, is
///   flooring it to the latter once (a negative `X` floored up to the next
///   power of two lands on it both ways).
///
/// How: `⌊c/u⌋` is `c · 2^(24 − e_dot)` in f32, floored (exact, except that
/// a tiny `c` may underflow: a negative one must still give −1); `S +
/// ⌊c/u⌋` is an integer of at most `e_c − e_dot + 26` bits, exact in f64 up
/// to 27 (the bound keeps a margin); it is floored there and converted to
/// f32 (the round to nearest even), and the result times `u` is exact:
/// every nonzero product is at least 2^-102 (see [`FAST_EXP`]), so
/// `e_dot >= -102` and a nonzero `X` is at least `u >= 2^-126`, never below
/// the normal range (an overflow is ±∞ either way).
///
/// TR's vectors whose accumulators all lie below `1.75 · 2^(e_dot + 7)`
/// (most steps of a chain) take a cheaper step before this one, in 32-bit
/// integers (`fused_avx512::narrow_step`, `fused_avx2::narrow_step`).
#[cfg(target_arch = "x86_64")]
pub(super) const SHORT_CUT: i32 = 24;

/// Steps 3–5 for `W` outputs whose sums `sum` (units of `2^(e_dot − 24)`,
/// exponent `e_dot`) are known: `c` becomes each step's result.
/// Returns a bit mask of the lanes it left alone for the exact path: those
/// whose result lies below 2^-126 (where the final floor is finer).
///
/// `E = max(e_dot, e_c)`; `c` is floored to a multiple of `2^(E − 24)` by
/// clearing bits of its f64 significand (a no-op unless the products
/// dominate; 4.3 drops it when 25 binades below), `S` to `2^(E − 32)` by a
/// shift; `T = S + c` is then exact in f64 (at most 34 significant bits);
/// flooring `T` to `2^(e_T − 31)` clears its significand's low 21 bits
/// (rounding a negative one away from zero), and the conversion to f32 is
/// the final round to nearest even.
#[inline(always)]
fn fast_combine<const SPLIT: bool, const W: usize, const L: u8>(
    sum: &[i32; W],
    e_dot: &[i32; W],
    c: &mut [f32; W],
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if L >= super::cpu::AVX512 && W == 16 {
        let lanes = |x: &[i32]| -> [i32; 16] { x.try_into().expect("16 lanes") };
        let c16: &mut [f32; 16] = (&mut c[..]).try_into().expect("16 lanes");
        // SAFETY: `L >= AVX512` only in the copy of the chain compiled
        // with AVX-512, which runs on CPUs that have it.
        return unsafe {
            super::fused_avx512::fast_combine::<SPLIT>(&lanes(sum), &lanes(e_dot), c16)
        };
    }
    #[cfg(target_arch = "x86_64")]
    if L >= super::cpu::AVX2 && W == 8 {
        let lanes = |x: &[i32]| -> [i32; 8] { x.try_into().expect("8 lanes") };
        let c8: &mut [f32; 8] = (&mut c[..]).try_into().expect("8 lanes");
        // SAFETY: `L >= AVX2` only in copies of the chain compiled with
        // AVX2, which run on CPUs that have it.
        return unsafe { super::fused_avx2::fast_combine::<SPLIT>(&lanes(sum), &lanes(e_dot), c8) };
    }
    // Lane by lane without branches, so that the loops vectorise.
    let mut tiny = [false; W];
    let mut out = [0f32; W];
    for l in 0..W {
        let bits = c[l].to_bits();
        let e_c = (((bits >> 23) & 0xff) as i32 - 127).max(-126);
        let e_dot = e_dot[l];
        let big_e = e_dot.max(e_c);
        let sh = (big_e - e_dot - 8).clamp(0, 31);
        let s = sum[l] >> sh;
        let unit = e_dot - 24 + sh;
        let scale = f64::from_bits(((unit + 1023).clamp(1, 2046) as u64) << 52);
        let c_used = floor_f32(bits, big_e - e_c - 1, big_e - 24);
        let c_used = if SPLIT && e_c < big_e - 25 { 0 } else { c_used };
        let t = f64::from(s) * scale + f64::from(f32::from_bits(c_used));
        let tb = t.to_bits();
        // Floored to 31 bits below the leading one: the low 21 of 52
        // cleared, a negative value rounded away from zero.
        let neg = 0u64.wrapping_sub(tb >> 63);
        let floored = (tb + (neg & 0x1f_ffff)) & !0x1f_ffff;
        tiny[l] = (t != 0.0) & (t.abs() < f64::from(f32::MIN_POSITIVE));
        out[l] = f64::from_bits(floored) as f32;
    }
    let mut redo = 0u32;
    for l in 0..W {
        // A redone lane keeps the step's input for the exact path.
        c[l] = if tiny[l] { c[l] } else { out[l] };
        redo |= u32::from(tiny[l]) << l;
    }
    redo
}

/// The f32 `bits` floored to a multiple of `2^q`, where `nb` is how many
/// low bits of its significand lie below `2^q` (its unit is `2^(e_c − 23)`,
/// so `nb = q − e_c + 23`; at most 0: already a multiple). Done on the bit
/// pattern: clearing low bits floors a positive value; a negative one is
/// rounded away from zero (a carry into the exponent is the next binade). A
/// value entirely below `2^q` becomes `+0`, or `−2^q` if negative.
#[inline(always)]
fn floor_f32(bits: u32, nb: i32, q: i32) -> u32 {
    let sign = bits & 0x8000_0000;
    let mag = bits & 0x7fff_ffff;
    let mask = (1u32 << nb.clamp(0, 31)) - 1;
    let up = if sign != 0 { mask } else { 0 };
    let cleared = sign | ((mag + up) & !mask);
    let below = if sign != 0 && mag != 0 {
        sign | (((q + 127).clamp(1, 254) as u32) << 23)
    } else {
        0
    };
    match nb {
        ..=0 => bits,
        1..=23 => cleared,
        _ => below,
    }
}

// Each arm of `chain_body` is a copy of its own: inlined into one
// function, the arms' locals gave an unoptimised build's chain a frame
// of 1.4 MB (portable) to 1.8 MB (AVX-512), and with the caller's frames
// that overflowed a 2 MiB thread stack (a test thread's, the GEMM pool's):
// a user's `cargo test` of one CDNA3 f16 instruction aborted. The largest
// arm's is 0.6 MB.
super::cpu::multiversion! {
    fn blocks_fast<X: Instr; const SPLIT: bool, const N: usize, const W: usize>(a: Win<'_, Packed>, b: Win<'_, Packed>, steps: usize, c: &mut [f32]) => fast_blocks with intrinsics
}

#[cfg(target_arch = "x86_64")]
super::cpu::multiversion! {
    fn blocks_fast4<X: Instr>(a: Win<'_, Packed>, b: Win<'_, Packed>, steps: usize, c: &mut [f32]) => fast_blocks4 with intrinsics
}

/// [`fast_block`] of every block of `c`.
#[inline(always)]
fn fast_blocks<X: Instr, const SPLIT: bool, const N: usize, const W: usize, const L: u8>(
    a: Win<'_, Packed>,
    b: Win<'_, Packed>,
    steps: usize,
    c: &mut [f32],
) {
    for (blk, c) in c.chunks_exact_mut(X::SPEC.m * X::SPEC.n).enumerate() {
        fast_block::<X, SPLIT, N, W, L>(a, b, steps, blk, c)
    }
}

/// [`fast_block4`] of every block of `c`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_blocks4<X: Instr, const L: u8>(
    a: Win<'_, Packed>,
    b: Win<'_, Packed>,
    steps: usize,
    c: &mut [f32],
) {
    for (blk, c) in c.chunks_exact_mut(X::SPEC.m * X::SPEC.n).enumerate() {
        fast_block4::<X, L>(a, b, steps, blk, c)
    }
}

/// `steps` steps of every block of `c`: by the fast kernel of the shape
/// and the thread's copy if `plain`, else exactly.
fn chain_body<X: Instr, const SPLIT: bool>(
    a: Win<'_, Packed>,
    b: Win<'_, Packed>,
    steps: usize,
    plain: bool,
    c: &mut [f32],
) {
    let s = X::SPEC;
    let kernels = super::Kernels::active();
    let wide = kernels == super::Kernels::Avx512;
    #[cfg(target_arch = "x86_64")]
    let one_group = const { group_of::<X>() } == s.k && s.m == 4 && s.k == 4;
    match (plain, s.n, wide) {
        (true, 32, true) => blocks_fast::<X, SPLIT, 32, 16>(a, b, steps, c),
        (true, 16, true) => blocks_fast::<X, SPLIT, 16, 16>(a, b, steps, c),
        (true, 32, _) => blocks_fast::<X, SPLIT, 32, 8>(a, b, steps, c),
        (true, 16, _) => blocks_fast::<X, SPLIT, 16, 8>(a, b, steps, c),
        #[cfg(target_arch = "x86_64")]
        (true, 4, _) if one_group && !SPLIT && kernels != super::Kernels::Portable => {
            blocks_fast4::<X>(a, b, steps, c)
        }
        (true, 4, _) => blocks_fast::<X, SPLIT, 4, 4>(a, b, steps, c),
        _ => {
            for (blk, c) in c.chunks_exact_mut(s.m * s.n).enumerate() {
                exact::<X, SPLIT>(a, b, steps, blk, c)
            }
        }
    }
}

/// The family of CDNA3's f16, bf16 (`_1k`) and xf32 builtins: the
/// truncated fused dot product of reference CDNA3 4.2, one step per
/// [`Arith::TruncatedDot`] group.
#[derive(Clone, Copy, Debug, Default)]
pub struct Truncated<T>(PhantomData<T>);

/// The family of CDNA3's fp8/bf8 builtins (A's format `TA`, B's `TB`):
/// the grouped truncated dot product of reference CDNA3 4.3, one step per
/// [`Arith::SplitTruncatedDot`] group.
#[derive(Clone, Copy, Debug, Default)]
pub struct SplitTruncated<TA, TB>(PhantomData<(TA, TB)>);

/// [`Kernel::widen_slice_a`] (`shift` 3) and `_b` (1) of the fused
/// families: every input packed as the copy of level `L` packs fastest
/// ([`FusedInput::packed_at`]), and whether all passed [`fast_input`].
#[inline(always)]
fn widen_packed_body<T: FusedInput, const L: u8>(
    from: &[T],
    to: &mut [Packed],
    shift: u32,
) -> bool {
    let mut plain = true;
    for (w, &x) in to.iter_mut().zip(from) {
        *w = x.packed_at::<L>(shift);
        plain &= fast_input(*w);
    }
    plain
}

super::cpu::multiversion! {
    fn widen_packed<T: FusedInput>(from: &[T], to: &mut [Packed], shift: u32) -> bool => widen_packed_body with intrinsics
}

/// The two families differ only in their input types and in `SPLIT`.
macro_rules! fused_kernel {
    ($family:ty, [$($g:ident),*], $a:ty, $b:ty, $split:literal) => {
        impl<$($g: FusedInput),*> Kernel for $family {
            type A = $a;
            type B = $b;
            type C = f32;
            type Wide = Packed;

            #[inline(always)]
            fn widen_a(x: $a) -> Packed {
                x.packed(3)
            }

            #[inline(always)]
            fn widen_b(x: $b) -> Packed {
                x.packed(1)
            }

            #[inline(always)]
            fn plain(w: Packed) -> bool {
                fast_input(w)
            }

            #[inline]
            fn widen_slice_a(from: &[$a], to: &mut [Packed]) -> bool {
                widen_packed::<$a>(from, to, 3)
            }

            #[inline]
            fn widen_slice_b(from: &[$b], to: &mut [Packed]) -> bool {
                widen_packed::<$b>(from, to, 1)
            }

            fn run<X: Instr>(m: Modifiers, a: &[$a], b: &[$b], c: &mut [f32]) {
                run_blocks::<X, $a, $b, $split>(m, a, b, c)
            }

            fn chain_wide<X: Instr>(
                a: Win<'_, Packed>,
                b: Win<'_, Packed>,
                steps: usize,
                plain: bool,
                c: &mut [f32],
            ) {
                chain_body::<X, $split>(a, b, steps, plain, c)
            }
        }
    };
}

fused_kernel!(Truncated<T>, [T], T, T, false);
fused_kernel!(SplitTruncated<TA, TB>, [TA, TB], TA, TB, true);

#[cfg(test)]
mod tests {
    use super::super::cpu::Kernels;
    use super::*;

    fn dec(v: f32, t: mfma_spec::ElemType) -> Dec {
        Dec::new(v, t.min_exp())
    }

    /// One TR step of bf16 products given as (a, b) values, on `c`.
    fn tr(pairs: &[(f32, f32)], c: f32) -> f32 {
        let t = mfma_spec::ElemType::Bf16;
        step::<false>(pairs.iter().map(|&(x, y)| (dec(x, t), dec(y, t))), c)
    }

    /// Reference CDNA3 4.2's consequences, on single steps.
    #[test]
    fn truncation_and_floor_rounding() {
        let p = |e: i32| 2f32.powi(e);
        // 1 + 2^-24 + 2^-40: the truncation drops 2^-40, the tie goes to even.
        assert_eq!(
            tr(&[(1.0, 1.0), (p(-12), p(-12)), (p(-20), p(-20))], 0.0),
            1.0
        );
        // c = -2^-40 is floored to -2^-24: 1 - 2^-24.
        assert_eq!(tr(&[(1.0, 1.0)], -p(-40)), 1.0 - p(-24));
        // The same, negative: -(1 + 2^-23).
        assert_eq!(
            tr(&[(-1.0, 1.0), (-p(-12), p(-12))], -p(-40)),
            -(1.0 + p(-23))
        );
        // 2^30 - 2^30 + 2^-10: the small product was truncated away.
        assert_eq!(
            tr(&[(p(15), p(15)), (-p(15), p(15)), (p(-5), p(-5))], 0.0),
            0.0
        );
        // An exact zero is +0, whatever the signs.
        assert_eq!(tr(&[(-1.0, 1.0), (1.0, 1.0)], -0.0).to_bits(), 0);
    }

    /// The packing by [`Dec::new`], as it was written first.
    fn pack_decoded<T: FusedInput>(x: T, shift: u32) -> Packed {
        let d = x.decode();
        let sign = u32::from(d.flags & NEG) << 31;
        if d.flags & NAN != 0 {
            return NAN_BIT;
        }
        if d.flags & INF != 0 {
            return sign | INF_BIT;
        }
        if d.m == 0 {
            return sign;
        }
        // Exact: every fused input type has at most 11 significant bits at its
        // own exponent (subnormals included), so the low 13 bits of the f32-scale
        // significand are zero.
        let m = d.m >> 13;
        sign | (((i32::from(d.e) + E_BIAS) as u32) << 16) | (m << shift)
    }

    /// Every f16, bf16, fp8 and bf8, and xf32 bit patterns, pack as
    /// [`Dec::new`] decodes them, on both sides.
    #[test]
    fn packing_is_decoding() {
        fn check<T: FusedInput>(x: T) {
            use super::super::cpu::{AVX512, PORTABLE};
            for shift in [1, 3] {
                let want = pack_decoded(x, shift);
                assert_eq!(x.packed(shift), want, "{x:?} << {shift}");
                // As every copy packs (the 8-bit types' tables included).
                assert_eq!(x.packed_at::<PORTABLE>(shift), want, "{x:?} << {shift}");
                #[cfg(target_arch = "x86_64")]
                assert_eq!(x.packed_at::<{ super::super::cpu::AVX2 }>(shift), want);
                assert_eq!(x.packed_at::<AVX512>(shift), want, "{x:?} << {shift}");
            }
        }
        for bits in 0..=u16::MAX {
            check(f16::from_bits(bits));
            check(bf16::from_bits(bits));
        }
        for bits in 0..=u8::MAX {
            check(Fp8::from_bits(bits));
            check(Bf8::from_bits(bits));
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Every exponent field, random signs and significands.
            let bits = (x as u32) & !(0xff << 23) | ((n % 256) << 23);
            check(Xf32::from_bits(bits));
        }
    }

    /// The f16 widening on the bit pattern is half's, for every f16.
    #[test]
    fn f16_values_are_halfs() {
        for bits in 0..=u16::MAX {
            let x = f16::from_bits(bits);
            let (got, want) = (FusedInput::value(x), x.to_f32());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{bits:#x}"
            );
        }
    }

    #[test]
    fn decoding_clamps_at_the_input_types_subnormal_exponent() {
        let t = mfma_spec::ElemType::F16;
        // The smallest f16 subnormal, 2^-24: e = -14, m = 2^13 (s = 2^-10).
        let d = dec(2f32.powi(-24), t);
        assert_eq!((d.m, d.e), (1 << 13, -14));
        // As f32 (bf16 has f32's range) the same value is normal.
        let d = dec(2f32.powi(-24), mfma_spec::ElemType::Bf16);
        assert_eq!((d.m, d.e), (1 << 23, -24));
    }

    /// `floor_f32` on the bit pattern is the floor to a multiple of `2^q`,
    /// for every binade of c (subnormals, ±0 included) and every q from
    /// below c's unit to far above it, within the fast path's range.
    #[test]
    fn flooring_on_the_bit_pattern_is_the_floor() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bits = (x as u32) & !(0xff << 23) | ((n % 255) << 23);
            let c = f32::from_bits(bits);
            let e_c = (((bits >> 23) & 0xff) as i32 - 127).max(-126);
            // The fast path's range: q = E − 24 with E = max(e_dot, e_c),
            // e_dot below 126 and E at least −126.
            let q = (e_c - 30 + (x >> 40) as i32 % 70).clamp(-150, 103);
            let want = (f64::from(c) / 2f64.powi(q)).floor() * 2f64.powi(q);
            let got = f32::from_bits(floor_f32(bits, q - e_c + 23, q));
            assert_eq!(f64::from(got), want, "c {c:e} ({bits:#x}) to 2^{q}");
        }
    }

    /// `fast_combine` of one copy on 16 lanes: the copy's own width, its
    /// target features enabled.
    fn combine16<const SPLIT: bool>(
        k: Kernels,
        sum: &[i32; 16],
        e: &[i32; 16],
        c: &mut [f32; 16],
    ) -> u32 {
        use super::super::cpu::PORTABLE;
        #[cfg(target_arch = "x86_64")]
        use super::super::cpu::{AVX2, AVX512};
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
        fn avx512<const SPLIT: bool>(sum: &[i32; 16], e: &[i32; 16], c: &mut [f32; 16]) -> u32 {
            fast_combine::<SPLIT, 16, AVX512>(sum, e, c)
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn avx2<const SPLIT: bool>(sum: &[i32; 8], e: &[i32; 8], c: &mut [f32; 8]) -> u32 {
            fast_combine::<SPLIT, 8, AVX2>(sum, e, c)
        }
        match k {
            // SAFETY: called only for copies the CPU has (`Kernels::detected`).
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx512 => unsafe { avx512::<SPLIT>(sum, e, c) },
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2 => {
                let half = |x: &[i32; 16], h: usize| -> [i32; 8] {
                    x[h * 8..][..8].try_into().expect("8")
                };
                let (c0, c1) = c.split_at_mut(8);
                // SAFETY: as above.
                unsafe {
                    avx2::<SPLIT>(&half(sum, 0), &half(e, 0), c0.try_into().expect("8"))
                        | avx2::<SPLIT>(&half(sum, 1), &half(e, 1), c1.try_into().expect("8")) << 8
                }
            }
            _ => fast_combine::<SPLIT, 16, PORTABLE>(sum, e, c),
        }
    }

    /// Every copy's accumulator step on 16 lanes against [`combine`], for
    /// TR (`split` false) and/or GTR; lanes a copy leaves for the exact
    /// path must keep their `c` (counted in `left`, by copy).
    fn check_step(
        copies: &[Kernels],
        splits: &[bool],
        sum: &[i32; 16],
        e_dot: &[i32; 16],
        c: &[f32; 16],
        left: &mut [usize; 3],
    ) {
        for &split in splits {
            for &k in copies {
                let mut got = *c;
                let redo = if split {
                    combine16::<true>(k, sum, e_dot, &mut got)
                } else {
                    combine16::<false>(k, sum, e_dot, &mut got)
                };
                for l in 0..16 {
                    if redo >> l & 1 != 0 {
                        assert_eq!(got[l].to_bits(), c[l].to_bits(), "{} kept c", k.name());
                        left[k as usize] += 1;
                        continue;
                    }
                    let s = (e_dot[l] > -1000).then_some((i64::from(sum[l]), e_dot[l]));
                    let want = combine(s, c[l], split);
                    assert_eq!(
                        got[l].to_bits(),
                        want.to_bits(),
                        "{} split {split}: S {} e_dot {} c {:e} ({:#x}): {:e} vs {:e}",
                        k.name(),
                        sum[l],
                        e_dot[l],
                        c[l],
                        c[l].to_bits(),
                        got[l],
                        want,
                    );
                }
            }
        }
    }

    /// The AVX2 and AVX-512 copies' bytes of pass 1 (their `tile_bytes`)
    /// are `e + X8_BIAS` (0 for a zero) where `Tile::x8` says, A's four
    /// rows of a column in one u32 and B's byte in all four of its u32, for
    /// `k` 4, 8 and 16 and rows of 32 and 16; a tile with one exponent
    /// outside `X8_EXP` is refused.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn pass_1_bytes_are_the_biased_exponents_in_place() {
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
        fn avx512(ta: &mut Tile, tb: &mut Tile, k: usize, n: usize) -> bool {
            // SAFETY: this function's features, which the CPU has.
            unsafe { super::super::fused_avx512::tile_bytes(ta, tb, (32, k, n)) }
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2(ta: &mut Tile, tb: &mut Tile, k: usize, n: usize) -> bool {
            // SAFETY: as above.
            unsafe { super::super::fused_avx2::tile_bytes(ta, tb, (32, k, n)) }
        }
        for copy in [Kernels::Avx2, Kernels::Avx512] {
            if Kernels::detected() < copy {
                std::println!("skipped: the {} kernels (this CPU lacks them)", copy.name());
                continue;
            }
            // SAFETY: the CPU has the copy's features (checked above).
            let bytes = |ta: &mut Tile, tb: &mut Tile, k, n| unsafe {
                if copy == Kernels::Avx512 {
                    avx512(ta, tb, k, n)
                } else {
                    avx2(ta, tb, k, n)
                }
            };
            check_pass_1_bytes(bytes, copy.name());
        }
    }

    /// [`pass_1_bytes_are_the_biased_exponents_in_place`] for one copy.
    #[cfg(target_arch = "x86_64")]
    fn check_pass_1_bytes(bytes: impl Fn(&mut Tile, &mut Tile, usize, usize) -> bool, copy: &str) {
        let byte = |e: i32| {
            if e == -E_BIAS {
                0
            } else {
                (e + X8_BIAS) as u32
            }
        };
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut ta, mut tb) = (
            std::boxed::Box::new(Tile::new()),
            std::boxed::Box::new(Tile::new()),
        );
        for (k, n) in [4, 8, 16].into_iter().flat_map(|k| [(k, 32), (k, 16)]) {
            for trial in 0..400 {
                for e in ta.e[..32 * k].iter_mut().chain(&mut tb.e[..n * k]) {
                    let r = next();
                    *e = match r % 8 {
                        0 => -E_BIAS,
                        1 => *X8_EXP.start(),
                        2 => *X8_EXP.end(),
                        _ => (r >> 8) as i32 % 32,
                    };
                }
                // One exponent in four tiles just past the edges or far off.
                let past = [-32, 32, -51, 62][trial % 4];
                let misfit = trial % 3 == 0;
                if misfit {
                    let at = (next() % ((32 + n) * k) as u64) as usize;
                    let tile = if at < 32 * k {
                        &mut ta.e[at]
                    } else {
                        &mut tb.e[at - 32 * k]
                    };
                    *tile = past;
                }
                let fits = bytes(&mut ta, &mut tb, k, n);
                assert_eq!(fits, !misfit, "{copy}: k {k}, n {n}, trial {trial}");
                if !fits {
                    continue;
                }
                for r in 0..8 {
                    for kk in 0..k {
                        let want =
                            (0..4).fold(0, |w, i| w | byte(ta.e[(4 * r + i) * k + kk]) << (8 * i));
                        assert_eq!(
                            ta.x8[r * k + kk],
                            want,
                            "{copy} A: k {k}, n {n}, rows {}.., column {kk}",
                            4 * r
                        );
                    }
                }
                for (at, &e) in tb.e[..n * k].iter().enumerate() {
                    let want = byte(e) * 0x0101_0101;
                    assert_eq!(tb.x8[at], want, "{copy} B: k {k}, n {n}, at {at}");
                }
            }
        }
    }

    /// The four rows' check for the i32 step (`narrow_quad_lanes`, from
    /// pass 2's scale) says what the row-by-row one (`narrow_lanes`, from
    /// `e_dot`) says for every `e_dot` the bytes give (−62..=62): `c` at
    /// the bound's edges (`e_c − e_dot` 5 to 8, fractions about
    /// `0x60_0000`), zeros, subnormals, infinities and NaNs, in both copies.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_four_rows_i32_check_is_the_row_by_row_one() {
        use super::super::{fused_avx2 as v2, fused_avx512 as v5};
        use core::arch::x86_64::*;
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
        fn avx512(c: f32, e_dot: i32) -> [bool; 2] {
            // SAFETY: this function's features, which the CPU has.
            unsafe {
                let bits = _mm512_set1_epi32(c.to_bits() as i32);
                let scale = _mm512_set1_epi32((151 - e_dot) << 23);
                let row = v5::narrow_lanes(bits, _mm512_set1_epi32(e_dot));
                let quad = v5::narrow_quad_lanes(bits, scale);
                assert!(row == 0 || row == u16::MAX, "lanes alike");
                [row == u16::MAX, quad == u16::MAX]
            }
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2(c: f32, e_dot: i32) -> [bool; 2] {
            // SAFETY: as above.
            unsafe {
                let bits = _mm256_set1_epi32(c.to_bits() as i32);
                let scale = _mm256_set1_epi32((151 - e_dot) << 23);
                let row = v2::narrow_lanes(bits, _mm256_set1_epi32(e_dot));
                [row, v2::narrow_quad_lanes(bits, scale)]
            }
        }
        let specials = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
        let tiny = [f32::from_bits(1), -f32::from_bits(1), f32::MIN_POSITIVE];
        for copy in [Kernels::Avx2, Kernels::Avx512] {
            if Kernels::detected() < copy {
                std::println!("skipped: the {} kernels (this CPU lacks them)", copy.name());
                continue;
            }
            let mut taken = [0; 2];
            for e_dot in -62..=62 {
                let edges = (5..=8).flat_map(|d| {
                    [0, 1, 0x5f_ffff, 0x60_0000, 0x60_0001, 0x7f_ffff].map(move |frac| (d, frac))
                });
                let edges = edges
                    .filter(|&(d, _)| e_dot + d <= 127)
                    .flat_map(|(d, frac)| {
                        let c = f32::from_bits(((e_dot + d + 127) as u32) << 23 | frac);
                        [c, -c]
                    });
                for c in specials.into_iter().chain(tiny).chain(edges) {
                    // SAFETY: the CPU has the copy's features (checked above).
                    let [row, quad] = unsafe {
                        if copy == Kernels::Avx512 {
                            avx512(c, e_dot)
                        } else {
                            avx2(c, e_dot)
                        }
                    };
                    assert_eq!(
                        quad,
                        row,
                        "{}: e_dot {e_dot}, c {c:e} ({:#x})",
                        copy.name(),
                        c.to_bits()
                    );
                    taken[usize::from(row)] += 1;
                }
            }
            assert!(taken[0] > 0 && taken[1] > 0, "{}: {taken:?}", copy.name());
        }
    }

    /// The copies the CPU has.
    fn copies() -> std::vec::Vec<Kernels> {
        Kernels::ALL
            .into_iter()
            .filter(|&k| k <= Kernels::detected())
            .collect()
    }

    /// The edges of the AVX-512 step in 32-bit integers
    /// (`fused_avx512::narrow_step`), which random accumulators meet too
    /// rarely: `c` at the top of its reach (`e_c − e_dot` 7, its fraction
    /// just below `0x60_0000`) and just past it, at the wide lanes' bound
    /// `2^(e_dot + 6)` and below it, a binade below it (where `S` cancels
    /// `c`), and below `u`; sums near ±2^29, where
    /// `S + c/u` comes closest to 2^32, in runs of consecutive values, so
    /// that the bits shifted out of `S` meet ties of the final rounding.
    /// Every copy against the reference step.
    #[test]
    fn every_copy_of_the_accumulator_step_is_the_reference_step_at_the_i32_steps_edges() {
        let copies = copies();
        let mut left = [0usize; 3];
        for e_dot in [-102, -3, 0, 20, 100, 121, 124] {
            let edges = [
                (7, 0x5f_ffff),
                (7, 0x60_0000),
                (7, 0x67_ffff),
                (7, 0x6f_ffff),
                (7, 0x70_0000),
                (7, 0x7f_ffff),
                (6, 0),
                (6, 0x7f_ffff),
                (5, 0x7f_ffff),
                // Below the wide lanes' bound, where `S` may cancel `c`:
                // `N` then has too few bits to be rounded in units of 4u.
                (5, 0),
                (5, 1),
                (0, 0x40_0001),
                (-1, 0x7f_ffff),
                (-30, 0x12_3457),
            ];
            for (d, frac) in edges {
                let e_c = e_dot + d;
                if !(-126..=127).contains(&e_c) {
                    continue;
                }
                for sign in [0, 1 << 31] {
                    let c = [f32::from_bits(sign | ((e_c + 127) as u32) << 23 | frac); 16];
                    for neg in [false, true] {
                        for run in 0..64 {
                            let sum = core::array::from_fn(|l| {
                                let m = (1 << 29) - 1 - run * 16 - l as i32;
                                if neg {
                                    -m
                                } else {
                                    m
                                }
                            });
                            let e_dot = &[e_dot; 16];
                            check_step(&copies, &[false, true], &sum, e_dot, &c, &mut left);
                        }
                    }
                }
            }
        }
        assert_eq!(left, [0; 3], "no result here is below 2^-126");
        // An infinite or NaN accumulator is not the step's (the chain
        // handles them before `combine`): every copy as the portable one.
        for e_dot in [-102, 0, 120, 121, 122, 124] {
            for c in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
                let sum = core::array::from_fn(|l| (1 << 29) - 1 - 4099 * l as i32);
                let mut want = [c; 16];
                let kept = combine16::<false>(Kernels::Portable, &sum, &[e_dot; 16], &mut want);
                for &k in &copies {
                    let mut got = [c; 16];
                    let redo = combine16::<false>(k, &sum, &[e_dot; 16], &mut got);
                    let same =
                        |x: f32, y: f32| x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan();
                    assert_eq!(redo, kept, "{} e_dot {e_dot} c {c}", k.name());
                    for l in 0..16 {
                        assert!(
                            same(got[l], want[l]),
                            "{} e_dot {e_dot} c {c}: {}",
                            k.name(),
                            got[l]
                        );
                    }
                }
            }
        }
    }

    /// The accumulator step of every copy of the fast chain, lane by lane,
    /// against [`combine`] (the reference's steps 3–5 in integers): sums of
    /// every size below 2^30, largest exponents over the fast inputs'
    /// range and groups of zero products (`e_dot` −1024), accumulators from
    /// far below the products to far above them (subnormals and zeros of
    /// both signs included), for TR and GTR. Lanes a copy leaves for the
    /// exact path must keep their `c`. The chain tests meet this step
    /// only on values random chains reach; this meets the boundaries of
    /// `SHORT_CUT` and of the general step on purpose.
    #[test]
    fn every_copy_of_the_accumulator_step_is_the_reference_step() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let copies = copies();
        let mut left = [0usize; 3];
        for n in 0..200_000u32 {
            let (mut sum, mut e_dot, mut c) = ([0i32; 16], [0i32; 16], [0f32; 16]);
            // A vector of one regime at a time, so that whole vectors take
            // the short cuts (their conditions are on every lane): e_c −
            // e_dot within the f64 one's reach (−5..25), within the i32
            // one's (−30..8) or at its top (6..8), anywhere in −60..60, or
            // so far below that c · 2^(24 − e_dot) underflows f32
            // (−300..−100).
            let (lo, span) = [
                (-5, 30),
                (-60, 120),
                (-300, 200),
                (-5, 30),
                (-30, 38),
                (6, 2),
            ][n as usize % 6];
            // |S| < 2^29 for TR's 8 products, 2^30 for GTR's two parities.
            let gtr_only = n / 6 % 2 == 1;
            let bound = if gtr_only {
                (1 << 30) - 1
            } else {
                (1 << 29) - 1
            };
            for l in 0..16 {
                let r = next();
                let zero_group = r % 64 == 0;
                e_dot[l] = if zero_group {
                    -1024
                } else {
                    -102 + ((r >> 8) % 227) as i32
                };
                sum[l] = if zero_group {
                    0
                } else {
                    let m = ((r >> 16) as i32 & bound) >> ((r >> 48) % 31);
                    if r & 1 << 5 == 0 {
                        m
                    } else {
                        -m
                    }
                };
                let d = lo + ((r >> 52) % span) as i32;
                let e_c = if zero_group {
                    -100 + ((r >> 40) % 200) as i32
                } else {
                    e_dot[l] + d
                };
                let frac = (r >> 24) as u32 & 0x7f_ffff;
                let sign = ((r >> 6) as u32 & 1) << 31;
                let bits = match e_c {
                    _ if r % 97 == 1 => 0,
                    ..=-150 => frac >> 20,
                    -149..=-127 => frac >> (-127 - e_c).min(22),
                    -126..=127 => ((e_c + 127) as u32) << 23 | frac,
                    _ => 0x7f7f_ffff,
                };
                c[l] = f32::from_bits(sign | bits);
            }
            let splits: &[bool] = if gtr_only { &[true] } else { &[false, true] };
            check_step(&copies, splits, &sum, &e_dot, &c, &mut left);
        }
        // Lanes left for the exact path (results below 2^-126) are few:
        // the comparisons above are the test.
        for k in &copies {
            assert!(
                left[*k as usize] < 2 * 40_000 * 16 / 20,
                "{}: {left:?}",
                k.name()
            );
        }
    }

    #[test]
    fn rounding_keeps_subnormals_and_overflows_to_infinity() {
        // 2^-149 · 3 in units of 2^-157: subnormal 3 · 2^-149.
        assert_eq!(round(3 << 8, -157).to_bits(), 3);
        // Just below 2^128 rounding up overflows.
        assert_eq!(round((1 << 32) - 1, 128 - 32), f32::INFINITY);
        // Negative tiny: floored, then rounded to -0.
        assert_eq!(round(-1, -170).to_bits(), 0x8000_0000);
    }
}
