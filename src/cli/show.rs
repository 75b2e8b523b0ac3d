//! `cite show ID`: one source, with its history.

use cite_core::render;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The source's id
    id: u64,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Print the source as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let view = env.ledger.view(args.epoch)?;
    let detail = view.detail(args.id)?;
    if args.json {
        let text = serde_json::to_string_pretty(&detail).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
    } else {
        for line in render::show(&detail) {
            writeln!(env.out, "{line}")?;
        }
    }
    Ok(())
}
