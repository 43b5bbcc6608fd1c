//! Plain-text output helpers: aligned tables and writing to stdout.

use crate::error::{Error, Result};
use std::io::Write;

/// Left-aligned columns separated by two spaces, a dashed rule under the header.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut out = String::new();
        for (n, (cell, w)) in cells.zip(&widths).enumerate() {
            if n > 0 {
                out.push_str("  ");
            }
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        out
    };
    let mut out = line(&mut headers.iter().copied());
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    out.push_str(&line(&mut rule.iter().map(String::as_str)));
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out
}

/// Writes `text` to stdout. A closed pipe (`mfma layout ... | head`) is not an error.
pub fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::new(format!("cannot write output: {e}")))
        }
        _ => Ok(()),
    }
}

/// Pretty JSON followed by a newline.
pub fn json_pretty(value: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("CLI values always serialize");
    s.push('\n');
    s
}

/// Compact JSON on one line followed by a newline.
pub fn json_line(value: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string(value).expect("CLI values always serialize");
    s.push('\n');
    s
}
