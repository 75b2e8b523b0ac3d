//! Copying a ledger to another place, in either backend: the log byte for byte (so the
//! hash chain and `export --format jsonl` are the same), the snapshots, and views
//! recomputed from the log; then the copy is audited.

use std::path::Path;

use super::{AuditReport, Error, Ledger, Result};
use cite_store::{LockMode, Store};

/// What a copy wrote, and the audit of the result.
#[derive(Clone, Debug)]
pub struct Copied {
    pub records: u64,
    pub epochs: u64,
    pub sources: u64,
    pub quotes: u64,
    pub snapshots: u64,
    pub audit: AuditReport,
}

impl Ledger {
    /// Copies this ledger into `to`, which must hold no record yet (a new file, an empty
    /// database), in one transaction, then audits `to`. Nothing of the copy is written
    /// when this ledger's log does not check out or `to` is not empty, and a new file
    /// made for the copy is removed again.
    pub fn copy_to(&self, to: &Ledger) -> Result<Copied> {
        let from = Store::open_read(&self.location, self.wait)?
            .ok_or_else(|| Error::NothingToCopy(self.location.to_string()))?;
        let new_file = to
            .location
            .file()
            .filter(|p| std::fs::symlink_metadata(p).is_err())
            .map(Path::to_path_buf);
        let copied = {
            let reader = from.read()?;
            let target = Store::open_write(&to.location, LockMode::Maintenance, to.wait)?;
            match target.copy_from(&reader, to.wait) {
                Ok(c) => c,
                Err(e) => {
                    // Removed while the maintenance lock is still held, so no other
                    // writer can have put anything in it. (The lock file stays: a lock
                    // file is never removed.)
                    if let Some(path) = new_file {
                        let _ = std::fs::remove_file(&path);
                    }
                    return Err(e.into());
                }
            }
        };
        drop(from);
        let audit = to.audit()?;
        let r = copied.replayed;
        Ok(Copied {
            records: r.records,
            epochs: r.epochs.max(1),
            sources: r.sources,
            quotes: r.quotes,
            snapshots: copied.snapshots,
            audit,
        })
    }
}
