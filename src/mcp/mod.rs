//! `cite mcp`: the ledger as a Model Context Protocol server, for agents that call tools
//! instead of shelling out.
//!
//! Eleven tools — `add`, `ingest`, `quote`, `retract`, `retitle`, `list`, `show`,
//! `reset`, `render`, `verify`, `export` — each calling the same library functions as its CLI command (see
//! [`tools`]), with the advice in their findings worded as tool calls, not shell commands.
//! Ids come as numbers or digit strings (`lenient`), as models send them. A tool
//! answers with the lines the command prints as text content and the same data as
//! structured content (always a JSON object, matching the tool's `outputSchema`). Every
//! schema is made strict once, at start-up ([`schema`]), and every line the client
//! sends gets an answer, a JSON-RPC error when it is not a request ([`transport`]). Input the CLI refuses (not a URL, an unknown id, a quote not
//! on the page, a missing file) is a tool result with `isError: true` and the CLI's
//! message; a failed verification is a normal result (`isError: false`) whose last line
//! is `verification failed` and whose report has a non-zero `exit_code`.
//!
//! Sharing: the server keeps the store open between calls, holding no lock while idle,
//! and commits adds that arrive together in one durable transaction
//! ([`Ledger::keep_open`]); every write takes the sidecar writer lock for its own turn, so
//! CLI writers, other servers and maintenance get in between calls, and a server killed
//! mid-call leaves the ledger as consistent as a killed CLI command does. Each call runs
//! on tokio's blocking pool with a fresh [`Context`]: the time, this pid, `$CITE_ACTOR`,
//! and the command `cite mcp TOOL`.
//!
//! This module is async (rmcp runs on tokio); the caller supplies the runtime. The rest
//! of the crate is synchronous.
//!
//! Two transports serve the one [`Server`] and its tool router: stdin/stdout
//! ([`Server::serve_stdio`]) and Streamable HTTP ([`http`], `cite mcp --http`).

pub mod files;
pub mod http;
mod lenient;
pub mod schema;
mod slots;
pub mod token;
pub mod tools;
pub mod transport;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

use std::sync::Arc;

use serde_json::Value;

use cite_ledger::app::{self, Failure};
use cite_ledger::{Context, Ledger};

use files::Files;
use tools::{
    AddParams, ExportParams, IngestParams, ListParams, Outcome, QuoteParams, RenderParams,
    ReportParams, ResetParams, RetitleParams, RetractParams, ShowParams, VerifyParams,
};

/// What the server tells the client about itself at initialization.
const INSTRUCTIONS: &str = "\
cite is a citation ledger. Register every source you fetch with `add` (or `ingest` for a \
search tool's JSON output) and cite it in prose by the id it returns, as [ID] — never type \
a URL or invent an id. Back claims with `quote` (verbatim text checked against the page \
text). Before delivering a draft, give its file to `render` as `replace_in` (the Sources \
block is written into it, listing the ids it cites; for a draft you hold as text, pass it \
as `draft` and append the block), then run `verify` and fix every FAIL line until it ends \
with `citations OK`. Write each citation right after the sentence's punctuation \
(`…water.[1]`), never glued to a word. Use `export` for a bibliography file (csl-json, \
biblatex, ris). Use `list` with `query` to find an earlier source's id, and `show` for \
its quotes and history. Ids never change or get reused.";

const ADD: &str = "\
Register source URLs in the citation ledger and get their ids. Call it as soon as you \
fetch or find a source, then cite it in prose as [ID]. Re-adding a URL returns its \
existing id. Accepts http(s) URLs, doi:10.… and arXiv:ID. Returns one `[ID] URL` line per \
input URL (duplicates included); structured: {sources: [{id, url, title, accessed, …}]}. \
A value that is not a URL is refused (isError) and nothing is registered.";

const INGEST: &str = "\
Register every URL found in JSON tool output (e.g. a web search result) in one step. Pass \
the raw JSON text, or the JSON object itself, as `json`: in each object the URL is the first of url/link/source_url \
that starts with http(s)://, the title the first of title/name. Returns `[ID] URL` per \
URL found (first occurrence wins); structured: {sources, skipped}. Invalid JSON, or JSON \
with no URLs, is refused (isError).";

