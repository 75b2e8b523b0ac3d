//! The store: one redb file holding the append-only, hash-chained event log and the
//! tables materialized from it.
//!
//! Knows nothing of commands or output. Writers go through [`Store::write`], which appends
//! records and updates the views in one durable transaction; readers get a [`Reader`], a
//! consistent snapshot. Files are opened in redb's multi-writer mode so that several
//! processes (CLI commands, a long-lived server) share a ledger at the same moment; redb
//! is pinned to one exact version because every process must speak the same lock protocol.

pub mod check;
pub mod event;
mod file;
pub mod lock;
pub mod materialize;
mod migrate;
mod open;
pub mod replay;
pub mod tables;
pub mod tally;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use redb::{
    Database, ReadOnlyDatabase, ReadOnlyTable, ReadTransaction, ReadableDatabase, ReadableTable,
    TableDefinition, TableError, TransactionError, WriteTransaction,
};

use event::{
    Epoch, Event, FORMAT_VERSION, GENESIS, Hash, Origin, Provenance, Record, Seq, SourceId,
};
use file::Deadline;
use lock::{LedgerLock, LockMode};
use materialize::Views;
use tables::{
    EVENTS, HISTORY, META, META_HEAD, META_TALLY, QUOTES, QuoteRow, SNAPSHOTS, SOURCES, SourceRow,
    URLS,
};
use tally::Tally;

/// Everything that can go wrong below the ledger operations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error(
        "{} is a sources.py JSON ledger, not a cite store — import it into a new ledger with `cite --ledger NEW.redb import {}`",
        path.display(), path.display()
    )]
    JsonLedger { path: PathBuf },
    #[error(
        "{} is not a cite ledger (not a redb database) — point --ledger at a cite ledger file or a new path",
        path.display()
    )]
    NotALedger { path: PathBuf },
    #[error(
        "{} is a folder, not a ledger file — pass a file path such as {}",
        path.display(), suggestion.display()
    )]
    Folder { path: PathBuf, suggestion: PathBuf },
    #[error(
        "{} is not a regular file ({kind}) — point --ledger at a cite ledger file or a new path",
        path.display()
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error(
        "the ledger at {} is read-only for this user: reading works, writing does not — ask its owner for write access, or work on a copy (`cp {} COPY`, then `--ledger COPY`)",
        path.display(), path.display()
    )]
    ReadOnly { path: PathBuf },
    #[error(
        "the lock file {} is {kind}, not a regular file cite can lock — cite never follows or writes it; move it away (look at it first) and try again",
        path.display()
    )]
    LockFile { path: PathBuf, kind: String },
    #[error(
        "the ledger at {} is unsupported or damaged ({reason}) — run `cite audit`; restore it from a backup if that fails",
        path.display()
    )]
    Damaged { path: PathBuf, reason: String },
    #[error(
        "unsupported ledger format in {} (got {got}, supports {supports}) — use a newer cite",
        path.display()
    )]
    UnsupportedFormat {
        path: PathBuf,
        got: u16,
        supports: u16,
    },
    #[error("ledger busy: {} — gave up after {} s waiting for the writer lock{}{} — try again later or raise --wait",
        path.display(),
        seconds(*waited),
        match holders.as_slice() {
            [] => String::new(),
            [pid] => format!(", held now by pid {pid}"),
            pids => format!(", held now by pids {}", pids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        },
        if *maintenance_waiting { "; a maintenance command (rebuild, import) is waiting for its turn" } else { "" },
    )]
    Busy {
        path: PathBuf,
        /// Who holds the writer lock as the wait ends (where the kernel says).
        holders: Vec<u32>,
        /// Whether a maintenance command kept this writer out.
        maintenance_waiting: bool,
        waited: Duration,
    },
    #[error("ledger busy: {} — gave up after {} s waiting for another process that has the store open (it may be stopped or hung) — try again later or raise --wait",
        path.display(), seconds(*waited))]
    StoreBusy { path: PathBuf, waited: Duration },
    #[error("the ledger file {} was replaced while this process had it open — nothing was written; run the command again", path.display())]
    Replaced { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("record {seq} is corrupted: {reason} — run `cite audit`")]
    Corrupted { seq: u64, reason: String },
    #[error("{what} is corrupted: {reason} — run `cite audit`")]
    CorruptedEntry { what: String, reason: String },
    #[error(
        "the ledger's tables disagree with its log ({detail}) — nothing was written; run `cite rebuild` to recompute them from the log, then try again"
    )]
    ViewsDisagree { detail: String },
    #[error(
        "refused to write record {seq}: {reason} — nothing was written; run `cite audit`, then `cite rebuild` if it names the tables"
    )]
    Invariant { seq: u64, reason: String },
    #[error(
        "epoch {epoch} has handed out every id up to {} — run `cite reset` to start a new numbering",
        event::MAX_ID
    )]
    IdsExhausted { epoch: u64 },
    #[error("the ledger store failed: {0} — run `cite audit` if this persists")]
    Database(#[from] redb::Error),
}

