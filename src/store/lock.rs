//! The sidecar lock (`LEDGER.lock`) and bounded waits.
//!
//! redb's multi-writer mode already serializes write transactions across processes; this
//! lock adds what redb does not give: a wait with a deadline, and an exclusive mode for
//! maintenance (creation, rebuild, import, migration) against shared normal use. The lock
//! is an `flock` on a separate file, never on the redb file, whose own byte-range locks
//! must not be disturbed. The kernel drops it when its holder dies, so there is no stale
//! lock to break and nothing is ever stolen.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

// Called as `FileExt::try_lock(&file)`: std's inherent `File::try_lock` would otherwise
// shadow the trait method and behave differently on some platforms.
use fs4::{FileExt, TryLockError};

use super::StoreError;

/// How a process holds the sidecar lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// Normal use: any number of holders at once.
    Shared,
    /// Maintenance: one holder, nobody else.
    Exclusive,
}

/// A held sidecar lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct LedgerLock {
    file: File,
    mode: LockMode,
}

impl LedgerLock {
    pub fn mode(&self) -> LockMode {
        self.mode
    }
}

/// The sidecar path of a ledger: the ledger's path with `.lock` appended.
pub fn lock_path(ledger: &Path) -> PathBuf {
    let mut os = ledger.as_os_str().to_owned();
    os.push(".lock");
    PathBuf::from(os)
}

/// Takes the lock on `ledger`'s sidecar, waiting at most `wait`.
pub fn acquire(ledger: &Path, mode: LockMode, wait: Duration) -> Result<LedgerLock, StoreError> {
    let path = lock_path(ledger);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|source| StoreError::Io {
            action: "open the lock file",
            path: path.clone(),
            source,
        })?;
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(1);
    loop {
        let attempt = match mode {
            LockMode::Shared => FileExt::try_lock_shared(&file),
            LockMode::Exclusive => FileExt::try_lock(&file),
        };
        match attempt {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(StoreError::Busy {
                        path: ledger.to_path_buf(),
                        holder: read_holder(&mut file),
                        waited: wait,
                    });
                }
                thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(TryLockError::Error(source)) => {
                return Err(StoreError::Io {
                    action: "lock",
                    path,
                    source,
                });
            }
        }
    }
    match mode {
        // Only an exclusive holder can name itself without racing other holders; the pid
        // is what a waiter that gives up reports.
        LockMode::Exclusive => {
            let _ = write_holder(&mut file);
        }
        // No exclusive holder can exist while a shared lock is held, so a pid still in
        // the file was left by one that died without releasing; clear it, or a waiter
        // blocked by shared holders would name that dead (perhaps reused) pid.
        LockMode::Shared => {
            if file.metadata().is_ok_and(|m| m.len() > 0) {
                let _ = file.set_len(0);
            }
        }
    }
    Ok(LedgerLock { file, mode })
}

fn write_holder(file: &mut File) -> std::io::Result<()> {
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    write!(file, "{}", std::process::id())
}

fn read_holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

impl Drop for LedgerLock {
    fn drop(&mut self) {
        // The pid names this holder only while it holds the lock.
        if self.mode == LockMode::Exclusive {
            let _ = self.file.set_len(0);
        }
        // Closing the file releases the flock anyway; unlocking first just makes the
        // release immediate even if a duplicate descriptor is still open somewhere.
        let _ = FileExt::unlock(&self.file);
    }
}
