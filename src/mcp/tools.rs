//! The tools as synchronous functions: checked parameters in, the CLI's lines and a
//! JSON value out, or the CLI's [`Failure`] when the input is refused.
//!
//! Each calls the same library functions as its CLI command ([`Ledger::add`],
//! [`Ledger::ingest`], [`Ledger::quote`], [`Ledger::reset`], [`Ledger::view`],
//! [`report::block`], [`report::verify`], [`DraftRewrite`]) and formats with the same
//! [`cite_core::render`] functions, so a tool's text is what the command prints.
//!
//! Each tool's structured content is a typed value (`…Output`, or a library type), so
//! that its declared `outputSchema` ([`output_schema`]) is derived from the very type
//! that is serialized.

use std::collections::BTreeSet;
use std::path::PathBuf;

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use cite_core::draft::CitedEvidence;
use cite_core::draft::{self, VerifyOptions};
use cite_core::interop::Format;
use cite_core::model::PageText;
use cite_core::render::{self, sources::Style};
use cite_ledger::app::export as app_export;
use cite_ledger::app::{Failure, Reading, report};
use cite_ledger::{
    AddRequest, Attached, Context, Ledger, ListRequest, LookAlike, Source, SourceDetail,
    TextRequest, check_route,
};

use super::files::{FileArg, Files};
use super::{lenient, schema};

/// The tool arguments that name files, and what to pass instead when files are off
/// ([`Files`]).
const FROM: FileArg = FileArg::new("from", "the page text itself as evidence");
const VERIFY_PATH: FileArg = FileArg::new("path", "the draft text itself as draft");
const CITED_IN: FileArg = FileArg::new("cited_in", "the draft text itself as draft");
const REPLACE_IN: FileArg = FileArg::new(
    "replace_in",
    "the draft text itself as draft, and append the block it returns",
);
const CITED_IN_FILE: FileArg = FileArg::new("cited_in_file", "the draft text itself as cited_in");

/// A tool's answer: the lines the CLI prints, and the same data as JSON.
pub struct Done {
    pub text: String,
    pub structured: Value,
}

/// A tool's answer, or its failure: refused input or a failed operation, which the
/// server answers with `isError` and the failure as the CLI shows it on stderr.
pub type Outcome = Result<Done, Failure>;

fn lines<I: IntoIterator<Item = String>>(lines: I) -> String {
    lines.into_iter().collect::<Vec<_>>().join("\n")
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A tool's answer: `text`, and `output` as its structured content.
fn done<T: Serialize>(text: String, output: &T) -> Outcome {
    Ok(Done {
        text,
        structured: to_json(output),
    })
}

/// The `outputSchema` of each tool, derived from the type its structured content is
/// serialized from, made strict ([`schema::output`]).
pub fn output_schema(tool: &str) -> Option<Arc<JsonObject>> {
    Some(match tool {
        "add" => schema::output::<AddOutput>(),
        "ingest" => schema::output::<IngestOutput>(),
        "quote" => schema::output::<Attached>(),
        "list" => schema::output::<ListOutput>(),
        "show" => schema::output::<SourceDetail>(),
        "reset" => schema::output::<ResetOutput>(),
        "render" => schema::output::<RenderOutput>(),
        "verify" => schema::output::<VerifyOutput>(),
        "report" => schema::output::<ReportOutput>(),
        "export" => schema::output::<ExportOutput>(),
        "retract" => schema::output::<cite_ledger::Retracted>(),
        "retitle" => schema::output::<cite_ledger::Retitled>(),
        _ => return None,
    })
}

/// Parameters of `add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddParams {
    /// URLs to register: http(s) URLs, `doi:10.…` or `arXiv:ID`. At least one.
    #[serde(deserialize_with = "lenient::urls")]
    #[schemars(schema_with = "lenient::urls_schema")]
    pub urls: Vec<String>,
    /// Title of the source; applies only when exactly one URL is given. A title given
    /// later fills an empty title without changing the id.
    pub title: Option<String>,
    /// Access date, YYYY-MM-DD (default: today, UTC).
    pub accessed: Option<String>,
    /// Route the source came from: web, reddit, rss, video, code, x, or any one word.
    pub via: Option<String>,
    /// The fetched page text, stored with the source so that `quote` can check quotes
    /// against it later without passing it again. Only with exactly one URL.
    pub snapshot: Option<String>,
}

