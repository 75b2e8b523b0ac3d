//! What one PostgreSQL transaction has written but not yet sent, and what it knows of the
//! tables, so that a write costs round trips only where it must read the server.
//!
//! Writes are kept here and sent together: before the next read that the buffer cannot
//! answer (a range), when the buffer grows large, and in the same message as the commit.
//! Point reads are answered from what the transaction wrote or read before (a miss is
//! remembered too): the transaction holds the writer lock and is SERIALIZABLE, so no one
//! else changes what it read. After `clear_views` the view tables are known to be empty
//! but for what the transaction writes, so a rebuild or a copy reads none of them back.
//!
//! Statements carry their values as literals: integers, and bytes as hex (`'\x…'`), so no
//! text from outside is ever spliced into SQL.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::backend::{Key3, RowCounts};

/// Bytes of pending statements past which they are sent at once.
pub const FLUSH_BYTES: usize = 4 << 20;

/// Values per INSERT statement.
const ROWS_PER_STATEMENT: usize = 1000;

/// Writes not yet sent. Keyed maps hold the last value per key (a row written twice in
/// one transaction is sent once).
#[derive(Default)]
pub struct Pending {
    meta: BTreeMap<Vec<u8>, Vec<u8>>,
    urls: BTreeMap<(u64, Vec<u8>), u64>,
    sources: BTreeMap<(u64, u64), Vec<u8>>,
    quotes: BTreeMap<Key3, Vec<u8>>,
    history: Vec<Key3>,
    events: Vec<(u64, Vec<u8>)>,
    snapshots: BTreeMap<Vec<u8>, Vec<u8>>,
    bytes: usize,
    /// Rows put in this transaction, sent or not (for the statistics after a bulk
    /// write); kept across [`Pending::take_sql`].
    pub rows: u64,
}

/// A range of the url index read ahead: how many entries were asked for, and the
/// entries there (url, id), in order.
pub type UrlRange = (usize, Vec<(Vec<u8>, u64)>);

/// What the transaction knows of the tables: `Some` a value, `None` no row.
#[derive(Default)]
pub struct Known {
    pub meta: HashMap<Vec<u8>, Option<Vec<u8>>>,
    /// Every meta entry is in `meta` (loaded in one read).
    pub meta_complete: bool,
    pub urls: HashMap<(u64, Vec<u8>), Option<u64>>,
    /// Ranges of the url index read ahead: (epoch, key after which) → (entries asked
    /// for, the entries there, in order).
    pub url_ranges: HashMap<(u64, Vec<u8>), UrlRange>,
    pub sources: HashMap<(u64, u64), Option<Vec<u8>>>,
    pub snapshots: HashMap<Vec<u8>, bool>,
    /// The views (urls, sources) hold nothing but what this transaction wrote.
    pub views_empty: bool,
    /// What the write transaction's first read found (`PgTables::start_from`), valid
    /// until it puts a row: the row counts and the last record (and, with `top_source`,
    /// the highest id of each epoch).
    pub start: Option<Start>,
    /// The highest (epoch, id) in the sources table when the transaction began, `Some(None)`
    /// when it was empty: no source above it exists but those the transaction wrote (which
    /// `sources` holds), so a lookup of a new id needs no read.
    pub top_source: Option<Option<(u64, u64)>>,
    /// The head and the row counts the transaction's first read found, for the check
    /// that nothing moved before its writes (`PgTables::unchanged_sql`).
    pub first_head: Option<Vec<u8>>,
    pub first_counts: RowCounts,
    /// For a read: the lowest and highest id of the current epoch when it began.
    pub bounds: Option<(u64, Option<u64>, Option<u64>)>,
}

/// What every write reads first, read in the round trip that begins it.
pub struct Start {
    pub counts: RowCounts,
    pub last_record: Option<(u64, Vec<u8>)>,
}

impl Known {
    /// Whether no source `(epoch, id)` existed when the transaction began, if that is
    /// known without a read.
    pub fn above_top(&self, epoch: u64, id: u64) -> bool {
        match self.top_source {
            Some(None) => true,
            Some(Some(top)) => (epoch, id) > top,
            None => false,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + 6);
    s.push_str("'\\x");
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s.push_str("'::bytea");
    s
}

impl Pending {
    /// Nothing is waiting to be sent.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    pub fn is_large(&self) -> bool {
        self.bytes >= FLUSH_BYTES
    }

    fn grew(&mut self, n: usize) {
        self.bytes += n + 32;
        self.rows += 1;
    }

    pub fn meta(&mut self, key: &[u8], value: &[u8]) {
        self.grew(key.len() + value.len());
        self.meta.insert(key.to_vec(), value.to_vec());
    }

    pub fn url(&mut self, epoch: u64, url: &[u8], id: u64) {
        self.grew(url.len());
        self.urls.insert((epoch, url.to_vec()), id);
    }

    pub fn source(&mut self, epoch: u64, id: u64, row: &[u8]) {
        self.grew(row.len());
        self.sources.insert((epoch, id), row.to_vec());
    }

    pub fn quote(&mut self, key: Key3, row: &[u8]) {
        self.grew(row.len());
        self.quotes.insert(key, row.to_vec());
    }

