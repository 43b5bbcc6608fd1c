//! The modifiers of one command line: parsed, checked by the spec's rules
//! (so the message is the one `mfma!` prints), and written back as text.

use crate::args::ModifierArgs;
use crate::error::{Error, Result};
use mfma_spec::{BlgpBits, Builtin, Modifier, Modifiers, Operand};

/// The operands `--neg` may name: D is the result, never an input.
const NEGATABLE: [Operand; 3] = [Operand::A, Operand::B, Operand::C];

/// `--neg a,c` as a list of operands.
fn neg_operands(text: &str) -> Result<Vec<Operand>> {
    text.split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| {
            Operand::from_name(w)
                .filter(|op| NEGATABLE.contains(op))
                .ok_or_else(|| {
                    Error::new(format!(
                        "bad --neg `{text}`: expected operands among a, b, c, comma-separated \
                         (`{w}` is not one: D is the result, and c negates the accumulator input)"
                    ))
                })
        })
        .collect()
}

/// The modifiers, checked by the same rules (and with the same messages) as `mfma!`.
pub fn parse(b: &'static Builtin, m: &ModifierArgs) -> Result<Modifiers> {
    let neg = match &m.neg {
        Some(text) => Modifiers::neg_mask(&neg_operands(text)?),
        None => 0,
    };
    let m = Modifiers::new(m.cbsz, m.abid, m.blgp).with_neg(neg);
    mfma_spec::validate(b, m).map_err(|e| Error::new(e.to_string()))?;
    Ok(m)
}

/// The negated operands of `m`, by name (`["a", "c"]`).
pub fn negated(m: Modifiers) -> Vec<&'static str> {
    NEGATABLE
        .into_iter()
        .filter(|&op| m.negates(op))
        .map(Operand::name)
        .collect()
}

/// `neg [a, c]`.
pub fn neg_text(m: Modifiers) -> String {
    format!("neg [{}]", negated(m).join(", "))
}

/// The values as one phrase: `cbsz 1, abid 1, blgp 0`, or where the blgp
/// bits are negation flags `cbsz 0, abid 0, neg [a, c]`; SMFMAC, which has
/// no blgp, `cbsz 0, abid 2`.
pub fn text(b: &Builtin, m: Modifiers) -> String {
    if b.is_sparse() {
        return format!("cbsz {}, abid {}", m.cbsz, m.abid);
    }
    let last = match b.blgp {
        BlgpBits::Negate => neg_text(m),
        BlgpBits::Pattern | BlgpBits::Unused => format!("blgp {}", m.blgp),
    };
    format!("cbsz {}, abid {}, {last}", m.cbsz, m.abid)
}

/// The modifiers builtin `b` takes at all, in the order they are written.
pub fn kinds(b: &Builtin) -> Vec<Modifier> {
    Modifier::ALL.into_iter().filter(|m| m.max(b) > 0).collect()
}

/// The names of the immediates of `b`, for "(cbsz, abid, blgp)"; SMFMAC's
/// builtin takes only `(cbsz, abid)`.
pub fn immediates(b: &Builtin) -> &'static str {
    if b.is_sparse() {
        return "(cbsz, abid)";
    }
    match b.blgp {
        BlgpBits::Negate => "(cbsz, abid, neg)",
        BlgpBits::Pattern | BlgpBits::Unused => "(cbsz, abid, blgp)",
    }
}
