//! `cite mcp` keeps the store open and commits the adds that arrive together in one
//! durable transaction (issue 11): calls in flight at once share commits; CLI writers and
//! maintenance still get in while the server is busy; a ledger moved into place under a
//! running server takes its next writes.

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::Server;
use crate::util::{PATIENCE, SLACK, Sandbox, signal, wait_until};

const TIMEOUT: Duration = Duration::from_secs(60);

/// `cite mcp`, initialized.
pub(crate) fn start(ledger: &Path) -> Server {
    let mut mcp = Server::start(ledger);
    mcp.initialize();
    mcp
}

/// Sends the `n`th add (request ids from 1000, clear of the server helper's own).
pub(crate) fn send_add(mcp: &mut Server, n: u64, url: &str) {
    mcp.send(
        &json!({"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/call",
        "params": {"name": "add", "arguments": {"urls": [url]}}}),
    );
}

/// The next answer to an add: (source id, url).
pub(crate) fn added(mcp: &Server) -> (u64, String) {
    let reply = mcp
        .lines
        .recv_timeout(TIMEOUT)
        .expect("a reply within the timeout")
        .expect("stdout is JSON-RPC");
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{reply}");
    let source = &result["structuredContent"]["sources"][0];
    (
        source["id"].as_u64().unwrap(),
        source["url"].as_str().unwrap().to_string(),
    )
}

/// Keeps `inflight` adds for `tag` in flight while `more(n)` says to send the `n`th;
/// returns (id, url) per answer.
pub(crate) fn pump(
    mcp: &mut Server,
    tag: &str,
    inflight: u64,
    more: impl Fn(u64) -> bool,
) -> Vec<(u64, String)> {
    let mut answered = Vec::new();
    let (mut sent, mut next) = (0u64, 1u64);
    while sent < inflight && more(next) {
        send_add(mcp, next, &format!("https://{tag}.example/{next}"));
        (sent, next) = (sent + 1, next + 1);
    }
    while sent > 0 {
        answered.push(added(mcp));
        sent -= 1;
        if more(next) {
            send_add(mcp, next, &format!("https://{tag}.example/{next}"));
            (sent, next) = (sent + 1, next + 1);
        }
    }
    answered
}

/// Checks that every answered (id, url) is on disk as answered and that ids are dense;
/// returns what is on disk.
fn assert_answered_on_disk(
    sb: &Sandbox,
    answered: &[(u64, String)],
    what: &str,
) -> Vec<(u64, String)> {
    let disk = on_disk(sb);
    for (id, url) in answered {
        assert_eq!(
            disk.get(*id as usize - 1),
            Some(&(*id, url.clone())),
            "{what}: answered id lost or moved"
        );
    }
    let ids: Vec<u64> = disk.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        (1..=disk.len() as u64).collect::<Vec<_>>(),
        "{what}: ids dense"
    );
    disk
}

