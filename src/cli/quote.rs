//! `cite quote ID --text T --from FILE|-`: attach a verbatim quote, checked against the
//! fetched page text.

use std::path::PathBuf;

use cite_core::render;

use super::{CliError, Env, read_input};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Ledger id of the source the quote supports
    id: u64,
    /// The exact quote, copied from the page (it may start with a dash: `-40 degrees…`)
    #[arg(long, allow_hyphen_values = true)]
    text: String,
    /// File with the fetched page text (or - for stdin) the quote must appear in;
    /// default: the text stored with `add --snapshot`
    #[arg(long = "from", value_name = "FILE")]
    from: Option<PathBuf>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let evidence = args.from.as_deref().map(read_input).transpose()?;
    let attached = env
        .ledger
        .quote(&env.ctx, args.id, &args.text, evidence.as_deref())?;
    if args.json {
        let text = serde_json::to_string_pretty(&attached).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
    } else {
        writeln!(env.out, "{}", render::attached_line(&attached))?;
    }
    // On stderr: the success line stays the first and only line of stdout, as tools
    // match on it; `--json` carries the ids as `page_also_stored_for`.
    super::note(
        env,
        render::shared_page_note(&attached.page_also_stored_for),
    )
}
