//! Applying one event to the materialized tables.
//!
//! The only code that writes `URLS`, `SOURCES`, `HISTORY` and the epoch in `META`. The
//! append path calls it right after writing the event, and a rebuild calls it for every
//! record of the log, so the two cannot disagree.

use super::StoreError;
use super::backend::{Tables, TablesMut};
use super::event::{Epoch, Event, MAX_ID, Seq, SourceId};
use super::tables::{
    META_COUNT_PREFIX, META_EPOCH, META_LIVE_PREFIX, META_QUOTED_PREFIX, META_RETRACTED_PREFIX,
    QuoteRow, SourceRow,
};

/// Applies `event`, recorded at `seq`, to `views`. Refuses (with
/// [`StoreError::Invariant`]) an added source whose id is out of range or already in its
/// epoch, or whose URL already has an id there: whatever allocated it, a second source
/// under one id or one URL never reaches the views, and so never a commit.
pub fn apply(views: &mut dyn TablesMut, seq: Seq, event: &Event) -> Result<(), StoreError> {
    match event {
        Event::SourceAdded(added) => {
            let key = (added.epoch.0, added.id.0);
            let refuse = |reason: String| StoreError::Invariant { seq: seq.0, reason };
            if !(1..=MAX_ID).contains(&added.id.0) {
                return Err(refuse(format!(
                    "id {} is out of range (1 to {MAX_ID})",
                    added.id.0
                )));
            }
            if views.source(key.0, key.1)?.is_some() {
                return Err(refuse(format!(
                    "[{}] already exists in epoch {}",
                    added.id.0, added.epoch.0
                )));
            }
            if let Some(id) = views.url(added.epoch.0, added.url.as_str())? {
                return Err(refuse(format!(
                    "{} is already [{}] in epoch {}",
                    added.url, id, added.epoch.0
                )));
            }
            let row = SourceRow {
                url: added.url.clone(),
                url_given: added.url_given.clone(),
                title: added.title.clone(),
                accessed: added.accessed.clone(),
                via: added.via.clone(),
                added: seq.0,
                quotes: 0,
                snapshots: Vec::new(),
                facts: Vec::new(),
            };
            views.put_url(added.epoch.0, added.url.as_str(), added.id.0)?;
            views.put_source(key.0, key.1, &row.encode())?;
            views.put_history((key.0, key.1, seq.0))?;
            let count = count_key(added.epoch);
            let n = read_u64(&*views, &count)?
                .unwrap_or(0)
                .checked_add(1)
                .ok_or_else(|| StoreError::Invariant {
                    seq: seq.0,
                    reason: format!("epoch {} counts more sources than fit", added.epoch.0),
                })?;
            views.put_meta(&count, &n.to_le_bytes())?;
        }
        Event::TitleSet { epoch, id, title } => {
            update_source(views, seq, *epoch, *id, "title set", |row| {
                row.title = title.clone();
            })?;
        }
        Event::QuoteAttached(q) => {
            let quote = QuoteRow {
                text: q.text.clone(),
                snapshot: Some(q.snapshot),
                selector: Some(q.selector.clone()),
                added: q.added.clone(),
                seq: seq.0,
            };
            add_quote(views, seq, q.epoch, q.id, &quote)?;
        }
        Event::QuoteImported {
            epoch,
            id,
            text,
            added,
        } => {
            let quote = QuoteRow {
                text: text.clone(),
                snapshot: None,
                selector: None,
                added: added.clone(),
                seq: seq.0,
            };
            add_quote(views, seq, *epoch, *id, &quote)?;
        }
        // A marker for the reader of the log; the records after it do the work.
        Event::Imported { .. } => {}
        // What the caller typed, for the reader of the log: the row holds the page's words.
        Event::QuoteTyped { .. } => {}
        Event::SnapshotStored {
            epoch,
            id,
            snapshot,
        } => {
            update_source(views, seq, *epoch, *id, "snapshot stored", |row| {
                row.snapshots.push(*snapshot);
            })?;
        }
        Event::Reset { new_epoch } => {
            views.put_meta(META_EPOCH, &new_epoch.0.to_le_bytes())?;
        }
        Event::QuoteRetracted {
            epoch,
            id,
            quote,
            reason,
        } => retract_quote(views, seq, *epoch, *id, *quote, reason)?,
        Event::TitleCorrected { epoch, id, title } => {
            update_source(views, seq, *epoch, *id, "title corrected", |row| {
                row.title = title.clone();
            })?;
        }
        Event::MetadataSet { epoch, id, facts } => {
            update_source(views, seq, *epoch, *id, "metadata set", |row| {
                row.set_facts(facts);
            })?;
        }
    }
    Ok(())
}

