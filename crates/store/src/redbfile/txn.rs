//! The seven tables over redb transactions: [`Tables`] for a read transaction and for a
//! write transaction, [`TablesMut`] for a write transaction.

use std::cell::OnceCell;

use redb::{
    ReadOnlyTable, ReadTransaction, ReadableTable, ReadableTableMetadata, Table, TableDefinition,
    TableError, WriteTransaction,
};

use super::tables::{EVENTS, HISTORY, META, QUOTES, SNAPSHOTS, SOURCES, URLS};
use crate::StoreError;
use crate::backend::{Key3, RowCounts, SourcePage, StoreResult, Tables, TablesMut};

/// A read transaction; each table opened on first use (`None`: never created), so that
/// damage in one table fails only the reads of that table.
pub struct RedbRead {
    txn: ReadTransaction,
    meta: Lazy<&'static str, &'static [u8]>,
    urls: Lazy<(u64, &'static str), u64>,
    sources: Lazy<(u64, u64), &'static [u8]>,
    history: Lazy<Key3, ()>,
    quotes: Lazy<Key3, &'static [u8]>,
    events: Lazy<u64, &'static [u8]>,
    snapshots: Lazy<&'static [u8], &'static [u8]>,
}

/// A table of a read transaction, once opened.
type Lazy<K, V> = OnceCell<Option<ReadOnlyTable<K, V>>>;

fn open<'a, K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &ReadTransaction,
    cell: &'a Lazy<K, V>,
    def: TableDefinition<K, V>,
) -> StoreResult<Option<&'a ReadOnlyTable<K, V>>> {
    if cell.get().is_none() {
        let table = match txn.open_table(def) {
            Ok(t) => Some(t),
            Err(TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(e.into()),
        };
        let _ = cell.set(table);
    }
    Ok(cell.get().and_then(Option::as_ref))
}

impl RedbRead {
    pub fn new(txn: ReadTransaction) -> RedbRead {
        RedbRead {
            txn,
            meta: OnceCell::new(),
            urls: OnceCell::new(),
            sources: OnceCell::new(),
            history: OnceCell::new(),
            quotes: OnceCell::new(),
            events: OnceCell::new(),
            snapshots: OnceCell::new(),
        }
    }
}

/// A write transaction's tables.
pub struct RedbWrite<'t> {
    meta: Table<'t, &'static str, &'static [u8]>,
    urls: Table<'t, (u64, &'static str), u64>,
    sources: Table<'t, (u64, u64), &'static [u8]>,
    history: Table<'t, (u64, u64, u64), ()>,
    quotes: Table<'t, (u64, u64, u64), &'static [u8]>,
    events: Table<'t, u64, &'static [u8]>,
    snapshots: Table<'t, &'static [u8], &'static [u8]>,
}

impl<'t> RedbWrite<'t> {
    pub fn new(txn: &'t WriteTransaction) -> StoreResult<RedbWrite<'t>> {
        Ok(RedbWrite {
            meta: txn.open_table(META)?,
            urls: txn.open_table(URLS)?,
            sources: txn.open_table(SOURCES)?,
            history: txn.open_table(HISTORY)?,
            quotes: txn.open_table(QUOTES)?,
            events: txn.open_table(EVENTS)?,
            snapshots: txn.open_table(SNAPSHOTS)?,
        })
    }
}

// The reads, once for any redb table (`None`: the table does not exist).

fn meta_get<T: ReadableTable<&'static str, &'static [u8]>>(
    t: Option<&T>,
    key: &str,
) -> StoreResult<Option<Vec<u8>>> {
    let Some(t) = t else { return Ok(None) };
    Ok(t.get(key)?.map(|g| g.value().to_vec()))
}

fn meta_page<T: ReadableTable<&'static str, &'static [u8]>>(
    t: Option<&T>,
    after: Option<&str>,
    limit: usize,
) -> StoreResult<Vec<(String, Vec<u8>)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    let range = match after {
        None => t.range::<&str>(..)?,
        Some(a) => t.range::<&str>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded))?,
    };
    range
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value().to_string(), v.value().to_vec()))
        })
        .collect()
}

