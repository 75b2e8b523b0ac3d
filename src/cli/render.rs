//! `cite render`: the Sources block, to stdout or rewritten in place in a draft.

use std::path::PathBuf;

use cite_core::draft::{self, Advice};
use cite_core::render::sources::Style;
use cite_core::text::shell_word;
use cite_ledger::app::report;
use cite_ledger::rewrite::DraftRewrite;

use super::{CliError, Env, read_input};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Block style
    #[arg(long, value_enum, default_value = "markdown")]
    style: Style,
    /// Ids to include, e.g. 1,3,5-7
    #[arg(long, value_name = "IDS")]
    only: Option<String>,
    /// Include only ids cited in this draft's prose (`-` reads it from stdin)
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
    let only = report::Only::parse(args.only.as_deref(), "--only")?;
    let rewrite = match &args.replace_in {
        Some(path) => {
            let rerun = format!(
                "cite render --replace-in {}",
                shell_word(&path.to_string_lossy())
            );
            Some(DraftRewrite::open(path, &rerun)?)
        }
        None => None,
    };
    let cited_in = match (&rewrite, &args.cited_in) {
        (None, Some(path)) => Some(read_input(path)?),
        _ => None,
    };
    let draft_text = rewrite
        .as_ref()
        .map(DraftRewrite::text)
        .or(cited_in.as_deref());
    let cited = draft_text.map(draft::cited_ids);

    let view = env.ledger.view(args.epoch)?;
    let picked = report::selection(
        &view,
        only.as_ref(),
        cited.as_ref(),
        Advice::Shell,
        &env.ledger.location().to_string(),
    )?;
    let (_, block) = report::block(&view, args.style, picked.as_deref())?;
    if block.is_empty() {
        return Err(report::nothing_to_render());
    }
    match (rewrite, &args.replace_in) {
        (Some(rewrite), Some(path)) => {
            rewrite.write(&block)?;
            writeln!(env.out, "Sources block rewritten in {}", path.display())?;
        }
        _ => writeln!(env.out, "{block}")?,
    }
    Ok(())
}
