//! The SQL tables of a PostgreSQL ledger, and their migrations.
//!
//! One table per table of `store/tables.rs`, prefixed `cite_`, with the same keys and the
//! same value bytes (integers as `bigint`, byte strings and URLs as `bytea`, so that keys
//! sort by their bytes exactly as redb sorts them). `cite_counts` keeps the row counts
//! that redb keeps for free, so that the tally check at the start of every write stays a
//! few index reads. `cite_schema` holds the version of this layout.
//!
//! Migrations are explicit: [`MIGRATIONS`] lists each version's statements, applied in
//! order, each in the transaction that records its version. A database whose version is
//! newer than [`SCHEMA_VERSION`] is refused, never written.

/// The layout this build writes.
pub const SCHEMA_VERSION: i64 = 1;

/// Statements that take a database from version `i` to version `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 0 → 1: the first layout.
    r#"
CREATE TABLE cite_schema (version bigint NOT NULL);
CREATE TABLE cite_events (seq bigint PRIMARY KEY, record bytea NOT NULL);
CREATE TABLE cite_meta (key bytea PRIMARY KEY, value bytea NOT NULL);
CREATE TABLE cite_urls (epoch bigint, url bytea, id bigint NOT NULL, PRIMARY KEY (epoch, url));
CREATE TABLE cite_sources (epoch bigint, id bigint, row bytea NOT NULL, PRIMARY KEY (epoch, id));
CREATE TABLE cite_history (epoch bigint, id bigint, seq bigint, PRIMARY KEY (epoch, id, seq));
CREATE TABLE cite_quotes (epoch bigint, id bigint, n bigint, row bytea NOT NULL,
    PRIMARY KEY (epoch, id, n));
CREATE TABLE cite_snapshots (hash bytea PRIMARY KEY, text bytea NOT NULL);
CREATE TABLE cite_counts (name text PRIMARY KEY, n bigint NOT NULL);
INSERT INTO cite_counts VALUES ('sources', 0), ('urls', 0), ('quotes', 0);
INSERT INTO cite_meta VALUES ('format'::bytea, '\x0200'::bytea);
INSERT INTO cite_schema VALUES (0);
-- The log is append-only here too: no statement may change or remove a record.
CREATE FUNCTION cite_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'cite_events is append-only: records are never changed or removed';
END $$;
CREATE TRIGGER cite_events_append_only BEFORE UPDATE OR DELETE ON cite_events
    FOR EACH ROW EXECUTE FUNCTION cite_events_append_only();
CREATE TRIGGER cite_events_no_truncate BEFORE TRUNCATE ON cite_events
    FOR EACH STATEMENT EXECUTE FUNCTION cite_events_append_only();
"#,
];

/// The schema version of a ledger, and the backend that answers (its pid and the port it
/// was reached on, which tell a pooler); fails with `undefined_table` where there is none.
pub const VERSION: &str =
    "SELECT max(version), pg_backend_pid(), inet_server_port() FROM cite_schema";

/// Up to six tables (views, foreign tables) of the database's current schema that are not
/// cite's: a database without cite's tables that holds any is not a cite ledger, and is
/// never written.
pub const FOREIGN_TABLES: &str = "SELECT ARRAY(SELECT relname::text FROM pg_class \
     WHERE relnamespace = current_schema()::regnamespace \
       AND relkind IN ('r', 'p', 'v', 'm', 'f') AND relname NOT LIKE 'cite\\_%' \
     ORDER BY relname LIMIT 6), pg_backend_pid(), inet_server_port()";

/// Statistics for the planner, after a transaction that filled the tables.
pub const ANALYZE: &str = "ANALYZE cite_events, cite_meta, cite_urls, cite_sources, \
     cite_history, cite_quotes, cite_snapshots";
