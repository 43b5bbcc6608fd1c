//! Writes the kernels of the target this crate is compiled for, and what
//! each must compile to, so that neither the kernel list nor the
//! expectations of `scripts/check-device.sh` restate the tables:
//!
//! * one call-site kernel per builtin of the target's architecture (the
//!   spec's table; SMFMAC ones take the index operand too), a few with
//!   nonzero modifiers, and more call sites of each builtin with other
//!   legal modifier sets (all of them, or a covering sample where there are
//!   many: `mfma_spec::sample_modifiers`), for `mfma probe` on a GPU;
//! * one tutorial GEMM kernel per MFMA policy of `mfma_gemm::catalog` on
//!   that architecture, on the policy's GPU tile (`Entry::gpu`);
//! * behind the `wrong-arch` feature, kernels naming builtins of another
//!   architecture, which must not compile.
//!
//! Into `$OUT_DIR`: `kernels.rs` and `wrong_arch.rs` (included by
//! `src/lib.rs`), `kernels.tsv` (the manifest: one line per kernel, see
//! `MANIFEST_HEADER`) and `wrong_arch.tsv` (`builtin<TAB>message` the build
//! must fail with).

use mfma_gemm::catalog::POLICIES;
use mfma_spec::{sample_modifiers, validate, Arch, BlgpBits, Builtin, Modifiers, Operand, ARCHS};
use std::fmt::Write as _;
use std::path::Path;

/// Call sites with nonzero modifiers (all others use zero), per
/// architecture: each modifier on each block count and element family that
/// allows it, and CDNA3's f64 negation.
const NONZERO: &[(&str, &str, Modifiers)] = &[
    ("cdna2", "f32_32x32x4bf16_1k", Modifiers::new(1, 1, 3)),
    ("cdna2", "f32_16x16x4f16", Modifiers::new(2, 3, 0)),
    ("cdna2", "f32_4x4x1f32", Modifiers::new(4, 15, 7)),
    ("cdna2", "i32_16x16x4i8", Modifiers::new(0, 0, 4)),
    ("cdna3", "f32_32x32x4bf16_1k", Modifiers::new(1, 1, 3)),
    ("cdna3", "f32_16x16x4f16", Modifiers::new(2, 3, 0)),
    ("cdna3", "f32_4x4x1f32", Modifiers::new(4, 15, 7)),
    ("cdna3", "i32_16x16x4i8", Modifiers::new(0, 0, 4)),
    ("cdna3", "f32_16x16x4f32", Modifiers::new(0, 0, 5)),
    ("cdna3", "f64_16x16x4f64", Modifiers::NONE.with_neg(0b101)),
    ("cdna3", "f64_4x4x4f64", Modifiers::NONE.with_neg(0b010)),
    // SMFMAC: abid picks the index set (4 for 16-bit inputs, 2 for 8-bit).
    ("cdna3", "smfmac_f32_16x16x32_f16", Modifiers::new(0, 3, 0)),
    ("cdna3", "smfmac_i32_32x32x32_i8", Modifiers::new(2, 1, 0)),
];

/// The manifest's columns. `args` lists `name:value_kind:size` in order
/// (the code object's `.args`); `workgroup` is threads per (1-D) workgroup;
/// `grid` the workgroups along x and y; `lds` the bytes of dynamic LDS the
/// launch must pass.
const MANIFEST_HEADER: &str =
    "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles";

const SITE_ARGS: &str = "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,d:global_buffer:8";
const SPARSE_SITE_ARGS: &str =
    "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,idx:global_buffer:8,d:global_buffer:8";
