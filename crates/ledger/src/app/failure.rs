//! The one failure type of both front ends: what kind of failure it is, the problem, and
//! what to do about it, kept apart. Each front end maps it: the CLI exits with
//! [`Kind::exit_code`] and prints the failure on stderr; `cite mcp` answers a tool error
//! (`isError`) with the same text.
//!
//! Exit codes (SPEC): 0 success; 1 a check or an operation failed; 2 the caller's
//! mistake (bad flag, unreadable input, not a URL). Messages go to stderr as
//! `error: PROBLEM — HINT — HINT`, without the `error: ` prefix where the reference
//! prints them bare.

use std::fmt;
use std::io;
use std::path::Path;

use crate::Error;

/// What kind of failure: decides the exit code, and whether there is anything to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The caller's mistake: a bad flag or parameter, unreadable input, not a URL.
    Usage,
    /// A check or an operation failed.
    Failed,
    /// A panic caught at the boundary: a bug, or a store damaged in a way redb does not
    /// report as an error.
    Internal,
    /// The command printed its own verdict (`verify`, `audit`) and it is a failure:
    /// nothing more to say.
    Reported,
    /// The reader of the output went away (`cite list | head`): not a failure, nothing
    /// to say.
    BrokenPipe,
}

impl Kind {
    /// The CLI's exit code for this kind (SPEC): 2 for the caller's mistake, 1 for a
    /// failure, 0 for a reader that stopped reading.
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::Usage => 2,
            Kind::Failed | Kind::Internal | Kind::Reported => 1,
            Kind::BrokenPipe => 0,
        }
    }

    /// Whether a failure of this kind has nothing to show (its output was the verdict,
    /// or there is no reader left).
    pub fn is_silent(self) -> bool {
        matches!(self, Kind::Reported | Kind::BrokenPipe)
    }
}

/// A failure on its way to the user. Shown (its `Display`) as `error: MESSAGE`, then
/// ` — HINT` for each hint; `bare` leaves out the `error: ` prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: Kind,
    /// The problem (empty for a silent kind).
    pub message: String,
    /// What to do about it, in order.
    pub hints: Vec<String>,
    /// Shown without the `error: ` prefix, as the reference prints a few messages
    /// (tools match on them).
    pub bare: bool,
}

impl Failure {
    fn new(kind: Kind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            hints: Vec::new(),
            bare: false,
        }
    }

    /// The caller's mistake (exit 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Kind::Usage, message)
    }

    /// A failed check or operation (exit 1).
    pub fn failed(message: impl Into<String>) -> Failure {
        Failure::new(Kind::Failed, message)
    }

    /// Something that should not happen (exit 1).
    pub fn internal(message: impl Into<String>) -> Failure {
        Failure::new(Kind::Internal, message)
    }

    /// A failure whose verdict the command has printed already (exit 1, nothing more).
    pub fn reported() -> Failure {
        Failure::new(Kind::Reported, "")
    }

    /// Output nobody reads any more (exit 0, nothing printed).
    pub fn broken_pipe() -> Failure {
        Failure::new(Kind::BrokenPipe, "")
    }

    /// The same failure with `hint` (what to do) added after the others.
    pub fn hint(mut self, hint: impl Into<String>) -> Failure {
        self.hints.push(hint.into());
        self
    }

    /// The same failure shown without the `error: ` prefix.
    pub fn without_prefix(mut self) -> Failure {
        self.bare = true;
        self
    }

    /// The CLI's exit code ([`Kind::exit_code`]).
    pub fn exit_code(&self) -> i32 {
        self.kind.exit_code()
    }

    /// The problem and its hints, `MESSAGE — HINT — HINT`, without the prefix (empty for
    /// a silent kind).
    pub fn text(&self) -> String {
        if self.kind.is_silent() {
            return String::new();
        }
        let mut text = self.message.clone();
        for hint in &self.hints {
            text.push_str(" — ");
            text.push_str(hint);
        }
        text
    }

    /// A panic caught at the boundary: a bug, or a store damaged in a way redb does not
    /// report as an error.
    pub fn panicked(ledger: Option<&Path>, payload: &(dyn std::any::Any + Send)) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let which = match ledger {
            Some(p) => format!(
                "the ledger at {}",
                cite_store::hide_password(&p.to_string_lossy())
            ),
            None => "the ledger".to_string(),
        };
        Failure::internal(format!("internal error ({what})")).hint(format!(
            "{which} may be damaged; run `cite audit`, and report this if it is not"
        ))
    }

    /// An input file that could not be read: the caller's mistake.
    pub fn unreadable(path: &Path, e: &io::Error) -> Failure {
        crate::input::unreadable(path, e).into()
    }
}

