//! The declarative specification of the AMD CDNA2 (gfx90a, MI200) dense MFMA
//! builtins: one table, from which every other crate of the workspace derives
//! types, layouts, validation, documentation and CLI output.
//!
//! * [`cdna2::BUILTINS`]: the 27 builtins (shape, types, blocks, timing,
//!   modifier support, arithmetic family, LLVM and ISA names, layouts).
//! * [`Layout`]: an operand layout as data; both directions of the
//!   (block, row, col) ↔ (lane, item) map are `const fn`.
//! * [`validate`]: the modifier rules, one function a rule, shared by the
//!   `mfma!` macro and the CLI.
//!
//! Other architectures are added as more [`Arch`] tables in [`ARCHS`], not as
//! code changes.
//!
//! ```
//! let b = mfma_spec::find("f32_32x32x8bf16_1k").unwrap();
//! assert_eq!((b.m, b.n, b.k, b.blocks), (32, 32, 8, 1));
//! assert_eq!(b.ops(), 16384);
//! assert_eq!(b.llvm_intrinsic, "llvm.amdgcn.mfma.f32.32x32x8bf16.1k");
//! ```
#![no_std]
#![warn(missing_docs)]

pub mod cdna2;
mod elem;
mod layout;
mod modifiers;
mod routing;
mod suggest;

pub use elem::{Arith, ElemType};
pub use layout::{mode, AccLayout, Axis, Coord, Dest, Layout, Mode, Slot, MAX_MODES};
pub use modifiers::{
    check_abid, check_blgp, check_cbsz, check_sign, validate, Modifier, ModifierError, Modifiers,
};
pub use routing::{feeds, source};
pub use suggest::{closest, edit_distance, strip_prefix};

/// Lanes in a CDNA wavefront.
pub const WAVE: usize = 64;

/// One GPU architecture's table of builtins.
#[derive(Debug)]
pub struct Arch {
    /// Short name (`cdna2`); also the module of `mfma-core` holding its types.
    pub name: &'static str,
    /// LLVM target CPU (`gfx90a`).
    pub gfx: &'static str,
    /// Wavefront size.
    pub wave: usize,
    /// The builtins.
    pub builtins: &'static [Builtin],
}

/// Every architecture known to this crate.
pub const ARCHS: &[&Arch] = &[&cdna2::ARCH];

/// One operand of an MFMA instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The M×K input.
    A,
    /// The K×N input.
    B,
    /// The M×N accumulator input.
    C,
    /// The M×N result (same layout as C).
    D,
}

impl Operand {
    /// All four operands.
    pub const ALL: [Operand; 4] = [Operand::A, Operand::B, Operand::C, Operand::D];

    /// Lower-case name (`a`, `b`, `c`, `d`).
    pub const fn name(self) -> &'static str {
        match self {
            Operand::A => "a",
            Operand::B => "b",
            Operand::C => "c",
            Operand::D => "d",
        }
    }

    /// Parses `a`, `b`, `c` or `d` (either case).
    pub fn from_name(s: &str) -> Option<Operand> {
        Operand::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(s))
    }

    /// Names of the (block, row, col) axes: `i, k` for A, `k, j` for B, `i, j` for C and D.
    pub const fn axis_names(self) -> [&'static str; 3] {
        match self {
            Operand::A => ["block", "i", "k"],
            Operand::B => ["block", "k", "j"],
            Operand::C | Operand::D => ["block", "i", "j"],
        }
    }
}

/// Everything known about one builtin.
#[derive(Debug, PartialEq, Eq)]
pub struct Builtin {
    /// Name without prefix (`f32_32x32x8bf16_1k`).
    pub name: &'static str,
    /// LLVM intrinsic (`llvm.amdgcn.mfma.f32.32x32x8bf16.1k`).
    pub llvm_intrinsic: &'static str,
    /// ISA mnemonic (`v_mfma_f32_32x32x8bf16_1k`).
    pub isa: &'static str,
    /// Rows of A, C, D.
    pub m: usize,
    /// Columns of B, C, D.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Independent blocks computed at once.
    pub blocks: usize,
    /// Element type of A and B.
    pub ab: ElemType,
    /// A (and B) elements per lane.
    pub ab_per_lane: usize,
    /// Element type of C and D.
    pub cd: ElemType,
    /// C (and D) elements per lane.
    pub cd_per_lane: usize,
    /// Issue cycles (peak rate = ops / cycles per CU per clock).
    pub cycles: u32,
    /// VALU cycles that can co-execute, `None` where co-execution is unsupported (FP64).
    pub valu_coexec: Option<u32>,
    /// Largest legal cbsz, `None` where cbsz/abid must be 0.
    pub cbsz_max: Option<u32>,
    /// Whether blgp may be nonzero.
    pub blgp: bool,
    /// The arithmetic family (reference section 4).
    pub arith: Arith,
    /// Accumulator layout family.
    pub acc: AccLayout,
    /// Layout of A: coordinates (block, i, k).
    pub a: Layout,
    /// Layout of B: coordinates (block, k, j).
    pub b: Layout,
    /// Layout of C and D: coordinates (block, i, j).
    pub c: Layout,
}

impl Builtin {
    /// Layout of an operand (D shares C's).
    pub const fn layout(&self, op: Operand) -> &Layout {
        match op {
            Operand::A => &self.a,
            Operand::B => &self.b,
            Operand::C | Operand::D => &self.c,
        }
    }

    /// Element type of an operand.
    pub const fn elem(&self, op: Operand) -> ElemType {
        match op {
            Operand::A | Operand::B => self.ab,
            Operand::C | Operand::D => self.cd,
        }
    }

    /// Elements per lane of an operand.
    pub const fn per_lane(&self, op: Operand) -> usize {
        match op {
            Operand::A | Operand::B => self.ab_per_lane,
            Operand::C | Operand::D => self.cd_per_lane,
        }
    }

    /// 32-bit VGPRs per lane an operand occupies.
    pub const fn vgprs(&self, op: Operand) -> usize {
        (self.per_lane(op) * self.elem(op).bits() as usize).div_ceil(32)
    }

    /// Arithmetic operations per instruction: `2*M*N*K*blocks`.
    pub const fn ops(&self) -> u64 {
        2 * (self.m * self.n * self.k * self.blocks) as u64
    }

    /// Peak operations per CU per clock: `ops / cycles`.
    pub const fn ops_per_cycle(&self) -> u64 {
        self.ops() / self.cycles as u64
    }

    /// The full HIP builtin name (`__builtin_amdgcn_mfma_...` is the prefix).
    pub const HIP_PREFIX: &'static str = "__builtin_amdgcn_mfma_";
}

/// Finds a builtin by name in any architecture. Accepts the bare name or the
/// `__builtin_amdgcn_mfma_` / `v_mfma_` spellings.
///
/// ```
/// assert!(mfma_spec::find("__builtin_amdgcn_mfma_f64_4x4x4f64").is_some());
/// assert!(mfma_spec::find("f32_32x32x8bf16").is_none());
/// ```
pub fn find(name: &str) -> Option<&'static Builtin> {
    let name = strip_prefix(name);
    ARCHS
        .iter()
        .flat_map(|a| a.builtins.iter())
        .find(|b| b.name == name)
}

/// The index of a builtin in its architecture's table.
pub fn index_of(arch: &Arch, name: &str) -> Option<usize> {
    arch.builtins.iter().position(|b| b.name == name)
}
