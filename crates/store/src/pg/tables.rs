//! The seven tables over one PostgreSQL transaction (see `schema.rs` for their layout).
//!
//! Every statement is sent with its parameter types (`query_typed`): one round trip, no
//! prepared statement to keep.

use std::borrow::BorrowMut;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use postgres::types::{ToSql, Type};
use postgres::{Row, SimpleQueryMessage};

use super::Target;
use super::buffer::{Known, Pending, Start};
use super::conn::Client;
use crate::StoreError;
use crate::backend::{Key3, RowCounts, SourcePage, StoreResult, Tables, TablesMut};

/// A connection lent to a read transaction, given back to its store when dropped.
pub struct Pooled {
    client: Option<Client>,
    pool: Arc<Mutex<Vec<Client>>>,
}

impl Pooled {
    pub fn new(client: Client, pool: Arc<Mutex<Vec<Client>>>) -> Pooled {
        Pooled {
            client: Some(client),
            pool,
        }
    }
}

impl std::borrow::Borrow<Client> for Pooled {
    fn borrow(&self) -> &Client {
        self.client.as_ref().expect("lent until dropped")
    }
}

impl BorrowMut<Client> for Pooled {
    fn borrow_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("lent until dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some(mut client) = self.client.take()
            && !client.is_closed()
            && client.batch_execute("ROLLBACK").is_ok()
        {
            self.pool
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(client);
        }
    }
}

/// The tables of the transaction open on a connection (see `buffer.rs` for what it
/// keeps on this side).
pub struct PgTables<C: BorrowMut<Client>> {
    client: RefCell<C>,
    target: Target,
    pending: RefCell<Pending>,
    known: RefCell<Known>,
}

type Param<'a> = (&'a (dyn ToSql + Sync), Type);

