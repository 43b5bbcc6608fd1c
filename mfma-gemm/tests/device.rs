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
        gemm::<GlobalTiles<64, 64, 16>, MfmaPolicy<X>>(m, n, k, &a, &b, &mut c, 1);
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
    assert_eq!((n, dev.calls), (3 * 8, 3 * 8)); // 5 CDNA2 and 3 CDNA3 policies
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

// The example binary. `cargo test` builds examples beside the test
// binaries (target/<profile>/examples/); run alone (`--test device`) it may
// not have, and then these two say so and pass.

fn example() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("examples");
    let path = dir.join(format!("matrix_multiply{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("skipped: {} is not built", path.display());
        None
    }
}

#[test]
fn without_a_gpu_device_prints_one_line_and_exits_2() {
    let Some(bin) = example() else { return };
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

/// A code object and manifest of the gfx90a GEMM kernels, as the launcher
/// reads them (the stand-in runs nothing of it).
fn write_gfx90a_gemm_code_object(dir: &std::path::Path) {
    use std::fmt::Write as _;
    let gemms: Vec<&Builtin> = for_arch("cdna2").filter_map(|e| e.builtin).collect();
    // The metadata note: each kernel's six arguments, 8 bytes apart.
    let arg = |offset: u32, kind: &str| -> Vec<(&str, rmp_value::Value)> {
        vec![
            (".offset", offset.into()),
            (".size", 8u32.into()),
            (".value_kind", kind.into()),
        ]
    };
    let _ = arg;
    let mut manifest = String::from(
        "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles\n",
    );
    for b in &gemms {
        let e = POLICIES.iter().find(|e| e.builtin == Some(b)).unwrap();
        let gpu = e.gpu.unwrap();
        writeln!(
            manifest,
            "gemm\tgemm_{0}\t{0}\tv\t-\ta:global_buffer:8,b:global_buffer:8,c:global_buffer:8,m:by_value:8,n:by_value:8,k:by_value:8\t{1}\tceil(n/{2}),ceil(m/{3})\t{4}\t-",
            b.name,
            gpu.threads(b),
            gpu.block.1,
            gpu.block.0,
            gpu.lds_bytes(b.a_type.bits() as usize / 8)
        )
        .unwrap();
    }
    let names: Vec<String> = gemms.iter().map(|b| format!("gemm_{}", b.name)).collect();
    let co = mini_elf::gemm_code_object(&names);
    std::fs::create_dir_all(dir.join("gfx90a")).unwrap();
    std::fs::write(dir.join("gfx90a/mfma_kernels.hsaco"), co).unwrap();
    std::fs::write(dir.join("gfx90a/kernels.tsv"), manifest).unwrap();
}
