//! Agent hooks: which sources a tool call fetched, read from the JSON an agent hands its
//! hooks, and the answer that tells the model their ids.
//!
//! Pure: it reads a payload given as text and returns data and text; the CLI (`cite hook`)
//! reads stdin, registers the URLs through [`Ledger::register_found`](cite_ledger::Ledger::register_found) and
//! prints. Registration then happens as a side effect of fetching, which is what the skill
//! asks the model to do by hand ("register every source at retrieval time").
//!
//! Claude Code's `PostToolUse` hook, as relied on here (hooks reference,
//! <https://code.claude.com/docs/en/hooks>, sections "PostToolUse" and "Advanced: JSON
//! output"; payload shapes as recorded at <https://mikhail.io/2025/10/claude-code-web-tools>
//! and in the hook logs quoted at
//! <https://dev.campus.systemische-tools.de/protokoll/1031>):
//!
//! - stdin is one JSON object: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
//!   `hook_event_name` (`"PostToolUse"`), `tool_name`, `tool_input`, `tool_response`,
//!   `tool_use_id`. Unknown fields are ignored here, so later additions do not break it.
//! - `WebFetch`: `tool_input` is `{"url", "prompt"}`; `tool_response` is
//!   `{"bytes", "code", "codeText", "result", "durationMs", "url"}`, where `result` is the
//!   small model's answer about the page, not the page.
//! - `WebSearch`: `tool_input` is `{"query", …}`; `tool_response` is `{"query",
//!   "results": [{"tool_use_id", "content": [{"title", "url"}, …]} or a text summary, …],
//!   "durationSeconds"}`.
//! - an MCP tool is named `mcp__SERVER__TOOL`; its `tool_response` is what the server
//!   answered, often content blocks whose `text` holds the JSON.
//! - stdout, on exit 0, may be `{"hookSpecificOutput": {"hookEventName": "PostToolUse",
//!   "additionalContext": "…"}}`: the text reaches the model beside the tool's result.
//!   Exit 2 would show stderr to the model as an error, and any other code is a
//!   non-blocking error shown only to the user; a hook of a citation tool never has cause
//!   to do either, so the CLI always exits 0.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use cite_ledger::ingest::{self, Found, Skipped};
use cite_ledger::url;
use cite_ledger::{LookAlike, Source};

/// What a hook payload asks of the ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// A tool call whose result names sources (possibly none).
    Call(ToolCall),
    /// Nothing to do, and why: another event, or a tool that fetches nothing.
    Ignored(Ignored),
}

/// Why a payload registers nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ignored {
    /// Not a `PostToolUse` event (the hook was wired to another one); the event name.
    Event(String),
    /// A tool that is not a fetch, a search or an MCP tool (a matcher wider than the one
    /// the README gives), or `cite`'s own MCP server, whose results are the ledger's.
    Tool(String),
}

/// A finished tool call and the sources it fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// `tool_name`: `WebFetch`, `WebSearch`, `mcp__SERVER__TOOL`.
    pub tool: String,
    /// The agent's working folder when the tool ran (`cwd`), if the payload gives an
    /// absolute one: a relative ledger path means the ledger there, as it would for a
    /// `cite` command the agent runs itself.
    pub cwd: Option<PathBuf>,
    /// The sources, canonicalized and deduplicated, in document order.
    pub found: Vec<Found>,
    /// URL-looking strings that did not parse.
    pub skipped: Vec<Skipped>,
}

/// A payload that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookError {
    #[error("the hook input is not a JSON object with the fields of a tool call ({0})")]
    Malformed(String),
    #[error("the hook input has no tool_name")]
    NoToolName,
}

/// The fields read from Claude Code's hook input. `tool_response` stays raw text, so a
/// large result is walked once, by the URL finder, and never built as a tree.
#[derive(Deserialize)]
struct Wire<'a> {
    hook_event_name: Option<String>,
    tool_name: Option<String>,
    tool_input: Option<Value>,
    #[serde(borrow)]
    tool_response: Option<&'a RawValue>,
    cwd: Option<String>,
}

/// The MCP tools of a server registered as `cite` (`claude mcp add cite -- cite mcp`):
/// their results are ids the ledger already handed out.
const OWN_MCP_PREFIX: &str = "mcp__cite__";

