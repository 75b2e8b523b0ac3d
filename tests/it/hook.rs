//! Issue 12, item 1: `cite hook claude-code` fed the recorded payloads of
//! tests/fixtures/hook/ on stdin — what it registers, under which route, what it tells
//! the model, and that nothing (malformed input, a busy, damaged or unwritable ledger)
//! ever makes it exit non-zero or print half an answer.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Outcome, Sandbox, cite_bin};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hook")
        .join(name)
}

fn read_fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).expect("fixture")
}

/// `cite --ledger LEDGER [EXTRA…] hook claude-code` with `payload` on stdin.
fn hook_with(sb: &Sandbox, ledger: &Path, extra: &[&str], payload: &[u8]) -> Outcome {
    let started = Instant::now();
    let out = sb
        .cite_at(ledger)
        .args(extra)
        .args(["hook", "claude-code"])
        .write_stdin(payload.to_vec())
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run cite hook");
    Outcome::from_output(out, started.elapsed())
}

fn hook(sb: &Sandbox, payload: &[u8]) -> Outcome {
    hook_with(sb, &sb.ledger, &[], payload)
}

/// The `additionalContext` of a hook's answer, after checking the answer's shape.
fn context_of(out: &Outcome) -> String {
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout.lines().count(),
        1,
        "one line of JSON: {:?}",
        out.stdout
    );
    let answer: Value = serde_json::from_str(&out.stdout).expect("the answer is JSON");
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PostToolUse", "{answer}");
    assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    assert_eq!(specific.as_object().unwrap().len(), 2, "{answer}");
    specific["additionalContext"]
        .as_str()
        .expect("additionalContext is text")
        .to_string()
}

