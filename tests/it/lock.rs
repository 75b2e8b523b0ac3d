//! The sidecar lock (`LEDGER.lock`): bounded waits, writers one at a time, the turnstile
//! that lets maintenance in, what `ledger busy` names, and that a lock dies with its
//! holder.
//!
//! The holder is either this test process (`lock::acquire`) or, where the holder must be
//! another process that can be killed, a child running this same test binary with only
//! [`helper_hold_exclusive_lock`] selected.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use cite_store::StoreError;
use cite_store::lock::{self, LockMode};

use crate::util::{PATIENCE, SLACK, Sandbox, wait_until};

/// Runs `cite --ledger LEDGER ARGS…`; returns (exit code, stdout, stderr, time taken).
fn run(sb: &Sandbox, args: &[&str]) -> (i32, String, String, Duration) {
    let started = Instant::now();
    let out = sb.cite().args(args).output().expect("run cite");
    let took = started.elapsed();
    (
        out.status.code().expect("exit code, not a signal"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
        took,
    )
}

fn exclusive(ledger: &Path) -> lock::LedgerLock {
    lock::acquire(ledger, LockMode::Maintenance, Duration::from_secs(1)).expect("exclusive lock")
}

#[test]
fn exclusive_holder_makes_a_writer_give_up_naming_its_pid() {
    let sb = Sandbox::new();
    let held = exclusive(&sb.ledger);
    assert_eq!(held.mode(), LockMode::Maintenance);

    let (code, stdout, stderr, took) = run(&sb, &["--wait", "1", "add", "https://a.example"]);
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("ledger busy"), "stderr: {stderr}");
    let pid = format!("pid {}", std::process::id());
    assert!(stderr.contains(&pid), "stderr must name {pid}: {stderr}");
    assert!(
        took >= Duration::from_millis(950) && took < Duration::from_secs(1) + SLACK,
        "gave up after {took:?}, not after about the 1s it was told to wait"
    );
    // Nothing was created behind the lock.
    assert!(!sb.ledger.exists());

    // `--wait 0` tries once. The bound tells that apart from the default wait of 30 s; a
    // loaded machine cannot tell it from a wait of a second.
    let (code, _, stderr, took) = run(&sb, &["--wait", "0", "add", "https://a.example"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("ledger busy"), "stderr: {stderr}");
    assert!(took < SLACK, "--wait 0 took {took:?}");

    drop(held);
    assert_eq!(
        sb.ok(&["--wait", "1", "add", "https://a.example"]),
        "[1] https://a.example\n"
    );
}

#[test]
fn a_waiting_writer_proceeds_once_the_lock_is_released() {
    let sb = Sandbox::new();
    let held = exclusive(&sb.ledger);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(["--wait", "20", "add", "https://a.example"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cite");
    // A check that it is still waiting, not that something happened: the pause is the
    // time it has to go ahead or fail wrongly.
    thread::sleep(Duration::from_millis(500));
    assert!(
        child.try_wait().expect("poll child").is_none(),
        "the writer must wait for the exclusive holder, not fail or go ahead"
    );
    let released = Instant::now();
    drop(held);
    let out = child.wait_with_output().expect("wait for cite");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[1] https://a.example\n"
    );
    // It polls with a short backoff, so it proceeds promptly, not at the end of its wait.
    assert!(released.elapsed() < SLACK, "{:?}", released.elapsed());
}

#[test]
fn writers_take_turns_and_maintenance_waits_for_the_writer() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let writer = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    assert_eq!(writer.mode(), LockMode::Write);
    // Another writer waits for its turn, and gives up after its bound.
    let started = Instant::now();
    let err = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_millis(300))
        .expect_err("one writer at a time");
    assert!(started.elapsed() >= Duration::from_millis(290));
    assert!(matches!(err, StoreError::Busy { .. }), "{err:?}");
    assert!(err.to_string().starts_with("ledger busy: "), "{err}");
    // So does maintenance.
    lock::acquire(
        &sb.ledger,
        LockMode::Maintenance,
        Duration::from_millis(300),
    )
    .expect_err("the writer is still there");
    drop(writer);
    lock::acquire(
        &sb.ledger,
        LockMode::Maintenance,
        Duration::from_millis(300),
    )
    .expect("no holder left");
}