/// Seconds for messages: `0.3`, `1`, `2.5`.
fn seconds(d: Duration) -> String {
    let text = format!("{:.3}", d.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Database(e.into())
            }
        }
    )*};
}
from_redb!(
    redb::StorageError,
    redb::TableError,
    redb::CommitError,
    redb::TransactionError,
    redb::DatabaseError
);

/// An open ledger file.
pub struct Store {
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

impl Drop for Store {
    fn drop(&mut self) {
        // Closing the database takes redb's locks too: bound that wait like any other.
        self.deadline.arm(self.wait);
    }
}

impl Store {
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
            };
        }
        e.into()
    }

    /// A consistent snapshot for reading.
    pub fn read(&self) -> Result<Reader, StoreError> {
        self.deadline.arm(self.wait);
        let txn = match &self.db {
            Db::Rw(db) => db.begin_read(),
            Db::Ro(db) => db.begin_read(),
        }
        .map_err(|e| self.failed(e))?;
        Ok(Reader { txn })
    }

    /// Runs `f` in one write transaction and commits it durably. Each wait for another
    /// process (to begin, to commit) lasts at most `wait`. Records appended by `f` carry
    /// `origin`. Nothing is written if `f` fails.
    pub fn write<T, E>(
        &self,
        origin: &Origin,
        wait: Duration,
        f: impl FnOnce(&mut Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        // A kept store takes the writer lock for this write only, and first makes sure the
        // path still names the file it has open: a ledger moved into place meanwhile (a
        // restored backup) must not take writes that land in the replaced file.
        let _turn = match self.kept {
            Some(_) => {
                let turn = lock::acquire(&self.path, LockMode::Write, wait)?;
                if !self.names_open_file() {
                    return Err(StoreError::Replaced {
                        path: self.path.clone(),
                    }
                    .into());
                }
                Some(turn)
            }
            None => None,
        };
        let txn = self.begin_write(wait)?;
        let (out, changed) = {
            let mut writer = Writer::new(&txn, origin)?;
            let out = f(&mut writer)?;
            (out, writer.finish()?)
        };
        self.deadline.arm(wait);
        if !changed {
            // Nothing to make durable (an add of URLs all registered before): a commit would
            // cost the disk two syncs for nothing.
            txn.abort().map_err(|e| self.failed(e))?;
            return Ok(out);
        }
        txn.commit().map_err(|e| self.failed(e))?;
        Ok(out)
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
                        });
                    }
                }
                Err(e) => return Err(self.failed(e)),
            }
        }
    }
}

/// A file's device and inode: which file a path names.
fn file_id(path: &std::path::Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// The head of the chain: the last record's seq and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    pub seq: Seq,
    pub hash: Hash,
}

impl Head {
    const EMPTY: Head = Head {
        seq: Seq(0),
        hash: GENESIS,
    };

    fn encode(&self) -> [u8; 40] {
        let mut out = [0u8; 40];
        out[..8].copy_from_slice(&self.seq.0.to_le_bytes());
        out[8..].copy_from_slice(&self.hash);
        out
    }

