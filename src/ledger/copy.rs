//! Copying a ledger to another place, in either backend: the log byte for byte (so the
//! hash chain and `export --format jsonl` are the same), the snapshots, and views
//! recomputed from the log; then the copy is audited.

use super::{AuditReport, Error, Ledger, Result};
use crate::store::{LockMode, Store};

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
    /// when this ledger's log does not check out or `to` is not empty.
    pub fn copy_to(&self, to: &Ledger) -> Result<Copied> {
        let from = Store::open_read(&self.location, self.wait)?
            .ok_or_else(|| Error::NothingToCopy(self.location.to_string()))?;
        let copied = {
            let reader = from.read()?;
            let target = Store::open_write(&to.location, LockMode::Maintenance, to.wait)?;
            target.copy_from(&reader, to.wait)?
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
