//! The `cbsz`, `abid`, `blgp` and `neg` modifiers: legality rules and data
//! routing.
//!
//! They are immediates of the instruction. LLVM does not validate them: any
//! value compiles, and the encoding silently keeps only the low bits (cbsz 3
//! bits, abid 4 bits, blgp 3 bits), so `cbsz = 8` runs as 0 and `-1` as 7. A
//! wrong modifier becomes a silent wrong answer on hardware. These rules are
//! why `mfma!` can reject them at compile time; the CLI shares them.
//!
//! The rules read the builtin's table row only ([`Builtin::cbsz_max`],
//! [`Builtin::blgp`], the element types); messages name the other
//! architectures' counterparts where that explains a difference.

use crate::message::Message;
use crate::{arch_of, Builtin, ElemType, Operand, ARCHS};
use core::fmt;

/// What the three blgp bits of an instruction mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlgpBits {
    /// 0..=7 select a B lane-group pattern (reference 3.2).
    Pattern,
    /// Nothing: they must be 0 (CDNA2 FP64; CDNA3's single-block f16, bf16,
    /// i8, fp8/bf8 and xf32).
    Unused,
    /// Negation flags (CDNA3 FP64): bit 0 negates A, bit 1 B, bit 2 C.
    /// Written `neg = [a, b, c]` (any subset), never as a blgp number.
    Negate,
}

/// One of the modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// Control broadcast size: log2 of the group of blocks sharing one A block.
    Cbsz,
    /// A-matrix broadcast identifier: which block of each group feeds it.
    Abid,
    /// B-matrix lane-group pattern.
    Blgp,
    /// Operand negation (CDNA3 FP64): which of A, B, C are negated.
    Neg,
}

impl Modifier {
    /// All modifiers, in the order they are written.
    pub const ALL: [Modifier; 4] = [
        Modifier::Cbsz,
        Modifier::Abid,
        Modifier::Blgp,
        Modifier::Neg,
    ];

    /// The name as written in source (`cbsz`, `abid`, `blgp`, `neg`).
    pub const fn name(self) -> &'static str {
        match self {
            Modifier::Cbsz => "cbsz",
            Modifier::Abid => "abid",
            Modifier::Blgp => "blgp",
            Modifier::Neg => "neg",
        }
    }

    /// Parses a modifier name.
    pub fn from_name(name: &str) -> Option<Modifier> {
        Modifier::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The largest value this modifier may take on builtin `b`; every value
    /// from 0 up to it is legal on its own. For abid that is the bound with
    /// the largest cbsz (the real bound is `2^cbsz - 1`); for neg it is the
    /// mask of all three operands.
    ///
    /// ```
    /// use mfma_spec::{find, Modifier};
    /// let b = find("f32_16x16x4f16").unwrap(); // 4 blocks
    /// assert_eq!(Modifier::ALL.map(|m| m.max(b)), [2, 3, 7, 0]);
    /// let f64mma = find("cdna3::f64_4x4x4f64").unwrap();
    /// assert_eq!(Modifier::ALL.map(|m| m.max(f64mma)), [0, 0, 0, 7]);
    /// ```
    pub const fn max(self, b: &Builtin) -> i64 {
        if let (Modifier::Abid, Some(s)) = (self, &b.sparse) {
            return s.sets as i64 - 1;
        }
        match (self, b.cbsz_max) {
            (Modifier::Cbsz, Some(max)) => max as i64,
            (Modifier::Abid, Some(max)) => (1i64 << max) - 1,
            (Modifier::Cbsz | Modifier::Abid, None) => 0,
            (Modifier::Blgp, _) if matches!(b.blgp, BlgpBits::Pattern) => BLGP_MAX,
            (Modifier::Neg, _) if matches!(b.blgp, BlgpBits::Negate) => NEG_MAX,
            (Modifier::Blgp | Modifier::Neg, _) => 0,
        }
    }

    /// Whether some builtin of the architecture called `arch` takes this modifier.
    pub fn in_arch(self, arch: &crate::Arch) -> bool {
        arch.builtins.iter().any(|b| self.max(b) > 0)
    }
}

/// The largest blgp: it selects one of 8 B lane-group patterns (reference 3.2).
const BLGP_MAX: i64 = 7;
/// All three negation flags.
const NEG_MAX: i64 = 7;