/// `list --json`, as id → url.
fn on_disk(sb: &Sandbox) -> Vec<(u64, String)> {
    let list: Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let list = list.get("sources").cloned().unwrap_or(list);
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_u64().unwrap(), s["url"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn adds_in_flight_together_share_durable_commits() {
    let sb = Sandbox::new();
    let mut mcp = start(&sb.ledger);
    const CALLS: u64 = 40;
    for i in 1..=CALLS {
        send_add(&mut mcp, i, &format!("https://together.example/{i}"));
    }
    let mut answered: Vec<(u64, String)> = (0..CALLS).map(|_| added(&mcp)).collect();
    answered.sort();
    // Every call got its own id, ids are dense, and each is on disk with its URL.
    let ids: Vec<u64> = answered.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (1..=CALLS).collect::<Vec<_>>());
    assert_eq!(on_disk(&sb), answered);
    // The 40 records were written by fewer transactions than calls: each transaction's
    // first record carries the origin, the others point back to it.
    let log: Value = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let records = log.as_array().expect("log --json is an array");
    assert_eq!(records.len() as u64, CALLS);
    let transactions = records
        .iter()
        .filter(|r| r.get("same_transaction_as").is_none())
        .count() as u64;
    assert!(
        transactions < CALLS,
        "{transactions} transactions for {CALLS} calls in flight together: no group commit"
    );
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn rebuild_and_cli_writers_get_in_while_the_server_is_busy() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://first.example"]);
    let mcp = Arc::new(Mutex::new(start(&sb.ledger)));
    let stop = Arc::new(AtomicBool::new(false));
    // The client asks whether to go on once for each of its first 8 adds, then once for
    // each answer.
    let asked = Arc::new(AtomicU64::new(0));
    let answers = || asked.load(Ordering::SeqCst).saturating_sub(8);
    // A client that keeps 8 adds in flight until told to stop.
    let pumping = {
        let (mcp, stop, asked) = (mcp.clone(), stop.clone(), asked.clone());
        thread::spawn(move || {
            pump(&mut mcp.lock().unwrap(), "busy", 8, |_| {
                asked.fetch_add(1, Ordering::SeqCst);
                !stop.load(Ordering::Relaxed)
            })
        })
    };
    wait_until(PATIENCE, "the server to answer its first add", || {
        answers() > 0
    });
    let rebuilt = sb.run(&["--wait", "10", "rebuild"]);
    assert_eq!(
        rebuilt.code, 0,
        "rebuild while the server is busy: {}",
        rebuilt.stderr
    );
    let added = sb.run(&["--wait", "10", "add", "https://cli.example/between"]);
    assert_eq!(
        added.code, 0,
        "CLI add while the server is busy: {}",
        added.stderr
    );
    // It goes on answering after them.
    let before = answers();
    wait_until(PATIENCE, "8 more answers from the server", || {
        answers() >= before + 8
    });
    stop.store(true, Ordering::Relaxed);
    let answered = pumping.join().expect("the client thread");
    assert!(
        answered.len() > 8,
        "the server answered only {}",
        answered.len()
    );
    assert_answered_on_disk(&sb, &answered, "busy server");
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn a_ledger_moved_into_place_takes_the_servers_next_writes() {
    let sb = Sandbox::new();
    let mut mcp = start(&sb.ledger);
    send_add(&mut mcp, 1, "https://old.example/a");
    assert_eq!(added(&mcp).0, 1);
    // Another ledger, with two sources, moved over the path (as a restored backup is).
    let other = sb.path().join("other.redb");
    sb.cite_at(&other)
        .args(["add", "https://new.example/1", "https://new.example/2"])
        .assert()
        .success();
    std::fs::rename(&other, &sb.ledger).unwrap();
    send_add(&mut mcp, 2, "https://after.example/b");
    let (id, url) = added(&mcp);
    assert_eq!((id, url.as_str()), (3, "https://after.example/b"));
    let disk = on_disk(&sb);
    assert_eq!(disk.len(), 3, "{disk:?}");
    assert_eq!(disk[2], (3, "https://after.example/b".to_string()));
}

#[test]
fn two_servers_share_one_ledger_without_losing_or_repeating_an_id() {
    let sb = Sandbox::new();
    let servers: Vec<_> = ["one", "two"]
        .into_iter()
        .map(|tag| {
            let ledger = sb.ledger.clone();
            thread::spawn(move || pump(&mut start(&ledger), tag, 8, |n| n <= 150))
        })
        .collect();
    let mut answered: Vec<(u64, String)> = servers
        .into_iter()
        .flat_map(|s| s.join().expect("a server's client"))
        .collect();
    answered.sort();
    let ids: Vec<u64> = answered.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (1..=300).collect::<Vec<_>>(), "an id lost or repeated");
    assert_eq!(on_disk(&sb), answered);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn a_server_killed_at_random_moments_loses_no_answered_id() {
    let sb = Sandbox::new();
    let mut answered: Vec<(u64, String)> = Vec::new();
    for round in 0..12u64 {
        let mut mcp = start(&sb.ledger);
        for i in 1..=40 {
            send_add(&mut mcp, i, &format!("https://kill{round}.example/{i}"));
        }
        // Read a few answers (a different number each round), then SIGKILL mid-batch.
        for _ in 0..(round * 3) % 20 {
            answered.push(added(&mcp));
        }
        drop(mcp);
        assert_answered_on_disk(&sb, &answered, &format!("round {round}"));
    }
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn a_stopped_idle_server_holds_up_no_writer_and_no_maintenance() {
    let sb = Sandbox::new();
    let mut mcp = start(&sb.ledger);
    send_add(&mut mcp, 1, "https://a.example");
    assert_eq!(added(&mcp).0, 1);
    // Stopped between calls, with its store open: it holds no lock.
    assert!(signal(&mut mcp.child, "-STOP"));
    for args in [
        &["--wait", "10", "add", "https://b.example"][..],
        &["--wait", "10", "rebuild"],
        &["--wait", "10", "audit"],
        &["--wait", "10", "add", "https://c.example"],
    ] {
        let out = sb.run(args);
        assert_eq!(
            out.code, 0,
            "{args:?} behind a stopped server: {}",
            out.stderr
        );
        assert!(out.took < SLACK, "{args:?} waited {:?}", out.took);
    }
    // Resumed, it writes after what the others wrote.
    assert!(signal(&mut mcp.child, "-CONT"));
    send_add(&mut mcp, 2, "https://d.example");
    assert_eq!(added(&mcp).0, 4);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

/// Where the lead of a sandbox ledger's servers listens.
fn lead_socket(sb: &Sandbox) -> PathBuf {
    sb.path().join("ledger.redb.sock")
}

/// Asks the lead as another server would: one frame (a little-endian u32 length, then
/// JSON) out; back comes `+` (taken) and one frame. `None` when the lead hangs up instead
/// (not answering at all fails the test).
fn ask_lead(conn: &mut UnixStream, frame: &[u8]) -> Option<Value> {
    conn.set_read_timeout(Some(TIMEOUT)).unwrap();
    conn.write_all(&(frame.len() as u32).to_le_bytes()).unwrap();
    conn.write_all(frame).unwrap();
    let mut taken = [0u8; 1];
    match conn.read_exact(&mut taken) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return None,
        other => other.expect("the lead takes the ask or hangs up"),
    }
    assert_eq!(&taken, b"+");
    let mut len = [0u8; 4];
    conn.read_exact(&mut len)
        .expect("an answer after the ask was taken");
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    conn.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("the lead answers JSON"))
}

/// The machine's monotonic clock in nanoseconds, as the lead reads it.
fn monotonic_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a live timespec.
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) },
        0
    );
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// How many of `lead`'s sockets the kernel lists at its lead socket (named however it was
/// bound): its listener, and one per server connected to it. Read through the process's
/// own descriptors, so the other tests' servers (each with a `ledger.redb.sock`) do not
/// count.
fn lead_sockets(lead: &Server) -> usize {
    lead_sockets_at(lead, "/ledger.redb.sock")
}

