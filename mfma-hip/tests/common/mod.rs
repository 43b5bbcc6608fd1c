//! Small code objects for the tests (`mfma_hip::stand_in::elf`: the ELF
//! header the ROCm runtime reads a target from, an `NT_AMDGPU_METADATA`
//! note with one record per kernel, 4-byte data symbols) and the manifest
//! lines `mfma-kernels/build.rs` writes.
#![allow(dead_code)]

use mfma_hip::{ArgMeta, KernelMeta};

/// `EF_AMDGPU_MACH` of gfx90a and gfx942; xnack and sramecc "any".
pub const GFX90A: u32 = 0x03f | 0x100 | 0x400;
pub const GFX942: u32 = 0x04c | 0x100 | 0x400;

/// A kernel whose arguments are `pointers` pointers then `values` usizes,
/// 8 bytes each, packed in order, as rustc emits the mfma kernels.
pub fn kernel(name: &str, pointers: usize, values: usize) -> KernelMeta {
    let args: Vec<ArgMeta> = (0..pointers + values)
        .map(|i| ArgMeta {
            offset: 8 * i as u32,
            size: 8,
            value_kind: if i < pointers {
                "global_buffer"
            } else {
                "by_value"
            }
            .into(),
            address_space: None,
        })
        .collect();
    KernelMeta {
        name: name.into(),
        kernarg_segment_size: 8 * args.len() as u32,
        args,
        group_segment_fixed_size: 0,
        max_flat_workgroup_size: 1024,
        wavefront_size: 64,
    }
}

/// A code object with `flags`, `kernels` and the data symbols `words`.
pub fn code_object(flags: u32, kernels: &[KernelMeta], words: &[(&str, u32)]) -> Vec<u8> {
    let words: Vec<(String, u32)> = words.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    mfma_hip::stand_in::elf(flags, kernels, &words)
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
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("stand-in");
            mfma_hip::stand_in::build(&dir).expect("the stand-in HIP runtime builds")
        })
        .clone()
}
