//! The trait every generated builtin type implements.

use crate::element::{Element, Storage};
use crate::sparse::Positions;
use mfma_spec::Builtin;

/// Implemented by the builtin types `mfma-core` generates from the spec, and
/// by nothing else: the software path relies on their storage being exactly
/// the layout's elements.
pub(crate) mod sealed {
    /// The seal of [`Instr`](super::Instr).
    pub trait Builtin {}
}

/// An MFMA builtin, as a type. Implemented by the types that
/// [`mfma!`](crate::mfma) names (`mfma!(f32_32x32x8bf16_1k)`), and sealed:
/// nothing else can implement it.
///
/// ```
/// use mfma_core::{mfma, Instr};
/// fn blocks<X: Instr>() -> usize { X::SPEC.blocks }
/// assert_eq!(blocks::<mfma!(f32_4x4x4f16)>(), 16);
/// ```
pub trait Instr:
    sealed::Builtin + Copy + Default + core::fmt::Debug + Send + Sync + 'static
{
    /// The spec entry this type was generated from.
    const SPEC: &'static Builtin;
    /// Element type of A (and of B, but for the mixed fp8/bf8 builtins).
    type In: Element;
    /// Element type of B: [`In`](Instr::In) but for the CDNA3 builtins that
    /// mix fp8 and bf8 (`f32_32x32x16_fp8_bf8`: A fp8, B bf8).
    type InB: Element;
    /// Element type of C and D.
    type Out: Element;
    /// Storage of an A fragment.
    type ARegs: Storage<Self::In>;
    /// Storage of a B fragment.
    type BRegs: Storage<Self::InB>;
    /// Storage of a C or D fragment.
    type OutRegs: Storage<Self::Out>;
    /// Storage of an SMFMAC index fragment ([`FragIdx`](crate::FragIdx));
    /// empty for dense builtins.
    type IdxRegs: Storage<Positions>;
    /// The arithmetic family that computes it on the host, chosen from the
    /// spec row's [`Arith`](mfma_spec::Arith) and element types.
    #[cfg(not(target_arch = "amdgpu"))]
    type Kernel: crate::soft::Kernel<A = Self::In, B = Self::InB, C = Self::Out>;

    /// Runs the hardware instruction on the calling lane's registers; the
    /// three immediates are the instruction's (see
    /// [`Modifiers::immediates`](mfma_spec::Modifiers::immediates)). An
    /// SMFMAC type's does not compile (it needs its index: [`SparseInstr`]).
    ///
    /// # Safety
    /// Must be called by all 64 lanes of a wave on a GPU of the builtin's
    /// architecture, with modifiers already validated (the
    /// [`execute`](crate::execute) wrapper does both checks).
    #[cfg(target_arch = "amdgpu")]
    unsafe fn device<const CBSZ: i32, const ABID: i32, const BLGP: i32>(
        a: Self::ARegs,
        b: Self::BRegs,
        c: Self::OutRegs,
    ) -> Self::OutRegs;
}

/// A structured-sparse (SMFMAC) builtin: an [`Instr`] whose A is compressed
/// 4:2 and which takes an index operand ([`FragIdx`](crate::FragIdx)); run
/// it with [`execute_sparse`](crate::execute_sparse) (or
/// `mfma!(cdna3::smfmac_...(a, b, c, idx))`). Sealed, like [`Instr`].
///
/// ```
/// use mfma_core::{mfma, Instr, SparseInstr};
/// fn twin<X: SparseInstr>() -> &'static str { <X::Dense as Instr>::SPEC.name }
/// assert_eq!(twin::<mfma!(cdna3::smfmac_f32_16x16x32_f16)>(), "f32_16x16x16f16");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a structured-sparse (SMFMAC) builtin",
    label = "a dense MFMA builtin",
    note = "execute_sparse and FragA::compress take the CDNA3 SMFMAC builtins \
            (`mfma!(cdna3::smfmac_...)`); run dense ones with `execute`"
)]
pub trait SparseInstr: Instr {
    /// The dense builtin with half the K
    /// ([`Builtin::dense_twin`](mfma_spec::Builtin::dense_twin)): the
    /// software path computes this one as two of it, chained along the
    /// logical K, on the decompressed A (the stated assumption; see
    /// [`sparse`](crate::sparse)).
    type Dense: Instr<In = Self::In, InB = Self::InB, Out = Self::Out, OutRegs = Self::OutRegs>;

