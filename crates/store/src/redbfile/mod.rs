//! The redb backend: one ledger per redb file, shared by the processes of one machine
//! through file locks.
//!
//! Files are opened in redb's multi-writer mode so that several processes (CLI commands,
//! a long-lived server) share a ledger at the same moment; redb is pinned to one exact
//! version because every process must speak the same lock protocol.

pub mod check;
mod file;
pub mod lock;
mod migrate;
mod open;
pub mod tables;
mod txn;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redb::{Database, ReadOnlyDatabase, ReadableDatabase, TransactionError, WriteTransaction};

use super::StoreError;
use super::backend::{Backend, LockMode, StoreResult, Tables, WriteBody};
use super::finding::Checked;
use file::Deadline;
use lock::LedgerLock;

pub use txn::{RedbRead, RedbWrite};

/// An open ledger file.
pub struct RedbStore {
    path: PathBuf,
    db: Db,
    /// When redb's lock waits of the operation in progress give up; shared with the
    /// file backend.
    deadline: Arc<Deadline>,
    wait: Duration,
    // Held for as long as the store is open; dropped after `db`.
    _lock: Option<LedgerLock>,
    /// For a store kept open between writes (a server): the file it opened, by device and
    /// inode. Such a store holds no lock while idle and takes the writer lock per write.
    kept: Option<(u64, u64)>,
}

enum Db {
    Rw(Database),
    Ro(ReadOnlyDatabase),
}

impl Drop for RedbStore {
    fn drop(&mut self) {
        // Closing the database takes redb's locks too: bound that wait like any other.
        self.deadline.arm(self.wait);
    }
}

impl RedbStore {
    /// For a kept store: whether its path still names the file it has open.
    pub fn names_open_file(&self) -> bool {
        self.kept
            .is_some_and(|opened| file_id(&self.path).ok() == Some(opened))
    }

    /// A redb error of the operation in progress, as `ledger busy` when a lock wait of
    /// it gave up.
    fn failed(&self, e: impl Into<StoreError>) -> StoreError {
        if self.deadline.expired() {
            return StoreError::StoreBusy {
                path: self.path.clone(),
                waited: self.wait,
                holders: lock::file_holders(&self.path),
            };
        }
        e.into()
    }

    /// A write transaction. The writer lock keeps other cite writers out, so redb's
    /// writer slot is free at once unless a process outside that protocol holds it; its
    /// own wait has no deadline, so poll its non-blocking form.
    fn begin_write(&self, wait: Duration) -> Result<WriteTransaction, StoreError> {
        let Db::Rw(db) = &self.db else {
            unreachable!("write on a store opened read-only");
        };
        self.deadline.arm(wait);
        let deadline = Instant::now() + wait;
        let mut backoff = lock::Backoff::new();
        loop {
            match db.try_begin_write() {
                Ok(mut txn) => {
                    // Crash recovery must be quick: keep the allocator state in every commit.
                    txn.set_quick_repair(true);
                    return Ok(txn);
                }
                Err(TransactionError::WouldBlock) => {
                    if !backoff.pause(deadline) {
                        return Err(StoreError::StoreBusy {
                            path: self.path.clone(),
                            waited: wait,
                            holders: lock::file_holders(&self.path),
                        });
                    }
                }
                Err(e) => return Err(self.failed(e)),
            }
        }
    }

    fn read_txn(&self) -> StoreResult<RedbRead> {
        self.deadline.arm(self.wait);
        let txn = match &self.db {
            Db::Rw(db) => db.begin_read(),
            Db::Ro(db) => db.begin_read(),
        }
        .map_err(|e| self.failed(e))?;
        Ok(RedbRead::new(txn))
    }
}

impl Backend for RedbStore {
    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn read(&self) -> StoreResult<Box<dyn Tables>> {
        Ok(Box::new(self.read_txn()?))
    }

    fn write(&self, wait: Duration, body: &mut WriteBody<'_>) -> StoreResult<()> {
        // A kept store takes the writer lock for this write only, and first makes sure the
        // path still names the file it has open: a ledger moved into place meanwhile (a
        // restored backup) must not take writes that land in the replaced file.
        let _turn = match self.kept {
            Some(_) => {
                let turn = lock::acquire(&self.path, LockMode::Write, wait)?;
                if !self.names_open_file() {
                    return Err(StoreError::Replaced {
                        path: self.path.clone(),
                    });
                }
                Some(turn)
            }
            None => None,
        };
        let txn = self.begin_write(wait)?;
        let changed = {
            let mut tables = RedbWrite::new(&txn)?;
            body(&mut tables)?
        };
        self.deadline.arm(wait);
        if !changed {
            // Nothing to make durable (an add of URLs all registered before): a commit would
            // cost the disk two syncs for nothing.
            txn.abort().map_err(|e| self.failed(e))?;
            return Ok(());
        }
        txn.commit().map_err(|e| self.failed(e))?;
        Ok(())
    }

    fn check(&self) -> StoreResult<Checked> {
        self.check_file()
    }

    fn still_current(&self) -> bool {
        self.kept.is_none() || self.names_open_file()
    }
}

/// A file's device and inode: which file a path names.
fn file_id(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok((m.dev(), m.ino()))
}
