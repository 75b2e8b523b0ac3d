//! Issue 8, store hardening: the store's promises tried as a hostile user would. Ids are
//! never handed out twice (not by wrapping, not from damaged views); the lock file is
//! never followed, truncated or written; a creation killed at any moment leaves no
//! half-made ledger; `--wait` bounds every wait, even behind a stopped process holding
//! redb's own locks; maintenance gets in while writers loop; `audit` fails every store a
//! write would fail on; and odd ledger paths get messages that point the right way.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use cite_store::Store;
use cite_store::event::{Event, MAX_ID, Origin};
use cite_store::lock::LockMode;
use cite_store::redbfile::tables::{META, SOURCES, URLS};
use redb::ReadableTable;

use crate::audit::{audit, audit_ok, tamper};
use crate::util::{Outcome, PATIENCE, Sandbox, signal, wait_until};

fn origin() -> Origin {
    Origin {
        at_ns: 0,
        pid: 1,
        actor: None,
        command: vec!["test".into()],
    }
}

fn added(id: u64, url: &str) -> Event {
    crate::util::source_added(1, id, url)
}

/// How many records the log holds.
fn records(ledger: &Path) -> usize {
    let store = Store::open_read(ledger, Duration::from_secs(5))
        .unwrap()
        .expect("a ledger");
    store.read().unwrap().records().unwrap().count()
}

fn assert_fails_with(out: &Outcome, code: i32, needle: &str) {
    assert_eq!(
        out.code, code,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    assert!(
        out.stderr.contains(needle),
        "expected {needle:?} in: {}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(!out.stderr.contains("internal error"), "{}", out.stderr);
}

// ---- 1. ids never wrap, and never repeat ------------------------------------------------

/// Issue 8.
#[test]
fn the_highest_id_is_a_bound_not_a_wrap() {
    let sb = Sandbox::new();
    let max = sb.file(
        "max.json",
        &format!(r#"{{"version":1,"sources":[{{"id":{MAX_ID},"url":"https://max.example"}}]}}"#),
    );
    sb.ok(&["import", max.to_str().unwrap()]);
    let out = sb.run(&["add", "https://a.example"]);
    assert_fails_with(&out, 1, &format!("every id up to {MAX_ID}"));
    assert!(out.stderr.contains("cite reset"), "{}", out.stderr);
    // A URL already registered still answers with its id.
    assert_eq!(
        sb.ok(&["add", "https://max.example"]),
        format!("[{MAX_ID}] https://max.example\n")
    );
    audit_ok(&sb.ledger);
    sb.ok(&["rebuild"]);
    sb.ok(&["reset"]);
    assert_eq!(
        sb.ok(&["add", "https://a.example"]),
        "[1] https://a.example\n"
    );
    audit_ok(&sb.ledger);
}

/// Issue 8.
#[test]
fn the_apply_path_refuses_an_id_or_url_that_exists() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    let before = records(&sb.ledger);
    let store = Store::open_write(&sb.ledger, LockMode::Write, Duration::from_secs(5)).unwrap();
    let wait = Duration::from_secs(5);
    for (event, what) in [
        (
            added(2, "https://new.example"),
            "[2] already exists in epoch 1",
        ),
        (
            added(3, "https://a.example"),
            "https://a.example is already [1]",
        ),
        (added(0, "https://zero.example"), "id 0 is out of range"),
        (added(MAX_ID + 1, "https://big.example"), "is out of range"),
        (added(u64::MAX, "https://wrap.example"), "is out of range"),
    ] {
        let err = store
            .write(&origin(), wait, |w| w.append(event.clone()).map(|_| ()))
            .expect_err("refused");
        assert!(err.to_string().contains(what), "{what}: {err}");
    }
    drop(store);
    assert_eq!(records(&sb.ledger), before, "a refused write left records");
    audit_ok(&sb.ledger);
}

// ---- 2. damaged views refuse writes; rebuild repairs them --------------------------------

/// A ledger with [1] a, [2] b, [3] c, damaged by `damage`; an `add` of each of `refused`
/// must refuse, naming `cite rebuild` and writing nothing; after `rebuild`, everything is
/// as before.
fn refuses_until_rebuilt(refused: &[&str], damage: impl FnOnce(&redb::WriteTransaction)) {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example",
        "https://b.example",
        "https://c.example",
    ]);
    let before = records(&sb.ledger);
    tamper(&sb.ledger, damage);
    for url in refused {
        let out = sb.run(&["add", url]);
        assert_fails_with(&out, 1, "run `cite rebuild`");
        assert!(out.stderr.contains("disagree"), "{}", out.stderr);
    }
    assert_eq!(
        records(&sb.ledger),
        before,
        "a refused add wrote to the log"
    );
    assert_eq!(
        sb.ok(&["rebuild"]),
        "rebuilt 3 records: 1 epoch, 3 sources, 0 quotes\n"
    );
    audit_ok(&sb.ledger);
    assert_eq!(
        sb.ok(&[
            "add",
            "https://c.example",
            "https://d.example",
            "https://b.example"
        ]),
        "[3] https://c.example\n[4] https://d.example\n[2] https://b.example\n"
    );
    audit_ok(&sb.ledger);
}

