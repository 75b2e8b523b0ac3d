//! The PostgreSQL backend: one ledger per database, shared by processes on any number of
//! machines.
//!
//! A write is optimistic: one query reads what it needs (the chain head, the tally, the
//! url index entries it will look up: `tables::start_sql`), without any lock; the write
//! is computed from that; then ONE batch takes the ledger's writer lock, a
//! transaction-level advisory lock (waited for at most `--wait`, through `lock_timeout`),
//! checks that the head and the row counts are still those read, appends, and commits
//! with `synchronous_commit` on, so an id is on the server's disk before it is printed.
//! The lock is held for the server's own time on that batch, never across a round trip,
//! and it cannot outlive the transaction. When another writer committed in between, the
//! check fails and the write is done again from a fresh read, this time under the lock
//! taken first (so it cannot lose again); so are bulk writes and maintenance, whose writes
//! do not fit one message. A write that changes nothing (an add of a known URL) takes no
//! lock and sends nothing after its read. Readers take no lock: a REPEATABLE READ READ
//! ONLY transaction is their consistent snapshot.
//!
//! The tables are created by the first write, under the writer lock (`schema.rs`).

mod buffer;
mod credentials;
mod pgpass;
mod schema;
mod tables;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};

use super::StoreError;
use super::backend::{Backend, LockMode, Prefetch, StoreResult, Tables, WriteBody};
use super::finding::{Checked, Finding, Place};
use tables::{PgTables, Pooled};

pub use credentials::{PgEnv, hide_password};
pub use schema::SCHEMA_VERSION;

/// The advisory lock key of the writer lock ("citeledg"); advisory locks are per database,
/// and so is a ledger.
const WRITER_LOCK: i64 = 0x6369_7465_6c65_6467;

/// Rows written by one transaction past which its tables are analyzed after the commit.
const BULK_ROWS: u64 = 10_000;

