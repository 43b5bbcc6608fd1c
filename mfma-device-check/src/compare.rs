//! One kernel's metadata beside another code object's kernel, field by
//! field: how a Rust kernel compares with what clang emits for the
//! equivalent HIP kernel.
//!
//! Fields a launcher or the loader depends on must agree: the target and
//! its features, the explicit arguments (offset, size, kind), their
//! alignment, the wavefront size, the largest workgroup, and the static
//! LDS and scratch sizes. The rest differs legitimately and is shown for
//! information: the code object version, registers (two compilers, two
//! codes), pointer address spaces (`generic` from rustc, `global` from
//! HIP, which qualifies kernel pointers), and the hidden arguments HIP
//! kernels may carry (the runtime fills them).

use crate::codeobj::{ArgMeta, CodeObject, KernelMeta};

/// One compared field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// What it is.
    pub name: String,
    /// Our value.
    pub ours: String,
    /// Theirs.
    pub theirs: String,
    /// Whether a difference is a failure.
    pub must_agree: bool,
}

impl Field {
    /// Whether this field is a failure.
    pub fn mismatch(&self) -> bool {
        self.must_agree && self.ours != self.theirs
    }
}

fn explicit(k: &KernelMeta) -> Vec<&ArgMeta> {
    k.args
        .iter()
        .filter(|a| !a.value_kind.starts_with("hidden_"))
        .collect()
}

fn hidden(k: &KernelMeta) -> String {
    let h: Vec<_> = k
        .args
        .iter()
        .filter(|a| a.value_kind.starts_with("hidden_"))
        .map(|a| a.value_kind.trim_start_matches("hidden_").to_string())
        .collect();
    if h.is_empty() {
        "none".into()
    } else {
        h.join(",")
    }
}

/// Compares kernel `ours` of `a` with kernel `theirs` of `b`.
pub fn compare(
    a: &CodeObject,
    ours: &str,
    b: &CodeObject,
    theirs: &str,
) -> Result<Vec<Field>, String> {
    let ka = a
        .kernel(ours)
        .ok_or(format!("no kernel {ours} in our code object"))?;
    let kb = b
        .kernel(theirs)
        .ok_or(format!("no kernel {theirs} in theirs"))?;
    let mut out = Vec::new();
    let mut field = |name: &str, x: String, y: String, must_agree: bool| {
        out.push(Field {
            name: name.into(),
            ours: x,
            theirs: y,
            must_agree,
        })
    };
    field("target (ELF header)", a.target_id(), b.target_id(), true);
    field(
        "xnack",
        a.xnack().name().into(),
        b.xnack().name().into(),
        true,
    );
    field(
        "sramecc",
        a.sramecc().name().into(),
        b.sramecc().name().into(),
        true,
    );
    field(
        "code object version",
        a.version().to_string(),
        b.version().to_string(),
        false,
    );
    field(
        "amdhsa.target",
        a.metadata.target.clone().unwrap_or_default(),
        b.metadata.target.clone().unwrap_or_default(),
        false,
    );
    let (ea, eb) = (explicit(ka), explicit(kb));
    field(
        "explicit arguments",
        ea.len().to_string(),
        eb.len().to_string(),
        true,
    );
    for i in 0..ea.len().max(eb.len()) {
        let show = |x: Option<&&ArgMeta>| {
            x.map_or("-".into(), |x| {
                format!("offset {} size {} {}", x.offset, x.size, x.value_kind)
            })
        };
        let space = |x: Option<&&ArgMeta>| {
            x.and_then(|x| x.address_space.clone())
                .unwrap_or("-".into())
        };
        field(
            &format!("  arg {i}"),
            show(ea.get(i)),
            show(eb.get(i)),
            true,
        );
        field(
            &format!("  arg {i} address space"),
            space(ea.get(i)),
            space(eb.get(i)),
            false,
        );
    }
    let end = |e: &[&ArgMeta]| {
        e.iter()
            .map(|x| x.offset + x.size)
            .max()
            .unwrap_or(0)
            .to_string()
    };
    field("explicit kernarg bytes", end(&ea), end(&eb), true);
    field("hidden arguments", hidden(ka), hidden(kb), false);
    field(
        ".kernarg_segment_size",
        ka.kernarg_segment_size.to_string(),
        kb.kernarg_segment_size.to_string(),
        false,
    );
    let pairs: [(&str, u32, u32, bool); 9] = [
        (
            ".kernarg_segment_align",
            ka.kernarg_segment_align,
            kb.kernarg_segment_align,
            true,
        ),
        (
            ".wavefront_size",
            ka.wavefront_size,
            kb.wavefront_size,
            true,
        ),
        (
            ".max_flat_workgroup_size",
            ka.max_flat_workgroup_size,
            kb.max_flat_workgroup_size,
            true,
        ),
        (
            ".group_segment_fixed_size",
            ka.group_segment_fixed_size,
            kb.group_segment_fixed_size,
            true,
        ),
        (
            ".private_segment_fixed_size",
            ka.private_segment_fixed_size,
            kb.private_segment_fixed_size,
            true,
        ),
        (".vgpr_count", ka.vgpr_count, kb.vgpr_count, false),
        (".agpr_count", ka.agpr_count, kb.agpr_count, false),
        (".sgpr_count", ka.sgpr_count, kb.sgpr_count, false),
        (
            ".vgpr_spill_count",
            ka.vgpr_spill_count,
            kb.vgpr_spill_count,
            true,
        ),
    ];
    for (name, x, y, must) in pairs {
        field(name, x.to_string(), y.to_string(), must);
    }
    let dynamic = |k: &KernelMeta| k.uses_dynamic_stack.map_or("-".into(), |d| d.to_string());
    field(".uses_dynamic_stack", dynamic(ka), dynamic(kb), false);
    Ok(out)
}

/// The comparison as a table.
pub fn table(fields: &[Field], ours: &str, theirs: &str) -> String {
    let mut s = format!("  {:<28} {:<34} {:<34}\n", "field", ours, theirs);
    for f in fields {
        let mark = if f.mismatch() {
            "MISMATCH"
        } else if f.ours != f.theirs {
            "differs (allowed)"
        } else {
            ""
        };
        s += &format!("  {:<28} {:<34} {:<34} {mark}\n", f.name, f.ours, f.theirs);
    }
    s
}
