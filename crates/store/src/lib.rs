//! The store: the append-only, hash-chained event log of a ledger and the tables
//! materialized from it, over a storage backend.
//!
//! Knows nothing of commands or output. Writers go through [`Store::write`], which appends
//! records and updates the views in one durable transaction; readers get a [`Reader`], a
//! consistent snapshot. The log's rules (the chain, the tally, materialization, replay)
//! are written once here, over the [`backend`] traits; `redbfile/` keeps a ledger in one
//! redb file, `pg/` in one PostgreSQL database.

pub mod backend;
pub mod event;
pub mod finding;
pub mod materialize;
pub mod pg;
pub mod redbfile;
pub mod replay;
pub mod tables;
pub mod tally;

pub use backend::LockMode;
/// A location or argument with any database password in it replaced by `***`: for the
/// command line every record keeps, and for every message that names a location.
pub use pg::hide_password;
pub use redbfile::lock;
/// What a path that is not a regular file is, for messages: every layer that refuses
/// one (the ledger path, a draft to rewrite) says it the same way.
pub use redbfile::lock::file_kind;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use backend::{Backend, Tables, TablesMut, WriteBody, paged};
use event::{
    Epoch, Event, FORMAT_VERSION, GENESIS, Hash, Origin, Provenance, Record, Seq, SourceId,
};
use tables::{META_HEAD, META_TALLY, QuoteRow, SourceRow};
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
    #[error(
        "--ledger {url} is not a PostgreSQL ledger URL: {reason} — write postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME"
    )]
    PgUrl { url: String, reason: String },
    #[error(
        "cannot reach the PostgreSQL server at {at}: {reason} — check that it is running and that --ledger names its host and port"
    )]
    PgUnreachable { at: String, reason: String },
    #[error(
        "the PostgreSQL server at {at} refused the login: {reason} — check the user and password in --ledger (postgres://USER:PASSWORD@HOST:PORT/DBNAME)"
    )]
    PgLogin { at: String, reason: String },
    #[error(
        "{at} is not a cite ledger: the database holds tables of its own ({tables}) — point --ledger at an empty database or at a cite ledger; nothing was written"
    )]
    PgNotALedger { at: String, tables: String },
    #[error(
        "the cite tables in {at} are of schema version {got}, newer than this build knows ({supports}) — use a newer cite; nothing was written"
    )]
    PgNewerSchema { at: String, got: i64, supports: i64 },
    #[error("ledger busy: {at} — gave up after {} s waiting for the writer lock (a PostgreSQL advisory lock) — try again later or raise --wait", seconds(*waited))]
    PgBusy { at: String, waited: Duration },
    #[error("the PostgreSQL ledger at {at} failed: {reason} — run `cite audit` if this persists")]
    Postgres { at: String, reason: String },
    #[error(
        "the target ledger already holds {records} record(s) — copy into a new file or an empty database; nothing was written"
    )]
    NotEmpty { records: u64 },
    /// A write whose body failed; its own error is what the caller sees.
    #[doc(hidden)]
    #[error("the write was abandoned")]
    Abandoned,
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

/// An open ledger, in whichever backend holds it.
pub struct Store {
    backend: Box<dyn Backend>,
}

impl Store {
    /// Opens the ledger at `at` for writing (under the backend's writer lock in `mode`),
    /// creating it if there is none. Waits at most `wait` for each lock.
    pub fn open_write(
        at: impl Into<Location>,
        mode: LockMode,
        wait: Duration,
    ) -> Result<Store, StoreError> {
        Ok(Store {
            backend: match &at.into() {
                Location::File(path) => {
                    Box::new(redbfile::RedbStore::open_write(path, mode, wait)?)
                }
                Location::Postgres(target) => {
                    Box::new(pg::PgStore::open_write(target, mode, wait)?)
                }
            },
        })
    }

    /// Opens the ledger at `at` to be kept open between writes, as a server keeps it:
    /// created and migrated now; each [`Store::write`] takes the writer lock for its own
    /// turn, so CLI writers and maintenance get in between writes.
    pub fn open_kept(at: impl Into<Location>, wait: Duration) -> Result<Store, StoreError> {
        Ok(Store {
            backend: match &at.into() {
                Location::File(path) => Box::new(redbfile::RedbStore::open_kept(path, wait)?),
                Location::Postgres(target) => {
                    Box::new(pg::PgStore::open_write(target, LockMode::Write, wait)?)
                }
            },
        })
    }

