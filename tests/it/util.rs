#![allow(dead_code)]
//! Shared test helpers: each test gets its own temp dir, ledger path and `cite` command.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use tempfile::TempDir;

/// A fresh folder with a ledger path in it (the ledger file is not created).
pub struct Sandbox {
    pub dir: TempDir,
    pub ledger: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = dir.path().join("ledger.redb");
        Sandbox { dir, ledger }
    }

    /// `cite --ledger LEDGER`, with a clean environment for the variables cite reads.
    pub fn cite(&self) -> Command {
        let mut cmd = cite_bin();
        cmd.arg("--ledger").arg(&self.ledger);
        cmd
    }

    /// `cite --ledger PATH` for another ledger path.
    pub fn cite_at(&self, ledger: &Path) -> Command {
        let mut cmd = cite_bin();
        cmd.arg("--ledger").arg(ledger);
        cmd
    }

    /// Runs `cite --ledger LEDGER ARGS…` and returns what happened, whatever the exit.
    pub fn run(&self, args: &[&str]) -> Outcome {
        self.run_at(&self.ledger, args)
    }

    /// Runs `cite --ledger PATH ARGS…` and returns what happened, whatever the exit.
    pub fn run_at(&self, ledger: &Path, args: &[&str]) -> Outcome {
        let started = Instant::now();
        let out = self
            .cite_at(ledger)
            .args(args)
            .timeout(Duration::from_secs(60))
            .output()
            .expect("run cite");
        Outcome::from_output(out, started.elapsed())
    }

    /// Writes `text` to `name` inside the sandbox and returns its path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).expect("write fixture");
        p
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `cite --ledger LEDGER ARGS…`, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cite().args(args).output().expect("run cite");
        assert!(
            out.status.success(),
            "cite {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }
}

/// The `cite` binary with `CITE_LEDGER`, `HERMES_CITATION_LEDGER`, `CITE_ACTOR` and
/// `XDG_DATA_HOME` removed.
pub fn cite_bin() -> Command {
    let mut cmd = Command::cargo_bin("cite").expect("cite binary");
    cmd.env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER")
        .env_remove("CITE_ACTOR")
        .env_remove("XDG_DATA_HOME")
        .env("NO_COLOR", "1");
    cmd
}

/// What one run of `cite` did.
#[derive(Debug)]
pub struct Outcome {
    /// The exit code; -1 when a signal ended it.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

impl Outcome {
    pub fn from_output(out: std::process::Output, took: Duration) -> Outcome {
        Outcome {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            took,
        }
    }
}

/// A `SourceAdded` event of `url` as `[id]` in `epoch`, for stores written directly.
pub fn source_added(epoch: u64, id: u64, url: &str) -> cite_store::event::Event {
    use cite_store::event::{Epoch, Event, SourceAdded, SourceId};
    Event::SourceAdded(SourceAdded {
        epoch: Epoch(epoch),
        id: SourceId(id),
        url_given: url.into(),
        url: url.into(),
        title: String::new(),
        accessed: "2024-01-01".into(),
        via: None,
    })
}

/// How long a test waits for something that must happen before it fails: far longer than
/// it takes on a loaded 2-core machine, so that only a hang fails the test.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// What a timing check allows for starting a process and opening a ledger on a loaded
/// machine. A command told to `--wait N` must give up after at least N and within
/// N + SLACK; one that must not wait at all is told to wait longer than SLACK (so that a
/// wait shows) and must answer within it.
pub const SLACK: Duration = Duration::from_secs(5);

/// Polls `condition` until it holds; fails the test, naming `what`, once `deadline` has
/// passed. For waits on something that must happen, in place of a sleep of a guessed
/// length followed by an assertion.
pub fn wait_until(deadline: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < deadline,
            "waited {deadline:?} for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether the tests run as root (uid 0), read from /proc.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        .unwrap_or(false)
}

/// The `cite` binary run as an unprivileged user: as `nobody` (through `setpriv`) when
/// the tests run as root, for whom every file is writable; as this user otherwise.
pub fn cite_unprivileged() -> std::process::Command {
    let bin = assert_cmd::cargo::cargo_bin("cite");
    let mut cmd = if is_root() {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin);
        c
    } else {
        std::process::Command::new(bin)
    };
    cmd.env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER");
    cmd
}

/// Sends `sig` (as `kill` spells it: `-STOP`) to `child`; false when it has already
/// exited.
pub fn signal(child: &mut std::process::Child, sig: &str) -> bool {
    if child.try_wait().unwrap().is_some() {
        return false;
    }
    std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success()
}

/// Fails a test whose outside tool is missing; `what` says which, and how to install it.
/// Such tests are `#[ignore]`d, so they run only when asked for (`cargo test --
/// --ignored`, as CI does): there a missing tool is a broken setup, and a pass would
/// hide that nothing was tested.
pub fn missing_tool(what: &str) -> ! {
    panic!("{what} (CONTRIBUTING.md: tests that drive real tools)")
}

