//! The audit of the file itself: can redb still use it?
//!
//! The log audit reads the store through read transactions, which touch only the pages
//! they need; damage elsewhere (the allocator state, a free page, the end of the file)
//! passes it, and only the next write fails. So the audit copies the file (under the
//! writer lock, so that no commit is half-copied), opens the copy for writing, runs
//! redb's integrity check on it, and commits a trial write to it. The ledger itself is
//! never written.

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

use redb::TableDefinition;

use super::file::{BoundedFile, Deadline};
use super::lock;
use super::open::builder;
use super::{RedbStore, StoreError};
use crate::LockMode;
use crate::finding::{Finding, Place};

/// Written only into the copy, to prove a write commits.
const PROBE: TableDefinition<&str, &str> = TableDefinition::new("cite-audit-probe");

fn finding(reason: String) -> Finding {
    Finding {
        place: Place::File,
        reason,
    }
}

impl RedbStore {
    /// Checks that redb can open, verify and write a copy of this ledger's file. Returns
    /// what is wrong (nothing for a sound file); fails only when no copy could be made.
    pub fn check_file(&self) -> Result<Vec<Finding>, StoreError> {
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

/// Copies the file at `path` while `held` (the writer lock, where it could be taken),
/// then checks the copy.
fn check_copy(
    path: &Path,
    wait: Duration,
    held: Option<lock::LedgerLock>,
) -> Result<Vec<Finding>, StoreError> {
    // An anonymous file (O_TMPFILE where the system has it): a killed audit leaves no
    // copy of the ledger behind. Beside the ledger first, where there is room for one.
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let mut copy = dir
        .and_then(|d| tempfile::tempfile_in(d).ok())
        .map_or_else(tempfile::tempfile, Ok)
        .map_err(|source| StoreError::Io {
            action: "create a scratch copy for the file check in",
            path: std::env::temp_dir(),
            source,
        })?;
    let copied = fs::File::open(path).and_then(|mut from| std::io::copy(&mut from, &mut copy));
    copied.map_err(|source| StoreError::Io {
        action: "copy for the file check",
        path: path.to_path_buf(),
        source,
    })?;
    drop(held);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| probe(copy, wait)));
    Ok(match outcome {
        Ok(Ok(())) => Vec::new(),
        Ok(Err(reason)) => vec![finding(reason)],
        Err(_) => vec![finding(
            "redb could not make sense of its pages: the file is damaged — a write would fail; restore the ledger from a backup".into(),
        )],
    })
}

/// Opens the copy in `file` for writing, checks its integrity, and commits a write.
fn probe(file: fs::File, wait: Duration) -> Result<(), String> {
    let damaged = |what: &str, e: &dyn std::fmt::Display| {
        format!("{what}: {e} — a write would fail; restore the ledger from a backup")
    };
    let backend = BoundedFile::new(file, Deadline::new(wait))
        .map_err(|e| damaged("redb cannot open the file", &e))?;
    let mut db = builder()
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
