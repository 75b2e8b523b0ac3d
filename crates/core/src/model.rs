//! The values the ledger hands out and the front ends show: sources, quotes, log
//! entries, pages. Plain data, serialized as the commands print it with `--json`;
//! made by the ledger from what the store holds, read by [`crate::render`] and
//! [`crate::interop`], so that neither needs the store.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::evidence::Selector;

/// The version of the `sources.py` ledger format that `import` reads and `export
/// --format hermes-json` writes.
pub const SOURCES_PY_VERSION: u64 = 1;

/// A source as commands show it. Serializes like a `sources.py` ledger entry (`id`,
/// `url`, `title`, `accessed`, `quotes` when there are any), plus `via` when set and
/// `page_text` when the page's text is stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Source {
    pub id: u64,
    pub url: String,
    pub title: String,
    pub accessed: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<Quote>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// For an alias, the id of the source it is the same page as: an import of a
    /// `sources.py` ledger that listed one page under two ids keeps both (left out
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias_of: Option<u64>,
    /// Whether page text is stored for it (`add --snapshot`, or an extract or scrape
    /// ingested), so that a quote is checked against it without the page given again.
    /// Left out of JSON when false, as `sources.py` has no such key.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub page_text: bool,
    /// What the tool output `ingest` read said about the page (left out of JSON when it
    /// said nothing).
    #[serde(default, skip_serializing_if = "PageMeta::is_empty")]
    pub metadata: PageMeta,
}

/// What tool output said about a source's page: each part left out when it said
/// nothing of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PageMeta {
    /// When the page was published: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    /// The site or publication it appeared in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// Its language, a language tag (`en`, `de-AT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Its authors, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
}

impl PageMeta {
    pub fn is_empty(&self) -> bool {
        self == &PageMeta::default()
    }

    /// The publication date as `(year, month, day)`, month and day 0 where the date
    /// stops at the year or the month.
    pub fn published_parts(&self) -> Option<(i32, u8, u8)> {
        let p = self.published.as_deref()?;
        let mut parts = p.splitn(3, '-');
        let year: i32 = parts.next()?.parse().ok()?;
        let month: u8 = parts.next().map_or(Ok(0), str::parse).ok()?;
        let day: u8 = parts.next().map_or(Ok(0), str::parse).ok()?;
        let valid = match (month, day) {
            (0, 0) => true,
            (1..=12, 0) => true,
            (1..=12, _) => time::Month::try_from(month)
                .ok()
                .and_then(|m| time::Date::from_calendar_date(year, m, day).ok())
                .is_some(),
            _ => false,
        };
        (valid && (1..=9999).contains(&year)).then_some((year, month, day))
    }
}

/// A verbatim quote attached to a source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Quote {
    pub text: String,
    /// The day it was attached, `YYYY-MM-DD`.
    pub added: String,
    /// blake3 of the page text it was checked against, hex; `None` for a quote
    /// imported from `sources.py`, which kept no page text.
    pub snapshot: Option<String>,
    /// Where it sits in that text (W3C TextQuoteSelector, character offsets).
    pub selector: Option<Selector>,
    /// Its number among the source's quotes, as `show` numbers them and `retract`
    /// takes it (0 where it was not read with one).
    #[serde(default)]
    pub number: u64,
}

/// A source just registered whose URL has the host and path of one registered before,
/// with another query (issue 19): perhaps one page, perhaps two, and only the writer can
/// tell. `add` names it in a note; nothing else follows from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LookAlike {
    /// The source registered now.
    pub id: u64,
    /// The source registered before that it looks like, and its URL.
    pub like_id: u64,
    pub like_url: String,
}

/// What `quote` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Attached {
    pub id: u64,
    /// Quotes the source carries now.
    pub quotes: u64,
    /// False when the same quote (by matching key) was already attached.
    pub added: bool,
    /// Where the quote sits in its snapshot (`None` for an imported quote).
    pub selector: Option<Selector>,
    /// blake3 of the evidence text, hex (`None` for an imported quote).
    pub snapshot: Option<String>,
    /// Other sources of the epoch the page text given with `--from` is stored for, as
    /// far as `SHARED_PAGE_LOOKBACK` (the ledger's) reaches; left out of JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub page_also_stored_for: Vec<u64>,
}

/// `(year, month, day)` of a `YYYY-MM-DD` access date; `None` for anything else
/// (`sources.py` ledgers are imported with their dates as recorded).
pub fn date_parts(accessed: &str) -> Option<(i32, u8, u8)> {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let d = time::Date::parse(accessed.trim(), fmt).ok()?;
    Some((d.year(), u8::from(d.month()), d.day()))
}

/// One record of the log as `log`, `show` and `export --format jsonl` present it.
///
/// A listing gives each transaction's origin once: the first entry it shows of a
/// transaction carries [`EntryOrigin::Shown`], and every later entry of that
/// transaction [`EntryOrigin::SameTransactionAs`] that entry's seq. Repeating the origin
/// would repeat the whole command line, so one `add` of k URLs would print k² URLs.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct LogEntry {
    pub seq: u64,
    /// Flattened: `time`, `pid`, `actor`, `command`, or `same_transaction_as`.
    #[serde(flatten)]
    pub origin: EntryOrigin,
    pub event: EventView,
    /// blake3 of this record, hex.
    pub hash: String,
    /// blake3 of the previous record, hex.
    pub prev: String,
}