const GEMM_ARGS: &str = "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,\
                         m:by_value:8,n:by_value:8,k:by_value:8";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let target = target_cpu();
    let Some(arch) = ARCHS.iter().find(|a| a.targets.contains(&target.as_str())) else {
        panic!(
            "build with RUSTFLAGS=\"-C target-cpu=...\" naming one of {:?} (got {target:?})",
            ARCHS.iter().flat_map(|a| a.targets).collect::<Vec<_>>()
        );
    };
    for (a, name, _) in NONZERO {
        assert!(
            ARCHS.iter().any(|x| x.name == *a && x.find(name).is_some()),
            "{a}::{name} is not a builtin"
        );
    }

    let mut kernels = String::new();
    let mut manifest = String::from(MANIFEST_HEADER);
    manifest.push('\n');
    for b in arch.builtins {
        let plain = site_modifiers(b);
        site(
            b,
            plain,
            &format!("mfma_{}", b.name),
            &mut kernels,
            &mut manifest,
        );
        for m in sample_modifiers(b).filter(|&m| m != plain) {
            let [cbsz, abid, field] = m.immediates(b);
            let kernel = format!("mfma_{}__{cbsz}_{abid}_{field}", b.name);
            site(b, m, &kernel, &mut kernels, &mut manifest);
        }
    }
    for entry in POLICIES {
        let (Some(b), Some(gpu)) = (entry.builtin, entry.gpu) else {
            continue;
        };
        if b.arch != arch.name {
            continue;
        }
        let ((bm, bn), kt, nb) = (gpu.block, gpu.k_tile, gpu.buffers);
        let kernel = format!("gemm_{}", b.name);
        let path = b.path().to_string();
        let threads = gpu.threads(b);
        let lds = gpu.lds_bytes(b.a_type.bits() as usize / 8);
        let tiles = format!("StagedTiles<{bm}, {bn}, {kt}, {nb}>");
        writeln!(
            kernels,
            "/// The tutorial GEMM, `MfmaPolicy<mfma!({path})>` on `{tiles}`: C (m × n) = A (m × k)
/// · B (k × n), row-major, each K strip of A and B^T staged in LDS.
///
/// # Safety
/// Launch `(ceil(n / {bn}), ceil(m / {bm}))` workgroups of {threads} threads (x only)
/// with {lds} bytes of dynamic LDS (also in `{kernel}_lds_bytes`); the pointers hold
/// the three matrices.
#[no_mangle]
pub unsafe extern \"gpu-kernel\" fn {kernel}(
    a: *const c_void,
    b: *const c_void,
    c: *mut c_void,
    m: usize,
    n: usize,
    k: usize,
) {{
    type T = {tiles};
    type P = MfmaPolicy<mfma!({path})>;
    // SAFETY: the launch contract above.
    let problem = unsafe {{ Problem::<In<P>, Out<P>>::from_raw(m, n, k, a.cast(), b.cast(), c.cast()) }};
    let (x, y, _) = workgroup_id();
    // SAFETY: each wave of the grid has its own (x, y, wave) triple, and the
    // launch provides the LDS the tile policy stages into.
    unsafe {{ gemm_wave::<T, P>(&problem, x, y, wave_id()) }};
}}

/// Bytes of dynamic LDS a launch of `{kernel}` must pass, as the kernel
/// computes them (the manifest says the same; the device check compares).
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static {kernel}_lds_bytes: u32 = <{tiles}>::workgroup_mem_bytes::<In<MfmaPolicy<mfma!({path})>>>() as u32;
const _: () = assert!(threads_per_block::<{tiles}, MfmaPolicy<mfma!({path})>>() == {threads});
"
        )
        .unwrap();
        writeln!(
            manifest,
            "gemm\t{kernel}\t{path}\t{isa}\t-\t{GEMM_ARGS}\t{threads}\tceil(n/{bn}),ceil(m/{bm})\t{lds}\t{tiles}",
            isa = b.isa,
        )
        .unwrap();
    }

    let mut wrong = String::new();
    let mut wrong_expected = String::new();
    for (b, message) in wrong_arch_examples(arch, &target) {
        let path = b.path().to_string();
        writeln!(
            wrong,
            "/// Must not compile: `{path}` is not an instruction of {target}.
#[no_mangle]
pub unsafe extern \"gpu-kernel\" fn wrong_arch_{arch}_{name}(
    a: *const c_void,
    b: *const c_void,
    c: *const c_void,
    d: *mut c_void,
) {{
    type X = mfma!({path});
    let (a, b, c) = unsafe {{ (load::<X, A>(a), load::<X, B>(b), load::<X, C>(c)) }};
    unsafe {{ store::<X>(mfma!({path}(a, b, c)), d) }};
}}
",
            arch = b.arch,
            name = b.name,
        )
        .unwrap();
        writeln!(wrong_expected, "{path}\t{message}").unwrap();
    }

    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    std::fs::write(out.join("kernels.rs"), kernels).unwrap();
    std::fs::write(out.join("kernels.tsv"), manifest).unwrap();
    std::fs::write(out.join("wrong_arch.rs"), wrong).unwrap();
    std::fs::write(out.join("wrong_arch.tsv"), wrong_expected).unwrap();
}

