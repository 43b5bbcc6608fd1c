//! Defining the builtin types of one architecture from its spec table.
//!
//! Each builtin becomes a unit struct named like the builtin, its inherent
//! constants (via `mfma_core::__builtin_consts!`) and an `Instr` impl that
//! states the element and storage types; all behaviour lives in `mfma-core`.

use mfma_spec::{Builtin, ElemType, ARCHS};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

pub fn define(arch: &syn::Ident) -> syn::Result<TokenStream> {
    let name = arch.to_string();
    let table = ARCHS.iter().find(|a| a.name == name).ok_or_else(|| {
        syn::Error::new(
            arch.span(),
            format!("no MFMA architecture table named `{name}`"),
        )
    })?;
    let items = table
        .builtins
        .iter()
        .enumerate()
        .map(|(i, b)| builtin(arch, i, b, table.wave));
    let names = table.builtins.iter().map(|b| b.name);
    let types = table
        .builtins
        .iter()
        .map(|b| syn::Ident::new(b.name, Span::call_site()));
    let visit_doc = format!(
        "Runs `v` with the type of the {} builtin named `name` (bare, `__builtin_amdgcn_mfma_` or \
         `v_mfma_` spelling); `None` for an unknown name.",
        table.name
    );
    Ok(quote! {
        #(#items)*

        #[doc = #visit_doc]
        pub fn visit<V: ::mfma_core::Visit>(name: &str, v: V) -> ::core::option::Option<V::Output> {
            match ::mfma_core::spec::strip_prefix(name) {
                #(#names => ::core::option::Option::Some(v.visit::<#types>()),)*
                _ => ::core::option::Option::None,
            }
        }
    })
}

fn elem(t: ElemType) -> TokenStream {
    match t {
        ElemType::F32 => quote!(f32),
        ElemType::F64 => quote!(f64),
        ElemType::F16 => quote!(::mfma_core::half::f16),
        ElemType::Bf16 => quote!(::mfma_core::half::bf16),
        ElemType::I8 => quote!(i8),
        ElemType::I32 => quote!(i32),
    }
}

fn builtin(arch: &syn::Ident, index: usize, b: &Builtin, wave: usize) -> TokenStream {
    let ty = syn::Ident::new(b.name, Span::call_site());
    let index = proc_macro2::Literal::usize_unsuffixed(index);
    let (input, output) = (elem(b.ab), elem(b.cd));
    let (in_lane, out_lane) = (b.ab_per_lane, b.cd_per_lane);
    let (in_wave, out_wave) = (in_lane * wave, out_lane * wave);
    let doc = format!(
        "`__builtin_amdgcn_mfma_{name}` (`{isa}`): D = A·B + C with A {m}×{k} and B {k}×{n} \
         {ab}, C/D {m}×{n} {cd}, {blocks} block(s); {abl} A/B and {cdl} C/D element(s) per lane.",
        name = b.name,
        isa = b.isa,
        m = b.m,
        n = b.n,
        k = b.k,
        ab = b.ab.name(),
        cd = b.cd.name(),
        blocks = b.blocks,
        abl = in_lane,
        cdl = out_lane,
    );
    let device = device_fn(b);
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #ty;

        ::mfma_core::__builtin_consts!(#ty, #arch, #index);

        impl ::mfma_core::instr::sealed::Builtin for #ty {}

        impl ::mfma_core::Instr for #ty {
            const SPEC: &'static ::mfma_core::spec::Builtin = Self::SPEC;
            type In = #input;
            type Out = #output;
            #[cfg(not(target_arch = "amdgpu"))]
            type InRegs = [#input; #in_wave];
            #[cfg(not(target_arch = "amdgpu"))]
            type OutRegs = [#output; #out_wave];
            #[cfg(target_arch = "amdgpu")]
            type InRegs = [#input; #in_lane];
            #[cfg(target_arch = "amdgpu")]
            type OutRegs = [#output; #out_lane];
            #device
        }
    }
}

/// The LLVM type of a per-lane operand: packed inputs are vectors (`i32`
/// for four i8), a single element stays scalar.
fn llvm_type(t: ElemType, count: usize) -> TokenStream {
    let count_lit = proc_macro2::Literal::usize_unsuffixed(count);
    match (t, count) {
        (ElemType::I8, 4) => quote!(i32),
        (ElemType::F16, _) => {
            quote!(::mfma_core::device::Simd<::mfma_core::device::Half, #count_lit>)
        }
        (ElemType::Bf16, _) => quote!(::mfma_core::device::Simd<i16, #count_lit>),
        (t, 1) => elem(t),
        (t, _) => {
            let e = elem(t);
            quote!(::mfma_core::device::Simd<#e, #count_lit>)
        }
    }
}

/// The GPU implementation: one call of the LLVM intrinsic on the lane's registers.
fn device_fn(b: &Builtin) -> TokenStream {
    let link = b.llvm_intrinsic;
    let ab = llvm_type(b.ab, b.ab_per_lane);
    let cd = llvm_type(b.cd, b.cd_per_lane);
    let f = format_ident!("{}", b.name);
    quote! {
        #[cfg(target_arch = "amdgpu")]
        #[inline(always)]
        unsafe fn device<const CBSZ: i32, const ABID: i32, const BLGP: i32>(
            a: Self::InRegs,
            b: Self::InRegs,
            c: Self::OutRegs,
        ) -> Self::OutRegs {
            extern "unadjusted" {
                #[link_name = #link]
                fn #f(a: #ab, b: #ab, c: #cd, cbsz: i32, abid: i32, blgp: i32) -> #cd;
            }
            // SAFETY: register arrays and LLVM operand types have the same size and bits.
            unsafe {
                ::core::mem::transmute(#f(
                    ::core::mem::transmute(a),
                    ::core::mem::transmute(b),
                    ::core::mem::transmute(c),
                    CBSZ,
                    ABID,
                    BLGP,
                ))
            }
        }
    }
}
