//! Issue 23, item 9 (PostgreSQL, one database for several teams) and the holder named by
//! "ledger busy" (item 3):
//!
//! - several ledgers in one database, one schema each (`?schema=NAME`), written at once
//!   by several writers each: each audits clean with dense ids of its own numbering;
//! - each ledger has its own writer lock: a session holding one ledger's lock does not
//!   hold up another's writers, and the default schema keeps the key of cite binaries
//!   older than schemas;
//! - "ledger busy" names the session that holds the lock (application name, pid);
//! - `cite copy` between two schemas of one database;
//! - schema names that are not plain identifiers are refused (exit 2, no server needed);
//! - a pooler in transaction mode (`$CITE_TEST_PGBOUNCER_TXN`) is refused with the
//!   reason, and nothing is written through it.

use std::collections::BTreeSet;
use std::path::Path;
use std::thread;
use std::time::Duration;

use serde_json::Value;

use crate::backends::{cite_in, cite_ok as ok};
use crate::util::{PgDb, postgres_db};

/// The writer-lock key of the default schema's ledger (`store/pg/mod.rs`), "citeledg".
const WRITER_LOCK: i64 = 0x6369_7465_6c65_6467;

/// The writer-lock key of the ledger in schema `name`, as every cite binary must compute
/// it (`store/pg/mod.rs`, `schema_lock_key`): FNV-1a over "cite schema " and the name.
/// Written out again here so that a change of the key, which would let two binaries write
/// one ledger at once, fails this test.
fn schema_key(name: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in b"cite schema ".iter().chain(name.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

/// The ledger of `schema` in `db`, after the URL's own parameters (`sslmode=…` when the
/// tests run over TLS).
pub(crate) fn in_schema(db: &PgDb, schema: &str) -> String {
    let join = if db.url.contains('?') { '&' } else { '?' };
    format!("{}{join}schema={schema}", db.url)
}

fn ids(dir: &Path, ledger: &str) -> Vec<u64> {
    let rows: Vec<Value> =
        serde_json::from_str(&ok(dir, ledger, &["list", "--json"])).expect("list --json");
    rows.iter().map(|r| r["id"].as_u64().expect("id")).collect()
}

/// `adds` sequential `cite add` of URLs of its own; the ids printed.
fn writer(dir: &Path, ledger: &str, tag: &str, adds: usize) -> Vec<u64> {
    (0..adds)
        .map(|i| {
            let out = ok(dir, ledger, &["add", &format!("https://{tag}.example/{i}")]);
            out.trim_start_matches('[')
                .split(']')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{tag}: no id in {out:?}"))
        })
        .collect()
}

const WRITERS: usize = 4;
const ADDS: usize = 15;

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn two_ledgers_in_one_database_written_at_once_keep_their_own_numbering() {
    let db = postgres_db();
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let (a, b) = (in_schema(&db, "team_a"), in_schema(&db, "team_b"));
    let printed: Vec<(String, Vec<u64>)> = thread::scope(|s| {
        let handles: Vec<_> = (0..WRITERS)
            .flat_map(|w| [(a.clone(), format!("a{w}")), (b.clone(), format!("b{w}"))])
            .map(|(ledger, tag)| {
                s.spawn(move || {
                    let got = writer(dir, &ledger, &tag, ADDS);
                    (ledger, got)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect()
    });
    let dense: BTreeSet<u64> = (1..=(WRITERS * ADDS) as u64).collect();
    for ledger in [&a, &b] {
        let got: Vec<u64> = printed
            .iter()
            .filter(|(l, _)| l == ledger)
            .flat_map(|(_, ids)| ids.iter().copied())
            .collect();
        let set: BTreeSet<u64> = got.iter().copied().collect();
        assert_eq!(set.len(), got.len(), "{ledger}: an id was handed out twice");
        assert_eq!(set, dense, "{ledger}: ids are not dense");
        assert_eq!(ids(dir, ledger).into_iter().collect::<BTreeSet<_>>(), dense);
        let audit = ok(dir, ledger, &["audit"]);
        assert!(audit.starts_with("audit OK: "), "{ledger}: {audit}");
    }
    // Each schema holds its own tables; the default schema holds none yet, and its ledger
    // starts its own numbering.
    let tables = db.tables();
    assert!(
        tables.contains(&"team_a.cite_events".to_string()),
        "{tables:?}"
    );
    assert!(
        tables.contains(&"team_b.cite_events".to_string()),
        "{tables:?}"
    );
    assert!(
        !tables.iter().any(|t| t.starts_with("public.")),
        "{tables:?}"
    );
    assert_eq!(
        ok(dir, &db.url, &["add", "https://default.example/x"]),
        "[1] https://default.example/x\n"
    );
    // `cite copy` from one schema to a new one of the same database: the same log.
    let c = in_schema(&db, "team_c");
    let o = crate::util::cite_bin()
        .current_dir(dir)
        .args(["copy", &a, &c])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run cite copy");
    assert!(
        o.status.success(),
        "copy: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The schema shows where cite names a ledger, the password does not.
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("schema=team_a to "), "{said}");
    assert!(said.contains("schema=team_c\n"), "{said}");
    assert!(!said.contains("cite-ci"), "{said}");
    let export = |l: &str| ok(dir, l, &["export", "--format", "jsonl"]);
    assert_eq!(export(&a), export(&c));
    // `reset` acts on its own schema only.
    ok(dir, &c, &["reset"]);
    assert_eq!(ids(dir, &a).len(), WRITERS * ADDS);
    assert!(ids(dir, &c).is_empty());
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_held_lock_holds_up_its_own_ledger_only_and_busy_names_its_holder() {
    let db = postgres_db();
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let (a, b) = (in_schema(&db, "team_a"), in_schema(&db, "team_b"));
    for ledger in [&a, &b, &db.url] {
        ok(dir, ledger, &["add", "https://first.example/"]);
    }
    // A writer of ledger A stopped while it holds A's lock, as a session of its own.
    let plain = crate::util::plain_url(&db.url);
    let join = if plain.contains('?') { '&' } else { '?' };
    let mut holder = postgres::Client::connect(
        &format!("{plain}{join}application_name=team-a-loader"),
        postgres::NoTls,
    )
    .expect("connect");
    let pid: i32 = holder
        .query_one(
            "SELECT pg_backend_pid() FROM (SELECT pg_advisory_lock($1)) l",
            &[&schema_key("team_a")],
        )
        .expect("take A's writer lock")
        .get(0);
    let o = cite_in(dir, &a, &["--wait", "1", "add", "https://a.example/2"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    let line = o.stderr.trim_end();
    assert!(line.contains("ledger busy"), "{line}");
    assert!(line.contains("schema=team_a"), "{line}");
    assert!(line.contains("\"team-a-loader\""), "{line}");
    assert!(line.contains(&format!("backend pid {pid} ")), "{line}");
    assert!(line.contains("from 127.0.0.1"), "{line}");
    assert!(!line.contains("cite-ci"), "the password shows: {line}");
    // Ledger B and the default schema's ledger are written meanwhile.
    assert_eq!(
        ok(dir, &b, &["--wait", "1", "add", "https://b.example/2"]),
        "[2] https://b.example/2\n"
    );
    assert_eq!(
        ok(dir, &db.url, &["--wait", "1", "add", "https://d.example/2"]),
        "[2] https://d.example/2\n"
    );
    holder
        .query_one("SELECT pg_advisory_unlock($1)", &[&schema_key("team_a")])
        .expect("release");
    // The default schema keeps the key of cite binaries that knew no schemas, named or
    // not: they and this one still exclude each other.
    holder
        .batch_execute(&format!("SELECT pg_advisory_lock({WRITER_LOCK})"))
        .expect("take the default writer lock");
    for ledger in [db.url.clone(), in_schema(&db, "public")] {
        let o = cite_in(dir, &ledger, &["--wait", "1", "add", "https://d.example/3"]);
        assert_eq!(o.code, 1, "{ledger}: {}{}", o.stdout, o.stderr);
        assert!(o.stderr.contains("ledger busy"), "{}", o.stderr);
    }
    assert_eq!(
        ok(dir, &a, &["--wait", "1", "add", "https://a.example/2"]),
        "[2] https://a.example/2\n"
    );
    drop(holder);
    for ledger in [&a, &b, &db.url] {
        assert!(ok(dir, ledger, &["audit"]).starts_with("audit OK: "));
    }
}

/// Refused before any connection: no server needed.
#[test]
fn schema_names_that_are_not_plain_identifiers_are_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let long = "a".repeat(64);
    for (query, says) in [
        ("schema=", "names no schema"),
        ("schema", "names no schema"),
        ("schema=Team", "not a schema name"),
        ("schema=1team", "not a schema name"),
        ("schema=pg_team", "not a schema name"),
        ("schema=team-a", "not a schema name"),
        ("schema=te%22am", "not a schema name"),
        ("schema=a\"b", "not a schema name"),
        ("schema=a;DROP", "not a schema name"),
        (&format!("schema={long}"), "not a schema name"),
        ("schema=a&schema=b", "twice"),
    ] {
        let url = format!("postgres://cite:SECRET@127.0.0.1:1/db?{query}");
        let o = cite_in(tmp.path(), &url, &["list"]);
        assert_eq!(o.code, 2, "{query}: {}{}", o.stdout, o.stderr);
        assert_eq!(o.stdout, "", "{query}");
        let line = o.stderr.trim_end();
        assert!(!line.contains('\n'), "{query}: {line}");
        assert!(line.contains(says), "{query}: {line}");
        assert!(
            line.contains("lower-case") || says == "twice",
            "{query}: {line}"
        );
        assert!(!line.contains("SECRET"), "{query}: {line}");
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).expect("read dir").count(),
        0,
        "cite wrote a file"
    );
}

/// The URL of database `db` through the test PgBouncer in transaction mode.
fn txn_pooler_url(db: &PgDb) -> String {
    match std::env::var("CITE_TEST_PGBOUNCER_TXN") {
        Ok(base) if !base.is_empty() => {
            let mut u = url::Url::parse(&base).expect("CITE_TEST_PGBOUNCER_TXN is a URL");
            u.set_path(&format!("/{}", db.name));
            u.to_string()
        }
        _ => crate::util::missing_tool(
            "no PgBouncer in transaction mode: `.ci/postgres start DIR` starts one when \
             pgbouncer is installed; export CITE_TEST_PGBOUNCER_TXN=$(cat DIR/txn-pooled-url)",
        ),
    }
}

#[test]
#[ignore = "needs a PostgreSQL server and PgBouncer in transaction mode ($CITE_TEST_POSTGRES, $CITE_TEST_PGBOUNCER_TXN): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_pooler_in_transaction_mode_is_refused_with_the_reason() {
    let db = postgres_db();
    let pooled = txn_pooler_url(&db);
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    // A new ledger, an existing one, a reader and a ledger in a schema: each refused.
    let refused = |ledger: &str, args: &[&str]| {
        let o = cite_in(dir, ledger, args);
        assert_eq!(o.code, 1, "{args:?}: {}{}", o.stdout, o.stderr);
        assert_eq!(o.stdout, "", "{args:?}");
        let line = o.stderr.trim_end().to_string();
        assert!(!line.contains('\n'), "{args:?}: {line}");
        assert!(line.contains("transaction"), "{args:?}: {line}");
        assert!(line.contains("pool_mode = session"), "{args:?}: {line}");
        assert!(line.contains("nothing was written"), "{args:?}: {line}");
        assert!(!line.contains("cite-ci"), "the password shows: {line}");
    };
    refused(&pooled, &["add", "https://a.example/1"]);
    assert!(db.tables().is_empty(), "written through the pooler");
    ok(dir, &db.url, &["add", "https://a.example/1"]);
    refused(&pooled, &["add", "https://a.example/2"]);
    refused(&pooled, &["list"]);
    refused(
        &format!("{pooled}?schema=team"),
        &["add", "https://a.example/1"],
    );
    assert_eq!(ids(dir, &db.url), vec![1]);
    // The same database straight and through the session pooler is taken.
    if let Ok(session) = std::env::var("CITE_TEST_PGBOUNCER") {
        let mut u = url::Url::parse(&session).expect("CITE_TEST_PGBOUNCER is a URL");
        u.set_path(&format!("/{}", db.name));
        assert_eq!(
            ok(dir, u.as_str(), &["add", "https://a.example/2"]),
            "[2] https://a.example/2\n"
        );
        assert_eq!(
            ok(
                dir,
                &format!("{u}?schema=team"),
                &["add", "https://a.example/1"]
            ),
            "[1] https://a.example/1\n"
        );
    }
}
