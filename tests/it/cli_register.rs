//! `add`, `ingest` and `reset` through the binary: the printed lines (other tools match
//! them byte for byte), `--json`, `--title`, `--accessed`, `--via`, URL canonicalization,
//! refusals and their exit codes, and that a refused or failed registration writes nothing.

use std::io::Write;
use std::process::Stdio;

use predicates::prelude::*;
use serde_json::Value;

use crate::util::Sandbox;

/// `list --json` parsed.
fn list_json(sb: &Sandbox, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["list", "--json"];
    args.extend_from_slice(extra);
    let out = sb.ok(&args);
    serde_json::from_str::<Value>(&out)
        .expect("list --json is JSON")
        .as_array()
        .expect("an array")
        .clone()
}

/// Number of records in the event log.
fn log_len(sb: &Sandbox) -> usize {
    let out = sb.ok(&["log", "--json"]);
    serde_json::from_str::<Vec<Value>>(&out)
        .expect("log --json is a JSON array")
        .len()
}

fn today_utc() -> String {
    let d = time::OffsetDateTime::now_utc().date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

// ---- add -------------------------------------------------------------------------------

#[test]
fn add_prints_one_line_per_input_duplicates_included() {
    let sb = Sandbox::new();
    sb.cite()
        .args([
            "add",
            "https://a.example/",
            "https://b.example/x",
            "https://a.example",
        ])
        .assert()
        .success()
        .stdout("[1] https://a.example\n[2] https://b.example/x\n[1] https://a.example\n")
        .stderr("");
}

#[test]
fn readding_returns_the_same_id_and_ids_are_dense() {
    let sb = Sandbox::new();
    assert_eq!(
        sb.ok(&["add", "https://a.example"]),
        "[1] https://a.example\n"
    );
    assert_eq!(
        sb.ok(&["add", "https://b.example"]),
        "[2] https://b.example\n"
    );
    assert_eq!(
        sb.ok(&["add", "https://a.example/"]),
        "[1] https://a.example\n"
    );
    assert_eq!(
        sb.ok(&["add", "https://c.example"]),
        "[3] https://c.example\n"
    );
    assert_eq!(
        sb.ok(&["add", "HTTPS://B.EXAMPLE/#top"]),
        "[2] https://b.example\n"
    );
    let ids: Vec<u64> = list_json(&sb, &[])
        .iter()
        .map(|s| s["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3]);
}

#[test]
fn title_given_later_fills_an_empty_title_without_changing_the_id() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/page"]);
    sb.ok(&["add", "https://b.example"]);
    assert_eq!(
        sb.ok(&["add", "https://a.example/page/", "--title", "Page A"]),
        "[1] https://a.example/page\n"
    );
    // A title never overwrites one that is already there.
    sb.ok(&["add", "https://a.example/page", "--title", "Other"]);
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example/page  Page A\n[2] https://b.example\n"
    );
}

#[test]
fn title_applies_only_when_one_url_is_given() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example",
        "https://b.example",
        "--title",
        "Shared",
    ]);
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example\n[2] https://b.example\n"
    );
    sb.ok(&["add", "--title", "Only B", "https://b.example"]);
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example\n[2] https://b.example  Only B\n"
    );
}

#[test]
fn accessed_date_is_recorded() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "--accessed", "2024-02-29"]);
    let list = list_json(&sb, &[]);
    assert_eq!(list[0]["accessed"], "2024-02-29");
}

#[test]
fn bad_accessed_date_is_a_usage_error_naming_it() {
    for bad in ["2024-13-01", "2023-02-29", "yesterday", "2024/01/02"] {
        let sb = Sandbox::new();
        sb.cite()
            .args(["add", "https://a.example", "--accessed", bad])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("error: ").and(predicate::str::contains(bad)));
        assert!(!sb.ledger.exists(), "a refused add created the ledger");
    }
}

#[test]
fn accessed_defaults_to_today_utc() {
    let sb = Sandbox::new();
    let before = today_utc();
    sb.ok(&["add", "https://a.example"]);
    let after = today_utc();
    let accessed = list_json(&sb, &[])[0]["accessed"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        accessed == before || accessed == after,
        "accessed {accessed}, today {before}/{after}"
    );
}

