//! The declarative specification of the AMD CDNA matrix-core builtins: one
//! table per architecture, from which every other crate of the workspace
//! derives types, layouts, validation, documentation and CLI output.
//!
//! * [`cdna2::BUILTINS`]: the 27 dense builtins of CDNA2 (gfx90a, MI200);
//!   [`cdna3::BUILTINS`]: the 46 of CDNA3 (gfx942, MI300), 32 dense MFMA and
//!   14 structured-sparse SMFMAC ([`Sparse`]).
//!   Each row states shape, element types, blocks, timing, modifier support,
//!   arithmetic family, LLVM and ISA names and operand types, and layouts.
//! * [`Layout`]: an operand layout as data; both directions of the
//!   (block, row, col) ↔ (lane, item) map are `const fn`.
//! * [`validate`]: the modifier rules, one function a rule, shared by the
//!   `mfma!` macro and the CLI.
//!
//! An architecture is a table ([`Arch`]) in [`ARCHS`]; code that must differ
//! between architectures reads a field of the table (the arithmetic family,
//! the modifier kinds, the LLVM types), never the architecture's name.
//!
//! ```
//! let b = mfma_spec::find("f32_32x32x8bf16_1k").unwrap(); // bare: CDNA2
//! assert_eq!((b.m, b.n, b.k, b.blocks, b.cycles), (32, 32, 8, 1, 64));
//! assert_eq!(b.llvm_intrinsic, "llvm.amdgcn.mfma.f32.32x32x8bf16.1k");
//! let c = mfma_spec::find("cdna3::f32_32x32x8bf16_1k").unwrap();
//! assert_eq!((c.isa, c.cycles), ("v_mfma_f32_32x32x8_bf16", 32));
//! ```
#![no_std]
#![warn(missing_docs)]

mod table;

pub mod cdna2;
pub mod cdna3;
mod elem;
mod layout;
mod message;
mod modifiers;
mod routing;
mod sparse;
mod suggest;

pub use elem::{Arith, ElemType, LlvmScalar, LlvmType};
pub use layout::{mode, AccLayout, Axis, Coord, Dest, Layout, Mode, Slot, MAX_MODES};
pub use message::Message;
pub use modifiers::{
    check_abid, check_blgp, check_cbsz, check_neg, check_sign, legal_modifiers, sample_modifiers,
    validate, BlgpBits, Modifier, ModifierError, Modifiers,
};
pub use routing::{feeds, source};
pub use sparse::Sparse;
pub use suggest::{closest, edit_distance, strip_prefix, LookupError};

/// Lanes in a CDNA wavefront.
pub const WAVE: usize = 64;

/// One GPU architecture's table of builtins. Two are equal when they have
/// the same name.
#[derive(Debug)]
pub struct Arch {
    /// Short name (`cdna2`): the prefix users write (`cdna3::NAME`), and the
    /// module of `mfma-core` holding its types.
    pub name: &'static str,
    /// The name in prose (`CDNA2`).
    pub title: &'static str,
    /// The products built on it.
    pub products: &'static str,
    /// LLVM target CPUs (`gfx90a`); code objects are built per target.
    pub targets: &'static [&'static str],
    /// Wavefront size.
    pub wave: usize,
    /// Whether AMD publishes the VALU co-execution cycles (see
    /// [`Builtin::valu_coexec`]).
    pub valu_coexec_published: bool,
    /// The builtins.
    pub builtins: &'static [Builtin],
}

impl PartialEq for Arch {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Arch {}

/// Every architecture known to this crate; the first is the default, which
/// a name without an `arch::` prefix means (CDNA2: the seed's spelling).
pub const ARCHS: &[&Arch] = &[&cdna2::ARCH, &cdna3::ARCH];

/// The architecture called `name` (`cdna2`, `cdna3`; case-insensitive).
pub fn arch(name: &str) -> Option<&'static Arch> {
    ARCHS
        .iter()
        .copied()
        .find(|a| a.name.eq_ignore_ascii_case(name))
}

