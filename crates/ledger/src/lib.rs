//! Ledger operations: what `add`, `ingest`, `reset`, `import`, `list`, `log` and `show` mean,
//! and the application layer both front ends share ([`app`]).
//!
//! Turns checked requests into events and queries on the store ([`cite_store`]). Reads
//! no environment and prints nothing: the clock, pid, actor and command line arrive in a
//! [`Context`], so every event and hash is reproducible in tests. The values it hands
//! out are [`cite_core::model`]'s, re-exported here.

pub mod app;
pub mod audit;
mod copy;
pub mod import;
pub mod ingest;
pub mod input;
mod kept;
mod lead;
pub mod rewrite;
mod view;

pub use audit::{AuditReport, Rebuilt};
use cite_core::evidence::Selector;
pub use cite_core::model::{
    Attached, ChainEntry, EntryOrigin, EventView, LogEntry, OriginView, Page, Quote, Retitled,
    Retracted, RouteCount, Source, SourceDetail, SourceEntry, date_parts,
};
pub use cite_core::url;
pub use cite_store::Location;
pub use copy::Copied;
pub use view::{ListRequest, View};

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::macros::format_description;

use cite_core::evidence;
use cite_store::event::{
    self, Epoch, Event, Hash, Origin, QuoteAttached, SourceAdded, SourceId, TextQuote,
};
use cite_store::lock::LockMode;
use cite_store::tables::{QuoteRow, SourceRow};
use cite_store::{Store, StoreError, Writer};

/// Errors of ledger operations. [`Error::is_usage`] tells the caller's mistakes (bad
/// arguments, unreadable input) from failed operations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Url(#[from] url::UrlError),
    #[error("not a date: {0:?} — give the access date as YYYY-MM-DD")]
    Date(String),
    #[error("not a route name: {0:?} — use one word such as web, reddit, rss, video, code or x")]
    Route(String),
    #[error("input is not valid JSON ({0})")]
    Json(String),
    #[error("no urls found in input")]
    NoUrls,
    #[error("no source [{0}] in the ledger")]
    UnknownSource(u64),
    #[error(transparent)]
    Quote(#[from] evidence::QuoteError),
    /// The quote is not on the page ([`evidence::QuoteError::NotFound`], whose message
    /// is the first line), with the closest passage when one is close enough to show.
    #[error("{}{}", evidence::QuoteError::NotFound, second_line(.closest))]
    NotVerbatim { closest: Option<evidence::Passage> },
    #[error(
        "no evidence text for [{0}] — pass the fetched page with --from FILE (or - for stdin), or register it with `add URL --snapshot FILE`"
    )]
    NoEvidence(u64),
    #[error("--snapshot applies to one URL at a time (got {0})")]
    SnapshotNeedsOneUrl(usize),
    #[error("[{id}] has no quote {quote} — `show {id}` numbers its quotes")]
    UnknownQuote { id: u64, quote: u64 },
    #[error("quote {quote} of [{id}] is retracted already")]
    AlreadyRetracted { id: u64, quote: u64 },
    #[error("give the reason for {what}: it stays in the log beside it")]
    NoReason { what: &'static str },
    #[error("give the new title: it cannot be empty")]
    EmptyTitle,
    #[error("no epoch {asked} in the ledger (the current epoch is {current})")]
    UnknownEpoch { asked: u64, current: u64 },
    #[error(transparent)]
    Import(#[from] import::ImportError),
    /// Another call committed in the same transaction failed it (see `Ledger::add`).
    #[error(
        "{0} (this call shared a commit with another that failed; nothing of it was written — call again)"
    )]
    CommittedTogether(String),
    #[error("there is no ledger at {0} to copy — check the FROM location")]
    NothingToCopy(String),
}

impl Error {
    /// True for the caller's mistakes (exit 2 in the CLI), false for failed operations.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Url(_)
                | Error::Date(_)
                | Error::Route(_)
                | Error::Json(_)
                | Error::SnapshotNeedsOneUrl(_)
                | Error::NoReason { .. }
                | Error::EmptyTitle
                | Error::Store(StoreError::Folder { .. })
        ) || matches!(self, Error::Import(e) if e.is_usage())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Who is acting and when: becomes the [`Origin`] of every record written.