/// A PostgreSQL ledger, as `--ledger postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME` names
/// it.
#[derive(Clone, PartialEq, Eq)]
pub struct Target {
    url: String,
    /// The URL without its password, for messages.
    shown: String,
    /// Where a password missing from the URL is looked for.
    env: PgEnv,
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Target {
    pub fn is_url(s: &str) -> bool {
        let lower = s.get(..13).unwrap_or(s).to_ascii_lowercase();
        lower.starts_with("postgres://") || lower.starts_with("postgresql://")
    }

    pub fn parse(url: &str) -> Result<Target, StoreError> {
        let bad = |reason: String| StoreError::PgUrl {
            reason,
            url: hide_password(url),
        };
        let config: Config = url
            .parse()
            .map_err(|e: postgres::Error| bad(e.to_string()))?;
        if config.get_dbname().is_none_or(str::is_empty) {
            return Err(bad("it names no database".into()));
        }
        if config.get_user().is_none_or(str::is_empty) {
            return Err(bad("it names no user".into()));
        }
        if matches!(config.get_ssl_mode(), postgres::config::SslMode::Require) {
            return Err(bad(
                "this build of cite does not speak TLS (sslmode=require); reach the server \
                 over a private network or an SSH tunnel, without sslmode"
                    .into(),
            ));
        }
        Ok(Target {
            url: url.to_string(),
            shown: hide_password(url),
            env: PgEnv::default(),
        })
    }

    /// This target, with a password missing from its URL looked for where libpq looks.
    pub fn with_env(self, env: PgEnv) -> Target {
        Target { env, ..self }
    }

    /// The driver's configuration, and why no password could be added to it when none
    /// could.
    fn config(&self, wait: Duration) -> (Config, Option<String>) {
        let mut config: Config = self.url.parse().expect("checked when parsed");
        config
            .application_name("cite")
            .connect_timeout(wait.max(Duration::from_secs(1)));
        let why = self.env.complete(&mut config);
        (config, why)
    }

    /// Connects, and sorts what can go wrong into the server being out of reach and the
    /// login being refused.
    fn connect(&self, wait: Duration) -> Result<Client, StoreError> {
        let (config, no_password) = self.config(wait);
        let limit = wait.max(Duration::from_secs(1));
        let silent = |reason: String| StoreError::PgUnreachable {
            at: self.shown.clone(),
            reason,
        };
        // The driver's connect timeout covers the TCP connect only: a server that accepts
        // and never answers the login would hold cite without bound. The login runs on a
        // thread of its own, given up after `limit`; a login that ends later drops its
        // connection when it finds no one to hand it to.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("cite-pg-login".into())
            .spawn(move || drop(tx.send(config.connect(NoTls))))
            .map_err(|e| silent(format!("cannot start the login: {e}")))?;
        let answer = rx.recv_timeout(limit).map_err(|_| {
            silent(format!(
                "no answer to the login within {} s",
                limit.as_secs_f64()
            ))
        })?;
        answer.map_err(|e| {
            let mut reason = hide_password(&first_line(&e));
            if let Some(why) = &no_password {
                reason = format!("{reason} ({why})");
            }
            match e.code() {
                Some(code) if code.code().starts_with("28") => StoreError::PgLogin {
                    at: self.shown.clone(),
                    reason,
                },
                Some(&SqlState::INVALID_CATALOG_NAME) => StoreError::PgLogin {
                    at: self.shown.clone(),
                    reason: format!("{reason} (create it first: `createdb NAME`)"),
                },
                Some(_) => self.failed(&e),
                None if reason.contains("password") || reason.contains("authentication") => {
                    StoreError::PgLogin {
                        at: self.shown.clone(),
                        reason,
                    }
                }
                None => StoreError::PgUnreachable {
                    at: self.shown.clone(),
                    reason,
                },
            }
        })
    }

    /// A statement's error, sorted by what the user can do about it: a privilege the
    /// role lacks, a lock another session holds, the connection lost; only the rest is
    /// sent to `cite audit`.
    fn failed(&self, e: &postgres::Error) -> StoreError {
        let at = self.shown.clone();
        let reason = first_line(e);
        match e.code() {
            Some(&SqlState::INSUFFICIENT_PRIVILEGE) => StoreError::PgPermission {
                at,
                reason,
                role: self.role(),
            },
            Some(&SqlState::LOCK_NOT_AVAILABLE) | Some(&SqlState::QUERY_CANCELED) => {
                StoreError::PgLocked { at, reason }
            }
            Some(code) if code.code().starts_with("08") || code.code().starts_with("57P") => {
                StoreError::PgUnreachable { at, reason }
            }
            None if e.is_closed() => StoreError::PgUnreachable { at, reason },
            _ => StoreError::Postgres { at, reason },
        }
    }

    /// The user `--ledger` logs in as.
    fn role(&self) -> String {
        self.url
            .parse::<Config>()
            .ok()
            .and_then(|c| c.get_user().map(str::to_string))
            .unwrap_or_default()
    }
}

/// A driver error as one line: the server's own message where there is one.
fn first_line(e: &postgres::Error) -> String {
    let text = match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => match std::error::Error::source(e) {
            Some(source) => format!("{e}: {source}"),
            None => e.to_string(),
        },
    };
    text.lines().next().unwrap_or_default().to_string()
}

/// An open PostgreSQL ledger: its connections, kept for the next transaction.
pub struct PgStore {
    target: Target,
    wait: Duration,
    mode: LockMode,
    pool: Arc<Mutex<Vec<Client>>>,
}

/// What the database holds.
enum Found {
    /// No tables at all: no ledger yet.
    Nothing,
    /// A cite ledger of this schema version.
    Ledger(i64),
}

impl PgStore {
    /// Connects and makes sure the database is a cite ledger of a version this build
    /// writes, creating (or migrating) its tables under the writer lock when needed.
    pub fn open_write(target: &Target, mode: LockMode, wait: Duration) -> StoreResult<PgStore> {
        let started = Instant::now();
        let mut client = target.connect(wait)?;
        let store = PgStore {
            target: target.clone(),
            wait,
            mode,
            pool: Arc::new(Mutex::new(Vec::new())),
        };
        if let Found::Ledger(SCHEMA_VERSION) = store.inspect(&mut client)? {
            store.give_back(client);
            return Ok(store);
        }
        let left = wait.saturating_sub(started.elapsed());
        store.lock(&mut client, left)?;
        let migrated = store.migrate(&mut client);
        let unlocked = store.unlock(&mut client);
        migrated?;
        unlocked?;
        store.give_back(client);
        Ok(store)
    }

    /// Connects for reading; `None` when the database holds no ledger yet.
    pub fn open_read(target: &Target, wait: Duration) -> StoreResult<Option<PgStore>> {
        let mut client = target.connect(wait)?;
        let store = PgStore {
            target: target.clone(),
            wait,
            mode: LockMode::Write,
            pool: Arc::new(Mutex::new(Vec::new())),
        };
        match store.inspect(&mut client)? {
            Found::Nothing => Ok(None),
            Found::Ledger(_) => {
                store.give_back(client);
                Ok(Some(store))
            }
        }
    }

