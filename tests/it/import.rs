//! `import` through the binary: a `sources.py` ledger becomes events with the same ids,
//! URLs, titles, dates and quotes; later adds continue after the highest id; every
//! refusal names what is wrong, with its exit code, and leaves the ledger as it was.

use predicates::prelude::*;
use serde_json::{Value, json};

use crate::util::Sandbox;

/// A ledger as `sources.py` writes it: dense ids except a gap, canonical and
/// not-quite-canonical URLs, a title with a line break, quotes on two sources.
pub(crate) const SOURCES_PY: &str = r#"{
  "version": 1,
  "sources": [
    {
      "id": 1,
      "url": "https://en.wikipedia.org/wiki/Ice",
      "title": "Ice - Wikipedia",
      "accessed": "2025-03-01",
      "quotes": [
        {
          "text": "Ice is about 9% less dense than liquid water.",
          "added": "2025-03-01"
        },
        {
          "text": "Ice is water frozen into a solid state.",
          "added": "2025-03-02"
        }
      ]
    },
    {
      "id": 2,
      "url": "https://www.nature.com/articles/s41586-020-2649-2/",
      "title": "Array programming with NumPy",
      "accessed": "2025-03-02"
    },
    {
      "id": 3,
      "url": "HTTPS://Example.COM:443/r%26d?q=a_b#section",
      "title": "R&D\nreport",
      "accessed": "2025-03-03",
      "quotes": [
        {
          "text": "Spending rose by 4 percent.",
          "added": "2025-03-04"
        }
      ]
    },
    {
      "id": 5,
      "url": "https://blog.example/post",
      "title": "",
      "accessed": "2025-03-05"
    }
  ]
}
"#;

fn list_json(sb: &Sandbox) -> Vec<Value> {
    serde_json::from_str(&sb.ok(&["list", "--json"])).expect("list --json is JSON")
}

fn log_len(sb: &Sandbox) -> usize {
    serde_json::from_str::<Vec<Value>>(&sb.ok(&["log", "--json"]))
        .expect("log --json is JSON")
        .len()
}

#[test]
fn a_sources_py_ledger_keeps_ids_urls_titles_dates_and_quotes() {
    let sb = Sandbox::new();
    let file = sb.file("ledger.json", SOURCES_PY);
    sb.cite()
        .arg("import")
        .arg(&file)
        .assert()
        .success()
        .stdout(format!(
            "imported 4 source(s) and 3 quote(s) from {} into epoch 1\n",
            file.display()
        ))
        .stderr("");
    let q = |text: &str, added: &str, number: u64| json!({"text": text, "added": added, "snapshot": null, "selector": null, "number": number});
    assert_eq!(
        list_json(&sb),
        vec![
            json!({"id": 1, "url": "https://en.wikipedia.org/wiki/Ice", "title": "Ice - Wikipedia",
                   "accessed": "2025-03-01", "quotes": [
                       q("Ice is about 9% less dense than liquid water.", "2025-03-01", 1),
                       q("Ice is water frozen into a solid state.", "2025-03-02", 2)]}),
            json!({"id": 2, "url": "https://www.nature.com/articles/s41586-020-2649-2",
                   "title": "Array programming with NumPy", "accessed": "2025-03-02"}),
            json!({"id": 3, "url": "https://example.com/r%26d?q=a_b", "title": "R&D report",
                   "accessed": "2025-03-03",
                   "quotes": [q("Spending rose by 4 percent.", "2025-03-04", 1)]}),
            json!({"id": 5, "url": "https://blog.example/post", "title": "",
                   "accessed": "2025-03-05"}),
        ]
    );
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://en.wikipedia.org/wiki/Ice  Ice - Wikipedia  (2 quotes)\n\
         [2] https://www.nature.com/articles/s41586-020-2649-2  Array programming with NumPy\n\
         [3] https://example.com/r%26d?q=a_b  R&D report  (1 quote)\n\
         [5] https://blog.example/post\n"
    );
    let show = sb.ok(&["show", "3"]);
    assert!(
        show.contains("  given as:  HTTPS://Example.COM:443/r%26d?q=a_b#section\n"),
        "{show}"
    );
    assert!(show.contains("  accessed:  2025-03-03\n"), "{show}");
    assert!(
        show.contains(
            "  1. > \"Spending rose by 4 percent.\"\n    imported from sources.py without page text (not re-checkable), added 2025-03-04\n"
        ),
        "{show}"
    );
    // The log: one Imported record, then each source followed by its quotes.
    let log: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let kinds: Vec<&str> = log
        .iter()
        .map(|e| e["event"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "imported",
            "source_added",
            "quote_imported",
            "quote_imported",
            "source_added",
            "source_added",
            "quote_imported",
            "source_added"
        ]
    );
    assert_eq!(
        log[0]["event"],
        json!({"kind": "imported", "epoch": 1, "from": file.display().to_string(),
               "sources": 4, "quotes": 3})
    );
    // One transaction: the first record carries the import's command line, and every
    // other one points back at it.
    assert!(
        log[0]["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == "import")
    );
    assert!(
        log[1..]
            .iter()
            .all(|e| e["same_transaction_as"] == log[0]["seq"])
    );
    let text = sb.ok(&["log"]);
    assert!(
        text.contains("imported 4 source(s) and 3 quote(s) from"),
        "{text}"
    );
}

