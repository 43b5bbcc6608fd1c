//! Writing the output of `mfma!`.
//!
//! On an error the expansion still has the type the user meant wherever it
//! can, so that the one error the macro reports is the only one they see.

use crate::check::{self, Value};
use crate::parse::{Arg, Call, Input};
use mfma_spec::{Builtin, ARCHS};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// The path of a builtin's type, e.g. `::mfma_core::cdna2::f32_32x32x8bf16_1k`,
/// spanned at `span` so that type errors point at the user's name.
pub fn type_path(b: &Builtin, span: Span) -> TokenStream {
    let arch = ARCHS
        .iter()
        .find(|a| a.builtins.iter().any(|x| x.name == b.name))
        .expect("every builtin belongs to an architecture");
    let arch = syn::Ident::new(arch.name, span);
    let name = syn::Ident::new(b.name, span);
    quote_spanned!(span=> ::mfma_core::#arch::#name)
}

/// Expands either form.
pub fn expand(input: Input) -> TokenStream {
    let span = input.name.span();
    match (check::builtin(&input.name), &input.call) {
        (Ok(b), None) => type_path(b, span),
        (Err((e, best)), None) => {
            // `compile_error!` alone would stand for `()` in type position and
            // every use of the type would fail again. An array type whose
            // length carries the error names the closest builtin instead.
            let path = type_path(best, span);
            let e = e.to_compile_error();
            quote!(<[#path; { #e; 1 }] as ::core::iter::IntoIterator>::Item)
        }
        (Ok(b), Some(call)) => expand_call(b, span, call),
        (Err((e, _)), Some(call)) => {
            // Which fragments the operands were meant for is unknown: evaluate
            // them unchecked, and end in the error, whose type is the error
            // type, so that uses of the result report nothing more.
            let operands = call.args.iter().filter_map(|a| match a {
                Arg::Operand(e) => Some(e),
                Arg::Modifier { .. } => None,
            });
            let e = e.to_compile_error();
            quote!({ #(let _ = &#operands;)* #e })
        }
    }
}

/// The call form of a known builtin: each operand bound to its fragment type
/// (a wrong one is reported at the operand, naming the expected type), then
/// `execute_into` with the modifiers as const arguments. Calling it from here
/// rather than through `execute` makes the backstop's error for a named
/// constant name this call as the place of instantiation.
fn expand_call(b: &Builtin, span: Span, call: &Call) -> TokenStream {
    let (checked, error) = check::call(b, call);
    let x = type_path(b, span);
    let [ta, tb, tc] = [
        quote_spanned!(span=> ::mfma_core::FragA<#x>),
        quote_spanned!(span=> ::mfma_core::FragB<#x>),
        quote_spanned!(span=> ::mfma_core::Acc<#x>),
    ];
    let [va, vb, vc] = checked.operands.map(|o| match o {
        Some(e) => e.into_token_stream(),
        None => quote!(::core::default::Default::default()),
    });
    let [a, b, c] = ["a", "b", "c"].map(|n| syn::Ident::new(n, Span::mixed_site()));
    let modifiers = checked.modifiers.iter().map(|v| match v {
        Value::Known(n) => Literal::i64_unsuffixed(*n).into_token_stream(),
        Value::Deferred(e) => quote!({ #e }),
    });
    let error = error.map(|e| e.to_compile_error());
    quote!({
        #error
        let #a: #ta = #va;
        let #b: #tb = #vb;
        let mut #c: #tc = #vc;
        ::mfma_core::execute_into::<#x, #(#modifiers),*>(&#a, &#b, &mut #c);
        #c
    })
}