    /// Opens the ledger at `at` for reading without creating or changing anything;
    /// `None` when there is no ledger there yet.
    pub fn open_read(at: impl Into<Location>, wait: Duration) -> Result<Option<Store>, StoreError> {
        let backend: Option<Box<dyn Backend>> = match &at.into() {
            Location::File(path) => {
                redbfile::RedbStore::open_read(path, wait)?.map(|s| Box::new(s) as _)
            }
            Location::Postgres(target) => {
                pg::PgStore::open_read(target, wait)?.map(|s| Box::new(s) as _)
            }
        };
        Ok(backend.map(|backend| Store { backend }))
    }

    /// For a store kept open between writes: whether it still names what it opened (a
    /// ledger file moved into place meanwhile is another ledger).
    pub fn names_open_file(&self) -> bool {
        self.backend.still_current()
    }

    /// Problems of the storage itself that reading the tables does not show.
    pub fn check_file(&self) -> Result<Vec<finding::Finding>, StoreError> {
        self.backend.check()
    }

    /// A consistent snapshot for reading.
    pub fn read(&self) -> Result<Reader, StoreError> {
        Ok(Reader {
            tables: self.backend.read()?,
        })
    }

    /// Runs `f` in one write transaction and commits it durably. Each wait for another
    /// process (to begin, to commit) lasts at most `wait`. Records appended by `f` carry
    /// `origin`. Nothing is written if `f` fails. A backend may run `f` again after a
    /// conflict it retries (PostgreSQL's serialization failures), so `f` must not
    /// depend on having run before.
    pub fn write<T, E>(
        &self,
        origin: &Origin,
        wait: Duration,
        mut f: impl FnMut(&mut Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let mut out: Option<Result<T, E>> = None;
        let written = self.backend.write(wait, &mut |tables| {
            out = None;
            let mut writer = Writer::new(tables, origin)?;
            match f(&mut writer) {
                Ok(v) => {
                    let changed = writer.finish()?;
                    out = Some(Ok(v));
                    Ok(changed)
                }
                Err(e) => {
                    out = Some(Err(e));
                    Err(StoreError::Abandoned)
                }
            }
        });
        match (written, out) {
            (Ok(()), Some(Ok(v))) => Ok(v),
            (Err(StoreError::Abandoned), Some(Err(e))) => Err(e),
            (Err(e), _) => Err(e.into()),
            (Ok(()), _) => Err(StoreError::Abandoned.into()),
        }
    }

    /// Runs `body` in one write transaction of the backend, below the log's own rules:
    /// for a rebuild, which recomputes the views.
    fn write_tables(&self, wait: Duration, body: &mut WriteBody<'_>) -> Result<(), StoreError> {
        self.backend.write(wait, body)
    }
}

/// Where a ledger is: a redb file, or a PostgreSQL database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    Postgres(pg::Target),
}

impl Location {
    /// `postgres://…` or `postgresql://…` names a PostgreSQL database; anything else is a
    /// file path.
    pub fn parse(text: &std::ffi::OsStr) -> Result<Location, StoreError> {
        match text.to_str() {
            Some(s) if pg::Target::is_url(s) => Ok(Location::Postgres(pg::Target::parse(s)?)),
            _ => Ok(Location::File(PathBuf::from(text))),
        }
    }

    /// The file path, for a ledger file.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Location::File(p) => Some(p),
            Location::Postgres(_) => None,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(p) => write!(f, "{}", p.display()),
            Location::Postgres(t) => write!(f, "{t}"),
        }
    }
}

impl From<PathBuf> for Location {
    fn from(p: PathBuf) -> Location {
        Location::File(p)
    }
}

impl From<&std::path::Path> for Location {
    fn from(p: &std::path::Path) -> Location {
        Location::File(p.to_path_buf())
    }
}

impl From<&Location> for Location {
    fn from(l: &Location) -> Location {
        l.clone()
    }
}

