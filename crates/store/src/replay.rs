//! Replaying the log: the chain check, the rebuild of the views, and their audit.
//!
//! Every record is walked from seq 1 (seqs are dense), decoded (trailing bytes are an
//! error), checked against the hash chain (each `prev` is the hash of the previous
//! record's stored bytes; the first is all zeros; the stored head names the last seq
//! and hash) and for its provenance (`SameAs(first)` points at the first record of its
//! own transaction, which carries the origin), then applied with
//! `materialize::apply`, the code path of live writes. A rebuild applies it to the
//! store's own emptied views, in one transaction; an audit applies it to views in a
//! scratch database (a temporary redb file, whatever the backend) and compares them, entry
//! by entry, with the stored ones.

use std::cmp::Ordering;
use std::iter::Peekable;
use std::time::Duration;

use redb::backends::{FileBackend, InMemoryBackend};
use redb::{Builder, StorageBackend};
use serde::Serialize;

use super::backend::{Key3, PAGE, StoreResult, Tables, TablesMut, paged};
use super::event::{self, Event, Provenance, Record, Seq};
use super::finding::{Finding, Findings, Place};
use super::head::read_head;
use super::materialize;
use super::redbfile::RedbWrite;
use super::tables::{
    META_COUNT_PREFIX, META_EPOCH, META_FORMAT, META_HEAD, META_LIVE_PREFIX, META_QUOTED_PREFIX,
    META_RETRACTED_PREFIX, META_TALLY, QuoteRow, STORE_FORMAT, SourceRow,
};
use super::tally::Tally;
use super::{Head, Reader, Store, StoreError};

/// What a replay went through: the log and the views it gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Replayed {
    /// Records in the log.
    pub records: u64,
    /// The head of the chain (seq 0, zeros for an empty log).
    pub head: Option<Head>,
    /// The current epoch after the last record: epochs 1 to this one exist.
    pub epochs: u64,
    /// Sources over all epochs.
    pub sources: u64,
    /// Quotes over all epochs.
    pub quotes: u64,
}

/// What the audit of the store found.
#[derive(Clone, Debug, Default)]
pub struct LogAudit {
    pub replayed: Replayed,
    pub findings: Findings,
    /// What the audit did another way than usual (replayed in memory, on a full disk).
    pub notes: Vec<String>,
}

/// Why a walk of the log stopped.
enum Stop {
    /// The log is broken there.
    Bad(Finding),
    /// The store could not be read or written.
    Store(StoreError),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Stop {
        match e {
            StoreError::Corrupted { seq, reason } | StoreError::Invariant { seq, reason }
                if seq > 0 =>
            {
                Stop::Bad(Finding::record(seq, reason))
            }
            e => Stop::Store(e),
        }
    }
}

/// Pages of the log: up to [`PAGE`] records from a seq on. Given the views being written,
/// for a rebuild, which reads the log from the same transaction.
type RecordPages<'a> = dyn FnMut(&mut dyn TablesMut, u64) -> StoreResult<Vec<(u64, Vec<u8>)>> + 'a;

/// Walks the log that `pages` gives, checking it, and applies each record to `views`;
/// checks `stored_head` against the last record. Returns the head.
fn walk(
    pages: &mut RecordPages<'_>,
    stored_head: Result<Option<Head>, StoreError>,
    views: &mut dyn TablesMut,
) -> Result<Head, Stop> {
    let mut head = Head::EMPTY;
    let mut tally = Tally::EMPTY;
    // The seq of the last record that carries its own origin.
    let mut origin_at: Option<u64> = None;
    let mut from = 0;
    loop {
        let page = pages(views, from)?;
        let Some(&(last, _)) = page.last() else { break };
        let full = page.len() == PAGE;
        for (seq, bytes) in page {
            walk_one(seq, &bytes, &mut head, &mut tally, &mut origin_at, views)?;
        }
        if !full {
            break;
        }
        from = last.saturating_add(1);
    }
    end_of_walk(head, tally, stored_head, views)
}