/// Reads one Claude Code hook payload.
pub fn read_claude_code(payload: &str) -> Result<Reading, HookError> {
    // serde would also fill the fields from an array, in order; a payload is an object.
    if !payload.trim_start().starts_with('{') {
        let what = match payload.trim_start().chars().next() {
            None => "empty input".to_string(),
            Some(c) => format!("it starts with {c:?}"),
        };
        return Err(HookError::Malformed(what));
    }
    let wire: Wire<'_> =
        serde_json::from_str(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
    if let Some(event) = wire.hook_event_name.filter(|e| e != "PostToolUse") {
        return Ok(Reading::Ignored(Ignored::Event(event)));
    }
    let tool = wire
        .tool_name
        .filter(|t| !t.is_empty())
        .ok_or(HookError::NoToolName)?;
    let cwd = wire.cwd.map(PathBuf::from).filter(|p| p.is_absolute());
    let (found, skipped) = if tool == "WebFetch" {
        web_fetch(wire.tool_input.as_ref(), wire.tool_response)
    } else if tool == "WebSearch"
        || (tool.starts_with("mcp__") && !tool.starts_with(OWN_MCP_PREFIX))
    {
        match wire.tool_response {
            // A result that is not JSON (a tool's plain text arrives as a JSON string,
            // so this is only a payload cut short) names nothing.
            Some(raw) => ingest::find_urls_in_tool_output(raw.get())
                .map_err(|e| HookError::Malformed(e.to_string()))?,
            None => (Vec::new(), Vec::new()),
        }
    } else {
        return Ok(Reading::Ignored(Ignored::Tool(tool)));
    };
    Ok(Reading::Call(ToolCall {
        tool,
        cwd,
        found,
        skipped,
    }))
}

/// The page a `WebFetch` read: its `tool_input.url`, the URL the model asked for and
/// will think of the page by. None when the fetch did not return the page: an HTTP
/// status outside 2xx in `tool_response.code` (a redirect to another host is answered
/// with a 3xx and a note, and the page is fetched by a second call, which registers it).
fn web_fetch(input: Option<&Value>, response: Option<&RawValue>) -> (Vec<Found>, Vec<Skipped>) {
    let status = response
        .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
        .and_then(|r| r.get("code").and_then(Value::as_u64));
    if status.is_some_and(|code| !(200..300).contains(&code)) {
        return (Vec::new(), Vec::new());
    }
    let Some(given) = input.and_then(|i| i.get("url")).and_then(Value::as_str) else {
        return (Vec::new(), Vec::new());
    };
    // As `ingest` keeps them: the web's schemes only (WebFetch fetches nothing else).
    if !(given.starts_with("http://") || given.starts_with("https://")) {
        return (Vec::new(), Vec::new());
    }
    match url::canonicalize(given) {
        Ok(canonical) => (
            vec![Found {
                given: given.to_string(),
                url: canonical,
                title: String::new(),
                // WebFetch's result is a model's answer about the page, not the page.
                page: None,
                facts: Vec::new(),
            }],
            Vec::new(),
        ),
        Err(e) => (
            Vec::new(),
            vec![Skipped {
                given: given.to_string(),
                reason: e.reason,
            }],
        ),
    }
}

/// The route a tool's sources are recorded under (`--via`): the tool's name, made a
/// route name where it is not one (a character other than letters, digits, `_`, `.`, `-`
/// becomes `-`; at most 64 characters), so `list --by-via` counts sources per tool.
pub fn route_of(tool: &str) -> String {
    let mut route: String = tool
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    if !route.chars().next().is_some_and(char::is_alphanumeric) {
        route.insert(0, 't');
        route.truncate(64);
    }
    route
}

/// At most this many sources are listed to the model; a search that returns hundreds
/// must not flood its context, and the rest are one `cite list` away.
pub const LISTED_AT_MOST: usize = 30;

/// The text the model reads after the tool's result: each source's id and how to cite
/// it, `[7] https://… — cite it as [7]`, with the title when there is one, and the
/// source registered before that it looks like (issue 19), if any.
pub fn context_for_model(
    tool: &str,
    ledger: &dyn std::fmt::Display,
    sources: &[Source],
    looks_like: &[LookAlike],
) -> String {
    let mut text = format!(
        "cite registered the sources of this {tool} call in the citation ledger {}. \
         Cite a claim taken from one by its id, right after the sentence; never type a URL \
         or an id the ledger did not give:",
        ledger
    );
    for s in sources.iter().take(LISTED_AT_MOST) {
        text.push('\n');
        text.push_str(&format!("[{}] {}", s.id, s.url));
        if !s.title.is_empty() {
            text.push_str(&format!("  {}", s.title));
        }
        text.push_str(&format!(" — cite it as [{}]", s.id));
        if let Some(l) = looks_like.iter().find(|l| l.id == s.id) {
            text.push_str(&format!(
                " (it looks like [{}] {}: the same host and path, another query)",
                l.like_id, l.like_url
            ));
        }
    }
    if sources.len() > LISTED_AT_MOST {
        text.push_str(&format!(
            "\n… and {} more: `cite list` shows every id",
            sources.len() - LISTED_AT_MOST
        ));
    }
    let (with, without): (Vec<&Source>, Vec<&Source>) = sources.iter().partition(|s| s.page_text);
    if !with.is_empty() {
        text.push_str(&format!(
            "\nPage text is stored for {}: check a quote with `cite quote ID --text \"…\"`, no --from needed.",
            id_list(&with)
        ));
    }
    // WebFetch hands the model a small model's answer about the page: quoting that
    // would check a quote against a paraphrase, so it is never stored as the page.
    if tool == "WebFetch" && !without.is_empty() {
        text.push_str(&format!(
            "\nWebFetch answers with a summary written by a model, not the page: no page text was stored for {}. \
             To quote the page, get its own text with a tool that returns the page (a scrape or extract tool, \
             or `curl -sL URL > page.txt`), then run `cite quote ID --text \"…\" --from page.txt`, \
             or store it once with `cite add URL --snapshot page.txt`.",
            id_list(&without)
        ));
    }
    text
}

/// `[1], [2], [3]`, at most [`LISTED_AT_MOST`] of them, then `, …`.
fn id_list(sources: &[&Source]) -> String {
    let mut ids: Vec<String> = sources
        .iter()
        .take(LISTED_AT_MOST)
        .map(|s| format!("[{}]", s.id))
        .collect();
    if sources.len() > LISTED_AT_MOST {
        ids.push("…".into());
    }
    ids.join(", ")
}

/// The hook's answer on stdout, one line: `{"hookSpecificOutput": {"hookEventName":
/// "PostToolUse", "additionalContext": CONTEXT}}`.
pub fn claude_code_answer(context: &str) -> String {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": context,
        }
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(payload: Value) -> ToolCall {
        match read_claude_code(&payload.to_string()).unwrap() {
            Reading::Call(c) => c,
            other => panic!("not a call: {other:?}"),
        }
    }

    fn urls(c: &ToolCall) -> Vec<&str> {
        c.found.iter().map(|f| f.url.as_str()).collect()
    }

    #[test]
    fn web_fetch_registers_the_url_asked_for_unless_the_page_did_not_come() {
        let p = |code: u64| {
            json!({"hook_event_name": "PostToolUse", "tool_name": "WebFetch", "cwd": "/w",
               "tool_input": {"url": "https://Example.org/a/#x", "prompt": "p"},
               "tool_response": {"code": code, "result": "see https://other.example"}})
        };
        let c = call(p(200));
        assert_eq!(urls(&c), ["https://example.org/a"]);
        assert_eq!(c.cwd.as_deref(), Some(std::path::Path::new("/w")));
        assert!(call(p(302)).found.is_empty());
        assert!(call(p(404)).found.is_empty());
    }

    #[test]
    fn other_events_tools_and_cites_own_server_are_ignored() {
        let r = |v: Value| read_claude_code(&v.to_string()).unwrap();
        assert_eq!(
            r(json!({"hook_event_name": "PreToolUse", "tool_name": "WebFetch"})),
            Reading::Ignored(Ignored::Event("PreToolUse".into()))
        );
        assert_eq!(
            r(json!({"tool_name": "Bash", "tool_response": {"url": "https://a.example"}})),
            Reading::Ignored(Ignored::Tool("Bash".into()))
        );
        assert!(matches!(
            r(
                json!({"tool_name": "mcp__cite__add", "tool_response": {"url": "https://a.example"}})
            ),
            Reading::Ignored(Ignored::Tool(_))
        ));
        assert_eq!(
            read_claude_code("[1]").unwrap_err().to_string(),
            "the hook input is not a JSON object with the fields of a tool call (it starts with '[')"
        );
        assert_eq!(read_claude_code("{}"), Err(HookError::NoToolName));
        assert!(
            matches!(read_claude_code(" "), Err(HookError::Malformed(m)) if m == "empty input")
        );
        assert!(matches!(
            read_claude_code(r#"{"tool_name": 7}"#),
            Err(HookError::Malformed(m)) if m.starts_with("invalid type: integer `7`")
        ));
    }

    #[test]
    fn routes_are_tool_names_made_route_names() {
        assert_eq!(route_of("WebFetch"), "WebFetch");
        assert_eq!(route_of("mcp__brave__search"), "mcp__brave__search");
        assert_eq!(route_of("mcp:odd tool"), "mcp-odd-tool");
        assert_eq!(route_of("_x"), "t_x");
        assert_eq!(route_of(&"a".repeat(100)).len(), 64);
        for t in ["WebFetch", "mcp:odd tool", "_x", "ß/é"] {
            assert!(cite_ledger::check_route(&route_of(t)).is_ok(), "{t}");
        }
    }

    #[test]
    fn the_answer_lists_ids_and_caps_the_list() {
        let s = |id: u64, title: &str| Source {
            id,
            url: format!("https://s{id}.example"),
            title: title.into(),
            accessed: "2026-01-01".into(),
            quotes: vec![],
            via: None,
            alias_of: None,
            page_text: false,
            metadata: Default::default(),
        };
        let text = context_for_model("WebSearch", &"/l.redb", &[s(7, "Seven"), s(8, "")], &[]);
        assert!(text.ends_with(
            "\n[7] https://s7.example  Seven — cite it as [7]\n[8] https://s8.example — cite it as [8]"
        ), "{text}");
        let many: Vec<Source> = (1..=40).map(|i| s(i, "")).collect();
        let text = context_for_model("mcp__x__y", &"/l.redb", &many, &[]);
        assert_eq!(text.lines().count(), 1 + LISTED_AT_MOST + 1);
        assert!(text.ends_with("… and 10 more: `cite list` shows every id"));
        let answer: Value = serde_json::from_str(&claude_code_answer("ctx")).unwrap();
        assert_eq!(
            answer,
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ctx"}})
        );
    }
}