/// An add of a registered URL, of the last one, and of a new one.
const EVERY_ADD: &[&str] = &[
    "https://b.example",
    "https://c.example",
    "https://d.example",
];

/// Issue 8.
#[test]
fn a_missing_last_source_row_does_not_give_its_id_again() {
    refuses_until_rebuilt(EVERY_ADD, |txn| {
        txn.open_table(SOURCES).unwrap().remove((1, 3)).unwrap();
    });
}

/// Issue 8.
#[test]
fn a_missing_middle_source_row_is_noticed() {
    refuses_until_rebuilt(EVERY_ADD, |txn| {
        txn.open_table(SOURCES).unwrap().remove((1, 2)).unwrap();
    });
}

/// Issue 8.
#[test]
fn a_missing_url_index_entry_does_not_register_the_url_again() {
    refuses_until_rebuilt(EVERY_ADD, |txn| {
        txn.open_table(URLS)
            .unwrap()
            .remove((1, "https://b.example"))
            .unwrap();
    });
}

/// Issue 8.
#[test]
fn a_wrong_current_epoch_is_noticed() {
    refuses_until_rebuilt(EVERY_ADD, |txn| {
        txn.open_table(META)
            .unwrap()
            .insert("epoch", 7u64.to_le_bytes().as_slice())
            .unwrap();
    });
}

/// Issue 8.
#[test]
fn a_url_index_entry_pointing_elsewhere_is_noticed() {
    // Only a lookup that goes through the wrong entry can see it (the counts agree), and
    // that lookup must not hand out [3] for b.
    refuses_until_rebuilt(&["https://b.example"], |txn| {
        txn.open_table(URLS)
            .unwrap()
            .insert((1, "https://b.example"), 3)
            .unwrap();
    });
}

/// Issue 8.
#[test]
fn a_damaged_tally_is_noticed() {
    refuses_until_rebuilt(EVERY_ADD, |txn| {
        let mut meta = txn.open_table(META).unwrap();
        let mut tally = meta.get("tally").unwrap().unwrap().value().to_vec();
        tally[16] = 2; // the highest id: [2], not [3]
        meta.insert("tally", tally.as_slice()).unwrap();
    });
}

/// Issue 8.
#[test]
fn no_record_is_chained_onto_a_damaged_head() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    let before = records(&sb.ledger);
    tamper(&sb.ledger, |txn| {
        let mut meta = txn.open_table(META).unwrap();
        let mut head = meta.get("head").unwrap().unwrap().value().to_vec();
        head[20] ^= 1;
        meta.insert("head", head.as_slice()).unwrap();
    });
    let out = sb.run(&["add", "https://c.example"]);
    assert_fails_with(&out, 1, "the stored head of the log is corrupted");
    assert!(out.stderr.contains("run `cite audit`"), "{}", out.stderr);
    assert_eq!(records(&sb.ledger), before);
}

// ---- 3. the lock file is never followed, truncated or written ----------------------------

