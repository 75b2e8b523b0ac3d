//! `cite export --format F [--output FILE] [--epoch N] [--only IDS] [--cited-in DRAFT]`:
//! the ledger, or the sources a draft cites, in a format other tools read, to stdout or
//! atomically to a file. What to take, what to refuse and the writing are
//! [`cite_ledger::app::export`]'s.

use std::io::Write;
use std::path::{Path, PathBuf};

use cite_core::draft::{self, Advice};
use cite_core::interop::Format;
use cite_ledger::app::export;
use cite_ledger::app::report;

use super::{CliError, Env, read_input};

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
    /// Ids to export, e.g. 1,3,5-7 (not for jsonl)
    #[arg(long, value_name = "IDS")]
    only: Option<String>,
    /// Export only ids cited in this draft's prose (`-` reads it from stdin; not for jsonl)
    #[arg(long, value_name = "FILE")]
    cited_in: Option<PathBuf>,
}

impl Args {
    /// The first flag given that would narrow the export, as the user spelled it.
    fn narrowing(&self) -> Option<&'static str> {
        [
            (self.epoch.is_some(), "--epoch"),
            (self.only.is_some(), "--only"),
            (self.cited_in.is_some(), "--cited-in"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    export::check_whole_log(args.format, args.narrowing())?;
    let only = report::Only::parse(args.only.as_deref(), "--only")?;
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
    let cited = match &args.cited_in {
        Some(path) => Some(draft::cited_ids(&read_input(path)?)),
        None => None,
    };
    let view = env.ledger.view(args.epoch)?;
    let picked = export::selection(
        &view,
        only.as_ref(),
        cited.as_ref(),
        Advice::Shell,
        &env.ledger.location().to_string(),
    )?;
    let write = |out: &mut dyn Write| export::write(&view, args.format, picked.as_deref(), out);
    match output {
        None => {
            write(env.out)?;
        }
        Some(path) => {
            let n = cite_ledger::rewrite::write_atomically(path, "write", write)?;
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
