//! `cite mcp`: the server as a child process, spoken to over stdin/stdout with
//! newline-delimited JSON-RPC, written by hand (no MCP client library), and shared with
//! CLI writers.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::Sandbox;

/// Longest wait for one response: a hung server fails the test instead of hanging it.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A running `cite mcp` and the messages it wrote, one JSON value per stdout line.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<Value, String>>,
    next_id: u64,
}

impl Server {
    fn start(ledger: &Path) -> Server {
        Server::start_with(ledger, &[])
    }

    fn start_with(ledger: &Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("cite"));
        cmd.arg("--ledger")
            .arg(ledger)
            .arg("mcp")
            .env_remove("CITE_LEDGER")
            .env_remove("HERMES_CITATION_LEDGER")
            .env_remove("CITE_ACTOR")
            .env_remove("XDG_DATA_HOME")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start cite mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // Stdout carries only protocol messages: anything else fails the test.
                let msg = serde_json::from_str::<Value>(&line)
                    .map_err(|e| format!("stdout line is not JSON ({e}): {line:?}"));
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines: rx,
            next_id: 1,
        }
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{msg}").expect("write to server");
        stdin.flush().expect("flush to server");
    }

    /// Sends a request and returns its response (`result` or `error`), skipping any
    /// notification the server sends meanwhile.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Ok(msg)) => {
                    if msg.get("id") == Some(&json!(id)) {
                        assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
                        return msg;
                    }
                    assert!(
                        msg.get("id").is_none(),
                        "response to another request: {msg}"
                    );
                }
                Ok(Err(bad)) => panic!("{bad}"),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no response to {method} within {TIMEOUT:?}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("server closed stdout before answering {method}")
                }
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let resp = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "hand-written-test-client", "version": "0.0.1"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        resp["result"].clone()
    }

    /// `tools/call`; returns the result (a protocol error fails the test).
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let resp = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            resp.get("error").is_none(),
            "{tool}: protocol error instead of a tool result: {resp}"
        );
        resp["result"].clone()
    }

    /// A call that must succeed; returns (text, structured content).
    fn ok(&mut self, tool: &str, args: Value) -> (String, Value) {
        let result = self.call(tool, args.clone());
        assert_eq!(
            result["isError"],
            json!(false),
            "{tool} {args} failed: {result}"
        );
        (text(&result), result["structuredContent"].clone())
    }

    /// A call that must be refused as a tool error; returns its text.
    fn refused(&mut self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone());
        assert_eq!(
            result["isError"],
            json!(true),
            "{tool} {args} was not refused: {result}"
        );
        text(&result)
    }

    /// Closes stdin and waits for the server to exit; returns its exit code.
    fn shutdown(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for server") {
                return status.code();
            }
            assert!(
                Instant::now() < deadline,
                "server did not exit after stdin closed"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text content of a tool result (one text block).
fn text(result: &Value) -> String {
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text");
    content[0]["text"].as_str().expect("text").to_string()
}

/// What the CLI printed, without the final newline.
fn trimmed(s: String) -> String {
    s.strip_suffix('\n').unwrap_or(&s).to_string()
}

#[test]
fn protocol_end_to_end_every_tool() {
    let sb = Sandbox::new();
    let mut srv = Server::start_with(&sb.ledger, &[("CITE_ACTOR", "mcp-test")]);

    let init = srv.initialize();
    assert_eq!(init["serverInfo"]["name"], "cite");
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    assert!(
        init["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("verify"))
    );

    // tools/list: the six tools, each with a description and an object input schema.
    let listed = srv.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        ["add", "ingest", "list", "quote", "render", "verify"]
    );
    for t in &tools {
        assert!(
            t["description"].as_str().is_some_and(|d| d.len() > 80),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    let add = tool("add");
    assert_eq!(add["inputSchema"]["properties"]["urls"]["type"], "array");
    assert_eq!(add["inputSchema"]["required"], json!(["urls"]));
    let quote = tool("quote");
    assert_eq!(quote["inputSchema"]["properties"]["id"]["type"], "integer");
    let required = quote["inputSchema"]["required"].as_array().unwrap();
    assert!(required.contains(&json!("id")) && required.contains(&json!("text")));
    let render = tool("render");
    let style = serde_json::to_string(&render["inputSchema"]).unwrap();
    for s in ["markdown", "plain", "footnotes", "bibtex", "evidence"] {
        assert!(style.contains(s), "render style {s} in schema: {style}");
    }
    assert_eq!(tool("list")["annotations"]["readOnlyHint"], true);
    for name in ["verify", "list", "render", "ingest"] {
        assert_eq!(tool(name)["inputSchema"]["type"], "object");
    }

    // add: `[ID] URL` per input, duplicates included, and structured sources.
    let (out, data) = srv.ok(
        "add",
        json!({"urls": ["https://Example.com/a/", "https://example.com/b", "https://example.com/a"]}),
    );
    assert_eq!(
        out,
        "[1] https://example.com/a\n[2] https://example.com/b\n[1] https://example.com/a"
    );
    assert_eq!(data["sources"][1]["id"], 2);
    assert_eq!(data["sources"][1]["url"], "https://example.com/b");
    let (out, data) = srv.ok(
        "add",
        json!({"urls": ["https://example.com/c"], "title": "Page C", "accessed": "2024-05-06", "via": "web"}),
    );
    assert_eq!(out, "[3] https://example.com/c");
    assert_eq!(data["sources"][0]["title"], "Page C");
    assert_eq!(data["sources"][0]["accessed"], "2024-05-06");
    assert_eq!(data["sources"][0]["via"], "web");
    // Refused: not a URL, a bad date, no URL at all; nothing registered.
    let msg = srv.refused(
        "add",
        json!({"urls": ["https://example.com/d", "not a url"]}),
    );
    assert!(msg.starts_with("error: not a URL: \"not a url\""), "{msg}");
    let msg = srv.refused(
        "add",
        json!({"urls": ["https://example.com/d"], "accessed": "yesterday"}),
    );
    assert!(msg.contains("not a date"), "{msg}");
    let msg = srv.refused("add", json!({"urls": []}));
    assert!(msg.contains("at least one URL"), "{msg}");
    // Arguments that do not fit the schema are a tool error too, not a crash.
    let result = srv.call("add", json!({"url": "https://example.com/d"}));
    assert_eq!(result["isError"], true, "{result}");

    // ingest: JSON tool output as text.
    let search = r#"{"results": [{"url": "https://example.com/b", "title": "B"},
        {"link": "https://example.org/x", "name": "X"}, {"url": "ftp://nope"}]}"#;
    let (out, data) = srv.ok("ingest", json!({"json": search, "via": "web"}));
    assert_eq!(out, "[2] https://example.com/b\n[4] https://example.org/x");
    assert_eq!(data["sources"][1]["title"], "X");
    let msg = srv.refused("ingest", json!({"json": "{not json"}));
    assert!(msg.starts_with("error: input is not valid JSON ("), "{msg}");
    let msg = srv.refused("ingest", json!({"json": "{\"a\": 1}"}));
    assert_eq!(msg, "no urls found in input");

    // quote: inline evidence, a file, the stored snapshot; and every refusal.
    let page = "Intro.\n\nThe ledger hands out   small integer ids at retrieval time.\nEnd.";
    let (out, data) = srv.ok(
        "quote",
        json!({"id": 1, "text": "hands out small integer ids", "evidence": page}),
    );
    assert_eq!(out, "[1] evidence attached (1 quote(s))");
    assert_eq!(data["added"], true);
    assert_eq!(data["quotes"], 1);
    let page_file = sb.file("page.txt", page);
    let (out, _) = srv.ok(
        "quote",
        json!({"id": 1, "text": "ids at retrieval time", "from": page_file}),
    );
    assert_eq!(out, "[1] evidence attached (2 quote(s))");
    let msg = srv.refused(
        "quote",
        json!({"id": 1, "text": "gives out tiny numeric ids", "evidence": page}),
    );
    assert!(
        msg.starts_with(
            "error: quote not found verbatim in the evidence text — copy the exact wording"
        ),
        "{msg}"
    );
    let msg = srv.refused(
        "quote",
        json!({"id": 1, "text": "small ids", "evidence": page}),
    );
    assert!(msg.contains("quote too short"), "{msg}");
    let msg = srv.refused(
        "quote",
        json!({"id": 9, "text": "hands out small integer ids", "evidence": page}),
    );
    assert_eq!(msg, "error: no source [9] in the ledger");
    let missing = sb.path().join("missing.txt");
    let msg = srv.refused(
        "quote",
        json!({"id": 1, "text": "hands out small integer ids", "from": missing}),
    );
    assert_eq!(
        msg,
        format!("error: cannot read {}: no such file", missing.display())
    );
    let msg = srv.refused(
        "quote",
        json!({"id": 2, "text": "hands out small integer ids"}),
    );
    assert!(msg.contains("no evidence text for [2]"), "{msg}");
    let result = srv.call("quote", json!({"id": "one", "text": "x y z"}));
    assert_eq!(result["isError"], true, "{result}");
    // add with a snapshot, then quote without evidence checks against it.
    let (out, _) = srv.ok(
        "add",
        json!({"urls": ["https://example.com/snap"], "snapshot": "Snapshots keep the page text for later quotes."}),
    );
    assert_eq!(out, "[5] https://example.com/snap");
    let (out, _) = srv.ok("quote", json!({"id": 5, "text": "keep the page text"}));
    assert_eq!(out, "[5] evidence attached (1 quote(s))");

    // list: the lines `cite list` prints, and the sources as JSON.
    let (out, data) = srv.ok("list", json!({}));
    assert_eq!(out, trimmed(sb.ok(&["list"])));
    let cli_json: Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    assert_eq!(data["sources"], cli_json);
    assert!(
        out.contains("[1] https://example.com/a  (2 quotes)"),
        "{out}"
    );
    let msg = srv.refused("list", json!({"epoch": 7}));
    assert!(msg.contains("no epoch 7"), "{msg}");

    // render: the block `cite render` prints, in every style; with a draft, only the
    // ids it cites.
    let (out, data) = srv.ok("render", json!({}));
    assert_eq!(out, trimmed(sb.ok(&["render"])));
    assert_eq!(data["ids"], json!([1, 2, 3, 4, 5]));
    for style in ["plain", "footnotes", "bibtex", "evidence"] {
        let (out, _) = srv.ok("render", json!({"style": style, "only": "1,3-4"}));
        assert_eq!(
            out,
            trimmed(sb.ok(&["render", "--style", style, "--only", "1,3-4"]))
        );
    }
    let draft = "The ledger assigns ids when a page is fetched [3].\nIds never change [1].\n";
    let draft_file = sb.file("draft.md", draft);
    let (out, data) = srv.ok("render", json!({"draft": draft}));
    assert_eq!(
        out,
        "## Sources\n\n[1] https://example.com/a\n[3] https://example.com/c — Page C"
    );
    assert_eq!(data["ids"], json!([1, 3]));
    let (out2, _) = srv.ok("render", json!({"cited_in": draft_file}));
    assert_eq!(out2, out);
    assert_eq!(
        out,
        trimmed(sb.ok(&["render", "--cited-in", draft_file.to_str().unwrap()]))
    );
    let msg = srv.refused("render", json!({"only": "99"}));
    assert_eq!(msg, "no sources to render");
    let msg = srv.refused("render", json!({"only": "x-"}));
    assert!(msg.starts_with("error: only: "), "{msg}");
    let msg = srv.refused("render", json!({"cited_in": missing}));
    assert!(msg.contains("no such file"), "{msg}");
    let msg = srv.refused("render", json!({"style": "fancy"}));
    assert!(msg.contains("fancy"), "{msg}");

    // verify: the CLI's lines as text, the JSON report as structured content; a failed
    // verification is a normal result.
    let good = format!("{draft}\n{out}\n");
    let good_file = sb.file("good.md", &good);
    let (text_out, report) = srv.ok("verify", json!({"draft": good}));
    assert_eq!(
        text_out,
        trimmed(sb.ok(&["verify", good_file.to_str().unwrap()]))
    );
    assert!(text_out.ends_with("citations OK"), "{text_out}");
    assert_eq!(report["exit_code"], 0);
    let cli_report: Value =
        serde_json::from_str(&sb.ok(&["verify", "--json", good_file.to_str().unwrap()])).unwrap();
    assert_eq!(report, cli_report);
    let (text_path, _) = srv.ok("verify", json!({"path": good_file}));
    assert_eq!(text_path, text_out);
    let (text_ev, report) = srv.ok("verify", json!({"draft": good, "evidence": true}));
    assert!(
        text_ev.contains("info: evidence [1]: \"hands out small integer ids\""),
        "{text_ev}"
    );
    assert!(text_ev.contains("FAIL: cited sources carry no verbatim evidence quote"));
    assert_eq!(report["evidence"][0]["id"], 1);

    let bad = "A claim that cites a source nobody registered [9].\n\n## Sources\n\n[9] https://example.com/nine\n";
    let bad_file = sb.file("bad.md", bad);
    let (text_bad, report) = srv.ok("verify", json!({"draft": bad, "strict": true}));
    assert!(text_bad.starts_with("info: stats: "), "{text_bad}");
    assert!(
        text_bad.contains("FAIL: citations not in the ledger (hallucinated or renumbered): [9] — "),
        "{text_bad}"
    );
    // A draft given as text has no path: the fix names `DRAFT`.
    assert!(
        text_bad.contains("— run `cite render --replace-in DRAFT` (line 5)"),
        "{text_bad}"
    );
    assert!(text_bad.ends_with("verification failed"), "{text_bad}");
    assert_eq!(report["exit_code"], 1);
    // Given by path, the report is the CLI's, line for line.
    let (text_bad, _) = srv.ok("verify", json!({"path": bad_file, "strict": true}));
    let cli = crate::util::cite_bin()
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(["verify", "--strict", bad_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(1));
    for line in String::from_utf8(cli.stdout)
        .unwrap()
        .lines()
        .chain(String::from_utf8(cli.stderr).unwrap().lines())
    {
        assert!(text_bad.lines().any(|l| l == line), "missing {line:?}");
    }
    let (_, report) = srv.ok(
        "verify",
        json!({"draft": "One sentence without any marker at all here.\n", "min_coverage": 0.5}),
    );
    assert_eq!(report["exit_code"], 1);
    let msg = srv.refused("verify", json!({"path": missing}));
    assert_eq!(msg, format!("error: no such draft: {}", missing.display()));
    let msg = srv.refused("verify", json!({}));
    assert!(msg.contains("give the draft"), "{msg}");
    let msg = srv.refused("verify", json!({"draft": good, "min_coverage": 2.0}));
    assert!(msg.contains("not a share between 0 and 1"), "{msg}");

    // An unknown tool is a protocol error; the server answers on.
    let resp = srv.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert!(resp.get("error").is_some(), "{resp}");
    let resp = srv.request("ping", json!({}));
    assert!(resp.get("result").is_some(), "{resp}");

    // Every write carries this process, the actor and `cite mcp TOOL`.
    let log = sb.ok(&["log", "--json"]);
    let log: Value = serde_json::from_str(&log).unwrap();
    let first = &log[0];
    assert_eq!(first["actor"], "mcp-test");
    assert_eq!(first["command"], json!(["cite", "mcp", "add"]));
    assert_eq!(first["pid"], json!(srv.child.id()));

    assert_eq!(srv.shutdown(), Some(0));
}

#[test]
fn empty_ledger_is_read_without_creating_it() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (out, data) = srv.ok("list", json!({}));
    assert_eq!(out, format!("ledger is empty: {}", sb.ledger.display()));
    assert_eq!(data["sources"], json!([]));
    assert_eq!(srv.refused("render", json!({})), "no sources to render");
    assert!(!sb.ledger.exists(), "a read created the ledger");
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 9: the `quote` tool carries the closest passage of a refused quote, as the CLI
/// does.
#[test]
fn issue9_quote_shows_the_closest_passage() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    srv.ok("add", json!({"urls": ["https://example.com/a"]}));
    let msg = srv.refused(
        "quote",
        json!({"id": 1, "text": "the ledger gives out small integer ids", "evidence": MCP_PAGE}),
    );
    assert_eq!(
        msg,
        "error: quote not found verbatim in the evidence text — copy the exact wording from \
         the fetched page, do not paraphrase\nclosest on the page (line 3): \"The ledger hands \
         out small integer ids\""
    );
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 9: `quote` and `add` note the other sources a page text is stored for, as the
/// CLI does on stderr, after the usual lines.
#[test]
fn issue9_quote_and_add_note_a_shared_page() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    srv.ok(
        "add",
        json!({"urls": ["https://example.com/a", "https://example.com/b"]}),
    );
    let (out, data) = srv.ok(
        "quote",
        json!({"id": 1, "text": "hands out small integer ids", "evidence": MCP_PAGE}),
    );
    assert_eq!(out, "[1] evidence attached (1 quote(s))");
    assert_eq!(data.get("page_also_stored_for"), None);
    let (out, data) = srv.ok(
        "quote",
        json!({"id": 2, "text": "small integer ids at", "evidence": MCP_PAGE}),
    );
    assert_eq!(
        out,
        "[2] evidence attached (1 quote(s))\nnote: this page text is also stored for [1]"
    );
    assert_eq!(data["page_also_stored_for"], json!([1]));
    let (out, data) = srv.ok(
        "add",
        json!({"urls": ["https://example.com/c"], "snapshot": MCP_PAGE}),
    );
    assert_eq!(
        out,
        "[3] https://example.com/c\nnote: this page text is also stored for [1], [2]"
    );
    assert_eq!(data["page_also_stored_for"], json!([1, 2]));
    assert_eq!(data["sources"][0]["id"], 3);
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 12: a title given with several URLs is ignored, and the answer says so, as the
/// CLI does on stderr.
#[test]
fn issue12_add_says_when_the_title_was_ignored() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (out, data) = srv.ok(
        "add",
        json!({"urls": ["https://example.com/a", "https://example.com/b"], "title": "T"}),
    );
    assert_eq!(
        out,
        "[1] https://example.com/a\n[2] https://example.com/b\nnote: the title was ignored: a title applies only when one URL is given (got 2) — add each URL with its own title"
    );
    assert_eq!(data["sources"][0]["title"], "");
    let (out, _) = srv.ok(
        "add",
        json!({"urls": ["https://example.com/c"], "title": "C"}),
    );
    assert_eq!(out, "[3] https://example.com/c");
    assert_eq!(srv.shutdown(), Some(0));
}

/// The page the issue-9 tests quote from.
const MCP_PAGE: &str =
    "Intro.\n\nThe ledger hands out   small integer ids at retrieval time.\nEnd.";

#[test]
fn server_and_cli_writers_share_the_ledger() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();

    const WRITERS: usize = 4;
    const PER_WRITER: usize = 15;
    const BY_SERVER: usize = 40;

    // CLI writers, each a series of separate `cite add` processes, while the server adds.
    let handles: Vec<_> = (0..WRITERS)
        .map(|w| {
            let ledger = sb.ledger.clone();
            thread::spawn(move || {
                let mut printed = Vec::new();
                for i in 0..PER_WRITER {
                    let url = format!("https://cli.example/{w}/{i}");
                    let out = crate::util::cite_bin()
                        .arg("--ledger")
                        .arg(&ledger)
                        .args(["add", &url])
                        .timeout(TIMEOUT)
                        .output()
                        .expect("run cite add");
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    printed.push((String::from_utf8(out.stdout).unwrap(), url));
                }
                printed
            })
        })
        .collect();
    let mut printed = Vec::new();
    for i in 0..BY_SERVER {
        let url = format!("https://mcp.example/{i}");
        let (out, _) = srv.ok("add", json!({"urls": [&url]}));
        printed.push((format!("{out}\n"), url));
    }
    for h in handles {
        printed.extend(h.join().expect("writer thread"));
    }

    // Nothing lost, ids dense, every printed id still names its URL.
    let total = WRITERS * PER_WRITER + BY_SERVER;
    let cli: Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let sources = cli.as_array().unwrap();
    assert_eq!(sources.len(), total);
    for (i, s) in sources.iter().enumerate() {
        assert_eq!(s["id"], json!(i + 1), "ids dense");
    }
    for (line, url) in &printed {
        let id: usize = line
            .trim()
            .strip_prefix('[')
            .and_then(|l| l.split(']').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not an id line: {line:?}"));
        assert_eq!(sources[id - 1]["url"], json!(url), "id {id}");
    }
    // The CLI sees what the server wrote and the server sees what the CLI wrote.
    let (out, data) = srv.ok("list", json!({}));
    assert_eq!(data["sources"], cli);
    assert_eq!(out, trimmed(sb.ok(&["list"])));

    // A CLI write while the server is idle between calls is not blocked by it.
    let started = Instant::now();
    let out = sb.ok(&["add", "https://cli.example/last", "--wait", "5"]);
    assert_eq!(out, format!("[{}] https://cli.example/last\n", total + 1));
    assert!(started.elapsed() < Duration::from_secs(5));
    let (out, _) = srv.ok("add", json!({"urls": ["https://cli.example/last"]}));
    assert_eq!(out, format!("[{}] https://cli.example/last", total + 1));

    assert_eq!(srv.shutdown(), Some(0));
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
}

#[test]
fn server_killed_mid_writes_leaves_the_ledger_consistent() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    // Many adds in flight at once (clients may call tools in parallel), then SIGKILL.
    const SENT: u64 = 60;
    for i in 0..SENT {
        srv.send(&json!({
            "jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
            "params": {"name": "add", "arguments": {"urls": [format!("https://kill.example/{i}")]}}
        }));
    }
    let mut answered = Vec::new();
    while answered.len() < 10 {
        let msg = srv
            .lines
            .recv_timeout(TIMEOUT)
            .expect("a response")
            .expect("JSON");
        let Some(id) = msg["id"].as_u64() else {
            continue;
        };
        let result = &msg["result"];
        assert_eq!(result["isError"], false, "{msg}");
        answered.push((id - 1000, text(result)));
    }
    srv.child.kill().expect("kill server");
    srv.child.wait().expect("reap server");

    // Every answered id is on disk with its URL, and ids are dense.
    let list: Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let sources = list.as_array().unwrap();
    assert!(sources.len() >= answered.len());
    for (i, s) in sources.iter().enumerate() {
        assert_eq!(s["id"], json!(i + 1), "ids dense");
    }
    for (i, line) in &answered {
        let url = format!("https://kill.example/{i}");
        let id: usize = line[1..line.find(']').unwrap()].parse().unwrap();
        assert_eq!(*line, format!("[{id}] {url}"));
        assert_eq!(sources[id - 1]["url"], json!(url));
    }
    // The log and the tables agree, and the ledger takes new writes.
    assert!(sb.ok(&["audit"]).starts_with("audit OK"));
    let next = sources.len() + 1;
    assert_eq!(
        sb.ok(&["add", "https://kill.example/after"]),
        format!("[{next}] https://kill.example/after\n")
    );
}
