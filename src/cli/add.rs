//! `cite add URL…`: register sources and print their ids.

use cite_core::render;
use cite_ledger::AddRequest;

use super::{CliError, Env, read_input};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// URLs to register (also doi:10.… and arXiv:ID)
    #[arg(required = true, value_name = "URL")]
    urls: Vec<String>,
    /// Title of the source (only when one URL is given)
    #[arg(long, allow_hyphen_values = true)]
    title: Option<String>,
    /// Access date, YYYY-MM-DD (default: today, UTC)
    #[arg(long, value_name = "DATE")]
    accessed: Option<String>,
    /// Route the source came from: web, reddit, rss, video, code, x, or any word
    #[arg(long, value_name = "ROUTE")]
    via: Option<String>,
    /// Store this file (or - for stdin) as the page text of the source, for later quotes
    #[arg(long, value_name = "FILE")]
    snapshot: Option<std::path::PathBuf>,
    /// Print the entries as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let req = AddRequest {
        urls: args.urls.clone(),
        title: args.title.clone(),
        accessed: args.accessed.clone(),
        via: args.via.clone(),
        snapshot: args.snapshot.as_deref().map(read_input).transpose()?,
    };
    let added = env.ledger.add(&env.ctx, &req)?;
    let ignored_title = render::ignored_title_note(args.title.is_some(), args.urls.len());
    if args.json {
        render::json_array(env.out, added.sources.iter().map(Ok::<_, CliError>))?;
    } else {
        for s in &added.sources {
            writeln!(env.out, "{}", render::id_line(s))?;
        }
    }
    // On stderr: stdout keeps `sources.py`'s lines (and JSON shape) for the tools that
    // read them.
    super::note(env, ignored_title)?;
    super::note(env, render::titles_kept_note(&added.titles_kept, true))?;
    super::note(env, render::shared_page_note(&added.page_also_stored_for))?;
    for l in &added.looks_like {
        super::note(env, Some(render::looks_like_note(l)))?;
    }
    Ok(())
}