/// Values of the modifiers of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// See [`Modifier::Cbsz`].
    pub cbsz: i64,
    /// See [`Modifier::Abid`].
    pub abid: i64,
    /// See [`Modifier::Blgp`].
    pub blgp: i64,
    /// See [`Modifier::Neg`]: bit 0 negates A, bit 1 B, bit 2 C.
    pub neg: i64,
}

impl Modifiers {
    /// All zero: the plain instruction.
    pub const NONE: Modifiers = Modifiers {
        cbsz: 0,
        abid: 0,
        blgp: 0,
        neg: 0,
    };

    /// cbsz, abid and blgp (no negation).
    pub const fn new(cbsz: i64, abid: i64, blgp: i64) -> Self {
        Modifiers {
            cbsz,
            abid,
            blgp,
            neg: 0,
        }
    }

    /// The same with the negation flags `neg` (bit 0 A, bit 1 B, bit 2 C).
    pub const fn with_neg(self, neg: i64) -> Self {
        Modifiers { neg, ..self }
    }

    /// The negation mask of a list of operands (`[A, C]` → `0b101`).
    pub const fn neg_mask(ops: &[Operand]) -> i64 {
        let mut mask = 0;
        let mut i = 0;
        while i < ops.len() {
            mask |= match ops[i] {
                Operand::A => 1,
                Operand::B => 2,
                Operand::C | Operand::D => 4,
                Operand::Idx => 0,
            };
            i += 1;
        }
        mask
    }

    /// Whether operand `op` is negated (D never is; C's flag negates C).
    pub const fn negates(&self, op: Operand) -> bool {
        let bit = match op {
            Operand::A => 1,
            Operand::B => 2,
            Operand::C => 4,
            Operand::D | Operand::Idx => 0,
        };
        self.neg & bit != 0
    }

    /// The value of one modifier.
    pub const fn get(&self, m: Modifier) -> i64 {
        match m {
            Modifier::Cbsz => self.cbsz,
            Modifier::Abid => self.abid,
            Modifier::Blgp => self.blgp,
            Modifier::Neg => self.neg,
        }
    }

    /// The instruction's three immediates `[cbsz, abid, blgp field]` for
    /// builtin `b`: the blgp field holds the negation flags where
    /// [`BlgpBits::Negate`] says so (this is what the intrinsic takes).
    pub const fn immediates(&self, b: &Builtin) -> [i64; 3] {
        let field = match b.blgp {
            BlgpBits::Negate => self.neg,
            BlgpBits::Pattern | BlgpBits::Unused => self.blgp,
        };
        [self.cbsz, self.abid, field]
    }

    /// The inverse of [`immediates`](Modifiers::immediates).
    ///
    /// ```
    /// use mfma_spec::{find, Modifiers};
    /// let b = find("cdna3::f64_16x16x4f64").unwrap();
    /// assert_eq!(Modifiers::from_immediates(b, [0, 0, 5]), Modifiers::NONE.with_neg(5));
    /// ```
    pub const fn from_immediates(b: &Builtin, [cbsz, abid, field]: [i64; 3]) -> Self {
        match b.blgp {
            BlgpBits::Negate => Modifiers::new(cbsz, abid, 0).with_neg(field),
            BlgpBits::Pattern | BlgpBits::Unused => Modifiers::new(cbsz, abid, field),
        }
    }

    /// Block whose A operand feeds block `b` (reference 3.1):
    /// `2^cbsz * (b / 2^cbsz) + abid`. Only meaningful for legal modifiers.
    pub const fn a_source_block(&self, b: usize) -> usize {
        let group = 1usize << self.cbsz;
        group * (b / group) + self.abid as usize
    }

    /// Lane whose B value lane `lane` reads (reference 3.2, the `blgp` pattern).
    pub const fn b_source_lane(&self, lane: usize) -> usize {
        match self.blgp {
            1 => lane % 32,
            2 => 32 + lane % 32,
            3 => (lane + 16) % 64,
            4 => lane % 16,
            5 => 16 + lane % 16,
            6 => 32 + lane % 16,
            7 => 48 + lane % 16,
            _ => lane,
        }
    }
}

