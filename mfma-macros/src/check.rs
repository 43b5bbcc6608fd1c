//! The rules `mfma!` enforces, one function a rule. Each returns a spanned
//! error; the modifier rules themselves live in `mfma_spec` so that the CLI
//! reports the same text.

use crate::parse::{Arg, Call};
use mfma_spec::{Builtin, Modifier, Modifiers};
use quote::ToTokens;
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, UnOp};

/// A modifier as the expansion will pass it.
pub enum Value {
    /// A literal, already checked.
    Known(i64),
    /// A named constant or other expression: checked at monomorphization.
    Deferred(Expr),
}

/// What a call of a known builtin checked into: always complete enough to
/// expand, with the first error (if any) to report beside it.
pub struct Checked {
    /// The three operands; missing ones are `None`.
    pub operands: [Option<Expr>; 3],
    /// cbsz, abid, blgp in that order.
    pub modifiers: [Value; 3],
}

/// Rule: the name is a builtin of a known architecture. The error carries
/// the closest builtin, which type position expands to so that nothing
/// else is reported about the name.
pub fn builtin(name: &Ident) -> Result<&'static Builtin, (syn::Error, &'static Builtin)> {
    let s = name.to_string();
    mfma_spec::find(&s).ok_or_else(|| {
        let best = mfma_spec::closest(&s);
        let arch = mfma_spec::ARCHS
            .iter()
            .find(|a| a.builtins.iter().any(|b| b.name == best.name))
            .expect("every builtin belongs to an architecture");
        let msg = format!(
            "unknown MFMA builtin `{s}`: did you mean `{}`? (`mfma list` shows all {} {} builtins)",
            best.name,
            arch.builtins.len(),
            arch.name.to_uppercase()
        );
        (syn::Error::new(name.span(), msg), best)
    })
}

/// Checks a call of builtin `b`; returns what to expand and the first error, if any.
pub fn call(b: &Builtin, call: &Call) -> (Checked, Option<syn::Error>) {
    let mut errors = Errors(None);
    let operands = operands(b, call, &mut errors);
    let modifiers = modifiers(b, call, &mut errors);
    (
        Checked {
            operands,
            modifiers,
        },
        errors.0,
    )
}

/// Keeps the first error only: one mistake, one message.
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        self.0.get_or_insert(e);
    }
}

/// Rule: exactly three operands (a, b, c), before any modifier.
fn operands(b: &Builtin, call: &Call, errors: &mut Errors) -> [Option<Expr>; 3] {
    let mut out: [Option<Expr>; 3] = [None, None, None];
    let mut count = 0;
    let mut seen_modifier = false;
    for arg in &call.args {
        match arg {
            Arg::Operand(e) => {
                if seen_modifier {
                    errors.push(syn::Error::new_spanned(
                        e,
                        "operands come before modifiers: write `name(a, b, c, cbsz = .., abid = .., blgp = ..)`",
                    ));
                } else if count < 3 {
                    out[count] = Some(e.clone());
                } else if count == 3 {
                    errors.push(syn::Error::new_spanned(
                        e,
                        format!(
                            "too many operands: {} takes 3 (a, b, c), then optional modifiers `cbsz = N, abid = N, blgp = N`",
                            b.name
                        ),
                    ));
                }
                count += 1;
            }
            Arg::Modifier { .. } => seen_modifier = true,
        }
    }
    if count < 3 {
        let missing = ["a", "b", "c"][count..].join(", ");
        errors.push(syn::Error::new(
            call.paren,
            format!(
                "{} takes 3 operands (a, b, c) but {count} {} given: missing {missing}",
                b.name,
                if count == 1 { "was" } else { "were" }
            ),
        ));
    }
    out
}

/// Rules: known modifier names, each at most once, integer values, and the
/// spec's legality rules on every literal.
fn modifiers(b: &Builtin, call: &Call, errors: &mut Errors) -> [Value; 3] {
    let mut given: [Option<&Expr>; 3] = [None, None, None];
    for arg in &call.args {
        let Arg::Modifier { name, value } = arg else {
            continue;
        };
        let Some(m) = known_modifier(name, errors) else {
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
    for (i, g) in given.iter().enumerate() {
        if let Some(value) = g {
            values[i] = match integer(b, value, Modifier::ALL[i], errors) {
                Some(Ok(v)) => Value::Known(v),
                Some(Err(())) => Value::Known(0),
                None => Value::Deferred((*value).clone()),
            };
        }
    }
    if let Err(e) = legal(b, &values) {
        let m = e.modifier();
        // Only a given modifier can be illegal: an absent one is 0.
        errors.push(match given[m as usize] {
            Some(value) => syn::Error::new_spanned(value, e.to_string()),
            None => syn::Error::new(call.paren, e.to_string()),
        });
        values[m as usize] = Value::Known(0);
        // Zeroing one modifier can make another illegal (abid after cbsz):
        // keep the expansion legal so that only the first error shows.
        if legal(b, &values).is_err() {
            values = [Value::Known(0), Value::Known(0), Value::Known(0)];
        }
    }
    values
}

/// Rule: the name is one of cbsz, abid, blgp.
fn known_modifier(name: &Ident, errors: &mut Errors) -> Option<Modifier> {
    let s = name.to_string();
    let m = Modifier::from_name(&s);
    if m.is_none() {
        let near = Modifier::ALL
            .into_iter()
            .min_by_key(|m| mfma_spec::edit_distance(&s, m.name()))
            .expect("three modifiers");
        let hint = if mfma_spec::edit_distance(&s, near.name()) <= 2 {
            format!(" (did you mean `{}`?)", near.name())
        } else {
            String::new()
        };
        errors.push(syn::Error::new(
            name.span(),
            format!("unknown modifier `{s}`{hint}: CDNA2 MFMA takes `cbsz`, `abid` and `blgp`"),
        ));
    }
    m
}

/// Rule: a literal value is an integer. `None` for a non-literal expression
/// (left to the compile-time backstop), `Some(Err)` after reporting an error.
fn integer(b: &Builtin, value: &Expr, m: Modifier, errors: &mut Errors) -> Option<Result<i64, ()>> {
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
fn allowed(b: &Builtin, m: Modifier) -> String {
    match (m.max(b), m) {
        (0, _) => format!("{} takes only {} = 0", b.name, m.name()),
        (max, Modifier::Abid) => format!("{} takes abid in 0..={max}, below 2^cbsz", b.name),
        (max, _) => format!("{} takes {} in 0..={max}", b.name, m.name()),
    }
}

/// The spec's rules applied to the literal values; a deferred value is
/// checked only where its rule does not need it (the backstop does the rest).
fn legal(b: &Builtin, v: &[Value; 3]) -> Result<(), mfma_spec::ModifierError> {
    let known = |i: usize| match v[i] {
        Value::Known(x) => Some(x),
        Value::Deferred(_) => None,
    };
    let (cbsz, abid, blgp) = (known(0), known(1), known(2));
    let m = Modifiers::new(cbsz.unwrap_or(0), abid.unwrap_or(0), blgp.unwrap_or(0));
    mfma_spec::check_sign(m)?;
    mfma_spec::check_cbsz(b, m)?;
    // With cbsz a constant, the range of abid is the backstop's to check;
    // a builtin without broadcast rules out any nonzero abid already.
    if abid.is_some() && (cbsz.is_some() || b.cbsz_max.is_none()) {
        mfma_spec::check_abid(b, m)?;
    }
    mfma_spec::check_blgp(b, m)
}
