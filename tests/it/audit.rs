//! `cite audit`: passes on fresh, varied and rebuilt ledgers; fails, naming the first bad
//! record or table entry, on every kind of damage done behind the store's back (raw redb
//! writes to a record, the head, a view row, the url index, a quote, a snapshot), and on
//! a store file with flipped bytes, never with a panic.

use std::path::Path;
use std::time::Duration;

use cite_store::event::{Epoch, Event, FORMAT_VERSION, Origin, Provenance, Record, SourceId};
use cite_store::lock::LockMode;
use cite_store::redbfile::tables::{EVENTS, META, QUOTES, SNAPSHOTS, SOURCES, URLS};
use cite_store::tables::{QuoteRow, SourceRow};
use cite_store::{Store, StoreError};
use redb::{ReadableDatabase, ReadableTable, WriteTransaction};

use crate::util::{Sandbox, cite_bin, source_added};

/// The page stored with `add --snapshot` and given to `quote --from`.
pub const PAGE: &str = "# Floating ice\n\nIce is about **9% less dense** than liquid water, so it \
floats. The [density maximum](https://example.org/max) of water lies near 4 °C, which \
keeps lakes from freezing solid.\n";
pub const PAGE2: &str = "Sea ice forms when the ocean surface freezes; brine is pushed out \
of the growing crystals, so old sea ice is nearly fresh.\n";

/// A ledger with something of everything: adds with and without titles, a title filled
/// later, a route, a snapshot, quotes from a file and from the stored snapshot, an
/// ingest, a reset, and a second epoch with its own sources and quote.
pub fn varied(sb: &Sandbox) {
    let page = sb.file("page.md", PAGE);
    let page2 = sb.file("page2.txt", PAGE2);
    let results = sb.file(
        "results.json",
        r#"{"results":[{"url":"https://r1.example/a","title":"R1"},{"link":"https://r2.example/b"},{"url":"https://r1.example/a/"}]}"#,
    );
    sb.ok(&["add", "https://a.example/x", "--title", "A"]);
    sb.ok(&["add", "https://b.example", "https://c.example/p?q=1#frag"]);
    sb.ok(&["add", "https://b.example", "--title", "B later"]);
    sb.ok(&[
        "add",
        "https://d.example",
        "--via",
        "reddit",
        "--accessed",
        "2024-02-29",
    ]);
    sb.ok(&[
        "add",
        "https://e.example",
        "--snapshot",
        page.to_str().unwrap(),
    ]);
    let page = page.to_str().unwrap();
    sb.ok(&["quote", "5", "--text", "less dense than liquid water"]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "9% less dense than liquid water",
        "--from",
        page,
    ]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "density maximum of water lies near 4 °C",
        "--from",
        page,
    ]);
    sb.ok(&["ingest", results.to_str().unwrap(), "--via", "web"]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://a.example/x", "--title", "A again"]);
    sb.ok(&[
        "add",
        "https://z.example",
        "--snapshot",
        page2.to_str().unwrap(),
    ]);
    sb.ok(&["quote", "2", "--text", "old sea ice is nearly fresh"]);
    sb.ok(&["add", "https://y.example"]);
}

/// Runs `cite --ledger PATH audit` with backtraces requested; returns (code, stdout,
/// stderr) after checking that nothing panicked.
pub fn audit(ledger: &Path) -> (i32, String, String) {
    let out = cite_bin()
        .env("RUST_BACKTRACE", "1")
        .arg("--ledger")
        .arg(ledger)
        .arg("audit")
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("backtrace"), "{stderr}");
    assert!(!stderr.contains("internal error"), "{stderr}");
    let code = out.status.code().expect("exited, not killed by a signal");
    (code, stdout, stderr)
}

/// Asserts that audit passes.
pub fn audit_ok(ledger: &Path) -> String {
    let (code, stdout, stderr) = audit(ledger);
    assert_eq!(code, 0, "audit failed:\n{stdout}{stderr}");
    assert!(stdout.starts_with("audit OK: "), "{stdout}");
    assert_eq!(stderr, "");
    stdout
}

