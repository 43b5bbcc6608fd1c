//! A stand-in HIP runtime, for tests of programs that use this crate on
//! machines without a GPU: a small `libamdhip64.so` that answers the calls
//! this crate makes, built from source with rustc. Point
//! [`LIBRARY_VAR`](crate::LIBRARY_VAR) at it.
//!
//! It reports one gfx90a GPU unless told otherwise, by environment
//! variables read at each call:
//!
//! * `FAKE_HIP_INIT=fail`: `hipInit` returns `hipErrorNoDevice`;
//! * `FAKE_HIP_DEVICES=N`: the device count (default 1);
//! * `FAKE_HIP_ARCH`: `gcnArchName` (default `gfx90a:sramecc+:xnack-`);
//! * `FAKE_HIP_LDS`: the value of every `*_lds_bytes` global (default 8192);
//! * `FAKE_HIP_LOG=FILE`: each launch appends a line `kernel gx,gy,gz
//!   bx,by,bz lds kernarg-hex`.
//!
//! Device memory is host memory. Kernels compute nothing, except that a
//! call site (`mfma_*`) copies its C into its D: what `D = A·B + C` gives
//! for `A = B = 0`. Every launch takes 1.5 ms.
//!
//! Code objects for it (which it loads without looking inside) come from
//! [`write_code_object`]: from a manifest, a code object whose metadata
//! states what the manifest says, so that [`Catalog`](crate::Catalog)
//! accepts the pair.

use crate::codeobj::KernelMeta;
use crate::elf::ElfFlags;
use crate::locate::CodeObjectFiles;
use crate::target::TargetId;
use serde::Serialize;
use std::io;
use std::path::{Path, PathBuf};

/// The source of the stand-in (one file, no dependencies).
pub const SOURCE: &str = include_str!("../stand-in/libamdhip64.rs");

/// Builds the stand-in into `dir/libamdhip64.so` with `$RUSTC` (else
/// `rustc` from `PATH`) and returns its path; `Ok(None)` on platforms whose
/// shared libraries are not ELF `.so` files (it is written for Linux).
///
/// # Errors
/// When the directory cannot be written or rustc fails.
pub fn build(dir: &Path) -> io::Result<Option<PathBuf>> {
    if !cfg!(target_os = "linux") {
        return Ok(None);
    }
    std::fs::create_dir_all(dir)?;
    let src = dir.join("libamdhip64.rs");
    std::fs::write(&src, SOURCE)?;
    let out = dir.join("libamdhip64.so");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let status = std::process::Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "cdylib",
            "--crate-name",
            "amdhip64",
        ])
        .args(["-C", "opt-level=1", "--cap-lints", "allow"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "rustc failed on {}",
            src.display()
        )));
    }
    Ok(Some(out))
}

#[derive(Serialize)]
struct Metadata<'a> {
    #[serde(rename = "amdhsa.version")]
    version: [u32; 2],
    #[serde(rename = "amdhsa.kernels")]
    kernels: &'a [KernelMeta],
}