    pub fn history(&mut self, key: Key3) {
        self.grew(0);
        self.history.push(key);
    }

    pub fn event(&mut self, seq: u64, bytes: &[u8]) {
        self.grew(bytes.len());
        self.events.push((seq, bytes.to_vec()));
    }

    pub fn snapshot(&mut self, hash: &[u8], text: &[u8]) {
        self.grew(hash.len() + text.len());
        self.snapshots.insert(hash.to_vec(), text.to_vec());
    }

    /// Whether url index entries are waiting to be sent.
    pub fn has_urls(&self) -> bool {
        !self.urls.is_empty()
    }

    /// The last event written, if any is pending.
    pub fn last_event(&self) -> Option<&(u64, Vec<u8>)> {
        self.events.last()
    }

    /// Every pending write as SQL statements, `;`-separated; empties the buffer. The
    /// tables counted in `cite_counts` get their new rows counted in the same statement.
    pub fn take_sql(&mut self) -> String {
        let mut sql = String::with_capacity(self.bytes * 2 + 256);
        let p = std::mem::take(self);
        self.rows = p.rows;
        insert(
            &mut sql,
            "cite_events (seq, record)",
            p.events.iter().map(|(s, r)| format!("({s}, {})", hex(r))),
            "",
            None,
        );
        insert(
            &mut sql,
            "cite_snapshots (hash, text)",
            p.snapshots
                .iter()
                .map(|(h, t)| format!("({}, {})", hex(h), hex(t))),
            " ON CONFLICT DO NOTHING",
            None,
        );
        insert(
            &mut sql,
            "cite_meta (key, value)",
            p.meta
                .iter()
                .map(|(k, v)| format!("({}, {})", hex(k), hex(v))),
            " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            None,
        );
        insert(
            &mut sql,
            "cite_urls (epoch, url, id)",
            p.urls
                .iter()
                .map(|((e, u), i)| format!("({e}, {}, {i})", hex(u))),
            " ON CONFLICT (epoch, url) DO UPDATE SET id = EXCLUDED.id",
            Some("urls"),
        );
        insert(
            &mut sql,
            "cite_sources (epoch, id, row)",
            p.sources
                .iter()
                .map(|((e, i), r)| format!("({e}, {i}, {})", hex(r))),
            " ON CONFLICT (epoch, id) DO UPDATE SET row = EXCLUDED.row",
            Some("sources"),
        );
        insert(
            &mut sql,
            "cite_quotes (epoch, id, n, row)",
            p.quotes
                .iter()
                .map(|((e, i, n), r)| format!("({e}, {i}, {n}, {})", hex(r))),
            " ON CONFLICT (epoch, id, n) DO UPDATE SET row = EXCLUDED.row",
            Some("quotes"),
        );
        insert(
            &mut sql,
            "cite_history (epoch, id, seq)",
            p.history.iter().map(|(e, i, s)| format!("({e}, {i}, {s})")),
            " ON CONFLICT DO NOTHING",
            None,
        );
        sql
    }
}

/// Appends INSERT statements of at most [`ROWS_PER_STATEMENT`] rows each; with
/// `counted`, each also adds the rows it inserted (not those it updated) to that row of
/// `cite_counts`.
fn insert(
    sql: &mut String,
    into: &str,
    rows: impl Iterator<Item = String>,
    conflict: &str,
    counted: Option<&str>,
) {
    let rows: Vec<String> = rows.collect();
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let values = chunk.join(", ");
        match counted {
            None => {
                let _ = write!(sql, "INSERT INTO {into} VALUES {values}{conflict};");
            }
            Some(name) => {
                let _ = write!(
                    sql,
                    "WITH i AS (INSERT INTO {into} VALUES {values}{conflict} \
                     RETURNING (xmax = 0) AS new) \
                     UPDATE cite_counts SET n = n + (SELECT count(*) FROM i WHERE new) \
                     WHERE name = '{name}';"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_go_as_hex_and_a_key_written_twice_is_sent_once() {
        let mut p = Pending::default();
        p.source(1, 2, b"a'b");
        p.source(1, 2, b"c");
        p.url(1, b"https://x.example/'; DROP TABLE cite_events; --", 2);
        p.event(5, &[0, 255]);
        let sql = p.take_sql();
        assert!(p.is_empty());
        assert!(sql.contains("(5, '\\x00ff'::bytea)"), "{sql}");
        assert!(sql.contains("(1, 2, '\\x63'::bytea)"), "{sql}");
        assert!(!sql.contains("'\\x612762'"), "{sql}");
        assert!(!sql.contains("DROP TABLE"), "{sql}");
        assert_eq!(sql.matches("INSERT INTO cite_sources").count(), 1);
        assert!(sql.contains("WHERE name = 'sources'"), "{sql}");
    }

    #[test]
    fn many_rows_are_split_into_statements() {
        let mut p = Pending::default();
        for i in 0..2500 {
            p.history((1, i, i));
        }
        assert_eq!(p.rows, 2500);
        let sql = p.take_sql();
        assert_eq!(sql.matches("INSERT INTO cite_history").count(), 3);
    }
}