#[test]
fn a_waiting_maintenance_command_keeps_new_writers_out() {
    // The turnstile: while `rebuild` waits for the current writer, no new writer starts,
    // so a stream of short writers cannot keep it out for ever.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let writer = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    let rebuild = Command::new(assert_cmd::cargo::cargo_bin("cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(["--wait", "20", "rebuild"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rebuild");
    wait_until(PATIENCE, "rebuild to wait at the turnstile", || {
        let (_, _, stderr, _) = run(&sb, &["--wait", "0", "add", "https://b.example"]);
        stderr.contains("a maintenance command")
    });
    let (code, _, stderr, _) = run(&sb, &["--wait", "0.5", "add", "https://b.example"]);
    assert_eq!(
        code, 1,
        "a writer went ahead of the waiting rebuild: {stderr}"
    );
    assert!(stderr.contains("ledger busy"), "{stderr}");
    assert!(stderr.contains("a maintenance command"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
    drop(writer);
    let out = rebuild.wait_with_output().expect("rebuild");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        sb.ok(&["add", "https://b.example"]),
        "[2] https://b.example\n"
    );
}

#[test]
fn readers_are_not_blocked_by_the_exclusive_lock() {
    // Read commands open the redb file read-only and take no sidecar lock: redb gives
    // them a consistent snapshot, and maintenance changes the store in one write
    // transaction, so they see it before or after, never half-done. So `list` and `log`
    // answer at once while an exclusive holder is in place.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let _held = exclusive(&sb.ledger);
    let (code, stdout, stderr, took) = run(&sb, &["--wait", "10", "list"]);
    assert_eq!(code, 0, "stderr: {stderr}");
    assert_eq!(stdout, "[1] https://a.example\n");
    assert!(took < SLACK, "list waited {took:?}");
    let (code, _, stderr, _) = run(&sb, &["--wait", "1", "log"]);
    assert_eq!(code, 0, "stderr: {stderr}");
}

/// Where [`helper_hold_exclusive_lock`] finds the ledger to lock.
const HOLD_ENV: &str = "CITE_TEST_HOLD_EXCLUSIVE";
/// What it prints once it holds the lock.
const HELD: &str = "cite-test: exclusive lock held";

/// Not a test of its own: the lock holder that other tests run in a child process.
/// Without its environment variable (a plain `--ignored` run) it does nothing.
#[test]
#[ignore = "helper: run in a child process by the lock tests"]
fn helper_hold_exclusive_lock() {
    let Some(path) = std::env::var_os(HOLD_ENV) else {
        return;
    };
    let _held = lock::acquire(
        Path::new(&path),
        LockMode::Maintenance,
        Duration::from_secs(5),
    )
    .expect("helper takes the lock");
    println!("{HELD}");
    // Killed by the test long before this ends; the bound only stops a stray helper.
    thread::sleep(Duration::from_secs(60));
}

/// A child process holding the exclusive lock; killed when dropped.
struct Holder(Child);

impl Holder {
    fn spawn(ledger: &Path) -> Holder {
        let exe = std::env::current_exe().expect("test binary");
        let mut child = Command::new(exe)
            .args([
                "lock::helper_hold_exclusive_lock",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(HOLD_ENV, ledger)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lock holder");
        let stdout = child.stdout.take().expect("holder stdout");
        let holder = Holder(child);
        // The harness may print its own text around ours; EOF means the helper never
        // took the lock.
        let held = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains(HELD));
        assert!(held, "the helper process did not take the lock");
        holder
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    /// SIGKILL: the holder gets no chance to release anything.
    fn kill(mut self) {
        self.0.kill().expect("kill holder");
        self.0.wait().expect("reap holder");
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_killed_holder_leaves_no_stale_lock() {
    let sb = Sandbox::new();
    let holder = Holder::spawn(&sb.ledger);
    let pid = holder.pid();
    assert_ne!(pid, std::process::id());

    let (code, _, stderr, _) = run(&sb, &["--wait", "0.5", "add", "https://a.example"]);
    assert_eq!(code, 1, "stderr: {stderr}");
    assert!(stderr.contains("ledger busy"), "stderr: {stderr}");
    assert!(
        stderr.contains(&format!("pid {pid}")),
        "must name the holder {pid}: {stderr}"
    );

    holder.kill();
    let (code, stdout, stderr, took) = run(&sb, &["--wait", "10", "add", "https://a.example"]);
    assert_eq!(code, 0, "a dead holder still blocks: {stderr}");
    assert_eq!(stdout, "[1] https://a.example\n");
    assert!(took < SLACK, "waited {took:?} on a dead holder");
}

#[test]
fn busy_names_only_live_holders() {
    // The holder is whoever the kernel says holds the lock as the wait ends: never a
    // holder that died (its pid may even have been reused) or one that released.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let holder = Holder::spawn(&sb.ledger);
    let dead = holder.pid();
    holder.kill();
    drop(exclusive(&sb.ledger));

    let _writer = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    let err = lock::acquire(
        &sb.ledger,
        LockMode::Maintenance,
        Duration::from_millis(200),
    )
    .expect_err("the writer blocks maintenance");
    let StoreError::Busy { holders, .. } = &err else {
        panic!("expected busy, got {err:?}");
    };
    assert_eq!(holders, &[std::process::id()], "{err}");
    assert!(!err.to_string().contains(&format!("pid {dead}")), "{err}");
}

#[test]
fn a_writer_killed_mid_run_leaves_no_stale_lock_and_loses_no_printed_id() {
    // One `add` of many URLs is one transaction: killed at any moment it lands whole or
    // not at all, the next command repairs the store quickly and gets the lock at once,
    // and anything it printed (only after its commit) is on disk.
    const BATCH: usize = 400;
    let sb = Sandbox::new();
    let bin = assert_cmd::cargo::cargo_bin("cite");
    let mut expected: Vec<String> = Vec::new();
    for (round, delay_ms) in [0u64, 15, 40, 80, 150, 300].into_iter().enumerate() {
        let batch: Vec<String> = (0..BATCH)
            .map(|i| format!("https://kill{round}.example/{i}"))
            .collect();
        let mut child = Command::new(&bin)
            .arg("--ledger")
            .arg(&sb.ledger)
            .args(["--wait", "5", "add"])
            .args(&batch)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn cite add");
        // The moment of the kill: what the test varies, not something it waits for.
        thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let out = child.wait_with_output().expect("reap cite add");
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();

        // Read first: a store left mid-commit is repaired by whoever opens it next.
        let list = sb.ok(&["list", "--json"]);
        let rows: Vec<serde_json::Value> = serde_json::from_str(&list).expect("list --json");
        let urls: Vec<String> = rows
            .iter()
            .map(|r| r["url"].as_str().expect("url").to_string())
            .collect();
        let landed = urls.iter().filter(|u| batch.contains(u)).count();
        assert!(
            landed == 0 || landed == BATCH,
            "round {round}: {landed} of {BATCH} URLs of one add landed"
        );
        if landed == BATCH {
            expected.extend(batch.iter().cloned());
        }
        for line in printed.lines() {
            let (id, url) = line[1..].split_once("] ").expect("an `[ID] URL` line");
            let id: usize = id.parse().expect("id");
            assert_eq!(urls.get(id - 1), Some(&url.to_string()), "printed {line:?}");
        }

        let after = format!("https://after{round}.example");
        let (code, stdout, stderr, took) = run(&sb, &["--wait", "10", "add", &after]);
        assert_eq!(code, 0, "round {round} (kill after {delay_ms}ms): {stderr}");
        expected.push(after.clone());
        assert_eq!(stdout, format!("[{}] {after}\n", expected.len()));
        assert!(took < SLACK, "round {round}: took {took:?}");
    }
    let list = sb.ok(&["list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&list).expect("list --json");
    let urls: Vec<&str> = rows.iter().map(|r| r["url"].as_str().unwrap()).collect();
    assert_eq!(urls, expected);
    let ids: Vec<u64> = rows.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, (1..=expected.len() as u64).collect::<Vec<_>>());
}

#[test]
fn a_waiter_that_gave_up_never_keeps_the_lock() {
    // The wait is a helper thread blocked in flock; once its waiter has given up, a lock
    // it gets later is released at once, never held for nobody.
    let sb = Sandbox::new();
    let held = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    for _ in 0..3 {
        let err = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_millis(100))
            .expect_err("the lock is held");
        assert!(matches!(err, StoreError::Busy { .. }), "{err:?}");
    }
    drop(held);
    let started = Instant::now();
    let again = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(10))
        .expect("the abandoned waiters let go");
    assert!(started.elapsed() < SLACK, "{:?}", started.elapsed());
    drop(again);
    lock::acquire(&sb.ledger, LockMode::Maintenance, Duration::from_secs(2)).expect("free");
}

/// A process of another program holding a lock on the ledger file itself, `flock` or a
/// POSIX `lockf` (Python's `fcntl`, the calls util-linux's `flock` and any program make),
/// as any user who can read the file can take.
fn foreign_lock(ledger: &Path, kind: &str) -> Child {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import fcntl, sys, time\n\
             f = open(sys.argv[1], 'r')\n\
             if sys.argv[2] == 'flock':\n    fcntl.flock(f, fcntl.LOCK_EX)\n\
             else:\n    f = open(sys.argv[1], 'r+'); fcntl.lockf(f, fcntl.LOCK_EX)\n\
             print('held', flush=True)\n\
             time.sleep(60)",
        ])
        .arg(ledger)
        .arg(kind)
        .stdout(Stdio::piped())
        .spawn()
        .expect("run python3");
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "held\n", "{kind} did not take its lock");
    child
}

#[test]
fn a_foreign_lock_on_the_ledger_file_is_busy_not_damage() {
    // Issue 25: `flock -x l.redb sleep 10` made `add` fail at once with "unsupported or
    // damaged … restore it from a backup", and `audit` print FAIL.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    for kind in ["flock", "lockf"] {
        let mut holder = foreign_lock(&sb.ledger, kind);
        for args in [
            &["--wait", "1", "add", "https://b.example"][..],
            &["--wait", "1", "audit"][..],
        ] {
            let (code, stdout, stderr, took) = run(&sb, args);
            let what = format!("{kind}, {args:?}");
            assert_eq!((code, stdout.as_str()), (1, ""), "{what}: {stderr}");
            assert!(
                stderr.starts_with("error: ledger busy: "),
                "{what}: {stderr}"
            );
            let pid = format!("pid {}", holder.id());
            assert!(stderr.contains(&pid), "{what}: must name {pid}: {stderr}");
            for wrong in ["damaged", "backup", "FAIL"] {
                assert!(!stderr.contains(wrong), "{what}: {stderr}");
            }
            assert!(
                took >= Duration::from_millis(950),
                "{what}: gave up after {took:?}"
            );
        }
        holder.kill().unwrap();
        holder.wait().unwrap();
        assert_eq!(sb.ok(&["--wait", "5", "list"]), "[1] https://a.example\n");
    }
    assert_eq!(
        sb.ok(&["add", "https://b.example"]),
        "[2] https://b.example\n"
    );
}

