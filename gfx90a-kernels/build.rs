//! Writes one kernel per builtin of the spec table, one tutorial GEMM kernel
//! per MFMA compute policy, and the instruction each must compile to, so
//! that neither the kernel list nor the expectations of
//! scripts/check-gfx90a.sh restate the table.
//!
//! `$OUT_DIR/kernels.rs` is included by `src/lib.rs`; `$OUT_DIR/expected.tsv`
//! holds tab-separated `kind kernel mnemonic cbsz abid blgp` lines for the
//! script (`kind` is `site` or `gemm`).

use mfma_spec::{cdna2, validate, Modifiers};
use std::fmt::Write as _;
use std::path::Path;

/// Call sites with nonzero modifiers (all others use zero), chosen to cover
/// each modifier on each block count and element family that allows it.
const NONZERO: &[(&str, [i64; 3])] = &[
    ("f32_32x32x4bf16_1k", [1, 1, 3]),
    ("f32_16x16x4f16", [2, 3, 0]),
    ("f32_4x4x1f32", [4, 15, 7]),
    ("i32_16x16x4i8", [0, 0, 4]),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for (name, _) in NONZERO {
        assert!(
            cdna2::BUILTINS.iter().any(|b| b.name == *name),
            "{name} is not a CDNA2 builtin"
        );
    }
    let mut kernels = String::new();
    let mut expected = String::new();
    for b in cdna2::BUILTINS {
        let [cbsz, abid, blgp] = NONZERO
            .iter()
            .find(|(n, _)| *n == b.name)
            .map_or([0; 3], |(_, m)| *m);
        if let Err(e) = validate(b, Modifiers::new(cbsz, abid, blgp)) {
            panic!("{}: {e}", b.name);
        }
        let name = b.name;
        let kernel = format!("mfma_{name}");
        // The modifiers are spelled only when nonzero, as a user would.
        let mods: String = [("cbsz", cbsz), ("abid", abid), ("blgp", blgp)]
            .iter()
            .filter(|(_, v)| *v != 0)
            .map(|(m, v)| format!(", {m} = {v}"))
            .collect();
        writeln!(
            kernels,
            "/// `{isa}{mods}`: D = A·B + C on matrices of `mfma!({name})`'s element
/// types, stored in `[block][row][col]` order.
///
/// # Safety
/// Launch with whole waves; every pointer covers its operand's matrices.
#[no_mangle]
pub unsafe extern \"gpu-kernel\" fn {kernel}(
    a: *const c_void,
    b: *const c_void,
    c: *const c_void,
    d: *mut c_void,
) {{
    type X = mfma!({name});
    let (a, b, c) = unsafe {{ (load::<X, A>(a), load::<X, B>(b), load::<X, C>(c)) }};
    unsafe {{ store::<X>(mfma!({name}(a, b, c{mods})), d) }};
}}
",
            isa = b.isa,
        )
        .unwrap();
        writeln!(
            expected,
            "site\t{kernel}\t{}\t{cbsz}\t{abid}\t{blgp}",
            b.isa
        )
        .unwrap();
    }
    // The GEMM kernels are the example's MFMA policies, with their block
    // tiles, read from the catalog (host-only, which a build script is) so
    // that the device check follows whatever the example runs.
    for entry in mfma_gemm::catalog::POLICIES {
        let Some(b) = entry.builtin else { continue };
        let (name, (bm, bn), kt) = (b.name, entry.block, entry.k_tile);
        let kernel = format!("gemm_{name}");
        writeln!(
            kernels,
            "/// The tutorial GEMM, `MfmaPolicy<mfma!({name})>` on `GlobalTiles<{bm}, {bn}, {kt}>`:
/// C (m × n) = A (m × k) · B (k × n), row-major.
///
/// # Safety
/// Launch a `grid::<T>(m, n)` grid of `threads_per_block::<T, P>()`-item
/// one-dimensional workgroups; the pointers hold the three matrices.
#[no_mangle]
pub unsafe extern \"gpu-kernel\" fn {kernel}(
    a: *const c_void,
    b: *const c_void,
    c: *mut c_void,
    m: usize,
    n: usize,
    k: usize,
) {{
    type T = GlobalTiles<{bm}, {bn}, {kt}>;
    type P = MfmaPolicy<mfma!({name})>;
    // SAFETY: the launch contract above.
    let problem = unsafe {{ Problem::<In<P>, Out<P>>::from_raw(m, n, k, a.cast(), b.cast(), c.cast()) }};
    let (x, y, _) = workgroup_id();
    // SAFETY: each wave of the grid has its own (x, y, wave) triple.
    unsafe {{ gemm_wave::<T, P>(&problem, x, y, wave_id()) }};
}}
"
        )
        .unwrap();
        writeln!(expected, "gemm\t{kernel}\t{}\t0\t0\t0", b.isa).unwrap();
    }
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    std::fs::write(out.join("kernels.rs"), kernels).unwrap();
    std::fs::write(out.join("expected.tsv"), expected).unwrap();
}