pub fn add(ledger: &Ledger, ctx: &Context, p: AddParams) -> Outcome {
    if p.urls.is_empty() {
        return Err(Failure::usage("give at least one URL in urls"));
    }
    let ignored_title = render::ignored_title_note(p.title.is_some(), p.urls.len());
    let req = AddRequest {
        urls: p.urls,
        title: p.title,
        accessed: p.accessed,
        via: p.via,
        snapshot: p.snapshot,
    };
    let added = ledger.add(ctx, &req)?;
    let note = render::shared_page_note(&added.page_also_stored_for);
    let kept = render::titles_kept_note(&added.titles_kept, false);
    let looks_like = added.looks_like.iter().map(render::looks_like_note);
    done(
        lines(
            added
                .sources
                .iter()
                .map(render::id_line)
                .chain(ignored_title)
                .chain(kept)
                .chain(note)
                .chain(looks_like),
        ),
        &AddOutput {
            sources: added.sources,
            page_also_stored_for: added.page_also_stored_for,
            looks_like: added.looks_like,
        },
    )
}

/// What `add` answers.
#[derive(Serialize, JsonSchema)]
pub struct AddOutput {
    /// One per URL given, in order, duplicates included.
    pub sources: Vec<Source>,
    /// Other sources the `snapshot` page text is also stored for (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub page_also_stored_for: Vec<u64>,
    /// Sources registered now whose host and path are those of a source registered
    /// before, with another query: perhaps the same page (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub looks_like: Vec<LookAlike>,
}

/// Parameters of `ingest`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestParams {
    /// JSON tool output (e.g. a search, extract or scrape tool's raw result), as text or
    /// as the JSON value itself. Every object's first truthy `url`, `link` or
    /// `source_url` starting with http:// or https:// is registered (else its
    /// `sourceURL`, `uri` or `source`), titled by its `title` or `name`, and so are the
    /// URL strings of a top-level list or a `citations`, `urls` or `sources` list. Page
    /// text beside a URL (`raw_content`, `markdown`, `text`, `page_content`, an extract's
    /// `content`) is stored with its source, so `quote` needs no evidence for it;
    /// snippets and descriptions are not.
    #[schemars(schema_with = "json_text_or_value")]
    pub json: Value,
    /// Route these sources came from: web, reddit, rss, video, code, x, or any one word.
    pub via: Option<String>,
}

/// `ingest`'s `json`: text to parse, or the parsed value (an object or an array).
fn json_text_or_value(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}]
    })
}

pub fn ingest(ledger: &Ledger, ctx: &Context, p: IngestParams) -> Outcome {
    let text = match p.json {
        Value::String(text) => text,
        v @ (Value::Object(_) | Value::Array(_)) => v.to_string(),
        other => {
            return Err(Failure::usage(format!(
                "json must be JSON text, an object or an array, not {other}"
            )));
        }
    };
    let ingested = ledger
        .ingest(ctx, text, p.via.as_deref())
        .map_err(|e| match e {
            // The CLI's wording names its command; a client has tools.
            cite_ledger::Error::NoUrls => Failure::failed(format!(
                "no urls found in input — {} — register a page by hand with the add tool",
                cite_ledger::ingest::LOOKED_FOR
            ))
            .without_prefix(),
            e => e.into(),
        })?;
    let mut text: Vec<String> = ingested
        .skipped
        .iter()
        .map(|s| format!("warn: skipped {:?}, not a URL ({})", s.given, s.reason))
        .collect();
    text.extend(ingested.sources.iter().map(render::id_line));
    text.extend(render::page_text_note(
        &ingested.page_text_stored,
        "`quote` with the id and text checks a quote against it, no evidence needed",
    ));
    let skipped = ingested
        .skipped
        .into_iter()
        .map(|s| SkippedOutput {
            given: s.given,
            reason: s.reason,
        })
        .collect();
    done(
        lines(text),
        &IngestOutput {
            sources: ingested.sources,
            skipped,
        },
    )
}

/// What `ingest` answers.
#[derive(Serialize, JsonSchema)]
pub struct IngestOutput {
    /// One per URL found, first occurrence wins.
    pub sources: Vec<Source>,
    /// URL-looking values that are not URLs.
    pub skipped: Vec<SkippedOutput>,
}

