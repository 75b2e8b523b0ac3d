//! The ledger file as redb sees it: redb's own file backend, with every lock wait bounded.
//!
//! In multi-writer mode redb waits for its byte-range locks (the writer byte, the header)
//! with blocking calls that have no deadline; a process stopped while holding one would
//! hang every other process forever. This backend hands every call to redb's
//! `FileBackend` unchanged, except the two blocking lock calls, which it turns into polls
//! of the non-blocking ones that give up at the [`Deadline`] of the operation in
//! progress. redb then fails that operation with an I/O error, and the store reports it
//! as `ledger busy`.

use std::fs::File;
use std::io;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redb::backends::FileBackend;
use redb::{BackendError, StorageBackend};

use super::lock::Backoff;

/// When the store operation in progress must give up waiting for redb's locks. Shared
/// between a store and its backend; re-armed at the start of each operation.
#[derive(Debug)]
pub struct Deadline {
    at: Mutex<Instant>,
    expired: AtomicBool,
}

impl Deadline {
    pub fn new(wait: Duration) -> Arc<Deadline> {
        Arc::new(Deadline {
            at: Mutex::new(Instant::now() + wait),
            expired: AtomicBool::new(false),
        })
    }

    /// Starts the bound of a new operation: `wait` from now.
    pub fn arm(&self, wait: Duration) {
        *self.at.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now() + wait;
        self.expired.store(false, Ordering::Relaxed);
    }

    pub(crate) fn at(&self) -> Instant {
        *self.at.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a lock wait of the current operation gave up.
    pub fn expired(&self) -> bool {
        self.expired.load(Ordering::Relaxed)
    }
}

/// redb's file backend with bounded lock waits.
#[derive(Debug)]
pub struct BoundedFile {
    inner: FileBackend,
    deadline: Arc<Deadline>,
}

impl BoundedFile {
    pub fn new(file: File, deadline: Arc<Deadline>) -> Result<BoundedFile, redb::DatabaseError> {
        Ok(BoundedFile {
            inner: FileBackend::new(file)?,
            deadline,
        })
    }

    fn wait_for(
        &self,
        mut attempt: impl FnMut() -> Result<bool, BackendError>,
    ) -> Result<(), BackendError> {
        let deadline = self.deadline.at();
        let mut backoff = Backoff::new();
        loop {
            if attempt()? {
                return Ok(());
            }
            if !backoff.pause(deadline) {
                self.deadline.expired.store(true, Ordering::Relaxed);
                return Err(BackendError::Io(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "gave up waiting for another process's lock on the ledger file",
                )));
            }
        }
    }
}

impl StorageBackend for BoundedFile {
    fn len(&self) -> Result<u64, io::Error> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        self.inner.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> Result<(), io::Error> {
        self.inner.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        self.inner.write(offset, data)
    }

    fn close(&self) -> Result<(), io::Error> {
        self.inner.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.inner.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.wait_for(|| self.inner.try_lock_range(start, end))
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.wait_for(|| self.inner.try_lock_shared_range(start, end))
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.query_lock_range(start, end)
    }
}
