//! The store: the append-only, hash-chained event log of a ledger and the tables
//! materialized from it, over a storage backend.
//!
//! Knows nothing of commands or output. Writers go through [`Store::write`], which appends
//! records and updates the views in one durable transaction; readers get a [`Reader`], a
//! consistent snapshot. The log's rules (the chain, the tally, materialization, replay)
//! are written once here, over the [`backend`] traits; `redbfile/` keeps a ledger in one
//! redb file, `pg/` in one PostgreSQL database.

pub mod backend;
mod error;
pub mod event;
pub mod finding;
mod head;
mod location;
mod materialize;
mod pg;
mod reader;
pub mod redbfile;
pub mod replay;
pub mod tables;
pub mod tally;
mod writer;

pub use error::StoreError;
pub use head::Head;
pub use location::Location;
pub use reader::{
    LoggedRecord, NumberedQuote, RawLoggedRecord, RawRecord, Reader, StoredSource, quote_entries,
};
pub use writer::Writer;

pub use backend::LockMode;
/// Where libpq looks for a password missing from a URL, as the front end reads it.
pub use pg::PgEnv;
/// A location or argument with any database password in it replaced by `***`: for the
/// command line every record keeps, and for every message that names a location.
pub use pg::hide_password;
pub use redbfile::lock;
/// What a path that is not a regular file is, for messages: every layer that refuses
/// one (the ledger path, a draft to rewrite) says it the same way.
pub use redbfile::lock::file_kind;

use std::time::Duration;

use backend::{Backend, WriteBody};
use event::Origin;

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

    /// Another handle on this store sharing its kept connections, for a backend that keeps
    /// any (PostgreSQL); `None` for one that does not.
    pub fn share(&self) -> Option<Store> {
        self.backend.share().map(|backend| Store { backend })
    }

    /// Problems of the storage itself that reading the tables does not show.
    pub fn check_file(&self) -> Result<finding::Checked, StoreError> {
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
        f: impl FnMut(&mut Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        self.write_prefetched(origin, wait, &backend::Prefetch::default(), f)
    }

    /// [`Store::write`], telling the backend what `f` will look up first (see
    /// [`backend::Prefetch`]): a PostgreSQL ledger reads it in the round trip that begins
    /// the write.
    pub fn write_prefetched<T, E>(
        &self,
        origin: &Origin,
        wait: Duration,
        hint: &backend::Prefetch,
        mut f: impl FnMut(&mut Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let mut out: Option<Result<T, E>> = None;
        let written = self.backend.write_prefetched(wait, hint, &mut |tables| {
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