    fn decode(bytes: &[u8]) -> Result<Head, StoreError> {
        if bytes.len() != 40 {
            return Err(StoreError::Corrupted {
                seq: 0,
                reason: format!("stored head is {} bytes, not 40", bytes.len()),
            });
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&bytes[..8]);
        let mut hash = [0u8; 32];
        hash.copy_from_slice(&bytes[8..]);
        Ok(Head {
            seq: Seq(u64::from_le_bytes(seq)),
            hash,
        })
    }
}

fn read_head(meta: &impl ReadableTable<&'static str, &'static [u8]>) -> Result<Head, StoreError> {
    match meta.get(META_HEAD)? {
        None => Ok(Head::EMPTY),
        Some(g) => Head::decode(g.value()),
    }
}

fn decode_row(epoch: u64, id: u64, bytes: &[u8]) -> Result<SourceRow, StoreError> {
    SourceRow::decode(bytes).map_err(|reason| StoreError::CorruptedEntry {
        what: format!("the stored row of source [{id}] in epoch {epoch}"),
        reason,
    })
}

/// A stored snapshot as text; page text is stored as UTF-8, so anything else is damage.
fn snapshot_text(hash: &Hash, bytes: &[u8]) -> Result<String, StoreError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| StoreError::CorruptedEntry {
        what: format!("snapshot {}", event::hex(hash)),
        reason: "not UTF-8".into(),
    })
}

fn read_quotes(
    table: &impl ReadableTable<(u64, u64, u64), &'static [u8]>,
    epoch: Epoch,
    id: SourceId,
) -> Result<Vec<QuoteRow>, StoreError> {
    let mut out = Vec::new();
    for item in table.range((epoch.0, id.0, 0)..=(epoch.0, id.0, u64::MAX))? {
        let (k, v) = item?;
        let row = QuoteRow::decode(v.value()).map_err(|reason| StoreError::CorruptedEntry {
            what: format!(
                "quote {} of source [{}] in epoch {}",
                k.value().2,
                id.0,
                epoch.0
            ),
            reason,
        })?;
        out.push(row);
    }
    Ok(out)
}

/// One write transaction in progress: appends records and keeps the views in step.
pub struct Writer<'t> {
    origin: &'t Origin,
    /// The seq of this transaction's first record, once there is one.
    first: Option<Seq>,
    events: redb::Table<'t, u64, &'static [u8]>,
    views: Views<'t>,
    snapshots: redb::Table<'t, &'static [u8], &'static [u8]>,
    head: Head,
    tally: Tally,
    dirty: bool,
}

