//! The read commands through the binary: `list` (plain, `--json`, `--by-via`, `--epoch`),
//! `log` (lines, `--json` hash chain, `--id`, `$CITE_ACTOR`), `show`; the ledger path
//! rules (`--ledger` before or after the subcommand, `$CITE_LEDGER`, `$XDG_DATA_HOME`);
//! that reading a ledger that does not exist creates nothing; and that a closed output
//! pipe is not an error.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use cite_store::event::{Epoch, Event, Origin};
use cite_store::lock::LockMode;
use cite_store::{Store, StoreError};
use predicates::prelude::*;
use serde_json::Value;

use crate::util::{Sandbox, cite_bin};

fn json(text: &str) -> Vec<Value> {
    serde_json::from_str(text).expect("a JSON array")
}

/// Every file and folder under `dir`, recursively.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

// ---- list ------------------------------------------------------------------------------

#[test]
fn list_prints_ids_urls_and_titles() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/x", "--title", "Alpha  report"]);
    sb.ok(&["add", "https://b.example"]);
    sb.ok(&["add", "doi:10.1000/182", "--title", "DOI Handbook"]);
    sb.cite().arg("list").assert().success().stderr("").stdout(
        "[1] https://a.example/x  Alpha  report\n\
         [2] https://b.example\n\
         [3] https://doi.org/10.1000/182  DOI Handbook\n",
    );
}

#[test]
fn list_of_a_missing_ledger_is_empty_and_creates_nothing() {
    let sb = Sandbox::new();
    sb.cite()
        .arg("list")
        .assert()
        .success()
        .stdout(format!("ledger is empty: {}\n", sb.ledger.display()));
    sb.cite()
        .args(["list", "--json"])
        .assert()
        .success()
        .stdout("[]\n");
    sb.cite()
        .args(["list", "--by-via"])
        .assert()
        .success()
        .stdout("");
    assert!(tree(sb.path()).is_empty(), "{:?}", tree(sb.path()));
}

#[test]
fn list_of_a_missing_ledger_in_a_missing_folder_creates_no_folder() {
    let sb = Sandbox::new();
    let deep = sb.path().join("no/such/folder/ledger.redb");
    cite_bin()
        .arg("--ledger")
        .arg(&deep)
        .arg("list")
        .assert()
        .success()
        .stdout(format!("ledger is empty: {}\n", deep.display()));
    for args in [&["log"][..], &["log", "--json"]] {
        cite_bin()
            .arg("--ledger")
            .arg(&deep)
            .args(args)
            .assert()
            .success();
    }
    assert!(tree(sb.path()).is_empty(), "{:?}", tree(sb.path()));
}

#[test]
fn log_of_a_missing_ledger_is_empty_and_creates_nothing() {
    let sb = Sandbox::new();
    sb.cite().arg("log").assert().success().stdout("");
    sb.cite()
        .args(["log", "--json"])
        .assert()
        .success()
        .stdout("[]\n");
    assert!(tree(sb.path()).is_empty(), "{:?}", tree(sb.path()));
}

#[test]
fn list_json_is_an_array_of_sources() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example",
        "--title",
        "A \"quoted\" title",
        "--accessed",
        "2024-05-06",
    ]);
    sb.ok(&[
        "add",
        "https://b.example",
        "--via",
        "rss",
        "--accessed",
        "2024-05-07",
    ]);
    let out = sb.ok(&["list", "--json"]);
    assert!(out.starts_with("[\n  {\n    \"id\": 1,\n"), "{out}");
    let v = json(&out);
    assert_eq!(
        v,
        [
            serde_json::json!({"id": 1, "url": "https://a.example", "title": "A \"quoted\" title", "accessed": "2024-05-06"}),
            serde_json::json!({"id": 2, "url": "https://b.example", "title": "", "accessed": "2024-05-07", "via": "rss"}),
        ]
    );
}

#[test]
fn list_by_via_counts_routes_with_no_route_last() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://n1.example"]);
    sb.ok(&[
        "add",
        "--via",
        "web",
        "https://w1.example",
        "https://w2.example",
    ]);
    sb.ok(&["add", "--via", "reddit", "https://r1.example"]);
    sb.ok(&["add", "--via", "web", "https://w3.example"]);
    sb.ok(&["add", "https://n2.example"]);
    sb.ok(&["add", "--via", "x", "https://x1.example"]);
    let out = sb.ok(&["list", "--by-via"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last().copied(), Some("(no route): 2"), "{out}");
    let mut routes = lines[..lines.len() - 1].to_vec();
    routes.sort();
    assert_eq!(routes, ["reddit: 1", "web: 3", "x: 1"]);
}