/// The ledger's sources as `(id, url, title, via)`.
fn sources(sb: &Sandbox) -> Vec<(u64, String, String, String)> {
    let list: Vec<Value> = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    list.iter()
        .map(|s| {
            (
                s["id"].as_u64().unwrap(),
                s["url"].as_str().unwrap().to_string(),
                s["title"].as_str().unwrap().to_string(),
                s["via"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Asserts that the hook did nothing and said nothing.
fn assert_silent(out: &Outcome, what: &str) {
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", ""),
        "{what}"
    );
}

/// Asserts the failure shape every hook error has: exit 0, nothing on stdout, one line
/// on stderr starting `cite hook: `; returns that line.
fn assert_one_line_error(out: &Outcome, what: &str) -> String {
    assert_eq!(out.code, 0, "{what}: {out:?}");
    assert_eq!(out.stdout, "", "{what}");
    assert_eq!(out.stderr.lines().count(), 1, "{what}: {:?}", out.stderr);
    assert!(
        out.stderr.starts_with("cite hook: "),
        "{what}: {:?}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{what}: {:?}", out.stderr);
    out.stderr.trim_end().to_string()
}

// ---- each shape ------------------------------------------------------------------------

#[test]
fn webfetch_registers_the_fetched_url_and_tells_the_model_its_id() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://earlier.example"]);
    let out = hook(&sb, &read_fixture("webfetch.json"));
    assert_eq!(out.stderr, "");
    let ledger = sb.ledger.display();
    assert_eq!(
        context_of(&out),
        format!(
            "cite registered the sources of this WebFetch call in the citation ledger {ledger}. \
             Cite a claim taken from one by its id, right after the sentence; never type a URL \
             or an id the ledger did not give:\n\
             [2] https://physics.example.org/water/density-anomaly — cite it as [2]\n\
             WebFetch answers with a summary written by a model, not the page: no page text \
             was stored for [2]. To quote the page, get its own text with a tool that returns \
             the page (a scrape or extract tool, or `curl -sL URL > page.txt`), then run \
             `cite quote ID --text \"…\" --from page.txt`, or store it once with \
             `cite add URL --snapshot page.txt`."
        )
    );
    // The page asked for, not URLs the summary mentions.
    assert_eq!(
        sources(&sb)[1],
        (
            2,
            "https://physics.example.org/water/density-anomaly".into(),
            String::new(),
            "WebFetch".into()
        )
    );
    assert_eq!(sources(&sb).len(), 2);
    // The log says the hook did it.
    let log = sb.ok(&["log"]);
    assert!(
        log.lines()
            .nth(1)
            .is_some_and(|l| l.contains("via WebFetch")
                && l.ends_with(&format!("--ledger {ledger} hook claude-code"))),
        "{log}"
    );
}

#[test]
fn websearch_registers_every_result_in_order_with_titles() {
    let sb = Sandbox::new();
    let out = hook(&sb, &read_fixture("websearch.json"));
    let context = context_of(&out);
    let lines: Vec<&str> = context.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "[1] https://physics.example.org/water/density-anomaly  The density anomaly of water — cite it as [1]",
            "[2] https://limnology.example.edu/lake-ice  Why lakes freeze from the top down — cite it as [2]",
            "[3] https://encyclopedia.example/wiki/Ice_Ih  Hydrogen bonding in ice Ih — Encyclopedia — cite it as [3]",
        ]
    );
    assert!(context.starts_with("cite registered the sources of this WebSearch call"));
    let got = sources(&sb);
    assert_eq!(
        got.len(),
        3,
        "the mirror spelling is the same source: {got:?}"
    );
    assert!(got.iter().all(|s| s.3 == "WebSearch"), "{got:?}");
    assert_eq!(got[1].2, "Why lakes freeze from the top down");
}

#[test]
fn mcp_results_are_found_in_json_text_blocks_and_in_structured_output() {
    let sb = Sandbox::new();
    let out = hook(&sb, &read_fixture("mcp-text-json.json"));
    let context = context_of(&out);
    assert!(
        context.contains("\n[1] https://limnology.example.edu/lake-ice  Why lakes freeze from the top down — cite it as [1]\n[2] https://journal.example.com/articles/ice-ih  The structure of ice Ih — cite it as [2]"),
        "{context}"
    );
    let out = hook(&sb, &read_fixture("mcp-structured.json"));
    let context = context_of(&out);
    assert!(
        context.ends_with("\n[3] https://books.example.com/ice-physics  Ice physics — cite it as [3]\n[4] http://water.example.net/structure  Water structure — cite it as [4]"),
        "{context}"
    );
    let vias: Vec<String> = sources(&sb).into_iter().map(|s| s.3).collect();
    assert_eq!(
        vias,
        [
            "mcp__exa__web_search_exa",
            "mcp__exa__web_search_exa",
            "mcp__zotero__search_items",
            "mcp__zotero__search_items"
        ]
    );
    let by_via = sb.ok(&["list", "--by-via"]);
    assert!(by_via.contains("mcp__exa__web_search_exa: 2"), "{by_via}");
}

#[test]
fn the_same_call_twice_gives_the_same_ids() {
    let sb = Sandbox::new();
    let first = context_of(&hook(&sb, &read_fixture("websearch.json")));
    let again = context_of(&hook(&sb, &read_fixture("websearch.json")));
    assert_eq!(first, again);
    // A WebFetch of a page a search found gets the search's id.
    let fetched = context_of(&hook(&sb, &read_fixture("webfetch.json")));
    assert!(fetched.contains("\n[1] https://physics.example.org/water/density-anomaly  The density anomaly of water — cite it as [1]\n"), "{fetched}");
    assert_eq!(sources(&sb).len(), 3);
}

#[test]
fn via_can_be_given() {
    let sb = Sandbox::new();
    let out = sb
        .cite()
        .args(["hook", "claude-code", "--via", "web"])
        .write_stdin(read_fixture("webfetch.json"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(sources(&sb)[0].3, "web");
}

// ---- nothing to register ----------------------------------------------------------------

#[test]
fn calls_without_a_url_are_silent_and_create_no_ledger() {
    let sb = Sandbox::new();
    for name in [
        "webfetch-redirect.json",
        "webfetch-url-not-a-string.json",
        "websearch-empty.json",
        "mcp-plain-text.json",
        "read-tool.json",
        "cite-own-mcp.json",
    ] {
        assert_silent(&hook(&sb, &read_fixture(name)), name);
    }
    assert!(!sb.ledger.exists(), "nothing registered, nothing created");
}

#[test]
fn a_hook_wired_to_another_event_says_so_once() {
    let sb = Sandbox::new();
    let line = assert_one_line_error(&hook(&sb, &read_fixture("pre-tool-use.json")), "pre");
    assert_eq!(
        line,
        "cite hook: ignored a \"PreToolUse\" event: wire `cite hook claude-code` to PostToolUse"
    );
    assert!(!sb.ledger.exists());
}

// ---- malformed input ---------------------------------------------------------------------

#[test]
fn malformed_payloads_are_one_line_and_exit_0() {
    let sb = Sandbox::new();
    let cases = [
        ("malformed-truncated.json", "EOF while parsing"),
        ("malformed-not-json.txt", "(it starts with 'P')"),
        ("malformed-array.json", "(it starts with '[')"),
        ("malformed-empty.json", "(empty input)"),
        (
            "malformed-no-tool-name.json",
            "the hook input has no tool_name",
        ),
        (
            "malformed-wrong-types.json",
            "invalid type: sequence, expected a string",
        ),
        ("webfetch-bad-url.json", "skipped \"https://\", not a URL"),
    ];
    for (name, says) in cases {
        let line = assert_one_line_error(&hook(&sb, &read_fixture(name)), name);
        assert!(line.contains(says), "{name}: {line}");
    }
    let line = assert_one_line_error(&hook(&sb, b"\xff\xfe{}"), "not UTF-8");
    assert_eq!(line, "cite hook: the hook input is not UTF-8 text");
    assert!(!sb.ledger.exists());
}

#[test]
fn a_misconfigured_hook_command_is_one_line_and_exit_0() {
    let sb = Sandbox::new();
    let payload = read_fixture("webfetch.json");
    for args in [
        &["hook", "claude-code", "--bogus"][..],
        &["hook", "cursor"],
        &["hook"],
        &["--wait", "nan", "hook", "claude-code"],
    ] {
        let out = sb
            .cite()
            .args(args)
            .write_stdin(payload.clone())
            .output()
            .unwrap();
        let out = Outcome::from_output(out, Duration::ZERO);
        let line = assert_one_line_error(&out, &format!("{args:?}"));
        assert!(!line.contains("Usage"), "{args:?}: {line}");
    }
    // Help is still help.
    let out = sb.run(&["hook", "--help"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("claude-code"), "{}", out.stdout);
    // And another command's mistake is still a usage error.
    assert_eq!(sb.run(&["add", "--bogus", "hook"]).code, 2);
    assert!(!sb.ledger.exists());
}

#[test]
fn a_huge_payload_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let filler = "x".repeat(33 << 20);
    let payload = json!({"hook_event_name": "PostToolUse", "tool_name": "mcp__big__dump",
        "tool_response": {"url": "https://big.example", "blob": filler}});
    let line = assert_one_line_error(&hook(&sb, payload.to_string().as_bytes()), "huge");
    assert_eq!(
        line,
        "cite hook: the hook input is larger than 32 MiB; its sources were not registered"
    );
    assert!(!sb.ledger.exists());
}

#[test]
fn a_large_search_registers_in_one_transaction() {
    let sb = Sandbox::new();
    let content: Vec<Value> = (0..5000)
        .map(|i| json!({"title": format!("R{i}"), "url": format!("https://r{i}.example/p")}))
        .collect();
    let payload = json!({"hook_event_name": "PostToolUse", "tool_name": "WebSearch",
        "tool_input": {"query": "q"},
        "tool_response": {"query": "q", "results": [{"tool_use_id": "s", "content": content}, "summary"]}});
    let context = context_of(&hook(&sb, payload.to_string().as_bytes()));
    assert_eq!(context.lines().count(), 1 + 30 + 1, "the list is capped");
    assert!(context.ends_with("\n… and 4970 more: `cite list` shows every id"));
    assert_eq!(sb.ok(&["list"]).lines().count(), 5000);
    let records: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    assert_eq!(
        records
            .iter()
            .filter(|r| r.get("command").is_some())
            .count(),
        1,
        "one transaction"
    );
}

// ---- the ledger --------------------------------------------------------------------------

#[test]
fn a_busy_ledger_costs_the_registration_not_the_agent() {
    use cite_store::lock::{self, LockMode};
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    let held = lock::acquire(&sb.ledger, LockMode::Maintenance, Duration::from_secs(1))
        .expect("exclusive lock");
    // The hook's own default wait is short: it must not stall the agent for 30 s.
    let out = hook(&sb, &read_fixture("webfetch.json"));
    let line = assert_one_line_error(&out, "busy");
    assert!(line.starts_with("cite hook: ledger busy"), "{line}");
    assert!(
        out.took >= Duration::from_millis(1700) && out.took < Duration::from_secs(10),
        "gave up after {:?}, not after about 2 s",
        out.took
    );
    let out = hook_with(
        &sb,
        &sb.ledger,
        &["--wait", "0.2"],
        &read_fixture("webfetch.json"),
    );
    assert_one_line_error(&out, "busy, --wait 0.2");
    // Under the hook's own 2 s, which is what this bound tells apart; that leaves 1.8 s
    // for starting the process.
    assert!(out.took < Duration::from_secs(2), "{:?}", out.took);
    drop(held);
    assert_eq!(
        sources(&sb).len(),
        1,
        "nothing was registered behind the lock"
    );
}

#[test]
fn a_damaged_or_unwritable_ledger_is_one_line_and_exit_0() {
    let sb = Sandbox::new();
    let damaged = sb.file("damaged.redb", &"not a ledger\n".repeat(1000));
    let line = assert_one_line_error(
        &hook_with(&sb, &damaged, &[], &read_fixture("webfetch.json")),
        "damaged",
    );
    assert!(line.contains("damaged.redb"), "{line}");
    // A ledger whose folder cannot be made: its parent is a file.
    let file = sb.file("plain-file", "x");
    let line = assert_one_line_error(
        &hook_with(
            &sb,
            &file.join("ledger.redb"),
            &[],
            &read_fixture("webfetch.json"),
        ),
        "unwritable",
    );
    assert!(line.contains("plain-file"), "{line}");
    // A sources.py ledger is refused with the import hint, on one line.
    let json_ledger = sb.file("ledger.json", r#"{"version": 1, "sources": []}"#);
    let line = assert_one_line_error(
        &hook_with(&sb, &json_ledger, &[], &read_fixture("webfetch.json")),
        "sources.py ledger",
    );
    assert!(
        line.contains("is a sources.py JSON ledger") && line.contains(" import "),
        "{line}"
    );
}

#[test]
fn a_relative_ledger_path_is_the_ledger_in_the_agents_working_folder() {
    let sb = Sandbox::new();
    let agent_dir = sb.path().join("project");
    std::fs::create_dir(&agent_dir).unwrap();
    let hook_dir = sb.path().join("elsewhere");
    std::fs::create_dir(&hook_dir).unwrap();
    let mut payload: Value = serde_json::from_slice(&read_fixture("webfetch.json")).unwrap();
    payload["cwd"] = json!(agent_dir);
    for (via_env, flag) in [(true, false), (false, true)] {
        let mut cmd = cite_bin();
        cmd.current_dir(&hook_dir);
        if via_env {
            cmd.env("CITE_LEDGER", "notes/env.redb");
        }
        if flag {
            cmd.args(["--ledger", "notes/flag.redb"]);
        }
        let out = cmd
            .args(["hook", "claude-code"])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        let out = Outcome::from_output(out, Duration::ZERO);
        let name = if via_env { "env.redb" } else { "flag.redb" };
        let context = context_of(&out);
        let expected = agent_dir.join("notes").join(name);
        assert!(expected.exists(), "{name}: {context}");
        assert!(
            context.contains(&expected.display().to_string()),
            "{context}"
        );
    }
    assert!(
        !hook_dir.join("notes").exists(),
        "nothing in the hook's own folder"
    );
    // An absolute path stays where it is.
    let out = hook(&sb, payload.to_string().as_bytes());
    context_of(&out);
    assert!(sb.ledger.exists());
}

#[test]
fn a_working_folder_that_does_not_exist_is_one_line_and_creates_nothing() {
    // Issue 25: a payload's `cwd` joined to a relative ledger path made the whole
    // folder tree, wherever the payload pointed.
    let sb = Sandbox::new();
    let missing = sb.path().join("gone").join("project");
    let mut payload: Value = serde_json::from_slice(&read_fixture("webfetch.json")).unwrap();
    payload["cwd"] = json!(missing);
    let out = Outcome::from_output(
        cite_bin()
            .current_dir(sb.path())
            .args(["--ledger", "notes/l.redb", "hook", "claude-code"])
            .write_stdin(payload.to_string())
            .output()
            .unwrap(),
        Duration::ZERO,
    );
    let line = assert_one_line_error(&out, "missing cwd");
    assert_eq!(
        line,
        format!(
            "cite hook: the agent's working folder {} does not exist, so its ledger \
             notes/l.redb was not opened; nothing was registered",
            missing.display()
        )
    );
    assert!(!sb.path().join("gone").exists(), "no folder was made");
}