/// A URL-looking value `ingest` could not register.
#[derive(Serialize, JsonSchema)]
pub struct SkippedOutput {
    pub given: String,
    pub reason: String,
}

/// Parameters of `quote`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuoteParams {
    /// Ledger id of the source the quote supports.
    #[serde(deserialize_with = "lenient::number")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub id: u64,
    /// The exact quote, copied verbatim from the page (at least 3 words).
    pub text: String,
    /// The fetched page text the quote must appear in.
    pub evidence: Option<String>,
    /// Path of a file holding the fetched page text (instead of `evidence`); relative
    /// paths start in the server's working folder. Over HTTP, only inside the folder
    /// the server was started with (`--files`), where relative paths start.
    pub from: Option<PathBuf>,
}

pub fn quote(ledger: &Ledger, ctx: &Context, files: &Files, p: QuoteParams) -> Outcome {
    let page = files.text_or_file(
        p.evidence,
        p.from,
        FROM,
        "give the page text as evidence or a file path as from, not both",
        Reading::Text,
    )?;
    let attached = ledger
        .quote(ctx, p.id, &p.text, page.as_deref())
        .map_err(|e| match e {
            // The CLI's wording names its flags; a client has arguments.
            cite_ledger::Error::NoEvidence(id) => Failure::failed(format!(
                "no evidence text for [{id}] — pass the fetched page text as evidence (or its file as from), or store it with the source: `add` with the URL and the page text as snapshot"
            )),
            e => e.into(),
        })?;
    let note = render::shared_page_note(&attached.page_also_stored_for);
    done(
        lines(std::iter::once(render::attached_line(&attached)).chain(note)),
        &attached,
    )
}

/// Parameters of `list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Only sources whose URL or title contains this text, ignoring case.
    pub query: Option<String>,
    /// Only sources registered with this route (web, reddit, rss, …).
    pub via: Option<String>,
    /// At most this many sources (default 50).
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::limit_schema")]
    pub limit: Option<u64>,
    /// Where to continue: the `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Read this epoch (numbering before a reset) instead of the current one.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub epoch: Option<u64>,
}

/// The page size of `list` when the call gives none: small enough for an agent's
/// context, large enough that most ledgers fit on one page.
pub const LIST_LIMIT: u64 = 50;
/// The largest page `list` gives.
pub const LIST_LIMIT_MAX: u64 = 1000;

pub fn list(ledger: &Ledger, p: ListParams) -> Outcome {
    let limit = p.limit.unwrap_or(LIST_LIMIT);
    if !(1..=LIST_LIMIT_MAX).contains(&limit) {
        return Err(Failure::usage(format!(
            "limit {limit} is out of range: give 1 to {LIST_LIMIT_MAX}"
        )));
    }
    let after = match &p.cursor {
        Some(c) => ListRequest::after_cursor(c).map_err(Failure::usage)?,
        None => 0,
    };
    let req = ListRequest {
        query: p.query.clone(),
        via: p.via.as_deref().map(check_route).transpose()?,
        after,
        limit: Some(limit),
    };
    let page = ledger.view(p.epoch)?.list(&req)?;
    let next = page.next.map(|after| {
        let mut args = serde_json::Map::new();
        if let Some(q) = &p.query {
            args.insert("query".into(), json!(q));
        }
        if let Some(v) = &p.via {
            args.insert("via".into(), json!(v));
        }
        if let Some(e) = p.epoch {
            args.insert("epoch".into(), json!(e));
        }
        args.insert("limit".into(), json!(limit));
        args.insert("cursor".into(), json!(after.to_string()));
        Value::Object(args)
    });
    let empty = page.matched == 0 && !req.is_filtered() && after == 0;
    let text = if empty {
        format!("ledger is empty: {}", ledger.location())
    } else {
        let call = next.as_ref().map(|args| format!("list {args}"));
        lines(
            page.sources
                .iter()
                .map(render::list_line)
                .chain([render::page_line(&page, call.as_deref())]),
        )
    };
    let next_call = next.map(|arguments| NextCall {
        name: "list".into(),
        arguments,
    });
    done(
        text,
        &ListOutput {
            ledger: ledger.location().to_string(),
            sources: page.sources,
            matched: page.matched,
            next_cursor: page.next.map(|after| after.to_string()),
            next_call,
        },
    )
}