/// The architecture whose short name is exactly `name`, in `const` context
/// too (where [`arch`] cannot run).
///
/// ```
/// const CDNA3: &mfma_spec::Arch = mfma_spec::arch_named("cdna3").unwrap();
/// assert_eq!(CDNA3.targets, ["gfx942"]);
/// assert!(mfma_spec::arch_named("CDNA3").is_none());
/// ```
pub const fn arch_named(name: &str) -> Option<&'static Arch> {
    let mut i = 0;
    while i < ARCHS.len() {
        if message::same_str(ARCHS[i].name, name) {
            return Some(ARCHS[i]);
        }
        i += 1;
    }
    None
}

/// The architecture whose table holds `b`.
pub const fn arch_of(b: &Builtin) -> &'static Arch {
    match arch_named(b.arch) {
        Some(a) => a,
        None => panic!("every builtin names its architecture"),
    }
}

impl Arch {
    /// Whether `b` is one of this architecture's builtins, in `const`
    /// context too.
    ///
    /// ```
    /// use mfma_spec::{arch_named, cdna3};
    /// let f16 = cdna3::ARCH.find("f32_32x32x8f16").unwrap();
    /// assert!(cdna3::ARCH.holds(f16));
    /// assert!(!arch_named("cdna2").unwrap().holds(f16));
    /// ```
    pub const fn holds(&self, b: &Builtin) -> bool {
        message::same_str(self.name, b.arch)
    }

    /// The builtin called `name` in this table: the bare name, the HIP
    /// builtin (`__builtin_amdgcn_mfma_...`), or the ISA mnemonic (this
    /// architecture's, or the `v_mfma_<name>` form the assembler still
    /// accepts). No `arch::` prefix.
    ///
    /// ```
    /// let cdna3 = mfma_spec::arch("cdna3").unwrap();
    /// let b = cdna3.find("v_mfma_f32_32x32x1_2b_f32").unwrap();
    /// assert_eq!(b.name, "f32_32x32x1f32");
    /// assert!(cdna3.find("f32_32x32x4bf16").is_none()); // CDNA2 only
    /// ```
    pub fn find(&'static self, name: &str) -> Option<&'static Builtin> {
        let bare = strip_prefix(name);
        self.builtins
            .iter()
            .find(|b| b.name == bare || b.isa == name || strip_prefix(b.isa) == bare)
    }

    /// Whether this is the default architecture (a bare name means it).
    ///
    /// By name, as every comparison of architectures: `ARCHS` and the
    /// tables are `const`s, so two references to one table need not have
    /// the same address (a fresh build gave the CLI's pictures a `cdna2-`
    /// prefix that way).
    pub fn is_default(&self) -> bool {
        self == ARCHS[0]
    }
}

/// One operand of an MFMA instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The M×K input (for SMFMAC: its compressed M×K/2 values).
    A,
    /// The K×N input.
    B,
    /// The M×N accumulator input.
    C,
    /// The M×N result (same layout as C).
    D,
    /// SMFMAC only: the index register, which says where each stored value
    /// of the sparse A lies in its group of 4 logical k ([`Sparse`]).
    Idx,
}

impl Operand {
    /// The four operands of every builtin (see [`Builtin::operands`] for
    /// SMFMAC's fifth, [`Idx`](Operand::Idx)).
    pub const ALL: [Operand; 4] = [Operand::A, Operand::B, Operand::C, Operand::D];

    /// Lower-case name (`a`, `b`, `c`, `d`, `idx`).
    pub const fn name(self) -> &'static str {
        match self {
            Operand::A => "a",
            Operand::B => "b",
            Operand::C => "c",
            Operand::D => "d",
            Operand::Idx => "idx",
        }
    }

    /// Parses `a`, `b`, `c`, `d` or `idx` (either case).
    pub fn from_name(s: &str) -> Option<Operand> {
        Operand::ALL
            .into_iter()
            .chain([Operand::Idx])
            .find(|o| o.name().eq_ignore_ascii_case(s))
    }

    /// Names of the (block, row, col) axes: `i, k` for A, `k, j` for B,
    /// `i, j` for C and D, `set, i, g` (index set, row, group of 4 k) for the
    /// index operand.
    pub const fn axis_names(self) -> [&'static str; 3] {
        match self {
            Operand::A => ["block", "i", "k"],
            Operand::B => ["block", "k", "j"],
            Operand::C | Operand::D => ["block", "i", "j"],
            Operand::Idx => ["set", "i", "g"],
        }
    }
}

