//! Launches planned without a GPU: which kernels a code object holds (its
//! manifest, `kernels.tsv`, checked against its metadata), and for each
//! launch the grid, workgroup, dynamic LDS and the kernarg buffer, packed
//! at the offsets the kernel's metadata states. The runtime only hands a
//! [`Launch`] to `hipModuleLaunchKernel`.

use crate::codeobj::{CodeObjectInfo, KernelMeta};
use crate::error::{Error, Result};
use crate::manifest;
use crate::target::TargetId;
use mfma_spec::{validate, BlgpBits, Builtin, ElemType, Modifiers, Operand};
use std::path::{Path, PathBuf};

/// A call-site kernel: one instruction of `builtin` with `modifiers`,
/// `D = A·B + C` on operands stored `[block][row][col]` (see
/// [`operand_bytes`]). Launched as one wave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The kernel's symbol (`mfma_f32_4x4x1f32__2_3_4`).
    pub kernel: String,
    /// The builtin it calls.
    pub builtin: &'static Builtin,
    /// The modifiers compiled into it.
    pub modifiers: Modifiers,
}

impl Site {
    /// The operands the kernel takes, in argument order: A, B, C, (the
    /// index, for SMFMAC,) then D.
    pub fn operands(&self) -> &'static [Operand] {
        if self.builtin.is_sparse() {
            &[Operand::A, Operand::B, Operand::C, Operand::Idx, Operand::D]
        } else {
            &[Operand::A, Operand::B, Operand::C, Operand::D]
        }
    }
}

/// A tutorial GEMM kernel: `C (m × n) = A (m × k) · B (k × n)`, row-major,
/// the builtin's element types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gemm {
    /// The kernel's symbol (`gemm_f32_32x32x8f16`).
    pub kernel: String,
    /// The builtin of its policy.
    pub builtin: &'static Builtin,
    /// Threads per workgroup (x only).
    pub workgroup: u32,
    /// Rows and columns of C per workgroup.
    pub block: (usize, usize),
    /// Dynamic LDS the launch passes: `gemm_<builtin>_lds_bytes`.
    pub lds_bytes: u32,
}

/// Everything a `hipModuleLaunchKernel` call needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The kernel.
    pub kernel: String,
    /// Workgroups along x, y, z.
    pub grid: [u32; 3],
    /// Threads per workgroup along x, y, z.
    pub block: [u32; 3],
    /// Dynamic LDS bytes (`sharedMemBytes`).
    pub lds_bytes: u32,
    /// The kernarg segment: `.kernarg_segment_size` bytes, each argument at
    /// its `.offset`.
    pub kernarg: Vec<u8>,
}

/// A kernel argument's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// A device address (`global_buffer`, 8 bytes).
    Pointer(u64),
    /// A `usize` (`by_value`, 8 bytes).
    Usize(u64),
}

