//! Migrations of the stored table layout, one function per step, each one transaction.
//!
//! Run by [`RedbStore::open_write`] under the writer lock, before the write that opened the
//! store, so a store is never written in an older layout. Records are never rewritten: a
//! migration only adds what the newer layout keeps beside the log.

use redb::ReadableTable;

use super::tables::{EVENTS, META};
use super::{Db, RedbStore, StoreError};
use crate::event::Record;
use crate::tables::{META_FORMAT, META_TALLY};
use crate::tally::Tally;

/// Format 1 → 2: counts the log into a [`Tally`] and stores it, then marks the store as
/// format 2. One pass over the log; the views are not consulted, since the tally exists
/// to be checked against them.
pub(super) fn to_2(store: &RedbStore) -> Result<(), StoreError> {
    let Db::Rw(db) = &store.db else {
        unreachable!("migration of a store opened read-only");
    };
    let txn = db.begin_write().map_err(|e| store.failed(e))?;
    {
        let mut tally = Tally::EMPTY;
        let events = txn.open_table(EVENTS)?;
        for item in events.iter()? {
            let (k, v) = item?;
            let seq = k.value();
            let record = Record::decode(v.value()).map_err(|e| StoreError::Corrupted {
                seq,
                reason: e.to_string(),
            })?;
            tally
                .count(&record.event)
                .map_err(|reason| StoreError::Corrupted { seq, reason })?;
        }
        let mut meta = txn.open_table(META)?;
        meta.insert(META_TALLY, tally.encode().as_slice())?;
        meta.insert(META_FORMAT, 2u16.to_le_bytes().as_slice())?;
    }
    txn.commit().map_err(|e| store.failed(e))?;
    Ok(())
}
