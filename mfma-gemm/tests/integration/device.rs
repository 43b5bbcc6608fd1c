//! The GPU path of the catalog without a GPU: `check_device` against
//! stand-in devices (the software path itself, one that gets a bit wrong,
//! one that fails), and the `matrix_multiply` example's `--device` when
//! there is no GPU (one line, status 2) and against the stand-in HIP
//! runtime, whose kernels compute nothing (every policy differs, status 1).

use mfma_core::spec::Builtin;
use mfma_core::{Element, Instr, Visit};
use mfma_gemm::catalog::{check_device, find, for_arch, Config, DeviceError, GemmDevice, POLICIES};
use mfma_gemm::{gemm, GlobalTiles, MfmaPolicy};

fn config(m: usize, n: usize, k: usize, seed: u64) -> Config {
    Config {
        m,
        n,
        k,
        seed,
        threads: 2,
        warmup: 0,
        reps: 2,
    }
}

/// The software path as the "GPU": decodes the bytes, runs the tutorial
/// GEMM on another tile than the host's and encodes C.
struct Soft {
    /// Flip this bit of output element (row, col), to play a faulty GPU.
    flip: Option<(usize, usize, u32)>,
    calls: usize,
}

struct Run<'a> {
    a: &'a [u8],
    b: &'a [u8],
    mnk: [usize; 3],
}

fn decode<E: Element>(bytes: &[u8]) -> Vec<E> {
    let n = E::TYPE.bits() as usize / 8;
    bytes
        .chunks_exact(n)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(c);
            E::from_bits_u64(u64::from_le_bytes(w))
        })
        .collect()
}

impl Visit for Run<'_> {
    type Output = Vec<u8>;
    fn visit<X: Instr>(self) -> Vec<u8> {
        let [m, n, k] = self.mnk;
        let (a, b) = (decode::<X::In>(self.a), decode::<X::In>(self.b));
        let mut c = vec![X::Out::ZERO; m * n];
        gemm::<GlobalTiles<64, 64, 64>, MfmaPolicy<X>>(m, n, k, &a, &b, &mut c, 1);
        let w = X::Out::TYPE.bits() as usize / 8;
        c.iter()
            .flat_map(|x| x.to_bits_u64().to_le_bytes().into_iter().take(w))
            .collect()
    }
}

impl GemmDevice for Soft {
    fn gemm(
        &mut self,
        builtin: &'static Builtin,
        a: &[u8],
        b: &[u8],
        mnk: [usize; 3],
        reps: usize,
    ) -> Result<(Vec<u8>, f64), DeviceError> {
        assert!(reps >= 1);
        self.calls += 1;
        let mut c = mfma_core::visit_builtin(builtin, Run { a, b, mnk }).ok_or("not dense")?;
        if let Some((row, col, bit)) = self.flip {
            let w = builtin.cd.bits() as usize / 8;
            let at = (row * mnk[1] + col) * w + bit as usize / 8;
            c[at] ^= 1 << (bit % 8);
        }
        Ok((c, 0.25e-3))
    }
}

#[test]
fn the_software_path_as_the_device_matches_every_gpu_policy_bitwise() {
    let mut dev = Soft {
        flip: None,
        calls: 0,
    };
    let mut n = 0;
    for arch in ["cdna2", "cdna3"] {
        for e in for_arch(arch) {
            for (s, (m, nn, k)) in [(64, 64, 32), (70, 45, 19), (1, 33, 1)]
                .into_iter()
                .enumerate()
            {
                let out = check_device(e, &config(m, nn, k, 40 + s as u64), &mut dev).unwrap();
                assert!(
                    out.bit_exact(),
                    "{} {m}x{nn}x{k}: {:?}",
                    e.name,
                    out.first_mismatch
                );
                assert_eq!(out.seconds, 0.25e-3);
                assert_eq!(out.ops, 2.0 * (m * nn * k) as f64);
                n += 1;
            }
        }
    }
    assert_eq!((n, dev.calls), (3 * 17, 3 * 17)); // 6 CDNA2 and 11 CDNA3 policies
}

