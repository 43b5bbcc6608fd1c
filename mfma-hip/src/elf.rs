//! The AMDGPU parts of a code object's ELF container: its machine and
//! OS/ABI, the target its header's `e_flags` state (processor, xnack,
//! sramecc) and where its kernel metadata lies (the `NT_AMDGPU_METADATA`
//! note). The launcher ([`CodeObjectInfo`](crate::CodeObjectInfo)) and
//! `mfma-device-check` both read code objects; the numbers live here once.

use crate::target::{Feature, TargetId};
use object::read::elf::{ElfFile64, SectionHeader};
use object::Endianness;

/// `EM_AMDGPU`: the `e_machine` of AMD GPU code.
pub const EM_AMDGPU: u16 = 224;
/// `ELFOSABI_AMDGPU_HSA`: the `EI_OSABI` of HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `NT_AMDGPU_METADATA`, in notes owned by `AMDGPU`.
const NT_AMDGPU_METADATA: u32 = 32;
/// `EF_AMDGPU_MACH`: the processor.
const EF_AMDGPU_MACH: u32 = 0x0ff;
/// `EF_AMDGPU_FEATURE_XNACK_V4`: 0 unsupported, 0x100 any, 0x200 off, 0x300 on.
const EF_XNACK: u32 = 0x300;
/// `EF_AMDGPU_FEATURE_SRAMECC_V4`: 0 unsupported, 0x400 any, 0x800 off, 0xc00 on.
const EF_SRAMECC: u32 = 0xc00;

/// Processors by their `EF_AMDGPU_MACH` value: those of the spec, and a
/// few neighbours so that a wrong file is named rather than a number.
const PROCESSORS: &[(u32, &str)] = &[
    (0x030, "gfx908"),
    (0x03f, "gfx90a"),
    (0x040, "gfx940"),
    (0x041, "gfx1100"),
    (0x04b, "gfx941"),
    (0x04c, "gfx942"),
];

/// The `e_flags` of an AMDGPU code object (v4 and later): the processor
/// and the xnack and sramecc settings it was built for, which the ROCm
/// runtime reads to decide where the code object loads.
///
/// ```
/// use mfma_hip::{ElfFlags, Setting};
/// let f = ElfFlags(0x03f | 0x100 | 0xc00); // gfx90a, xnack any, sramecc on
/// assert_eq!((f.processor(), f.xnack(), f.sramecc()), (Some("gfx90a"), Setting::Any, Setting::On));
/// assert_eq!(f.target().to_string(), "gfx90a:sramecc+");
/// assert_eq!(ElfFlags(0x0ee).target().to_string(), "mach0xee");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfFlags(pub u32);

impl ElfFlags {
    /// The flags of a code object built for `target`, if its processor is
    /// one this crate knows the `EF_AMDGPU_MACH` value of. A feature "any"
    /// in a target ID is "any" in the flags too (HIP's default build).
    ///
    /// ```
    /// use mfma_hip::{ElfFlags, TargetId};
    /// assert_eq!(ElfFlags::for_target(&TargetId::new("gfx942")), Some(ElfFlags(0x04c | 0x100 | 0x400)));
    /// let t: TargetId = "gfx90a:sramecc+:xnack-".parse().unwrap();
    /// assert_eq!(ElfFlags::for_target(&t).unwrap().target(), t);
    /// assert_eq!(ElfFlags::for_target(&TargetId::new("gfx9999")), None);
    /// ```
    pub fn for_target(target: &TargetId) -> Option<ElfFlags> {
        let (mach, _) = PROCESSORS.iter().find(|(_, p)| *p == target.processor)?;
        let bits = |f: Feature| match f {
            Feature::Any => 1,
            Feature::Off => 2,
            Feature::On => 3,
        };
        Some(ElfFlags(
            mach | bits(target.xnack) << 8 | bits(target.sramecc) << 10,
        ))
    }

    /// `EF_AMDGPU_MACH`: the number of the processor.
    pub fn mach(self) -> u32 {
        self.0 & EF_AMDGPU_MACH
    }

    /// The processor (`gfx90a`), if one this crate knows: the spec's, and
    /// a few neighbours.
    pub fn processor(self) -> Option<&'static str> {
        PROCESSORS
            .iter()
            .find(|(m, _)| *m == self.mach())
            .map(|(_, p)| *p)
    }

    /// The xnack (page-fault retry) setting.
    pub fn xnack(self) -> Setting {
        Setting::from_bits((self.0 & EF_XNACK) >> 8)
    }

    /// The sramecc (ECC) setting.
    pub fn sramecc(self) -> Setting {
        Setting::from_bits((self.0 & EF_SRAMECC) >> 10)
    }

    /// The target these flags state, as a [`TargetId`] to compare with a
    /// GPU's: a processor not known by name is `mach0x..`, and a feature
    /// the processor does not support is "any" (nothing to agree with).
    pub fn target(self) -> TargetId {
        let processor = self
            .processor()
            .map_or_else(|| format!("mach{:#x}", self.mach()), str::to_string);
        let mut t = TargetId::new(&processor);
        t.xnack = self.xnack().feature();
        t.sramecc = self.sramecc().feature();
        t
    }
}

