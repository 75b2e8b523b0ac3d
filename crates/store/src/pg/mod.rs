//! The PostgreSQL backend: one ledger per database, shared by processes on any number of
//! machines.
//!
//! Writers take the ledger's writer lock, a session-level advisory lock (waited for at most
//! `--wait`, through `lock_timeout`), then run their write in a SERIALIZABLE transaction
//! with `synchronous_commit` on, so an id is on the server's disk before it is printed. A
//! serialization failure or a deadlock is retried while the wait lasts. The lock is
//! released with the commit, and by the server when a writer dies. Readers take no lock:
//! a REPEATABLE READ READ ONLY transaction is their consistent snapshot.
//!
//! The tables are created by the first write, under the writer lock (`schema.rs`).

mod buffer;
mod conn;
mod credentials;
mod pgpass;
mod schema;
mod tables;
mod tls;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use tokio_postgres::Config;

use conn::{Client, PgError};
use tls::TlsSettings;

use super::StoreError;
use super::backend::{Backend, LockMode, StoreResult, Tables, WriteBody};
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
    /// The URL for the driver: without the parameters cite handles itself (`sslmode`,
    /// `sslrootcert`).
    url: String,
    tls: TlsSettings,
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
        let (driver_url, tls) = tls::split(url).map_err(&bad)?;
        let config: Config = driver_url
            .parse()
            .map_err(|e: tokio_postgres::Error| bad(e.to_string()))?;
        if config.get_dbname().is_none_or(str::is_empty) {
            return Err(bad("it names no database".into()));
        }
        if config.get_user().is_none_or(str::is_empty) {
            return Err(bad("it names no user".into()));
        }
        Ok(Target {
            url: driver_url,
            tls,
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
    ///
    /// The socket's own timers follow `--wait` too: keepalives find a peer gone while a
    /// connection is kept idle (the 2 h of the system's default), and `tcp_user_timeout`
    /// one that stops acknowledging what cite sends.
    fn config(&self, wait: Duration) -> Result<(Config, Option<String>), StoreError> {
        let mut config: Config =
            self.url
                .parse()
                .map_err(|e: tokio_postgres::Error| StoreError::PgUrl {
                    url: self.shown.clone(),
                    reason: e.to_string(),
                })?;
        let wait = wait.max(Duration::from_secs(1));
        config
            .application_name("cite")
            .ssl_mode(self.tls.driver_mode())
            .connect_timeout(wait)
            .keepalives(true)
            .keepalives_idle(wait)
            .keepalives_interval((wait / 3).max(Duration::from_secs(1)))
            .keepalives_retries(3)
            .tcp_user_timeout(wait * 2);
        let why = self.env.complete(&mut config);
        Ok((config, why))
    }

    /// The settings of cite's own sessions, derived from `--wait` (milliseconds), sent
    /// with the first statement of a connection. The server's side of the bounds: a
    /// statement that waits on a table lock gives up after the wait (`lock_timeout`); a
    /// writer whose machine vanished mid-transaction has its session, and the writer
    /// lock, ended by the server (`idle_in_transaction_session_timeout`, and the
    /// server's keepalives and `tcp_user_timeout` for one that vanished between
    /// transactions); a statement whose client is gone stops (`statement_timeout`,
    /// `client_connection_check_interval`). Set with `set_config` over the settings the
    /// server has, so that an older server skips what it lacks rather than failing; not
    /// as startup `options`, which PgBouncer refuses.
    fn prelude(wait: Duration) -> String {
        let w = wait.max(Duration::from_secs(1)).as_millis();
        let s = (w / 1000).max(1);
        let statement = 2 * w + 5000;
        let idle = 2 * w + 5000;
        let interval = (s / 3).max(1);
        format!(
            "SELECT set_config(v.name, v.setting, false) FROM (VALUES \
             ('idle_in_transaction_session_timeout', '{idle}'), \
             ('statement_timeout', '{statement}'), ('lock_timeout', '{w}'), \
             ('tcp_keepalives_idle', '{s}'), ('tcp_keepalives_interval', '{interval}'), \
             ('tcp_keepalives_count', '3'), ('tcp_user_timeout', '{statement}'), \
             ('client_connection_check_interval', '{interval}000')) v(name, setting) \
             WHERE v.name IN (SELECT name FROM pg_settings)"
        )
    }

    /// Connects, and sorts what can go wrong into the server being out of reach and the
    /// login being refused.
    fn connect(&self, wait: Duration) -> Result<Client, StoreError> {
        let (config, no_password) = self.config(wait)?;
        let tls = self.tls.connector().map_err(|reason| StoreError::PgTls {
            at: self.shown.clone(),
            reason,
        })?;
        // The driver's connect timeout covers the TCP connect only: a server that accepts
        // and never answers the login would hold cite without bound. The whole login has
        // the wait as its deadline.
        Client::connect(&config, tls, wait, Self::prelude(wait)).map_err(|e| {
            if let PgError::NoAnswer(limit) = e {
                return StoreError::PgUnreachable {
                    at: self.shown.clone(),
                    reason: format!("no answer to the login within {} s", limit.as_secs_f64()),
                };
            }
            if let Some(reason) = e.driver().and_then(tls::failure) {
                return StoreError::PgTls {
                    at: self.shown.clone(),
                    reason: hide_password(&reason),
                };
            }
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
    /// role lacks, a lock another session holds, the connection lost or silent, the
    /// server stopping or starting (retry); only the rest is sent to `cite audit`.
    fn failed(&self, e: &PgError) -> StoreError {
        let at = self.shown.clone();
        let reason = first_line(e);
        match e.code() {
            Some(&SqlState::INSUFFICIENT_PRIVILEGE) => StoreError::PgPermission {
                at,
                reason,
                role: self.role(),
            },
            Some(&SqlState::LOCK_NOT_AVAILABLE) => StoreError::PgLocked { at, reason },
            // A statement that outran `statement_timeout`, or one cancelled by an
            // operator: nothing of it stays.
            Some(&SqlState::QUERY_CANCELED) => StoreError::PgLost { at, reason },
            Some(code) if code.code().starts_with("08") || code.code().starts_with("57P") => {
                StoreError::PgLost { at, reason }
            }
            // The session ended by the server after idling in a transaction.
            Some(&SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT) => {
                StoreError::PgLost { at, reason }
            }
            None if e.is_closed() => StoreError::PgLost { at, reason },
            None if e.driver().is_some_and(|d| tls::failure(d).is_some()) => {
                StoreError::PgTls { at, reason }
            }
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
fn first_line(e: &PgError) -> String {
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
    pub fn open_write(target: &Target, _mode: LockMode, wait: Duration) -> StoreResult<PgStore> {
        let started = Instant::now();
        let mut client = target.connect(wait)?;
        let store = PgStore {
            target: target.clone(),
            wait,
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

    fn failed(&self, e: &PgError) -> StoreError {
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
        client.batch_execute(&sql).map_err(|e| {
            if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
                StoreError::PgBusy {
                    at: self.target.shown.clone(),
                    waited: self.wait,
                }
            } else {
                self.failed(&e)
            }
        })
    }

    fn unlock(&self, client: &mut Client) -> StoreResult<()> {
        client
            .batch_execute(&format!("SELECT pg_advisory_unlock({WRITER_LOCK})"))
            .map_err(|e| self.failed(&e))
    }

    /// One attempt at a write: under the writer lock, in a SERIALIZABLE transaction.
    fn attempt(
        &self,
        client: &mut Client,
        wait: Duration,
        body: &mut WriteBody<'_>,
    ) -> Result<(), Attempt> {
        let result = (|| {
            self.lock(client, wait).map_err(Attempt::Failed)?;
            // Begun after the lock (not in its batch: a multi-statement query is one
            // transaction already), so that its snapshot sees the last writer's commit.
            let start = client
                .simple_query(tables::BEGIN_WRITE)
                .map_err(Attempt::from_pg)?;
            let (changed, rows, writes) = {
                let mut tables = PgTables::new(&mut *client, &self.target);
                tables.start_from(&start).map_err(Attempt::Failed)?;
                let changed = body(&mut tables).map_err(Attempt::Failed)?;
                (changed, tables.rows_written(), tables.take_sql())
            };
            // The writes still pending, the commit and the unlock: one round trip. A
            // write that fails there fails the commit with it.
            let end = if changed {
                format!("{writes} COMMIT")
            } else {
                "ROLLBACK".to_string()
            };
            client
                .batch_execute(&format!("{end}; SELECT pg_advisory_unlock({WRITER_LOCK})"))
                .map_err(Attempt::from_pg)?;
            Ok(rows)
        })();
        let rows = match result {
            Ok(rows) => rows,
            Err(e) => {
                // Whatever failed, leave no transaction open and no lock held.
                let _ = client.batch_execute("ROLLBACK; SELECT pg_advisory_unlock_all()");
                return Err(e);
            }
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
    Retry(PgError),
    Failed(StoreError),
    Driver(PgError),
}

impl Attempt {
    fn from_pg(e: PgError) -> Attempt {
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

    fn read(&self) -> StoreResult<Box<dyn Tables>> {
        let mut client = self.take()?;
        client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(|e| self.failed(&e))?;
        let pooled = Pooled::new(client, self.pool.clone());
        Ok(Box::new(PgTables::new(pooled, &self.target)))
    }

    fn write(&self, wait: Duration, body: &mut WriteBody<'_>) -> StoreResult<()> {
        let deadline = Instant::now() + wait;
        let mut client = self.take()?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.attempt(&mut client, left, body) {
                Ok(()) => {
                    self.give_back(client);
                    return Ok(());
                }
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
        let e = Target::parse("postgres://u:pw@h/db?sslmode=required").unwrap_err();
        assert!(
            e.to_string().contains("unknown sslmode \"required\""),
            "{e}"
        );
        assert!(!e.to_string().contains("pw@"), "{e}");
        assert!(Target::parse("postgres://u@h/db?sslmode=require").is_ok());
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
