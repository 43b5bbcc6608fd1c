//! Targets: what a GPU reports (`gcnArchName`), what a code object was
//! built for, and whether one runs on the other.

use crate::error::{Error, Result};
use std::fmt;

/// A target feature's setting (xnack, sramecc), as in a target ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Not stated: a code object runs either way; a GPU does not report it.
    Any,
    /// `feature+`.
    On,
    /// `feature-`.
    Off,
}

impl Feature {
    fn suffix(self) -> &'static str {
        match self {
            Feature::Any => "",
            Feature::On => "+",
            Feature::Off => "-",
        }
    }
}

/// A target ID: a processor and its xnack and sramecc settings
/// (`gfx90a:sramecc+:xnack-`, as `gcnArchName` reports a GPU).
///
/// ```
/// use mfma_hip::{Feature, TargetId};
/// let t: TargetId = "gfx90a:sramecc+:xnack-".parse().unwrap();
/// assert_eq!((t.processor.as_str(), t.sramecc, t.xnack), ("gfx90a", Feature::On, Feature::Off));
/// assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
/// assert_eq!("gfx942".parse::<TargetId>().unwrap().xnack, Feature::Any);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    /// The processor (`gfx90a`).
    pub processor: String,
    /// The sramecc (ECC) setting.
    pub sramecc: Feature,
    /// The xnack (page-fault retry) setting.
    pub xnack: Feature,
}

impl TargetId {
    /// A processor with both features "any".
    pub fn new(processor: &str) -> TargetId {
        TargetId {
            processor: processor.to_string(),
            sramecc: Feature::Any,
            xnack: Feature::Any,
        }
    }

    /// The spec's architecture whose code objects this processor runs
    /// (`gfx90a`: CDNA2), if any.
    ///
    /// ```
    /// use mfma_hip::TargetId;
    /// assert_eq!(TargetId::new("gfx942").arch().unwrap().name, "cdna3");
    /// assert!(TargetId::new("gfx1100").arch().is_none());
    /// ```
    pub fn arch(&self) -> Option<&'static mfma_spec::Arch> {
        mfma_spec::ARCHS
            .iter()
            .copied()
            .find(|a| a.targets.contains(&self.processor.as_str()))
    }

    /// Whether a code object built for `self` runs on a GPU that reports
    /// `device`: the same processor, and each feature "any" in the code
    /// object or equal to the device's (the ROCm runtime's rule).
    ///
    /// ```
    /// use mfma_hip::TargetId;
    /// let gpu: TargetId = "gfx90a:sramecc+:xnack-".parse().unwrap();
    /// assert!(TargetId::new("gfx90a").runs_on(&gpu));
    /// assert!(!"gfx90a:xnack+".parse::<TargetId>().unwrap().runs_on(&gpu));
    /// assert!(!TargetId::new("gfx942").runs_on(&gpu));
    /// ```
    pub fn runs_on(&self, device: &TargetId) -> bool {
        let fits = |code: Feature, dev: Feature| code == Feature::Any || code == dev;
        self.processor == device.processor
            && fits(self.sramecc, device.sramecc)
            && fits(self.xnack, device.xnack)
    }

    /// The device's target from its `gcnArchName`, refusing a processor
    /// the spec has no architecture for.
    ///
    /// ```
    /// use mfma_hip::TargetId;
    /// assert_eq!(TargetId::supported("gfx942:sramecc+:xnack-").unwrap().processor, "gfx942");
    /// let e = TargetId::supported("gfx1100").unwrap_err();
    /// assert!(e.to_string().starts_with("unsupported target gfx1100:"));
    /// ```
    ///
    /// # Errors
    /// [`Error::UnsupportedTarget`] for another processor or a name that is
    /// no target ID.
    pub fn supported(arch_name: &str) -> Result<TargetId> {
        let unsupported = || Error::UnsupportedTarget {
            arch_name: arch_name.to_string(),
        };
        let t: TargetId = arch_name.parse().map_err(|_| unsupported())?;
        t.arch().ok_or_else(unsupported)?;
        Ok(t)
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.processor)?;
        // The canonical order of a target ID: sramecc before xnack.
        for (name, s) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if s != Feature::Any {
                write!(f, ":{name}{}", s.suffix())?;
            }
        }
        Ok(())
    }
}

impl std::str::FromStr for TargetId {
    type Err = String;

    /// Parses `gfxNNN[:feature±]...`; a `amdgcn-amd-amdhsa--` prefix is
    /// allowed. Features other than xnack and sramecc are refused.
    fn from_str(s: &str) -> Result<TargetId, String> {
        let s = s.trim();
        let s = s.strip_prefix("amdgcn-amd-amdhsa--").unwrap_or(s);
        let mut parts = s.split(':');
        let processor = parts.next().unwrap_or_default();
        let well_formed = processor.len() > 3
            && processor.starts_with("gfx")
            && processor[3..].bytes().all(|b| b.is_ascii_alphanumeric());
        if !well_formed {
            return Err(format!("`{s}` is not a target ID (gfx...)"));
        }
        let mut t = TargetId::new(processor);
        for part in parts {
            let (name, setting) = match part.as_bytes().last() {
                Some(b'+') => (&part[..part.len() - 1], Feature::On),
                Some(b'-') => (&part[..part.len() - 1], Feature::Off),
                _ => return Err(format!("feature `{part}` of `{s}` has no + or -")),
            };
            match name {
                "xnack" => t.xnack = setting,
                "sramecc" => t.sramecc = setting,
                _ => return Err(format!("unknown feature `{name}` in `{s}`")),
            }
        }
        Ok(t)
    }
}

