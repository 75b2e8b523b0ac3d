//! `cite mcp --http`: the real binary on a free loopback port (`--http 127.0.0.1:0`, the
//! port read from its stderr), spoken to over MCP's Streamable HTTP transport with a
//! real HTTP client (ureq), beside CLI processes on the same ledger; the bearer token,
//! the Origin check, the refusals to start, and the answers compared with stdio's.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp::text;
use crate::util::Sandbox;

/// Longest wait for the server to start, answer or exit: a hang fails the test.
const TIMEOUT: Duration = Duration::from_secs(60);

const TOKEN: &str = "test-token-0123456789abcdef";

const PROTOCOL: &str = "2025-06-18";

/// One HTTP answer.
struct Reply {
    status: u16,
    content_type: String,
    www_authenticate: Option<String>,
    session: Option<String>,
    body: String,
}

/// A running `cite mcp --http` and the lines it wrote on stderr.
struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`, as the server printed it.
    url: String,
    stderr: Receiver<String>,
    agent: ureq::Agent,
    /// The `Mcp-Session-Id` the server assigned at initialization, if it assigns one.
    session: Option<String>,
}

impl HttpServer {
    /// `cite --ledger LEDGER mcp --http 127.0.0.1:0 ARGS…` with `$CITE_MCP_TOKEN` set.
    fn start(ledger: &Path, args: &[&str]) -> HttpServer {
        let mut cmd = mcp_command(ledger);
        cmd.args(["--http", "127.0.0.1:0"])
            .args(args)
            .env("CITE_MCP_TOKEN", TOKEN);
        HttpServer::spawn(cmd)
    }

    /// Starts `cmd` and waits for its `listening on URL` line.
    fn spawn(mut cmd: Command) -> HttpServer {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start cite mcp --http");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = HttpServer {
            child,
            url: String::new(),
            stderr: rx,
            agent: agent(),
            session: None,
        };
        let line = server.stderr_line(|l| l.starts_with("cite mcp: listening on "));
        server.url = line["cite mcp: listening on ".len()..].to_string();
        assert!(
            server.url.starts_with("http://") && server.url.ends_with("/mcp"),
            "{line}"
        );
        server
    }

    /// The first stderr line (from here on) that `wanted` accepts.
    fn stderr_line(&self, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + TIMEOUT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) if wanted(&line) => return line,
                Ok(line) => seen.push(line),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no such stderr line within {TIMEOUT:?}; saw {seen:#?}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server closed stderr (exited?); it wrote {seen:#?}")
                }
            }
        }
    }

    /// The port the server listens on.
    fn port(&self) -> u16 {
        let authority = self.url.trim_end_matches("/mcp");
        let (_, port) = authority.rsplit_once(':').expect("url with a port");
        port.parse().expect("port")
    }

    /// POSTs `body` to the endpoint as an MCP client does, with `Authorization: Bearer
    /// TOKEN` when `token` is given, the session id once assigned, and `headers`.
    fn post(&self, token: Option<&str>, headers: &[(&str, &str)], body: &Value) -> Reply {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        if let Some(s) = &self.session {
            req = req.header("Mcp-Session-Id", s);
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        reply(req.send(body.to_string()))
    }

    /// A JSON-RPC request with the right token; returns the response message.
    fn rpc(&self, id: u64, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let r = self.post(Some(TOKEN), &[("MCP-Protocol-Version", PROTOCOL)], &body);
        assert_eq!(r.status, 200, "{method}: {}", r.body);
        let msg = message(&r);
        assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
        assert_eq!(msg["id"], json!(id), "{msg}");
        msg
    }

    /// `initialize`, then `notifications/initialized`; returns the initialize result.
    fn initialize(&mut self) -> Value {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "ureq-test-client", "version": "0.0.1"}
            }
        });
        let r = self.post(Some(TOKEN), &[], &body);
        assert_eq!(r.status, 200, "initialize: {}", r.body);
        self.session = r.session.clone();
        let result = message(&r)["result"].clone();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = self.post(Some(TOKEN), &[("MCP-Protocol-Version", PROTOCOL)], &note);
        assert_eq!(r.status, 202, "notifications/initialized: {}", r.body);
        result
    }

    /// `tools/call`; returns the result (a protocol error fails the test).
    fn call(&self, id: u64, tool: &str, args: Value) -> Value {
        let msg = self.rpc(id, "tools/call", json!({"name": tool, "arguments": args}));
        assert!(msg.get("error").is_none(), "{tool}: {msg}");
        msg["result"].clone()
    }

    /// Sends `signal` and waits for the process to end; returns how it ended.
    fn stop(mut self, signal: i32) -> std::process::ExitStatus {
        let pid = i32::try_from(self.child.id()).expect("pid");
        // SAFETY: kill(2) on our own child, which has not been waited for.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill");
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for server") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "server did not exit on signal {signal}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `cite --ledger LEDGER mcp` with the variables cite reads removed.
fn mcp_command(ledger: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("cite"));
    cmd.arg("--ledger")
        .arg(ledger)
        .arg("mcp")
        .env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER")
        .env_remove("CITE_ACTOR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("CITE_MCP_TOKEN");
    cmd
}

/// An HTTP client that returns 4xx answers instead of failing on them, ignores any
/// proxy in the environment, and gives up after [`TIMEOUT`].
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .timeout_global(Some(TIMEOUT))
        .build()
        .into()
}

fn reply(sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut resp = sent.expect("HTTP request");
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_string())
    };
    let status = resp.status().as_u16();
    let content_type = header("content-type").unwrap_or_default();
    let www_authenticate = header("www-authenticate");
    let session = header("mcp-session-id");
    let body = resp.body_mut().read_to_string().expect("read body");
    Reply {
        status,
        content_type,
        www_authenticate,
        session,
        body,
    }
}

