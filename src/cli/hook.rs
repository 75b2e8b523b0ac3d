//! `cite hook claude-code`: register the sources of an agent's tool call as a side effect
//! of fetching, and tell the model their ids.
//!
//! Run by the agent after each tool call, with the call as JSON on stdin. It must never
//! stand in the agent's way: any failure (unreadable input, a busy, damaged or read-only
//! ledger) is one line on stderr and exit 0 with nothing on stdout, which the agent
//! treats as a hook that had nothing to say (see [`crate::hook`] for the protocol). The
//! exit code is set in `cli::run`, which knows no command but this one that always
//! succeeds.

use std::io::Read;

use crate::hook::{self, Ignored, Reading};
use cite_ledger::Ledger;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The agent whose hook input arrives on stdin
    agent: Agent,
    /// Route to record the sources under (default: the tool's name, e.g. WebFetch)
    #[arg(long, value_name = "ROUTE")]
    via: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Agent {
    /// Claude Code's PostToolUse hook
    ClaudeCode,
}

/// Shown under `cite hook --help`.
pub const AFTER_HELP: &str = "\
Claude Code: in .claude/settings.json (or ~/.claude/settings.json)
  {\"hooks\": {\"PostToolUse\": [{\"matcher\": \"WebFetch|WebSearch|mcp__.*\",
    \"hooks\": [{\"type\": \"command\", \"command\": \"cite hook claude-code\"}]}]}}
Each URL a WebFetch fetched, and each url/link/source_url in a WebSearch's or an MCP
tool's result, is registered (--via the tool's name), and the model is told its id.
Never fails the tool call: an error is one line on stderr, exit 0, no output.";

/// The largest hook input read. A tool result larger than this is skipped (with the
/// stderr line) rather than held in memory on every call.
const MAX_INPUT: u64 = 32 << 20;

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let Agent::ClaudeCode = args.agent;
    let payload = read_stdin()?;
    let call = match hook::read_claude_code(&payload).map_err(|e| CliError::usage(e.to_string()))? {
        Reading::Call(call) => call,
        Reading::Ignored(Ignored::Event(event)) => {
            // Wired to the wrong event: worth a line, since nothing will ever register.
            return Err(CliError::usage(format!(
                "ignored a {event:?} event: wire `cite hook claude-code` to PostToolUse"
            )));
        }
        Reading::Ignored(_) => return Ok(()),
    };
    drop(payload);
    for s in &call.skipped {
        eprintln!("cite hook: skipped {:?}, not a URL ({})", s.given, s.reason);
    }
    if call.found.is_empty() {
        return Ok(());
    }
    // A relative ledger path names the ledger in the agent's working folder, the one a
    // `cite` command run by the agent would use; the hook itself may run elsewhere.
    let ledger = match &call.cwd {
        Some(cwd) => match env.ledger.location().file() {
            Some(path) if path.is_relative() => {
                // The ledger's own folders are made as for any command, but never the
                // working folder a payload names: that is the agent's, not ours to make.
                if !cwd.is_dir() {
                    return Err(CliError::usage(format!(
                        "the agent's working folder {} does not exist, so its ledger {} \
                         was not opened; nothing was registered",
                        cwd.display(),
                        path.display()
                    )));
                }
                Ledger::new(cwd.join(path), env.ledger.wait())
            }
            _ => env.ledger.clone(),
        },
        _ => env.ledger.clone(),
    };
    let via = args
        .via
        .clone()
        .unwrap_or_else(|| hook::route_of(&call.tool));
    let added = ledger.register_found(&env.ctx, call.found, Some(&via))?;
    let context = hook::context_for_model(
        &call.tool,
        ledger.location(),
        &added.sources,
        &added.looks_like,
    );
    writeln!(env.out, "{}", hook::claude_code_answer(&context))?;
    Ok(())
}

fn read_stdin() -> Result<String, CliError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::usage(format!("cannot read the hook input: {e}")))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(CliError::usage(format!(
            "the hook input is larger than {} MiB; its sources were not registered",
            MAX_INPUT >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| CliError::usage("the hook input is not UTF-8 text"))
}