/// Marks quote `n` of source `id` retracted and keeps the counters in step. Refuses a
/// quote that is not there or is retracted already.
fn retract_quote(
    views: &mut dyn TablesMut,
    seq: Seq,
    epoch: Epoch,
    id: SourceId,
    n: u64,
    reason: &str,
) -> Result<(), StoreError> {
    let refuse = |why: String| StoreError::Invariant {
        seq: seq.0,
        reason: why,
    };
    let key3 = (epoch.0, id.0, n);
    let exists = n >= 1
        && views
            .quote_page(Some((epoch.0, id.0, n - 1)), 1)?
            .first()
            .is_some_and(|(k, _)| *k == key3);
    if !exists {
        return Err(refuse(format!(
            "retracts quote {n} of [{}] in epoch {}, which has no such quote",
            id.0, epoch.0
        )));
    }
    let key = retracted_key(epoch, id, n);
    if views.meta(&key)?.is_some() {
        return Err(refuse(format!(
            "retracts quote {n} of [{}] in epoch {}, which is retracted already",
            id.0, epoch.0
        )));
    }
    views.put_meta(&key, reason.as_bytes())?;
    let mut quotes = 0;
    update_source(views, seq, epoch, id, "quote retracted", |row| {
        quotes = row.quotes;
    })?;
    let live = live_quotes(&*views, epoch, id, quotes)?.saturating_sub(1);
    views.put_meta(&live_key(epoch, id), &live.to_le_bytes())?;
    if live == 0 {
        let key = quoted_key(epoch);
        let quoted = read_u64(&*views, &key)?.unwrap_or(0).saturating_sub(1);
        views.put_meta(&key, &quoted.to_le_bytes())?;
    }
    Ok(())
}

/// How many of source `id`'s `quotes` quotes are not retracted.
pub fn live_quotes(
    tables: &dyn Tables,
    epoch: Epoch,
    id: SourceId,
    quotes: u64,
) -> Result<u64, StoreError> {
    Ok(read_u64(tables, &live_key(epoch, id))?.unwrap_or(quotes))
}

/// The meta key holding why quote `n` of source `id` was retracted.
pub fn retracted_key(epoch: Epoch, id: SourceId, n: u64) -> String {
    format!("{META_RETRACTED_PREFIX}{}/{}/{n}", epoch.0, id.0)
}

/// The meta key counting source `id`'s quotes that are not retracted.
pub fn live_key(epoch: Epoch, id: SourceId) -> String {
    format!("{META_LIVE_PREFIX}{}/{}", epoch.0, id.0)
}

/// Appends `quote` to source `id`'s quotes and keeps the counters in step.
fn add_quote(
    views: &mut dyn TablesMut,
    seq: Seq,
    epoch: Epoch,
    id: SourceId,
    quote: &QuoteRow,
) -> Result<(), StoreError> {
    let mut n = 0;
    update_source(views, seq, epoch, id, "quote attached", |row| {
        row.quotes += 1;
        n = row.quotes;
    })?;
    // A source whose quotes were all retracted gets its first live one again.
    let live = match read_u64(&*views, &live_key(epoch, id))? {
        Some(live) => {
            views.put_meta(&live_key(epoch, id), &(live + 1).to_le_bytes())?;
            live + 1
        }
        None => n,
    };
    if live == 1 {
        let key = quoted_key(epoch);
        let quoted = read_u64(&*views, &key)?.unwrap_or(0) + 1;
        views.put_meta(&key, &quoted.to_le_bytes())?;
    }
    views.put_quote((epoch.0, id.0, n), &quote.encode())?;
    Ok(())
}

/// Rewrites the row of source `id` with `change`, and notes the event in its history.
fn update_source(
    views: &mut dyn TablesMut,
    seq: Seq,
    epoch: Epoch,
    id: SourceId,
    what: &str,
    change: impl FnOnce(&mut SourceRow),
) -> Result<(), StoreError> {
    let key = (epoch.0, id.0);
    let bytes = views
        .source(key.0, key.1)?
        .ok_or_else(|| StoreError::Corrupted {
            seq: seq.0,
            reason: format!(
                "{what} on [{}] of epoch {}, which does not exist",
                id.0, epoch.0
            ),
        })?;
    let mut row =
        SourceRow::decode(&bytes).map_err(|reason| StoreError::Corrupted { seq: seq.0, reason })?;
    change(&mut row);
    views.put_source(key.0, key.1, &row.encode())?;
    views.put_history((key.0, key.1, seq.0))?;
    Ok(())
}

/// The meta key counting the sources of `epoch`.
pub fn count_key(epoch: Epoch) -> String {
    format!("{META_COUNT_PREFIX}{}", epoch.0)
}

/// The meta key counting the sources of `epoch` that carry a quote.
pub fn quoted_key(epoch: Epoch) -> String {
    format!("{META_QUOTED_PREFIX}{}", epoch.0)
}

/// A u64 stored little-endian under `key` in the meta table.
pub fn read_u64(tables: &dyn Tables, key: &str) -> Result<Option<u64>, StoreError> {
    match tables.meta(key)? {
        None => Ok(None),
        Some(v) => {
            let bytes: [u8; 8] =
                v.as_slice()
                    .try_into()
                    .map_err(|_| StoreError::CorruptedEntry {
                        what: format!("meta entry {key:?}"),
                        reason: "not 8 bytes".into(),
                    })?;
            Ok(Some(u64::from_le_bytes(bytes)))
        }
    }
}

/// The current epoch as the meta table records it (the first epoch when unset).
pub fn current_epoch(tables: &dyn Tables) -> Result<Epoch, StoreError> {
    match tables.meta(META_EPOCH)? {
        None => Ok(Epoch::FIRST),
        Some(v) => {
            let bytes: [u8; 8] = v.as_slice().try_into().map_err(|_| StoreError::Corrupted {
                seq: 0,
                reason: "meta epoch is not 8 bytes".into(),
            })?;
            Ok(Epoch(u64::from_le_bytes(bytes)))
        }
    }
}
