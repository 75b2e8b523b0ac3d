//! `cite mcp`: serve the ledger to MCP clients over stdin/stdout, or over Streamable HTTP
//! with `--http`.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cite_ledger::confined::Folder;

use crate::mcp::Server;
use crate::mcp::files::Files;
use crate::mcp::http::{HttpOptions, PATH};
use crate::mcp::token::{Token, TokenFile, Tokens};

use super::{CliError, Env};

/// The variable holding the bearer token when `--token-file` is not given.
const TOKEN_VAR: &str = "CITE_MCP_TOKEN";

/// Shown under `cite mcp --help`: the server is started by an agent, never by hand, so
/// the help says how to tell the agent about it.
pub const AFTER_HELP: &str = "\
Tools: add, ingest, quote, retract, retitle, list, show, reset, render, verify, export. Over
stdio, stdout carries only protocol messages; with --http [HOST:]PORT the same tools are
served over Streamable HTTP (bearer token from --token-file or $CITE_MCP_TOKEN).

Register it with Claude Code:
  claude mcp add cite -- cite mcp
  claude mcp add cite -e CITE_LEDGER=\"$PWD/ledger.redb\" -- cite mcp
or in a project's .mcp.json:
  {\"mcpServers\": {\"cite\": {\"command\": \"cite\", \"args\": [\"mcp\", \"--ledger\", \"ledger.redb\"]}}}
Over HTTP (cite mcp --http 8765, token in $CITE_MCP_TOKEN):
  claude mcp add --transport http cite http://127.0.0.1:8765/mcp --header \"Authorization: Bearer $CITE_MCP_TOKEN\"
Hermes (~/.hermes/config.yaml):
  mcp_servers:
    cite:
      command: cite
      args: [\"mcp\", \"--ledger\", \"/home/me/research/ledger.redb\"]";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Serve over MCP's Streamable HTTP transport at http://[HOST:]PORT/mcp instead of
    /// stdin/stdout. HOST is an IP address or localhost, 127.0.0.1 when left out; port 0
    /// picks a free port. Needs a bearer token (--token-file or $CITE_MCP_TOKEN)
    #[arg(long, value_name = "[HOST:]PORT", value_parser = parse_listen)]
    http: Option<SocketAddr>,

    /// File holding the bearer token HTTP clients must send (default: $CITE_MCP_TOKEN):
    /// yours, neither readable nor writable by group or others; read again when replaced
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,

    /// Let HTTP clients name files inside DIR (and nowhere else) in tool arguments
    /// (quote's from, verify's path, render's cited_in and replace_in, export's
    /// cited_in_file); relative paths start in DIR. Without it, HTTP clients name no files
    #[arg(long, value_name = "DIR", requires = "http")]
    files: Option<PathBuf>,

    /// A browser origin allowed to call the HTTP server, as scheme://host[:port]
    /// (repeatable); requests from other browser origins are refused (403)
    #[arg(long, value_name = "ORIGIN", requires = "http", value_parser = parse_origin)]
    allow_origin: Vec<String>,
}

/// `[HOST:]PORT`, HOST an IP address (IPv6 in brackets) or `localhost`.
fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    if let Some(port) = s.strip_prefix("localhost:") {
        let port = port.parse::<u16>().map_err(|_| bad_listen(s))?;
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    s.parse::<SocketAddr>().map_err(|_| bad_listen(s))
}

fn bad_listen(s: &str) -> String {
    format!(
        "{s:?} is not [HOST:]PORT with HOST an IP address or localhost (e.g. 8377, 127.0.0.1:8377, [::1]:8377, 0.0.0.0:8377)"
    )
}

/// An origin as rmcp matches it: `scheme://host:port`, the port written out (rmcp reads
/// an origin without one as "any port").
fn parse_origin(s: &str) -> Result<String, String> {
    let bad =
        || format!("{s:?} is not an origin: give scheme://host[:port], e.g. https://app.example");
    let url = url::Url::parse(s).map_err(|_| bad())?;
    let plain = url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    match (url.host(), url.port_or_known_default()) {
        (Some(host), Some(port)) if plain && matches!(url.scheme(), "http" | "https") => {
            Ok(format!("{}://{host}:{port}", url.scheme()))
        }
        _ => Err(bad()),
    }
}

/// Runs the server on a current-thread tokio runtime: on stdio until the client
/// disconnects, on HTTP until the process is stopped.
pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    // Checked before the runtime starts and before the port is taken: a mistake in the
    // command line is reported as one (exit 2) with nothing listening.
    let http = match args.http {
        Some(addr) => Some((
            addr,
            tokens(args.token_file.as_deref())?,
            files(args.files.as_deref())?,
        )),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the MCP server: {e}")))?;
    // Kept open between calls, with group commit (ledger::kept).
    let ledger = env.ledger.keep_open();
    let server = Server::new(ledger.clone());
    let served = match http {
        None => runtime.block_on(server.serve_stdio()),
        Some((addr, tokens, files)) => {
            let listener = listen(addr)?;
            let server = server.with_files(files);
            let options = HttpOptions {
                tokens,
                allowed_origins: args.allow_origin.clone(),
                log: Box::new(|line| eprintln!("{line}")),
            };
            // Inside the runtime: tokio adopts the listener into its reactor.
            runtime.block_on(server.serve_http(listener, options))
        }
    };
    // A read of stdin still pending on the blocking pool must not hold the exit.
    runtime.shutdown_background();
    ledger.close_kept();
    served.map_err(CliError::failed)
}

/// Binds `addr` and says where the server is: on stderr, as stdout carries nothing in
/// HTTP mode either, and in one line a script can read (`listening on URL`), which
/// names the port actually bound when `addr` asked for port 0.
fn listen(addr: SocketAddr) -> Result<TcpListener, CliError> {
    let listener = TcpListener::bind(addr)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| CliError::failed(format!("cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| CliError::failed(format!("cannot listen on {addr}: {e}")))?;
    let mut err = std::io::stderr().lock();
    if !local.ip().is_loopback() {
        let _ = writeln!(
            err,
            "warning: cite mcp is listening on {local}, not a loopback address: whoever can reach it with the token can add to the ledger, and plain HTTP carries the token unencrypted (use TLS or an SSH tunnel across untrusted networks)"
        );
    }
    let _ = writeln!(err, "cite mcp: listening on http://{local}{PATH}");
    Ok(listener)
}

/// Which files HTTP clients may name: those inside `dir`, or none.
fn files(dir: Option<&Path>) -> Result<Files, CliError> {
    let Some(dir) = dir else {
        return Ok(Files::None);
    };
    Folder::open(dir)
        .map(|folder| Files::Inside(Arc::new(folder)))
        .map_err(|why| {
            CliError::usage(format!("--files {why}"))
                .hint("give the folder whose files HTTP clients may name")
        })
}

/// The bearer token: the one `file` holds (read again when it is replaced), else
/// `$CITE_MCP_TOKEN`. Serving without one is refused.
fn tokens(file: Option<&Path>) -> Result<Tokens, CliError> {
    if let Some(path) = file {
        return TokenFile::open(path)
            .map(Tokens::File)
            .map_err(CliError::usage);
    }
    match std::env::var(TOKEN_VAR) {
        Ok(s) if !s.is_empty() => Token::from_text(&s, &format!("in ${TOKEN_VAR}"))
            .map(Tokens::Fixed)
            .map_err(CliError::usage),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(CliError::usage(format!("${TOKEN_VAR} is not valid UTF-8")))
        }
        _ => Err(CliError::usage(format!(
            "cite mcp --http needs a bearer token for its clients: pass --token-file FILE or set {TOKEN_VAR} (e.g. to the output of `openssl rand -hex 32`)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_default_to_loopback() {
        assert_eq!(parse_listen("8377").unwrap().to_string(), "127.0.0.1:8377");
        assert_eq!(
            parse_listen("localhost:0").unwrap().to_string(),
            "127.0.0.1:0"
        );
        assert_eq!(parse_listen("[::1]:80").unwrap().to_string(), "[::1]:80");
        assert_eq!(
            parse_listen("0.0.0.0:8377").unwrap().to_string(),
            "0.0.0.0:8377"
        );
        assert!(parse_listen("example.com:80").is_err());
        assert!(parse_listen("127.0.0.1").is_err());
        assert!(parse_listen("70000").is_err());
    }

    #[test]
    fn origins_are_written_with_their_port() {
        assert_eq!(
            parse_origin("https://app.example").unwrap(),
            "https://app.example:443"
        );
        assert_eq!(
            parse_origin("http://LOCALHOST:3000").unwrap(),
            "http://localhost:3000"
        );
        assert_eq!(
            parse_origin("http://[::1]:3000").unwrap(),
            "http://[::1]:3000"
        );
        for bad in [
            "app.example",
            "https://app.example/x",
            "ftp://app.example",
            "https://u@app.example",
            "null",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }
}
