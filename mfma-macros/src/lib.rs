//! The `mfma!` macro. Use it through `mfma-core`, which re-exports it.
//!
//! * `mfma!(f32_32x32x8bf16_1k)` names the builtin's type.
//! * `mfma!(f32_32x32x4bf16_1k(a, b, c, cbsz = 1, abid = 1, blgp = 3))` calls it.
//!
//! The entry points are thin: [`parse`] reads the input, [`check`] applies
//! one rule a function (each error spanned at the offending token), and
//! [`expand`] / [`define`] write the output.

mod check;
mod define;
mod expand;
mod parse;

use proc_macro::TokenStream;

/// Names or calls a CDNA2 MFMA builtin; see `mfma_core` for documentation.
#[proc_macro]
pub fn mfma(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as parse::Input);
    expand::expand(input).into()
}

/// Defines the builtin types of one architecture table (used once per
/// architecture inside `mfma-core`).
#[doc(hidden)]
#[proc_macro]
pub fn __define_builtins(input: TokenStream) -> TokenStream {
    let arch = syn::parse_macro_input!(input as syn::Ident);
    match define::define(&arch) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