/// Asserts that audit fails and that its first problem starts with `first`; returns
/// stderr.
pub fn audit_fails(ledger: &Path, first: &str) -> String {
    let (code, stdout, stderr) = audit(ledger);
    assert_eq!(code, 1, "audit passed:\n{stdout}{stderr}");
    assert_eq!(stdout, "audit failed\n");
    let line = stderr.lines().next().unwrap_or("");
    assert!(
        line.starts_with(&format!("FAIL: {first}")),
        "expected `FAIL: {first}…`, got:\n{stderr}"
    );
    assert!(stderr.lines().all(|l| l.starts_with("FAIL: ")), "{stderr}");
    stderr
}

/// Opens the ledger file directly with redb (in the mode every cite process uses) and
/// runs `f` in one write transaction: damage done behind the store's back.
pub fn tamper(ledger: &Path, f: impl FnOnce(&WriteTransaction)) {
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.open(ledger).expect("open with redb");
    let txn = db.begin_write().unwrap();
    f(&txn);
    txn.commit().unwrap();
}

/// The stored bytes of record `seq`.
pub fn record_bytes(ledger: &Path, seq: u64) -> Vec<u8> {
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.open(ledger).unwrap();
    let txn = db.begin_read().unwrap();
    let t = txn.open_table(EVENTS).unwrap();
    t.get(seq).unwrap().expect("record exists").value().to_vec()
}

/// The seq of the record that added `url` (by its canonical form).
pub fn seq_of_add(ledger: &Path, url: &str) -> u64 {
    let store = Store::open_read(ledger, Duration::from_secs(5))
        .unwrap()
        .unwrap();
    let reader = store.read().unwrap();
    reader
        .records()
        .unwrap()
        .map(Result::unwrap)
        .find(|(_, r, _)| matches!(&r.event, Event::SourceAdded(a) if a.url == url))
        .map(|(seq, _, _)| seq.0)
        .expect("the url was added")
}

fn origin() -> Origin {
    Origin {
        at_ns: 0,
        pid: 1,
        actor: Some("test".into()),
        command: vec!["test".into()],
    }
}

/// Replaces `from` by `to` (same length) inside `bytes`, once.
fn replace_once(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .expect("pattern present");
    bytes[at..at + to.len()].copy_from_slice(to);
}

// ---- passing ---------------------------------------------------------------------------

#[test]
fn a_missing_ledger_audits_as_empty_and_is_not_created() {
    let sb = Sandbox::new();
    assert_eq!(
        audit_ok(&sb.ledger),
        "audit OK: 0 records; the ledger is empty\n"
    );
    assert!(!sb.ledger.exists());
}

#[test]
fn a_fresh_ledger_passes() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://one.example"]);
    let out = audit_ok(&sb.ledger);
    assert!(
        out.starts_with("audit OK: 1 record, hash chain intact to head "),
        "{out}"
    );
    assert!(
        out.ends_with("; 1 epoch, 1 source, 0 quotes re-checked against 0 snapshots\n"),
        "{out}"
    );
}