/// Checks one record of the walk and applies it.
fn walk_one(
    seq: u64,
    bytes: &[u8],
    head: &mut Head,
    tally: &mut Tally,
    origin_at: &mut Option<u64>,
    views: &mut dyn TablesMut,
) -> Result<(), Stop> {
    {
        let expected = head.seq.0.saturating_add(1);
        if seq != expected {
            return Err(Stop::Bad(Finding::record(
                expected,
                if seq == 0 {
                    "the log has a record 0; it starts at 1".to_string()
                } else {
                    format!(
                        "missing: the log jumps from record {} to record {seq}",
                        head.seq.0
                    )
                },
            )));
        }
        let record =
            Record::decode(bytes).map_err(|e| Stop::Bad(Finding::record(seq, e.to_string())))?;
        if record.prev != head.hash {
            return Err(Stop::Bad(if seq == 1 {
                Finding::record(1, "the first record's prev hash is not all zeros")
            } else {
                Finding::record(
                    seq - 1,
                    format!(
                        "its hash {} is not the prev hash {} stored in record {seq}: record {} or record {seq} was changed",
                        short(&head.hash),
                        short(&record.prev),
                        seq - 1
                    ),
                )
            }));
        }
        match &record.provenance {
            Provenance::Origin(_) => *origin_at = Some(seq),
            Provenance::SameAs(first) => {
                if *origin_at != Some(first.0) {
                    return Err(Stop::Bad(Finding::record(
                        seq,
                        format!(
                            "provenance points at record {}, which does not start its transaction",
                            first.0
                        ),
                    )));
                }
            }
        }
        check_event(&*views, seq, &record.event)?;
        tally
            .count(&record.event)
            .map_err(|reason| Stop::Bad(Finding::record(seq, reason)))?;
        materialize::apply(views, Seq(seq), &record.event)?;
        *head = Head {
            seq: Seq(seq),
            hash: event::hash_bytes(bytes),
        };
    }
    Ok(())
}

/// Checks the stored head against the walked one, and stores the tally the walk counted.
fn end_of_walk(
    head: Head,
    tally: Tally,
    stored_head: Result<Option<Head>, StoreError>,
    views: &mut dyn TablesMut,
) -> Result<Head, Stop> {
    let stored = stored_head.map_err(|e| match e {
        StoreError::Corrupted { reason, .. } => Stop::Bad(Finding {
            place: Place::Head,
            reason,
        }),
        e => Stop::Store(e),
    })?;
    let bad_head = |reason: String| {
        Stop::Bad(Finding {
            place: Place::Head,
            reason,
        })
    };
    match stored {
        None if head.seq.0 == 0 => {}
        None => {
            return Err(bad_head(format!(
                "no head is stored, but the log has {} records",
                head.seq.0
            )));
        }
        Some(s) if s.seq != head.seq => {
            return Err(bad_head(format!(
                "the stored head names record {}, but the log ends at record {}",
                s.seq.0, head.seq.0
            )));
        }
        Some(s) if s.hash != head.hash => {
            return Err(bad_head(format!(
                "the stored head hash {} is not the hash {} of record {}: record {} or the head was changed",
                short(&s.hash),
                short(&head.hash),
                head.seq.0,
                head.seq.0
            )));
        }
        Some(_) => {}
    }
    // The log's counters, as a replay of it gives them: written by a rebuild, compared by
    // an audit.
    views.put_meta(META_TALLY, &tally.encode())?;
    Ok(head)
}

/// What `apply` takes on trust and a replay checks: an added source is new, in the
/// current epoch; a reset starts the next epoch.
fn check_event(views: &dyn Tables, seq: u64, event: &Event) -> Result<(), Stop> {
    let current = materialize::current_epoch(views)?;
    let bad = |reason: String| Err(Stop::Bad(Finding::record(seq, reason)));
    match event {
        Event::SourceAdded(a) => {
            if a.epoch != current {
                return bad(format!(
                    "adds [{}] to epoch {}, but the current epoch is {}",
                    a.id.0, a.epoch.0, current.0
                ));
            }
            if views.source(a.epoch.0, a.id.0)?.is_some() {
                return bad(format!(
                    "adds [{}] to epoch {}, which already has it",
                    a.id.0, a.epoch.0
                ));
            }
            if let Some(id) = views.url(a.epoch.0, a.url.as_str())? {
                return bad(format!(
                    "adds {} as [{}], but it is already [{}]",
                    a.url, a.id.0, id
                ));
            }
        }
        Event::Reset { new_epoch } if Some(new_epoch.0) != current.0.checked_add(1) => {
            return bad(format!(
                "resets to epoch {}, but the current epoch is {}",
                new_epoch.0, current.0
            ));
        }
        _ => {}
    }
    Ok(())
}

