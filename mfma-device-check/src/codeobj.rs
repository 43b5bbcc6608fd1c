//! Reading an AMDGPU HSA code object without a GPU: the ELF header (machine,
//! ABI version, target and its xnack/sramecc settings), the
//! `NT_AMDGPU_METADATA` note (MessagePack) with one record per kernel, the
//! 64-byte kernel descriptors the `.kd` symbols point at, and the values of
//! 4-byte data symbols (`gemm_*_lds_bytes`).
//!
//! The ELF numbers, the flags' processor and feature bits and the note's
//! place are `mfma_hip`'s, which reads the same code objects to launch
//! them; this module adds what only the checks read: the whole metadata
//! record, the descriptors and the header's other fields.

use mfma_hip::{metadata_note, ElfFlags, TargetId};
use object::read::elf::{ElfFile64, FileHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SymbolKind};
use serde::Deserialize;
use std::collections::HashMap;

pub use mfma_hip::{Setting, ELFOSABI_AMDGPU_HSA, EM_AMDGPU};

/// The processor an `EF_AMDGPU_MACH` value names, if one this project
/// builds for (a target of the spec); the checks' messages name any other
/// by its number (`mach0x30`).
pub fn processor(mach: u32) -> Option<&'static str> {
    ElfFlags(mach)
        .processor()
        .filter(|p| TargetId::new(p).arch().is_some())
}

/// The code object's `NT_AMDGPU_METADATA`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Metadata {
    /// `amdhsa.version`: `[1, 2]` for code object v5 and v6.
    #[serde(rename = "amdhsa.version")]
    pub version: Vec<u32>,
    /// `amdhsa.target`, the target ID (`amdgcn-amd-amdhsa--gfx90a`).
    #[serde(rename = "amdhsa.target", default)]
    pub target: Option<String>,
    /// `amdhsa.kernels`.
    #[serde(rename = "amdhsa.kernels")]
    pub kernels: Vec<KernelMeta>,
}

/// One kernel's metadata record.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct KernelMeta {
    /// `.name`.
    #[serde(rename = ".name")]
    pub name: String,
    /// `.symbol`: the kernel descriptor's symbol, `NAME.kd`.
    #[serde(rename = ".symbol")]
    pub symbol: String,
    /// `.kernarg_segment_size`: bytes of arguments.
    #[serde(rename = ".kernarg_segment_size")]
    pub kernarg_segment_size: u32,
    /// `.kernarg_segment_align`.
    #[serde(rename = ".kernarg_segment_align")]
    pub kernarg_segment_align: u32,
    /// `.args`, in order (hidden ones included).
    #[serde(rename = ".args", default)]
    pub args: Vec<ArgMeta>,
    /// `.group_segment_fixed_size`: static LDS bytes.
    #[serde(rename = ".group_segment_fixed_size")]
    pub group_segment_fixed_size: u32,
    /// `.private_segment_fixed_size`: scratch bytes per work-item.
    #[serde(rename = ".private_segment_fixed_size")]
    pub private_segment_fixed_size: u32,
    /// `.uses_dynamic_stack` (code object v5 and later).
    #[serde(rename = ".uses_dynamic_stack", default)]
    pub uses_dynamic_stack: Option<bool>,
    /// `.vgpr_count`: architectural VGPRs.
    #[serde(rename = ".vgpr_count")]
    pub vgpr_count: u32,
    /// `.agpr_count`: accumulation VGPRs.
    #[serde(rename = ".agpr_count", default)]
    pub agpr_count: u32,
    /// `.sgpr_count`.
    #[serde(rename = ".sgpr_count")]
    pub sgpr_count: u32,
    /// `.vgpr_spill_count`.
    #[serde(rename = ".vgpr_spill_count", default)]
    pub vgpr_spill_count: u32,
    /// `.sgpr_spill_count`.
    #[serde(rename = ".sgpr_spill_count", default)]
    pub sgpr_spill_count: u32,
    /// `.wavefront_size`.
    #[serde(rename = ".wavefront_size")]
    pub wavefront_size: u32,
    /// `.max_flat_workgroup_size`.
    #[serde(rename = ".max_flat_workgroup_size")]
    pub max_flat_workgroup_size: u32,
}

/// One argument's metadata record: the launcher's (`mfma_hip`), which
/// reads the same note.
pub use mfma_hip::ArgMeta;

/// The fields of a 64-byte kernel descriptor the checks read
/// (AMDGPUUsage, "Kernel Descriptor").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// `GROUP_SEGMENT_FIXED_SIZE`.
    pub group_segment_fixed_size: u32,
    /// `PRIVATE_SEGMENT_FIXED_SIZE`.
    pub private_segment_fixed_size: u32,
    /// `KERNARG_SIZE`.
    pub kernarg_size: u32,
    /// `COMPUTE_PGM_RSRC2`.
    pub rsrc2: u32,
    /// `KERNEL_CODE_PROPERTIES`.
    pub code_properties: u16,
}

