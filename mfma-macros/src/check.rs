//! The rules `mfma!` enforces, one function a rule. Each returns a spanned
//! error; the modifier rules themselves live in `mfma_spec` so that the CLI
//! (and the compile-time backstop for named constants) reports the same text.

use crate::parse::{Arg, Call};
use mfma_spec::{Arch, Builtin, Modifier, Modifiers, Operand};
use proc_macro2::Span;
use quote::ToTokens;
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, UnOp};

/// A modifier as the expansion will pass it.
pub enum Value {
    /// A literal, already checked.
    Known(i64),
    /// A named constant or other expression: checked by a `const` block the
    /// expansion puts at the call.
    Deferred(Expr),
}

impl Value {
    fn known(&self) -> Option<i64> {
        match self {
            Value::Known(v) => Some(*v),
            Value::Deferred(_) => None,
        }
    }
}

/// What a call checked into: always complete enough to expand, with the
/// first error (if any) to report beside it.
pub struct Checked {
    /// Whether this is an SMFMAC call (it takes an index operand).
    pub sparse: bool,
    /// The operands (a, b, c, and idx for SMFMAC; or c alone for a
    /// chain); missing ones are `None`.
    pub operands: Vec<Option<Expr>>,
    /// The chain form's slices (a, b, and idx for SMFMAC); missing ones are `None`.
    pub chain: Option<Vec<Option<Expr>>>,
    /// cbsz, abid, blgp in that order.
    pub modifiers: [Value; 3],
    /// The negation mask (`neg = [a, c]` is `0b101`); always a literal.
    pub neg: i64,
}

impl Checked {
    /// Whether every modifier is a literal (then the macro has checked them all).
    pub fn all_known(&self) -> bool {
        self.modifiers.iter().all(|v| v.known().is_some())
    }
}

/// Rule: the name is a builtin of a known architecture. The error carries
/// the builtin to suggest, which type position expands to so that nothing
/// else is reported about the name.
pub fn builtin(
    arch: Option<&Ident>,
    name: &Ident,
    span: Span,
) -> Result<&'static Builtin, (syn::Error, &'static Builtin)> {
    let s = match arch {
        Some(a) => format!("{a}::{name}"),
        None => name.to_string(),
    };
    mfma_spec::lookup(&s).map_err(|e| {
        let (table, best) = match e {
            mfma_spec::LookupError::UnknownArch { .. } => {
                (mfma_spec::ARCHS[0], mfma_spec::closest(&name.to_string()))
            }
            mfma_spec::LookupError::UnknownName { arch, .. } => (
                arch,
                e.suggestion().expect("an unknown name has a suggestion"),
            ),
        };
        let list = if table.is_default() {
            String::from("`mfma list`")
        } else {
            format!("`mfma list --arch {}`", table.name)
        };
        let msg = match e {
            mfma_spec::LookupError::UnknownArch { .. } => e.to_string(),
            _ => format!(
                "{e} ({list} shows all {} {} builtins)",
                table.builtins.len(),
                table.title
            ),
        };
        let at = match (e, arch) {
            (mfma_spec::LookupError::UnknownArch { .. }, Some(a)) => a.span(),
            _ => span,
        };
        (syn::Error::new(at, msg), best)
    })
}

/// Checks a call of builtin `b` (`None`: a type, whose rules the expansion
/// checks in `const`); returns what to expand and the first error, if any.
pub fn call(b: Option<&'static Builtin>, call: &Call) -> (Checked, Option<syn::Error>) {
    let mut errors = Errors(None);
    let sparse = is_sparse_call(b, call);
    let chain = chain(b, sparse, call, &mut errors);
    let operands = operands(b, sparse, call, &mut errors);
    let (modifiers, neg) = modifiers(b, call, &mut errors);
    (
        Checked {
            sparse,
            operands,
            chain,
            modifiers,
            neg,
        },
        errors.0,
    )
}

/// Whether the call is an SMFMAC's: the spec says so for a builtin; for a
/// type, the form does (four operands, or three slices in a chain), and the
/// trait bound of `execute_sparse` checks it.
fn is_sparse_call(b: Option<&Builtin>, call: &Call) -> bool {
    match b {
        Some(b) => b.is_sparse(),
        None => match &call.chain {
            Some((_, slices)) => slices.len() == 3,
            None => {
                call.args
                    .iter()
                    .filter(|a| matches!(a, Arg::Operand(_)))
                    .count()
                    == 4
            }
        },
    }
}