/// Why a modifier value is illegal for a builtin. `Display` gives the full
/// message (`blgp must be 0 for f64_16x16x4f64: ...`), and so does
/// [`ModifierError::message`] in `const`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModifierError {
    /// A negative value.
    Negative {
        /// Offending modifier.
        modifier: Modifier,
        /// Its value.
        value: i64,
    },
    /// Nonzero blgp where the bits mean nothing (CDNA2 FP64, CDNA3's
    /// single-block f16, bf16, i8, fp8/bf8 and xf32).
    BlgpUnused {
        /// The builtin.
        builtin: &'static Builtin,
    },
    /// Nonzero blgp where the bits are negation flags (CDNA3 FP64).
    BlgpIsNegation {
        /// The builtin.
        builtin: &'static Builtin,
    },
    /// blgp above 7.
    BlgpTooLarge {
        /// The builtin.
        builtin: &'static Builtin,
        /// Its value.
        value: i64,
    },
    /// Nonzero cbsz or abid on an FP64 builtin (even the 4-block one).
    BroadcastOnF64 {
        /// Offending modifier (cbsz or abid).
        modifier: Modifier,
        /// The builtin.
        builtin: &'static Builtin,
    },
    /// Nonzero cbsz or abid on a 1-block builtin.
    BroadcastOnSingleBlock {
        /// Offending modifier (cbsz or abid).
        modifier: Modifier,
        /// The builtin.
        builtin: &'static Builtin,
    },
    /// SMFMAC: abid not below the number of index sets (whatever cbsz is).
    IndexSetOutOfRange {
        /// The builtin.
        builtin: &'static Builtin,
        /// Its value.
        value: i64,
    },
    /// cbsz above log2(blocks) (SMFMAC: above 3).
    CbszTooLarge {
        /// The builtin.
        builtin: &'static Builtin,
        /// Its value.
        value: i64,
    },
    /// abid not below 2^cbsz.
    AbidOutOfRange {
        /// The builtin.
        builtin: &'static Builtin,
        /// The cbsz it was given with.
        cbsz: i64,
        /// Its value.
        value: i64,
    },
    /// Negation on a builtin that has none.
    NegUnsupported {
        /// The builtin.
        builtin: &'static Builtin,
    },
    /// Negation flags above 7 (only reachable through the raw immediate).
    NegTooLarge {
        /// The builtin.
        builtin: &'static Builtin,
        /// Its value.
        value: i64,
    },
}

impl ModifierError {
    /// The modifier a diagnostic should point at.
    pub const fn modifier(&self) -> Modifier {
        match *self {
            ModifierError::Negative { modifier, .. }
            | ModifierError::BroadcastOnF64 { modifier, .. }
            | ModifierError::BroadcastOnSingleBlock { modifier, .. } => modifier,
            ModifierError::BlgpUnused { .. }
            | ModifierError::BlgpIsNegation { .. }
            | ModifierError::BlgpTooLarge { .. } => Modifier::Blgp,
            ModifierError::CbszTooLarge { .. } => Modifier::Cbsz,
            ModifierError::AbidOutOfRange { .. } | ModifierError::IndexSetOutOfRange { .. } => {
                Modifier::Abid
            }
            ModifierError::NegUnsupported { .. } | ModifierError::NegTooLarge { .. } => {
                Modifier::Neg
            }
        }
    }

