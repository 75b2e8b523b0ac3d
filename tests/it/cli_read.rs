//! The read commands through the binary: `list` (plain, `--json`, `--by-via`, `--epoch`),
//! `log` (lines, `--json` hash chain, `--id`, `$CITE_ACTOR`), `show`; the ledger path
//! rules (`--ledger` before or after the subcommand, `$CITE_LEDGER`, `$XDG_DATA_HOME`);
//! that reading a ledger that does not exist creates nothing; and that a closed output
//! pipe is not an error.

use std::path::Path;
use std::process::Stdio;

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
        assert!(r["time"].as_str().unwrap().ends_with('Z'), "{r}");
        assert!(r["pid"].as_u64().unwrap() > 0);
        let cmd: Vec<&str> = r["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert!(cmd.contains(&"--ledger"), "{cmd:?}");
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
    assert_eq!(lines[4], "history:");
    assert_eq!(lines.len(), 7, "{out}");
    assert!(lines[5].starts_with("  #1 ") && lines[5].contains("added [1] https://a.example/Doc"));
    assert!(lines[6].starts_with("  #2 ") && lines[6].contains("titled [1] \"The doc\""));
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
