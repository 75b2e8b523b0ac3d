//! Issue 19: `ingest` knows what the tools agents use answer. Each response of
//! tests/fixtures/tools/ (written from the shape its API documents; the README there
//! names the page) is ingested through the CLI: the ids and titles it registers, the page
//! text it keeps (`quote ID --text …` needs no `--from`), and the snippets it does not
//! (the same quote is refused for want of page text). A few go through `cite mcp` and
//! `cite hook claude-code` too.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::mcp::Server;
use crate::util::Sandbox;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tools")
        .join(name)
}

fn read_fixture(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("fixture")
}

/// `cite ingest FIXTURE`: its stdout, after checking that it succeeded.
fn ingest(sb: &Sandbox, name: &str) -> String {
    let out = sb.run(&["ingest", fixture(name).to_str().unwrap()]);
    assert_eq!(out.code, 0, "{name}: {out:?}");
    out.stdout
}

/// The ledger as `(id, url, title, has page text)`, from `list --json`.
fn sources(sb: &Sandbox) -> Vec<(u64, String, String, bool)> {
    let list: Vec<Value> = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    list.iter()
        .map(|s| {
            (
                s["id"].as_u64().unwrap(),
                s["url"].as_str().unwrap().to_string(),
                s["title"].as_str().unwrap().to_string(),
                s["page_text"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

/// `(id, url, title)` of every source, in id order.
fn registered(sb: &Sandbox) -> Vec<(u64, String, String)> {
    sources(sb)
        .into_iter()
        .map(|(id, url, title, _)| (id, url, title))
        .collect()
}

fn src(id: u64, url: &str, title: &str) -> (u64, String, String) {
    (id, url.to_string(), title.to_string())
}

/// The ids whose page text is stored.
fn with_page_text(sb: &Sandbox) -> Vec<u64> {
    sources(sb)
        .into_iter()
        .filter(|s| s.3)
        .map(|s| s.0)
        .collect()
}

/// `cite quote ID --text TEXT`, without `--from`, is checked against the stored page.
fn quotes_from_page(sb: &Sandbox, id: u64, quote: &str) {
    let out = sb.run(&["quote", &id.to_string(), "--text", quote]);
    assert_eq!(
        (
            out.code,
            out.stdout.starts_with(&format!("[{id}] evidence attached"))
        ),
        (0, true),
        "[{id}] {quote:?}: {out:?}"
    );
}

/// `cite quote ID --text TEXT` without `--from` is refused: no page text is stored.
fn has_no_page_text(sb: &Sandbox, id: u64, quote: &str) {
    let out = sb.run(&["quote", &id.to_string(), "--text", quote]);
    assert_eq!(out.code, 1, "[{id}] {quote:?}: {out:?}");
    assert!(
        out.stderr
            .starts_with(&format!("error: no evidence text for [{id}] — ")),
        "[{id}]: {}",
        out.stderr
    );
}

/// `cite quote ID --text TEXT` is refused because the stored page text lacks it: what
/// was stored is the page, not the snippet beside it.
fn not_on_stored_page(sb: &Sandbox, id: u64, quote: &str) {
    let out = sb.run(&["quote", &id.to_string(), "--text", quote]);
    assert_eq!(out.code, 1, "[{id}] {quote:?}: {out:?}");
    assert!(
        out.stderr
            .starts_with("error: quote not found verbatim in the evidence text"),
        "[{id}]: {}",
        out.stderr
    );
}

const PHYSICS: &str = "https://physics.example.org/water/density-anomaly";
const LAKES: &str = "https://limnology.example.edu/lake-ice";
const ICE_IH: &str = "https://encyclopedia.example/wiki/Ice_Ih";
const JOURNAL: &str = "https://journal.example.com/articles/ice-ih";
const NEWS: &str = "https://news.example.net/2024/lake-ice-study";
const PHYSICS_TITLE: &str = "The density anomaly of water";
const LAKES_TITLE: &str = "Why lakes freeze from the top down";

// ---- Tavily ------------------------------------------------------------------------------

#[test]
fn tavily_search_registers_results_not_images_and_keeps_no_snippet() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "tavily-search.json"),
        format!("[1] {PHYSICS}\n[2] {LAKES}\n")
    );
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    assert!(with_page_text(&sb).is_empty());
    has_no_page_text(&sb, 1, "Water is densest at about 4 °C");
}

#[test]
fn tavily_search_with_raw_content_keeps_the_page_not_the_snippet() {
    let sb = Sandbox::new();
    ingest(&sb, "tavily-search-raw.json");
    // An image with a description is an object with a url, which sources.py registers.
    assert_eq!(
        registered(&sb),
        [
            src(1, "https://images.example.com/ice-lattice.png", ""),
            src(2, PHYSICS, PHYSICS_TITLE),
            src(3, LAKES, LAKES_TITLE)
        ]
    );
    assert_eq!(with_page_text(&sb), [2]);
    quotes_from_page(
        &sb,
        2,
        "Ice is about nine percent less dense than liquid water",
    );
    not_on_stored_page(&sb, 2, "which is why lakes do not freeze solid");
    has_no_page_text(&sb, 3, "the coldest water rises to the surface");
}

#[test]
fn tavily_extract_keeps_raw_content_and_registers_failed_urls_without_it() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "tavily-extract.json"),
        format!("[1] {ICE_IH}\n[2] https://paywalled.example.com/ice-study\n")
    );
    assert_eq!(with_page_text(&sb), [1]);
    quotes_from_page(&sb, 1, "hydrogen-bonded to four neighbours");
    has_no_page_text(&sb, 2, "anything at all here");
}

