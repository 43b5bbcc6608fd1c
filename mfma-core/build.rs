//! On the GPU target, tells `mfma-core` which architecture it is compiled
//! for, so that a builtin of another architecture is refused at compile
//! time with the name of the right one (instead of LLVM's "Cannot select",
//! which has no location, or a silently different instruction).
//!
//! The target CPU comes from `-C target-cpu` in the flags cargo passes
//! (RUSTFLAGS or `target.<triple>.rustflags`); its architecture from the
//! spec's tables (`Arch::targets`).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("amdgpu") {
        return;
    }
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let mut target = "";
    let mut args = flags.split('\x1f').peekable();
    while let Some(arg) = args.next() {
        let value = match arg {
            "-C" | "--codegen" => args.next().unwrap_or_default(),
            a => a.strip_prefix("-C").unwrap_or(""),
        };
        if let Some(cpu) = value.strip_prefix("target-cpu=") {
            target = cpu;
        }
    }
    let arch = mfma_spec::ARCHS
        .iter()
        .find(|a| a.targets.contains(&target))
        .map_or("", |a| a.name);
    println!("cargo::rustc-env=MFMA_DEVICE_TARGET={target}");
    println!("cargo::rustc-env=MFMA_DEVICE_ARCH={arch}");
}
