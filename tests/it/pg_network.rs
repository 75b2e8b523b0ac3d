//! Issue 23, item 3: every wait on the network bounded by `--wait`. These need no
//! PostgreSQL server: the peer is a listener of the test's own.
//!
//! Bounds on time here only say that nothing hung: they are several times what the code
//! needs.

use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::{Outcome, cite_bin};

/// Past `--wait`, what a command may take and still count as having stopped in time:
/// process start, and a loaded machine.
const MARGIN: Duration = Duration::from_secs(5);

/// A server that accepts TCP and never says a word: the port, and the sockets it holds
/// open (dropped with the test).
fn mute_server() -> (u16, Arc<Mutex<Vec<TcpStream>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&held);
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            keep.lock().expect("sockets").push(s);
        }
    });
    (port, held)
}

/// A server that accepts TCP and never answers the login is given up within `--wait`,
/// as one out of reach: exit 1, one line that says so, and no password shown. The
/// driver's connect timeout had covered only the TCP connect: `cite --wait 2 list`
/// waited without bound.
#[test]
fn a_server_that_never_answers_the_login_is_given_up_within_the_wait() {
    let (port, _held) = mute_server();
    let dir = tempfile::tempdir().unwrap();
    let ledger = format!("postgres://cite:s3cret@127.0.0.1:{port}/ledger");
    for args in [
        &["--wait", "2", "list"][..],
        &["--wait", "2", "add", "https://a.example"],
    ] {
        let started = Instant::now();
        let out = cite_bin()
            .current_dir(dir.path())
            .arg("--ledger")
            .arg(&ledger)
            .args(args)
            .timeout(Duration::from_secs(60))
            .output()
            .expect("run cite");
        let o = Outcome::from_output(out, started.elapsed());
        assert_eq!(o.code, 1, "{args:?}: {o:?}");
        let line = o.stderr.trim_end();
        assert!(
            line.starts_with("error: cannot reach the PostgreSQL server"),
            "{line}"
        );
        assert!(line.contains("no answer to the login within 2 s"), "{line}");
        assert!(!line.contains('\n') && !line.contains("s3cret"), "{line}");
        let bound = Duration::from_secs(2) + MARGIN;
        assert!(
            o.took < bound,
            "{args:?} took {:?}, more than {bound:?}",
            o.took
        );
    }
}

/// `cite --wait 2 ARGS…` on `ledger` in `dir`, with a bound of its own on the run so that
/// a hang fails the test rather than holding it.
fn cite_waiting(dir: &std::path::Path, ledger: &str, args: &[&str]) -> Outcome {
    let started = Instant::now();
    let out = cite_bin()
        .current_dir(dir)
        .arg("--ledger")
        .arg(ledger)
        .args(["--wait", "2"])
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run cite");
    Outcome::from_output(out, started.elapsed())
}

/// Asserts that `o` ended within `--wait 2` and the margin, exit 1, with one line that
/// says `says` and never sends the user to `cite audit` for what a retry mends.
fn assert_bounded_failure(o: &Outcome, what: &str, says: &str) {
    let bound = Duration::from_secs(2) + MARGIN;
    assert!(
        o.took < bound,
        "{what} took {:?}, more than {bound:?}",
        o.took
    );
    assert_eq!(o.code, 1, "{what}: {o:?}");
    let line = o.stderr.trim_end();
    assert!(!line.contains('\n'), "{what}: {line}");
    assert!(line.contains(says), "{what}: {line}");
    assert!(!line.contains("cite audit"), "{what}: {line}");
    assert!(
        !line.contains("cite-ci"),
        "{what}: the password shows: {line}"
    );
}