// ---- Exa --------------------------------------------------------------------------------

#[test]
fn exa_search_keeps_text_not_highlights_or_summary() {
    let sb = Sandbox::new();
    ingest(&sb, "exa-search.json");
    assert_eq!(
        registered(&sb),
        [
            src(1, JOURNAL, "The structure of ice Ih"),
            src(2, NEWS, "Lakes are freezing later every decade")
        ]
    );
    quotes_from_page(&sb, 1, "donates two hydrogen bonds and accepts two");
    not_on_stored_page(&sb, 1, "A review of the crystal structure of ordinary ice");
    has_no_page_text(&sb, 2, "moved later by about a week");
}

#[test]
fn exa_contents_keeps_text_and_ignores_statuses() {
    let sb = Sandbox::new();
    assert_eq!(ingest(&sb, "exa-contents.json"), format!("[1] {LAKES}\n"));
    assert_eq!(registered(&sb), [src(1, LAKES, LAKES_TITLE)]);
    quotes_from_page(&sb, 1, "the densest water sinks");
}

// ---- Firecrawl ----------------------------------------------------------------------------

#[test]
fn firecrawl_scrape_v1_finds_the_source_url_in_metadata_and_keeps_the_markdown() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "firecrawl-scrape-v1.json"),
        format!("[1] {PHYSICS}\n")
    );
    assert_eq!(registered(&sb), [src(1, PHYSICS, PHYSICS_TITLE)]);
    quotes_from_page(&sb, 1, "nine percent less dense than liquid water");
}

#[test]
fn firecrawl_scrape_v2_keeps_the_markdown_and_not_the_links_on_the_page() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "firecrawl-scrape-v2.json"),
        format!("[1] {ICE_IH}\n")
    );
    assert_eq!(registered(&sb), [src(1, ICE_IH, "Ice Ih — Encyclopedia")]);
    quotes_from_page(&sb, 1, "open tetrahedral lattice");
}

#[test]
fn firecrawl_crawl_v1_keeps_pages_that_came_and_not_an_error_page() {
    let sb = Sandbox::new();
    ingest(&sb, "firecrawl-crawl-v1.json");
    assert_eq!(
        registered(&sb),
        [
            src(1, LAKES, LAKES_TITLE),
            src(2, "https://limnology.example.edu/old-page", "Not Found")
        ]
    );
    quotes_from_page(&sb, 1, "water is densest near 4 °C");
    has_no_page_text(&sb, 2, "The page you asked for is not here");
}

#[test]
fn firecrawl_crawl_v2_keeps_each_page() {
    let sb = Sandbox::new();
    ingest(&sb, "firecrawl-crawl-v2.json");
    assert_eq!(
        registered(&sb),
        [src(
            1,
            "https://encyclopedia.example/wiki/Hydrogen_bond_ice",
            "Hydrogen bonds in ice"
        )]
    );
    quotes_from_page(&sb, 1, "two as donor and two as acceptor");
}

#[test]
fn firecrawl_search_v1_keeps_scraped_markdown_and_never_the_description() {
    let sb = Sandbox::new();
    ingest(&sb, "firecrawl-search-v1.json");
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    quotes_from_page(&sb, 1, "nine percent less dense than liquid water");
    not_on_stored_page(&sb, 1, "which is why lakes do not freeze solid");
    has_no_page_text(&sb, 2, "the coldest water rises to the surface");
}

