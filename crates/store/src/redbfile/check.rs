//! The audit of the file itself: can redb still use it?
//!
//! The log audit reads the store through read transactions, which touch only the pages
//! they need; damage elsewhere (the allocator state, a free page, the end of the file)
//! passes it, and only the next write fails. So the audit copies the file (under the
//! writer lock, so that no commit is half-copied), opens the copy for writing, runs
//! redb's integrity check on it, and commits a trial write to it. The ledger itself is
//! never written.
//!
//! The copy goes where there is room (issue 24: a full disk failed the audit of a sound
//! ledger): beside the ledger, else in the temporary folder, else in `/dev/shm`, else,
//! for a file up to [`IN_MEMORY_MAX`], in memory. A larger file with nowhere to go is
//! not checked, and the audit says so in a note rather than failing: nothing is known
//! to be wrong with the ledger.

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Duration;

use redb::backends::InMemoryBackend;
use redb::{StorageBackend, TableDefinition};

use super::file::{BoundedFile, Deadline};
use super::lock;
use super::open::builder;
use super::{RedbStore, StoreError};
use crate::LockMode;
use crate::finding::{Checked, Finding, Place};

/// Written only into the copy, to prove a write commits.
const PROBE: TableDefinition<&str, &str> = TableDefinition::new("cite-audit-probe");

fn finding(reason: String) -> Finding {
    Finding {
        place: Place::File,
        reason,
    }
}

/// The largest file copied into memory for the check when no disk has room: well within
/// the memory any command may use (SPEC §5).
pub const IN_MEMORY_MAX: u64 = 24 << 20;

impl RedbStore {
    /// Checks that redb can open, verify and write a copy of this ledger's file. Returns
    /// what is wrong (nothing for a sound file), and a note when the copy could not go
    /// to disk.
    pub fn check_file(&self) -> Result<Checked, StoreError> {
        // A store opened for writing (to repair it) holds the writer lock already.
        let held = match &self._lock {
            Some(_) => None,
            None => match lock::acquire(&self.path, LockMode::Write, self.wait) {
                Ok(l) => Some(l),
                Err(e @ (StoreError::Busy { .. } | StoreError::StoreBusy { .. })) => {
                    return Err(e);
                }
                // A lock file that cannot be made (a read-only folder) or is refused
                // leaves nobody else able to write either: copy without it.
                Err(_) => None,
            },
        };
        check_copy(&self.path, self.wait, held)
    }
}

/// Where the scratch copy of `path` may go, in order.
fn scratch_folders(path: &Path) -> Vec<PathBuf> {
    let beside = path.parent().filter(|d| !d.as_os_str().is_empty());
    let mut out: Vec<PathBuf> = beside.map(Path::to_path_buf).into_iter().collect();
    for dir in [std::env::temp_dir(), PathBuf::from("/dev/shm")] {
        if !out.contains(&dir) && dir.is_dir() {
            out.push(dir);
        }
    }
    out
}

/// An anonymous file (O_TMPFILE where the system has it, so a killed audit leaves no
/// copy of the ledger behind) in `dir`, holding a copy of `path`; `None` when `dir` has
/// no room or takes no file, the error kept in `why`.
fn copy_into(path: &Path, dir: &Path, why: &mut Option<std::io::Error>) -> Option<fs::File> {
    let copied = tempfile::tempfile_in(dir).and_then(|mut copy| {
        let mut from = fs::File::open(path)?;
        std::io::copy(&mut from, &mut copy)?;
        Ok(copy)
    });
    match copied {
        Ok(copy) => Some(copy),
        Err(e) => {
            *why = Some(e);
            None
        }
    }
}

