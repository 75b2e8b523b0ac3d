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
pub(crate) struct Server {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    pub(crate) lines: Receiver<Result<Value, String>>,
    next_id: u64,
}

impl Server {
    pub(crate) fn start(ledger: &Path) -> Server {
        Server::start_with(ledger, &[])
    }

    /// `cite --ledger LEDGER --wait SECONDS mcp`.
    pub(crate) fn start_waiting(ledger: &Path, seconds: &str) -> Server {
        Server::spawn_args(ledger, &["--wait", seconds], &[], None)
    }

    /// `cite --ledger LEDGER mcp` run in the folder `dir`.
    pub(crate) fn start_in(ledger: &Path, dir: &Path) -> Server {
        Server::spawn(ledger, &[], Some(dir))
    }

    pub(crate) fn start_with(ledger: &Path, env: &[(&str, &str)]) -> Server {
        Server::spawn(ledger, env, None)
    }

    fn spawn(ledger: &Path, env: &[(&str, &str)], dir: Option<&Path>) -> Server {
        Server::spawn_args(ledger, &[], env, dir)
    }

    fn spawn_args(
        ledger: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        dir: Option<&Path>,
    ) -> Server {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("cite"));
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        cmd.arg("--ledger")
            .arg(ledger)
            .args(args)
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

    pub(crate) fn send(&mut self, msg: &Value) {
        self.send_raw(&msg.to_string());
    }

