//! The checks: every kernel of the manifest against the assembly and the
//! code object, and the code object as a whole against the target.

use crate::asm::{Asm, Function, Item};
use crate::codeobj::{CodeObject, KernelMeta, Setting, ELFOSABI_AMDGPU_HSA, EM_AMDGPU};
use crate::manifest::{Kernel, Kind};
use crate::occupancy::{self, Limiter, Usage};
use std::fmt::Write as _;

/// What the build was asked for.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The processor (`gfx90a`, `gfx942`).
    pub target: String,
    /// The code object version (5 or 6).
    pub code_object_version: u32,
    /// The fewest waves per SIMD a GEMM kernel may fit.
    pub min_gemm_waves: u32,
}

/// Register limits per wave on gfx90a and gfx942.
pub mod limits {
    /// Architectural VGPRs.
    pub const VGPR: u32 = 256;
    /// Accumulation VGPRs.
    pub const AGPR: u32 = 256;
    /// SGPRs: 102 addressable, plus VCC, FLAT_SCRATCH and XNACK_MASK
    /// (2 each), which `.sgpr_count` includes.
    pub const SGPR: u32 = 108;
}

/// One kernel's line of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The kernel.
    pub name: String,
    /// Site or GEMM.
    pub kind: Kind,
    /// `.vgpr_count`.
    pub vgpr: u32,
    /// `.agpr_count`.
    pub agpr: u32,
    /// `.sgpr_count`.
    pub sgpr: u32,
    /// LDS per workgroup (static and dynamic) in bytes.
    pub lds: u32,
    /// Waves per SIMD.
    pub waves: u32,
    /// What limits them.
    pub limiter: Limiter,
    /// What the assembly holds (the instruction, or the K loop's contents).
    pub summary: String,
}

/// The outcome: the table and the violations.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One row per kernel that could be read.
    pub rows: Vec<Row>,
    /// `kernel: what is wrong`, one per violation.
    pub failures: Vec<String>,
}

impl Report {
    fn fail(&mut self, who: &str, what: impl Into<String>) {
        self.failures.push(format!("{who}: {}", what.into()));
    }

    /// The table, one line per kernel, with a header.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "  {:<40} {:<4} {:>4} {:>4} {:>4} {:>6} {:>5} {:<5} assembly",
            "kernel", "kind", "VGPR", "AGPR", "SGPR", "LDS", "waves", "limit"
        );
        for r in &self.rows {
            let kind = match r.kind {
                Kind::Site => "site",
                Kind::Gemm => "gemm",
            };
            let _ = writeln!(
                out,
                "  {:<40} {:<4} {:>4} {:>4} {:>4} {:>6} {:>5} {:<5} {}",
                r.name,
                kind,
                r.vgpr,
                r.agpr,
                r.sgpr,
                r.lds,
                r.waves,
                r.limiter.name(),
                r.summary
            );
        }
        out
    }
}

/// Runs every check.
pub fn check(expect: &Expect, manifest: &[Kernel], asm: &Asm, co: &CodeObject) -> Report {
    let mut r = Report::default();
    code_object(expect, co, &mut r);
    for (line, text) in &asm.stray_mfma {
        r.fail(
            "assembly",
            format!("MFMA outside any function, line {line}: {text}"),
        );
    }
    for k in &co.metadata.kernels {
        if !manifest.iter().any(|m| m.name == k.name) {
            r.fail(
                &k.name,
                "a kernel of the code object that the manifest does not list",
            );
        }
    }
    for f in &asm.functions {
        let expected = manifest.iter().any(|m| m.name == f.name);
        if !expected && f.instrs().any(|x| x.is_mfma()) {
            r.fail(
                &f.name,
                "MFMA in a function that is no kernel of the manifest",
            );
        }
    }
    for k in manifest {
        let summary = match asm.function(&k.name) {
            None => {
                r.fail(&k.name, "not in the assembly");
                String::new()
            }
            Some(f) => assembly(k, f, &mut r),
        };
        let Some(meta) = co.kernel(&k.name) else {
            r.fail(&k.name, "no metadata record in the code object");
            continue;
        };
        let row = metadata(expect, k, meta, co, asm.function(&k.name), summary, &mut r);
        r.rows.push(row);
    }
    r
}

