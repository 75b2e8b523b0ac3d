//! `cite render`: the Sources block, to stdout or rewritten in place in a draft.

use std::path::{Path, PathBuf};

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
    let body = match (&args.replace_in, &draft_text) {
        (Some(path), Some(text)) => {
            Some(draft::body_for_block(text).map_err(|e| refusal(path, e))?)
        }
        _ => None,
    };
    let cited = draft_text.as_deref().map(draft::cited_ids);

    let view = env.ledger.view(args.epoch)?;
    let (_, block) = report::block(&view, args.style, only.as_ref(), cited.as_ref())?;
    if block.is_empty() {
        return Err(CliError {
            code: 1,
            message: report::NOTHING_TO_RENDER.into(),
        });
    }
    match (&args.replace_in, body, &draft_text) {
        (Some(path), Some(body), Some(text)) => {
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

/// Why the block is not written into `path`, and what to do first (exit 1: the draft
/// is as it was).
fn refusal(path: &Path, e: draft::ReplaceError) -> CliError {
    let shown = path.display();
    let rerun = format!(
        "then run `cite render --replace-in {}` again; nothing was written",
        crate::text::shell_word(&path.to_string_lossy())
    );
    CliError::failed(match e {
        draft::ReplaceError::UnclosedFence(fence) => format!(
            "{shown}: the code fence opened at line {} is never closed, so a block written after it would be code — close it with a line {}, {rerun}",
            fence.line,
            fence.closer()
        ),
        draft::ReplaceError::MisplacedSection(m) => {
            let follows = m
                .followed_by
                .map(|b| format!(" (other text follows at line {b})"))
                .unwrap_or_default();
            format!(
                "{shown} has a Sources section at line {} that is not the block at its end{follows}, and a new block would make two — keep your text under another heading, remove that Sources heading and the entries under it, {rerun}",
                m.header
            )
        }
    })
}