#[test]
fn add_json_prints_a_pretty_array_of_entries() {
    let sb = Sandbox::new();
    let out = sb.ok(&[
        "add",
        "--json",
        "https://a.example/x/",
        "--accessed",
        "2024-01-02",
        "--title",
        "X",
        "--via",
        "web",
    ]);
    assert_eq!(
        out,
        "[\n  {\n    \"id\": 1,\n    \"url\": \"https://a.example/x\",\n    \"title\": \"X\",\n    \
         \"accessed\": \"2024-01-02\",\n    \"via\": \"web\"\n  }\n]\n"
    );
    // Duplicates are included, and `via` is absent when there is none.
    let out = sb.ok(&[
        "add",
        "--json",
        "https://b.example",
        "https://a.example/x",
        "https://b.example",
    ]);
    let v: Vec<Value> = serde_json::from_str(&out).unwrap();
    let ids: Vec<u64> = v.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [2, 1, 2]);
    assert!(v[0].get("via").is_none(), "{}", v[0]);
    let keys: Vec<&str> = v[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["id", "url", "title", "accessed"]);
}

#[test]
fn via_is_recorded_and_visible() {
    let sb = Sandbox::new();
    sb.ok(&["add", "--via", "reddit", "https://reddit.example/r/x"]);
    sb.ok(&["add", "https://plain.example"]);
    let list = list_json(&sb, &[]);
    assert_eq!(list[0]["via"], "reddit");
    assert!(list[1].get("via").is_none());
    assert_eq!(sb.ok(&["list", "--by-via"]), "reddit: 1\n(no route): 1\n");
    sb.cite()
        .args(["show", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\n  via:       reddit\n"));
}

#[test]
fn canonical_forms_are_printed() {
    let cases = [
        ("HTTPS://A.Example:443/Page/#frag", "https://a.example/Page"),
        ("http://a.example:80/x", "http://a.example/x"),
        ("http://a.example:8080/x", "http://a.example:8080/x"),
        (
            "https://bücher.example/x",
            "https://xn--bcher-kva.example/x",
        ),
        ("https://a.example/a/./b/../c", "https://a.example/a/c"),
        ("https://a.example/", "https://a.example"),
        ("https://a.example/docs/", "https://a.example/docs"),
        (
            "https://a.example/search/?q=rust&page=2#results",
            "https://a.example/search?q=rust&page=2",
        ),
        ("https://a.example/%7euser", "https://a.example/~user"),
        ("doi:10.1000/x", "https://doi.org/10.1000/x"),
        ("arXiv:2305.14627", "https://arxiv.org/abs/2305.14627"),
    ];
    let sb = Sandbox::new();
    for (i, (given, want)) in cases.iter().enumerate() {
        assert_eq!(
            sb.ok(&["add", given]),
            format!("[{}] {want}\n", i + 1),
            "add {given}"
        );
    }
}

#[test]
fn spellings_of_one_page_share_an_id() {
    let sb = Sandbox::new();
    let out = sb.ok(&[
        "add",
        "https://a.example/p",
        "https://a.example/p/",
        "https://a.example/p#section",
        "HTTPS://A.EXAMPLE/p",
        "https://a.example:443/p",
        "https://a.example/x/../p",
        "https://a.example/P",
    ]);
    assert_eq!(
        out,
        "[1] https://a.example/p\n".repeat(6) + "[2] https://a.example/P\n"
    );
    // The query is part of the identity.
    assert_eq!(
        sb.ok(&["add", "https://a.example/p?v=1"]),
        "[3] https://a.example/p?v=1\n"
    );
}

#[test]
fn what_is_not_a_url_is_refused_and_nothing_is_written() {
    for bad in ["not a url", "example.com", "mailto:x@y.z", ""] {
        let sb = Sandbox::new();
        sb.cite()
            .args(["add", bad])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with(format!(
                "error: not a URL: {bad:?} "
            )));
        assert!(
            !sb.ledger.exists(),
            "refused {bad:?} but created the ledger"
        );
        let left: Vec<_> = std::fs::read_dir(sb.path()).unwrap().collect();
        assert!(left.is_empty(), "refused {bad:?} but left {left:?}");
    }
}

#[test]
fn a_mixed_add_is_all_or_nothing() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://first.example"]);
    let events = log_len(&sb);
    sb.cite()
        .args([
            "add",
            "https://good.example",
            "not a url",
            "https://also.example",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("error: not a URL: \"not a url\""));
    assert_eq!(sb.ok(&["list"]), "[1] https://first.example\n");
    assert_eq!(log_len(&sb), events);
    // The next good add still gets the next id: nothing was reserved by the refusal.
    assert_eq!(
        sb.ok(&["add", "https://good.example"]),
        "[2] https://good.example\n"
    );
}

#[test]
fn add_without_a_url_is_a_usage_error() {
    let sb = Sandbox::new();
    sb.cite()
        .arg("add")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("Usage"));
    assert!(!sb.ledger.exists());
}

