//! Parsing `mfma!` input: what names the builtin, then optionally a call or
//! a chain.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Path, Token};

/// What the user wrote.
pub struct Input {
    /// What names the builtin.
    pub name: Name,
    /// `Some` for the call and chain forms.
    pub call: Option<Call>,
}

/// What names the builtin.
pub enum Name {
    /// A builtin name of the spec: `f32_32x32x8bf16_1k`, `cdna3::NAME`, or
    /// their HIP and ISA spellings.
    Builtin {
        /// The architecture prefix, if written.
        arch: Option<Ident>,
        /// The name as written.
        name: Ident,
    },
    /// Any other path: a type that names a builtin (`type X = mfma!(..)`),
    /// whose rules are then checked when the call is compiled.
    Type(Path),
}

impl Name {
    /// Where errors about the name point.
    pub fn span(&self) -> Span {
        match self {
            Name::Builtin { arch, name } => match arch {
                Some(a) => a.span().join(name.span()).unwrap_or(name.span()),
                None => name.span(),
            },
            Name::Type(p) => p.span(),
        }
    }
}

/// The parenthesised part of the call form, and the chain form's operands.
pub struct Call {
    /// `[a, b]` of the chain form `NAME[a, b](c, ..)` (`[a, b, idx]` for
    /// SMFMAC): slices of fragments, and the brackets' span.
    pub chain: Option<(Span, Vec<Expr>)>,
    /// Span of the parentheses, for "wrong number of operands".
    pub paren: Span,
    /// Arguments in order.
    pub args: Vec<Arg>,
}

/// One call argument.
pub enum Arg {
    /// An operand expression (a, b, c, or an SMFMAC's idx).
    Operand(Expr),
    /// `name = value`.
    Modifier {
        /// The modifier name as written.
        name: Ident,
        /// Its value.
        value: Expr,
    },
}

/// Whether a single identifier reads as a builtin name (`f32_...`,
/// `i32_...`, `f64_...`, or a HIP or ISA spelling) rather than a type: only
/// those are looked up in the spec, so a misspelt builtin still gets a
/// suggestion while `X(a, b, c)` with `type X = mfma!(..)` works.
fn looks_like_builtin(name: &str) -> bool {
    let bare = mfma_spec::strip_prefix(name);
    bare != name
        || ["f32_", "f64_", "i32_", "smfmac_"]
            .iter()
            .any(|p| bare.starts_with(p))
}

impl Parse for Name {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let path: Path = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a builtin name such as `f32_32x32x8bf16_1k` or \
                 `cdna3::f32_32x32x16_fp8_fp8`",
            )
        })?;
        let plain =
            path.leading_colon.is_none() && path.segments.iter().all(|s| s.arguments.is_none());
        let idents: Vec<&Ident> = path.segments.iter().map(|s| &s.ident).collect();
        match idents[..] {
            [name] if plain && looks_like_builtin(&name.to_string()) => Ok(Name::Builtin {
                arch: None,
                name: name.clone(),
            }),
            [arch, name] if plain && is_arch_like(&arch.to_string()) => Ok(Name::Builtin {
                arch: Some(arch.clone()),
                name: name.clone(),
            }),
            _ => Ok(Name::Type(path)),
        }
    }
}

/// A prefix that names an architecture (or tries to: `cdna4::` is an
/// unknown architecture, not a module).
fn is_arch_like(s: &str) -> bool {
    mfma_spec::arch(s).is_some() || s.to_ascii_lowercase().starts_with("cdna")
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error(
                "expected a builtin name, e.g. `mfma!(f32_32x32x8bf16_1k)` or \
                 `mfma!(f32_32x32x8bf16_1k(a, b, c))`",
            ));
        }
        let name: Name = input.parse()?;
        let chain = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            let ops = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
            if !input.peek(syn::token::Paren) {
                return Err(input.error("expected `(c)` after the chain's `[a, b]`"));
            }
            Some((bracket.span.join(), ops.into_iter().collect()))
        } else {
            None
        };
        let call = if input.peek(syn::token::Paren) {
            let content;
            let paren = syn::parenthesized!(content in input);
            let args = Punctuated::<Arg, Token![,]>::parse_terminated(&content)?;
            Some(Call {
                chain,
                paren: paren.span.join(),
                args: args.into_iter().collect(),
            })
        } else {
            None
        };
        if !input.is_empty() {
            let rest: proc_macro2::TokenStream = input.parse()?;
            return Err(syn::Error::new_spanned(
                rest,
                "unexpected tokens after the builtin: write `name` or `name(a, b, c, modifier = value, ...)`",
            ));
        }
        Ok(Input { name, call })
    }
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: Expr = input.parse()?;
            Ok(Arg::Modifier { name, value })
        } else {
            Ok(Arg::Operand(input.parse()?))
        }
    }
}
