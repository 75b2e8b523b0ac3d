//! `cite completions SHELL`: a shell completion script on stdout.

use clap_complete::Shell;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to complete for
    shell: Shell,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let mut cmd = super::command();
    // `clap_complete::generate` panics when a write fails, and a panic reads as a damaged
    // ledger; a script of a few kilobytes is built in memory and written here, where a
    // closed pipe (`cite completions bash | head`) is not an error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "cite", &mut script);
    env.out.write_all(&script)?;
    Ok(())
}