// ---- ingest ----------------------------------------------------------------------------

const TOOL_OUTPUT: &str = r#"{
  "query": "ice",
  "data": {
    "web": [
      {"url": "https://a.example/x/", "title": "A", "extra": {"link": "https://nested.example"}},
      {"link": "https://b.example", "name": "B"},
      {"url": "", "link": null, "source_url": "http://c.example", "title": "", "name": "C"},
      {"url": "ftp://skipped.example", "title": "not http"},
      {"url": "www.skipped.example", "title": "no scheme"},
      {"url": "https://a.example/x#again", "title": "second spelling"}
    ],
    "news": [{"source_url": "https://d.example/n?id=4", "title": "  D  "}]
  },
  "results": [[{"url": "https://e.example"}]]
}"#;

#[test]
fn ingest_walks_depth_first_in_document_order() {
    let sb = Sandbox::new();
    let f = sb.file("results.json", TOOL_OUTPUT);
    sb.cite().arg("ingest").arg(&f).assert().success().stdout(
        "[1] https://a.example/x\n\
             [2] https://nested.example\n\
             [3] https://b.example\n\
             [4] http://c.example\n\
             [5] https://d.example/n?id=4\n\
             [6] https://e.example\n",
    );
    // First spelling wins, titles come from title, else name.
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example/x  A\n\
         [2] https://nested.example\n\
         [3] https://b.example  B\n\
         [4] http://c.example  C\n\
         [5] https://d.example/n?id=4  D\n\
         [6] https://e.example\n"
    );
}

#[test]
fn ingest_reads_stdin() {
    let sb = Sandbox::new();
    sb.cite()
        .args(["ingest", "-"])
        .write_stdin(r#"[{"url":"https://a.example"},{"link":"https://b.example/"}]"#)
        .assert()
        .success()
        .stdout("[1] https://a.example\n[2] https://b.example\n");
}

#[test]
fn ingest_returns_existing_ids_and_fills_empty_titles() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    sb.ok(&["add", "https://c.example", "--title", "Kept"]);
    let f = sb.file(
        "r.json",
        r#"[{"url":"https://new.example","title":"N"},
            {"url":"https://b.example/","title":"Filled"},
            {"url":"https://c.example","title":"Ignored"}]"#,
    );
    assert_eq!(
        sb.ok(&["ingest", f.to_str().unwrap()]),
        "[4] https://new.example\n[2] https://b.example\n[3] https://c.example\n"
    );
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example\n\
         [2] https://b.example  Filled\n\
         [3] https://c.example  Kept\n\
         [4] https://new.example  N\n"
    );
}

#[test]
fn ingest_via_and_json() {
    let sb = Sandbox::new();
    let f = sb.file(
        "r.json",
        r#"{"items":[{"url":"https://v.example","title":"V"}]}"#,
    );
    let out = sb.ok(&["ingest", "--json", "--via", "video", f.to_str().unwrap()]);
    let v: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["id"], 1);
    assert_eq!(v[0]["url"], "https://v.example");
    assert_eq!(v[0]["title"], "V");
    assert_eq!(v[0]["via"], "video");
    assert_eq!(sb.ok(&["list", "--by-via"]), "video: 1\n");
}

#[test]
fn ingest_of_invalid_json_is_a_usage_error() {
    let sb = Sandbox::new();
    let f = sb.file("bad.json", "{\"url\": \"https://a.example\",");
    sb.cite()
        .arg("ingest")
        .arg(&f)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "error: input is not valid JSON (",
        ));
    assert!(!sb.ledger.exists());
}

