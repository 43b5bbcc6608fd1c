//! The `cbsz`, `abid` and `blgp` modifiers: legality rules and data routing.
//!
//! LLVM does not validate these immediates for gfx90a: any value compiles,
//! and the encoding silently keeps only the low bits (cbsz 3 bits, abid 4
//! bits, blgp 3 bits), so `cbsz = 8` runs as 0 and `-1` as 7. A wrong
//! modifier becomes a silent wrong answer on hardware. These rules are why
//! `mfma!` can reject them at compile time; the CLI shares them.

use crate::Builtin;
use core::fmt;

/// One of the three modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// Control broadcast size: log2 of the group of blocks sharing one A block.
    Cbsz,
    /// A-matrix broadcast identifier: which block of each group feeds it.
    Abid,
    /// B-matrix lane-group pattern.
    Blgp,
}

impl Modifier {
    /// All modifiers, in the order they are written.
    pub const ALL: [Modifier; 3] = [Modifier::Cbsz, Modifier::Abid, Modifier::Blgp];

    /// The name as written in source (`cbsz`, `abid`, `blgp`).
    pub const fn name(self) -> &'static str {
        match self {
            Modifier::Cbsz => "cbsz",
            Modifier::Abid => "abid",
            Modifier::Blgp => "blgp",
        }
    }

    /// Parses a modifier name.
    pub fn from_name(name: &str) -> Option<Modifier> {
        Modifier::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The largest value this modifier may take on builtin `b`; every value
    /// from 0 up to it is legal on its own. For abid that is the bound with
    /// the largest cbsz (the real bound is `2^cbsz - 1`).
    ///
    /// ```
    /// use mfma_spec::{find, Modifier};
    /// let b = find("f32_16x16x4f16").unwrap(); // 4 blocks
    /// assert_eq!(Modifier::ALL.map(|m| m.max(b)), [2, 3, 7]);
    /// let f64mma = find("f64_4x4x4f64").unwrap();
    /// assert_eq!(Modifier::ALL.map(|m| m.max(f64mma)), [0, 0, 0]);
    /// ```
    pub const fn max(self, b: &Builtin) -> i64 {
        match (self, b.cbsz_max) {
            (Modifier::Cbsz, Some(max)) => max as i64,
            (Modifier::Abid, Some(max)) => (1i64 << max) - 1,
            (Modifier::Cbsz | Modifier::Abid, None) => 0,
            (Modifier::Blgp, _) if b.blgp => BLGP_MAX,
            (Modifier::Blgp, _) => 0,
        }
    }
}

/// The largest blgp: it selects one of 8 B lane-group patterns (reference 3.2).
const BLGP_MAX: i64 = 7;

/// Values of the three modifiers of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// See [`Modifier::Cbsz`].
    pub cbsz: i64,
    /// See [`Modifier::Abid`].
    pub abid: i64,
    /// See [`Modifier::Blgp`].
    pub blgp: i64,
}

impl Modifiers {
    /// All three zero: the plain instruction.
    pub const NONE: Modifiers = Modifiers {
        cbsz: 0,
        abid: 0,
        blgp: 0,
    };

    /// Shorthand constructor.
    pub const fn new(cbsz: i64, abid: i64, blgp: i64) -> Self {
        Modifiers { cbsz, abid, blgp }
    }

    /// The value of one modifier.
    pub const fn get(&self, m: Modifier) -> i64 {
        match m {
            Modifier::Cbsz => self.cbsz,
            Modifier::Abid => self.abid,
            Modifier::Blgp => self.blgp,
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
/// message (`blgp must be 0 for f64_16x16x4f64: ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModifierError {
    /// A negative value.
    Negative {
        /// Offending modifier.
        modifier: Modifier,
        /// Its value.
        value: i64,
    },
    /// Nonzero blgp on an FP64 builtin.
    BlgpOnF64 {
        /// Builtin name.
        builtin: &'static str,
    },
    /// blgp above 7.
    BlgpTooLarge {
        /// Builtin name.
        builtin: &'static str,
        /// Its value.
        value: i64,
    },
    /// Nonzero cbsz or abid on an FP64 builtin (even the 4-block one).
    BroadcastOnF64 {
        /// Offending modifier (cbsz or abid).
        modifier: Modifier,
        /// Builtin name.
        builtin: &'static str,
    },
    /// Nonzero cbsz or abid on a 1-block builtin.
    BroadcastOnSingleBlock {
        /// Offending modifier (cbsz or abid).
        modifier: Modifier,
        /// Builtin name.
        builtin: &'static str,
    },
    /// cbsz above log2(blocks).
    CbszTooLarge {
        /// Builtin name.
        builtin: &'static str,
        /// Blocks of the builtin.
        blocks: usize,
        /// Largest legal cbsz.
        max: u32,
        /// Its value.
        value: i64,
    },
    /// abid not below 2^cbsz.
    AbidOutOfRange {
        /// Builtin name.
        builtin: &'static str,
        /// The cbsz it was given with.
        cbsz: i64,
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
            ModifierError::BlgpOnF64 { .. } | ModifierError::BlgpTooLarge { .. } => Modifier::Blgp,
            ModifierError::CbszTooLarge { .. } => Modifier::Cbsz,
            ModifierError::AbidOutOfRange { .. } => Modifier::Abid,
        }
    }

    /// A fixed one-line statement of the broken rule, usable where no
    /// formatting is available (the compile-time backstop for named constants).
    pub const fn rule(&self) -> &'static str {
        match self {
            ModifierError::Negative { .. } => "MFMA modifiers must not be negative",
            ModifierError::BlgpOnF64 { .. } => {
                "blgp must be 0 on FP64 MFMA: FP64 MFMA has no B lane-group pattern"
            }
            ModifierError::BlgpTooLarge { .. } => "blgp must be in 0..=7",
            ModifierError::BroadcastOnF64 { .. } => {
                "cbsz and abid must be 0 on FP64 MFMA: FP64 MFMA has no A block broadcast"
            }
            ModifierError::BroadcastOnSingleBlock { .. } => {
                "cbsz and abid must be 0 on a 1-block MFMA: there is no other A block to broadcast"
            }
            ModifierError::CbszTooLarge { .. } => "cbsz must be at most log2(blocks)",
            ModifierError::AbidOutOfRange { .. } => "abid must be less than 2^cbsz",
        }
    }
}