/// The one JSON-RPC message of a reply: the body as `application/json`, or the `data:`
/// of a `text/event-stream` (both are allowed by the transport).
fn message(r: &Reply) -> Value {
    let json = if r.content_type.starts_with("text/event-stream") {
        r.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| !d.is_empty())
            .unwrap_or_else(|| panic!("no data in the event stream: {}", r.body))
            .to_string()
    } else {
        assert!(
            r.content_type.starts_with("application/json"),
            "content type {:?}: {}",
            r.content_type,
            r.body
        );
        r.body.clone()
    };
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"))
}

/// Runs `requests` (after initialize) through `cite mcp` on stdio; returns each
/// response message in order.
fn over_stdio(ledger: &Path, requests: &[Value]) -> Vec<Value> {
    let mut cmd = mcp_command(ledger);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start cite mcp");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdin: ChildStdin = child.stdin.take().expect("stdin");
    let mut send = |msg: &Value| {
        writeln!(stdin, "{msg}").expect("write to server");
        stdin.flush().expect("flush");
    };
    let answer = |id: u64| -> Value {
        loop {
            let line = rx.recv_timeout(TIMEOUT).expect("stdio response in time");
            let msg: Value = serde_json::from_str(&line).expect("JSON line");
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    };
    send(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "stdio-test-client", "version": "0.0.1"}}
    }));
    answer(0);
    send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut out = Vec::new();
    for req in requests {
        send(req);
        out.push(answer(req["id"].as_u64().expect("request id")));
    }
    let _ = child.kill();
    let _ = child.wait();
    out
}

#[test]
fn http_end_to_end_initialize_list_add_then_the_cli_sees_it() {
    let sb = Sandbox::new();
    let mut srv = HttpServer::start(&sb.ledger, &[]);

    let init = srv.initialize();
    assert_eq!(init["serverInfo"]["name"], "cite", "{init}");
    assert_eq!(init["protocolVersion"], PROTOCOL, "{init}");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    // Stateless: no session to carry (a session id would be passed on all the same).
    assert_eq!(srv.session, None);

    let tools = srv.rpc(1, "tools/list", json!({}));
    let mut names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    for expected in ["add", "ingest", "list", "quote", "render", "verify"] {
        assert!(names.contains(&expected), "{expected} missing: {names:?}");
    }

    let added = srv.call(
        2,
        "add",
        json!({"urls": ["https://example.com/a", "https://example.com/b"], "via": "web"}),
    );
    assert_eq!(added["isError"], json!(false), "{added}");
    assert_eq!(
        text(&added),
        "[1] https://example.com/a\n[2] https://example.com/b"
    );
    assert_eq!(added["structuredContent"]["sources"][1]["id"], json!(2));

    // A separate CLI process reads what the server wrote, and writes beside it.
    let listed = sb.ok(&["list"]);
    assert!(listed.contains("[1] https://example.com/a"), "{listed}");
    assert!(listed.contains("[2] https://example.com/b"), "{listed}");
    assert_eq!(
        sb.ok(&["add", "https://example.com/c"]),
        "[3] https://example.com/c\n"
    );
    let listed = srv.call(3, "list", json!({}));
    assert!(
        text(&listed).contains("[3] https://example.com/c"),
        "{listed}"
    );

    // Input the CLI refuses is a tool error, not an HTTP or protocol error.
    let refused = srv.call(4, "add", json!({"urls": ["not a url"]}));
    assert_eq!(refused["isError"], json!(true), "{refused}");
}

#[test]
fn http_and_stdio_give_the_same_answers() {
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "add", "arguments": {"urls": ["https://example.com/a"], "title": "A", "accessed": "2026-01-02"}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "add", "arguments": {"urls": ["not a url"]}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "render", "arguments": {"style": "plain"}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": "verify", "arguments": {"draft": "Claim [1].\n\nSources:\n[1] https://example.com/a\n"}}}),
    ];
    let stdio_sb = Sandbox::new();
    let expected = over_stdio(&stdio_sb.ledger, &requests);

    let sb = Sandbox::new();
    let mut srv = HttpServer::start(&sb.ledger, &[]);
    srv.initialize();
    for (req, want) in requests.iter().zip(&expected) {
        let id = req["id"].as_u64().expect("id");
        let got = srv.rpc(
            id,
            req["method"].as_str().expect("method"),
            req["params"].clone(),
        );
        assert_eq!(&got, want, "request {req}");
    }
}

#[test]
fn http_requests_without_the_token_get_401_and_write_nothing() {
    let sb = Sandbox::new();
    let srv = HttpServer::start(&sb.ledger, &[]);
    let add = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "add", "arguments": {"urls": ["https://example.com/a"]}}});

    let r = srv.post(None, &[], &add);
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(
        r.www_authenticate.as_deref(),
        Some(r#"Bearer realm="cite""#)
    );
    srv.stderr_line(|l| {
        l.contains("refused POST /mcp from 127.0.0.1:") && l.ends_with(": no bearer token")
    });

    let r = srv.post(Some("test-token-0123456789abcdeX"), &[], &add);
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(
        r.www_authenticate.as_deref(),
        Some(r#"Bearer realm="cite", error="invalid_token""#)
    );
    srv.stderr_line(|l| l.ends_with(": wrong bearer token"));

    // A prefix of the token, the token under another scheme, or bare, is no token.
    let r = srv.post(Some(&TOKEN[..TOKEN.len() - 1]), &[], &add);
    assert_eq!(r.status, 401);
    for authorization in [format!("Basic {TOKEN}"), TOKEN.to_string()] {
        let r = srv.post(None, &[("Authorization", &authorization)], &add);
        assert_eq!(r.status, 401, "{authorization}");
    }
    // Also on other methods and paths: nothing is revealed without the token.
    let get = srv.agent.get(&srv.url).call();
    assert_eq!(reply(get).status, 401);
    let other = srv.url.replace("/mcp", "/other");
    let r = reply(srv.agent.get(&other).call());
    assert_eq!(r.status, 401);

    // Nothing ran: the ledger was not even created.
    assert!(!sb.ledger.exists(), "a refused request touched the ledger");

    // With the token, the same request goes through.
    let r = srv.post(Some(TOKEN), &[], &add);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&message(&r)["result"]), "[1] https://example.com/a");
    let r = reply(
        srv.agent
            .get(&other)
            .header("Authorization", format!("Bearer {TOKEN}"))
            .call(),
    );
    assert_eq!(r.status, 404, "{}", r.body);
}