/// Everything known about one builtin.
#[derive(Debug, PartialEq, Eq)]
pub struct Builtin {
    /// Name without prefix (`f32_32x32x8bf16_1k`): the builtin's suffix.
    pub name: &'static str,
    /// The [`Arch::name`] of the table holding it.
    pub arch: &'static str,
    /// LLVM intrinsic (`llvm.amdgcn.mfma.f32.32x32x8bf16.1k`).
    pub llvm_intrinsic: &'static str,
    /// ISA mnemonic as the architecture's assembler prints it
    /// (`v_mfma_f32_32x32x8bf16_1k` on CDNA2, `v_mfma_f32_32x32x8_bf16` on CDNA3).
    pub isa: &'static str,
    /// Rows of A, C, D.
    pub m: usize,
    /// Columns of B, C, D.
    pub n: usize,
    /// Columns of A, rows of B (for SMFMAC the logical K: A stores K/2 of them).
    pub k: usize,
    /// Independent blocks computed at once.
    pub blocks: usize,
    /// Element type of A.
    pub a_type: ElemType,
    /// Element type of B (differs from A's only for the mixed fp8/bf8 builtins).
    pub b_type: ElemType,
    /// A elements per lane (SMFMAC: compressed values, half of B's).
    pub a_per_lane: usize,
    /// B elements per lane.
    pub b_per_lane: usize,
    /// LLVM type of one lane's A operand.
    pub llvm_a: LlvmType,
    /// LLVM type of one lane's B operand (A's but for SMFMAC).
    pub llvm_b: LlvmType,
    /// Element type of C and D.
    pub cd: ElemType,
    /// C (and D) elements per lane.
    pub cd_per_lane: usize,
    /// LLVM type of one lane's C (and D) operand.
    pub llvm_cd: LlvmType,
    /// Issue cycles (peak rate = ops / cycles per CU per clock).
    pub cycles: u32,
    /// VALU cycles that can co-execute; `None` where co-execution is
    /// unsupported (CDNA2 FP64) or not published (see [`Arch::valu_coexec_published`]).
    pub valu_coexec: Option<u32>,
    /// Largest legal cbsz, `None` where cbsz/abid must be 0. (On SMFMAC
    /// cbsz does not broadcast: see [`Sparse`].)
    pub cbsz_max: Option<u32>,
    /// What the instruction's three blgp bits mean.
    pub blgp: BlgpBits,
    /// The arithmetic family (reference section 4).
    pub arith: Arith,
    /// Accumulator layout family.
    pub acc: AccLayout,
    /// Layout of A: coordinates (block, i, k); for SMFMAC (block 0, i, kc),
    /// kc the compressed column (0..K/2, see [`Sparse`]).
    pub a: Layout,
    /// Layout of B: coordinates (block, k, j).
    pub b: Layout,
    /// Layout of C and D: coordinates (block, i, j).
    pub c: Layout,
    /// SMFMAC only: the index operand and its sets; `None` for dense MFMA.
    pub sparse: Option<Sparse>,
}

impl Builtin {
    /// Layout of an operand (D shares C's).
    ///
    /// # Panics
    /// For [`Operand::Idx`] of a dense builtin (in a `const`, a compile
    /// error): only SMFMAC has an index operand (see [`try_layout`](Builtin::try_layout)).
    pub const fn layout(&self, op: Operand) -> &Layout {
        match self.try_layout(op) {
            Some(l) => l,
            None => panic!("a dense MFMA builtin has no index operand (only SMFMAC has one)"),
        }
    }