    /// The full message, built in `const` (the compile-time backstop panics
    /// with it, so a named constant is reported as a literal is).
    pub const fn message(&self) -> Message {
        let m = Message::new();
        match *self {
            ModifierError::Negative { modifier, value } => m
                .str(modifier.name())
                .str(" must not be negative (got ")
                .int(value)
                .str("): modifiers are unsigned bit fields of the instruction"),
            ModifierError::BlgpUnused { builtin } => blgp_unused(builtin),
            ModifierError::BlgpIsNegation { builtin } => m
                .str("blgp must be 0 for ")
                .path(builtin)
                .str(": on ")
                .str(arch_of(builtin).title)
                .str(" its blgp bits are ")
                .str(family(builtin))
                .str(
                    " negation flags, not a B lane-group pattern: negate operands with `neg` \
                      instead (any subset of a, b, c)",
                ),
            ModifierError::BlgpTooLarge { builtin, value } => m
                .str("blgp must be in 0..=")
                .int(BLGP_MAX)
                .str(" for ")
                .path(builtin)
                .str(" (got ")
                .int(value)
                .str("): it selects one of ")
                .int(BLGP_MAX + 1)
                .str(" B lane-group patterns"),
            ModifierError::BroadcastOnF64 { modifier, builtin } => {
                let m = m
                    .str(modifier.name())
                    .str(" must be 0 for ")
                    .path(builtin)
                    .str(": FP64 MFMA has no A block broadcast (cbsz/abid)");
                if builtin.blocks > 1 {
                    m.str(", even with ")
                        .uint(builtin.blocks as u64)
                        .str(" blocks")
                } else {
                    m
                }
            }
            ModifierError::BroadcastOnSingleBlock { modifier, builtin } => m
                .str(modifier.name())
                .str(" must be 0 for ")
                .path(builtin)
                .str(": it computes 1 block, so there is no other A block to broadcast"),
            ModifierError::CbszTooLarge { builtin, value } if builtin.is_sparse() => m
                .str("cbsz must be in 0..=")
                .uint(crate::Sparse::CBSZ_MAX as u64)
                .str(" for ")
                .path(builtin)
                .str(" (got ")
                .int(value)
                .str(
                    "): on SMFMAC cbsz 0 lets abid pick the index set and 1..=3 use set 0; \
                      larger values are undefined",
                ),
            ModifierError::IndexSetOutOfRange { builtin, value } => {
                let sets = match &builtin.sparse {
                    Some(s) => s.sets,
                    None => 1,
                };
                m.str("abid must be in 0..=")
                    .uint(sets as u64 - 1)
                    .str(" for ")
                    .path(builtin)
                    .str(" (got ")
                    .int(value)
                    .str("): it picks one of the ")
                    .uint(sets as u64)
                    .str(" index sets of the index register (")
                    .uint(32 / sets as u64)
                    .str(" bits each), whatever cbsz is")
            }
            ModifierError::CbszTooLarge { builtin, value } => {
                let max = match builtin.cbsz_max {
                    Some(max) => max as u64,
                    None => 0,
                };
                m.str("cbsz must be in 0..=")
                    .uint(max)
                    .str(" for ")
                    .path(builtin)
                    .str(" (got ")
                    .int(value)
                    .str("): it has ")
                    .uint(builtin.blocks as u64)
                    .str(" blocks and cbsz is log2 of the group of blocks that share one A block")
            }
            ModifierError::AbidOutOfRange {
                builtin,
                cbsz,
                value,
            } => {
                if cbsz == 0 {
                    m.str("abid must be 0 for ")
                        .path(builtin)
                        .str(" when cbsz is 0 (got ")
                        .int(value)
                        .str("): abid picks the block within each group of 2^cbsz blocks; set cbsz first")
                } else if cbsz < 0 || cbsz >= 62 {
                    m.str("abid must be below 2^cbsz for ")
                        .path(builtin)
                        .str(" (got cbsz = ")
                        .int(cbsz)
                        .str(")")
                } else {
                    m.str("abid must be in 0..=")
                        .int((1i64 << cbsz) - 1)
                        .str(" for ")
                        .path(builtin)
                        .str(" with cbsz = ")
                        .int(cbsz)
                        .str(" (got ")
                        .int(value)
                        .str("): abid picks the block within each group of 2^cbsz = ")
                        .int(1i64 << cbsz)
                        .str(" blocks")
                }
            }
            ModifierError::NegUnsupported { builtin } => neg_unsupported(builtin),
            ModifierError::NegTooLarge { builtin, value } => m
                .str("neg flags must be in 0..=")
                .int(NEG_MAX)
                .str(" for ")
                .path(builtin)
                .str(" (got ")
                .int(value)
                .str("): bit 0 negates A, bit 1 B, bit 2 C"),
        }
    }
}

impl fmt::Display for ModifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message().as_str())
    }
}

/// `FP64`, or the input type's name, for messages.
const fn family(b: &Builtin) -> &'static str {
    match b.a_type {
        ElemType::F64 => "FP64",
        t => t.name(),
    }
}