#[test]
fn later_adds_continue_after_the_highest_imported_id() {
    let sb = Sandbox::new();
    let file = sb.file("ledger.json", SOURCES_PY);
    sb.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(
        sb.ok(&["add", "https://new.example", "https://blog.example/post/"]),
        "[6] https://new.example\n[5] https://blog.example/post\n"
    );
    // A re-add of an imported URL under another spelling finds its id.
    assert_eq!(
        sb.ok(&["add", "https://example.com/r%26d?q=a_b#other"]),
        "[3] https://example.com/r%26d?q=a_b\n"
    );
    // A later title fills the empty imported one.
    sb.ok(&["add", "https://blog.example/post", "--title", "A post"]);
    assert_eq!(list_json(&sb)[3]["title"], "A post");
}

#[test]
fn imports_into_a_fresh_epoch_after_reset_and_keeps_the_old_one() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://old.example"]);
    sb.ok(&["reset"]);
    let file = sb.file("ledger.json", SOURCES_PY);
    let out = sb.ok(&["import", file.to_str().unwrap()]);
    assert!(out.ends_with(" into epoch 2\n"), "{out}");
    assert_eq!(list_json(&sb).len(), 4);
    assert_eq!(
        sb.ok(&["list", "--epoch", "1"]),
        "[1] https://old.example\n"
    );
}

#[test]
fn an_epoch_with_sources_is_refused_with_a_reset_hint() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://already.example"]);
    let file = sb.file("ledger.json", SOURCES_PY);
    let before = log_len(&sb);
    sb.cite()
        .arg("import")
        .arg(&file)
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: epoch 1 already has sources — run `cite reset` first, then import\n");
    assert_eq!(log_len(&sb), before);
    // And a second import of the same file into the epoch it filled.
    let sb = Sandbox::new();
    sb.ok(&["import", file.to_str().unwrap()]);
    sb.cite()
        .arg("import")
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("epoch 1 already has sources"));
}

/// Runs `import` of `text` into a fresh ledger; expects exit `code`, a stderr containing
/// `want`, and no ledger file left behind.
fn refused(text: &str, code: i32, want: &str) {
    let sb = Sandbox::new();
    let file = sb.file("bad.json", text);
    let out = sb.cite().arg("import").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{text}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(want), "{text}\nwant: {want}\ngot: {stderr}");
    assert!(out.stdout.is_empty());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!sb.ledger.exists(), "a refused import created the ledger");
}

