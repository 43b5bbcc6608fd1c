//! The command line, as clap types. Help texts carry an example for every
//! subcommand.

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The `mfma` command.
#[derive(Parser, Debug)]
#[command(
    name = "mfma",
    version,
    about = "Register layouts, lookups, pictures and bit-exact software execution of the \
             AMD CDNA2 (gfx90a, MI200) and CDNA3 (gfx942, MI300) MFMA builtins, CDNA3's \
             structured-sparse SMFMAC included.",
    after_help = "Examples:
  mfma list
  mfma list --arch cdna3
  mfma info f32_32x32x8bf16_1k
  mfma info cdna3::f32_32x32x16_fp8_bf8
  mfma info cdna3::smfmac_f32_16x16x32_f16
  mfma layout f32_16x16x16f16 --operand c
  mfma layout f32_16x16x4f16 --operand a --cbsz 1 --abid 1 --format json
  mfma lookup f32_32x32x8bf16_1k --operand c --element 0,5,7
  mfma run --input vectors.json
  mfma pictures --out pictures/
  mfma probe --out probe-report.json

Builtin names may be written bare (f32_4x4x4f16), as the HIP builtin
(__builtin_amdgcn_mfma_f32_4x4x4f16) or as the ISA mnemonic (v_mfma_f32_4x4x4f16,
or on CDNA3 v_mfma_f32_4x4x4_16b_f16); CDNA3's SMFMAC as smfmac_f32_16x16x32_f16,
__builtin_amdgcn_smfmac_f32_16x16x32_f16 or v_smfmac_f32_16x16x32_f16. A bare name means CDNA2 unless --arch says
otherwise; a `cdna3::` prefix names a CDNA3 builtin whatever --arch is, and an error
if --arch names another architecture.
Every error exits with status 2."
)]
pub struct Cli {
    /// Architecture: cdna2 (gfx90a, MI200) or cdna3 (gfx942, MI300). Default: cdna2
    /// (`pictures`: every architecture; `run`: the input's `arch`, else cdna2).
    #[arg(long, global = true, value_name = "ARCH")]
    pub arch: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Every builtin of an architecture: shape, types, blocks and the modifiers it allows.
    #[command(after_help = "Examples:
  mfma list
  mfma list --arch cdna3
  mfma list --arch cdna3 --format json")]
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t = TableFormat::Table)]
        format: TableFormat,
    },

    /// Everything known about one builtin, with derived figures and its C signature.
    #[command(after_help = "Examples:
  mfma info f32_32x32x8bf16_1k
  mfma info __builtin_amdgcn_mfma_f64_4x4x4f64 --format json
  mfma info cdna3::f32_32x32x16_fp8_bf8
  mfma info v_mfma_f64_16x16x4_f64 --arch cdna3
  mfma info cdna3::smfmac_i32_16x16x64_i8")]
    Info {
        /// Builtin name.
        name: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = TableFormat::Table)]
        format: TableFormat,
    },

    /// Where each element of an operand sits in the wave's registers.
    #[command(
        after_help = "Every element is shown with the register slot (lane:item) it reads; with
modifiers that is the slot the hardware routes to it (reference section 3).
Negation (--neg, CDNA3 FP64 only) moves no data: the layout stays the plain one.
json: lanes[lane][item] lists the [block, row, col] elements each slot feeds.
csv: one row per slot; a slot feeding several elements lists them `;`-separated.