/// A builtin of the same name in another architecture whose blgp bits mean
/// `kind`.
const fn same_name_elsewhere(b: &Builtin, kind: BlgpBits) -> Option<&'static Builtin> {
    let mut i = 0;
    while i < ARCHS.len() {
        let table = ARCHS[i].builtins;
        let mut j = 0;
        while j < table.len() {
            let other = &table[j];
            if !crate::message::same_str(other.arch, b.arch)
                && crate::message::same_str(other.name, b.name)
                && other.blgp as u8 == kind as u8
            {
                return Some(other);
            }
            j += 1;
        }
        i += 1;
    }
    None
}

const fn blgp_unused(b: &'static Builtin) -> Message {
    let m = Message::new().str("blgp must be 0 for ").path(b).str(": ");
    if b.is_sparse() {
        m.str(
            "structured-sparse SMFMAC has no B lane-group pattern (its modifiers are cbsz and \
               abid, which pick the index set)",
        )
    } else if matches!(b.a_type, ElemType::F64) {
        let m = m.str("FP64 MFMA has no B lane-group pattern");
        match same_name_elsewhere(b, BlgpBits::Negate) {
            Some(other) => m
                .str(" (on ")
                .str(arch_of(other).title)
                .str(" these bits negate A/B/C instead)"),
            None => m,
        }
    } else {
        let m = m
            .str("on ")
            .str(arch_of(b).title)
            .str(" this instruction takes no modifiers at all");
        match same_name_elsewhere(b, BlgpBits::Pattern) {
            Some(other) => m
                .str(" (")
                .str(arch_of(other).title)
                .str("'s ")
                .str(other.name)
                .str(" allowed blgp; ")
                .str(arch_of(b).title)
                .str("'s does not)"),
            None => m,
        }
    }
}

const fn neg_unsupported(b: &'static Builtin) -> Message {
    let m = Message::new()
        .str("neg must be empty for ")
        .path(b)
        .str(": ")
        .str(arch_of(b).title);
    match same_name_elsewhere(b, BlgpBits::Negate) {
        Some(other) => m
            .str(" has no operand negation on this instruction (")
            .path(other)
            .str(" has it)"),
        None => {
            // Which builtins of this architecture negate, if any.
            let table = arch_of(b).builtins;
            let mut total = 0;
            let mut i = 0;
            while i < table.len() {
                total += matches!(table[i].blgp, BlgpBits::Negate) as usize;
                i += 1;
            }
            let mut m = m;
            let mut found = 0;
            let mut i = 0;
            while i < table.len() {
                if matches!(table[i].blgp, BlgpBits::Negate) {
                    m = m.str(match found {
                        0 => " negates operands only in ",
                        f if f + 1 == total => " and ",
                        _ => ", ",
                    });
                    m = m.path(&table[i]);
                    found += 1;
                }
                i += 1;
            }
            if found == 0 {
                m.str(" MFMA have no operand negation")
            } else {
                m
            }
        }
    }
}

/// Rule: modifiers are unsigned bit fields.
pub const fn check_sign(m: Modifiers) -> Result<(), ModifierError> {
    let mut i = 0;
    while i < Modifier::ALL.len() {
        let modifier = Modifier::ALL[i];
        let value = m.get(modifier);
        if value < 0 {
            return Err(ModifierError::Negative { modifier, value });
        }
        i += 1;
    }
    Ok(())
}

/// Rule: blgp is 0..=7 where it selects a lane pattern, and 0 where its bits
/// mean nothing or are negation flags.
pub const fn check_blgp(b: &'static Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.blgp == 0 {
        return Ok(());
    }
    match b.blgp {
        BlgpBits::Unused => Err(ModifierError::BlgpUnused { builtin: b }),
        BlgpBits::Negate => Err(ModifierError::BlgpIsNegation { builtin: b }),
        BlgpBits::Pattern if m.blgp > BLGP_MAX => Err(ModifierError::BlgpTooLarge {
            builtin: b,
            value: m.blgp,
        }),
        BlgpBits::Pattern => Ok(()),
    }
}

/// Rule: cbsz is 0 where broadcast is unsupported, else at most log2(blocks).
pub const fn check_cbsz(b: &'static Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.cbsz == 0 {
        return Ok(());
    }
    match b.cbsz_max {
        None => Err(no_broadcast(b, Modifier::Cbsz)),
        Some(max) if m.cbsz > max as i64 => Err(ModifierError::CbszTooLarge {
            builtin: b,
            value: m.cbsz,
        }),
        Some(_) => Ok(()),
    }
}