impl From<&PathBuf> for Location {
    fn from(p: &PathBuf) -> Location {
        Location::File(p.clone())
    }
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

fn read_head(tables: &dyn Tables) -> Result<Head, StoreError> {
    match tables.meta(META_HEAD)? {
        None => Ok(Head::EMPTY),
        Some(v) => Head::decode(&v),
    }
}

fn decode_row(epoch: u64, id: u64, bytes: &[u8]) -> Result<SourceRow, StoreError> {
    SourceRow::decode(bytes).map_err(|reason| StoreError::CorruptedEntry {
        what: format!("the stored row of source [{id}] in epoch {epoch}"),
        reason,
    })
}

/// A stored snapshot as text; page text is stored as UTF-8, so anything else is damage.
fn snapshot_text(hash: &Hash, bytes: Vec<u8>) -> Result<String, StoreError> {
    String::from_utf8(bytes).map_err(|_| StoreError::CorruptedEntry {
        what: format!("snapshot {}", event::hex(hash)),
        reason: "not UTF-8".into(),
    })
}

/// Every entry of a table, streamed page by page in key order.
pub fn quote_entries(
    tables: &dyn Tables,
) -> impl Iterator<Item = Result<(backend::Key3, Vec<u8>), StoreError>> + '_ {
    paged(
        move |after, n: usize| tables.quote_page(after.copied(), n),
        |(k, _)| *k,
    )
}

fn read_quotes(
    tables: &dyn Tables,
    epoch: Epoch,
    id: SourceId,
) -> Result<Vec<QuoteRow>, StoreError> {
    let mut out = Vec::new();
    let start = (epoch.0, id.0, 0);
    let rows = paged(
        move |after: Option<&backend::Key3>, n: usize| {
            tables.quote_page(Some(*after.unwrap_or(&start)), n)
        },
        |(k, _)| *k,
    );
    for item in rows {
        let (k, v) = item?;
        if (k.0, k.1) != (epoch.0, id.0) {
            break;
        }
        let row = QuoteRow::decode(&v).map_err(|reason| StoreError::CorruptedEntry {
            what: format!("quote {} of source [{}] in epoch {}", k.2, id.0, epoch.0),
            reason,
        })?;
        out.push(row);
    }
    Ok(out)
}

/// One write transaction in progress: appends records and keeps the views in step.
pub struct Writer<'t> {
    origin: &'t Origin,
    /// The origin of the records appended since [`Writer::start_group`], if it was called.
    group: Option<Origin>,
    /// The seq of the first record of this transaction (or of its current group), once
    /// there is one.
    first: Option<Seq>,
    tables: &'t mut dyn TablesMut,
    head: Head,
    tally: Tally,
    dirty: bool,
}

