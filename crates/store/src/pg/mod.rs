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
mod conn;
mod credentials;
mod pgpass;
mod schema;
mod tables;
mod tls;

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use postgres::SimpleQueryMessage;
use postgres::error::SqlState;
use tokio_postgres::Config;

use conn::{Client, PgError};
use tls::TlsSettings;

use super::StoreError;
use super::backend::{Backend, LockMode, Prefetch, StoreResult, Tables, WriteBody};
use super::finding::{Checked, Finding, Place};
use tables::{PgTables, Pooled};

pub use credentials::{PgEnv, hide_password};
pub use schema::SCHEMA_VERSION;

/// The advisory lock key of the writer lock of the ledger in a database's default schema
/// ("citeledg"); advisory locks are per database. A ledger in a schema of its own
/// (`?schema=NAME`) has a key of its own ([`Target::lock_key`]).
const WRITER_LOCK: i64 = 0x6369_7465_6c65_6467;

/// The schema `?schema=` names when it names the default one: its ledger keeps
/// [`WRITER_LOCK`], so that cite binaries older than schemas still exclude newer ones.
const DEFAULT_SCHEMA: &str = "public";

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
    /// The schema of the ledger (`?schema=NAME`, taken out of `url`); `None`: the
    /// connection's default, as before schemas could be named.
    schema: Option<String>,
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
        // The driver refuses parameters it does not know: `schema=` is cite's own.
        let (without_schema, schema) = take_schema(url).map_err(&bad)?;
        let (driver_url, tls) = tls::split(&without_schema).map_err(&bad)?;
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
            // Shown with its schema: two ledgers of one database are told apart.
            shown: hide_password(url),
            env: PgEnv::default(),
            schema,
        })
    }

    /// The key of this ledger's writer lock: today's for the default schema, a hash of
    /// the schema's name otherwise, so that the ledgers of one database never wait for
    /// each other.
    fn lock_key(&self) -> i64 {
        match self.schema.as_deref() {
            None | Some(DEFAULT_SCHEMA) => WRITER_LOCK,
            Some(name) => schema_lock_key(name),
        }
    }

    /// What a new session runs before anything else: `search_path` set to the ledger's
    /// schema, so that every statement reaches its tables (none for the default schema).
    /// Sent with the session's first statement, at no round trip of its own, in a way
    /// that no statement can run without it ([`Client::setup`]).
    fn session_sql(&self) -> Option<String> {
        self.schema
            .as_deref()
            .map(|name| format!("SET search_path TO \"{name}\""))
    }

    /// How cite's sessions show in `pg_stat_activity`, and so in another writer's "ledger
    /// busy": "cite pid N", N the process on the client's machine (its address is shown
    /// beside it), so that a stuck holder can be found and ended. Set here only.
    fn application_name() -> String {
        format!("cite pid {}", std::process::id())
    }

    /// Whether a backend that was reached on `port` (its `inet_server_port()`) is the
    /// server `--ledger` names, with nothing between: the same port, or a Unix socket.
    fn reached_directly(&self, port: Option<i32>) -> bool {
        let Ok(config) = self.url.parse::<Config>() else {
            return false;
        };
        match port {
            Some(port) => {
                let ports = config.get_ports();
                if ports.is_empty() {
                    port == 5432
                } else {
                    ports.iter().any(|p| i32::from(*p) == port)
                }
            }
            None => config
                .get_hosts()
                .iter()
                .all(|h| !matches!(h, postgres::config::Host::Tcp(_))),
        }
    }

    /// Connects, and points the session at the ledger's schema.
    fn open_session(&self, wait: Duration) -> Result<Client, StoreError> {
        let mut client = self.connect(wait)?;
        if let Some(sql) = self.session_sql() {
            client.setup(sql);
        }
        Ok(client)
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
            .application_name(Self::application_name())
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
    ///
    /// And no bitmap scans: every cite statement reads by primary key, a key or a range
    /// in key order. A new ledger's tables have no statistics until autovacuum gets to
    /// them, and the planner then guesses that a key range of the epoch holds a few rows:
    /// a bitmap scan of the whole range and a sort, a read that grows with the ledger, at
    /// every write, where the index read in order stops after the rows asked for.
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
             ('client_connection_check_interval', '{interval}000'), \
             ('enable_bitmapscan', 'off')) v(name, setting) \
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
            Some(&SqlState::INSUFFICIENT_PRIVILEGE) => {
                let role = self.role();
                let (schema, usage) = match self.schema.as_deref() {
                    None | Some(DEFAULT_SCHEMA) => (DEFAULT_SCHEMA.to_string(), String::new()),
                    Some(name) => (
                        name.to_string(),
                        format!("GRANT USAGE ON SCHEMA {name} TO {role}; "),
                    ),
                };
                StoreError::PgPermission {
                    at,
                    reason,
                    role,
                    schema,
                    usage,
                }
            }
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

