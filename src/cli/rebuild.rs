//! `cite rebuild`: recompute every materialized table from the event log, under the
//! exclusive maintenance lock.

use super::audit::plural;
use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(env: &mut Env<'_>, _args: &Args) -> Result<(), CliError> {
    let r = env.ledger.rebuild()?;
    writeln!(
        env.out,
        "rebuilt {}: {}, {}, {}",
        plural(r.records, "record"),
        plural(r.epochs, "epoch"),
        plural(r.sources, "source"),
        plural(r.quotes, "quote"),
    )?;
    Ok(())
}
