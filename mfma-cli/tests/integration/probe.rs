//! `mfma probe` as a command: without a GPU (one line saying why, status
//! 2), as a dry run on the software path (everything agrees, status 0),
//! and against the stand-in HIP runtime of mfma-hip, whose call sites
//! compute D = C: the launcher path runs end to end, C's layout agrees,
//! everything else differs (status 1), and the report says so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn probe(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mfma"));
    c.arg("probe").args(args);
    for v in [
        "MFMA_HIP_LIBRARY",
        "MFMA_CODE_OBJECT_DIR",
        "MFMA_HIP_DEVICE",
        "FAKE_HIP_DEVICES",
        "FAKE_HIP_ARCH",
        "FAKE_HIP_INIT",
    ] {
        c.env_remove(v);
    }
    c.env("RUST_BACKTRACE", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("mfma runs")
}

/// Exit status 2, nothing on stdout, exactly one line on stderr: returned.
fn one_line_and_2(out: Output) -> String {
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    stderr
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn without_a_hip_runtime_it_says_so_in_one_line_and_exits_2() {
    let lib = std::ffi::OsStr::new("/nonexistent/libamdhip64.so");
    let stderr = one_line_and_2(probe(
        &["--out", "never.json"],
        &[("MFMA_HIP_LIBRARY", lib)],
    ));
    assert_eq!(
        stderr,
        "error: no HIP runtime library found (tried /nonexistent/libamdhip64.so): install ROCm 6 \
         (5.x also loads the code objects), or set MFMA_HIP_LIBRARY to the path of libamdhip64\n"
    );
    assert!(!Path::new("never.json").exists());
    // With the default search: on a machine without ROCm, the same reason;
    // wherever it runs, one line and status 2 unless a GPU is there.
    let out = probe(&["--builtin", "f32_4x4x1f32"], &[]);
    if out.status.code() == Some(2) {
        let stderr = one_line_and_2(out);
        assert!(stderr.starts_with("error: "), "{stderr}");
    }
}

#[test]
fn each_reason_the_gpu_path_cannot_run_is_one_line_and_status_2() {
    let dir = tmp("probe-nogpu");
    let Some(lib) = mfma_hip::stand_in::build(&dir.join("hip")).unwrap() else {
        return;
    };
    let empty = dir.join("empty");
    for (var, value, starts) in [
        ("FAKE_HIP_DEVICES", "0", "error: no AMD GPU: the HIP runtime ("),
        (
            "FAKE_HIP_INIT",
            "fail",
            "error: no AMD GPU: the HIP runtime (",
        ),
        (
            "FAKE_HIP_ARCH",
            "gfx1100",
            "error: unsupported target gfx1100: the mfma code objects are built for gfx90a (CDNA2) \
             and gfx942 (CDNA3)",
        ),
        (
            "FAKE_HIP_ARCH",
            "gfx942:sramecc+:xnack-",
            "error: no code object for gfx942 (looked for ",
        ),
    ] {
        let stderr = one_line_and_2(probe(
            &[],
            &[
                ("MFMA_HIP_LIBRARY", lib.as_os_str()),
                ("MFMA_CODE_OBJECT_DIR", empty.as_os_str()),
                (var, std::ffi::OsStr::new(value)),
            ],
        ));
        assert!(stderr.starts_with(starts), "{stderr}");
    }
}

#[test]
fn a_dry_run_on_the_software_path_agrees_and_writes_the_report() {
    let dir = tmp("probe-dry");
    let report = dir.join("dry.json");
    let out = probe(
        &[
            "--software",
            "--arch",
            "cdna3",
            "--builtin",
            "cdna3::f32_32x32x16_fp8_bf8,smfmac_f32_16x16x32_f16",
            "--seeds",
            "1",
            "--out",
            report.to_str().unwrap(),
        ],
        &[],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("probe: gfx942 (software), 292 call sites;"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("ok        cdna3::f32_32x32x16_fp8_bf8 "),
        "{stdout}"
    );
    assert!(
        lines[1].ends_with(" 1 modifier set(s), 13 runs"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("ok        cdna3::smfmac_f32_16x16x32_f16 "),
        "{stdout}"
    );
    assert!(lines[2].contains(" 16 modifier set(s), "), "{stdout}");
    assert!(lines[3].starts_with("probe: 2 builtins: 2 ok, 0 mismatched; 17 call sites, "));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(v["summary"]["ok"], 2);
    assert_eq!(v["device"]["kind"], "software");
    // A builtin of another architecture than the one probed is refused.
    let out = probe(&["--software", "--builtin", "cdna3::f32_32x32x8f16"], &[]);
    let stderr = one_line_and_2(out);
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn on_the_stand_in_runtime_the_launcher_path_runs_and_every_difference_is_reported() {
    let dir = tmp("probe-stand-in");
    let Some(lib) = mfma_hip::stand_in::build(&dir.join("hip")).unwrap() else {
        return;
    };
    let args = "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,d:global_buffer:8";
    let sparse = "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,idx:global_buffer:8,d:global_buffer:8";
    let head = "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles";
    let site =
        |k: &str, b: &str, m: &str, a: &str| format!("site\t{k}\t{b}\tv\t{m}\t{a}\t64\t1,1\t0\t-");
    let manifest = [
        head.to_string(),
        site("mfma_f32_32x32x8f16", "cdna3::f32_32x32x8f16", "-", args),
        site(
            "mfma_f64_4x4x4f64__0_0_5",
            "cdna3::f64_4x4x4f64",
            "neg:[1,0,1]",
            args,
        ),
        site(
            "mfma_smfmac_f32_16x16x32_f16__0_3_0",
            "cdna3::smfmac_f32_16x16x32_f16",
            "abid:3",
            sparse,
        ),
    ]
    .join("\n")
        + "\n";
    mfma_hip::stand_in::write_code_object(&dir, "gfx942", &manifest).unwrap();
    let report = dir.join("report.json");
    let out = probe(
        &["--seeds", "1", "--out", report.to_str().unwrap()],
        &[
            ("MFMA_HIP_LIBRARY", lib.as_os_str()),
            ("MFMA_CODE_OBJECT_DIR", dir.as_os_str()),
            (
                "FAKE_HIP_ARCH",
                std::ffi::OsStr::new("gfx942:sramecc+:xnack-"),
            ),
        ],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("probe: gfx942:sramecc+:xnack- (hip, "),
        "{stdout}"
    );
    assert!(
        lines[0].ends_with("mfma_kernels.hsaco), 3 call sites; 1 numerics run(s) per pattern"),
        "{stdout}"
    );
    // D = C: C's layout runs agree, A's (B selects) do not: A's elements
    // arrive nowhere.
    let f32 = lines[1];
    assert!(
        f32.starts_with("MISMATCH  cdna3::f32_32x32x8f16 no modifiers (mfma_f32_32x32x8f16; "),
        "{f32}"
    );
    assert!(f32.contains("layout (A, B differ; each selects for the others): A: D[0][0][0] = 00000000 on the device, reads as nothing; the software path: 3f800000, A[0][0][0]"), "{f32}");
    // neg [a, c]: the software path gives -C; the stand-in copies C.
    assert!(
        lines[2].contains("neg [a, c] (mfma_f64_4x4x4f64__0_0_5; "),
        "{}",
        lines[2]
    );
    assert!(lines[2].contains("layout (C, A, B differ; each selects for the others): C: D[0][0][0] = 3ff0000000000000 on the device, reads as C[0][0][0]; the software path: bff0000000000000, -C[0][0][0]"), "{}", lines[2]);
    assert!(
        lines[3].contains("abid 3 (mfma_smfmac_f32_16x16x32_f16__0_3_0; "),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("probe: 3 builtins: 0 ok, 3 mismatched; 3 call sites, "),
        "{stdout}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(v["device"]["kind"], "hip");
    assert_eq!(v["device"]["code_object_version"], 5);
    assert_eq!(v["device"]["runtime_version"], 60_342_134);
    let m = &v["builtins"][0]["sites"][0]["first_mismatch"];
    assert_eq!(m["probe"], "layout");
    assert_eq!(m["inputs"]["a"].as_array().unwrap().len(), 32 * 8);
    assert_eq!(m["outputs"]["device"].as_array().unwrap().len(), 32 * 32);
}
