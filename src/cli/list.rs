//! `cite list`: the sources of an epoch.

use crate::render;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the sources as JSON
    #[arg(long)]
    json: bool,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Count sources per route (--via) instead of listing them
    #[arg(long)]
    by_via: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let view = env.ledger.view(args.epoch)?;
    if args.by_via {
        let counts = view.by_via()?;
        if args.json {
            render::json_array(env.out, counts.iter().map(Ok::<_, CliError>))?;
        } else {
            for c in &counts {
                writeln!(env.out, "{}", render::route_line(c))?;
            }
        }
        return Ok(());
    }
    if args.json {
        return render::json_array(env.out, view.sources()?.map(|r| r.map_err(CliError::from)));
    }
    let mut any = false;
    for s in view.sources()? {
        any = true;
        writeln!(env.out, "{}", render::list_line(&s?))?;
    }
    if !any {
        writeln!(env.out, "ledger is empty: {}", env.ledger.path().display())?;
    }
    Ok(())
}
