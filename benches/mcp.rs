//! `cite mcp` round trips on a ledger of 100,000 sources (issue 11): one `tools/call` of
//! `list` written to the server's stdin and its answer read back from stdout, through a
//! server started once. The target: `list` with the default limit (50) under 5 ms per
//! call. `list` after a cursor near the end, and a `query` (which reads every row to
//! count the matches), are references.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

use common::{CITE, build_ledger};

/// A running `cite mcp`, past initialization.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(ledger: &std::path::Path) -> Server {
        let mut child = Command::new(CITE)
            .arg("--ledger")
            .arg(ledger)
            .arg("mcp")
            .env_remove("CITE_LEDGER")
            .env_remove("CITE_ACTOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start cite mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").expect("write request");
        self.stdin.flush().expect("flush request");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read reply");
            assert!(n > 0, "the server closed stdout");
            let msg: Value = serde_json::from_str(&line).expect("a JSON reply");
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    /// One `tools/call`; panics on an error.
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        reply
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn list(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let ledger = build_ledger(dir.path(), 100_000);
    let mut server = Server::start(&ledger);
    let first = server.call("list", json!({}));
    let page = &first["result"]["structuredContent"];
    assert_eq!(page["matched"], 100_000);
    assert_eq!(page["sources"].as_array().map(Vec::len), Some(50));

    let mut g = c.benchmark_group("mcp/list-100k");
    g.sample_size(100)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("default limit", |b| {
        b.iter(|| server.call("list", json!({})))
    });
    g.bench_function("cursor 99900", |b| {
        b.iter(|| server.call("list", json!({"cursor": "99900"})))
    });
    g.bench_function("query (every row read)", |b| {
        b.iter(|| server.call("list", json!({"query": "site7.example/page/9"})))
    });
    g.finish();
}

criterion_group!(benches, list);
criterion_main!(benches);
