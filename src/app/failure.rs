//! The one failure type of both front ends: every failure becomes a message and an exit
//! code here. The CLI exits with the code; `cite mcp` answers a tool error (`isError`)
//! with the message.
//!
//! Exit codes (SPEC): 0 success; 1 a check or an operation failed; 2 the caller's
//! mistake (bad flag, unreadable input, not a URL). Messages go to stderr, prefixed
//! `error: ` unless the reference prints them bare.

use std::io;
use std::path::Path;

use crate::ledger::Error;

/// A failure on its way to the user.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            message: format!("error: {}", message.into()),
        }
    }

    pub fn failed(message: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            message: format!("error: {}", message.into()),
        }
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
                crate::store::pg::hide_password(&p.to_string_lossy())
            ),
            None => "the ledger".to_string(),
        };
        Failure::failed(format!(
            "internal error ({what}) — {which} may be damaged; run `cite audit`, and report this if it is not"
        ))
    }

    /// An input file that could not be read: the caller's mistake.
    pub fn unreadable(path: &Path, e: &io::Error) -> Failure {
        crate::input::unreadable(path, e).into()
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

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        match e {
            // sources.py prints this one without a prefix; tools match on it.
            Error::NoUrls => Failure {
                code: 1,
                message: e.to_string(),
            },
            e if e.is_usage() => Failure::usage(e.to_string()),
            e => Failure::failed(e.to_string()),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        // A reader that stopped reading (`cite list | head`) is not a failure.
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Failure {
                code: 0,
                message: String::new(),
            };
        }
        Failure::failed(format!("cannot write output: {e}"))
    }
}