/// The longest schema name PostgreSQL keeps whole (NAMEDATALEN - 1 bytes).
const SCHEMA_NAME_MAX: usize = 63;

/// `url` without its `schema=NAME` parameter, and NAME checked: lower-case ASCII
/// letters, digits and `_`, not starting with a digit, not `pg_…` (PostgreSQL keeps those
/// for itself), at most 63 bytes — a name that needs no quoting to mean the same in
/// every tool, and that cite quotes all the same.
fn take_schema(url: &str) -> Result<(String, Option<String>), String> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), None));
    };
    let mut kept = Vec::new();
    let mut schema = None;
    for param in query.split('&') {
        let value = if param == "schema" {
            ""
        } else if let Some(value) = param.strip_prefix("schema=") {
            value
        } else {
            kept.push(param);
            continue;
        };
        if schema.is_some() {
            return Err("it names schema= twice: name one schema".into());
        }
        schema = Some(check_schema(value)?);
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, schema))
}

fn check_schema(name: &str) -> Result<String, String> {
    let shown: String = name.chars().take(80).collect();
    let fix = "a schema name is 1 to 63 lower-case letters a-z, digits and _, \
               not starting with a digit or pg_";
    if name.is_empty() {
        return Err(format!("schema= names no schema ({fix})"));
    }
    let fits = name.len() <= SCHEMA_NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && !name.starts_with("pg_");
    if !fits {
        return Err(format!(
            "schema {shown:?} is not a schema name cite takes ({fix})"
        ));
    }
    Ok(name.to_string())
}

