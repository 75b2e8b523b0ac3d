//! `cite show ID`: one source, with its history; with `--text`, its stored page texts.

use cite_core::render;
use cite_core::text::shell_word;
use cite_ledger::TextRequest;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The source's id
    id: u64,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Print the source as JSON
    #[arg(long)]
    json: bool,
    /// Print the page texts stored for the source (a page at a time: see --offset)
    #[arg(long)]
    text: bool,
    /// With --text: only the page text whose hash starts with HASH (as listed by show)
    #[arg(long, value_name = "HASH", requires = "text")]
    snapshot: Option<String>,
    /// With --text: start at character N (the end of the last part printed says which)
    #[arg(long, value_name = "N", default_value_t = 0, requires = "text")]
    offset: u64,
    /// With --text: print at most N characters of each page text
    #[arg(
        long,
        value_name = "N",
        default_value_t = TextRequest::LIMIT,
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "text"
    )]
    limit: u64,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    if let Some(hash) = &args.snapshot
        && !(hash.len() >= 4 && hash.len() <= 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(CliError::usage(format!(
            "--snapshot {}: give the start of a page text's hash (4 to 64 hex digits), as `cite show {}` lists it",
            shell_word(hash),
            args.id
        )));
    }
    let request = args.text.then(|| TextRequest {
        snapshot: args.snapshot.clone(),
        offset: args.offset,
        limit: args.limit,
    });
    let view = env.ledger.view(args.epoch)?;
    let detail = view.show(args.id, request.as_ref())?;
    if args.json {
        let text = serde_json::to_string_pretty(&detail).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
        return Ok(());
    }
    if !args.text {
        let read = format!("read with `cite show {} --text`", args.id);
        for line in render::show(&detail, &read) {
            writeln!(env.out, "{line}")?;
        }
        return Ok(());
    }
    if detail.page_texts.is_empty() {
        return Err(CliError::failed(format!(
            "no page text is stored for [{id}] — give the fetched page with `cite quote {id} --text … --from FILE`, or store it with `cite add URL --snapshot FILE`",
            id = args.id
        )));
    }
    let next = |p: &cite_core::model::PageText, from: u64, several: bool| {
        let mut call = format!("cite show {} --text", args.id);
        if let Some(epoch) = args.epoch {
            call.push_str(&format!(" --epoch {epoch}"));
        }
        if several {
            let short = p.snapshot.get(..12).unwrap_or(&p.snapshot);
            call.push_str(&format!(" --snapshot {short}"));
        }
        if args.limit != TextRequest::LIMIT {
            call.push_str(&format!(" --limit {}", args.limit));
        }
        format!("{call} --offset {from}")
    };
    for line in render::page_texts(&detail, &next) {
        writeln!(env.out, "{line}")?;
    }
    Ok(())
}