/// A 64-bit little-endian AMDGPU ELF (OS/ABI `AMDGPU_HSA`, code object
/// v5) with ELF flags `e_flags` (`EF_AMDGPU_MACH` and the xnack/sramecc
/// bits), a metadata note of `kernels` and one 4-byte data symbol per
/// `words` entry: what [`CodeObjectInfo::parse`](crate::CodeObjectInfo::parse)
/// reads, and nothing a GPU could run.
///
/// ```
/// use mfma_hip::{stand_in, CodeObjectInfo, KernelMeta};
/// let k = KernelMeta { name: "k".into(), kernarg_segment_size: 8, ..Default::default() };
/// let elf = stand_in::elf(0x03f | 0x100 | 0x400, &[k.clone()], &[("x".into(), 7)]);
/// let info = CodeObjectInfo::parse(&elf).unwrap();
/// assert_eq!((info.target.to_string(), info.version), ("gfx90a".to_string(), 5));
/// assert_eq!((info.kernels, info.words["x"]), (vec![k], 7));
/// ```
pub fn elf(e_flags: u32, kernels: &[KernelMeta], words: &[(String, u32)]) -> Vec<u8> {
    fn pad(b: &mut Vec<u8>, to: usize) {
        while !b.len().is_multiple_of(to) {
            b.push(0);
        }
    }
    let meta = rmp_serde::to_vec_named(&Metadata {
        version: [1, 2],
        kernels,
    })
    .expect("metadata serialises");
    // .note: one note, owner "AMDGPU", type NT_AMDGPU_METADATA (32).
    let mut note = Vec::new();
    note.extend(7u32.to_le_bytes());
    note.extend((meta.len() as u32).to_le_bytes());
    note.extend(32u32.to_le_bytes());
    note.extend(b"AMDGPU\0");
    pad(&mut note, 4);
    note.extend(&meta);
    pad(&mut note, 4);
    // .data holds the words; .symtab one global object symbol for each.
    let data: Vec<u8> = words.iter().flat_map(|(_, v)| v.to_le_bytes()).collect();
    let (mut strtab, mut symtab) = (vec![0u8], vec![0u8; 24]);
    for (i, (name, _)) in words.iter().enumerate() {
        symtab.extend((strtab.len() as u32).to_le_bytes());
        strtab.extend(name.as_bytes());
        strtab.push(0);
        symtab.extend([0x11, 0]); // STB_GLOBAL, STT_OBJECT
        symtab.extend(2u16.to_le_bytes()); // in .data
        symtab.extend((4 * i as u64).to_le_bytes());
        symtab.extend(4u64.to_le_bytes());
    }
    let names = [".note", ".data", ".symtab", ".strtab", ".shstrtab"];
    let mut shstrtab = vec![0u8];
    let mut name_at = Vec::new();
    for n in names {
        name_at.push(shstrtab.len() as u32);
        shstrtab.extend(n.as_bytes());
        shstrtab.push(0);
    }
    let mut out = vec![0u8; 64];
    let mut placed = Vec::new();
    for body in [&note, &data, &symtab, &strtab, &shstrtab] {
        pad(&mut out, 8);
        placed.push((out.len() as u64, body.len() as u64));
        out.extend(body.iter());
    }
    pad(&mut out, 8);
    let shoff = out.len() as u64;
    // (sh_type, sh_flags, sh_link, sh_info, sh_addralign, sh_entsize)
    let kinds: [(u32, u64, u32, u32, u64, u64); 5] = [
        (7, 2, 0, 0, 4, 0),  // SHT_NOTE, SHF_ALLOC
        (1, 3, 0, 0, 4, 0),  // SHT_PROGBITS, SHF_WRITE | SHF_ALLOC
        (2, 0, 4, 1, 8, 24), // SHT_SYMTAB, its strings in section 4
        (3, 0, 0, 0, 1, 0),  // SHT_STRTAB
        (3, 0, 0, 0, 1, 0),  // SHT_STRTAB
    ];
    out.extend([0u8; 64]); // the null section
    for (i, ((ty, flags, link, info, align, entsize), (off, size))) in
        kinds.iter().zip(&placed).enumerate()
    {
        out.extend(name_at[i].to_le_bytes());
        out.extend(ty.to_le_bytes());
        out.extend(flags.to_le_bytes());
        out.extend(0u64.to_le_bytes()); // sh_addr
        out.extend(off.to_le_bytes());
        out.extend(size.to_le_bytes());
        out.extend(link.to_le_bytes());
        out.extend(info.to_le_bytes());
        out.extend(align.to_le_bytes());
        out.extend(entsize.to_le_bytes());
    }
    let mut h = Vec::with_capacity(64);
    h.extend(b"\x7fELF");
    // 64-bit, little-endian, version 1, OS/ABI AMDGPU_HSA, ABI version 3 (v5).
    h.extend([2, 1, 1, 64, 3]);
    h.resize(16, 0);
    h.extend(3u16.to_le_bytes()); // ET_DYN
    h.extend(224u16.to_le_bytes()); // EM_AMDGPU
    h.extend(1u32.to_le_bytes());
    h.extend(0u64.to_le_bytes()); // e_entry
    h.extend(0u64.to_le_bytes()); // e_phoff
    h.extend(shoff.to_le_bytes());
    h.extend(e_flags.to_le_bytes());
    h.extend(64u16.to_le_bytes()); // e_ehsize
    h.extend(56u16.to_le_bytes()); // e_phentsize
    h.extend(0u16.to_le_bytes()); // e_phnum
    h.extend(64u16.to_le_bytes()); // e_shentsize
    h.extend((1 + names.len() as u16).to_le_bytes());
    h.extend((names.len() as u16).to_le_bytes()); // .shstrtab is the last
    out[..64].copy_from_slice(&h);
    out
}

/// A code object for `processor` (xnack and sramecc "any") whose metadata
/// states what `manifest` (the `kernels.tsv` format) says: each kernel with
/// the arguments of its `args` column, 8-byte aligned in order, and each
/// GEMM kernel's `<kernel>_lds_bytes` with its `lds` column.
///
/// # Errors
/// An unknown processor, or a manifest line without 10 fields.
pub fn code_object(processor: &str, manifest: &str) -> Result<Vec<u8>, String> {
    let flags = ElfFlags::for_target(&TargetId::new(processor))
        .ok_or(format!("unknown processor {processor}"))?;
    let (mut kernels, mut words) = (Vec::new(), Vec::new());
    for line in manifest.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [kind, kernel, _, _, _, args, workgroup, _, lds, _] = f[..] else {
            return Err(format!(
                "manifest line `{line}` has {} fields, not 10",
                f.len()
            ));
        };
        let args: Vec<crate::ArgMeta> = args
            .split(',')
            .enumerate()
            .map(|(i, a)| crate::ArgMeta {
                offset: 8 * i as u32,
                size: a
                    .rsplit(':')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(8),
                value_kind: a.split(':').nth(1).unwrap_or("by_value").to_string(),
                address_space: None,
            })
            .collect();
        kernels.push(KernelMeta {
            name: kernel.to_string(),
            kernarg_segment_size: 8 * args.len() as u32,
            args,
            group_segment_fixed_size: 0,
            max_flat_workgroup_size: workgroup.parse::<u32>().unwrap_or(1024).max(1024),
            wavefront_size: 64,
        });
        if kind == "gemm" {
            words.push((format!("{kernel}_lds_bytes"), lds.parse().unwrap_or(0)));
        }
    }
    Ok(elf(flags.0, &kernels, &words))
}

/// Writes [`code_object`] and `manifest` as `dir/<processor>/mfma_kernels.hsaco`
/// and `dir/<processor>/kernels.tsv`, where [`find_in`](crate::find_in)
/// looks (set [`DIR_VAR`](crate::DIR_VAR) to `dir`).
///
/// # Errors
/// As [`code_object`], or when the files cannot be written.
pub fn write_code_object(
    dir: &Path,
    processor: &str,
    manifest: &str,
) -> io::Result<CodeObjectFiles> {
    let files = CodeObjectFiles::under(dir, processor);
    let co = code_object(processor, manifest).map_err(io::Error::other)?;
    std::fs::create_dir_all(dir.join(processor))?;
    std::fs::write(&files.code_object, co)?;
    std::fs::write(&files.manifest, manifest)?;
    Ok(files)
}