/// Packs `args` into `kernel`'s kernarg segment as its metadata lays it
/// out: one explicit argument per value, of the kind and size stated, at
/// the offset stated; the rest zero. These kernels have no hidden
/// arguments (the device check requires it); one that has them is refused,
/// since nothing here would fill them.
///
/// ```
/// use mfma_hip::{pack, ArgMeta, ArgValue, KernelMeta};
/// let arg = |offset, value_kind: &str| ArgMeta {
///     offset,
///     size: 8,
///     value_kind: value_kind.into(),
///     address_space: None,
/// };
/// let meta = KernelMeta {
///     name: "k".into(),
///     kernarg_segment_size: 16,
///     args: vec![arg(0, "global_buffer"), arg(8, "by_value")],
///     ..Default::default()
/// };
/// let buf = pack(&meta, &[ArgValue::Pointer(0x7000_1000), ArgValue::Usize(3)]).unwrap();
/// assert_eq!(&buf[..8], &0x7000_1000u64.to_le_bytes());
/// assert_eq!(&buf[8..], &3u64.to_le_bytes());
/// let e = pack(&meta, &[ArgValue::Usize(1), ArgValue::Usize(3)]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot launch k: argument 0 is a pointer (global_buffer), given a usize");
/// ```
///
/// # Errors
/// [`Error::Launch`] when the values do not fit the metadata.
pub fn pack(kernel: &KernelMeta, args: &[ArgValue]) -> Result<Vec<u8>> {
    let fail = |why: String| Error::launch(&kernel.name, why);
    if let Some(h) = kernel
        .args
        .iter()
        .find(|a| a.value_kind.starts_with("hidden_"))
    {
        return Err(fail(format!(
            "it has a hidden argument ({}), which this launcher does not fill",
            h.value_kind
        )));
    }
    if kernel.args.len() != args.len() {
        return Err(fail(format!(
            "it takes {} arguments, given {}",
            kernel.args.len(),
            args.len()
        )));
    }
    let mut buf = vec![0u8; kernel.kernarg_segment_size as usize];
    for (i, (meta, value)) in kernel.args.iter().zip(args).enumerate() {
        let (bytes, what) = match *value {
            ArgValue::Pointer(p) => (p.to_le_bytes(), "a pointer"),
            ArgValue::Usize(v) => (v.to_le_bytes(), "a usize"),
        };
        let expected = match meta.value_kind.as_str() {
            "global_buffer" => "a pointer",
            "by_value" => "a usize",
            other => return Err(fail(format!("argument {i} is of kind {other}"))),
        };
        if expected != what {
            return Err(fail(format!(
                "argument {i} is {expected} ({}), given {what}",
                meta.value_kind
            )));
        }
        if meta.size as usize != bytes.len() {
            return Err(fail(format!(
                "argument {i} has {} bytes, given {}",
                meta.size,
                bytes.len()
            )));
        }
        let at = meta.offset as usize;
        let Some(slot) = buf.get_mut(at..at + bytes.len()) else {
            return Err(fail(format!(
                "argument {i} at offset {at} lies outside the {}-byte kernarg segment",
                kernel.kernarg_segment_size
            )));
        };
        slot.copy_from_slice(&bytes);
    }
    Ok(buf)
}

/// Bytes of operand `op` of builtin `b` as a call-site kernel reads or
/// writes it: every block's matrix `[block][row][col]`, elements of the
/// operand's type; an SMFMAC's A is its stored `M × K/2` values, its index
/// one byte per field `[set][row][group]`.
///
/// ```
/// use mfma_spec::{find, Operand};
/// let x = find("f32_4x4x4f16").unwrap(); // 16 blocks of 4 x 4
/// assert_eq!(mfma_hip::operand_bytes(x, Operand::A), 16 * 4 * 4 * 2);
/// let s = find("cdna3::smfmac_f32_16x16x32_f16").unwrap();
/// assert_eq!(mfma_hip::operand_bytes(s, Operand::A), 16 * 16 * 2);
/// assert_eq!(mfma_hip::operand_bytes(s, Operand::Idx), 4 * 16 * 8);
/// ```
///
/// # Panics
/// For the index of a dense builtin.
pub fn operand_bytes(b: &Builtin, op: Operand) -> usize {
    let elements = b.layout(op).elements();
    match b.elem(op) {
        ElemType::Idx => elements,
        t => elements * t.bits() as usize / 8,
    }
}

/// The kernels of a code object and its manifest, checked against each
/// other, ready to plan launches.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The code object's file (for messages).
    pub path: PathBuf,
    /// Its target.
    pub target: TargetId,
    /// Its code object version.
    pub version: u32,
    /// The call-site kernels, in manifest order.
    pub sites: Vec<Site>,
    /// The GEMM kernels, in manifest order.
    pub gemms: Vec<Gemm>,
    info: CodeObjectInfo,
}

const SITE_ARGS: &str = "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,d:global_buffer:8";
const SPARSE_SITE_ARGS: &str =
    "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,idx:global_buffer:8,d:global_buffer:8";
const GEMM_ARGS: &str = "a:global_buffer:8,b:global_buffer:8,c:global_buffer:8,\
                         m:by_value:8,n:by_value:8,k:by_value:8";