/// What the user sees: `error: MESSAGE — HINT …` (nothing for a silent kind).
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.is_silent() {
            return Ok(());
        }
        if !self.bare {
            f.write_str("error: ")?;
        }
        f.write_str(&self.text())
    }
}

impl From<crate::input::InputError> for Failure {
    fn from(e: crate::input::InputError) -> Failure {
        Failure::usage(e.to_string())
    }
}

impl From<crate::rewrite::RewriteError> for Failure {
    fn from(e: crate::rewrite::RewriteError) -> Failure {
        use crate::rewrite::RewriteError;
        match e {
            RewriteError::Usage(m) => Failure::usage(m),
            RewriteError::Failed(m) => Failure::failed(m),
            // `#[non_exhaustive]`: a new kind is a failure until said otherwise.
            #[allow(unreachable_patterns)]
            e => Failure::failed(e.to_string()),
        }
    }
}

impl From<crate::rewrite::ReplaceInError> for Failure {
    fn from(e: crate::rewrite::ReplaceInError) -> Failure {
        use crate::rewrite::ReplaceInError;
        match e {
            ReplaceInError::Rewrite(e) => e.into(),
            ReplaceInError::Input(e) => e.into(),
            ReplaceInError::Draft { message } => Failure::failed(message),
            #[allow(unreachable_patterns)]
            e => Failure::failed(e.to_string()),
        }
    }
}

/// A ledger error keeps its whole wording (hints included) as the message: it is
/// worded where it is raised.
impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        match e {
            // sources.py prints this one without a prefix; tools match on it.
            Error::NoUrls => Failure::failed(e.to_string()).without_prefix(),
            e if e.is_usage() => Failure::usage(e.to_string()),
            e => Failure::failed(e.to_string()),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        // A reader that stopped reading (`cite list | head`) is not a failure.
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Failure::broken_pipe();
        }
        Failure::failed(format!("cannot write output: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_exit_code() {
        assert_eq!(Kind::Usage.exit_code(), 2);
        assert_eq!(Kind::Failed.exit_code(), 1);
        assert_eq!(Kind::Internal.exit_code(), 1);
        assert_eq!(Kind::Reported.exit_code(), 1);
        assert_eq!(Kind::BrokenPipe.exit_code(), 0);
        assert_eq!(Failure::usage("x").exit_code(), 2);
        assert_eq!(Failure::failed("x").exit_code(), 1);
    }

    #[test]
    fn hints_follow_the_problem_after_dashes() {
        let f = Failure::usage("FROM and TO are the same ledger").hint("name another TO");
        assert_eq!(f.message, "FROM and TO are the same ledger");
        assert_eq!(f.hints, ["name another TO"]);
        assert_eq!(
            f.text(),
            "FROM and TO are the same ledger — name another TO"
        );
        assert_eq!(
            f.to_string(),
            "error: FROM and TO are the same ledger — name another TO"
        );
        let two = Failure::failed("p").hint("a").hint("b");
        assert_eq!(two.to_string(), "error: p — a — b");
        assert_eq!(Failure::failed("no hint").to_string(), "error: no hint");
    }

    #[test]
    fn a_bare_failure_has_no_prefix() {
        let f: Failure = Error::NoUrls.into();
        assert_eq!(f.kind, Kind::Failed);
        // sources.py's words first, then what was looked for and what to do.
        let shown = f.to_string();
        assert!(shown.starts_with("no urls found in input — "), "{shown}");
        assert!(shown.ends_with("run `cite add URL`"), "{shown}");
    }

    #[test]
    fn silent_kinds_show_nothing() {
        assert_eq!(Failure::reported().to_string(), "");
        assert_eq!(Failure::reported().exit_code(), 1);
        let pipe: Failure = io::Error::from(io::ErrorKind::BrokenPipe).into();
        assert_eq!(pipe.kind, Kind::BrokenPipe);
        assert_eq!(pipe.to_string(), "");
        assert_eq!(pipe.exit_code(), 0);
        let other: Failure = io::Error::other("disk full").into();
        assert_eq!(other.to_string(), "error: cannot write output: disk full");
    }

    #[test]
    fn a_panic_is_internal_with_advice_as_a_hint() {
        let f = Failure::panicked(Some(Path::new("/tmp/l.redb")), &"boom");
        assert_eq!(f.kind, Kind::Internal);
        assert_eq!(f.exit_code(), 1);
        assert_eq!(f.message, "internal error (boom)");
        assert_eq!(
            f.to_string(),
            "error: internal error (boom) — the ledger at /tmp/l.redb may be damaged; run `cite audit`, and report this if it is not"
        );
    }
}
