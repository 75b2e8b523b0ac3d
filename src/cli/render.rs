//! `cite render`: the Sources block, to stdout or rewritten in place in a draft.

use std::path::PathBuf;

use crate::draft;
use crate::ledger::report;
use crate::render::sources::{IdSet, Style};

use super::{CliError, Env, read_input};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Block style
    #[arg(long, value_enum, default_value = "markdown")]
    style: Style,
    /// Ids to include, e.g. 1,3,5-7
    #[arg(long, value_name = "IDS")]
    only: Option<String>,
    /// Include only ids cited in this draft's prose
    #[arg(long, value_name = "FILE")]
    cited_in: Option<PathBuf>,
    /// Rewrite this draft's Sources block in place (implies --cited-in on it)
    #[arg(long, value_name = "FILE")]
    replace_in: Option<PathBuf>,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let only = args
        .only
        .as_deref()
        .map(IdSet::parse)
        .transpose()
        .map_err(|e| CliError::usage(format!("--only: {e}")))?;
    if let Some(path) = &args.replace_in {
        // Checked before the draft is read: a FIFO would block the read.
        super::rewritable(path, "rewrite")?;
    }
    let draft_path = args.replace_in.as_ref().or(args.cited_in.as_ref());
    let draft_text = draft_path.map(|p| read_input(p)).transpose()?;
    let cited = draft_text.as_deref().map(draft::cited_ids);

    let view = env.ledger.view(args.epoch)?;
    let (_, block) = report::block(&view, args.style, only.as_ref(), cited.as_ref())?;
    if block.is_empty() {
        return Err(CliError {
            code: 1,
            message: report::NOTHING_TO_RENDER.into(),
        });
    }
    match (&args.replace_in, draft_text) {
        (Some(path), Some(text)) => {
            let body = draft::body_without_block(&text);
            let mut rewritten = format!("{}\n\n{}\n", body.trim_end_matches('\n'), block);
            // A draft written with CRLF line endings keeps them, block included.
            if text.find('\n').is_some_and(|i| text[..i].ends_with('\r')) {
                rewritten = rewritten.replace("\r\n", "\n").replace('\n', "\r\n");
            }
            super::write_atomically(path, "rewrite", |out| {
                Ok(out.write_all(rewritten.as_bytes())?)
            })?;
            writeln!(env.out, "Sources block rewritten in {}", path.display())?;
        }
        _ => writeln!(env.out, "{block}")?,
    }
    Ok(())
}