/// The first 12 hex digits of a hash, for messages.
fn short(hash: &event::Hash) -> String {
    let mut s = event::hex(hash);
    s.truncate(12);
    s.push('…');
    s
}

/// The head as stored, `None` when none is.
fn stored_head(tables: &dyn Tables) -> Result<Option<Head>, StoreError> {
    match tables.meta(META_HEAD)? {
        None => Ok(None),
        Some(_) => read_head(tables).map(Some),
    }
}

/// True for the keys of `meta` that are views of the log: all but format and head.
fn is_view_key(key: &str) -> bool {
    key == META_EPOCH
        || key.starts_with(META_COUNT_PREFIX)
        || key.starts_with(META_QUOTED_PREFIX)
        || key.starts_with(META_RETRACTED_PREFIX)
        || key.starts_with(META_LIVE_PREFIX)
}

/// What the views hold once replayed.
fn totals(views: &dyn Tables, records: u64, head: Head) -> Result<Replayed, StoreError> {
    let counts = views.row_counts()?;
    Ok(Replayed {
        records,
        head: (records > 0).then_some(head),
        epochs: materialize::current_epoch(views)?.0,
        sources: counts.sources,
        quotes: counts.quotes,
    })
}

/// A stop of the walk as the error a rebuild fails with.
fn stop_error(stop: Stop) -> StoreError {
    match stop {
        Stop::Bad(f) => match f.place {
            Place::Record { seq } => StoreError::Corrupted {
                seq,
                reason: f.reason,
            },
            other => StoreError::CorruptedEntry {
                what: format!("the {other} of the log"),
                reason: f.reason,
            },
        },
        Stop::Store(e) => e,
    }
}

impl Store {
    /// Recomputes every view from the log, in one durable write transaction: the view
    /// tables and the view keys of `meta` are emptied, then every record is checked and
    /// applied again. Refuses, changing nothing, a log that does not check out.
    ///
    /// The caller holds the exclusive maintenance lock (opened with
    /// [`LockMode::Maintenance`](super::lock::LockMode::Maintenance)), so no writer runs
    /// alongside; readers see the old views or the new ones, never a mix.
    pub fn rebuild(&self, wait: Duration) -> Result<Replayed, StoreError> {
        let mut replayed = Replayed::default();
        self.write_tables(wait, &mut |views| {
            views.clear_views(&is_view_key)?;
            let stored = stored_head(&*views);
            let head = walk(
                &mut |v: &mut dyn TablesMut, from| v.record_page(from, PAGE),
                stored,
                views,
            )
            .map_err(stop_error)?;
            views.put_meta(META_FORMAT, &STORE_FORMAT.to_le_bytes())?;
            replayed = totals(&*views, head.seq.0, head)?;
            Ok(true)
        })?;
        Ok(replayed)
    }
}

impl Store {
    /// Copies the log of `from` (every record, byte for byte, so the hash chain is the
    /// same) and every snapshot into this store, which must hold no record yet, then
    /// recomputes the views from the copied log, checking it as a rebuild does; all in
    /// one durable transaction. Returns what the copy holds; refuses, writing nothing, a
    /// store that is not empty and a log that does not check out.
    pub fn copy_from(&self, from: &Reader, wait: Duration) -> Result<Copied, StoreError> {
        let mut copied = Copied::default();
        self.write_tables(wait, &mut |to| {
            if let Some((records, _)) = to.last_record()? {
                return Err(StoreError::NotEmpty { records });
            }
            let mut snapshots = 0;
            for item in from.snapshot_entries()? {
                let (hash, text) = item?;
                to.put_snapshot(&hash, &text)?;
                snapshots += 1;
            }
            let mut head = Head::EMPTY;
            for item in from.raw_records() {
                let (seq, bytes) = item?;
                to.put_record(seq.0, &bytes)?;
                head = Head {
                    seq,
                    hash: event::hash_bytes(&bytes),
                };
            }
            if head.seq.0 > 0 {
                to.put_meta(META_HEAD, &head.encode())?;
            }
            to.clear_views(&is_view_key)?;
            let walked = walk(
                &mut |v: &mut dyn TablesMut, from| v.record_page(from, PAGE),
                stored_head(&*to),
                to,
            )
            .map_err(stop_error)?;
            to.put_meta(META_FORMAT, &STORE_FORMAT.to_le_bytes())?;
            copied = Copied {
                replayed: totals(&*to, walked.seq.0, walked)?,
                snapshots,
            };
            Ok(true)
        })?;
        Ok(copied)
    }
}