impl Descriptor {
    fn parse(b: &[u8]) -> Descriptor {
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        Descriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            rsrc2: u32_at(52),
            code_properties: u16::from_le_bytes([b[56], b[57]]),
        }
    }

    /// `ENABLE_PRIVATE_SEGMENT` (rsrc2 bit 0): the wave gets a scratch offset.
    pub fn enables_scratch(&self) -> bool {
        self.rsrc2 & 1 != 0
    }

    /// `USES_DYNAMIC_STACK` (code properties bit 11).
    pub fn uses_dynamic_stack(&self) -> bool {
        self.code_properties & (1 << 11) != 0
    }
}

/// What the checks need of a code object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeObject {
    /// `e_machine`.
    pub machine: u16,
    /// `EI_OSABI`.
    pub os_abi: u8,
    /// `EI_ABIVERSION`: 2 for code object v4, 3 for v5, 4 for v6.
    pub abi_version: u8,
    /// `e_flags`.
    pub flags: u32,
    /// The metadata note.
    pub metadata: Metadata,
    /// Kernel descriptors by symbol (`NAME.kd`).
    pub descriptors: HashMap<String, Descriptor>,
    /// Values of the 4-byte data symbols, by name.
    pub words: HashMap<String, u32>,
}

impl CodeObject {
    /// The code object version the ABI version stands for.
    pub fn version(&self) -> u32 {
        u32::from(self.abi_version) + 2
    }

    /// The processor of the ELF flags (`gfx90a`), if one this project knows.
    pub fn processor(&self) -> Option<&'static str> {
        processor(ElfFlags(self.flags).mach())
    }

    /// The xnack setting of the ELF flags.
    pub fn xnack(&self) -> Setting {
        ElfFlags(self.flags).xnack()
    }

    /// The sramecc setting of the ELF flags.
    pub fn sramecc(&self) -> Setting {
        ElfFlags(self.flags).sramecc()
    }

    /// The target ID as the ROCm runtime derives it from the ELF header to
    /// pick a code object for a GPU (comgr's `getElfIsaName`):
    /// `amdgcn-amd-amdhsa--gfx90a`, with `:sramecc±`/`:xnack±` appended for
    /// settings other than "any".
    pub fn target_id(&self) -> String {
        let processor = self.processor().map_or_else(
            || format!("mach{:#x}", ElfFlags(self.flags).mach()),
            str::to_string,
        );
        let mut id = format!("amdgcn-amd-amdhsa--{processor}");
        for (name, s) in [("sramecc", self.sramecc()), ("xnack", self.xnack())] {
            match s {
                Setting::On => id += &format!(":{name}+"),
                Setting::Off => id += &format!(":{name}-"),
                Setting::Any | Setting::Unsupported => {}
            }
        }
        id
    }

    /// The metadata record of kernel `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelMeta> {
        self.metadata.kernels.iter().find(|k| k.name == name)
    }
}

/// Reads a code object.
pub fn read(data: &[u8]) -> Result<CodeObject, Box<dyn std::error::Error>> {
    let file = ElfFile64::<Endianness>::parse(data)?;
    let e = file.endian();
    let header = file.elf_header();
    let ident = header.e_ident();
    let mut co = CodeObject {
        machine: header.e_machine(e).0,
        os_abi: ident.os_abi.0,
        abi_version: ident.abi_version,
        flags: header.e_flags(e).0,
        ..CodeObject::default()
    };
    let note = metadata_note(data)?.ok_or("no NT_AMDGPU_METADATA note")?;
    co.metadata = rmp_serde::from_slice(note)?;
    for sym in file.symbols() {
        let Ok(name) = sym.name() else { continue };
        let Some(index) = sym.section_index() else {
            continue;
        };
        let section = file.section_by_index(index)?;
        let Ok(bytes) = section.data() else { continue };
        let Some(at) = sym.address().checked_sub(section.address()) else {
            continue;
        };
        let at = at as usize;
        if name.ends_with(".kd") && sym.size() == 64 && at + 64 <= bytes.len() {
            co.descriptors
                .insert(name.to_string(), Descriptor::parse(&bytes[at..at + 64]));
        } else if sym.kind() == SymbolKind::Data && sym.size() == 4 && at + 4 <= bytes.len() {
            let b = &bytes[at..at + 4];
            co.words.insert(
                name.to_string(),
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            );
        }
    }
    Ok(co)
}