#[test]
fn ingest_without_urls_says_so_bare() {
    let sb = Sandbox::new();
    for (name, text) in [
        (
            "none.json",
            r#"{"results": [{"title": "no link"}, 3, "https://bare.string"]}"#,
        ),
        (
            "ftp.json",
            r#"[{"url": "ftp://a.example"}, {"link": "doi:10.1000/x"}]"#,
        ),
        ("empty.json", "[]"),
    ] {
        let f = sb.file(name, text);
        sb.cite()
            .arg("ingest")
            .arg(&f)
            .assert()
            .code(1)
            .stdout("")
            // sources.py's words, bare, then (issue 19) what was looked for, on one line.
            .stderr(predicate::str::starts_with("no urls found in input — "))
            .stderr(predicate::str::ends_with(
                " — to register a page by hand, run `cite add URL`\n",
            ))
            .stderr(predicate::function(|e: &str| e.lines().count() == 1));
    }
    assert!(!sb.ledger.exists());
}

#[test]
fn ingest_of_a_missing_file_is_a_usage_error() {
    let sb = Sandbox::new();
    let missing = sb.path().join("missing.json");
    sb.cite()
        .arg("ingest")
        .arg(&missing)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(format!(
            "error: cannot read {}: ",
            missing.display()
        )));
    assert!(!sb.ledger.exists());
}

#[test]
fn ingest_of_a_non_utf8_file_is_a_usage_error() {
    let sb = Sandbox::new();
    let f = sb.path().join("latin1.json");
    std::fs::write(
        &f,
        b"[{\"url\": \"https://a.example\", \"title\": \"caf\xe9\"}]",
    )
    .unwrap();
    sb.cite()
        .arg("ingest")
        .arg(&f)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(format!(
            "error: cannot read {}",
            f.display()
        )));
    assert!(!sb.ledger.exists());
}

