//! `cite rebuild`.

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_env: &mut Env<'_>, _args: &Args) -> Result<(), CliError> {
    Err(CliError::failed("`rebuild` is not built yet"))
}
