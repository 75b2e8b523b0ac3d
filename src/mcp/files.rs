//! Which files a tool call may name (`from` of `quote`, `path` of `verify`, `cited_in`
//! and `replace_in` of `render`, `cited_in_file` of `export`).
//!
//! Over stdio the client is the user who started the server: any file the user can
//! reach. Over HTTP the client is whoever holds the token, who should get the ledger,
//! not the server's filesystem: no file at all, unless the server was started with
//! `--files DIR`, and then only files inside DIR ([`Folder`]: no `..`, absolute path or
//! symbolic link leads out of it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cite_ledger::app::Failure;
use cite_ledger::app::input::{Input, Reading};
use cite_ledger::confined::{Folder, Refused};
use cite_ledger::rewrite::DraftRewrite;

/// Which files a client may name.
#[derive(Clone)]
pub enum Files {
    /// Any the server's user can reach (stdio).
    Any,
    /// None (HTTP without `--files`).
    None,
    /// Only inside this folder (HTTP with `--files DIR`); relative paths start there.
    Inside(Arc<Folder>),
}

/// A tool argument naming a file, and how to give the text instead.
#[derive(Clone, Copy)]
pub struct FileArg {
    /// The argument's name (`from`).
    name: &'static str,
    /// What to pass instead, for the refusal (`the page text itself as evidence`).
    instead: &'static str,
}

impl FileArg {
    pub const fn new(name: &'static str, instead: &'static str) -> FileArg {
        FileArg { name, instead }
    }
}

impl Files {
    /// The text a call gave as `text`, or read from the file `path` names (`arg`), if
    /// any; both is refused with `both`.
    pub fn text_or_file(
        &self,
        text: Option<String>,
        path: Option<PathBuf>,
        arg: FileArg,
        both: &str,
        how: Reading,
    ) -> Result<Option<String>, Failure> {
        let Some(input) = Input::one_of(text, path, both)? else {
            return Ok(None);
        };
        let path = match (self, input) {
            (Files::Any, input) | (_, input @ (Input::Text(_) | Input::Stdin)) => {
                return input.read(how).map(Some);
            }
            (_, Input::File(path)) => path,
        };
        match self {
            Files::Inside(folder) => folder
                .read(&path, how == Reading::Draft)
                .map(Some)
                .map_err(|r| refused(r, arg)),
            _ => Err(no_files(arg)),
        }
    }

    /// The draft `path` names, opened to have its Sources block rewritten (`arg`).
    pub fn rewrite(&self, path: &Path, arg: FileArg, rerun: &str) -> Result<DraftRewrite, Failure> {
        match self {
            Files::Any => Ok(DraftRewrite::open(path, rerun)?),
            Files::None => Err(no_files(arg)),
            Files::Inside(folder) => {
                let place = folder.resolve(path).map_err(|r| refused(r, arg))?;
                Ok(DraftRewrite::open_in(place, rerun)?)
            }
        }
    }
}

/// The refusal of a file argument by a server that opens no files for its client.
fn no_files(arg: FileArg) -> Failure {
    Failure::usage(format!(
        "{} names a file, and this server opens no files for its HTTP clients",
        arg.name
    ))
    .hint(format!(
        "pass {}, or start the server with --files DIR to let clients name files inside DIR",
        arg.instead
    ))
}

/// A path not resolved inside the folder, with what to do instead.
fn refused(r: Refused, arg: FileArg) -> Failure {
    match r {
        Refused::Outside { .. } => Failure::usage(r.to_string()).hint(format!(
            "name a file inside it (a relative path starts there), or pass {}",
            arg.instead
        )),
        Refused::Input(e) => e.into(),
        // `#[non_exhaustive]`: a refusal not worded here yet still refuses.
        #[allow(unreachable_patterns)]
        r => Failure::usage(r.to_string()),
    }
}