/// A reader running alongside an ingest sees all of it or none of it.
#[test]
fn ingest_is_one_transaction() {
    const N: usize = 1500;
    let sb = Sandbox::new();
    sb.ok(&["add", "https://before.example"]);
    let items: Vec<String> = (0..N)
        .map(|i| format!(r#"{{"url":"https://s{i}.example/p","title":"T{i}"}}"#))
        .collect();
    let f = sb.file("big.json", &format!("[{}]", items.join(",")));

    let mut ingest = std::process::Command::new(env!("CARGO_BIN_EXE_cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .arg("ingest")
        .arg(&f)
        .env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    loop {
        let done = ingest.try_wait().unwrap().is_some();
        let out = sb.cite().args(["list", "--json"]).output().unwrap();
        assert!(
            out.status.success(),
            "list during ingest failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let n = serde_json::from_slice::<Vec<Value>>(&out.stdout)
            .unwrap()
            .len();
        seen.push(n);
        if done {
            break;
        }
    }
    let out = ingest.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        seen.iter().all(|&n| n == 1 || n == N + 1),
        "a reader saw a partial ingest: {seen:?}"
    );
    assert_eq!(*seen.last().unwrap(), N + 1);
    // All records of the ingest come from one transaction: the first gives its origin,
    // the others point at it.
    let log: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    assert_eq!(log.len(), N + 1);
    assert!(log[1]["time"].is_string(), "{}", log[1]);
    assert!(
        log[2..].iter().all(|r| r["same_transaction_as"] == 2),
        "{:?}",
        &log[2..]
    );
}

#[test]
fn ingest_from_a_pipe_that_writes_slowly() {
    // stdin is read to the end before anything is registered.
    let sb = Sandbox::new();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(["ingest", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(br#"[{"url":"https://a.example"},"#)
        .unwrap();
    stdin.flush().unwrap();
    // A pause between the halves, so that cite's first read comes back short; nothing is
    // asserted about the pause itself.
    std::thread::sleep(std::time::Duration::from_millis(50));
    stdin.write_all(br#"{"url":"https://b.example"}]"#).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "[1] https://a.example\n[2] https://b.example\n"
    );
}

// ---- reset -----------------------------------------------------------------------------

#[test]
fn reset_prints_the_path_and_restarts_ids() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "https://b.example"]);
    sb.cite()
        .arg("reset")
        .assert()
        .success()
        .stdout(format!("ledger reset: {}\n", sb.ledger.display()));
    assert_eq!(
        sb.ok(&["list"]),
        format!("ledger is empty: {}\n", sb.ledger.display())
    );
    assert_eq!(
        sb.ok(&["add", "https://b.example"]),
        "[1] https://b.example\n"
    );
    assert_eq!(
        sb.ok(&["add", "https://c.example"]),
        "[2] https://c.example\n"
    );
    // The old epoch stays readable.
    assert_eq!(
        sb.ok(&["list", "--epoch", "1"]),
        "[1] https://a.example\n[2] https://b.example\n"
    );
    assert_eq!(
        sb.ok(&["list", "--epoch", "2"]),
        "[1] https://b.example\n[2] https://c.example\n"
    );
}

#[test]
fn reset_of_a_new_ledger_works() {
    let sb = Sandbox::new();
    sb.cite()
        .arg("reset")
        .assert()
        .success()
        .stdout(format!("ledger reset: {}\n", sb.ledger.display()));
    assert_eq!(
        sb.ok(&["add", "https://a.example"]),
        "[1] https://a.example\n"
    );
}

#[test]
fn unknown_epoch_is_refused() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    sb.ok(&["reset"]);
    sb.cite()
        .args(["list", "--epoch", "99"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with("error: no epoch 99 "));
}

/// Progress goes to a terminal only: piped, a large ingest prints its ids and nothing else.
#[test]
fn a_large_ingest_prints_no_progress_when_not_on_a_terminal() {
    let sb = Sandbox::new();
    let items: Vec<String> = (0..12_000)
        .map(|i| format!(r#"{{"url":"https://p{i}.example"}}"#))
        .collect();
    let input = sb.file("big.json", &format!("[{}]", items.join(",")));
    let out = sb
        .cite()
        .arg("ingest")
        .arg(&input)
        .output()
        .expect("run cite");
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 12_000);
}

/// True when `text` holds a character a terminal would act on: C0 controls but tab,
/// line feed and carriage return; DEL; C1 controls.
fn has_terminal_controls(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || ('\u{80}'..='\u{9f}').contains(&c)
    })
}

/// Issue 9.
#[test]
fn titles_with_terminal_escapes_are_defused_at_registration() {
    let sb = Sandbox::new();
    let title = "Evil\u{1b}[2J\u{7}title\u{9b}31m\ttabbed";
    sb.ok(&["add", "https://a.example", "--title", title]);
    let input = sb.file(
        "in.json",
        r#"[{"url":"https://b.example","title":"From \u001b]0;pwned\u0007 the web"}]"#,
    );
    sb.ok(&["ingest", input.to_str().unwrap()]);
    for args in [
        &["list"][..],
        &["show", "1"],
        &["show", "2"],
        &["log"],
        &["render"],
        &["render", "--style", "bibtex"],
        &["render", "--style", "footnotes"],
    ] {
        let out = sb.ok(args);
        assert!(!has_terminal_controls(&out), "{args:?}: {out:?}");
    }
    let rows = list_json(&sb, &[]);
    assert_eq!(
        rows[0]["title"],
        "Evil\u{fffd}[2J\u{fffd}title\u{fffd}31m tabbed"
    );
    assert_eq!(rows[1]["title"], "From \u{fffd}]0;pwned\u{fffd} the web");
}

/// Issue 9.
#[test]
fn control_characters_already_stored_are_escaped_on_output() {
    // Stored by an earlier cite (or any other writer): the title, the URL as given and
    // a quote reach the terminal defused.
    let sb = Sandbox::new();
    let page = sb.file("page.txt", "a b c d\u{1b}[31m e f g h");
    sb.ok(&["add", "https://a.example/\u{1b}[2J"]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "d\u{1b}[31m e f",
        "--from",
        page.to_str().unwrap(),
    ]);
    let store = cite_store::Store::open_write(
        &sb.ledger,
        cite_store::lock::LockMode::Write,
        std::time::Duration::from_secs(5),
    )
    .unwrap();
    let origin = cite_store::event::Origin {
        at_ns: 0,
        pid: 1,
        actor: Some("\u{1b}[1mactor".into()),
        command: vec!["cite".into(), "\u{1b}[2J".into()],
    };
    store
        .write(&origin, std::time::Duration::from_secs(5), |w| {
            w.append(cite_store::event::Event::TitleSet {
                epoch: cite_store::event::Epoch(1),
                id: cite_store::event::SourceId(1),
                title: "raw\u{1b}[2Jtitle\u{85}".into(),
            })
            .map(|_| ())
        })
        .unwrap();
    drop(store);
    for args in [
        &["list"][..],
        &["show", "1"],
        &["log"],
        &["render"],
        &["render", "--style", "evidence"],
        &["export", "--format", "ris"],
    ] {
        let out = sb.ok(args);
        assert!(!has_terminal_controls(&out), "{args:?}: {out:?}");
    }
}
