//! Issue 10, PostgreSQL only (each test on a fresh database from `$CITE_TEST_POSTGRES`;
//! ignored unless asked for, and then failing when it is unset):
//!
//! - 8 processes × 200 `cite add` at once lose nothing; ids dense, never repeated;
//! - writers killed with SIGKILL at random moments lose nothing they printed;
//! - `cite copy` redb → PostgreSQL → redb keeps the log byte for byte; a target that
//!   holds records is refused and left as it was;
//! - the ledger named by `$CITE_LEDGER`, and by a `postgresql://` URL;
//! - refusals, each exit 1 and one clean message, nothing written: a server that does not
//!   answer (within `--wait`), a wrong password, a database that is not a cite ledger.
//!
//! - one-shot writers through PgBouncer in session mode (`$CITE_TEST_PGBOUNCER`) lose
//!   nothing, killed or not;
//! - writers and `rebuild` wait for the advisory writer lock no longer than `--wait`;
//! - a newer schema version is refused; the log table refuses UPDATE, DELETE, TRUNCATE;
//!   the password in `--ledger` stays out of the log.
//!
//! Every `cite` runs in a temporary folder: a binary without the backend takes the URL
//! for a relative file path, and must not write into the source tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::backends::{cite_ok as ok, workflow};
use crate::crash_loop::{
    Rng, assert_printed_ids_kept, kill_writer, printed, printed_by, spawn_writer,
};
use crate::util::{Outcome, PATIENCE, cite_bin, postgres_db};

/// `list --json` as id → URL.
fn listed(dir: &Path, ledger: &str) -> BTreeMap<u64, String> {
    let rows: Vec<Value> =
        serde_json::from_str(&ok(dir, ledger, &["list", "--json"])).expect("list --json");
    rows.iter()
        .map(|r| {
            (
                r["id"].as_u64().expect("id"),
                r["url"].as_str().expect("url").to_string(),
            )
        })
        .collect()
}

fn audit_ok(dir: &Path, ledger: &str) {
    let out = ok(dir, ledger, &["audit"]);
    assert!(out.starts_with("audit OK: "), "{out}");
}

/// Asserts that `o` is a refusal: exit 1, nothing on stdout, one `error: …` line on
/// stderr, no panic or backtrace; returns that line.
fn refused(o: &Outcome, what: &str) -> String {
    assert_eq!(
        o.code, 1,
        "{what}: exit {}\n{}{}",
        o.code, o.stdout, o.stderr
    );
    assert_eq!(o.stdout, "", "{what}");
    let line = o.stderr.trim_end_matches('\n');
    assert!(!line.is_empty(), "{what}: no message");
    assert!(!line.contains('\n'), "{what}: more than one line: {line}");
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!line.contains(bad), "{what}: {line}");
    }
    line.to_string()
}

/// Runs `cite ARGS…` in `dir` with backtraces requested.
fn cite_bt(dir: &Path, ledger: &str, args: &[&str]) -> Outcome {
    let started = Instant::now();
    let out = cite_bin()
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .arg("--ledger")
        .arg(ledger)
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run cite");
    Outcome::from_output(out, started.elapsed())
}

/// `cite copy FROM TO` in `dir`.
fn copy(dir: &Path, from: &str, to: &str) -> Outcome {
    let started = Instant::now();
    let out = cite_bin()
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .args(["copy", from, to])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run cite copy");
    Outcome::from_output(out, started.elapsed())
}

// ---- many writers -----------------------------------------------------------------------

const PROCS: usize = 8;
const ADDS: usize = 200;

