//! Replacing files in place, atomically: `export --output` and `render --replace-in`
//! (the command and the MCP tool), which must never leave half a file behind.
//!
//! Here rather than in the CLI because the MCP server rewrites drafts too, and the two
//! must refuse the same paths with the same words.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use crate::confined::Place;
use crate::input::{self, InputError};
use cite_core::draft::{self, ReplaceError};

/// Why a file was not replaced. Nothing was written in any case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RewriteError {
    /// The path cannot be replaced as given (`-`, a FIFO, a folder, a missing folder):
    /// the caller's mistake.
    #[error("{0}")]
    Usage(String),
    /// The file could not be written (read-only, a full disk, …).
    #[error("{0}")]
    Failed(String),
}

/// What `path` names for [`write_atomically`]: the file to replace (a symbolic link
/// resolved) and, when it exists, its metadata.
pub struct Rewritable {
    target: PathBuf,
    existing: Option<std::fs::Metadata>,
}

/// Checks that `path` may be replaced by [`write_atomically`] (see there), before any
/// work is done or any input read from it.
pub fn rewritable(path: &Path, verb: &str) -> Result<Rewritable, RewriteError> {
    let shown = path.display();
    if path.as_os_str() == "-" {
        return Err(RewriteError::Usage(format!(
            "cannot {verb} `-`: give a file path (standard input and output cannot be rewritten in place)"
        )));
    }
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(t) => t,
            // A link to nothing yet: create what it points at.
            Err(_) => match (std::fs::read_link(path), path.parent()) {
                (Ok(t), Some(dir)) => dir.join(t),
                (Ok(t), None) => t,
                (Err(e), _) => {
                    return Err(RewriteError::Failed(format!("cannot {verb} {shown}: {e}")));
                }
            },
        },
        _ => path.to_path_buf(),
    };
    let fail = |e: io::Error| RewriteError::Failed(format!("cannot {verb} {shown}: {e}"));
    let existing = match std::fs::metadata(&target) {
        Ok(m) if !m.is_file() => return Err(not_a_file(verb, path, &m)),
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(fail(e)),
    };
    if existing.is_some() {
        // Opening for writing changes nothing, and asks the question the rename would not.
        if let Err(e) = std::fs::OpenOptions::new().write(true).open(&target) {
            return Err(unwritable(verb, path, e));
        }
    }
    Ok(Rewritable { target, existing })
}

/// `path` cannot be replaced: it is not a regular file (`meta` says what it is).
fn not_a_file(verb: &str, path: &Path, meta: &std::fs::Metadata) -> RewriteError {
    RewriteError::Usage(format!(
        "cannot {verb} {}: it is not a regular file ({}) — give a file path",
        path.display(),
        cite_store::file_kind(meta)
    ))
}

/// `path` could not be opened for writing.
fn unwritable(verb: &str, path: &Path, e: io::Error) -> RewriteError {
    let shown = path.display();
    match e.kind() {
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            RewriteError::Failed(format!(
                "cannot {verb} {shown}: it is read-only for you — nothing was written"
            ))
        }
        _ => RewriteError::Failed(format!("cannot {verb} {shown}: {e}")),
    }
}

/// What [`write_atomically`] does, for a file found inside a folder a client is kept
/// in ([`Place`]): the temporary file is made in the folder's descriptor and renamed
/// over the file's name there, so nothing is written outside the folder even if a
/// path to it changes meanwhile.
fn replace_at(place: &Place, verb: &str, bytes: &[u8]) -> Result<(), RewriteError> {
    let shown = place.shown().display();
    let fail = |e: io::Error| RewriteError::Failed(format!("cannot {verb} {shown}: {e}"));
    let (tmp_name, tmp) = temp_at(&place.dir).map_err(fail)?;
    let written = (|| {
        let mut tmp = File::from(tmp);
        tmp.write_all(bytes)?;
        tmp.set_permissions(place.meta.permissions())?;
        tmp.sync_all()?;
        rustix::fs::renameat(&place.dir, &tmp_name, &place.dir, place.name.as_os_str())?;
        Ok(())
    })();
    if written.is_err() {
        let _ = rustix::fs::unlinkat(&place.dir, &tmp_name, rustix::fs::AtFlags::empty());
    }
    written.map_err(fail)
}

