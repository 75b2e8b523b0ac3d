//! The seven tables over one PostgreSQL transaction (see `schema.rs` for their layout).
//!
//! Every statement is sent with its parameter types (`query_typed`): one round trip, no
//! prepared statement to keep.

use std::borrow::BorrowMut;
use std::cell::{Cell, RefCell};
use std::sync::{Arc, Mutex};

use postgres::types::{ToSql, Type};
use postgres::{Client, Row};

use super::Target;
use crate::store::StoreError;
use crate::store::backend::{Key3, RowCounts, SourcePage, StoreResult, Tables, TablesMut};

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

/// The tables of the transaction open on a connection.
pub struct PgTables<C: BorrowMut<Client>> {
    client: RefCell<C>,
    target: Target,
    /// Rows this transaction added to sources, urls and quotes, not yet in `cite_counts`.
    added: Cell<RowCounts>,
    /// Statements this transaction sent that write.
    writes: Cell<u64>,
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
            added: Cell::new(RowCounts::default()),
            writes: Cell::new(0),
        }
    }

    /// How many rows this transaction wrote (or tried to).
    pub fn rows_written(&self) -> u64 {
        self.writes.get()
    }

    fn write(&self, sql: &str, params: &[Param<'_>]) -> StoreResult<Vec<Row>> {
        self.writes.set(self.writes.get() + 1);
        self.query(sql, params)
    }

    fn query(&self, sql: &str, params: &[Param<'_>]) -> StoreResult<Vec<Row>> {
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

    /// Counts a row inserted into one of the counted tables.
    fn count_insert(&self, rows: Vec<Row>, which: fn(&mut RowCounts) -> &mut u64) {
        if rows.first().is_some_and(|r| r.get::<_, bool>(0)) {
            let mut added = self.added.get();
            *which(&mut added) += 1;
            self.added.set(added);
        }
    }

    /// Writes the rows added by this transaction into `cite_counts`.
    pub fn flush_counts(&mut self) -> StoreResult<()> {
        let a = self.added.take();
        if a == RowCounts::default() {
            return Ok(());
        }
        let (s, u, q) = (big(a.sources), big(a.urls), big(a.quotes));
        self.query(
            "UPDATE cite_counts SET n = n + CASE name WHEN 'sources' THEN $1 \
             WHEN 'urls' THEN $2 ELSE $3 END",
            &[(&s, Type::INT8), (&u, Type::INT8), (&q, Type::INT8)],
        )?;
        Ok(())
    }
}

fn pairs(rows: Vec<Row>) -> Vec<(u64, Vec<u8>)> {
    rows.iter()
        .map(|r| (unbig(r.get(0)), r.get::<_, Vec<u8>>(1)))
        .collect()
}

impl<C: BorrowMut<Client>> Tables for PgTables<C> {
    fn meta(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let key = key.as_bytes();
        self.one(
            "SELECT value FROM cite_meta WHERE key = $1",
            &[(&key, Type::BYTEA)],
        )
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
        let url = url.as_bytes();
        Ok(self
            .one::<i64>(
                "SELECT id FROM cite_urls WHERE epoch = $1 AND url = $2",
                &[(&big(epoch), Type::INT8), (&url, Type::BYTEA)],
            )?
            .map(unbig))
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
        self.one(
            "SELECT row FROM cite_sources WHERE epoch = $1 AND id = $2",
            &[(&big(epoch), Type::INT8), (&big(id), Type::INT8)],
        )
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
        let (e, i, k) = after.map_or((-1, -1, -1), |(e, i, k)| (big(e), big(i), big(k)));
        let rows = self.query(
            "SELECT epoch, id, n, row FROM cite_quotes WHERE (epoch, id, n) > ($1, $2, $3) \
             ORDER BY epoch, id, n LIMIT $4",
            &[
                (&e, Type::INT8),
                (&i, Type::INT8),
                (&k, Type::INT8),
                (&limit(n), Type::INT8),
            ],
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
        let (e, i, k) = after.map_or((-1, -1, -1), |(e, i, k)| (big(e), big(i), big(k)));
        let rows = self.query(
            "SELECT epoch, id, seq FROM cite_history WHERE (epoch, id, seq) > ($1, $2, $3) \
             ORDER BY epoch, id, seq LIMIT $4",
            &[
                (&e, Type::INT8),
                (&i, Type::INT8),
                (&k, Type::INT8),
                (&limit(n), Type::INT8),
            ],
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
        Ok(self
            .one::<i32>(
                "SELECT 1 FROM cite_snapshots WHERE hash = $1",
                &[(&hash, Type::BYTEA)],
            )?
            .is_some())
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
        let mut counts = self.added.get();
        for r in self.query("SELECT name, n FROM cite_counts", &[])? {
            let n = unbig(r.get(1));
            match r.get::<_, &str>(0) {
                "sources" => counts.sources += n,
                "urls" => counts.urls += n,
                "quotes" => counts.quotes += n,
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
        let key = key.as_bytes();
        self.write(
            "INSERT INTO cite_meta (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[(&key, Type::BYTEA), (&value, Type::BYTEA)],
        )?;
        Ok(())
    }

    fn put_url(&mut self, epoch: u64, url: &str, id: u64) -> StoreResult<()> {
        let url = url.as_bytes();
        let rows = self.write(
            "INSERT INTO cite_urls (epoch, url, id) VALUES ($1, $2, $3) \
             ON CONFLICT (epoch, url) DO UPDATE SET id = EXCLUDED.id RETURNING (xmax = 0)",
            &[
                (&stored(epoch, "epoch")?, Type::INT8),
                (&url, Type::BYTEA),
                (&stored(id, "id")?, Type::INT8),
            ],
        )?;
        self.count_insert(rows, |c| &mut c.urls);
        Ok(())
    }

    fn put_source(&mut self, epoch: u64, id: u64, row: &[u8]) -> StoreResult<()> {
        let rows = self.write(
            "INSERT INTO cite_sources (epoch, id, row) VALUES ($1, $2, $3) \
             ON CONFLICT (epoch, id) DO UPDATE SET row = EXCLUDED.row RETURNING (xmax = 0)",
            &[
                (&stored(epoch, "epoch")?, Type::INT8),
                (&stored(id, "id")?, Type::INT8),
                (&row, Type::BYTEA),
            ],
        )?;
        self.count_insert(rows, |c| &mut c.sources);
        Ok(())
    }

    fn put_history(&mut self, (e, i, s): Key3) -> StoreResult<()> {
        self.write(
            "INSERT INTO cite_history (epoch, id, seq) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[
                (&stored(e, "epoch")?, Type::INT8),
                (&stored(i, "id")?, Type::INT8),
                (&stored(s, "seq")?, Type::INT8),
            ],
        )?;
        Ok(())
    }

    fn put_quote(&mut self, (e, i, n): Key3, row: &[u8]) -> StoreResult<()> {
        let rows = self.write(
            "INSERT INTO cite_quotes (epoch, id, n, row) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (epoch, id, n) DO UPDATE SET row = EXCLUDED.row RETURNING (xmax = 0)",
            &[
                (&stored(e, "epoch")?, Type::INT8),
                (&stored(i, "id")?, Type::INT8),
                (&stored(n, "quote number")?, Type::INT8),
                (&row, Type::BYTEA),
            ],
        )?;
        self.count_insert(rows, |c| &mut c.quotes);
        Ok(())
    }

    fn put_record(&mut self, seq: u64, bytes: &[u8]) -> StoreResult<()> {
        self.write(
            "INSERT INTO cite_events (seq, record) VALUES ($1, $2)",
            &[(&stored(seq, "seq")?, Type::INT8), (&bytes, Type::BYTEA)],
        )?;
        Ok(())
    }

    fn put_snapshot(&mut self, hash: &[u8], text: &[u8]) -> StoreResult<()> {
        self.write(
            "INSERT INTO cite_snapshots (hash, text) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[(&hash, Type::BYTEA), (&text, Type::BYTEA)],
        )?;
        Ok(())
    }

    fn clear_views(&mut self, is_view: &dyn Fn(&str) -> bool) -> StoreResult<()> {
        self.write("DELETE FROM cite_urls", &[])?;
        self.write("DELETE FROM cite_sources", &[])?;
        self.write("DELETE FROM cite_history", &[])?;
        self.write("DELETE FROM cite_quotes", &[])?;
        self.write("UPDATE cite_counts SET n = 0", &[])?;
        self.added.set(RowCounts::default());
        let keys: Vec<Vec<u8>> = self
            .query("SELECT key FROM cite_meta", &[])?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for key in keys {
            if std::str::from_utf8(&key).is_ok_and(is_view) {
                self.write(
                    "DELETE FROM cite_meta WHERE key = $1",
                    &[(&key, Type::BYTEA)],
                )?;
            }
        }
        Ok(())
    }
}