#[test]
fn malformed_input_is_refused_with_exit_2_naming_what_is_wrong() {
    refused("{\"version\": 1, ", 2, "bad.json is not valid JSON (");
    refused("", 2, "is not valid JSON");
    refused(
        "[]",
        2,
        "bad.json is not a sources.py ledger: the top level is a list, not an object with a \"sources\" list",
    );
    refused(
        r#"{"version": 1}"#,
        2,
        "is not a sources.py ledger: no \"sources\" list at the top level",
    );
    refused(
        r#"{"version": 1, "sources": {"1": "https://a.example"}}"#,
        2,
        "\"sources\" is an object, not a list",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example"}, "https://b.example"]}"#,
        2,
        "entry 2 of \"sources\" is a string, not an object",
    );
    refused(
        r#"{"sources": [{"url": "https://a.example"}]}"#,
        2,
        "entry 1 has no \"id\"",
    );
    for id in ["0", "-3", "1.5", "\"2\"", "null"] {
        let text = format!(r#"{{"sources": [{{"id": {id}, "url": "https://a.example"}}]}}"#);
        let want = if id == "null" {
            "entry 1 has no \"id\"".to_string()
        } else {
            format!("entry 1 has no integer \"id\" of 1 or more (got {id})")
        };
        refused(&text, 2, &want);
    }
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example"}, {"id": 2, "title": "x"}]}"#,
        2,
        "entry 2 (id 2) has no \"url\"",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": ["https://a.example"]}]}"#,
        2,
        "entry 1 (id 1) has no string \"url\" (got [\"https://a.example\"])",
    );
    refused(
        r#"{"sources": [{"id": 4, "url": "https://a.example"}, {"id": 4, "url": "https://b.example"}]}"#,
        2,
        "id 4 appears twice (entries 1 and 2)",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example", "title": 7}]}"#,
        2,
        "entry 1 (id 1): \"title\" is a number, not a string",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example", "quotes": [{"text": 3}]}]}"#,
        2,
        "entry 1 (id 1): quote 1 has no string \"text\"",
    );
    refused(
        r#"{"version": 2, "sources": []}"#,
        2,
        "unsupported \"version\" 2 (cite imports version 1)",
    );
}

#[test]
fn a_url_that_does_not_canonicalize_is_refused_naming_the_entry() {
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example"}, {"id": 7, "url": "not a url"}]}"#,
        2,
        "bad.json: entry 2 (id 7): not a URL: \"not a url\"",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "javascript:alert(1)"}]}"#,
        2,
        "entry 1 (id 1): not a URL",
    );
}

/// Issue 19: a real `sources.py` ledger may list one page under two ids. Both ids are
/// kept: drafts cite either, and merging the entries (as the import once demanded)
/// broke every draft that cited both. The later is an alias of the earlier: the same
/// page, shown under its own number, with the same evidence.
#[test]
fn two_entries_that_canonicalize_to_one_url_both_keep_their_ids() {
    let sb = Sandbox::new();
    let file = sb.file(
        "dup.json",
        r#"{"version": 1, "sources": [
            {"id": 8, "url": "https://A.EXAMPLE/page#top", "title": "Later", "accessed": "2024-02-02",
             "quotes": [{"text": "quoted under the later id", "added": "2024-02-03"}]},
            {"id": 3, "url": "https://a.example/page/", "title": "Earlier", "accessed": "2024-01-01",
             "quotes": [{"text": "quoted under the earlier id", "added": "2024-01-02"}]},
            {"id": 5, "url": "https://b.example"}]}"#,
    );
    sb.ok(&["import", file.to_str().unwrap()]);
    let list = sb.ok(&["list"]);
    assert!(
        list.contains("[3] https://a.example/page  Earlier  (2 quotes)\n"),
        "{list}"
    );
    assert!(
        list.contains("[8] https://a.example/page  Later  (2 quotes)\n"),
        "{list}"
    );
    let json: Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let eight = json
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == 8)
        .unwrap();
    assert_eq!(eight["alias_of"], 3, "{eight}");
    assert_eq!(eight["url"], "https://a.example/page");
    let show = sb.ok(&["show", "8"]);
    assert!(show.contains("alias of:  [3]"), "{show}");
    // Re-adding the page gives the earlier id; a quote for the alias goes to its source.
    assert_eq!(
        sb.ok(&["add", "https://a.example/page"]),
        "[3] https://a.example/page\n"
    );
    let page = sb.file(
        "page.txt",
        "The page says this thing plainly and at length.",
    );
    sb.ok(&[
        "quote",
        "8",
        "--text",
        "says this thing plainly",
        "--from",
        page.to_str().unwrap(),
    ]);
    assert!(sb.ok(&["show", "3"]).contains("says this thing plainly"));
    // A draft citing both renders both under their numbers, and verifies with evidence.
    let draft = sb.file(
        "draft.md",
        "The page says one thing here.[3] It says another thing too.[8]\n",
    );
    sb.ok(&["render", "--replace-in", draft.to_str().unwrap()]);
    let text = std::fs::read_to_string(&draft).unwrap();
    assert!(
        text.ends_with(
            "[3] https://a.example/page — Earlier\n\n[8] https://a.example/page — Later\n"
        ),
        "{text}"
    );
    let out = sb.run(&["verify", draft.to_str().unwrap(), "--strict", "--evidence"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{}", out.stdout);
    // Exports carry both, and the sources.py export imports back with the same ids.
    let csl: Value = serde_json::from_str(&sb.ok(&["export", "--format", "csl-json"])).unwrap();
    let ids: Vec<&str> = csl
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["source3", "source5", "source8"]);
    let back = sb.file("back.json", &sb.ok(&["export", "--format", "hermes-json"]));
    let fresh = Sandbox::new();
    fresh.ok(&["import", back.to_str().unwrap()]);
    assert_eq!(fresh.ok(&["list"]), sb.ok(&["list"]));
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
    sb.ok(&["rebuild"]);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn a_bad_entry_late_in_a_large_file_leaves_an_existing_ledger_unchanged() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://kept.example"]);
    sb.ok(&["reset"]);
    let list_before = sb.ok(&["list", "--json", "--epoch", "1"]);
    let log_before = sb.ok(&["log", "--json"]);
    let mut entries: Vec<Value> = (1..=2000)
        .map(|i| {
            json!({"id": i, "url": format!("https://s{i}.example/"), "title": format!("T{i}"),
                        "accessed": "2025-01-01"})
        })
        .collect();
    entries.push(json!({"id": 2001, "url": "nope"}));
    let file = sb.file(
        "big.json",
        &json!({"version": 1, "sources": entries}).to_string(),
    );
    sb.cite()
        .arg("import")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("entry 2001 (id 2001): not a URL"));
    assert_eq!(sb.ok(&["list", "--json", "--epoch", "1"]), list_before);
    assert_eq!(sb.ok(&["log", "--json"]), log_before);
    assert_eq!(
        sb.ok(&["list"]),
        format!("ledger is empty: {}\n", sb.ledger.display())
    );
}

