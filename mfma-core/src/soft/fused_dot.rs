//! The fused families' groups in which no product can be truncated, in the
//! x86 copies: there pass 2 (a product scaled, truncated and added per k,
//! four operations) is an integer dot product, two k an instruction
//! (`vpdpwssd` with AVX-512, `vpmaddwd` with AVX2).
//!
//! Every nonzero input of a row of A's group lies below `2^(hi + 1)` and is
//! a multiple of `2^lo`, `lo` its smallest exponent less its type's
//! fraction bits; likewise each column of B's. Where the widths `hi − lo`
//! of a row and a column sum to at most [`DOT_WIDTH`], the group's sum
//! `S` in units of `2^(e_dot − 24)` is the exact dot product of the inputs
//! as integer counts of `2^lo`, shifted. A row with a column outside
//! these bounds is left to passes 1 and 2 (`fused::fast_sums`).
//!
//! **The direct step.** Most steps of a chain need no `e_dot` at all, so
//! not pass 1 either. With `Ê = hi_a + hi_b` (at least `e_dot`), `LO =
//! lo_a + lo_b` (at least `Ê − 24`) and `D` the dot product in units of
//! `2^LO`, take a lane whose `c` is finite, a multiple of `2^(Ê − 24)` and
//! below `2^(LO + 31)`:
//! - `c` is a multiple of the step's grid `2^(e_dot − 24)`, so reference
//!   4.2's floor of `c` to it changes nothing, and 4.3 drops no `c` (a
//!   nonzero one is at least `2^(e_dot − 24)`);
//! - `X = c + D · 2^LO` is then a multiple of `2^(Ê − 24)` below
//!   `2^(e_c + 1) + 16 · 2^(Ê + 2)`: at most 32 significant bits (the
//!   bound on `e_c` for large `c`, `LO ≥ Ê − 24` for small), so the
//!   reference's floor to 31 bits below `X`'s leading one changes nothing
//!   either, and the step is `X` rounded once to f32, which is one fma of
//!   `D` (exact in f32 below `2^24`) by `2^LO` plus `c`. (For `e_c > e_dot
//!   + 8` the reference first floors `S` to `2^(e_c − 32)`: nested in the
//!   floor to 31 bits below `X`'s leading one, at least `2^(e_c − 1)`.)
//!
//! For fp8 and bf8 `LO ≥ −34`, so `X` is never below 2^-126. Chains
//! accumulate exact sums of such products, so their accumulators lie on
//! the products' grid unless they are much larger than them (and then
//! `e_c ≥ Ê − 1` needs no grid): in the demo GEMM's fp8 chains (1024³)
//! all but 0.02 % of the rows of 32 outputs take it. The others take
//! pass 1 and `fused::fast_combine`.

use super::fused::{Packed, TILE};
use super::Win;

/// How wide (`hi − lo`, in binades) a row's plus a column's inputs may be
/// for their group to take the integer dot product. With `Ê = hi_a + hi_b`
/// (at least the group's `e_dot`) and `LO = lo_a + lo_b`, every nonzero
/// product is then a multiple of `2^LO ≥ 2^(Ê − 24) ≥ 2^(e_dot − 24)`: step
/// 2 of reference CDNA3 4.2 and 4.3 truncates nothing, and 4.3's even and
/// odd sums, multiples of it too, are not changed by step 3's floors. So
/// `S = D · 2^(LO − e_dot + 24)` with `D` the exact dot product in units of
/// `2^LO`, an integer shift (`LO ≥ e_dot − 24`), and `|S| < 16 · 2^26`.
pub(super) const DOT_WIDTH: i32 = 24;

/// The input types whose groups `fast_block` offers to the integer dot
/// product first: those of at most this many fraction bits (fp8, bf8).
/// Their rows and columns are narrow enough on ordinary data (standard
/// normals: every vector of outputs qualifies); bf16 (7 bits) and f16/xf32
/// (10) would mostly be decoded for nothing.
pub(super) const DOT_FRACTION_BITS: i32 = 3;

/// The widest a row's or column's inputs may be on their own: their counts
/// of `2^lo` are then below `2^15` and fit i16. (With the two widths summing
/// to at most [`DOT_WIDTH`] a product of counts is below `2^26`, and a
/// group's sum of 16 below `2^30`: no i32 overflows.)
pub(super) const I16_WIDTH: i32 = 14;