    /// [`layout`](Builtin::layout), or `None` for the index operand of a
    /// dense builtin.
    pub const fn try_layout(&self, op: Operand) -> Option<&Layout> {
        match op {
            Operand::A => Some(&self.a),
            Operand::B => Some(&self.b),
            Operand::C | Operand::D => Some(&self.c),
            Operand::Idx => match &self.sparse {
                Some(s) => Some(&s.idx),
                None => None,
            },
        }
    }

    /// The operands the builtin takes: A, B, C, D, and for SMFMAC the index.
    ///
    /// ```
    /// use mfma_spec::{find, Operand};
    /// assert_eq!(find("cdna3::smfmac_f32_16x16x32_f16").unwrap().operands().len(), 5);
    /// assert_eq!(find("f32_32x32x2f32").unwrap().operands(), Operand::ALL);
    /// ```
    pub const fn operands(&self) -> &'static [Operand] {
        const SPARSE: [Operand; 5] = [Operand::A, Operand::B, Operand::C, Operand::D, Operand::Idx];
        if self.sparse.is_some() {
            &SPARSE
        } else {
            &Operand::ALL
        }
    }

    /// Whether this is a structured-sparse (SMFMAC) instruction.
    pub const fn is_sparse(&self) -> bool {
        self.sparse.is_some()
    }

    /// Element type of an operand ([`ElemType::Idx`] for the index).
    pub const fn elem(&self, op: Operand) -> ElemType {
        match op {
            Operand::A => self.a_type,
            Operand::B => self.b_type,
            Operand::C | Operand::D => self.cd,
            Operand::Idx => ElemType::Idx,
        }
    }

    /// Elements per lane of an operand (the index: its 4-bit fields, 8 in
    /// one 32-bit register; 0 for a dense builtin).
    pub const fn per_lane(&self, op: Operand) -> usize {
        match op {
            Operand::A => self.a_per_lane,
            Operand::B => self.b_per_lane,
            Operand::C | Operand::D => self.cd_per_lane,
            Operand::Idx => match &self.sparse {
                Some(s) => s.idx.items,
                None => 0,
            },
        }
    }

    /// LLVM type of one lane's operand (the index: `i32`).
    pub const fn llvm_type(&self, op: Operand) -> LlvmType {
        match op {
            Operand::A => self.llvm_a,
            Operand::B => self.llvm_b,
            Operand::C | Operand::D => self.llvm_cd,
            Operand::Idx => LlvmType::scalar(LlvmScalar::I32),
        }
    }

    /// 32-bit VGPRs per lane an operand occupies.
    pub const fn vgprs(&self, op: Operand) -> usize {
        (self.per_lane(op) * self.elem(op).bits() as usize).div_ceil(32)
    }

    /// Arithmetic operations per instruction: `2*M*N*K*blocks` (for SMFMAC
    /// with the logical K, as AMD counts them).
    pub const fn ops(&self) -> u64 {
        2 * (self.m * self.n * self.k * self.blocks) as u64
    }

    /// Peak operations per CU per clock: `ops / cycles`.
    pub const fn ops_per_cycle(&self) -> u64 {
        self.ops() / self.cycles as u64
    }

    /// The HIP builtin: `__builtin_amdgcn_mfma_<name>` for dense MFMA,
    /// `__builtin_amdgcn_<name>` for SMFMAC (whose name starts `smfmac_`).
    ///
    /// ```
    /// let s = mfma_spec::find("cdna3::smfmac_i32_16x16x64_i8").unwrap();
    /// assert_eq!(s.hip_name().to_string(), "__builtin_amdgcn_smfmac_i32_16x16x64_i8");
    /// let d = mfma_spec::find("f64_4x4x4f64").unwrap();
    /// assert_eq!(d.hip_name().to_string(), "__builtin_amdgcn_mfma_f64_4x4x4f64");
    /// ```
    pub fn hip_name(&self) -> impl core::fmt::Display + '_ {
        struct Hip<'a>(&'a Builtin);
        impl core::fmt::Display for Hip<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let prefix = if self.0.is_sparse() {
                    Builtin::HIP_PREFIX_SPARSE
                } else {
                    Builtin::HIP_PREFIX
                };
                write!(f, "{prefix}{}", self.0.name)
            }
        }
        Hip(self)
    }

    /// Whether the instruction takes no modifier at all.
    pub const fn takes_no_modifiers(&self) -> bool {
        self.cbsz_max.is_none() && matches!(self.blgp, BlgpBits::Unused)
    }

    /// The name as users write it: bare for the default architecture,
    /// `arch::name` otherwise (`cdna3::f32_32x32x16_fp8_fp8`).
    pub fn path(&self) -> message::Path<'_> {
        message::Path(self)
    }

    /// The builtin of `other` that does this one's job: the same name if
    /// `other` has it, otherwise the one with the same M, N, blocks and
    /// element types and the nearest K (`f32_32x32x4bf16` on CDNA3 is
    /// `f32_32x32x8bf16_1k`); `None` if `other` has nothing alike.
    ///
    /// ```
    /// let old = mfma_spec::find("i32_32x32x8i8").unwrap();
    /// let new = old.counterpart(mfma_spec::arch("cdna3").unwrap()).unwrap();
    /// assert_eq!(new.name, "i32_32x32x16_i8");
    /// ```
    pub const fn counterpart(&self, other: &'static Arch) -> Option<&'static Builtin> {
        let mut best: Option<&'static Builtin> = None;
        let mut i = 0;
        while i < other.builtins.len() {
            let b = &other.builtins[i];
            if message::same_str(b.name, self.name) {
                return Some(b);
            }
            let alike = b.m == self.m
                && b.sparse.is_some() == self.sparse.is_some()
                && b.n == self.n
                && b.blocks == self.blocks
                && same_type(b.a_type, self.a_type)
                && same_type(b.b_type, self.b_type)
                && same_type(b.cd, self.cd);
            if alike {
                best = match best {
                    Some(x) if x.k.abs_diff(self.k) <= b.k.abs_diff(self.k) => Some(x),
                    _ => Some(b),
                };
            }
            i += 1;
        }
        best
    }

    /// How this builtin differs from `other`'s of the same name on another
    /// architecture, for messages that send users from one to the other:
    /// which of the modifier rules and the arithmetic differ, as a
    /// parenthesis.
    ///
    /// ```
    /// let cdna3 = mfma_spec::arch("cdna3").unwrap();
    /// let how = |name| {
    ///     let b = mfma_spec::find(name).unwrap();
    ///     b.differences(b.counterpart(cdna3).unwrap())
    /// };
    /// assert_eq!(how("f32_32x32x8f16"), "(its modifier rules and arithmetic differ)");
    /// assert_eq!(how("f32_16x16x4f16"), "(its arithmetic differs)");
    /// assert_eq!(how("f64_16x16x4f64"), "(its modifier rules differ)");
    /// assert_eq!(
    ///     how("f32_32x32x2f32"),
    ///     "(the same modifier rules and arithmetic, but each architecture has its own types)"
    /// );
    /// ```
    pub const fn differences(&self, other: &Builtin) -> &'static str {
        match self.differs_in(other) {
            (true, true) => "(its modifier rules and arithmetic differ)",
            (false, true) => "(its arithmetic differs)",
            (true, false) => "(its modifier rules differ)",
            (false, false) => {
                "(the same modifier rules and arithmetic, but each architecture has its own types)"
            }
        }
    }

    /// Why a kernel compiled for `target`, a GPU of `here`, may not use this
    /// builtin of another architecture, and what to use instead: the text
    /// `mfma-core` stops such a build with (where LLVM would stop with
    /// "Cannot select" and no location), and the device check expects.
    ///
    /// ```
    /// let cdna3 = mfma_spec::arch("cdna3").unwrap();
    /// let old = mfma_spec::find("f32_32x32x4bf16").unwrap();
    /// assert_eq!(
    ///     old.wrong_arch(cdna3, "gfx942").as_str(),
    ///     "f32_32x32x4bf16 is a CDNA2 instruction; this crate is compiled for gfx942 \
    ///      (CDNA3), which lacks it: use cdna3::f32_32x32x8bf16_1k"
    /// );
    /// let f16 = mfma_spec::find("f32_32x32x8f16").unwrap();
    /// assert!(f16.wrong_arch(cdna3, "gfx942").as_str().ends_with(
    ///     "whose own f32_32x32x8f16 is cdna3::f32_32x32x8f16 \
    ///      (its modifier rules and arithmetic differ)"
    /// ));
    /// ```
    pub const fn wrong_arch(&self, here: &'static Arch, target: &str) -> Message {
        let m = Message::new()
            .path(self)
            .str(" is a ")
            .str(arch_of(self).title)
            .str(" instruction; this crate is compiled for ")
            .str(target)
            .str(" (")
            .str(here.title)
            .str("), ");
        match self.counterpart(here) {
            Some(c) if message::same_str(c.name, self.name) => m
                .str("whose own ")
                .str(c.name)
                .str(" is ")
                .path(c)
                .str(" ")
                .str(self.differences(c)),
            Some(c) => m.str("which lacks it: use ").path(c),
            None => m.str("which has nothing like it"),
        }
    }

    /// Whether this builtin's modifier rules (cbsz and blgp) and its
    /// arithmetic differ from `other`'s: see [`differences`](Builtin::differences).
    pub const fn differs_in(&self, other: &Builtin) -> (bool, bool) {
        let same_cbsz = match (self.cbsz_max, other.cbsz_max) {
            (Some(a), Some(b)) => a == b,
            (None, None) => true,
            _ => false,
        };
        let modifiers = !same_cbsz || self.blgp as u8 != other.blgp as u8;
        (modifiers, !self.arith.same(other.arith))
    }

    /// The prefix of a dense builtin's HIP name (see [`hip_name`](Builtin::hip_name)).
    pub const HIP_PREFIX: &'static str = "__builtin_amdgcn_mfma_";
    /// The prefix of an SMFMAC builtin's HIP name, before its `smfmac_` name.
    pub const HIP_PREFIX_SPARSE: &'static str = "__builtin_amdgcn_";
}

