//! The `mfma` command: layouts, lookups, pictures and bit-exact software
//! execution of the AMD CDNA2 MFMA builtins. Every per-builtin fact comes
//! from `mfma_spec`; this crate only presents it.
//!
//! Errors go to stderr as `error: <message>` with exit status 2; modifier
//! errors use exactly the text of `mfma_spec::ModifierError` (as `mfma!` does).

mod args;
mod csig;
mod error;
mod formula;
mod info;
mod layout;
mod list;
mod lookup;
mod pictures;
mod resolve;
mod run;
mod svg;
mod text;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List { format } => list::run(format),
        Command::Info { name, format } => info::run(&name, format),
        Command::Layout {
            name,
            operand,
            modifiers,
            format,
        } => layout::run(&name, &operand, modifiers, format),
        Command::Lookup {
            name,
            operand,
            element,
            slot,
            modifiers,
            format,
        } => lookup::run(
            &name,
            &operand,
            element.as_deref(),
            slot.as_deref(),
            modifiers,
            format,
        ),
        Command::Run { input } => run::run(&input),
        Command::Pictures { out } => pictures::run(&out),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
