//! `cite import LEDGER.json`: a `sources.py` ledger into the current epoch, ids kept.

use std::io;
use std::path::PathBuf;

use cite_ledger::import::ImportRequest;

use super::{CliError, Env};

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
    let req = if args.file.as_os_str() == "-" {
        ImportRequest::from_reader(io::stdin().lock(), &from)
    } else {
        ImportRequest::open(&args.file, &from)
    }
    .map_err(cite_ledger::Error::from)?;
    let mut progress = super::progress("importing", "sources", req.sources());
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
