//! Small HSA code objects written by hand for the tests: the ELF header the
//! ROCm runtime reads a target from, an `NT_AMDGPU_METADATA` note with one
//! record per kernel (MessagePack, as LLVM writes it) and 4-byte data
//! symbols; and the manifest lines `mfma-kernels/build.rs` writes.
#![allow(dead_code)]

use serde::Serialize;

/// `EF_AMDGPU_MACH` of gfx90a and gfx942; xnack and sramecc "any".
pub const GFX90A: u32 = 0x03f | 0x100 | 0x400;
pub const GFX942: u32 = 0x04c | 0x100 | 0x400;

#[derive(Serialize, Clone)]
pub struct Arg {
    #[serde(rename = ".offset")]
    pub offset: u32,
    #[serde(rename = ".size")]
    pub size: u32,
    #[serde(rename = ".value_kind")]
    pub value_kind: String,
    #[serde(rename = ".address_space", skip_serializing_if = "Option::is_none")]
    pub address_space: Option<String>,
}

#[derive(Serialize, Clone)]
pub struct Kernel {
    #[serde(rename = ".name")]
    pub name: String,
    #[serde(rename = ".symbol")]
    pub symbol: String,
    #[serde(rename = ".kernarg_segment_size")]
    pub kernarg_segment_size: u32,
    #[serde(rename = ".kernarg_segment_align")]
    pub kernarg_segment_align: u32,
    #[serde(rename = ".args")]
    pub args: Vec<Arg>,
    #[serde(rename = ".group_segment_fixed_size")]
    pub group_segment_fixed_size: u32,
    #[serde(rename = ".private_segment_fixed_size")]
    pub private_segment_fixed_size: u32,
    #[serde(rename = ".max_flat_workgroup_size")]
    pub max_flat_workgroup_size: u32,
    #[serde(rename = ".wavefront_size")]
    pub wavefront_size: u32,
    #[serde(rename = ".vgpr_count")]
    pub vgpr_count: u32,
    #[serde(rename = ".sgpr_count")]
    pub sgpr_count: u32,
}

#[derive(Serialize)]
struct Metadata<'a> {
    #[serde(rename = "amdhsa.version")]
    version: [u32; 2],
    #[serde(rename = "amdhsa.target")]
    target: String,
    #[serde(rename = "amdhsa.kernels")]
    kernels: &'a [Kernel],
}

/// A kernel whose arguments are `pointers` pointers then `values` usizes,
/// 8 bytes each, packed in order, as rustc emits the mfma kernels.
pub fn kernel(name: &str, pointers: usize, values: usize) -> Kernel {
    let kind = |i: usize| {
        if i < pointers {
            "global_buffer"
        } else {
            "by_value"
        }
    };
    let args: Vec<Arg> = (0..pointers + values)
        .map(|i| Arg {
            offset: 8 * i as u32,
            size: 8,
            value_kind: kind(i).into(),
            address_space: (i < pointers).then(|| "generic".into()),
        })
        .collect();
    Kernel {
        name: name.into(),
        symbol: format!("{name}.kd"),
        kernarg_segment_size: 8 * args.len() as u32,
        kernarg_segment_align: 8,
        args,
        group_segment_fixed_size: 0,
        private_segment_fixed_size: 0,
        max_flat_workgroup_size: 1024,
        wavefront_size: 64,
        vgpr_count: 32,
        sgpr_count: 20,
    }
}

fn u16le(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}

