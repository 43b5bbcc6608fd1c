//! The `matrix_multiply` example's `--sweep`: its closing lines, which
//! scripts and the README's tables read, and its ceiling.

/// `key=value` fields of a closing line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
}

#[test]
fn a_sweep_ends_with_the_scaling_and_the_ceiling_of_every_count() {
    let Some(bin) = crate::example() else { return };
    let out = std::process::Command::new(bin)
        .args([
            "--sweep",
            "1,2",
            "--size",
            "64",
            "--policy",
            "f32_32x32x2f32",
        ])
        .args(["--budget", "0", "--reps", "1", "--warmup", "0"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for kind in ["scaling", "ceiling"] {
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with(&format!("{kind} dtype=f32 ")))
            .collect();
        let threads: Vec<&str> = lines.iter().map(|l| field(l, "threads")).collect();
        assert_eq!(threads, ["1", "2"], "{stdout}");
        let speedup = if kind == "scaling" {
            "speedup"
        } else {
            "copies_speedup"
        };
        assert_eq!(field(lines[0], speedup), "1.00", "{stdout}");
        let rate = if kind == "scaling" {
            "emulated_gflops"
        } else {
            "copies_gflops"
        };
        for line in lines {
            let r: f64 = field(line, rate).parse().unwrap();
            assert!(r.is_finite() && r > 0.0, "{line}");
        }
    }
    // Both counts gave one thread's bits.
    assert!(!stdout.contains(" NO\n"), "{stdout}");
}