#[test]
fn a_varied_ledger_passes_and_reports_what_it_checked() {
    let sb = Sandbox::new();
    varied(&sb);
    let out = audit_ok(&sb.ledger);
    // 4 quotes over 2 snapshots; 7 + 3 sources in 2 epochs.
    assert!(
        out.ends_with("; 2 epochs, 10 sources, 4 quotes re-checked against 2 snapshots\n"),
        "{out}"
    );
    let json = sb.ok(&["audit", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["epochs"], 2);
    assert_eq!(v["sources"], 10);
    assert_eq!(v["quotes"], 4);
    assert_eq!(v["quotes_rechecked"], 4);
    assert_eq!(v["snapshots"], 2);
    assert_eq!(v["problems"], serde_json::json!([]));
    let log: serde_json::Value = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let last = log.as_array().unwrap().last().unwrap();
    assert_eq!(v["records"], last["seq"]);
    assert_eq!(v["head"], last["hash"]);
    let head = last["hash"].as_str().unwrap();
    assert!(out.contains(&format!("to head {}…;", &head[..12])), "{out}");
}

#[test]
fn a_rebuilt_ledger_passes() {
    let sb = Sandbox::new();
    varied(&sb);
    sb.ok(&["rebuild"]);
    audit_ok(&sb.ledger);
}

#[test]
fn quotes_without_page_text_are_counted_not_failed() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    let store = Store::open_write(&sb.ledger, LockMode::Write, Duration::from_secs(5)).unwrap();
    store
        .write(&origin(), Duration::from_secs(5), |w| {
            for id in [1, 2] {
                w.append(Event::QuoteImported {
                    epoch: Epoch(1),
                    id: SourceId(id),
                    text: "carried over from sources.py".into(),
                    added: "2024-01-02".into(),
                })?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    drop(store);
    let out = audit_ok(&sb.ledger);
    assert!(
        out.ends_with(
            "0 quotes re-checked against 0 snapshots (2 imported quotes have no page text)\n"
        ),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&sb.ok(&["audit", "--json"])).unwrap();
    assert_eq!(v["quotes_without_snapshot"], 2);
    assert_eq!(v["quotes"], 2);
}

// ---- the log ---------------------------------------------------------------------------

#[test]
fn a_record_changed_in_place_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    let seq = seq_of_add(&sb.ledger, "https://d.example");
    let mut bytes = record_bytes(&sb.ledger, seq);
    // Same length, still a valid record: only the chain can tell.
    replace_once(&mut bytes, b"d.example", b"x.example");
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(EVENTS).unwrap();
        t.insert(seq, bytes.as_slice()).unwrap();
    });
    let err = audit_fails(&sb.ledger, &format!("record {seq}: its hash "));
    assert!(
        err.contains(&format!("record {} was changed", seq + 1)),
        "{err}"
    );
}

#[test]
fn the_last_record_changed_in_place_is_caught_at_the_head() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    let mut bytes = record_bytes(&sb.ledger, 2);
    replace_once(&mut bytes, b"b.example", b"c.example");
    tamper(&sb.ledger, |txn| {
        txn.open_table(EVENTS)
            .unwrap()
            .insert(2, bytes.as_slice())
            .unwrap();
    });
    let err = audit_fails(&sb.ledger, "head: the stored head hash ");
    assert!(err.contains("record 2 or the head was changed"), "{err}");
}

#[test]
fn a_trailing_byte_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    let mut bytes = record_bytes(&sb.ledger, 3);
    bytes.push(0);
    tamper(&sb.ledger, |txn| {
        txn.open_table(EVENTS)
            .unwrap()
            .insert(3, bytes.as_slice())
            .unwrap();
    });
    audit_fails(&sb.ledger, "record 3: record has 1 trailing byte(s)");
}

#[test]
fn a_record_that_does_not_decode_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        txn.open_table(EVENTS)
            .unwrap()
            .insert(4, [1u8, 0xFF, 0xFF].as_slice())
            .unwrap();
    });
    audit_fails(&sb.ledger, "record 4: record does not decode");
}

#[test]
fn a_missing_record_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        txn.open_table(EVENTS).unwrap().remove(5).unwrap();
    });
    audit_fails(
        &sb.ledger,
        "record 5: missing: the log jumps from record 4 to record 6",
    );
}