#[test]
fn one_wrong_bit_is_found_and_located() {
    let e = find("cdna3::f32_32x32x16_fp8_fp8").unwrap();
    let mut dev = Soft {
        flip: Some((3, 5, 0)),
        calls: 0,
    };
    let out = check_device(e, &config(40, 24, 32, 7), &mut dev).unwrap();
    assert_eq!(out.mismatches, 1);
    let m = out.first_mismatch.unwrap();
    assert_eq!((m.row, m.col, m.got ^ m.want), (3, 5, 1));
}

#[test]
fn a_device_error_or_a_short_result_is_an_error_not_a_mismatch() {
    struct Failing(bool);
    impl GemmDevice for Failing {
        fn gemm(
            &mut self,
            _: &'static Builtin,
            _: &[u8],
            _: &[u8],
            [m, n, _]: [usize; 3],
            _: usize,
        ) -> Result<(Vec<u8>, f64), DeviceError> {
            if self.0 {
                Err("hipModuleLaunchKernel failed: invalid argument".into())
            } else {
                Ok((vec![0; m * n], 1.0))
            }
        }
    }
    let e = find("f32_32x32x2f32").unwrap();
    let err = check_device(e, &config(8, 8, 8, 1), &mut Failing(true)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "hipModuleLaunchKernel failed: invalid argument"
    );
    let err = check_device(e, &config(8, 8, 8, 1), &mut Failing(false)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "f32_32x32x2f32: the device returned 64 bytes of C, not 256"
    );
    let scalar = &POLICIES[0];
    let err = check_device(scalar, &config(8, 8, 8, 1), &mut Failing(true)).unwrap_err();
    assert_eq!(err.to_string(), "scalar_fma_f64 has no GPU kernel");
}

#[test]
fn without_a_gpu_device_prints_one_line_and_exits_2() {
    let Some(bin) = crate::example() else { return };
    let out = std::process::Command::new(bin)
        .arg("--device")
        .env("MFMA_HIP_LIBRARY", "/nonexistent/libamdhip64.so")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "error: no HIP runtime library found (tried /nonexistent/libamdhip64.so): install ROCm 6 \
         (5.x also loads the code objects), or set MFMA_HIP_LIBRARY to the path of libamdhip64\n"
    );
    assert!(out.stdout.is_empty());
}

/// The manifest lines of the GEMM kernels of an architecture's policies,
/// as `mfma-kernels/build.rs` writes them.
fn gemm_manifest(arch: &str) -> String {
    use std::fmt::Write as _;
    let mut manifest = String::from(
        "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles\n",
    );
    for e in for_arch(arch) {
        let (b, gpu) = (e.builtin.unwrap(), e.gpu.unwrap());
        writeln!(
            manifest,
            "gemm\tgemm_{}\t{}\t{}\t-\ta:global_buffer:8,b:global_buffer:8,c:global_buffer:8,\
             m:by_value:8,n:by_value:8,k:by_value:8\t{}\tceil(n/{}),ceil(m/{})\t{}\t-",
            b.name,
            b.path(),
            b.isa,
            gpu.threads(b),
            gpu.block.1,
            gpu.block.0,
            gpu.lds_bytes(b.a_type.bits() as usize / 8)
        )
        .unwrap();
    }
    manifest
}