const QUOTE: &str = "\
Attach a verbatim quote to source [id], checked against the fetched page text: pass the \
page text as `evidence`, or a file holding it as `from`, or neither to use the page text \
stored for the source (`add` with snapshot, or the page an earlier quote was checked \
against). Copy the exact wording (at least 3 words); whitespace, case and markdown do not \
matter, and a note marker may be typed as it shows ([1] for the page's [^1]). Words left \
out are marked with an ellipsis (…, ..., [...]): each part (2 words or more) must be on \
the page, in order, within one passage (1000 characters left out at most), and is stored \
as the page's words joined by …. A paraphrase is refused (isError, naming the part that \
is not on the page), as is an unknown id. Returns `[ID] evidence attached (N quote(s))`.";

const LIST: &str = "\
List the sources in the ledger, in id order, a page at a time (50 unless `limit` says \
otherwise): `[ID] URL  TITLE  (N quotes)` per source, then a `page:` line saying how many \
match and the exact call for the next page. Use it to find the id of a source registered \
earlier: `query` keeps sources whose URL or title contains the text (any case), `via` \
those from one route. structured: {ledger, sources, matched, next_cursor, next_call}; \
pass next_cursor as `cursor` to continue (sources added meanwhile come at the end, none \
is repeated or skipped).";

const SHOW: &str = "\
Show one source: its URL, title, access date, route, every quote with where it sits on \
the page, its history (each change, when, by which process and command), and the page \
texts stored for it (those quotes and `verify` with support are checked against), each \
headed by its hash and what stored it, 20000 characters at a time: when one goes on, the \
answer ends with how many characters are left and the call for the next part (pass its \
`offset`, and `snapshot` to pick one page text; `limit` up to 100000). `text`: false \
leaves the texts out. structured: the source with `quotes`, `page_texts` (snapshot, \
stored_at, quotes, chars, offset, text, next_offset) and `history`. An unknown id is \
refused (isError).";

const RESET: &str = "\
Start a fresh numbering: a new epoch whose ids start again at 1, for a new report. \
Nothing is deleted: earlier epochs stay readable by passing `epoch` to list, show, render \
and verify. Returns `ledger reset: PATH`; structured: {ledger, epoch}.";

const RENDER: &str = "\
Render the Sources block to put at the end of a draft. For a draft in a file, pass its \
path as `replace_in`: the block is written into the file in place of its old Sources \
block (or appended), listing the ids the draft cites, so you never paste a block by \
hand; running it again changes nothing. Otherwise pass the draft text as `draft` (or a \
path as `cited_in`) so the block lists only the ids the draft cites; `only` selects ids \
like \"1,3,5-7\" (or [1, 3]). Styles: markdown (default), plain, footnotes, bibtex, \
evidence (each source with its quotes). Returns the block (or `Sources block rewritten \
in PATH`); structured: {style, ids, block, rewritten}. An id the draft cites or `only` \
names that the ledger lacks is refused (isError, naming it: remove it or register the \
page with `add`), as is nothing selected (no sources to render) and a draft whose block \
cannot be placed (the file is left as it was).";

const REPORT: &str = "\
A self-contained HTML page for the person who checks a draft (an editor, a reviewer, the \
user): the draft as a reader sees it, every sentence marked by what `verify` finds for it \
(cited, figures found on its pages, [tool:…], [policy], [unverified], no provenance, \
failing), every [N] a link to its source's card with a preview, and a card per cited \
source (title, link, access date, route, who registered it and when, its quotes in their \
page's words, the page text's hash). It loads nothing from the network. Pass the draft \
text as `draft`, or a file path as `path`; `support` (default true) checks figures \
against the pages as `verify` does. Returns the HTML document as text (save it as \
report.html and open it); structured: {mime_type, bytes, passed, stats, failures, \
warnings}. A failing draft is a normal result: the page shows why.";

