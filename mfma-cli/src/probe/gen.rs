//! The probe's inputs.
//!
//! **Layout**: for each operand, inputs whose values are digits of their
//! own coordinates, the other inputs selectors, so that each element of D
//! is one element of the probed operand (times 1, plus zeros): D shows where
//! every element travelled. A: B selects, per output column j, the k of
//! column j (`k = phase·N + j`, several phases when K > N); B: A selects
//! per row i the k `phase·M + i`; C: A = B = 0. A coordinate (the operand's
//! linear index) does not fit in one small exact value of an 8-bit type,
//! so it is sent as base-R digits over several runs (R = the exact small
//! integers of the type, [`radix`]), each digit `d` as the value `d + 1`
//! (0 means "no element arrived"). SMFMAC adds the index: its stored values
//! are 1 and 2 (which of the group's two), B selects each logical k, and
//! the index sets hold different position pairs, so D shows which set the
//! instruction read and where each stored value landed.
//!
//! **Numerics**: random and special bit patterns ([`Pattern`]).

use super::values::{encode, radix, specials, subnormal, Rng};
use mfma_spec::{Builtin, Coord, ElemType, Layout, Operand, Sparse};

/// The six valid index fields (two distinct positions, ascending).
pub const PAIRS: [(u64, u64); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];

/// An index field's bits: the first position in bits 0..2, the second in 2..4.
pub fn field((first, second): (u64, u64)) -> u64 {
    first | second << 2
}

/// Inputs of one run: A, B, C (and the index), as bit patterns in matrix
/// order `[block][row][col]`.
pub type Inputs = Vec<Vec<u64>>;

/// All-zero inputs (index fields `(0, 1)`).
pub fn zeros(b: &Builtin) -> Inputs {
    super::device::inputs_of(b)
        .iter()
        .map(|&op| {
            let fill = if op == Operand::Idx { field((0, 1)) } else { 0 };
            vec![fill; b.layout(op).elements()]
        })
        .collect()
}

fn slot_of(op: Operand) -> usize {
    match op {
        Operand::A => 0,
        Operand::B => 1,
        Operand::C | Operand::D => 2,
        Operand::Idx => 3,
    }
}

/// One group of layout runs: operand `operand` probed in phase `phase`,
/// one run per digit of its coordinates.
#[derive(Clone, Debug)]
pub struct LayoutGroup {
    /// The operand whose elements the values name.
    pub operand: Operand,
    /// Which slice of K the selectors pick (see the module docs).
    pub phase: usize,
    /// The digit base.
    pub radix: u64,
    /// One run per digit, least significant first.
    pub runs: Vec<Inputs>,
}

impl LayoutGroup {
    /// What the group probes, for messages: `A`, `B (k 16..32)`.
    pub fn label(&self, b: &Builtin) -> String {
        let per = match self.operand {
            Operand::A | Operand::Idx => b.n,
            Operand::B => b.m,
            _ => return self.operand.name().to_uppercase(),
        };
        let name = match self.operand {
            Operand::Idx => "the index".to_string(),
            op => op.name().to_uppercase(),
        };
        if b.k > per {
            let lo = self.phase * per;
            format!("{name} (k {lo}..{})", (lo + per).min(b.k))
        } else {
            name
        }
    }
}

/// Digits needed for `n` values in base `r`.
fn digits(n: usize, r: u64) -> usize {
    let (mut d, mut reach) = (1, r);
    while reach < n as u64 {
        d += 1;
        reach = reach.saturating_mul(r);
    }
    d
}

/// The layout runs of builtin `b`: A, B, C, and for SMFMAC the index.
pub fn layout(b: &Builtin) -> Vec<LayoutGroup> {
    let mut out = Vec::new();
    let one = |t: ElemType| encode(t, 1.0);
    // C first: its runs depend on no other operand's layout (A = B = 0);
    // A's depend on B's (the selector) and B's on A's.
    for op in [Operand::C, Operand::A, Operand::B] {
        let l = *b.layout(op);
        let t = b.elem(op);
        let r = radix(t);
        let n = digits(l.elements(), r);
        let phases = match op {
            Operand::A => b.k.div_ceil(b.n),
            Operand::B => b.k.div_ceil(b.m),
            _ => 1,
        };
        for phase in 0..phases {
            let runs = (0..n)
                .map(|d| {
                    let mut ins = zeros(b);
                    // The probed operand: digit d of its linear index, plus 1.
                    ins[slot_of(op)] = (0..l.elements())
                        .map(|code| encode(t, ((code as u64 / r.pow(d as u32)) % r + 1) as f64))
                        .collect();
                    match op {
                        Operand::A => select_b(b, phase, one(b.b_type), &mut ins),
                        Operand::B => select_a(b, phase, one(b.a_type), &mut ins),
                        _ => {}
                    }
                    ins
                })
                .collect();
            out.push(LayoutGroup {
                operand: op,
                phase,
                radix: r,
                runs,
            });
        }
    }
    if let Some(sp) = b.sparse {
        // Stored value s of every group is s + 1; the sets hold different
        // pairs for the same (row, group).
        for phase in 0..b.k.div_ceil(b.n) {
            let mut ins = zeros(b);
            let la = b.a;
            ins[0] = (0..la.elements())
                .map(|x| encode(b.a_type, (la.delinear(x).col % 2 + 1) as f64))
                .collect();
            ins[3] = (0..sp.idx.elements())
                .map(|x| {
                    let c = sp.idx.delinear(x);
                    field(PAIRS[(c.block + c.row + c.col) % PAIRS.len()])
                })
                .collect();
            select_b(b, phase, one(b.b_type), &mut ins);
            out.push(LayoutGroup {
                operand: Operand::Idx,
                phase,
                radix: 3,
                runs: vec![ins],
            });
        }
    }
    out
}