/// What [`Store::copy_from`] copied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    pub replayed: Replayed,
    pub snapshots: u64,
}

impl Reader {
    /// Replays the log into scratch views and compares them with the stored ones. The
    /// first problem of the log stops the replay (and the comparison, which would only
    /// echo it); every differing table entry is reported.
    pub fn audit_log(&self) -> LogAudit {
        let mut out = LogAudit::default();
        match self.audit_on_disk(&mut out) {
            Ok(()) => {}
            // A full disk is no fault of the ledger (issue 24): replay in memory instead.
            Err(e) if e.is_storage_full() => {
                out = LogAudit::default();
                out.notes.push(
                    "the temporary folder had no room for the replay's scratch file: the log was replayed in memory".to_string(),
                );
                if let Err(e) = self.audit_with(&mut out, InMemoryBackend::new()) {
                    out.findings.push(Finding::store(e));
                }
            }
            Err(e) => out.findings.push(Finding::store(e)),
        }
        out
    }

    /// [`Reader::audit_with`] an anonymous temporary file, rather than memory: redb
    /// spills dirty pages past its cache, so a million-source audit stays within a few
    /// MiB.
    fn audit_on_disk(&self, out: &mut LogAudit) -> Result<(), StoreError> {
        let scratch = tempfile::tempfile().map_err(|source| StoreError::Io {
            action: "create a scratch file for the replay in",
            path: std::env::temp_dir(),
            source,
        })?;
        self.audit_with(out, FileBackend::new(scratch)?)
    }

    /// Replays the log into views held by `scratch`, then compares.
    fn audit_with(
        &self,
        out: &mut LogAudit,
        scratch: impl StorageBackend,
    ) -> Result<(), StoreError> {
        let mem = Builder::new()
            .set_cache_size(4 << 20)
            .create_with_backend(scratch)?;
        let txn = mem.begin_write()?;
        let mut views = RedbWrite::new(&txn)?;
        let tables = self.tables();
        let stored_head = stored_head(tables);
        let walked = walk(
            &mut |_: &mut dyn TablesMut, from| tables.record_page(from, PAGE),
            stored_head,
            &mut views,
        );
        let head = match walked {
            Ok(head) => head,
            Err(Stop::Bad(f)) => {
                out.findings.push(f);
                return Ok(());
            }
            Err(Stop::Store(e)) => return Err(e),
        };
        out.replayed = totals(&views, head.seq.0, head)?;
        self.compare(&views, &mut out.findings)
    }

