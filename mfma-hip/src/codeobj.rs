//! What the launcher reads from an HSA code object without a GPU: its
//! target (ELF header), each kernel's arguments (the `NT_AMDGPU_METADATA`
//! note, MessagePack) and the 4-byte data symbols (`gemm_*_lds_bytes`).
//! The ELF layout's numbers are [`crate::elf`]'s, which `mfma-device-check`
//! shares to read the same, and more, to check the build.

use crate::elf::{metadata_note, ElfFlags, EM_AMDGPU};
use crate::target::TargetId;
use object::read::elf::{ElfFile64, FileHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SymbolKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

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
    /// `.address_space` of a pointer (`generic`, `global`), where stated.
    #[serde(
        rename = ".address_space",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub address_space: Option<String>,
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
        let target = ElfFlags(header.e_flags(e).0).target();
        let note = metadata_note(data)?.ok_or("no AMDGPU metadata note (NT_AMDGPU_METADATA)")?;
        let kernels = rmp_serde::from_slice::<Metadata>(note)
            .map_err(|e| format!("unreadable kernel metadata: {e}"))?
            .kernels;
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