/// Sends `head` (a request without a body) on `stream` and reads the answer's head;
/// returns it, or `None` when the server has closed the connection.
fn raw_request(stream: &mut std::net::TcpStream, head: &str) -> Option<String> {
    use std::io::Read;
    let _ = stream.write_all(head.as_bytes());
    let mut answer = Vec::new();
    let mut byte = [0u8; 1];
    while !answer.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => answer.push(byte[0]),
            _ => return None,
        }
    }
    let answer = String::from_utf8(answer).expect("utf-8 head");
    // The body, by its length, so the next answer starts where it should.
    let len: usize = answer
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().expect("length"))
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).expect("body");
    Some(answer)
}

#[test]
fn http_a_request_without_the_token_ends_its_connection() {
    let sb = Sandbox::new();
    let srv = HttpServer::start(&sb.ledger, &[]);
    let addr = format!("127.0.0.1:{}", srv.port());
    let get =
        |authorization: &str| format!("GET /other HTTP/1.1\r\nHost: {addr}\r\n{authorization}\r\n");
    let connect = || {
        let stream = std::net::TcpStream::connect(&addr).expect("connect");
        stream.set_read_timeout(Some(TIMEOUT)).expect("timeout");
        stream
    };
    // With the token, the connection is kept for the next request.
    let mut stream = connect();
    let with = format!("Authorization: Bearer {TOKEN}\r\n");
    for _ in 0..2 {
        let head = raw_request(&mut stream, &get(&with)).expect("kept alive");
        assert!(head.starts_with("HTTP/1.1 404 "), "{head}");
    }
    // Without it, one guess per connection: the 401 says close, and closes.
    let mut stream = connect();
    let wrong = "Authorization: Bearer wrong-token-0123456789abcdef\r\n";
    let head = raw_request(&mut stream, &get(wrong)).expect("an answer");
    assert!(head.starts_with("HTTP/1.1 401 "), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("connection: close"),
        "{head}"
    );
    assert_eq!(raw_request(&mut stream, &get(wrong)), None);
}

#[test]
fn http_refuses_foreign_browser_origins() {
    let sb = Sandbox::new();
    let srv = HttpServer::start(&sb.ledger, &["--allow-origin", "https://app.example"]);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});

    let r = srv.post(Some(TOKEN), &[("Origin", "http://evil.example")], &list);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("Origin"), "{}", r.body);
    // A rebinding page on the server's own port but under a foreign name.
    let rebound = format!("http://evil.example:{}", srv.port());
    let r = srv.post(Some(TOKEN), &[("Origin", &rebound)], &list);
    assert_eq!(r.status, 403, "{}", r.body);
    let r = srv.post(
        Some(TOKEN),
        &[("Origin", "https://app.example:8443")],
        &list,
    );
    assert_eq!(r.status, 403, "{}", r.body);

    let own = format!("http://localhost:{}", srv.port());
    for origin in [own.as_str(), "https://app.example"] {
        let r = srv.post(Some(TOKEN), &[("Origin", origin)], &list);
        assert_eq!(r.status, 200, "{origin}: {}", r.body);
    }
    // A Host that is not a loopback name (DNS rebinding) is refused too.
    let r = srv.post(Some(TOKEN), &[("Host", "evil.example")], &list);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("Host"), "{}", r.body);
}