/// Whether `program args…` runs and exits 0.
pub fn runs(program: &str, args: &[&str]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A database of its own on the test PostgreSQL server, empty when made; dropped when
/// the test ends (kept, and its URL printed, when the test failed).
pub struct PgDb {
    /// `postgres://cite:cite-ci@127.0.0.1:PORT/cite_t_PID_N`: the ledger location.
    pub url: String,
    /// The server's URL as `$CITE_TEST_POSTGRES` gives it (its `postgres` database).
    pub base: String,
    pub name: String,
}

impl PgDb {
    /// A connection to this database, for tests that look inside it.
    pub fn connect(&self) -> postgres::Client {
        postgres::Client::connect(&plain_url(&self.url), postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to {}: {e}", self.url))
    }

    /// Every table in this database outside PostgreSQL's own schemas, as
    /// `schema.table`.
    pub fn tables(&self) -> Vec<String> {
        self.connect()
            .query(
                "SELECT table_schema || '.' || table_name FROM information_schema.tables \
                 WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
                &[],
            )
            .expect("list tables")
            .iter()
            .map(|r| r.get(0))
            .collect()
    }

    /// Asserts that the ledger is in this database: it has tables, and `dir` (where cite
    /// ran) holds no file that a binary without the backend makes of the URL.
    pub fn assert_holds_the_ledger(&self, dir: &Path) {
        assert!(
            !self.tables().is_empty(),
            "{} has no tables: the ledger is not in the database",
            self.url
        );
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let name = entry.expect("dir entry").file_name();
            assert!(
                !name.to_string_lossy().starts_with("postgres"),
                "cite wrote {name:?} in {}: it took the URL for a file path",
                dir.display()
            );
        }
    }

    /// This database's URL with another password (for the refused-login test).
    pub fn url_with_password(&self, password: &str) -> String {
        let mut u = url::Url::parse(&self.url).expect("database URL");
        u.set_password(Some(password)).expect("set password");
        u.to_string()
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("note: kept the database of the failed test: {}", self.url);
            return;
        }
        // Best effort: a server gone by now leaves nothing to clean.
        if let Ok(mut c) = postgres::Client::connect(&plain_url(&self.base), postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// `url` without what the tests' own plain-text connections cannot take: the TLS
/// parameters that cite reads (`sslmode`, `sslrootcert`, `channel_binding`), so that the
/// tests can look inside a server that `$CITE_TEST_POSTGRES` names with TLS.
pub fn plain_url(url: &str) -> String {
    let mut u = url::Url::parse(url).expect("a PostgreSQL URL");
    let kept: Vec<(String, String)> = u
        .query_pairs()
        .filter(|(k, _)| !matches!(k.as_ref(), "sslmode" | "sslrootcert" | "channel_binding"))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    u.set_query(None);
    if !kept.is_empty() {
        u.query_pairs_mut().extend_pairs(kept);
    }
    u.to_string()
}

/// The test PostgreSQL server's URL from `$CITE_TEST_POSTGRES` (`.ci/postgres start`
/// prints it); the test fails when it is unset.
pub fn postgres_server() -> String {
    match std::env::var("CITE_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => url,
        _ => missing_tool(
            "no PostgreSQL server: start one with `.ci/postgres start DIR` and export \
             CITE_TEST_POSTGRES=$(cat DIR/url)",
        ),
    }
}

/// A fresh, empty database on the test server (`cite_t_PID_N`; see
/// [`postgres_server`]).
pub fn postgres_db() -> PgDb {
    postgres_db_at(postgres_server())
}

/// A fresh, empty database on the server of `base` (a URL of its `postgres` database),
/// its URL keeping the parameters of `base` (`sslmode`, …).
pub fn postgres_db_at(base: String) -> PgDb {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let name = format!(
        "cite_t_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut c = postgres::Client::connect(&plain_url(&base), postgres::NoTls).unwrap_or_else(|e| {
        panic!("CITE_TEST_POSTGRES={base} is set but the server refuses a connection: {e}")
    });
    // One statement a call: CREATE DATABASE refuses to run in a transaction block. The
    // drop clears a database left by an earlier run whose pid this process now has.
    for sql in [
        format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
        format!("CREATE DATABASE \"{name}\""),
    ] {
        c.batch_execute(&sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let mut u = url::Url::parse(&base).expect("CITE_TEST_POSTGRES is a URL");
    u.set_path(&format!("/{name}"));
    PgDb {
        url: u.to_string(),
        base,
        name,
    }
}

/// Runs `program args` in `dir`; on failure, panics with the tail of its output.
pub fn run_tool(dir: &Path, program: &str, args: &[&str]) {
    let out = std::process::Command::new(program)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout);
        let tail: String = text
            .chars()
            .rev()
            .take(3000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        panic!(
            "{program} {args:?} failed ({}):\n{tail}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A ledger of `n` sources `https://sN.example/p` titled `Title N`.
pub fn titled_ledger(n: u64) -> Sandbox {
    let sb = Sandbox::new();
    for i in 1..=n {
        sb.ok(&[
            "add",
            &format!("https://s{i}.example/p"),
            "--title",
            &format!("Title {i}"),
        ]);
    }
    sb
}