/// A u64 key or value as PostgreSQL's bigint. Keys past `i64::MAX` do not occur (ids stop
/// at 2^53); bounds past it are clamped.
fn big(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn unbig(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl<C: BorrowMut<Client>> PgTables<C> {
    pub fn new(client: C, target: &Target) -> PgTables<C> {
        PgTables {
            client: RefCell::new(client),
            target: target.clone(),
            pending: RefCell::new(Pending::default()),
            known: RefCell::new(Known::default()),
        }
    }

    /// How many rows this transaction put.
    pub fn rows_written(&self) -> u64 {
        self.pending.borrow().rows
    }

    /// The writes not yet sent, as SQL, to go with the commit.
    pub fn take_sql(&mut self) -> String {
        self.pending.borrow_mut().take_sql()
    }

    fn query(&self, sql: &str, params: &[Param<'_>]) -> StoreResult<Vec<Row>> {
        self.flush()?;
        let mut client = self.client.borrow_mut();
        let client: &mut Client = (*client).borrow_mut();
        client
            .query_typed(sql, params)
            .map_err(|e| self.target.failed(&e))
    }

    fn one<T: for<'a> postgres::types::FromSql<'a>>(
        &self,
        sql: &str,
        params: &[Param<'_>],
    ) -> StoreResult<Option<T>> {
        Ok(self.query(sql, params)?.first().map(|r| r.get(0)))
    }

    /// Runs `sql`, a page of a table keyed (epoch, id, n): `$1..$3` the key to start
    /// after (before every key when `None`), `$4` the page size.
    fn key3_page(&self, sql: &str, after: Option<Key3>, n: usize) -> StoreResult<Vec<Row>> {
        let (e, i, k) = after.map_or((-1, -1, -1), |(e, i, k)| (big(e), big(i), big(k)));
        self.query(
            sql,
            &[
                (&e, Type::INT8),
                (&i, Type::INT8),
                (&k, Type::INT8),
                (&limit(n), Type::INT8),
            ],
        )
    }

    /// Sends the pending writes.
    fn flush(&self) -> StoreResult<()> {
        if self.pending.borrow().is_empty() {
            return Ok(());
        }
        let sql = self.pending.borrow_mut().take_sql();
        self.batch(&sql)
    }

    fn batch(&self, sql: &str) -> StoreResult<()> {
        let mut client = self.client.borrow_mut();
        let client: &mut Client = (*client).borrow_mut();
        client
            .batch_execute(sql)
            .map_err(|e| self.target.failed(&e))
    }

    /// Takes in what the query [`BEGIN_WRITE`] answered, as what this transaction knows.
    pub fn start_from(&mut self, answer: &[SimpleQueryMessage]) -> StoreResult<()> {
        let bad = |what: &str| StoreError::CorruptedEntry {
            what: format!("the first read of a write ({what})"),
            reason: "PostgreSQL answered something cite cannot read".into(),
        };
        let mut start = Start {
            counts: RowCounts::default(),
            last_record: None,
        };
        let mut top_source = None;
        let mut known = self.known.borrow_mut();
        for message in answer {
            let SimpleQueryMessage::Row(row) = message else {
                continue;
            };
            let (Some(kind), Some(a), Some(b)) = (row.get(0), row.get(1), row.get(2)) else {
                return Err(bad("a null"));
            };
            let number = |s: &str| s.parse::<u64>().map_err(|_| bad("a number"));
            match kind {
                "m" => {
                    let key = unhex(a).ok_or_else(|| bad("a meta key"))?;
                    let value = unhex(b).ok_or_else(|| bad("a meta value"))?;
                    known.meta.entry(key).or_insert(Some(value));
                }
                "c" => match a {
                    "sources" => start.counts.sources = number(b)?,
                    "urls" => start.counts.urls = number(b)?,
                    "quotes" => start.counts.quotes = number(b)?,
                    _ => {}
                },
                "e" => {
                    let record = unhex(b).ok_or_else(|| bad("a record"))?;
                    start.last_record = Some((number(a)?, record));
                }
                "s" => top_source = Some((number(a)?, number(b)?)),
                _ => return Err(bad("a row kind")),
            }
        }
        known.meta_complete = true;
        known.top_source = Some(top_source);
        known.start = Some(start);
        Ok(())
    }

    /// Counts a put, and sends what is pending once it is large.
    fn put(&self, f: impl FnOnce(&mut Pending)) -> StoreResult<()> {
        // What the transaction began with no longer holds once it writes.
        self.known.borrow_mut().start = None;
        f(&mut self.pending.borrow_mut());
        if self.pending.borrow().is_large() {
            self.flush()?;
        }
        Ok(())
    }

    /// Loads every meta entry the transaction has not written into what it knows (the
    /// meta table is a handful of rows: one read answers every later lookup).
    fn load_meta(&self) -> StoreResult<()> {
        let rows = self.query("SELECT key, value FROM cite_meta", &[])?;
        let mut known = self.known.borrow_mut();
        for r in rows {
            known.meta.entry(r.get(0)).or_insert(Some(r.get(1)));
        }
        known.meta_complete = true;
        Ok(())
    }
}

/// Begins a write transaction and reads, in the same round trip, what every write reads
/// first: the meta table, the row counts, the last record and the highest source key
/// (text, bytes in hex: one simple query). The snapshot is taken by the SELECT, after the
/// writer lock was taken, so it sees the last writer's commit. The ORDER BYs name their
/// table: a bare `seq` would be the text column of the output, and sort 9 after 10.
pub const BEGIN_WRITE: &str = "BEGIN ISOLATION LEVEL SERIALIZABLE; \
    SELECT 'm', encode(key, 'hex'), encode(value, 'hex') FROM cite_meta \
    UNION ALL SELECT 'c', name, n::text FROM cite_counts \
    UNION ALL (SELECT 'e', seq::text, encode(record, 'hex') FROM cite_events \
               ORDER BY cite_events.seq DESC LIMIT 1) \
    UNION ALL (SELECT 's', epoch::text, id::text FROM cite_sources \
               ORDER BY cite_sources.epoch DESC, cite_sources.id DESC LIMIT 1)";

/// Bytes from PostgreSQL's hex text (`encode(…, 'hex')`).
fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn pairs(rows: Vec<Row>) -> Vec<(u64, Vec<u8>)> {
    rows.iter()
        .map(|r| (unbig(r.get(0)), r.get::<_, Vec<u8>>(1)))
        .collect()
}

impl<C: BorrowMut<Client>> Tables for PgTables<C> {
    fn meta(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let key = key.as_bytes();
        if !self.known.borrow().meta_complete {
            self.load_meta()?;
        }
        Ok(self.known.borrow().meta.get(key).cloned().flatten())
    }

    fn meta_page(&self, after: Option<&str>, n: usize) -> StoreResult<Vec<(String, Vec<u8>)>> {
        let after = after.map(str::as_bytes).unwrap_or_default();
        let rows = self.query(
            "SELECT key, value FROM cite_meta WHERE key > $1 ORDER BY key LIMIT $2",
            &[(&after, Type::BYTEA), (&limit(n), Type::INT8)],
        )?;
        rows.iter()
            .map(|r| {
                let key: Vec<u8> = r.get(0);
                let key = String::from_utf8(key).map_err(|_| StoreError::CorruptedEntry {
                    what: "a key of cite_meta".into(),
                    reason: "not UTF-8".into(),
                })?;
                Ok((key, r.get(1)))
            })
            .collect()
    }

    fn url(&self, epoch: u64, url: &str) -> StoreResult<Option<u64>> {
        let key = (epoch, url.as_bytes().to_vec());
        {
            let known = self.known.borrow();
            if let Some(id) = known.urls.get(&key) {
                return Ok(*id);
            }
            if known.views_empty {
                return Ok(None);
            }
        }
        let id = self
            .one::<i64>(
                "SELECT id FROM cite_urls WHERE epoch = $1 AND url = $2",
                &[(&big(epoch), Type::INT8), (&key.1, Type::BYTEA)],
            )?
            .map(unbig);
        self.known.borrow_mut().urls.insert(key, id);
        Ok(id)
    }

    fn url_page(
        &self,
        after: Option<(u64, &str)>,
        n: usize,
    ) -> StoreResult<Vec<((u64, String), u64)>> {
        let rows = match after {
            None => self.query(
                "SELECT epoch, url, id FROM cite_urls ORDER BY epoch, url LIMIT $1",
                &[(&limit(n), Type::INT8)],
            )?,
            Some((epoch, url)) => {
                let url = url.as_bytes();
                self.query(
                    "SELECT epoch, url, id FROM cite_urls WHERE (epoch, url) > ($1, $2) \
                     ORDER BY epoch, url LIMIT $3",
                    &[
                        (&big(epoch), Type::INT8),
                        (&url, Type::BYTEA),
                        (&limit(n), Type::INT8),
                    ],
                )?
            }
        };
        rows.iter()
            .map(|r| {
                let url = String::from_utf8(r.get(1)).map_err(|_| StoreError::CorruptedEntry {
                    what: "a url of cite_urls".into(),
                    reason: "not UTF-8".into(),
                })?;
                Ok(((unbig(r.get(0)), url), unbig(r.get(2))))
            })
            .collect()
    }

    fn source(&self, epoch: u64, id: u64) -> StoreResult<Option<Vec<u8>>> {
        {
            let known = self.known.borrow();
            if let Some(row) = known.sources.get(&(epoch, id)) {
                return Ok(row.clone());
            }
            if known.views_empty || known.above_top(epoch, id) {
                return Ok(None);
            }
        }
        let row: Option<Vec<u8>> = self.one(
            "SELECT row FROM cite_sources WHERE epoch = $1 AND id = $2",
            &[(&big(epoch), Type::INT8), (&big(id), Type::INT8)],
        )?;
        self.known
            .borrow_mut()
            .sources
            .insert((epoch, id), row.clone());
        Ok(row)
    }

    fn source_page(
        &self,
        epoch: u64,
        lo: u64,
        hi: u64,
        n: usize,
    ) -> StoreResult<Vec<(u64, Vec<u8>)>> {
        Ok(pairs(self.query(
            "SELECT id, row FROM cite_sources WHERE epoch = $1 AND id BETWEEN $2 AND $3 \
             ORDER BY id LIMIT $4",
            &[
                (&big(epoch), Type::INT8),
                (&big(lo), Type::INT8),
                (&big(hi), Type::INT8),
                (&limit(n), Type::INT8),
            ],
        )?))
    }

    fn source_entries_page(&self, after: Option<(u64, u64)>, n: usize) -> StoreResult<SourcePage> {
        let (e, i) = after.map_or((-1, -1), |(e, i)| (big(e), big(i)));
        let rows = self.query(
            "SELECT epoch, id, row FROM cite_sources WHERE (epoch, id) > ($1, $2) \
             ORDER BY epoch, id LIMIT $3",
            &[(&e, Type::INT8), (&i, Type::INT8), (&limit(n), Type::INT8)],
        )?;
        Ok(rows
            .iter()
            .map(|r| ((unbig(r.get(0)), unbig(r.get(1))), r.get(2)))
            .collect())
    }

    fn last_source(&self, epoch: u64) -> StoreResult<Option<u64>> {
        let known = self.known.borrow();
        if let (Some(_), Some(top)) = (&known.start, known.top_source) {
            match top {
                None => return Ok(None),
                Some((top, id)) if top == epoch => return Ok(Some(id)),
                Some((top, _)) if top < epoch => return Ok(None),
                Some(_) => {}
            }
        }
        drop(known);
        Ok(self
            .one::<Option<i64>>(
                "SELECT max(id) FROM cite_sources WHERE epoch = $1",
                &[(&big(epoch), Type::INT8)],
            )?
            .flatten()
            .map(unbig))
    }

    fn first_source(&self, epoch: u64) -> StoreResult<Option<u64>> {
        Ok(self
            .one::<Option<i64>>(
                "SELECT min(id) FROM cite_sources WHERE epoch = $1",
                &[(&big(epoch), Type::INT8)],
            )?
            .flatten()
            .map(unbig))
    }

    fn quote_page(&self, after: Option<Key3>, n: usize) -> StoreResult<Vec<(Key3, Vec<u8>)>> {
        let rows = self.key3_page(
            "SELECT epoch, id, n, row FROM cite_quotes WHERE (epoch, id, n) > ($1, $2, $3) \
             ORDER BY epoch, id, n LIMIT $4",
            after,
            n,
        )?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    (unbig(r.get(0)), unbig(r.get(1)), unbig(r.get(2))),
                    r.get(3),
                )
            })
            .collect())
    }

    fn history_page(&self, after: Option<Key3>, n: usize) -> StoreResult<Vec<Key3>> {
        let rows = self.key3_page(
            "SELECT epoch, id, seq FROM cite_history WHERE (epoch, id, seq) > ($1, $2, $3) \
             ORDER BY epoch, id, seq LIMIT $4",
            after,
            n,
        )?;
        Ok(rows
            .iter()
            .map(|r| (unbig(r.get(0)), unbig(r.get(1)), unbig(r.get(2))))
            .collect())
    }

    fn record(&self, seq: u64) -> StoreResult<Option<Vec<u8>>> {
        self.one(
            "SELECT record FROM cite_events WHERE seq = $1",
            &[(&big(seq), Type::INT8)],
        )
    }

    fn record_page(&self, from: u64, n: usize) -> StoreResult<Vec<(u64, Vec<u8>)>> {
        Ok(pairs(self.query(
            "SELECT seq, record FROM cite_events WHERE seq >= $1 ORDER BY seq LIMIT $2",
            &[(&big(from), Type::INT8), (&limit(n), Type::INT8)],
        )?))
    }

    fn record_page_back(&self, before: u64, n: usize) -> StoreResult<Vec<(u64, Vec<u8>)>> {
        Ok(pairs(self.query(
            "SELECT seq, record FROM cite_events WHERE seq < $1 ORDER BY seq DESC LIMIT $2",
            &[(&big(before), Type::INT8), (&limit(n), Type::INT8)],
        )?))
    }

    fn last_record(&self) -> StoreResult<Option<(u64, Vec<u8>)>> {
        if let Some(last) = self.pending.borrow().last_event() {
            return Ok(Some(last.clone()));
        }
        if let Some(start) = &self.known.borrow().start {
            return Ok(start.last_record.clone());
        }
        Ok(pairs(self.query(
            "SELECT seq, record FROM cite_events ORDER BY seq DESC LIMIT 1",
            &[],
        )?)
        .pop())
    }

    fn snapshot(&self, hash: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        self.one(
            "SELECT text FROM cite_snapshots WHERE hash = $1",
            &[(&hash, Type::BYTEA)],
        )
    }

    fn has_snapshot(&self, hash: &[u8]) -> StoreResult<bool> {
        if let Some(stored) = self.known.borrow().snapshots.get(hash) {
            return Ok(*stored);
        }
        let stored = self
            .one::<i32>(
                "SELECT 1 FROM cite_snapshots WHERE hash = $1",
                &[(&hash, Type::BYTEA)],
            )?
            .is_some();
        self.known
            .borrow_mut()
            .snapshots
            .insert(hash.to_vec(), stored);
        Ok(stored)
    }

    fn snapshot_page(
        &self,
        after: Option<&[u8]>,
        n: usize,
    ) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let after = after.unwrap_or_default();
        let rows = self.query(
            "SELECT hash, text FROM cite_snapshots WHERE hash > $1 ORDER BY hash LIMIT $2",
            &[(&after, Type::BYTEA), (&limit(n), Type::INT8)],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn row_counts(&self) -> StoreResult<RowCounts> {
        if let Some(start) = &self.known.borrow().start {
            return Ok(start.counts);
        }
        let mut counts = RowCounts::default();
        for r in self.query("SELECT name, n FROM cite_counts", &[])? {
            let n = unbig(r.get(1));
            match r.get::<_, &str>(0) {
                "sources" => counts.sources = n,
                "urls" => counts.urls = n,
                "quotes" => counts.quotes = n,
                _ => {}
            }
        }
        Ok(counts)
    }
}

/// A value that must fit PostgreSQL's bigint, or the write is refused.
fn stored(v: u64, what: &str) -> StoreResult<i64> {
    i64::try_from(v).map_err(|_| StoreError::Invariant {
        seq: 0,
        reason: format!("{what} {v} does not fit a PostgreSQL bigint"),
    })
}

impl<C: BorrowMut<Client>> TablesMut for PgTables<C> {
    fn put_meta(&mut self, key: &str, value: &[u8]) -> StoreResult<()> {
        self.known
            .borrow_mut()
            .meta
            .insert(key.as_bytes().to_vec(), Some(value.to_vec()));
        self.put(|p| p.meta(key.as_bytes(), value))
    }

    fn put_url(&mut self, epoch: u64, url: &str, id: u64) -> StoreResult<()> {
        stored(epoch, "epoch")?;
        stored(id, "id")?;
        self.known
            .borrow_mut()
            .urls
            .insert((epoch, url.as_bytes().to_vec()), Some(id));
        self.put(|p| p.url(epoch, url.as_bytes(), id))
    }

    fn put_source(&mut self, epoch: u64, id: u64, row: &[u8]) -> StoreResult<()> {
        stored(epoch, "epoch")?;
        stored(id, "id")?;
        self.known
            .borrow_mut()
            .sources
            .insert((epoch, id), Some(row.to_vec()));
        self.put(|p| p.source(epoch, id, row))
    }

    fn put_history(&mut self, key: Key3) -> StoreResult<()> {
        stored(key.0, "epoch")?;
        stored(key.1, "id")?;
        stored(key.2, "seq")?;
        self.put(|p| p.history(key))
    }

    fn put_quote(&mut self, key: Key3, row: &[u8]) -> StoreResult<()> {
        stored(key.0, "epoch")?;
        stored(key.1, "id")?;
        stored(key.2, "quote number")?;
        self.put(|p| p.quote(key, row))
    }

    fn put_record(&mut self, seq: u64, bytes: &[u8]) -> StoreResult<()> {
        stored(seq, "seq")?;
        self.put(|p| p.event(seq, bytes))
    }

    fn put_snapshot(&mut self, hash: &[u8], text: &[u8]) -> StoreResult<()> {
        if self.has_snapshot(hash)? {
            return Ok(());
        }
        self.known
            .borrow_mut()
            .snapshots
            .insert(hash.to_vec(), true);
        self.put(|p| p.snapshot(hash, text))
    }

    fn clear_views(&mut self, is_view: &dyn Fn(&str) -> bool) -> StoreResult<()> {
        if !self.known.borrow().meta_complete {
            self.load_meta()?;
        }
        self.flush()?;
        let views: Vec<Vec<u8>> = self
            .known
            .borrow()
            .meta
            .iter()
            .filter(|(k, v)| v.is_some() && std::str::from_utf8(k).is_ok_and(is_view))
            .map(|(k, _)| k.clone())
            .collect();
        let mut sql = String::from(
            "DELETE FROM cite_urls; DELETE FROM cite_sources; DELETE FROM cite_history; \
             DELETE FROM cite_quotes; UPDATE cite_counts SET n = 0;",
        );
        for key in &views {
            let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
            sql.push_str(&format!(
                "DELETE FROM cite_meta WHERE key = '\\x{hex}'::bytea;"
            ));
        }
        self.batch(&sql)?;
        let mut known = self.known.borrow_mut();
        for key in views {
            known.meta.insert(key, None);
        }
        known.urls.clear();
        known.sources.clear();
        known.views_empty = true;
        known.start = None;
        known.top_source = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_text_reads_back_as_its_bytes_and_anything_else_is_refused() {
        assert_eq!(unhex("00ff7a"), Some(vec![0, 255, 0x7a]));
        assert_eq!(unhex(""), Some(vec![]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("é0"), None);
    }
}
