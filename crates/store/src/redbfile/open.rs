//! Opening a ledger file: what the path is, creating a new ledger, and the order in which
//! locks are taken.
//!
//! A writer takes the sidecar writer lock before redb is asked for anything, then opens
//! the file through [`BoundedFile`], so that no wait of redb's is unbounded. A new ledger
//! is built beside its path (`.NAME.creating`), synced, and renamed into place, then the
//! folder is synced: a kill at any moment leaves either no ledger or a whole one, never a
//! half-made file under the ledger's name. A reader takes no lock and creates nothing.

use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redb::{Builder, ConcurrencyMode, Database};

use super::file::{BoundedFile, Deadline};
use super::lock::{self, file_kind};
use super::tables::META;
use super::{Db, RedbStore, StoreError, migrate};
use crate::LockMode;
use crate::backend::Tables;
use crate::tables::{META_FORMAT, STORE_FORMAT};

/// redb's page cache per open store. Small on purpose: the 50 MiB peak-memory budget
/// holds on a million-source ledger only if a full scan cannot fill a large cache.
const CACHE_BYTES: usize = 8 << 20;

/// First bytes of every redb file.
const REDB_MAGIC: &[u8] = b"redb\x1A\x0A\xA9\x0D\x0A";

pub(super) fn builder() -> Builder {
    let mut b = Builder::new();
    b.set_concurrency_mode(ConcurrencyMode::MultiWriter)
        .set_cache_size(CACHE_BYTES);
    b
}

/// What is at a ledger path.
enum Found {
    /// Nothing, or an empty file: no ledger yet.
    Nothing,
    /// A regular file with something in it.
    File,
}

/// Looks at `path` without opening it: refuses folders and anything that is not a
/// regular file (a FIFO would block an open, a device is no ledger).
fn inspect(path: &Path) -> Result<Found, StoreError> {
    let folder = |path: &Path| StoreError::Folder {
        path: path.to_path_buf(),
        suggestion: path.join("ledger.redb"),
    };
    // `dir/` names a folder whether or not it exists; without this, `dir/.lock` would be
    // its lock file.
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") || path.file_name().is_none() {
        return Err(folder(path));
    }
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(folder(path)),
        Ok(m) if !m.is_file() => Err(StoreError::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&m),
        }),
        Ok(m) if m.len() == 0 => Ok(Found::Nothing),
        Ok(_) => Ok(Found::File),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Found::Nothing),
        Err(source) => Err(StoreError::Io {
            action: "inspect",
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// What the first bytes of an existing, non-empty regular file say it is.
fn sniff(path: &Path) -> Result<(), StoreError> {
    let mut head = [0u8; 64];
    let n = fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|source| StoreError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
    let head = &head[..n];
    if head.starts_with(REDB_MAGIC) {
        return Ok(());
    }
    if String::from_utf8_lossy(head).trim_start().starts_with('{') {
        return Err(StoreError::JsonLedger {
            path: path.to_path_buf(),
        });
    }
    Err(StoreError::NotALedger {
        path: path.to_path_buf(),
    })
}

/// The error for a failed redb open: `ledger busy` when a lock wait gave up, a damaged
/// store otherwise.
pub(super) fn open_failed(
    path: &Path,
    deadline: &Deadline,
    wait: Duration,
    e: impl std::fmt::Display,
) -> StoreError {
    if deadline.expired() {
        return StoreError::StoreBusy {
            path: path.to_path_buf(),
            waited: wait,
            holders: lock::file_holders(path),
        };
    }
    StoreError::Damaged {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// Opens the ledger file for reading and writing; a file this user may not write is
/// reported as read-only, not as damage.
fn open_writable(path: &Path) -> Result<fs::File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|source| match source.kind() {
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                StoreError::ReadOnly {
                    path: path.to_path_buf(),
                }
            }
            _ => io_err("open", path)(source),
        })
}

/// Opens the file read-write through the bounded backend.
fn open_rw(path: &Path, deadline: &Arc<Deadline>, wait: Duration) -> Result<Database, StoreError> {
    // The file is known to hold a redb database, so this opens it; it never initializes
    // one in place (that is `create`'s job, beside the path).
    open_db(
        path,
        deadline,
        wait,
        || open_writable(path),
        |backend| builder().create_with_backend(backend),
    )?
    .map_err(|e| open_failed(path, deadline, wait, e))
}

/// Opens redb on a new descriptor from `file` with `open`, again and again until the
/// deadline while the lock redb takes on the whole file at open is held elsewhere —
/// another program's `flock` or `lockf` on the ledger, which any user who can read it
/// can take. That is busy, never damage: redb answers "already open" before it reads a
/// page. Every other answer of redb's is the caller's to judge.
fn open_db<T>(
    path: &Path,
    deadline: &Arc<Deadline>,
    wait: Duration,
    file: impl Fn() -> Result<fs::File, StoreError>,
    open: impl Fn(BoundedFile) -> Result<T, redb::DatabaseError>,
) -> Result<Result<T, redb::DatabaseError>, StoreError> {
    let until = deadline.at();
    let mut backoff = lock::Backoff::new();
    loop {
        let backend = match BoundedFile::new(file()?, deadline.clone()) {
            Ok(backend) => backend,
            Err(e) => return Ok(Err(e)),
        };
        match open(backend) {
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => {
                if !backoff.pause(until) {
                    return Err(StoreError::StoreBusy {
                        path: path.to_path_buf(),
                        waited: wait,
                        holders: lock::file_holders(path),
                    });
                }
            }
            other => return Ok(other),
        }
    }
}

/// Where a new ledger for `path` goes: `path` itself, or the target of a dangling
/// symbolic link there, so that a link made ahead of the first write is kept.
fn creation_target(path: &Path) -> PathBuf {
    match fs::read_link(path) {
        Ok(target) => match path.parent() {
            Some(dir) => dir.join(target),
            None => target,
        },
        Err(_) => path.to_path_buf(),
    }
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        action,
        path,
        source,
    }
}