#[test]
fn http_on_another_loopback_address() {
    let sb = Sandbox::new();
    let mut cmd = mcp_command(&sb.ledger);
    cmd.args(["--http", "127.0.0.2:0"])
        .env("CITE_MCP_TOKEN", TOKEN);
    let mut srv = HttpServer::spawn(cmd);
    assert!(srv.url.starts_with("http://127.0.0.2:"), "{}", srv.url);
    // The Host header names the address bound: it is the server's own.
    let init = srv.initialize();
    assert_eq!(init["serverInfo"]["name"], "cite", "{init}");
    let own = format!("http://127.0.0.2:{}", srv.port());
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let r = srv.post(Some(TOKEN), &[("Origin", &own)], &list);
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn http_token_from_a_file_with_its_newline() {
    let sb = Sandbox::new();
    let file = sb.file("token", "file-token-0123456789abcdef\n");
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod");
    let mut cmd = mcp_command(&sb.ledger);
    cmd.args(["--http", "0", "--token-file"])
        .arg(&file)
        // The file wins over the variable.
        .env("CITE_MCP_TOKEN", TOKEN);
    let srv = HttpServer::spawn(cmd);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    assert_eq!(srv.post(Some(TOKEN), &[], &list).status, 401);
    let r = srv.post(Some("file-token-0123456789abcdef"), &[], &list);
    assert_eq!(r.status, 200, "{}", r.body);
}

/// Runs `cite mcp ARGS…` with `$CITE_MCP_TOKEN` set to `env_token` (unset for `None`),
/// expecting it to refuse to start; returns (exit code, stderr).
fn refused_start(sb: &Sandbox, args: &[&str], env_token: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = mcp_command(&sb.ledger);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(t) = env_token {
        cmd.env("CITE_MCP_TOKEN", t);
    }
    let child = cmd.spawn().expect("start cite mcp");
    let out = wait_output(child);
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code(),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// The output of `child`, or a failure if it does not exit in [`TIMEOUT`] (a server
/// that started instead of refusing would run forever).
fn wait_output(mut child: Child) -> std::process::Output {
    let deadline = Instant::now() + TIMEOUT;
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("cite mcp did not exit: it should have refused to start");
        }
        thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn http_refuses_to_start_without_a_usable_token() {
    let sb = Sandbox::new();
    let (code, err) = refused_start(&sb, &["--http", "127.0.0.1:0"], None);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error: cite mcp --http needs a bearer token for its clients: pass --token-file FILE or set CITE_MCP_TOKEN (e.g. to the output of `openssl rand -hex 32`)\n"
    );
    let (code, err) = refused_start(&sb, &["--http", "127.0.0.1:0"], Some(""));
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: cite mcp --http needs a bearer token"),
        "{err}"
    );

    let (code, err) = refused_start(&sb, &["--http", "127.0.0.1:0"], Some("short"));
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error: the bearer token is too short (5 characters): use at least 16, e.g. from `openssl rand -hex 32` (in $CITE_MCP_TOKEN)\n"
    );

    let missing = sb.path().join("missing");
    let missing = missing.to_str().expect("utf-8 path");
    let (code, err) = refused_start(&sb, &["--http", "0", "--token-file", missing], Some(TOKEN));
    assert_eq!(code, Some(2));
    assert_eq!(err, format!("error: cannot read {missing}: no such file\n"));

    let empty = sb.file("empty", "\n");
    std::fs::set_permissions(&empty, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod");
    let empty = empty.to_str().expect("utf-8 path");
    let (code, err) = refused_start(&sb, &["--http", "0", "--token-file", empty], None);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        format!("error: the bearer token is empty (in {empty})\n")
    );

    let open = sb.file("open", "open-token-0123456789abcdef\n");
    std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .expect("chmod");
    let open = open.to_str().expect("utf-8 path");
    let (code, err) = refused_start(&sb, &["--http", "0", "--token-file", open], None);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        format!(
            "error: the token file {open} is readable by other users (mode 644): run `chmod 600 {open}`\n"
        )
    );

    // HTTP-only flags without --http, and addresses that are not [HOST:]PORT: usage.
    let (code, err) = refused_start(&sb, &["--token-file", open], Some(TOKEN));
    assert_eq!(code, Some(2));
    assert!(err.contains("--http"), "{err}");
    let (code, err) = refused_start(&sb, &["--http", "example.com:80"], Some(TOKEN));
    assert_eq!(code, Some(2));
    assert!(err.contains("is not [HOST:]PORT"), "{err}");
    let (code, err) = refused_start(
        &sb,
        &["--http", "0", "--allow-origin", "app.example"],
        Some(TOKEN),
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("is not an origin"), "{err}");

    assert!(!sb.ledger.exists());
}

/// Makes a FIFO at `path`, mode 0600 (so a refusal can only be for what it is).
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg("-m")
        .arg("600")
        .arg(path)
        .status();
    assert!(made.expect("mkfifo").success(), "mkfifo {}", path.display());
}

/// A token file with `text` and `mode`, in the sandbox; returns its path as text.
fn token_file(sb: &Sandbox, name: &str, text: &str, mode: u32) -> String {
    let file = sb.file(name, text);
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(mode))
        .expect("chmod");
    file.to_str().expect("utf-8 path").to_string()
}

/// Starts `cite mcp --http 0 --token-file FILE`, expecting a refusal to start; returns
/// (exit code, stderr).
fn refused_token_file(sb: &Sandbox, file: &str) -> (Option<i32>, String) {
    refused_start(sb, &["--http", "0", "--token-file", file], None)
}

#[test]
fn http_refuses_token_files_others_can_read_or_write() {
    let sb = Sandbox::new();
    for (mode, problem) in [
        (0o640, "readable by its group (mode 640)"),
        (0o660, "readable by its group (mode 660)"),
        (0o620, "writable by its group (mode 620)"),
        (0o604, "readable by other users (mode 604)"),
        (0o602, "writable by other users (mode 602)"),
    ] {
        let file = token_file(&sb, "token", "group-token-0123456789abcdef\n", mode);
        let (code, err) = refused_token_file(&sb, &file);
        assert_eq!(code, Some(2), "{mode:o}: {err}");
        assert_eq!(
            err,
            format!("error: the token file {file} is {problem}: run `chmod 600 {file}`\n")
        );
    }
    // Owner-only modes are accepted, read-only included.
    for mode in [0o600, 0o400] {
        let file = token_file(
            &sb,
            &format!("ok-{mode:o}"),
            "owner-token-0123456789abcdef\n",
            mode,
        );
        let mut cmd = mcp_command(&sb.ledger);
        cmd.args(["--http", "127.0.0.1:0", "--token-file", &file]);
        let srv = HttpServer::spawn(cmd);
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        let r = srv.post(Some("owner-token-0123456789abcdef"), &[], &list);
        assert_eq!(r.status, 200, "{mode:o}: {}", r.body);
    }
    if crate::util::is_root() {
        // Root may read anyone's file; one another user owns is theirs to change.
        let file = token_file(&sb, "theirs", "their-token-0123456789abcdef\n", 0o600);
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).expect("chown");
        let (code, err) = refused_token_file(&sb, &file);
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(
            err,
            format!(
                "error: the token file {file} belongs to another user (uid 65534): the user who runs cite mcp must own it\n"
            )
        );
    }
    assert!(!sb.ledger.exists());
}