#[test]
fn imports_from_stdin_and_reports_as_json() {
    let sb = Sandbox::new();
    let out = sb
        .cite()
        .args(["import", "-", "--json"])
        .write_stdin(SOURCES_PY)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v,
        json!({"from": "-", "epoch": 1, "sources": 4, "quotes": 3})
    );
}

#[test]
fn an_empty_sources_py_ledger_imports_nothing_and_blocks_nothing() {
    let sb = Sandbox::new();
    let file = sb.file("empty.json", r#"{"version": 1, "sources": []}"#);
    let out = sb.ok(&["import", file.to_str().unwrap()]);
    assert!(
        out.starts_with("imported 0 source(s) and 0 quote(s) from "),
        "{out}"
    );
    let file = sb.file("ledger.json", SOURCES_PY);
    sb.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(list_json(&sb).len(), 4);
}

#[test]
fn a_missing_file_is_a_usage_error_and_the_json_ledger_hint_points_here() {
    let sb = Sandbox::new();
    sb.cite()
        .args(["import", "no-such.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot read no-such.json: no such file",
        ));
    // Pointing --ledger at the JSON file suggests the import that works.
    let json_ledger = sb.file("ledger.json", SOURCES_PY);
    crate::util::cite_bin()
        .arg("--ledger")
        .arg(&json_ledger)
        .arg("import")
        .arg(&json_ledger)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("import it into a new ledger"));
}

/// Issue 8, item 1: an id past 2^53 − 1 was accepted, and later adds wrapped to [0].
#[test]
fn ids_above_the_maximum_are_refused_naming_the_entry_and_the_maximum() {
    for id in ["18446744073709551615", "9007199254740992", "1e300"] {
        refused(
            &format!(
                r#"{{"version": 1, "sources": [{{"id": 1, "url": "https://a.example"}},
                    {{"id": {id}, "url": "https://max.example"}}]}}"#
            ),
            2,
            "bad.json: entry 2 (id ",
        );
    }
    refused(
        r#"{"version": 1, "sources": [{"id": 18446744073709551615, "url": "https://max.example"}]}"#,
        2,
        "bad.json: entry 1 (id 18446744073709551615): ids above 9007199254740991 (2^53 − 1) are not supported",
    );
    // The maximum itself is an id like any other.
    let sb = Sandbox::new();
    let file = sb.file(
        "max.json",
        r#"{"version": 1, "sources": [{"id": 9007199254740991, "url": "https://max.example"}]}"#,
    );
    sb.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(sb.ok(&["list"]), "[9007199254740991] https://max.example\n");
}