impl Catalog {
    /// Reads a code object and its manifest and checks them against each
    /// other and against the spec: every kernel of the manifest is in the
    /// code object with the arguments this launcher passes (kind, size and
    /// order, no hidden ones); a call site's builtin belongs to the code
    /// object's architecture and its modifiers are legal; a GEMM kernel's
    /// LDS symbol says what the manifest says.
    ///
    /// # Errors
    /// [`Error::CodeObject`] naming `path` (or the manifest beside it) and
    /// what disagrees.
    pub fn new(path: &Path, code_object: &[u8], manifest: &str) -> Result<Catalog> {
        let info = CodeObjectInfo::parse(code_object).map_err(|e| Error::code_object(path, e))?;
        let manifest_path = path.with_file_name("kernels.tsv");
        let bad = |line: usize, why: String| {
            Error::code_object(&manifest_path, format!("line {line}: {why}"))
        };
        let arch = info.target.arch().ok_or_else(|| {
            Error::code_object(
                path,
                format!(
                    "built for {}, which the spec has no builtins for",
                    info.target
                ),
            )
        })?;
        // `rows` refuses only the header up front: say so in the launcher's words.
        let rows = manifest::rows(manifest).map_err(|e| {
            bad(
                e.line,
                format!("expected the header {}", manifest::COLUMNS.join(" ")),
            )
        })?;
        let mut catalog = Catalog {
            path: path.to_path_buf(),
            target: info.target.clone(),
            version: info.version,
            sites: Vec::new(),
            gemms: Vec::new(),
            info,
        };
        for row in rows {
            let (
                line_no,
                [kind, kernel, builtin, _mnemonic, modifiers, args, workgroup, grid, lds, _tiles],
            ) = row.map_err(|e| bad(e.line, e.what))?;
            let b = mfma_spec::find(builtin)
                .ok_or_else(|| bad(line_no, format!("unknown builtin {builtin}")))?;
            if b.arch != arch.name {
                return Err(bad(
                    line_no,
                    format!(
                        "{builtin} is no {} builtin, but the code object is for {}",
                        arch.title, catalog.target
                    ),
                ));
            }
            let meta = catalog.info.kernel(kernel).ok_or_else(|| {
                Error::code_object(
                    path,
                    format!("has no kernel {kernel}, which the manifest lists: rebuild both"),
                )
            })?;
            let number = |s: &str| {
                s.parse::<u32>()
                    .map_err(|e| bad(line_no, format!("`{s}`: {e}")))
            };
            let (workgroup, lds) = (number(workgroup)?, number(lds)?);
            match kind {
                "site" => {
                    let expected = if b.is_sparse() {
                        SPARSE_SITE_ARGS
                    } else {
                        SITE_ARGS
                    };
                    if args != expected || workgroup != 64 || grid != "1,1" || lds != 0 {
                        return Err(bad(
                            line_no,
                            format!("call site {kernel} is not launched as this launcher does"),
                        ));
                    }
                    let modifiers = parse_modifiers(b, modifiers).map_err(|e| bad(line_no, e))?;
                    let site = Site {
                        kernel: kernel.to_string(),
                        builtin: b,
                        modifiers,
                    };
                    check_args(path, meta, site.operands().len(), 0)?;
                    catalog.sites.push(site);
                }
                "gemm" => {
                    if args != GEMM_ARGS {
                        return Err(bad(line_no, format!("{kernel} takes other arguments")));
                    }
                    let block = parse_grid(grid).map_err(|e| bad(line_no, e))?;
                    let symbol = format!("{kernel}_lds_bytes");
                    match catalog.info.words.get(&symbol) {
                        Some(&v) if v == lds => {}
                        Some(&v) => {
                            return Err(Error::code_object(
                                path,
                                format!("{symbol} is {v}, but the manifest says {lds}"),
                            ))
                        }
                        None => {
                            return Err(Error::code_object(path, format!("has no symbol {symbol}")))
                        }
                    }
                    if meta.max_flat_workgroup_size != 0 && workgroup > meta.max_flat_workgroup_size
                    {
                        return Err(Error::code_object(
                            path,
                            format!(
                                "{kernel} allows {} threads per workgroup, the launch needs {workgroup}",
                                meta.max_flat_workgroup_size
                            ),
                        ));
                    }
                    check_args(path, meta, 3, 3)?;
                    catalog.gemms.push(Gemm {
                        kernel: kernel.to_string(),
                        builtin: b,
                        workgroup,
                        block,
                        lds_bytes: lds,
                    });
                }
                k => return Err(bad(line_no, format!("unknown kind `{k}`"))),
            }
        }
        Ok(catalog)
    }

