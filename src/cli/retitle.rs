//! `cite retitle ID TITLE`: correct a source's title. A correction is an event, never an
//! edit: the log keeps the title it had.

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Ledger id of the source
    id: u64,
    /// The corrected title
    #[arg(allow_hyphen_values = true)]
    title: String,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let done = env.ledger.retitle(&env.ctx, args.id, &args.title)?;
    if args.json {
        let text = serde_json::to_string_pretty(&done).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
    } else {
        writeln!(env.out, "{}", cite_core::render::retitled_line(&done))?;
    }
    Ok(())
}