#[test]
fn list_reads_an_earlier_epoch() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "--title", "A"]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://b.example"]);
    assert_eq!(sb.ok(&["list"]), "[1] https://b.example\n");
    assert_eq!(
        sb.ok(&["list", "--epoch", "1"]),
        "[1] https://a.example  A\n"
    );
    assert_eq!(
        json(&sb.ok(&["list", "--epoch", "1", "--json"]))[0]["title"],
        "A"
    );
    sb.cite()
        .args(["list", "--epoch", "3"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("error: no epoch 3 "));
    sb.cite()
        .args(["show", "1", "--epoch", "99"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("error: no epoch 99 "));
}

// ---- log -------------------------------------------------------------------------------

#[test]
fn log_lines_tell_seq_process_event_and_command() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    sb.ok(&["add", "https://a.example", "--title", "T"]);
    sb.ok(&["reset"]);
    let out = sb.ok(&["log"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("#{} ", i + 1)), "{line}");
        assert!(line.contains(" pid "), "{line}");
        assert!(!line.contains(" actor "), "{line}");
    }
    assert!(
        lines[0].contains("added [1] https://a.example"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("<- "), "{}", lines[0]);
    assert!(lines[0].ends_with(" add https://a.example"), "{}", lines[0]);
    assert!(lines[1].contains("titled [1] \"T\""), "{}", lines[1]);
    assert!(
        lines[1].ends_with(" add https://a.example --title T"),
        "{}",
        lines[1]
    );
    assert!(lines[2].contains("reset: epoch 2 begins"), "{}", lines[2]);
    assert!(lines[2].ends_with(" reset"), "{}", lines[2]);
}

#[test]
fn log_names_the_actor() {
    let sb = Sandbox::new();
    sb.cite()
        .env("CITE_ACTOR", "alice")
        .args(["add", "https://a.example"])
        .assert()
        .success();
    sb.ok(&["add", "https://b.example"]);
    let out = sb.ok(&["log"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains(" actor alice"), "{}", lines[0]);
    assert!(!lines[1].contains(" actor "), "{}", lines[1]);
    let v = json(&sb.ok(&["log", "--json"]));
    assert_eq!(v[0]["actor"], "alice");
    assert!(v[1].get("actor").is_none());
}

#[test]
fn log_json_is_a_hash_chain() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    sb.ok(&["add", "https://b.example", "--title", "B"]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://c.example", "--via", "web"]);
    let v = json(&sb.ok(&["log", "--json"]));
    assert_eq!(v.len(), 5);
    let mut prev = "0".repeat(64);
    for (i, r) in v.iter().enumerate() {
        assert_eq!(r["seq"], (i + 1) as u64);
        // The second record was written by the first one's transaction, whose origin
        // is given once.
        if i == 1 {
            assert_eq!(r["same_transaction_as"], 1, "{r}");
            assert!(r.get("time").is_none() && r.get("command").is_none(), "{r}");
        } else {
            assert!(r.get("same_transaction_as").is_none(), "{r}");
            assert!(r["time"].as_str().unwrap().ends_with('Z'), "{r}");
            assert!(r["pid"].as_u64().unwrap() > 0);
            let cmd: Vec<&str> = r["command"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap())
                .collect();
            assert!(cmd.contains(&"--ledger"), "{cmd:?}");
        }
        let hash = r["hash"].as_str().unwrap();
        assert_eq!(hash.len(), 64);
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{hash}");
        assert_eq!(r["prev"], prev.as_str(), "record {}", i + 1);
        prev = hash.to_string();
    }
    let kinds: Vec<&str> = v
        .iter()
        .map(|r| r["event"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "source_added",
            "source_added",
            "title_set",
            "reset",
            "source_added"
        ]
    );
    assert_eq!(v[0]["event"]["url"], "https://a.example");
    assert_eq!(v[2]["event"]["title"], "B");
    assert_eq!(v[2]["event"]["id"], 2);
    assert_eq!(v[3]["event"]["new_epoch"], 2);
    assert_eq!(v[4]["event"]["epoch"], 2);
    assert_eq!(v[4]["event"]["via"], "web");
}

#[test]
fn log_id_shows_only_that_sources_events() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    sb.ok(&["add", "https://b.example", "--title", "B"]);
    sb.ok(&["add", "https://c.example"]);
    let out = sb.ok(&["log", "--id", "2"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("#2 ") && lines[0].contains("added [2] https://b.example"));
    assert!(lines[1].starts_with("#3 ") && lines[1].contains("titled [2] \"B\""));
    let v = json(&sb.ok(&["log", "--id", "2", "--json"]));
    let seqs: Vec<u64> = v.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [2, 3]);
    sb.cite()
        .args(["log", "--id", "9"])
        .assert()
        .code(1)
        .stderr("error: no source [9] in the ledger\n");
}

/// One `add` of three URLs: one transaction of three records.
const ADD_ABC: [&str; 4] = [
    "add",
    "https://a.example",
    "https://b.example",
    "https://c.example",
];

