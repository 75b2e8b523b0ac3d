//! `cite import LEDGER.json`: a `sources.py` ledger into the current epoch, ids kept.

use std::path::PathBuf;

use crate::ledger::import::ImportRequest;

use super::{CliError, Env, read_input};

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
