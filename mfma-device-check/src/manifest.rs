//! The manifest `mfma-kernels/build.rs` writes beside the kernels it
//! generates: what each kernel is, takes and must compile to. The checks
//! compare the compiler's output with it.

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
const HEADER: [&str; 10] = [
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

/// Reads a manifest: a header line, then one tab-separated line per kernel.
///
/// ```
/// let text = "kind\tkernel\tbuiltin\tmnemonic\tmodifiers\targs\tworkgroup\tgrid\tlds\ttiles\n\
///             site\tmfma_x\tx\tv_mfma_x\tblgp:4\ta:global_buffer:8,n:by_value:8\t64\t1,1\t0\t-\n";
/// let k = &mfma_device_check::manifest::parse(text).unwrap()[0];
/// assert_eq!((k.modifiers.as_str(), k.args.len(), k.args[1].size), ("blgp:4", 2, 8));
/// ```
pub fn parse(text: &str) -> Result<Vec<Kernel>, ParseError> {
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines
        .next()
        .map(|(_, l)| l.split('\t').collect())
        .unwrap_or_default();
    if header != HEADER {
        return Err(ParseError {
            line: 1,
            what: format!("expected the header {HEADER:?}, found {header:?}"),
        });
    }
    let mut kernels = Vec::new();
    for (i, line) in lines {
        if line.is_empty() {
            continue;
        }
        let err = |what: String| ParseError { line: i + 1, what };
        let f: Vec<&str> = line.split('\t').collect();
        let [kind, name, builtin, mnemonic, modifiers, args, workgroup, grid, lds, tiles] = f[..]
        else {
            return Err(err(format!(
                "{} fields, expected {}",
                f.len(),
                HEADER.len()
            )));
        };
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