/// Asserts that `line` is the `log` line of record `seq` giving its origin, from a
/// command line that ends with `tail`.
fn assert_gives_origin(line: &str, seq: u64, tail: &str) {
    assert!(
        line.starts_with(&format!("#{seq} ")) && line.contains(" pid "),
        "{line}"
    );
    assert!(line.contains("  <- ") && line.ends_with(tail), "{line}");
}

#[test]
fn log_gives_a_transactions_origin_once() {
    let sb = Sandbox::new();
    sb.ok(&ADD_ABC);
    sb.ok(&["add", "https://d.example"]);
    let out = sb.ok(&["log"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_gives_origin(lines[0], 1, &ADD_ABC.join(" "));
    assert_eq!(
        lines[1],
        "#2 (same transaction as #1)  added [2] https://b.example (epoch 1)"
    );
    assert_eq!(
        lines[2],
        "#3 (same transaction as #1)  added [3] https://c.example (epoch 1)"
    );
    assert_gives_origin(lines[3], 4, " add https://d.example");
}

#[test]
fn log_id_and_show_give_the_origin_of_a_transaction_they_start_inside() {
    let sb = Sandbox::new();
    sb.ok(&ADD_ABC);
    let page = sb.file("page.txt", "Some page text, kept as the snapshot.");
    // One transaction of two records for [4]: added, then its page text stored.
    sb.ok(&[
        "add",
        "https://d.example",
        "--snapshot",
        page.to_str().unwrap(),
    ]);
    sb.ok(&["add", "https://b.example", "--title", "B"]);

    // [2]'s first record is the second of its transaction, whose first is not shown:
    // it carries the origin itself.
    let out = sb.ok(&["log", "--id", "2"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_gives_origin(lines[0], 2, &ADD_ABC.join(" "));
    assert!(lines[0].contains("  added [2] https://b.example (epoch 1)  <- "));
    assert_gives_origin(lines[1], 6, " --title B");
    let v = json(&sb.ok(&["log", "--id", "2", "--json"]));
    assert!(v[0]["command"].as_array().unwrap().len() > 3, "{}", v[0]);
    assert!(v[0].get("same_transaction_as").is_none(), "{}", v[0]);

    // [4]'s two records share a transaction: the origin once, then a pointer.
    let v = json(&sb.ok(&["log", "--id", "4", "--json"]));
    assert_eq!(v.len(), 2);
    assert_eq!(v[0]["seq"], 4);
    assert!(
        v[0]["time"].is_string() && v[0]["command"].is_array(),
        "{}",
        v[0]
    );
    assert_eq!(v[1]["seq"], 5);
    assert_eq!(v[1]["same_transaction_as"], 4);
    assert!(v[1].get("command").is_none(), "{}", v[1]);
    let shown: Value = serde_json::from_str(&sb.ok(&["show", "4", "--json"])).unwrap();
    assert_eq!(Value::Array(v), shown["history"]);
    let out = sb.ok(&["show", "4"]);
    let history: Vec<&str> = out.lines().skip_while(|l| *l != "history:").collect();
    assert_eq!(history.len(), 3, "{out}");
    assert!(
        history[1].starts_with("  #4 ") && history[1].contains(" <- "),
        "{out}"
    );
    assert!(
        history[2].starts_with("  #5 (same transaction as #4)  stored page text for [4]"),
        "{out}"
    );
}

#[test]
fn log_epoch_that_starts_inside_a_transaction_gives_its_origin() {
    // No command writes across a reset in one transaction today, but the stored format
    // allows it: `--epoch 2` must then still show the origin on the first entry it
    // shows, and point the others at that entry, not at a record it left out.
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let store = Store::open_write(&sb.ledger, LockMode::Write, Duration::from_secs(5)).unwrap();
    let origin = Origin {
        at_ns: 0,
        pid: 42,
        actor: Some("mixer".into()),
        command: vec!["mix".into()],
    };
    let added = crate::util::source_added;
    store
        .write(&origin, Duration::from_secs(5), |w| {
            w.append(added(1, 2, "https://b.example"))?;
            w.append(Event::Reset {
                new_epoch: Epoch(2),
            })?;
            w.append(added(2, 1, "https://c.example"))?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    drop(store);

    let out = sb.ok(&["log", "--epoch", "2"]);
    assert_eq!(
        out,
        "#3 1970-01-01T00:00:00Z pid 42 actor mixer  reset: epoch 2 begins  <- mix\n\
         #4 (same transaction as #3)  added [1] https://c.example (epoch 2)\n"
    );
    let v = json(&sb.ok(&["log", "--epoch", "2", "--json"]));
    assert_eq!(v[0]["seq"], 3);
    assert_eq!(v[0]["pid"], 42);
    assert_eq!(v[0]["actor"], "mixer");
    assert_eq!(v[0]["command"], serde_json::json!(["mix"]));
    assert_eq!(v[1]["same_transaction_as"], 3);
    // Epoch 1 ends inside the transaction; the whole log points at its first record.
    let v = json(&sb.ok(&["log", "--epoch", "1", "--json"]));
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["pid"], 42);
    let v = json(&sb.ok(&["log", "--json"]));
    assert_eq!(v[1]["pid"], 42);
    assert_eq!(v[2]["same_transaction_as"], 2);
    assert_eq!(v[3]["same_transaction_as"], 2);
}

/// How many bytes `cite ARGS…` writes to stdout, counted as they stream by, so that a
/// regression shows as a failed bound rather than as gigabytes held in memory.
fn stdout_len(sb: &Sandbox, args: &[&str]) -> u64 {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("run cite");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let n = std::io::copy(&mut stdout, &mut std::io::sink()).expect("read stdout");
    assert!(
        child.wait().expect("wait").success(),
        "cite {args:?} failed"
    );
    n
}

/// Issue 8, item 8: every record of a transaction repeated its command line, so one
/// `add` of k URLs printed k copies of a k-URL command line. The origin is now printed
/// once per transaction: each output must stay within a fixed size per record plus the
/// command line a small number of times. Sizes, never times.
#[test]
fn log_and_jsonl_print_a_transactions_command_once() {
    const N: usize = 2_000;
    let sb = Sandbox::new();
    let urls: Vec<String> = (0..N)
        .map(|i| format!("https://example.com/articles/{i:05}/a-slug-that-pads-the-command"))
        .collect();
    let mut args = vec!["add"];
    args.extend(urls.iter().map(String::as_str));
    sb.ok(&args);
    let command: u64 = urls.iter().map(|u| u.len() as u64 + 1).sum();
    // A record's own line (event, hashes, stored bytes as hex) is well under 1 KiB; the
    // command line may appear in the transaction's first record (decoded, and once
    // more inside `record`'s hex for jsonl, at 2 characters a byte, JSON-quoted).
    let bound = N as u64 * 1024 + 4 * command;
    assert!(
        bound < N as u64 * command / 10,
        "the bound must catch a repeated command"
    );
    for what in [
        &["log"][..],
        &["log", "--json"],
        &["export", "--format", "jsonl"],
    ] {
        let n = stdout_len(&sb, what);
        assert!(
            n <= bound,
            "cite {what:?} printed {n} bytes for {N} records (bound {bound})"
        );
    }
}

// ---- show ------------------------------------------------------------------------------

#[test]
fn show_prints_the_source_and_its_history() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "HTTPS://A.Example/Doc/#intro",
        "--accessed",
        "2024-03-04",
    ]);
    sb.ok(&["add", "https://a.example/Doc", "--title", "The doc"]);
    let out = sb.ok(&["show", "1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[1] https://a.example/Doc  The doc");
    assert_eq!(lines[1], "  epoch:     1");
    assert_eq!(lines[2], "  given as:  HTTPS://A.Example/Doc/#intro");
    assert_eq!(lines[3], "  accessed:  2024-03-04");
    assert_eq!(
        lines[4],
        "  page text: none — a quote needs the page's text given with it"
    );
    assert_eq!(lines[5], "history:");
    assert_eq!(lines.len(), 8, "{out}");
    assert!(lines[6].starts_with("  #1 ") && lines[6].contains("added [1] https://a.example/Doc"));
    assert!(lines[7].starts_with("  #2 ") && lines[7].contains("titled [1] \"The doc\""));
}

#[test]
fn show_of_an_unknown_id_fails() {
    let sb = Sandbox::new();
    // Before the ledger exists, and after.
    sb.cite()
        .args(["show", "9"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: no source [9] in the ledger\n");
    assert!(!sb.ledger.exists());
    sb.ok(&["add", "https://a.example"]);
    sb.cite()
        .args(["show", "9"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: no source [9] in the ledger\n");
}

#[test]
fn show_json_has_the_source_and_history() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example/",
        "--via",
        "code",
        "--accessed",
        "2024-01-01",
    ]);
    let out = sb.ok(&["show", "1", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["epoch"], 1);
    assert_eq!(v["url"], "https://a.example");
    assert_eq!(v["url_given"], "https://a.example/");
    assert_eq!(v["title"], "");
    assert_eq!(v["accessed"], "2024-01-01");
    assert_eq!(v["via"], "code");
    let history = v["history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["event"]["kind"], "source_added");
    assert_eq!(history[0]["prev"], "0".repeat(64));
}

#[test]
fn show_reads_an_earlier_epoch() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://old.example"]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://new.example"]);
    assert!(
        sb.ok(&["show", "1"])
            .starts_with("[1] https://new.example\n  epoch:     2\n")
    );
    assert!(
        sb.ok(&["show", "1", "--epoch", "1"])
            .starts_with("[1] https://old.example\n  epoch:     1\n")
    );
}

// ---- show: the page texts ---------------------------------------------------------------

const LAKE: &str = "Ice is about 9% less dense than water.\nA lake freezes from the top down.\n";

/// A sandbox with [1] quoted twice against `page` (given with each quote, as the
/// quickstart does).
fn quoted(page: &str) -> Sandbox {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://lake.example/ice"]);
    let p = sb.file("page.md", page);
    let from = p.to_str().unwrap();
    for text in ["about 9% less dense", "from the top down"] {
        sb.ok(&["quote", "1", "--text", text, "--from", from]);
    }
    sb
}

fn show_json(sb: &Sandbox, args: &[&str]) -> Value {
    let mut all = vec!["show"];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_str(&sb.ok(&all)).unwrap()
}

#[test]
fn show_counts_the_page_texts_its_quotes_were_checked_against() {
    let sb = quoted(LAKE);
    let v = show_json(&sb, &["1"]);
    let hash = v["page_texts"][0]["snapshot"].as_str().unwrap().to_string();
    assert_eq!(v["page_text"], true);
    assert_eq!(
        v["page_texts"],
        serde_json::json!([{"snapshot": hash, "quotes": [1, 2]}])
    );
    let out = sb.ok(&["show", "1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[4],
        "  page text: 1 stored — read with `cite show 1 --text`"
    );
    assert_eq!(
        lines[5],
        format!("  snapshot:  {hash}  quotes 1, 2 checked against it")
    );
    // A page stored with the source, and one more quote's: two, each said what stored it.
    let other = sb.file(
        "other.md",
        "Pure water is densest at about 4 °C, as is well known.",
    );
    sb.ok(&[
        "add",
        "https://lake.example/ice",
        "--snapshot",
        other.to_str().unwrap(),
    ]);
    let out = sb.ok(&["show", "1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[4],
        "  page text: 2 stored — read with `cite show 1 --text`"
    );
    assert!(
        lines[5].starts_with("  snapshot:  ")
            && lines[5]
                .contains("  stored by #4 <- cite add https://lake.example/ice --snapshot /"),
        "{out}"
    );
    assert_eq!(
        lines[6],
        format!("  snapshot:  {hash}  quotes 1, 2 checked against it")
    );
    // A retracted quote's page counts for nothing, as the quote does.
    sb.ok(&["retract", "1", "--quote", "1", "--reason", "wrong page"]);
    sb.ok(&["retract", "1", "--quote", "2", "--reason", "wrong page"]);
    let v = show_json(&sb, &["1"]);
    assert_eq!(v["page_texts"].as_array().unwrap().len(), 1, "{v}");
}

#[test]
fn show_text_prints_the_stored_page() {
    let sb = quoted(LAKE);
    let hash = show_json(&sb, &["1"])["page_texts"][0]["snapshot"]
        .as_str()
        .unwrap()
        .to_string();
    sb.cite()
        .args(["show", "1", "--text"])
        .assert()
        .success()
        .stderr("")
        .stdout(format!(
            "==> [1] page text 1 of 1: snapshot {hash}, 73 characters; quotes 1, 2 checked against it <==\n{LAKE}"
        ));
    let v = show_json(&sb, &["1", "--text"]);
    assert_eq!(v["page_texts"][0]["text"], LAKE);
    assert_eq!(v["page_texts"][0]["chars"], 73);
    assert_eq!(v["page_texts"][0]["offset"], 0);
    assert_eq!(v["page_texts"][0].get("next_offset"), None);
}

#[test]
fn show_text_pages_a_long_page() {
    // 45,000 characters, not all of them one byte.
    let line = "Ice is about 9% less dense — so a lake freezes from the top down.\n";
    let page: String = line
        .repeat(45_000 / line.chars().count() + 1)
        .chars()
        .take(45_000)
        .collect();
    let sb = quoted(&page);
    let mut got = String::new();
    let mut args = vec!["show".to_string(), "1".into(), "--text".into()];
    let mut parts = 0;
    loop {
        let out = sb.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        parts += 1;
        let (head, rest) = out.split_once('\n').unwrap();
        assert!(
            head.starts_with("==> [1] page text 1 of 1: snapshot "),
            "{head}"
        );
        let from = parts * 20_000 - 20_000;
        assert!(
            head.contains(&format!(
                ", characters {from}–{} of 45000;",
                (from + 20_000).min(45_000)
            )),
            "{head}"
        );
        match rest.rsplit_once("==> ") {
            Some((text, footer)) if parts < 3 => {
                let next = from + 20_000;
                assert_eq!(
                    footer,
                    format!(
                        "{} more characters: cite show 1 --text --offset {next} <==\n",
                        45_000 - next
                    )
                );
                assert_eq!(text.chars().count(), 20_001, "the part and its line break");
                got.push_str(&text[..text.len() - 1]);
                args.truncate(3);
                args.extend(["--offset".into(), next.to_string()]);
            }
            _ => {
                // The last part ends on a line break of its own: the page does not.
                got.push_str(rest.strip_suffix('\n').unwrap());
                break;
            }
        }
    }
    assert_eq!(parts, 3);
    assert!(got == page, "the parts are not the page");
    // A smaller page size is kept in the call for the next part.
    let out = sb.ok(&["show", "1", "--text", "--limit", "10"]);
    assert!(
        out.ends_with(
            "\n==> 44990 more characters: cite show 1 --text --limit 10 --offset 10 <==\n"
        ),
        "{out}"
    );
    // Past the end there is nothing more to print.
    let out = sb.ok(&["show", "1", "--text", "--offset", "99999"]);
    assert!(out.contains(", characters 99999–99999 of 45000;"), "{out}");
    assert_eq!(out.lines().count(), 1, "{out}");
}

#[test]
fn show_text_heads_each_of_several_page_texts() {
    let sb = quoted(LAKE);
    let other = sb.file(
        "other.md",
        "Pure water is densest at about 4 °C, as is well known.\n",
    );
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "densest at about",
        "--from",
        other.to_str().unwrap(),
    ]);
    let v = show_json(&sb, &["1"]);
    let first = v["page_texts"][0]["snapshot"].as_str().unwrap().to_string();
    let second = v["page_texts"][1]["snapshot"].as_str().unwrap().to_string();
    let out = sb.ok(&["show", "1", "--text"]);
    assert_eq!(
        out,
        format!(
            "==> [1] page text 1 of 2: snapshot {first}, 73 characters; quotes 1, 2 checked against it <==\n{LAKE}\
             ==> [1] page text 2 of 2: snapshot {second}, 55 characters; quote 3 checked against it <==\n\
             Pure water is densest at about 4 °C, as is well known.\n"
        )
    );
    // One of them, by the start of its hash; the call for the next part names it.
    let out = sb.ok(&[
        "show",
        "1",
        "--text",
        "--snapshot",
        &second[..8],
        "--limit",
        "5",
    ]);
    assert_eq!(
        out,
        format!(
            "==> [1] page text 2 of 2: snapshot {second}, characters 0–5 of 55; quote 3 checked against it <==\n\
             Pure \n==> 50 more characters: cite show 1 --text --snapshot {} --limit 5 --offset 5 <==\n",
            &second[..12]
        )
    );
    let v = show_json(
        &sb,
        &["1", "--text", "--snapshot", &second[..8].to_uppercase()],
    );
    assert_eq!(v["page_texts"][0].get("text"), None);
    assert_eq!(v["page_texts"][1]["chars"], 55);
}

#[test]
fn show_text_refuses_what_is_not_there() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://lake.example/ice"]);
    sb.cite()
        .args(["show", "1", "--text"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            "error: no page text is stored for [1] — give the fetched page with `cite quote 1 --text … --from FILE`, or store it with `cite add URL --snapshot FILE`\n",
        );
    let sb = quoted(LAKE);
    sb.cite()
        .args(["show", "1", "--text", "--snapshot", "abcd"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: [1] has no page text whose hash starts with abcd — `show 1` lists its page texts with their hashes\n");
    sb.cite()
        .args(["show", "1", "--text", "--snapshot", "xyz!"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("error: --snapshot 'xyz!': give the start of a page text's hash (4 to 64 hex digits), as `cite show 1` lists it\n");
    // Paging flags belong to --text.
    let out = sb.run(&["show", "1", "--offset", "5"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--text"), "{}", out.stderr);
    let out = sb.run(&["show", "1", "--text", "--limit", "0"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}

#[test]
fn show_text_defuses_terminal_controls() {
    let sb = quoted(
        "Ice is about 9% less dense \u{1b}[2J than water.\nA lake freezes from the top down.\n",
    );
    let out = sb.ok(&["show", "1", "--text"]);
    assert!(
        out.contains("less dense \u{fffd}[2J than water.\n"),
        "{out:?}"
    );
    assert!(!out.contains('\u{1b}'));
    // JSON keeps the page as stored, escaped.
    let v = show_json(&sb, &["1", "--text"]);
    assert!(
        v["page_texts"][0]["text"]
            .as_str()
            .unwrap()
            .contains('\u{1b}')
    );
}

// ---- ledger path rules -----------------------------------------------------------------

#[test]
fn ledger_flag_works_after_the_subcommand() {
    let sb = Sandbox::new();
    cite_bin()
        .args(["add", "https://a.example", "--ledger"])
        .arg(&sb.ledger)
        .assert()
        .success()
        .stdout("[1] https://a.example\n");
    assert!(sb.ledger.is_file());
    cite_bin()
        .arg("list")
        .arg("--ledger")
        .arg(&sb.ledger)
        .assert()
        .success()
        .stdout("[1] https://a.example\n");
}

#[test]
fn cite_ledger_variable_selects_the_ledger() {
    let sb = Sandbox::new();
    let other = sb.path().join("other.redb");
    cite_bin()
        .env("CITE_LEDGER", &sb.ledger)
        .args(["add", "https://a.example"])
        .assert()
        .success();
    assert!(sb.ledger.is_file());
    assert_eq!(sb.ok(&["list"]), "[1] https://a.example\n");
    // --ledger wins over the variable.
    cite_bin()
        .env("CITE_LEDGER", &sb.ledger)
        .arg("--ledger")
        .arg(&other)
        .args(["add", "https://b.example"])
        .assert()
        .success()
        .stdout("[1] https://b.example\n");
    cite_bin()
        .env("CITE_LEDGER", &sb.ledger)
        .arg("reset")
        .assert()
        .success()
        .stdout(format!("ledger reset: {}\n", sb.ledger.display()));
}

/// Issue 9.
#[test]
fn the_skills_ledger_variable_is_honoured_after_cite_ledger() {
    // Subagents that share a ledger the way the skill says ($HERMES_CITATION_LEDGER)
    // must keep sharing it.
    let sb = Sandbox::new();
    let other = sb.path().join("other.redb");
    cite_bin()
        .env("HERMES_CITATION_LEDGER", &sb.ledger)
        .args(["add", "https://a.example"])
        .assert()
        .success()
        .stdout("[1] https://a.example\n");
    assert_eq!(sb.ok(&["list"]), "[1] https://a.example\n");
    // $CITE_LEDGER, then --ledger, win over it.
    cite_bin()
        .env("HERMES_CITATION_LEDGER", &sb.ledger)
        .env("CITE_LEDGER", &other)
        .args(["add", "https://b.example"])
        .assert()
        .success()
        .stdout("[1] https://b.example\n");
    assert!(other.is_file());
    // A sources.py JSON ledger there gets the import hint.
    let json = sb.file("hermes.json", r#"{"version":1,"sources":[]}"#);
    cite_bin()
        .env("HERMES_CITATION_LEDGER", &json)
        .arg("list")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("import"));
}

#[test]
fn xdg_data_home_is_the_default_and_its_folders_are_created() {
    let sb = Sandbox::new();
    let xdg = sb.path().join("xdg/data");
    let home = sb.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let expected = xdg.join("cite").join("ledger.redb");
    let cite = || {
        let mut c = cite_bin();
        c.env("XDG_DATA_HOME", &xdg).env("HOME", &home);
        c
    };
    // Reading creates nothing, not even the folders.
    cite()
        .arg("list")
        .assert()
        .success()
        .stdout(format!("ledger is empty: {}\n", expected.display()));
    assert!(!xdg.exists());
    cite()
        .args(["add", "https://a.example"])
        .assert()
        .success()
        .stdout("[1] https://a.example\n");
    assert!(expected.is_file(), "{:?}", tree(sb.path()));
    assert!(tree(&home).is_empty(), "HOME was used: {:?}", tree(&home));
    cite()
        .arg("list")
        .assert()
        .success()
        .stdout("[1] https://a.example\n");
    // $CITE_LEDGER wins over XDG.
    cite()
        .env("CITE_LEDGER", &sb.ledger)
        .arg("list")
        .assert()
        .success()
        .stdout(format!("ledger is empty: {}\n", sb.ledger.display()));
}

#[test]
fn home_is_the_fallback_without_xdg_data_home() {
    let sb = Sandbox::new();
    let home = sb.path().join("home");
    cite_bin()
        .env("HOME", &home)
        .args(["add", "https://a.example"])
        .assert()
        .success();
    assert!(home.join(".local/share/cite/ledger.redb").is_file());
}

#[test]
fn first_write_creates_the_ledger_folders() {
    let sb = Sandbox::new();
    let deep = sb.path().join("a/b/c/ledger.redb");
    cite_bin()
        .arg("--ledger")
        .arg(&deep)
        .args(["add", "https://a.example"])
        .assert()
        .success();
    assert!(deep.is_file());
}

// ---- output ----------------------------------------------------------------------------

#[test]
fn a_closed_output_pipe_is_not_an_error() {
    let sb = Sandbox::new();
    let urls: Vec<String> = (0..3000).map(|i| format!("https://s{i}.example")).collect();
    let f = sb.file(
        "r.json",
        &serde_json::to_string(
            &urls
                .iter()
                .map(|u| serde_json::json!({"url": u}))
                .collect::<Vec<_>>(),
        )
        .unwrap(),
    );
    sb.ok(&["ingest", f.to_str().unwrap()]);
    for args in [&["list"][..], &["list", "--json"], &["log"]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cite"))
            .arg("--ledger")
            .arg(&sb.ledger)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end at once, like `cite list | head -0`.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

// ---- completions -------------------------------------------------------------------------

#[test]
fn completions_are_printed_for_each_shell() {
    let sb = Sandbox::new();
    for (shell, marker) in [
        ("bash", "_cite()"),
        ("zsh", "#compdef cite"),
        ("fish", "complete -c cite"),
    ] {
        let out = sb.ok(&["completions", shell]);
        assert!(out.contains(marker), "{shell}: {out}");
        assert!(out.contains("ingest"), "{shell} completes subcommands");
    }
    assert!(!sb.ledger.exists(), "completions touch no ledger");
    sb.cite()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("invalid value 'tcsh'"));
}

// ---- issue 11: list a page at a time ----------------------------------------------------

/// Five sources, two of them by reddit, one titled "Alpha Centauri".
fn five_sources(sb: &Sandbox) {
    sb.ok(&[
        "add",
        "https://a.example/one",
        "--title",
        "Alpha Centauri",
        "--via",
        "web",
    ]);
    sb.ok(&["add", "https://b.example.org/two", "--via", "reddit"]);
    sb.ok(&["add", "https://c.example/three"]);
    sb.ok(&["add", "https://d.example.org/four", "--via", "reddit"]);
    sb.ok(&["add", "https://e.example/five", "--title", "Fifth"]);
}

/// Issue 11.
#[test]
fn list_pages_through_a_cursor_that_survives_adds() {
    let sb = Sandbox::new();
    five_sources(&sb);
    // Without a new flag, the output is sources.py's, with no page line.
    let all = sb.ok(&["list"]);
    assert_eq!(all.lines().count(), 5, "{all}");
    assert!(!all.contains("page:"), "{all}");

    let first = sb.ok(&["list", "--limit", "2"]);
    assert_eq!(
        first,
        "[1] https://a.example/one  Alpha Centauri\n[2] https://b.example.org/two\n\
         page: 2 sources of 5 matching; next: cite list --limit 2 --cursor 2\n"
    );
    // Another writer adds between pages: nothing repeats, nothing is skipped.
    sb.ok(&["add", "https://f.example/six"]);
    let second = sb.ok(&["list", "--limit", "2", "--cursor", "2"]);
    assert_eq!(
        second,
        "[3] https://c.example/three\n[4] https://d.example.org/four\n\
         page: 2 sources of 6 matching; next: cite list --limit 2 --cursor 4\n"
    );
    let last = sb.ok(&["list", "--limit", "2", "--cursor", "4"]);
    assert_eq!(
        last,
        "[5] https://e.example/five  Fifth\n[6] https://f.example/six\n\
         page: 2 sources of 6 matching; no more pages\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&sb.ok(&["list", "--limit", "1", "--cursor", "5", "--json"])).unwrap();
    assert_eq!(json["matched"], 6);
    assert_eq!(json["sources"][0]["id"], 6);
    assert_eq!(json.get("next_cursor"), None, "{json}");
    let json: serde_json::Value =
        serde_json::from_str(&sb.ok(&["list", "--limit", "1", "--json"])).unwrap();
    assert_eq!(json["next_cursor"], "1");
    assert_eq!(
        json["next_command"],
        "cite list --limit 1 --cursor 1 --json"
    );
}

/// Issue 11.
#[test]
fn list_filters_by_query_and_route() {
    let sb = Sandbox::new();
    five_sources(&sb);
    // Case-insensitive, in the title or in the URL.
    assert_eq!(
        sb.ok(&["list", "--query", "ALPHA"]),
        "[1] https://a.example/one  Alpha Centauri\npage: 1 source of 1 matching; no more pages\n"
    );
    assert_eq!(
        sb.ok(&["list", "--query", "Example.ORG", "--limit", "1"]),
        "[2] https://b.example.org/two\n\
         page: 1 source of 2 matching; next: cite list --query Example.ORG --limit 1 --cursor 2\n"
    );
    assert_eq!(
        sb.ok(&["list", "--via", "reddit", "--cursor", "2"]),
        "[4] https://d.example.org/four\npage: 1 source of 2 matching; no more pages\n"
    );
    assert_eq!(
        sb.ok(&["list", "--query", "it's"]),
        "page: 0 sources of 0 matching; no more pages\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&sb.ok(&["list", "--via", "reddit", "--json"])).unwrap();
    assert_eq!(json["matched"], 2);
    assert_eq!(json["sources"].as_array().unwrap().len(), 2);

    let bad = sb.run(&["list", "--cursor", "abc"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("--cursor: cursor \"abc\" is not one"),
        "{}",
        bad.stderr
    );
    assert_eq!(sb.run(&["list", "--limit", "0"]).code, 2);
    assert_eq!(sb.run(&["list", "--by-via", "--limit", "3"]).code, 2);
    assert_eq!(sb.run(&["list", "--via", "not a route"]).code, 2);
}
