//! The seven tables over one PostgreSQL transaction (see `schema.rs` for their layout).
//!
//! Every statement is sent with its parameter types (`query_typed`): one round trip, no
//! prepared statement to keep.

use std::borrow::BorrowMut;
use std::cell::{Cell, RefCell};
use std::sync::{Arc, Mutex};

use postgres::types::{ToSql, Type};
use postgres::{Row, SimpleQueryMessage};

use super::Target;
use super::buffer::{Known, Pending, Start};
use super::conn::Client;
use crate::StoreError;
use crate::backend::{Key3, Prefetch, RowCounts, SourcePage, StoreResult, Tables, TablesMut};

/// A connection lent to a read transaction, given back to its store when dropped.
pub struct Pooled {
    client: Option<Client>,
    pool: Arc<Mutex<Vec<Client>>>,
    /// Whether the store is kept between calls (a `cite mcp` server): its connections
    /// then wait idle for the next call, out of any transaction.
    kept: bool,
}

impl Pooled {
    pub fn new(client: Client, pool: Arc<Mutex<Vec<Client>>>, kept: bool) -> Pooled {
        Pooled {
            client: Some(client),
            pool,
            kept,
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
    /// A kept store's connection ends its read at once: it may wait long for its next
    /// call, and a session idle in a transaction holds back vacuum and is ended by the
    /// server. Otherwise (a command's store, about to close) the ROLLBACK goes with the
    /// connection's next statement, or not at all when the connection is closed first:
    /// one round trip fewer for every command that reads.
    fn drop(&mut self) {
        let Some(mut client) = self.client.take() else {
            return;
        };
        if client.is_closed() {
            return;
        }
        if self.kept {
            if client.batch_execute("ROLLBACK").is_err() {
                return;
            }
        } else {
            client.end_later();
        }
        self.pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(client);
    }
}

/// The tables of the transaction open on a connection (see `buffer.rs` for what it
/// keeps on this side).
pub struct PgTables<C: BorrowMut<Client>> {
    client: RefCell<C>,
    target: Target,
    pending: RefCell<Pending>,
    known: RefCell<Known>,
    /// The transaction runs ahead of the writer lock (`mod.rs`: an optimistic write): its
    /// writes can only go in the batch that takes the lock, so a read that would need
    /// them sent first ends the attempt, which is run again under the lock.
    ahead: bool,
    /// An attempt ahead of the lock met such a read.
    needs_lock: Cell<bool>,
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
            ahead: false,
            needs_lock: Cell::new(false),
        }
    }

    /// Runs this transaction ahead of the writer lock (see the `ahead` field).
    pub fn run_ahead(&mut self) {
        self.ahead = true;
    }

    /// Whether the attempt ahead of the lock must be run again under it.
    pub fn needs_lock(&self) -> bool {
        self.needs_lock.get()
    }

    /// The check that the ledger is as this transaction's first read found it: the head
    /// of the log and the row counts. Run under the writer lock, before the writes of a
    /// transaction that ran ahead of it; raises a serialization failure when another
    /// writer committed since, so the write is done again from a fresh read.
    pub fn unchanged_sql(&self) -> String {
        let known = self.known.borrow();
        let head = match &known.first_head {
            Some(bytes) => hex_literal(bytes),
            None => "NULL::bytea".to_string(),
        };
        let c = known.first_counts;
        format!(
            "DO $cite$ BEGIN IF (SELECT value FROM cite_meta WHERE key = {key}) \
             IS DISTINCT FROM {head} OR (SELECT string_agg(name || '=' || n, ',' ORDER BY name) \
             FROM cite_counts) IS DISTINCT FROM 'quotes={},sources={},urls={}' THEN \
             RAISE EXCEPTION '{MOVED}' USING ERRCODE = 'serialization_failure'; \
             END IF; END $cite$;",
            c.quotes,
            c.sources,
            c.urls,
            key = hex_literal(crate::tables::META_HEAD.as_bytes()),
        )
    }

    /// How many rows this transaction put.
    pub fn rows_written(&self) -> u64 {
        self.pending.borrow().rows
    }

