//! The application layer, below both front ends (`cli` and `mcp`) and above the ledger,
//! the draft analysis and the renderers: what a command or a tool call does between its
//! arguments and its output, written once.
//!
//! - [`failure`]: the one failure type — its kind (usage, failed, internal, a verdict
//!   already printed, a broken pipe), the problem and the hints as separate fields — and
//!   how each front end shows it (an exit code for the CLI, `isError` for MCP).
//! - [`input`]: a text given as text or as a file path, read the one way.
//! - [`report`]: the Sources block and the `verify` report gathered from a ledger view.
//! - [`context`]: who is acting in one call.
//! - [`check_min_coverage`]: the one rule for a coverage threshold.

pub mod export;
pub mod failure;
pub mod html;
pub mod input;
pub mod report;

pub use failure::{Failure, Kind};
pub use input::{Input, Reading};

use crate::Context;

/// Who is acting in one call: the clock now, this process, `$CITE_ACTOR`, and `command`
/// (the CLI's argv; `cite mcp TOOL` for a tool call). The command goes into the log,
/// which is never rewritten: a PostgreSQL password in it (`--ledger`) is hidden, and the
/// credentials of any other URL (`cite add https://alice:pw@…`) are dropped.
pub fn context<I, S>(command: I) -> Context
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    Context {
        now: time::OffsetDateTime::now_utc(),
        pid: std::process::id(),
        actor: std::env::var("CITE_ACTOR").ok().filter(|a| !a.is_empty()),
        command: command
            .into_iter()
            .map(|word| cite_core::url::hide_credentials(&cite_store::hide_password(word.as_ref())))
            .collect(),
    }
}

/// Refuses a coverage threshold that is not a share between 0 and 1; `name` is how the
/// caller spells it (`--min-coverage`, `min_coverage`).
pub fn check_min_coverage(name: &str, value: Option<f64>) -> Result<(), Failure> {
    match value {
        Some(f) if !(0.0..=1.0).contains(&f) => Err(Failure::usage(format!(
            "{name} {f} is not a share between 0 and 1 (e.g. 0.6)"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_outside_0_to_1_is_a_usage_failure() {
        assert_eq!(check_min_coverage("min_coverage", Some(0.6)), Ok(()));
        assert_eq!(check_min_coverage("min_coverage", None), Ok(()));
        let f = check_min_coverage("--min-coverage", Some(1.5)).unwrap_err();
        assert_eq!(f.kind, Kind::Usage);
        assert_eq!(
            f.to_string(),
            "error: --min-coverage 1.5 is not a share between 0 and 1 (e.g. 0.6)"
        );
    }

    #[test]
    fn the_command_in_the_context_hides_a_password() {
        let ctx = context(["cite", "--ledger", "postgres://u:secret@h/db", "list"]);
        assert_eq!(
            ctx.command,
            ["cite", "--ledger", "postgres://u:***@h/db", "list"]
        );
        assert_eq!(ctx.pid, std::process::id());
        assert_eq!(
            context(["cite", "mcp", "add"]).command,
            ["cite", "mcp", "add"]
        );
        assert_eq!(
            context(["cite", "add", "https://alice:pw@intranet.example/r"]).command,
            ["cite", "add", "https://intranet.example/r"]
        );
    }
}