/// Makes a new, empty ledger at `path`: built beside it, synced, renamed into place, and
/// the folder synced. The caller holds the writer lock, so no other cite process builds
/// one at the same time; a leftover from a creation that was killed is removed first.
fn create(path: &Path, deadline: &Arc<Deadline>, wait: Duration) -> Result<(), StoreError> {
    let target = creation_target(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let scratch = dir.join(format!(".{name}.creating"));
    match fs::remove_file(&scratch) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(io_err("remove the leftover", &scratch)(e));
        }
        _ => {}
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&scratch)
        .map_err(io_err("create", &scratch))?;
    let built = (|| {
        let handle = file.try_clone().map_err(io_err("open", &scratch))?;
        let backend = BoundedFile::new(handle, deadline.clone())
            .map_err(|e| open_failed(&scratch, deadline, wait, e))?;
        let db = builder()
            .create_with_backend(backend)
            .map_err(|e| open_failed(&scratch, deadline, wait, e))?;
        let txn = db.begin_write().map_err(StoreError::from)?;
        txn.open_table(META)?
            .insert(META_FORMAT, STORE_FORMAT.to_le_bytes().as_slice())?;
        txn.commit()?;
        db.close()
            .map_err(|e| open_failed(&scratch, deadline, wait, e))?;
        file.sync_all().map_err(io_err("sync", &scratch))?;
        fs::rename(&scratch, &target).map_err(io_err("create", &target))?;
        // The rename is durable only once the folder is.
        fs::File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(io_err("sync the folder", &dir))
    })();
    if built.is_err() {
        let _ = fs::remove_file(&scratch);
    }
    built
}