impl<'t> Writer<'t> {
    /// Checks the views against the log's tally, and the stored head against the log,
    /// before anything is written: a write on views that disagree with the log is
    /// refused.
    fn new(tables: &'t mut dyn TablesMut, origin: &'t Origin) -> Result<Writer<'t>, StoreError> {
        let head = read_head(&*tables)?;
        let tally = match tally::read(&*tables)? {
            Some(t) => t,
            None if head.seq.0 == 0 => Tally::EMPTY,
            // Every store with records is migrated (format 2) before it is written.
            None => {
                return Err(StoreError::ViewsDisagree {
                    detail: "the log's tally is missing".into(),
                });
            }
        };
        tally.check(&*tables)?;
        check_head(&*tables, &head)?;
        Ok(Writer {
            origin,
            group: None,
            first: None,
            tables,
            head,
            tally,
            dirty: false,
        })
    }

    /// Gives the records appended from now on `origin`, not the transaction's: a group of
    /// records another process asked for, written in this transaction (a server's
    /// shared commit). The group's first record carries the origin; its others point at
    /// that one, as a transaction's do.
    pub fn start_group(&mut self, origin: Origin) {
        self.group = Some(origin);
        self.first = None;
    }

    /// The current epoch, as of the events appended so far.
    pub fn epoch(&self) -> Epoch {
        self.tally.epoch
    }

    /// The id of `url` in `epoch`, if it is registered.
    pub fn lookup(&self, epoch: Epoch, url: &str) -> Result<Option<SourceId>, StoreError> {
        Ok(self.tables.url(epoch.0, url)?.map(SourceId))
    }

    pub fn source(&self, epoch: Epoch, id: SourceId) -> Result<Option<SourceRow>, StoreError> {
        match self.tables.source(epoch.0, id.0)? {
            None => Ok(None),
            Some(v) => decode_row(epoch.0, id.0, &v).map(Some),
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
        read_quotes(&*self.tables, epoch, id)
    }

    /// The page text stored under `hash`, if any.
    pub fn snapshot_text(&self, hash: &Hash) -> Result<Option<String>, StoreError> {
        match self.tables.snapshot(hash)? {
            None => Ok(None),
            Some(v) => snapshot_text(hash, v).map(Some),
        }
    }

    /// Stores `text` under its blake3 hash (once per distinct text); returns the hash, and
    /// whether the text was stored before.
    pub fn put_snapshot(&mut self, text: &str) -> Result<(Hash, bool), StoreError> {
        let hash = *blake3::hash(text.as_bytes()).as_bytes();
        let stored_before = self.tables.has_snapshot(&hash)?;
        if !stored_before {
            self.tables.put_snapshot(&hash, text.as_bytes())?;
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
        let tables: &dyn Tables = &*self.tables;
        let rows = paged(
            move |after: Option<&u64>, n: usize| {
                tables.record_page_back(after.copied().unwrap_or(u64::MAX), n)
            },
            |(seq, _)| *seq,
        );
        Ok(rows.take(limit).map(|item| {
            let (seq, bytes) = item?;
            Record::decode(&bytes)
                .map(|r| r.event)
                .map_err(|e| StoreError::Corrupted {
                    seq,
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
        materialize::apply(&mut *self.tables, seq, &event)?;
        let provenance = match self.first {
            None => Provenance::Origin(self.group.clone().unwrap_or_else(|| self.origin.clone())),
            Some(first) => Provenance::SameAs(first),
        };
        let record = Record {
            format: FORMAT_VERSION,
            provenance,
            prev: self.head.hash,
            event,
        };
        let bytes = record.encode();
        self.tables.put_record(seq.0, &bytes)?;
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
            self.tables.put_meta(META_HEAD, &self.head.encode())?;
            self.tables.put_meta(META_TALLY, &self.tally.encode())?;
        }
        Ok(self.dirty)
    }
}

/// Checks that the stored head names the last record of the log, by seq and by hash,
/// before a record is chained onto it: a new record must never seal a damaged head (or
/// a truncated log) into the chain.
fn check_head(tables: &dyn Tables, head: &Head) -> Result<(), StoreError> {
    let (seq, hash) = match tables.last_record()? {
        None => (0, GENESIS),
        Some((k, v)) => (k, event::hash_bytes(&v)),
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
    tables: Box<dyn Tables>,
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
    /// The tables under this snapshot.
    pub fn tables(&self) -> &dyn Tables {
        &*self.tables
    }

    pub fn epoch(&self) -> Result<Epoch, StoreError> {
        materialize::current_epoch(&*self.tables)
    }

    pub fn head(&self) -> Result<Head, StoreError> {
        read_head(&*self.tables)
    }

    pub fn lookup(&self, epoch: Epoch, url: &str) -> Result<Option<SourceId>, StoreError> {
        Ok(self.tables.url(epoch.0, url)?.map(SourceId))
    }

    pub fn source(&self, epoch: Epoch, id: SourceId) -> Result<Option<StoredSource>, StoreError> {
        match self.tables.source(epoch.0, id.0)? {
            None => Ok(None),
            Some(v) => Ok(Some(StoredSource {
                epoch,
                id,
                row: decode_row(epoch.0, id.0, &v)?,
            })),
        }
    }

    /// Every source of `epoch` in id order, streamed from the table.
    pub fn sources(
        &self,
        epoch: Epoch,
    ) -> Result<impl Iterator<Item = Result<StoredSource, StoreError>> + '_, StoreError> {
        self.sources_between(epoch, 0, u64::MAX)
    }

    /// How many sources of `epoch` carry at least one quote.
    pub fn quoted_count(&self, epoch: Epoch) -> Result<u64, StoreError> {
        Ok(materialize::read_u64(&*self.tables, &materialize::quoted_key(epoch))?.unwrap_or(0))
    }

    /// The sources of `epoch` with ids in `lo..=hi`, in id order, streamed.
    pub fn sources_between(
        &self,
        epoch: Epoch,
        lo: u64,
        hi: u64,
    ) -> Result<impl Iterator<Item = Result<StoredSource, StoreError>> + '_, StoreError> {
        let tables: &dyn Tables = &*self.tables;
        let rows = paged(
            move |after: Option<&u64>, n: usize| {
                let from = match after {
                    None => lo,
                    Some(&id) if id >= hi => return Ok(Vec::new()),
                    Some(&id) => id + 1,
                };
                tables.source_page(epoch.0, from, hi, n)
            },
            |(id, _)| *id,
        );
        Ok(rows.map(move |item| {
            let (id, v) = item?;
            Ok(StoredSource {
                epoch,
                id: SourceId(id),
                row: decode_row(epoch.0, id, &v)?,
            })
        }))
    }

    /// The ids of `epoch` as inclusive ranges, in order. Ids are dense, so this is one
    /// range unless a store was built otherwise; then the keys are scanned.
    pub fn id_ranges(&self, epoch: Epoch) -> Result<Vec<(u64, u64)>, StoreError> {
        let last = self.count(epoch)?;
        if last == 0 {
            return Ok(Vec::new());
        }
        let Some(first) = self.tables.first_source(epoch.0)? else {
            return Ok(Vec::new());
        };
        let stored = materialize::read_u64(&*self.tables, &materialize::count_key(epoch))?;
        if first == 1 && stored == Some(last) {
            return Ok(vec![(1, last)]);
        }
        let mut out: Vec<(u64, u64)> = Vec::new();
        for item in self.sources(epoch)? {
            let id = item?.id.0;
            match out.last_mut() {
                Some((_, hi)) if *hi + 1 == id => *hi = id,
                _ => out.push((id, id)),
            }
        }
        Ok(out)
    }

    /// Number of sources in `epoch`: the highest id, since ids are dense.
    pub fn count(&self, epoch: Epoch) -> Result<u64, StoreError> {
        Ok(self.tables.last_source(epoch.0)?.unwrap_or(0))
    }

    /// The record at `seq`, decoded.
    pub fn record(&self, seq: Seq) -> Result<Option<Record>, StoreError> {
        match self.tables.record(seq.0)? {
            None => Ok(None),
            Some(v) => Record::decode(&v)
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
    ) -> Result<impl Iterator<Item = Result<(Seq, Record, Hash), StoreError>> + '_, StoreError>
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
    ) -> Result<impl Iterator<Item = Result<(Seq, Record, RawRecord), StoreError>> + '_, StoreError>
    {
        Ok(self.raw_records().map(|item| {
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
    pub fn raw_records(&self) -> impl Iterator<Item = Result<(Seq, Vec<u8>), StoreError>> + '_ {
        records_from(&*self.tables).map(|item| item.map(|(seq, bytes)| (Seq(seq), bytes)))
    }

    /// The quotes attached to source `id` of `epoch`, in order.
    pub fn quotes(&self, epoch: Epoch, id: SourceId) -> Result<Vec<QuoteRow>, StoreError> {
        read_quotes(&*self.tables, epoch, id)
    }

    /// The page text stored under `hash`, if any.
    pub fn snapshot(&self, hash: &Hash) -> Result<Option<String>, StoreError> {
        match self.tables.snapshot(hash)? {
            None => Ok(None),
            Some(v) => snapshot_text(hash, v).map(Some),
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
    ) -> Result<impl Iterator<Item = Result<LoggedRecord, StoreError>> + '_, StoreError> {
        Ok(with_origin(self.records()?))
    }

    /// Every record with its origin resolved and the exact bytes stored for it: what
    /// `export --format jsonl` hands out, so anyone can re-hash the chain.
    pub fn raw_records_with_origin(
        &self,
    ) -> Result<impl Iterator<Item = Result<RawLoggedRecord, StoreError>> + '_, StoreError> {
        Ok(with_origin(self.decoded()?))
    }

    /// The seqs of the events that concern source `id` of `epoch`, in order.
    pub fn history(&self, epoch: Epoch, id: SourceId) -> Result<Vec<Seq>, StoreError> {
        let start = (epoch.0, id.0, 0);
        let tables: &dyn Tables = &*self.tables;
        let keys = paged(
            move |after: Option<&backend::Key3>, n: usize| {
                tables.history_page(Some(*after.unwrap_or(&start)), n)
            },
            |k| *k,
        );
        let mut out = Vec::new();
        for item in keys {
            let k = item?;
            if (k.0, k.1) != (epoch.0, id.0) {
                break;
            }
            out.push(Seq(k.2));
        }
        Ok(out)
    }
}

/// Every record of the log in order, as stored, streamed page by page.
fn records_from(
    tables: &dyn Tables,
) -> impl Iterator<Item = Result<(u64, Vec<u8>), StoreError>> + '_ {
    paged(
        move |after: Option<&u64>, n: usize| tables.record_page(after.map_or(0, |s| s + 1), n),
        |(seq, _)| *seq,
    )
}