/// Who made a change, when, and from which command, as a listing shows it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OriginView {
    /// RFC 3339, UTC.
    pub time: String,
    pub pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    pub command: Vec<String>,
}

/// Where a [`LogEntry`]'s origin is to be read.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum EntryOrigin {
    /// The first entry of its transaction in the listing carries the origin itself,
    /// even when the listing starts in the middle of the transaction (`log --id`).
    Shown(OriginView),
    /// A later entry of the same transaction: the seq of the entry, earlier in the same
    /// listing, that carries the origin. In the whole log that is the transaction's
    /// first record, the one the stored record's own provenance names.
    SameTransactionAs { same_transaction_as: u64 },
}

/// An event in a form meant for people and JSON readers.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventView {
    SourceAdded {
        epoch: u64,
        id: u64,
        url: String,
        url_given: String,
        title: String,
        accessed: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        via: Option<String>,
    },
    TitleSet {
        epoch: u64,
        id: u64,
        title: String,
    },
    Reset {
        new_epoch: u64,
    },
    QuoteAttached {
        epoch: u64,
        id: u64,
        text: String,
        /// blake3 of the page text the quote was checked against, hex.
        snapshot: String,
        /// Character offsets of the match in that text.
        start: u64,
        end: u64,
        added: String,
    },
    SnapshotStored {
        epoch: u64,
        id: u64,
        snapshot: String,
    },
    Imported {
        epoch: u64,
        from: String,
        sources: u64,
        quotes: u64,
    },
    QuoteImported {
        epoch: u64,
        id: u64,
        text: String,
        added: String,
    },
    QuoteRetracted {
        epoch: u64,
        id: u64,
        /// The quote's number, as `show` numbers them.
        quote: u64,
        reason: String,
    },
    TitleCorrected {
        epoch: u64,
        id: u64,
        title: String,
    },
    /// The text a quote was typed as, where it differs from the page's words stored for
    /// it (issue 20).
    QuoteTyped {
        epoch: u64,
        id: u64,
        /// The quote's number, as `show` numbers them.
        quote: u64,
        typed: String,
    },
    /// What tool output said about a source's page: the facts that changed.
    MetadataSet {
        epoch: u64,
        id: u64,
        metadata: PageMeta,
    },
}

/// A source with its history, for `show`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SourceDetail {
    pub epoch: u64,
    #[serde(flatten)]
    pub source: Source,
    pub url_given: String,
    /// Page texts stored for it (`add --snapshot`, `ingest`), as blake3 hex; a quote
    /// without page text of its own is checked against the last.
    pub snapshots: Vec<String>,
    /// Every page text of the source: those in `snapshots`, then those its quotes were
    /// checked against, each once (a retracted quote's page counts for nothing, as the
    /// quote does). What `verify --support` reads for it.
    pub page_texts: Vec<PageText>,
    /// Quotes that were retracted, each with why: they count for nothing, and stay
    /// on record (left out when there is none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retracted: Vec<RetractedQuote>,
    pub history: Vec<LogEntry>,
}

/// A page text of a source, as `show` lists it: what stored it, and, when asked for
/// (`show --text`), a part of the text.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct PageText {
    /// blake3 of the text, hex.
    pub snapshot: String,
    /// The seq of the record that stored it for the source with `add --snapshot` or
    /// `ingest` (its command is in `history`); left out when only quotes did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_at: Option<u64>,
    /// The numbers of the quotes checked against it (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<u64>,
    /// Its length in characters (Unicode scalar values, as selectors count them); with
    /// the text only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chars: Option<u64>,
    /// Where `text` starts, in characters; with the text only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The text from `offset`, as stored, at most as many characters as were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where the rest starts, when `text` stops before the end (left out at the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

/// A retracted quote of a source, as `show` lists it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RetractedQuote {
    #[serde(flatten)]
    pub quote: Quote,
    pub reason: String,
}

/// A source with the page texts stored for it (`add --snapshot`), as blake3 hex: what
/// the exports that carry snapshot hashes read.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SourceEntry {
    #[serde(flatten)]
    pub source: Source,
    pub snapshots: Vec<String>,
}

/// One record of the log with the exact bytes stored for it, whose blake3 is
/// `entry.hash`: what `export --format jsonl` writes.
#[derive(Clone, Debug)]
pub struct ChainEntry {
    pub entry: LogEntry,
    /// The stored bytes, lower-case hex.
    pub record: String,
}

/// One page of `list`: the sources, how many match in the whole epoch, and whether
/// more follow this page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub sources: Vec<Source>,
    /// Sources of the epoch that match the filter, on every page.
    pub matched: u64,
    /// The cursor for the next page (the last id shown), when more sources match.
    pub next: Option<u64>,
}

/// Per-route source counts, for `list --by-via`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RouteCount {
    /// `None` for sources registered without `--via`.
    pub via: Option<String>,
    pub count: u64,
}

/// What `retract` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Retracted {
    pub id: u64,
    /// The quote's number.
    pub quote: u64,
    /// The quote's text.
    pub text: String,
    /// Quotes of the source that still count.
    pub quotes: u64,
}

/// What `retitle` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Retitled {
    pub id: u64,
    /// The title before (empty for none).
    pub was: String,
    pub title: String,
}
