//! The storage seam: what a backend must offer so that the log, its hash chain, the
//! tally, materialization and replay (all written once, in this folder) run on it.
//!
//! A backend stores seven tables (see `tables.rs`) and hands out transactions over them:
//! [`Tables`] for a consistent read snapshot, [`TablesMut`] inside one durable write
//! transaction. It knows nothing of records, hashes or ids: keys and values are bytes and
//! integers, exactly as every backend stores them, so that a ledger copied from one
//! backend to another holds the same bytes. Range reads return pages (at most `limit`
//! entries after a key), which [`paged`] turns into streams; so no backend has to lend a
//! cursor that outlives a call.
//!
//! Backends: `redbfile/` (one redb file per ledger, file locks) and `pg/` (one PostgreSQL
//! database per ledger, an advisory lock and SERIALIZABLE transactions).

use std::time::Duration;

use super::StoreError;
use super::finding::Checked;

pub type StoreResult<T> = Result<T, StoreError>;

/// Why a process writes: this decides who waits for whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// A normal write: add, ingest, quote, reset.
    Write,
    /// Maintenance (rebuild, import, migration, audit's copy): writers pause until it has
    /// had its turn.
    Maintenance,
}

/// Entries read per page of a range.
pub const PAGE: usize = 1024;

/// Key of a quote or a history entry: (epoch, id, n or seq).
pub type Key3 = (u64, u64, u64);

/// A page of the url index: ((epoch, url), id).
pub type UrlPage = Vec<((u64, String), u64)>;

/// A page of source rows: ((epoch, id), encoded row).
pub type SourcePage = Vec<((u64, u64), Vec<u8>)>;

/// A read snapshot of the seven tables.
pub trait Tables {
    fn meta(&self, key: &str) -> StoreResult<Option<Vec<u8>>>;
    /// Up to `limit` meta entries with keys after `after`, in byte order of the key.
    fn meta_page(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<(String, Vec<u8>)>>;

    fn url(&self, epoch: u64, url: &str) -> StoreResult<Option<u64>>;
    /// Up to `limit` url index entries after `after`, ordered by epoch, then the URL's
    /// bytes.
    fn url_page(
        &self,
        after: Option<(u64, &str)>,
        limit: usize,
    ) -> StoreResult<Vec<((u64, String), u64)>>;

    fn source(&self, epoch: u64, id: u64) -> StoreResult<Option<Vec<u8>>>;
    /// Up to `limit` source rows of `epoch` with ids in `lo..=hi`, ascending.
    fn source_page(
        &self,
        epoch: u64,
        lo: u64,
        hi: u64,
        limit: usize,
    ) -> StoreResult<Vec<(u64, Vec<u8>)>>;
    /// Up to `limit` source rows of any epoch after `after`, ordered by (epoch, id).
    fn source_entries_page(
        &self,
        after: Option<(u64, u64)>,
        limit: usize,
    ) -> StoreResult<SourcePage>;
    /// The highest id of `epoch` in the sources table.
    fn last_source(&self, epoch: u64) -> StoreResult<Option<u64>>;
    /// The lowest id of `epoch` in the sources table.
    fn first_source(&self, epoch: u64) -> StoreResult<Option<u64>>;

    /// Up to `limit` entries of the quotes table after `after`.
    fn quote_page(&self, after: Option<Key3>, limit: usize) -> StoreResult<Vec<(Key3, Vec<u8>)>>;
    /// Up to `limit` entries of the history table after `after`.
    fn history_page(&self, after: Option<Key3>, limit: usize) -> StoreResult<Vec<Key3>>;

    fn record(&self, seq: u64) -> StoreResult<Option<Vec<u8>>>;
    /// Up to `limit` records with seq ≥ `from`, ascending.
    fn record_page(&self, from: u64, limit: usize) -> StoreResult<Vec<(u64, Vec<u8>)>>;
    /// Up to `limit` records with seq < `before`, descending.
    fn record_page_back(&self, before: u64, limit: usize) -> StoreResult<Vec<(u64, Vec<u8>)>>;
    fn last_record(&self) -> StoreResult<Option<(u64, Vec<u8>)>>;

    fn snapshot(&self, hash: &[u8]) -> StoreResult<Option<Vec<u8>>>;
    fn has_snapshot(&self, hash: &[u8]) -> StoreResult<bool>;
    /// Up to `limit` snapshots with hashes after `after`, ascending.
    fn snapshot_page(
        &self,
        after: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>>;

    /// Rows in the sources table, in the url index and in the quotes table, over all
    /// epochs.
    fn row_counts(&self) -> StoreResult<RowCounts>;

    /// Reads ahead the source rows `ids` of `epoch` and their quotes, in as few round
    /// trips as the backend can, so that the point reads of each that follow cost none
    /// (`verify` and `render` of a draft citing many ids). A backend without round trips
    /// reads nothing ahead.
    fn prefetch_sources(&self, epoch: u64, ids: &[u64]) -> StoreResult<()> {
        let _ = (epoch, ids);
        Ok(())
    }

    /// Reads ahead what `hint` names of `epoch`'s url index, in as few round trips as the
    /// backend can (`ingest`: the keys of thousands of URLs at once).
    fn prefetch_urls(&self, epoch: u64, hint: &Prefetch) -> StoreResult<()> {
        let _ = (epoch, hint);
        Ok(())
    }
}

/// Row counts of the views, as [`Tables::row_counts`] gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowCounts {
    pub sources: u64,
    pub urls: u64,
    pub quotes: u64,
}

/// One write transaction over the seven tables. `put` inserts or replaces.
pub trait TablesMut: Tables {
    fn put_meta(&mut self, key: &str, value: &[u8]) -> StoreResult<()>;
    fn put_url(&mut self, epoch: u64, url: &str, id: u64) -> StoreResult<()>;
    fn put_source(&mut self, epoch: u64, id: u64, row: &[u8]) -> StoreResult<()>;
    fn put_history(&mut self, key: Key3) -> StoreResult<()>;
    fn put_quote(&mut self, key: Key3, row: &[u8]) -> StoreResult<()>;
    /// Inserts the record at `seq`; a record already there is an error, never replaced.
    fn put_record(&mut self, seq: u64, bytes: &[u8]) -> StoreResult<()>;
    /// Inserts a snapshot; one already stored under `hash` is left as it is.
    fn put_snapshot(&mut self, hash: &[u8], text: &[u8]) -> StoreResult<()>;
    /// Empties the views (urls, sources, history, quotes) and removes the meta keys for
    /// which `is_view` holds; the log, the snapshots and the other meta keys stay.
    fn clear_views(&mut self, is_view: &dyn Fn(&str) -> bool) -> StoreResult<()>;
}

/// What a transaction will look up first, named before it begins, so that a backend across
/// a network can read it all in the round trip that begins the transaction instead of one
/// round trip per lookup. Only a hint: anything it names is looked up the usual way where
/// a backend reads nothing ahead (redb), and anything it misses is read when asked for.
#[derive(Clone, Debug, Default)]
pub struct Prefetch {
    /// Keys of the url index of the current epoch.
    pub urls: Vec<String>,
    /// Ranges of the url index of the current epoch: up to `range_limit` entries after
    /// each of these keys (a `url_page(Some((epoch, key)), n ≤ range_limit)`).
    pub ranges: Vec<String>,
    pub range_limit: usize,
    /// A bulk write (a large ingest): it writes more than one message holds, so it takes
    /// the writer lock first instead of reading ahead of it.
    pub bulk: bool,
}

impl Prefetch {
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty() && self.ranges.is_empty()
    }
}

