//! Defining the builtin types of one architecture from its spec table.
//!
//! Each builtin becomes a unit struct named like the builtin, its inherent
//! constants (via `mfma_core::__builtin_consts!`) and an `Instr` impl that
//! states the element and storage types; all behaviour lives in `mfma-core`.

use mfma_spec::{Arith, Builtin, ElemType, LlvmScalar, LlvmType, ARCHS};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// A module per architecture (`pub mod cdna3 { .. }`), and `visit` over all.
pub fn archs() -> TokenStream {
    let modules = ARCHS.iter().map(|a| {
        let name = syn::Ident::new(a.name, Span::call_site());
        let prefix = if a.is_default() {
            String::new()
        } else {
            format!("{}::", a.name)
        };
        let doc = format!(
            "The {} {} builtins ({}: {}) as types; name them with [`mfma!`](crate::mfma): \
             `mfma!({prefix}{})`.",
            a.builtins.len(),
            a.title,
            a.targets.join(", "),
            a.products,
            a.builtins[0].name,
        );
        let default = a.is_default().then(|| {
            quote!(#[doc = ""] #[doc = "A builtin name without an architecture prefix means this one."])
        });
        quote! {
            #[doc = #doc]
            #default
            pub mod #name {
                ::mfma_macros::__define_builtins!(#name);
            }
        }
    });
    let arms = ARCHS.iter().map(|a| {
        let (name, ident) = (a.name, syn::Ident::new(a.name, Span::call_site()));
        quote!(#name => #ident::visit(b.name, v),)
    });
    quote! {
        #(#modules)*

        /// Runs `v` with the type of the builtin named `name`, in any
        /// spelling [`mfma!`](crate::mfma) accepts (`cdna3::f32_32x32x16_fp8_fp8`,
        /// a bare name for CDNA2, HIP and ISA spellings); `None` for an unknown name.
        ///
        /// ```
        /// use mfma_core::{Instr, Visit};
        /// struct Cycles;
        /// impl Visit for Cycles {
        ///     type Output = u32;
        ///     fn visit<X: Instr>(self) -> u32 { X::SPEC.cycles }
        /// }
        /// assert_eq!(mfma_core::visit("f32_32x32x8f16", Cycles), Some(64));
        /// assert_eq!(mfma_core::visit("cdna3::f32_32x32x8f16", Cycles), Some(32));
        /// ```
        pub fn visit<V: Visit>(name: &str, v: V) -> ::core::option::Option<V::Output> {
            visit_builtin(::mfma_core::spec::find(name)?, v)
        }

        /// [`visit`] for a builtin already looked up in the spec.
        ///
        /// ```
        /// use mfma_core::{Instr, Visit};
        /// struct Name;
        /// impl Visit for Name {
        ///     type Output = &'static str;
        ///     fn visit<X: Instr>(self) -> &'static str { X::SPEC.isa }
        /// }
        /// let b = mfma_core::spec::find("cdna3::f32_32x32x1f32").unwrap();
        /// assert_eq!(mfma_core::visit_builtin(b, Name), Some("v_mfma_f32_32x32x1_2b_f32"));
        /// ```
        pub fn visit_builtin<V: Visit>(
            b: &::mfma_core::spec::Builtin,
            v: V,
        ) -> ::core::option::Option<V::Output> {
            match b.arch {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

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
    let arms = table.builtins.iter().map(|b| {
        let (name, ty) = (b.name, syn::Ident::new(b.name, Span::call_site()));
        if b.is_sparse() {
            quote!(#name => v.visit_sparse::<#ty>(),)
        } else {
            quote!(#name => ::core::option::Option::Some(v.visit::<#ty>()),)
        }
    });
    let visit_doc = format!(
        "Runs `v` with the type of the {} builtin named `name` (bare, HIP or ISA spelling, \
         without an architecture prefix); `None` for an unknown name (and for an SMFMAC one \
         that `v` does not visit, see [`Visit`](crate::Visit)).",
        table.title
    );
    let arch_name = table.name;
    Ok(quote! {
        #(#items)*

        #[doc = #visit_doc]
        pub fn visit<V: ::mfma_core::Visit>(name: &str, v: V) -> ::core::option::Option<V::Output> {
            let table = ::mfma_core::spec::arch(#arch_name)?;
            match table.find(name)?.name {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    })
}

/// The Rust type of one element.
pub fn elem(t: ElemType) -> TokenStream {
    match t {
        ElemType::F32 => quote!(f32),
        ElemType::F64 => quote!(f64),
        ElemType::F16 => quote!(::mfma_core::half::f16),
        ElemType::Bf16 => quote!(::mfma_core::half::bf16),
        ElemType::Xf32 => quote!(::mfma_core::Xf32),
        ElemType::Fp8 => quote!(::mfma_core::Fp8),
        ElemType::Bf8 => quote!(::mfma_core::Bf8),
        ElemType::I8 => quote!(i8),
        ElemType::I32 => quote!(i32),
        ElemType::Idx => quote!(::mfma_core::Positions),
    }
}

/// The software family computing `b`, from its arithmetic and element types.
fn kernel(b: &Builtin) -> TokenStream {
    let (a, bt) = (elem(b.a_type), elem(b.b_type));
    match b.arith {
        Arith::ChainedFma => quote!(::mfma_core::soft::Fma<#a>),
        Arith::GroupedSum { .. } => quote!(::mfma_core::soft::Grouped<#a>),
        Arith::WrappingInt => quote!(::mfma_core::soft::Wrapping),
        Arith::TruncatedDot { .. } => quote!(::mfma_core::soft::Truncated<#a>),
        Arith::SplitTruncatedDot { .. } => quote!(::mfma_core::soft::SplitTruncated<#a, #bt>),
    }
}

fn builtin(arch: &syn::Ident, index: usize, b: &Builtin, wave: usize) -> TokenStream {
    let ty = syn::Ident::new(b.name, Span::call_site());
    let index = proc_macro2::Literal::usize_unsuffixed(index);
    let (a, bt, out) = (elem(b.a_type), elem(b.b_type), elem(b.cd));
    let (a_lane, b_lane, out_lane) = (b.a_per_lane, b.b_per_lane, b.cd_per_lane);
    let (a_wave, b_wave, out_wave) = (a_lane * wave, b_lane * wave, out_lane * wave);
    let idx_lane = b.per_lane(mfma_spec::Operand::Idx);
    let idx_all = b.sparse.map_or(0, |s| s.idx.elements());
    let types = if b.a_type == b.b_type {
        b.a_type.name().to_string()
    } else {
        format!("A {}, B {}", b.a_type.name(), b.b_type.name())
    };
    let doc = match (b.sparse, b.dense_twin()) {
        (Some(s), Some(twin)) => format!(
            "`{hip}` (`{isa}`, {title}): structured-sparse D = A·B + C with A {m}×{k} {types} \
             stored 4:2 as {m}×{kc} values plus an index operand ({sets} index sets), B {k}×{n}, \
             C/D {m}×{n} {cd}; {al} A, {bl} B and {cdl} C/D element(s) per lane. \n\n\
             The software path assumes (no hardware reference exists) that it computes what \
             two chained [`{twin}`](super::{twin}) compute on the decompressed A.",
            hip = b.hip_name(),
            isa = b.isa,
            title = mfma_spec::arch_of(b).title,
            m = b.m,
            n = b.n,
            k = b.k,
            kc = b.k / 2,
            sets = s.sets,
            cd = b.cd.name(),
            al = a_lane,
            bl = b_lane,
            cdl = out_lane,
            twin = twin.name,
        ),
        _ => format!(
            "`{hip}` (`{isa}`, {title}): D = A·B + C with A {m}×{k} and B \
             {k}×{n} {types}, C/D {m}×{n} {cd}, {blocks} block(s); {abl} A/B and {cdl} C/D \
             element(s) per lane.",
            hip = b.hip_name(),
            isa = b.isa,
            title = mfma_spec::arch_of(b).title,
            m = b.m,
            n = b.n,
            k = b.k,
            cd = b.cd.name(),
            blocks = b.blocks,
            abl = a_lane,
            cdl = out_lane,
        ),
    };
    let device = device_fn(b);
    let kernel = kernel(b);
    let sparse = b.dense_twin().map(|twin| {
        let twin = syn::Ident::new(twin.name, Span::call_site());
        let device = device_sparse_fn(b);
        quote! {
            impl #ty {
                /// Layout of the index operand, coordinates (set, i, g): the
                /// 4-bit field of row i's group g of logical k in index set `set`.
                pub const IDX: ::mfma_core::spec::Layout = *Self::SPEC.layout(::mfma_core::spec::Operand::Idx);
            }

            impl ::mfma_core::SparseInstr for #ty {
                type Dense = #twin;
                #device
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #ty;

        ::mfma_core::__builtin_consts!(#ty, #arch, #index);

        impl ::mfma_core::instr::sealed::Builtin for #ty {}

        impl ::mfma_core::Instr for #ty {
            const SPEC: &'static ::mfma_core::spec::Builtin = Self::SPEC;
            type In = #a;
            type InB = #bt;
            type Out = #out;
            #[cfg(not(target_arch = "amdgpu"))]
            type ARegs = [#a; #a_wave];
            #[cfg(not(target_arch = "amdgpu"))]
            type BRegs = [#bt; #b_wave];
            #[cfg(not(target_arch = "amdgpu"))]
            type OutRegs = [#out; #out_wave];
            #[cfg(not(target_arch = "amdgpu"))]
            type IdxRegs = [::mfma_core::Positions; #idx_all];
            #[cfg(target_arch = "amdgpu")]
            type ARegs = [#a; #a_lane];
            #[cfg(target_arch = "amdgpu")]
            type BRegs = [#bt; #b_lane];
            #[cfg(target_arch = "amdgpu")]
            type OutRegs = [#out; #out_lane];
            #[cfg(target_arch = "amdgpu")]
            type IdxRegs = [::mfma_core::Positions; #idx_lane];
            #[cfg(not(target_arch = "amdgpu"))]
            type Kernel = #kernel;
            #device
        }

        #sparse
    }
}

/// The Rust type the device path passes for an LLVM operand type.
fn llvm_type(t: LlvmType) -> TokenStream {
    let scalar = match t.scalar {
        LlvmScalar::Half => quote!(::mfma_core::device::Half),
        LlvmScalar::Float => quote!(f32),
        LlvmScalar::Double => quote!(f64),
        LlvmScalar::I16 => quote!(i16),
        LlvmScalar::I32 => quote!(i32),
        LlvmScalar::I64 => quote!(i64),
    };
    if t.lanes == 1 {
        scalar
    } else {
        let lanes = proc_macro2::Literal::usize_unsuffixed(t.lanes);
        quote!(::mfma_core::device::Simd<#scalar, #lanes>)
    }
}

/// The GPU implementation: one call of the LLVM intrinsic on the lane's
/// registers, refused at compile time on a GPU of another architecture.
fn device_fn(b: &Builtin) -> TokenStream {
    if b.is_sparse() {
        // Reached only by generic code that calls `execute` with an SMFMAC
        // type, which `execute`'s own check refuses first. The check names
        // a const parameter so that it runs when a call is compiled: one
        // that names none runs when this crate is, and fails the device
        // build of every target (the cdna3 types exist on gfx90a too).
        return quote! {
            #[cfg(target_arch = "amdgpu")]
            #[inline(always)]
            unsafe fn device<const CBSZ: i32, const ABID: i32, const BLGP: i32>(
                _a: Self::ARegs,
                _b: Self::BRegs,
                _c: Self::OutRegs,
            ) -> Self::OutRegs {
                const {
                    ::core::assert!(
                        CBSZ != CBSZ,
                        "an SMFMAC builtin needs its index: call execute_sparse"
                    )
                };
                ::core::unreachable!()
            }
        };
    }
    let link = b.llvm_intrinsic;
    let (la, lb) = (llvm_type(b.llvm_a), llvm_type(b.llvm_b));
    let cd = llvm_type(b.llvm_cd);
    let f = format_ident!("{}", b.name);
    quote! {
        #[cfg(target_arch = "amdgpu")]
        #[inline(always)]
        unsafe fn device<const CBSZ: i32, const ABID: i32, const BLGP: i32>(
            a: Self::ARegs,
            b: Self::BRegs,
            c: Self::OutRegs,
        ) -> Self::OutRegs {
            const { ::mfma_core::device::check_target(Self::SPEC) };
            extern "unadjusted" {
                #[link_name = #link]
                fn #f(a: #la, b: #lb, c: #cd, cbsz: i32, abid: i32, blgp: i32) -> #cd;
            }
            // SAFETY: register arrays and LLVM operand types have the same
            // size and bits (the spec's LLVM types; see its tests).
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

/// The GPU implementation of an SMFMAC: the intrinsic takes the index
/// register after C, then cbsz and abid (no blgp).
fn device_sparse_fn(b: &Builtin) -> TokenStream {
    let link = b.llvm_intrinsic;
    let (la, lb) = (llvm_type(b.llvm_a), llvm_type(b.llvm_b));
    let cd = llvm_type(b.llvm_cd);
    let f = format_ident!("{}", b.name);
    quote! {
        #[cfg(target_arch = "amdgpu")]
        #[inline(always)]
        unsafe fn device_sparse<const CBSZ: i32, const ABID: i32>(
            a: Self::ARegs,
            b: Self::BRegs,
            c: Self::OutRegs,
            idx: i32,
        ) -> Self::OutRegs {
            const { ::mfma_core::device::check_target(Self::SPEC) };
            extern "unadjusted" {
                #[link_name = #link]
                fn #f(a: #la, b: #lb, c: #cd, idx: i32, cbsz: i32, abid: i32) -> #cd;
            }
            // SAFETY: as for the dense instructions.
            unsafe {
                ::core::mem::transmute(#f(
                    ::core::mem::transmute(a),
                    ::core::mem::transmute(b),
                    ::core::mem::transmute(c),
                    idx,
                    CBSZ,
                    ABID,
                ))
            }
        }
    }
}