    fn failed(&self, e: &postgres::Error) -> StoreError {
        self.target.failed(e)
    }

    /// What the database holds; refuses one of a newer schema version, and one without
    /// cite's tables that holds tables of its own.
    fn inspect(&self, client: &mut Client) -> StoreResult<Found> {
        let at = || self.target.shown.clone();
        // The common case, a ledger, in one cheap statement; the catalog is searched only
        // where the cite tables are missing.
        let version: i64 = match client.query_typed(schema::VERSION, &[]) {
            Ok(rows) => rows.first().and_then(|r| r.get(0)).unwrap_or(0),
            Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => {
                let row = client
                    .query_typed(schema::FOREIGN_TABLES, &[])
                    .map_err(|e| self.failed(&e))?;
                let foreign: Vec<String> = row.first().map(|r| r.get(0)).unwrap_or_default();
                if foreign.is_empty() {
                    return Ok(Found::Nothing);
                }
                let mut tables = foreign
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                if foreign.len() > 5 {
                    tables.push_str(", …");
                }
                return Err(StoreError::PgNotALedger { at: at(), tables });
            }
            Err(e) => return Err(self.failed(&e)),
        };
        if version > SCHEMA_VERSION {
            return Err(StoreError::PgNewerSchema {
                at: at(),
                got: version,
                supports: SCHEMA_VERSION,
            });
        }
        Ok(Found::Ledger(version))
    }

    /// Brings the tables to [`SCHEMA_VERSION`], one migration per transaction. The caller
    /// holds the writer lock.
    fn migrate(&self, client: &mut Client) -> StoreResult<()> {
        loop {
            let version = match self.inspect(client)? {
                Found::Nothing => 0,
                Found::Ledger(v) => v,
            };
            if version >= SCHEMA_VERSION {
                return Ok(());
            }
            let step = schema::MIGRATIONS[usize::try_from(version).unwrap_or(usize::MAX)];
            let sql = format!(
                "BEGIN; {step}; UPDATE cite_schema SET version = {}; COMMIT",
                version + 1
            );
            if let Err(e) = client.batch_execute(&sql) {
                let _ = client.batch_execute("ROLLBACK");
                return Err(self.failed(&e));
            }
        }
    }

    /// A connection: one kept from an earlier transaction, or a new one.
    fn take(&self) -> StoreResult<Client> {
        let kept = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match kept {
            Some(c) if !c.is_closed() => Ok(c),
            _ => self.target.connect(self.wait),
        }
    }

    fn give_back(&self, client: Client) {
        if !client.is_closed() {
            self.pool
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(client);
        }
    }

    /// Takes the writer lock, waiting at most `wait` (one round trip).
    fn lock(&self, client: &mut Client, wait: Duration) -> StoreResult<()> {
        let ms = wait.as_millis().clamp(1, i32::MAX as u128);
        let sql = format!(
            "SET lock_timeout = {ms}; SET synchronous_commit = on; \
             SELECT pg_advisory_lock({WRITER_LOCK})"
        );
        client
            .batch_execute(&sql)
            .map_err(|e| self.busy_or_failed(&e))
    }