/// B as the selector of A's probe: in every block, column j takes the k
/// `phase·N + j` (for SMFMAC the logical k).
fn select_b(b: &Builtin, phase: usize, one: u64, ins: &mut Inputs) {
    let l = b.b;
    ins[1] = (0..l.elements())
        .map(|x| {
            let c = l.delinear(x);
            if c.row == phase * b.n + c.col {
                one
            } else {
                0
            }
        })
        .collect();
}

/// A as the selector of B's probe: in every block, row i takes the k
/// `phase·M + i`. For SMFMAC that k is stored (value 1) with an index field
/// that places it, in every set.
fn select_a(b: &Builtin, phase: usize, one: u64, ins: &mut Inputs) {
    let l = b.a;
    match b.sparse {
        None => {
            ins[0] = (0..l.elements())
                .map(|x| {
                    let c = l.delinear(x);
                    if c.col == phase * b.m + c.row {
                        one
                    } else {
                        0
                    }
                })
                .collect();
        }
        Some(sp) => {
            ins[0] = vec![0; l.elements()];
            for i in 0..b.m {
                let k = phase * b.m + i;
                if k >= b.k {
                    continue;
                }
                let (g, pos) = (k / Sparse::GROUP, (k % Sparse::GROUP) as u64);
                // The stored value at `pos`: the first of (pos, pos + 1), or
                // the second of (2, 3).
                let (pair, s) = if pos < 3 {
                    ((pos, pos + 1), 0)
                } else {
                    ((2, 3), 1)
                };
                ins[0][l.linear(Coord::new(0, i, Sparse::STORED * g + s))] = one;
                for set in 0..sp.sets {
                    ins[3][sp.idx.linear(Coord::new(set, i, g))] = field(pair);
                }
            }
        }
    }
}

/// A numerics pattern: what the inputs are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Ordinary values: normal deviates rounded to the types (integers
    /// uniform).
    Ordinary,
    /// Uniformly random bits: every encoding, NaN and infinity included,
    /// at its natural frequency.
    RandomBits,
    /// Half the elements special (zeros, subnormals, extremes, infinities,
    /// NaNs, ±1), the rest ordinary.
    Specials,
    /// Subnormal inputs and accumulator: flushing and its absence.
    Subnormals,
    /// Products that cancel in pairs up to a last bit, on a small C:
    /// truncation and rounding of the sum.
    Cancellation,
    /// Inputs and C near the largest finite values: overflow, and
    /// wrap-around for integers.
    Overflow,
    /// SMFMAC: every index field with its positions in descending order.
    ReversedIndex,
}

impl Pattern {
    /// Its name in messages and the report.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Ordinary => "ordinary",
            Pattern::RandomBits => "random bits",
            Pattern::Specials => "specials",
            Pattern::Subnormals => "subnormals",
            Pattern::Cancellation => "cancellation",
            Pattern::Overflow => "overflow",
            Pattern::ReversedIndex => "reversed index",
        }
    }

    /// The patterns that mean something for `b`.
    pub fn for_builtin(b: &Builtin) -> Vec<Pattern> {
        let mut out = vec![Pattern::Ordinary, Pattern::RandomBits, Pattern::Specials];
        if b.a_type.is_float() {
            out.extend([Pattern::Subnormals, Pattern::Cancellation]);
        }
        out.push(Pattern::Overflow);
        if b.is_sparse() {
            out.push(Pattern::ReversedIndex);
        }
        out
    }
}

/// The inputs of one numerics run of `b`.
pub fn numerics(b: &Builtin, pattern: Pattern, seed: u64) -> Inputs {
    let mut r = Rng::new(seed ^ 0x6d66_6d61_7072_6f62);
    let mut ins = zeros(b);
    for (slot, &op) in super::device::inputs_of(b).iter().enumerate() {
        if op == Operand::Idx {
            continue;
        }
        let t = b.elem(op);
        ins[slot] = (0..b.layout(op).elements())
            .map(|_| element(&mut r, t, pattern, op == Operand::C))
            .collect();
    }
    if pattern == Pattern::Cancellation {
        cancel(b, &mut ins, &mut r);
    }
    if let Some(sp) = b.sparse {
        ins[3] = (0..sp.idx.elements())
            .map(|_| {
                let (p, q) = PAIRS[r.below(PAIRS.len() as u64) as usize];
                field(if pattern == Pattern::ReversedIndex {
                    (q, p)
                } else {
                    (p, q)
                })
            })
            .collect();
    }
    ins
}

