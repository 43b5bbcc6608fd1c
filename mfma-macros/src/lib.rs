//! The `mfma!` macro. Use it through `mfma-core`, which re-exports it.
//!
//! * `mfma!(f32_32x32x8bf16_1k)` names the builtin's type.
//! * `mfma!(f32_32x32x4bf16_1k(a, b, c, cbsz = 1, abid = 1, blgp = 3))` calls it.
//!
//! The entry points are thin: `parse` reads the input, `check` applies
//! one rule a function (each error spanned at the offending token), and
//! `expand` / `define` write the output.

mod check;
mod define;
mod expand;
mod parse;

use proc_macro::TokenStream;

/// Names or calls a CDNA2 MFMA builtin, with its modifiers checked at compile time.
///
/// # Two forms
///
/// * **Type**: `mfma!(f32_32x32x8bf16_1k)` is the builtin's type (it
///   implements `Instr`, and carries its shape and operand layouts as
///   constants). Use it wherever a type goes: `FragA<mfma!(..)>`,
///   `<mfma!(..)>::C`, a type alias, a generic argument.
/// * **Call**: `mfma!(f32_32x32x8bf16_1k(a, b, c))` computes `D = A·B + C`
///   for every block and returns D as an `Acc`. `a`, `b` and `c` must be the
///   builtin's `FragA`, `FragB` and `Acc`. It is `mfma_core::execute` with the
///   modifiers as const arguments: the software path on the host, one
///   instruction on a gfx90a GPU.
///
/// The name is the bare builtin name; the HIP (`__builtin_amdgcn_mfma_...`)
/// and ISA (`v_mfma_...`) spellings are accepted too.
///
/// ```
/// use mfma_core::half::bf16;
/// use mfma_core::{mfma, Acc, FragA, FragB};
///
/// type X = mfma!(f32_32x32x8bf16_1k);
/// let a = FragA::<X>::from_fn(|_block, i, k| bf16::from_f32((i * 10 + k) as f32));
/// let b = FragB::<X>::from_fn(|_block, k, j| bf16::from_f32(if k == j { 1.0 } else { 0.0 }));
/// let d = mfma!(f32_32x32x8bf16_1k(a, b, Acc::<X>::splat(0.5)));
/// assert_eq!(d.get(0, 3, 5), 35.5); // A times the identity, plus C
/// ```
///
/// # Modifiers
///
/// After the operands come up to three modifiers, by name, in any order;
/// each is 0 when omitted:
///
/// * `cbsz` (0..=log2(blocks)) and `abid` (below 2^cbsz) broadcast one block
///   of A: the blocks split into aligned groups of 2^cbsz, and block `abid`
///   of each group feeds the whole group. Only multi-block builtins other
///   than the f64 ones have them.
/// * `blgp` (0..=7) makes each lane read B from another lane (a broadcast or
///   rotation of 16- or 32-lane groups). It must be 0 on the f64 builtins.
///
/// ```
/// use mfma_core::half::bf16;
/// use mfma_core::{execute, mfma, Acc, FragA, FragB};
///
/// type X = mfma!(f32_32x32x4bf16_1k); // 2 blocks
/// let a = FragA::<X>::from_fn(|block, i, k| bf16::from_f32((block * 100 + i + k) as f32));
/// let b = FragB::<X>::from_fn(|_block, k, _j| bf16::from_f32(if k == 0 { 1.0 } else { 0.0 }));
/// let c = Acc::<X>::zero();
///
/// // One group of 2 blocks (cbsz = 1), fed by block 1's A (abid = 1).
/// let d = mfma!(f32_32x32x4bf16_1k(a, b, c, cbsz = 1, abid = 1));
/// assert_eq!((d.get(0, 3, 5), d.get(1, 3, 5)), (103.0, 103.0));
///
/// // blgp = 3: lane L reads the B values of lane L + 16.
/// let d = mfma!(f32_32x32x4bf16_1k(a, b, c, cbsz = 1, abid = 1, blgp = 3));
/// assert_eq!(d, execute::<X, 1, 1, 3>(a, b, c));
/// ```
///
/// # What is checked at compile time
///
/// Each mistake gives one error, at the offending token, saying why and
/// what is allowed:
///
/// * the builtin name (an unknown one gets the closest name suggested:
///   `did you mean f32_32x32x8bf16_1k?`);
/// * three operands, before the modifiers; each operand's fragment type
///   (rustc's type error names the expected `Fragment<builtin, A|B|C>`);
/// * modifier names (`cbsz`, `abid`, `blgp`), each given at most once, as
///   integers;
/// * the modifier rules of the builtin, shared with the `mfma` CLI: no
///   negative value; cbsz and abid 0 on 1-block and f64 builtins (even the
///   4-block `f64_4x4x4f64`); cbsz at most log2(blocks); abid below 2^cbsz
///   (so 0 when cbsz is 0); blgp at most 7, and 0 on f64 builtins.
///
/// These checks matter because nothing else makes them: LLVM's AMDGPU
/// backend accepts any value for these immediates and silently keeps only
/// their low bits (cbsz 3, abid 4, blgp 3 bits), so `cbsz = 8` runs as 0 and
/// `blgp = -1` as 7, and a nonzero blgp on an f64 builtin is emitted without
/// complaint. A wrong modifier would be a wrong answer on the GPU, not an
/// error.
///
/// ```compile_fail
/// use mfma_core::{mfma, Acc, FragA, FragB};
/// type X = mfma!(f64_16x16x4f64);
/// let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
/// // error: blgp must be 0 for f64_16x16x4f64: FP64 MFMA has no B lane-group pattern
/// let d = mfma!(f64_16x16x4f64(a, b, c, blgp = 1));
/// ```
///
/// # Named constants
///
/// A modifier may be any constant expression of type `i32`, e.g. a `const`
/// item or a const generic parameter. The macro cannot read its value, so it
/// passes it on as a const argument of `execute`, which checks the same
/// rules when the call is monomorphized: an illegal value still fails the
/// build, during code generation (`cargo build`, not `cargo check`), with
/// the broken rule and the call's instantiation (`execute_into::<X, 5, 0, 0>`)
/// pointing at the `mfma!` call. A generic function is checked once for
/// every set of const arguments it is instantiated with.
///
/// ```
/// use mfma_core::{mfma, Acc, FragA, FragB};
/// type X = mfma!(i32_4x4x4i8); // 16 blocks
/// const GROUP: i32 = 4;
///
/// fn step<const ABID: i32>(a: FragA<X>, b: FragB<X>, c: Acc<X>) -> Acc<X> {
///     mfma!(i32_4x4x4i8(a, b, c, cbsz = GROUP, abid = ABID))
/// }
///
/// let a = FragA::<X>::from_fn(|block, _i, _k| block as i8);
/// let d = step::<9>(a, FragB::<X>::splat(1), Acc::<X>::zero());
/// assert_eq!(d.get(0, 0, 0), 9 * 4); // every block reads block 9's A; K = 4
/// ```
///
/// ```compile_fail
/// use mfma_core::{mfma, Acc, FragA, FragB};
/// type X = mfma!(i32_4x4x4i8);
/// const GROUP: i32 = 5; // 16 blocks: cbsz is at most 4
/// let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
/// // error[E0080]: evaluation panicked: cbsz must be at most log2(blocks)
/// let d = mfma!(i32_4x4x4i8(a, b, c, cbsz = GROUP));
/// ```
#[proc_macro]
pub fn mfma(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as parse::Input);
    expand::expand(input).into()
}

/// Defines one module of builtin types per architecture table of the spec,
/// and the crate-level `visit` over all of them (used once, inside `mfma-core`).
#[doc(hidden)]
#[proc_macro]
pub fn __define_archs(input: TokenStream) -> TokenStream {
    let _ = syn::parse_macro_input!(input as syn::parse::Nothing);
    define::archs().into()
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