/// [`lead_sockets`] at a socket whose path ends with `suffix`.
pub(crate) fn lead_sockets_at(lead: &Server, suffix: &str) -> usize {
    let fds = std::fs::read_dir(format!("/proc/{}/fd", lead.child.id())).unwrap();
    let inodes: std::collections::BTreeSet<String> = fds
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let target = target.to_str()?;
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_string(),
            )
        })
        .collect();
    let table = std::fs::read_to_string("/proc/net/unix").unwrap();
    table
        .lines()
        .filter(|l| l.ends_with(suffix))
        // Num RefCount Protocol Flags Type St Inode Path
        .filter(|l| {
            l.split_whitespace()
                .nth(6)
                .is_some_and(|i| inodes.contains(i))
        })
        .count()
}

/// `cite --wait SECONDS mcp`, initialized.
fn start_waiting(ledger: &Path, seconds: &str) -> Server {
    let mut mcp = Server::start_waiting(ledger, seconds);
    mcp.initialize();
    mcp
}

/// Servers of one ledger file share commits (issue 11): the first server to write leads,
/// listening beside the ledger on a socket only its user may use; another server's adds
/// sent there are written in the lead's commits, under the asking process's origin, and
/// answered only once durable. An add the lead refuses is answered `null` (its server
/// writes it itself, and reports its own error); a torn request is hung up on.
#[test]
fn the_lead_writes_the_adds_other_servers_ask_under_their_origins() {
    let sb = Sandbox::new();
    let mut mcp = start(&sb.ledger);
    send_add(&mut mcp, 1, "https://mine.example/");
    assert_eq!(added(&mcp).0, 1);
    let socket = lead_socket(&sb);
    let meta = std::fs::symlink_metadata(&socket).expect("the lead listens beside the ledger");
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);

    let ask = json!({
        "until_ns": monotonic_ns() + 60_000_000_000,
        "at_ns": 1_700_000_000_000_000_000i128,
        "pid": 3_999_999,
        "actor": "agent-b",
        "command": ["cite", "mcp"],
        "adds": [
            {"urls": ["https://asked.example/1", "https://asked.example/2"],
             "title": null, "accessed": null, "via": "web", "snapshot": null},
            {"urls": ["not a url at all"], "title": null, "accessed": null, "via": null,
             "snapshot": null},
        ],
    });
    let mut conn = UnixStream::connect(&socket).unwrap();
    let answer = ask_lead(&mut conn, ask.to_string().as_bytes()).expect("an answer");
    let ids: Vec<&Value> = answer[0]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["id"])
        .collect();
    assert_eq!(ids, [&json!(2), &json!(3)], "{answer}");
    assert!(answer[1].is_null(), "{answer}");
    assert_eq!(answer.as_array().unwrap().len(), 2);
    // The same connection serves the next ask; one whose asker has stopped waiting is
    // not written; a torn one is hung up on.
    let again = ask_lead(&mut conn, ask.to_string().as_bytes()).expect("an answer");
    assert_eq!(again[0]["sources"][1]["id"], 3, "{again}");
    let mut late = ask.clone();
    late["until_ns"] = json!(1);
    late["adds"][0]["urls"] = json!(["https://too-late.example/"]);
    let answer = ask_lead(&mut conn, late.to_string().as_bytes()).expect("an answer");
    assert_eq!(answer, json!([null, null]));
    assert!(ask_lead(&mut conn, b"{torn").is_none());

    // The lead's own client goes on as before.
    send_add(&mut mcp, 2, "https://mine.example/2");
    assert_eq!(added(&mcp).0, 4);
    assert_eq!(mcp.shutdown(), Some(0));
    assert!(
        std::fs::symlink_metadata(&socket).is_err(),
        "a lead that stops removes its socket"
    );

    let entries: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let asked_first = entries
        .iter()
        .find(|e| e["event"]["url"] == "https://asked.example/1")
        .expect("the asked add is in the log");
    assert_eq!(asked_first["pid"], 3_999_999, "{asked_first}");
    assert_eq!(asked_first["actor"], "agent-b", "{asked_first}");
    assert_eq!(asked_first["event"]["via"], "web", "{asked_first}");
    let second = entries
        .iter()
        .find(|e| e["event"]["url"] == "https://asked.example/2")
        .unwrap();
    assert_eq!(
        second["same_transaction_as"], asked_first["seq"],
        "{second}"
    );
    let mine = entries
        .iter()
        .find(|e| e["event"]["url"] == "https://mine.example")
        .unwrap();
    assert_ne!(mine["pid"], 3_999_999, "{mine}");
    assert!(!sb.ok(&["list"]).contains("too-late"));
    assert!(sb.ok(&["audit"]).starts_with("audit OK: 4 records"));
}

