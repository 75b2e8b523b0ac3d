//! Files inside one folder, named by a client who must reach no other: the paths an
//! HTTP client gives `cite mcp --http --files DIR` (a page to quote from, a draft to
//! verify or rewrite).
//!
//! A path is resolved one component at a time from a descriptor of the folder, each
//! opened relative to the one before with `O_NOFOLLOW`: `..` goes back to a descriptor
//! already held (never past the folder), and a symbolic link is read and its target
//! resolved the same way, from the folder for an absolute target. So a path leads only
//! where the folder's own tree leads, whatever is renamed or swapped meanwhile: a link
//! put in place of a checked component is not followed (the open refuses it) rather
//! than followed out. The kernel's `openat2(RESOLVE_BENEATH)` does the same in one
//! call, but not on every kernel cite runs on, nor under every seccomp filter; this
//! walk needs only `openat`.
//!
//! What is found is opened only if it is a regular file, and without waiting (a FIFO
//! would hang the call), after a look that opens nothing (opening a device can act on
//! it).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::input::{self, InputError};

/// Symbolic links followed in one path at most, as the kernel allows (`ELOOP`).
const MAX_LINKS: usize = 40;

/// The folder files may be named in.
pub struct Folder {
    fd: OwnedFd,
    /// The folder as given (made absolute), and its canonical path: an absolute path a
    /// client gives may start with either.
    given: PathBuf,
    canonical: PathBuf,
}

/// Why a path was not resolved inside the folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refused {
    /// The path leads out of the folder: by `..`, as an absolute path elsewhere, or
    /// through a symbolic link.
    #[error("{given} is outside {folder}, the folder this server opens files in")]
    Outside { given: String, folder: String },
    /// The path cannot be followed (a component is missing or not a folder).
    #[error(transparent)]
    Input(#[from] InputError),
}

impl Folder {
    /// Opens `dir`, which must be a folder; the error is worded for the user.
    pub fn open(dir: &Path) -> Result<Folder, String> {
        let shown = dir.display();
        let meta = std::fs::metadata(dir).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => format!("{shown}: no such folder"),
            _ => format!("{shown}: {e}"),
        })?;
        if !meta.is_dir() {
            let kind = if meta.is_file() {
                "a regular file"
            } else {
                cite_store::file_kind(&meta)
            };
            return Err(format!("{shown}: it is not a folder ({kind})"));
        }
        let fd = rustix::fs::open(
            dir,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| format!("{shown}: {}", io::Error::from(e)))?;
        let canonical = std::fs::canonicalize(dir).map_err(|e| format!("{shown}: {e}"))?;
        let given = std::path::absolute(dir).unwrap_or_else(|_| canonical.clone());
        Ok(Folder {
            fd,
            given,
            canonical,
        })
    }

    /// The folder, as its canonical path.
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// `path` relative to the folder: as it is when relative, with the folder's own
    /// path taken off when absolute.
    fn relative<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        if path.is_relative() {
            return Some(path);
        }
        path.strip_prefix(&self.canonical)
            .or_else(|_| path.strip_prefix(&self.given))
            .ok()
    }

    /// Finds what `given` names inside the folder (see the module comment). `given`
    /// is shown in messages as the client wrote it.
    pub fn resolve(&self, given: &Path) -> Result<Place, Refused> {
        self.walk(given)
            .map_err(|stop| self.refusal(given, stop, false))
    }

    fn refusal(&self, given: &Path, stop: Stop, draft: bool) -> Refused {
        match stop {
            Stop::Outside => Refused::Outside {
                given: given.display().to_string(),
                folder: self.canonical.display().to_string(),
            },
            Stop::Io(e) if draft && e.kind() == io::ErrorKind::NotFound => {
                InputError::NoSuchDraft(given.display().to_string()).into()
            }
            Stop::Io(e) => input::unreadable(given, &e).into(),
        }
    }

    fn walk(&self, given: &Path) -> Result<Place, Stop> {
        let rel = self.relative(given).ok_or(Stop::Outside)?;
        let mut walk = Walk {
            root: self.fd.as_fd(),
            below: Vec::new(),
            todo: VecDeque::new(),
            links: 0,
        };
        walk.push_front(rel);
        while let Some(name) = walk.todo.pop_front() {
            if name == ".." {
                walk.below.pop().ok_or(Stop::Outside)?;
                continue;
            }
            let (fd, meta) = walk.look(&name)?;
            if meta.file_type().is_symlink() {
                walk.links += 1;
                if walk.links > MAX_LINKS {
                    return Err(Errno::LOOP.into());
                }
                let target = rustix::fs::readlinkat(walk.dir(), name.as_os_str(), Vec::new())?;
                let target = Path::new(OsStr::from_bytes(target.as_bytes()));
                if target.is_absolute() {
                    let rel = self.relative(target).ok_or(Stop::Outside)?;
                    walk.below.clear();
                    walk.push_front(rel);
                } else {
                    walk.push_front(target);
                }
            } else if walk.todo.is_empty() {
                return walk.place(name, meta, given);
            } else if meta.is_dir() {
                walk.below.push(fd);
            } else {
                return Err(Errno::NOTDIR.into());
            }
        }
        // The path ends at a folder (`.`, `sub/..`, nothing at all): it names itself.
        let dir = File::from(walk.dir().try_clone_to_owned()?);
        let meta = dir.metadata()?;
        Ok(Place {
            dir: dir.into(),
            name: ".".into(),
            shown: given.to_path_buf(),
            meta,
        })
    }

    /// Reads the text of the file `given` names inside the folder, as
    /// [`input::read_text`] (or, for a draft to verify, [`input::read_draft`]) reads a
    /// path, with the same messages.
    pub fn read(&self, given: &Path, draft: bool) -> Result<String, Refused> {
        let place = self
            .walk(given)
            .map_err(|stop| self.refusal(given, stop, draft))?;
        if draft && place.meta.is_dir() {
            return Err(InputError::NoSuchDraft(given.display().to_string()).into());
        }
        let mut file = place.open(OFlags::RDONLY)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| input::unreadable(given, &e))?;
        Ok(input::utf8(given, bytes)?)
    }
}