/// What `list` answers: one page.
#[derive(Serialize, JsonSchema)]
pub struct ListOutput {
    /// The ledger file.
    pub ledger: String,
    /// This page's sources, in id order.
    pub sources: Vec<Source>,
    /// How many sources match, on all pages.
    pub matched: u64,
    /// The cursor for the next page; left out on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The call for the next page; left out on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_call: Option<NextCall>,
}

/// A tool call to make next.
#[derive(Serialize, JsonSchema)]
pub struct NextCall {
    pub name: String,
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub arguments: Value,
}

/// Parameters of `render`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderParams {
    /// Block style (default: markdown).
    pub style: Option<Style>,
    /// Ids to include, e.g. "1,3,5-7".
    #[serde(default, deserialize_with = "lenient::ids_opt")]
    #[schemars(schema_with = "lenient::ids_schema")]
    pub only: Option<String>,
    /// Draft text: the block lists only the ids its prose cites (intersected with `only`).
    pub draft: Option<String>,
    /// Path of a draft file, instead of `draft`: the block lists only the ids it cites.
    pub cited_in: Option<PathBuf>,
    /// Path of a draft file whose Sources block to rewrite in place (or append), listing
    /// the ids it cites: what `cite render --replace-in` does. Instead of `draft` and
    /// `cited_in`.
    pub replace_in: Option<PathBuf>,
    /// Read this epoch instead of the current one.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub epoch: Option<u64>,
}

/// How `render` refuses a draft given more than one way.
const ONE_WAY: &str = "give the draft one way: as text (draft), as a file path (cited_in), or as a file to rewrite (replace_in)";

pub fn render(ledger: &Ledger, files: &Files, p: RenderParams) -> Outcome {
    let only = report::Only::parse(p.only.as_deref(), "only")?;
    let given = [
        p.draft.is_some(),
        p.cited_in.is_some(),
        p.replace_in.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(Failure::usage(ONE_WAY));
    }
    let rewrite = p
        .replace_in
        .as_deref()
        .map(|path| {
            let rerun = format!("render with replace_in {}", path.display());
            files.rewrite(path, REPLACE_IN, &rerun)
        })
        .transpose()?;
    // Not both: refused above.
    let draft_text = files.text_or_file(p.draft, p.cited_in, CITED_IN, ONE_WAY, Reading::Text)?;
    let cited: Option<BTreeSet<u64>> = rewrite
        .as_ref()
        .map(cite_ledger::rewrite::DraftRewrite::text)
        .or(draft_text.as_deref())
        .map(draft::cited_ids);
    let style = p.style.unwrap_or(Style::Markdown);
    let view = ledger.view(p.epoch)?;
    let picked = report::selection(
        &view,
        only.as_ref(),
        cited.as_ref(),
        draft::Advice::Tools,
        &ledger.location().to_string(),
    )?;
    let (picked, block) = report::block(&view, style, picked.as_deref())?;
    if block.is_empty() {
        return Err(report::nothing_to_render());
    }
    let ids: Vec<u64> = picked.iter().map(|s| s.id).collect();
    let (text, rewritten) = match (rewrite, &p.replace_in) {
        (Some(rewrite), Some(path)) => {
            rewrite.write(&block)?;
            let shown = path.display().to_string();
            (format!("Sources block rewritten in {shown}"), Some(shown))
        }
        _ => (block.clone(), None),
    };
    done(
        text,
        &RenderOutput {
            style,
            ids,
            block,
            rewritten,
        },
    )
}

/// What `render` answers.
#[derive(Serialize, JsonSchema)]
pub struct RenderOutput {
    pub style: Style,
    /// The ids the block lists, in order.
    pub ids: Vec<u64>,
    /// The block, without a final newline.
    pub block: String,
    /// The draft file the block was written into (with `replace_in`; left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten: Option<String>,
}