/// The code object as a whole: an HSA code object for the target, of the
/// asked version, with HIP's default target features.
fn code_object(expect: &Expect, co: &CodeObject, r: &mut Report) {
    let who = "code object";
    if co.machine != EM_AMDGPU {
        r.fail(
            who,
            format!("e_machine {}, expected EM_AMDGPU ({EM_AMDGPU})", co.machine),
        );
    }
    if co.os_abi != ELFOSABI_AMDGPU_HSA {
        r.fail(
            who,
            format!(
                "OS/ABI {}, expected AMDGPU_HSA ({ELFOSABI_AMDGPU_HSA})",
                co.os_abi
            ),
        );
    }
    if co.version() != expect.code_object_version {
        r.fail(
            who,
            format!(
                "code object v{} (EI_ABIVERSION {}), expected v{}",
                co.version(),
                co.abi_version,
                expect.code_object_version
            ),
        );
    }
    let want_id = format!("amdgcn-amd-amdhsa--{}", expect.target);
    if co.target_id() != want_id {
        r.fail(
            who,
            format!("target {}, expected {want_id}", co.target_id()),
        );
    }
    // "any" for both: the code object loads whether the GPU runs with xnack
    // or ECC on or off, as HIP's default build does.
    for (name, s) in [("xnack", co.xnack()), ("sramecc", co.sramecc())] {
        if s != Setting::Any {
            r.fail(who, format!("{name} {}, expected any", s.name()));
        }
    }
    if co.metadata.version != [1, 2] {
        r.fail(
            who,
            format!("amdhsa.version {:?}, expected [1, 2]", co.metadata.version),
        );
    }
    // rustc's LLVM spells the (empty) environment of the triple `unknown`
    // where clang leaves it empty; the runtime reads the ELF header, not
    // this string, but the processor and features must agree.
    match &co.metadata.target {
        Some(t)
            if t == &want_id || t == &format!("amdgcn-amd-amdhsa-unknown-{}", expect.target) => {}
        t => r.fail(who, format!("amdhsa.target {t:?}, expected {want_id}")),
    }
}

/// The assembly of one kernel; returns its summary for the table.
fn assembly(k: &Kernel, f: &Function, r: &mut Report) -> String {
    let who = k.name.as_str();
    let mfma: Vec<_> = f.instrs().filter(|x| x.is_mfma()).collect();
    for x in &mfma {
        if x.mnemonic != k.mnemonic {
            r.fail(
                who,
                format!("line {}: {}, expected {}", x.line, x.mnemonic, k.mnemonic),
            );
        }
        if x.mnemonic.starts_with("v_smfmac") && !x.index_in_a_vgpr() {
            r.fail(
                who,
                format!(
                    "line {}: an SMFMAC whose index is not one VGPR after C: {}",
                    x.line, x.text
                ),
            );
        }
        if x.modifiers() != k.modifiers {
            r.fail(
                who,
                format!(
                    "line {}: modifiers `{}`, expected `{}`: {}",
                    x.line,
                    x.modifiers(),
                    k.modifiers,
                    x.text
                ),
            );
        }
    }
    for x in f.instrs() {
        let m = x.mnemonic.as_str();
        if m.starts_with("scratch_") || m.starts_with("buffer_") {
            r.fail(who, format!("line {}: scratch memory: {}", x.line, x.text));
        }
        if m.starts_with("flat_") {
            r.fail(
                who,
                format!(
                    "line {}: a flat access (a pointer lost its address space): {}",
                    x.line, x.text
                ),
            );
        }
        if m == "s_swappc_b64" || m == "s_setpc_b64" || m == "s_call_b64" {
            r.fail(
                who,
                format!("line {}: a call (calls need a stack): {}", x.line, x.text),
            );
        }
    }
    // Every barrier is a __syncthreads(): LDS accesses drained first.
    let barriers = f.barriers();
    for &b in &barriers {
        if !f.barrier_waited(b) {
            let line = match &f.body[b] {
                Item::Instr(x, _) => x.line,
                Item::Label(_) => 0,
            };
            r.fail(
                who,
                format!("line {line}: s_barrier without s_waitcnt lgkmcnt(0) right before it"),
            );
        }
    }
    match k.kind {
        Kind::Site => {
            if mfma.len() != 1 {
                r.fail(
                    who,
                    format!("{} MFMA instructions, expected exactly one", mfma.len()),
                );
            }
            mfma.first().map_or_else(String::new, |x| x.text.clone())
        }
        Kind::Gemm => gemm_loop(k, f, r),
    }
}

