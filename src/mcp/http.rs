//! `cite mcp --http`: the same server over MCP's Streamable HTTP transport, for agents
//! on other machines.
//!
//! One endpoint, [`PATH`]. Every request must carry `Authorization: Bearer TOKEN`; one
//! without it, or with another token, is answered 401 before its body is read or any
//! other check runs, so it starts no tool and writes nothing, and its connection is
//! closed (each guess costs a connection). Then rmcp's transport checks the `Host` and
//! `Origin` headers (403) and serves the request with a clone of the same [`Server`]
//! the stdio transport serves: same tool router, same answers. The one exception to
//! the token is `GET /health` ([`HEALTH`]), for load balancers: it says the server is
//! up and nothing else.
//!
//! Safe to expose to its token holders, and only to them: the token is read again when
//! its file is replaced ([`super::token`]); connections are capped, those without the
//! token more tightly, so idle sockets cannot lock a client out ([`super::slots`]); and
//! tool arguments that name files are refused unless the server was given a folder
//! they must stay inside ([`super::files`]) — the token grants the ledger, not the
//! server's filesystem.
//!
//! Stateless (no `Mcp-Session-Id`): each POST is answered on its own, as
//! `application/json`. The server keeps nothing between calls anyway (see the module
//! above), so sessions would only hold memory for clients that never end them; clients
//! handle a server that assigns no session id (the transport makes sessions optional).
//!
//! Plain HTTP/1.1, no TLS: across an untrusted network, put a TLS proxy or an SSH
//! tunnel in front — the token travels in clear otherwise.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::Server;
use super::slots::{Caps, Conn, Slot, Slots};
use super::token::{Admission, Tokens};

/// The one path the server answers on; `claude mcp add` and other clients are given
/// `http://HOST:PORT/mcp`.
pub const PATH: &str = "/mcp";

/// The same limit as a line on stdio (rmcp's `DEFAULT_MAX_LINE_LENGTH`), so a page
/// snapshot that can be added over stdio can be added over HTTP. rmcp's HTTP default is
/// 4 MiB.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// A client that opens a connection and sends no complete request head in this time
/// is dropped, so idle sockets cannot pile up; the same holds between the requests of
/// a kept-alive connection.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// The health check: answered without the token, with no ledger data.
pub const HEALTH: &str = "/health";

/// How the HTTP server runs, beside the listener.
pub struct HttpOptions {
    pub tokens: Tokens,
    /// Browser origins (`scheme://host:port`) allowed besides the server's own.
    pub allowed_origins: Vec<String>,
    /// Where a line about a refused request or a failed accept goes (the CLI prints it
    /// on stderr).
    pub log: Box<dyn Fn(String) + Send + Sync>,
}

impl Server {
    /// Serves MCP over Streamable HTTP on `listener` (bound, non-blocking) until the
    /// process is stopped. Each connection is served on its own task; each tool call
    /// runs on the blocking pool as on stdio.
    pub async fn serve_http(
        self,
        listener: std::net::TcpListener,
        options: HttpOptions,
    ) -> Result<(), String> {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| format!("cannot listen: {e}"))?;
        let local = listener
            .local_addr()
            .map_err(|e| format!("cannot listen: {e}"))?;
        let config = transport_config(local, options.allowed_origins);
        let mcp = StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let gate = Arc::new(Gate {
            tokens: options.tokens,
            log: options.log,
            mcp,
        });
        let slots = Slots::new(Caps::for_this_process());
        loop {
            let closed = slots.room().await;
            gate.closed_to_make_room(&closed).await;
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was
                    // accepted: the listener is still good. The pause keeps a
                    // persistent failure from spinning.
                    (gate.log)(format!("cite mcp: cannot accept a connection: {e}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let (slot, closed) = slots.hold(peer);
            gate.closed_to_make_room(&closed).await;
            tokio::spawn(gate.clone().serve(stream, slot));
        }
    }
}

/// rmcp's transport settings for a server listening on `local`.
///
/// The MCP specification (2025-11-25, Basic › Transports › Streamable HTTP › Security
/// Warning, <https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning>):
/// "Servers MUST validate the `Origin` header on all incoming connections to prevent
/// DNS rebinding attacks. If the `Origin` header is present and invalid, servers MUST
/// respond with HTTP 403 Forbidden." So validation is always on: a request with no
/// `Origin` (every non-browser client) passes; a browser's passes only from the
/// server's own origin or one given with `--allow-origin`.
///
/// `Host` is checked only on a loopback address, where the names are known: the
/// loopback names and the address bound (127.0.0.2 is loopback too). On any other
/// address the names clients use for the machine cannot be known here; a rebinding page
/// still cannot get in, because it cannot send the bearer token (a browser never adds
/// one by itself) and its `Origin` is refused.
fn transport_config(local: SocketAddr, extra_origins: Vec<String>) -> StreamableHttpServerConfig {
    let mut origins = own_origins(local);
    origins.extend(extra_origins);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(MAX_BODY)
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if local.ip().is_loopback() {
        config.with_allowed_hosts(own_hosts(local.ip()))
    } else {
        config.disable_allowed_hosts()
    }
}

/// The host names of this server: the address bound, and on loopback each loopback name.
fn own_hosts(ip: IpAddr) -> Vec<String> {
    let mut hosts = Vec::new();
    if ip.is_loopback() {
        hosts.extend(["localhost", "127.0.0.1", "[::1]"].map(String::from));
    }
    let bound = match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    };
    if !ip.is_unspecified() && !hosts.contains(&bound) {
        hosts.push(bound);
    }
    hosts
}

