//! The manifest `mfma-kernels/build.rs` writes beside the kernels it
//! generates (`kernels.tsv`): what each kernel is, takes and must compile
//! to. [`Catalog`](crate::Catalog) plans launches from it, and
//! `mfma-device-check` compares the compiler's output with it; both read
//! it through [`rows`], so that they agree on its format.

use std::fmt;

/// What a kernel is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One `mfma!` call: exactly one instruction with the given modifiers.
    Site,
    /// The tutorial GEMM: the instruction in the K loop, staging through LDS.
    Gemm,
}

/// One argument as the code object's metadata describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The Rust parameter (the metadata does not carry it; for messages).
    pub name: String,
    /// `.value_kind`: `global_buffer` for pointers, `by_value` otherwise.
    pub value_kind: String,
    /// `.size` in bytes.
    pub size: u32,
}

/// One line of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Site or GEMM.
    pub kind: Kind,
    /// The symbol (`#[no_mangle]`).
    pub name: String,
    /// The builtin as written in `mfma!` (`cdna3::f64_16x16x4f64`).
    pub builtin: String,
    /// The ISA mnemonic every MFMA instruction of the kernel must have.
    pub mnemonic: String,
    /// The exact modifier text after the operands (`cbsz:1 abid:1`,
    /// `neg:[1,0,1]`), empty for none.
    pub modifiers: String,
    /// The parameters, in order.
    pub args: Vec<Arg>,
    /// Threads per workgroup the launch uses (x only).
    pub workgroup: u32,
    /// Workgroups of the grid, as a formula for the launcher.
    pub grid: String,
    /// Bytes of dynamic LDS the launch must pass.
    pub lds: u32,
    /// The tile policy of a GEMM kernel (`-` for a site).
    pub tiles: String,
}

/// A line of the manifest that cannot be read.
#[derive(Debug)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "manifest line {}: {}", self.line, self.what)
    }
}

impl std::error::Error for ParseError {}

/// The columns, as the first line names them.
pub const COLUMNS: [&str; 10] = [
    "kind",
    "kernel",
    "builtin",
    "mnemonic",
    "modifiers",
    "args",
    "workgroup",
    "grid",
    "lds",
    "tiles",
];

/// The lines of a manifest after its header line, each split at its tabs
/// into the [`COLUMNS`], with its 1-based number; empty lines are skipped.
/// Each line is split as it is reached, so that a reader that checks a
/// line's meaning before the next is read reports the first bad line.
///
/// ```
/// use mfma_hip::manifest::{rows, COLUMNS};
/// let text = format!("{}\nsite\tk\tb\tm\t-\ta:global_buffer:8\t64\t1,1\t0\t-\n\nsite\tk2\n", COLUMNS.join("\t"));
/// let mut lines = rows(&text).unwrap();
/// let (line, [kind, kernel, ..]) = lines.next().unwrap().unwrap();
/// assert_eq!((line, kind, kernel), (2, "site", "k"));
/// let e = lines.next().unwrap().unwrap_err();
/// assert_eq!(e.to_string(), "manifest line 4: 2 fields, expected 10");
/// assert!(matches!(rows("kernel\tbuiltin\n"), Err(e) if e.line == 1));
/// ```
///
/// # Errors
/// A [`ParseError`] of line 1 when the header is not the [`COLUMNS`]
/// (another manifest format); the iterator's items, one for a line of
/// another number of fields.
pub fn rows(
    text: &str,
) -> Result<impl Iterator<Item = Result<(usize, [&str; 10]), ParseError>>, ParseError> {
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines
        .next()
        .map(|(_, l)| l.split('\t').collect())
        .unwrap_or_default();
    if header != COLUMNS {
        return Err(ParseError {
            line: 1,
            what: format!("expected the header {COLUMNS:?}, found {header:?}"),
        });
    }
    Ok(lines.filter(|(_, line)| !line.is_empty()).map(|(i, line)| {
        let f: Vec<&str> = line.split('\t').collect();
        let fields = f[..].try_into().map_err(|_| ParseError {
            line: i + 1,
            what: format!("{} fields, expected {}", f.len(), COLUMNS.len()),
        })?;
        Ok((i + 1, fields))
    }))
}

/// Reads a manifest: a header line, then one tab-separated line per kernel.
///
/// ```
/// let text = "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles\n\
///             site\tmfma_x\tx\tv_mfma_x\tblgp:4\ta:global_buffer:8,n:by_value:8\t64\t1,1\t0\t-\n";
/// let k = &mfma_hip::manifest::parse(text).unwrap()[0];
/// assert_eq!((k.modifiers.as_str(), k.args.len(), k.args[1].size), ("blgp:4", 2, 8));
/// ```
///
/// # Errors
/// A [`ParseError`] naming the first line that is not as [`rows`] and
/// this function read it: an unknown kind, an argument that is not
/// `name:value_kind:size`, a workgroup or LDS size that is no number.
pub fn parse(text: &str) -> Result<Vec<Kernel>, ParseError> {
    let mut kernels = Vec::new();
    for row in rows(text)? {
        let (line, [kind, name, builtin, mnemonic, modifiers, args, workgroup, grid, lds, tiles]) =
            row?;
        let err = |what: String| ParseError { line, what };
        let kind = match kind {
            "site" => Kind::Site,
            "gemm" => Kind::Gemm,
            k => return Err(err(format!("unknown kind `{k}`"))),
        };
        let args = args
            .split(',')
            .map(|a| match a.trim().split(':').collect::<Vec<_>>()[..] {
                [name, kind, size] => Ok(Arg {
                    name: name.into(),
                    value_kind: kind.into(),
                    size: size
                        .parse()
                        .map_err(|e| err(format!("argument {a}: {e}")))?,
                }),
                _ => Err(err(format!("argument `{a}` is not name:value_kind:size"))),
            })
            .collect::<Result<_, _>>()?;
        let number = |s: &str, what: &str| {
            s.parse::<u32>()
                .map_err(|e| err(format!("{what} `{s}`: {e}")))
        };
        kernels.push(Kernel {
            kind,
            name: name.into(),
            builtin: builtin.into(),
            mnemonic: mnemonic.into(),
            modifiers: if modifiers == "-" { "" } else { modifiers }.into(),
            args,
            workgroup: number(workgroup, "workgroup")?,
            grid: grid.into(),
            lds: number(lds, "lds")?,
            tiles: tiles.into(),
        });
    }
    Ok(kernels)
}
