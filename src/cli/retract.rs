//! `cite retract ID --quote N --reason TEXT`: retract a quote. A correction is an event,
//! never an edit: the quote stays in the log and in `show`, and counts for nothing.

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Ledger id of the source
    id: u64,
    /// The quote's number, as `cite show ID` numbers them
    #[arg(long, value_name = "N")]
    quote: u64,
    /// Why it is retracted (kept in the log beside it)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    reason: String,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let done = env
        .ledger
        .retract(&env.ctx, args.id, args.quote, &args.reason)?;
    if args.json {
        let text = serde_json::to_string_pretty(&done).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
    } else {
        writeln!(env.out, "{}", cite_core::render::retracted_line(&done))?;
    }
    Ok(())
}
