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
             AMD CDNA2 (gfx90a, MI200) dense MFMA builtins.",
    after_help = "Examples:
  mfma list
  mfma info f32_32x32x8bf16_1k
  mfma layout f32_16x16x16f16 --operand c
  mfma layout f32_16x16x4f16 --operand a --cbsz 1 --abid 1 --format json
  mfma lookup f32_32x32x8bf16_1k --operand c --element 0,5,7
  mfma run --input vectors.json
  mfma pictures --out pictures/

Builtin names may be written bare (f32_4x4x4f16), as the HIP builtin
(__builtin_amdgcn_mfma_f32_4x4x4f16) or as the ISA mnemonic (v_mfma_f32_4x4x4f16).
Every error exits with status 2."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Every builtin: shape, types, blocks and the modifiers it allows.
    #[command(after_help = "Examples:
  mfma list
  mfma list --format json")]
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t = TableFormat::Table)]
        format: TableFormat,
    },

    /// Everything known about one builtin, with derived figures and its C signature.
    #[command(after_help = "Examples:
  mfma info f32_32x32x8bf16_1k
  mfma info __builtin_amdgcn_mfma_f64_4x4x4f64 --format json")]
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
json: lanes[lane][item] lists the [block, row, col] elements each slot feeds.
csv: one row per slot; a slot feeding several elements lists them `;`-separated.

Examples:
  mfma layout f32_4x4x4f16 --operand c
  mfma layout f32_32x32x8bf16_1k --operand a --format csv
  mfma layout f32_16x16x4f16 --operand a --cbsz 2 --abid 3 --format json
  mfma layout f32_16x16x16f16 --operand b --blgp 4
  mfma layout f64_16x16x4f64 --operand d --format svg > f64-d.svg"
    )]
    Layout {
        /// Builtin name.
        name: String,
        /// Operand: a, b, c or d.
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
        after_help = "Examples:
  mfma lookup f32_32x32x8bf16_1k --operand c --element 0,5,7
  mfma lookup f32_32x32x8bf16_1k --operand a --slot 37,2
  mfma lookup f32_4x4x4f16 --operand a --slot 5,0 --cbsz 2 --abid 1 --format json"
    )]
    Lookup {
        /// Builtin name.
        name: String,
        /// Operand: a, b, c or d.
        #[arg(long, short = 'o')]
        operand: String,
        /// Element as BLOCK,ROW,COL: (block, i, k) for A, (block, k, j) for B, (block, i, j) for C/D.
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
        after_help = "The input holds a top-level `vectors` list; each vector has `id`,
`instruction`, and `A`, `B`, `C` as row-major lists of fixed-width hex bit
patterns of ONE block (4 digits f16/bf16, 2 i8, 8 f32/i32, 16 f64). Optional
`M`, `N`, `K` must match the builtin; other fields are ignored. The block is
loaded into every block of the instruction. Output: one JSON object
{\"results\": [{\"id\": ..., \"D\": [hex, ...]}, ...]}.

Examples:
  mfma run --input ../shared/vectors/cdna2-numerics.json
  mfma run --input mine.json > results.json"
    )]
    Run {
        /// JSON file of vectors.
        #[arg(long, value_name = "FILE")]
        input: PathBuf,
    },

    /// Writes the SVG layout picture of every builtin and operand.
    #[command(
        after_help = "Files are named NAME-OPERAND.svg (for example f32_4x4x4f16-c.svg).

Examples:
  mfma pictures --out pictures/"
    )]
    Pictures {
        /// Directory to write to (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

/// The three modifiers, as given (validated against the builtin later, so
/// that the message names the builtin and the broken rule).
#[derive(Args, Debug, Clone, Copy)]
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
