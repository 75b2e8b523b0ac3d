//! `cite mcp` keeps the store open and commits the adds that arrive together in one
//! durable transaction (issue 11): calls in flight at once share commits; CLI writers and
//! maintenance still get in while the server is busy; a ledger moved into place under a
//! running server takes its next writes.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::Server;
use crate::util::{Sandbox, signal};

const TIMEOUT: Duration = Duration::from_secs(60);

/// `cite mcp`, initialized.
fn start(ledger: &Path) -> Server {
    let mut mcp = Server::start(ledger);
    mcp.initialize();
    mcp
}

/// Sends the `n`th add (request ids from 1000, clear of the server helper's own).
fn send_add(mcp: &mut Server, n: u64, url: &str) {
    mcp.send(
        &json!({"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/call",
        "params": {"name": "add", "arguments": {"urls": [url]}}}),
    );
}

/// The next answer to an add: (source id, url).
fn added(mcp: &Server) -> (u64, String) {
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
fn pump(
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
    // A client that keeps 8 adds in flight until told to stop.
    let pumping = {
        let (mcp, stop) = (mcp.clone(), stop.clone());
        thread::spawn(move || {
            pump(&mut mcp.lock().unwrap(), "busy", 8, |_| {
                !stop.load(Ordering::Relaxed)
            })
        })
    };
    thread::sleep(Duration::from_millis(500));
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
    thread::sleep(Duration::from_millis(300));
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
        &["--wait", "2", "add", "https://b.example"][..],
        &["--wait", "2", "rebuild"],
        &["--wait", "2", "audit"],
        &["--wait", "2", "add", "https://c.example"],
    ] {
        let out = sb.run(args);
        assert_eq!(
            out.code, 0,
            "{args:?} behind a stopped server: {}",
            out.stderr
        );
        assert!(
            out.took < Duration::from_secs(2),
            "{args:?} waited {:?}",
            out.took
        );
    }
    // Resumed, it writes after what the others wrote.
    assert!(signal(&mut mcp.child, "-CONT"));
    send_add(&mut mcp, 2, "https://d.example");
    assert_eq!(added(&mcp).0, 4);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

/// Servers of one ledger file share commits (issue 11): adds another server offered in
/// the ledger's spool are written by the next commit, each under the origin of the
/// process that asked, and the offer is gone; an offer that does not parse is dropped.
/// (The offering side is `spool::offer`, unit-tested in the crate; here a file stands in
/// for a server waiting for the lock.)
#[test]
fn a_commit_writes_the_adds_other_servers_offered_under_their_origins() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://first.example/"]);
    let spool = sb.path().join(".ledger.redb.spool");
    std::fs::create_dir_all(&spool).unwrap();
    let offered = json!({
        "at_ns": 1_700_000_000_000_000_000i128,
        "pid": 3_999_999,
        "actor": "agent-b",
        "command": ["cite", "mcp"],
        "adds": [
            {"urls": ["https://offered.example/1", "https://offered.example/2"],
             "title": null, "accessed": null, "via": "web"},
            {"urls": ["not a url at all"], "title": null, "accessed": null, "via": null},
        ],
    });
    // Named after a process that does not exist: its mark is removed by a later commit.
    std::fs::write(spool.join("3999999-0.req"), offered.to_string()).unwrap();
    std::fs::write(spool.join("3999998-0.req"), b"{torn").unwrap();

    let mut mcp = start(&sb.ledger);
    send_add(&mut mcp, 1, "https://mine.example/");
    let (id, url) = added(&mcp);
    assert_eq!(url, "https://mine.example");
    assert_eq!(id, 4, "the offered adds come first: [2] and [3]");
    send_add(&mut mcp, 2, "https://mine.example/2");
    assert_eq!(added(&mcp).0, 5);
    mcp.shutdown();

    let entries: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let offered_first = entries
        .iter()
        .find(|e| e["event"]["url"] == "https://offered.example/1")
        .expect("the offered add is in the log");
    assert_eq!(offered_first["pid"], 3_999_999, "{offered_first}");
    assert_eq!(offered_first["actor"], "agent-b", "{offered_first}");
    assert_eq!(offered_first["event"]["via"], "web", "{offered_first}");
    let second = entries
        .iter()
        .find(|e| e["event"]["url"] == "https://offered.example/2")
        .unwrap();
    assert_eq!(
        second["same_transaction_as"], offered_first["seq"],
        "{second}"
    );
    let mine = entries
        .iter()
        .find(|e| e["event"]["url"] == "https://mine.example")
        .unwrap();
    assert_ne!(mine["pid"], 3_999_999, "{mine}");
    assert!(mine.get("same_transaction_as").is_none(), "{mine}");
    assert!(sb.ok(&["audit"]).starts_with("audit OK: 5 records"));
    let left: Vec<_> = std::fs::read_dir(&spool).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}
