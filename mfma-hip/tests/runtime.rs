//! The FFI layer against a stand-in HIP runtime (`tests/fake/fake_hip.rs`,
//! built by the test): loading the library, the reasons the GPU path cannot
//! run (no library, a library without HIP, no device, another target, no
//! code object, a code object of another target), and launches: what
//! reaches `hipModuleLaunchKernel` (grid, workgroup, LDS, the kernarg
//! buffer), copies both ways, HIP's error messages.
//!
//! The environment selects the runtime and its answers, so the tests run
//! one at a time.

mod common;

use common::*;
use mfma_hip::{Error, Gpu, Operand, DIR_VAR, LIBRARY_VAR};
use std::path::PathBuf;
use std::sync::Mutex;

static ENV: Mutex<()> = Mutex::new(());

const FAKE_VARS: [&str; 5] = [
    "FAKE_HIP_INIT",
    "FAKE_HIP_DEVICES",
    "FAKE_HIP_ARCH",
    "FAKE_HIP_LDS",
    "FAKE_HIP_LOG",
];

/// Runs `f` with the stand-in runtime as the library and `vars` set (the
/// others cleared); skipped where the stand-in cannot be built.
fn with_fake(vars: &[(&str, &str)], f: impl FnOnce()) {
    let Some(lib) = fake_runtime() else {
        eprintln!("skipped: no stand-in HIP runtime on this platform");
        return;
    };
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    std::env::set_var(LIBRARY_VAR, &lib);
    for v in FAKE_VARS.iter().chain([&DIR_VAR, &"MFMA_HIP_DEVICE"]) {
        std::env::remove_var(v);
    }
    for (k, v) in vars {
        std::env::set_var(k, v);
    }
    f();
}

fn temp(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mfma-hip-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn without_the_library_the_message_lists_what_was_tried() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    std::env::set_var(LIBRARY_VAR, "/nonexistent/libamdhip64.so");
    let e = Gpu::open().unwrap_err();
    assert_eq!(
        e,
        Error::NoRuntime {
            tried: vec!["/nonexistent/libamdhip64.so".into()]
        }
    );
    assert_eq!(
        e.to_string(),
        "no HIP runtime library found (tried /nonexistent/libamdhip64.so): install ROCm 6 \
         (5.x also loads the code objects), or set MFMA_HIP_LIBRARY to the path of libamdhip64"
    );
    // The default search names libamdhip64 and /opt/rocm.
    std::env::remove_var(LIBRARY_VAR);
    if let Err(e @ Error::NoRuntime { .. }) = Gpu::open() {
        let text = e.to_string();
        assert!(
            text.contains("libamdhip64.so, libamdhip64.so.7, libamdhip64.so.6"),
            "{text}"
        );
        assert!(text.contains("/opt/rocm/lib/libamdhip64.so"), "{text}");
    }
}

#[test]
fn a_library_without_hip_is_named_with_the_function_it_lacks() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    if !cfg!(target_os = "linux") {
        return;
    }
    std::env::set_var(LIBRARY_VAR, "libc.so.6");
    let e = Gpu::open().unwrap_err();
    assert_eq!(
        e.to_string(),
        "libc.so.6 lacks hipInit: not a HIP runtime this program can use (ROCm 5 or later)"
    );
    assert!(e.is_unavailable());
}

#[test]
fn no_device_and_a_failing_init_say_no_amd_gpu() {
    with_fake(&[("FAKE_HIP_DEVICES", "0")], || {
        let e = Gpu::open().unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("no AMD GPU: the HIP runtime ("), "{text}");
        assert!(text.ends_with(") finds no device"), "{text}");
    });
    with_fake(&[("FAKE_HIP_INIT", "fail")], || {
        let text = Gpu::open().unwrap_err().to_string();
        assert!(text.starts_with("no AMD GPU: "), "{text}");
        assert!(
            text.ends_with(
                "does not start: hipInit failed: no ROCm-capable device is detected \
                 (hipErrorNoDevice, 100)"
            ),
            "{text}"
        );
    });
    with_fake(&[("MFMA_HIP_DEVICE", "3")], || {
        let text = Gpu::open().unwrap_err().to_string();
        assert_eq!(
            text,
            "no AMD GPU: device 3 asked for, the HIP runtime finds 1"
        );
    });
}

#[test]
fn a_gpu_of_another_architecture_is_an_unsupported_target() {
    with_fake(&[("FAKE_HIP_ARCH", "gfx1100")], || {
        let e = Gpu::open().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unsupported target gfx1100: the mfma code objects are built for gfx90a (CDNA2) \
             and gfx942 (CDNA3)"
        );
    });
}

#[test]
fn the_gpu_reports_its_target_and_copies_both_ways() {
    with_fake(&[], || {
        let gpu = Gpu::open().unwrap();
        assert_eq!(gpu.arch_name(), "gfx90a:sramecc+:xnack-");
        assert_eq!(gpu.target().processor, "gfx90a");
        assert_eq!(gpu.runtime_version(), 60_342_134);
        let data: Vec<u8> = (0..=255).collect();
        let mut buf = gpu.upload(&data).unwrap();
        assert_eq!((buf.len(), buf.read().unwrap()), (256, data.clone()));
        buf.write(&[7; 256]).unwrap();
        assert_eq!(buf.read().unwrap(), [7; 256]);
        assert!(buf.write(&[1; 3]).is_err());
        assert_eq!(gpu.zeroed(5).unwrap().read().unwrap(), [0; 5]);
    });
}