/// Rule: a chain's brackets hold two slices, `[a, b]`, or three for
/// SMFMAC, `[a, b, idx]`.
fn chain(
    b: Option<&Builtin>,
    sparse: bool,
    call: &Call,
    errors: &mut Errors,
) -> Option<Vec<Option<Expr>>> {
    let (span, slices) = call.chain.as_ref()?;
    let want = if sparse { 3 } else { 2 };
    if slices.len() != want {
        errors.push(syn::Error::new(
            *span,
            if sparse {
                format!(
                    "a chain of {} takes three slices of fragments: `name[a, b, idx](c)` runs \
                     `a[t], b[t], idx[t]` for every t on the accumulator c",
                    shown(b)
                )
            } else {
                String::from(
                    "a chain takes two slices of fragments: `name[a, b](c)` runs \
                     `a[t], b[t]` for every t on the accumulator c",
                )
            },
        ));
    }
    Some((0..want).map(|i| slices.get(i).cloned()).collect())
}

/// Keeps the first error only: one mistake, one message.
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        self.0.get_or_insert(e);
    }
}

/// How a builtin is named in messages (`cdna3::f32_...`, or "the builtin").
fn shown(b: Option<&Builtin>) -> String {
    b.map_or_else(|| String::from("this builtin"), |b| b.path().to_string())
}

/// Rule: exactly three operands (a, b, c), four for SMFMAC (a, b, c,
/// idx), before any modifier; a chain (`name[a, b](c)`) takes one, c.
fn operands(
    b: Option<&Builtin>,
    sparse: bool,
    call: &Call,
    errors: &mut Errors,
) -> Vec<Option<Expr>> {
    let names: &[&str] = match (call.chain.is_some(), sparse) {
        (true, _) => &["c"],
        (false, false) => &["a", "b", "c"],
        (false, true) => &["a", "b", "c", "idx"],
    };
    let want = names.len();
    let form = match (call.chain.is_some(), sparse) {
        (true, false) => "name[a, b](c, cbsz = .., abid = .., blgp = ..)",
        (true, true) => "name[a, b, idx](c, cbsz = .., abid = ..)",
        (false, false) => "name(a, b, c, cbsz = .., abid = .., blgp = ..)",
        (false, true) => "name(a, b, c, idx, cbsz = .., abid = ..)",
    };
    let mut out: Vec<Option<Expr>> = vec![None; want];
    let mut count = 0;
    let mut seen_modifier = false;
    for arg in &call.args {
        match arg {
            Arg::Operand(e) => {
                if seen_modifier {
                    errors.push(syn::Error::new_spanned(
                        e,
                        format!("operands come before modifiers: write `{form}`"),
                    ));
                } else if count < want {
                    out[count] = Some(e.clone());
                } else if count == want {
                    let what = if call.chain.is_some() {
                        format!(
                            "too many operands: a chain of {} takes the accumulator c only \
                             (its A and B fragments go in the brackets), then optional modifiers",
                            shown(b)
                        )
                    } else if sparse {
                        format!(
                            "too many operands: {} takes 4 (a, b, c, idx), then optional \
                             modifiers `cbsz = N, abid = N`",
                            shown(b)
                        )
                    } else {
                        format!(
                            "too many operands: {} takes 3 (a, b, c), then optional modifiers \
                             `cbsz = N, abid = N, blgp = N`",
                            shown(b)
                        )
                    };
                    errors.push(syn::Error::new_spanned(e, what));
                }
                count += 1;
            }
            Arg::Modifier { .. } => seen_modifier = true,
        }
    }
    if count < want {
        let missing = names[count..].join(", ");
        let why = if sparse && count == 3 {
            ": an SMFMAC's index operand says where A's stored values lie (a `FragIdx`)"
        } else {
            ""
        };
        errors.push(syn::Error::new(
            call.paren,
            format!(
                "{} takes {want} operand{} ({}) but {count} {} given: missing {missing}{why}",
                shown(b),
                if want == 1 { "" } else { "s" },
                names.join(", "),
                if count == 1 { "was" } else { "were" }
            ),
        ));
    }
    out
}