/// The width of a row or column the path cannot take: all zero, or wider
/// than [`I16_WIDTH`].
pub(super) const NO: i32 = 99;

/// How many steps of a chain call keep A's decoded rows ([`DotRows`]) for
/// the next call: the four waves of a workgroup row run one after the
/// other on the same rows of A (a K tile of 64 is four fp8 steps of 16 k).
pub(super) const KEPT_STEPS: usize = 4;

/// A's rows of one step, decoded: per-row bounds and the inputs as i16.
pub(super) struct DotRows {
    /// A's inputs as counts of their row and group's `2^lo`, row by row
    /// (`i·k + kk`): two adjacent k read as one i32 are a `vpdpwssd` pair.
    pub(super) a_vals: [i16; TILE],
    /// A's exponents (`i·k + kk`; −512: zero), for pass 1.
    pub(super) a_e: [i32; TILE],
    /// Per row and group (`i·groups + gi`): `lo`, width ([`NO`]: not
    /// taken).
    pub(super) a_lo: [i32; TILE / 4],
    pub(super) a_w: [i32; TILE / 4],
    /// The smallest width of a row and group.
    pub(super) min_a: i32,
    /// What these were decoded from, where another call may reuse them:
    /// `(m, k, g, frac_a, lanes)` (`lanes` the copy's: 16 AVX-512, 8 AVX2)
    /// and the packed inputs (`raw`, `i·k + kk`). `None`: not to be
    /// reused.
    pub(super) key: Option<(usize, usize, usize, i32, usize)>,
    pub(super) raw: [Packed; TILE],
    /// The window's fill number and address (`Win::fill`) and the block
    /// they were decoded from: where a later window has the same (and a
    /// fill number), `raw` need not be compared.
    filled: (u64, usize, usize),
}

impl DotRows {
    const fn new() -> Self {
        DotRows {
            a_vals: [0; TILE],
            a_e: [0; TILE],
            a_lo: [0; TILE / 4],
            a_w: [NO; TILE / 4],
            min_a: NO,
            key: None,
            raw: [0; TILE],
            filled: (0, 0, 0),
        }
    }
}

/// B's columns of one step, decoded: per-column bounds and the inputs as
/// i16.
pub(super) struct DotCols {
    /// B's inputs as counts of their column and group's `2^lo`, rows `kk`
    /// and `kk + 1` interleaved: column `j` of pair `p` at `p·N + j`.
    pub(super) b_pairs: [i32; TILE / 2],
    /// B's exponents (`kk·N + j`), in 16 bits for pass 1.
    pub(super) b_e16: [i16; TILE],
    /// Per group and column (`gi·N + j`): `lo`, width.
    pub(super) b_lo: [i32; TILE / 4],
    pub(super) b_w: [i32; TILE / 4],
    /// The smallest width of a column and group.
    pub(super) min_b: i32,
    /// What these were decoded from, where another call may reuse them:
    /// the window's fill number and address (`Win::fill`), the step and
    /// block, `(N, k, g, frac_b, lanes)`. `None`: not to be reused.
    key: Option<ColsKey>,
}

/// See [`DotCols::key`].
type ColsKey = (u64, usize, usize, usize, (usize, usize, usize, i32, usize));

impl DotCols {
    const fn new() -> Self {
        DotCols {
            b_pairs: [0; TILE / 2],
            b_e16: [0; TILE],
            b_lo: [0; TILE / 4],
            b_w: [NO; TILE / 4],
            min_b: NO,
            key: None,
        }
    }
}

/// Slots of B's decoded columns a thread keeps: [`KEPT_STEPS`] steps of
/// each column position of a workgroup's waves, and one for columns not
/// kept.
const COL_SLOTS: usize = COL_POSITIONS * KEPT_STEPS + 1;

/// Column positions of waves kept apart: a 128-wide workgroup has 4 waves
/// of 32x32x16 in a row and 8 of 16x16x32. (With 4, the 16x16x32 waves
/// 4 apart took each other's slots, and no wave found its columns kept:
/// its GEMM at 1024³ on one Zen 5 thread ran 45–47 GFLOP/s, 52–54 with 8.
/// A thread's slots, about 3 KiB each, grew from 17 to 33; a call touches
/// only those of its own positions.)
const COL_POSITIONS: usize = 8;

