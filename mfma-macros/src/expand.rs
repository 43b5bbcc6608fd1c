//! Writing the output of `mfma!`.

use crate::check::{self, Value};
use crate::parse::Input;
use mfma_spec::{Builtin, ARCHS};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

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
    match &input.call {
        None => match check::builtin(&input.name) {
            Ok(b) => type_path(b, input.name.span()),
            // In type position the error alone stands for the type, so
            // nothing else is reported about it.
            Err((e, _)) => e.to_compile_error(),
        },
        Some(call) => {
            let (checked, error) = check::call(&input, call);
            let x = type_path(checked.builtin, input.name.span());
            let operands = checked.operands.iter().map(|o| match o {
                Some(e) => quote!(#e),
                None => quote!(::core::default::Default::default()),
            });
            let modifiers = checked.modifiers.iter().map(|v| match v {
                Value::Known(n) => {
                    let n = n.to_string().parse::<TokenStream>().expect("integer");
                    quote!(#n)
                }
                Value::Deferred(e) => quote!({ #e }),
            });
            let call = quote!(::mfma_core::execute::<#x, #(#modifiers),*>(#(#operands),*));
            match error {
                None => call,
                Some(e) => {
                    let e = e.to_compile_error();
                    quote!({ #e; #call })
                }
            }
        }
    }
}
