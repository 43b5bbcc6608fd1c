//! "Did you mean ...?" for misspelt builtin names.

use crate::{Arch, Builtin, ARCHS};
use core::fmt;

/// Longest name compared in full; longer input is cut (no builtin name comes close).
const MAX: usize = 64;

/// Levenshtein distance between two ASCII-ish strings, cut to 64 bytes.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a = &a.as_bytes()[..a.len().min(MAX)];
    let b = &b.as_bytes()[..b.len().min(MAX)];
    let mut prev = [0usize; MAX + 1];
    let mut cur = [0usize; MAX + 1];
    for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *p = j;
    }
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(!a[i - 1].eq_ignore_ascii_case(&b[j - 1]));
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Fields of a name of the form `[smfmac_]<out>_<M>x<N>x<K><in>[_1k]`.
#[derive(PartialEq)]
struct Parts<'a> {
    sparse: bool,
    out: &'a str,
    m: &'a str,
    n: &'a str,
    k: &'a str,
    input: &'a str,
    one_k: bool,
}

fn parts(name: &str) -> Option<Parts<'_>> {
    let (sparse, name) = match name.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("smfmac_") => (true, &name[7..]),
        _ => (false, name),
    };
    let (out, rest) = name.split_once('_')?;
    let (m, rest) = rest.split_once('x')?;
    let (n, rest) = rest.split_once('x')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (k, rest) = rest.split_at(digits);
    // CDNA3 writes `_` between K and the type (`16x16x32_fp8_bf8`).
    let rest = rest.strip_prefix('_').unwrap_or(rest);
    let (input, suffix) = rest.split_once('_').unwrap_or((rest, ""));
    // A second input type (`fp8_bf8`) belongs to the input; any other
    // suffix (`_1k`, or a typo of it) counts as `_1k`.
    let typed = crate::ElemType::ALL
        .iter()
        .any(|t| t.name().eq_ignore_ascii_case(suffix));
    let (input, one_k) = if typed {
        (rest, false)
    } else {
        (input, !suffix.is_empty())
    };
    // One 8-bit float type written for both inputs (`..._fp8`) means both.
    let input = match input {
        i if i.eq_ignore_ascii_case("fp8") => "fp8_fp8",
        i if i.eq_ignore_ascii_case("bf8") => "bf8_bf8",
        i => i,
    };
    Some(Parts {
        sparse,
        out,
        m,
        n,
        k,
        input,
        one_k,
    })
}

/// How far apart two names are: by their fields when both parse (the input
/// type weighs most, then output type and K, then M, N and `_1k`), with the
/// edit distance breaking ties; by edit distance alone otherwise.
fn score(wanted: &str, candidate: &str) -> usize {
    let lev = edit_distance(wanted, candidate);
    match (parts(wanted), parts(candidate)) {
        (Some(w), Some(c)) => {
            let fields = 5 * usize::from(w.sparse != c.sparse)
                + 4 * usize::from(!w.input.eq_ignore_ascii_case(c.input))
                + 3 * usize::from(!w.out.eq_ignore_ascii_case(c.out))
                + 2 * usize::from(w.k != c.k)
                + usize::from(w.m != c.m)
                + usize::from(w.n != c.n)
                + usize::from(w.one_k != c.one_k);
            fields * 100 + lev
        }
        _ => lev * 100,
    }
}

/// The builtin whose name is closest to `name` (ties: the first in table
/// order), in the architecture its `arch::` prefix names (the default one,
/// CDNA2, without a prefix; every architecture for an unknown prefix). A
/// `__builtin_amdgcn_mfma_` or `v_mfma_` prefix is ignored.
///
/// ```
/// assert_eq!(mfma_spec::closest("f32_32x32x8bf16").name, "f32_32x32x8bf16_1k");
/// assert_eq!(mfma_spec::closest("f64_16x16x4").name, "f64_16x16x4f64");
/// assert_eq!(mfma_spec::closest("f32_32x32x8bf16_k1").name, "f32_32x32x8bf16_1k");
/// assert_eq!(mfma_spec::closest("f32_16x16x16fp16").name, "f32_16x16x16f16");
/// assert_eq!(mfma_spec::closest("cdna3::f32_32x32x16_fp8").name, "f32_32x32x16_fp8_fp8");
/// ```
pub fn closest(name: &str) -> &'static Builtin {
    let (prefix, bare) = crate::split_arch(name);
    match prefix.map(crate::arch) {
        None => closest_in(ARCHS[0], bare),
        Some(Some(table)) => closest_in(table, bare),
        Some(None) => ARCHS
            .iter()
            .map(|a| closest_in(a, bare))
            .min_by_key(|b| score(strip_prefix(bare), b.name))
            .expect("at least one architecture"),
    }
}