/// A GEMM kernel's K loop: an outermost loop holding an MFMA that also
/// stages through LDS (`ds_write*`), reads LDS (`ds_read*`), waits at a
/// barrier preceded by `s_waitcnt lgkmcnt(0)`, and goes round. (Copies of
/// the MFMA outside it, from an iteration the compiler peeled off, are
/// allowed and counted.)
fn gemm_loop(k: &Kernel, f: &Function, r: &mut Report) -> String {
    let who = k.name.as_str();
    let mut headers: Vec<String> = f
        .body
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Item::Instr(x, _) if x.is_mfma()))
        .filter_map(|(i, _)| f.outermost_loop(i))
        .collect();
    headers.sort();
    headers.dedup();
    let mfma_total = f.instrs().filter(|x| x.is_mfma()).count();
    if mfma_total == 0 {
        r.fail(who, "no MFMA instruction");
        return String::new();
    }
    // Of the loops holding an MFMA, the one that lacks the least.
    let mut best: Option<(Vec<&str>, String)> = None;
    for header in &headers {
        let xs: Vec<_> = f.loop_instrs(header).collect();
        let mfma = xs.iter().filter(|(_, x)| x.is_mfma()).count();
        let reads = xs.iter().filter(|(_, x)| x.is_lds_read()).count();
        let writes = xs.iter().filter(|(_, x)| x.is_lds_write()).count();
        let barriers = xs
            .iter()
            .filter(|(i, x)| x.mnemonic == "s_barrier" && f.barrier_waited(*i))
            .count();
        let mut missing = Vec::new();
        if reads == 0 {
            missing.push("LDS reads (ds_read*)");
        }
        if writes == 0 {
            missing.push("LDS writes (ds_write*)");
        }
        if barriers == 0 {
            missing.push("a barrier (s_waitcnt lgkmcnt(0); s_barrier)");
        }
        if !f.cycles(header) {
            missing.push("a way back to its header");
        }
        let outside = mfma_total - mfma;
        let summary =
            format!(
            "{} x{mfma}{}, {reads} ds_read, {writes} ds_write, {barriers} barrier(s) in the K loop",
            k.mnemonic,
            if outside > 0 { format!(" (+{outside} outside)") } else { String::new() },
        );
        if best.as_ref().is_none_or(|(m, _)| missing.len() < m.len()) {
            best = Some((missing, summary));
        }
    }
    match best {
        None => {
            r.fail(who, format!("{} is not inside a loop", k.mnemonic));
            String::new()
        }
        Some((missing, summary)) => {
            if !missing.is_empty() {
                r.fail(
                    who,
                    format!(
                        "no K loop: the loops holding {} lack {}",
                        k.mnemonic,
                        missing.join(", ")
                    ),
                );
            }
            summary
        }
    }
}

