//! Parsing `mfma!` input: a builtin name, optionally followed by a call.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

/// What the user wrote.
pub struct Input {
    /// The builtin name as written.
    pub name: Ident,
    /// `Some` for the call form `name(args)`.
    pub call: Option<Call>,
}

/// The parenthesised part of the call form.
pub struct Call {
    /// Span of the parentheses, for "wrong number of operands".
    pub paren: Span,
    /// Arguments in order.
    pub args: Vec<Arg>,
}

/// One call argument.
pub enum Arg {
    /// An operand expression (a, b or c).
    Operand(Expr),
    /// `name = value`.
    Modifier {
        /// The modifier name as written.
        name: Ident,
        /// Its value.
        value: Expr,
    },
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error(
                "expected a builtin name, e.g. `mfma!(f32_32x32x8bf16_1k)` or \
                 `mfma!(f32_32x32x8bf16_1k(a, b, c))`",
            ));
        }
        let name: Ident = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a builtin name such as `f32_32x32x8bf16_1k`",
            )
        })?;
        let call = if input.peek(syn::token::Paren) {
            let content;
            let paren = syn::parenthesized!(content in input);
            let args = Punctuated::<Arg, Token![,]>::parse_terminated(&content)?;
            Some(Call {
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
