//! `mfma pictures`: the SVG of every builtin and operand of the chosen
//! architectures (SMFMAC: also its index operand, `NAME-idx.svg`).

use crate::error::{Error, Result};
use crate::layout::View;
use crate::svg;
use crate::text;
use mfma_spec::{Arch, Modifiers};
use std::path::Path;

/// File name of a picture: `NAME-OPERAND.svg` for the default architecture
/// (as bare names mean it), `ARCH-NAME-OPERAND.svg` for the others, so that
/// a builtin both architectures have gets two files. Neither part contains
/// `-`, so the name splits back unambiguously.
pub fn file_name(v: &View) -> String {
    let arch = mfma_spec::arch_of(v.builtin);
    let prefix = if arch.is_default() {
        String::new()
    } else {
        format!("{}-", arch.name)
    };
    format!("{prefix}{}-{}.svg", v.builtin.name, v.operand.name())
}

/// Runs `mfma pictures` for `archs`.
pub fn run(out: &Path, archs: &[&'static Arch]) -> Result<()> {
    let shown = out.display();
    std::fs::create_dir_all(out)
        .map_err(|e| Error::new(format!("cannot create `{shown}`: {e}")))?;
    let mut count = 0;
    for builtin in archs.iter().flat_map(|a| a.builtins) {
        for &operand in builtin.operands() {
            let v = View {
                builtin,
                operand,
                modifiers: Modifiers::NONE,
            };
            let path = out.join(file_name(&v));
            std::fs::write(&path, svg::render(&v))
                .map_err(|e| Error::new(format!("cannot write `{}`: {e}", path.display())))?;
            count += 1;
        }
    }
    text::emit(&format!("wrote {count} pictures to {shown}\n"))
}