/// The mode a lock file should have for a ledger of mode `ledger`: read and write for
/// each class that may write the ledger, nothing for the others.
fn lock_mode_for(ledger: u32) -> u32 {
    [0o200, 0o020, 0o002]
        .iter()
        .filter(|w| ledger & *w != 0)
        .map(|w| w | (w << 1))
        .fold(0o600, |m, rw| m | rw)
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn only_users_who_may_write_the_ledger_can_open_its_lock_file() {
    // Issue 25: the lock file was 0644 from the umask, so any user who could read the
    // folder could open it and hold `flock(LOCK_EX)` on it, keeping every writer out.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let lock = lock::lock_path(&sb.ledger);
    assert_eq!(mode(&lock), lock_mode_for(mode(&sb.ledger)), "made so");
    for (ledger, expected) in [(0o664, 0o660), (0o644, 0o600), (0o666, 0o666)] {
        chmod(&sb.ledger, ledger);
        chmod(&lock, 0o644); // as an earlier version made it
        sb.ok(&["add", "https://a.example"]);
        assert_eq!(mode(&lock), expected, "ledger {ledger:o}");
    }
    chmod(&sb.ledger, 0o644);
    sb.ok(&["add", "https://a.example"]);
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    if root {
        // Another user (nobody) cannot open it at all, so cannot lock it.
        use std::os::unix::process::CommandExt;
        let out = Command::new("python3")
            .args(["-c", "import sys; open(sys.argv[1], 'r')"])
            .arg(&lock)
            .uid(65534)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("PermissionError"), "{stderr}");

        // A writer of the ledger whose lock file is still an earlier version's 0644 is
        // told what to ask for, not let in through a read-only descriptor.
        chmod(sb.path(), 0o777);
        chmod(&sb.ledger, 0o666);
        chmod(&lock, 0o644);
        let out = Command::new(assert_cmd::cargo::cargo_bin("cite"))
            .arg("--ledger")
            .arg(&sb.ledger)
            .args(["--wait", "1", "add", "https://b.example"])
            .uid(65534)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(
            stderr,
            format!(
                "error: cannot write the lock file {} — every writer of a ledger must be \
                 able to write its lock file (or anyone who can read it could hold the \
                 lock): ask its owner to give you write access to the ledger, then the \
                 owner's next `cite` command opens the lock file to you too (for a group: \
                 `chmod g+w LEDGER`)\n",
                lock.display()
            )
        );
        chmod(sb.path(), 0o700);
    }
}