/// Rule: abid is below 2^cbsz (so 0 when cbsz is 0), and 0 where broadcast
/// is unsupported; on SMFMAC below the number of index sets, whatever cbsz is.
pub const fn check_abid(b: &'static Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.abid == 0 {
        return Ok(());
    }
    if let Some(s) = &b.sparse {
        if m.abid >= s.sets as i64 {
            return Err(ModifierError::IndexSetOutOfRange {
                builtin: b,
                value: m.abid,
            });
        }
        return Ok(());
    }
    if b.cbsz_max.is_none() {
        return Err(no_broadcast(b, Modifier::Abid));
    }
    if m.cbsz < 0 || m.cbsz >= 62 || m.abid >= (1i64 << m.cbsz) {
        return Err(ModifierError::AbidOutOfRange {
            builtin: b,
            cbsz: m.cbsz,
            value: m.abid,
        });
    }
    Ok(())
}

/// Rule: negation only where the blgp bits are negation flags, at most the
/// three operands.
pub const fn check_neg(b: &'static Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.neg == 0 {
        return Ok(());
    }
    if !matches!(b.blgp, BlgpBits::Negate) {
        return Err(ModifierError::NegUnsupported { builtin: b });
    }
    if m.neg > NEG_MAX {
        return Err(ModifierError::NegTooLarge {
            builtin: b,
            value: m.neg,
        });
    }
    Ok(())
}

const fn no_broadcast(b: &'static Builtin, modifier: Modifier) -> ModifierError {
    if matches!(b.a_type, ElemType::F64) {
        ModifierError::BroadcastOnF64 {
            modifier,
            builtin: b,
        }
    } else {
        ModifierError::BroadcastOnSingleBlock {
            modifier,
            builtin: b,
        }
    }
}

/// Checks all rules in a fixed order and returns the first broken one.
///
/// ```
/// use mfma_spec::{find, validate, Modifiers};
/// let f64mma = find("f64_16x16x4f64").unwrap();
/// let err = validate(f64mma, Modifiers::new(0, 0, 1)).unwrap_err();
/// assert!(err.to_string().starts_with("blgp must be 0 for f64_16x16x4f64"));
/// assert!(validate(find("f32_16x16x4f16").unwrap(), Modifiers::new(1, 1, 3)).is_ok());
/// // CDNA3: f64 negates operands instead.
/// let f64_3 = find("cdna3::f64_16x16x4f64").unwrap();
/// assert!(validate(f64_3, Modifiers::NONE.with_neg(0b101)).is_ok());
/// assert!(validate(f64mma, Modifiers::NONE.with_neg(0b101)).is_err());
/// ```
pub const fn validate(b: &'static Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if let Err(e) = check_sign(m) {
        return Err(e);
    }
    if let Err(e) = check_cbsz(b, m) {
        return Err(e);
    }
    if let Err(e) = check_abid(b, m) {
        return Err(e);
    }
    if let Err(e) = check_blgp(b, m) {
        return Err(e);
    }
    check_neg(b, m)
}

/// Every legal modifier set of `b`, ordered by cbsz, abid, then the third
/// immediate (blgp, or the negation flags where [`BlgpBits::Negate`] says
/// so). Only the immediates vary: `neg` appears as that field.
///
/// ```
/// use mfma_spec::{find, legal_modifiers, Modifiers};
/// assert_eq!(legal_modifiers(find("f64_16x16x4f64").unwrap()).collect::<Vec<_>>(), [Modifiers::NONE]);
/// assert_eq!(legal_modifiers(find("cdna3::f64_4x4x4f64").unwrap()).count(), 8); // any negation
/// assert_eq!(legal_modifiers(find("f32_16x16x1f32").unwrap()).count(), (1 + 2 + 4) * 8);
/// ```
pub fn legal_modifiers(b: &'static Builtin) -> impl Iterator<Item = Modifiers> {
    (0..=4i64)
        .flat_map(|cbsz| (0..16i64).map(move |abid| (cbsz, abid)))
        .flat_map(|(cbsz, abid)| (0..8i64).map(move |f| [cbsz, abid, f]))
        .map(move |imm| Modifiers::from_immediates(b, imm))
        .filter(move |&m| validate(b, m).is_ok())
}

