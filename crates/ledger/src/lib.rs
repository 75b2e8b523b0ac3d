//! Ledger operations: what `add`, `ingest`, `reset`, `import`, `list`, `log` and `show` mean,
//! and the application layer both front ends share ([`app`]).
//!
//! Turns checked requests into events and queries on the store ([`cite_store`]). Reads
//! no environment and prints nothing: the clock, pid, actor and command line arrive in a
//! [`Context`], so every event and hash is reproducible in tests. The values it hands
//! out are [`cite_core::model`]'s, re-exported here.

pub mod app;
pub mod audit;
pub mod confined;
mod copy;
pub mod import;
pub mod ingest;
pub mod input;
mod kept;
mod lead;
pub mod page_facts;
pub mod rewrite;
mod view;

pub use audit::{AuditReport, Rebuilt};
use cite_core::evidence::Selector;
pub use cite_core::model::{
    Attached, ChainEntry, EntryOrigin, EventView, LogEntry, LookAlike, OriginView, Page, PageMeta,
    Quote, Retitled, Retracted, RouteCount, Source, SourceDetail, SourceEntry, date_parts,
};
pub use cite_core::url;
pub use cite_store::{Location, PgEnv, file_kind};
pub use copy::Copied;
pub use view::{ListRequest, TextRequest, View};

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::macros::format_description;

use cite_core::evidence;
use cite_store::event::{
    self, Epoch, Event, Hash, Origin, PageFact, QuoteAttached, SourceAdded, SourceId, TextQuote,
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
    /// The first words are `sources.py`'s, which tools match on.
    #[error(
        "no urls found in input — {} — to register a page by hand, run `cite add URL`",
        ingest::LOOKED_FOR
    )]
    NoUrls,
    #[error("no source [{0}] in the ledger")]
    UnknownSource(u64),
    #[error(transparent)]
    Quote(#[from] evidence::QuoteError),
    /// The quote is not on the page ([`evidence::QuoteError::NotFound`], or for an
    /// elided quote the part that is not, whose message is the first line), with the
    /// passage closest to it when one is close enough to show.
    #[error("{refused}{}", second_line(.closest))]
    NotVerbatim {
        refused: evidence::QuoteError,
        closest: Option<evidence::Passage>,
    },
    #[error(
        "no evidence text for [{0}] — pass the fetched page with --from FILE (or - for stdin), or register it with `add URL --snapshot FILE`"
    )]
    NoEvidence(u64),
    #[error("--snapshot applies to one URL at a time (got {0})")]
    SnapshotNeedsOneUrl(usize),
    #[error("[{id}] has no quote {quote} — `show {id}` numbers its quotes")]
    UnknownQuote { id: u64, quote: u64 },
    /// `matching` page texts of source `id` have a hash starting with `snapshot` (not 1).
    #[error(
        "{} — `show {id}` lists its page texts with their hashes",
        if *matching == 0 {
            format!("[{id}] has no page text whose hash starts with {snapshot}")
        } else {
            format!("{matching} page texts of [{id}] have a hash starting with {snapshot}: give more of it")
        }
    )]
    NoSuchPageText {
        id: u64,
        snapshot: String,
        matching: usize,
    },
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
        page_text: !row.snapshots.is_empty(),
        metadata: page_meta(&row.facts),
    }
}

/// Facts about a page as the model shows them.
pub(crate) fn page_meta(facts: &[PageFact]) -> PageMeta {
    let mut meta = PageMeta::default();
    for fact in facts {
        match fact {
            PageFact::Published(d) => meta.published = Some(d.clone()),
            PageFact::Site(s) => meta.site = Some(s.clone()),
            PageFact::Language(l) => meta.language = Some(l.clone()),
            PageFact::Authors(a) => meta.authors = a.clone(),
        }
    }
    meta
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

/// What `add` registered, the other sources of the epoch its `--snapshot` page text is
/// stored for (as far as [`SHARED_PAGE_LOOKBACK`] reaches), and the sources registered
/// now that look like one registered before ([`LookAlike`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Added {
    pub sources: Vec<Source>,
    pub page_also_stored_for: Vec<u64>,
    /// Sources a title was given for that have another one already, which is kept: a
    /// wrong title is corrected with `retitle`, on purpose, not by the next `add`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub titles_kept: Vec<u64>,
    /// Defaulted: a lead of an earlier version answers without it.
    #[serde(default)]
    pub looks_like: Vec<LookAlike>,
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
    /// The sources whose page text came with the input and is stored now, in order.
    pub page_text_stored: Vec<u64>,
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
    /// As given, without credentials: what the event keeps of it.
    given: String,
    /// The canonical form.
    url: String,
    /// The canonical form before issue 19, when it differs ([`url::Canonical::earlier`]).
    earlier: Option<String>,
    title: String,
}