    /// A statement's error where it may have waited for the writer lock: the lock not
    /// had within the wait is "busy".
    fn busy_or_failed(&self, e: &postgres::Error) -> StoreError {
        if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
            StoreError::PgBusy {
                at: self.target.shown.clone(),
                waited: self.wait,
            }
        } else {
            self.failed(e)
        }
    }

    /// The statements that open a write transaction and take the writer lock in it,
    /// waiting at most `wait`; the lock goes with the transaction's end.
    fn lock_in_transaction(wait: Duration) -> String {
        let ms = wait.as_millis().clamp(1, i32::MAX as u128);
        format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = {ms}; \
             SET LOCAL synchronous_commit = on; SELECT pg_advisory_xact_lock({WRITER_LOCK});"
        )
    }

    fn unlock(&self, client: &mut Client) -> StoreResult<()> {
        client
            .batch_execute(&format!("SELECT pg_advisory_unlock({WRITER_LOCK})"))
            .map_err(|e| self.failed(&e))
    }

    /// One attempt at a write ahead of the writer lock: a read in one round trip, the
    /// body, then the lock, the check that nothing moved, the writes and the commit in
    /// one more.
    fn attempt_ahead(
        &self,
        client: &mut Client,
        wait: Duration,
        hint: &Prefetch,
        body: &mut WriteBody<'_>,
    ) -> Result<u64, Attempt> {
        // Autocommit: one statement, one snapshot. A read the body makes later (one the
        // hint did not name) sees a later snapshot only if another writer committed in
        // between, and then the check under the lock fails and the write is done again.
        // Bounded by the wait too: another session's LOCK TABLE on a cite table would
        // hold the read without bound.
        let ms = wait.as_millis().clamp(1, i32::MAX as u128);
        let start = client
            .simple_query(&format!(
                "SET lock_timeout = {ms}; {}",
                tables::start_sql(hint)
            ))
            .map_err(Attempt::from_pg)?;
        let (changed, rows, sql) = {
            let mut tables = PgTables::new(&mut *client, &self.target);
            tables.run_ahead();
            tables.start_from(&start, hint).map_err(Attempt::Failed)?;
            let changed = body(&mut tables);
            if tables.needs_lock() {
                return Err(Attempt::NeedLock);
            }
            let changed = changed.map_err(Attempt::Failed)?;
            let sql = format!(
                "{} {} {} COMMIT",
                Self::lock_in_transaction(wait),
                tables.unchanged_sql(),
                tables.take_sql()
            );
            (changed, tables.rows_written(), sql)
        };
        if !changed {
            return Ok(0);
        }
        client.batch_execute(&sql).map_err(|e| {
            let _ = client.batch_execute("ROLLBACK");
            match e.code() {
                Some(&SqlState::T_R_SERIALIZATION_FAILURE) => Attempt::Moved,
                Some(&SqlState::LOCK_NOT_AVAILABLE) => Attempt::Failed(self.busy_or_failed(&e)),
                _ => Attempt::from_pg(e),
            }
        })?;
        Ok(rows)
    }

    /// One attempt at a write under the writer lock taken first: the lock and the first
    /// read in one round trip, the body (its writes sent as they grow), the rest of the
    /// writes and the commit in one more.
    fn attempt_locked(
        &self,
        client: &mut Client,
        wait: Duration,
        hint: &Prefetch,
        body: &mut WriteBody<'_>,
    ) -> Result<u64, Attempt> {
        let result = (|| {
            let sql = format!(
                "{} {}",
                Self::lock_in_transaction(wait),
                tables::start_sql(hint)
            );
            let start = client.simple_query(&sql).map_err(|e| {
                if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
                    Attempt::Failed(self.busy_or_failed(&e))
                } else {
                    Attempt::from_pg(e)
                }
            })?;
            let (changed, rows, writes) = {
                let mut tables = PgTables::new(&mut *client, &self.target);
                tables.start_from(&start, hint).map_err(Attempt::Failed)?;
                let changed = body(&mut tables).map_err(Attempt::Failed)?;
                (changed, tables.rows_written(), tables.take_sql())
            };
            // The writes still pending and the commit: one round trip. A write that fails
            // there fails the commit with it.
            let end = if changed {
                format!("{writes} COMMIT")
            } else {
                "ROLLBACK".to_string()
            };
            client.batch_execute(&end).map_err(Attempt::from_pg)?;
            Ok(rows)
        })();
        if result.is_err() {
            // Whatever failed, leave no transaction open (and so no lock held).
            let _ = client.batch_execute("ROLLBACK");
        }
        result
    }

    /// One attempt, ahead of the lock or under it; statistics after a bulk write.
    fn attempt(
        &self,
        client: &mut Client,
        wait: Duration,
        locked: bool,
        hint: &Prefetch,
        body: &mut WriteBody<'_>,
    ) -> Result<(), Attempt> {
        let rows = match locked {
            true => self.attempt_locked(client, wait, hint, body)?,
            false => self.attempt_ahead(client, wait, hint, body)?,
        };
        // The planner needs statistics to use the indexes of tables filled in one go (a
        // copy, a rebuild, an import); PostgreSQL would gather them only later.
        if rows >= BULK_ROWS {
            let _ = client.batch_execute(schema::ANALYZE);
        }
        Ok(())
    }
}

/// How one attempt at a write ended.
enum Attempt {
    /// A conflict PostgreSQL asks to retry.
    Retry(postgres::Error),
    /// Another writer committed between the read and the lock: done again, under it.
    Moved,
    /// The body needed its writes sent before the lock was taken: done again, under it.
    NeedLock,
    Failed(StoreError),
    Driver(postgres::Error),
}