/// A TCP forwarder to `upstream` that forwards both ways until the server has said
/// `ReadyForQuery` `after` times on a connection, then forwards nothing more on it, in
/// either direction, and keeps its sockets open: a network gone silent after the login
/// (after = 1) or in the middle of a session. Plain text only (sslmode=disable), where
/// the server's messages can be counted.
fn silent_proxy(upstream: u16, after: usize) -> (u16, Arc<Mutex<Vec<TcpStream>>>) {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&held);
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            let silent = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let (mut c_in, mut c_out) = (client.try_clone().unwrap(), client.try_clone().unwrap());
            let (mut s_in, mut s_out) = (server.try_clone().unwrap(), server.try_clone().unwrap());
            keep.lock().unwrap().extend([client, server]);
            let quiet = Arc::clone(&silent);
            // Client to server: raw bytes, until silent.
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = c_in.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if !quiet.load(std::sync::atomic::Ordering::SeqCst)
                        && s_out.write_all(&buf[..n]).is_err()
                    {
                        break;
                    }
                }
            });
            // Server to client: message by message (a type byte, a length that counts
            // itself), counting ReadyForQuery.
            std::thread::spawn(move || {
                let mut seen = 0;
                loop {
                    let mut head = [0u8; 5];
                    if s_in.read_exact(&mut head).is_err() {
                        break;
                    }
                    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
                    let mut body = vec![0u8; len.saturating_sub(4)];
                    if s_in.read_exact(&mut body).is_err() {
                        break;
                    }
                    if silent.load(std::sync::atomic::Ordering::SeqCst) {
                        continue;
                    }
                    if c_out.write_all(&head).is_err() || c_out.write_all(&body).is_err() {
                        break;
                    }
                    if head[0] == b'Z' {
                        seen += 1;
                        if seen >= after {
                            silent.store(true, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                }
            });
        }
    });
    (port, held)
}

/// The port of a `postgres://…@HOST:PORT/…` URL.
fn port_of(url: &str) -> u16 {
    url::Url::parse(url)
        .expect("a URL")
        .port()
        .expect("a port in the URL")
}

/// A fresh database with one source, and its URL in plain text (`sslmode=disable`), the
/// form [`silent_proxy`] can follow.
fn plain_ledger_with_one_source(dir: &std::path::Path) -> (crate::util::PgDb, String) {
    let db = crate::util::postgres_db();
    let plain = format!("{}?sslmode=disable", crate::util::plain_url(&db.url));
    let first = cite_waiting(dir, &plain, &["add", "https://a.example/"]);
    assert_eq!(first.code, 0, "{first:?}");
    (db, plain)
}

/// `plain` reached on `port` instead (a proxy's).
fn through(plain: &str, port: u16) -> String {
    let mut u = url::Url::parse(plain).expect("URL");
    u.set_port(Some(port)).expect("port");
    u.to_string()
}

/// The hook input of a WebFetch call (`tests/fixtures/hook/webfetch.json`).
fn webfetch_payload() -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hook/webfetch.json"),
    )
    .expect("fixture")
}