impl Candidate {
    /// A URL given, and what canonicalization made of it. `given` may hold credentials:
    /// they are dropped here, before anything records it.
    fn new(given: &str, canonical: url::Canonical, title: String) -> Candidate {
        Candidate {
            given: url::hide_credentials(given),
            url: canonical.url,
            earlier: canonical.earlier,
            title,
        }
    }
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
    /// Page text found beside a candidate (`ingest`): its index, and the text.
    pages: Vec<(usize, String)>,
    /// What the tool output said about a candidate's page (`ingest`): its index, and
    /// the facts.
    facts: Vec<(usize, Vec<PageFact>)>,
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
            let registrations: Vec<&Registration> = ready.iter().map(|(_, _, r)| r).collect();
            let hint = prefetch_of(&registrations);
            store.write_prefetched(first, self.wait, &hint, |w| {
                let pages = Pages::read(w, &registrations)?;
                let mut out = Vec::with_capacity(ready.len());
                let mut batch = Batch::new(&pages);
                let mut current = first;
                for (n, (i, origin, r)) in ready.iter().enumerate() {
                    if !same_asker(origin, current) {
                        w.start_group(origin.clone());
                        current = origin;
                    }
                    let added = register_in(w, r.clone(), &mut batch, n, &mut |_, _| {})?;
                    out.push((*i, added));
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
            candidates.push(Candidate::new(given, url::canonical(given)?, title.clone()));
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
            pages: Vec::new(),
            facts: Vec::new(),
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
        let (added, page_text_stored) =
            self.register_found_with_progress(ctx, found, via.as_deref(), progress)?;
        Ok(Ingested {
            sources: added.sources,
            skipped,
            page_text_stored,
        })
    }

    /// Registers URLs already found and canonicalized (by [`ingest::find_urls`] or
    /// [`ingest::find_urls_in_tool_output`]), in one transaction, with today's date:
    /// what `ingest` does once it has read its input, for callers that read their own
    /// (the agent hooks). One entry per URL, in order; nothing is written for none. The
    /// page text found with a URL is stored as its source's snapshot.
    pub fn register_found(
        &self,
        ctx: &Context,
        found: Vec<ingest::Found>,
        via: Option<&str>,
    ) -> Result<Added> {
        let via = via.map(check_route).transpose()?;
        Ok(self
            .register_found_with_progress(ctx, found, via.as_deref(), &mut |_, _| {})?
            .0)
    }

    fn register_found_with_progress(
        &self,
        ctx: &Context,
        found: Vec<ingest::Found>,
        via: Option<&str>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(Added, Vec<u64>)> {
        if found.is_empty() {
            return Ok((Added::default(), Vec::new()));
        }
        // A loop into an exact allocation, not a collect: a collect reuses the larger
        // list of found URLs in place, which then stays allocated for the whole write
        // (2.4 MiB more at the peak of a 100,000-URL ingest).
        let mut pages = Vec::new();
        let mut facts = Vec::new();
        let mut candidates: Vec<Candidate> = Vec::with_capacity(found.len());
        for (i, f) in found.into_iter().enumerate() {
            pages.extend(f.page.map(|page| (i, page)));
            if !f.facts.is_empty() {
                facts.push((i, f.facts));
            }
            // Only a query can hold what canonicalization removes since issue 19, so
            // only then is the URL canonicalized again for its earlier form.
            let earlier = f
                .given
                .contains('?')
                .then(|| url::canonical(&f.given).ok())
                .flatten()
                .and_then(|k| k.earlier);
            let canonical = url::Canonical {
                url: f.url,
                earlier,
                removed: Vec::new(),
            };
            candidates.push(Candidate::new(&f.given, canonical, f.title));
        }
        let with_page: Vec<usize> = pages.iter().map(|(i, _)| *i).collect();
        let registration = Registration {
            candidates,
            accessed: ctx.today(),
            via: via.map(str::to_string),
            snapshot: None,
            pages,
            facts,
        };
        let added = self.register(ctx, registration, progress)?;
        let stored = with_page.into_iter().map(|i| added.sources[i].id).collect();
        Ok((added, stored))
    }

    fn register(
        &self,
        ctx: &Context,
        registration: Registration,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Added> {
        let store = self.open_write()?;
        let hint = prefetch_of(&[&registration]);
        store.write_prefetched(&ctx.origin(), self.wait, &hint, |w| {
            let pages = Pages::read(w, &[&registration])?;
            let mut batch = Batch::new(&pages);
            register_in(w, registration.clone(), &mut batch, 0, progress)
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
    /// evidence, the source's latest `add --snapshot` text is used, or without one, the
    /// page its latest live quote was checked against. What is stored is
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
                // The source's own page, stored with `add --snapshot` (or, failing that,
                // the one its latest quote was checked against): nothing to note.
                _ => {
                    let hash = match row.snapshots.last() {
                        Some(hash) => *hash,
                        None => w
                            .numbered_quotes(epoch, sid)?
                            .into_iter()
                            .rev()
                            .filter(|q| q.retracted.is_none())
                            .find_map(|q| q.row.snapshot)
                            .ok_or(Error::NoEvidence(id))?,
                    };
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
        let store = match &self.kept {
            Some(kept) => kept.read_store(&self.location, self.wait)?,
            None => Store::open_read(&self.location, self.wait)?,
        };
        View::new(store, epoch)
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

/// [`evidence::accept`], with the closest passage on the page when the quote (or the
/// part of an elided quote) is not on it, so the writer can copy the exact words.
fn check_quote(text: &str, page: &str) -> Result<evidence::Accepted> {
    evidence::accept(text, page).map_err(|refused| {
        let missing = match &refused {
            evidence::QuoteError::NotFound => text,
            evidence::QuoteError::PartNotFound { text, .. } => text,
            _ => return refused.into(),
        };
        Error::NotVerbatim {
            closest: evidence::closest(missing, page),
            refused,
        }
    })
}

/// How many url index entries of one page (scheme, host and path) are read, over each of
/// http and https, for its other spellings and its look-alikes: more than one page has
/// spellings, and few enough that a page with thousands of queries (a forum's `item?id=`)
/// costs one short read.
const SPELLINGS_READ: usize = 32;

/// What a read before the write found among the sources of a candidate's page, for each
/// candidate not registered under its own forms: (registration, candidate) → [`Seen`].
///
/// The store's writer looks up URLs but reads no range of the url index, so the page is
/// read through a read snapshot taken before the write transaction. A CLI writer holds
/// the writer lock across both, so the snapshot is exact; a server takes the lock per
/// write, so a source another process registered in between can be missed, which costs
/// no more than a look-alike note or the id of a spelling stored before issue 19. What
/// the write acts on is looked up again inside it.
#[derive(Default)]
struct Pages {
    epoch: Option<Epoch>,
    seen: std::collections::HashMap<(usize, usize), Seen>,
}

/// Sources with a candidate's page, and the lowest id of each kind.
#[derive(Default)]
struct Seen {
    /// A spelling of the same page, stored before issue 19 (with its tracking parameters):
    /// canonicalized now, it is the candidate's URL or its twin.
    same: Option<(String, SourceId)>,
    /// Another query of the page: a look-alike.
    like: Option<(String, SourceId)>,
}

impl Seen {
    fn keep(slot: &mut Option<(String, SourceId)>, url: String, id: SourceId) {
        if slot.as_ref().is_none_or(|(_, kept)| id < *kept) {
            *slot = Some((url, id));
        }
    }
}

/// Candidates whose url index entries are read ahead in one round trip.
const READ_AHEAD: usize = 2000;

/// What registering `registrations` looks up in the url index: each candidate's forms
/// (`registered_as`), its page and the page's spellings with a query (`seen_on_page`).
/// A write of more candidates than one read ahead holds is a bulk write: it names them
/// in chunks, from inside the write ([`read_ahead`]).
fn prefetch_of(registrations: &[&Registration]) -> cite_store::backend::Prefetch {
    let total: usize = registrations.iter().map(|r| r.candidates.len()).sum();
    if total > READ_AHEAD {
        return cite_store::backend::Prefetch {
            bulk: true,
            ..Default::default()
        };
    }
    let candidates = registrations.iter().flat_map(|r| r.candidates.iter());
    lookups_of(candidates, true)
}

/// The url index keys and ranges registering `candidates` may look up; the ranges only
/// with `ranges` (an epoch with no source has none to read).
fn lookups_of<'c>(
    candidates: impl Iterator<Item = &'c Candidate>,
    ranges: bool,
) -> cite_store::backend::Prefetch {
    let mut hint = cite_store::backend::Prefetch {
        range_limit: SPELLINGS_READ,
        ..Default::default()
    };
    for c in candidates {
        let forms = [Some(c.url.clone()), c.earlier.clone()];
        for form in forms.into_iter().flatten() {
            hint.urls.extend(url::twin(&form));
            hint.urls.push(form);
        }
        if ranges && is_web(&c.url) {
            let page = url::page(&c.url).to_string();
            for page in std::iter::once(page.clone()).chain(url::twin(&page)) {
                hint.ranges.push(format!("{page}>"));
                hint.urls.push(page);
            }
        }
    }
    hint
}

/// Reads ahead, a chunk at a time, what registering `registrations` looks up: a bulk
/// write costs a round trip per chunk of URLs, not per URL.
fn read_ahead(w: &Writer<'_>, registrations: &[&Registration]) -> Result<()> {
    let ranges = !w.epoch_is_empty();
    let mut candidates = registrations.iter().flat_map(|r| r.candidates.iter());
    loop {
        let chunk: Vec<&Candidate> = candidates.by_ref().take(READ_AHEAD).collect();
        if chunk.is_empty() {
            return Ok(());
        }
        w.prefetch(&lookups_of(chunk.into_iter(), ranges))?;
    }
}

impl Pages {
    /// What the write's own snapshot holds under the candidates' pages, read before it
    /// registers any of them.
    fn read(w: &Writer<'_>, registrations: &[&Registration]) -> Result<Pages> {
        read_ahead(w, registrations)?;
        let epoch = w.epoch();
        if w.epoch_is_empty() {
            return Ok(Pages::default());
        }
        let mut seen = std::collections::HashMap::new();
        for (r, registration) in registrations.iter().enumerate() {
            for (i, c) in registration.candidates.iter().enumerate() {
                let found = seen_on_page(w, epoch, c)?;
                if found.same.is_some() || found.like.is_some() {
                    seen.insert((r, i), found);
                }
            }
        }
        Ok(Pages {
            epoch: Some(epoch),
            seen,
        })
    }
}

/// The sources of `epoch` that `reader` holds under `c`'s page (over http and https),
/// unless `c` is registered under its own forms.
fn seen_on_page(reader: &Writer<'_>, epoch: Epoch, c: &Candidate) -> Result<Seen> {
    let mut seen = Seen::default();
    if !is_web(&c.url)
        || reader.lookup(epoch, &c.url)?.is_some()
        || match &c.earlier {
            Some(e) => reader.lookup(epoch, e)?.is_some(),
            None => false,
        }
    {
        return Ok(seen);
    }
    let twin = url::twin(&c.url);
    let page = url::page(&c.url);
    for page in std::iter::once(page.to_string()).chain(url::twin(page)) {
        let mut consider = |stored: String, id: SourceId| {
            let now = url::canonicalize(&stored).ok();
            if now.as_deref() == Some(c.url.as_str()) || (now.is_some() && now == twin) {
                Seen::keep(&mut seen.same, stored, id);
            } else {
                Seen::keep(&mut seen.like, stored, id);
            }
        };
        if page != c.url
            && Some(&page) != twin.as_ref()
            && let Some(id) = reader.lookup(epoch, &page)?
        {
            consider(page.clone(), id);
        }
        // The entries `PAGE?…`: `>` sorts just before `?`, and no canonical URL has one
        // after its path (the url crate escapes it).
        let after = format!("{page}>");
        let queried = format!("{page}?");
        let entries = reader.url_page(epoch, &after, SPELLINGS_READ)?;
        for ((at, stored), id) in entries {
            if at != epoch.0 || !stored.starts_with(&queried) {
                break;
            }
            consider(stored, SourceId(id));
        }
    }
    Ok(seen)
}

fn is_web(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

/// One write transaction's registrations: what was read before it ([`Pages`]), and the
/// first source it registered per page, for the look-alikes among its own candidates.
struct Batch<'p> {
    pages: &'p Pages,
    /// The page without its scheme (http and https are one), hashed: 128 bits of blake3
    /// instead of a copy of the URL, as `ingest` dedupes.
    first_of_page: std::collections::HashMap<[u8; 16], SourceId>,
}

impl<'p> Batch<'p> {
    fn new(pages: &'p Pages) -> Batch<'p> {
        Batch {
            pages,
            first_of_page: std::collections::HashMap::new(),
        }
    }

    /// What was read of candidate `i` of registration `r`, if the read saw this epoch.
    fn seen(&self, epoch: Epoch, r: usize, i: usize) -> Option<&'p Seen> {
        (self.pages.epoch == Some(epoch))
            .then(|| self.pages.seen.get(&(r, i)))
            .flatten()
    }

    /// The page of an http(s) URL without its scheme, hashed; `None` for other schemes.
    fn page_key(url: &str) -> Option<[u8; 16]> {
        let page = url::page(url);
        let without_scheme = page
            .strip_prefix("https://")
            .or_else(|| page.strip_prefix("http://"))?;
        let digest = blake3::hash(without_scheme.as_bytes());
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest.as_bytes()[..16]);
        Some(key)
    }

    /// Notes `id` as registered now with the page of `key` ([`Batch::page_key`]), and
    /// returns the first source this transaction registered with it before, if any.
    fn registered(&mut self, key: [u8; 16], id: SourceId) -> Option<SourceId> {
        match self.first_of_page.entry(key) {
            std::collections::hash_map::Entry::Occupied(first) => Some(*first.get()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
                None
            }
        }
    }
}

/// The id `c` is registered under, and the url index key that gives it: the form an
/// existing ledger holds for this very spelling (so that an id handed out before issue 19
/// is the one handed out again), the canonical form, the twins of both, then a spelling
/// stored before issue 19 that the read before the write found by its page.
fn registered_as(
    w: &Writer<'_>,
    epoch: Epoch,
    c: &Candidate,
    seen: Option<&Seen>,
) -> Result<Option<(SourceId, String)>> {
    let twin = url::twin(&c.url);
    let twin_earlier = c.earlier.as_deref().and_then(url::twin);
    let keys = [
        c.earlier.as_deref(),
        Some(c.url.as_str()),
        twin_earlier.as_deref(),
        twin.as_deref(),
    ];
    for key in keys.into_iter().flatten() {
        if let Some(id) = w.lookup(epoch, key)? {
            return Ok(Some((id, key.to_string())));
        }
    }
    if let Some((stored, id)) = seen.and_then(|s| s.same.as_ref())
        && w.lookup(epoch, stored)? == Some(*id)
    {
        return Ok(Some((*id, stored.clone())));
    }
    Ok(None)
}

/// A source registered before `id` (registered now as `c`) with `c`'s page and another
/// query, if there is one: the one the read before the write found (checked again
/// here), else the first this transaction registered.
fn look_alike(
    w: &Writer<'_>,
    epoch: Epoch,
    c: &Candidate,
    id: SourceId,
    seen: Option<&Seen>,
    batch: &mut Batch<'_>,
) -> Result<Option<(SourceId, String)>> {
    let first_now = Batch::page_key(&c.url).and_then(|key| batch.registered(key, id));
    if let Some((stored, like)) = seen.and_then(|s| s.like.as_ref())
        && w.source(epoch, *like)?
            .is_some_and(|row| row.url == *stored)
    {
        return Ok(Some((*like, stored.clone())));
    }
    Ok(match first_now {
        Some(like) => w.source(epoch, like)?.map(|row| (like, row.url)),
        None => None,
    })
}

/// Registers one checked add, registration `r` of `batch`, in the transaction `w` is
/// writing.
fn register_in(
    w: &mut Writer<'_>,
    registration: Registration,
    batch: &mut Batch<'_>,
    r: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Added> {
    let Registration {
        candidates,
        accessed,
        via,
        snapshot,
        pages,
        facts,
    } = registration;
    let (accessed, via, snapshot) = (accessed.as_str(), via.as_deref(), snapshot.as_deref());
    let total = candidates.len() as u64;
    let epoch = w.epoch();
    let mut out = Vec::with_capacity(candidates.len());
    let mut titles_kept = Vec::new();
    let mut looks_like = Vec::new();
    // Candidates are consumed as they are registered, so a large ingest holds
    // each URL once, not once as input and again as output.
    for (done, (i, c)) in (1..).zip(candidates.into_iter().enumerate()) {
        progress(done, total);
        let seen = batch.seen(epoch, r, i);
        if let Some((id, key)) = registered_as(w, epoch, &c, seen)? {
            // The url index is a view: an entry that does not lead back to its own
            // URL must not hand out another source's id.
            let mut row = match w.source(epoch, id)? {
                Some(row) if row.url == key => row,
                other => {
                    return Err(StoreError::ViewsDisagree {
                        detail: format!(
                            "the url index gives {} as [{}], which is {}",
                            key,
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
        if let Some((like, like_url)) = look_alike(w, epoch, &c, id, seen, batch)? {
            looks_like.push(LookAlike {
                id: id.0,
                like_id: like.0,
                like_url,
            });
        }
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
            page_text: false,
            metadata: PageMeta::default(),
        });
    }
    for (i, text) in pages {
        let source = &mut out[i];
        store_page(w, epoch, SourceId(source.id), &text)?;
        source.page_text = true;
    }
    for (i, found) in facts {
        let source = &mut out[i];
        store_facts(w, epoch, SourceId(source.id), found)?;
        source.metadata = page_meta(
            &w.source(epoch, SourceId(source.id))?
                .map(|row| row.facts)
                .unwrap_or_default(),
        );
    }
    let mut page_also_stored_for = Vec::new();
    if let (Some(text), [only]) = (snapshot, out.as_mut_slice()) {
        let id = SourceId(only.id);
        let (hash, stored_before) = store_page(w, epoch, id, text)?;
        if stored_before {
            page_also_stored_for = page_holders(w, epoch, &hash, id)?;
        }
        only.page_text = true;
    }
    Ok(Added {
        sources: out,
        page_also_stored_for,
        titles_kept,
        looks_like,
    })
}

/// Stores `text` as a page text of source `id` (content-addressed, once per text), and
/// records it for the source unless it already is; returns its hash and whether the text
/// was stored before, for any source. What `add --snapshot` and the page text `ingest`
/// finds both do.
fn store_page(w: &mut Writer<'_>, epoch: Epoch, id: SourceId, text: &str) -> Result<(Hash, bool)> {
    let (hash, stored_before) = w.put_snapshot(text)?;
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
    Ok((hash, stored_before))
}

/// Records `found` for source `id`: the facts whose value differs from the one the
/// source holds, in one record, and none when all are held already (an ingest of the same
/// tool output again writes nothing).
fn store_facts(w: &mut Writer<'_>, epoch: Epoch, id: SourceId, found: Vec<PageFact>) -> Result<()> {
    let held = w
        .source(epoch, id)?
        .map(|row| row.facts)
        .unwrap_or_default();
    let facts: Vec<PageFact> = found.into_iter().filter(|f| !held.contains(f)).collect();
    if !facts.is_empty() {
        w.append(Event::MetadataSet { epoch, id, facts })?;
    }
    Ok(())
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
