//! `cite rebuild`: a store rebuilt from its log answers every query byte for byte as
//! before; a rebuild repairs damaged views, refuses a broken log without changing
//! anything, and waits for the exclusive maintenance lock no longer than `--wait`.

use std::time::{Duration, Instant};

use cite_store::lock::{self, LockMode};
use cite_store::redbfile::tables::{META, SOURCES, URLS};
use cite_store::tables::SourceRow;
use redb::ReadableTable;

use crate::audit::{audit_fails, audit_ok, record_bytes, tamper, varied};
use crate::util::{SLACK, Sandbox};

/// Every answer the read commands give about the ledger, labelled.
fn answers(sb: &Sandbox) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut ask = |args: &[&str]| {
        out.push((args.join(" "), sb.ok(args)));
    };
    ask(&["log", "--json"]);
    ask(&["log"]);
    ask(&["list"]);
    ask(&["render", "--style", "evidence"]);
    for epoch in ["1", "2"] {
        ask(&["list", "--json", "--epoch", epoch]);
        ask(&["list", "--by-via", "--json", "--epoch", epoch]);
        ask(&["render", "--style", "bibtex", "--epoch", epoch]);
        ask(&["log", "--id", "1", "--json", "--epoch", epoch]);
        for id in ["1", "2", "3"] {
            ask(&["show", id, "--json", "--epoch", epoch]);
        }
    }
    for id in ["4", "5", "6", "7"] {
        ask(&["show", id, "--json", "--epoch", "1"]);
        ask(&["show", id, "--epoch", "1"]);
    }
    out
}

fn assert_same(before: &[(String, String)], after: &[(String, String)]) {
    assert_eq!(before.len(), after.len());
    for ((q, a), (_, b)) in before.iter().zip(after) {
        assert_eq!(a, b, "`cite {q}` answers differently after the rebuild");
    }
}

#[test]
fn a_rebuilt_store_answers_every_query_as_before() {
    let sb = Sandbox::new();
    varied(&sb);
    let before = answers(&sb);
    assert_eq!(
        sb.ok(&["rebuild"]),
        "rebuilt 18 records: 2 epochs, 10 sources, 4 quotes\n"
    );
    assert_same(&before, &answers(&sb));
    audit_ok(&sb.ledger);
    // A second rebuild changes nothing either.
    sb.ok(&["rebuild"]);
    assert_same(&before, &answers(&sb));
    // The rebuilt store goes on: the next id, the same id for a known URL.
    assert_eq!(
        sb.ok(&["add", "https://new.example", "https://a.example/x"]),
        "[4] https://new.example\n[1] https://a.example/x\n"
    );
    audit_ok(&sb.ledger);
}

#[test]
fn rebuild_repairs_damaged_views() {
    let sb = Sandbox::new();
    varied(&sb);
    let before = answers(&sb);
    tamper(&sb.ledger, |txn| {
        let mut urls = txn.open_table(URLS).unwrap();
        urls.remove((1, "https://d.example")).unwrap();
        urls.insert((1, "https://forged.example"), 2).unwrap();
        let mut sources = txn.open_table(SOURCES).unwrap();
        let mut row = SourceRow::decode(sources.get((2, 1)).unwrap().unwrap().value()).unwrap();
        row.url = "https://forged.example".into();
        sources.insert((2, 1), row.encode().as_slice()).unwrap();
        sources.remove((1, 7)).unwrap();
        let mut meta = txn.open_table(META).unwrap();
        meta.insert("quoted/1", 0u64.to_le_bytes().as_slice())
            .unwrap();
        meta.remove("epoch").unwrap();
    });
    audit_fails(&sb.ledger, "meta (");
    sb.ok(&["rebuild"]);
    audit_ok(&sb.ledger);
    assert_same(&before, &answers(&sb));
}

#[test]
fn rebuild_refuses_a_broken_log_and_changes_nothing() {
    let sb = Sandbox::new();
    varied(&sb);
    // Damage a view too, so that a rebuild that went ahead would show.
    tamper(&sb.ledger, |txn| {
        txn.open_table(URLS)
            .unwrap()
            .remove((1, "https://b.example"))
            .unwrap();
    });
    add_a_trailing_byte_to_record_6(&sb.ledger);
    let before = std::fs::read(&sb.ledger).unwrap();
    let out = sb.cite().arg("rebuild").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: record 6 is corrupted: record has 1 trailing byte(s)"),
        "{stderr}"
    );
    // The url index is still missing its entry: nothing was rebuilt.
    audit_fails(&sb.ledger, "record 6: record has 1 trailing byte(s)");
    let listed: serde_json::Value =
        serde_json::from_str(&sb.ok(&["list", "--json", "--epoch", "1"])).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 7);
    drop(before);
}

#[test]
fn rebuild_waits_for_the_exclusive_lock_no_longer_than_told() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let held = lock::acquire(&sb.ledger, LockMode::Maintenance, Duration::from_secs(1)).unwrap();
    let started = Instant::now();
    let out = sb
        .cite()
        .args(["--wait", "0.5", "rebuild"])
        .output()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error: ledger busy: "), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_millis(500) + SLACK,
        "gave up after {took:?}"
    );
    // A writer blocks it the same way.
    drop(held);
    let shared = lock::acquire(&sb.ledger, LockMode::Write, Duration::from_secs(1)).unwrap();
    let out = sb.cite().args(["--wait", "0", "rebuild"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ledger busy"));
    drop(shared);
    assert_eq!(
        sb.ok(&["--wait", "0", "rebuild"]),
        "rebuilt 1 record: 1 epoch, 1 source, 0 quotes\n"
    );
}

#[test]
fn rebuild_of_a_missing_ledger_creates_nothing() {
    let sb = Sandbox::new();
    assert_eq!(
        sb.ok(&["rebuild"]),
        "rebuilt 0 records: 1 epoch, 0 sources, 0 quotes\n"
    );
    assert!(!sb.ledger.exists());
}

/// `cite copy` checks the log it copies as a rebuild does: a broken record refuses the
/// copy, names the record, and leaves no new ledger file behind.
#[test]
fn copy_refuses_a_broken_log_and_leaves_no_target() {
    let sb = Sandbox::new();
    varied(&sb);
    add_a_trailing_byte_to_record_6(&sb.ledger);
    let to = sb.path().join("copy.redb");
    let out = crate::util::cite_bin()
        .args(["copy", sb.ledger.to_str().unwrap(), to.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: record 6 is corrupted: record has 1 trailing byte(s)"),
        "{stderr}"
    );
    assert!(
        !to.exists(),
        "a half-made copy was left at {}",
        to.display()
    );
}

/// Breaks record 6 of the ledger at `ledger`: one byte appended to it.
fn add_a_trailing_byte_to_record_6(ledger: &std::path::Path) {
    let mut bytes = record_bytes(ledger, 6);
    bytes.push(0);
    tamper(ledger, |txn| {
        txn.open_table(cite_store::redbfile::tables::EVENTS)
            .unwrap()
            .insert(6, bytes.as_slice())
            .unwrap();
    });
}
