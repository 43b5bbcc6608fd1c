//! Writing the output of `mfma!`.
//!
//! On an error the expansion still has the type the user meant wherever it
//! can, so that the one error the macro reports is the only one they see.

use crate::check::{self, Checked, Value};
use crate::parse::{Arg, Call, Input, Name};
use mfma_spec::{BlgpBits, Builtin};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// The path of a builtin's type, e.g. `::mfma_core::cdna2::f32_32x32x8bf16_1k`,
/// spanned at `span` so that type errors point at the user's name.
pub fn type_path(b: &Builtin, span: Span) -> TokenStream {
    let arch = syn::Ident::new(b.arch, span);
    let name = syn::Ident::new(b.name, span);
    quote_spanned!(span=> ::mfma_core::#arch::#name)
}

/// Expands any form.
pub fn expand(input: Input) -> TokenStream {
    let span = input.name.span();
    let (known, x) = match &input.name {
        Name::Builtin { arch, name } => match check::builtin(arch.as_ref(), name, span) {
            Ok(b) => (Some(b), type_path(b, span)),
            Err((e, best)) => return unknown(e, best, span, input.call.as_ref()),
        },
        Name::Type(path) => (None, path.to_token_stream()),
    };
    match &input.call {
        None => x,
        Some(call) => expand_call(known, &x, span, call),
    }
}

/// An unknown builtin name.
fn unknown(e: syn::Error, best: &Builtin, span: Span, call: Option<&Call>) -> TokenStream {
    let e = e.to_compile_error();
    match call {
        None => {
            // `compile_error!` alone would stand for `()` in type position and
            // every use of the type would fail again. An array type whose
            // length carries the error names the closest builtin instead.
            let path = type_path(best, span);
            quote!(<[#path; { #e; 1 }] as ::core::iter::IntoIterator>::Item)
        }
        Some(call) => {
            // Which fragments the operands were meant for is unknown: evaluate
            // them unchecked, and end in the error, whose type is the error
            // type, so that uses of the result report nothing more.
            let chain = call.chain.iter().flat_map(|(_, slices)| slices);
            let operands = call.args.iter().filter_map(|a| match a {
                Arg::Operand(e) => Some(e),
                Arg::Modifier { .. } => None,
            });
            quote!({ #(let _ = &#chain;)* #(let _ = &#operands;)* #e })
        }
    }
}

/// The call or chain form: each operand bound to its fragment type (a wrong
/// one is reported at the operand, naming the expected type), then
/// `execute_into` (or the chain) with the instruction's immediates as const
/// arguments.
///
/// Literal modifiers of a known builtin are checked here. Anything else (a
/// named constant, a const-generic parameter, a builtin named by a type) is
/// checked by a `const` block placed at the call, spanned at the modifier (or
/// the name), with the same message; the call then skips `execute_into`'s
/// own backstop, so one mistake gives one error.
fn expand_call(
    b: Option<&'static Builtin>,
    x: &TokenStream,
    span: Span,
    call: &Call,
) -> TokenStream {
    let (checked, error) = check::call(b, call);
    let [cbsz, abid, blgp] = checked.modifiers.each_ref().map(value);
    let neg = Literal::i64_unsuffixed(checked.neg).into_token_stream();
    // The third immediate: the negation flags where the instruction's blgp
    // bits are negation flags (or, for a type, whenever neg is given:
    // the const check refuses a builtin without them).
    let field = match b.map(|b| b.blgp) {
        Some(BlgpBits::Negate) => neg.clone(),
        Some(_) => blgp.clone(),
        None if checked.neg != 0 => neg.clone(),
        None => blgp.clone(),
    };
    let prechecked = b.is_none() || !checked.all_known();
    let check = prechecked.then(|| {
        let at = checked
            .modifiers
            .iter()
            .find_map(|v| match v {
                Value::Deferred(e) => Some(syn::spanned::Spanned::span(e)),
                Value::Known(_) => None,
            })
            .unwrap_or(span);
        quote_spanned!(at=> const {
            ::mfma_core::__private::assert_modifiers(
                <#x as ::mfma_core::Instr>::SPEC, #cbsz, #abid, #blgp, #neg,
            )
        };)
    });
    let error = error.map(|e| e.to_compile_error());
    let ops = operands(&checked, x, span, call.chain.is_some());
    let [a, b, c, idx] = ["a", "b", "c", "idx"].map(|n| syn::Ident::new(n, Span::mixed_site()));
    let run = match (&checked.chain, checked.sparse) {
        (None, false) => {
            let f = if prechecked {
                quote!(::mfma_core::__private::execute_into_prechecked)
            } else {
                quote!(::mfma_core::execute_into)
            };
            quote!(#f::<#x, #cbsz, #abid, #field>(&#a, &#b, &mut #c);)
        }
        (None, true) => {
            let f = if prechecked {
                quote!(::mfma_core::__private::execute_sparse_into_prechecked)
            } else {
                quote!(::mfma_core::execute_sparse_into)
            };
            quote!(#f::<#x, #cbsz, #abid>(&#a, &#b, &mut #c, &#idx);)
        }
        (Some(slices), sparse) => {
            let f = match (prechecked, sparse) {
                (true, false) => quote!(::mfma_core::__private::execute_chain_into_prechecked),
                (false, false) => quote!(::mfma_core::execute_chain_into),
                (true, true) => {
                    quote!(::mfma_core::__private::execute_sparse_chain_into_prechecked)
                }
                (false, true) => quote!(::mfma_core::execute_sparse_chain_into),
            };
            let types = [
                quote_spanned!(span=> ::mfma_core::FragA<#x>),
                quote_spanned!(span=> ::mfma_core::FragB<#x>),
                quote_spanned!(span=> ::mfma_core::FragIdx<#x>),
            ];
            let [sa, sb, si] = [0, 1, 2].map(|i| {
                let ty = &types[i];
                slices.get(i).map(|s| match s {
                    Some(e) => quote!(::core::convert::AsRef::<[#ty]>::as_ref(&#e)),
                    None => quote!(&[] as &[#ty]),
                })
            });
            if sparse {
                quote!(#f::<#x, #cbsz, #abid>(#sa, #sb, &mut #c, #si);)
            } else {
                quote!(#f::<#x, #cbsz, #abid, #field>(#sa, #sb, &mut #c);)
            }
        }
    };
    quote!({
        #error
        #check
        #ops
        #run
        #c
    })
}

/// A modifier's tokens: a literal, or the user's expression in braces.
fn value(v: &Value) -> TokenStream {
    match v {
        Value::Known(n) => Literal::i64_unsuffixed(*n).into_token_stream(),
        Value::Deferred(e) => quote!({ #e }),
    }
}

/// The operands bound to their fragment types: `a`, `b`, `c` and an
/// SMFMAC's `idx` (or `c` alone for a chain).
fn operands(checked: &Checked, x: &TokenStream, span: Span, chain: bool) -> TokenStream {
    let types = [
        quote_spanned!(span=> ::mfma_core::FragA<#x>),
        quote_spanned!(span=> ::mfma_core::FragB<#x>),
        quote_spanned!(span=> ::mfma_core::Acc<#x>),
        quote_spanned!(span=> ::mfma_core::FragIdx<#x>),
    ];
    let names = ["a", "b", "c", "idx"].map(|n| syn::Ident::new(n, Span::mixed_site()));
    let first = if chain { 2 } else { 0 };
    let bound = checked
        .operands
        .iter()
        .zip(&types[first..])
        .zip(&names[first..])
        .map(|((o, ty), name)| {
            let v = match o {
                Some(e) => e.into_token_stream(),
                None => quote!(::core::default::Default::default()),
            };
            let m = (name == "c").then(|| quote!(mut));
            quote!(let #m #name: #ty = #v;)
        });
    quote!(#(#bound)*)
}
