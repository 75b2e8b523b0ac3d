//! Stored-format compatibility: a ledger written by format version 1 (committed under
//! `tests/fixtures/`, never regenerated) must keep opening and answering exactly as it
//! did; its first write migrates it to format 2 (the log's tally beside the head), in one
//! transaction that rewrites no record; and a store from a newer format is refused by
//! name, with nothing appended.

use std::fs;

use crate::util::Sandbox;

/// A copy of the committed fixture in a fresh sandbox (opening for writing changes a file,
/// and the fixture must stay as written).
fn fixture() -> Sandbox {
    let sb = Sandbox::new();
    fs::copy("tests/fixtures/ledger-v1.redb", &sb.ledger).expect("copy fixture");
    sb
}

fn fixture_text(name: &str) -> String {
    fs::read_to_string(format!("tests/fixtures/{name}")).expect("fixture text")
}

#[test]
fn a_version_1_ledger_reads_as_it_was_written() {
    let sb = fixture();
    assert_eq!(
        sb.ok(&["list", "--epoch", "1", "--json"]),
        fixture_text("list1.json")
    );
    assert_eq!(sb.ok(&["list", "--json"]), fixture_text("list2.json"));
    // `list1.json` gained each quote's `number` on purpose (issue 20: `retract` takes it).
    // `log.json` is this build's reading, updated on purpose when a listing started to
    // give a transaction's origin once (issue 8): records 3 and 6 point at 2 and 5.
    // `list1.json` likewise, when `list --json` started to say which sources have page
    // text (issue 19): [4] was added with `--snapshot`; and again when the page a quote
    // was checked against started to count as the source's page text (issue 31): [1].
    assert_eq!(sb.ok(&["log", "--json"]), fixture_text("log.json"));
    let audit = sb.ok(&["audit"]);
    assert!(audit.starts_with("audit OK: 8 records"), "{audit}");
}

#[test]
fn a_version_1_ledger_takes_new_writes() {
    let sb = fixture();
    assert_eq!(
        sb.ok(&["add", "https://example.com/e"]),
        "[2] https://example.com/e\n"
    );
    assert_eq!(
        sb.ok(&["add", "https://example.com/d"]),
        "[1] https://example.com/d\n"
    );
    assert_eq!(
        sb.ok(&["list", "--epoch", "1", "--json"]),
        fixture_text("list1.json")
    );
    let audit = sb.ok(&["audit"]);
    assert!(audit.starts_with("audit OK: 9 records"), "{audit}");
}

/// The stored table-layout marker and the tally, read with redb directly.
fn format_and_tally(sb: &Sandbox) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    use redb::ReadableDatabase;
    let db = redb::Builder::new()
        .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
        .open_read_only(&sb.ledger)
        .expect("open");
    let txn = db.begin_read().expect("read");
    let meta = txn
        .open_table(cite_store::redbfile::tables::META)
        .expect("meta");
    let get = |k: &str| meta.get(k).expect("get").map(|g| g.value().to_vec());
    (
        get(cite_store::tables::META_FORMAT),
        get(cite_store::tables::META_TALLY),
    )
}

#[test]
fn the_first_write_migrates_format_1_to_2_and_rewrites_no_record() {
    let sb = fixture();
    let log = sb.ok(&["export", "--format", "jsonl"]);
    // Reading migrates nothing.
    sb.ok(&["list"]);
    sb.ok(&["audit"]);
    assert_eq!(
        format_and_tally(&sb),
        (Some(1u16.to_le_bytes().to_vec()), None)
    );
    // A write whose own work is refused (an unknown id) still finds the store migrated.
    sb.cite()
        .args(["quote", "9", "--text", "a b c d"])
        .assert()
        .code(1);
    let (format, tally) = format_and_tally(&sb);
    assert_eq!(format, Some(2u16.to_le_bytes().to_vec()));
    let tally = cite_store::tally::Tally::decode(&tally.expect("a tally")).unwrap();
    // The fixture: epoch 1 holds [1]; epoch 2, the current one, holds [1] (see list2.json).
    assert_eq!(tally.epoch.0, 2);
    assert_eq!(tally.last_id, 1);
    assert_eq!(
        sb.ok(&["export", "--format", "jsonl"]),
        log,
        "the migration changed the log"
    );
    assert_eq!(
        sb.ok(&["add", "https://example.com/next"]),
        "[2] https://example.com/next\n"
    );
    let audit = sb.ok(&["audit"]);
    assert!(audit.starts_with("audit OK: 9 records"), "{audit}");
}

/// How many records the log of the store at `sb` holds, read with redb directly.
fn records(sb: &Sandbox) -> u64 {
    use redb::{ReadableDatabase, ReadableTableMetadata};
    let db = redb::Builder::new()
        .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
        .open_read_only(&sb.ledger)
        .expect("open read-only");
    let txn = db.begin_read().expect("read");
    txn.open_table(cite_store::redbfile::tables::EVENTS)
        .expect("events")
        .len()
        .expect("len")
}

#[test]
fn a_newer_format_is_refused_by_name_and_gets_no_record() {
    let sb = fixture();
    {
        let db = redb::Builder::new()
            .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
            .open(&sb.ledger)
            .expect("open fixture");
        let txn = db.begin_write().expect("write");
        {
            let mut meta = txn
                .open_table(cite_store::redbfile::tables::META)
                .expect("meta");
            meta.insert(
                cite_store::tables::META_FORMAT,
                3u16.to_le_bytes().as_slice(),
            )
            .expect("insert");
        }
        txn.commit().expect("commit");
    }
    let before = records(&sb);
    for args in [&["list"][..], &["add", "https://example.com/z"][..]] {
        sb.cite()
            .args(args)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(format!(
                "unsupported ledger format in {} (got 3, supports 2)",
                sb.ledger.display()
            )));
    }
    assert_eq!(records(&sb), before, "a refused store gets no record");
}
