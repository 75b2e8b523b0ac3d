//! `cite mcp`: serve the ledger to MCP clients over stdin/stdout.

use crate::mcp::Server;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the server on a current-thread tokio runtime until the client disconnects.
/// Stdout carries only protocol messages; anything else goes to stderr.
pub fn run(env: &mut Env<'_>, _args: &Args) -> Result<(), CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the MCP server: {e}")))?;
    // Kept open between calls, with group commit (ledger::kept).
    let ledger = env.ledger.keep_open();
    let server = Server::new(ledger.clone());
    let served = runtime.block_on(server.serve_stdio());
    // A read of stdin still pending on the blocking pool must not hold the exit.
    runtime.shutdown_background();
    ledger.close_kept();
    served.map_err(CliError::failed)
}
