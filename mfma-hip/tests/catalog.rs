//! Launch planning without a GPU: a code object and its manifest are read,
//! checked against each other, and every launch's arguments are packed at
//! the offsets the kernel's metadata states.

mod common;

use common::*;
use mfma_hip::{check_target, Catalog, Error, Operand, TargetId};
use mfma_spec::{find, Modifiers};
use std::path::Path;

fn catalog(co: &[u8], manifest: &str) -> Result<Catalog, Error> {
    Catalog::new(Path::new("dir/gfx90a/mfma_kernels.hsaco"), co, manifest)
}

#[test]
fn the_code_object_tells_its_target_version_and_kernels() {
    let (co, manifest) = gfx90a_example();
    let c = catalog(&co, &manifest).unwrap();
    assert_eq!(c.target.to_string(), "gfx90a");
    assert_eq!(c.version, 5);
    assert_eq!(c.sites.len(), 2);
    assert_eq!(c.gemms.len(), 1);
    let s = &c.sites[1];
    assert_eq!(
        (s.kernel.as_str(), s.builtin.name, s.modifiers),
        (
            "mfma_f32_4x4x1f32__2_3_4",
            "f32_4x4x1f32",
            Modifiers::new(2, 3, 4)
        )
    );
    let x = find("f32_4x4x1f32").unwrap();
    assert_eq!(c.site(x, Modifiers::new(2, 3, 4)), Some(s));
    assert_eq!(c.site(x, Modifiers::NONE), None);
    let g = &c.gemms[0];
    assert_eq!((g.workgroup, g.block, g.lds_bytes), (256, (64, 64), 8192));
    assert_eq!(c.gemm(find("f32_32x32x8f16").unwrap()), Some(g));
}

#[test]
fn a_site_launch_is_one_wave_with_the_pointers_at_their_offsets() {
    let (co, manifest) = gfx90a_example();
    let c = catalog(&co, &manifest).unwrap();
    let site = &c.sites[0];
    assert_eq!(
        site.operands(),
        [Operand::A, Operand::B, Operand::C, Operand::D]
    );
    let ptrs = [0x1000, 0x2000, 0x3000, 0x4000u64];
    let l = c.site_launch(site, &ptrs).unwrap();
    assert_eq!((l.grid, l.block, l.lds_bytes), ([1, 1, 1], [64, 1, 1], 0));
    let want: Vec<u8> = ptrs.iter().flat_map(|p| p.to_le_bytes()).collect();
    assert_eq!(l.kernarg, want);
    let e = c.site_launch(site, &ptrs[..3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot launch mfma_f32_32x32x8f16: it takes 4 operands, given 3"
    );
}

#[test]
fn a_gemm_launch_covers_c_with_workgroups_and_passes_its_lds() {
    let (co, manifest) = gfx90a_example();
    let c = catalog(&co, &manifest).unwrap();
    let g = &c.gemms[0];
    let l = c.gemm_launch(g, [0xa0, 0xb0, 0xc0], [100, 130, 7]).unwrap();
    // n = 130 over 64 columns a workgroup: 3; m = 100 over 64 rows: 2.
    assert_eq!(
        (l.grid, l.block, l.lds_bytes),
        ([3, 2, 1], [256, 1, 1], 8192)
    );
    let want: Vec<u8> = [0xa0u64, 0xb0, 0xc0, 100, 130, 7]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(l.kernarg, want);
    assert!(c.gemm_launch(g, [1, 2, 3], [0, 4, 4]).is_err());
}

#[test]
fn arguments_go_where_the_metadata_says_not_where_one_would_guess() {
    // A kernel whose metadata puts its arguments in another order and with
    // a gap: the launcher follows the metadata.
    let mut k = kernel("mfma_f32_32x32x8f16", 4, 0);
    for (a, off) in k.args.iter_mut().zip([24, 0, 32, 8]) {
        a.offset = off;
    }
    k.kernarg_segment_size = 48;
    let co = code_object(GFX90A, &[k], &[]);
    let manifest = format!(
        "{HEADER}\n{}\n",
        site_line("mfma_f32_32x32x8f16", "f32_32x32x8f16", "-", false)
    );
    let c = catalog(&co, &manifest).unwrap();
    let l = c.site_launch(&c.sites[0], &[1, 2, 3, 4]).unwrap();
    assert_eq!(l.kernarg.len(), 48);
    let at = |o: usize| u64::from_le_bytes(l.kernarg[o..o + 8].try_into().unwrap());
    assert_eq!(
        [at(24), at(0), at(32), at(8), at(16), at(40)],
        [1, 2, 3, 4, 0, 0]
    );
}

#[test]
fn code_object_and_manifest_must_agree() {
    let (co, manifest) = gfx90a_example();
    let cases: Vec<(Vec<u8>, String, &str)> = vec![
        // A kernel the manifest lists but the code object lacks.
        (
            code_object(GFX90A, &[kernel("mfma_f32_32x32x8f16", 4, 0)], &[]),
            manifest.clone(),
            "has no kernel mfma_f32_4x4x1f32__2_3_4, which the manifest lists: rebuild both",
        ),
        // A GEMM kernel whose LDS symbol disagrees.
        (
            code_object(
                GFX90A,
                &[
                    kernel("mfma_f32_32x32x8f16", 4, 0),
                    kernel("mfma_f32_4x4x1f32__2_3_4", 4, 0),
                    kernel("gemm_f32_32x32x8f16", 3, 3),
                ],
                &[("gemm_f32_32x32x8f16_lds_bytes", 4096)],
            ),
            manifest.clone(),
            "gemm_f32_32x32x8f16_lds_bytes is 4096, but the manifest says 8192",
        ),
        // A call site with a hidden argument, or one pointer short.
        (
            {
                let mut k = kernel("mfma_f32_32x32x8f16", 4, 0);
                k.args[3].value_kind = "hidden_block_count_x".into();
                code_object(GFX90A, &[k], &[])
            },
            format!(
                "{HEADER}\n{}\n",
                site_line("mfma_f32_32x32x8f16", "f32_32x32x8f16", "-", false)
            ),
            "mfma_f32_32x32x8f16's arguments are",
        ),
        (
            code_object(GFX90A, &[kernel("mfma_f32_32x32x8f16", 3, 0)], &[]),
            format!(
                "{HEADER}\n{}\n",
                site_line("mfma_f32_32x32x8f16", "f32_32x32x8f16", "-", false)
            ),
            "the launcher passes",
        ),
        // A builtin of another architecture, and illegal modifiers.
        (
            co.clone(),
            format!(
                "{HEADER}\n{}\n",
                site_line("mfma_f32_32x32x8f16", "cdna3::f32_32x32x8f16", "-", false)
            ),
            "cdna3::f32_32x32x8f16 is no CDNA2 builtin, but the code object is for gfx90a",
        ),
        (
            co.clone(),
            format!(
                "{HEADER}\n{}\n",
                site_line("mfma_f32_32x32x8f16", "f32_32x32x8f16", "cbsz:1", false)
            ),
            "cbsz must be 0 for f32_32x32x8f16",
        ),
        // Another manifest format.
        (
            co.clone(),
            "kernel\tbuiltin\n".into(),
            "line 1: expected the header",
        ),
    ];
    for (co, manifest, want) in cases {
        let e = catalog(&co, &manifest).unwrap_err();
        let text = e.to_string();
        assert!(text.contains(want), "{text}\n  wanted: {want}");
        assert!(!text.contains('\n'), "{text}");
        assert!(!e.is_unavailable());
    }
    let e = catalog(b"not an elf", &manifest).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("dir/gfx90a/mfma_kernels.hsaco: not an ELF"),
        "{e}"
    );
}