/// Rules: known modifier names, each at most once, integer values (a list
/// of operands for neg), and the spec's legality rules on every literal.
fn modifiers(b: Option<&'static Builtin>, call: &Call, errors: &mut Errors) -> ([Value; 3], i64) {
    let mut given: [Option<&Expr>; 4] = [None; 4];
    for arg in &call.args {
        let Arg::Modifier { name, value } = arg else {
            continue;
        };
        let Some(m) = known_modifier(b, name, errors) else {
            continue;
        };
        match given[m as usize] {
            // A second span cannot be attached on stable, so the message
            // quotes the first occurrence instead.
            Some(first) => errors.push(syn::Error::new(
                name.span(),
                format!(
                    "`{name}` is given twice (first as `{name} = {}`): each modifier may appear once",
                    first.to_token_stream()
                ),
            )),
            None => given[m as usize] = Some(value),
        }
    }
    let mut values = [Value::Known(0), Value::Known(0), Value::Known(0)];
    for (i, g) in given.iter().take(3).enumerate() {
        if let Some(value) = g {
            values[i] = match integer(b, value, Modifier::ALL[i], errors) {
                Some(Ok(v)) => Value::Known(v),
                Some(Err(())) => Value::Known(0),
                None => Value::Deferred((*value).clone()),
            };
        }
    }
    let mut neg = given[Modifier::Neg as usize].map_or(0, |v| neg_list(b, v, errors));
    // Without the spec (a type) the one immediate cannot carry both.
    if b.is_none() && neg != 0 && given[Modifier::Blgp as usize].is_some() {
        errors.push(syn::Error::new_spanned(
            given[Modifier::Neg as usize].expect("neg was given"),
            "give either `blgp` or `neg`, not both: they are the same three bits of the \
             instruction (negation flags on CDNA3's FP64 MFMA, a B lane pattern elsewhere)",
        ));
        neg = 0;
    }
    if let Some(b) = b {
        if let Err(e) = legal(b, &values, neg) {
            let m = e.modifier();
            // Only a given modifier can be illegal: an absent one is 0.
            errors.push(match given[m as usize] {
                Some(value) => syn::Error::new_spanned(value, e.to_string()),
                None => syn::Error::new(call.paren, e.to_string()),
            });
            match m {
                Modifier::Neg => neg = 0,
                m => values[m as usize] = Value::Known(0),
            }
            // Zeroing one modifier can make another illegal (abid after cbsz):
            // keep the expansion legal so that only the first error shows.
            if legal(b, &values, neg).is_err() {
                values = [Value::Known(0), Value::Known(0), Value::Known(0)];
                neg = 0;
            }
        }
    }
    (values, neg)
}

/// Rule: the name is one of the modifiers the builtin's architecture has.
fn known_modifier(b: Option<&Builtin>, name: &Ident, errors: &mut Errors) -> Option<Modifier> {
    let s = name.to_string();
    let arch: Option<&Arch> = b.map(mfma_spec::arch_of);
    let offered: Vec<Modifier> = Modifier::ALL
        .into_iter()
        .filter(|m| arch.is_none_or(|a| m.in_arch(a)))
        .collect();
    // Every modifier name is known: whether this builtin takes it is a rule
    // of its own, with a message saying why not (neg on CDNA2, ...).
    let m = Modifier::from_name(&s);
    if m.is_none() {
        let near = offered
            .iter()
            .min_by_key(|m| mfma_spec::edit_distance(&s, m.name()))
            .expect("every architecture has modifiers");
        let hint = if mfma_spec::edit_distance(&s, near.name()) <= 2 {
            format!(" (did you mean `{}`?)", near.name())
        } else {
            String::new()
        };
        let names: Vec<String> = offered.iter().map(|m| format!("`{}`", m.name())).collect();
        let list = match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let who = arch.map_or("MFMA", |a| a.title);
        errors.push(syn::Error::new(
            name.span(),
            format!("unknown modifier `{s}`{hint}: {who} MFMA takes {list}"),
        ));
    }
    m
}