/// A ledger deeper than a socket address holds (107 bytes) still gets a lead: the
/// socket is bound and reached through the folder's descriptor.
#[test]
fn servers_of_a_ledger_deep_in_folders_share_a_lead() {
    let sb = Sandbox::new();
    let deep = sb.path().join("d".repeat(60)).join("e".repeat(60));
    std::fs::create_dir_all(&deep).unwrap();
    let ledger = deep.join("ledger.redb");
    let socket = deep.join("ledger.redb.sock");
    assert!(socket.as_os_str().len() > 120);
    let mut lead = start(&ledger);
    send_add(&mut lead, 1, "https://a.example/");
    assert_eq!(added(&lead).0, 1);
    let meta = std::fs::symlink_metadata(&socket).expect("the lead listens beside the ledger");
    assert!(meta.file_type().is_socket());
    let mut follower = start(&ledger);
    send_add(&mut follower, 1, "https://b.example/");
    assert_eq!(added(&follower).0, 2);
    assert!(
        lead_sockets(&lead) >= 2,
        "the second server is connected to the lead"
    );
    assert_eq!(follower.shutdown(), Some(0));
    assert_eq!(lead.shutdown(), Some(0));
    assert!(std::fs::symlink_metadata(&socket).is_err());
}

/// A server whose --wait ends while its lead waits for the writer lock reports the ledger
/// busy, and the lead gives that add up too: an add its client was told failed is never
/// written later.
#[test]
fn an_add_its_server_gave_up_on_is_not_written_by_the_lead_later() {
    let sb = Sandbox::new();
    let mut lead = start(&sb.ledger);
    send_add(&mut lead, 1, "https://a.example/");
    assert_eq!(added(&lead).0, 1);
    let mut follower = start_waiting(&sb.ledger, "1");
    send_add(&mut follower, 1, "https://b.example/");
    assert_eq!(added(&follower).0, 2);

    // Another process holds the writer lock for longer than the follower waits.
    let lock = sb.path().join("ledger.redb.lock");
    let mut holder = std::process::Command::new("flock")
        .arg(&lock)
        .args(["sleep", "4"])
        .spawn()
        .expect("flock(1) runs");
    wait_until(PATIENCE, "flock(1) to hold the lock", || {
        !std::process::Command::new("flock")
            .args(["-n"])
            .arg(&lock)
            .arg("true")
            .status()
            .unwrap()
            .success()
    });
    send_add(&mut follower, 2, "https://given-up.example/");
    let reply = follower.lines.recv_timeout(TIMEOUT).unwrap().unwrap();
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(reply.to_string().contains("ledger busy"), "{reply}");
    assert!(holder.wait().unwrap().success());

    // The lead's next add comes after whatever it did with the follower's.
    send_add(&mut lead, 2, "https://c.example/");
    assert_eq!(added(&lead), (3, "https://c.example".to_string()));
    assert!(
        on_disk(&sb)
            .iter()
            .all(|(_, url)| !url.contains("given-up"))
    );
    drop(follower);
    assert_eq!(lead.shutdown(), Some(0));
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

/// A server whose lead stops answering (here: stopped with SIGSTOP) answers its client
/// all the same, writing its adds itself: it does not wait out its --wait (100 s here,
/// past the test's timeout) on a lead that does not take its asks.
#[test]
fn a_server_whose_lead_is_stopped_writes_its_adds_itself_within_its_wait() {
    let sb = Sandbox::new();
    let mut lead = start(&sb.ledger);
    send_add(&mut lead, 1, "https://a.example/");
    assert_eq!(added(&lead).0, 1);
    let mut follower = start_waiting(&sb.ledger, "100");
    send_add(&mut follower, 1, "https://b.example/");
    assert_eq!(added(&follower).0, 2);
    assert!(
        lead_sockets(&lead) >= 2,
        "the second server is connected to the lead"
    );
    // Stopped idle: its own add answered, it has finished whatever it was asked before.
    send_add(&mut lead, 2, "https://a2.example/");
    assert_eq!(added(&lead).0, 3);
    assert!(signal(&mut lead.child, "-STOP"));
    send_add(&mut follower, 2, "https://c.example/");
    assert_eq!(added(&follower), (4, "https://c.example".to_string()));
    send_add(&mut follower, 3, "https://d.example/");
    assert_eq!(added(&follower), (5, "https://d.example".to_string()));
    assert!(signal(&mut lead.child, "-CONT"));
    send_add(&mut lead, 3, "https://e.example/");
    assert_eq!(added(&lead).0, 6);
    drop(follower);
    drop(lead);
    assert_eq!(on_disk(&sb).len(), 6);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

/// The lead killed while others' adds are in flight through it: every id a server
/// answered is on disk, none repeated, and the next server to write leads in its place
/// (removing the dead lead's socket first).
#[test]
fn killing_the_lead_loses_no_answered_id_and_another_server_leads() {
    let sb = Sandbox::new();
    let answered = kill_the_lead_mid_batch(&sb.ledger);
    assert_eq!(on_disk(&sb), answered);
    // The followers were killed too, the last lead with its socket in place.
    the_next_server_leads(&sb.ledger, 302);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

/// A lead of the servers of `ledger` that has answered one add, two servers pumping 150
/// adds each through it, and the lead killed (SIGKILL) once they are 60 in: every add is
/// answered all the same, ids 1 to 301 once each. Returns the answers, sorted.
pub(crate) fn kill_the_lead_mid_batch(ledger: &Path) -> Vec<(u64, String)> {
    let mut lead = start(ledger);
    send_add(&mut lead, 1, "https://lead.example/");
    let mut answered = vec![added(&lead)];
    let progress = Arc::new(AtomicU64::new(0));
    let followers: Vec<_> = ["one", "two"]
        .into_iter()
        .map(|tag| {
            let (ledger, progress) = (ledger.to_path_buf(), progress.clone());
            thread::spawn(move || {
                pump(&mut start(&ledger), tag, 4, |n| {
                    progress.fetch_add(1, Ordering::SeqCst);
                    n <= 150
                })
            })
        })
        .collect();
    wait_until(PATIENCE, "the followers to be 60 adds in", || {
        progress.load(Ordering::SeqCst) >= 60
    });
    drop(lead); // SIGKILL, mid-batch
    for f in followers {
        answered.extend(f.join().expect("a follower's client"));
    }
    answered.sort();
    let ids: Vec<u64> = answered.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (1..=301).collect::<Vec<_>>(), "an id lost or repeated");
    answered
}

/// A new server of `ledger` writes (leading now), and gets `id`.
pub(crate) fn the_next_server_leads(ledger: &Path, id: u64) {
    let mut next = start(ledger);
    send_add(&mut next, 1, "https://next.example/");
    assert_eq!(added(&next).0, id);
    assert_eq!(next.shutdown(), Some(0));
}

/// Whatever sits where the lead would listen and is not a socket (someone's file, a
/// symbolic link to one) is never removed or written: the servers then write alone.
#[test]
fn a_file_where_the_lead_would_listen_is_left_alone() {
    for link in [false, true] {
        let sb = Sandbox::new();
        let socket = lead_socket(&sb);
        let precious = sb.path().join("precious.txt");
        std::fs::write(&precious, "keep me").unwrap();
        if link {
            std::os::unix::fs::symlink(&precious, &socket).unwrap();
        } else {
            std::fs::write(&socket, "keep me").unwrap();
        }
        let mut one = start(&sb.ledger);
        let mut two = start(&sb.ledger);
        send_add(&mut one, 1, "https://one.example/");
        send_add(&mut two, 1, "https://two.example/");
        let mut ids = vec![added(&one).0, added(&two).0];
        ids.sort();
        assert_eq!(ids, [1, 2]);
        assert_eq!(one.shutdown(), Some(0));
        assert_eq!(two.shutdown(), Some(0));
        let meta = std::fs::symlink_metadata(&socket).expect("still there");
        assert_eq!(meta.file_type().is_symlink(), link);
        assert_eq!(std::fs::read_to_string(&socket).unwrap(), "keep me");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
        assert!(sb.ok(&["audit"]).starts_with("audit OK"));
    }
}

/// The threads of process `pid`, as the kernel counts them.
fn threads(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

/// Issue 25: the lead served each connection on its own thread, with no cap: 200 idle
/// connections held 205 threads. Now the connections it serves are capped (the others
/// are hung up on, and their servers write alone, as when there is no lead), and a
/// server that cannot get in still answers its adds.
#[test]
fn idle_connections_cannot_make_the_lead_hold_a_thread_each() {
    let sb = Sandbox::new();
    let mut lead = start(&sb.ledger);
    send_add(&mut lead, 1, "https://mine.example/");
    assert_eq!(added(&lead).0, 1);
    let before = threads(lead.child.id());
    let idle: Vec<UnixStream> = (0..200)
        .map(|_| UnixStream::connect(lead_socket(&sb)).unwrap())
        .collect();
    // Every connection the lead will ever take in is taken in, or hung up on, by now.
    thread::sleep(Duration::from_millis(500));
    let during = threads(lead.child.id());
    assert!(
        during <= before + 64,
        "{during} threads for 200 idle connections ({before} before)"
    );
    // Another server, whichever way it writes, is answered; so is the lead's own client.
    let mut other = start(&sb.ledger);
    send_add(&mut other, 1, "https://other.example/");
    assert_eq!(added(&other).0, 2);
    send_add(&mut lead, 2, "https://mine.example/2");
    assert_eq!(added(&lead).0, 3);
    drop(idle);
    assert_eq!(other.shutdown(), Some(0));
    assert_eq!(lead.shutdown(), Some(0));
    assert!(sb.ok(&["audit"]).starts_with("audit OK: 3 records"));
}