#[test]
fn a_wrong_head_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    let original = {
        let mut b = redb::Builder::new();
        b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
        let db = b.open(&sb.ledger).unwrap();
        let txn = db.begin_read().unwrap();
        let meta = txn.open_table(META).unwrap();
        meta.get("head").unwrap().unwrap().value().to_vec()
    };
    // A wrong hash…
    let mut bad = original.clone();
    bad[20] ^= 1;
    tamper(&sb.ledger, |txn| {
        txn.open_table(META)
            .unwrap()
            .insert("head", bad.as_slice())
            .unwrap();
    });
    audit_fails(&sb.ledger, "head: the stored head hash ");
    // …a wrong seq…
    let mut bad = original.clone();
    bad[0] -= 1;
    tamper(&sb.ledger, |txn| {
        txn.open_table(META)
            .unwrap()
            .insert("head", bad.as_slice())
            .unwrap();
    });
    audit_fails(&sb.ledger, "head: the stored head names record ");
    // …no head at all…
    tamper(&sb.ledger, |txn| {
        txn.open_table(META).unwrap().remove("head").unwrap();
    });
    audit_fails(&sb.ledger, "head: no head is stored, but the log has ");
    // …and the original again.
    tamper(&sb.ledger, |txn| {
        txn.open_table(META)
            .unwrap()
            .insert("head", original.as_slice())
            .unwrap();
    });
    audit_ok(&sb.ledger);
}

/// Writes `event` as the next record of the log with redb directly, chained and with the
/// head moved, so only a replay's own checks can object to it: what a buggy or hostile
/// writer could leave behind, which the store's apply path would refuse to write.
pub fn append_raw(ledger: &Path, event: Event) {
    tamper(ledger, |txn| {
        let mut meta = txn.open_table(META).unwrap();
        let head = meta.get("head").unwrap().unwrap().value().to_vec();
        let seq = u64::from_le_bytes(head[..8].try_into().unwrap()) + 1;
        let record = Record {
            format: FORMAT_VERSION,
            provenance: Provenance::Origin(origin()),
            prev: head[8..].try_into().unwrap(),
            event,
        };
        let bytes = record.encode();
        txn.open_table(EVENTS)
            .unwrap()
            .insert(seq, bytes.as_slice())
            .unwrap();
        let mut new_head = seq.to_le_bytes().to_vec();
        new_head.extend_from_slice(&record.hash());
        meta.insert("head", new_head.as_slice()).unwrap();
    });
}

#[test]
fn a_rechained_log_that_adds_an_id_or_a_url_twice_is_named() {
    // The replay's own duplicate checks, by their own words: the store's apply path would
    // refuse these records too, but in other words.
    for (event, first) in [
        (
            source_added(1, 1, "https://b.example"),
            "record 2: adds [1] to epoch 1, which already has it",
        ),
        (
            source_added(1, 2, "https://a.example"),
            "record 2: adds https://a.example as [2], but it is already [1]",
        ),
    ] {
        let sb = Sandbox::new();
        sb.ok(&["add", "https://a.example"]);
        append_raw(&sb.ledger, event);
        audit_fails(&sb.ledger, first);
    }
}

#[test]
fn a_selector_that_misplaces_its_quote_is_named_even_when_log_and_views_agree() {
    // The quote's record and its view row both carry a wrong selector, with the chain
    // and the head rewritten to match: only the re-check against the snapshot sees it.
    let sb = Sandbox::new();
    let page = sb.file("page.md", PAGE);
    sb.ok(&["add", "https://a.example"]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "9% less dense than liquid water",
        "--from",
        page.to_str().unwrap(),
    ]);
    audit_ok(&sb.ledger);
    tamper(&sb.ledger, |txn| {
        let mut events = txn.open_table(EVENTS).unwrap();
        let mut meta = txn.open_table(META).unwrap();
        let head = meta.get("head").unwrap().unwrap().value().to_vec();
        let seq = u64::from_le_bytes(head[..8].try_into().unwrap());
        let mut record = Record::decode(events.get(seq).unwrap().unwrap().value()).unwrap();
        let Event::QuoteAttached(q) = &mut record.event else {
            panic!("the last record attaches the quote");
        };
        q.selector.start += 1;
        q.selector.end += 1;
        let selector = q.selector.clone();
        events.insert(seq, record.encode().as_slice()).unwrap();
        let mut new_head = seq.to_le_bytes().to_vec();
        new_head.extend_from_slice(&record.hash());
        meta.insert("head", new_head.as_slice()).unwrap();
        let mut quotes = txn.open_table(QUOTES).unwrap();
        let mut row = QuoteRow::decode(quotes.get((1, 1, 1)).unwrap().unwrap().value()).unwrap();
        row.selector = Some(selector);
        quotes.insert((1, 1, 1), row.encode().as_slice()).unwrap();
    });
    let err = audit_fails(
        &sb.ledger,
        "quotes (epoch 1, id 1, quote 1): its stored selector (chars ",
    );
    assert!(
        err.contains("is not where the quote sits in its snapshot"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

// ---- the views -------------------------------------------------------------------------

#[test]
fn an_edited_source_row_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(SOURCES).unwrap();
        let mut row = SourceRow::decode(t.get((1, 2)).unwrap().unwrap().value()).unwrap();
        row.title = "Forged".into();
        t.insert((1, 2), row.encode().as_slice()).unwrap();
    });
    audit_fails(
        &sb.ledger,
        "sources (epoch 1, id 2): title is \"Forged\", the log gives \"B later\"",
    );
}