/// Stream `p`: `adds` sequential `cite add` processes of its own URLs; what they printed.
fn stream(dir: &Path, ledger: &str, p: usize, adds: usize) -> Vec<(u64, String)> {
    let bin = assert_cmd::cargo::cargo_bin("cite");
    (0..adds)
        .map(|i| {
            let url = format!("https://p{p}.example/item/{i}");
            let o = Command::new(&bin)
                .current_dir(dir)
                .args(["--ledger", ledger, "--wait", "60", "add", &url])
                .env_remove("CITE_LEDGER")
                .env_remove("HERMES_CITATION_LEDGER")
                .env_remove("CITE_ACTOR")
                .output()
                .expect("run cite add");
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success(),
                "stream {p} step {i}: `cite add {url}` exited {:?}\n{stdout}{}",
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            );
            let got = printed(&stdout);
            assert_eq!(got.len(), 1, "one line per URL: {stdout:?}");
            assert_eq!(got[0].1, url, "stream {p} step {i} printed another URL");
            got[0].clone()
        })
        .collect()
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn eight_processes_adding_at_once_lose_nothing() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    let (dir, ledger) = (dir.path(), db.url.as_str());
    let started = Instant::now();
    let printed: Vec<(u64, String)> = thread::scope(|s| {
        let streams: Vec<_> = (0..PROCS)
            .map(|p| s.spawn(move || stream(dir, ledger, p, ADDS)))
            .collect();
        streams
            .into_iter()
            .flat_map(|h| h.join().expect("stream thread"))
            .collect()
    });
    eprintln!(
        "{} cite add processes on PostgreSQL in {:.1?}",
        PROCS * ADDS,
        started.elapsed()
    );
    let n = (PROCS * ADDS) as u64;

    // No id printed twice, and together exactly 1..=N.
    let ids: BTreeSet<u64> = printed.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids.len(), printed.len(), "an id was handed out twice");
    assert_eq!(ids, (1..=n).collect(), "ids are not dense");

    // The ledger holds each printed id with its URL, and nothing else.
    let ledger_ids = listed(dir, ledger);
    let want: BTreeMap<u64, String> = printed.into_iter().collect();
    assert_eq!(ledger_ids, want);

    // The log: one SourceAdded per URL, in a chain.
    let jsonl = ok(dir, ledger, &["export", "--format", "jsonl"]);
    let records: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record a line"))
        .collect();
    let added: Vec<u64> = records
        .iter()
        .filter(|r| r["event"]["kind"] == "source_added")
        .map(|r| r["event"]["id"].as_u64().expect("id"))
        .collect();
    assert_eq!(added, (1..=n).collect::<Vec<_>>());
    for pair in records.windows(2) {
        assert_eq!(pair[1]["prev"], pair[0]["hash"], "chain broken");
    }
    audit_ok(dir, ledger);
    db.assert_holds_the_ledger(dir);
}

// ---- killed writers ---------------------------------------------------------------------

/// Rounds of kills, and writers killed in each.
const ROUNDS: usize = 12;
const WRITERS: usize = 3;

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn writers_killed_mid_flight_lose_nothing_they_printed() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    killed_writers_lose_nothing(dir.path(), &db.url, ROUNDS);
    db.assert_holds_the_ledger(dir.path());
}

/// `rounds` rounds of `WRITERS` writers on `ledger`, each killed with SIGKILL at a random
/// moment; then every id printed is there with its URL, ids are dense, audit passes and
/// the ledger takes a new write.
fn killed_writers_lose_nothing(dir: &Path, ledger: &str, rounds: usize) {
    let mut rng = Rng::new();
    let mut promised: Vec<(u64, String)> = Vec::new();
    // `rounds` rounds, and more while the writers have printed too little to test: on a
    // loaded machine a writer can be killed before its first add, round after round.
    let started = Instant::now();
    let mut round = 0;
    while round < rounds || (promised.len() <= rounds && started.elapsed() < PATIENCE) {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| spawn_writer(dir, ledger.as_ref(), &format!("r{round}w{w}"), 10))
            .collect();
        // Kill each writer at its own random moment.
        let mut delays: Vec<u64> = (0..WRITERS).map(|_| 20 + rng.below(400)).collect();
        delays.sort_unstable();
        let mut slept = 0;
        for (w, delay) in writers.iter().zip(delays) {
            // The moment of the kill: what the test varies, not something it waits for.
            thread::sleep(Duration::from_millis(delay - slept));
            slept = delay;
            kill_writer(w);
        }
        for w in writers {
            promised.extend(printed_by(w));
        }
        // The ledger answers after every round of kills.
        ok(dir, ledger, &["list"]);
        round += 1;
    }
    assert!(
        promised.len() > rounds,
        "the writers printed only {} ids: they hardly ran",
        promised.len()
    );

    audit_ok(dir, ledger);
    let listed = listed(dir, ledger);
    let n = listed.len() as u64;
    eprintln!(
        "{round} rounds of {WRITERS} kills: {} ids printed, {n} sources in the ledger",
        promised.len()
    );
    assert_printed_ids_kept(&listed, &promised);
    // And it takes new writes.
    let next = ok(
        dir,
        ledger,
        &["--wait", "10", "add", "https://after-the-kills.example"],
    );
    assert_eq!(
        next,
        format!("[{}] https://after-the-kills.example\n", n + 1)
    );
}