/// One input element of type `t` under `pattern` (`acc`: of C).
fn element(r: &mut Rng, t: ElemType, pattern: Pattern, acc: bool) -> u64 {
    match pattern {
        Pattern::Ordinary | Pattern::ReversedIndex => {
            let x = r.ordinary(t);
            if acc && t.is_float() {
                encode(t, super::values::value(t, x) * 4.0)
            } else {
                x
            }
        }
        Pattern::RandomBits => r.bits(t),
        Pattern::Specials => {
            let s = specials(t);
            if r.below(2) == 0 && !s.is_empty() {
                s[r.below(s.len() as u64) as usize]
            } else {
                r.ordinary(t)
            }
        }
        Pattern::Subnormals => match r.below(4) {
            0 => r.ordinary(t),
            _ => subnormal(t, r.next()),
        },
        Pattern::Cancellation => {
            if acc {
                // A small C: the cancelled sum is of its size.
                encode(t, r.normal() * 1e-3)
            } else {
                r.ordinary(t)
            }
        }
        Pattern::Overflow => match t {
            ElemType::I8 => [0x7f, 0x80, 0x7e, 0x81][r.below(4) as usize],
            ElemType::I32 => [0x7fff_ffff, 0x8000_0000, 0x7fff_0000][r.below(3) as usize],
            _ => {
                // The largest finite value, scaled by up to 1/4 down.
                let max = specials(t)
                    .iter()
                    .map(|&x| super::values::value(t, x))
                    .filter(|v| v.is_finite())
                    .fold(0.0, f64::max);
                let v = max * (1.0 - 0.25 * (r.below(1024) as f64 / 1024.0));
                encode(t, if r.below(4) == 0 { -v } else { v })
            }
        },
    }
}

/// Makes the products of each row of A and column of B cancel in pairs:
/// `A[i][2h+1]` is `A[i][2h]` one unit in the last place away, and
/// `B[2h+1][j] = -B[2h][j]`, so each pair sums to one product's last bit.
fn cancel(b: &Builtin, ins: &mut Inputs, r: &mut Rng) {
    let flip = |t: ElemType, x: u64| x ^ (1 << (t.bits() - 1));
    let (la, lb): (&Layout, &Layout) = (&b.a, &b.b);
    let tb = b.b_type;
    for x in 0..la.elements() {
        let c = la.delinear(x);
        if c.col % 2 == 1 {
            let prev = ins[0][la.linear(Coord::new(c.block, c.row, c.col - 1))];
            // One ulp up or down (the pattern of an ordinary value: the
            // neighbour is ordinary too, or zero).
            ins[0][x] = if prev == 0 {
                0
            } else if r.below(2) == 0 {
                prev + 1
            } else {
                prev.max(1) - 1
            };
        }
    }
    for x in 0..lb.elements() {
        let c = lb.delinear(x);
        if c.row % 2 == 1 {
            let prev = ins[1][lb.linear(Coord::new(c.block, c.row - 1, c.col))];
            ins[1][x] = flip(tb, prev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_cover_every_coordinate() {
        assert_eq!(digits(256, 2048), 1);
        assert_eq!(digits(512, 16), 3);
        assert_eq!(digits(256, 16), 2);
        assert_eq!(digits(1, 8), 1);
        for x in mfma_spec::ARCHS.iter().flat_map(|a| a.builtins) {
            for g in layout(x) {
                let l = x.layout(g.operand);
                assert!(
                    g.radix.pow(g.runs.len() as u32) >= l.elements() as u64
                        || g.operand == Operand::Idx
                );
                for ins in &g.runs {
                    assert_eq!(ins.len(), super::super::device::inputs_of(x).len());
                }
            }
        }
    }

    #[test]
    fn the_sparse_selector_places_one_stored_value_per_row() {
        let x = mfma_spec::find("cdna3::smfmac_f32_16x16x32_f16").unwrap();
        let g = layout(x)
            .into_iter()
            .find(|g| g.operand == Operand::B && g.phase == 1)
            .unwrap();
        let ins = &g.runs[0];
        for i in 0..x.m {
            let stored: Vec<usize> = (0..x.k / 2)
                .filter(|&kc| ins[0][x.a.linear(Coord::at(i, kc))] != 0)
                .collect();
            assert_eq!(stored.len(), 1, "row {i}");
            let k = 16 + i; // phase 1 of M = 16
            let sp = x.sparse.unwrap();
            let f = ins[3][sp.idx.linear(Coord::new(2, i, k / 4))];
            let pos = [f & 3, f >> 2];
            assert_eq!(pos[stored[0] % 2] as usize, k % 4);
        }
    }
}