#[test]
fn http_refuses_special_files_as_token_files_without_hanging() {
    let sb = Sandbox::new();
    let fifo = sb.path().join("fifo");
    mkfifo(&fifo);
    let folder = sb.path().join("folder");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::set_permissions(&folder, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod");
    let socket = sb.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind socket");
    std::fs::set_permissions(&socket, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod");
    for (path, kind) in [
        (fifo.as_path(), "a FIFO"),
        (folder.as_path(), "a folder"),
        (socket.as_path(), "a socket"),
        (Path::new("/dev/null"), "a character device"),
    ] {
        let shown = path.to_str().expect("utf-8 path");
        let (code, err) = refused_token_file(&sb, shown);
        assert_eq!(code, Some(2), "{shown}: {err}");
        assert_eq!(
            err,
            format!(
                "error: the token file {shown} is not a regular file ({kind}): give a file holding the token alone\n"
            )
        );
    }
    // A link to a regular file is followed (as secret stores lay tokens out).
    let target = token_file(&sb, "target", "linked-token-0123456789abcdef\n", 0o600);
    let link = sb.path().join("link");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let mut cmd = mcp_command(&sb.ledger);
    cmd.args(["--http", "127.0.0.1:0", "--token-file"])
        .arg(&link);
    let srv = HttpServer::spawn(cmd);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let r = srv.post(Some("linked-token-0123456789abcdef"), &[], &list);
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn http_port_in_use_fails_with_exit_1() {
    let sb = Sandbox::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr").to_string();
    let (code, err) = refused_start(&sb, &["--http", &addr], Some(TOKEN));
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with(&format!("error: cannot listen on {addr}: ")),
        "{err}"
    );
}

#[test]
fn http_warns_when_listening_beyond_loopback() {
    let sb = Sandbox::new();
    let mut cmd = mcp_command(&sb.ledger);
    cmd.args(["--http", "0.0.0.0:0"])
        .env("CITE_MCP_TOKEN", TOKEN);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let warning = lines.next().expect("a line").expect("utf-8");
    let listening = lines.next().expect("a line").expect("utf-8");
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        warning.starts_with("warning: cite mcp is listening on 0.0.0.0:")
            && warning.contains("not a loopback address"),
        "{warning}"
    );
    assert!(
        listening.starts_with("cite mcp: listening on http://0.0.0.0:"),
        "{listening}"
    );
}

#[test]
fn http_concurrent_clients_get_distinct_ids() {
    let sb = Sandbox::new();
    let srv = HttpServer::start(&sb.ledger, &[]);
    let url = srv.url.clone();
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let url = url.clone();
            thread::spawn(move || {
                let agent = agent();
                (0..5)
                    .map(|i| {
                        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                            "params": {"name": "add", "arguments": {"urls": [format!("https://example.com/{c}/{i}")]}}});
                        let r = reply(
                            agent
                                .post(&url)
                                .header("Content-Type", "application/json")
                                .header("Accept", "application/json, text/event-stream")
                                .header("Authorization", format!("Bearer {TOKEN}"))
                                .send(body.to_string()),
                        );
                        assert_eq!(r.status, 200, "{}", r.body);
                        message(&r)["result"]["structuredContent"]["sources"][0]["id"]
                            .as_u64()
                            .expect("id")
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut ids: Vec<u64> = clients
        .into_iter()
        .flat_map(|c| c.join().expect("client"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=20).collect::<Vec<u64>>());
}

#[test]
fn http_server_ends_on_sigterm() {
    let sb = Sandbox::new();
    let mut srv = HttpServer::start(&sb.ledger, &[]);
    srv.initialize();
    let status = srv.stop(libc::SIGTERM);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
}

/// A Python with the official MCP SDK (`pip install mcp`): `$CITE_MCP_PYTHON`, else
/// `python3`; the test fails when it cannot import it.
fn python_with_mcp_sdk() -> String {
    let python = std::env::var("CITE_MCP_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "python3".into());
    if !crate::util::runs(&python, &["-c", "import mcp"]) {
        crate::util::missing_tool(&format!(
            "{python} cannot import mcp — install it (pip install mcp==2.3.0) or set CITE_MCP_PYTHON"
        ));
    }
    python
}

/// Runs tests/fixtures/mcp_sdk_client.py with `args`; returns (success, stdout, stderr).
fn sdk_client(python: &str, args: &[&str]) -> (bool, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_sdk_client.py");
    let child = Command::new(python)
        .arg(script)
        .args(args)
        .env_remove("CITE_LEDGER")
        .env_remove("CITE_ACTOR")
        .env_remove("CITE_MCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the SDK client");
    let out = wait_output(child);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What the SDK client saw, with the ledger path (which differs per sandbox) checked
/// and taken out.
fn sdk_session(stdout: &str, ledger: &Path) -> Value {
    let mut seen: Value = serde_json::from_str(stdout.trim()).expect("the client's JSON");
    let listed = seen["list"]["structured"]
        .as_object_mut()
        .expect("list structured")
        .remove("ledger")
        .expect("ledger in list");
    assert!(
        Path::new(listed.as_str().expect("path")).ends_with(ledger.file_name().expect("name")),
        "{listed}"
    );
    seen
}

#[test]
#[ignore = "needs the MCP Python SDK ($CITE_MCP_PYTHON): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn the_python_mcp_sdk_over_stdio_and_http() {
    let python = python_with_mcp_sdk();
    let cite = assert_cmd::cargo::cargo_bin("cite");
    let stdio_sb = Sandbox::new();
    let ledger = stdio_sb.ledger.to_str().expect("utf-8 path");
    let (ok, out, err) = sdk_client(&python, &["stdio", cite.to_str().expect("utf-8"), ledger]);
    assert!(ok, "stdio session failed: {err}");
    let over_stdio = sdk_session(&out, &stdio_sb.ledger);
    assert_eq!(
        over_stdio["tools"],
        json!([
            "add", "export", "ingest", "list", "quote", "render", "report", "reset", "retitle",
            "retract", "show", "verify"
        ])
    );
    assert_eq!(
        over_stdio["add"]["text"],
        "[1] https://example.com/a\n[2] https://example.com/b"
    );
    assert_eq!(over_stdio["refused"]["is_error"], json!(true));

    let sb = Sandbox::new();
    let srv = HttpServer::start(&sb.ledger, &[]);
    let (ok, out, err) = sdk_client(&python, &["http", &srv.url, TOKEN]);
    assert!(ok, "HTTP session failed: {err}");
    assert_eq!(sdk_session(&out, &sb.ledger), over_stdio);
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://example.com/a\n[2] https://example.com/b\n"
    );

    // With another token the client fails at connection, and nothing is written.
    let refused_sb = Sandbox::new();
    let srv = HttpServer::start(&refused_sb.ledger, &[]);
    let (ok, _, _) = sdk_client(&python, &["http", &srv.url, "another-token-0123456789"]);
    assert!(!ok, "a client with the wrong token got through");
    srv.stderr_line(|l| l.ends_with(": wrong bearer token"));
    assert!(!refused_sb.ledger.exists());
}

#[test]
fn http_health_answers_without_the_token_or_the_ledger() {
    let sb = Sandbox::new();
    let srv = HttpServer::start(&sb.ledger, &[]);
    let health = srv.url.replace("/mcp", "/health");
    for authorization in [
        None,
        Some(format!("Bearer {TOKEN}")),
        Some("Bearer wrong".into()),
    ] {
        let mut req = srv.agent.get(&health);
        if let Some(a) = &authorization {
            req = req.header("Authorization", a);
        }
        let r = reply(req.call());
        assert_eq!(r.status, 200, "{authorization:?}: {}", r.body);
        assert!(
            r.content_type.starts_with("application/json"),
            "{}",
            r.content_type
        );
        assert_eq!(
            serde_json::from_str::<Value>(&r.body).expect("JSON"),
            json!({"status": "ok"})
        );
    }
    let r = reply(srv.agent.head(&health).call());
    assert_eq!(r.status, 200);
    // Only GET and HEAD: anything else on it needs the token like every other request.
    let r = reply(srv.agent.post(&health).send("{}"));
    assert_eq!(r.status, 401, "{}", r.body);
    // It reads nothing: the ledger was not even created.
    assert!(!sb.ledger.exists(), "a health check touched the ledger");
}

/// Writes `text` as the token file at `path` (mode 0600) by writing a new file beside
/// it and renaming it into place, as a rotation does.
fn replace_token_file(path: &Path, text: &str) {
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, text).expect("write token");
    std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod");
    std::fs::rename(&tmp, path).expect("rename token");
}

#[test]
fn http_rereads_a_replaced_token_file() {
    let sb = Sandbox::new();
    let first = "first-token-0123456789abcdef";
    let second = "second-token-0123456789abcdef";
    let third = "third-token-0123456789abcdef-longer";
    let file = PathBuf::from(token_file(&sb, "token", &format!("{first}\n"), 0o600));
    let mut cmd = mcp_command(&sb.ledger);
    cmd.args(["--http", "127.0.0.1:0", "--token-file"])
        .arg(&file);
    let srv = HttpServer::spawn(cmd);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let status = |token: &str| srv.post(Some(token), &[], &list).status;
    assert_eq!(status(first), 200);

    // Rotated by rename: the new token works at once, the old one no more.
    replace_token_file(&file, &format!("{second}\n"));
    assert_eq!(status(second), 200);
    assert_eq!(status(first), 401);
    srv.stderr_line(|l| l.contains("the token file") && l.contains("changed"));

    // Rewritten in place.
    std::fs::write(&file, format!("{third}\n")).expect("rewrite token");
    assert_eq!(status(third), 200);
    assert_eq!(status(second), 401);

    // Replaced by a file that is refused: nobody gets in, and the log says why.
    replace_token_file(&file, &format!("{second}\n"));
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o640))
        .expect("chmod");
    let r = srv.post(Some(second), &[], &list);
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(status(third), 503);
    let shown = file.display();
    srv.stderr_line(|l| {
        l == format!(
            "cite mcp: the token file {shown} is readable by its group (mode 640): run `chmod 600 {shown}` — every request is refused until the token file is fixed"
        )
    });
    // Removed: the same.
    std::fs::remove_file(&file).expect("rm");
    assert_eq!(status(second), 503);
    // Fixed: its token works again.
    replace_token_file(&file, &format!("{second}\n"));
    assert_eq!(status(second), 200);
    assert_eq!(status(third), 401);
}

