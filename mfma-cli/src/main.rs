//! The `mfma` command: layouts, lookups, pictures and bit-exact software
//! execution of the AMD CDNA2 and CDNA3 MFMA builtins (CDNA3's SMFMAC too). Every
//! per-builtin fact comes from `mfma_spec`; this crate only presents it.
//!
//! Errors go to stderr as `error: <message>` with exit status 2; modifier
//! errors use exactly the text of `mfma_spec::ModifierError` (as `mfma!` does).

mod args;
mod arith;
mod coords;
mod csig;
mod error;
mod explain;
mod formula;
mod info;
mod layout;
mod list;
mod lookup;
mod modifiers;
mod pictures;
mod probe;
mod resolve;
mod run;
mod svg;
mod text;

use args::{Cli, Command};
use clap::Parser;
use resolve::ArchChoice;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = ArchChoice::from_flag(cli.arch.as_deref()).and_then(|arch| dispatch(cli, arch));
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs the subcommand with the architecture `--arch` chose.
fn dispatch(cli: Cli, arch: ArchChoice) -> error::Result<ExitCode> {
    if let Command::Probe {
        out,
        builtin,
        seeds,
        software,
    } = &cli.command
    {
        return probe::run(*software, arch, builtin, *seeds, out.as_deref());
    }
    run(cli, arch).map(|()| ExitCode::SUCCESS)
}

/// The subcommands that succeed or fail (exit 0 or 2).
fn run(cli: Cli, arch: ArchChoice) -> error::Result<()> {
    match cli.command {
        Command::List { format } => list::run(arch.arch, format),
        Command::Info { name, format } => info::run(&name, format, arch),
        Command::Layout {
            name,
            operand,
            modifiers,
            format,
        } => layout::run(&name, &operand, &modifiers, format, arch),
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
            &modifiers,
            format,
            arch,
        ),
        Command::Run { input } => run::run(&input, arch),
        // Without --arch, every architecture: the pictures are documentation.
        Command::Pictures { out } => match arch.chosen_by {
            Some(_) => pictures::run(&out, &[arch.arch]),
            None => pictures::run(&out, mfma_spec::ARCHS),
        },
        Command::Probe { .. } => unreachable!("dispatched above"),
    }
}