fn u32le(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

fn u64le(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

fn pad4(b: &mut Vec<u8>) {
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
}

/// A 64-bit little-endian AMDGPU ELF (OS/ABI AMDGPU_HSA, code object v5)
/// with `flags`, the kernels' metadata note and the data symbols `words`.
pub fn code_object(flags: u32, kernels: &[Kernel], words: &[(&str, u32)]) -> Vec<u8> {
    let meta = rmp_serde::to_vec_named(&Metadata {
        version: [1, 2],
        target: "amdgcn-amd-amdhsa-unknown-gfx".into(),
        kernels,
    })
    .unwrap();
    // .note: one note, name "AMDGPU", type NT_AMDGPU_METADATA.
    let mut note = Vec::new();
    note.extend(u32le(7));
    note.extend(u32le(meta.len() as u32));
    note.extend(u32le(32));
    note.extend(b"AMDGPU\0");
    pad4(&mut note);
    note.extend(&meta);
    pad4(&mut note);
    // .data: the words; .strtab and .symtab: one global object per word.
    let data: Vec<u8> = words.iter().flat_map(|(_, v)| u32le(*v)).collect();
    let mut strtab = vec![0u8];
    let mut symtab = vec![0u8; 24];
    for (i, (name, _)) in words.iter().enumerate() {
        let at = strtab.len() as u32;
        strtab.extend(name.as_bytes());
        strtab.push(0);
        symtab.extend(u32le(at));
        symtab.push(0x11); // STB_GLOBAL, STT_OBJECT
        symtab.push(0);
        symtab.extend(u16le(2)); // .data
        symtab.extend(u64le(4 * i as u64));
        symtab.extend(u64le(4));
    }
    let names = [".note", ".data", ".symtab", ".strtab", ".shstrtab"];
    let mut shstrtab = vec![0u8];
    let mut name_at = Vec::new();
    for n in names {
        name_at.push(shstrtab.len() as u32);
        shstrtab.extend(n.as_bytes());
        shstrtab.push(0);
    }
    // Layout: header, then each section 8-aligned, then the section headers.
    let mut out = vec![0u8; 64];
    let mut placed = Vec::new();
    for body in [&note, &data, &symtab, &strtab, &shstrtab] {
        while !out.len().is_multiple_of(8) {
            out.push(0);
        }
        placed.push((out.len() as u64, body.len() as u64));
        out.extend(body.iter());
    }
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
    let shoff = out.len() as u64;
    // (type, flags, link, info, align, entsize)
    let kinds: [(u32, u64, u32, u32, u64, u64); 5] = [
        (7, 2, 0, 0, 4, 0),  // SHT_NOTE, SHF_ALLOC
        (1, 3, 0, 0, 4, 0),  // SHT_PROGBITS, SHF_WRITE | SHF_ALLOC
        (2, 0, 4, 1, 8, 24), // SHT_SYMTAB, strings in section 4
        (3, 0, 0, 0, 1, 0),  // SHT_STRTAB
        (3, 0, 0, 0, 1, 0),  // SHT_STRTAB
    ];
    out.extend([0u8; 64]); // the null section
    for (i, ((ty, fl, link, info, align, entsize), (off, size))) in
        kinds.iter().zip(&placed).enumerate()
    {
        out.extend(u32le(name_at[i]));
        out.extend(u32le(*ty));
        out.extend(u64le(*fl));
        out.extend(u64le(0)); // sh_addr
        out.extend(u64le(*off));
        out.extend(u64le(*size));
        out.extend(u32le(*link));
        out.extend(u32le(*info));
        out.extend(u64le(*align));
        out.extend(u64le(*entsize));
    }
    let mut h = Vec::new();
    h.extend(b"\x7fELF");
    h.extend([2, 1, 1, 64, 3]); // 64-bit, LE, version 1, AMDGPU_HSA, ABI version 3 (v5)
    h.resize(16, 0);
    h.extend(u16le(3)); // ET_DYN
    h.extend(u16le(224)); // EM_AMDGPU
    h.extend(u32le(1));
    h.extend(u64le(0)); // e_entry
    h.extend(u64le(0)); // e_phoff
    h.extend(u64le(shoff));
    h.extend(u32le(flags));
    h.extend(u16le(64));
    h.extend(u16le(56));
    h.extend(u16le(0));
    h.extend(u16le(64));
    h.extend(u16le(1 + names.len() as u16));
    h.extend(u16le(names.len() as u16)); // .shstrtab is the last
    out[..64].copy_from_slice(&h);
    out
}

pub const HEADER: &str =
    "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles";
pub const SITE_ARGS: &str =
    "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,d:global_buffer:8";
pub const SPARSE_SITE_ARGS: &str =
    "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,idx:global_buffer:8,d:global_buffer:8";
pub const GEMM_ARGS: &str =
    "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,m:by_value:8,n:by_value:8,k:by_value:8";

/// A manifest line of a call site.
pub fn site_line(kernel: &str, builtin: &str, modifiers: &str, sparse: bool) -> String {
    let args = if sparse { SPARSE_SITE_ARGS } else { SITE_ARGS };
    format!("site\t{kernel}\t{builtin}\tv_mfma\t{modifiers}\t{args}\t64\t1,1\t0\t-")
}

/// A manifest line of a GEMM kernel.
pub fn gemm_line(
    kernel: &str,
    builtin: &str,
    threads: u32,
    bm: usize,
    bn: usize,
    lds: u32,
) -> String {
    format!(
        "gemm\t{kernel}\t{builtin}\tv_mfma\t-\t{GEMM_ARGS}\t{threads}\tceil(n/{bn}),ceil(m/{bm})\t{lds}\tStagedTiles<{bm}, {bn}, 16, 2>"
    )
}

/// A gfx90a code object and manifest of three kernels: a plain call site,
/// one with modifiers, and a GEMM kernel.
pub fn gfx90a_example() -> (Vec<u8>, String) {
    let co = code_object(
        GFX90A,
        &[
            kernel("mfma_f32_32x32x8f16", 4, 0),
            kernel("mfma_f32_4x4x1f32__2_3_4", 4, 0),
            kernel("gemm_f32_32x32x8f16", 3, 3),
        ],
        &[("gemm_f32_32x32x8f16_lds_bytes", 8192)],
    );
    let manifest = [
        HEADER.to_string(),
        site_line("mfma_f32_32x32x8f16", "f32_32x32x8f16", "-", false),
        site_line(
            "mfma_f32_4x4x1f32__2_3_4",
            "f32_4x4x1f32",
            "cbsz:2 abid:3 blgp:4",
            false,
        ),
        gemm_line("gemm_f32_32x32x8f16", "f32_32x32x8f16", 256, 64, 64, 8192),
    ]
    .join("\n")
        + "\n";
    (co, manifest)
}

/// The stand-in HIP runtime, built once per test process.
pub fn fake_runtime() -> Option<std::path::PathBuf> {
    use std::sync::OnceLock;
    static BUILT: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = std::env::temp_dir().join(format!("mfma-fake-hip-{}", std::process::id()));
            mfma_hip::stand_in::build(&dir).expect("the stand-in HIP runtime builds")
        })
        .clone()
}