#[test]
fn firecrawl_search_v2_keeps_markdown_where_a_result_was_scraped() {
    let sb = Sandbox::new();
    ingest(&sb, "firecrawl-search-v2.json");
    assert_eq!(
        registered(&sb),
        [
            src(1, PHYSICS, PHYSICS_TITLE),
            src(2, ICE_IH, "Ice Ih — Encyclopedia"),
            src(3, NEWS, "Lakes are freezing later every decade")
        ]
    );
    assert_eq!(with_page_text(&sb), [2]);
    quotes_from_page(&sb, 2, "open tetrahedral lattice");
    has_no_page_text(&sb, 1, "which is why lakes do not freeze solid");
}

// ---- Jina ---------------------------------------------------------------------------------

#[test]
fn jina_reader_keeps_data_content() {
    let sb = Sandbox::new();
    assert_eq!(ingest(&sb, "jina-reader.json"), format!("[1] {LAKES}\n"));
    assert_eq!(registered(&sb), [src(1, LAKES, LAKES_TITLE)]);
    quotes_from_page(&sb, 1, "the densest water sinks");
    not_on_stored_page(&sb, 1, "Lake ice explained");
}

#[test]
fn jina_search_keeps_each_results_content_and_not_an_empty_one() {
    let sb = Sandbox::new();
    ingest(&sb, "jina-search.json");
    assert_eq!(
        registered(&sb),
        [
            src(1, JOURNAL, "The structure of ice Ih"),
            src(2, NEWS, "Lakes are freezing later every decade")
        ]
    );
    quotes_from_page(&sb, 1, "donates two hydrogen bonds and accepts two");
    has_no_page_text(&sb, 2, "moved later by about a week");
}

// ---- search engines -------------------------------------------------------------------------

#[test]
fn brave_web_results_are_registered_with_titles_and_no_page_text() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "brave-search.json"),
        format!("[1] {PHYSICS}\n[2] {LAKES}\n")
    );
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    has_no_page_text(&sb, 1, "nine percent less dense than liquid water");
}

#[test]
fn serpapi_organic_results_are_registered_by_link() {
    let sb = Sandbox::new();
    ingest(&sb, "serpapi-google.json");
    // Sitelinks and related searches are objects with a link, which sources.py
    // registers too; the endpoints and pagination are not under url keys.
    assert_eq!(
        registered(&sb),
        [
            src(1, PHYSICS, PHYSICS_TITLE),
            src(2, "https://physics.example.org/water/ice-ih", "Ice Ih"),
            src(3, LAKES, LAKES_TITLE),
            src(
                4,
                "https://www.google.com/search?q=why+does+ice+float+density",
                ""
            )
        ]
    );
    has_no_page_text(&sb, 1, "which is why lakes do not freeze solid");
}

#[test]
fn google_custom_search_items_are_registered_by_link() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "google-cse.json"),
        format!("[1] {PHYSICS}\n[2] {LAKES}\n")
    );
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    has_no_page_text(&sb, 2, "the coldest water rises to the surface");
}

#[test]
fn bing_web_pages_are_registered_with_their_names() {
    let sb = Sandbox::new();
    ingest(&sb, "bing-web.json");
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    has_no_page_text(&sb, 1, "which is why lakes do not freeze solid");
}

// ---- answer engines -------------------------------------------------------------------------

#[test]
fn perplexity_citations_are_registered_and_titled_by_search_results() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "perplexity.json"),
        format!("[1] {PHYSICS}\n[2] {LAKES}\n")
    );
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    has_no_page_text(&sb, 1, "which is why lakes do not freeze solid");
}

#[test]
fn openai_web_search_sources_and_url_citations_are_registered() {
    let sb = Sandbox::new();
    ingest(&sb, "openai-responses-web-search.json");
    // The citation's link carries `?utm_source=openai`: a tracking parameter, so it is
    // source 1's page, and its title fills source 1's empty one.
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, "")]
    );
    assert!(with_page_text(&sb).is_empty());
}

#[test]
fn anthropic_web_search_results_are_registered_and_cited_text_is_not_page_text() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "anthropic-web-search.json"),
        format!("[1] {PHYSICS}\n[2] {LAKES}\n")
    );
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    has_no_page_text(&sb, 1, "nine percent less dense than liquid water");
}

