//! `cite ingest FILE|-`: register every URL in JSON tool output, in one transaction.

use std::path::PathBuf;

use cite_core::render;

use super::{CliError, Env, read_input};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// JSON file, or - for stdin
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Route these sources came from: web, reddit, rss, video, code, x, or any word
    #[arg(long, value_name = "ROUTE")]
    via: Option<String>,
    /// Print the entries as JSON
    #[arg(long)]
    json: bool,
}

/// How a quote is checked against page text `ingest` stored, in the CLI's terms.
const PAGE_TEXT_HOW: &str = "`cite quote ID --text …` checks a quote against it without --from";

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let text = read_input(&args.file)?;
    // The URL count is known only once parsed; a large input is a large ingest.
    let mut progress = super::progress("registering", "URLs", (text.len() / 64) as u64);
    let ingested =
        env.ledger
            .ingest_with_progress(&env.ctx, text, args.via.as_deref(), &mut progress)?;
    for s in &ingested.skipped {
        eprintln!("warn: skipped {:?}, not a URL ({})", s.given, s.reason);
    }
    // On stderr: stdout keeps `sources.py`'s `[ID] URL` lines, which scripts read.
    if let Some(note) = render::page_text_note(&ingested.page_text_stored, PAGE_TEXT_HOW) {
        eprintln!("{note}");
    }
    if args.json {
        render::json_array(env.out, ingested.sources.iter().map(Ok::<_, CliError>))?;
    } else {
        for s in &ingested.sources {
            writeln!(env.out, "{}", render::id_line(s))?;
        }
    }
    Ok(())
}