#[derive(Clone, Debug)]
pub struct Context {
    pub now: OffsetDateTime,
    pub pid: u32,
    pub actor: Option<String>,
    pub command: Vec<String>,
}

impl Context {
    fn origin(&self) -> Origin {
        Origin {
            at_ns: self.now.unix_timestamp_nanos(),
            pid: self.pid,
            actor: self.actor.clone(),
            command: self.command.clone(),
        }
    }

    fn today(&self) -> String {
        format_date(self.now.date())
    }
}

fn format_date(date: time::Date) -> String {
    date.format(format_description!("[year]-[month]-[day]"))
        .expect("a calendar date formats")
}

/// A stored quote as the ledger hands it out.
fn quote_of(q: QuoteRow) -> Quote {
    Quote {
        text: q.text,
        added: q.added,
        snapshot: q.snapshot.as_ref().map(event::hex),
        selector: q.selector.map(selector_of),
        number: 0,
    }
}

/// The fragment that marks an alias's URL: an import of a `sources.py` ledger that
/// lists one page under two ids keeps both (issue 19); the later is stored under the
/// earlier's canonical URL with `#cite-alias-of-N` after it. A canonical URL never has
/// a fragment (canonicalization drops it), so the mark cannot collide with a page, and
/// no `add` can make one; the url index keeps the page's own URL for the earlier id.
pub const ALIAS_FRAGMENT: &str = "#cite-alias-of-";

/// The URL an alias of source `of` is stored under.
pub fn alias_url(url: &str, of: u64) -> String {
    format!("{url}{ALIAS_FRAGMENT}{of}")
}

/// For a URL an alias is stored under: the page's URL and the id it is an alias of.
pub fn alias_of(url: &str) -> Option<(&str, u64)> {
    let (page, of) = url.rsplit_once(ALIAS_FRAGMENT)?;
    let of = of.parse().ok().filter(|&n: &u64| n >= 1)?;
    Some((page, of))
}

/// A stored source, with its quotes, as the ledger hands it out.
fn source_of(id: SourceId, row: SourceRow, quotes: Vec<Quote>) -> Source {
    Source {
        id: id.0,
        url: row.url,
        title: row.title,
        accessed: row.accessed,
        quotes,
        via: row.via,
        alias_of: None,
    }
}

/// A selector as the log stores it.
pub(crate) fn text_quote(s: Selector) -> TextQuote {
    TextQuote {
        exact: s.exact,
        prefix: s.prefix,
        suffix: s.suffix,
        start: s.start,
        end: s.end,
    }
}

/// A stored selector as the ledger hands it out.
fn selector_of(t: TextQuote) -> Selector {
    Selector {
        exact: t.exact,
        prefix: t.prefix,
        suffix: t.suffix,
        start: t.start,
        end: t.end,
    }
}

/// What `add` registered, and the other sources of the epoch its `--snapshot` page text
/// is stored for (as far as [`SHARED_PAGE_LOOKBACK`] reaches).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Added {
    pub sources: Vec<Source>,
    pub page_also_stored_for: Vec<u64>,
    /// Sources a title was given for that have another one already, which is kept: a
    /// wrong title is corrected with `retitle`, on purpose, not by the next `add`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub titles_kept: Vec<u64>,
}

/// How many of the latest records are read to find the other sources a page text is
/// stored for. No table maps a snapshot to its sources, and scanning every quote of a
/// large epoch on each `quote` would cost more than the check itself; a page shared by
/// two sources is nearly always shared within one session, so the recent log is where
/// to look. The lookup runs only when the text was stored before this write (one key
/// lookup says so), and never reads past the start of the epoch.
pub const SHARED_PAGE_LOOKBACK: usize = 4096;

/// A request to register URLs, checked before the store is touched.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AddRequest {
    pub urls: Vec<String>,
    /// Applies only when exactly one URL is given, as in `sources.py`.
    pub title: Option<String>,
    /// `YYYY-MM-DD`; today when absent.
    pub accessed: Option<String>,
    pub via: Option<String>,
    /// Page text to store for the source; only with exactly one URL.
    pub snapshot: Option<String>,
}

/// What `ingest` registered, and what it had to skip.
#[derive(Clone, Debug)]
pub struct Ingested {
    pub sources: Vec<Source>,
    pub skipped: Vec<ingest::Skipped>,
}