/// The modifiers of builtin `b`'s plain call site `mfma_<name>`: those of
/// [`NONZERO`], or none.
fn site_modifiers(b: &Builtin) -> Modifiers {
    NONZERO
        .iter()
        .find(|(a, n, _)| *a == b.arch && *n == b.name)
        .map_or(Modifiers::NONE, |(_, _, m)| *m)
}

/// One call-site kernel `kernel`: loads A, B, C, one `mfma!` with
/// modifiers `m`, stores D.
fn site(
    b: &'static Builtin,
    m: Modifiers,
    kernel: &str,
    kernels: &mut String,
    manifest: &mut String,
) {
    if let Err(e) = validate(b, m) {
        panic!("{}: {e}", b.path());
    }
    let path = b.path().to_string();
    // The modifiers are spelled only when nonzero, as a user would.
    let mut mods = String::new();
    for (name, v) in [("cbsz", m.cbsz), ("abid", m.abid), ("blgp", m.blgp)] {
        if v != 0 {
            write!(mods, ", {name} = {v}").unwrap();
        }
    }
    if m.neg != 0 {
        let ops: Vec<&str> = [Operand::A, Operand::B, Operand::C]
            .into_iter()
            .filter(|&op| m.negates(op))
            .map(Operand::name)
            .collect();
        write!(mods, ", neg = [{}]", ops.join(", ")).unwrap();
    }
    if b.is_sparse() {
        writeln!(
            kernels,
            "/// `{isa}{mods}`: structured-sparse D = A·B + C on matrices of
/// `mfma!({path})`'s element types: A's stored values `[row][kc]`, the index
/// fields `[set][row][group]` (one byte each), B, C and D `[row][col]`.
///
/// # Safety
/// Launch one wave (64 threads); every pointer covers its operand's matrices.
#[no_mangle]
pub unsafe extern \"gpu-kernel\" fn {kernel}(
    a: *const c_void,
    b: *const c_void,
    c: *const c_void,
    idx: *const c_void,
    d: *mut c_void,
) {{
    type X = mfma!({path});
    let (a, b, c) = unsafe {{ (load::<X, A>(a), load::<X, B>(b), load::<X, C>(c)) }};
    let idx = unsafe {{ load::<X, Idx>(idx) }};
    unsafe {{ store::<X>(mfma!({path}(a, b, c, idx{mods})), d) }};
}}
",
            isa = b.isa,
        )
        .unwrap();
    } else {
        writeln!(
            kernels,
            "/// `{isa}{mods}`: D = A·B + C on matrices of `mfma!({path})`'s element
/// types, stored in `[block][row][col]` order.
///
/// # Safety
/// Launch one wave (64 threads); every pointer covers its operand's matrices.
#[no_mangle]
pub unsafe extern \"gpu-kernel\" fn {kernel}(
    a: *const c_void,
    b: *const c_void,
    c: *const c_void,
    d: *mut c_void,
) {{
    type X = mfma!({path});
    let (a, b, c) = unsafe {{ (load::<X, A>(a), load::<X, B>(b), load::<X, C>(c)) }};
    unsafe {{ store::<X>(mfma!({path}(a, b, c{mods})), d) }};
}}
",
            isa = b.isa,
        )
        .unwrap();
    }
    let args = if b.is_sparse() {
        SPARSE_SITE_ARGS
    } else {
        SITE_ARGS
    };
    writeln!(
        manifest,
        "site\t{kernel}\t{path}\t{isa}\t{asm}\t{args}\t64\t1,1\t0\t-",
        isa = b.isa,
        asm = asm_modifiers(b, m),
    )
    .unwrap();
}