fn url_get<T: ReadableTable<(u64, &'static str), u64>>(
    t: Option<&T>,
    epoch: u64,
    url: &str,
) -> StoreResult<Option<u64>> {
    let Some(t) = t else { return Ok(None) };
    Ok(t.get((epoch, url))?.map(|g| g.value()))
}

fn url_page<T: ReadableTable<(u64, &'static str), u64>>(
    t: Option<&T>,
    after: Option<(u64, &str)>,
    limit: usize,
) -> StoreResult<Vec<((u64, String), u64)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    let range = match after {
        None => t.range::<(u64, &str)>(..)?,
        Some(a) => {
            t.range::<(u64, &str)>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded))?
        }
    };
    range
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            let (e, u) = k.value();
            Ok(((e, u.to_string()), v.value()))
        })
        .collect()
}

fn source_get<T: ReadableTable<(u64, u64), &'static [u8]>>(
    t: Option<&T>,
    epoch: u64,
    id: u64,
) -> StoreResult<Option<Vec<u8>>> {
    let Some(t) = t else { return Ok(None) };
    Ok(t.get((epoch, id))?.map(|g| g.value().to_vec()))
}

fn source_page<T: ReadableTable<(u64, u64), &'static [u8]>>(
    t: Option<&T>,
    epoch: u64,
    lo: u64,
    hi: u64,
    limit: usize,
) -> StoreResult<Vec<(u64, Vec<u8>)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    if lo > hi {
        return Ok(Vec::new());
    }
    t.range((epoch, lo)..=(epoch, hi))?
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value().1, v.value().to_vec()))
        })
        .collect()
}

fn source_entries_page<T: ReadableTable<(u64, u64), &'static [u8]>>(
    t: Option<&T>,
    after: Option<(u64, u64)>,
    limit: usize,
) -> StoreResult<SourcePage> {
    let Some(t) = t else { return Ok(Vec::new()) };
    let range = match after {
        None => t.range::<(u64, u64)>(..)?,
        Some(a) => {
            t.range::<(u64, u64)>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded))?
        }
    };
    range
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value(), v.value().to_vec()))
        })
        .collect()
}

fn source_end<T: ReadableTable<(u64, u64), &'static [u8]>>(
    t: Option<&T>,
    epoch: u64,
    last: bool,
) -> StoreResult<Option<u64>> {
    let Some(t) = t else { return Ok(None) };
    let mut range = t.range((epoch, 0)..=(epoch, u64::MAX))?;
    let item = if last {
        range.next_back()
    } else {
        range.next()
    };
    Ok(match item {
        None => None,
        Some(item) => Some(item?.0.value().1),
    })
}

fn key3_after(after: Option<Key3>) -> (std::ops::Bound<Key3>, std::ops::Bound<Key3>) {
    match after {
        None => (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded),
        Some(a) => (std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded),
    }
}

fn quote_page<T: ReadableTable<(u64, u64, u64), &'static [u8]>>(
    t: Option<&T>,
    after: Option<Key3>,
    limit: usize,
) -> StoreResult<Vec<(Key3, Vec<u8>)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    t.range::<Key3>(key3_after(after))?
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value(), v.value().to_vec()))
        })
        .collect()
}

fn history_page<T: ReadableTable<(u64, u64, u64), ()>>(
    t: Option<&T>,
    after: Option<Key3>,
    limit: usize,
) -> StoreResult<Vec<Key3>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    t.range::<Key3>(key3_after(after))?
        .take(limit)
        .map(|item| Ok(item?.0.value()))
        .collect()
}

fn record_get<T: ReadableTable<u64, &'static [u8]>>(
    t: Option<&T>,
    seq: u64,
) -> StoreResult<Option<Vec<u8>>> {
    let Some(t) = t else { return Ok(None) };
    Ok(t.get(seq)?.map(|g| g.value().to_vec()))
}

fn record_page<T: ReadableTable<u64, &'static [u8]>>(
    t: Option<&T>,
    from: u64,
    limit: usize,
) -> StoreResult<Vec<(u64, Vec<u8>)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    t.range(from..)?
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value(), v.value().to_vec()))
        })
        .collect()
}

fn record_page_back<T: ReadableTable<u64, &'static [u8]>>(
    t: Option<&T>,
    before: u64,
    limit: usize,
) -> StoreResult<Vec<(u64, Vec<u8>)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    t.range(..before)?
        .rev()
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value(), v.value().to_vec()))
        })
        .collect()
}