SMFMAC (CDNA3 smfmac_*): --operand a is the compressed M x K/2 A (grid: i x kc);
a slot lists the 4 logical k of its group, any of which it may hold (json: `stored`
gives its [block, i, kc]; csv: a kc column). --operand idx is the index register:
item t = bits 4t+3:4t, one grid per index set; cbsz/abid pick the set read (json:
`fields`, `index_set`; csv: each field's own (set, i, g), its bits and `read`).

Examples:
  mfma layout f32_4x4x4f16 --operand c
  mfma layout f32_32x32x8bf16_1k --operand a --format csv
  mfma layout f32_16x16x4f16 --operand a --cbsz 2 --abid 3 --format json
  mfma layout f32_16x16x16f16 --operand b --blgp 4
  mfma layout f64_16x16x4f64 --operand d --format svg > f64-d.svg
  mfma layout f32_32x32x16_fp8_bf8 --arch cdna3 --operand b
  mfma layout cdna3::f64_16x16x4f64 --operand a --neg a,c
  mfma layout cdna3::smfmac_f32_16x16x32_f16 --operand a
  mfma layout cdna3::smfmac_f32_16x16x32_f16 --operand idx --abid 2 --format json"
    )]
    Layout {
        /// Builtin name.
        name: String,
        /// Operand: a, b, c or d; idx (the index register) for SMFMAC.
        #[arg(long, short = 'o')]
        operand: String,
        #[command(flatten)]
        modifiers: ModifierArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LayoutFormat::Table)]
        format: LayoutFormat,
    },

    /// Which register slot an element reads, or which elements a slot feeds.
    #[command(
        group(ArgGroup::new("what").required(true).args(["element", "slot"])),
        after_help = "SMFMAC: an element of A is a logical (block, i, k): the answer is the two
compressed slots of its group and the index field that says which k they hold; a
slot of A holds compressed column kc. An element of idx is (set, i, g).

Examples:
  mfma lookup f32_32x32x8bf16_1k --operand c --element 0,5,7
  mfma lookup f32_32x32x8bf16_1k --operand a --slot 37,2
  mfma lookup f32_4x4x4f16 --operand a --slot 5,0 --cbsz 2 --abid 1 --format json
  mfma lookup cdna3::f32_16x16x32_fp8_fp8 --operand a --element 3,17
  mfma lookup cdna3::smfmac_f32_16x16x32_f16 --operand a --element 2,30
  mfma lookup cdna3::smfmac_f32_16x16x32_f16 --operand idx --element 3,2,7 --abid 3"
    )]
    Lookup {
        /// Builtin name.
        name: String,
        /// Operand: a, b, c or d; idx (the index register) for SMFMAC.
        #[arg(long, short = 'o')]
        operand: String,
        /// Element as BLOCK,ROW,COL: (block, i, k) for A (SMFMAC: the logical k), (block, k,
        /// j) for B, (block, i, j) for C/D, (set, i, g) for idx; ROW,COL is enough for a
        /// 1-block builtin.
        #[arg(long, value_name = "BLOCK,ROW,COL", allow_hyphen_values = true)]
        element: Option<String>,
        /// Register slot as LANE,ITEM.
        #[arg(long, value_name = "LANE,ITEM", allow_hyphen_values = true)]
        slot: Option<String>,
        #[command(flatten)]
        modifiers: ModifierArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },

    /// Runs test vectors through the software path and prints D.
    #[command(
        after_help = "The input holds a top-level `vectors` list and optionally `arch` (cdna2 or
cdna3; default cdna2, or --arch), the architecture whose instructions the names
mean. Each vector has `id`, `instruction`, and `A`, `B`, `C` as row-major lists
of fixed-width hex bit patterns of ONE block (2 digits fp8/bf8/i8, 4 f16/bf16,
8 f32/xf32/i32, 16 f64). Optional `M`, `N`, `K` must match the builtin; other
fields are ignored. The block is loaded into every block of the instruction.
An SMFMAC vector (schema of cdna3-smfmac.json) gives A compressed, M x K/2, and
`IDX`, M x K/2 positions 0..=3 (A[i][kc] is logical k 4*(kc/2) + IDX[i][kc]),
which fill every index set; optional `cbsz`, `abid` (default 0) must be legal.
Its D rests on an ASSUMPTION (no bit-accurate SMFMAC reference exists): two
chained dense instructions of half the K on the decompressed A (see `mfma info`).
Output: one JSON object {\"results\": [{\"id\": ..., \"D\": [hex, ...]}, ...]}.

Examples:
  mfma run --input ../shared/vectors/cdna2-numerics.json
  mfma run --input ../shared/vectors/cdna3-numerics.json
  mfma run --input ../shared/vectors/cdna3-smfmac.json
  mfma run --arch cdna3 --input mine.json > results.json"
    )]
    Run {
        /// JSON file of vectors.
        #[arg(long, value_name = "FILE")]
        input: PathBuf,
    },

    /// Checks the spec against an AMD GPU: layouts, routing and arithmetic of every builtin.
    #[command(
        after_help = "Runs every call site of the GPU's code object (every builtin of its
