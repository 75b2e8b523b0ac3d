//! `cite export --format F [--output FILE] [--epoch N]`: the ledger in a format other
//! tools read, to stdout or atomically to a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::interop::{self, Format};

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output format
    #[arg(long, value_enum)]
    format: Format,
    /// Write to this file (replaced atomically) instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Export this epoch instead of the current one (not for jsonl: the log spans all)
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    if args.format == Format::Jsonl && args.epoch.is_some() {
        return Err(CliError::usage(
            "--epoch does not apply to --format jsonl, which exports the whole log (its hash chain runs through every epoch)",
        ));
    }
    // `-o -` is stdout; a file that is the ledger itself is never replaced.
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    if let Some(path) = output
        && env
            .ledger
            .location()
            .file()
            .is_some_and(|ledger| same_file(path, ledger))
    {
        return Err(
            CliError::usage(format!("--output {} is the ledger itself", path.display()))
                .hint("choose another file"),
        );
    }
    let view = env.ledger.view(args.epoch)?;
    let write = |out: &mut dyn Write| -> Result<u64, CliError> {
        match args.format {
            Format::Jsonl => {
                interop::jsonl::write(out, view.chain()?.map(|r| r.map_err(CliError::from)))
            }
            f => interop::write_sources(
                f,
                out,
                view.source_entries()?.map(|r| r.map_err(CliError::from)),
            ),
        }
    };
    match output {
        None => {
            write(env.out)?;
        }
        Some(path) => {
            let n = crate::rewrite::write_atomically(path, "write", write)?;
            let what = match args.format {
                Format::Jsonl => format!("{n} record(s) of the log"),
                _ => format!("{n} source(s) of epoch {}", view.epoch().0),
            };
            writeln!(
                env.out,
                "exported {what} to {} as {}",
                path.display(),
                args.format.name()
            )?;
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