fn last_record<T: ReadableTable<u64, &'static [u8]>>(
    t: Option<&T>,
) -> StoreResult<Option<(u64, Vec<u8>)>> {
    let Some(t) = t else { return Ok(None) };
    Ok(t.last()?.map(|(k, v)| (k.value(), v.value().to_vec())))
}

fn snapshot_get<T: ReadableTable<&'static [u8], &'static [u8]>>(
    t: Option<&T>,
    hash: &[u8],
) -> StoreResult<Option<Vec<u8>>> {
    let Some(t) = t else { return Ok(None) };
    Ok(t.get(hash)?.map(|g| g.value().to_vec()))
}

fn has_snapshot<T: ReadableTable<&'static [u8], &'static [u8]>>(
    t: Option<&T>,
    hash: &[u8],
) -> StoreResult<bool> {
    let Some(t) = t else { return Ok(false) };
    Ok(t.get(hash)?.is_some())
}

fn snapshot_page<T: ReadableTable<&'static [u8], &'static [u8]>>(
    t: Option<&T>,
    after: Option<&[u8]>,
    limit: usize,
) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
    let Some(t) = t else { return Ok(Vec::new()) };
    let range = match after {
        None => t.range::<&[u8]>(..)?,
        Some(a) => t.range::<&[u8]>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded))?,
    };
    range
        .take(limit)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.value().to_vec(), v.value().to_vec()))
        })
        .collect()
}

fn len<T: ReadableTableMetadata>(t: Option<&T>) -> StoreResult<u64> {
    match t {
        None => Ok(0),
        Some(t) => Ok(t.len()?),
    }
}

/// [`Tables`] for a struct that lends its tables through the accessors below.
macro_rules! tables {
    ($ty:ty) => {
        impl Tables for $ty {
            fn meta(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
                meta_get(self.meta_t()?, key)
            }
            fn meta_page(
                &self,
                after: Option<&str>,
                limit: usize,
            ) -> StoreResult<Vec<(String, Vec<u8>)>> {
                meta_page(self.meta_t()?, after, limit)
            }
            fn url(&self, epoch: u64, url: &str) -> StoreResult<Option<u64>> {
                url_get(self.urls_t()?, epoch, url)
            }
            fn url_page(
                &self,
                after: Option<(u64, &str)>,
                limit: usize,
            ) -> StoreResult<Vec<((u64, String), u64)>> {
                url_page(self.urls_t()?, after, limit)
            }
            fn source(&self, epoch: u64, id: u64) -> StoreResult<Option<Vec<u8>>> {
                source_get(self.sources_t()?, epoch, id)
            }
            fn source_page(
                &self,
                epoch: u64,
                lo: u64,
                hi: u64,
                limit: usize,
            ) -> StoreResult<Vec<(u64, Vec<u8>)>> {
                source_page(self.sources_t()?, epoch, lo, hi, limit)
            }
            fn source_entries_page(
                &self,
                after: Option<(u64, u64)>,
                limit: usize,
            ) -> StoreResult<SourcePage> {
                source_entries_page(self.sources_t()?, after, limit)
            }
            fn last_source(&self, epoch: u64) -> StoreResult<Option<u64>> {
                source_end(self.sources_t()?, epoch, true)
            }
            fn first_source(&self, epoch: u64) -> StoreResult<Option<u64>> {
                source_end(self.sources_t()?, epoch, false)
            }
            fn quote_page(
                &self,
                after: Option<Key3>,
                limit: usize,
            ) -> StoreResult<Vec<(Key3, Vec<u8>)>> {
                quote_page(self.quotes_t()?, after, limit)
            }
            fn history_page(&self, after: Option<Key3>, limit: usize) -> StoreResult<Vec<Key3>> {
                history_page(self.history_t()?, after, limit)
            }
            fn record(&self, seq: u64) -> StoreResult<Option<Vec<u8>>> {
                record_get(self.events_t()?, seq)
            }
            fn record_page(&self, from: u64, limit: usize) -> StoreResult<Vec<(u64, Vec<u8>)>> {
                record_page(self.events_t()?, from, limit)
            }
            fn record_page_back(
                &self,
                before: u64,
                limit: usize,
            ) -> StoreResult<Vec<(u64, Vec<u8>)>> {
                record_page_back(self.events_t()?, before, limit)
            }
            fn last_record(&self) -> StoreResult<Option<(u64, Vec<u8>)>> {
                last_record(self.events_t()?)
            }
            fn snapshot(&self, hash: &[u8]) -> StoreResult<Option<Vec<u8>>> {
                snapshot_get(self.snapshots_t()?, hash)
            }
            fn has_snapshot(&self, hash: &[u8]) -> StoreResult<bool> {
                has_snapshot(self.snapshots_t()?, hash)
            }
            fn snapshot_page(
                &self,
                after: Option<&[u8]>,
                limit: usize,
            ) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
                snapshot_page(self.snapshots_t()?, after, limit)
            }
            fn row_counts(&self) -> StoreResult<RowCounts> {
                Ok(RowCounts {
                    sources: len(self.sources_t()?)?,
                    urls: len(self.urls_t()?)?,
                    quotes: len(self.quotes_t()?)?,
                })
            }
        }
    };
}

