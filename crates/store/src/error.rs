//! Everything that can go wrong below the ledger operations, worded for the person who
//! must act on it.

use std::path::PathBuf;
use std::time::Duration;

use crate::event::{self};

/// Everything that can go wrong below the ledger operations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error(
        "{} is a sources.py JSON ledger, not a cite store — import it into a new ledger with `cite --ledger NEW.redb import {}`",
        path.display(), path.display()
    )]
    JsonLedger { path: PathBuf },
    #[error(
        "{} is not a cite ledger (not a redb database) — point --ledger at a cite ledger file or a new path",
        path.display()
    )]
    NotALedger { path: PathBuf },
    #[error(
        "{} is a folder, not a ledger file — pass a file path such as {}",
        path.display(), suggestion.display()
    )]
    Folder { path: PathBuf, suggestion: PathBuf },
    #[error(
        "{} is not a regular file ({kind}) — point --ledger at a cite ledger file or a new path",
        path.display()
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error(
        "the ledger at {} is read-only for this user: reading works, writing does not — ask its owner for write access, or work on a copy (`cp {} COPY`, then `--ledger COPY`)",
        path.display(), path.display()
    )]
    ReadOnly { path: PathBuf },
    #[error(
        "the lock file {} is {kind}, not a regular file cite can lock — cite never follows or writes it; move it away (look at it first) and try again",
        path.display()
    )]
    LockFile { path: PathBuf, kind: String },
    #[error(
        "cannot write the lock file {} — every writer of a ledger must be able to write its lock file (or anyone who can read it could hold the lock): ask its owner to give you write access to the ledger, then the owner's next `cite` command opens the lock file to you too (for a group: `chmod g+w LEDGER`)",
        path.display()
    )]
    LockFileNotWritable { path: PathBuf },
    #[error(
        "the ledger at {} is unsupported or damaged ({reason}) — run `cite audit`, which tells damage from a lock or a permission and says what to do; restore a backup only if it finds damage",
        path.display()
    )]
    Damaged { path: PathBuf, reason: String },
    #[error(
        "unsupported ledger format in {} (got {got}, supports {supports}) — use a newer cite",
        path.display()
    )]
    UnsupportedFormat {
        path: PathBuf,
        got: u16,
        supports: u16,
    },
    #[error("ledger busy: {} — gave up after {} s waiting for the writer lock{}{} — try again later or raise --wait",
        path.display(),
        seconds(*waited),
        held_by(holders),
        if *maintenance_waiting { "; a maintenance command (rebuild, import) is waiting for its turn" } else { "" },
    )]
    Busy {
        path: PathBuf,
        /// Who holds the writer lock as the wait ends (where the kernel says).
        holders: Vec<u32>,
        /// Whether a maintenance command kept this writer out.
        maintenance_waiting: bool,
        waited: Duration,
    },
    /// A lock on the ledger file itself that did not come free: another cite process's
    /// redb lock, or another program's (`flock`, `lockf`; anyone who can read the file can
    /// take one). Busy, never damage: the file is not even read.
    #[error("ledger busy: {} — gave up after {} s waiting for another process that has the ledger file open or locked (it may be stopped or hung){} — try again later or raise --wait",
        path.display(), seconds(*waited), held_by(holders))]
    StoreBusy {
        path: PathBuf,
        waited: Duration,
        /// Who holds a lock on the ledger file as the wait ends (where the kernel says).
        holders: Vec<u32>,
    },
    #[error("the ledger file {} was replaced while this process had it open — nothing was written; run the command again", path.display())]
    Replaced { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("record {seq} is corrupted: {reason} — run `cite audit`")]
    Corrupted { seq: u64, reason: String },
    #[error("{what} is corrupted: {reason} — run `cite audit`")]
    CorruptedEntry { what: String, reason: String },
    #[error(
        "the ledger's tables disagree with its log ({detail}) — nothing was written; run `cite rebuild` to recompute them from the log, then try again"
    )]
    ViewsDisagree { detail: String },
    #[error(
        "refused to write record {seq}: {reason} — nothing was written; run `cite audit`, then `cite rebuild` if it names the tables"
    )]
    Invariant { seq: u64, reason: String },
    #[error(
        "epoch {epoch} has handed out every id up to {} — run `cite reset` to start a new numbering",
        event::MAX_ID
    )]
    IdsExhausted { epoch: u64 },
    #[error("the ledger store failed: {0} — run `cite audit` if this persists")]
    Database(#[from] redb::Error),
    #[error(
        "--ledger {url} is not a PostgreSQL ledger URL: {reason} — write postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME"
    )]
    PgUrl { url: String, reason: String },
    #[error(
        "cannot reach the PostgreSQL server at {at}: {reason} — check that it is running and that --ledger names its host and port, then retry"
    )]
    PgUnreachable { at: String, reason: String },
    #[error(
        "lost the PostgreSQL server at {at}: {reason} — a write under way was committed whole or not at all; retry (raise --wait if the server is slow)"
    )]
    PgLost { at: String, reason: String },
    #[error(
        "no TLS connection to the PostgreSQL server at {at}: {reason} — check sslmode and sslrootcert in --ledger (docs/postgres.md)"
    )]
    PgTls { at: String, reason: String },
    #[error(
        "the PostgreSQL server at {at} refused the login: {reason} — check the user and the password ($PGPASSWORD, $PGPASSFILE or ~/.pgpass, else postgres://USER:PASSWORD@HOST:PORT/DBNAME in --ledger)"
    )]
    PgLogin { at: String, reason: String },
    #[error(
        "{at} is not a cite ledger: the database holds tables of its own ({tables}) — point --ledger at an empty database or at a cite ledger; nothing was written"
    )]
    PgNotALedger { at: String, tables: String },
    #[error(
        "the cite tables in {at} are of schema version {got}, newer than this build knows ({supports}) — use a newer cite; nothing was written"
    )]
    PgNewerSchema { at: String, got: i64, supports: i64 },
    #[error("ledger busy: {at} — gave up after {} s waiting for the writer lock (a PostgreSQL advisory lock){held} — try again later or raise --wait", seconds(*waited))]
    PgBusy {
        at: String,
        waited: Duration,
        /// ", held by …" naming the session that holds it, or empty when unknown.
        held: String,
    },
    #[error(
        "{at} is reached through a connection pooler in transaction (or statement) mode, which hands cite's session to other clients between transactions and would leave its writer lock on a pooled connection — point --ledger at a pool in session mode (PgBouncer: pool_mode = session) or at PostgreSQL itself; nothing was written"
    )]
    PgTransactionPooler { at: String },
    #[error(
        "the PostgreSQL ledger at {at} refused role {role}: {reason} — ask the database's owner to grant it what cite needs (`{usage}GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {role}`, as docs/postgres.md says); nothing was written"
    )]
    PgPermission {
        at: String,
        reason: String,
        role: String,
        /// The ledger's schema (`public` for the default one).
        schema: String,
        /// "GRANT USAGE ON SCHEMA … TO …; " for a schema of its own, which a role may
        /// not enter by default; empty for `public`.
        usage: String,
    },
    #[error(
        "ledger busy: {at} — {reason}: another session holds a lock on a cite table (a LOCK TABLE, a long maintenance) — try again later or raise --wait"
    )]
    PgLocked { at: String, reason: String },
    #[error("the PostgreSQL ledger at {at} failed: {reason} — run `cite audit` if this persists")]
    Postgres { at: String, reason: String },
    #[error(
        "the target ledger already holds {records} record(s) — copy into a new file or an empty database; nothing was written"
    )]
    NotEmpty { records: u64 },
    /// A write whose body failed; its own error is what the caller sees.
    #[doc(hidden)]
    #[error("the write was abandoned")]
    Abandoned,
}