fn lock_path(ledger: &Path) -> PathBuf {
    let mut s = ledger.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Issue 8.
#[test]
fn a_symlinked_lock_file_is_refused_and_its_target_kept() {
    let sb = Sandbox::new();
    let precious = sb.file("precious.txt", "keep me\n");
    std::os::unix::fs::symlink(&precious, lock_path(&sb.ledger)).unwrap();
    let input = sb.file("in.json", r#"[{"url":"https://i.example"}]"#);
    for args in [
        &["add", "https://a.example"][..],
        &["reset"],
        &["ingest", input.to_str().unwrap()],
    ] {
        let out = sb.run(args);
        assert_fails_with(&out, 1, "symbolic link");
        assert!(out.stderr.contains(".lock"), "{}", out.stderr);
    }
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me\n");
    assert!(!sb.ledger.exists());
}

/// Issue 8.
#[test]
fn a_lock_file_that_is_not_a_regular_file_is_refused() {
    let sb = Sandbox::new();
    let lock = lock_path(&sb.ledger);
    let status = Command::new("mkfifo").arg(&lock).status().unwrap();
    assert!(status.success());
    let out = sb.run(&["--wait", "1", "add", "https://a.example"]);
    assert_fails_with(&out, 1, "not a regular file");
    assert!(out.took < Duration::from_secs(5), "took {:?}", out.took);
    std::fs::remove_file(&lock).unwrap();
    std::fs::create_dir(&lock).unwrap();
    let out = sb.run(&["add", "https://a.example"]);
    assert_fails_with(&out, 1, "not a regular file");
}

/// Issue 8.
#[test]
fn the_lock_file_is_never_written() {
    // A hard link is a regular file: locking it is harmless as long as nothing is
    // written into it, whichever command runs.
    let sb = Sandbox::new();
    let precious = sb.file("precious.txt", "keep me\n");
    std::fs::hard_link(&precious, lock_path(&sb.ledger)).unwrap();
    sb.ok(&["add", "https://a.example"]);
    sb.ok(&["add", "https://b.example"]);
    sb.ok(&["rebuild"]);
    sb.ok(&["reset"]);
    audit_ok(&sb.ledger);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me\n");
}

/// Issue 8.
#[test]
fn every_spelling_of_a_ledger_meets_at_one_lock() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let link = sb.path().join("link.redb");
    std::os::unix::fs::symlink(&sb.ledger, &link).unwrap();
    let held =
        cite_store::lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    let out = sb.run_at(&link, &["--wait", "0.3", "add", "https://b.example"]);
    assert_fails_with(&out, 1, "ledger busy");
    drop(held);
    assert_eq!(
        sb.cite_at(&link)
            .args(["add", "https://b.example"])
            .output()
            .unwrap()
            .stdout,
        b"[2] https://b.example\n"
    );
    // `audit` checks a copy it leaves nowhere.
    audit_ok(&link);
    let mut names: Vec<String> = std::fs::read_dir(sb.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["ledger.redb", "ledger.redb.lock", "link.redb"]);
}

// ---- 4. a creation killed at any moment leaves no half-made ledger -----------------------

/// Issue 8.
#[test]
fn kills_during_creation_never_brick_the_ledger() {
    let sb = Sandbox::new();
    let bin = assert_cmd::cargo::cargo_bin("cite");
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut landed = 0;
    for round in 0..200 {
        let ledger = sb.path().join(format!("l{round}/ledger.redb"));
        let mut child = Command::new(&bin)
            .arg("--ledger")
            .arg(&ledger)
            .args(["add", "https://a.example"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // xorshift: a spread of kill moments over the first 8 ms.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        thread::sleep(Duration::from_micros(seed % 8000));
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        let cite = |args: &[&str]| sb.run_at(&ledger, args);
        let list = cite(&["list"]);
        assert_eq!(list.code, 0, "round {round}: list: {}", list.stderr);
        if printed == "[1] https://a.example\n" {
            assert_eq!(list.stdout, "[1] https://a.example\n", "round {round}");
        }
        if list.stdout.starts_with("[1]") {
            landed += 1;
        }
        let add = cite(&["add", "https://a.example", "https://b.example"]);
        assert_eq!(
            add.stdout, "[1] https://a.example\n[2] https://b.example\n",
            "round {round}: {}",
            add.stderr
        );
        let (code, stdout, stderr) = audit(&ledger);
        assert_eq!(code, 0, "round {round}: {stdout}{stderr}");
        // Nothing is left beside the ledger but its lock file.
        let mut names: Vec<String> = std::fs::read_dir(ledger.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["ledger.redb", "ledger.redb.lock"], "round {round}");
    }
    eprintln!("creation kills: the first add landed in {landed} of 200 rounds");
}

// ---- 5. --wait bounds every wait ---------------------------------------------------------

fn spawn_big_ingest(sb: &Sandbox, n: usize) -> Child {
    crate::crash::spawn_ingest(sb, &crate::crash::big_ingest_input(sb, n))
}

/// A waiter gives up within its wait (plus the time to start a process), with `ledger
/// busy`, or answers.
fn bounded(out: &Outcome, wait: Duration, what: &str) {
    assert!(
        out.took < wait + Duration::from_secs(3),
        "{what} waited {:?}: {}",
        out.took,
        out.stderr
    );
    if out.code != 0 {
        assert_fails_with(out, 1, "ledger busy");
    }
}

/// Issue 8.
#[test]
fn a_stopped_writer_never_makes_others_wait_past_their_bound() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://first.example"]);
    let mut stopped = 0;
    for (round, delay_ms) in [0u64, 30, 120, 400].into_iter().enumerate() {
        let before = std::fs::metadata(&sb.ledger).unwrap().len();
        let mut child = spawn_big_ingest(&sb, 60_000);
        // Stop it once its transaction writes pages, at different moments of it.
        let started = Instant::now();
        while std::fs::metadata(&sb.ledger).unwrap().len() == before
            && child.try_wait().unwrap().is_none()
            && started.elapsed() < Duration::from_secs(20)
        {
            thread::sleep(Duration::from_millis(1));
        }
        // The moment of the stop: what the test varies, not something it waits for.
        thread::sleep(Duration::from_millis(delay_ms));
        if !signal(&mut child, "-STOP") {
            continue;
        }
        stopped += 1;
        let wait = Duration::from_secs(1);
        let add = sb.run(&["--wait", "1", "add", &format!("https://x{round}.example")]);
        bounded(&add, wait, "add");
        if child.try_wait().unwrap().is_none() && add.code != 0 {
            assert!(
                add.stderr.contains(&format!("pid {}", child.id()))
                    || add.stderr.contains("stopped"),
                "{}",
                add.stderr
            );
        }
        for args in [
            &["--wait", "1", "list"][..],
            &["--wait", "1", "show", "1"],
            &["--wait", "1", "audit"],
        ] {
            let out = sb.run(args);
            bounded(&out, wait, &format!("{args:?}"));
        }
        signal(&mut child, "-CONT");
        let _ = child.kill();
        let _ = child.wait();
    }
    assert!(
        stopped >= 2,
        "caught the ingest in only {stopped} of 4 rounds"
    );
    audit_ok(&sb.ledger);
}

/// Issue 8.
#[test]
fn a_process_holding_redbs_writer_lock_is_waited_for_no_longer_than_told() {
    // Not a cite process: it never takes the sidecar lock, so only the bound on redb's own
    // locks can stop the wait.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.open(&sb.ledger).unwrap();
    let txn = db.begin_write().unwrap();
    let wait = Duration::from_secs(1);
    let out = sb.run(&["--wait", "1", "add", "https://b.example"]);
    bounded(&out, wait, "add");
    assert_fails_with(&out, 1, "ledger busy");
    assert!(out.took >= Duration::from_millis(900), "{:?}", out.took);
    let out = sb.run(&["--wait", "1", "list"]);
    bounded(&out, wait, "list");
    drop(txn);
    drop(db);
    assert_eq!(
        sb.ok(&["add", "https://b.example"]),
        "[2] https://b.example\n"
    );
}

// ---- 6. maintenance is not starved -------------------------------------------------------

/// Issue 8.
#[test]
fn maintenance_gets_in_while_writers_loop() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://seed.example"]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let adds = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let ledger = sb.ledger.clone();
            let (stop, adds) = (stop.clone(), adds.clone());
            thread::spawn(move || {
                let bin = assert_cmd::cargo::cargo_bin("cite");
                let mut n = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let out = Command::new(&bin)
                        .arg("--ledger")
                        .arg(&ledger)
                        .args(["add", &format!("https://w{w}.example/{n}")])
                        .output()
                        .unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    n += 1;
                    adds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                n
            })
        })
        .collect();
    wait_until(PATIENCE, "the writers to be adding", || {
        adds.load(std::sync::atomic::Ordering::Relaxed) >= 8
    });
    for _ in 0..3 {
        let out = sb.run(&["--wait", "10", "rebuild"]);
        assert_eq!(out.code, 0, "rebuild under load: {}", out.stderr);
        assert!(out.stdout.starts_with("rebuilt "), "{}", out.stdout);
        let out = sb.run(&["--wait", "10", "audit"]);
        assert_eq!(
            out.code, 0,
            "audit under load: {}{}",
            out.stdout, out.stderr
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let added: usize = writers.into_iter().map(|w| w.join().unwrap()).sum();
    assert!(added > 0);
    let list = sb.ok(&["list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&list).unwrap();
    assert_eq!(rows.len(), added + 1);
    audit_ok(&sb.ledger);
}

/// Issue 8.
#[test]
fn busy_never_claims_one_holder_held_it_throughout() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let held =
        cite_store::lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    let out = sb.run(&["--wait", "0.3", "rebuild"]);
    assert_fails_with(&out, 1, "ledger busy");
    assert!(
        !out.stderr.contains("held it for more than"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("gave up after 0.3 s"), "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("pid {}", std::process::id())),
        "{}",
        out.stderr
    );
    drop(held);
}

// ---- 7. audit fails every store a write would fail on ------------------------------------

fn damaged_copy(sb: &Sandbox, name: &str, damage: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(&sb.ledger).unwrap();
    damage(&mut bytes);
    let path = sb.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn small_varied(sb: &Sandbox) {
    crate::audit::varied(sb);
    let urls: Vec<String> = (0..300)
        .map(|i| format!("https://v{i}.example/p"))
        .collect();
    let mut args = vec!["add"];
    args.extend(urls.iter().map(String::as_str));
    sb.ok(&args);
}

/// Audit must fail on `path` when an add on a copy of it fails; it never panics.
fn audit_agrees_with_a_write(sb: &Sandbox, path: &Path, what: &str) -> bool {
    let (code, stdout, stderr) = audit(path);
    assert!(!stderr.contains("unwrap"), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    let copy = sb.path().join("write-probe.redb");
    std::fs::copy(path, &copy).unwrap();
    let _ = std::fs::remove_file(lock_path(&copy));
    let out = sb
        .cite_at(&copy)
        .args(["--wait", "2", "add", "https://probe.example/new"])
        .output()
        .unwrap();
    let write_failed = !out.status.success();
    if write_failed {
        assert_eq!(
            code,
            1,
            "{what}: audit passed but add failed with {}\n{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    code == 1
}

/// Issue 8.
#[test]
fn audit_checks_the_file_structure() {
    let sb = Sandbox::new();
    small_varied(&sb);
    // Whether the page at 4096 is live depends on where redb's last commits put things;
    // either way audit must not pass a store that a write fails on.
    let zeroed = damaged_copy(&sb, "zeroed.redb", |b| b[4096..8192].fill(0));
    audit_agrees_with_a_write(&sb, &zeroed, "zeroed 4096..8192");
    let cut = damaged_copy(&sb, "cut.redb", |b| {
        let n = b.len();
        b.truncate(n - 4096)
    });
    assert!(audit_agrees_with_a_write(&sb, &cut, "last 4 KiB cut"));
    let (_, _, stderr) = audit(&cut);
    assert!(stderr.contains("file"), "{stderr}");
}

/// One way to damage a copy of a ledger file.
type Damage = Box<dyn Fn(&mut Vec<u8>)>;

/// Issue 8.
#[test]
fn audit_fails_wherever_a_write_would_fail() {
    let sb = Sandbox::new();
    small_varied(&sb);
    let n = std::fs::metadata(&sb.ledger).unwrap().len() as usize;
    let mut cases: Vec<(String, Damage)> = Vec::new();
    for at in (0..n)
        .step_by(n / 60)
        .chain([1, 9, 64, 512, 4096 + 8, 8192 + 16])
    {
        cases.push((
            format!("byte {at} flipped"),
            Box::new(move |b| b[at] ^= 0x41),
        ));
    }
    for page in (0..n / 4096).step_by(3) {
        cases.push((
            format!("page {page} zeroed"),
            Box::new(move |b| b[page * 4096..(page + 1) * 4096].fill(0)),
        ));
    }
    for cut in [512, 4096, 3 * 4096] {
        cases.push((
            format!("last {cut} bytes cut"),
            Box::new(move |b| b.truncate(b.len() - cut)),
        ));
    }
    let mut caught = 0;
    for (what, damage) in &cases {
        let path = damaged_copy(&sb, "damaged.redb", |b| damage(b));
        let _ = std::fs::remove_file(lock_path(&path));
        if audit_agrees_with_a_write(&sb, &path, what) {
            caught += 1;
        }
    }
    eprintln!("audit failed {caught} of {} damaged copies", cases.len());
}

// ---- 10. messages that point the right way -----------------------------------------------

/// Issue 8.
#[test]
fn a_fifo_or_device_as_the_ledger_is_named_as_such() {
    let sb = Sandbox::new();
    let fifo = sb.path().join("fifo.redb");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (path, kind) in [
        (fifo.as_path(), "a FIFO"),
        (Path::new("/dev/null"), "a character device"),
    ] {
        for args in [
            &["--wait", "1", "add", "https://a.example"][..],
            &["--wait", "1", "list"],
            &["--wait", "1", "audit"],
        ] {
            let out = sb.run_at(path, args);
            assert!(
                out.took < Duration::from_secs(5),
                "{args:?} on {kind}: {:?}",
                out.took
            );
            assert_eq!(
                out.code, 1,
                "{args:?} on {kind}: {}{}",
                out.stdout, out.stderr
            );
            assert!(
                out.stderr
                    .contains(&format!("is not a regular file ({kind})")),
                "{}",
                out.stderr
            );
            assert!(!out.stderr.contains("damaged"), "{}", out.stderr);
            assert!(!out.stderr.contains("backup"), "{}", out.stderr);
        }
    }
    assert!(!Path::new("/dev/null.lock").exists());
}

/// Issue 8.
#[test]
fn a_folder_as_the_ledger_is_named_as_such() {
    let sb = Sandbox::new();
    let existing = sb.path().join("dir");
    std::fs::create_dir(&existing).unwrap();
    let missing = format!("{}/", sb.path().join("nodir").display());
    let existing_slash = format!("{}/", existing.display());
    for path in [
        missing.as_str(),
        existing_slash.as_str(),
        existing.to_str().unwrap(),
    ] {
        for args in [&["add", "https://a.example"][..], &["list"]] {
            let out = sb.run_at(Path::new(path), args);
            assert_fails_with(&out, 2, "is a folder");
            assert!(out.stderr.contains("ledger.redb"), "{}", out.stderr);
            assert!(!out.stderr.contains(".lock"), "{}", out.stderr);
        }
    }
    assert!(!sb.path().join("nodir").exists());
}

/// Issue 8.
#[test]
fn a_read_only_ledger_says_so() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let ro = sb.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let ledger = ro.join("ledger.redb");
    std::fs::copy(&sb.ledger, &ledger).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ledger, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(sb.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let as_user = |args: &[&str]| -> Outcome {
        let started = Instant::now();
        let out = crate::util::cite_unprivileged()
            .arg("--ledger")
            .arg(&ledger)
            .args(args)
            .output()
            .unwrap();
        Outcome::from_output(out, started.elapsed())
    };
    let out = as_user(&["list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "[1] https://a.example\n");
    let out = as_user(&["audit"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let out = as_user(&["add", "https://b.example"]);
    assert_fails_with(&out, 1, "read-only");
    assert!(!out.stderr.contains("damaged"), "{}", out.stderr);
    assert!(!out.stderr.contains("backup"), "{}", out.stderr);
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}