/// The writer-lock key of the ledger in schema `name`: FNV-1a over "cite schema " and
/// the name. Fixed here for good: every cite binary must find the same key for a schema.
fn schema_lock_key(name: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in b"cite schema ".iter().chain(name.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    // Never the default schema's key, whatever the hash.
    let key = h as i64;
    if key == WRITER_LOCK { key ^ 1 } else { key }
}

/// The session that holds a writer lock, as pg_stat_activity shows it (a field another
/// role may not see is empty).
struct Holder {
    pid: String,
    application: String,
    role: String,
    client: String,
    state: String,
    state_since: String,
    connected: String,
}

/// "backend pid 42 (application "cite add pid 7", role cite, from 10.0.0.5, connected
/// 2026-12-02 06:00:00 UTC, idle in transaction since 2026-12-02 06:01:00 UTC)".
fn describe_holder(h: &Holder) -> String {
    // The application name is the holder's own text: shown quoted, control characters
    // escaped, so that it cannot forge the rest of the line.
    let mut parts = vec![format!("application {:?}", h.application)];
    if !h.role.is_empty() {
        parts.push(format!("role {}", h.role));
    }
    // pg_stat_activity hides the address and the state of another role's session from a
    // role without pg_read_all_stats; with the state shown, no address is a Unix socket.
    if !h.client.is_empty() {
        parts.push(format!("from {}", h.client));
    } else if !h.state.is_empty() {
        parts.push("over a local socket".to_string());
    }
    if !h.connected.is_empty() {
        parts.push(format!("connected {} UTC", h.connected));
    }
    if !h.state.is_empty() && !h.state_since.is_empty() {
        parts.push(format!("{} since {} UTC", h.state, h.state_since));
    }
    format!("backend pid {} ({})", h.pid, parts.join(", "))
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

/// The URLs this process found no transaction pooler behind.
static POOLER_CHECKED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// An open PostgreSQL ledger: its connections, kept for the next transaction.
pub struct PgStore {
    target: Target,
    wait: Duration,
    mode: LockMode,
    pool: Arc<Mutex<Vec<Client>>>,
    /// A read begun with the version check when the store was opened (see
    /// [`PgStore::open_read`]): its connection, what its first query answered, and when.
    first: Arc<Mutex<Option<FirstRead>>>,
    /// Shared between calls (see [`Backend::share`]): reads end at once, not with the
    /// next statement.
    kept: bool,
    /// Opened for writing, the database not looked at yet: the version check goes with
    /// the first write's read, in its round trip (see [`PgStore::open_write`]).
    unchecked: Arc<AtomicBool>,
}

type FirstRead = (Client, Vec<SimpleQueryMessage>, Instant);

/// The server process a session's statement ran on, as PostgreSQL tells it.
#[derive(Clone, Copy)]
struct Session {
    pid: i32,
    /// The port it was reached on (`inet_server_port()`); none over a Unix socket.
    port: Option<i32>,
}

/// What the database holds.
enum Found {
    /// No tables at all: no ledger yet.
    Nothing,
    /// A cite ledger of this schema version.
    Ledger(i64),
}

impl PgStore {
    /// Connects, for writing. The database is looked at by the first write, whose read
    /// carries the version check in its own round trip (an add of a new URL: that read
    /// and the commit, two round trips after the login); a read or a write under the lock
    /// first looks at it alone ([`PgStore::ensure_checked`]). Either way a database of a
    /// newer version is refused and none of cite's tables created (or migrated) under the
    /// writer lock, before anything is read or written.
    pub fn open_write(target: &Target, mode: LockMode, wait: Duration) -> StoreResult<PgStore> {
        let client = target.open_session(wait)?;
        let store = PgStore {
            target: target.clone(),
            wait,
            mode,
            pool: Arc::new(Mutex::new(Vec::new())),
            first: Arc::new(Mutex::new(None)),
            kept: false,
            unchecked: Arc::new(AtomicBool::new(true)),
        };
        store.give_back(client);
        Ok(store)
    }

    /// Makes sure the database is a cite ledger of a version this build writes, creating
    /// (or migrating) its tables under the writer lock when needed; once per store.
    fn ensure_checked(&self, client: &mut Client, wait: Duration) -> StoreResult<()> {
        if !self.unchecked.load(Ordering::Acquire) {
            return Ok(());
        }
        if !matches!(self.inspect_first(client)?, Found::Ledger(SCHEMA_VERSION)) {
            self.lock(client, wait)?;
            let migrated = self.migrate(client);
            let unlocked = self.unlock(client);
            migrated?;
            unlocked?;
        }
        self.unchecked.store(false, Ordering::Release);
        Ok(())
    }

    /// What the version check sent with a write's first read answered: `Ok(true)` for a
    /// ledger of this version (a transaction pooler refused as at [`Self::inspect_first`]:
    /// the read ran outside any transaction), `Ok(false)` where the tables are missing or
    /// older, to be made or migrated first.
    fn checked_by(&self, version: Result<Vec<postgres::Row>, PgError>) -> Result<bool, Attempt> {
        let rows = match version {
            Ok(rows) => rows,
            Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => return Ok(false),
            Err(e) => return Err(Attempt::from_pg(e)),
        };
        let (found, session) = self.found(&rows).map_err(Attempt::Failed)?;
        if !matches!(found, Found::Ledger(SCHEMA_VERSION)) {
            return Ok(false);
        }
        self.refuse_transaction_pooler(session)
            .map_err(Attempt::Failed)?;
        self.unchecked.store(false, Ordering::Release);
        Ok(true)
    }

    /// Connects for reading; `None` when the database holds no ledger yet.
    ///
    /// The version check and the first read's begin go together, in one round trip: the
    /// read begun is kept for the store's first [`Backend::read`]. Not where the server
    /// may be behind a pooler not yet checked: the check needs this session out of any
    /// transaction, so that a transaction pooler hands its backend to the next.
    pub fn open_read(target: &Target, wait: Duration) -> StoreResult<Option<PgStore>> {
        let mut client = target.open_session(wait)?;
        let store = PgStore {
            target: target.clone(),
            wait,
            mode: LockMode::Write,
            pool: Arc::new(Mutex::new(Vec::new())),
            first: Arc::new(Mutex::new(None)),
            kept: false,
            unchecked: Arc::new(AtomicBool::new(false)),
        };
        let (version, begun) = client
            .query_typed_then_simple(schema::VERSION, &tables::begin_read_sql())
            .map_err(|e| store.failed(&e))?;
        if let Ok(rows) = version {
            let (found, backend) = store.found(&rows)?;
            let ended = |client: &mut Client| {
                client
                    .batch_execute("ROLLBACK")
                    .map_err(|e| store.failed(&e))
            };
            match begun {
                Ok(answer) if store.no_pooler_check(backend) => {
                    *store.first.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((client, answer, Instant::now()));
                }
                // A read that could not begin is begun again by the first read, whose
                // error then says why.
                _ => {
                    ended(&mut client)?;
                    store.refuse_transaction_pooler(backend)?;
                    store.give_back(client);
                }
            }
            return match found {
                Found::Nothing => Ok(None),
                Found::Ledger(_) => Ok(Some(store)),
            };
        }
        // No ledger, or no answer to the check: the transaction the begin opened (if it
        // did) is ended, and the catalog searched.
        client
            .batch_execute("ROLLBACK")
            .map_err(|e| store.failed(&e))?;
        match store.inspect_first(&mut client)? {
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
        self.inspect_session(client).map(|(found, _)| found)
    }

    /// [`Self::inspect`], and the backend that answered, read in the same statement.
    fn inspect_session(&self, client: &mut Client) -> StoreResult<(Found, Session)> {
        let at = || self.target.shown.clone();
        let seen = |row: Option<&postgres::Row>| Session {
            pid: row.and_then(|r| r.get(1)).unwrap_or(0),
            port: row.and_then(|r| r.get(2)),
        };
        // The common case, a ledger, in one cheap statement; the catalog is searched only
        // where the cite tables are missing.
        match client.query_typed(schema::VERSION, &[]) {
            Ok(rows) => self.found(&rows),
            Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => {
                let row = client
                    .query_typed(schema::FOREIGN_TABLES, &[])
                    .map_err(|e| self.failed(&e))?;
                let foreign: Vec<String> = row.first().map(|r| r.get(0)).unwrap_or_default();
                if foreign.is_empty() {
                    return Ok((Found::Nothing, seen(row.first())));
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
                Err(StoreError::PgNotALedger { at: at(), tables })
            }
            Err(e) => Err(self.failed(&e)),
        }
    }

    /// What the answer of [`schema::VERSION`] says; refuses a newer schema version.
    fn found(&self, rows: &[postgres::Row]) -> StoreResult<(Found, Session)> {
        let version: i64 = rows.first().and_then(|r| r.get(0)).unwrap_or(0);
        let backend = Session {
            pid: rows.first().and_then(|r| r.get(1)).unwrap_or(0),
            port: rows.first().and_then(|r| r.get(2)),
        };
        if version > SCHEMA_VERSION {
            return Err(StoreError::PgNewerSchema {
                at: self.target.shown.clone(),
                got: version,
                supports: SCHEMA_VERSION,
            });
        }
        Ok((Found::Ledger(version), backend))
    }

    /// The first look at a database: [`Self::inspect`], and a pooler in transaction mode
    /// refused (see [`Self::refuse_transaction_pooler`]).
    fn inspect_first(&self, client: &mut Client) -> StoreResult<Found> {
        let (found, backend) = self.inspect_session(client)?;
        self.refuse_transaction_pooler(backend)?;
        Ok(found)
    }

    /// Refuses a pooler in transaction (or statement) mode: it hands a session to other
    /// clients between transactions, so the session-level writer lock would stay on a
    /// server connection another client then holds, and writers would find the ledger
    /// busy. A backend whose port is the one `--ledger` names is reached directly: nothing
    /// more is asked (the usual case, no round trip). Otherwise a second session is opened
    /// once per process and URL: behind a transaction pooler it is served by the backend
    /// the first one just let go; behind a session pooler, a tunnel or a proxy, by another.
    /// The second session is kept for the next transaction.
    fn refuse_transaction_pooler(&self, first: Session) -> StoreResult<()> {
        if self.no_pooler_check(first) {
            return Ok(());
        }
        let mut second = self.target.open_session(self.wait)?;
        let pid: i32 = second
            .query_typed("SELECT pg_backend_pid()", &[])
            .map_err(|e| self.failed(&e))?
            .first()
            .map(|r| r.get(0))
            .unwrap_or(0);
        if pid == first.pid {
            return Err(StoreError::PgTransactionPooler {
                at: self.target.shown.clone(),
            });
        }
        self.give_back(second);
        POOLER_CHECKED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(self.target.url.clone());
        Ok(())
    }

    /// Whether [`Self::refuse_transaction_pooler`] has nothing to ask: the server reached
    /// directly, or the URL checked already by this process.
    fn no_pooler_check(&self, first: Session) -> bool {
        self.target.reached_directly(first.port)
            || POOLER_CHECKED
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(&self.target.url)
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
            // A ledger of a schema of its own creates that schema with its tables.
            let create = match (&self.target.schema, version) {
                (Some(name), 0) => format!("CREATE SCHEMA IF NOT EXISTS \"{name}\";"),
                _ => String::new(),
            };
            let sql = format!(
                "BEGIN; {create} {step}; UPDATE cite_schema SET version = {}; COMMIT",
                version + 1
            );
            if let Err(e) = client.batch_execute(&sql) {
                let _ = client.batch_execute("ROLLBACK");
                return Err(self.failed(&e));
            }
        }
    }

    /// The read begun when the store was opened, unless it has waited longer than the
    /// wait (see [`Client::is_stale`]; dropped then, which closes its connection).
    fn take_first(&self) -> Option<(Client, Vec<SimpleQueryMessage>)> {
        let first = self.first.lock().unwrap_or_else(|p| p.into_inner()).take();
        match first {
            Some((c, answer, at))
                if !c.is_closed() && at.elapsed() < self.wait.max(Duration::from_secs(1)) =>
            {
                Some((c, answer))
            }
            _ => None,
        }
    }

    /// A connection: one kept from an earlier transaction, or a new one. A read left
    /// open on it is ended by a ROLLBACK sent with its next statement.
    fn take(&self) -> StoreResult<Client> {
        if let Some((mut c, _)) = self.take_first() {
            c.end_later();
            return Ok(c);
        }
        loop {
            let kept = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
            match kept {
                Some(c) if !c.is_closed() && !c.is_stale() => return Ok(c),
                Some(_) => continue,
                None => return self.target.open_session(self.wait),
            }
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
        let key = self.target.lock_key();
        let sql = format!(
            "SET lock_timeout = {ms}; SET synchronous_commit = on; \
             SELECT pg_advisory_lock({key})"
        );
        client
            .batch_execute(&sql)
            .map_err(|e| self.busy_or_failed(client, &e))
    }

    /// A statement's error where it may have waited for the writer lock: the lock not
    /// had within the wait is "busy", naming the session that holds it. A transaction the
    /// wait was in is rolled back first, so that the holder can be read.
    fn busy_or_failed(&self, client: &mut Client, e: &PgError) -> StoreError {
        if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
            let _ = client.batch_execute("ROLLBACK");
            StoreError::PgBusy {
                at: self.target.shown.clone(),
                waited: self.wait,
                held: self
                    .holder(client)
                    .map(|h| format!(", held by {h}"))
                    .unwrap_or_default(),
            }
        } else {
            self.failed(e)
        }
    }

    /// The statements that open a write transaction and take the writer lock in it,
    /// waiting at most `wait`; the lock goes with the transaction's end.
    fn lock_in_transaction(&self, wait: Duration) -> String {
        let key = self.target.lock_key();
        let ms = wait.as_millis().clamp(1, i32::MAX as u128);
        format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = {ms}; \
             SET LOCAL synchronous_commit = on; SELECT pg_advisory_xact_lock({key});"
        )
    }

    /// Who holds the writer lock, as PostgreSQL shows its session (one statement, given
    /// a second at most); `None` when that cannot be read or the lock was let go.
    fn holder(&self, client: &mut Client) -> Option<String> {
        let key = self.target.lock_key();
        // An advisory lock on a bigint key shows as its two halves in pg_locks.
        let (high, low) = ((key as u64) >> 32, (key as u64) & 0xffff_ffff);
        let sql = format!(
            "SET LOCAL statement_timeout = 1000; \
             SELECT a.pid::text, coalesce(a.application_name, ''), coalesce(a.usename::text, ''), \
               coalesce(host(a.client_addr), ''), coalesce(a.state, ''), \
               coalesce(to_char(a.state_change AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), ''), \
               coalesce(to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), '') \
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
             WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 \
               AND l.classid = {high}::oid AND l.objid = {low}::oid \
               AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
             LIMIT 1"
        );
        let messages = client.simple_query(&sql).ok()?;
        let row = messages.iter().find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => Some(r),
            _ => None,
        })?;
        let col = |i: usize| row.get(i).unwrap_or_default().to_string();
        Some(describe_holder(&Holder {
            pid: col(0),
            application: col(1),
            role: col(2),
            client: col(3),
            state: col(4),
            state_since: col(5),
            connected: col(6),
        }))
    }

    fn unlock(&self, client: &mut Client) -> StoreResult<()> {
        client
            .batch_execute(&format!(
                "SELECT pg_advisory_unlock({})",
                self.target.lock_key()
            ))
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
        let read = format!("SET lock_timeout = {ms}; {}", tables::start_sql(hint));
        let start = if self.unchecked.load(Ordering::Acquire) {
            let (version, start) = client
                .query_typed_then_simple(schema::VERSION, &read)
                .map_err(Attempt::from_pg)?;
            if !self.checked_by(version)? {
                return Err(Attempt::Unchecked);
            }
            start.map_err(Attempt::from_pg)?
        } else {
            client.simple_query(&read).map_err(Attempt::from_pg)?
        };
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
                self.lock_in_transaction(wait),
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
                Some(&SqlState::LOCK_NOT_AVAILABLE) => {
                    Attempt::Failed(self.busy_or_failed(client, &e))
                }
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
                self.lock_in_transaction(wait),
                tables::start_sql(hint)
            );
            let start = client.simple_query(&sql).map_err(|e| {
                if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
                    Attempt::Failed(self.busy_or_failed(client, &e))
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
    Retry(PgError),
    /// Another writer committed between the read and the lock: done again, under it.
    Moved,
    /// The body needed its writes sent before the lock was taken: done again, under it.
    NeedLock,
    /// The version check sent with the read found no ledger of this version: the tables
    /// are made or migrated, and the write done again.
    Unchecked,
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

    fn share(&self) -> Option<Box<dyn Backend>> {
        Some(Box::new(PgStore {
            target: self.target.clone(),
            wait: self.wait,
            mode: self.mode,
            pool: self.pool.clone(),
            first: self.first.clone(),
            kept: true,
            unchecked: self.unchecked.clone(),
        }))
    }

    fn read(&self) -> StoreResult<Box<dyn Tables>> {
        let (client, answer) = match self.take_first() {
            Some(first) => first,
            None => {
                let mut client = self.take()?;
                self.ensure_checked(&mut client, self.wait)?;
                let answer = client
                    .simple_query(&tables::begin_read_sql())
                    .map_err(|e| self.failed(&e))?;
                (client, answer)
            }
        };
        let pooled = Pooled::new(client, self.pool.clone(), self.kept);
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
        if locked {
            self.ensure_checked(&mut client, wait)?;
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.attempt(&mut client, left, locked, hint, body) {
                Ok(()) => {
                    self.give_back(client);
                    return Ok(());
                }
                Err(Attempt::Moved) | Err(Attempt::NeedLock) => locked = true,
                Err(Attempt::Unchecked) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    self.ensure_checked(&mut client, left)?;
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
        self.ensure_checked(&mut client, self.wait)?;
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

    #[test]
    fn a_schema_is_taken_out_of_the_url_and_keys_its_own_lock() {
        let t = Target::parse("postgres://u:pw@h/db?sslmode=disable&schema=team_a").unwrap();
        // sslmode is taken out of the URL too (TLS is cite's, see tls.rs).
        assert_eq!(t.url, "postgres://u:pw@h/db");
        assert_eq!(t.schema.as_deref(), Some("team_a"));
        assert_eq!(
            t.to_string(),
            "postgres://u:***@h/db?sslmode=disable&schema=team_a"
        );
        let b = Target::parse("postgres://u@h/db?schema=team_b").unwrap();
        assert_eq!(b.url, "postgres://u@h/db");
        assert_ne!(t.lock_key(), b.lock_key());
        assert_ne!(t.lock_key(), WRITER_LOCK);
        assert_ne!(t, b);
        for default in ["postgres://u@h/db", "postgres://u@h/db?schema=public"] {
            assert_eq!(Target::parse(default).unwrap().lock_key(), WRITER_LOCK);
        }
        assert_eq!(
            Target::parse("postgres://u@h/db").unwrap().session_sql(),
            None
        );
        assert_eq!(
            b.session_sql().as_deref(),
            Some("SET search_path TO \"team_b\"")
        );
    }
}