/// Parameters of `show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// Ledger id of the source.
    #[serde(deserialize_with = "lenient::number")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub id: u64,
    /// Read this epoch instead of the current one.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub epoch: Option<u64>,
    /// Whether to return the stored page texts (default true); false for the source and
    /// its history alone.
    pub text: Option<bool>,
    /// Only the page text whose hash starts with this (as listed in `page_texts`).
    pub snapshot: Option<String>,
    /// The character of each page text to start at (default 0): the `next_offset` of the
    /// previous call, to read a long page in parts.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::offset_schema")]
    pub offset: Option<u64>,
    /// At most this many characters of each page text (default 20000, at most 100000).
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::text_limit_schema")]
    pub limit: Option<u64>,
}

/// The most characters of a page text `show` returns at once.
pub const SHOW_LIMIT_MAX: u64 = 100_000;

pub fn show(ledger: &Ledger, p: ShowParams) -> Outcome {
    let limit = p.limit.unwrap_or(TextRequest::LIMIT);
    if !(1..=SHOW_LIMIT_MAX).contains(&limit) {
        return Err(Failure::usage(format!(
            "limit {limit} is out of range: give 1 to {SHOW_LIMIT_MAX} characters"
        )));
    }
    if let Some(hash) = &p.snapshot
        && !(hash.len() >= 4 && hash.len() <= 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(Failure::usage(format!(
            "snapshot {hash:?}: give the start of a page text's hash (4 to 64 hex digits), as `page_texts` lists it"
        )));
    }
    let with_text = p.text.unwrap_or(true);
    let request = with_text.then(|| TextRequest {
        snapshot: p.snapshot.clone(),
        offset: p.offset.unwrap_or(0),
        limit,
    });
    let detail = ledger.view(p.epoch)?.show(p.id, request.as_ref())?;
    let read = if with_text {
        "the text follows"
    } else {
        "read with `show` and text: true"
    };
    let mut text = render::show(&detail, read);
    let next = |page: &PageText, from: u64, several: bool| {
        let mut call = json!({"id": p.id, "offset": from});
        if several {
            call["snapshot"] = json!(page.snapshot.get(..12).unwrap_or(&page.snapshot));
        }
        if let Some(epoch) = p.epoch {
            call["epoch"] = json!(epoch);
        }
        if limit != TextRequest::LIMIT {
            call["limit"] = json!(limit);
        }
        format!("call show with {call}")
    };
    text.extend(render::page_texts(&detail, &next));
    done(lines(text), &detail)
}

/// Parameters of `reset` (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetParams {}

pub fn reset(ledger: &Ledger, ctx: &Context, _: ResetParams) -> Outcome {
    let epoch = ledger.reset(ctx)?;
    let path = ledger.location().to_string();
    done(
        format!("ledger reset: {path}"),
        &ResetOutput {
            ledger: path,
            epoch: epoch.0,
        },
    )
}

/// What `reset` answers.
#[derive(Serialize, JsonSchema)]
pub struct ResetOutput {
    /// The ledger file.
    pub ledger: String,
    /// The new epoch: ids start again at 1; earlier epochs stay readable (`epoch`).
    pub epoch: u64,
}

/// Parameters of `verify`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyParams {
    /// The draft text to check (or give `path`).
    pub draft: Option<String>,
    /// Path of the draft file to check, instead of `draft`.
    pub path: Option<PathBuf>,
    /// Treat warnings as failures.
    #[serde(default)]
    pub strict: bool,
    /// Required share of prose sentences with declared provenance, 0 to 1 (e.g. 0.6).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_coverage: Option<f64>,
    /// Require every cited source to carry at least one verbatim quote, and name them.
    #[serde(default)]
    pub evidence: bool,
    /// Check that every figure, date and quoted phrase of a cited sentence is on a page it
    /// cites (its stored page text or quotes); names on none, and sentences whose sources
    /// have no page text, are warnings. The answer's `support` has each cited sentence.
    #[serde(default)]
    pub support: bool,
    /// Read this epoch instead of the current one.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub epoch: Option<u64>,
}

