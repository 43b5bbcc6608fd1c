//! `mfma-device-check check --target gfx90a --code-object-version 5
//!  --manifest kernels.tsv --asm mfma_kernels.s --code-object mfma_kernels.hsaco`:
//! prints one line per kernel (registers, LDS, occupancy, what the assembly
//! holds) and every violation; exits with 1 if there is one.
//!
//! `mfma-device-check compare OURS.hsaco KERNEL THEIRS.hsaco KERNEL`:
//! one kernel's metadata beside another's, field by field; exits with 1 if
//! a field that must agree differs.
//!
//! `mfma-device-check targets`: the GPU targets of every architecture of
//! the spec, one per line (what `scripts/check-device.sh` builds).

use mfma_device_check::{asm, check, codeobj, compare, manifest};
use std::process::ExitCode;

const USAGE: &str = "usage:
  mfma-device-check check --target GFX --code-object-version N --manifest TSV --asm S --code-object HSACO
  mfma-device-check compare OURS KERNEL THEIRS KERNEL
  mfma-device-check targets";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("check") => run_check(&args[1..]),
        Some("compare") => run_compare(&args[1..]),
        Some("targets") => {
            for a in mfma_spec::ARCHS {
                for t in a.targets {
                    println!("{t}");
                }
            }
            Ok(true)
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("mfma-device-check: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn code_object(path: &str) -> Result<codeobj::CodeObject, String> {
    codeobj::read(&read(path)?).map_err(|e| format!("{path}: {e}"))
}

fn run_check(args: &[String]) -> Result<bool, String> {
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
            .ok_or(format!("missing {name}\n{USAGE}"))
    };
    let target = opt("--target")?;
    let version = opt("--code-object-version")?;
    let (manifest_path, asm_path, co_path) =
        (opt("--manifest")?, opt("--asm")?, opt("--code-object")?);
    let expect = check::Expect {
        target,
        code_object_version: version
            .parse()
            .map_err(|e| format!("--code-object-version {version}: {e}"))?,
        min_gemm_waves: 2,
    };
    let text = |p: &str| String::from_utf8(read(p)?).map_err(|e| format!("{p}: {e}"));
    let kernels =
        manifest::parse(&text(&manifest_path)?).map_err(|e| format!("{manifest_path}: {e}"))?;
    let asm = asm::parse(&text(&asm_path)?);
    let co = code_object(&co_path)?;
    let report = check::check(&expect, &kernels, &asm, &co);
    println!(
        "{}: code object v{}, {}, {} kernels",
        co_path,
        co.version(),
        co.target_id(),
        co.metadata.kernels.len()
    );
    print!("{}", report.table());
    for f in &report.failures {
        println!("  FAIL {f}");
    }
    let count = |kind| kernels.iter().filter(|k| k.kind == kind).count();
    let launcher = launcher(&co_path, &text(&manifest_path)?, kernels.len());
    let problems = report.failures.len() + usize::from(launcher.is_err());
    match &launcher {
        Ok(line) => println!("{line}"),
        Err(e) => println!("  FAIL launcher: {e}"),
    }
    println!(
        "{} call sites and {} GEMM kernels checked; {problems} problem(s)",
        count(manifest::Kind::Site),
        count(manifest::Kind::Gemm),
    );
    Ok(problems == 0)
}

/// What `mfma-hip` makes of the code object and manifest, as a launcher on
/// a GPU would: every kernel found with the arguments it passes, every
/// call site's modifiers legal, every GEMM kernel's LDS symbol equal to the
/// manifest's, and a launch of each planned (arguments packed at the
/// metadata's offsets).
fn launcher(co_path: &str, manifest: &str, kernels: usize) -> Result<String, String> {
    let bytes = read(co_path)?;
    let catalog =
        mfma_hip::Catalog::new(co_path.as_ref(), &bytes, manifest).map_err(|e| e.to_string())?;
    let planned = catalog.sites.len() + catalog.gemms.len();
    if planned != kernels {
        return Err(format!(
            "{planned} of the manifest's {kernels} kernels read"
        ));
    }
    for site in &catalog.sites {
        let pointers: Vec<u64> = (1..=site.operands().len() as u64)
            .map(|p| p << 12)
            .collect();
        catalog
            .site_launch(site, &pointers)
            .map_err(|e| e.to_string())?;
    }
    for gemm in &catalog.gemms {
        catalog
            .gemm_launch(gemm, [1 << 12, 2 << 12, 3 << 12], [256, 256, 256])
            .map_err(|e| e.to_string())?;
    }
    Ok(format!(
        "launcher (mfma-hip): {} call sites and {} GEMM kernels planned for {}",
        catalog.sites.len(),
        catalog.gemms.len(),
        catalog.target
    ))
}

fn run_compare(args: &[String]) -> Result<bool, String> {
    let [ours, ours_kernel, theirs, theirs_kernel] = args else {
        return Err(USAGE.to_string());
    };
    let fields = compare::compare(
        &code_object(ours)?,
        ours_kernel,
        &code_object(theirs)?,
        theirs_kernel,
    )?;
    print!("{}", compare::table(&fields, ours_kernel, theirs_kernel));
    let bad = fields.iter().filter(|f| f.mismatch()).count();
    println!("{bad} field(s) that must agree differ");
    Ok(bad == 0)
}