/// Starts `cite mcp --http` with at most `limit` open descriptors (what a login shell
/// gives by default is 1,024; the tests may run under a higher limit, which would hide
/// running out).
fn start_with_descriptor_limit(ledger: &Path, limit: u64) -> HttpServer {
    use std::os::unix::process::CommandExt;
    let mut cmd = mcp_command(ledger);
    cmd.args(["--http", "127.0.0.1:0"])
        .env("CITE_MCP_TOKEN", TOKEN);
    // SAFETY: setrlimit(2) is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &rl) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    HttpServer::spawn(cmd)
}

/// Raises this process's own descriptor limit to at least `wanted`, so that the test
/// can hold that many connections.
fn raise_own_descriptor_limit(wanted: u64) {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit on a valid struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl), 0);
        if rl.rlim_cur < wanted {
            assert!(
                rl.rlim_max >= wanted,
                "the test needs {wanted} open files; the hard limit is {}",
                rl.rlim_max
            );
            rl.rlim_cur = wanted;
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &rl), 0);
        }
    }
}

/// The descriptors `pid` holds open.
fn open_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn http_idle_connections_without_the_token_cannot_lock_out_a_client() {
    const IDLE: usize = 1100;
    raise_own_descriptor_limit(IDLE as u64 + 200);
    let sb = Sandbox::new();
    let srv = start_with_descriptor_limit(&sb.ledger, 1024);
    let addr = format!("127.0.0.1:{}", srv.port());
    // Connections that send nothing, as an attacker without the token holds them.
    let idle: Vec<std::net::TcpStream> = (0..IDLE)
        .map(|_| std::net::TcpStream::connect(&addr).expect("connect"))
        .collect();
    // A client with the token still gets its answer, long before the idle ones would
    // time out by themselves (30 s): this bound only proves it was not locked out.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let add = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "add", "arguments": {"urls": ["https://example.com/a"]}}});
    let r = reply(
        agent
            .post(&srv.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", format!("Bearer {TOKEN}"))
            .send(add.to_string()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&message(&r)["result"]), "[1] https://example.com/a");
    // The server closed the oldest idle connections rather than run out of descriptors.
    let pid = srv.child.id();
    crate::util::wait_until(TIMEOUT, "the server to close idle connections", || {
        open_descriptors(pid) < 512
    });
    srv.stderr_line(|l| l.contains("closed the connection from 127.0.0.1:"));
    drop(idle);
}

const PAGE: &str = "The ledger hands out small integer ids to every source it registers.\n";
const DRAFT: &str = "# Report\n\nThe ledger hands out ids.[1]\n";

/// Each tool argument that names a file, with a call that passes `path` in it, and
/// what the refusal names instead of the file (the argument that takes the text).
fn file_calls(path: &str) -> Vec<(&'static str, Value, &'static str, &'static str)> {
    let quote = "hands out small integer ids";
    vec![
        (
            "quote",
            json!({"id": 1, "text": quote, "from": path}),
            "from",
            "the page text itself as evidence",
        ),
        (
            "verify",
            json!({"path": path}),
            "path",
            "the draft text itself as draft",
        ),
        (
            "render",
            json!({"cited_in": path}),
            "cited_in",
            "the draft text itself as draft",
        ),
        (
            "render",
            json!({"replace_in": path}),
            "replace_in",
            "the draft text itself as draft, and append the block it returns",
        ),
        (
            "export",
            json!({"format": "ris", "cited_in_file": path}),
            "cited_in_file",
            "the draft text itself as cited_in",
        ),
    ]
}

#[test]
fn http_refuses_file_arguments_unless_started_with_files() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://example.com/a"]);
    let secret = sb.file("secret.md", DRAFT);
    let secret = secret.to_str().expect("utf-8 path");
    let mut srv = HttpServer::start(&sb.ledger, &[]);
    srv.initialize();
    for (id, (tool, args, arg, instead)) in (1..).zip(file_calls(secret)) {
        let result = srv.call(id, tool, args);
        assert_eq!(result["isError"], json!(true), "{tool} {arg}: {result}");
        assert_eq!(
            text(&result),
            format!(
                "error: {arg} names a file, and this server opens no files for its HTTP clients — pass {instead}, or start the server with --files DIR to let clients name files inside DIR"
            ),
            "{tool} {arg}"
        );
    }
    assert_eq!(std::fs::read_to_string(secret).expect("read"), DRAFT);
    // The text itself is taken as always.
    let result = srv.call(9, "verify", json!({"draft": DRAFT}));
    assert_eq!(result["isError"], json!(false), "{result}");

    // Over stdio the client is the user: the same calls read and write the file.
    let requests: Vec<Value> = (1..)
        .zip(file_calls(secret))
        .map(|(id, (tool, args, _, _))| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": args}})
        })
        .collect();
    std::fs::write(sb.path().join("secret.md"), PAGE.to_string() + DRAFT).expect("write");
    for answer in over_stdio(&sb.ledger, &requests) {
        assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    }
    let rewritten = std::fs::read_to_string(secret).expect("read");
    assert!(
        rewritten.ends_with("[1] https://example.com/a\n"),
        "{rewritten}"
    );
}