/// The body of a write transaction: returns whether there is anything to commit.
pub type WriteBody<'a> = dyn FnMut(&mut dyn TablesMut) -> StoreResult<bool> + 'a;

/// An open ledger in one backend.
pub trait Backend: Send {
    /// Where the ledger is, for messages (a path, or a URL without its password).
    fn location(&self) -> String;
    /// A consistent read snapshot.
    fn read(&self) -> StoreResult<Box<dyn Tables>>;
    /// Runs `body` in one write transaction and commits it durably when it returns
    /// `Ok(true)`; aborts it on `Ok(false)` or an error. A backend may run `body` again
    /// after a conflict it can retry (a serialization failure), within `wait`.
    fn write(&self, wait: Duration, body: &mut WriteBody<'_>) -> StoreResult<()>;
    /// [`Backend::write`], told what `body` will look up first.
    fn write_prefetched(
        &self,
        wait: Duration,
        hint: &Prefetch,
        body: &mut WriteBody<'_>,
    ) -> StoreResult<()> {
        let _ = hint;
        self.write(wait, body)
    }
    /// Problems of the storage itself that a read of the tables does not see (a redb
    /// file's free pages); none where the engine checks itself.
    fn check(&self) -> StoreResult<Checked>;
    /// Another handle on this open ledger that shares its kept connections, where the
    /// backend keeps any (a server's reads then log in once, not once per call).
    fn share(&self) -> Option<Box<dyn Backend>> {
        None
    }
    /// For a store kept open between writes: whether it still names what it opened.
    fn still_current(&self) -> bool {
        true
    }
}

/// Entries read by the first page of a range: a caller that wants the first few (a
/// `list --limit 50`) reads few; the pages after it double up to [`PAGE`].
pub const FIRST_PAGE: usize = 64;

/// A stream over the pages `fetch(after, n)` returns: at most `n` entries after the last
/// key of the page before (`key` gives an entry's key). Ends at the first page shorter
/// than asked.
pub fn paged<'a, K: 'a, T: 'a>(
    mut fetch: impl FnMut(Option<&K>, usize) -> StoreResult<Vec<T>> + 'a,
    key: impl Fn(&T) -> K + 'a,
) -> impl Iterator<Item = StoreResult<T>> + 'a {
    let mut buffer = std::collections::VecDeque::new();
    let mut last: Option<K> = None;
    let mut done = false;
    let mut size = FIRST_PAGE;
    std::iter::from_fn(move || {
        if buffer.is_empty() && !done {
            let asked = size;
            size = (size * 2).min(PAGE);
            match fetch(last.as_ref(), asked) {
                Ok(page) => {
                    done = page.len() < asked;
                    if let Some(t) = page.last() {
                        last = Some(key(t));
                    }
                    buffer.extend(page);
                }
                Err(e) => {
                    done = true;
                    return Some(Err(e));
                }
            }
        }
        buffer.pop_front().map(Ok)
    })
}