impl Attempt {
    fn from_pg(e: postgres::Error) -> Attempt {
        match e.code() {
            Some(&SqlState::T_R_SERIALIZATION_FAILURE) | Some(&SqlState::T_R_DEADLOCK_DETECTED) => {
                Attempt::Retry(e)
            }
            _ => Attempt::Driver(e),
        }
    }
}

impl Backend for PgStore {
    fn location(&self) -> String {
        self.target.shown.clone()
    }

    fn share(&self) -> Option<Box<dyn Backend>> {
        Some(Box::new(PgStore {
            target: self.target.clone(),
            wait: self.wait,
            mode: self.mode,
            pool: self.pool.clone(),
        }))
    }

    fn read(&self) -> StoreResult<Box<dyn Tables>> {
        let mut client = self.take()?;
        let answer = client
            .simple_query(&tables::begin_read_sql())
            .map_err(|e| self.failed(&e))?;
        let pooled = Pooled::new(client, self.pool.clone());
        let mut tables = PgTables::new(pooled, &self.target);
        tables.read_from(&answer)?;
        Ok(Box::new(tables))
    }

    fn write(&self, wait: Duration, body: &mut WriteBody<'_>) -> StoreResult<()> {
        self.write_prefetched(wait, &Prefetch::default(), body)
    }

    fn write_prefetched(
        &self,
        wait: Duration,
        hint: &Prefetch,
        body: &mut WriteBody<'_>,
    ) -> StoreResult<()> {
        let deadline = Instant::now() + wait;
        let mut client = self.take()?;
        let mut locked = hint.bulk || self.mode == LockMode::Maintenance;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.attempt(&mut client, left, locked, hint, body) {
                Ok(()) => {
                    self.give_back(client);
                    return Ok(());
                }
                Err(Attempt::Moved) | Err(Attempt::NeedLock) => locked = true,
                Err(Attempt::Retry(e)) => {
                    if Instant::now() >= deadline {
                        return Err(self.failed(&e));
                    }
                }
                Err(Attempt::Failed(e)) => {
                    self.give_back(client);
                    return Err(e);
                }
                Err(Attempt::Driver(e)) => return Err(self.failed(&e)),
            }
        }
    }

    fn check(&self) -> StoreResult<Checked> {
        // The row counts kept beside the views must be the tables' own.
        let mut client = self.take()?;
        let rows = client
            .query(
                "SELECT c.name, c.n, CASE c.name \
                   WHEN 'sources' THEN (SELECT count(*) FROM cite_sources) \
                   WHEN 'urls' THEN (SELECT count(*) FROM cite_urls) \
                   ELSE (SELECT count(*) FROM cite_quotes) END \
                 FROM cite_counts c ORDER BY c.name",
                &[],
            )
            .map_err(|e| self.failed(&e))?;
        self.give_back(client);
        let findings = rows
            .iter()
            .filter(|r| r.get::<_, i64>(1) != r.get::<_, i64>(2))
            .map(|r| Finding {
                place: Place::Entry {
                    table: "cite_counts".into(),
                    key: r.get::<_, String>(0),
                },
                reason: format!(
                    "counts {} rows, the table holds {} — run `cite rebuild`",
                    r.get::<_, i64>(1),
                    r.get::<_, i64>(2)
                ),
            })
            .collect();
        Ok(Checked {
            findings,
            notes: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths_and_passwords_are_hidden() {
        assert!(Target::is_url("postgres://u@h/db"));
        assert!(Target::is_url("PostgreSQL://u@h/db"));
        assert!(!Target::is_url("ledger.redb"));
        assert!(!Target::is_url("postgres"));
        let t = Target::parse("postgres://cite:secret@127.0.0.1:5432/ledger").unwrap();
        assert_eq!(t.to_string(), "postgres://cite:***@127.0.0.1:5432/ledger");
        assert!(!format!("{t:?}").contains("secret"));
        let e = Target::parse("postgres://u@h/db?sslmode=require").unwrap_err();
        assert!(e.to_string().contains("does not speak TLS"), "{e}");
        let e = Target::parse("postgres://cite:secret@127.0.0.1:5432").unwrap_err();
        assert!(e.to_string().contains("names no database"), "{e}");
        assert!(!e.to_string().contains("secret"), "{e}");
        assert_eq!(
            hide_password("--ledger=postgresql://u:p@h/db"),
            "--ledger=postgresql://u:***@h/db"
        );
        assert_eq!(hide_password("https://u:p@h/x"), "https://u:p@h/x");
        assert_eq!(hide_password("postgres://u@h/db"), "postgres://u@h/db");
    }
}
