//! Ledger operations: what `add`, `ingest`, `reset`, `list`, `log` and `show` mean.
//!
//! Turns checked requests into events and queries on the [`store`](crate::store). Reads no
//! environment and prints nothing: the clock, pid, actor and command line arrive in a
//! [`Context`], so every event and hash is reproducible in tests.

pub mod ingest;
pub mod url;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

use crate::store::event::{self, Epoch, Event, Origin, Record, Seq, SourceAdded, SourceId};
use crate::store::lock::LockMode;
use crate::store::tables::SourceRow;
use crate::store::{Reader, Store, StoreError, StoredSource};

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
    #[error("no epoch {asked} in the ledger (the current epoch is {current})")]
    UnknownEpoch { asked: u64, current: u64 },
}

impl Error {
    /// True for the caller's mistakes (exit 2 in the CLI), false for failed operations.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Url(_) | Error::Date(_) | Error::Route(_) | Error::Json(_)
        )
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

/// A source as commands show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub id: u64,
    pub url: String,
    pub title: String,
    pub accessed: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

impl Source {
    fn from_row(id: SourceId, row: SourceRow) -> Source {
        Source {
            id: id.0,
            url: row.url,
            title: row.title,
            accessed: row.accessed,
            via: row.via,
        }
    }
}

impl From<StoredSource> for Source {
    fn from(s: StoredSource) -> Source {
        Source::from_row(s.id, s.row)
    }
}