/// The modifier text LLVM prints after the operands (`cbsz:1 abid:1
/// blgp:3`, `neg:[1,0,1]`), `-` for none: nonzero fields only, in the
/// order of the encoding, the blgp field as negation flags where the
/// architecture made it so.
fn asm_modifiers(b: &Builtin, m: Modifiers) -> String {
    let [cbsz, abid, field] = m.immediates(b);
    let mut words = Vec::new();
    if cbsz != 0 {
        words.push(format!("cbsz:{cbsz}"));
    }
    if abid != 0 {
        words.push(format!("abid:{abid}"));
    }
    if field != 0 {
        words.push(match b.blgp {
            BlgpBits::Negate => format!(
                "neg:[{},{},{}]",
                field & 1,
                (field >> 1) & 1,
                (field >> 2) & 1
            ),
            BlgpBits::Pattern | BlgpBits::Unused => format!("blgp:{field}"),
        });
    }
    if words.is_empty() {
        "-".into()
    } else {
        words.join(" ")
    }
}

/// For each other architecture, builtins a kernel for `here` must not be
/// able to use, with the message `mfma_core::device::check_target` must
/// stop the build with: one that `here` lacks but has a replacement for,
/// and one that `here` has under the same name as a different instruction.
/// Builtins of the catalog's policies come first (porting the example is
/// where one meets them), then table order.
fn wrong_arch_examples(here: &'static Arch, target: &str) -> Vec<(&'static Builtin, String)> {
    let mut out = Vec::new();
    for other in ARCHS.iter().filter(|a| a.name != here.name) {
        let in_catalog = |b: &Builtin| POLICIES.iter().any(|e| e.builtin == Some(b));
        let mut builtins: Vec<&'static Builtin> = other.builtins.iter().collect();
        builtins.sort_by_key(|b| !in_catalog(b));
        let message = |b: &Builtin| b.wrong_arch(here, target).to_string();
        let lacking = builtins.iter().find_map(|&b| match b.counterpart(here) {
            Some(c) if c.name != b.name => Some((b, message(b))),
            _ => None,
        });
        // A namesake that differs in modifier rules or arithmetic: the
        // case the message must make plain (f32's differ in neither).
        let renamed = builtins.iter().find_map(|&b| match b.counterpart(here) {
            Some(c) if c.name == b.name && b.differs_in(c) != (false, false) => {
                Some((b, message(b)))
            }
            _ => None,
        });
        out.extend(lacking);
        out.extend(renamed);
    }
    out
}

/// The `-C target-cpu` of the flags cargo compiles this crate with, as
/// `mfma-core`'s build script reads it.
fn target_cpu() -> String {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let mut target = String::new();
    let mut args = flags.split('\x1f');
    while let Some(arg) = args.next() {
        let value = match arg {
            "-C" | "--codegen" => args.next().unwrap_or_default(),
            a => a.strip_prefix("-C").unwrap_or(""),
        };
        if let Some(cpu) = value.strip_prefix("target-cpu=") {
            target = cpu.to_string();
        }
    }
    target
}