impl<'t> Writer<'t> {
    /// Opens the tables and checks the views against the log's tally before anything is
    /// written: a write on views that disagree with the log is refused.
    fn new(txn: &'t WriteTransaction, origin: &'t Origin) -> Result<Writer<'t>, StoreError> {
        let meta = txn.open_table(META)?;
        let head = read_head(&meta)?;
        let tally = match tally::read(&meta)? {
            Some(t) => t,
            None if head.seq.0 == 0 => Tally::EMPTY,
            // Every store with records is migrated (format 2) before it is written.
            None => {
                return Err(StoreError::ViewsDisagree {
                    detail: "the log's tally is missing".into(),
                });
            }
        };
        let views = Views {
            meta,
            urls: txn.open_table(URLS)?,
            sources: txn.open_table(SOURCES)?,
            history: txn.open_table(HISTORY)?,
            quotes: txn.open_table(QUOTES)?,
        };
        tally.check(&views)?;
        let events = txn.open_table(EVENTS)?;
        check_head(&events, &head)?;
        Ok(Writer {
            origin,
            first: None,
            events,
            views,
            snapshots: txn.open_table(SNAPSHOTS)?,
            head,
            tally,
            dirty: false,
        })
    }

    /// The current epoch, as of the events appended so far.
    pub fn epoch(&self) -> Epoch {
        self.tally.epoch
    }

    /// The id of `url` in `epoch`, if it is registered.
    pub fn lookup(&self, epoch: Epoch, url: &str) -> Result<Option<SourceId>, StoreError> {
        Ok(self
            .views
            .urls
            .get((epoch.0, url))?
            .map(|g| SourceId(g.value())))
    }

    pub fn source(&self, epoch: Epoch, id: SourceId) -> Result<Option<SourceRow>, StoreError> {
        match self.views.sources.get((epoch.0, id.0))? {
            None => Ok(None),
            Some(g) => decode_row(epoch.0, id.0, g.value()).map(Some),
        }
    }

    /// The id the next source added to `epoch` (the current one) gets: one past the
    /// highest the log has given out in it, never past [`event::MAX_ID`].
    pub fn next_id(&self, epoch: Epoch) -> Result<SourceId, StoreError> {
        if epoch != self.tally.epoch {
            return Err(StoreError::Invariant {
                seq: self.head.seq.0.saturating_add(1),
                reason: format!(
                    "ids are given out in the current epoch {}, not in epoch {}",
                    self.tally.epoch.0, epoch.0
                ),
            });
        }
        self.tally.next_id()
    }

    /// Whether the current epoch has no source yet.
    pub fn epoch_is_empty(&self) -> bool {
        self.tally.last_id == 0
    }

    /// The quotes attached to source `id` of `epoch`, in order.
    pub fn quotes(&self, epoch: Epoch, id: SourceId) -> Result<Vec<QuoteRow>, StoreError> {
        read_quotes(&self.views.quotes, epoch, id)
    }

    /// The page text stored under `hash`, if any.
    pub fn snapshot_text(&self, hash: &Hash) -> Result<Option<String>, StoreError> {
        match self.snapshots.get(hash.as_slice())? {
            None => Ok(None),
            Some(g) => snapshot_text(hash, g.value()).map(Some),
        }
    }

    /// Stores `text` under its blake3 hash (once per distinct text); returns the hash, and
    /// whether the text was stored before.
    pub fn put_snapshot(&mut self, text: &str) -> Result<(Hash, bool), StoreError> {
        let hash = *blake3::hash(text.as_bytes()).as_bytes();
        let stored_before = self.snapshots.get(hash.as_slice())?.is_some();
        if !stored_before {
            self.snapshots.insert(hash.as_slice(), text.as_bytes())?;
        }
        Ok((hash, stored_before))
    }

    /// The events of the latest `limit` records (this transaction's included), newest
    /// first, decoded one by one as the caller reads on; a record that does not decode
    /// is [`StoreError::Corrupted`].
    pub fn recent_events(
        &self,
        limit: usize,
    ) -> Result<impl Iterator<Item = Result<Event, StoreError>> + '_, StoreError> {
        Ok(self.events.range(0u64..)?.rev().take(limit).map(|item| {
            let (k, v) = item?;
            Record::decode(v.value())
                .map(|r| r.event)
                .map_err(|e| StoreError::Corrupted {
                    seq: k.value(),
                    reason: e.to_string(),
                })
        }))
    }

    /// Appends `event` to the log and applies it to the views. Refused, before anything
    /// of it is written, when the tally or the views say it must not happen (see
    /// [`materialize::apply`]).
    pub fn append(&mut self, event: Event) -> Result<Seq, StoreError> {
        let seq = Seq(self
            .head
            .seq
            .0
            .checked_add(1)
            .ok_or(StoreError::Invariant {
                seq: u64::MAX,
                reason: "the log is full".into(),
            })?);
        let mut tally = self.tally;
        tally
            .count(&event)
            .map_err(|reason| StoreError::Invariant { seq: seq.0, reason })?;
        materialize::apply(&mut self.views, seq, &event)?;
        let provenance = match self.first {
            None => Provenance::Origin(self.origin.clone()),
            Some(first) => Provenance::SameAs(first),
        };
        let record = Record {
            format: FORMAT_VERSION,
            provenance,
            prev: self.head.hash,
            event,
        };
        let bytes = record.encode();
        self.events.insert(seq.0, bytes.as_slice())?;
        self.tally = tally;
        self.head = Head {
            seq,
            hash: event::hash_bytes(&bytes),
        };
        self.first.get_or_insert(seq);
        self.dirty = true;
        Ok(seq)
    }

    /// Seals what was appended (head and tally); returns whether the transaction changed
    /// anything. A snapshot stored without a record to name it is left out with the rest.
    fn finish(&mut self) -> Result<bool, StoreError> {
        if self.dirty {
            let meta = &mut self.views.meta;
            meta.insert(META_HEAD, self.head.encode().as_slice())?;
            meta.insert(META_TALLY, self.tally.encode().as_slice())?;
        }
        Ok(self.dirty)
    }
}