#[test]
fn smfmac_sites_take_the_index_and_read_their_modifiers() {
    let co = code_object(
        GFX942,
        &[
            kernel("mfma_smfmac_f32_16x16x32_f16__2_3_0", 5, 0),
            kernel("mfma_f64_16x16x4f64", 4, 0),
        ],
        &[],
    );
    let manifest = format!(
        "{HEADER}\n{}\n{}\n",
        site_line(
            "mfma_smfmac_f32_16x16x32_f16__2_3_0",
            "cdna3::smfmac_f32_16x16x32_f16",
            "cbsz:2 abid:3",
            true
        ),
        site_line(
            "mfma_f64_16x16x4f64",
            "cdna3::f64_16x16x4f64",
            "neg:[1,0,1]",
            false
        ),
    );
    let c = Catalog::new(Path::new("x.hsaco"), &co, &manifest).unwrap();
    assert_eq!(c.target.to_string(), "gfx942");
    let s = &c.sites[0];
    assert_eq!(s.operands().len(), 5);
    assert_eq!(s.modifiers, Modifiers::new(2, 3, 0));
    assert_eq!(c.sites[1].modifiers, Modifiers::NONE.with_neg(0b101));
    let l = c.site_launch(s, &[1, 2, 3, 4, 5]).unwrap();
    assert_eq!(l.kernarg.len(), 40);
}

#[test]
fn the_code_object_of_another_target_is_refused() {
    let (co, manifest) = gfx90a_example();
    let c = catalog(&co, &manifest).unwrap();
    let mi250: TargetId = "gfx90a:sramecc+:xnack-".parse().unwrap();
    assert!(check_target(&c, &mi250).is_ok());
    let mi300: TargetId = "gfx942:sramecc+:xnack-".parse().unwrap();
    let e = check_target(&c, &mi300).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dir/gfx90a/mfma_kernels.hsaco is built for gfx90a, but the GPU is \
         gfx942:sramecc+:xnack-: use the code object of the GPU's target"
    );
    assert!(e.is_unavailable());
    // xnack on in the code object, off on the GPU.
    let xnack_on = code_object(0x03f | 0x300 | 0x400, &[], &[]);
    let c = catalog(&xnack_on, &format!("{HEADER}\n")).unwrap();
    assert_eq!(c.target.to_string(), "gfx90a:xnack+");
    assert!(check_target(&c, &mi250).is_err());
}

#[test]
fn a_stand_in_code_object_states_what_its_manifest_says() {
    let (_, manifest) = gfx90a_example();
    let co = mfma_hip::stand_in::code_object("gfx90a", &manifest).unwrap();
    let c = catalog(&co, &manifest).unwrap();
    assert_eq!((c.sites.len(), c.gemms.len()), (2, 1));
    let l = c.gemm_launch(&c.gemms[0], [1, 2, 3], [64, 64, 64]).unwrap();
    assert_eq!((l.lds_bytes, l.kernarg.len()), (8192, 48));
    assert!(mfma_hip::stand_in::code_object("gfx9999", &manifest).is_err());
}