    /// Compares every view entry on disk with its replayed twin, both ways.
    fn compare(&self, mem: &dyn Tables, findings: &mut Findings) -> Result<(), StoreError> {
        let disk = self.tables();
        // A store of format 1 keeps no tally; from format 2 on it is compared like a view.
        let tallied = disk
            .meta(META_FORMAT)?
            .is_some_and(|v| v != 1u16.to_le_bytes());
        let compared = move |k: &str| is_view_key(k) || (tallied && k == META_TALLY);
        merge(
            meta_entries(disk).filter(move |r| r.as_ref().map_or(true, |(k, _)| compared(k))),
            meta_entries(mem).filter(move |r| r.as_ref().map_or(true, |(k, _)| compared(k))),
            findings,
            |key, disk, replay| {
                let value = |bytes: &[u8]| meta_value(key, bytes);
                Finding::entry(
                    "meta",
                    key.clone(),
                    match (disk, replay) {
                        (Some(d), Some(r)) => {
                            format!("stored {}, the log gives {}", value(d), value(r))
                        }
                        (Some(d), None) => {
                            format!("stored {}, but the log gives no such entry", value(d))
                        }
                        (None, Some(r)) => format!("missing: the log gives {}", value(r)),
                        (None, None) => unreachable!(),
                    },
                )
            },
        )?;
        merge(
            url_entries(disk),
            url_entries(mem),
            findings,
            |(epoch, url), disk, replay| {
                Finding::entry(
                    "urls",
                    format!("epoch {epoch}, {url}"),
                    match (disk, replay) {
                        (Some(d), Some(r)) => format!("maps to [{d}], the log gives [{r}]"),
                        (Some(d), None) => {
                            format!("maps to [{d}], but no record of the log adds this url")
                        }
                        (None, Some(r)) => format!("missing: the log adds it as [{r}]"),
                        (None, None) => unreachable!(),
                    },
                )
            },
        )?;
        merge(
            source_entries(disk),
            source_entries(mem),
            findings,
            |(epoch, id), disk, replay| {
                Finding::entry(
                    "sources",
                    format!("epoch {epoch}, id {id}"),
                    row_difference(disk, replay, SourceRow::decode),
                )
            },
        )?;
        merge(
            history_entries(disk),
            history_entries(mem),
            findings,
            |(epoch, id, seq), disk, _| {
                Finding::entry(
                    "history",
                    format!("epoch {epoch}, id {id}, record {seq}"),
                    if disk.is_some() {
                        format!("stored, but record {seq} does not concern this source")
                    } else {
                        format!("missing: record {seq} concerns this source")
                    },
                )
            },
        )?;
        merge(
            super::quote_entries(disk),
            super::quote_entries(mem),
            findings,
            |(epoch, id, n), disk, replay| {
                Finding::entry(
                    "quotes",
                    format!("epoch {epoch}, id {id}, quote {n}"),
                    row_difference(disk, replay, QuoteRow::decode),
                )
            },
        )?;
        Ok(())
    }
}

/// A stored entry: its key and its value's bytes, not decoded.
pub type RawEntry<K> = (K, Vec<u8>);

/// The key of a quote: (epoch, id, n).
pub type QuoteKey = Key3;

type Entries<'t, K, V> = Box<dyn Iterator<Item = Result<(K, V), StoreError>> + 't>;

fn meta_entries(t: &dyn Tables) -> Entries<'_, String, Vec<u8>> {
    Box::new(paged(
        move |after: Option<&String>, n: usize| t.meta_page(after.map(String::as_str), n),
        |(k, _)| k.clone(),
    ))
}

fn url_entries(t: &dyn Tables) -> Entries<'_, (u64, String), u64> {
    Box::new(paged(
        move |after: Option<&(u64, String)>, n: usize| {
            t.url_page(after.map(|(e, u)| (*e, u.as_str())), n)
        },
        |(k, _)| k.clone(),
    ))
}

fn source_entries(t: &dyn Tables) -> Entries<'_, (u64, u64), Vec<u8>> {
    Box::new(paged(
        move |after: Option<&(u64, u64)>, n: usize| t.source_entries_page(after.copied(), n),
        |(k, _)| *k,
    ))
}

fn history_entries(t: &dyn Tables) -> Entries<'_, Key3, ()> {
    Box::new(
        paged(
            move |after: Option<&Key3>, n: usize| t.history_page(after.copied(), n),
            |k| *k,
        )
        .map(|r| r.map(|k| (k, ()))),
    )
}

impl Reader {
    /// Every stored snapshot as (key, text bytes), in key order, streamed.
    pub fn snapshot_entries(
        &self,
    ) -> Result<impl Iterator<Item = Result<RawEntry<Vec<u8>>, StoreError>> + '_, StoreError> {
        let t = self.tables();
        Ok(paged(
            move |after: Option<&Vec<u8>>, n: usize| t.snapshot_page(after.map(Vec::as_slice), n),
            |(k, _)| k.clone(),
        ))
    }

    /// Whether a snapshot is stored under `hash`, without reading its text.
    pub fn has_snapshot(&self, hash: &event::Hash) -> Result<bool, StoreError> {
        self.tables().has_snapshot(hash)
    }

    /// Every stored quote of every epoch as ((epoch, id, n), encoded row), in key order,
    /// streamed and not decoded.
    pub fn quote_entries(
        &self,
    ) -> Result<impl Iterator<Item = Result<RawEntry<QuoteKey>, StoreError>> + '_, StoreError> {
        Ok(super::quote_entries(self.tables()))
    }
}