    /// Runs the hardware instruction on the calling lane's registers, `idx`
    /// being its index register.
    ///
    /// # Safety
    /// As [`Instr::device`].
    #[cfg(target_arch = "amdgpu")]
    unsafe fn device_sparse<const CBSZ: i32, const ABID: i32>(
        a: Self::ARegs,
        b: Self::BRegs,
        c: Self::OutRegs,
        idx: i32,
    ) -> Self::OutRegs;
}

/// The inherent constants of a generated builtin type, written once here
/// rather than in every expansion.
#[doc(hidden)]
#[macro_export]
macro_rules! __builtin_consts {
    ($ty:ident, $arch:ident, $index:literal) => {
        impl $ty {
            /// The spec entry (shape, types, timing, modifiers, layouts).
            pub const SPEC: &'static $crate::spec::Builtin = &$crate::spec::$arch::BUILTINS[$index];
            /// Rows of A, C and D.
            pub const M: usize = Self::SPEC.m;
            /// Columns of B, C and D.
            pub const N: usize = Self::SPEC.n;
            /// Columns of A, rows of B: the K consumed by one instruction
            /// (for SMFMAC the logical K; A stores half of it).
            pub const K: usize = Self::SPEC.k;
            /// Independent blocks computed at once.
            pub const BLOCKS: usize = Self::SPEC.blocks;
            /// A elements per lane.
            pub const A_PER_LANE: usize = Self::SPEC.a_per_lane;
            /// B elements per lane.
            pub const B_PER_LANE: usize = Self::SPEC.b_per_lane;
            /// C and D elements per lane.
            pub const C_PER_LANE: usize = Self::SPEC.cd_per_lane;
            /// Issue cycles.
            pub const CYCLES: u32 = Self::SPEC.cycles;
            /// Arithmetic operations per instruction (`2*M*N*K*BLOCKS`).
            pub const OPS: u64 = Self::SPEC.ops();
            /// Layout of A, coordinates (block, i, k) (for SMFMAC the
            /// compressed (0, i, kc)); its maps are `const fn`.
            pub const A: $crate::spec::Layout = Self::SPEC.a;
            /// Layout of B, coordinates (block, k, j).
            pub const B: $crate::spec::Layout = Self::SPEC.b;
            /// Layout of C, coordinates (block, i, j).
            pub const C: $crate::spec::Layout = Self::SPEC.c;
            /// Layout of D (the same as C).
            pub const D: $crate::spec::Layout = Self::SPEC.c;
        }
    };
}

/// Generic code to run for a builtin chosen at run time (by name), see
/// [`cdna2::visit`](crate::cdna2::visit) and [`cdna3::visit`](crate::cdna3::visit).
///
/// Dense builtins go to [`visit`](Visit::visit), structured-sparse ones to
/// [`visit_sparse`](Visit::visit_sparse), whose default visits nothing: a
/// visitor written for dense MFMA (one that calls [`execute`](crate::execute))
/// never meets an SMFMAC type, whose execution needs an index.
///
/// ```
/// use mfma_core::{Instr, SparseInstr, Visit};
/// struct Blocks;
/// impl Visit for Blocks {
///     type Output = usize;
///     fn visit<X: Instr>(self) -> usize { X::SPEC.blocks }
/// }
/// assert_eq!(mfma_core::cdna2::visit("f64_4x4x4f64", Blocks), Some(4));
/// assert_eq!(mfma_core::cdna2::visit("nope", Blocks), None);
/// assert_eq!(mfma_core::cdna3::visit("smfmac_f32_16x16x32_f16", Blocks), None);
///
/// struct K;
/// impl Visit for K {
///     type Output = usize;
///     fn visit<X: Instr>(self) -> usize { X::SPEC.k }
///     fn visit_sparse<X: SparseInstr>(self) -> Option<usize> { Some(X::SPEC.k) }
/// }
/// assert_eq!(mfma_core::cdna3::visit("smfmac_f32_16x16x32_f16", K), Some(32));
/// ```
pub trait Visit: Sized {
    /// What the visit returns.
    type Output;
    /// Called with a dense builtin's type.
    fn visit<X: Instr>(self) -> Self::Output;
    /// Called with a structured-sparse (SMFMAC) builtin's type; `None`, the
    /// default, makes the visit return `None`.
    fn visit_sparse<X: SparseInstr>(self) -> Option<Self::Output> {
        None
    }
}
