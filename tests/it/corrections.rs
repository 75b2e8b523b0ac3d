//! Issue 20, item 5: corrections are events, never edits. A quote attached to the wrong
//! source could never be removed and showed under it forever; a wrong title could never
//! be corrected (`add --title` on a titled source was silently ignored).

use serde_json::{Value, json};

use crate::mcp::Server;
use crate::util::Sandbox;

const PAGE: &str = "Ice is about nine percent less dense than liquid water. Lakes freeze from the top down in winter.";

/// A ledger with [1] titled "Wrong title" and two quotes on it, and [2].
fn ledger() -> Sandbox {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/ice", "--title", "Wrong title"]);
    sb.ok(&["add", "https://b.example/lakes"]);
    let page = sb.file("page.txt", PAGE);
    let page = page.to_str().unwrap();
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "nine percent less dense",
        "--from",
        page,
    ]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "freeze from the top down",
        "--from",
        page,
    ]);
    sb
}

#[test]
fn a_retracted_quote_stays_on_record_and_counts_for_nothing() {
    let sb = ledger();
    let show = sb.ok(&["show", "1"]);
    assert!(
        show.contains("  1. > \"nine percent less dense\"\n"),
        "{show}"
    );
    assert!(
        show.contains("  2. > \"freeze from the top down\"\n"),
        "{show}"
    );
    assert_eq!(
        sb.ok(&[
            "retract",
            "1",
            "--quote",
            "2",
            "--reason",
            "it is about lakes, not [1]"
        ]),
        "[1] quote 2 retracted (\"freeze from the top down\"); 1 quote(s) still count\n"
    );
    let show = sb.ok(&["show", "1"]);
    assert!(
        show.contains("quotes:\n  1. > \"nine percent less dense\""),
        "{show}"
    );
    assert!(
        show.contains(
            "retracted quotes (they count for nothing):\n  2. > \"freeze from the top down\""
        ),
        "{show}"
    );
    assert!(
        show.contains("    retracted: it is about lakes, not [1]\n"),
        "{show}"
    );
    assert!(
        show.contains("retracted quote 2 of [1]: it is about lakes, not [1] (epoch 1)"),
        "the history shows the retraction: {show}"
    );
    let log = sb.ok(&["log"]);
    assert!(
        log.contains("quoted [1] \"freeze from the top down\""),
        "{log}"
    );
    assert!(log.contains("retracted quote 2 of [1]"), "{log}");
    assert!(
        sb.ok(&["list"])
            .contains("[1] https://a.example/ice  Wrong title  (1 quote)\n")
    );
    let evidence = sb.ok(&["render", "--style", "evidence"]);
    assert!(!evidence.contains("freeze from the top down"), "{evidence}");
    // The last one retracted: the source carries no evidence for `verify --evidence`.
    sb.ok(&[
        "retract",
        "1",
        "--quote",
        "1",
        "--reason",
        "checked again: wrong figure",
    ]);
    let draft = sb.file("d.md", "Ice is less dense than water.[1]\n\n## Sources\n\n[1] https://a.example/ice — Wrong title\n");
    let out = sb.run(&["verify", draft.to_str().unwrap(), "--evidence"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("cited sources carry no verbatim evidence quote"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("(0 with evidence quotes)"),
        "{}",
        out.stdout
    );
    // The log replays to the same state.
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
    sb.ok(&["rebuild"]);
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
    assert!(
        sb.ok(&["show", "1"])
            .contains("retracted: checked again: wrong figure")
    );
    // Attached again, it counts again, under a new number.
    let page = sb.file("page.txt", PAGE);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "nine percent less dense",
        "--from",
        page.to_str().unwrap(),
    ]);
    assert!(
        sb.ok(&["show", "1"])
            .contains("  3. > \"nine percent less dense\"")
    );
    assert_eq!(
        sb.run(&["verify", draft.to_str().unwrap(), "--evidence"])
            .code,
        0
    );
}