    /// Writes `line` and a newline as they are: malformed and oversized input too.
    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write to server");
        stdin.write_all(b"\n").expect("write to server");
        stdin.flush().expect("flush to server");
    }

    /// The next message the server writes; a hang fails the test.
    fn next_message(&mut self, waiting_for: &str) -> Value {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(Ok(msg)) => msg,
            Ok(Err(bad)) => panic!("{bad}"),
            Err(RecvTimeoutError::Timeout) => {
                panic!("no reply to {waiting_for} within {TIMEOUT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("server closed stdout before answering {waiting_for}")
            }
        }
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

    pub(crate) fn initialize(&mut self) -> Value {
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
    pub(crate) fn call(&mut self, tool: &str, args: Value) -> Value {
        let resp = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            resp.get("error").is_none(),
            "{tool}: protocol error instead of a tool result: {resp}"
        );
        resp["result"].clone()
    }

    /// A call that must succeed; returns (text, structured content).
    pub(crate) fn ok(&mut self, tool: &str, args: Value) -> (String, Value) {
        let result = self.call(tool, args.clone());
        assert_eq!(
            result["isError"],
            json!(false),
            "{tool} {args} failed: {result}"
        );
        (text(&result), result["structuredContent"].clone())
    }

    /// A call that must be refused as a tool error; returns its text.
    pub(crate) fn refused(&mut self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone());
        assert_eq!(
            result["isError"],
            json!(true),
            "{tool} {args} was not refused: {result}"
        );
        text(&result)
    }

    /// Closes stdin and waits for the server to exit; returns its exit code.
    pub(crate) fn shutdown(mut self) -> Option<i32> {
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
pub(crate) fn text(result: &Value) -> String {
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

    // tools/list: the twelve tools, each with a description and object input and output
    // schemas.
    let listed = srv.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "add", "export", "ingest", "list", "quote", "render", "report", "reset", "retitle",
            "retract", "show", "verify"
        ]
    );
    for t in &tools {
        assert!(
            t["description"].as_str().is_some_and(|d| d.len() > 80),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
    }
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    let add = tool("add");
    // A list of URLs, or one as a string; an id as a number, or as digits in a string
    // (issue 18: models send both).
    assert_eq!(
        add["inputSchema"]["properties"]["urls"]["anyOf"][0]["type"],
        "array"
    );
    assert_eq!(add["inputSchema"]["required"], json!(["urls"]));
    let quote = tool("quote");
    assert_eq!(
        quote["inputSchema"]["properties"]["id"]["anyOf"][0]["type"],
        "integer"
    );
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
    assert!(msg.starts_with("no urls found in input — "), "{msg}");

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

    // list: the lines `cite list` prints and a page line, and the sources as JSON.
    let (out, data) = srv.ok("list", json!({}));
    assert_eq!(
        out,
        format!(
            "{}\npage: 5 sources of 5 matching; no more pages",
            trimmed(sb.ok(&["list"]))
        )
    );
    assert_eq!(data["matched"], 5);
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
        "## Sources\n\n[1] https://example.com/a\n\n[3] https://example.com/c — Page C"
    );
    assert_eq!(data["ids"], json!([1, 3]));
    let (out2, _) = srv.ok("render", json!({"cited_in": draft_file}));
    assert_eq!(out2, out);
    assert_eq!(
        out,
        trimmed(sb.ok(&["render", "--cited-in", draft_file.to_str().unwrap()]))
    );
    // An id the ledger lacks is named, never dropped (issue 18); the hint names a tool.
    let msg = srv.refused("render", json!({"only": "99"}));
    assert!(
        msg.starts_with("error: only names [99], not in the ledger"),
        "{msg}"
    );
    assert!(
        msg.contains("the `list` tool") && !msg.contains("`cite "),
        "{msg}"
    );
    let msg = srv.refused(
        "render",
        json!({"draft": "A claim cited in prose.[1] Another.[2]\n", "only": [4]}),
    );
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
    // The advice names tools and their arguments, not shell commands (issue 18); a
    // draft given as text is rendered from its text.
    assert!(
        text_bad.contains("then call `render` with the draft text as draft and end the draft with the block it returns, in place of any Sources block it has (line 5)"),
        "{text_bad}"
    );
    assert!(
        text_bad.contains("register each page with the `add` tool"),
        "{text_bad}"
    );
    assert!(!text_bad.contains("`cite "), "{text_bad}");
    assert!(text_bad.ends_with("verification failed"), "{text_bad}");
    assert_eq!(report["exit_code"], 1);
    // Given by path, the findings are the CLI's, each worded for a client.
    let (text_bad, _) = srv.ok("verify", json!({"path": bad_file, "strict": true}));
    let cli = crate::util::cite_bin()
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(["verify", "--strict", bad_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(1));
    let cli_lines: Vec<String> = String::from_utf8(cli.stdout)
        .unwrap()
        .lines()
        .chain(String::from_utf8(cli.stderr).unwrap().lines())
        .map(str::to_string)
        .collect();
    let tool_lines: Vec<&str> = text_bad.lines().collect();
    assert_eq!(tool_lines.len(), cli_lines.len(), "{text_bad}");
    for line in &cli_lines {
        let (head, _) = line.split_once(" — ").unwrap_or((line, ""));
        assert!(
            tool_lines.iter().any(|l| l.starts_with(head)),
            "missing {head:?} in {text_bad}"
        );
    }
    assert!(
        text_bad.contains(&format!(
            "then call `render` with replace_in {:?} (line 5)",
            bad_file.display().to_string()
        )),
        "{text_bad}"
    );
    assert!(!text_bad.contains("`cite "), "{text_bad}");
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
fn quote_shows_the_closest_passage() {
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

/// `show` returns a source's page texts a part at a time, and says how to get the next;
/// `quote` takes a quote as a reader writes it (an elision, a marker as it shows).
#[test]
fn show_returns_the_page_text_in_parts_and_quote_takes_an_elision() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    srv.ok("add", json!({"urls": ["https://example.com/a"]}));
    let page = format!(
        "{}The ledger hands out small integer ids[^1] at retrieval time.\n",
        "Filler words here. ".repeat(2000)
    );
    let (out, _) = srv.ok(
        "quote",
        json!({"id": 1, "text": "The ledger hands out … ids[1] at retrieval time", "evidence": page}),
    );
    assert_eq!(out, "[1] evidence attached (1 quote(s))");
    let (_, data) = srv.ok("show", json!({"id": "1", "text": false}));
    assert_eq!(
        data["quotes"][0]["text"],
        "The ledger hands out … ids[1] at retrieval time"
    );
    assert_eq!(data["page_texts"][0]["quotes"], json!([1]));
    assert_eq!(data["page_texts"][0].get("text"), None);
    // The text, 20,000 characters at a time, with how much is left and the next call.
    let total = page.chars().count() as u64;
    let (out, data) = srv.ok("show", json!({"id": 1}));
    let text = data["page_texts"][0]["text"].as_str().unwrap();
    assert_eq!(text.chars().count(), 20_000);
    assert_eq!(data["page_texts"][0]["chars"], total);
    assert_eq!(data["page_texts"][0]["next_offset"], 20_000);
    assert!(
        out.ends_with(&format!(
            "==> {} more characters: call show with {{\"id\":1,\"offset\":20000}} <==",
            total - 20_000
        )),
        "{}",
        &out[out.len() - 200..]
    );
    let (out, data) = srv.ok("show", json!({"id": 1, "offset": "20000", "limit": 50000}));
    assert!(
        out.contains(&format!("characters 20000–{total} of {total}")),
        "{}",
        &out[..400]
    );
    assert_eq!(data["page_texts"][0].get("next_offset"), None);
    let rest = data["page_texts"][0]["text"].as_str().unwrap();
    assert_eq!(format!("{text}{rest}"), page);
    let msg = srv.refused("show", json!({"id": 1, "limit": 0}));
    assert_eq!(
        msg,
        "error: limit 0 is out of range: give 1 to 100000 characters"
    );
    let msg = srv.refused("show", json!({"id": 1, "snapshot": "abcd"}));
    assert_eq!(
        msg,
        "error: [1] has no page text whose hash starts with abcd — `show 1` lists its page texts with their hashes"
    );
    // A part that is not on the page is named, with the closest passage to it.
    let msg = srv.refused(
        "quote",
        json!({"id": 1, "text": "The ledger hands out … big integer ids", "evidence": page}),
    );
    assert!(
        msg.starts_with("error: quote not found verbatim in the evidence text — part 2 of 2 of the elided quote, \"big integer ids\", is not on the page"),
        "{msg}"
    );
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 9: `quote` and `add` note the other sources a page text is stored for, as the
/// CLI does on stderr, after the usual lines.
#[test]
fn quote_and_add_note_a_shared_page() {
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
fn add_says_when_the_title_was_ignored() {
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
    let (out, data) = srv.ok("list", json!({"limit": 1000}));
    assert_eq!(data["sources"], cli);
    assert_eq!(
        out,
        format!(
            "{}\npage: {total} sources of {total} matching; no more pages",
            trimmed(sb.ok(&["list"]))
        )
    );

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

/// Issue 11: a JSON-RPC error reply, its code and its id.
fn rpc_error(msg: &Value) -> (i64, Value) {
    assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
    assert!(msg.get("result").is_none(), "a result, not an error: {msg}");
    let code = msg["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error code: {msg}"));
    assert!(
        msg["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{msg}"
    );
    (code, msg.get("id").cloned().unwrap_or(Value::Null))
}

/// Issue 11: a line that is not JSON gets a parse error (-32700, id null) instead of
/// silence, and the server answers on.
#[test]
fn malformed_line_gets_a_parse_error() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    for bad in [
        "{not json",
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list""#,
        "\u{feff}}",
    ] {
        srv.send_raw(bad);
        let reply = srv.next_message(bad);
        assert_eq!(rpc_error(&reply), (-32700, Value::Null), "{bad}: {reply}");
    }
    // JSON that is not a request: invalid request (-32600), with its id when it has one.
    srv.send_raw("[1, 2]");
    assert_eq!(
        rpc_error(&srv.next_message("[1, 2]")),
        (-32600, Value::Null)
    );
    srv.send_raw(r#"{"jsonrpc":"2.0","id":"q1","params":{}}"#);
    assert_eq!(
        rpc_error(&srv.next_message("a request without a method")),
        (-32600, json!("q1"))
    );
    let resp = srv.request("ping", json!({}));
    assert!(resp.get("result").is_some(), "{resp}");
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 11: a request whose params do not fit its method gets -32602 with its id
/// (rmcp took a `tools/call` without a name for an unknown method, -32601).
#[test]
fn invalid_params_get_32602() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    for params in [
        json!({"arguments": {}}),
        json!({"name": 5}),
        json!({"name": "list", "arguments": 5}),
        json!("list"),
    ] {
        let resp = srv.request("tools/call", params.clone());
        let (code, _) = rpc_error(&resp);
        assert_eq!(code, -32602, "{params}: {resp}");
    }
    let resp = srv.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(rpc_error(&resp).0, -32602, "{resp}");
    let resp = srv.request("ping", json!({}));
    assert!(resp.get("result").is_some(), "{resp}");
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 11: a request over the size limit (16 MiB) gets an error reply naming the
/// limit, with its id wherever the id sits in the object, instead of being dropped
/// while the client waits forever.
#[test]
fn oversized_request_gets_an_error_reply() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let page = "x".repeat(17 * 1024 * 1024);
    // The id after the params, as the TypeScript SDK writes it, and before them; the
    // arguments hold an `id` of their own that must not be taken for the request's.
    let after = format!(
        r#"{{"method":"tools/call","params":{{"name":"quote","arguments":{{"id":1,"text":"a b c","evidence":"{page}"}}}},"jsonrpc":"2.0","id":"big-1"}}"#
    );
    let before = format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{{"name":"quote","arguments":{{"id":1,"text":"a b c","evidence":"{page}"}}}}}}"#
    );
    for (line, id) in [(after, json!("big-1")), (before, json!(77))] {
        srv.send_raw(&line);
        let reply = srv.next_message("an oversized request");
        let (code, got) = rpc_error(&reply);
        assert_eq!((code, got), (-32600, id), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("16 MiB"), "{message}");
    }
    // Without a findable id (not even an object), the reply still comes, id null.
    srv.send_raw(&format!("\"{page}\""));
    let reply = srv.next_message("an oversized string");
    assert_eq!(rpc_error(&reply), (-32600, Value::Null));
    let resp = srv.request("ping", json!({}));
    assert!(resp.get("result").is_some(), "{resp}");
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 11: `cite mcp` driven by a real MCP client — the official TypeScript SDK over
/// stdio — with every tool's inputSchema and outputSchema compiled by Ajv in strict
/// mode (draft-07 and 2020-12), every tool called, and every structuredContent checked
/// against its outputSchema (tests/schema-check/check.mjs).
#[test]
#[ignore = "needs node with tests/schema-check installed: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn every_tool_passes_a_real_client_and_a_strict_schema_validator() {
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema-check");
    let installed = project.join("node_modules/ajv").is_dir()
        && project
            .join("node_modules/@modelcontextprotocol/sdk")
            .is_dir();
    if !(installed && crate::util::runs("node", &["--version"])) {
        crate::util::missing_tool(
            "node or tests/schema-check/node_modules is missing — run `npm ci --prefix tests/schema-check`",
        );
    }
    let sb = Sandbox::new();
    let mut child = Command::new("node")
        .arg(project.join("check.mjs"))
        .arg(assert_cmd::cargo::cargo_bin("cite"))
        .arg(&sb.ledger)
        .arg(sb.path())
        .env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER")
        .env_remove("CITE_ACTOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run node");
    let deadline = Instant::now() + TIMEOUT;
    while child.try_wait().expect("wait for node").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the schema check did not finish within {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("node output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).expect("a JSON summary");
    assert_eq!(
        summary["tools"],
        json!([
            "add", "export", "ingest", "list", "quote", "render", "report", "reset", "retitle",
            "retract", "show", "verify"
        ])
    );
    for tool in [
        "add", "export", "ingest", "list", "quote", "render", "reset", "show", "verify",
    ] {
        assert!(
            summary["called"][tool].as_u64() > Some(0),
            "{tool}: {summary}"
        );
    }
}

/// Issue 11: the `list` tool answers a page at a time (50 by default), says how many
/// matched, and gives the exact next call; the cursor survives adds between pages.
#[test]
fn list_tool_pages_and_filters() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let urls: Vec<String> = (1..=120)
        .map(|i| format!("https://site{}.example/{i}", i % 3))
        .collect();
    srv.ok("add", json!({"urls": urls}));

    let (out, data) = srv.ok("list", json!({}));
    assert_eq!(data["sources"].as_array().unwrap().len(), 50);
    assert_eq!(data["matched"], 120);
    assert_eq!(data["next_cursor"], "50");
    assert_eq!(
        data["next_call"],
        json!({"name": "list", "arguments": {"limit": 50, "cursor": "50"}})
    );
    assert!(
        out.ends_with(
            "\npage: 50 sources of 120 matching; next: list {\"limit\":50,\"cursor\":\"50\"}"
        ),
        "{out}"
    );
    // Someone adds between pages: the next page continues where this one stopped.
    sb.ok(&["add", "https://late.example/x"]);
    let next = data["next_call"]["arguments"].clone();
    let (_, data) = srv.ok("list", next);
    assert_eq!(data["sources"][0]["id"], 51);
    assert_eq!(data["matched"], 121);
    let (_, data) = srv.ok("list", json!({"limit": 50, "cursor": "100"}));
    assert_eq!(data["sources"].as_array().unwrap().len(), 21);
    assert_eq!(data["sources"][20]["url"], "https://late.example/x");
    assert_eq!(data.get("next_cursor"), None, "{data}");
    assert_eq!(data.get("next_call"), None, "{data}");

    let (out, data) = srv.ok("list", json!({"query": "SITE1.example", "limit": 2}));
    assert_eq!(data["matched"], 40);
    assert_eq!(
        out,
        "[1] https://site1.example/1\n[4] https://site1.example/4\n\
         page: 2 sources of 40 matching; next: list {\"query\":\"SITE1.example\",\"limit\":2,\"cursor\":\"4\"}"
    );
    let msg = srv.refused("list", json!({"limit": 1001}));
    assert!(msg.contains("limit 1001 is out of range"), "{msg}");
    let msg = srv.refused("list", json!({"cursor": "x"}));
    assert!(msg.contains("cursor \"x\" is not one"), "{msg}");
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 11: `show`, `reset`, `render` with `replace_in`, and `ingest` of a JSON object,
/// each as the CLI does it.
#[test]
fn show_reset_render_replace_in_and_ingest_object_do_as_the_cli_does() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (out, _) = srv.ok(
        "ingest",
        json!({"json": {"results": [{"url": "https://example.com/a", "title": "A"}, {"link": "https://example.com/b"}]}}),
    );
    assert_eq!(out, "[1] https://example.com/a\n[2] https://example.com/b");
    srv.ok(
        "quote",
        json!({"id": 1, "text": "hands out small integer ids", "evidence": MCP_PAGE}),
    );
    let msg = srv.refused("ingest", json!({"json": 5}));
    assert!(msg.contains("json must be"), "{msg}");

    // show: the lines and JSON of `cite show`, then those of `cite show --text`; the
    // page text line names the tool's way to read the text, not the command's.
    let (out, data) = srv.ok("show", json!({"id": 1}));
    let cli_text = trimmed(sb.ok(&["show", "1", "--text"]));
    let cli = trimmed(sb.ok(&["show", "1"]))
        .replace("read with `cite show 1 --text`", "the text follows");
    assert_eq!(out, format!("{cli}\n{cli_text}"));
    let cli: Value = serde_json::from_str(&sb.ok(&["show", "1", "--json", "--text"])).unwrap();
    assert_eq!(data, cli);
    let (out, data) = srv.ok("show", json!({"id": 1, "text": false}));
    assert_eq!(
        out,
        trimmed(sb.ok(&["show", "1"])).replace(
            "read with `cite show 1 --text`",
            "read with `show` and text: true"
        )
    );
    let cli: Value = serde_json::from_str(&sb.ok(&["show", "1", "--json"])).unwrap();
    assert_eq!(data, cli);
    assert_eq!(
        srv.refused("show", json!({"id": 9})),
        "error: no source [9] in the ledger"
    );

    // render with replace_in: the file gets the block `cite render --replace-in` writes.
    let draft =
        "# Report\n\nThe ledger hands out ids [1].\n\n## Sources\n\n[2] https://example.com/b\n";
    let by_tool = sb.file("by-tool.md", draft);
    let by_cli = sb.file("by-cli.md", draft);
    let (out, data) = srv.ok("render", json!({"replace_in": by_tool}));
    assert_eq!(
        out,
        format!("Sources block rewritten in {}", by_tool.display())
    );
    assert_eq!(data["ids"], json!([1]));
    assert_eq!(data["rewritten"], json!(by_tool.display().to_string()));
    sb.ok(&["render", "--replace-in", by_cli.to_str().unwrap()]);
    let written = std::fs::read_to_string(&by_tool).unwrap();
    assert_eq!(written, std::fs::read_to_string(&by_cli).unwrap());
    assert!(
        written.ends_with("## Sources\n\n[1] https://example.com/a — A\n"),
        "{written}"
    );
    // Again: nothing changes.
    srv.ok("render", json!({"replace_in": by_tool}));
    assert_eq!(std::fs::read_to_string(&by_tool).unwrap(), written);
    // A draft whose block cannot be placed is refused and left as it was.
    let open_fence = "Text [1].\n\n```\ncode\n";
    let fenced = sb.file("fenced.md", open_fence);
    let msg = srv.refused("render", json!({"replace_in": fenced}));
    assert!(msg.contains("is never closed"), "{msg}");
    assert!(msg.contains("then run `render with replace_in"), "{msg}");
    assert_eq!(std::fs::read_to_string(&fenced).unwrap(), open_fence);
    let msg = srv.refused("render", json!({"replace_in": sb.path()}));
    assert!(msg.contains("not a regular file"), "{msg}");
    let msg = srv.refused("render", json!({"replace_in": by_tool, "draft": "x [1]"}));
    assert!(msg.contains("give the draft one way"), "{msg}");

    // reset: a new epoch; the old one stays readable.
    let (out, data) = srv.ok("reset", json!({}));
    assert_eq!(out, format!("ledger reset: {}", sb.ledger.display()));
    assert_eq!(data["epoch"], 2);
    let (out, _) = srv.ok("list", json!({}));
    assert_eq!(out, format!("ledger is empty: {}", sb.ledger.display()));
    let (_, data) = srv.ok("list", json!({"epoch": 1}));
    assert_eq!(data["matched"], 2);
    let (_, data) = srv.ok("show", json!({"id": 2, "epoch": 1}));
    assert_eq!(data["url"], "https://example.com/b");
    let log: Value = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let last = log.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["event"]["kind"], "reset", "{last}");
    assert_eq!(last["command"], json!(["cite", "mcp", "reset"]));
    assert_eq!(srv.shutdown(), Some(0));
}

/// Issue 11: the schemas of tools/list, checked without node: no `format` a strict
/// validator does not know (schemars wrote `uint64`, `double`), no type arrays
/// (`["string", "null"]`), no `$ref`/`$defs`/`$schema`; the limits the server enforces
/// are declared, and every tool has an output schema.
#[test]
fn schemas_are_strict_and_declare_limits() {
    fn walk(v: &Value, at: &str, bad: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    let here = format!("{at}/{k}");
                    match (k.as_str(), x) {
                        ("format", Value::String(f))
                            if !["date", "date-time", "uri", "email"].contains(&f.as_str()) =>
                        {
                            bad.push(format!("{here}: format {f}"))
                        }
                        ("type", Value::Array(_)) => bad.push(format!("{here}: type array {x}")),
                        ("$ref" | "$defs" | "$schema" | "definitions", _) => {
                            bad.push(format!("{here}: {k}"))
                        }
                        // `properties` holds names, not keywords.
                        ("properties", Value::Object(props)) => {
                            for (name, p) in props {
                                walk(p, &format!("{here}/{name}"), bad);
                            }
                        }
                        _ => walk(x, &here, bad),
                    }
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), bad);
                }
            }
            _ => {}
        }
    }
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let listed = srv.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let mut bad = Vec::new();
    for t in &tools {
        let name = t["name"].as_str().unwrap();
        walk(&t["inputSchema"], &format!("{name}.inputSchema"), &mut bad);
        assert_eq!(t["outputSchema"]["type"], "object", "{name}");
        walk(
            &t["outputSchema"],
            &format!("{name}.outputSchema"),
            &mut bad,
        );
    }
    assert!(bad.is_empty(), "not strict:\n{}", bad.join("\n"));
    let input = |tool: &str| {
        tools.iter().find(|t| t["name"] == tool).unwrap()["inputSchema"]["properties"].clone()
    };
    assert_eq!(input("add")["urls"]["anyOf"][0]["minItems"], 1);
    assert_eq!(input("quote")["id"]["anyOf"][0]["minimum"], 1);
    assert_eq!(input("show")["id"]["anyOf"][0]["minimum"], 1);
    for tool in ["list", "show", "render", "verify"] {
        assert_eq!(input(tool)["epoch"]["anyOf"][0]["minimum"], 1, "{tool}");
        assert!(input(tool)["epoch"].get("default").is_none(), "{tool}");
    }
    assert_eq!(input("verify")["min_coverage"]["minimum"], 0.0);
    assert_eq!(input("verify")["min_coverage"]["maximum"], 1.0);
    assert_eq!(input("list")["limit"]["anyOf"][0]["minimum"], 1);
    assert_eq!(input("list")["limit"]["anyOf"][0]["maximum"], 1000);
    // Optional arguments are simply not required.
    assert_eq!(input("add")["title"]["type"], "string");
    let ingest = serde_json::to_string(&input("ingest")["json"]).unwrap();
    assert!(
        ingest.contains("\"object\"") && ingest.contains("\"string\""),
        "{ingest}"
    );
    assert_eq!(srv.shutdown(), Some(0));
}
