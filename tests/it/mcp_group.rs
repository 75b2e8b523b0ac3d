//! `cite mcp` keeps the store open and commits the adds that arrive together in one
//! durable transaction (issue 11): calls in flight at once share commits; CLI writers and
//! maintenance still get in while the server is busy; a ledger moved into place under a
//! running server takes its next writes.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::Sandbox;

const TIMEOUT: Duration = Duration::from_secs(60);

/// A `cite mcp` child with its replies read on a thread.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<Value>,
}

impl Mcp {
    fn start(ledger: &Path) -> Mcp {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("cite"))
            .arg("--ledger")
            .arg(ledger)
            .arg("mcp")
            .env_remove("CITE_LEDGER")
            .env_remove("HERMES_CITATION_LEDGER")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start cite mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, replies) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line).expect("stdout is JSON-RPC");
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut mcp = Mcp {
            child,
            stdin,
            replies,
        };
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "group-commit-test", "version": "0"}}}),
        );
        mcp.reply();
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").expect("write to server");
        self.stdin.flush().expect("flush");
    }

    fn send_add(&mut self, id: u64, url: &str) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "add", "arguments": {"urls": [url]}}}));
    }

    fn reply(&self) -> Value {
        self.replies
            .recv_timeout(TIMEOUT)
            .expect("a reply within the timeout")
    }

    /// The next reply to a `tools/call add`: (request id, source id, url).
    fn added(&self) -> (u64, u64, String) {
        let reply = self.reply();
        let result = &reply["result"];
        assert_eq!(result["isError"], false, "{reply}");
        let source = &result["structuredContent"]["sources"][0];
        (
            reply["id"].as_u64().unwrap(),
            source["id"].as_u64().unwrap(),
            source["url"].as_str().unwrap().to_string(),
        )
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
    let mut mcp = Mcp::start(&sb.ledger);
    const CALLS: u64 = 40;
    for i in 1..=CALLS {
        mcp.send_add(i, &format!("https://together.example/{i}"));
    }
    let mut answered: Vec<(u64, String)> = (0..CALLS)
        .map(|_| mcp.added())
        .map(|(_, id, url)| (id, url))
        .collect();
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
    let mcp = Arc::new(Mutex::new(Mcp::start(&sb.ledger)));
    let stop = Arc::new(AtomicBool::new(false));
    // A client that keeps 8 adds in flight until told to stop.
    let pump = {
        let (mcp, stop) = (mcp.clone(), stop.clone());
        thread::spawn(move || {
            let mut mcp = mcp.lock().unwrap();
            let mut answered = Vec::new();
            let (mut sent, mut next) = (0u64, 1u64);
            while sent < 8 {
                mcp.send_add(next, &format!("https://busy.example/{next}"));
                (sent, next) = (sent + 1, next + 1);
            }
            while sent > 0 {
                let (_, id, url) = mcp.added();
                answered.push((id, url));
                sent -= 1;
                if !stop.load(Ordering::Relaxed) {
                    mcp.send_add(next, &format!("https://busy.example/{next}"));
                    (sent, next) = (sent + 1, next + 1);
                }
            }
            answered
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
    let answered = pump.join().expect("the client thread");
    assert!(
        answered.len() > 8,
        "the server answered only {}",
        answered.len()
    );
    let disk = on_disk(&sb);
    for (id, url) in &answered {
        assert_eq!(
            disk[*id as usize - 1],
            (*id, url.clone()),
            "answered id moved or lost"
        );
    }
    let ids: Vec<u64> = disk.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        (1..=disk.len() as u64).collect::<Vec<_>>(),
        "ids dense"
    );
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn a_ledger_moved_into_place_takes_the_servers_next_writes() {
    let sb = Sandbox::new();
    let mut mcp = Mcp::start(&sb.ledger);
    mcp.send_add(1, "https://old.example/a");
    assert_eq!(mcp.added().1, 1);
    // Another ledger, with two sources, moved over the path (as a restored backup is).
    let other = sb.path().join("other.redb");
    sb.cite_at(&other)
        .args(["add", "https://new.example/1", "https://new.example/2"])
        .assert()
        .success();
    std::fs::rename(&other, &sb.ledger).unwrap();
    mcp.send_add(2, "https://after.example/b");
    let (_, id, url) = mcp.added();
    assert_eq!((id, url.as_str()), (3, "https://after.example/b"));
    let disk = on_disk(&sb);
    assert_eq!(disk.len(), 3, "{disk:?}");
    assert_eq!(disk[2], (3, "https://after.example/b".to_string()));
}

/// Sends `n` adds for `tag` keeping `inflight` in flight; returns (id, url) per answer.
fn pump(mcp: &mut Mcp, tag: &str, n: u64, inflight: u64) -> Vec<(u64, String)> {
    let mut answered = Vec::new();
    let mut next = 1;
    while next <= n.min(inflight) {
        mcp.send_add(next, &format!("https://{tag}.example/{next}"));
        next += 1;
    }
    while (answered.len() as u64) < n {
        let (_, id, url) = mcp.added();
        answered.push((id, url));
        if next <= n {
            mcp.send_add(next, &format!("https://{tag}.example/{next}"));
            next += 1;
        }
    }
    answered
}

#[test]
fn two_servers_share_one_ledger_without_losing_or_repeating_an_id() {
    let sb = Sandbox::new();
    let servers: Vec<_> = ["one", "two"]
        .into_iter()
        .map(|tag| {
            let ledger = sb.ledger.clone();
            thread::spawn(move || pump(&mut Mcp::start(&ledger), tag, 150, 8))
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
        let mut mcp = Mcp::start(&sb.ledger);
        for i in 1..=40 {
            mcp.send_add(i, &format!("https://kill{round}.example/{i}"));
        }
        // Read a few answers (a different number each round), then SIGKILL mid-batch.
        for _ in 0..(round * 3) % 20 {
            let (_, id, url) = mcp.added();
            answered.push((id, url));
        }
        drop(mcp);
        let disk = on_disk(&sb);
        for (id, url) in &answered {
            assert_eq!(
                disk.get(*id as usize - 1),
                Some(&(*id, url.clone())),
                "round {round}: answered id lost or moved"
            );
        }
        let ids: Vec<u64> = disk.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            ids,
            (1..=disk.len() as u64).collect::<Vec<_>>(),
            "ids dense"
        );
    }
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

/// Sends `kill -SIG` to the server.
fn signal(mcp: &Mcp, sig: &str) {
    let sent = Command::new("kill")
        .args([sig, &mcp.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill {sig}");
}

#[test]
fn a_stopped_idle_server_holds_up_no_writer_and_no_maintenance() {
    let sb = Sandbox::new();
    let mut mcp = Mcp::start(&sb.ledger);
    mcp.send_add(1, "https://a.example");
    assert_eq!(mcp.added().1, 1);
    // Stopped between calls, with its store open: it holds no lock.
    signal(&mcp, "-STOP");
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
    signal(&mcp, "-CONT");
    mcp.send_add(2, "https://d.example");
    assert_eq!(mcp.added().1, 4);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}
