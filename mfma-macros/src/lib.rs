//! The `mfma!` macro. Use it through `mfma-core`, which re-exports it.
//!
//! * `mfma!(f32_32x32x8bf16_1k)` names the builtin's type (`cdna3::NAME`
//!   for CDNA3).
//! * `mfma!(f32_32x32x4bf16_1k(a, b, c, cbsz = 1, abid = 1, blgp = 3))` calls it.
//! * `mfma!(NAME[a, b](c))` runs a chain of instructions.
//!
//! The entry points are thin: `parse` reads the input, `check` applies
//! one rule a function (each error spanned at the offending token), and
//! `expand` / `define` write the output.

mod check;
mod define;
mod expand;
mod parse;

use proc_macro::TokenStream;

/// Names or calls an MFMA builtin of CDNA2 or CDNA3, with its modifiers
/// checked at compile time.
///
/// # Forms
///
/// * **Type**: `mfma!(f32_32x32x8bf16_1k)` is the builtin's type (it
///   implements `Instr`, and carries its shape and operand layouts as
///   constants). Use it wherever a type goes: `FragA<mfma!(..)>`,
///   `<mfma!(..)>::C`, a type alias, a generic argument.
/// * **Call**: `mfma!(f32_32x32x8bf16_1k(a, b, c))` computes `D = A·B + C`
///   for every block and returns D as an `Acc`. `a`, `b` and `c` must be the
///   builtin's `FragA`, `FragB` and `Acc`. It is `mfma_core::execute` with the
///   modifiers as const arguments: the software path on the host, one
///   instruction on the GPU.
/// * **Chain**: `mfma!(f32_32x32x8bf16_1k[a, b](c))` runs `a[t], b[t]` for
///   every `t` on the accumulator `c` and returns it
///   (`mfma_core::execute_chain_into`); `a` and `b` are anything that is a
///   slice of fragments (arrays, `Vec`s, slices).
///
/// The name is the builtin's: bare for CDNA2 (the seed's spelling) or with
/// an architecture prefix, `cdna2::NAME` or `cdna3::NAME`; the HIP
/// (`__builtin_amdgcn_mfma_...`) and ISA spellings (`v_mfma_...`, and
/// CDNA3's own mnemonics such as `v_mfma_f32_32x32x1_2b_f32`) are accepted
/// too. The same name on two architectures gives two distinct types. In
/// the call and chain forms the name may also be a type that names a
/// builtin (`type X = mfma!(..)`, or a generic parameter `X: Instr`): its
/// modifiers are then checked when the call is compiled, at the call.
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
///
/// // The same through the alias, and a chain of two.
/// assert_eq!(mfma!(X(a, b, Acc::<X>::splat(0.5))), d);
/// let twice = mfma!(X[[a, a], [b, b]](Acc::<X>::splat(0.5)));
/// assert_eq!(twice.at(3, 5), 70.5);
///
/// // CDNA3 has the builtin too, as another type with its own arithmetic.
/// type Y = mfma!(cdna3::f32_32x32x8bf16_1k);
/// let a3 = FragA::<Y>::from_fn(|_block, i, k| bf16::from_f32((i * 10 + k) as f32));
/// let b3 = FragB::<Y>::from_fn(|_block, k, j| bf16::from_f32(if k == j { 1.0 } else { 0.0 }));
/// assert_eq!(mfma!(cdna3::f32_32x32x8bf16_1k(a3, b3, Acc::<Y>::splat(0.5))).at(3, 5), 35.5);
/// ```
///
/// # Modifiers
///
/// After the operands come the modifiers, by name, in any order; each is 0
/// (or empty) when omitted:
///
/// * `cbsz` (0..=log2(blocks)) and `abid` (below 2^cbsz) broadcast one block
///   of A: the blocks split into aligned groups of 2^cbsz, and block `abid`
///   of each group feeds the whole group. Only multi-block builtins other
///   than the f64 ones have them.
/// * `blgp` (0..=7) makes each lane read B from another lane (a broadcast or
///   rotation of 16- or 32-lane groups). It must be 0 on the f64 builtins,
///   and on CDNA3 on the single-block f16, bf16, i8, fp8/bf8 and xf32 ones,
///   which take no modifier at all.
/// * `neg = [a, b, c]` (any subset) negates operands before the arithmetic:
///   only on CDNA3's two f64 builtins, whose three blgp bits are negation
///   flags (the instruction's third immediate carries the mask: bit 0 A,
///   bit 1 B, bit 2 C).
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
///
/// // CDNA3 f64: D = -(A·B) + C.
/// type F = mfma!(cdna3::f64_4x4x4f64);
/// let (a, b) = (FragA::<F>::splat(2.0), FragB::<F>::splat(3.0));
/// let d = mfma!(cdna3::f64_4x4x4f64(a, b, Acc::<F>::splat(1.0), neg = [a]));
/// assert_eq!(d.get(0, 0, 0), 1.0 - 4.0 * 6.0);
/// ```
///
/// # What is checked at compile time
///
/// Each mistake gives one error, at the offending token, saying why and
/// what is allowed:
///
/// * the architecture and the builtin name (an unknown one gets the closest
///   name suggested: `did you mean f32_32x32x8bf16_1k?`; a CDNA2 builtin
///   that gfx942 lacks, named under `cdna3::`, gets CDNA3's counterpart);
/// * three operands, before the modifiers; each operand's fragment type
///   (rustc's type error names the expected `Fragment<builtin, A|B|C>`);
/// * modifier names (`cbsz`, `abid`, `blgp`, `neg`), each given at most
///   once, as integers (`neg` as a list of distinct operands);
/// * the modifier rules of the builtin, shared with the `mfma` CLI: no
///   negative value; cbsz and abid 0 on 1-block and f64 builtins (even the
///   4-block `f64_4x4x4f64`); cbsz at most log2(blocks); abid below 2^cbsz
///   (so 0 when cbsz is 0); blgp at most 7, and 0 where its bits mean
///   nothing or are negation flags; `neg` only on CDNA3's f64 builtins.
///
/// On the GPU, a builtin of another architecture than the one compiled for
/// (`-C target-cpu`) does not compile either: the error names the builtin
/// to use instead (gfx942 has no `f32_32x32x4bf16`: use
/// `cdna3::f32_32x32x8bf16_1k`), where LLVM would stop with "Cannot select".
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
/// places a `const` check at the call, which applies the same rules when the
/// call is compiled: an illegal value fails the build with the same message
/// a literal gets, pointing at the constant in the call. In a generic
/// function the check runs once for every instantiation (at `cargo build`,
/// not `cargo check`).
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