/// Issue 8, item 10: `import` took an access date that `add` refuses.
#[test]
fn an_access_date_add_would_refuse_is_refused_naming_the_entry() {
    for date in ["2026-02-30", "yesterday", "2025-3-1", "2025-03-01T10:00"] {
        refused(
            &format!(
                r#"{{"sources": [{{"id": 1, "url": "https://a.example", "accessed": "2025-03-01"}},
                    {{"id": 4, "url": "https://b.example", "accessed": "{date}"}}]}}"#
            ),
            2,
            &format!(
                "bad.json: entry 2 (id 4): \"accessed\" is not a date: \"{date}\" — give the access date as YYYY-MM-DD"
            ),
        );
    }
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example", "accessed": 20250301}]}"#,
        2,
        "entry 1 (id 1): \"accessed\" is a number, not a string",
    );
}

#[test]
fn a_missing_or_empty_access_date_stays_unknown_and_a_padded_one_is_trimmed() {
    let sb = Sandbox::new();
    let file = sb.file(
        "dates.json",
        r#"{"version": 1, "sources": [
            {"id": 1, "url": "https://a.example"},
            {"id": 2, "url": "https://b.example", "accessed": ""},
            {"id": 3, "url": "https://c.example", "accessed": " 2025-03-01 "}]}"#,
    );
    sb.ok(&["import", file.to_str().unwrap()]);
    let accessed: Vec<Value> = list_json(&sb)
        .iter()
        .map(|s| s["accessed"].clone())
        .collect();
    assert_eq!(accessed, [json!(""), json!(""), json!("2025-03-01")]);
}

/// Entries are written in file order, ids kept: a file not sorted by id imports as one
/// sorted by id does, and later adds continue after the highest id.
#[test]
fn entries_out_of_id_order_import_with_their_ids() {
    let sb = Sandbox::new();
    let file = sb.file(
        "shuffled.json",
        r#"{"sources": [
            {"id": 7, "url": "https://g.example", "quotes": [{"text": "seven is a number", "added": "2025-01-07"}]},
            {"id": 2, "url": "https://b.example"},
            {"id": 4, "url": "https://d.example"}]}"#,
    );
    sb.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(
        sb.ok(&["list"]),
        "[2] https://b.example\n[4] https://d.example\n[7] https://g.example  (1 quote)\n"
    );
    assert_eq!(
        sb.ok(&["add", "https://h.example"]),
        "[8] https://h.example\n"
    );
    sb.ok(&["audit"]);
}

/// Of several problems, the one reported is the first in the file (an entry's own
/// problem, or its id repeating an earlier one); then URLs that collide.
#[test]
fn the_first_problem_in_the_file_is_the_one_reported() {
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example"}, {"id": 1, "url": "https://b.example"},
            {"id": 3, "url": "nope"}]}"#,
        2,
        "id 1 appears twice (entries 1 and 2)",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "https://a.example"}, {"id": 3, "url": "nope"},
            {"id": 1, "url": "https://b.example"}]}"#,
        2,
        "entry 2 (id 3): not a URL",
    );
    refused(
        r#"{"sources": [{"id": 5, "url": "https://a.example"}, {"id": 6, "url": "https://b.example"},
            {"id": 2, "url": "https://b.example/"}, {"id": 9, "url": "https://a.example/"},
            {"id": 6, "url": "https://c.example"}, {"id": 5, "url": "https://d.example"}]}"#,
        2,
        "id 6 appears twice (entries 2 and 5)",
    );
    // Broken JSON anywhere outranks everything; so does an entry that is not an object.
    refused(
        r#"{"sources": [{"id": 1, "url": "nope"}, {"id": 2, "url": "https://a.example"}"#,
        2,
        "bad.json is not valid JSON (",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "nope"}, 7], "version": 1}"#,
        2,
        "entry 2 of \"sources\" is a number, not an object",
    );
    refused(
        r#"{"sources": [{"id": 1, "url": "nope"}], "version": 3}"#,
        2,
        "unsupported \"version\" 3",
    );
}