/// Many one-shot writers through PgBouncer in session mode, as the README advises: the
/// writer lock (a session advisory lock) holds through the pooler. 8 processes × 25
/// adds lose nothing and repeat nothing; writers killed at random moments, some while
/// they hold the lock, lose nothing they printed and leave no lock behind on a pooled
/// server connection.
#[test]
#[ignore = "needs a PostgreSQL server and PgBouncer ($CITE_TEST_POSTGRES, $CITE_TEST_PGBOUNCER): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn one_shot_writers_through_pgbouncer_lose_nothing() {
    let db = postgres_db();
    let pooled = pgbouncer_url(&db);
    let dir = tempfile::tempdir().expect("temp dir");
    let (dir, ledger) = (dir.path(), pooled.as_str());
    let printed: Vec<(u64, String)> = thread::scope(|s| {
        let streams: Vec<_> = (0..PROCS)
            .map(|p| s.spawn(move || stream(dir, ledger, p, 25)))
            .collect();
        streams
            .into_iter()
            .flat_map(|h| h.join().expect("stream thread"))
            .collect()
    });
    let ids: BTreeSet<u64> = printed.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids.len(), printed.len(), "an id was handed out twice");
    assert_eq!(
        ids,
        (1..=(PROCS as u64 * 25)).collect(),
        "ids are not dense"
    );
    assert_eq!(listed(dir, ledger), printed.into_iter().collect());
    killed_writers_lose_nothing(dir, ledger, 4);
    // The same ledger, straight to the server.
    audit_ok(dir, &db.url);
}

/// The URL of database `db` through the test PgBouncer (`$CITE_TEST_PGBOUNCER`, which
/// `.ci/postgres start` writes to DIR/pooled-url); the test fails when it is unset.
fn pgbouncer_url(db: &crate::util::PgDb) -> String {
    match std::env::var("CITE_TEST_PGBOUNCER") {
        Ok(base) if !base.is_empty() => {
            let mut u = url::Url::parse(&base).expect("CITE_TEST_PGBOUNCER is a URL");
            u.set_path(&format!("/{}", db.name));
            u.to_string()
        }
        _ => crate::util::missing_tool(
            "no PgBouncer: `.ci/postgres start DIR` starts one when pgbouncer is \
             installed; export CITE_TEST_PGBOUNCER=$(cat DIR/pooled-url)",
        ),
    }
}