/// A request to register URLs, checked before the store is touched.
#[derive(Clone, Debug, Default)]
pub struct AddRequest {
    pub urls: Vec<String>,
    /// Applies only when exactly one URL is given, as in `sources.py`.
    pub title: Option<String>,
    /// `YYYY-MM-DD`; today when absent.
    pub accessed: Option<String>,
    pub via: Option<String>,
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
    path: PathBuf,
    wait: Duration,
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

struct Candidate {
    given: String,
    url: String,
    title: String,
}

impl Ledger {
    pub fn new(path: impl Into<PathBuf>, wait: Duration) -> Ledger {
        Ledger {
            path: path.into(),
            wait,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open_write(&self) -> Result<Store> {
        Ok(Store::open_write(&self.path, LockMode::Shared, self.wait)?)
    }

    /// Registers each URL; returns one entry per input, duplicates included. Re-adding
    /// returns the existing id; a title given later fills an empty title.
    pub fn add(&self, ctx: &Context, req: &AddRequest) -> Result<Vec<Source>> {
        let title = match req.urls.len() {
            1 => req
                .title
                .as_deref()
                .map(str::trim)
                .unwrap_or("")
                .to_string(),
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
        self.register(ctx, &candidates, &accessed, via.as_deref())
    }

    /// Registers every URL found in JSON tool output, in one transaction.
    pub fn ingest(&self, ctx: &Context, json: &str, via: Option<&str>) -> Result<Ingested> {
        let via = via.map(check_route).transpose()?;
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| Error::Json(e.to_string()))?;
        let (found, skipped) = ingest::find_urls(&value);
        if found.is_empty() {
            return Err(Error::NoUrls);
        }
        let candidates: Vec<Candidate> = found
            .into_iter()
            .map(|f| Candidate {
                given: f.given,
                url: f.url,
                title: f.title,
            })
            .collect();
        let sources = self.register(ctx, &candidates, &ctx.today(), via.as_deref())?;
        Ok(Ingested { sources, skipped })
    }

    fn register(
        &self,
        ctx: &Context,
        candidates: &[Candidate],
        accessed: &str,
        via: Option<&str>,
    ) -> Result<Vec<Source>> {
        let store = self.open_write()?;
        let origin = ctx.origin();
        store.write(&origin, self.wait, |w| {
            let epoch = w.epoch();
            let mut out = Vec::with_capacity(candidates.len());
            let mut next = w.next_id(epoch)?;
            for c in candidates {
                if let Some(id) = w.lookup(epoch, &c.url)? {
                    let mut row = w.source(epoch, id)?.ok_or(StoreError::Corrupted {
                        seq: 0,
                        reason: format!("url index points at missing source [{}]", id.0),
                    })?;
                    if row.title.is_empty() && !c.title.is_empty() {
                        w.append(Event::TitleSet {
                            epoch,
                            id,
                            title: c.title.clone(),
                        })?;
                        row.title = c.title.clone();
                    }
                    out.push(Source::from_row(id, row));
                    continue;
                }
                let id = next;
                next = SourceId(next.0 + 1);
                let added = SourceAdded {
                    epoch,
                    id,
                    url_given: c.given.clone(),
                    url: c.url.clone(),
                    title: c.title.clone(),
                    accessed: accessed.to_string(),
                    via: via.map(str::to_string),
                };
                w.append(Event::SourceAdded(added))?;
                out.push(Source {
                    id: id.0,
                    url: c.url.clone(),
                    title: c.title.clone(),
                    accessed: accessed.to_string(),
                    via: via.map(str::to_string),
                });
            }
            Ok::<_, Error>(out)
        })
    }

    /// Starts a fresh numbering: the next epoch, ids from 1. A current epoch with no
    /// sources is already fresh, so nothing is appended then.
    pub fn reset(&self, ctx: &Context) -> Result<Epoch> {
        let store = self.open_write()?;
        let origin = ctx.origin();
        store.write(&origin, self.wait, |w| {
            let epoch = w.epoch();
            if w.next_id(epoch)? == SourceId(1) {
                return Ok::<_, Error>(epoch);
            }
            let new_epoch = Epoch(epoch.0 + 1);
            w.append(Event::Reset { new_epoch })?;
            Ok(new_epoch)
        })
    }

    /// A read-only view of `epoch` (the current one when `None`). Creates nothing.
    pub fn view(&self, epoch: Option<u64>) -> Result<View> {
        let store = Store::open_read(&self.path, self.wait)?;
        let reader = store.as_ref().map(Store::read).transpose()?;
        let current = match &reader {
            None => Epoch::FIRST,
            Some(r) => r.epoch()?,
        };
        let epoch = match epoch {
            None => current,
            Some(n) if n >= 1 && n <= current.0 => Epoch(n),
            Some(n) => {
                return Err(Error::UnknownEpoch {
                    asked: n,
                    current: current.0,
                });
            }
        };
        Ok(View {
            reader,
            _store: store,
            epoch,
            current,
        })
    }
}

/// A consistent read-only snapshot of one epoch of a ledger.
pub struct View {
    // Declared before the store so it is dropped first: a read transaction of a
    // writable redb handle fails once its database is closed.
    reader: Option<Reader>,
    _store: Option<Store>,
    epoch: Epoch,
    current: Epoch,
}

/// One record of the log as `log` and `show` present it.
#[derive(Clone, Debug, Serialize)]
pub struct LogEntry {
    pub seq: u64,
    /// RFC 3339, UTC.
    pub time: String,
    pub pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    pub command: Vec<String>,
    pub event: EventView,
    /// blake3 of this record, hex.
    pub hash: String,
    /// blake3 of the previous record, hex.
    pub prev: String,
}

/// An event in a form meant for people and JSON readers.
#[derive(Clone, Debug, Serialize)]
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
}

impl EventView {
    fn of(event: &Event) -> EventView {
        match event {
            Event::SourceAdded(a) => EventView::SourceAdded {
                epoch: a.epoch.0,
                id: a.id.0,
                url: a.url.clone(),
                url_given: a.url_given.clone(),
                title: a.title.clone(),
                accessed: a.accessed.clone(),
                via: a.via.clone(),
            },
            Event::TitleSet { epoch, id, title } => EventView::TitleSet {
                epoch: epoch.0,
                id: id.0,
                title: title.clone(),
            },
            Event::Reset { new_epoch } => EventView::Reset {
                new_epoch: new_epoch.0,
            },
        }
    }

