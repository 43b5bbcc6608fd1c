//! Turning command-line words into spec values: the architecture, builtin
//! names and operands, with the messages users see when a word is wrong.
//! Every such failure is an [`Error`] (exit status 2). Unknown names and
//! architectures get `mfma_spec`'s own messages, as `mfma!` does.

use crate::error::{Error, Result};
use mfma_spec::{Arch, Builtin, LookupError, Operand, ARCHS};

/// The architecture a command works on, and who chose it: a name's own
/// `arch::` prefix may only agree with a choice the user made.
#[derive(Clone, Copy, Debug)]
pub struct ArchChoice {
    /// The architecture.
    pub arch: &'static Arch,
    /// Who chose it (`--arch cdna2`, the input's `arch`), `None` for the
    /// default: a prefix then overrides it silently.
    pub chosen_by: Option<&'static str>,
}

impl ArchChoice {
    /// The default architecture (bare names mean it).
    pub fn default_arch() -> Self {
        ArchChoice {
            arch: ARCHS[0],
            chosen_by: None,
        }
    }

    /// The architecture called `name`, chosen by `who`; an unknown name
    /// lists the known ones.
    pub fn named(name: &str, who: &'static str) -> Result<Self> {
        let arch = mfma_spec::arch(name)
            .ok_or_else(|| Error::new(LookupError::UnknownArch { given: name }.to_string()))?;
        Ok(ArchChoice {
            arch,
            chosen_by: Some(who),
        })
    }

    /// `--arch` as given on the command line.
    pub fn from_flag(flag: Option<&str>) -> Result<Self> {
        match flag {
            None => Ok(Self::default_arch()),
            Some(name) => Self::named(name, "--arch"),
        }
    }
}

/// The builtin called `name` (bare, HIP or ISA spelling, optionally with an
/// `arch::` prefix) in the architecture `choice` names. An explicit prefix
/// wins over the default; one that contradicts a chosen architecture is an
/// error rather than a guess.
pub fn builtin(name: &str, choice: ArchChoice) -> Result<&'static Builtin> {
    let (prefix, bare) = mfma_spec::split_arch(name);
    let arch = match prefix {
        None => choice.arch,
        Some(given) => {
            let named = mfma_spec::arch(given)
                .ok_or_else(|| Error::new(LookupError::UnknownArch { given }.to_string()))?;
            if let Some(who) = choice.chosen_by.filter(|_| named != choice.arch) {
                return Err(Error::new(format!(
                    "`{name}` names a {} builtin but {who} asks for {} ({}): \
                     drop the prefix or change {who}",
                    named.title, choice.arch.title, choice.arch.name
                )));
            }
            named
        }
    };
    // The spec resolves `arch::bare`; its error names the architecture
    // searched and, for another architecture's name, what this one has instead.
    let qualified = format!("{}::{bare}", arch.name);
    mfma_spec::lookup(&qualified).map_err(|e| Error::new(e.to_string()))
}

/// Operand `a`, `b`, `c` or `d` of builtin `b`, or `idx` where `b` is an
/// SMFMAC (the only builtins with an index operand).
pub fn operand(name: &str, b: &Builtin) -> Result<Operand> {
    let known: Vec<&str> = b.operands().iter().map(|o| o.name()).collect();
    match Operand::from_name(name) {
        Some(op) if b.operands().contains(&op) => Ok(op),
        Some(Operand::Idx) => {
            let arch = mfma_spec::arch_of(b);
            let first = |a: &'static mfma_spec::Arch| a.builtins.iter().find(|x| x.is_sparse());
            let hint = match first(arch) {
                Some(x) => format!(
                    "; {}'s SMFMAC builtins (`{}`, ...) have one",
                    arch.title,
                    x.path()
                ),
                None => match mfma_spec::ARCHS.iter().find_map(|a| first(a)) {
                    Some(x) => format!(
                        "; {} has no SMFMAC builtin ({}'s `{}` is one)",
                        arch.title,
                        mfma_spec::arch_of(x).title,
                        x.path()
                    ),
                    None => String::new(),
                },
            };
            Err(Error::new(format!(
                "operand idx is the index register of a structured-sparse SMFMAC builtin, and {} \
                 is a dense MFMA builtin: its operands are {}{hint}",
                b.path(),
                known.join(", ")
            )))
        }
        _ => Err(Error::new(format!(
            "unknown operand `{name}`: expected one of {}",
            known.join(", ")
        ))),
    }
}