/// A folder to serve (`served/`, holding `page.txt`, `draft.md`, `sub/`), and beside it
/// what must stay out of reach: `secret.md` and `outside/`, with links out of the folder.
struct Served {
    sb: Sandbox,
    root: PathBuf,
    secret: PathBuf,
}

impl Served {
    fn new() -> Served {
        use std::os::unix::fs::symlink;
        let sb = Sandbox::new();
        sb.ok(&["add", "https://example.com/a"]);
        let root = sb.path().join("served");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::fs::write(root.join("page.txt"), PAGE).expect("write");
        std::fs::write(root.join("draft.md"), DRAFT).expect("write");
        std::fs::write(root.join("sub/draft.md"), DRAFT).expect("write");
        let secret = sb.file("secret.md", &(PAGE.to_string() + DRAFT));
        std::fs::create_dir(sb.path().join("outside")).expect("mkdir");
        std::fs::write(sb.path().join("outside/page.txt"), PAGE).expect("write");
        // Links that stay inside, and links that lead out (relative and absolute).
        symlink("draft.md", root.join("alias.md")).expect("symlink");
        symlink("../page.txt", root.join("sub/up.txt")).expect("symlink");
        symlink("../secret.md", root.join("out.md")).expect("symlink");
        symlink(&secret, root.join("abs-out.md")).expect("symlink");
        symlink("../outside", root.join("outdir")).expect("symlink");
        symlink(root.join("sub"), root.join("abs-in")).expect("symlink");
        Served { sb, root, secret }
    }

