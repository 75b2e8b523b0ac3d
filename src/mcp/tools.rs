//! The six tools as synchronous functions: checked parameters in, the CLI's lines and a
//! JSON value out, or the CLI's message when the input is refused.
//!
//! Each calls the same library functions as its CLI command ([`Ledger::add`],
//! [`Ledger::ingest`], [`Ledger::quote`], [`Ledger::view`], [`report::block`],
//! [`report::verify`]) and formats with the same [`crate::render`] functions, so a tool's text
//! is what the command prints.

use std::collections::BTreeSet;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cli::CliError;
use crate::draft::{self, VerifyOptions};
use crate::input::{self, InputError};
use crate::ledger::{AddRequest, Context, Ledger, report};
use crate::render::{self, sources::IdSet, sources::Style};

/// A tool's answer: the lines the CLI prints, and the same data as JSON.
pub struct Done {
    pub text: String,
    pub structured: Value,
}

/// Refused input or a failed operation, worded as the CLI words it on stderr.
#[derive(Debug)]
pub struct Refused(pub String);

impl From<crate::ledger::Error> for Refused {
    fn from(e: crate::ledger::Error) -> Refused {
        Refused(CliError::from(e).message)
    }
}

impl From<InputError> for Refused {
    fn from(e: InputError) -> Refused {
        Refused(CliError::from(e).message)
    }
}

fn usage(message: impl Into<String>) -> Refused {
    Refused(CliError::usage(message).message)
}

pub type Outcome = Result<Done, Refused>;

fn lines<I: IntoIterator<Item = String>>(lines: I) -> String {
    lines.into_iter().collect::<Vec<_>>().join("\n")
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Parameters of `add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddParams {
    /// URLs to register: http(s) URLs, `doi:10.…` or `arXiv:ID`. At least one.
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
        return Err(usage("give at least one URL in urls"));
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
    let mut structured = json!({ "sources": to_json(&added.sources) });
    if note.is_some() {
        structured["page_also_stored_for"] = to_json(&added.page_also_stored_for);
    }
    Ok(Done {
        text: lines(
            added
                .sources
                .iter()
                .map(render::id_line)
                .chain(ignored_title)
                .chain(note),
        ),
        structured,
    })
}

/// Parameters of `ingest`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestParams {
    /// JSON tool output, as text (e.g. a search tool's raw result). Every object's
    /// first truthy `url`, `link` or `source_url` starting with http:// or https:// is
    /// registered, titled by its `title` or `name`.
    pub json: String,
    /// Route these sources came from: web, reddit, rss, video, code, x, or any one word.
    pub via: Option<String>,
}

pub fn ingest(ledger: &Ledger, ctx: &Context, p: IngestParams) -> Outcome {
    let ingested = ledger.ingest(ctx, p.json, p.via.as_deref())?;
    let mut text: Vec<String> = ingested
        .skipped
        .iter()
        .map(|s| format!("warn: skipped {:?}, not a URL ({})", s.given, s.reason))
        .collect();
    text.extend(ingested.sources.iter().map(render::id_line));
    let skipped: Vec<Value> = ingested
        .skipped
        .iter()
        .map(|s| json!({ "given": s.given, "reason": s.reason }))
        .collect();
    Ok(Done {
        text: lines(text),
        structured: json!({ "sources": to_json(&ingested.sources), "skipped": skipped }),
    })
}

/// Parameters of `quote`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuoteParams {
    /// Ledger id of the source the quote supports.
    pub id: u64,
    /// The exact quote, copied verbatim from the page (at least 3 words).
    pub text: String,
    /// The fetched page text the quote must appear in.
    pub evidence: Option<String>,
    /// Path of a file holding the fetched page text (instead of `evidence`); relative
    /// paths are resolved from the server's working folder.
    pub from: Option<PathBuf>,
}

pub fn quote(ledger: &Ledger, ctx: &Context, p: QuoteParams) -> Outcome {
    let page = match (p.evidence, &p.from) {
        (Some(_), Some(_)) => {
            return Err(usage(
                "give the page text as evidence or a file path as from, not both",
            ));
        }
        (Some(text), None) => Some(text),
        (None, Some(path)) => Some(input::read_text(path)?),
        (None, None) => None,
    };
    let attached = ledger.quote(ctx, p.id, &p.text, page.as_deref())?;
    let note = render::shared_page_note(&attached.page_also_stored_for);
    Ok(Done {
        text: lines(std::iter::once(render::attached_line(&attached)).chain(note)),
        structured: to_json(&attached),
    })
}

/// Parameters of `list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Read this epoch (numbering before a reset) instead of the current one.
    pub epoch: Option<u64>,
}