/// The legal modifier sets of `b` a GPU probe compiles and runs: all of
/// them where there are at most 16 (single-block builtins: the 8 blgp
/// patterns; CDNA3's FP64: the 8 negation masks; SMFMAC: every index set
/// under every cbsz); otherwise a covering sample: for each cbsz its
/// smallest and largest abid, paired in turn with every value of the third
/// immediate, so that each cbsz, each blgp, and the first and last block of
/// each broadcast group appear (8 or 9 sets, the first all zero).
///
/// ```
/// use mfma_spec::{find, sample_modifiers, Modifiers};
/// let s: Vec<_> = sample_modifiers(find("f32_4x4x1f32").unwrap()).collect();
/// assert_eq!(s.len(), 9);
/// assert_eq!((s[0], s[8]), (Modifiers::NONE, Modifiers::new(4, 15, 0)));
/// assert_eq!(sample_modifiers(find("cdna3::smfmac_f32_16x16x32_f16").unwrap()).count(), 16);
/// ```
pub fn sample_modifiers(b: &'static Builtin) -> impl Iterator<Item = Modifiers> {
    // At most 5 cbsz x 2 abid pairs and 8 field values.
    let mut pairs = [(0i64, 0i64); 10];
    let mut fields = [0i64; 8];
    let (mut np, mut nf, mut all) = (0, 0, 0);
    for m in legal_modifiers(b) {
        all += 1;
        let [cbsz, abid, field] = m.immediates(b);
        let first = legal_modifiers(b).find(|x| x.cbsz == cbsz).map(|x| x.abid);
        let last = legal_modifiers(b)
            .filter(|x| x.cbsz == cbsz)
            .last()
            .map(|x| x.abid);
        let pair = (cbsz, abid);
        if (Some(abid) == first || Some(abid) == last) && !pairs[..np].contains(&pair) {
            pairs[np] = pair;
            np += 1;
        }
        if !fields[..nf].contains(&field) {
            fields[nf] = field;
            nf += 1;
        }
    }
    let sampled = all > 16;
    let n = if sampled { np.max(nf) } else { 0 };
    let sample = (0..n).map(move |t| {
        let (cbsz, abid) = pairs[t % np];
        Modifiers::from_immediates(b, [cbsz, abid, fields[t % nf]])
    });
    legal_modifiers(b).filter(move |_| !sampled).chain(sample)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ARCHS;

    #[test]
    fn legal_sets_are_those_the_readme_counts() {
        let count = |arch: usize, sparse: bool| -> usize {
            ARCHS[arch]
                .builtins
                .iter()
                .filter(|b| b.is_sparse() == sparse)
                .map(|b| legal_modifiers(b).count())
                .sum()
        };
        assert_eq!(count(0, false), 1722);
        assert_eq!(count(1, false), 1360);
        assert_eq!(count(1, true), 144);
    }

    #[test]
    fn the_sample_covers_every_value_of_every_immediate() {
        for b in ARCHS.iter().flat_map(|a| a.builtins) {
            let all: usize = legal_modifiers(b).count();
            let mut sample = [Modifiers::NONE; 16];
            let mut n = 0;
            for m in sample_modifiers(b) {
                assert!(validate(b, m).is_ok(), "{} {m:?}", b.name);
                assert!(n < 16, "{}: more than 16 sets", b.name);
                sample[n] = m;
                n += 1;
            }
            let sample = &sample[..n];
            if all <= 16 {
                assert_eq!(n, all, "{}", b.name);
                continue;
            }
            assert_eq!(sample[0], Modifiers::NONE, "{}", b.name);
            for m in legal_modifiers(b) {
                let [cbsz, _, field] = m.immediates(b);
                let has = |f: &dyn Fn(&Modifiers) -> bool| sample.iter().any(f);
                assert!(has(&|s| s.cbsz == cbsz), "{}: cbsz {cbsz}", b.name);
                assert!(
                    has(&|s| s.immediates(b)[2] == field),
                    "{}: field {field}",
                    b.name
                );
                let last = legal_modifiers(b)
                    .filter(|x| x.cbsz == cbsz)
                    .last()
                    .unwrap();
                assert!(
                    has(&|s| s.cbsz == cbsz && s.abid == last.abid),
                    "{}",
                    b.name
                );
            }
        }
    }
}