    /// The writes not yet sent, as SQL, to go with the commit.
    pub fn take_sql(&mut self) -> String {
        self.pending.borrow_mut().take_sql()
    }

    /// A read that must see this transaction's writes: they are sent first.
    fn query(&self, sql: &str, params: &[Param<'_>]) -> StoreResult<Vec<Row>> {
        self.flush()?;
        self.point(sql, params)
    }

    /// A read of keys whose writes by this transaction `known` holds (urls, sources,
    /// snapshots, meta): the server's answer is right for every other key, so nothing
    /// pending needs sending first. (Sending it would also rewrite the `cite_counts` rows
    /// once per read: a row updated n times in one transaction leaves n versions that
    /// every later update walks, which made a large ingest quadratic.)
    fn point(&self, sql: &str, params: &[Param<'_>]) -> StoreResult<Vec<Row>> {
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

    /// [`PgTables::one`] for a [`PgTables::point`] read.
    fn one_point<T: for<'a> postgres::types::FromSql<'a>>(
        &self,
        sql: &str,
        params: &[Param<'_>],
    ) -> StoreResult<Option<T>> {
        Ok(self.point(sql, params)?.first().map(|r| r.get(0)))
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
        if self.ahead {
            self.needs_lock.set(true);
            return Err(StoreError::Abandoned);
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

    /// Takes in what the query [`start_sql`] answered, as what this transaction knows.
    pub fn start_from(
        &mut self,
        answer: &[SimpleQueryMessage],
        hint: &Prefetch,
    ) -> StoreResult<()> {
        let bad = |what: &str| StoreError::CorruptedEntry {
            what: format!("the first read of a write ({what})"),
            reason: "PostgreSQL answered something cite cannot read".into(),
        };
        let mut start = Start {
            counts: RowCounts::default(),
            last_record: None,
        };
        let mut top_source = None;
        let mut epoch = None;
        let mut points: Vec<(Vec<u8>, u64)> = Vec::new();
        let mut rows: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut ranges: Vec<Vec<(Vec<u8>, u64)>> = vec![Vec::new(); hint.ranges.len()];
        let mut known = self.known.borrow_mut();
        for message in answer {
            // Rows of other statements in the same query (the writer lock's) are not
            // this query's three columns.
            let SimpleQueryMessage::Row(row) = message else {
                continue;
            };
            if row.len() != 3 {
                continue;
            }
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
                "E" => epoch = Some(number(a)?),
                "S" => rows.push((number(a)?, unhex(b).ok_or_else(|| bad("a source row"))?)),
                "u" => points.push((unhex(a).ok_or_else(|| bad("a url"))?, number(b)?)),
                "r" => {
                    let i = number(a)?.checked_sub(1).ok_or_else(|| bad("a range"))?;
                    let (url, id) = b.split_once(' ').ok_or_else(|| bad("a range entry"))?;
                    let url = unhex(url).ok_or_else(|| bad("a url"))?;
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| ranges.get_mut(i))
                        .ok_or_else(|| bad("a range"))?
                        .push((url, number(id)?));
                }
                _ => return Err(bad("a row kind")),
            }
        }
        if let Some(epoch) = epoch {
            // Every key asked for is known now: found, or known to be missing.
            for url in &hint.urls {
                known.urls.insert((epoch, url.as_bytes().to_vec()), None);
            }
            for (url, id) in points {
                known.urls.insert((epoch, url), Some(id));
            }
            // The rows of the sources found: a URL added again reads its row.
            for (id, row) in rows {
                known.sources.insert((epoch, id), Some(row));
            }
            for (after, mut entries) in hint.ranges.iter().zip(ranges) {
                entries.sort();
                known.url_ranges.insert(
                    (epoch, after.as_bytes().to_vec()),
                    (hint.range_limit, entries),
                );
            }
        }
        known.first_head = known
            .meta
            .get(crate::tables::META_HEAD.as_bytes())
            .cloned()
            .flatten();
        known.first_counts = start.counts;
        known.meta_complete = true;
        known.top_source = Some(top_source);
        known.start = Some(start);
        Ok(())
    }

    /// Takes in what [`begin_read_sql`] answered: the meta table and the current epoch's
    /// lowest and highest id.
    pub fn read_from(&mut self, answer: &[SimpleQueryMessage]) -> StoreResult<()> {
        let bad = |what: &str| StoreError::CorruptedEntry {
            what: format!("the first read of a snapshot ({what})"),
            reason: "PostgreSQL answered something cite cannot read".into(),
        };
        let mut known = self.known.borrow_mut();
        for message in answer {
            let SimpleQueryMessage::Row(row) = message else {
                continue;
            };
            let (Some(kind), Some(a), Some(b)) = (row.get(0), row.get(1), row.get(2)) else {
                return Err(bad("a null"));
            };
            match kind {
                "m" => {
                    let key = unhex(a).ok_or_else(|| bad("a meta key"))?;
                    let value = unhex(b).ok_or_else(|| bad("a meta value"))?;
                    known.meta.insert(key, Some(value));
                }
                "b" => {
                    let epoch = a.parse::<u64>().map_err(|_| bad("an epoch"))?;
                    let (lo, hi) = b.split_once(' ').ok_or_else(|| bad("the ids"))?;
                    let id = |s: &str| match s {
                        "" => Ok(None),
                        s => s.parse::<u64>().map(Some).map_err(|_| bad("an id")),
                    };
                    known.bounds = Some((epoch, id(lo)?, id(hi)?));
                }
                _ => return Err(bad("a row kind")),
            }
        }
        known.meta_complete = true;
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
        let rows = self.point("SELECT key, value FROM cite_meta", &[])?;
        let mut known = self.known.borrow_mut();
        for r in rows {
            known.meta.entry(r.get(0)).or_insert(Some(r.get(1)));
        }
        known.meta_complete = true;
        Ok(())
    }
}

/// Begins a read: a REPEATABLE READ READ ONLY transaction whose snapshot is taken by the
/// query in the same message, which reads what every read reads first (the meta table:
/// the epoch, the head, the counters) and the current epoch's lowest and highest id.
pub fn begin_read_sql() -> String {
    format!(
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; \
         WITH e AS (SELECT {EPOCH} AS epoch) \
         SELECT 'm', encode(key, 'hex'), encode(value, 'hex') FROM cite_meta \
         UNION ALL SELECT 'b', e.epoch::text, \
           coalesce((SELECT min(s.id) FROM cite_sources s WHERE s.epoch = e.epoch)::text, '') \
           || ' ' || \
           coalesce((SELECT max(s.id) FROM cite_sources s WHERE s.epoch = e.epoch)::text, '') \
         FROM e"
    )
}

/// The message of the serialization failure [`PgTables::unchanged_sql`] raises.
pub const MOVED: &str = "cite: another writer committed since this write read the ledger";

/// The current epoch, as the log's tally holds it (its first 8 bytes, little-endian; the
/// first epoch where there is no tally yet). Epochs past 2^32 do not occur.
const EPOCH: &str = "COALESCE((SELECT get_byte(value, 0)::bigint + get_byte(value, 1)::bigint * 256 \
     + get_byte(value, 2)::bigint * 65536 + get_byte(value, 3)::bigint * 16777216 \
     FROM cite_meta WHERE key = '\\x74616c6c79'::bytea AND length(value) = 24), 1)";

/// One query that reads what every write reads first: the meta table, the row counts,
/// the last record and the highest source key, and what `hint` names (text, bytes in hex:
/// one simple query, one snapshot). The ORDER BYs name their table: a bare `seq` would be
/// the text column of the output, and sort 9 after 10.
pub fn start_sql(hint: &Prefetch) -> String {
    let mut sql = format!(
        "WITH e AS (SELECT {EPOCH} AS epoch) \
         SELECT 'm', encode(key, 'hex'), encode(value, 'hex') FROM cite_meta \
         UNION ALL SELECT 'c', name, n::text FROM cite_counts \
         UNION ALL (SELECT 'e', seq::text, encode(record, 'hex') FROM cite_events \
                    ORDER BY cite_events.seq DESC LIMIT 1) \
         UNION ALL (SELECT 's', epoch::text, id::text FROM cite_sources \
                    ORDER BY cite_sources.epoch DESC, cite_sources.id DESC LIMIT 1) \
         UNION ALL SELECT 'E', epoch::text, '' FROM e"
    );
    if !hint.urls.is_empty() {
        let keys: std::collections::BTreeSet<String> = hint
            .urls
            .iter()
            .map(|u| hex_literal(u.as_bytes()))
            .collect();
        // Each URL one lookup of the primary key, and its source one more: the plan a
        // planner with no statistics yet (a new ledger) might pick for `url = ANY(…)`
        // reads every row of the epoch, once per write.
        sql.push_str(&format!(
            " UNION ALL SELECT 'u', encode(x.url, 'hex'), x.id::text \
             FROM e CROSS JOIN unnest(ARRAY[{k}]) AS q(url) \
             CROSS JOIN LATERAL (SELECT u.url, u.id FROM cite_urls u \
               WHERE u.epoch = e.epoch AND u.url = q.url) x \
             UNION ALL SELECT 'S', y.id::text, encode(y.row, 'hex') \
             FROM e CROSS JOIN unnest(ARRAY[{k}]) AS q(url) \
             CROSS JOIN LATERAL (SELECT u.id FROM cite_urls u \
               WHERE u.epoch = e.epoch AND u.url = q.url) x \
             CROSS JOIN LATERAL (SELECT s.id, s.row FROM cite_sources s \
               WHERE s.epoch = e.epoch AND s.id = x.id) y",
            k = keys.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if !hint.ranges.is_empty() {
        let keys: Vec<String> = hint
            .ranges
            .iter()
            .map(|u| hex_literal(u.as_bytes()))
            .collect();
        sql.push_str(&format!(
            " UNION ALL SELECT 'r', q.i::text, encode(x.url, 'hex') || ' ' || x.id::text \
             FROM e CROSS JOIN unnest(ARRAY[{}]) WITH ORDINALITY AS q(after, i) \
             CROSS JOIN LATERAL (SELECT c.url, c.id FROM cite_urls c \
               WHERE c.epoch = e.epoch AND c.url > q.after ORDER BY c.url LIMIT {}) x",
            keys.join(", "),
            hint.range_limit
        ));
    }
    sql
}

/// Bytes as a bytea literal: hex digits only, so nothing from outside is spliced in.
fn hex_literal(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + 12);
    s.push_str("'\\x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s.push_str("'::bytea");
    s
}

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
            .one_point::<i64>(
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
        if let Some((epoch, url)) = after
            && let Some((read, entries)) = self
                .known
                .borrow()
                .url_ranges
                .get(&(epoch, url.as_bytes().to_vec()))
            && n <= *read
        {
            return entries
                .iter()
                .take(n)
                .map(|(url, id)| {
                    let url =
                        String::from_utf8(url.clone()).map_err(|_| StoreError::CorruptedEntry {
                            what: "a url of cite_urls".into(),
                            reason: "not UTF-8".into(),
                        })?;
                    Ok(((epoch, url), *id))
                })
                .collect();
        }
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
        let row: Option<Vec<u8>> = self.one_point(
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
        if let Some((e, _, hi)) = known.bounds
            && e == epoch
        {
            return Ok(hi);
        }
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
        if let Some((e, lo, _)) = self.known.borrow().bounds
            && e == epoch
        {
            return Ok(lo);
        }
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
            .one_point::<i32>(
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

    fn prefetch_urls(&self, epoch: u64, hint: &Prefetch) -> StoreResult<()> {
        let (points, ranges) = {
            let known = self.known.borrow();
            let mut points: Vec<&[u8]> = hint
                .urls
                .iter()
                .map(|u| u.as_bytes())
                .filter(|u| !known.urls.contains_key(&(epoch, u.to_vec())))
                .collect();
            points.sort_unstable();
            points.dedup();
            // A range read now would miss the url entries this transaction has not sent.
            let mut ranges: Vec<&[u8]> = match self.pending.borrow().has_urls() {
                true => Vec::new(),
                false => hint
                    .ranges
                    .iter()
                    .map(|u| u.as_bytes())
                    .filter(|u| {
                        known
                            .url_ranges
                            .get(&(epoch, u.to_vec()))
                            .is_none_or(|(n, _)| *n < hint.range_limit)
                    })
                    .collect(),
            };
            ranges.sort_unstable();
            ranges.dedup();
            (points, ranges)
        };
        if points.is_empty() && ranges.is_empty() {
            return Ok(());
        }
        let rows = self.point(
            "SELECT 'u', 0::bigint, x.url, x.id FROM unnest($2::bytea[]) AS q(url) \
             CROSS JOIN LATERAL (SELECT u.url, u.id FROM cite_urls u \
               WHERE u.epoch = $1 AND u.url = q.url) x \
             UNION ALL SELECT 's', y.id, y.row, 0::bigint FROM unnest($2::bytea[]) AS q(url) \
             CROSS JOIN LATERAL (SELECT u.id FROM cite_urls u \
               WHERE u.epoch = $1 AND u.url = q.url) x \
             CROSS JOIN LATERAL (SELECT s.id, s.row FROM cite_sources s \
               WHERE s.epoch = $1 AND s.id = x.id) y \
             UNION ALL SELECT 'r', q.i, x.url, x.id \
             FROM unnest($3::bytea[]) WITH ORDINALITY AS q(after, i) \
             CROSS JOIN LATERAL (SELECT c.url, c.id FROM cite_urls c \
               WHERE c.epoch = $1 AND c.url > q.after ORDER BY c.url LIMIT $4) x",
            &[
                (&big(epoch), Type::INT8),
                (&points, Type::BYTEA_ARRAY),
                (&ranges, Type::BYTEA_ARRAY),
                (&limit(hint.range_limit), Type::INT8),
            ],
        )?;
        let mut found: Vec<Vec<(Vec<u8>, u64)>> = vec![Vec::new(); ranges.len()];
        let mut known = self.known.borrow_mut();
        for url in &points {
            known.urls.insert((epoch, url.to_vec()), None);
        }
        for r in rows {
            let kind: &str = r.get(0);
            let url: Vec<u8> = r.get(2);
            let id = unbig(r.get(3));
            match kind {
                "u" => {
                    known.urls.insert((epoch, url), Some(id));
                }
                "s" => {
                    // What this transaction wrote stays what it knows.
                    let id = unbig(r.get(1));
                    known.sources.entry((epoch, id)).or_insert(Some(url));
                }
                _ => {
                    let i = usize::try_from(r.get::<_, i64>(1) - 1).unwrap_or(usize::MAX);
                    if let Some(entries) = found.get_mut(i) {
                        entries.push((url, id));
                    }
                }
            }
        }
        for (after, mut entries) in ranges.iter().zip(found) {
            entries.sort();
            known
                .url_ranges
                .insert((epoch, after.to_vec()), (hint.range_limit, entries));
        }
        Ok(())
    }

    fn prefetch_sources(&self, epoch: u64, ids: &[u64]) -> StoreResult<()> {
        let mut wanted: Vec<i64> = {
            let known = self.known.borrow();
            ids.iter()
                .filter(|&&id| !known.sources.contains_key(&(epoch, id)))
                .map(|&id| big(id))
                .collect()
        };
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() {
            return Ok(());
        }
        let rows = self.point(
            "SELECT id, row FROM cite_sources WHERE epoch = $1 AND id = ANY($2)",
            &[(&big(epoch), Type::INT8), (&wanted, Type::INT8_ARRAY)],
        )?;
        let mut known = self.known.borrow_mut();
        for id in wanted {
            known.sources.insert((epoch, unbig(id)), None);
        }
        for (id, row) in pairs(rows) {
            known.sources.insert((epoch, id), Some(row));
        }
        Ok(())
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
        // A range read ahead may hold the place of this url: read it again if asked.
        self.known.borrow_mut().url_ranges.clear();
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
        known.url_ranges.clear();
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