/// Walks two key-ordered entry streams side by side and reports, through `describe`,
/// every key whose value differs or that only one side has.
fn merge<K: Ord, V: PartialEq>(
    disk: impl Iterator<Item = Result<(K, V), StoreError>>,
    replay: impl Iterator<Item = Result<(K, V), StoreError>>,
    findings: &mut Findings,
    describe: impl Fn(&K, Option<&V>, Option<&V>) -> Finding,
) -> Result<(), StoreError> {
    fn next<K, V>(
        it: &mut Peekable<impl Iterator<Item = Result<(K, V), StoreError>>>,
    ) -> Result<Option<&(K, V)>, StoreError> {
        if matches!(it.peek(), Some(Err(_)))
            && let Some(Err(e)) = it.next()
        {
            return Err(e);
        }
        match it.peek() {
            Some(Ok(kv)) => Ok(Some(kv)),
            _ => Ok(None),
        }
    }
    let mut disk = disk.peekable();
    let mut replay = replay.peekable();
    loop {
        let order = match (next(&mut disk)?, next(&mut replay)?) {
            (None, None) => return Ok(()),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((dk, dv)), Some((rk, rv))) => match dk.cmp(rk) {
                Ordering::Equal => {
                    if dv != rv {
                        findings.push(describe(dk, Some(dv), Some(rv)));
                    }
                    Ordering::Equal
                }
                o => o,
            },
        };
        match order {
            Ordering::Less => {
                if let Some((k, v)) = next(&mut disk)? {
                    findings.push(describe(k, Some(v), None));
                }
                disk.next();
            }
            Ordering::Greater => {
                if let Some((k, v)) = next(&mut replay)? {
                    findings.push(describe(k, None, Some(v)));
                }
                replay.next();
            }
            Ordering::Equal => {
                disk.next();
                replay.next();
            }
        }
    }
}

/// A meta value for a message: the tally it holds, the u64 it holds, or its bytes.
fn meta_value(key: &str, bytes: &[u8]) -> String {
    if key == META_TALLY
        && let Ok(t) = Tally::decode(bytes)
    {
        return format!(
            "epoch {}, {} sources, highest id [{}]",
            t.epoch.0, t.sources, t.last_id
        );
    }
    match <[u8; 8]>::try_from(bytes) {
        Ok(b) => u64::from_le_bytes(b).to_string(),
        Err(_) => format!("{bytes:02x?}"),
    }
}

/// How a stored row differs from the replayed one: the first field that differs.
fn row_difference<R: Serialize>(
    disk: Option<&Vec<u8>>,
    replay: Option<&Vec<u8>>,
    decode: impl Fn(&[u8]) -> Result<R, String>,
) -> String {
    let json = |bytes: &[u8]| decode(bytes).map(|r| serde_json::to_value(r).unwrap_or_default());
    match (disk, replay) {
        (Some(d), None) => match json(d) {
            Ok(_) => "stored, but no record of the log makes it".to_string(),
            Err(e) => format!("stored ({e}), but no record of the log makes it"),
        },
        (None, Some(_)) => "missing: the log makes it".to_string(),
        (Some(d), Some(r)) => match (json(d), json(r)) {
            (Err(e), _) => e,
            (Ok(d), Ok(r)) => {
                let field = d
                    .as_object()
                    .into_iter()
                    .flatten()
                    .find(|(k, v)| r.get(k.as_str()) != Some(v));
                match field {
                    Some((k, v)) => format!(
                        "{k} is {}, the log gives {}",
                        v,
                        r.get(k.as_str()).cloned().unwrap_or_default()
                    ),
                    None => "differs from what the log gives".to_string(),
                }
            }
            (Ok(_), Err(e)) => format!("the log's own row does not encode back: {e}"),
        },
        (None, None) => unreachable!(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_reports_missing_extra_and_different_entries() {
        let disk = vec![(1, 'a'), (2, 'b'), (4, 'd')];
        let replay = vec![(1, 'a'), (2, 'x'), (3, 'c')];
        let mut f = Findings::default();
        merge(
            disk.into_iter().map(Ok),
            replay.into_iter().map(Ok),
            &mut f,
            |k, d, r| Finding::entry("t", k.to_string(), format!("{d:?} {r:?}")),
        )
        .unwrap();
        let got: Vec<String> = f.kept.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            got,
            [
                "t (2): Some('b') Some('x')",
                "t (3): None Some('c')",
                "t (4): Some('d') None"
            ]
        );
    }
}