/// A target feature's setting in the ELF flags (code object v4 and later).
/// A [`Feature`] is the same in a target ID, which cannot say
/// "unsupported".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The processor has no such feature.
    Unsupported,
    /// The code runs either way (HIP's default).
    Any,
    /// Built for the feature off (`-`).
    Off,
    /// Built for the feature on (`+`).
    On,
}

impl Setting {
    /// A feature's two bits, shifted down.
    fn from_bits(bits: u32) -> Setting {
        match bits & 3 {
            0 => Setting::Unsupported,
            1 => Setting::Any,
            2 => Setting::Off,
            _ => Setting::On,
        }
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Unsupported => "unsupported",
            Setting::Any => "any",
            Setting::Off => "off",
            Setting::On => "on",
        }
    }

    /// As in a target ID: unsupported is "any", since a GPU without the
    /// feature runs the code either way.
    fn feature(self) -> Feature {
        match self {
            Setting::Unsupported | Setting::Any => Feature::Any,
            Setting::Off => Feature::Off,
            Setting::On => Feature::On,
        }
    }
}

/// The description of a code object's `NT_AMDGPU_METADATA` note (owner
/// `AMDGPU`): its kernel metadata as MessagePack, which each reader
/// decodes into the fields it needs. `None` when there is no such note;
/// should there be several, the last.
///
/// ```
/// use mfma_hip::{metadata_note, stand_in, KernelMeta};
/// #[derive(serde::Deserialize)]
/// struct Metadata {
///     #[serde(rename = "amdhsa.kernels")]
///     kernels: Vec<KernelMeta>,
/// }
/// let k = KernelMeta { name: "k".into(), ..Default::default() };
/// let elf = stand_in::elf(0x03f | 0x100 | 0x400, &[k.clone()], &[]);
/// let note = metadata_note(&elf).unwrap().expect("a metadata note");
/// let m: Metadata = rmp_serde::from_slice(note).unwrap();
/// assert_eq!(m.kernels, [k]);
/// assert!(metadata_note(b"not an elf").unwrap_err().starts_with("not an ELF"));
/// ```
///
/// # Errors
/// A message when the bytes are no 64-bit ELF or its notes cannot be
/// read.
pub fn metadata_note(data: &[u8]) -> Result<Option<&[u8]>, String> {
    let file = ElfFile64::<Endianness>::parse(data).map_err(|e| format!("not an ELF: {e}"))?;
    let e = file.endian();
    let mut found = None;
    for section in file.elf_section_table().iter() {
        let Some(mut notes) = section.notes(e, data).map_err(|e| e.to_string())? else {
            continue;
        };
        while let Some(note) = notes.next().map_err(|e| e.to_string())? {
            if note.name() == b"AMDGPU" && note.n_type(e).0 == NT_AMDGPU_METADATA {
                found = Some(note.desc());
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_features_two_bits_are_read() {
        for (bits, setting, shown) in [
            (0, Setting::Unsupported, "gfx942"),
            (1, Setting::Any, "gfx942"),
            (2, Setting::Off, "gfx942:sramecc-:xnack-"),
            (3, Setting::On, "gfx942:sramecc+:xnack+"),
        ] {
            let f = ElfFlags(0x04c | bits << 8 | bits << 10);
            assert_eq!((f.xnack(), f.sramecc()), (setting, setting));
            assert_eq!(f.target().to_string(), shown);
        }
        // Other bits of e_flags do not move the processor or the features.
        let f = ElfFlags(0xf000 | 0x03f | 0x300);
        assert_eq!((f.processor(), f.xnack()), (Some("gfx90a"), Setting::On));
    }

    #[test]
    fn a_note_of_another_type_is_not_the_metadata() {
        let mut elf = crate::stand_in::elf(0x03f | 0x100 | 0x400, &[], &[]);
        assert!(metadata_note(&elf).unwrap().is_some());
        // The stand-in's one note starts at 64: n_namesz, n_descsz, n_type.
        assert_eq!(elf[72..76], NT_AMDGPU_METADATA.to_le_bytes());
        elf[72..76].copy_from_slice(&33u32.to_le_bytes());
        assert_eq!(metadata_note(&elf), Ok(None));
    }
}