#[test]
fn retract_refuses_what_it_cannot_do_and_writes_nothing() {
    let sb = ledger();
    let log = sb.ok(&["log"]);
    for (args, code, message) in [
        (
            vec!["retract", "1", "--quote", "9", "--reason", "x"],
            1,
            "error: [1] has no quote 9 — `show 1` numbers its quotes",
        ),
        (
            vec!["retract", "7", "--quote", "1", "--reason", "x"],
            1,
            "error: no source [7] in the ledger",
        ),
        (
            vec!["retract", "1", "--quote", "1", "--reason", "  "],
            2,
            "error: give the reason for a retraction: it stays in the log beside it",
        ),
    ] {
        let out = sb.run(&args);
        assert_eq!(out.code, code, "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.trim_end(), message, "{args:?}");
    }
    sb.ok(&["retract", "1", "--quote", "1", "--reason", "x"]);
    let out = sb.run(&["retract", "1", "--quote", "1", "--reason", "again"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "error: quote 1 of [1] is retracted already\n");
    // Only the one retraction was written.
    assert_eq!(sb.ok(&["log"]).lines().count(), log.lines().count() + 1);
}

#[test]
fn a_wrong_title_is_corrected_and_the_log_keeps_both() {
    let sb = ledger();
    // A title given again does not replace one that is there, and says how to.
    let out = sb.run(&["add", "https://a.example/ice", "--title", "Ice and water"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "[1] https://a.example/ice\n");
    assert!(
        out.stderr
            .contains("note: [1] kept the title already recorded")
            && out.stderr.contains("`cite retitle 1 TITLE`"),
        "{}",
        out.stderr
    );
    assert_eq!(
        sb.ok(&["retitle", "1", "Ice and water"]),
        "[1] retitled \"Ice and water\" (was \"Wrong title\")\n"
    );
    assert!(
        sb.ok(&["list"])
            .contains("[1] https://a.example/ice  Ice and water  (2 quotes)")
    );
    assert!(
        sb.ok(&["render"])
            .contains("[1] https://a.example/ice — Ice and water")
    );
    let csl: Value = serde_json::from_str(&sb.ok(&["export", "--format", "csl-json"])).unwrap();
    assert_eq!(csl[0]["title"], "Ice and water");
    let log = sb.ok(&["log", "--id", "1"]);
    assert!(
        log.contains("added [1] https://a.example/ice \"Wrong title\""),
        "{log}"
    );
    assert!(
        log.contains("title of [1] corrected to \"Ice and water\""),
        "{log}"
    );
    // The same title again changes nothing and writes nothing.
    let before = sb.ok(&["log"]);
    assert_eq!(
        sb.ok(&["retitle", "1", "Ice and water"]),
        "[1] already titled \"Ice and water\": nothing changed\n"
    );
    assert_eq!(sb.ok(&["log"]), before);
    let out = sb.run(&["retitle", "1", " "]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "error: give the new title: it cannot be empty\n")
    );
    // A title that starts with a dash is a title.
    assert!(
        sb.ok(&["retitle", "2", "-40 degrees: a record"])
            .contains("retitled \"-40 degrees: a record\"")
    );
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn the_mcp_server_retracts_and_retitles() {
    let sb = ledger();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (text, data) = srv.ok(
        "retract",
        json!({"id": "1", "quote": 2, "reason": "wrong source"}),
    );
    assert_eq!(
        text,
        "[1] quote 2 retracted (\"freeze from the top down\"); 1 quote(s) still count"
    );
    assert_eq!(data["quotes"], 1);
    let (text, data) = srv.ok("retitle", json!({"id": 1, "title": "Ice"}));
    assert_eq!(text, "[1] retitled \"Ice\" (was \"Wrong title\")");
    assert_eq!(data["was"], "Wrong title");
    let msg = srv.refused("retract", json!({"id": 1, "quote": 2, "reason": "again"}));
    assert_eq!(msg, "error: quote 2 of [1] is retracted already");
    let (text, _) = srv.ok(
        "add",
        json!({"urls": ["https://a.example/ice"], "title": "Other"}),
    );
    assert!(
        text.contains("the `retitle` tool") && !text.contains("`cite "),
        "{text}"
    );
    assert_eq!(srv.shutdown(), Some(0));
}