/// One kernel's metadata and descriptor; returns its row of the table.
fn metadata(
    expect: &Expect,
    k: &Kernel,
    m: &KernelMeta,
    co: &CodeObject,
    f: Option<&Function>,
    summary: String,
    r: &mut Report,
) -> Row {
    let who = k.name.as_str();
    if m.wavefront_size != 64 {
        r.fail(
            who,
            format!("wavefront size {}, expected 64", m.wavefront_size),
        );
    }
    // Arguments: the Rust signature's, in order, naturally aligned, and
    // nothing hidden (the kernels read no implicit arguments).
    let mut offset = 0;
    for (i, a) in k.args.iter().enumerate() {
        offset = u32::next_multiple_of(offset, a.size.max(1));
        match m.args.get(i) {
            None => r.fail(
                who,
                format!("argument {} (`{}`) missing from .args", i, a.name),
            ),
            Some(g) => {
                if (g.offset, g.size, g.value_kind.as_str())
                    != (offset, a.size, a.value_kind.as_str())
                {
                    r.fail(
                        who,
                        format!(
                            "argument {i} (`{}`): offset {} size {} {}, expected offset {offset} size {} {}",
                            a.name, g.offset, g.size, g.value_kind, a.size, a.value_kind
                        ),
                    );
                }
            }
        }
        offset += a.size;
    }
    for g in m.args.iter().skip(k.args.len()) {
        r.fail(
            who,
            format!(
                "unexpected argument at offset {}: {} bytes {}",
                g.offset, g.size, g.value_kind
            ),
        );
    }
    if m.kernarg_segment_size != offset {
        r.fail(
            who,
            format!(
                "kernarg segment {} bytes, expected {offset}",
                m.kernarg_segment_size
            ),
        );
    }
    // No scratch: no private segment, no dynamic stack, no spills.
    if m.private_segment_fixed_size != 0 {
        r.fail(
            who,
            format!(
                "private segment {} bytes (scratch), expected 0",
                m.private_segment_fixed_size
            ),
        );
    }
    match m.uses_dynamic_stack {
        Some(false) => {}
        Some(true) => r.fail(
            who,
            "uses a dynamic stack (a call, or a panic path not compiled as a trap)",
        ),
        None => r.fail(who, ".uses_dynamic_stack missing from the metadata"),
    }
    if m.vgpr_spill_count + m.sgpr_spill_count != 0 {
        r.fail(
            who,
            format!(
                "spills {} VGPRs and {} SGPRs",
                m.vgpr_spill_count, m.sgpr_spill_count
            ),
        );
    }
    match co.descriptors.get(&m.symbol) {
        None => r.fail(who, format!("no kernel descriptor {}", m.symbol)),
        Some(d) => {
            if m.symbol != format!("{}.kd", k.name) {
                r.fail(
                    who,
                    format!("descriptor symbol {}, expected {}.kd", m.symbol, k.name),
                );
            }
            if (
                d.group_segment_fixed_size,
                d.private_segment_fixed_size,
                d.kernarg_size,
            ) != (
                m.group_segment_fixed_size,
                m.private_segment_fixed_size,
                m.kernarg_segment_size,
            ) {
                r.fail(who, format!("descriptor {d:?} disagrees with the metadata"));
            }
            if d.enables_scratch() {
                r.fail(who, "the descriptor enables the private segment (scratch)");
            }
            if d.uses_dynamic_stack() {
                r.fail(who, "the descriptor says it uses a dynamic stack");
            }
        }
    }
    // Registers within the target's.
    if m.vgpr_count > limits::VGPR || m.agpr_count > limits::AGPR {
        r.fail(
            who,
            format!(
                "{} VGPRs and {} AGPRs exceed {} each",
                m.vgpr_count,
                m.agpr_count,
                limits::VGPR
            ),
        );
    }
    if occupancy::unified_vgprs(m.vgpr_count, m.agpr_count) > occupancy::VGPR_FILE {
        r.fail(
            who,
            format!(
                "VGPRs and AGPRs exceed the file of {}",
                occupancy::VGPR_FILE
            ),
        );
    }
    if m.sgpr_count > limits::SGPR {
        r.fail(
            who,
            format!("{} SGPRs exceed {}", m.sgpr_count, limits::SGPR),
        );
    }
    // LDS: none static (Rust cannot declare it); the dynamic bytes are the
    // manifest's, which the kernel's own exported value must agree with.
    if m.group_segment_fixed_size != 0 {
        r.fail(
            who,
            format!(
                "{} bytes of static LDS, expected none",
                m.group_segment_fixed_size
            ),
        );
    }
    if k.kind == Kind::Gemm {
        let symbol = format!("{}_lds_bytes", k.name);
        match co.words.get(&symbol) {
            None => r.fail(
                who,
                format!("no symbol {symbol} giving the dynamic LDS bytes"),
            ),
            Some(&v) if v != k.lds => r.fail(
                who,
                format!("{symbol} = {v}, but the manifest says {}", k.lds),
            ),
            Some(_) => {}
        }
    }
    if m.max_flat_workgroup_size < k.workgroup {
        r.fail(
            who,
            format!(
                "launched with {} threads, but at most {} allowed",
                k.workgroup, m.max_flat_workgroup_size
            ),
        );
    }
    // Occupancy.
    let lds = m.group_segment_fixed_size + k.lds;
    let usage = Usage {
        vgpr: m.vgpr_count,
        agpr: m.agpr_count,
        sgpr: m.sgpr_count,
        workgroup: k.workgroup,
        lds,
    };
    let (waves, limiter) = occupancy::waves(usage);
    if waves == 0 {
        r.fail(
            who,
            format!(
                "{lds} bytes of LDS exceed the compute unit's {}",
                occupancy::LDS_PER_CU
            ),
        );
    }
    if k.kind == Kind::Gemm && waves < expect.min_gemm_waves {
        r.fail(
            who,
            format!(
                "{waves} wave(s) per SIMD ({} limits), expected at least {}",
                limiter.name(),
                expect.min_gemm_waves
            ),
        );
    }
    // The register part must be what LLVM computed for the same kernel:
    // a check of these rules on every kernel.
    if let Some(llvm) = f.and_then(|f| f.llvm_occupancy) {
        let (regs, _) = occupancy::by_registers(usage);
        if regs != llvm {
            r.fail(
                who,
                format!("registers allow {regs} waves per SIMD by these rules, {llvm} by LLVM's"),
            );
        }
    }
    Row {
        name: k.name.clone(),
        kind: k.kind,
        vgpr: m.vgpr_count,
        agpr: m.agpr_count,
        sgpr: m.sgpr_count,
        lds,
        waves,
        limiter,
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::tests::GEMM;
    use crate::codeobj::{ArgMeta, Descriptor, Metadata};
    use crate::manifest::Arg;

    fn expect() -> Expect {
        Expect {
            target: "gfx90a".into(),
            code_object_version: 5,
            min_gemm_waves: 2,
        }
    }

    /// The manifest line of the kernel `k` of [`GEMM`]: (a, m) arguments.
    fn kernel() -> Kernel {
        Kernel {
            kind: Kind::Gemm,
            name: "k".into(),
            builtin: "f32_32x32x2f32".into(),
            mnemonic: "v_mfma_f32_32x32x2f32".into(),
            modifiers: String::new(),
            args: vec![
                Arg {
                    name: "a".into(),
                    value_kind: "global_buffer".into(),
                    size: 8,
                },
                Arg {
                    name: "m".into(),
                    value_kind: "by_value".into(),
                    size: 8,
                },
            ],
            workgroup: 256,
            grid: "1,1".into(),
            lds: 8192,
            tiles: "StagedTiles<64, 64, 8, 2>".into(),
        }
    }

    /// A code object that agrees with [`kernel`] in every respect.
    fn code_object() -> CodeObject {
        let arg = |offset, kind: &str| ArgMeta {
            offset,
            size: 8,
            value_kind: kind.into(),
            address_space: None,
        };
        CodeObject {
            machine: EM_AMDGPU,
            os_abi: ELFOSABI_AMDGPU_HSA,
            abi_version: 3,
            flags: 0x53f,
            metadata: Metadata {
                version: vec![1, 2],
                target: Some("amdgcn-amd-amdhsa--gfx90a".into()),
                kernels: vec![KernelMeta {
                    name: "k".into(),
                    symbol: "k.kd".into(),
                    kernarg_segment_size: 16,
                    kernarg_segment_align: 8,
                    args: vec![arg(0, "global_buffer"), arg(8, "by_value")],
                    uses_dynamic_stack: Some(false),
                    vgpr_count: 50,
                    sgpr_count: 60,
                    wavefront_size: 64,
                    max_flat_workgroup_size: 1024,
                    ..KernelMeta::default()
                }],
            },
            descriptors: [(
                "k.kd".to_string(),
                Descriptor {
                    kernarg_size: 16,
                    ..Descriptor::default()
                },
            )]
            .into(),
            words: [("k_lds_bytes".to_string(), 8192)].into(),
        }
    }

    fn failures(k: &Kernel, asm: &str, co: &CodeObject) -> Vec<String> {
        check(
            &expect(),
            std::slice::from_ref(k),
            &crate::asm::parse(asm),
            co,
        )
        .failures
    }

    fn fails_with(k: &Kernel, asm: &str, co: &CodeObject, what: &str) {
        let f = failures(k, asm, co);
        assert!(f.iter().any(|x| x.contains(what)), "no `{what}` in {f:#?}");
    }

    #[test]
    fn a_kernel_as_expected_passes() {
        assert_eq!(
            failures(&kernel(), GEMM, &code_object()),
            Vec::<String>::new()
        );
        let r = check(
            &expect(),
            &[kernel()],
            &crate::asm::parse(GEMM),
            &code_object(),
        );
        // 50 VGPRs allow 8 waves; 8 KiB of LDS per 4-wave workgroup too.
        assert_eq!((r.rows[0].waves, r.rows[0].lds), (8, 8192));
    }

    #[test]
    fn scratch_in_any_form_fails() {
        let mut co = code_object();
        co.metadata.kernels[0].uses_dynamic_stack = Some(true);
        fails_with(&kernel(), GEMM, &co, "dynamic stack");
        let mut co = code_object();
        co.metadata.kernels[0].private_segment_fixed_size = 16;
        fails_with(&kernel(), GEMM, &co, "private segment 16 bytes");
        let mut co = code_object();
        co.descriptors.get_mut("k.kd").unwrap().rsrc2 = 1;
        fails_with(&kernel(), GEMM, &co, "enables the private segment");
        let spill = GEMM.replace(
            "\ts_endpgm",
            "\tscratch_store_dword off, v1, off\n\ts_endpgm",
        );
        fails_with(&kernel(), &spill, &code_object(), "scratch memory");
        let call = GEMM.replace("\ts_endpgm", "\ts_swappc_b64 s[30:31], s[4:5]\n\ts_endpgm");
        fails_with(&kernel(), &call, &code_object(), "a call");
    }

    #[test]
    fn a_k_loop_without_its_barrier_or_staging_fails() {
        let k = kernel();
        let no_wait = GEMM.replace("\ts_waitcnt lgkmcnt(0)\n\ts_barrier", "\ts_barrier");
        fails_with(
            &k,
            &no_wait,
            &code_object(),
            "s_barrier without s_waitcnt lgkmcnt(0)",
        );
        let no_barrier = GEMM.replace("\ts_barrier\n", "");
        fails_with(&k, &no_barrier, &code_object(), "lack a barrier");
        let no_write = GEMM.replace("\tds_write_b32 v4, v1 offset:8192\n", "");
        fails_with(&k, &no_write, &code_object(), "lack LDS writes");
        let no_loop = GEMM.replace("\ts_cbranch_scc1 .LBB0_1\n", "\ts_endpgm\n");
        fails_with(&k, &no_loop, &code_object(), "a way back to its header");
        let other = GEMM.replace("v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x1f32");
        fails_with(&k, &other, &code_object(), "expected v_mfma_f32_32x32x2f32");
    }

    #[test]
    fn metadata_that_disagrees_with_the_signature_fails() {
        let mut co = code_object();
        co.metadata.kernels[0].args[1].size = 4;
        co.metadata.kernels[0].kernarg_segment_size = 12;
        fails_with(&kernel(), GEMM, &co, "argument 1 (`m`)");
        fails_with(
            &kernel(),
            GEMM,
            &co,
            "kernarg segment 12 bytes, expected 16",
        );
        let mut co = code_object();
        co.metadata.kernels[0].args.push(ArgMeta {
            offset: 16,
            size: 8,
            value_kind: "hidden_block_count_x".into(),
            address_space: None,
        });
        fails_with(&kernel(), GEMM, &co, "unexpected argument at offset 16");
        let mut co = code_object();
        co.metadata.kernels[0].wavefront_size = 32;
        fails_with(&kernel(), GEMM, &co, "wavefront size 32");
    }

    #[test]
    fn the_target_and_its_features_are_checked() {
        let mut co = code_object();
        co.flags = 0x34c; // gfx942, xnack on
        fails_with(
            &kernel(),
            GEMM,
            &co,
            "target amdgcn-amd-amdhsa--gfx942:xnack+",
        );
        fails_with(&kernel(), GEMM, &co, "xnack on, expected any");
        let mut co = code_object();
        co.abi_version = 4;
        fails_with(
            &kernel(),
            GEMM,
            &co,
            "code object v6 (EI_ABIVERSION 4), expected v5",
        );
    }

    #[test]
    fn lds_must_be_the_manifests_and_leave_two_waves() {
        let mut co = code_object();
        co.words.insert("k_lds_bytes".into(), 4096);
        fails_with(
            &kernel(),
            GEMM,
            &co,
            "k_lds_bytes = 4096, but the manifest says 8192",
        );
        // 40 KiB: one workgroup of 4 waves per CU, one wave per SIMD.
        let mut k = kernel();
        k.lds = 40960;
        let mut co = code_object();
        co.words.insert("k_lds_bytes".into(), 40960);
        fails_with(
            &k,
            GEMM,
            &co,
            "1 wave(s) per SIMD (LDS limits), expected at least 2",
        );
        let mut co = code_object();
        co.metadata.kernels[0].group_segment_fixed_size = 256;
        co.descriptors
            .get_mut("k.kd")
            .unwrap()
            .group_segment_fixed_size = 256;
        fails_with(&kernel(), GEMM, &co, "256 bytes of static LDS");
    }

    #[test]
    fn occupancy_by_registers_must_be_llvms() {
        // GEMM's "; Occupancy: 8" against 130 VGPRs, which allow 3.
        let mut co = code_object();
        co.metadata.kernels[0].vgpr_count = 130;
        fails_with(
            &kernel(),
            GEMM,
            &co,
            "registers allow 3 waves per SIMD by these rules, 8 by LLVM's",
        );
    }

    /// A call site `name` of `mnemonic` with `modifiers` and no arguments,
    /// and a code object holding it alone.
    fn bare_site(name: &str, mnemonic: &str, modifiers: &str) -> (Kernel, CodeObject) {
        let k = Kernel {
            kind: Kind::Site,
            name: name.into(),
            mnemonic: mnemonic.into(),
            modifiers: modifiers.into(),
            args: vec![],
            lds: 0,
            workgroup: 64,
            ..kernel()
        };
        let mut co = code_object();
        let meta = &mut co.metadata.kernels[0];
        let symbol = format!("{name}.kd");
        (meta.name, meta.symbol, meta.args, meta.kernarg_segment_size) =
            (name.into(), symbol.clone(), vec![], 0);
        co.descriptors = [(symbol, Descriptor::default())].into();
        (k, co)
    }

    #[test]
    fn a_call_site_has_exactly_its_instruction_and_modifiers() {
        let site = "\t.type\tmfma_x,@function
mfma_x:
\tv_mfma_i32_16x16x4i8 v[0:15], v24, v18, v[0:15] blgp:4
\ts_endpgm
.Lfunc_end0:
";
        let (k, co) = bare_site("mfma_x", "v_mfma_i32_16x16x4i8", "blgp:4");
        assert_eq!(failures(&k, site, &co), Vec::<String>::new());
        let other = Kernel {
            modifiers: "cbsz:1 blgp:4".into(),
            ..k.clone()
        };
        fails_with(
            &other,
            site,
            &co,
            "modifiers `blgp:4`, expected `cbsz:1 blgp:4`",
        );
        let twice = site.replace(
            "\ts_endpgm",
            "\tv_mfma_i32_16x16x4i8 v[0:15], v24, v18, v[0:15] blgp:4\n\ts_endpgm",
        );
        fails_with(&k, &twice, &co, "2 MFMA instructions, expected exactly one");
    }

    #[test]
    fn an_smfmac_reads_its_index_from_a_vgpr() {
        let site = "\t.type\tmfma_s,@function
mfma_s:
\tv_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 abid:3
\ts_endpgm
.Lfunc_end0:
";
        let (k, co) = bare_site("mfma_s", "v_smfmac_f32_16x16x32_f16", "abid:3");
        assert_eq!(failures(&k, site, &co), Vec::<String>::new());
        let immediate = site.replace(", v10 ", ", 5 ");
        fails_with(
            &k,
            &immediate,
            &co,
            "an SMFMAC whose index is not one VGPR after C",
        );
    }
}