/// Copies the file at `path` while `held` (the writer lock, where it could be taken),
/// then checks the copy.
fn check_copy(
    path: &Path,
    wait: Duration,
    held: Option<lock::LedgerLock>,
) -> Result<Checked, StoreError> {
    let mut why = None;
    let on_disk = scratch_folders(path)
        .iter()
        .find_map(|dir| copy_into(path, dir, &mut why));
    let mut notes = Vec::new();
    let outcome = match on_disk {
        Some(copy) => {
            drop(held);
            panic::catch_unwind(AssertUnwindSafe(|| {
                let backend = BoundedFile::new(copy, Deadline::new(wait))
                    .map_err(|e| damaged("redb cannot open the file", &e))?;
                probe(builder(), backend)
            }))
        }
        None => {
            let why = why.unwrap_or_else(|| std::io::Error::other("no folder to copy into"));
            let size = fs::metadata(path).map(|m| m.len()).unwrap_or(u64::MAX);
            if !crate::error::io_is_storage_full(&why) {
                return Err(StoreError::Io {
                    action: "copy for the file check",
                    path: path.to_path_buf(),
                    source: why,
                });
            }
            if size > IN_MEMORY_MAX {
                return Ok(skipped(size));
            }
            let memory = copy_to_memory(path).map_err(|source| StoreError::Io {
                action: "read for the file check",
                path: path.to_path_buf(),
                source,
            })?;
            drop(held);
            notes.push(
                "no disk had room for a scratch copy of the ledger (the ledger's folder, the temporary folder, /dev/shm): the file check ran on a copy in memory".to_string(),
            );
            // One process only: memory has no file locks for multi-writer mode.
            let mut single = redb::Builder::new();
            single.set_cache_size(4 << 20);
            panic::catch_unwind(AssertUnwindSafe(|| probe(single, memory)))
        }
    };
    let findings = match outcome {
        Ok(Ok(())) => Vec::new(),
        Ok(Err(reason)) => vec![finding(reason)],
        Err(_) => vec![finding(
            "redb could not make sense of its pages: the file is damaged — a write would fail; restore the ledger from a backup".into(),
        )],
    };
    Ok(Checked { findings, notes })
}

/// When the copy found no room and the file is too large for memory: no check, and a
/// note that says what to do.
fn skipped(size: u64) -> Checked {
    Checked {
        findings: Vec::new(),
        notes: vec![format!(
            "the file check was skipped: no disk had room for a scratch copy of the ledger ({size} bytes) and it is too large to copy into memory — free some space, or point TMPDIR at a folder with room, and run `cite audit` again"
        )],
    }
}

/// The file at `path` in a redb in-memory backend.
fn copy_to_memory(path: &Path) -> std::io::Result<InMemoryBackend> {
    let memory = InMemoryBackend::new();
    let mut from = fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut at = 0u64;
    loop {
        let n = std::io::Read::read(&mut from, &mut buf)?;
        if n == 0 {
            break;
        }
        memory
            .set_len(at + n as u64)
            .and_then(|()| memory.write(at, &buf[..n]))
            .map_err(std::io::Error::other)?;
        at += n as u64;
    }
    Ok(memory)
}

/// What the check says when redb cannot do something with the copy.
fn damaged(what: &str, e: &dyn std::fmt::Display) -> String {
    format!("{what}: {e} — a write would fail; restore the ledger from a backup")
}

/// Opens the copy in `backend` with `builder` for writing, checks its integrity, and
/// commits a write.
fn probe(builder: redb::Builder, backend: impl StorageBackend) -> Result<(), String> {
    let mut db = builder
        .create_with_backend(backend)
        .map_err(|e| damaged("redb cannot open the file", &e))?;
    match db.check_integrity() {
        Ok(true) => {}
        Ok(false) => {
            return Err(
                "redb's integrity check found damage (it could repair only the copy) — a write would fail or lose data; restore the ledger from a backup".into(),
            );
        }
        Err(e) => return Err(damaged("redb's integrity check fails", &e)),
    }
    let write = || -> Result<(), redb::Error> {
        let txn = db.begin_write()?;
        txn.open_table(PROBE)?.insert("probe", "ok")?;
        txn.commit()?;
        Ok(())
    };
    write().map_err(|e| damaged("a trial write to a copy fails", &e))?;
    db.close()
        .map_err(|e| damaged("a trial write to a copy cannot be closed", &e))
}