/// A new file `.cite-…` in `dir`, mode 0600 until it takes the replaced file's mode.
fn temp_at(dir: &OwnedFd) -> io::Result<(String, OwnedFd)> {
    use rustix::fs::{Mode, OFlags};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!(".cite-{}-{nanos:x}-{n}", std::process::id());
        match rustix::fs::openat(
            dir,
            &name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => return Ok((name, fd)),
            // Left by another process: another name. Any other error is final.
            Err(rustix::io::Errno::EXIST) if n < 1000 => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Runs `write` into a temporary file beside the file `path` names, then renames it into
/// place: a failure or a crash leaves the old file (or none), never half of one. `verb`
/// names the action in messages (`cannot VERB PATH: …`).
///
/// Only a regular file is ever replaced: `-`, a FIFO, a device or a folder is refused
/// ([`RewriteError::Usage`]), and a file this user may not write is refused rather than
/// replaced by a rename the folder would allow. A symbolic link is written through, to
/// its target, and stays a link. A replaced file keeps its mode; a new one gets the mode
/// the umask gives (as any program's new file would), not the temporary file's 0600.
pub fn write_atomically<T, E: From<RewriteError>>(
    path: &Path,
    verb: &str,
    write: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<T, E> {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let fail = |e: io::Error| RewriteError::Failed(format!("cannot {verb} {shown}: {e}"));
    let Rewritable { target, existing } = rewritable(path, verb)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(RewriteError::Usage(format!(
            "cannot {verb} {shown}: no such folder {}",
            dir.display()
        ))
        .into());
    }
    let tmp = tempfile::Builder::new()
        .prefix(".cite-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(fail)?;
    if let Some(meta) = &existing {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(fail)?;
    }
    let mut out = io::BufWriter::new(tmp);
    let value = write(&mut out)?;
    let tmp = out.into_inner().map_err(|e| fail(e.into_error()))?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(&target).map_err(|e| fail(e.error))?;
    Ok(value)
}

/// Why a draft's Sources block was not rewritten: nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplaceInError {
    #[error(transparent)]
    Rewrite(#[from] RewriteError),
    #[error(transparent)]
    Input(#[from] InputError),
    /// The draft is shaped so that a block written at its end would be wrong; the
    /// message says what to fix, then to run `rerun` again.
    #[error("{message}")]
    Draft { message: String },
}

/// A draft about to get a new Sources block (`render --replace-in`): read and checked
/// before the block is rendered, since the block lists the ids the draft cites.
pub struct DraftRewrite {
    target: Target,
    text: String,
}

/// Where a draft is rewritten.
enum Target {
    Path(PathBuf),
    /// A file found inside the folder a client is kept in ([`crate::confined`]); boxed,
    /// as it holds its metadata.
    Place(Box<Place>),
}

impl DraftRewrite {
    /// Checks that `path` may be rewritten (before reading it: a FIFO would block the
    /// read) and reads it. `rerun` is the command or call that does it again, for the
    /// message of a draft that must be fixed first.
    pub fn open(path: &Path, rerun: &str) -> Result<DraftRewrite, ReplaceInError> {
        rewritable(path, "rewrite")?;
        let text = input::read_text(path)?;
        DraftRewrite::checked(Target::Path(path.to_path_buf()), text, rerun)
    }

    /// [`DraftRewrite::open`] for a file found inside a folder: the same checks and
    /// messages, on the file found, through its folder's descriptor.
    pub fn open_in(place: Place, rerun: &str) -> Result<DraftRewrite, ReplaceInError> {
        let shown = place.shown().to_path_buf();
        if !place.meta.is_file() {
            return Err(not_a_file("rewrite", &shown, &place.meta).into());
        }
        // Opening for writing changes nothing, and asks the question the rename would not.
        place
            .open_any(rustix::fs::OFlags::WRONLY)
            .map_err(|e| unwritable("rewrite", &shown, e))?;
        let mut text = Vec::new();
        place
            .open(rustix::fs::OFlags::RDONLY)?
            .read_to_end(&mut text)
            .map_err(|e| input::unreadable(&shown, &e))?;
        let text = input::utf8(&shown, text)?;
        DraftRewrite::checked(Target::Place(Box::new(place)), text, rerun)
    }

    fn checked(target: Target, text: String, rerun: &str) -> Result<DraftRewrite, ReplaceInError> {
        let rewrite = DraftRewrite { target, text };
        if let Err(e) = draft::body_for_block(&rewrite.text) {
            return Err(ReplaceInError::Draft {
                message: refusal(rewrite.path(), e, rerun),
            });
        }
        Ok(rewrite)
    }

    /// The draft's path, as given.
    fn path(&self) -> &Path {
        match &self.target {
            Target::Path(path) => path,
            Target::Place(place) => place.shown(),
        }
    }

    /// The draft as it is now.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Replaces the draft's generated Sources block (or appends one) with `block`. A
    /// draft written with CRLF line endings keeps them, block included.
    pub fn write(self, block: &str) -> Result<(), RewriteError> {
        let body = draft::body_without_block(&self.text);
        let mut rewritten = format!("{}\n\n{}\n", body.trim_end_matches('\n'), block);
        if self
            .text
            .find('\n')
            .is_some_and(|i| self.text[..i].ends_with('\r'))
        {
            rewritten = rewritten.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        match &self.target {
            Target::Path(path) => write_atomically(path, "rewrite", |out| {
                out.write_all(rewritten.as_bytes()).map_err(|e| {
                    RewriteError::Failed(format!("cannot rewrite {}: {e}", path.display()))
                })
            }),
            Target::Place(place) => replace_at(place, "rewrite", rewritten.as_bytes()),
        }
    }
}

/// Why the block is not written into `path`, and what to do first.
fn refusal(path: &Path, e: ReplaceError, rerun: &str) -> String {
    let shown = path.display();
    let rerun = format!("then run `{rerun}` again; nothing was written");
    match e {
        ReplaceError::UnclosedFence(fence) => format!(
            "{shown}: the code fence opened at line {} is never closed, so a block written after it would be code — close it with a line {}, {rerun}",
            fence.line,
            fence.closer()
        ),
        ReplaceError::MisplacedSection(m) => {
            let follows = m
                .followed_by
                .map(|b| format!(" (other text follows at line {b})"))
                .unwrap_or_default();
            format!(
                "{shown} has a Sources section at line {} that is not the block at its end{follows}, and a new block would make two — keep your text under another heading, remove that Sources heading and the entries under it, {rerun}",
                m.header
            )
        }
        // `#[non_exhaustive]`: a refusal not worded here yet still refuses.
        _ => format!("{shown}: the Sources block cannot be placed in it, {rerun}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confined::Folder;
    use crate::confined::tests::Scratch;

    #[test]
    fn a_link_swapped_in_before_the_rewrite_replaces_the_link_not_its_target() {
        let scratch = Scratch::new("rewrite");
        let folder = Folder::open(&scratch.0.join("served")).unwrap();
        let place = folder.resolve(Path::new("draft.md")).unwrap();
        let rewrite = DraftRewrite::open_in(place, "render").unwrap();
        scratch.swap_in_a_link();
        rewrite.write("## Sources\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(scratch.0.join("secret.md")).unwrap(),
            "secret\n"
        );
        let draft = scratch.0.join("served/draft.md");
        assert!(std::fs::symlink_metadata(&draft).unwrap().is_file());
        assert!(
            std::fs::read_to_string(&draft)
                .unwrap()
                .contains("## Sources")
        );
    }
}