/// Writes the example code object and manifest under `dir/gfx90a/`.
fn write_example(dir: &std::path::Path) {
    let (co, manifest) = gfx90a_example();
    std::fs::create_dir_all(dir.join("gfx90a")).unwrap();
    std::fs::write(dir.join("gfx90a/mfma_kernels.hsaco"), co).unwrap();
    std::fs::write(dir.join("gfx90a/kernels.tsv"), manifest).unwrap();
}

#[test]
fn launches_reach_the_runtime_as_planned() {
    let dir = temp("launch");
    write_example(&dir);
    let log = dir.join("launches.log");
    let _ = std::fs::remove_file(&log);
    let (d, l) = (dir.display().to_string(), log.display().to_string());
    with_fake(&[(DIR_VAR, &d), ("FAKE_HIP_LOG", &l)], || {
        let (gpu, module) = mfma_hip::open().unwrap();
        let cat = module.catalog();
        // A call site: the stand-in computes D = C.
        let site = &cat.sites[0];
        let x = site.builtin;
        let a = vec![1u8; mfma_hip::operand_bytes(x, Operand::A)];
        let b = vec![2u8; mfma_hip::operand_bytes(x, Operand::B)];
        let c: Vec<u8> = (0..mfma_hip::operand_bytes(x, Operand::C))
            .map(|i| i as u8)
            .collect();
        let out = module.run_site(&gpu, site, &[&a, &b, &c]).unwrap();
        assert_eq!(out, c);
        let e = module.run_site(&gpu, site, &[&a, &b]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot launch mfma_f32_32x32x8f16: it takes 3 inputs, given 2"
        );
        let e = module.run_site(&gpu, site, &[&a, &b, &c[1..]]).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("operand c of f32_32x32x8f16 has 4096 bytes, given 4095"));
        // A GEMM: 100 x 130 x 8 f16.
        let g = &cat.gemms[0];
        let (m, n, k) = (100, 130, 8);
        let run = module
            .run_gemm(
                &gpu,
                g,
                [&vec![0; m * k * 2], &vec![0; k * n * 2]],
                [m, n, k],
                3,
            )
            .unwrap();
        assert_eq!(run.c.len(), m * n * 4);
        assert_eq!(run.seconds, [0.0015; 3]);
        assert_eq!(run.best(), 0.0015);
        let lines: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(lines.len(), 4, "{lines:?}");
        let f: Vec<&str> = lines[0].split(' ').collect();
        assert_eq!(f[..4], ["mfma_f32_32x32x8f16", "1,1,1", "64,1,1", "0"]);
        assert_eq!(f[4].len(), 2 * 32);
        let f: Vec<&str> = lines[1].split(' ').collect();
        assert_eq!(f[..4], ["gemm_f32_32x32x8f16", "3,2,1", "256,1,1", "8192"]);
        let kernarg: Vec<u8> = (0..f[4].len() / 2)
            .map(|i| u8::from_str_radix(&f[4][2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let word = |i: usize| u64::from_le_bytes(kernarg[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!([word(3), word(4), word(5)], [100, 130, 8]);
        assert!(word(0) != 0 && word(1) != 0 && word(2) != 0);
    });
    with_fake(&[(DIR_VAR, &d), ("FAKE_HIP_LDS", "4096")], || {
        let (gpu, module) = mfma_hip::open().unwrap();
        let g = &module.catalog().gemms[0];
        let e = module
            .run_gemm(&gpu, g, [&[0; 2 * 64], &[0; 2 * 64]], [8, 8, 8], 1)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot launch gemm_f32_32x32x8f16: the GPU's copy of its LDS size says 4096, the \
             manifest 8192"
        );
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_code_object_must_exist_and_be_the_gpus() {
    let dir = temp("choose");
    write_example(&dir);
    let d = dir.display().to_string();
    // A gfx942 GPU: no gfx942 code object there.
    with_fake(
        &[(DIR_VAR, &d), ("FAKE_HIP_ARCH", "gfx942:sramecc+:xnack-")],
        || {
            let e = mfma_hip::open().unwrap_err();
            let text = e.to_string();
            assert!(
                text.starts_with("no code object for gfx942 (looked for "),
                "{text}"
            );
            assert!(
                text.contains("bash scripts/check-device.sh gfx942"),
                "{text}"
            );
        },
    );
    // A gfx90a code object where the gfx942 one should be.
    std::fs::rename(dir.join("gfx90a"), dir.join("gfx942")).unwrap();
    with_fake(
        &[(DIR_VAR, &d), ("FAKE_HIP_ARCH", "gfx942:sramecc+:xnack-")],
        || {
            let e = mfma_hip::open().unwrap_err();
            assert!(matches!(e, Error::TargetMismatch { .. }), "{e}");
            assert!(e.to_string().contains(
            "is built for gfx90a, but the GPU is gfx942:sramecc+:xnack-: use the code object of \
             the GPU's target"
        ));
        },
    );
    // Not a code object at all: refused before the runtime sees it.
    std::fs::rename(dir.join("gfx942"), dir.join("gfx90a")).unwrap();
    with_fake(&[(DIR_VAR, &d)], || {
        let gpu = Gpu::open().unwrap();
        let files = mfma_hip::find(&gpu.target().processor).unwrap();
        assert!(gpu.load(&files).is_ok());
        std::fs::write(&files.code_object, b"garbage").unwrap();
        let e = gpu.load(&files).unwrap_err();
        assert!(
            e.to_string().contains("mfma_kernels.hsaco: not an ELF: "),
            "{e}"
        );
    });
    std::fs::remove_dir_all(&dir).unwrap();
}