pub fn list(ledger: &Ledger, p: ListParams) -> Outcome {
    let view = ledger.view(p.epoch)?;
    let mut sources = Vec::new();
    for s in view.sources()? {
        sources.push(s?);
    }
    let text = if sources.is_empty() {
        format!("ledger is empty: {}", ledger.path().display())
    } else {
        lines(sources.iter().map(render::list_line))
    };
    Ok(Done {
        text,
        structured: json!({
            "ledger": ledger.path().display().to_string(),
            "sources": to_json(&sources),
        }),
    })
}

/// Parameters of `render`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderParams {
    /// Block style (default: markdown).
    pub style: Option<Style>,
    /// Ids to include, e.g. "1,3,5-7".
    pub only: Option<String>,
    /// Draft text: the block lists only the ids its prose cites (intersected with `only`).
    pub draft: Option<String>,
    /// Path of a draft file, instead of `draft`: the block lists only the ids it cites.
    pub cited_in: Option<PathBuf>,
    /// Read this epoch instead of the current one.
    pub epoch: Option<u64>,
}

pub fn render(ledger: &Ledger, p: RenderParams) -> Outcome {
    let only = p
        .only
        .as_deref()
        .map(IdSet::parse)
        .transpose()
        .map_err(|e| usage(format!("only: {e}")))?;
    let draft_text = match (p.draft, &p.cited_in) {
        (Some(_), Some(_)) => {
            return Err(usage(
                "give the draft as text (draft) or as a file path (cited_in), not both",
            ));
        }
        (Some(text), None) => Some(text),
        (None, Some(path)) => Some(input::read_text(path)?),
        (None, None) => None,
    };
    let cited: Option<BTreeSet<u64>> = draft_text.as_deref().map(draft::cited_ids);
    let style = p.style.unwrap_or(Style::Markdown);
    let view = ledger.view(p.epoch)?;
    let (picked, block) = report::block(&view, style, only.as_ref(), cited.as_ref())?;
    if block.is_empty() {
        return Err(Refused(report::NOTHING_TO_RENDER.into()));
    }
    let ids: Vec<u64> = picked.iter().map(|s| s.id).collect();
    Ok(Done {
        structured: json!({ "style": to_json(&style), "ids": ids, "block": block }),
        text: block,
    })
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
    pub min_coverage: Option<f64>,
    /// Require every cited source to carry at least one verbatim quote, and name them.
    #[serde(default)]
    pub evidence: bool,
    /// Read this epoch instead of the current one.
    pub epoch: Option<u64>,
}

pub fn verify(ledger: &Ledger, p: VerifyParams) -> Outcome {
    if let Some(f) = p.min_coverage
        && !(0.0..=1.0).contains(&f)
    {
        return Err(usage(format!(
            "min_coverage {f} is not a share between 0 and 1 (e.g. 0.6)"
        )));
    }
    let text = match (p.draft, &p.path) {
        (Some(_), Some(_)) => {
            return Err(usage(
                "give the draft as text (draft) or as a file path (path), not both",
            ));
        }
        (Some(text), None) => text,
        (None, Some(path)) => input::read_draft(path)?,
        (None, None) => {
            return Err(usage(
                "give the draft to check, as text (draft) or as a file path (path)",
            ));
        }
    };
    let view = ledger.view(p.epoch)?;
    let opts = VerifyOptions {
        strict: p.strict,
        min_coverage: p.min_coverage,
        evidence: p.evidence,
        draft: p.path.clone(),
        ledger: Some(ledger.path().to_path_buf()),
    };
    let verified = report::verify(&view, &text, &opts)?;
    Ok(Done {
        text: lines(render::verify::lines(&verified).map(|l| l.text)),
        structured: verified.to_json(),
    })
}
