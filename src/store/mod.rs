//! The store: one redb file holding the append-only, hash-chained event log and the
//! tables materialized from it.
//!
//! Knows nothing of commands or output. Writers go through [`Store::write`], which appends
//! records and updates the views in one durable transaction; readers get a [`Reader`], a
//! consistent snapshot. Files are opened in redb's multi-writer mode so that several
//! processes (CLI commands, a long-lived server) share a ledger at the same moment; redb
//! is pinned to one exact version because every process must speak the same lock protocol.

pub mod event;
pub mod lock;
pub mod materialize;
pub mod replay;
pub mod tables;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use redb::{
    Builder, ConcurrencyMode, Database, ReadOnlyDatabase, ReadOnlyTable, ReadTransaction,
    ReadableDatabase, ReadableTable, TableDefinition, TableError, TransactionError,
    WriteTransaction,
};

use event::{
    Epoch, Event, FORMAT_VERSION, GENESIS, Hash, Origin, Provenance, Record, Seq, SourceId,
};
use lock::{LedgerLock, LockMode};
use materialize::Views;
use tables::{
    EVENTS, HISTORY, META, META_FORMAT, META_HEAD, QUOTES, QuoteRow, SNAPSHOTS, SOURCES, SourceRow,
    URLS,
};

/// redb's page cache per open store. Small on purpose: the 50 MiB peak-memory budget
/// holds on a million-source ledger only if a full scan cannot fill a large cache.
const CACHE_BYTES: usize = 8 << 20;

/// First bytes of every redb file.
const REDB_MAGIC: &[u8] = b"redb\x1A\x0A\xA9\x0D\x0A";

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
    #[error("ledger busy: {}{} held it for more than {}s — try again later or raise --wait",
        path.display(),
        match holder { Some(pid) => format!(" is locked by pid {pid}, which"), None => " is in use; another process".to_string() },
        waited.as_secs_f64()
    )]
    Busy {
        path: PathBuf,
        holder: Option<u32>,
        waited: Duration,
    },
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
    #[error("the ledger store failed: {0} — run `cite audit` if this persists")]
    Database(#[from] redb::Error),
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
    // Held for as long as the store is open; dropped after `db`.
    _lock: Option<LedgerLock>,
}

enum Db {
    Rw(Database),
    Ro(ReadOnlyDatabase),
}

fn builder() -> Builder {
    let mut b = Builder::new();
    b.set_concurrency_mode(ConcurrencyMode::MultiWriter)
        .set_cache_size(CACHE_BYTES);
    b
}

/// What the first bytes of an existing, non-empty file say it is.
fn sniff(path: &Path) -> Result<(), StoreError> {
    let mut head = [0u8; 64];
    let n = fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|source| StoreError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
    let head = &head[..n];
    if head.starts_with(REDB_MAGIC) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(head);
    if text.trim_start().starts_with('{') {
        return Err(StoreError::JsonLedger {
            path: path.to_path_buf(),
        });
    }
    Err(StoreError::NotALedger {
        path: path.to_path_buf(),
    })
}

fn file_len(path: &Path) -> Result<Option<u64>, StoreError> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(StoreError::NotALedger {
            path: path.to_path_buf(),
        }),
        Ok(m) => Ok(Some(m.len())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::Io {
            action: "inspect",
            path: path.to_path_buf(),
            source,
        }),
    }
}

