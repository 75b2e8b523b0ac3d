//! Writers killed with SIGKILL in the middle of a write: the ledger still opens (redb's
//! quick repair), every read command works, and every id printed before the kill is
//! there with its URL.

use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use crate::util::Sandbox;

/// A JSON tool output of `n` distinct URLs, written into the sandbox.
pub fn big_ingest_input(sb: &Sandbox, n: usize) -> std::path::PathBuf {
    let items: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"url":"https://k{i}.example/p","title":"P {i}"}}"#))
        .collect();
    sb.file(
        "big.json",
        &format!(r#"{{"results":[{}]}}"#, items.join(",")),
    )
}

/// `cite ingest INPUT` on the sandbox's ledger, running, its output dropped.
pub fn spawn_ingest(sb: &Sandbox, input: &std::path::Path) -> std::process::Child {
    Command::new(assert_cmd::cargo::cargo_bin("cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .arg("ingest")
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ingest")
}

/// Regression: the first read after a crash used to fail with "Database has been
/// closed", because the repaired store was dropped before its read transaction.
#[test]
fn reads_after_a_killed_ingest_see_the_committed_state() {
    let sb = Sandbox::new();
    assert_eq!(
        sb.ok(&["add", "https://first.example"]),
        "[1] https://first.example\n"
    );
    let input = big_ingest_input(&sb, 50_000);
    let mut killed_mid_write = false;
    for _attempt in 0..3 {
        let before = std::fs::metadata(&sb.ledger).unwrap().len();
        let mut child = spawn_ingest(&sb, &input);
        // Kill once the transaction has started writing pages: the file grows.
        let exited = loop {
            if child.try_wait().expect("try_wait").is_some() {
                break true;
            }
            if std::fs::metadata(&sb.ledger).unwrap().len() > before {
                // A little further into the write: the moment of the kill, not a wait
                // for something to happen.
                thread::sleep(Duration::from_millis(20));
                break false;
            }
            thread::sleep(Duration::from_millis(2));
        };
        let _ = child.kill();
        let status = child.wait().expect("wait");
        killed_mid_write |= !exited && !status.success();
        // The ingest is one transaction: either all of it landed or none of it did.
        let listed = sb.ok(&["list", "--json"]);
        let sources: serde_json::Value = serde_json::from_str(&listed).unwrap();
        let n = sources.as_array().unwrap().len();
        assert!(n == 1 || n == 50_001, "partial ingest visible: {n} sources");
        if status.success() {
            assert_eq!(n, 50_001);
        }
        sb.ok(&["log", "--id", "1"]);
        let shown = sb.ok(&["show", "1"]);
        assert!(shown.starts_with("[1] https://first.example"), "{shown}");
        if killed_mid_write && n == 1 {
            break;
        }
    }
    assert!(killed_mid_write, "never caught the writer mid-transaction");
    let next = sb.ok(&["add", "https://after.example"]);
    assert!(next.starts_with('['), "{next}");
}