    /// The call site of `builtin` with modifiers `m`, if compiled.
    pub fn site(&self, builtin: &Builtin, m: Modifiers) -> Option<&Site> {
        self.sites
            .iter()
            .find(|s| same(s.builtin, builtin) && s.modifiers == m)
    }

    /// The GEMM kernel of `builtin`'s policy, if compiled.
    pub fn gemm(&self, builtin: &Builtin) -> Option<&Gemm> {
        self.gemms.iter().find(|g| same(g.builtin, builtin))
    }

    /// The launch of call site `site` on operands at device addresses
    /// `pointers` (in [`Site::operands`] order): one wave, no LDS.
    ///
    /// # Errors
    /// [`Error::Launch`] for another number of pointers or a kernel not in
    /// the code object.
    pub fn site_launch(&self, site: &Site, pointers: &[u64]) -> Result<Launch> {
        if pointers.len() != site.operands().len() {
            return Err(Error::launch(
                &site.kernel,
                format!(
                    "it takes {} operands, given {}",
                    site.operands().len(),
                    pointers.len()
                ),
            ));
        }
        let args: Vec<ArgValue> = pointers.iter().map(|&p| ArgValue::Pointer(p)).collect();
        Ok(Launch {
            kernel: site.kernel.clone(),
            grid: [1, 1, 1],
            block: [mfma_spec::WAVE as u32, 1, 1],
            lds_bytes: 0,
            kernarg: pack(self.meta(&site.kernel)?, &args)?,
        })
    }

    /// The launch of GEMM kernel `gemm` on `m × k` A, `k × n` B and
    /// `m × n` C at device addresses `a`, `b`, `c`: `(ceil(n / BN),
    /// ceil(m / BM))` workgroups with the kernel's dynamic LDS.
    ///
    /// # Errors
    /// [`Error::Launch`] for an empty problem or a grid beyond HIP's.
    pub fn gemm_launch(
        &self,
        gemm: &Gemm,
        [a, b, c]: [u64; 3],
        [m, n, k]: [usize; 3],
    ) -> Result<Launch> {
        let fail = |why: String| Error::launch(&gemm.kernel, why);
        if m == 0 || n == 0 || k == 0 {
            return Err(fail(format!("empty problem {m}x{n}x{k}")));
        }
        let (bm, bn) = gemm.block;
        let dim = |x: usize| u32::try_from(x).map_err(|_| fail(format!("grid of {x} workgroups")));
        let grid = [dim(n.div_ceil(bn))?, dim(m.div_ceil(bm))?, 1];
        let args = [
            ArgValue::Pointer(a),
            ArgValue::Pointer(b),
            ArgValue::Pointer(c),
            ArgValue::Usize(m as u64),
            ArgValue::Usize(n as u64),
            ArgValue::Usize(k as u64),
        ];
        Ok(Launch {
            kernel: gemm.kernel.clone(),
            grid,
            block: [gemm.workgroup, 1, 1],
            lds_bytes: gemm.lds_bytes,
            kernarg: pack(self.meta(&gemm.kernel)?, &args)?,
        })
    }

    fn meta(&self, kernel: &str) -> Result<&KernelMeta> {
        self.info
            .kernel(kernel)
            .ok_or_else(|| Error::launch(kernel, "not in the code object"))
    }
}

/// The same builtin: the same name in the same architecture's table (not
/// the same address: a table's rows may be copied into each crate that
/// names them).
fn same(a: &Builtin, b: &Builtin) -> bool {
    a.arch == b.arch && a.name == b.name
}