// ---- cite copy --------------------------------------------------------------------------

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn copy_redb_to_postgres_to_redb_keeps_the_log_byte_for_byte() {
    let db = postgres_db();
    let sb = crate::util::Sandbox::new();
    let dir = sb.path();
    let first = sb.ledger.display().to_string();
    let back = dir.join("back.redb").display().to_string();
    // Every kind of record: sources, titles, snapshots, quotes, two epochs, an import.
    workflow(&first, dir);
    audit_ok(dir, &first);

    let there = copy(dir, &first, &db.url);
    assert_eq!(there.code, 0, "{there:?}");
    assert!(there.stdout.contains("copied"), "{there:?}");
    let again = copy(dir, &db.url, &back);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.contains("copied"), "{again:?}");

    let export = |ledger: &str| ok(dir, ledger, &["export", "--format", "jsonl"]);
    let log = export(&first);
    assert!(log.lines().count() > 20, "{log}");
    assert_eq!(export(&db.url), log, "redb → PostgreSQL changed the log");
    assert_eq!(export(&back), log, "PostgreSQL → redb changed the log");
    db.assert_holds_the_ledger(dir);
    for ledger in [&first, &db.url, &back] {
        audit_ok(dir, ledger);
        assert_eq!(
            ok(dir, ledger, &["list", "--json"]),
            ok(dir, &first, &["list", "--json"])
        );
    }

    // A target that holds records is refused, and left as it was.
    let pg_before = export(&db.url);
    let refused_pg = copy(dir, &first, &db.url);
    assert_eq!(refused_pg.code, 1, "{refused_pg:?}");
    assert!(!refused_pg.stderr.contains("panicked"), "{refused_pg:?}");
    assert_eq!(export(&db.url), pg_before);
    let bytes = std::fs::read(&back).expect("read back.redb");
    let refused_file = copy(dir, &db.url, &back);
    assert_eq!(refused_file.code, 1, "{refused_file:?}");
    assert!(
        !refused_file.stderr.contains("panicked"),
        "{refused_file:?}"
    );
    assert_eq!(std::fs::read(&back).expect("read back.redb"), bytes);
}

// ---- naming the ledger ------------------------------------------------------------------

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn cite_ledger_and_the_postgresql_scheme_name_the_same_ledger() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    let out = cite_bin()
        .current_dir(dir.path())
        .env("CITE_LEDGER", &db.url)
        .args(["add", "https://env.example"])
        .output()
        .expect("run cite");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[1] https://env.example\n"
    );
    let other = db.url.replacen("postgres://", "postgresql://", 1);
    assert_eq!(
        ok(dir.path(), &other, &["list"]),
        "[1] https://env.example\n"
    );
    assert!(
        tempdir_is_empty(dir.path()),
        "cite wrote a file instead of using the database"
    );
}

fn tempdir_is_empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).expect("read dir").next().is_none()
}

// ---- refusals ---------------------------------------------------------------------------

#[test]
fn an_unreachable_server_is_one_line_within_the_wait() {
    // Needs no server, only the backend, which every build has: not gated.
    let dir = tempfile::tempdir().expect("temp dir");
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port();
    let url = format!("postgres://cite:cite-ci@127.0.0.1:{port}/cite");
    for args in [
        &["add", "https://a.example"][..],
        &["list"],
        &["log"],
        &["audit"],
    ] {
        let mut all = vec!["--wait", "2"];
        all.extend_from_slice(args);
        let o = cite_bt(dir.path(), &url, &all);
        let line = refused(&o, &format!("{args:?}"));
        assert!(
            line.contains(&format!("127.0.0.1:{port}")),
            "{args:?}: the message does not name the server: {line}"
        );
        assert!(
            o.took < Duration::from_secs(5),
            "{args:?} took {:?} with --wait 2",
            o.took
        );
    }
    assert!(tempdir_is_empty(dir.path()), "cite wrote a file");
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_wrong_password_is_refused_and_writes_nothing() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    let password = "not-the-password-x7";
    let url = db.url_with_password(password);
    for args in [&["add", "https://a.example"][..], &["list"], &["reset"]] {
        let o = cite_bt(dir.path(), &url, args);
        let line = refused(&o, &format!("{args:?}"));
        assert!(
            !line.contains(password),
            "{args:?} shows the password: {line}"
        );
    }
    assert_eq!(db.tables(), Vec::<String>::new(), "something was written");
    assert!(tempdir_is_empty(dir.path()), "cite wrote a file");
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_database_with_tables_of_its_own_is_not_a_cite_ledger() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    db.connect()
        .batch_execute("CREATE TABLE foo(x int); INSERT INTO foo VALUES (42)")
        .expect("create a foreign table");
    for args in [
        &["add", "https://a.example"][..],
        &["list"],
        &["log"],
        &["show", "1"],
        &["reset"],
        &["rebuild"],
        &["audit"],
    ] {
        let o = cite_bt(dir.path(), &db.url, args);
        assert_eq!(o.code, 1, "{args:?}: {o:?}");
        assert!(o.stderr.starts_with("error: "), "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("not a cite ledger"),
            "{args:?}: {}",
            o.stderr
        );
        for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
            assert!(!o.stderr.contains(bad), "{args:?}: {}", o.stderr);
        }
    }
    // Nor is it a target for `copy`.
    let sb = crate::util::Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let o = copy(dir.path(), &sb.ledger.display().to_string(), &db.url);
    assert_eq!(o.code, 1, "{o:?}");

    assert_eq!(db.tables(), ["public.foo"], "cite created tables");
    let rows: Vec<i32> = db
        .connect()
        .query("SELECT x FROM foo", &[])
        .expect("read foo")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(rows, [42], "the foreign table changed");
    assert!(tempdir_is_empty(dir.path()), "cite wrote a file");
}

