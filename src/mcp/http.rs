//! `cite mcp --http`: the same server over MCP's Streamable HTTP transport, for agents
//! on other machines.
//!
//! One endpoint, [`PATH`]. Every request must carry `Authorization: Bearer TOKEN`; one
//! without it, or with another token, is answered 401 before its body is read or any
//! other check runs, so it starts no tool and writes nothing. Then rmcp's transport
//! checks the `Host` and `Origin` headers (403) and serves the request with a clone of
//! the same [`Server`] the stdio transport serves: same tool router, same answers.
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
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::Server;

/// The one path the server answers on; `claude mcp add` and other clients are given
/// `http://HOST:PORT/mcp`.
pub const PATH: &str = "/mcp";

/// The shortest token accepted: a client that can reach the port may guess freely, so
/// the token must be out of reach of guessing (`openssl rand -hex 32` gives 64).
pub const MIN_TOKEN_LEN: usize = 16;

/// The same limit as a line on stdio (rmcp's `DEFAULT_MAX_LINE_LENGTH`), so a page
/// snapshot that can be added over stdio can be added over HTTP. rmcp's HTTP default is
/// 4 MiB.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// A client that opens a connection and sends no complete request head in this time
/// is dropped, so idle sockets cannot pile up.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// The bearer token clients must present. Only its BLAKE3 hash is kept: comparing
/// hashes with [`blake3::Hash`]'s `==`, which is constant-time, makes the check take
/// the same time wherever a wrong token differs from the right one, and whatever its
/// length.
pub struct Token(blake3::Hash);

impl Token {
    /// Checks a secret: at least [`MIN_TOKEN_LEN`] characters, all visible ASCII (it
    /// travels in an HTTP header, and a space would split it). Errors are worded for
    /// the user.
    pub fn new(secret: &str) -> Result<Token, String> {
        if secret.is_empty() {
            return Err("the bearer token is empty".into());
        }
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the bearer token must be visible ASCII characters, without spaces".into());
        }
        if secret.len() < MIN_TOKEN_LEN {
            return Err(format!(
                "the bearer token is too short ({} characters): use at least {MIN_TOKEN_LEN}, e.g. from `openssl rand -hex 32`",
                secret.len()
            ));
        }
        Ok(Token(blake3::hash(secret.as_bytes())))
    }

    /// Whether `headers` carry this token as `Authorization: Bearer TOKEN`.
    fn check(&self, headers: &HeaderMap) -> Admission {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Admission::NoToken;
        };
        // RFC 9110 §11.1: the scheme name is case-insensitive.
        let presented = value
            .as_bytes()
            .split_at_checked(7)
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"bearer "))
            .map(|(_, rest)| rest.trim_ascii());
        match presented {
            Some(t) if blake3::hash(t) == self.0 => Admission::Admitted,
            Some(_) => Admission::WrongToken,
            None => Admission::NoToken,
        }
    }
}

enum Admission {
    Admitted,
    NoToken,
    WrongToken,
}

/// How the HTTP server runs, beside the listener.
pub struct HttpOptions {
    pub token: Token,
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
            token: options.token,
            log: options.log,
            mcp,
        });
        loop {
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
            let gate = gate.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let gate = gate.clone();
                    async move { Ok::<_, Infallible>(gate.respond(req, peer).await) }
                });
                // A client that goes away mid-request ends its connection only.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
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
    token: Token,
    log: Box<dyn Fn(String) + Send + Sync>,
    mcp: StreamableHttpService<Server, NeverSessionManager>,
}

type Body = BoxBody<Bytes, Infallible>;

impl Gate {
    async fn respond(&self, req: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
        // The token comes first, for every path and method: a client without it learns
        // nothing, not even which paths exist.
        let refused = match self.token.check(req.headers()) {
            Admission::Admitted => None,
            Admission::NoToken => Some(("no bearer token", r#"Bearer realm="cite""#)),
            Admission::WrongToken => Some((
                "wrong bearer token",
                r#"Bearer realm="cite", error="invalid_token""#,
            )),
        };
        if let Some((why, challenge)) = refused {
            (self.log)(format!(
                "cite mcp: refused {} {} from {peer}: {why}",
                req.method(),
                req.uri().path()
            ));
            let mut response = plain(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send Authorization: Bearer TOKEN\n",
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
            return response;
        }
        if req.uri().path() != PATH {
            return plain(
                StatusCode::NOT_FOUND,
                "Not Found: the MCP endpoint is /mcp\n",
            );
        }
        self.mcp.handle(req).await
    }
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

    fn headers(authorization: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(authorization).unwrap(),
        );
        h
    }

    const SECRET: &str = "0123456789abcdef0123";

    #[test]
    fn the_token_is_checked_whole_and_the_scheme_in_any_case() {
        let token = Token::new(SECRET).unwrap();
        let admitted = |a: &str| matches!(token.check(&headers(a)), Admission::Admitted);
        assert!(admitted(&format!("Bearer {SECRET}")));
        assert!(admitted(&format!("bearer {SECRET}")));
        assert!(admitted(&format!("BEARER  {SECRET} ")));
        assert!(!admitted(&format!("Bearer {SECRET}x")));
        assert!(!admitted(&format!("Bearer {}", &SECRET[1..])));
        assert!(!admitted(&format!("Basic {SECRET}")));
        assert!(!admitted(SECRET));
        assert!(!admitted("Bearer"));
        assert!(matches!(token.check(&HeaderMap::new()), Admission::NoToken));
        assert!(matches!(
            token.check(&headers("Bearer wrong-token-0000000000")),
            Admission::WrongToken
        ));
    }

    #[test]
    fn weak_tokens_are_refused() {
        assert_eq!(Token::new("").err().unwrap(), "the bearer token is empty");
        assert!(
            Token::new("short")
                .err()
                .unwrap()
                .contains("too short (5 characters)")
        );
        assert!(
            Token::new("0123456789 abcdef")
                .err()
                .unwrap()
                .contains("without spaces")
        );
        assert!(
            Token::new("0123456789abcdé0")
                .err()
                .unwrap()
                .contains("visible ASCII")
        );
        assert!(Token::new(&"x".repeat(MIN_TOKEN_LEN)).is_ok());
    }

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