/// The explicit arguments of `meta` must be `pointers` pointers then
/// `values` 8-byte values, naturally aligned, none hidden.
fn check_args(path: &Path, meta: &KernelMeta, pointers: usize, values: usize) -> Result<()> {
    let kinds: Vec<(&str, u32)> = meta
        .args
        .iter()
        .map(|a| (a.value_kind.as_str(), a.size))
        .collect();
    let expected: Vec<(&str, u32)> = std::iter::repeat_n(("global_buffer", 8), pointers)
        .chain(std::iter::repeat_n(("by_value", 8), values))
        .collect();
    let aligned = meta.args.iter().all(|a| a.offset % 8 == 0);
    if kinds != expected || !aligned {
        return Err(Error::code_object(
            path,
            format!(
                "{}'s arguments are {kinds:?} in its metadata, the launcher passes {expected:?}",
                meta.name
            ),
        ));
    }
    Ok(())
}

/// The modifiers of a manifest line, from the assembly text it states
/// (`cbsz:1 abid:1 blgp:3`, `neg:[1,0,1]`, `-`), checked by the spec's
/// rules.
///
/// ```
/// use mfma_spec::{find, Modifiers};
/// let x = find("cdna3::f64_16x16x4f64").unwrap();
/// assert_eq!(mfma_hip::parse_modifiers(x, "neg:[1,0,1]"), Ok(Modifiers::NONE.with_neg(0b101)));
/// let y = find("f32_4x4x1f32").unwrap();
/// assert_eq!(mfma_hip::parse_modifiers(y, "cbsz:4 abid:15 blgp:7"), Ok(Modifiers::new(4, 15, 7)));
/// assert!(mfma_hip::parse_modifiers(y, "cbsz:5").is_err()); // 16 blocks: cbsz at most 4
/// ```
///
/// # Errors
/// A message for text that is no modifier list, or modifiers the spec
/// refuses for `b`.
pub fn parse_modifiers(b: &'static Builtin, text: &str) -> Result<Modifiers, String> {
    let mut imm = [0i64; 3];
    let text = text.trim();
    if !text.is_empty() && text != "-" {
        for word in text.split_whitespace() {
            let (name, value) = word
                .split_once(':')
                .ok_or_else(|| format!("modifier `{word}` is not name:value"))?;
            let number = |s: &str| {
                s.parse::<i64>()
                    .map_err(|e| format!("modifier `{word}`: {e}"))
            };
            match name {
                "cbsz" => imm[0] = number(value)?,
                "abid" => imm[1] = number(value)?,
                "blgp" if b.blgp != BlgpBits::Negate => imm[2] = number(value)?,
                "neg" if b.blgp == BlgpBits::Negate => {
                    let flags = value
                        .strip_prefix('[')
                        .and_then(|v| v.strip_suffix(']'))
                        .ok_or_else(|| format!("modifier `{word}` is not neg:[a,b,c]"))?;
                    let bits: Vec<i64> = flags.split(',').map(number).collect::<Result<_, _>>()?;
                    let [a, b_, c] = bits[..] else {
                        return Err(format!("modifier `{word}` is not neg:[a,b,c]"));
                    };
                    if [a, b_, c].iter().any(|x| !(0..=1).contains(x)) {
                        return Err(format!("modifier `{word}`: flags are 0 or 1"));
                    }
                    imm[2] = a | b_ << 1 | c << 2;
                }
                _ => return Err(format!("modifier `{word}` does not apply to {}", b.path())),
            }
        }
    }
    let m = Modifiers::from_immediates(b, imm);
    validate(b, m).map_err(|e| e.to_string())?;
    Ok(m)
}

/// `(BM, BN)` of a GEMM kernel's grid formula `ceil(n/BN),ceil(m/BM)`.
fn parse_grid(grid: &str) -> Result<(usize, usize), String> {
    let bad = || format!("grid `{grid}` is not ceil(n/BN),ceil(m/BM)");
    let (x, y) = grid.split_once(',').ok_or_else(bad)?;
    let per = |s: &str, dim: &str| {
        s.strip_prefix(&format!("ceil({dim}/"))
            .and_then(|s| s.strip_suffix(')'))
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&v| v > 0)
            .ok_or_else(bad)
    };
    Ok((per(y, "m")?, per(x, "n")?))
}
