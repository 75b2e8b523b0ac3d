//! `cite import LEDGER.json`: a `sources.py` ledger into the current epoch, ids kept.

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;

use crate::ledger::import::ImportRequest;

use super::{CliError, Env, read_input};

/// Imports larger than this show progress (on a terminal).
const PROGRESS_ABOVE: u64 = 10_000;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sources.py ledger (JSON), or - for stdin
    #[arg(value_name = "LEDGER.json")]
    file: PathBuf,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let from = args.file.display().to_string();
    let text = read_input(&args.file)?;
    let req = ImportRequest::parse(&text, &from).map_err(crate::ledger::Error::from)?;
    drop(text);
    let total = req.sources();
    let show = total > PROGRESS_ABOVE && std::io::stderr().is_terminal();
    let mut progress = |done: u64, total: u64| {
        if show && (done.is_multiple_of(1000) || done == total) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\rimporting: {done}/{total} sources");
            if done == total {
                let _ = writeln!(err);
            }
        }
    };
    let imported = env.ledger.import(&env.ctx, req, &mut progress)?;
    if args.json {
        let text = serde_json::to_string_pretty(&imported).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
    } else {
        writeln!(
            env.out,
            "imported {} source(s) and {} quote(s) from {} into epoch {}",
            imported.sources, imported.quotes, imported.from, imported.epoch
        )?;
    }
    Ok(())
}
