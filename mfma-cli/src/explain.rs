//! What a modifier value does, in words, for headers and `info`. The
//! sentences are read off the spec's routing functions
//! (`Modifiers::b_source_lane`, `Modifiers::a_source_block`), so they say
//! what the layouts do rather than restating the reference.

use crate::modifiers;
use mfma_spec::{Builtin, Modifier, Modifiers, WAVE};

/// `src(L) = base + (L + shift) mod width`: every blgp pattern has this shape.
struct Pattern {
    width: usize,
    base: usize,
    shift: usize,
}

/// The smallest description of `src` of that shape, if there is one.
fn pattern(src: impl Fn(usize) -> usize) -> Option<Pattern> {
    let widths = (0..=WAVE.trailing_zeros()).map(|p| 1usize << p);
    widths.rev().find_map(|width| {
        (0..WAVE).step_by(width).find_map(|base| {
            (0..width)
                .map(|shift| Pattern { width, base, shift })
                .find(|p| (0..WAVE).all(|l| src(l) == p.base + (l + p.shift) % p.width))
        })
    })
}

/// `blgp 3: lane L reads B from lane (L+16) mod 64 (rotated by 16 lanes)`.
pub fn blgp(g: i64) -> String {
    let m = Modifiers::new(0, 0, g);
    let src = |l| m.b_source_lane(l);
    let Some(Pattern { width, base, shift }) = pattern(src) else {
        let all: Vec<String> = (0..WAVE).map(|l| src(l).to_string()).collect();
        return format!("blgp {g}: lanes 0..63 read B from lanes {}", all.join(", "));
    };
    let from = match (base, shift) {
        (0, 0) if width == WAVE => "L".to_string(),
        (0, 0) => format!("L mod {width}"),
        (0, s) => format!("(L+{s}) mod {width}"),
        (b, 0) => format!("{b} + L mod {width}"),
        (b, s) => format!("{b} + (L+{s}) mod {width}"),
    };
    let gloss = if width == WAVE && shift == 0 {
        "its own lane".to_string()
    } else if width == WAVE {
        format!("rotated by {shift} lanes")
    } else {
        format!(
            "lanes {base}-{} copied to every {width}-lane group",
            base + width - 1
        )
    };
    format!("blgp {g}: lane L reads B from lane {from} ({gloss})")
}

/// `cbsz 1, abid 1: blocks in groups of 2, each group reads A of its block 1
/// (blocks 0..3 read A of 1, 1, 3, 3)`; on SMFMAC the index set read.
pub fn broadcast(b: &Builtin, m: Modifiers) -> String {
    let head = format!("cbsz {}, abid {}", m.cbsz, m.abid);
    if let Some(s) = b.sparse {
        let set = s.index_set(m);
        let bits = s.set_bits() as usize;
        let why = if m.cbsz == 0 {
            "abid picks it as cbsz is 0".to_string()
        } else {
            format!("cbsz {} reads set 0 whatever abid is", m.cbsz)
        };
        return format!(
            "{head}: the instruction reads index set {set} (bits {}:{} of idx; {why}); \
             A is never broadcast",
            bits * (set + 1) - 1,
            bits * set
        );
    }
    if m.cbsz == 0 {
        return format!("{head}: every block reads its own A");
    }
    let sources: Vec<String> = (0..b.blocks)
        .map(|blk| m.a_source_block(blk).to_string())
        .collect();
    format!(
        "{head}: blocks in groups of {}, each group reads A of its block {} \
         (blocks 0..{} read A of {})",
        1i64 << m.cbsz,
        m.abid,
        b.blocks - 1,
        sources.join(", ")
    )
}

/// `neg [a, c]: A and C are negated before the arithmetic; no data moves`.
pub fn neg(m: Modifiers) -> String {
    let names: Vec<String> = modifiers::negated(m)
        .iter()
        .map(|n| n.to_uppercase())
        .collect();
    let (list, verb) = match names.as_slice() {
        [] => return format!("{}: nothing is negated", modifiers::neg_text(m)),
        [one] => (one.clone(), "is"),
        [init @ .., last] => (format!("{} and {last}", init.join(", ")), "are"),
    };
    format!(
        "{}: {list} {verb} negated before the arithmetic; no data moves",
        modifiers::neg_text(m)
    )
}

/// One sentence for every nonzero modifier of `m` on `b`, in the order they
/// are written.
pub fn all(b: &Builtin, m: Modifiers) -> Vec<String> {
    let mut out = Vec::new();
    if m.cbsz != 0 || m.abid != 0 {
        out.push(broadcast(b, m));
    }
    if m.blgp != 0 {
        out.push(blgp(m.blgp));
    }
    if m.neg != 0 {
        out.push(neg(m));
    }
    out
}

/// The general rule of each modifier `b` takes, for `info`: the broadcast
/// rule, every blgp pattern, or what negation does.
pub fn rules(b: &Builtin) -> Vec<(&'static str, Vec<String>)> {
    if let Some(s) = b.sparse {
        let bits = s.set_bits();
        return vec![(
            "index set",
            vec![format!(
                "cbsz 0, abid a: the instruction reads index set a (bits {bits}a+{}:{bits}a of \
                 idx); cbsz 1..={}: set 0, and abid (still below {}) changes nothing; A is \
                 never broadcast",
                bits - 1,
                mfma_spec::Sparse::CBSZ_MAX,
                s.sets
            )],
        )];
    }
    modifiers::kinds(b)
        .into_iter()
        .filter_map(|kind| match kind {
            Modifier::Cbsz => Some((
                "broadcast",
                vec![
                    "cbsz c, abid a: blocks in groups of 2^c, each group reads A of its block a"
                        .to_string(),
                ],
            )),
            Modifier::Abid => None,
            Modifier::Blgp => Some((
                "lane patterns",
                (0..=Modifier::Blgp.max(b)).map(blgp).collect(),
            )),
            Modifier::Neg => Some((
                "negation",
                vec![
                    "each operand named in neg has its values negated before the arithmetic \
                      (bit 0 A, bit 1 B, bit 2 C of the blgp field); no data moves, so the \
                      layouts are the plain ones"
                        .to_string(),
                ],
            )),
        })
        .collect()
}