const VERIFY: &str = "\
Check a draft's citations against the ledger before delivering it: every [N] must be a \
registered id, the Sources block at the end must list each cited id with the ledger's \
URL, no other line may show an id with a URL the ledger does not give it, and \
optionally sentences must declare provenance (min_coverage) and cited sources carry \
quotes (evidence). With `support`, every figure, date and quoted phrase of a cited \
sentence must be on a page it cites (its stored page text or quotes), each one missing \
failing with what the page says instead. A citation glued to a word (`carmakers[7].`) counts, with a warning \
to write `carmakers.[7]`. Malformed markers and URLs not in the ledger are warnings; \
`strict` fails on every warning about the draft; registered sources the draft does not \
cite are information. Pass the \
draft text as `draft`, or a file path as `path`. Returns the report lines \
(info/warn/FAIL, with draft line numbers, each FAIL saying what to run) ending with \
`citations OK` or `verification failed`; structured: the JSON report (exit_code 0 = \
passed). A failed verification is a normal result, not a tool error: fix each FAIL line \
and verify again.";

const EXPORT: &str = "\
Export sources for other tools: csl-json (pandoc --citeproc, Zotero), biblatex, ris \
(Zotero, EndNote, Mendeley), hermes-json (a sources.py ledger), or jsonl (the whole \
hash-chained log). Pass the draft text as `cited_in` (or its file as `cited_in_file`) to \
export only the sources it cites, and/or `only` (\"1,3,5-7\"). Keys are source<N>, so \
[@source3] cites ledger id 3 in pandoc. Returns the exported text; structured: {format, \
count, ids, text}. An id the ledger lacks is refused (isError), naming it; so is a draft \
that cites no source.";

const RETRACT: &str = "\
Retract a quote attached to source [id] — one that does not support the claim, or was \
attached to the wrong source. `quote` is its number as `show` lists the quotes; `reason` \
says why. Nothing is deleted: the quote stays in the log and in `show`, marked retracted, \
and no longer counts for verify's evidence check, the evidence style or the exports. \
Returns `[ID] quote N retracted (\"TEXT\"); K quote(s) still count`.";

const RETITLE: &str = "\
Correct the title of source [id] (a title given again with `add` only fills an empty one). \
The log keeps the old title beside the correction; render, the evidence style and the \
exports use the new one. Returns `[ID] retitled \"NEW\" (was \"OLD\")`.";

/// The MCP server for one ledger.
#[derive(Clone)]
pub struct Server {
    ledger: Ledger,
    /// Which files a tool call may name: any on stdio, as `--files` says on HTTP.
    files: Files,
    tool_router: ToolRouter<Server>,
}

impl Server {
    /// A server for `ledger` (its path and how long writers wait for the lock).
    pub fn new(ledger: Ledger) -> Server {
        let mut tool_router = Server::tool_router();
        for route in tool_router.map.values_mut() {
            let input = Value::Object(route.attr.input_schema.as_ref().clone());
            if let Value::Object(strict) = schema::strict(input, schema::Side::Input) {
                route.attr.input_schema = Arc::new(strict);
            }
            route.attr.output_schema = tools::output_schema(&route.attr.name);
            debug_assert!(
                route.attr.output_schema.is_some(),
                "tool {} declares no output schema",
                route.attr.name
            );
        }
        Server {
            ledger,
            files: Files::Any,
            tool_router,
        }
    }

    /// The same server, letting tool calls name only the files `files` allows.
    pub fn with_files(self, files: Files) -> Server {
        Server { files, ..self }
    }

    /// The tools as `tools/list` gives them, schemas and all.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// Serves MCP over stdin/stdout until the client closes the connection. Stdout
    /// carries only protocol messages.
    pub async fn serve_stdio(self) -> Result<(), String> {
        let running = self
            .serve(transport::Lines::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
            .map_err(|e| format!("MCP initialization failed: {e}"))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("MCP server stopped: {e}"))
    }

