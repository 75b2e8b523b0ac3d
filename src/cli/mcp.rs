//! `cite mcp`: serve the ledger to MCP clients over stdin/stdout.

use crate::mcp::Server;

use super::{CliError, Env};

/// Shown under `cite mcp --help`: the server is started by an agent, never by hand, so
/// the help says how to tell the agent about it.
pub const AFTER_HELP: &str = "\
Tools: add, ingest, quote, list, render, verify. Stdout carries only protocol messages.

Register it with Claude Code:
  claude mcp add cite -- cite mcp
  claude mcp add cite -e CITE_LEDGER=\"$PWD/ledger.redb\" -- cite mcp
or in a project's .mcp.json:
  {\"mcpServers\": {\"cite\": {\"command\": \"cite\", \"args\": [\"mcp\", \"--ledger\", \"ledger.redb\"]}}}
Hermes (~/.hermes/config.yaml):
  mcp_servers:
    cite:
      command: cite
      args: [\"mcp\", \"--ledger\", \"/home/me/research/ledger.redb\"]";

#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the server on a current-thread tokio runtime until the client disconnects.
/// Stdout carries only protocol messages; anything else goes to stderr.
pub fn run(env: &mut Env<'_>, _args: &Args) -> Result<(), CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the MCP server: {e}")))?;
    let server = Server::new(env.ledger.clone());
    let served = runtime.block_on(server.serve_stdio());
    // A read of stdin still pending on the blocking pool must not hold the exit.
    runtime.shutdown_background();
    served.map_err(CliError::failed)
}