impl StoreError {
    /// Whether this is a disk (or quota) with no room left: a scratch file elsewhere, or
    /// in memory, may still do.
    pub fn is_storage_full(&self) -> bool {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = source {
            if let Some(io) = e.downcast_ref::<std::io::Error>()
                && io_is_storage_full(io)
            {
                return true;
            }
            source = e.source();
        }
        // redb wraps its backend's I/O error in its own types without always exposing it
        // as a source; its message keeps the OS error.
        let text = self.to_string();
        text.contains("(os error 28)") || text.contains("(os error 122)")
    }
}

/// ENOSPC or EDQUOT.
pub fn io_is_storage_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull
        || e.kind() == std::io::ErrorKind::QuotaExceeded
        || matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

/// Seconds for messages: `0.3`, `1`, `2.5`.
/// `, held now by pid N` (or pids), or nothing when the kernel named nobody.
fn held_by(holders: &[u32]) -> String {
    match holders {
        [] => String::new(),
        [pid] => format!(", held now by pid {pid}"),
        pids => format!(
            ", held now by pids {}",
            pids.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub(crate) fn seconds(d: Duration) -> String {
    let text = format!("{:.3}", d.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Database(e.into())
            }
        }
    )*};
}
from_redb!(
    redb::StorageError,
    redb::TableError,
    redb::CommitError,
    redb::TransactionError,
    redb::DatabaseError
);