#[test]
fn a_source_row_that_does_not_decode_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(SOURCES).unwrap();
        t.insert((2, 3), [7u8; 3].as_slice()).unwrap();
    });
    audit_fails(
        &sb.ledger,
        "sources (epoch 2, id 3): source row does not decode",
    );
}

#[test]
fn an_extra_source_row_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(SOURCES).unwrap();
        let row = t.get((1, 1)).unwrap().unwrap().value().to_vec();
        t.insert((1, 99), row.as_slice()).unwrap();
    });
    audit_fails(
        &sb.ledger,
        "sources (epoch 1, id 99): stored, but no record of the log makes it",
    );
}

#[test]
fn a_removed_url_index_entry_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(URLS).unwrap();
        assert!(t.remove((1, "https://c.example/p?q=1")).unwrap().is_some());
    });
    audit_fails(
        &sb.ledger,
        "urls (epoch 1, https://c.example/p?q=1): missing: the log adds it as [3]",
    );
}

#[test]
fn a_redirected_url_index_entry_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(URLS).unwrap();
        t.insert((2, "https://y.example"), 1).unwrap();
    });
    audit_fails(
        &sb.ledger,
        "urls (epoch 2, https://y.example): maps to [1], the log gives [3]",
    );
}

#[test]
fn a_changed_counter_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        txn.open_table(META)
            .unwrap()
            .insert("count/1", 9u64.to_le_bytes().as_slice())
            .unwrap();
    });
    audit_fails(&sb.ledger, "meta (count/1): stored 9, the log gives 7");
}

#[test]
fn a_changed_quote_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(QUOTES).unwrap();
        let mut row = QuoteRow::decode(t.get((1, 1, 2)).unwrap().unwrap().value()).unwrap();
        row.text = "the density maximum lies near 40 °C".into();
        t.insert((1, 1, 2), row.encode().as_slice()).unwrap();
    });
    let err = audit_fails(
        &sb.ledger,
        "quotes (epoch 1, id 1, quote 2): text is \"the density maximum lies near 40 °C\", the log gives \"density maximum of water lies near 4 °C\"",
    );
    // Re-checked against its snapshot too.
    assert!(
        err.contains(
            "FAIL: quotes (epoch 1, id 1, quote 2): the quote is not found in its snapshot"
        ),
        "{err}"
    );
}

#[test]
fn a_changed_snapshot_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    let key = *blake3::hash(PAGE2.as_bytes()).as_bytes();
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(SNAPSHOTS).unwrap();
        let forged = PAGE2.replace("nearly fresh", "really salty");
        t.insert(key.as_slice(), forged.as_bytes()).unwrap();
    });
    let err = audit_fails(
        &sb.ledger,
        &format!(
            "snapshots ({}): its text does not hash to its key",
            blake3::Hash::from_bytes(key).to_hex()
        ),
    );
    assert!(
        err.contains("FAIL: quotes (epoch 2, id 2, quote 1): the quote is not found"),
        "{err}"
    );
}