    /// Runs one tool on tokio's blocking pool (ledger operations are synchronous and may
    /// wait for the lock) with a fresh context, and turns its outcome into a result.
    async fn call<F>(&self, tool: &'static str, f: F) -> CallToolResult
    where
        F: FnOnce(&Ledger, &Context) -> Outcome + Send + 'static,
    {
        let ledger = self.ledger.clone();
        let joined = tokio::task::spawn_blocking(move || {
            // Who is acting: now, this process, `$CITE_ACTOR`, `cite mcp TOOL`.
            let ctx = app::context(["cite", "mcp", tool]);
            f(&ledger, &ctx)
        })
        .await;
        let outcome = match joined {
            Ok(outcome) => outcome,
            Err(e) => Err(match e.try_into_panic() {
                Ok(payload) => Failure::panicked(self.ledger.location().file(), payload.as_ref()),
                Err(e) => Failure::internal(format!("{tool} did not finish: {e}")),
            }),
        };
        match outcome {
            Ok(done) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(done.text)]);
                result.structured_content = Some(done.structured);
                result
            }
            // The failure as the CLI prints it, hints included. (No structured content:
            // an error result need not fit the tool's outputSchema, and clients check
            // any structured content they get against it.)
            Err(failure) => CallToolResult::error(vec![ContentBlock::text(failure.to_string())]),
        }
    }
}

#[tool_router]
impl Server {
    #[tool(
        name = "add",
        description = ADD,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn add(&self, Parameters(p): Parameters<AddParams>) -> CallToolResult {
        self.call("add", move |l, c| tools::add(l, c, p)).await
    }

    #[tool(
        name = "ingest",
        description = INGEST,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn ingest(&self, Parameters(p): Parameters<IngestParams>) -> CallToolResult {
        self.call("ingest", move |l, c| tools::ingest(l, c, p))
            .await
    }

    #[tool(
        name = "quote",
        description = QUOTE,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn quote(&self, Parameters(p): Parameters<QuoteParams>) -> CallToolResult {
        let files = self.files.clone();
        self.call("quote", move |l, c| tools::quote(l, c, &files, p))
            .await
    }

    #[tool(
        name = "list",
        description = LIST,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list(&self, Parameters(p): Parameters<ListParams>) -> CallToolResult {
        self.call("list", move |l, _| tools::list(l, p)).await
    }

    #[tool(
        name = "show",
        description = SHOW,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn show(&self, Parameters(p): Parameters<ShowParams>) -> CallToolResult {
        self.call("show", move |l, _| tools::show(l, p)).await
    }

    #[tool(
        name = "reset",
        description = RESET,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn reset(&self, Parameters(p): Parameters<ResetParams>) -> CallToolResult {
        self.call("reset", move |l, c| tools::reset(l, c, p)).await
    }

    #[tool(
        name = "render",
        description = RENDER,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn render(&self, Parameters(p): Parameters<RenderParams>) -> CallToolResult {
        let files = self.files.clone();
        self.call("render", move |l, _| tools::render(l, &files, p))
            .await
    }

    #[tool(
        name = "verify",
        description = VERIFY,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn verify(&self, Parameters(p): Parameters<VerifyParams>) -> CallToolResult {
        let files = self.files.clone();
        self.call("verify", move |l, _| tools::verify(l, &files, p))
            .await
    }

    #[tool(
        name = "report",
        description = REPORT,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn report(&self, Parameters(p): Parameters<ReportParams>) -> CallToolResult {
        let files = self.files.clone();
        self.call("report", move |l, c| tools::report(l, c, &files, p))
            .await
    }

    #[tool(
        name = "export",
        description = EXPORT,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn export(&self, Parameters(p): Parameters<ExportParams>) -> CallToolResult {
        let files = self.files.clone();
        self.call("export", move |l, _| tools::export(l, &files, p))
            .await
    }

    #[tool(
        name = "retract",
        description = RETRACT,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn retract(&self, Parameters(p): Parameters<RetractParams>) -> CallToolResult {
        self.call("retract", move |l, c| tools::retract(l, c, p))
            .await
    }

    #[tool(
        name = "retitle",
        description = RETITLE,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn retitle(&self, Parameters(p): Parameters<RetitleParams>) -> CallToolResult {
        self.call("retitle", move |l, c| tools::retitle(l, c, p))
            .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("cite", env!("CARGO_PKG_VERSION"))
                    .with_title("cite citation ledger"),
            )
            .with_instructions(INSTRUCTIONS)
    }
}