impl RedbStore {
    /// Opens `path` for writing under the sidecar lock in `mode`, creating the ledger
    /// (and its folders) if there is none. Waits at most `wait` for each lock.
    pub fn open_write(
        path: &Path,
        mode: LockMode,
        wait: Duration,
    ) -> Result<RedbStore, StoreError> {
        let started = Instant::now();
        if let Found::File = inspect(path)? {
            // Refused before a lock file is made beside a file that is no ledger.
            sniff(path)?;
            // Nor is a lock file made beside a ledger this user cannot write.
            open_writable(path)?;
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_err("create the folder", parent))?;
        }
        let lock = lock::acquire(path, mode, wait)?;
        let deadline = Deadline::new(wait.saturating_sub(started.elapsed()));
        // Looked at again under the lock: another writer may have created it meanwhile.
        match inspect(path)? {
            Found::Nothing => create(path, &deadline, wait)?,
            Found::File => sniff(path)?,
        }
        let db = open_rw(path, &deadline, wait)?;
        let store = RedbStore {
            path: path.to_path_buf(),
            db: Db::Rw(db),
            deadline,
            wait,
            _lock: Some(lock),
            kept: None,
        };
        match store.format()? {
            STORE_FORMAT => {}
            1 => migrate::to_2(&store)?,
            got => return Err(store.unsupported(got)),
        }
        Ok(store)
    }

    /// Opens `path` to be kept open between writes, as a server keeps it: created and
    /// migrated now, under the writer lock, which is then released. Each
    /// [`crate::Store::write`] takes the lock for its own turn, so CLI writers and maintenance
    /// get in between writes while the file stays open.
    pub fn open_kept(path: &Path, wait: Duration) -> Result<RedbStore, StoreError> {
        let mut store = RedbStore::open_write(path, LockMode::Write, wait)?;
        store.kept = Some(super::file_id(path).map_err(io_err("inspect", path))?);
        store._lock = None;
        Ok(store)
    }

    /// Opens `path` for reading without creating or changing anything; `None` when there
    /// is no ledger there yet. Takes no sidecar lock; redb's own waits are bounded by
    /// `wait`.
    pub fn open_read(path: &Path, wait: Duration) -> Result<Option<RedbStore>, StoreError> {
        if let Found::Nothing = inspect(path)? {
            return Ok(None);
        }
        sniff(path)?;
        let deadline = Deadline::new(wait);
        let file = || fs::File::open(path).map_err(io_err("open", path));
        let opened = open_db(path, &deadline, wait, file, |backend| {
            builder().open_read_only_with_backend(backend)
        })?;
        let db = match opened {
            Ok(db) => Db::Ro(db),
            // A file left by a crashed writer needs redb's quick repair, which only a
            // writable open performs; do that once (as a writer would) rather than refuse
            // to read.
            Err(redb::DatabaseError::RepairAborted) => {
                let store = RedbStore::open_write(path, LockMode::Write, wait)?;
                return Ok(Some(store));
            }
            Err(e) => return Err(open_failed(path, &deadline, wait, e)),
        };
        let store = RedbStore {
            path: path.to_path_buf(),
            db,
            deadline,
            wait,
            _lock: None,
            kept: None,
        };
        match store.format()? {
            1 | STORE_FORMAT => Ok(Some(store)),
            got => Err(store.unsupported(got)),
        }
    }

    /// The table layout version stored in the file; 1 for a store that predates the
    /// marker.
    fn format(&self) -> Result<u16, StoreError> {
        match self.read_txn()?.meta(META_FORMAT)? {
            None => Ok(1),
            Some(v) => match v.as_slice() {
                [a, b] => Ok(u16::from_le_bytes([*a, *b])),
                _ => Err(StoreError::Damaged {
                    path: self.path.clone(),
                    reason: "format marker is not 2 bytes".into(),
                }),
            },
        }
    }

    fn unsupported(&self, got: u16) -> StoreError {
        StoreError::UnsupportedFormat {
            path: self.path.clone(),
            got,
            supports: STORE_FORMAT,
        }
    }
}