impl Store {
    /// Opens `path` for writing, creating it (and its folders) if needed, under the
    /// sidecar lock in `mode`, waiting at most `wait` for it.
    pub fn open_write(path: &Path, mode: LockMode, wait: Duration) -> Result<Store, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|source| StoreError::Io {
                action: "create the folder",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // Refuse a sources.py ledger before creating a lock file beside it. Other
        // foreign bytes are judged under the lock: a file another process is creating
        // does not show redb's magic number yet.
        // A file seen with redb's magic number stays a redb file: no need to look again.
        let seen_redb = match file_len(path)? {
            Some(n) if n > 0 => match sniff(path) {
                Ok(()) => true,
                Err(e @ StoreError::JsonLedger { .. }) => return Err(e),
                Err(_) => false,
            },
            _ => false,
        };
        let deadline = Instant::now() + wait;
        let mut lock = lock::acquire(path, mode, wait)?;
        let db = match file_len(path)? {
            Some(n) if n > 0 => {
                if !seen_redb {
                    sniff(path)?;
                }
                builder().open(path).map_err(|e| damaged(path, e))?
            }
            _ => {
                // Two processes must not both initialize an empty file, so creation
                // happens under the exclusive lock, re-checked once held.
                if mode == LockMode::Shared {
                    drop(lock);
                    let excl = lock::acquire(path, LockMode::Exclusive, remaining(deadline))?;
                    if file_len(path)?.unwrap_or(0) == 0 {
                        drop(builder().create(path).map_err(|e| damaged(path, e))?);
                    }
                    drop(excl);
                    lock = lock::acquire(path, LockMode::Shared, remaining(deadline))?;
                    sniff(path)?;
                    builder().open(path).map_err(|e| damaged(path, e))?
                } else {
                    builder().create(path).map_err(|e| damaged(path, e))?
                }
            }
        };
        let store = Store {
            path: path.to_path_buf(),
            db: Db::Rw(db),
            _lock: Some(lock),
        };
        store.check_format()?;
        Ok(store)
    }

    /// Opens `path` for reading without creating or changing anything; `None` when there
    /// is no ledger there yet.
    pub fn open_read(path: &Path, wait: Duration) -> Result<Option<Store>, StoreError> {
        match file_len(path)? {
            None | Some(0) => return Ok(None),
            Some(_) => {
                match sniff(path) {
                    // Perhaps a file another process is creating, under the exclusive
                    // lock: judge it again once that lock is free.
                    Err(StoreError::NotALedger { .. }) => {
                        let _lock = lock::acquire(path, LockMode::Shared, wait)?;
                        sniff(path)?;
                    }
                    other => other?,
                }
            }
        }
        let db = match builder().open_read_only(path) {
            Ok(db) => Db::Ro(db),
            // A file left by a crashed writer needs redb's quick repair, which only a
            // writable open performs; do that once rather than refuse to read.
            Err(redb::DatabaseError::RepairAborted) => {
                let lock = lock::acquire(path, LockMode::Shared, wait)?;
                let db = builder().open(path).map_err(|e| damaged(path, e))?;
                let store = Store {
                    path: path.to_path_buf(),
                    db: Db::Rw(db),
                    _lock: Some(lock),
                };
                store.check_format()?;
                return Ok(Some(store));
            }
            Err(e) => return Err(damaged(path, e)),
        };
        let store = Store {
            path: path.to_path_buf(),
            db,
            _lock: None,
        };
        store.check_format()?;
        Ok(Some(store))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn check_format(&self) -> Result<(), StoreError> {
        let reader = self.read()?;
        let Some(meta) = reader.table(META)? else {
            return Ok(());
        };
        if let Some(g) = meta.get(META_FORMAT)? {
            let got = match g.value() {
                [a, b] => u16::from_le_bytes([*a, *b]),
                _ => {
                    return Err(StoreError::Damaged {
                        path: self.path.clone(),
                        reason: "format marker is not 2 bytes".into(),
                    });
                }
            };
            if got != FORMAT_VERSION {
                return Err(StoreError::UnsupportedFormat {
                    path: self.path.clone(),
                    got,
                    supports: FORMAT_VERSION,
                });
            }
        }
        Ok(())
    }

    /// A consistent snapshot for reading.
    pub fn read(&self) -> Result<Reader, StoreError> {
        let txn = match &self.db {
            Db::Rw(db) => db.begin_read()?,
            Db::Ro(db) => db.begin_read()?,
        };
        Ok(Reader { txn })
    }

    /// Runs `f` in one write transaction and commits it durably. Waits at most `wait`
    /// for another process's write transaction to end. Records appended by `f` carry
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
        let Db::Rw(db) = &self.db else {
            unreachable!("write on a store opened read-only");
        };
        let txn = begin_write(db, &self.path, wait)?;
        let out = {
            let mut writer = Writer::new(&txn, origin)?;
            let out = f(&mut writer)?;
            writer.finish()?;
            out
        };
        txn.commit().map_err(StoreError::from)?;
        Ok(out)
    }
}

fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

fn damaged(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Damaged {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// redb's own wait for the writer slot has no deadline, so poll its non-blocking form.
fn begin_write(db: &Database, path: &Path, wait: Duration) -> Result<WriteTransaction, StoreError> {
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_micros(200);
    loop {
        match db.try_begin_write() {
            Ok(mut txn) => {
                // Crash recovery must be quick: keep the allocator state in every commit.
                txn.set_quick_repair(true);
                return Ok(txn);
            }
            Err(TransactionError::WouldBlock) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(StoreError::Busy {
                        path: path.to_path_buf(),
                        holder: None,
                        waited: wait,
                    });
                }
                thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Err(e) => return Err(e.into()),
        }
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
    epoch: Epoch,
    dirty: bool,
}

impl<'t> Writer<'t> {
    fn new(txn: &'t WriteTransaction, origin: &'t Origin) -> Result<Writer<'t>, StoreError> {
        let mut meta = txn.open_table(META)?;
        if meta.get(META_FORMAT)?.is_none() {
            meta.insert(META_FORMAT, FORMAT_VERSION.to_le_bytes().as_slice())?;
        }
        let head = read_head(&meta)?;
        let epoch = materialize::current_epoch(&meta)?;
        Ok(Writer {
            origin,
            first: None,
            events: txn.open_table(EVENTS)?,
            views: Views {
                meta,
                urls: txn.open_table(URLS)?,
                sources: txn.open_table(SOURCES)?,
                history: txn.open_table(HISTORY)?,
                quotes: txn.open_table(QUOTES)?,
            },
            snapshots: txn.open_table(SNAPSHOTS)?,
            head,
            epoch,
            dirty: false,
        })
    }

    /// The current epoch, as of the events appended so far.
    pub fn epoch(&self) -> Epoch {
        self.epoch
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

    /// The id the next source added to `epoch` gets.
    pub fn next_id(&self, epoch: Epoch) -> Result<SourceId, StoreError> {
        let last = self
            .views
            .sources
            .range((epoch.0, 0)..=(epoch.0, u64::MAX))?
            .next_back()
            .transpose()?
            .map(|(k, _)| k.value().1)
            .unwrap_or(0);
        Ok(SourceId(last + 1))
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

    /// Stores `text` under its blake3 hash (once per distinct text) and returns the hash.
    pub fn put_snapshot(&mut self, text: &str) -> Result<Hash, StoreError> {
        let hash = *blake3::hash(text.as_bytes()).as_bytes();
        if self.snapshots.get(hash.as_slice())?.is_none() {
            self.snapshots.insert(hash.as_slice(), text.as_bytes())?;
        }
        Ok(hash)
    }

    /// Appends `event` to the log and applies it to the views.
    pub fn append(&mut self, event: Event) -> Result<Seq, StoreError> {
        let seq = Seq(self.head.seq.0 + 1);
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
        materialize::apply(&mut self.views, seq, &record.event)?;
        if let Event::Reset { new_epoch } = record.event {
            self.epoch = new_epoch;
        }
        self.head = Head {
            seq,
            hash: event::hash_bytes(&bytes),
        };
        self.first.get_or_insert(seq);
        self.dirty = true;
        Ok(seq)
    }

    fn finish(&mut self) -> Result<(), StoreError> {
        if self.dirty {
            self.views
                .meta
                .insert(META_HEAD, self.head.encode().as_slice())?;
        }
        Ok(())
    }
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