/// Issue 23, item 3: a connection that goes silent after the login, or in the middle of
/// a write, ends reads and writes within `--wait` plus a grace, as a lost connection
/// that a retry mends — not a hang (`cite --wait 3 add` had run on past 30 s), and not
/// a referral to `cite audit`. The statement's deadline is cite's own: the server's
/// timeouts cannot fire when it never hears the statement.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES)"]
fn a_connection_gone_silent_ends_reads_and_writes_within_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let (_db, plain) = plain_ledger_with_one_source(dir.path());
    let through = |port: u16| through(&plain, port);
    for args in [&["list"][..], &["add", "https://b.example/"], &["audit"]] {
        let (port, _held) = silent_proxy(port_of(&plain), 1);
        let o = cite_waiting(dir.path(), &through(port), args);
        assert_bounded_failure(&o, &format!("{args:?}"), "lost the PostgreSQL server");
        assert!(o.stderr.contains("no answer"), "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains("retry"), "{args:?}: {}", o.stderr);
    }
    // Later in a write: after the checks of the ledger, after the writer lock, inside
    // the transaction. What was cut off never half-happened.
    for after in 2..=6 {
        let (port, _held) = silent_proxy(port_of(&plain), after);
        let url = format!("https://c{after}.example/");
        let o = cite_waiting(dir.path(), &through(port), &["add", &url]);
        if o.code == 0 {
            continue; // the write needed fewer round trips than that
        }
        assert_bounded_failure(&o, &format!("add cut after {after}"), "PostgreSQL");
    }
    // A writer cut off inside its transaction holds the writer lock until the server
    // ends its session (idle_in_transaction_session_timeout, from --wait); the next
    // writer gets through once it has.
    let next = cite_bin()
        .current_dir(dir.path())
        .args([
            "--ledger",
            &plain,
            "--wait",
            "60",
            "add",
            "https://d.example/",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run cite");
    assert!(next.status.success(), "{next:?}");
    let audit = cite_waiting(dir.path(), &plain, &["audit"]);
    assert_eq!(audit.code, 0, "{audit:?}");
}

/// Sends SIGCONT to a stopped PostgreSQL backend when dropped, whatever the test did.
struct Resume(i32);

impl Drop for Resume {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

/// Issue 23, item 3: another session holding `LOCK TABLE cite_sources IN ACCESS
/// EXCLUSIVE MODE` open — running, or with its backend stopped (SIGSTOP: the kernel
/// still acknowledges, so no keepalive notices) — makes `list`, `add` and `audit` give
/// up within `--wait`, saying the ledger is busy with a lock; they had waited without
/// bound.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES)"]
fn a_table_lock_of_another_session_ends_reads_and_writes_within_the_wait() {
    let db = crate::util::postgres_db();
    let dir = tempfile::tempdir().unwrap();
    let first = cite_waiting(dir.path(), &db.url, &["add", "https://a.example/"]);
    assert_eq!(first.code, 0, "{first:?}");
    for stopped in [false, true] {
        let mut holder = db.connect();
        holder
            .batch_execute("BEGIN; LOCK TABLE cite_sources IN ACCESS EXCLUSIVE MODE")
            .expect("lock the table");
        let pid: i32 = holder
            .query_one("SELECT pg_backend_pid()", &[])
            .expect("backend pid")
            .get(0);
        let resume = stopped.then(|| {
            let ok = std::process::Command::new("kill")
                .args(["-STOP", &pid.to_string()])
                .status()
                .expect("kill")
                .success();
            assert!(ok, "SIGSTOP the backend {pid}");
            Resume(pid)
        });
        for args in [&["list"][..], &["add", "https://b.example/"], &["audit"]] {
            let o = cite_waiting(dir.path(), &db.url, args);
            assert_bounded_failure(&o, &format!("{args:?}, stopped: {stopped}"), "ledger busy");
        }
        drop(resume);
        holder.batch_execute("ROLLBACK").expect("unlock");
    }
    let after = cite_waiting(dir.path(), &db.url, &["add", "https://b.example/"]);
    assert_eq!(after.code, 0, "{after:?}");
}

/// Issue 23, item 3: `cite hook claude-code` with a PostgreSQL ledger whose server never
/// answers ends within its own 2 s wait, and does not fail the agent's tool call: exit
/// 0, one line on stderr, nothing on stdout.
#[test]
fn the_hook_gives_up_on_a_silent_server_within_its_wait() {
    let (port, _held) = mute_server();
    let dir = tempfile::tempdir().unwrap();
    let payload = webfetch_payload();
    let started = Instant::now();
    let out = cite_bin()
        .current_dir(dir.path())
        .arg("--ledger")
        .arg(format!("postgres://cite:s3cret@127.0.0.1:{port}/ledger"))
        .args(["hook", "claude-code"])
        .write_stdin(payload)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run cite hook");
    let o = Outcome::from_output(out, started.elapsed());
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stdout.is_empty(), "{o:?}");
    assert!(o.stderr.starts_with("cite hook: "), "{o:?}");
    assert!(!o.stderr.contains("s3cret"), "{o:?}");
    let bound = Duration::from_secs(2) + MARGIN;
    assert!(o.took < bound, "took {:?}, more than {bound:?}", o.took);
}

/// `cite hook claude-code` keeps its 2 s whatever the network does: a connection that
/// goes silent after the login, or mid-write, is given up when the hook's time is out,
/// not the wait plus the half-second grace a statement gets (2.5 s before). Exit 0, one
/// line on stderr that says the sources may not be registered, nothing on stdout.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES)"]
fn the_hook_keeps_its_two_seconds_on_a_connection_gone_silent() {
    let dir = tempfile::tempdir().unwrap();
    let (_db, plain) = plain_ledger_with_one_source(dir.path());
    let payload = webfetch_payload();
    for after in 1..=3 {
        let (port, _held) = silent_proxy(port_of(&plain), after);
        let started = Instant::now();
        let out = cite_bin()
            .current_dir(dir.path())
            .arg("--ledger")
            .arg(through(&plain, port))
            .args(["hook", "claude-code"])
            .write_stdin(payload.clone())
            .timeout(Duration::from_secs(60))
            .output()
            .expect("run cite hook");
        let o = Outcome::from_output(out, started.elapsed());
        assert_eq!(o.code, 0, "silent after {after}: {o:?}");
        assert!(o.stdout.is_empty(), "silent after {after}: {o:?}");
        assert!(
            o.stderr.starts_with("cite hook: "),
            "silent after {after}: {o:?}"
        );
        assert_eq!(o.stderr.lines().count(), 1, "silent after {after}: {o:?}");
        // The hook's own limit, and the time to start and end a process.
        let bound = Duration::from_millis(2400);
        assert!(o.took < bound, "silent after {after}: took {:?}", o.took);
    }
}