/// Rule: `neg` is a list of distinct operands among a, b, c (`neg = [a, c]`).
fn neg_list(b: Option<&'static Builtin>, value: &Expr, errors: &mut Errors) -> i64 {
    // On a builtin without negation, that is the error, whatever the syntax.
    if let Some(b) = b.filter(|b| Modifier::Neg.max(b) == 0) {
        let e = mfma_spec::ModifierError::NegUnsupported { builtin: b };
        errors.push(syn::Error::new_spanned(value, e.to_string()));
        return 0;
    }
    let example = "`neg = [a, c]` negates A and C (any subset of a, b, c)";
    let Expr::Array(list) = value else {
        errors.push(syn::Error::new_spanned(
            value,
            format!("neg takes a list of the operands to negate: {example}"),
        ));
        return 0;
    };
    let mut ops = Vec::new();
    for e in &list.elems {
        let op = match e {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| Operand::from_name(&i.to_string())),
            _ => None,
        };
        match op {
            Some(op @ (Operand::A | Operand::B | Operand::C)) if !ops.contains(&op) => ops.push(op),
            Some(op @ (Operand::A | Operand::B | Operand::C)) => {
                errors.push(syn::Error::new_spanned(
                    e,
                    format!("`{}` is listed twice in neg: {example}", op.name()),
                ));
                return 0;
            }
            _ => {
                errors.push(syn::Error::new_spanned(
                    e,
                    format!(
                        "`{}` is not an operand {} can negate: {example}",
                        e.to_token_stream(),
                        shown(b)
                    ),
                ));
                return 0;
            }
        }
    }
    Modifiers::neg_mask(&ops)
}

/// Rule: a literal value is an integer. `None` for a non-literal expression
/// (left to the `const` check), `Some(Err)` after reporting an error.
fn integer(
    b: Option<&Builtin>,
    value: &Expr,
    m: Modifier,
    errors: &mut Errors,
) -> Option<Result<i64, ()>> {
    let (negative, lit) = match value {
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit { lit, .. }) => (true, lit),
            _ => return None,
        },
        Expr::Group(g) => return integer(b, &g.expr, m, errors),
        Expr::Paren(p) => return integer(b, &p.expr, m, errors),
        _ => return None,
    };
    let what = match lit {
        // The value is passed on unsuffixed, so any integer suffix is fine.
        Lit::Int(i) => {
            return Some(match i.base10_parse::<i64>() {
                Ok(v) => Ok(if negative { -v } else { v }),
                Err(_) => {
                    errors.push(syn::Error::new_spanned(
                        value,
                        format!("{} value {i} is out of range: {}", m.name(), allowed(b, m)),
                    ));
                    Err(())
                }
            });
        }
        Lit::Float(_) => "a float literal",
        Lit::Bool(_) => "a bool literal",
        Lit::Str(_) | Lit::CStr(_) | Lit::ByteStr(_) => "a string literal",
        Lit::Char(_) | Lit::Byte(_) => "a character literal",
        _ => "a literal of another type",
    };
    errors.push(syn::Error::new_spanned(
        value,
        format!(
            "{} must be an integer constant, found {what}: {}",
            m.name(),
            allowed(b, m)
        ),
    ));
    Some(Err(()))
}

/// What values of `m` builtin `b` accepts, from the spec.
fn allowed(b: Option<&Builtin>, m: Modifier) -> String {
    let Some(b) = b else {
        return format!("{} is an unsigned bit field of the instruction", m.name());
    };
    match (m.max(b), m) {
        (0, _) => format!("{} takes only {} = 0", b.path(), m.name()),
        (max, Modifier::Abid) if b.is_sparse() => {
            format!("{} takes abid in 0..={max}, the index set", b.path())
        }
        (max, Modifier::Abid) => format!("{} takes abid in 0..={max}, below 2^cbsz", b.path()),
        (max, _) => format!("{} takes {} in 0..={max}", b.path(), m.name()),
    }
}

/// The spec's rules applied to the literal values; a deferred value is
/// checked only where its rule does not need it (the `const` check the
/// expansion emits does the rest).
fn legal(b: &'static Builtin, v: &[Value; 3], neg: i64) -> Result<(), mfma_spec::ModifierError> {
    let (cbsz, abid, blgp) = (v[0].known(), v[1].known(), v[2].known());
    let m = Modifiers::new(cbsz.unwrap_or(0), abid.unwrap_or(0), blgp.unwrap_or(0)).with_neg(neg);
    mfma_spec::check_sign(m)?;
    mfma_spec::check_cbsz(b, m)?;
    // With cbsz a constant, the range of abid is the const check's;
    // a builtin without broadcast rules out any nonzero abid already.
    // An SMFMAC's abid range does not depend on cbsz.
    if abid.is_some() && (cbsz.is_some() || b.cbsz_max.is_none() || b.is_sparse()) {
        mfma_spec::check_abid(b, m)?;
    }
    mfma_spec::check_blgp(b, m)?;
    mfma_spec::check_neg(b, m)
}