architecture, with each legal modifier set, or a covering sample where there are many:
cbsz, abid, blgp, CDNA3's FP64 negation, SMFMAC's index sets) on the GPU and on the
software path, and compares every output bit (NaN by class: any NaN equals any NaN).
  layout:   inputs whose values are their own coordinates (digits of them, for 8-bit
            types), the other operands selecting one element per output, so that D
            shows where each element of A, B, C (and the index) travelled; compared
            with the spec's layouts and routing.
  numerics: ordinary values, random bit patterns, specials (zeros, subnormals,
            extremes, infinities, NaNs, fp8/bf8 specials), subnormals, cancellation,
            overflow (SMFMAC: index fields in descending order too).
One line per builtin: ok, or its first mismatch with the inputs as the instruction reads
them and both outputs. --out writes every site's counts and each first mismatch's full
inputs and outputs as JSON, to attach to a bug report.

The GPU: the HIP runtime (libamdhip64, ROCm 6; MFMA_HIP_LIBRARY names it) and the code
object of the GPU's target (gfx90a, gfx942), built by `bash scripts/check-device.sh`
(MFMA_CODE_OBJECT_DIR, default target/device). Without them: one line saying why, exit 2.
Exit status: 0 all agree, 1 a mismatch, 2 the GPU path cannot run or a launch failed.
--software runs the same probe with the software path standing in for the GPU (of
--arch): a dry run, in which everything agrees.

Examples:
  mfma probe --out probe-report.json
  mfma probe --builtin cdna3::f32_32x32x16_fp8_fp8 --seeds 8
  mfma probe --software --arch cdna3 --out dry-run.json"
    )]
    Probe {
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Probe only these builtins (repeat or separate by commas).
        #[arg(long, value_delimiter = ',')]
        builtin: Vec<String>,
        /// Numerics runs per input pattern.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
        seeds: u64,
        /// Run on the software path instead of a GPU (a dry run of the probe).
        #[arg(long)]
        software: bool,
    },

    /// Writes the SVG layout picture of every builtin and operand.
    #[command(
        after_help = "Without --arch, pictures of every architecture are written. A CDNA2
picture is named NAME-OPERAND.svg (f32_4x4x4f16-c.svg), as bare names mean CDNA2;
any other architecture's carries its name in front: cdna3-f32_4x4x4f16-c.svg.

Examples:
  mfma pictures --out pictures/
  mfma pictures --arch cdna3 --out pictures/"
    )]
    Pictures {
        /// Directory to write to (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

/// The modifiers, as given (validated against the builtin later, so that
/// the message names the builtin and the broken rule).
#[derive(Args, Debug, Clone)]
pub struct ModifierArgs {
    /// Broadcast size: log2 of the group of blocks sharing one A block.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub cbsz: i64,
    /// Which block of each cbsz group feeds A to the group.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub abid: i64,
    /// B lane-group pattern (0..=7).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub blgp: i64,
    /// Operands to negate, comma-separated (a,b,c): CDNA3 FP64 only. Moves no data.
    #[arg(long, value_name = "a,b,c")]
    pub neg: Option<String>,
}

/// Formats of `list` and `info`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Aligned text.
    Table,
    /// One JSON value.
    Json,
}

/// Formats of `lookup`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    /// One sentence a result.
    Text,
    /// One JSON object.
    Json,
}

/// Formats of `layout`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutFormat {
    /// A grid per block: each cell is the lane:item the element reads.
    Table,
    /// One row per (lane, item).
    Csv,
    /// One JSON object; `lanes[lane][item]` lists the elements a slot feeds.
    Json,
    /// A picture in the style of the seed document's figures.
    Svg,
}