#[test]
fn on_the_stand_in_runtime_every_policy_runs_and_differs() {
    let Some(bin) = crate::example() else { return };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mfma-gemm-device");
    let _ = std::fs::remove_dir_all(&dir);
    let Some(lib) = mfma_hip::stand_in::build(&dir.join("hip")).unwrap() else {
        return;
    };
    for (arch, gfx) in [("cdna2", "gfx90a"), ("cdna3", "gfx942")] {
        mfma_hip::stand_in::write_code_object(&dir, gfx, &gemm_manifest(arch)).unwrap();
        let log = dir.join(format!("{gfx}.log"));
        let out = std::process::Command::new(&bin)
            .args(["--device", "--size", "70,40,24", "--reps", "2"])
            .env("MFMA_HIP_LIBRARY", &lib)
            .env("MFMA_CODE_OBJECT_DIR", &dir)
            .env("FAKE_HIP_ARCH", format!("{gfx}:sramecc+:xnack-"))
            .env("FAKE_HIP_LOG", &log)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        // The stand-in computes nothing: C stays zero and every policy differs.
        assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
        let rows: Vec<&str> = stdout.lines().filter(|l| l.ends_with(" NO")).collect();
        let names: Vec<&str> = for_arch(arch).map(|e| e.name).collect();
        assert_eq!(rows.len(), names.len(), "{stdout}");
        for (row, name) in rows.iter().zip(&names) {
            assert!(row.starts_with(name), "{row}");
            assert!(row.contains("70x40x24"), "{row}");
            // 1.5 ms a launch: 2·70·40·24 / 1.5e-3 / 1e12 TFLOP/s.
            assert!(row.contains(" 0.001500 "), "{row}");
        }
        assert!(
            stdout.starts_with(&format!("GPU: {gfx}:sramecc+:xnack- (HIP device 0, ")),
            "{stdout}"
        );
        assert!(stdout.contains("outputs differ; first C[0][0]"), "{stdout}");
        // Each policy: 2 launches of (ceil(40 / BN), ceil(70 / BM)) workgroups.
        let launches = std::fs::read_to_string(&log).unwrap();
        assert_eq!(launches.lines().count(), 2 * names.len(), "{launches}");
        for e in for_arch(arch) {
            let (b, gpu) = (e.builtin.unwrap(), e.gpu.unwrap());
            let line = launches
                .lines()
                .find(|l| l.starts_with(&format!("gemm_{} ", b.name)))
                .unwrap();
            let f: Vec<&str> = line.split(' ').collect();
            let grid = format!(
                "{},{},1",
                40usize.div_ceil(gpu.block.1),
                70usize.div_ceil(gpu.block.0)
            );
            assert_eq!(f[1], grid, "{line}");
            assert_eq!(f[2], format!("{},1,1", gpu.threads(b)), "{line}");
            assert_eq!(
                f[3],
                gpu.lds_bytes(b.a_type.bits() as usize / 8).to_string()
            );
        }
    }
    // A policy of the other architecture is refused by name, with the one
    // that does its job there; one without a GPU kernel, with none.
    let refused = |policy: &str| {
        let out = std::process::Command::new(&bin)
            .args(["--device", "--policy", policy])
            .env("MFMA_HIP_LIBRARY", &lib)
            .env("MFMA_CODE_OBJECT_DIR", &dir)
            .env("FAKE_HIP_ARCH", "gfx942:sramecc+:xnack-")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8(out.stderr).unwrap()
    };
    let these = "these have one: \
         cdna3::f32_32x32x8f16, cdna3::f32_32x32x8bf16_1k, cdna3::f32_32x32x16_fp8_fp8, \
         cdna3::f64_16x16x4f64, cdna3::f32_32x32x2f32, cdna3::i32_32x32x16_i8, \
         cdna3::f32_32x32x4_xf32, cdna3::f32_32x32x16_bf8_bf8, cdna3::f32_16x16x16f16, \
         cdna3::f32_16x16x16bf16_1k, cdna3::f32_16x16x32_fp8_fp8\n";
    assert_eq!(
        refused("i32_32x32x8i8"),
        "error: `i32_32x32x8i8` has no GPU kernel for gfx942 (CDNA3); \
         `cdna3::i32_32x32x16_i8` does its job there; "
            .to_string()
            + these
    );
    assert_eq!(
        refused("scalar_fma_f64"),
        "error: `scalar_fma_f64` has no GPU kernel for gfx942 (CDNA3); ".to_string() + these
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_gpu_or_a_code_object_each_reason_is_one_line_and_status_2() {
    let Some(bin) = crate::example() else { return };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mfma-gemm-nogpu");
    let _ = std::fs::remove_dir_all(&dir);
    let Some(lib) = mfma_hip::stand_in::build(&dir.join("hip")).unwrap() else {
        return;
    };
    for (vars, starts) in [
        (
            vec![("FAKE_HIP_DEVICES", "0")],
            "error: no AMD GPU: the HIP runtime (",
        ),
        (
            vec![("FAKE_HIP_ARCH", "gfx1100")],
            "error: unsupported target gfx1100: ",
        ),
        (
            vec![("FAKE_HIP_ARCH", "gfx942")],
            "error: no code object for gfx942 (looked for ",
        ),
    ] {
        let out = std::process::Command::new(&bin)
            .arg("--device")
            .env("MFMA_HIP_LIBRARY", &lib)
            .env("MFMA_CODE_OBJECT_DIR", dir.join("empty"))
            .envs(vars)
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with(starts), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
