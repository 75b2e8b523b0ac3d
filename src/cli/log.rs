//! `cite log`: the event log, or the history of one source.

use cite_core::render;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the events of this source (in the chosen epoch)
    #[arg(long, value_name = "N")]
    id: Option<u64>,
    /// Only the events of this epoch
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Print the entries as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let view = env.ledger.view(args.epoch)?;
    let entries: Box<dyn Iterator<Item = Result<_, CliError>>> = match args.id {
        Some(id) => Box::new(view.history(id)?.into_iter().map(Ok)),
        None => {
            // Without `--epoch` the log spans every epoch.
            let only = args.epoch.map(|_| view.epoch());
            Box::new(view.log(only)?.map(|r| r.map_err(CliError::from)))
        }
    };
    if args.json {
        return render::json_array(env.out, entries);
    }
    for e in entries {
        writeln!(env.out, "{}", render::log_line(&e?))?;
    }
    Ok(())
}