/// Why a walk stopped short of a file.
enum Stop {
    Outside,
    Io(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

impl From<Errno> for Stop {
    fn from(e: Errno) -> Stop {
        Stop::Io(e.into())
    }
}

/// A path being resolved: the folders entered below the root, and the components left.
struct Walk<'f> {
    root: BorrowedFd<'f>,
    below: Vec<OwnedFd>,
    todo: VecDeque<OsString>,
    links: usize,
}

impl Walk<'_> {
    /// The folder reached so far.
    fn dir(&self) -> BorrowedFd<'_> {
        self.below.last().map_or(self.root, |fd| fd.as_fd())
    }

    /// Puts `path`'s components before those left (a link's target goes where the link
    /// was).
    fn push_front(&mut self, path: &Path) {
        let parts = path.components().filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some("..".into()),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        });
        for part in parts.collect::<Vec<_>>().into_iter().rev() {
            self.todo.push_front(part);
        }
    }

    /// The end of the walk: `name` in the folder reached.
    fn place(&self, name: OsString, meta: Metadata, given: &Path) -> Result<Place, Stop> {
        Ok(Place {
            dir: self.dir().try_clone_to_owned()?,
            name,
            shown: given.to_path_buf(),
            meta,
        })
    }

    /// What `name` is in the folder reached, without following it and without opening
    /// it for reading (`O_PATH`): a descriptor to go on from, and its metadata.
    fn look(&self, name: &OsStr) -> io::Result<(OwnedFd, Metadata)> {
        let fd = rustix::fs::openat(
            self.dir(),
            name,
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let file = File::from(fd);
        let meta = file.metadata()?;
        Ok((file.into(), meta))
    }
}

/// A file found inside the folder: its folder's descriptor and its name there, as
/// resolved (links followed), and the metadata it had then.
pub struct Place {
    pub(crate) dir: OwnedFd,
    pub(crate) name: OsString,
    /// The path as the client gave it, for messages.
    pub(crate) shown: PathBuf,
    pub(crate) meta: Metadata,
}

impl Place {
    /// The path as the client gave it.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Opens the file with `access` (`RDONLY` or `WRONLY`): only a regular file, never
    /// a link put in its place since it was found, without waiting.
    pub(crate) fn open(&self, access: OFlags) -> Result<File, InputError> {
        if !self.meta.is_file() {
            return Err(input::not_regular(&self.shown, &self.meta));
        }
        let (file, meta) = self.open_any(access).map_err(|e| {
            // `O_NOFOLLOW` refuses a link with ELOOP, whose own words ("too many levels
            // of symbolic links") would mislead.
            if e.raw_os_error() == Some(Errno::LOOP.raw_os_error()) {
                InputError::Unreadable {
                    path: self.shown.display().to_string(),
                    why: "it was replaced by a symbolic link meanwhile, which is not followed \
                          — try again"
                        .into(),
                }
            } else {
                input::unreadable(&self.shown, &e)
            }
        })?;
        if !meta.is_file() {
            return Err(input::not_regular(&self.shown, &meta));
        }
        Ok(file)
    }

    /// Opens whatever is at the name now with `access`, without following a link or
    /// waiting; and its metadata.
    pub(crate) fn open_any(&self, access: OFlags) -> io::Result<(File, Metadata)> {
        let fd = rustix::fs::openat(
            &self.dir,
            self.name.as_os_str(),
            access | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let file = File::from(fd);
        let meta = file.metadata()?;
        Ok((file, meta))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fresh folder under the system's temporary one, removed when dropped.
    pub(crate) struct Scratch(pub(crate) PathBuf);

    impl Scratch {
        pub(crate) fn new(name: &str) -> Scratch {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let dir = std::env::temp_dir().join(format!(
                "cite-confined-{name}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(dir.join("served")).unwrap();
            std::fs::write(dir.join("secret.md"), "secret\n").unwrap();
            std::fs::write(dir.join("served/draft.md"), "# Draft\n\nText.[1]\n").unwrap();
            Scratch(dir)
        }

        /// Puts a link to the secret in place of the draft, as someone with access to
        /// the folder could between the check and the use.
        pub(crate) fn swap_in_a_link(&self) {
            std::fs::remove_file(self.0.join("served/draft.md")).unwrap();
            symlink("../secret.md", self.0.join("served/draft.md")).unwrap();
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_link_swapped_in_after_the_walk_is_not_read() {
        let scratch = Scratch::new("read");
        let folder = Folder::open(&scratch.0.join("served")).unwrap();
        let place = folder.resolve(Path::new("draft.md")).unwrap();
        scratch.swap_in_a_link();
        let e = place
            .open(OFlags::RDONLY)
            .expect_err("the link was followed");
        assert_eq!(
            e.to_string(),
            "cannot read draft.md: it was replaced by a symbolic link meanwhile, which is not \
             followed — try again"
        );
    }
}