#[test]
fn anthropic_web_fetch_keeps_the_documents_text_and_title() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "anthropic-web-fetch.json"),
        format!("[1] {ICE_IH}\n[2] https://journal.example.com/articles/ice-ih.pdf\n")
    );
    // The fetch's input names each URL first, without a title: the result fills it.
    assert_eq!(
        registered(&sb),
        [
            src(1, ICE_IH, "Ice Ih — Encyclopedia"),
            src(2, "https://journal.example.com/articles/ice-ih.pdf", "")
        ]
    );
    quotes_from_page(&sb, 1, "open tetrahedral lattice");
    // A PDF comes as base64: no text to check a quote against.
    has_no_page_text(&sb, 2, "donates two hydrogen bonds");
}

#[test]
fn gemini_grounding_chunks_are_registered_by_uri() {
    let sb = Sandbox::new();
    ingest(&sb, "gemini-grounding.json");
    assert_eq!(
        registered(&sb),
        [
            src(
                1,
                "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQE1aBcDeF",
                "physics.example.org"
            ),
            src(
                2,
                "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQHgHiJkLm",
                "limnology.example.edu"
            )
        ]
    );
    has_no_page_text(&sb, 1, "Ice floats because it is less dense");
}

// ---- the skill's tools and LangChain --------------------------------------------------------

#[test]
fn the_skills_web_search_keeps_no_description() {
    let sb = Sandbox::new();
    ingest(&sb, "hermes-web-search.json");
    assert_eq!(
        registered(&sb),
        [src(1, PHYSICS, PHYSICS_TITLE), src(2, LAKES, LAKES_TITLE)]
    );
    has_no_page_text(&sb, 1, "which is why lakes do not freeze solid");
}

#[test]
fn the_skills_web_extract_keeps_content_and_not_a_failed_page() {
    let sb = Sandbox::new();
    ingest(&sb, "hermes-web-extract.json");
    assert_eq!(
        registered(&sb),
        [
            src(1, PHYSICS, PHYSICS_TITLE),
            src(2, "https://paywalled.example.com/ice-study", "")
        ]
    );
    quotes_from_page(&sb, 1, "nine percent less dense than liquid water");
    has_no_page_text(&sb, 2, "Scrape failed: 403 Forbidden");
}

#[test]
fn langchain_documents_keep_page_content_for_a_web_source() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "langchain-documents.json"),
        format!("[1] {LAKES}\n")
    );
    assert_eq!(registered(&sb), [src(1, LAKES, LAKES_TITLE)]);
    quotes_from_page(&sb, 1, "the densest water sinks");

    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "langchain-serialized.json"),
        format!("[1] {JOURNAL}\n")
    );
    assert_eq!(
        registered(&sb),
        [src(1, JOURNAL, "The structure of ice Ih")]
    );
    quotes_from_page(&sb, 1, "donates two hydrogen bonds and accepts two");
}

#[test]
fn a_plain_list_of_urls_is_registered_in_order() {
    let sb = Sandbox::new();
    assert_eq!(
        ingest(&sb, "url-list.json"),
        format!("[1] {PHYSICS}\n[2] {LAKES}\n")
    );
}

// ---- page text, whatever the tool --------------------------------------------------------

#[test]
fn page_text_is_stored_for_a_url_registered_before() {
    let sb = Sandbox::new();
    sb.ok(&["add", PHYSICS, "--title", "Kept"]);
    has_no_page_text(&sb, 1, "nine percent less dense than liquid water");
    assert_eq!(
        ingest(&sb, "firecrawl-scrape-v1.json"),
        format!("[1] {PHYSICS}\n")
    );
    assert_eq!(registered(&sb), [src(1, PHYSICS, "Kept")]);
    quotes_from_page(&sb, 1, "nine percent less dense than liquid water");
    // The same page again stores nothing new.
    ingest(&sb, "firecrawl-scrape-v1.json");
    let log: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    let stored = log
        .iter()
        .filter(|e| e["event"]["kind"] == "snapshot_stored")
        .count();
    assert_eq!(stored, 1, "{log:?}");
}

#[test]
fn ingest_says_which_sources_kept_their_page_text() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "ingest",
        fixture("firecrawl-search-v2.json").to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        format!("[1] {PHYSICS}\n[2] {ICE_IH}\n[3] {NEWS}\n"),
        "stdout keeps sources.py's lines"
    );
    assert_eq!(
        out.stderr,
        "note: page text stored for [2]: `cite quote ID --text …` checks a quote against it without --from\n"
    );
    // --json says it per source.
    let sb = Sandbox::new();
    let json: Vec<Value> = serde_json::from_str(&sb.ok(&[
        "ingest",
        "--json",
        fixture("firecrawl-search-v2.json").to_str().unwrap(),
    ]))
    .unwrap();
    let flags: Vec<Option<bool>> = json.iter().map(|s| s["page_text"].as_bool()).collect();
    assert_eq!(flags, [None, Some(true), None]);
}

