//! How a builtin computes, in words, for `info`: the spec's arithmetic
//! family (its `Arith`, not the architecture's name, decides) and what the
//! inputs go through first.

use mfma_spec::{Arith, BlgpBits, Builtin, ElemType};

/// The arithmetic family in words, with what the inputs go through first.
/// For SMFMAC, first the assumption the software path rests on (CDNA3
/// reference section 6), then its dense twin's arithmetic.
pub fn arithmetic(b: &Builtin) -> String {
    if let Some(twin) = b.dense_twin() {
        let half = b.k / 2;
        return format!(
            "ASSUMPTION: no bit-accurate reference of SMFMAC arithmetic exists; the software \
             path computes two chained dense {} instructions (logical k 0..={}, then \
             {half}..={}) on the decompressed A (the stored values at their positions, +0 \
             elsewhere). Each of them: {}",
            twin.path(),
            half - 1,
            b.k - 1,
            arithmetic(twin)
        );
    }
    let mut out = family(b);
    if b.a_type == ElemType::Xf32 {
        out.push_str("; xf32 inputs are truncated to tf32 first (low 13 mantissa bits cleared)");
    }
    let mut formats: Vec<&str> = Vec::new();
    for t in [b.a_type, b.b_type] {
        let what = match t {
            ElemType::Fp8 => "fp8 is E4M3 FNUZ",
            ElemType::Bf8 => "bf8 is E5M2 FNUZ",
            _ => continue,
        };
        if !formats.contains(&what) {
            formats.push(what);
        }
    }
    if !formats.is_empty() {
        out.push_str(&format!(
            "; {} (no infinities, 0x80 the only NaN, no -0)",
            formats.join(", ")
        ));
    }
    if b.blgp == BlgpBits::Negate {
        out.push_str("; neg flips the sign of A, B or C before the arithmetic");
    }
    out
}

fn family(b: &Builtin) -> String {
    match b.arith {
        Arith::ChainedFma => format!(
            "chained fused multiply-adds in {}, k ascending, IEEE round-to-nearest-even, subnormals kept",
            b.cd.name()
        ),
        Arith::GroupedSum { group } => format!(
            "products summed in pairwise trees of {group} consecutive k, each tree added to the {} \
             accumulator, flush-to-zero at every step",
            b.cd.name()
        ),
        Arith::TruncatedDot { group } => format!(
            "each group of {group} consecutive k one step: exact products truncated at the \
             largest product's exponent (24 bits), summed exactly, added to the floored {} \
             accumulator, floored and rounded once to nearest even; no flush to zero",
            b.cd.name()
        ),
        Arith::SplitTruncatedDot { group } => format!(
            "each group of {group} consecutive k one step: exact products, the even and the odd k \
             truncated and summed apart at their own largest exponent, added, then added to the \
             {} accumulator (dropped when 25 binades smaller), floored and rounded once",
            b.cd.name()
        ),
        Arith::WrappingInt => format!(
            "exact products summed into {} with two's complement wrap-around",
            b.cd.name()
        ),
    }
}