/// Checks that the stored head names the last record of the log, by seq and by hash,
/// before a record is chained onto it: a new record must never seal a damaged head (or
/// a truncated log) into the chain.
fn check_head(
    events: &impl ReadableTable<u64, &'static [u8]>,
    head: &Head,
) -> Result<(), StoreError> {
    let last = events.last()?;
    let (seq, hash) = match &last {
        None => (0, GENESIS),
        Some((k, v)) => (k.value(), event::hash_bytes(v.value())),
    };
    if seq != head.seq.0 || hash != head.hash {
        return Err(StoreError::CorruptedEntry {
            what: "the stored head of the log".into(),
            reason: format!(
                "it names record {}, but the log ends at record {seq}, or that record was changed; nothing was written",
                head.seq.0
            ),
        });
    }
    Ok(())
}

/// A read snapshot of the store.
pub struct Reader {
    txn: ReadTransaction,
}

/// Resolves each record's origin as the log streams by: a transaction's first record
/// carries it, and its later records point back at that one. The origin is shared, not
/// copied per record: it holds the whole command line, so a copy per record of a
/// k-URL `add` would cost k² bytes.
fn with_origin<T>(
    records: impl Iterator<Item = Result<(Seq, Record, T), StoreError>>,
) -> impl Iterator<Item = Result<(Seq, Record, T, Arc<Origin>), StoreError>> {
    let mut last: Option<(Seq, Arc<Origin>)> = None;
    records.map(move |item| {
        let (seq, record, extra) = item?;
        let origin = match &record.provenance {
            Provenance::Origin(o) => {
                let o = Arc::new(o.clone());
                last = Some((seq, Arc::clone(&o)));
                o
            }
            Provenance::SameAs(first) => match &last {
                Some((s, o)) if s == first => Arc::clone(o),
                _ => {
                    return Err(StoreError::Corrupted {
                        seq: seq.0,
                        reason: format!(
                            "provenance points at record {}, which does not start its transaction",
                            first.0
                        ),
                    });
                }
            },
        };
        Ok((seq, record, extra, origin))
    })
}

/// The exact bytes stored for a record: what its hash is taken over.
pub type RawRecord = Vec<u8>;

/// A record of the log with its seq, its stored bytes and its resolved origin, shared
/// by the records of one transaction.
pub type RawLoggedRecord = (Seq, Record, RawRecord, Arc<Origin>);

/// A record of the log with its seq, its hash and its resolved origin, shared by the
/// records of one transaction.
pub type LoggedRecord = (Seq, Record, Hash, Arc<Origin>);

/// One source as the views hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSource {
    pub epoch: Epoch,
    pub id: SourceId,
    pub row: SourceRow,
}