#[test]
fn a_missing_snapshot_is_named() {
    let sb = Sandbox::new();
    varied(&sb);
    let key = *blake3::hash(PAGE.as_bytes()).as_bytes();
    let hex = blake3::Hash::from_bytes(key).to_hex().to_string();
    tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(SNAPSHOTS).unwrap();
        t.remove(key.as_slice()).unwrap();
    });
    let err = audit_fails(
        &sb.ledger,
        &format!("quotes (epoch 1, id 1, quote 1): its snapshot {hex} is missing"),
    );
    assert!(
        err.contains(&format!(
            "FAIL: sources (epoch 1, id 5): its snapshot {hex} is missing"
        )),
        "{err}"
    );
}

#[test]
fn many_problems_are_capped_and_counted() {
    let sb = Sandbox::new();
    let urls: Vec<String> = (0..80).map(|i| format!("https://m{i}.example")).collect();
    let mut args = vec!["add"];
    args.extend(urls.iter().map(String::as_str));
    sb.ok(&args);
    tamper(&sb.ledger, |txn| {
        txn.delete_table(URLS).unwrap();
    });
    let err = audit_fails(&sb.ledger, "urls (epoch 1, https://m0.example): missing");
    assert_eq!(err.lines().count(), 51, "{err}");
    assert_eq!(err.lines().last().unwrap(), "FAIL: … and 30 more problems");
    let v: serde_json::Value = serde_json::from_str(
        &String::from_utf8(sb.cite().args(["audit", "--json"]).output().unwrap().stdout).unwrap(),
    )
    .unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["problems"].as_array().unwrap().len(), 50);
    assert_eq!(v["problems_omitted"], 30);
    assert_eq!(v["problems"][0]["place"]["kind"], "entry");
    assert_eq!(v["problems"][0]["place"]["table"], "urls");
}

// ---- unreadable stores -----------------------------------------------------------------

#[test]
fn a_store_that_cannot_be_read_fails_with_a_message() {
    let sb = Sandbox::new();
    varied(&sb);
    let bytes = std::fs::read(&sb.ledger).unwrap();
    let cut = sb.path().join("cut.redb");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    audit_fails(&cut, "store: cannot read the store: ");
    let text = sb.file("notes.txt", "just some notes, not a ledger\n");
    audit_fails(&text, "store: cannot read the store: ");
}

#[test]
fn flipped_bytes_in_a_copy_fail_the_audit_cleanly() {
    let sb = Sandbox::new();
    varied(&sb);
    // Some more records, so that more pages are live.
    let urls: Vec<String> = (0..200)
        .map(|i| format!("https://f{i}.example/p"))
        .collect();
    let mut args = vec!["add"];
    args.extend(urls.iter().map(String::as_str));
    sb.ok(&args);
    let original = std::fs::read(&sb.ledger).unwrap();
    let n = original.len();
    // The file header, the start of the first pages, and points spread over the file.
    let mut offsets: Vec<usize> = vec![0, 9, 64, 200, 600, 1000];
    offsets.extend((4096..n.min(256 * 1024)).step_by(4096).map(|p| p + 40));
    offsets.extend((0..24).map(|i| n * i / 24 + 333));
    offsets.retain(|&o| o < n);
    let copy = sb.path().join("copy.redb");
    let mut failed = 0;
    for &at in &offsets {
        let mut bytes = original.clone();
        bytes[at] ^= 0x5A;
        std::fs::write(&copy, &bytes).unwrap();
        let _ = std::fs::remove_file(sb.path().join("copy.redb.lock"));
        let (code, stdout, stderr) = audit(&copy);
        match code {
            0 => assert!(stdout.starts_with("audit OK: "), "offset {at}: {stdout}"),
            1 => {
                failed += 1;
                assert_eq!(stdout, "audit failed\n", "offset {at}");
                assert!(stderr.starts_with("FAIL: "), "offset {at}: {stderr}");
            }
            other => panic!("offset {at}: exit {other}: {stdout}{stderr}"),
        }
    }
    eprintln!("flipped bytes: {failed} of {} noticed", offsets.len());
    assert!(
        failed >= 3,
        "only {failed} of {} flipped bytes were noticed",
        offsets.len()
    );
}