#[test]
fn show_says_whether_a_source_has_page_text() {
    let sb = Sandbox::new();
    ingest(&sb, "firecrawl-search-v2.json");
    let with = sb.ok(&["show", "2"]);
    assert!(
        with.lines()
            .any(|l| l == "  page text: 1 stored — read with `cite show 2 --text`"),
        "{with}"
    );
    let without = sb.ok(&["show", "1"]);
    assert!(
        without
            .lines()
            .any(|l| l == "  page text: none — a quote needs the page's text given with it"),
        "{without}"
    );
    let json: Value = serde_json::from_str(&sb.ok(&["show", "2", "--json"])).unwrap();
    assert_eq!(json["page_text"], true, "{json}");
    assert_eq!(
        json["snapshots"].as_array().map(Vec::len),
        Some(1),
        "{json}"
    );
}

#[test]
fn no_urls_names_what_was_looked_for_and_how_to_register_by_hand() {
    let sb = Sandbox::new();
    let f = sb.file("answer.json", r#"{"answer": "42", "results": []}"#);
    let out = sb.run(&["ingest", f.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stdout, "");
    let line = out.stderr.trim_end();
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(line.starts_with("no urls found in input — "), "{line}");
    for word in [
        "url",
        "link",
        "source_url",
        "sourceURL",
        "uri",
        "citations",
        "Tavily",
        "Firecrawl",
        "`cite add URL`",
    ] {
        assert!(line.contains(word), "{word}: {line}");
    }
}

// ---- through MCP and the hook ----------------------------------------------------------------

#[test]
fn mcp_ingest_keeps_page_text_and_says_so() {
    let sb = Sandbox::new();
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (out, data) = srv.ok(
        "ingest",
        json!({"json": read_fixture("tavily-extract.json")}),
    );
    assert_eq!(
        out,
        format!(
            "[1] {ICE_IH}\n[2] https://paywalled.example.com/ice-study\n\
             note: page text stored for [1]: `quote` with the id and text checks a quote against it, no evidence needed"
        )
    );
    assert_eq!(data["sources"][0]["page_text"], true, "{data}");
    assert!(data["sources"][1].get("page_text").is_none(), "{data}");
    let (out, _) = srv.ok(
        "quote",
        json!({"id": 1, "text": "hydrogen-bonded to four neighbours"}),
    );
    assert_eq!(out, "[1] evidence attached (1 quote(s))");
    // The object itself, as a client sends it, does the same.
    let value: Value = serde_json::from_str(&read_fixture("jina-reader.json")).unwrap();
    let (out, data) = srv.ok("ingest", json!({"json": value}));
    assert!(
        out.starts_with(&format!("[3] {LAKES}\nnote: page text stored for [3]")),
        "{out}"
    );
    assert_eq!(data["sources"][0]["page_text"], true);
    let msg = srv.refused("ingest", json!({"json": {"answer": "42"}}));
    assert!(msg.starts_with("no urls found in input — "), "{msg}");
    assert!(
        msg.ends_with("register a page by hand with the add tool"),
        "{msg}"
    );
    let (_, shown) = srv.ok("show", json!({"id": 1}));
    assert_eq!(shown["page_text"], true);
    let (_, listed) = srv.ok("list", json!({}));
    assert_eq!(listed["sources"][0]["page_text"], true);
    assert_eq!(srv.shutdown(), Some(0));
}

/// A Claude Code `PostToolUse` payload for the MCP tool `mcp__SERVER__TOOL` that answered
/// `response` as one JSON text block, as the Firecrawl, Tavily, Exa and Jina servers do.
fn mcp_payload(tool: &str, input: Value, response: &str) -> String {
    json!({
        "session_id": "0b6f6c1e-3f0e-4a52-9d55-2f1a7c4e8d21",
        "transcript_path": "/home/me/.claude/projects/x/0b6f6c1e.jsonl",
        "cwd": "/home/me/research",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_response": [{"type": "text", "text": response}],
        "tool_use_id": "toolu_01ExaQm7wZ3rV9a2XyJ5bN8"
    })
    .to_string()
}

/// `cite hook claude-code` with `payload`: the `additionalContext` it answered.
fn hook(sb: &Sandbox, payload: &str) -> String {
    let out = sb
        .cite()
        .args(["hook", "claude-code"])
        .write_stdin(payload.to_string())
        .output()
        .expect("run cite hook");
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let answer: Value = serde_json::from_str(&stdout).expect("one JSON answer");
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_hook_keeps_page_text_from_scrape_extract_and_read_tools() {
    let sb = Sandbox::new();
    // firecrawl-mcp answers a scrape with the SDK's document: the response's `data`.
    let scrape: Value = serde_json::from_str(&read_fixture("firecrawl-scrape-v2.json")).unwrap();
    let context = hook(
        &sb,
        &mcp_payload(
            "mcp__firecrawl__firecrawl_scrape",
            json!({"url": ICE_IH, "formats": ["markdown"]}),
            &serde_json::to_string_pretty(&scrape["data"]).unwrap(),
        ),
    );
    assert!(
        context.ends_with(&format!(
            "[1] {ICE_IH}  Ice Ih — Encyclopedia — cite it as [1]\n\
             Page text is stored for [1]: check a quote with `cite quote ID --text \"…\"`, no --from needed."
        )),
        "{context}"
    );
    quotes_from_page(&sb, 1, "open tetrahedral lattice");

    // An extract of the same page stores its text too; a quote is checked against the
    // latest.
    let context = hook(
        &sb,
        &mcp_payload(
            "mcp__tavily__tavily-extract",
            json!({"urls": [ICE_IH, "https://paywalled.example.com/ice-study"]}),
            &read_fixture("tavily-extract.json"),
        ),
    );
    assert!(
        context.contains("Page text is stored for [1]:"),
        "{context}"
    );
    quotes_from_page(
        &sb,
        1,
        "The open lattice is why ice is less dense than the liquid",
    );

    let context = hook(
        &sb,
        &mcp_payload(
            "mcp__jina__read_url",
            json!({"url": LAKES}),
            &read_fixture("jina-reader.json"),
        ),
    );
    assert!(context.contains(&format!("[3] {LAKES}")), "{context}");
    quotes_from_page(&sb, 3, "the densest water sinks");

    // A search's snippets are not page text.
    let context = hook(
        &sb,
        &mcp_payload(
            "mcp__tavily__tavily-search",
            json!({"query": "ice"}),
            &read_fixture("tavily-search.json"),
        ),
    );
    assert!(
        context.ends_with(&format!(
            "[4] {PHYSICS}  {PHYSICS_TITLE} — cite it as [4]\n\
             [3] {LAKES}  {LAKES_TITLE} — cite it as [3]\n\
             Page text is stored for [3]: check a quote with `cite quote ID --text \"…\"`, no --from needed."
        )),
        "the read's text, not the search's snippet: {context}"
    );
    has_no_page_text(&sb, 4, "Water is densest at about 4 °C");
}

#[test]
fn the_hook_stores_no_page_text_for_webfetch_and_says_how_to_get_it() {
    let sb = Sandbox::new();
    let payload = json!({
        "hook_event_name": "PostToolUse",
        "tool_name": "WebFetch",
        "cwd": "/home/me/research",
        "tool_input": {"url": PHYSICS, "prompt": "Why does ice float?"},
        "tool_response": {"bytes": 5120, "code": 200, "codeText": "OK",
            "result": "Ice is about nine percent less dense than liquid water, so it floats.",
            "durationMs": 812, "url": PHYSICS}
    });
    let context = hook(&sb, &payload.to_string());
    let last = context.lines().last().unwrap();
    assert!(
        last.starts_with("WebFetch answers with a summary written by a model, not the page: no page text was stored for [1]."),
        "{context}"
    );
    assert!(last.contains("--from"), "{last}");
    assert!(last.contains("--snapshot"), "{last}");
    has_no_page_text(&sb, 1, "nine percent less dense than liquid water");
    // Once its page text is stored, a WebFetch of it says so instead.
    ingest(&sb, "firecrawl-scrape-v1.json");
    let context = hook(&sb, &payload.to_string());
    assert!(
        context.ends_with(
            "Page text is stored for [1]: check a quote with `cite quote ID --text \"…\"`, no --from needed."
        ),
        "{context}"
    );
}

// ---- what the tools say about a page ----------------------------------------------------

/// What `list --json` says each source's tool output said about its page (`null` for
/// nothing), in id order.
fn metadata(sb: &Sandbox) -> Vec<Value> {
    let list: Vec<Value> = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    list.iter().map(|s| s["metadata"].clone()).collect()
}

#[test]
fn what_each_tool_says_about_a_page_is_kept() {
    let none = Value::Null;
    for (name, want) in [
        (
            "exa-search.json",
            vec![
                json!({"published": "2019-05-14", "authors": ["K. Ito"]}),
                none.clone(),
            ],
        ),
        (
            "exa-contents.json",
            vec![json!({"published": "2021-11-03", "authors": ["R. Wetzel"]})],
        ),
        (
            "jina-reader.json",
            vec![json!({"published": "2021-11-03", "language": "en"})],
        ),
        (
            "jina-search.json",
            vec![json!({"published": "2019-05-14"}), none.clone()],
        ),
        (
            "firecrawl-scrape-v1.json",
            vec![
                json!({"published": "2023-02-14", "site": "Physics Notes", "language": "en",
                        "authors": ["M. Okafor"]}),
            ],
        ),
        // The page that came back a 404 says nothing of the page asked for.
        (
            "firecrawl-crawl-v1.json",
            vec![json!({"language": "en"}), none.clone()],
        ),
        // A news result three days old: since when?
        (
            "firecrawl-search-v2.json",
            vec![none.clone(), none.clone(), none.clone()],
        ),
        (
            "brave-search.json",
            vec![
                json!({"published": "2023-02-14", "site": "Physics Notes", "language": "en"}),
                json!({"site": "Limnology", "language": "en"}),
            ],
        ),
        // The sitelink [2] is another page; the search endpoint [4] says nothing.
        (
            "serpapi-google.json",
            vec![
                json!({"site": "Physics Notes"}),
                none.clone(),
                json!({"published": "2021-11-03", "site": "Limnology"}),
                none.clone(),
            ],
        ),
        (
            "perplexity.json",
            vec![json!({"published": "2023-02-14"}), none.clone()],
        ),
        (
            "anthropic-web-search.json",
            vec![json!({"published": "2023-02-14"}), none.clone()],
        ),
        // When Bing last crawled a page is not when it was published.
        (
            "bing-web.json",
            vec![json!({"language": "en"}), json!({"language": "en"})],
        ),
        ("langchain-documents.json", vec![json!({"language": "en"})]),
        ("tavily-search.json", vec![none.clone(), none.clone()]),
    ] {
        let sb = Sandbox::new();
        ingest(&sb, name);
        assert_eq!(metadata(&sb), want, "{name}");
    }
}

#[test]
fn the_header_an_extractor_writes_on_the_page_says_what_the_fields_do_not() {
    let sb = Sandbox::new();
    let output = json!({"results": [
        {"url": "https://a.example/front", "raw_content":
            "---\ntitle: Lake ice\ndate: 2021-11-03\nauthor:\n  - R. Wetzel\nlang: de\n---\n\nSee ice.",
         "language": "en"},
        {"url": "https://b.example/jina", "content":
            "Title: Lake ice\n\nURL Source: https://b.example/jina\n\nPublished Time: Wed, 03 Nov 2021 08:00:00 GMT\n\nMarkdown Content:\nIce."},
        {"url": "https://c.example/prose", "raw_content": "Lake ice\n\ndate: 2021-11-03 is when it froze."}
    ]});
    let f = sb.file("extract.json", &output.to_string());
    sb.ok(&["ingest", f.to_str().unwrap()]);
    assert_eq!(
        metadata(&sb),
        [
            // The field's language wins over the header's.
            json!({"published": "2021-11-03", "language": "en", "authors": ["R. Wetzel"]}),
            json!({"published": "2021-11-03"}),
            Value::Null
        ]
    );
}

#[test]
fn what_a_tool_says_is_written_once_per_value_and_shown() {
    let sb = Sandbox::new();
    ingest(&sb, "brave-search.json");
    // The same output again writes nothing; another date for [1] is written, once.
    ingest(&sb, "brave-search.json");
    let perplexity = read_fixture("perplexity.json").replace("2023-02-14", "2023-02-15");
    let f = sb.file("later.json", &perplexity);
    sb.ok(&["ingest", f.to_str().unwrap()]);
    sb.ok(&["ingest", f.to_str().unwrap()]);
    let log = sb.ok(&["log"]);
    let lines: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split_once("  ").map(|(_, what)| what))
        .filter(|what| what.starts_with("page of"))
        .map(|what| what.split("  <- ").next().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "page of [1]: published 2023-02-14, site \"Physics Notes\", language en (epoch 1)",
            "page of [2]: site \"Limnology\", language en (epoch 1)",
            "page of [1]: published 2023-02-15 (epoch 1)",
        ],
        "{log}"
    );
    let show = sb.ok(&["show", "1"]);
    assert!(
        show.contains(
            "\n  published: 2023-02-15\n  site:      \"Physics Notes\"\n  language:  en\n"
        ),
        "{show}"
    );
    let log: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json", "--id", "1"])).unwrap();
    let set: Vec<&Value> = log
        .iter()
        .map(|e| &e["event"])
        .filter(|e| e["kind"] == "metadata_set")
        .collect();
    assert_eq!(
        set,
        [
            &json!({"kind": "metadata_set", "epoch": 1, "id": 1, "metadata":
                {"published": "2023-02-14", "site": "Physics Notes", "language": "en"}}),
            &json!({"kind": "metadata_set", "epoch": 1, "id": 1, "metadata":
                {"published": "2023-02-15"}}),
        ]
    );
    // Rebuilt from the log, the views hold the same; the audit finds them so.
    let before = sb.ok(&["list", "--json"]);
    assert!(sb.ok(&["rebuild"]).starts_with("rebuilt "));
    assert_eq!(sb.ok(&["list", "--json"]), before);
    assert!(sb.ok(&["audit"]).starts_with("audit OK: "));
}

#[test]
fn a_publication_date_the_tool_returned_supports_a_sentence_as_page_text_does() {
    let sb = Sandbox::new();
    let output = json!({"results": [{
        "url": "https://reports.example/lake-ice", "title": "Lake ice report",
        "publishedDate": "2023-05-12T00:00:00.000Z", "author": "R. Wetzel",
        "text": "Lake ice report\n\nLakes freeze from the top down because water is densest near 4 °C."
    }]});
    let f = sb.file("exa.json", &output.to_string());
    sb.ok(&["ingest", f.to_str().unwrap()]);
    let verify = |body: &str| {
        let draft = sb.file("report.md", body);
        sb.ok(&["render", "--replace-in", draft.to_str().unwrap()]);
        sb.run(&["verify", draft.to_str().unwrap(), "--support"])
    };
    let supported = verify(
        "# Ice\n\nThe report, published in May 2023, says lakes freeze from the top down.[1]\n",
    );
    assert_eq!(supported.code, 0, "{supported:?}");
    assert!(
        supported.stdout.contains("1 supported, 0 unsupported"),
        "{supported:?}"
    );
    // A date the tool did not return fails as a date the page does not print does.
    let drifted = verify(
        "# Ice\n\nThe report, published in June 2023, says lakes freeze from the top down.[1]\n",
    );
    assert_eq!(drifted.code, 1, "{drifted:?}");
    assert!(
        drifted
            .stderr
            .contains("\"June 2023\" is on none of the pages cited ([1])"),
        "{drifted:?}"
    );
}

/// A search result with a date and no page text gives the check nothing to read a figure
/// on: its sentence is unchecked (a warning), not failed for a figure no page was read for.
#[test]
fn a_source_with_a_date_and_no_page_text_leaves_its_sentence_unchecked() {
    let sb = Sandbox::new();
    let output = json!({"results": [{
        "url": "https://reports.example/lake-ice", "title": "Lake ice report",
        "publishedDate": "2023-05-12T00:00:00.000Z"
    }]});
    let f = sb.file("exa.json", &output.to_string());
    sb.ok(&["ingest", f.to_str().unwrap()]);
    let draft = sb.file(
        "report.md",
        "# Ice\n\nThe report of May 2023 says 40% of lakes froze early.[1]\n",
    );
    sb.ok(&["render", "--replace-in", draft.to_str().unwrap()]);
    let out = sb.run(&["verify", draft.to_str().unwrap(), "--support"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("0 unsupported; 1 sentence(s) unchecked"),
        "{out:?}"
    );
}

#[test]
fn a_fact_changed_behind_the_ledgers_back_is_named_by_audit() {
    use cite_store::event::PageFact;
    use cite_store::redbfile::tables::SOURCES;
    use cite_store::tables::SourceRow;
    use redb::ReadableTable;
    let sb = Sandbox::new();
    ingest(&sb, "exa-contents.json");
    crate::audit::tamper(&sb.ledger, |txn| {
        let mut t = txn.open_table(SOURCES).unwrap();
        let mut row = SourceRow::decode(t.get((1, 1)).unwrap().unwrap().value()).unwrap();
        row.set_facts(&[PageFact::Published("2020-01-01".into())]);
        t.insert((1, 1), row.encode().as_slice()).unwrap();
    });
    crate::audit::audit_fails(
        &sb.ledger,
        "sources (epoch 1, id 1): facts is [{\"Published\":\"2020-01-01\"},{\"Authors\":[\"R. Wetzel\"]}], the log gives [{\"Published\":\"2021-11-03\"},{\"Authors\":[\"R. Wetzel\"]}]",
    );
}
