//! Newline-delimited JSON-RPC over a byte stream (stdin/stdout), answering every line.
//!
//! rmcp's own stdio transport drops a line that is not JSON and a line over its size
//! limit without a word, so a client that sent one waits forever; and it takes a
//! `tools/call` whose params do not parse for an unknown method (-32601). This
//! transport reads the lines itself and answers each of those with a JSON-RPC error:
//!
//! - not JSON: `-32700` (parse error), id `null` — there is no id to read;
//! - JSON that is not a message: `-32600` (invalid request), with its id when it has one;
//! - a known method whose params do not fit it: `-32602` (invalid params), with its id;
//! - over [`MAX_MESSAGE`]: `-32600` naming the limit, with the request's id when a
//!   streaming scan of the line finds it at the top level of the object (wherever it
//!   sits: the TypeScript SDK writes the id after the params). The line is never held
//!   in memory whole.
//!
//! Everything else goes to rmcp as it would have. Stdout carries only these messages.
//!
//! A reply to a bad line is written by a task of its own: `receive` is polled inside a
//! `select!` and may be dropped at any await, and a write dropped half-way would leave
//! half a line on stdout.

use std::collections::VecDeque;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

/// The largest message accepted, in bytes (without its newline): rmcp's own limit.
pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The request methods rmcp parses into typed requests. A request naming one of these
/// whose params do not fit comes out of rmcp's parser as a custom request, which the
/// server would answer "method not found".
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
];

/// A server transport over `read` and `write` (see the module comment).
pub struct Lines<R, W> {
    read: BufReader<R>,
    /// The line being read; kept across cancelled reads.
    line: Vec<u8>,
    /// Set while the rest of an oversized line is skipped.
    oversized: Option<IdScan>,
    write: Arc<Mutex<Option<W>>>,
    /// Replies to bad lines still being written.
    replies: VecDeque<JoinHandle<()>>,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W) -> Lines<R, W> {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            oversized: None,
            write: Arc::new(Mutex::new(Some(write))),
            replies: VecDeque::new(),
        }
    }

    /// Reads up to the end of one line, never holding more than [`MAX_MESSAGE`] bytes
    /// of it. `Ok(true)` when a line is in `self.line`; `Ok(false)` at the end of input.
    /// Cancellation-safe: bytes are moved out of the reader's buffer and into `line`
    /// (or the scan) with no await in between.
    async fn read_line(&mut self) -> std::io::Result<Option<Read>> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(None);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..newline.unwrap_or(available.len())];
            let done = if let Some(scan) = &mut self.oversized {
                scan.feed(chunk);
                newline.map(|_| Read::Oversized)
            } else if self.line.len() + chunk.len() > MAX_MESSAGE {
                let mut scan = IdScan::default();
                scan.feed(&self.line);
                scan.feed(chunk);
                self.line.clear();
                self.oversized = Some(scan);
                newline.map(|_| Read::Oversized)
            } else {
                self.line.extend_from_slice(chunk);
                newline.map(|_| Read::Line)
            };
            self.read.consume(take);
            if let Some(done) = done {
                return Ok(Some(done));
            }
        }
    }

    /// Writes `reply` (one JSON-RPC error) on a task of its own.
    fn reply(&mut self, id: Value, code: i64, message: String) {
        let reply =
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        let write = self.write.clone();
        self.replies.retain(|h| !h.is_finished());
        self.replies.push_back(tokio::spawn(async move {
            let _ = write_line(&write, reply.to_string().into_bytes()).await;
        }));
    }

    /// What to do with one whole line.
    fn classify(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                self.reply(Value::Null, PARSE_ERROR, format!("Parse error: {e}"));
                return None;
            }
        };
        let id = request_id(&value);
        let method = value.get("method").and_then(Value::as_str);
        match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
            Ok(JsonRpcMessage::Request(r))
                if matches!(&r.request, ClientRequest::CustomRequest(c)
                    if KNOWN_METHODS.contains(&c.method.as_str())) =>
            {
                let method = r.request.method().to_string();
                let why = params_error(&method, &value)
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default();
                self.reply(
                    json!(r.id),
                    INVALID_PARAMS,
                    format!("Invalid params for {method}{why}"),
                );
                None
            }
            Ok(msg) => Some(msg),
            // A notification the server does not know is ignored, as rmcp does (an
            // editor's LSP traffic, say); a reply to it would be a reply to nothing.
            Err(_) if value.get("id").is_none() && method.is_some() => None,
            // A known method with params that are not even an object.
            Err(e) if method.is_some_and(|m| KNOWN_METHODS.contains(&m)) && !id.is_null() => {
                let method = method.unwrap_or_default();
                self.reply(
                    id,
                    INVALID_PARAMS,
                    format!("Invalid params for {method}: {e}"),
                );
                None
            }
            Err(e) => {
                self.reply(id, INVALID_REQUEST, format!("Invalid request: {e}"));
                None
            }
        }
    }
}