/// The origins of pages served from this server's own address (none is, but they are
/// not foreign).
fn own_origins(local: SocketAddr) -> Vec<String> {
    let port = local.port();
    own_hosts(local.ip())
        .into_iter()
        .map(|host| format!("http://{host}:{port}"))
        .collect()
}

/// What every request passes through: the token, the path, then rmcp.
struct Gate {
    tokens: Tokens,
    log: Box<dyn Fn(String) + Send + Sync>,
    mcp: StreamableHttpService<Server, NeverSessionManager>,
}

type Body = BoxBody<Bytes, Infallible>;

impl Gate {
    /// Serves one connection until it ends, times out, or is closed to make room; its
    /// slot is freed when it ends.
    async fn serve(self: Arc<Gate>, stream: tokio::net::TcpStream, slot: Slot) {
        let conn = slot.conn.clone();
        let service = hyper::service::service_fn(move |req| {
            let gate = self.clone();
            let conn = conn.clone();
            async move { Ok::<_, Infallible>(gate.respond(req, &conn).await) }
        });
        let served = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .serve_connection(TokioIo::new(stream), service);
        let mut served = std::pin::pin!(served);
        let mut closed = std::pin::pin!(slot.conn.closed());
        // Whichever comes first; the connection's socket is closed as it is dropped,
        // then its slot freed. (A client that goes away mid-request ends its connection
        // only.)
        std::future::poll_fn(|cx| {
            if served.as_mut().poll(cx).is_ready() || closed.as_mut().poll(cx).is_ready() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }

    /// Logs the connections closed to make room, and lets their tasks run so that
    /// their sockets are closed before another is accepted (on the one thread, the
    /// accept loop would otherwise take many before they run).
    async fn closed_to_make_room(&self, peers: &[SocketAddr]) {
        for peer in peers {
            (self.log)(format!(
                "cite mcp: closed the connection from {peer} to make room: it sent no request with the token, and more connections without it were open than the server keeps"
            ));
        }
        if !peers.is_empty() {
            tokio::task::yield_now().await;
        }
    }

    async fn respond(&self, req: Request<Incoming>, conn: &Conn) -> Response<Body> {
        if req.uri().path() == HEALTH && matches!(*req.method(), Method::GET | Method::HEAD) {
            return health();
        }
        // The token comes first, for every other path and method: a client without it
        // learns nothing, not even which paths exist.
        let refused = match self.tokens.check(req.headers(), &*self.log) {
            Admission::Admitted => None,
            Admission::Unusable => {
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Service Unavailable: the server's token file cannot be used; its log says why\n",
                );
            }
            Admission::NoToken => Some(("no bearer token", r#"Bearer realm="cite""#)),
            Admission::WrongToken => Some((
                "wrong bearer token",
                r#"Bearer realm="cite", error="invalid_token""#,
            )),
        };
        if let Some((why, challenge)) = refused {
            (self.log)(format!(
                "cite mcp: refused {} {} from {}: {why}",
                req.method(),
                req.uri().path(),
                conn.peer
            ));
            let mut response = plain(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send Authorization: Bearer TOKEN\n",
            );
            let headers = response.headers_mut();
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
            // One guess per connection: a client without the token keeps no slot.
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
        conn.authenticated();
        if req.uri().path() != PATH {
            return plain(
                StatusCode::NOT_FOUND,
                "Not Found: the MCP endpoint is /mcp\n",
            );
        }
        self.mcp.handle(req).await
    }
}

/// `{"status":"ok"}`: the server is up and answering. Nothing about the ledger, which
/// is not even opened for it.
fn health() -> Response<Body> {
    let mut response =
        Response::new(Full::new(Bytes::from_static(b"{\"status\":\"ok\"}\n")).boxed());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn plain(status: StatusCode, body: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_origins_and_hosts_follow_the_bound_address() {
        let loopback: SocketAddr = "127.0.0.1:8377".parse().unwrap();
        assert_eq!(
            own_origins(loopback),
            [
                "http://localhost:8377",
                "http://127.0.0.1:8377",
                "http://[::1]:8377"
            ]
        );
        let other_loopback: SocketAddr = "127.0.0.2:8377".parse().unwrap();
        let config = transport_config(other_loopback, vec!["https://app.example:443".into()]);
        assert_eq!(
            config.allowed_hosts,
            ["localhost", "127.0.0.1", "[::1]", "127.0.0.2"]
        );
        assert_eq!(config.allowed_origins.len(), 5);
        let any: SocketAddr = "0.0.0.0:8377".parse().unwrap();
        assert!(own_origins(any).is_empty());
        assert!(transport_config(any, vec![]).allowed_hosts.is_empty());
        let lan: SocketAddr = "[fd00::5]:80".parse().unwrap();
        assert_eq!(own_origins(lan), ["http://[fd00::5]:80"]);
    }
}