    /// A server on the ledger with `--files` the folder, initialized; and the folder.
    fn serve(&self) -> (HttpServer, &str) {
        let root = self.root.to_str().expect("utf-8 path");
        let mut srv = HttpServer::start(&self.sb.ledger, &["--files", root]);
        srv.initialize();
        (srv, root)
    }
}

#[test]
fn http_files_resolve_inside_the_folder_and_never_out_of_it() {
    let served = Served::new();
    let (srv, root) = served.serve();
    let quote = |id: u64, from: &str| {
        srv.call(
            id,
            "quote",
            json!({"id": 1, "text": "hands out small integer ids", "from": from}),
        )
    };
    // Inside: relative to the folder, absolute, through `..` that stays in, through
    // links that stay in.
    let inside_abs = format!("{root}/page.txt");
    for (id, from) in (1..).zip([
        "page.txt",
        "./sub/../page.txt",
        inside_abs.as_str(),
        "sub/up.txt",
    ]) {
        let result = quote(id, from);
        assert_eq!(result["isError"], json!(false), "{from}: {result}");
    }
    for (id, path) in (10..).zip(["draft.md", "alias.md", "abs-in/draft.md"]) {
        let result = srv.call(id, "verify", json!({"path": path}));
        assert_eq!(result["isError"], json!(false), "{path}: {result}");
    }
    // Out: by `..`, as an absolute path elsewhere, through a link (relative or
    // absolute, to a file or a folder).
    let secret = served.secret.to_str().expect("utf-8 path");
    let outside = format!("{root}/../outside/page.txt");
    for (id, from) in (20..).zip([
        "../secret.md",
        "sub/../../secret.md",
        secret,
        outside.as_str(),
        "out.md",
        "abs-out.md",
        "outdir/page.txt",
    ]) {
        let result = quote(id, from);
        assert_eq!(result["isError"], json!(true), "{from}: {result}");
        assert_eq!(
            text(&result),
            format!(
                "error: {from} is outside {root}, the folder this server opens files in — name a file inside it (a relative path starts there), or pass the page text itself as evidence"
            ),
            "{from}"
        );
    }
    // A missing file inside is what it is over stdio.
    let result = srv.call(30, "verify", json!({"path": "missing.md"}));
    assert_eq!(text(&result), "error: no such draft: missing.md");
    let result = quote(31, "missing.txt");
    assert_eq!(
        text(&result),
        "error: cannot read missing.txt: no such file"
    );
}

#[test]
fn http_files_replace_in_writes_inside_the_folder_only() {
    let served = Served::new();
    let (srv, root) = served.serve();
    let result = srv.call(1, "render", json!({"replace_in": "sub/draft.md"}));
    assert_eq!(result["isError"], json!(false), "{result}");
    assert_eq!(text(&result), "Sources block rewritten in sub/draft.md");
    let written = std::fs::read_to_string(served.root.join("sub/draft.md")).expect("read");
    assert!(
        written.ends_with("[1] https://example.com/a\n"),
        "{written}"
    );
    // Through a link inside, the file it names is written and the link stays a link.
    let result = srv.call(2, "render", json!({"replace_in": "alias.md"}));
    assert_eq!(result["isError"], json!(false), "{result}");
    assert!(
        std::fs::symlink_metadata(served.root.join("alias.md"))
            .expect("lstat")
            .file_type()
            .is_symlink()
    );
    let written = std::fs::read_to_string(served.root.join("draft.md")).expect("read");
    assert!(
        written.ends_with("[1] https://example.com/a\n"),
        "{written}"
    );
    for (id, path) in (3..).zip(["out.md", "abs-out.md", "../secret.md"]) {
        let result = srv.call(id, "render", json!({"replace_in": path}));
        assert_eq!(result["isError"], json!(true), "{path}: {result}");
        assert!(
            text(&result).starts_with(&format!("error: {path} is outside {root}")),
            "{path}: {result}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&served.secret).expect("read"),
        PAGE.to_string() + DRAFT
    );
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(&served.root)
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n.to_string_lossy().starts_with(".cite-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn http_files_special_files_are_refused_without_hanging() {
    let served = Served::new();
    mkfifo(&served.root.join("fifo.md"));
    let (srv, _) = served.serve();
    let result = srv.call(1, "render", json!({"cited_in": "fifo.md"}));
    assert_eq!(
        text(&result),
        "error: cannot read fifo.md: it is not a regular file (a FIFO)"
    );
    let result = srv.call(2, "render", json!({"replace_in": "fifo.md"}));
    assert_eq!(
        text(&result),
        "error: cannot rewrite fifo.md: it is not a regular file (a FIFO) — give a file path"
    );
    let result = srv.call(3, "verify", json!({"path": "sub"}));
    assert_eq!(text(&result), "error: no such draft: sub");
}

#[test]
fn http_files_folder_must_exist() {
    let sb = Sandbox::new();
    let missing = sb.path().join("missing");
    let file = sb.file("file", "x");
    for (path, why) in [
        (missing, "no such folder"),
        (file, "it is not a folder (a regular file)"),
    ] {
        let path = path.to_str().expect("utf-8 path");
        let (code, err) = refused_start(&sb, &["--http", "0", "--files", path], Some(TOKEN));
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(
            err,
            format!(
                "error: --files {path}: {why} — give the folder whose files HTTP clients may name\n"
            )
        );
    }
    // Only with --http: over stdio the client is the user.
    let (code, err) = refused_start(&sb, &["--files", sb.path().to_str().unwrap()], None);
    assert_eq!(code, Some(2));
    assert!(err.contains("--http"), "{err}");
}
