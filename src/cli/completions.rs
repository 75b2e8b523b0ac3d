//! `cite completions SHELL`: a shell completion script on stdout.

use clap::CommandFactory;
use clap_complete::Shell;

use super::{Cli, CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to complete for
    shell: Shell,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "cite", &mut env.out);
    Ok(())
}