const fn same_type(a: ElemType, b: ElemType) -> bool {
    a as u8 == b as u8
}

/// Finds a builtin by the name users write: an optional architecture prefix
/// (`cdna3::`; none means the default architecture, CDNA2), then the bare
/// name or its HIP or ISA spelling (see [`Arch::find`]).
///
/// ```
/// assert!(mfma_spec::find("__builtin_amdgcn_mfma_f64_4x4x4f64").is_some());
/// assert!(mfma_spec::find("f32_32x32x8bf16").is_none());
/// assert_eq!(mfma_spec::find("cdna3::f32_32x32x16_fp8_bf8").unwrap().arch, "cdna3");
/// ```
pub fn find(name: &str) -> Option<&'static Builtin> {
    lookup(name).ok()
}

/// [`find`], with the reason when it fails: an unknown architecture prefix,
/// or an unknown name with the closest builtin of that architecture.
///
/// ```
/// let e = mfma_spec::lookup("cdna3::f32_32x32x4bf16").unwrap_err();
/// assert_eq!(e.to_string(), "unknown CDNA3 builtin `f32_32x32x4bf16`: gfx942 has no such \
///     instruction (it is CDNA2's); CDNA3 has `cdna3::f32_32x32x8bf16_1k`");
/// ```
pub fn lookup(name: &str) -> Result<&'static Builtin, LookupError<'_>> {
    let (prefix, bare) = split_arch(name);
    let table = match prefix {
        None => ARCHS[0],
        Some(given) => arch(given).ok_or(LookupError::UnknownArch { given })?,
    };
    table
        .find(bare)
        .ok_or_else(|| suggest::unknown(table, bare))
}

/// Splits `cdna3::name` into `(Some("cdna3"), "name")`; a name without
/// `::` gives `(None, name)`.
pub fn split_arch(name: &str) -> (Option<&str>, &str) {
    match name.split_once("::") {
        Some((a, rest)) => (Some(a.trim()), rest.trim()),
        None => (None, name.trim()),
    }
}

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