/// The builtin of `table` whose name is closest to `name`.
fn closest_in(table: &'static Arch, name: &str) -> &'static Builtin {
    let name = strip_prefix(name);
    let mut best = &table.builtins[0];
    let mut best_d = usize::MAX;
    for b in table.builtins {
        let d = score(name, b.name);
        if d < best_d {
            best = b;
            best_d = d;
        }
    }
    best
}

/// Removes the spellings people copy from HIP or assembly
/// (`__builtin_amdgcn_mfma_`, `v_mfma_`, `mfma_`; `__builtin_amdgcn_` and
/// `v_` before `smfmac_`).
///
/// ```
/// use mfma_spec::strip_prefix;
/// assert_eq!(strip_prefix("v_mfma_f64_4x4x4f64"), "f64_4x4x4f64");
/// assert_eq!(strip_prefix("__builtin_amdgcn_smfmac_f32_16x16x32_f16"), "smfmac_f32_16x16x32_f16");
/// ```
pub fn strip_prefix(name: &str) -> &str {
    [
        "__builtin_amdgcn_mfma_",
        "__builtin_amdgcn_",
        "v_mfma_",
        "v_",
        "mfma_",
    ]
    .iter()
    .find_map(|p| name.strip_prefix(p))
    .unwrap_or(name)
}

/// Why [`lookup`](crate::lookup) found no builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupError<'a> {
    /// The `arch::` prefix names no architecture.
    UnknownArch {
        /// The prefix as given.
        given: &'a str,
    },
    /// The architecture has no builtin of that name.
    UnknownName {
        /// The architecture searched.
        arch: &'static Arch,
        /// The name as given (without the architecture prefix).
        given: &'a str,
        /// The closest builtin of `arch`.
        closest: &'static Builtin,
        /// A builtin of another architecture with exactly that name, and
        /// what `arch` has in its place (see [`Builtin::counterpart`]).
        elsewhere: Option<(&'static Builtin, Option<&'static Builtin>)>,
    },
}

impl LookupError<'_> {
    /// The builtin to suggest: `arch`'s counterpart of the same name
    /// elsewhere, else the closest name.
    pub fn suggestion(&self) -> Option<&'static Builtin> {
        match *self {
            LookupError::UnknownArch { .. } => None,
            LookupError::UnknownName {
                closest, elsewhere, ..
            } => Some(match elsewhere {
                Some((_, Some(counterpart))) => counterpart,
                _ => closest,
            }),
        }
    }
}

impl fmt::Display for LookupError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LookupError::UnknownArch { given } => {
                write!(f, "unknown architecture `{given}`: expected ")?;
                for (i, a) in ARCHS.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        i if i + 1 == ARCHS.len() => " or ",
                        _ => ", ",
                    };
                    write!(f, "{sep}`{}` ({})", a.name, a.title)?;
                }
                Ok(())
            }
            LookupError::UnknownName {
                arch,
                given,
                closest,
                elsewhere,
            } => {
                write!(f, "unknown {} builtin `{given}`: ", arch.title)?;
                match elsewhere {
                    Some((other, counterpart)) => {
                        for (i, t) in arch.targets.iter().enumerate() {
                            write!(f, "{}{t}", if i == 0 { "" } else { "/" })?;
                        }
                        write!(
                            f,
                            " has no such instruction (it is {}'s)",
                            crate::arch_of(other).title
                        )?;
                        match counterpart {
                            Some(c) => write!(f, "; {} has `{}`", arch.title, c.path()),
                            None => write!(f, "; {} has nothing like it", arch.title),
                        }
                    }
                    None => write!(f, "did you mean `{}`?", closest.path()),
                }
            }
        }
    }
}

/// The error for `name`, unknown in `table`.
pub(crate) fn unknown<'a>(table: &'static Arch, name: &'a str) -> LookupError<'a> {
    let elsewhere = ARCHS
        .iter()
        .filter(|a| **a != table)
        .find_map(|a| a.find(name))
        .map(|other| (other, other.counterpart(table)));
    LookupError::UnknownName {
        arch: table,
        given: name,
        closest: closest_in(table, name),
        elsewhere,
    }
}