pub fn verify(ledger: &Ledger, files: &Files, p: VerifyParams) -> Outcome {
    cite_ledger::app::check_min_coverage("min_coverage", p.min_coverage)?;
    let text = files
        .text_or_file(
            p.draft,
            p.path.clone(),
            VERIFY_PATH,
            "give the draft as text (draft) or as a file path (path), not both",
            Reading::Draft,
        )?
        .ok_or_else(|| {
            Failure::usage("give the draft to check, as text (draft) or as a file path (path)")
        })?;
    let view = ledger.view(p.epoch)?;
    let opts = VerifyOptions {
        strict: p.strict,
        min_coverage: p.min_coverage,
        evidence: p.evidence,
        support: p.support,
        draft: p.path.clone(),
        ledger: Some(ledger.location().to_string()),
        advice: draft::Advice::Tools,
    };
    let verified = report::verify(&view, &text, &opts)?;
    let text = lines(render::verify::lines(&verified).map(|l| l.text));
    done(
        text,
        &VerifyOutput {
            evidence: verified.with_evidence.then_some(verified.evidence),
            report: verified.report,
        },
    )
}

/// What `verify` answers: the report `cite verify --json` prints.
#[derive(Serialize, JsonSchema)]
pub struct VerifyOutput {
    #[serde(flatten)]
    pub report: draft::Report,
    /// With `evidence`: each cited source's quotes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Vec<CitedEvidence>>,
}

/// Parameters of `report`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportParams {
    /// The draft text to report on (or give `path`).
    pub draft: Option<String>,
    /// Path of the draft file, instead of `draft`.
    pub path: Option<PathBuf>,
    /// Check each cited sentence's figures, dates and quoted phrases against its pages,
    /// as `verify` with `support` does (default true).
    pub support: Option<bool>,
    /// Judge the draft as `verify` with `strict` does.
    #[serde(default)]
    pub strict: bool,
    /// Judge it as `verify` with `min_coverage` does, 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_coverage: Option<f64>,
    /// Judge it as `verify` with `evidence` does.
    #[serde(default)]
    pub evidence: bool,
    /// Read this epoch instead of the current one.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub epoch: Option<u64>,
}

pub fn report(ledger: &Ledger, ctx: &Context, files: &Files, p: ReportParams) -> Outcome {
    cite_ledger::app::check_min_coverage("min_coverage", p.min_coverage)?;
    let text = files
        .text_or_file(
            p.draft,
            p.path.clone(),
            VERIFY_PATH,
            "give the draft as text (draft) or as a file path (path), not both",
            Reading::Draft,
        )?
        .ok_or_else(|| {
            Failure::usage("give the draft to report on, as text (draft) or as a file path (path)")
        })?;
    let view = ledger.view(p.epoch)?;
    let location = ledger.location().to_string();
    let support = p.support.unwrap_or(true);
    let opts = VerifyOptions {
        strict: p.strict,
        min_coverage: p.min_coverage,
        evidence: p.evidence,
        support,
        draft: p.path.clone(),
        ledger: Some(location.clone()),
        advice: draft::Advice::Tools,
    };
    let name = p
        .path
        .as_ref()
        .map_or_else(|| "the draft".to_string(), |p| p.display().to_string());
    let mut command = format!("verify {{{}}}", if support { "support: true" } else { "" });
    if command.ends_with("{}") {
        command = "verify".to_string();
    }
    let made = ctx
        .now
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let request = cite_ledger::app::html::Request {
        name: &name,
        text: &text,
        opts,
        ledger: &location,
        made: &made,
        command: &command,
    };
    let (html, verified, verdict) = cite_ledger::app::html::html(&view, &request)?;
    let output = ReportOutput {
        mime_type: "text/html",
        bytes: html.len(),
        passed: verified.passed(),
        verdict: verdict.to_string(),
        stats: verified.report.stats.clone(),
        failures: verified.report.errors.len(),
        failing_sentences: verdict.failing_sentences,
        draft_failures: verdict.draft_failures,
        warnings: verified.report.warnings.len(),
    };
    done(html, &output)
}

/// What `report` answers besides the page (the text content, an HTML document).
#[derive(Serialize, JsonSchema)]
pub struct ReportOutput {
    /// The text content's type: `text/html`.
    pub mime_type: &'static str,
    /// Its length in bytes.
    pub bytes: usize,
    /// Whether `verify` with the same options passes.
    pub passed: bool,
    /// The page's verdict: `citations OK`, or what fails, counted as the page marks it.
    pub verdict: String,
    /// `verify`'s stats line.
    pub stats: String,
    /// `verify`'s failures (under `strict`, its warnings among them).
    pub failures: usize,
    /// Sentences (and table rows) the page marks failing.
    pub failing_sentences: usize,
    /// Failures about the draft as a whole, no sentence's.
    pub draft_failures: usize,
    pub warnings: usize,
}

