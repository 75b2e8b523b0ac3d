//! `cite reset`: start a fresh numbering.

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(env: &mut Env<'_>, _args: &Args) -> Result<(), CliError> {
    env.ledger.reset(&env.ctx)?;
    writeln!(env.out, "ledger reset: {}", env.ledger.location())?;
    Ok(())
}
