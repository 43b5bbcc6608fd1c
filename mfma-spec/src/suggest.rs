//! "Did you mean ...?" for misspelt builtin names.

use crate::{Builtin, ARCHS};

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

/// Fields of a name of the form `<out>_<M>x<N>x<K><in>[_1k]`.
#[derive(PartialEq)]
struct Parts<'a> {
    out: &'a str,
    m: &'a str,
    n: &'a str,
    k: &'a str,
    input: &'a str,
    one_k: bool,
}

fn parts(name: &str) -> Option<Parts<'_>> {
    let (out, rest) = name.split_once('_')?;
    let (m, rest) = rest.split_once('x')?;
    let (n, rest) = rest.split_once('x')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (k, rest) = rest.split_at(digits);
    // Any suffix after the input type (`_1k`, or a typo of it) counts as `_1k`.
    let (input, suffix) = rest.split_once('_').unwrap_or((rest, ""));
    let one_k = !suffix.is_empty();
    Some(Parts {
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
            let fields = 4 * usize::from(!w.input.eq_ignore_ascii_case(c.input))
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
/// order). A `__builtin_amdgcn_mfma_` or `v_mfma_` prefix is ignored.
///
/// ```
/// assert_eq!(mfma_spec::closest("f32_32x32x8bf16").name, "f32_32x32x8bf16_1k");
/// assert_eq!(mfma_spec::closest("f64_16x16x4").name, "f64_16x16x4f64");
/// assert_eq!(mfma_spec::closest("f32_32x32x8bf16_k1").name, "f32_32x32x8bf16_1k");
/// assert_eq!(mfma_spec::closest("f32_16x16x16fp16").name, "f32_16x16x16f16");
/// ```
pub fn closest(name: &str) -> &'static Builtin {
    let name = strip_prefix(name);
    let mut best = &ARCHS[0].builtins[0];
    let mut best_d = usize::MAX;
    for arch in ARCHS {
        for b in arch.builtins {
            let d = score(name, b.name);
            if d < best_d {
                best = b;
                best_d = d;
            }
        }
    }
    best
}

/// Removes the spellings people copy from HIP or assembly.
pub fn strip_prefix(name: &str) -> &str {
    ["__builtin_amdgcn_mfma_", "v_mfma_", "mfma_"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .unwrap_or(name)
}