    /// The epoch the event belongs to; a reset belongs to the epoch it starts.
    pub fn epoch(&self) -> u64 {
        match self {
            EventView::SourceAdded { epoch, .. } | EventView::TitleSet { epoch, .. } => *epoch,
            EventView::Reset { new_epoch } => *new_epoch,
        }
    }
}

fn entry(seq: Seq, record: &Record, hash: &event::Hash, origin: Origin) -> LogEntry {
    let time = OffsetDateTime::from_unix_timestamp_nanos(origin.at_ns)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| format!("@{}ns", origin.at_ns));
    LogEntry {
        seq: seq.0,
        time,
        pid: origin.pid,
        actor: origin.actor,
        command: origin.command,
        event: EventView::of(&record.event),
        hash: event::hex(hash),
        prev: event::hex(&record.prev),
    }
}

/// A source with its history, for `show`.
#[derive(Clone, Debug, Serialize)]
pub struct SourceDetail {
    pub epoch: u64,
    #[serde(flatten)]
    pub source: Source,
    pub url_given: String,
    pub history: Vec<LogEntry>,
}

/// Per-route source counts, for `list --by-via`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RouteCount {
    /// `None` for sources registered without `--via`.
    pub via: Option<String>,
    pub count: u64,
}

impl View {
    pub fn epoch(&self) -> Epoch {
        self.epoch
    }

    /// The ledger's newest epoch.
    pub fn current_epoch(&self) -> Epoch {
        self.current
    }

    /// Every source of the epoch in id order, streamed.
    pub fn sources(&self) -> Result<Box<dyn Iterator<Item = Result<Source>> + '_>> {
        match &self.reader {
            None => Ok(Box::new(std::iter::empty())),
            Some(r) => Ok(Box::new(
                r.sources(self.epoch)?
                    .map(|s| s.map(Source::from).map_err(Error::from)),
            )),
        }
    }

    pub fn count(&self) -> Result<u64> {
        match &self.reader {
            None => Ok(0),
            Some(r) => Ok(r.count(self.epoch)?),
        }
    }

    /// Source `id` of the epoch, or [`Error::UnknownSource`].
    pub fn source(&self, id: u64) -> Result<Source> {
        self.stored(id).map(Source::from)
    }

    fn stored(&self, id: u64) -> Result<StoredSource> {
        let found = match &self.reader {
            None => None,
            Some(r) => r.source(self.epoch, SourceId(id))?,
        };
        found.ok_or(Error::UnknownSource(id))
    }

    /// The log entries that concern source `id` of the epoch, in order.
    pub fn history(&self, id: u64) -> Result<Vec<LogEntry>> {
        self.stored(id)?;
        let Some(r) = &self.reader else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for seq in r.history(self.epoch, SourceId(id))? {
            let record = r.record(seq)?.ok_or(StoreError::Corrupted {
                seq: seq.0,
                reason: "history names a record that is not in the log".into(),
            })?;
            let origin = r.origin(seq, &record)?;
            out.push(entry(seq, &record, &record.hash(), origin));
        }
        Ok(out)
    }

    /// A source with its history.
    pub fn detail(&self, id: u64) -> Result<SourceDetail> {
        let stored = self.stored(id)?;
        let url_given = stored.row.url_given.clone();
        Ok(SourceDetail {
            epoch: self.epoch.0,
            source: stored.into(),
            url_given,
            history: self.history(id)?,
        })
    }

    /// Every record of the log (all epochs), streamed.
    pub fn log(&self) -> Result<Box<dyn Iterator<Item = Result<LogEntry>> + '_>> {
        match &self.reader {
            None => Ok(Box::new(std::iter::empty())),
            Some(r) => Ok(Box::new(r.records_with_origin()?.map(|item| {
                let (seq, record, hash, origin) = item?;
                Ok(entry(seq, &record, &hash, origin))
            }))),
        }
    }

    /// Sources per route, most common first; sources without a route last.
    pub fn by_via(&self) -> Result<Vec<RouteCount>> {
        let mut counts: std::collections::BTreeMap<Option<String>, u64> = Default::default();
        for s in self.sources()? {
            *counts.entry(s?.via).or_default() += 1;
        }
        let mut out: Vec<RouteCount> = counts
            .into_iter()
            .map(|(via, count)| RouteCount { via, count })
            .collect();
        out.sort_by(|a, b| {
            (a.via.is_none(), std::cmp::Reverse(a.count), &a.via).cmp(&(
                b.via.is_none(),
                std::cmp::Reverse(b.count),
                &b.via,
            ))
        });
        Ok(out)
    }
}