impl fmt::Display for ModifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ModifierError::Negative { modifier, value } => write!(
                f,
                "{} must not be negative (got {value}): modifiers are unsigned bit fields of the instruction",
                modifier.name()
            ),
            ModifierError::BlgpOnF64 { builtin } => write!(
                f,
                "blgp must be 0 for {builtin}: FP64 MFMA has no B lane-group pattern \
                 (on CDNA3 these bits negate A/B/C instead)"
            ),
            ModifierError::BlgpTooLarge { builtin, value } => write!(
                f,
                "blgp must be in 0..={BLGP_MAX} for {builtin} (got {value}): it selects one of {} B \
                 lane-group patterns",
                BLGP_MAX + 1
            ),
            ModifierError::BroadcastOnF64 { modifier, builtin } => write!(
                f,
                "{} must be 0 for {builtin}: FP64 MFMA has no A block broadcast (cbsz/abid), \
                 even with 4 blocks",
                modifier.name()
            ),
            ModifierError::BroadcastOnSingleBlock { modifier, builtin } => write!(
                f,
                "{} must be 0 for {builtin}: it computes 1 block, so there is no other A block to broadcast",
                modifier.name()
            ),
            ModifierError::CbszTooLarge {
                builtin,
                blocks,
                max,
                value,
            } => write!(
                f,
                "cbsz must be in 0..={max} for {builtin} (got {value}): it has {blocks} blocks and \
                 cbsz is log2 of the group of blocks that share one A block"
            ),
            ModifierError::AbidOutOfRange {
                builtin,
                cbsz,
                value,
            } => {
                if cbsz == 0 {
                    write!(
                        f,
                        "abid must be 0 for {builtin} when cbsz is 0 (got {value}): abid picks the \
                         block within each group of 2^cbsz blocks; set cbsz first"
                    )
                } else {
                    write!(
                        f,
                        "abid must be in 0..={} for {builtin} with cbsz = {cbsz} (got {value}): abid picks \
                         the block within each group of 2^cbsz = {} blocks",
                        (1i64 << cbsz) - 1,
                        1i64 << cbsz
                    )
                }
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

/// Rule: blgp is 0..=7, and 0 on FP64 builtins.
pub const fn check_blgp(b: &Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.blgp == 0 {
        Ok(())
    } else if !b.blgp {
        Err(ModifierError::BlgpOnF64 { builtin: b.name })
    } else if m.blgp > BLGP_MAX {
        Err(ModifierError::BlgpTooLarge {
            builtin: b.name,
            value: m.blgp,
        })
    } else {
        Ok(())
    }
}

/// Rule: cbsz is 0 where broadcast is unsupported, else at most log2(blocks).
pub const fn check_cbsz(b: &Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.cbsz == 0 {
        return Ok(());
    }
    match b.cbsz_max {
        None => Err(no_broadcast(b, Modifier::Cbsz)),
        Some(max) if m.cbsz > max as i64 => Err(ModifierError::CbszTooLarge {
            builtin: b.name,
            blocks: b.blocks,
            max,
            value: m.cbsz,
        }),
        Some(_) => Ok(()),
    }
}

/// Rule: abid is below 2^cbsz (so 0 when cbsz is 0), and 0 where broadcast is unsupported.
pub const fn check_abid(b: &Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if m.abid == 0 {
        return Ok(());
    }
    if b.cbsz_max.is_none() {
        return Err(no_broadcast(b, Modifier::Abid));
    }
    if m.cbsz < 0 || m.cbsz >= 62 || m.abid >= (1i64 << m.cbsz) {
        return Err(ModifierError::AbidOutOfRange {
            builtin: b.name,
            cbsz: m.cbsz,
            value: m.abid,
        });
    }
    Ok(())
}

const fn no_broadcast(b: &Builtin, modifier: Modifier) -> ModifierError {
    if matches!(b.ab, crate::ElemType::F64) {
        ModifierError::BroadcastOnF64 {
            modifier,
            builtin: b.name,
        }
    } else {
        ModifierError::BroadcastOnSingleBlock {
            modifier,
            builtin: b.name,
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
/// ```
pub const fn validate(b: &Builtin, m: Modifiers) -> Result<(), ModifierError> {
    if let Err(e) = check_sign(m) {
        return Err(e);
    }
    if let Err(e) = check_cbsz(b, m) {
        return Err(e);
    }
    if let Err(e) = check_abid(b, m) {
        return Err(e);
    }
    check_blgp(b, m)
}