/// Parameters of `export`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// csl-json (pandoc --citeproc, Zotero), biblatex, ris (Zotero, EndNote), hermes-json
    /// (a sources.py ledger), or jsonl (the whole hash-chained log).
    pub format: Format,
    /// Draft text: export only the sources its prose cites (intersected with `only`).
    pub cited_in: Option<String>,
    /// Path of a draft file, instead of `cited_in`: export only the sources it cites.
    pub cited_in_file: Option<PathBuf>,
    /// Ids to export, e.g. "1,3,5-7" or [1, 3].
    #[serde(default, deserialize_with = "lenient::ids_opt")]
    #[schemars(schema_with = "lenient::ids_schema")]
    pub only: Option<String>,
    /// Export this epoch instead of the current one (not for jsonl).
    #[serde(default, deserialize_with = "lenient::number_opt")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub epoch: Option<u64>,
}

pub fn export(ledger: &Ledger, files: &Files, p: ExportParams) -> Outcome {
    let narrowing = [
        (p.epoch.is_some(), "epoch"),
        (p.only.is_some(), "only"),
        (
            p.cited_in.is_some() || p.cited_in_file.is_some(),
            "cited_in",
        ),
    ]
    .into_iter()
    .find_map(|(given, name)| given.then_some(name));
    app_export::check_whole_log(p.format, narrowing)?;
    let only = report::Only::parse(p.only.as_deref(), "only")?;
    let draft_text = files.text_or_file(
        p.cited_in,
        p.cited_in_file,
        CITED_IN_FILE,
        "give the draft as text (cited_in) or as a file path (cited_in_file), not both",
        Reading::Text,
    )?;
    let cited = draft_text.as_deref().map(draft::cited_ids);
    let view = ledger.view(p.epoch)?;
    let picked = app_export::selection(
        &view,
        only.as_ref(),
        cited.as_ref(),
        draft::Advice::Tools,
        &ledger.location().to_string(),
    )?;
    let mut out: Vec<u8> = Vec::new();
    let count = app_export::write(&view, p.format, picked.as_deref(), &mut out)?;
    let text = String::from_utf8(out)
        .map_err(|e| Failure::internal(format!("the export is not UTF-8: {e}")))?;
    let ids = picked.map(|ranges| {
        ranges
            .iter()
            .flat_map(|&(lo, hi)| lo..=hi)
            .collect::<Vec<u64>>()
    });
    done(
        text.clone(),
        &ExportOutput {
            format: p.format,
            count,
            ids,
            text,
        },
    )
}

/// What `export` answers.
#[derive(Serialize, JsonSchema)]
pub struct ExportOutput {
    pub format: Format,
    /// How many sources (for jsonl, records of the log) were written.
    pub count: u64,
    /// The ids selected, in order (left out when every source was exported).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<u64>>,
    /// The export itself, as `cite export` writes it.
    pub text: String,
}

/// Parameters of `retract`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetractParams {
    /// Ledger id of the source.
    #[serde(deserialize_with = "lenient::number")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub id: u64,
    /// The quote's number, as `show` numbers them.
    #[serde(deserialize_with = "lenient::number")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub quote: u64,
    /// Why it is retracted (kept in the log beside it).
    pub reason: String,
}

pub fn retract(ledger: &Ledger, ctx: &Context, p: RetractParams) -> Outcome {
    let done = ledger.retract(ctx, p.id, p.quote, &p.reason)?;
    self::done(render::retracted_line(&done), &done)
}

/// Parameters of `retitle`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetitleParams {
    /// Ledger id of the source.
    #[serde(deserialize_with = "lenient::number")]
    #[schemars(schema_with = "lenient::id_schema")]
    pub id: u64,
    /// The corrected title.
    pub title: String,
}

pub fn retitle(ledger: &Ledger, ctx: &Context, p: RetitleParams) -> Outcome {
    let done = ledger.retitle(ctx, p.id, &p.title)?;
    self::done(render::retitled_line(&done), &done)
}