/// Per-row and per-column bounds of one step, and its inputs as i16.
pub(super) struct DotTile {
    /// A's rows of the first [`KEPT_STEPS`] steps of a call, and of the
    /// step being computed if later.
    pub(super) rows: [DotRows; KEPT_STEPS + 1],
    /// The step being computed: its rows are `rows[slot]`.
    pub(super) slot: usize,
    /// B's columns of the first [`KEPT_STEPS`] steps of the calls on
    /// [`COL_POSITIONS`] column positions of a panel (see [`DotTile::cols_of_step`]), and of
    /// the step being computed if not kept.
    cols: [DotCols; COL_SLOTS],
    /// The step being computed: its columns are `cols[col_slot]`.
    col_slot: usize,
}

impl DotTile {
    pub(super) const fn new() -> Self {
        DotTile {
            rows: [const { DotRows::new() }; KEPT_STEPS + 1],
            slot: 0,
            cols: [const { DotCols::new() }; COL_SLOTS],
            col_slot: 0,
        }
    }

    /// The rows of A of the step being computed.
    #[inline(always)]
    pub(super) fn a(&self) -> &DotRows {
        &self.rows[self.slot]
    }

    /// The columns of B of the step being computed.
    #[inline(always)]
    pub(super) fn b(&self) -> &DotCols {
        &self.cols[self.col_slot]
    }

    /// Makes step `t`'s columns of B (`b`, `N` of them, `k` deep in groups
    /// of `g`) the current ones ([`DotTile::b`]) and returns them with
    /// whether they must be decoded (by copy `lanes`): not if a call before
    /// decoded the same ones, read through a window of the same panel
    /// filling ([`Win::in_fill`]) and address (the first [`KEPT_STEPS`]
    /// steps of a call). The waves of a workgroup column read the same
    /// columns but run 4 (32x32) or 8 (16x16) waves apart (a workgroup row's waves run one
    /// after the other): slots are direct-mapped by the window's column
    /// position, so the 4 (32x32) or 8 (16x16) columns of a 128-wide block
    /// each keep their own. Decoding B took 11–13 % of fp8's time; kept so, fp8 ran 8–10 %
    /// faster on Zen 5 (one thread, 1024³, alternating production builds;
    /// AVX-512 and AVX2 copies alike). Keys, not a compare of the inputs
    /// as for A: a copy of decoded columns per thread, compared word for
    /// word with B's inputs and copied back, had run slower than decoding.
    #[inline(always)]
    pub(super) fn cols_of_step<const N: usize>(
        &mut self,
        b: Win<'_, Packed>,
        (t, blk): (usize, usize),
        (k, g, frac_b, lanes): (usize, usize, i32, usize),
    ) -> (&mut DotCols, bool) {
        let (fill, at) = b.fill();
        let kept = fill != 0 && t < KEPT_STEPS;
        let slot = if kept {
            (at / (N * core::mem::size_of::<Packed>())) % COL_POSITIONS * KEPT_STEPS + t
        } else {
            COL_SLOTS - 1
        };
        self.col_slot = slot;
        let key = Some((fill, at, t, blk, (N, k, g, frac_b, lanes)));
        let cols = &mut self.cols[slot];
        let decode = !kept || cols.key != key;
        #[cfg(test)]
        super::fused::DOT_COLS_KEPT.set(super::fused::DOT_COLS_KEPT.get() + usize::from(!decode));
        cols.key = if kept { key } else { None };
        (cols, decode)
    }
}

/// A copy's part in keeping A's rows ([`DotTile::rows_of_step`]): its
/// compare of a row's packed inputs with the kept ones and its decoding of a
/// group of rows. Trait functions rather than closures, so that they inline
/// into the copy's code and are compiled with its features.
pub(super) trait RowsCopy {
    /// The copy's lanes, named in [`DotRows::key`]: rows that another copy
    /// decoded are not taken.
    const LANES: usize;

    /// Whether `row` holds the same words as `kept` (of one length).
    ///
    /// # Safety
    /// The CPU must have the copy's features, and the caller must be
    /// compiled with them.
    unsafe fn same_inputs(row: &[Packed], kept: &[Packed]) -> bool;

    /// Decodes group `gi` (of `g` k) of A's `m` rows of step `t` of block
    /// `blk` into `rows`, `frac_a` the fraction bits of A's type.
    ///
    /// # Safety
    /// As [`RowsCopy::same_inputs`].
    unsafe fn decode_group(
        rows: &mut DotRows,
        a: Win<'_, Packed>,
        at: (usize, usize),
        shape: (usize, usize, usize),
        gi: usize,
        frac_a: i32,
    );
}