/// A ledger file and how long its writers wait.
#[derive(Clone, Debug)]
pub struct Ledger {
    location: Location,
    wait: Duration,
    /// For a server: the store it keeps open, and the queue of its group commits.
    kept: Option<Arc<kept::Kept>>,
}

/// A title as stored: trimmed, and each line break with the whitespace around it made
/// one space, so every rendered entry stays on one line; a tab is a space, and every
/// other control character is U+FFFD. Titles come from web pages: an escape sequence in
/// one must never reach a terminal. Other spacing is kept as given, as `sources.py`
/// keeps it.
pub fn clean_title(title: &str) -> String {
    title
        .split([
            '\n', '\r', '\u{2028}', '\u{2029}', '\u{85}', '\u{b}', '\u{c}',
        ])
        .map(str::trim)
        .filter(|piece| !piece.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| match c {
            '\t' => ' ',
            c if cite_core::text::is_terminal_control(c) => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// Checks an access date: `YYYY-MM-DD`, a real calendar day.
pub fn check_date(s: &str) -> Result<String> {
    let s = s.trim();
    let fmt = format_description!("[year]-[month]-[day]");
    time::Date::parse(s, fmt)
        .map(format_date)
        .map_err(|_| Error::Date(s.to_string()))
}

/// Checks a route name: one word of letters, digits, `_`, `.` or `-`.
pub fn check_route(s: &str) -> Result<String> {
    let ok = s.chars().next().is_some_and(|c| c.is_alphanumeric())
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if ok && s.len() <= 64 {
        Ok(s.to_string())
    } else {
        Err(Error::Route(s.to_string()))
    }
}

#[derive(Clone)]
struct Candidate {
    given: String,
    url: String,
    title: String,
}

/// Whether two origins are of one asker (one process, actor and command line), whose
/// adds are one group in a shared commit whatever their times.
fn same_asker(a: &Origin, b: &Origin) -> bool {
    a.pid == b.pid && a.actor == b.actor && a.command == b.command
}

/// An add checked and ready to register.
#[derive(Clone)]
struct Registration {
    candidates: Vec<Candidate>,
    accessed: String,
    via: Option<String>,
    snapshot: Option<String>,
}

impl Ledger {
    pub fn new(location: impl Into<Location>, wait: Duration) -> Ledger {
        Ledger {
            location: location.into(),
            wait,
            kept: None,
        }
    }

    /// Where the ledger is: a file, or a PostgreSQL database.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The longest a writer waits for another process holding the ledger.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// The store to write: this process's own, opened now and closed when dropped, or
    /// the one a server keeps open.
    fn open_write(&self) -> Result<kept::Writable<'_>> {
        match &self.kept {
            Some(kept) => kept.store(&self.location, self.wait),
            None => Ok(kept::Writable::Own(Store::open_write(
                &self.location,
                LockMode::Write,
                self.wait,
            )?)),
        }
    }

    /// Registers each URL; returns one entry per input, duplicates included. Re-adding
    /// returns the existing id; a title given later fills an empty title.
    pub fn add(&self, ctx: &Context, req: &AddRequest) -> Result<Added> {
        if let Some(answer) = self.kept.as_ref().and_then(|k| k.add(ctx, req.clone())) {
            return answer;
        }
        let r = self.prepare_add(ctx, req)?;
        self.register(ctx, r, &mut |_, _| {})
    }

    /// Several adds in one durable transaction, for a group commit: one result per
    /// item, in order. An add refused on its own (a value that is not a URL, a bad date)
    /// is refused alone; if the transaction fails, every add in it fails and nothing of
    /// any is written. Each run of adds from one process is written under that process's
    /// origin (a server commits other servers' adds too: `lead.rs`).
    fn add_together(&self, items: &[(Context, AddRequest)]) -> Vec<Result<Added>> {
        let mut results: Vec<Option<Result<Added>>> = Vec::with_capacity(items.len());
        let mut ready = Vec::new();
        for (i, (ctx, req)) in items.iter().enumerate() {
            match self.prepare_add(ctx, req) {
                Ok(r) => {
                    ready.push((i, ctx.origin(), r));
                    results.push(None);
                }
                Err(e) => results.push(Some(Err(e))),
            }
        }
        let Some((_, first, _)) = ready.first() else {
            return results.into_iter().flatten().collect();
        };
        let written = self.open_write().and_then(|store| {
            store.write(first, self.wait, |w| {
                let mut out = Vec::with_capacity(ready.len());
                let mut current = first;
                for (i, origin, r) in &ready {
                    if !same_asker(origin, current) {
                        w.start_group(origin.clone());
                        current = origin;
                    }
                    out.push((*i, register_in(w, r.clone(), &mut |_, _| {})?));
                }
                Ok::<_, Error>(out)
            })
        });
        match written {
            Ok(out) => {
                for (i, added) in out {
                    results[i] = Some(Ok(added));
                }
            }
            Err(e) => {
                let reason = e.to_string();
                let mut first = Some(e);
                for (i, _, _) in &ready {
                    results[*i] = Some(Err(first
                        .take()
                        .unwrap_or_else(|| Error::CommittedTogether(reason.clone()))));
                }
            }
        }
        results
            .into_iter()
            .map(|r| r.expect("every request has a result"))
            .collect()
    }

    /// Checks an add and makes its candidates: everything [`Ledger::add`] refuses is
    /// refused here, before the store is opened.
    fn prepare_add(&self, ctx: &Context, req: &AddRequest) -> Result<Registration> {
        let title = match req.urls.len() {
            1 => clean_title(req.title.as_deref().unwrap_or("")),
            _ => String::new(),
        };
        let mut candidates = Vec::with_capacity(req.urls.len());
        for given in &req.urls {
            candidates.push(Candidate {
                url: url::canonicalize(given)?,
                given: given.clone(),
                title: title.clone(),
            });
        }
        let accessed = match &req.accessed {
            Some(d) => check_date(d)?,
            None => ctx.today(),
        };
        let via = req.via.as_deref().map(check_route).transpose()?;
        if req.snapshot.is_some() && req.urls.len() != 1 {
            return Err(Error::SnapshotNeedsOneUrl(req.urls.len()));
        }
        Ok(Registration {
            candidates,
            accessed,
            via,
            snapshot: req.snapshot.clone(),
        })
    }

    /// Registers every URL found in JSON tool output, in one transaction.
    /// Takes the input by value so that it is freed once parsed: a large ingest holds
    /// the URLs it found, not the document they came in.
    pub fn ingest(&self, ctx: &Context, json: String, via: Option<&str>) -> Result<Ingested> {
        self.ingest_with_progress(ctx, json, via, &mut |_, _| {})
    }

    /// [`Ledger::ingest`], calling `progress(done, total)` as each URL is registered.
    pub fn ingest_with_progress(
        &self,
        ctx: &Context,
        json: String,
        via: Option<&str>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Ingested> {
        let via = via.map(check_route).transpose()?;
        let (found, skipped) = ingest::find_urls(&json)?;
        drop(json);
        if found.is_empty() {
            return Err(Error::NoUrls);
        }
        let sources = self.register_found_with_progress(ctx, found, via.as_deref(), progress)?;
        Ok(Ingested { sources, skipped })
    }

    /// Registers URLs already found and canonicalized (by [`ingest::find_urls`] or
    /// [`ingest::find_urls_in_tool_output`]), in one transaction, with today's date:
    /// what `ingest` does once it has read its input, for callers that read their own
    /// (the agent hooks). One entry per URL, in order; nothing is written for none.
    pub fn register_found(
        &self,
        ctx: &Context,
        found: Vec<ingest::Found>,
        via: Option<&str>,
    ) -> Result<Vec<Source>> {
        let via = via.map(check_route).transpose()?;
        self.register_found_with_progress(ctx, found, via.as_deref(), &mut |_, _| {})
    }

    fn register_found_with_progress(
        &self,
        ctx: &Context,
        found: Vec<ingest::Found>,
        via: Option<&str>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<Source>> {
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let candidates: Vec<Candidate> = found
            .into_iter()
            .map(|f| Candidate {
                given: f.given,
                url: f.url,
                title: f.title,
            })
            .collect();
        let registration = Registration {
            candidates,
            accessed: ctx.today(),
            via: via.map(str::to_string),
            snapshot: None,
        };
        Ok(self.register(ctx, registration, progress)?.sources)
    }

    fn register(
        &self,
        ctx: &Context,
        registration: Registration,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Added> {
        let store = self.open_write()?;
        store.write(&ctx.origin(), self.wait, |w| {
            register_in(w, registration.clone(), progress)
        })
    }

    /// Starts a fresh numbering: the next epoch, ids from 1. A current epoch with no
    /// sources is already fresh, so nothing is appended then.
    pub fn reset(&self, ctx: &Context) -> Result<Epoch> {
        let store = self.open_write()?;
        let origin = ctx.origin();
        store.write(&origin, self.wait, |w| {
            let epoch = w.epoch();
            if w.epoch_is_empty() {
                return Ok::<_, Error>(epoch);
            }
            let new_epoch = Epoch(epoch.0.checked_add(1).ok_or(StoreError::Invariant {
                seq: 0,
                reason: "no epoch is left after this one".into(),
            })?);
            w.append(Event::Reset { new_epoch })?;
            Ok(new_epoch)
        })
    }

    /// Attaches `text` to source `id` after checking that it appears verbatim in
    /// `evidence` (the fetched page text), which is stored as a snapshot. With no
    /// evidence, the source's latest `add --snapshot` text is used. What is stored is
    /// the page's words for the match (issue 20), so a link target or a character only
    /// the quote had never becomes evidence; where `text` differs from them, a
    /// `QuoteTyped` record keeps it beside them in the log. The same words twice are
    /// stored once.
    pub fn quote(
        &self,
        ctx: &Context,
        id: u64,
        text: &str,
        evidence: Option<&str>,
    ) -> Result<Attached> {
        let text = text.trim();
        // Check the wording first, as `sources.py` does: a paraphrase is refused before
        // the ledger is even opened.
        let checked = match evidence {
            Some(page) => Some(check_quote(text, page)?),
            None if evidence::quote_words(text) < 3 => {
                return Err(evidence::QuoteError::TooShort.into());
            }
            None => None,
        };
        let store = self.open_write()?;
        let origin = ctx.origin();
        store.write(&origin, self.wait, |w| {
            let epoch = w.epoch();
            let mut sid = SourceId(id);
            let mut row = w.source(epoch, sid)?.ok_or(Error::UnknownSource(id))?;
            // An alias's evidence is its source's: the quote goes there, and both ids
            // show it.
            if let Some((_, of)) = alias_of(&row.url) {
                sid = SourceId(of);
                row = w.source(epoch, sid)?.ok_or(Error::UnknownSource(of))?;
            }
            let (accepted, snapshot, page_also_stored_for) = match (checked.clone(), evidence) {
                (Some(accepted), Some(page)) => {
                    let (hash, stored_before) = w.put_snapshot(page)?;
                    let shared = if stored_before {
                        page_holders(w, epoch, &hash, sid)?
                    } else {
                        Vec::new()
                    };
                    (accepted, hash, shared)
                }
                // The source's own page, stored with `add --snapshot`: nothing to note.
                _ => {
                    let hash = *row.snapshots.last().ok_or(Error::NoEvidence(id))?;
                    let page = w.snapshot_text(&hash)?.ok_or(StoreError::CorruptedEntry {
                        what: format!("the snapshot of [{id}]"),
                        reason: "missing from the snapshots table".into(),
                    })?;
                    (check_quote(text, &page)?, hash, Vec::new())
                }
            };
            if let Some(q) = stored_already(w, epoch, sid, &accepted.words)? {
                return Ok(Attached {
                    id,
                    quotes: row.quotes,
                    added: false,
                    selector: q.selector.clone().map(selector_of),
                    snapshot: q.snapshot.as_ref().map(event::hex),
                    page_also_stored_for,
                });
            }
            let number = w.numbered_quotes(epoch, sid)?.iter().map(|q| q.n).max();
            w.append(Event::QuoteAttached(QuoteAttached {
                epoch,
                id: sid,
                text: accepted.words.clone(),
                snapshot,
                selector: text_quote(accepted.selector.clone()),
                added: ctx.today(),
            }))?;
            if accepted.words != text {
                w.append(Event::QuoteTyped {
                    epoch,
                    id: sid,
                    quote: number.unwrap_or(0) + 1,
                    typed: text.to_string(),
                })?;
            }
            let selector = accepted.selector;
            Ok::<_, Error>(Attached {
                id,
                quotes: row.quotes + 1,
                added: true,
                selector: Some(selector),
                snapshot: Some(event::hex(&snapshot)),
                page_also_stored_for,
            })
        })
    }

    /// Retracts quote `quote` of source `id` (its number, as `show` gives it), for
    /// `reason`: a `QuoteRetracted` record. The quote stays in the log and in `show`, and
    /// counts for nothing any more (`verify --evidence`, the evidence style, exports).
    /// An alias's quotes are its source's, so the retraction is the source's.
    pub fn retract(&self, ctx: &Context, id: u64, quote: u64, reason: &str) -> Result<Retracted> {
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(Error::NoReason {
                what: "a retraction",
            });
        }
        let store = self.open_write()?;
        store.write(&ctx.origin(), self.wait, |w| {
            let epoch = w.epoch();
            let (sid, _) = source_or_alias_target(w, epoch, id)?;
            let had = w.numbered_quotes(epoch, sid)?;
            let q = had
                .iter()
                .find(|q| q.n == quote)
                .ok_or(Error::UnknownQuote { id, quote })?;
            if q.retracted.is_some() {
                return Err(Error::AlreadyRetracted { id, quote });
            }
            w.append(Event::QuoteRetracted {
                epoch,
                id: sid,
                quote,
                reason: reason.to_string(),
            })?;
            let left = had.iter().filter(|q| q.retracted.is_none()).count() as u64 - 1;
            Ok(Retracted {
                id,
                quote,
                text: q.row.text.clone(),
                quotes: left,
            })
        })
    }

    /// Corrects the title of source `id`: a `TitleCorrected` record. The earlier title
    /// stays in the log; everything shows the new one.
    pub fn retitle(&self, ctx: &Context, id: u64, title: &str) -> Result<Retitled> {
        let title = clean_title(title);
        if title.is_empty() {
            return Err(Error::EmptyTitle);
        }
        let store = self.open_write()?;
        store.write(&ctx.origin(), self.wait, |w| {
            let epoch = w.epoch();
            let sid = SourceId(id);
            let row = w.source(epoch, sid)?.ok_or(Error::UnknownSource(id))?;
            if row.title != title {
                w.append(Event::TitleCorrected {
                    epoch,
                    id: sid,
                    title: title.clone(),
                })?;
            }
            Ok(Retitled {
                id,
                was: row.title,
                title: title.clone(),
            })
        })
    }

    /// A read-only view of `epoch` (the current one when `None`). Creates nothing.
    pub fn view(&self, epoch: Option<u64>) -> Result<View> {
        View::new(Store::open_read(&self.location, self.wait)?, epoch)
    }
}

/// Source `id`, or for an alias the source whose page and quotes it shares: its id and
/// row.
fn source_or_alias_target(w: &Writer<'_>, epoch: Epoch, id: u64) -> Result<(SourceId, SourceRow)> {
    let row = w
        .source(epoch, SourceId(id))?
        .ok_or(Error::UnknownSource(id))?;
    match alias_of(&row.url) {
        Some((_, of)) => {
            let row = w
                .source(epoch, SourceId(of))?
                .ok_or(Error::UnknownSource(of))?;
            Ok((SourceId(of), row))
        }
        None => Ok((SourceId(id), row)),
    }
}

/// The closest passage as the second line of [`Error::NotVerbatim`], if there is one.
fn second_line(closest: &Option<evidence::Passage>) -> String {
    closest
        .as_ref()
        .map(|p| format!("\n{}", p.hint()))
        .unwrap_or_default()
}

/// The quote of source `sid` that holds the same words as `words`, if one does.
fn stored_already(
    w: &Writer<'_>,
    epoch: Epoch,
    sid: SourceId,
    words: &str,
) -> Result<Option<QuoteRow>> {
    let key = evidence::match_key(words);
    Ok(w.quotes(epoch, sid)?
        .into_iter()
        .find(|q| evidence::match_key(&q.text) == key))
}

/// [`evidence::accept`], with the closest passage on the page when the quote is not on
/// it, so the writer can copy the exact words.
fn check_quote(text: &str, page: &str) -> Result<evidence::Accepted> {
    evidence::accept(text, page).map_err(|e| match e {
        evidence::QuoteError::NotFound => Error::NotVerbatim {
            closest: evidence::closest(text, page),
        },
        e => e.into(),
    })
}

/// Registers one checked add in the transaction `w` is writing.
fn register_in(
    w: &mut Writer<'_>,
    registration: Registration,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Added> {
    let Registration {
        candidates,
        accessed,
        via,
        snapshot,
    } = registration;
    let (accessed, via, snapshot) = (accessed.as_str(), via.as_deref(), snapshot.as_deref());
    let total = candidates.len() as u64;
    let epoch = w.epoch();
    let mut out = Vec::with_capacity(candidates.len());
    let mut titles_kept = Vec::new();
    // Candidates are consumed as they are registered, so a large ingest holds
    // each URL once, not once as input and again as output.
    for (done, c) in (1..).zip(candidates) {
        progress(done, total);
        if let Some(id) = w.lookup(epoch, &c.url)? {
            // The url index is a view: an entry that does not lead back to its own
            // URL must not hand out another source's id.
            let mut row = match w.source(epoch, id)? {
                Some(row) if row.url == c.url => row,
                other => {
                    return Err(StoreError::ViewsDisagree {
                        detail: format!(
                            "the url index gives {} as [{}], which is {}",
                            c.url,
                            id.0,
                            other.map_or("missing".to_string(), |r| r.url)
                        ),
                    }
                    .into());
                }
            };
            if row.title.is_empty() && !c.title.is_empty() {
                w.append(Event::TitleSet {
                    epoch,
                    id,
                    title: c.title.clone(),
                })?;
                row.title = c.title;
            } else if !c.title.is_empty() && c.title != row.title {
                titles_kept.push(id.0);
            }
            let quotes = if row.quotes > 0 {
                w.quotes(epoch, id)?.into_iter().map(quote_of).collect()
            } else {
                Vec::new()
            };
            out.push(source_of(id, row, quotes));
            continue;
        }
        let id = w.next_id(epoch)?;
        let added = SourceAdded {
            epoch,
            id,
            url_given: c.given,
            url: c.url.clone(),
            title: c.title.clone(),
            accessed: accessed.to_string(),
            via: via.map(str::to_string),
        };
        w.append(Event::SourceAdded(added))?;
        out.push(Source {
            id: id.0,
            url: c.url,
            title: c.title,
            accessed: accessed.to_string(),
            quotes: Vec::new(),
            via: via.map(str::to_string),
            alias_of: None,
        });
    }
    let mut page_also_stored_for = Vec::new();
    if let (Some(text), [only]) = (snapshot, out.as_slice()) {
        let id = SourceId(only.id);
        let (hash, stored_before) = w.put_snapshot(text)?;
        if stored_before {
            page_also_stored_for = page_holders(w, epoch, &hash, id)?;
        }
        let known = w
            .source(epoch, id)?
            .is_some_and(|r| r.snapshots.contains(&hash));
        if !known {
            w.append(Event::SnapshotStored {
                epoch,
                id,
                snapshot: hash,
            })?;
        }
    }
    Ok(Added {
        sources: out,
        page_also_stored_for,
        titles_kept,
    })
}

/// The sources of `epoch` other than `id` that the latest [`SHARED_PAGE_LOOKBACK`]
/// records attach the page text `hash` to (a quote checked against it, or `add
/// --snapshot`), in id order. Stops at the epoch's start, and at a record that does not
/// decode: the note is a courtesy, and damage is `audit`'s to report, not a reason to
/// refuse the quote.
fn page_holders(
    w: &Writer<'_>,
    epoch: Epoch,
    hash: &Hash,
    id: SourceId,
) -> Result<Vec<u64>, StoreError> {
    let mut holders = std::collections::BTreeSet::new();
    for event in w.recent_events(SHARED_PAGE_LOOKBACK)? {
        let (at, holder, page) = match event {
            Ok(Event::SnapshotStored {
                epoch,
                id,
                snapshot,
            }) => (epoch, id, snapshot),
            Ok(Event::QuoteAttached(q)) => (q.epoch, q.id, q.snapshot),
            Ok(Event::Reset { .. }) | Err(StoreError::Corrupted { .. }) => break,
            Ok(_) => continue,
            Err(e) => return Err(e),
        };
        if at == epoch && holder != id && page == *hash {
            holders.insert(holder.0);
        }
    }
    Ok(holders.into_iter().collect())
}