impl Reader {
    /// Opens a table, or `None` when the store has never created it.
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Option<ReadOnlyTable<K, V>>, StoreError> {
        match self.txn.open_table(def) {
            Ok(t) => Ok(Some(t)),
            Err(TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    pub fn epoch(&self) -> Result<Epoch, StoreError> {
        match self.table(META)? {
            None => Ok(Epoch::FIRST),
            Some(meta) => materialize::current_epoch(&meta),
        }
    }

    pub fn head(&self) -> Result<Head, StoreError> {
        match self.table(META)? {
            None => Ok(Head::EMPTY),
            Some(meta) => read_head(&meta),
        }
    }

    pub fn lookup(&self, epoch: Epoch, url: &str) -> Result<Option<SourceId>, StoreError> {
        let Some(urls) = self.table(URLS)? else {
            return Ok(None);
        };
        Ok(urls.get((epoch.0, url))?.map(|g| SourceId(g.value())))
    }

    pub fn source(&self, epoch: Epoch, id: SourceId) -> Result<Option<StoredSource>, StoreError> {
        let Some(t) = self.table(SOURCES)? else {
            return Ok(None);
        };
        match t.get((epoch.0, id.0))? {
            None => Ok(None),
            Some(g) => Ok(Some(StoredSource {
                epoch,
                id,
                row: decode_row(epoch.0, id.0, g.value())?,
            })),
        }
    }

    /// Every source of `epoch` in id order, streamed from the table.
    pub fn sources(
        &self,
        epoch: Epoch,
    ) -> Result<impl Iterator<Item = Result<StoredSource, StoreError>> + use<>, StoreError> {
        self.sources_between(epoch, 0, u64::MAX)
    }

    /// How many sources of `epoch` carry at least one quote.
    pub fn quoted_count(&self, epoch: Epoch) -> Result<u64, StoreError> {
        match self.table(META)? {
            None => Ok(0),
            Some(meta) => {
                Ok(materialize::read_u64(&meta, &materialize::quoted_key(epoch))?.unwrap_or(0))
            }
        }
    }

    /// The sources of `epoch` with ids in `lo..=hi`, in id order, streamed.
    pub fn sources_between(
        &self,
        epoch: Epoch,
        lo: u64,
        hi: u64,
    ) -> Result<impl Iterator<Item = Result<StoredSource, StoreError>> + use<>, StoreError> {
        let range = match self.table(SOURCES)? {
            None => None,
            Some(t) => Some(t.range((epoch.0, lo)..=(epoch.0, hi))?),
        };
        Ok(range.into_iter().flatten().map(move |item| {
            let (k, v) = item?;
            let (e, id) = k.value();
            Ok(StoredSource {
                epoch: Epoch(e),
                id: SourceId(id),
                row: decode_row(e, id, v.value())?,
            })
        }))
    }

    /// The ids of `epoch` as inclusive ranges, in order. Ids are dense, so this is one
    /// range unless a store was built otherwise; then the keys are scanned.
    pub fn id_ranges(&self, epoch: Epoch) -> Result<Vec<(u64, u64)>, StoreError> {
        let Some(t) = self.table(SOURCES)? else {
            return Ok(Vec::new());
        };
        let last = self.count(epoch)?;
        if last == 0 {
            return Ok(Vec::new());
        }
        let first = match t.range((epoch.0, 0)..=(epoch.0, u64::MAX))?.next() {
            Some(item) => item?.0.value().1,
            None => return Ok(Vec::new()),
        };
        let stored = match self.table(META)? {
            None => None,
            Some(meta) => materialize::read_u64(&meta, &materialize::count_key(epoch))?,
        };
        if first == 1 && stored == Some(last) {
            return Ok(vec![(1, last)]);
        }
        let mut out: Vec<(u64, u64)> = Vec::new();
        for item in t.range((epoch.0, 0)..=(epoch.0, u64::MAX))? {
            let id = item?.0.value().1;
            match out.last_mut() {
                Some((_, hi)) if *hi + 1 == id => *hi = id,
                _ => out.push((id, id)),
            }
        }
        Ok(out)
    }

    /// Number of sources in `epoch`: the highest id, since ids are dense.
    pub fn count(&self, epoch: Epoch) -> Result<u64, StoreError> {
        let Some(t) = self.table(SOURCES)? else {
            return Ok(0);
        };
        let last = t.range((epoch.0, 0)..=(epoch.0, u64::MAX))?.next_back();
        Ok(match last {
            None => 0,
            Some(item) => item?.0.value().1,
        })
    }

    /// The record at `seq`, decoded.
    pub fn record(&self, seq: Seq) -> Result<Option<Record>, StoreError> {
        let Some(t) = self.table(EVENTS)? else {
            return Ok(None);
        };
        match t.get(seq.0)? {
            None => Ok(None),
            Some(g) => Record::decode(g.value())
                .map(Some)
                .map_err(|e| StoreError::Corrupted {
                    seq: seq.0,
                    reason: e.to_string(),
                }),
        }
    }

    /// Every record of the log in order, with its hash, streamed.
    pub fn records(
        &self,
    ) -> Result<impl Iterator<Item = Result<(Seq, Record, Hash), StoreError>> + use<>, StoreError>
    {
        Ok(self.decoded()?.map(|item| {
            let (seq, record, bytes) = item?;
            Ok((seq, record, event::hash_bytes(&bytes)))
        }))
    }

    /// Every record of the log in order, decoded, beside the exact bytes it was decoded
    /// from.
    fn decoded(
        &self,
    ) -> Result<
        impl Iterator<Item = Result<(Seq, Record, RawRecord), StoreError>> + use<>,
        StoreError,
    > {
        Ok(self.raw_records()?.map(|item| {
            let (seq, bytes) = item?;
            let record = Record::decode(&bytes).map_err(|e| StoreError::Corrupted {
                seq: seq.0,
                reason: e.to_string(),
            })?;
            Ok((seq, record, bytes))
        }))
    }

    /// Every record of the log in order, as the exact bytes stored (and hashed), streamed
    /// and not decoded.
    fn raw_records(
        &self,
    ) -> Result<impl Iterator<Item = Result<(Seq, Vec<u8>), StoreError>> + use<>, StoreError> {
        let range = match self.table(EVENTS)? {
            None => None,
            Some(t) => Some(t.range(0u64..)?),
        };
        Ok(range.into_iter().flatten().map(|item| {
            let (k, v) = item?;
            Ok((Seq(k.value()), v.value().to_vec()))
        }))
    }

    /// The quotes attached to source `id` of `epoch`, in order.
    pub fn quotes(&self, epoch: Epoch, id: SourceId) -> Result<Vec<QuoteRow>, StoreError> {
        match self.table(QUOTES)? {
            None => Ok(Vec::new()),
            Some(t) => read_quotes(&t, epoch, id),
        }
    }

    /// The page text stored under `hash`, if any.
    pub fn snapshot(&self, hash: &Hash) -> Result<Option<String>, StoreError> {
        let Some(t) = self.table(SNAPSHOTS)? else {
            return Ok(None);
        };
        match t.get(hash.as_slice())? {
            None => Ok(None),
            Some(g) => snapshot_text(hash, g.value()).map(Some),
        }
    }

    /// The origin of `record` (at `seq`): its own, or that of its transaction's first
    /// record.
    pub fn origin(&self, seq: Seq, record: &Record) -> Result<Origin, StoreError> {
        match &record.provenance {
            Provenance::Origin(o) => Ok(o.clone()),
            Provenance::SameAs(first) => {
                let bad = |reason: &str| StoreError::Corrupted {
                    seq: seq.0,
                    reason: format!("provenance points at record {}, {reason}", first.0),
                };
                if *first >= seq {
                    return Err(bad("which is not earlier"));
                }
                let head = self
                    .record(*first)?
                    .ok_or_else(|| bad("which is missing"))?;
                match head.provenance {
                    Provenance::Origin(o) => Ok(o),
                    Provenance::SameAs(_) => Err(bad("which has no origin of its own")),
                }
            }
        }
    }

    /// Like [`Reader::records`], with each record's origin resolved.
    pub fn records_with_origin(
        &self,
    ) -> Result<impl Iterator<Item = Result<LoggedRecord, StoreError>> + use<>, StoreError> {
        Ok(with_origin(self.records()?))
    }

    /// Every record with its origin resolved and the exact bytes stored for it: what
    /// `export --format jsonl` hands out, so anyone can re-hash the chain.
    pub fn raw_records_with_origin(
        &self,
    ) -> Result<impl Iterator<Item = Result<RawLoggedRecord, StoreError>> + use<>, StoreError> {
        Ok(with_origin(self.decoded()?))
    }

    /// The seqs of the events that concern source `id` of `epoch`, in order.
    pub fn history(&self, epoch: Epoch, id: SourceId) -> Result<Vec<Seq>, StoreError> {
        let Some(t) = self.table(HISTORY)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for item in t.range((epoch.0, id.0, 0)..=(epoch.0, id.0, u64::MAX))? {
            out.push(Seq(item?.0.value().2));
        }
        Ok(out)
    }
}