impl DotTile {
    /// Makes step `t`'s rows of A (`m × k`, groups of `g`) the current
    /// ones ([`DotTile::slot`]) and returns their smallest width: the rows
    /// the call before kept for this step where its shape, type, copy and
    /// packed inputs are the same (the first [`KEPT_STEPS`] steps), else
    /// the rows copy `C` decodes. Inputs read out of a panel are the same
    /// where the panel's fill number and the address are
    /// ([`Win::in_fill`]); others are compared word for word (that compare
    /// took about 8 % of fp8's time on Zen 5). The waves of a workgroup row, one after
    /// the other, share them (B: [`DotTile::cols_of_step`]). On Zen 5 and the
    /// Sapphire Rapids Xeon that made fp8's GEMM 7–12 % faster (one
    /// thread, 1024³, median per-round ratio of 30 rounds in one process):
    /// decoding A's rows took about a sixth of its time.
    ///
    /// # Safety
    /// As [`RowsCopy::same_inputs`].
    #[inline(always)]
    pub(super) unsafe fn rows_of_step<C: RowsCopy>(
        &mut self,
        a: Win<'_, Packed>,
        (t, blk): (usize, usize),
        (m, k, g): (usize, usize, usize),
        frac_a: i32,
    ) -> i32 {
        let slot = t.min(KEPT_STEPS);
        self.slot = slot;
        let key = Some((m, k, g, frac_a, C::LANES));
        let rows = &mut self.rows[slot];
        // (A loop, not `all` with a closure: a closure would not inherit
        // the caller's target features.)
        let mut same = t < KEPT_STEPS && rows.key == key;
        // The slot stands for the step (later steps are not kept), so the
        // window's own address and block say which rows these are.
        let (fill, at) = a.fill();
        let filled = (fill, at, blk);
        if fill != 0 {
            same = same && rows.filled == filled;
        } else {
            for i in 0..m {
                // SAFETY: as this function's.
                same =
                    same && unsafe { C::same_inputs(a.row(t, blk, i, k), &rows.raw[i * k..][..k]) };
            }
        }
        #[cfg(test)]
        super::fused::DOT_ROWS_KEPT.set(super::fused::DOT_ROWS_KEPT.get() + usize::from(same));
        if !same {
            rows.key = None;
            rows.min_a = NO;
            for gi in 0..k / g {
                // SAFETY: as this function's.
                unsafe { C::decode_group(rows, a, (t, blk), (m, k, g), gi, frac_a) };
            }
            rows.key = if t < KEPT_STEPS { key } else { None };
            rows.filled = filled;
        }
        rows.min_a
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    /// Where a copy lets a lane take its direct step, the step gives the
    /// reference step's bits (4.2 and 4.3's), on sums and accumulators
    /// of every relation: products of every width the dot product takes
    /// (`Ê − LO` up to 24), their largest exponent anywhere in `LO..=Ê`,
    /// sums up to the bound 16 products allow, groups of zero products,
    /// and accumulators on the grid of the products, off it, far above
    /// and below them, and special.
    #[test]
    fn the_direct_step_is_the_reference_step_where_it_is_taken() {
        use crate::soft::Kernels;
        let copies: std::vec::Vec<Kernels> = [Kernels::Avx2, Kernels::Avx512]
            .into_iter()
            .filter(|&k| k <= Kernels::detected())
            .collect();
        if copies.len() < 2 {
            std::println!(
                "skipped: the copies of AVX2, AVX-512 this CPU lacks; tested: {copies:?}"
            );
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut taken, mut lanes) = ([0usize; 3], 0usize);
        for n in 0..100_000u32 {
            let (mut acc, mut lo, mut e_hat) = ([0i32; 16], [0i32; 16], [0i32; 16]);
            let (mut e_dot, mut c) = ([None; 16], [0f32; 16]);
            for l in 0..16 {
                let r = next();
                e_hat[l] = -36 + (r % 68) as i32;
                let w = ((r >> 8) % 25) as i32;
                lo[l] = e_hat[l] - w;
                if r >> 7 & 31 != 0 {
                    let e = lo[l] + ((r >> 16) % (w as u64 + 1)) as i32;
                    let bits = e + 5 - lo[l];
                    let m = ((r >> 24) as i32 & ((1 << bits) - 1)) >> ((r >> 56) % 24);
                    acc[l] = if r >> 62 == 0 { -m } else { m };
                    e_dot[l] = Some(e);
                }
                let r = next();
                let frac = (r >> 8) as u32 & 0x7f_ffff;
                let sign = (r as u32 & 1) << 31;
                let any = |e_c: i32| match e_c {
                    ..=-127 => f32::from_bits(sign | frac >> 3),
                    -126..=127 => f32::from_bits(sign | ((e_c + 127) as u32) << 23 | frac),
                    _ => f32::from_bits(sign | 0x7f7f_ffff),
                };
                c[l] = match n % 4 {
                    // On the products' grid, or near it, as chains give.
                    0 => {
                        let m = (frac as i32 >> ((r >> 32) % 24)) as f32;
                        let unit = lo[l] - 3 + ((r >> 40) % 7) as i32;
                        f32::from_bits(sign | (m * 2f32.powi(unit)).to_bits())
                    }
                    1 => any(e_hat[l] - 40 + ((r >> 32) % 80) as i32),
                    2 => any(lo[l] + 20 + ((r >> 32) % 20) as i32),
                    _ => [
                        0.0,
                        -0.0,
                        f32::INFINITY,
                        f32::NAN,
                        1e-40,
                        f32::MAX,
                        -f32::MAX,
                        1.0,
                        // Off every grid, and far enough below it that a
                        // scaling toward it may underflow to zero.
                        f32::from_bits(1),
                        -f32::from_bits(1),
                    ][((r >> 32) % 10) as usize],
                };
            }
            for &copy in &copies {
                let (mask, got) = direct(copy, &c, &acc, &lo, &e_hat);
                taken[copy as usize] += mask.count_ones() as usize;
                for l in (0..16).filter(|l| mask >> l & 1 != 0) {
                    let s = e_dot[l].map(|e| (i64::from(acc[l]) << (lo[l] - e + 24), e));
                    for split in [false, true] {
                        let want = super::super::fused::combine(s, c[l], split);
                        assert_eq!(
                            got[l].to_bits(),
                            want.to_bits(),
                            "{}: acc {} LO {} Ê {} e_dot {:?} c {:e} ({:#x}) split {split}: {:e} vs {:e}",
                            copy.name(),
                            acc[l],
                            lo[l],
                            e_hat[l],
                            e_dot[l],
                            c[l],
                            c[l].to_bits(),
                            got[l],
                            want
                        );
                    }
                }
            }
            lanes += 16;
        }
        // Most of the on-grid and far-above lanes take it; both copies the
        // same ones.
        for &copy in &copies {
            let taken = taken[copy as usize];
            assert!(taken > lanes / 3, "{}: {taken} of {lanes}", copy.name());
        }
        if let [a, b] = copies[..] {
            assert_eq!(taken[a as usize], taken[b as usize]);
        }
    }

    /// The lanes that `copy` lets take its direct step, and its results.
    fn direct(
        copy: crate::soft::Kernels,
        c: &[f32; 16],
        acc: &[i32; 16],
        lo: &[i32; 16],
        e_hat: &[i32; 16],
    ) -> (u16, [f32; 16]) {
        use core::arch::x86_64::*;
        let mut got = *c;
        // SAFETY: the caller offers only copies the CPU has; loads of
        // whole arrays.
        unsafe {
            if copy == crate::soft::Kernels::Avx512 {
                let load = |x: &[i32; 16]| _mm512_loadu_si512(x.as_ptr().cast());
                let mask = super::super::fused_dot_avx512::direct_lanes(
                    c,
                    load(acc),
                    load(lo),
                    load(e_hat),
                );
                super::super::fused_dot_avx512::direct_step(&mut got, load(acc), load(lo));
                return (mask, got);
            }
            let mut mask = 0;
            for h in 0..2 {
                let load = |x: &[i32; 16]| _mm256_loadu_si256(x[h * 8..].as_ptr().cast());
                let c8: &[f32; 8] = c[h * 8..][..8].try_into().expect("8 lanes");
                let bad =
                    super::super::fused_dot_avx2::not_direct(c8, load(acc), load(lo), load(e_hat));
                mask |= (!_mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u16 & 0xff) << (h * 8);
                let g8: &mut [f32; 8] = (&mut got[h * 8..][..8]).try_into().expect("8 lanes");
                super::super::fused_dot_avx2::direct_step(g8, load(acc), load(lo));
            }
            (mask, got)
        }
    }
}
