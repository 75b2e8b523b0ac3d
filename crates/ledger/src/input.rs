//! Reading the text files commands are pointed at (evidence pages, drafts, JSON tool
//! output), with the messages the CLI and the MCP server both give when that fails.

use std::io;
use std::path::Path;

/// Why an input file could not be read: always the caller's mistake.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// `cannot read PATH: WHY` (no such file, not UTF-8 text, …).
    #[error("cannot read {path}: {why}")]
    Unreadable { path: String, why: String },
    /// A draft to verify that is not there.
    #[error("no such draft: {0}")]
    NoSuchDraft(String),
}

/// The error for `path` failing to read with `e`.
pub fn unreadable(path: &Path, e: &io::Error) -> InputError {
    let why = match e.kind() {
        io::ErrorKind::InvalidData => "it is not UTF-8 text".to_string(),
        io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    };
    InputError::Unreadable {
        path: path.display().to_string(),
        why,
    }
}

/// Reads a file as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|e| unreadable(path, &e))
}

/// The text of `bytes` read from `path`: `cannot read PATH: it is not UTF-8 text`
/// unless it is UTF-8.
pub fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|_| InputError::Unreadable {
        path: path.display().to_string(),
        why: "it is not UTF-8 text".into(),
    })
}

/// The error for `path` that is not a regular file (`meta` says what it is).
pub fn not_regular(path: &Path, meta: &std::fs::Metadata) -> InputError {
    InputError::Unreadable {
        path: path.display().to_string(),
        why: format!("it is not a regular file ({})", cite_store::file_kind(meta)),
    }
}

/// Reads a draft to verify: a missing file (or a folder) is `no such draft: PATH`.
pub fn read_draft(path: &Path) -> Result<String, InputError> {
    match std::fs::read(path) {
        Ok(bytes) => utf8(path, bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound || path.is_dir() => {
            Err(InputError::NoSuchDraft(path.display().to_string()))
        }
        Err(e) => Err(unreadable(path, &e)),
    }
}
