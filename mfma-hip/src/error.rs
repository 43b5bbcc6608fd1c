//! Errors: one type, each message one line that says what is wrong and,
//! where something can be done about it, what.

use std::fmt;
use std::path::PathBuf;

/// Everything that can stop a launch, from a missing runtime to a failed
/// HIP call. `Display` gives one line, without a trailing period, suitable
/// for `error: {e}` on stderr.
///
/// ```
/// let e = mfma_hip::Error::UnsupportedTarget { arch_name: "gfx1100".into() };
/// assert_eq!(
///     e.to_string(),
///     "unsupported target gfx1100: the mfma code objects are built for gfx90a (CDNA2) and gfx942 (CDNA3)"
/// );
/// assert!(e.is_unavailable());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No HIP runtime library could be opened.
    NoRuntime {
        /// The names and paths tried, in order.
        tried: Vec<String>,
    },
    /// The library opened lacks a function this crate needs.
    MissingSymbol {
        /// The library opened.
        library: String,
        /// The missing function.
        symbol: &'static str,
    },
    /// The runtime loads but finds no GPU.
    NoDevice {
        /// What the runtime said.
        why: String,
    },
    /// The GPU's target is not one of the spec's (`gfx90a`, `gfx942`).
    UnsupportedTarget {
        /// The device's `gcnArchName` (`gfx1100`, `gfx90a:sramecc+:xnack-`).
        arch_name: String,
    },
    /// No code object for the device's target was found.
    NoCodeObject {
        /// The processor (`gfx942`).
        processor: String,
        /// The files looked for, in order.
        looked: Vec<PathBuf>,
    },
    /// A code object or its manifest cannot be used.
    CodeObject {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The code object was built for another target than the device's.
    TargetMismatch {
        /// The code object.
        path: PathBuf,
        /// Its target ID.
        code: String,
        /// The device's.
        device: String,
    },
    /// A HIP call returned an error.
    Hip {
        /// The function (`hipModuleLaunchKernel`).
        call: &'static str,
        /// Its `hipError_t`.
        code: i32,
        /// `hipGetErrorName` (`hipErrorInvalidValue`).
        name: String,
        /// `hipGetErrorString`.
        message: String,
    },
    /// A launch that does not fit the kernel: arguments that disagree with
    /// its metadata, buffers of the wrong size, an unknown kernel.
    Launch {
        /// The kernel.
        kernel: String,
        /// What is wrong.
        why: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether this says that the GPU path cannot run here at all (no
    /// runtime, no GPU, a target without code objects, no code object or
    /// one for another target), rather than that something failed while it
    /// ran. Both end a command with status 2; the distinction is for
    /// messages and tests.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            Error::NoRuntime { .. }
                | Error::MissingSymbol { .. }
                | Error::NoDevice { .. }
                | Error::UnsupportedTarget { .. }
                | Error::NoCodeObject { .. }
                | Error::TargetMismatch { .. }
        )
    }

    pub(crate) fn launch(kernel: &str, why: impl Into<String>) -> Error {
        Error::Launch {
            kernel: kernel.to_string(),
            why: why.into(),
        }
    }

    pub(crate) fn code_object(path: impl Into<PathBuf>, why: impl fmt::Display) -> Error {
        Error::CodeObject {
            path: path.into(),
            why: one_line(&why.to_string()),
        }
    }
}

/// The spec's targets, as `gfx90a (CDNA2) and gfx942 (CDNA3)`.
pub(crate) fn known_targets() -> String {
    let all: Vec<String> = mfma_spec::ARCHS
        .iter()
        .flat_map(|a| a.targets.iter().map(move |t| format!("{t} ({})", a.title)))
        .collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Newlines and runs of spaces as single spaces: every message is one line.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn paths(p: &[PathBuf]) -> String {
    p.iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoRuntime { tried } => write!(
                f,
                "no HIP runtime library found (tried {}): install ROCm 6 (5.x also loads the code \
                 objects), or set {} to the path of libamdhip64",
                tried.join(", "),
                crate::ffi::LIBRARY_VAR
            ),
            Error::MissingSymbol { library, symbol } => write!(
                f,
                "{library} lacks {symbol}: not a HIP runtime this program can use (ROCm 5 or later)"
            ),
            Error::NoDevice { why } => write!(f, "no AMD GPU: {why}"),
            Error::UnsupportedTarget { arch_name } => write!(
                f,
                "unsupported target {arch_name}: the mfma code objects are built for {}",
                known_targets()
            ),
            Error::NoCodeObject { processor, looked } => write!(
                f,
                "no code object for {processor} (looked for {}): build it with `bash \
                 scripts/check-device.sh {processor}` in the mfma repository, or set {} to a \
                 directory holding {processor}/mfma_kernels.hsaco and {processor}/kernels.tsv",
                paths(looked),
                crate::locate::DIR_VAR
            ),
            Error::CodeObject { path, why } => write!(f, "{}: {why}", path.display()),
            Error::TargetMismatch { path, code, device } => write!(
                f,
                "{} is built for {code}, but the GPU is {device}: use the code object of the \
                 GPU's target",
                path.display()
            ),
            Error::Hip {
                call,
                code,
                name,
                message,
            } => write!(f, "{call} failed: {message} ({name}, {code})"),
            Error::Launch { kernel, why } => write!(f, "cannot launch {kernel}: {why}"),
        }
    }
}

impl std::error::Error for Error {}