/// How a line read ended.
enum Read {
    Line,
    Oversized,
}

/// The id of a request, if `value` has one a reply can carry (a string or a number).
fn request_id(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// Why the params of a request for `method` do not fit it, for the methods this server
/// serves.
fn params_error(method: &str, value: &Value) -> Option<String> {
    use rmcp::model::{CallToolRequest, InitializeRequest, ListToolsRequest};
    let request = json!({"method": method, "params": value.get("params")});
    let err = match method {
        "tools/call" => serde_json::from_value::<CallToolRequest>(request).err(),
        "tools/list" => serde_json::from_value::<ListToolsRequest>(request).err(),
        "initialize" => serde_json::from_value::<InitializeRequest>(request).err(),
        _ => None,
    };
    err.map(|e| e.to_string())
}

async fn write_line<W: AsyncWrite + Unpin>(
    write: &Mutex<Option<W>>,
    mut line: Vec<u8>,
) -> std::io::Result<()> {
    line.push(b'\n');
    let mut guard = write.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    w.write_all(&line).await?;
    w.flush().await
}

impl<R, W> rmcp::transport::Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            write_line(&write, line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Some(Read::Line)) => {
                    let line = std::mem::take(&mut self.line);
                    let msg = self.classify(&line);
                    // Keep the buffer's capacity for the next line.
                    self.line = line;
                    self.line.clear();
                    if let Some(msg) = msg {
                        return Some(msg);
                    }
                }
                Ok(Some(Read::Oversized)) => {
                    let id = self
                        .oversized
                        .take()
                        .and_then(IdScan::found)
                        .unwrap_or(Value::Null);
                    self.reply(
                        id,
                        INVALID_REQUEST,
                        format!(
                            "request too large: over {MAX_MESSAGE} bytes (16 MiB), the limit for one message — pass large page texts or drafts as file paths (`from`, `path`, `cited_in`)"
                        ),
                    );
                }
                Ok(None) | Err(_) => {
                    // The replies to the last bad lines go out before the end.
                    while let Some(h) = self.replies.pop_front() {
                        let _ = h.await;
                    }
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.write.lock().await;
        if let Some(mut w) = guard.take() {
            w.flush().await?;
        }
        Ok(())
    }
}

/// Finds the top-level `"id"` of a JSON object fed to it in pieces, keeping only a few
/// bytes: a streaming scan for a line too large to hold. Tracks nesting and strings so
/// that an `"id"` inside the params (the `quote` tool's own `id`) is not taken for the
/// request's.
#[derive(Default)]
struct IdScan {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    /// The key being read (up to 3 bytes: enough to tell `id` from the rest).
    key: Option<Vec<u8>>,
    /// The last key read at depth 1 was `id`.
    key_is_id: bool,
    /// The bytes of the id's value, while it is read.
    value: Option<Vec<u8>>,
    found: Option<Value>,
}

/// An id longer than this is not looked for.
const MAX_ID: usize = 1024;

impl IdScan {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if let Some(v) = &mut self.value {
            let ends = !self.in_string && self.depth == 1 && (b == b',' || b == b'}');
            if ends {
                self.found = serde_json::from_slice::<Value>(v)
                    .ok()
                    .filter(|id| id.is_string() || id.is_number());
                self.value = None;
            } else if v.len() < MAX_ID {
                v.push(b);
            } else {
                self.value = None;
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if let Some(key) = self.key.take() {
                    self.key_is_id = key == b"id";
                }
                return;
            }
            if let Some(key) = &mut self.key
                && key.len() < 3
            {
                key.push(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.key = Some(Vec::new());
                    self.expect_key = false;
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 && b == b'{' {
                    self.expect_key = true;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 && self.key_is_id => {
                self.key_is_id = false;
                self.value = Some(Vec::new());
            }
            _ => {}
        }
    }

    fn found(self) -> Option<Value> {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, piece: usize) -> Option<Value> {
        let mut s = IdScan::default();
        for chunk in text.as_bytes().chunks(piece) {
            s.feed(chunk);
        }
        s.found()
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_sits() {
        for piece in [1, 2, 7, 1000] {
            assert_eq!(
                scan(r#"{"jsonrpc":"2.0","id":5,"x":1}"#, piece),
                Some(json!(5))
            );
            assert_eq!(
                scan(
                    r#"{"params":{"id":1,"a":[{"id":2}]},"m":"a\"id\":3","id" : "r-1" }"#,
                    piece
                ),
                Some(json!("r-1"))
            );
            assert_eq!(scan(r#"{"params":{"id":1}}"#, piece), None);
            assert_eq!(scan(r#"["id", {"id": 1}]"#, piece), None);
            assert_eq!(scan(r#"{"idx":1,"id":null}"#, piece), None);
            assert_eq!(scan(r#"{"id":{"a":1},"x":1}"#, piece), None);
            assert_eq!(scan(r#"{"id":"a,}b"}"#, piece), Some(json!("a,}b")));
        }
    }
}