/// Each table of a transaction, as `Some` (or `None` where it was never created).
macro_rules! accessors {
    ($($name:ident: $field:ident as $k:ty => $v:ty, $def:ident;)*) => {
        impl RedbRead {
            $(fn $name(&self) -> StoreResult<Option<&ReadOnlyTable<$k, $v>>> {
                open(&self.txn, &self.$field, $def)
            })*
        }
        impl<'t> RedbWrite<'t> {
            $(fn $name(&self) -> StoreResult<Option<&Table<'t, $k, $v>>> {
                Ok(Some(&self.$field))
            })*
        }
    };
}

accessors! {
    meta_t: meta as &'static str => &'static [u8], META;
    urls_t: urls as (u64, &'static str) => u64, URLS;
    sources_t: sources as (u64, u64) => &'static [u8], SOURCES;
    history_t: history as (u64, u64, u64) => (), HISTORY;
    quotes_t: quotes as (u64, u64, u64) => &'static [u8], QUOTES;
    events_t: events as u64 => &'static [u8], EVENTS;
    snapshots_t: snapshots as &'static [u8] => &'static [u8], SNAPSHOTS;
}

tables!(RedbRead);
tables!(RedbWrite<'_>);

impl TablesMut for RedbWrite<'_> {
    fn put_meta(&mut self, key: &str, value: &[u8]) -> StoreResult<()> {
        self.meta.insert(key, value)?;
        Ok(())
    }

    fn put_url(&mut self, epoch: u64, url: &str, id: u64) -> StoreResult<()> {
        self.urls.insert((epoch, url), id)?;
        Ok(())
    }

    fn put_source(&mut self, epoch: u64, id: u64, row: &[u8]) -> StoreResult<()> {
        self.sources.insert((epoch, id), row)?;
        Ok(())
    }

    fn put_history(&mut self, key: Key3) -> StoreResult<()> {
        self.history.insert(key, ())?;
        Ok(())
    }

    fn put_quote(&mut self, key: Key3, row: &[u8]) -> StoreResult<()> {
        self.quotes.insert(key, row)?;
        Ok(())
    }

    fn put_record(&mut self, seq: u64, bytes: &[u8]) -> StoreResult<()> {
        if self.events.insert(seq, bytes)?.is_some() {
            return Err(StoreError::Invariant {
                seq,
                reason: "a record is already stored at this seq".into(),
            });
        }
        Ok(())
    }

    fn put_snapshot(&mut self, hash: &[u8], text: &[u8]) -> StoreResult<()> {
        if self.snapshots.get(hash)?.is_none() {
            self.snapshots.insert(hash, text)?;
        }
        Ok(())
    }

    fn clear_views(&mut self, is_view: &dyn Fn(&str) -> bool) -> StoreResult<()> {
        self.urls.retain(|_, _| false)?;
        self.sources.retain(|_, _| false)?;
        self.history.retain(|_, _| false)?;
        self.quotes.retain(|_, _| false)?;
        self.meta.retain(|k, _| !is_view(k))?;
        Ok(())
    }
}
