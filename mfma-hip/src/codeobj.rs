//! What the launcher reads from an HSA code object without a GPU: its
//! target (ELF header), each kernel's arguments (the `NT_AMDGPU_METADATA`
//! note, MessagePack) and the 4-byte data symbols (`gemm_*_lds_bytes`).
//! `mfma-device-check` reads the same, and more, to check the build.

use crate::target::{Feature, TargetId};
use object::read::elf::{ElfFile64, FileHeader, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SymbolKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// `EM_AMDGPU`.
const EM_AMDGPU: u16 = 224;
/// `NT_AMDGPU_METADATA`, in notes owned by `AMDGPU`.
const NT_AMDGPU_METADATA: u32 = 32;
/// `EF_AMDGPU_MACH`: the processor.
const EF_AMDGPU_MACH: u32 = 0x0ff;
/// `EF_AMDGPU_FEATURE_XNACK_V4` and `_SRAMECC_V4`.
const EF_XNACK: u32 = 0x300;
const EF_SRAMECC: u32 = 0xc00;

/// `EF_AMDGPU_MACH` of `processor`, if known.
pub(crate) fn mach(processor: &str) -> Option<u32> {
    PROCESSORS
        .iter()
        .find(|(_, p)| *p == processor)
        .map(|(m, _)| *m)
}

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

/// The processor an `EF_AMDGPU_MACH` value names.
fn processor(mach: u32) -> String {
    PROCESSORS
        .iter()
        .find(|(m, _)| *m == mach)
        .map_or_else(|| format!("mach{mach:#x}"), |(_, p)| (*p).to_string())
}

/// A feature's two bits in the ELF flags (code object v4 and later).
fn feature(bits: u32) -> Feature {
    match bits & 3 {
        2 => Feature::Off,
        3 => Feature::On,
        // 0: unsupported by the processor, 1: any.
        _ => Feature::Any,
    }
}

/// One kernel argument as the metadata states it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct ArgMeta {
    /// `.offset` in the kernarg segment.
    #[serde(rename = ".offset")]
    pub offset: u32,
    /// `.size` in bytes.
    #[serde(rename = ".size")]
    pub size: u32,
    /// `.value_kind`: `global_buffer` (a pointer), `by_value`, `hidden_*`.
    #[serde(rename = ".value_kind")]
    pub value_kind: String,
}

/// One kernel's metadata record, the fields a launch needs.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct KernelMeta {
    /// `.name`.
    #[serde(rename = ".name")]
    pub name: String,
    /// `.kernarg_segment_size`: bytes of the argument buffer.
    #[serde(rename = ".kernarg_segment_size")]
    pub kernarg_segment_size: u32,
    /// `.args`, in order (hidden ones included).
    #[serde(rename = ".args", default)]
    pub args: Vec<ArgMeta>,
    /// `.group_segment_fixed_size`: static LDS bytes.
    #[serde(rename = ".group_segment_fixed_size", default)]
    pub group_segment_fixed_size: u32,
    /// `.max_flat_workgroup_size`.
    #[serde(rename = ".max_flat_workgroup_size", default)]
    pub max_flat_workgroup_size: u32,
    /// `.wavefront_size`.
    #[serde(rename = ".wavefront_size", default)]
    pub wavefront_size: u32,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(rename = "amdhsa.kernels")]
    kernels: Vec<KernelMeta>,
}

/// A code object, as far as the launcher reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeObjectInfo {
    /// The target of the ELF header: processor, xnack and sramecc, as the
    /// ROCm runtime reads them to decide where the code object loads.
    pub target: TargetId,
    /// `EI_ABIVERSION` + 2: the code object version (5 by default here).
    pub version: u32,
    /// The kernels' metadata, in the note's order.
    pub kernels: Vec<KernelMeta>,
    /// Values of the 4-byte data symbols, by name.
    pub words: HashMap<String, u32>,
}

impl CodeObjectInfo {
    /// Reads a code object.
    ///
    /// # Errors
    /// A message (no path) when the bytes are no 64-bit AMDGPU ELF with a
    /// metadata note.
    pub fn parse(data: &[u8]) -> Result<CodeObjectInfo, String> {
        let file = ElfFile64::<Endianness>::parse(data).map_err(|e| format!("not an ELF: {e}"))?;
        let e = file.endian();
        let header = file.elf_header();
        if header.e_machine(e).0 != EM_AMDGPU {
            return Err(format!(
                "not an AMDGPU code object (e_machine {})",
                header.e_machine(e).0
            ));
        }
        let flags = header.e_flags(e).0;
        let mut target = TargetId::new(&processor(flags & EF_AMDGPU_MACH));
        target.xnack = feature((flags & EF_XNACK) >> 8);
        target.sramecc = feature((flags & EF_SRAMECC) >> 10);
        let mut kernels = None;
        let sections = file.elf_section_table();
        for section in sections.iter() {
            let Some(mut notes) = section.notes(e, data).map_err(|e| e.to_string())? else {
                continue;
            };
            while let Some(note) = notes.next().map_err(|e| e.to_string())? {
                if note.name() == b"AMDGPU" && note.n_type(e).0 == NT_AMDGPU_METADATA {
                    let m: Metadata = rmp_serde::from_slice(note.desc())
                        .map_err(|e| format!("unreadable kernel metadata: {e}"))?;
                    kernels = Some(m.kernels);
                }
            }
        }
        let kernels = kernels.ok_or("no AMDGPU metadata note (NT_AMDGPU_METADATA)")?;
        let mut words = HashMap::new();
        for sym in file.symbols() {
            if sym.kind() != SymbolKind::Data || sym.size() != 4 {
                continue;
            }
            let (Ok(name), Some(index)) = (sym.name(), sym.section_index()) else {
                continue;
            };
            let Ok(section) = file.section_by_index(index) else {
                continue;
            };
            let Ok(bytes) = section.data() else { continue };
            let Some(at) = sym.address().checked_sub(section.address()) else {
                continue;
            };
            if let Some(b) = bytes.get(at as usize..at as usize + 4) {
                words.insert(
                    name.to_string(),
                    u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                );
            }
        }
        Ok(CodeObjectInfo {
            target,
            version: u32::from(header.e_ident().abi_version) + 2,
            kernels,
            words,
        })
    }

    /// The metadata of kernel `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelMeta> {
        self.kernels.iter().find(|k| k.name == name)
    }
}
