//! Issue 19, item 3: one page, one id. Tracking parameters and credentials never make a
//! second id (nor are credentials ever stored or shown), http and https of one URL are
//! one page, a URL that differs from a registered one only in its query is registered
//! with a note naming the look-alike, and ledgers written before keep their ids — through
//! the CLI, the MCP server and the hook.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use cite_store::event::{Event, Origin};
use cite_store::lock::LockMode;
use cite_store::{Store, StoreError};

use crate::mcp::Server;
use crate::util::{Outcome, Sandbox, source_added};

fn add(sb: &Sandbox, urls: &[&str]) -> Outcome {
    let mut args = vec!["add"];
    args.extend_from_slice(urls);
    let out = sb.run(&args);
    assert_eq!(out.code, 0, "add {urls:?}: {out:?}");
    out
}

/// Writes `events` into the ledger as a version of cite before issue 19 would have: the
/// URLs stored as that version canonicalized them.
fn write_as_before(ledger: &Path, events: Vec<Event>) {
    let origin = Origin {
        at_ns: 0,
        pid: 1,
        actor: None,
        command: vec!["cite".into(), "add".into()],
    };
    let store = Store::open_write(ledger, LockMode::Write, Duration::from_secs(5)).unwrap();
    store
        .write(&origin, Duration::from_secs(5), |w| {
            for e in events.clone() {
                w.append(e)?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn records(sb: &Sandbox) -> usize {
    sb.ok(&["log"]).lines().count()
}

fn hook(sb: &Sandbox, url: &str) -> Outcome {
    let payload = json!({
        "hook_event_name": "PostToolUse", "tool_name": "WebFetch",
        "tool_input": {"url": url, "prompt": "p"},
        "tool_response": {"code": 200, "result": "a page"}
    });
    let out = sb
        .cite()
        .args(["hook", "claude-code"])
        .write_stdin(payload.to_string())
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run cite hook");
    Outcome::from_output(out, Duration::ZERO)
}

fn context_for_model(out: &Outcome) -> String {
    assert_eq!(out.code, 0, "{out:?}");
    let answer: Value = serde_json::from_str(&out.stdout).expect("the hook answers JSON");
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_string()
}

// ---- tracking parameters -------------------------------------------------------------

/// Each parameter the issue names gives no second id, and the event keeps the URL as
/// given, for audit.
#[test]
fn tracking_parameters_give_no_second_id() {
    let sb = Sandbox::new();
    assert_eq!(
        add(&sb, &["https://news.example/2024/story?id=7"]).stdout,
        "[1] https://news.example/2024/story?id=7\n"
    );
    for key in [
        "utm_source",
        "utm_medium",
        "utm_campaign",
        "utm_term",
        "utm_content",
        "fbclid",
        "gclid",
        "dclid",
        "msclkid",
        "mc_cid",
        "mc_eid",
        "igshid",
        "_hsenc",
        "_hsmi",
        "yclid",
    ] {
        let given = format!("https://news.example/2024/story?{key}=abc&id=7");
        let out = add(&sb, &[&given]);
        assert_eq!(
            out.stdout, "[1] https://news.example/2024/story?id=7\n",
            "{key}"
        );
        assert_eq!(out.stderr, "", "{key}");
    }
    // The first registration by a tracked link: the stored URL is without it, the URL
    // as given is in the event.
    let sb = Sandbox::new();
    let given = "https://news.example/a?utm_source=newsletter&utm_medium=email";
    assert_eq!(add(&sb, &[given]).stdout, "[1] https://news.example/a\n");
    assert_eq!(sb.ok(&["list"]), "[1] https://news.example/a\n");
    let log: Value = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    assert_eq!(log[0]["event"]["url"], "https://news.example/a");
    assert_eq!(log[0]["event"]["url_given"], given);
    let sources = sb.ok(&["render", "--style", "plain"]);
    assert!(!sources.contains("utm_"), "{sources}");
}

#[test]
fn a_youtube_video_is_one_source_whatever_its_start_time_or_share_id() {
    let sb = Sandbox::new();
    let out = add(
        &sb,
        &[
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=120s",
            "https://www.youtube.com/watch?si=Q2xF&v=dQw4w9WgXcQ",
            "https://youtu.be/dQw4w9WgXcQ?si=Q2xF&t=42",
            "https://youtu.be/dQw4w9WgXcQ",
        ],
    );
    assert_eq!(
        out.stdout,
        "[1] https://www.youtube.com/watch?v=dQw4w9WgXcQ\n\
         [1] https://www.youtube.com/watch?v=dQw4w9WgXcQ\n\
         [1] https://www.youtube.com/watch?v=dQw4w9WgXcQ\n\
         [2] https://youtu.be/dQw4w9WgXcQ\n\
         [2] https://youtu.be/dQw4w9WgXcQ\n"
    );
}

// ---- http and https --------------------------------------------------------------------

#[test]
fn http_and_https_of_one_url_are_one_source_in_either_order() {
    let sb = Sandbox::new();
    add(&sb, &["https://www.reuters.com/world/story-2024"]);
    assert_eq!(
        add(&sb, &["http://www.reuters.com/world/story-2024"]).stdout,
        "[1] https://www.reuters.com/world/story-2024\n"
    );
    let sb = Sandbox::new();
    add(&sb, &["http://www.reuters.com/world/story-2024"]);
    assert_eq!(
        add(
            &sb,
            &[
                "https://www.reuters.com/world/story-2024/",
                "HTTPS://WWW.REUTERS.COM/world/story-2024?utm_source=x"
            ]
        )
        .stdout,
        "[1] http://www.reuters.com/world/story-2024\n[1] http://www.reuters.com/world/story-2024\n"
    );
    // In one call, the second spelling finds the first.
    let sb = Sandbox::new();
    assert_eq!(
        add(&sb, &["http://a.example/x?q=1", "https://a.example/x?q=1"]).stdout,
        "[1] http://a.example/x?q=1\n[1] http://a.example/x?q=1\n"
    );
    // A port belongs to one scheme: no twin.
    assert_eq!(
        add(&sb, &["https://a.example:8443/x"]).stdout,
        "[2] https://a.example:8443/x\n"
    );
    assert_eq!(
        add(&sb, &["http://a.example:8443/x"]).stdout,
        "[3] http://a.example:8443/x\n"
    );
    assert_eq!(records(&sb), 3);
}

// ---- ledgers written before ------------------------------------------------------------

/// Existing ledgers keep working unmigrated: a source stored with its tracking
/// parameters, or over http, keeps its id for every spelling of its page, and nothing is
/// rewritten.
#[test]
fn a_ledger_written_before_keeps_its_ids() {
    let sb = Sandbox::new();
    write_as_before(
        &sb.ledger,
        vec![
            source_added(1, 1, "https://news.example/a?utm_source=tw"),
            source_added(1, 2, "http://old.example/p"),
            source_added(1, 3, "https://shop.example/item?id=4&fbclid=Iw"),
        ],
    );
    for (given, want) in [
        (
            "https://news.example/a?utm_source=tw",
            "[1] https://news.example/a?utm_source=tw",
        ),
        (
            "https://news.example/a",
            "[1] https://news.example/a?utm_source=tw",
        ),
        (
            "https://news.example/a?utm_source=fb",
            "[1] https://news.example/a?utm_source=tw",
        ),
        (
            "http://news.example/a/",
            "[1] https://news.example/a?utm_source=tw",
        ),
        ("https://old.example/p", "[2] http://old.example/p"),
        (
            "https://shop.example/item?id=4",
            "[3] https://shop.example/item?id=4&fbclid=Iw",
        ),
    ] {
        let out = add(&sb, &[given]);
        assert_eq!(out.stdout, format!("{want}\n"), "{given}");
        assert_eq!(out.stderr, "", "{given}");
    }
    assert_eq!(records(&sb), 3, "nothing written");
    let audit = sb.ok(&["audit"]);
    assert!(audit.starts_with("audit OK: 3 records"), "{audit}");

    // A draft whose Sources block the ledger rendered verifies as before.
    let draft = sb.file(
        "draft.md",
        "The news came out this week in several places.[1] The old page said it first.[2]\n",
    );
    let draft = draft.to_str().unwrap();
    sb.ok(&["render", "--replace-in", draft]);
    let block = std::fs::read_to_string(draft).unwrap();
    assert!(
        block.contains("[1] https://news.example/a?utm_source=tw"),
        "{block}"
    );
    let out = sb.run(&["verify", draft]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.ends_with("citations OK\n"), "{out:?}");
}

// ---- look-alikes -------------------------------------------------------------------------

#[test]
fn a_url_that_differs_only_in_its_query_is_registered_with_a_note() {
    let sb = Sandbox::new();
    add(&sb, &["https://shop.example/item?id=1"]);
    let out = add(&sb, &["https://shop.example/item?id=2"]);
    assert_eq!(out.stdout, "[2] https://shop.example/item?id=2\n");
    assert_eq!(
        out.stderr,
        "note: [2] looks like [1] https://shop.example/item?id=1 (the same host and path, another query)\n"
    );
    // Over the other scheme, and without any query, it still looks like [1].
    let out = add(
        &sb,
        &[
            "http://shop.example/item",
            "https://shop.example/item/reviews",
        ],
    );
    assert_eq!(
        out.stdout,
        "[3] http://shop.example/item\n[4] https://shop.example/item/reviews\n"
    );
    assert_eq!(
        out.stderr,
        "note: [3] looks like [1] https://shop.example/item?id=1 (the same host and path, another query)\n"
    );
    // Registered again: no note, the id it has.
    let out = add(&sb, &["https://shop.example/item?id=2"]);
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("[2] https://shop.example/item?id=2\n", "")
    );
    // Within one call too, and --json keeps its shape.
    let sb = Sandbox::new();
    let out = sb.run(&[
        "add",
        "--json",
        "https://a.example/p?x=1",
        "https://a.example/p?x=2",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let sources: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(sources.as_array().unwrap().len(), 2);
    assert_eq!(sources[1]["id"], 2);
    assert_eq!(
        out.stderr,
        "note: [2] looks like [1] https://a.example/p?x=1 (the same host and path, another query)\n"
    );
}

// ---- credentials -------------------------------------------------------------------------

/// Credentials in a URL are never stored, printed, logged or told to the model.
#[test]
fn credentials_are_never_stored_or_shown() {
    let sb = Sandbox::new();
    let out = add(&sb, &["https://alice:s3cret@intranet.example/report"]);
    assert_eq!(out.stdout, "[1] https://intranet.example/report\n");
    let out = hook(
        &sb,
        "https://alice:s3cret@intranet.example/report?utm_source=x",
    );
    let context = context_for_model(&out);
    assert!(
        context.contains("[1] https://intranet.example/report — cite it as [1]"),
        "{context}"
    );
    let out = hook(&sb, "https://bob:hunter2@intranet.example/other");
    let context = context_for_model(&out);
    assert!(
        context.contains("[2] https://intranet.example/other"),
        "{context}"
    );

    let mut seen = String::new();
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["log"],
        &["log", "--json"],
        &["show", "1"],
        &["show", "1", "--json"],
        &["show", "2", "--json"],
        &["export", "--format", "jsonl"],
        &["render", "--style", "bibtex"],
    ] {
        seen.push_str(&sb.ok(args));
    }
    let bytes = std::fs::read(&sb.ledger).unwrap();
    seen.push_str(&String::from_utf8_lossy(&bytes));
    for secret in ["alice", "s3cret", "bob", "hunter2"] {
        assert!(!seen.contains(secret), "{secret} is stored or shown");
    }
    // The command line the log keeps is the one given, without them.
    let log = sb.ok(&["log", "--id", "1"]);
    assert!(log.contains("add https://intranet.example/report"), "{log}");

    // A URL refused says so without them, too.
    let out = sb.run(&["add", "https://alice:s3cret@bad host.example/"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        !out.stderr.contains("s3cret") && !out.stderr.contains("alice"),
        "{out:?}"
    );
}

// ---- MCP and the hook ----------------------------------------------------------------------

#[test]
fn mcp_add_folds_spellings_and_names_look_alikes() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (text, _) = srv.ok(
        "add",
        json!({"urls": ["https://alice:pw@shop.example/item?id=1&utm_source=x"]}),
    );
    assert_eq!(text, "[1] https://shop.example/item?id=1");
    let (text, data) = srv.ok(
        "add",
        json!({"urls": ["http://shop.example/item?id=1", "https://shop.example/item?id=2&gclid=g"]}),
    );
    assert_eq!(
        text,
        "[1] https://shop.example/item?id=1\n[2] https://shop.example/item?id=2\n\
         note: [2] looks like [1] https://shop.example/item?id=1 (the same host and path, another query)"
    );
    assert_eq!(
        data["looks_like"],
        json!([{"id": 2, "like_id": 1, "like_url": "https://shop.example/item?id=1"}])
    );
    assert_eq!(data["sources"][1]["url"], "https://shop.example/item?id=2");
    let (_, data) = srv.ok("add", json!({"urls": ["https://shop.example/item?id=2"]}));
    assert_eq!(data.get("looks_like"), None);
    let (_, shown) = srv.ok("show", json!({"id": 1}));
    assert!(!shown.to_string().contains("alice"), "{shown}");
    assert_eq!(srv.shutdown(), Some(0));
}

#[test]
fn the_hook_folds_spellings_and_tells_the_model_of_look_alikes() {
    let sb = Sandbox::new();
    add(&sb, &["https://shop.example/item?id=1"]);
    let context = context_for_model(&hook(&sb, "http://shop.example/item?id=1&fbclid=x"));
    // WebFetch's note on page text follows the sources' lines.
    assert!(
        context
            .lines()
            .any(|l| l == "[1] https://shop.example/item?id=1 — cite it as [1]"),
        "{context}"
    );
    let context = context_for_model(&hook(&sb, "https://shop.example/item?id=2"));
    assert!(
        context.lines().any(|l| l
            == "[2] https://shop.example/item?id=2 — cite it as [2] \
                (it looks like [1] https://shop.example/item?id=1: the same host and path, another query)"),
        "{context}"
    );
}