// ---- the writer lock, the schema version, the log's own guard ----------------------------

/// The writer lock's advisory key (`store/pg/mod.rs`): "citeledg".
const WRITER_LOCK: i64 = 0x6369_7465_6c65_6467;

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn writers_and_rebuild_wait_for_the_advisory_lock_no_longer_than_wait() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &db.url, &["add", "https://a.example/1"]);
    // Another session holds the writer lock, as a writer stopped mid-write would.
    let mut holder = db.connect();
    holder
        .batch_execute(&format!("SELECT pg_advisory_lock({WRITER_LOCK})"))
        .expect("take the writer lock");
    for args in [
        &["add", "https://a.example/2"][..],
        &["rebuild"],
        &["reset"],
    ] {
        let mut full = vec!["--wait", "1"];
        full.extend_from_slice(args);
        let o = cite_bt(dir.path(), &db.url, &full);
        let line = refused(&o, &format!("{args:?}"));
        assert!(line.contains("ledger busy"), "{args:?}: {line}");
        assert!(line.contains("advisory lock"), "{args:?}: {line}");
        assert!(
            o.took < Duration::from_secs(5),
            "{args:?} waited {:?} with --wait 1",
            o.took
        );
    }
    // Readers take no lock.
    assert_eq!(listed(dir.path(), &db.url).len(), 1);
    // Once the holder lets go, the writer gets in, and nothing was written meanwhile.
    holder
        .batch_execute(&format!("SELECT pg_advisory_unlock({WRITER_LOCK})"))
        .expect("release");
    let out = ok(dir.path(), &db.url, &["add", "https://a.example/2"]);
    assert_eq!(out, "[2] https://a.example/2\n");
    audit_ok(dir.path(), &db.url);
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_newer_schema_is_refused_and_never_written() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &db.url, &["add", "https://a.example/1"]);
    db.connect()
        .batch_execute("UPDATE cite_schema SET version = 99")
        .expect("pretend a newer cite wrote it");
    let count = || -> i64 {
        db.connect()
            .query_one("SELECT count(*) FROM cite_events", &[])
            .expect("count")
            .get(0)
    };
    for args in [
        &["add", "https://a.example/2"][..],
        &["list"],
        &["rebuild"],
        &["audit"],
    ] {
        let o = cite_bt(dir.path(), &db.url, args);
        let line = refused(&o, &format!("{args:?}"));
        assert!(line.contains("schema version 99"), "{args:?}: {line}");
        assert!(line.contains("use a newer cite"), "{args:?}: {line}");
    }
    assert_eq!(count(), 1, "a record was written");
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn the_log_table_refuses_changes_and_the_password_stays_out_of_it() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &db.url, &["add", "https://a.example/1"]);
    let mut c = db.connect();
    for sql in [
        "UPDATE cite_events SET record = '\\x00'",
        "DELETE FROM cite_events",
        "TRUNCATE cite_events",
    ] {
        let e = c.batch_execute(sql).expect_err(sql);
        assert!(
            e.to_string().contains("append-only") || format!("{e:?}").contains("append-only"),
            "{sql}: {e:?}"
        );
    }
    // The command line goes into the log: the password given in --ledger must not.
    let password = url::Url::parse(&db.url)
        .unwrap()
        .password()
        .unwrap()
        .to_string();
    let log = ok(dir.path(), &db.url, &["export", "--format", "jsonl"]);
    assert!(!log.contains(&password), "{log}");
    assert!(log.contains(":***@"), "{log}");
    audit_ok(dir.path(), &db.url);
}