/// The GPU's target ID from the bytes of a `hipDeviceProp_t` (any ROCm
/// version's layout): the NUL-terminated string that is a target ID, found
/// by scanning rather than at a fixed offset, since the structure's layout
/// changed between ROCm 5 (`hipGetDeviceProperties`) and 6
/// (`hipGetDevicePropertiesR0600`). `gcnArchName` is the only field that
/// holds one; should the marketing name (`name`) also look like one, the
/// candidate with the most features, then the later one, wins.
///
/// ```
/// let mut props = vec![0u8; 1024];
/// props[..19].copy_from_slice(b"AMD Instinct MI210\0");
/// props[396..396 + 22].copy_from_slice(b"gfx90a:sramecc+:xnack-");
/// assert_eq!(mfma_hip::arch_name_in_properties(&props).as_deref(), Some("gfx90a:sramecc+:xnack-"));
/// ```
pub fn arch_name_in_properties(props: &[u8]) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    let mut at = 0;
    while at < props.len() {
        let start = at;
        let end = props[start..]
            .iter()
            .position(|&b| b == 0)
            .map_or(props.len(), |n| start + n);
        at = end + 1;
        let Ok(s) = std::str::from_utf8(&props[start..end]) else {
            continue;
        };
        if s.parse::<TargetId>().is_ok() {
            let features = s.matches(':').count();
            if best.as_ref().is_none_or(|(f, _)| features >= *f) {
                best = Some((features, s.to_string()));
            }
        }
    }
    best.map(|(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_ids_parse_and_print_canonically() {
        let t: TargetId = "amdgcn-amd-amdhsa--gfx942:xnack-:sramecc+".parse().unwrap();
        assert_eq!(t.to_string(), "gfx942:sramecc+:xnack-");
        for bad in [
            "",
            "gfx",
            "sm_90",
            "gfx90a:xnack",
            "gfx90a:tgsplit+",
            "gfx90a:xnack*",
        ] {
            assert!(bad.parse::<TargetId>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_code_object_runs_where_its_features_allow() {
        let gpu: TargetId = "gfx942:sramecc+:xnack-".parse().unwrap();
        for (code, runs) in [
            ("gfx942", true),
            ("gfx942:sramecc+", true),
            ("gfx942:sramecc+:xnack-", true),
            ("gfx942:sramecc-", false),
            ("gfx942:xnack+", false),
            ("gfx90a", false),
        ] {
            assert_eq!(
                code.parse::<TargetId>().unwrap().runs_on(&gpu),
                runs,
                "{code}"
            );
        }
        // A GPU that reports no xnack setting runs only "any" code.
        let plain = TargetId::new("gfx90a");
        assert!(TargetId::new("gfx90a").runs_on(&plain));
        assert!(!"gfx90a:xnack-".parse::<TargetId>().unwrap().runs_on(&plain));
    }

    #[test]
    fn only_the_specs_processors_are_supported() {
        for ok in ["gfx90a", "gfx90a:sramecc+:xnack-", "gfx942:sramecc+:xnack-"] {
            assert!(TargetId::supported(ok).is_ok(), "{ok}");
        }
        for (bad, shown) in [
            ("gfx908:sramecc+:xnack-", "gfx908:sramecc+:xnack-"),
            ("gfx1100", "gfx1100"),
            ("gfx940", "gfx940"),
            ("", ""),
        ] {
            let e = TargetId::supported(bad).unwrap_err();
            assert_eq!(
                e,
                Error::UnsupportedTarget {
                    arch_name: shown.into()
                }
            );
            assert!(e.is_unavailable());
        }
    }

    #[test]
    fn the_arch_name_is_found_in_either_properties_layout() {
        // ROCm 6's hipDeviceProp_tR0600 and ROCm 5's layout put gcnArchName
        // at different offsets; neither offset is assumed.
        for offset in [396, 1160, 4000] {
            let mut props = vec![0u8; 4096 + 512];
            props[..17].copy_from_slice(b"AMD Instinct MI3\0");
            let name = b"gfx942:sramecc+:xnack-";
            props[offset..offset + name.len()].copy_from_slice(name);
            // Unrelated non-UTF-8 and integer fields around it.
            props[300] = 0xff;
            props[301..305].copy_from_slice(&1234u32.to_le_bytes());
            assert_eq!(
                arch_name_in_properties(&props).as_deref(),
                Some("gfx942:sramecc+:xnack-")
            );
        }
        // A marketing name that looks like a target loses to gcnArchName.
        let mut props = vec![0u8; 1024];
        props[..7].copy_from_slice(b"gfx90a\0");
        props[500..522].copy_from_slice(b"gfx90a:sramecc-:xnack+");
        assert_eq!(
            arch_name_in_properties(&props).as_deref(),
            Some("gfx90a:sramecc-:xnack+")
        );
        assert_eq!(arch_name_in_properties(&[0u8; 64]), None);
    }
}
