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

/// How much sooner than the hook's limit (`--wait`, 2 s by default) the ledger's own
/// waits end: the time to give their answer and exit.
const OWN_SLACK: std::time::Duration = std::time::Duration::from_millis(200);

/// The largest hook input read. A tool result larger than this is skipped (with the
/// stderr line) rather than held in memory on every call.
const MAX_INPUT: u64 = 32 << 20;

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let started = std::time::Instant::now();
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
    // The ledger's own waits end a little before the hook's, so that what they say
    // (busy, no answer to the login) is what the agent's log shows.
    let limit = ledger.wait();
    let inner = Ledger::new(
        ledger.location().clone(),
        limit.saturating_sub(OWN_SLACK).max(limit / 2),
    );
    let added = within(limit.saturating_sub(started.elapsed()), {
        let (ledger, ctx, found) = (inner, env.ctx.clone(), call.found);
        move || {
            ledger
                .register_found(&ctx, found, Some(&via))
                .map_err(CliError::from)
        }
    })
    .map_err(|e| CliError::failed(format!("cannot start the registration: {e}")))?
    .unwrap_or_else(|| {
        Err(CliError::failed(format!(
            "the ledger at {} did not answer within {} s, the hook's limit: this {} call's \
             sources may not be registered (`cite add` them if the model needs their ids)",
            ledger.location(),
            limit.as_secs_f64(),
            call.tool
        )))
    })?;
    let context = hook::context_for_model(
        &call.tool,
        ledger.location(),
        &added.sources,
        &added.looks_like,
    );
    writeln!(env.out, "{}", hook::claude_code_answer(&context))?;
    Ok(())
}

/// `register` run on a thread of its own, its answer waited for at most `limit`; `None`
/// past it (an error: no thread could be started). The agent waits for its hooks after
/// every tool call, and each step of a write (the login, every statement) has a deadline
/// of its own, so only a bound on the whole keeps the hook's: the write left running
/// ends with the process. Nothing is printed for it, so no id is shown that might not be
/// on disk; a write that was already committing is complete or absent, as after any
/// crash.
fn within<T: Send + 'static>(
    limit: std::time::Duration,
    register: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<Option<T>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("cite-hook".into())
        .spawn(move || {
            let _ = tx.send(register());
        })?;
    Ok(rx.recv_timeout(limit).ok())
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
