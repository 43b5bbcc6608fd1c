//! `mfma pictures`: the SVG of every builtin and operand.

use crate::error::{Error, Result};
use crate::layout::View;
use crate::list;
use crate::svg;
use crate::text;
use mfma_spec::{Modifiers, Operand};
use std::path::Path;

/// File name of a picture: `NAME-OPERAND.svg`.
pub fn file_name(v: &View) -> String {
    format!("{}-{}.svg", v.builtin.name, v.operand.name())
}

/// Runs `mfma pictures`.
pub fn run(out: &Path) -> Result<()> {
    let shown = out.display();
    std::fs::create_dir_all(out)
        .map_err(|e| Error::new(format!("cannot create `{shown}`: {e}")))?;
    let mut count = 0;
    for builtin in list::all() {
        for operand in Operand::ALL {
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
