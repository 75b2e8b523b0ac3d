//! A text a call needs (a draft, a fetched page, JSON tool output): given as text, or as
//! a file path to read. The MCP tools take either (`draft` or `path`, `evidence` or
//! `from`); the CLI takes a file path, `-` for stdin. Both read it here, so a file that
//! cannot be read is refused the same way (a usage failure, `cannot read PATH: WHY`).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::Failure;

/// Where a text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// The text itself.
    Text(String),
    /// A file to read.
    File(PathBuf),
    /// Standard input (the CLI's `-`; never the MCP server's, whose stdin is the
    /// protocol).
    Stdin,
}

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// UTF-8 text; a missing file is `cannot read PATH: no such file`.
    Text,
    /// A draft to verify: a missing file (or a folder) is `no such draft: PATH`.
    Draft,
}

impl Input {
    /// The text or the file path a caller gave for one input, when it may give either:
    /// `None` when neither, refused with `both` (a usage failure worded with the caller's
    /// names for the two) when both.
    pub fn one_of(
        text: Option<String>,
        path: Option<PathBuf>,
        both: &str,
    ) -> Result<Option<Input>, Failure> {
        match (text, path) {
            (Some(_), Some(_)) => Err(Failure::usage(both)),
            (Some(text), None) => Ok(Some(Input::Text(text))),
            (None, Some(path)) => Ok(Some(Input::File(path))),
            (None, None) => Ok(None),
        }
    }

    /// A command-line argument naming a file: `-` is standard input.
    pub fn arg(name: &Path) -> Input {
        if name.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(name.to_path_buf())
        }
    }

    /// The text: as given, or read from its file (as `how` says) or from stdin.
    pub fn read(self, how: Reading) -> Result<String, Failure> {
        match self {
            Input::Text(text) => Ok(text),
            Input::File(path) => Ok(match how {
                Reading::Text => crate::input::read_text(&path)?,
                Reading::Draft => crate::input::read_draft(&path)?,
            }),
            Input::Stdin => {
                let mut s = String::new();
                io::stdin()
                    .read_to_string(&mut s)
                    .map_err(|e| Failure::unreadable(Path::new("stdin"), &e))?;
                Ok(s)
            }
        }
    }
}

/// [`Input::one_of`], then read: the text a caller gave as text or as a file path, if
/// any.
pub fn text_or_file(
    text: Option<String>,
    path: Option<PathBuf>,
    both: &str,
    how: Reading,
) -> Result<Option<String>, Failure> {
    Input::one_of(text, path, both)?
        .map(|input| input.read(how))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::failure::Kind;

    const BOTH: &str = "give the draft as text (draft) or as a file path (path), not both";

    fn temp(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cite-app-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn both_is_a_usage_failure_with_the_callers_words() {
        let f =
            text_or_file(Some("x".into()), Some("d.md".into()), BOTH, Reading::Text).unwrap_err();
        assert_eq!(f.kind, Kind::Usage);
        assert_eq!(f.exit_code(), 2);
        assert_eq!(f.to_string(), format!("error: {BOTH}"));
    }

    #[test]
    fn neither_is_nothing() {
        assert_eq!(Input::one_of(None, None, BOTH), Ok(None));
        assert_eq!(text_or_file(None, None, BOTH, Reading::Draft), Ok(None));
    }

    #[test]
    fn text_is_taken_as_given_and_a_file_is_read() {
        assert_eq!(
            text_or_file(Some("as given".into()), None, BOTH, Reading::Text),
            Ok(Some("as given".into()))
        );
        let path = temp("page.txt", b"page text\n");
        assert_eq!(
            text_or_file(None, Some(path.clone()), BOTH, Reading::Text),
            Ok(Some("page text\n".into()))
        );
        assert_eq!(
            Input::File(path).read(Reading::Draft),
            Ok("page text\n".into())
        );
    }

    #[test]
    fn an_unreadable_file_is_the_callers_mistake() {
        let missing = std::env::temp_dir().join("cite-app-input-missing/none.md");
        let shown = missing.display();
        let f = Input::File(missing.clone())
            .read(Reading::Text)
            .unwrap_err();
        assert_eq!(f.kind, Kind::Usage);
        assert_eq!(
            f.to_string(),
            format!("error: cannot read {shown}: no such file")
        );
        let f = Input::File(missing.clone())
            .read(Reading::Draft)
            .unwrap_err();
        assert_eq!(f.kind, Kind::Usage);
        assert_eq!(f.to_string(), format!("error: no such draft: {shown}"));
        let binary = temp("binary.bin", &[0xff, 0xfe, 0x00]);
        let f = text_or_file(None, Some(binary.clone()), BOTH, Reading::Text).unwrap_err();
        assert_eq!(
            f.to_string(),
            format!(
                "error: cannot read {}: it is not UTF-8 text",
                binary.display()
            )
        );
    }

    #[test]
    fn a_dash_is_stdin_on_the_command_line() {
        assert_eq!(Input::arg(Path::new("-")), Input::Stdin);
        assert_eq!(Input::arg(Path::new("a.md")), Input::File("a.md".into()));
    }
}