/// Issue 25: a permission PostgreSQL refuses and a lock another session holds ended with
/// "run `cite audit`", which can do nothing for either.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_missing_privilege_and_a_locked_table_say_what_they_are() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &db.url, &["add", "https://a.example"]);
    let (role, url) = role_without_privileges(&db, &db.url, "reader");
    let o = cite_bt(dir.path(), &url, &["add", "https://b.example"]);
    let line = refused(&o, "no privilege");
    assert!(line.contains("permission denied"), "{line}");
    assert!(line.contains(&format!("role {role}")), "{line}");
    assert!(line.contains("GRANT"), "{line}");
    assert!(!line.contains("cite audit"), "{line}");

    // Another session's LOCK TABLE on a cite table: busy, within --wait.
    let mut holder = db.connect();
    let mut txn = holder.transaction().unwrap();
    txn.batch_execute("LOCK TABLE cite_events IN ACCESS EXCLUSIVE MODE")
        .expect("lock a cite table");
    let o = cite_bt(
        dir.path(),
        &db.url,
        &["--wait", "1", "add", "https://c.example"],
    );
    let line = refused(&o, "locked table");
    assert!(line.starts_with("error: ledger busy: "), "{line}");
    assert!(!line.contains("cite audit"), "{line}");
    txn.rollback().unwrap();
    drop_role(&db, &role);
}

/// A login role (`PREFIX_PID`, password `pw`) that may connect to `db` and do nothing
/// else, and `ledger` with it as the user; [`drop_role`] drops it.
fn role_without_privileges(db: &crate::util::PgDb, ledger: &str, prefix: &str) -> (String, String) {
    let role = format!("{prefix}_{}", std::process::id());
    db.connect()
        .batch_execute(&format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN PASSWORD 'pw'; \
             GRANT CONNECT ON DATABASE \"{}\" TO {role}",
            db.name
        ))
        .expect("create a role without privileges");
    let mut url = url::Url::parse(ledger).unwrap();
    url.set_username(&role).unwrap();
    url.set_password(Some("pw")).unwrap();
    (role, url.to_string())
}

fn drop_role(db: &crate::util::PgDb, role: &str) {
    db.connect()
        .batch_execute(&format!(
            "REVOKE ALL ON DATABASE \"{}\" FROM {role}; DROP ROLE {role}",
            db.name
        ))
        .expect("drop the role");
}

/// The grant a missing privilege asks for names the ledger's schema: a role without
/// privileges on a ledger in `?schema=team_a` was told to ask for the tables of `public`,
/// which would not let it write.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn a_missing_privilege_on_a_schema_ledger_names_its_schema() {
    let db = postgres_db();
    let dir = tempfile::tempdir().expect("temp dir");
    let ledger = crate::pg_team::in_schema(&db, "team_a");
    ok(dir.path(), &ledger, &["add", "https://a.example"]);
    let (role, url) = role_without_privileges(&db, &ledger, "outsider");
    let o = cite_bt(dir.path(), &url, &["add", "https://b.example"]);
    let line = refused(&o, "no privilege on the schema");
    assert!(line.contains("permission denied"), "{line}");
    assert!(line.contains("GRANT USAGE ON SCHEMA team_a TO"), "{line}");
    assert!(line.contains("ON ALL TABLES IN SCHEMA team_a TO"), "{line}");
    assert!(!line.contains("SCHEMA public"), "{line}");
    drop_role(&db, &role);
}
