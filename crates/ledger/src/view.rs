//! Read-only views of a ledger: sources, quotes, the log and per-source history, as the
//! commands present them. Everything streams from one consistent redb snapshot.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use cite_store::event::{self, Epoch, Event, Origin, PageFact, Record, Seq, SourceId};
use cite_store::{Reader, Store, StoreError, StoredSource};

use super::{Error, Quote, Result, Source, alias_of, page_meta, quote_of, source_of};
use cite_core::model::{
    ChainEntry, EntryOrigin, EventView, LogEntry, OriginView, Page, PageText, RetractedQuote,
    RouteCount, SourceDetail, SourceEntry,
};
use cite_store::NumberedQuote;

/// A page text of a source, and the numbers of the live quotes checked against it.
struct PageOf {
    hash: event::Hash,
    quotes: Vec<u64>,
}

/// Which part of a source's page texts `show` gives: all of them, or the one whose
/// hash starts with `snapshot`, from character `offset`, at most `limit` characters each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextRequest {
    pub snapshot: Option<String>,
    pub offset: u64,
    pub limit: u64,
}

impl TextRequest {
    /// The characters of page text `show` gives at once unless asked for another number:
    /// a long article's worth, about 5,000 tokens for a model.
    pub const LIMIT: u64 = 20_000;
}

/// A part of a text, by characters.
struct TextPart<'t> {
    /// The whole text's length.
    chars: u64,
    text: &'t str,
    /// Where the rest starts, when this part stops before the end.
    next: Option<u64>,
}

impl<'t> TextPart<'t> {
    /// The `limit` characters of `text` from character `offset` (fewer at its end).
    fn of(text: &'t str, offset: u64, limit: u64) -> TextPart<'t> {
        let byte_at = |s: &str, n: u64| {
            usize::try_from(n)
                .ok()
                .and_then(|n| s.char_indices().nth(n))
                .map_or(s.len(), |(b, _)| b)
        };
        let rest = &text[byte_at(text, offset)..];
        let part = &rest[..byte_at(rest, limit)];
        let more = part.len() < rest.len();
        TextPart {
            chars: text.chars().count() as u64,
            text: part,
            next: more.then(|| offset + limit),
        }
    }
}

/// A stored quote with its number, as the ledger hands it out.
fn numbered(q: NumberedQuote) -> Quote {
    Quote {
        number: q.n,
        ..quote_of(q.row)
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

impl View {
    pub(super) fn new(store: Option<Store>, epoch: Option<u64>) -> Result<View> {
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

    /// A source with its quotes, from its stored row.
    fn full(&self, s: StoredSource) -> Result<Source> {
        let mut quotes = self.quotes_of(s.id, s.row.quotes)?;
        // An alias shows its source's page and evidence under its own number.
        let of = alias_of(&s.row.url).map(|(url, of)| (url.len(), of));
        let mut source = source_of(s.id, s.row, Vec::new());
        if let Some((len, of)) = of {
            source.url.truncate(len);
            source.alias_of = Some(of);
            let target = self.stored(of).ok();
            let n = target.as_ref().map_or(0, |t| t.row.quotes);
            source.page_text |= target.is_some_and(|t| !t.row.snapshots.is_empty());
            quotes.extend(self.quotes_of(SourceId(of), n)?);
        }
        // The page a quote was checked against is the source's page text as much as one
        // stored with it: `verify --support` reads it, and `quote` checks against it.
        source.page_text |= quotes.iter().any(|q| q.snapshot.is_some());
        source.quotes = quotes;
        Ok(source)
    }

    /// The quotes of source `id` that are not retracted, numbered (none read when it has
    /// had `n` = 0).
    fn quotes_of(&self, id: SourceId, n: u64) -> Result<Vec<Quote>> {
        Ok(self
            .numbered_quotes(id, n)?
            .into_iter()
            .filter(|q| q.retracted.is_none())
            .map(numbered)
            .collect())
    }

    /// Every quote source `id` has had, retracted ones included.
    fn numbered_quotes(&self, id: SourceId, n: u64) -> Result<Vec<NumberedQuote>> {
        Ok(match &self.reader {
            Some(r) if n > 0 => r.numbered_quotes(self.epoch, id)?,
            _ => Vec::new(),
        })
    }
}

/// What tool output said about a page, as a short text the support check reads like page
/// text: `Published 2023-05-12.`, then the site and the authors, a line each. `None` when
/// it said none of these.
fn facts_text(facts: &[PageFact]) -> Option<String> {
    let meta = page_meta(facts);
    let mut lines = Vec::new();
    if let Some(p) = &meta.published {
        lines.push(format!("Published {p}."));
    }
    if let Some(site) = &meta.site {
        lines.push(format!("Published on {site}."));
    }
    if !meta.authors.is_empty() {
        lines.push(format!("By {}.", meta.authors.join(", ")));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// An origin as the log shows it: the time in RFC 3339.
pub(crate) fn origin_view(origin: &Origin) -> OriginView {
    {
        let time = OffsetDateTime::from_unix_timestamp_nanos(origin.at_ns)
            .ok()
            .and_then(|t| t.format(&Rfc3339).ok())
            .unwrap_or_else(|| format!("@{}ns", origin.at_ns));
        OriginView {
            time,
            pid: origin.pid,
            actor: origin.actor.clone(),
            command: origin.command.clone(),
        }
    }
}

/// Gives each transaction's origin to the first entry of it that a listing shows, and
/// a pointer to that entry to the others. A write transaction's records are
/// consecutive in the log and listings go in seq order, so remembering the last
/// transaction shown suffices, and a listing that skips records (`--id`, `--epoch`)
/// still finds its origin on the first entry it does show.
#[derive(Default)]
struct OncePerTransaction {
    /// The first seq of the last transaction shown, and the seq of its entry that
    /// carries the origin.
    last: Option<(Seq, Seq)>,
}

impl OncePerTransaction {
    /// The origin for the entry of `record` at `seq`; `resolve` is called only for an
    /// entry that must carry it.
    fn origin(
        &mut self,
        seq: Seq,
        record: &Record,
        resolve: impl FnOnce() -> Result<OriginView>,
    ) -> Result<EntryOrigin> {
        let transaction = record.provenance.transaction(seq);
        match self.last {
            Some((t, shown)) if t == transaction => Ok(EntryOrigin::SameTransactionAs {
                same_transaction_as: shown.0,
            }),
            _ => {
                self.last = Some((transaction, seq));
                Ok(EntryOrigin::Shown(resolve()?))
            }
        }
    }

    /// The entry for `record` at `seq`, whose origin the log stream resolved.
    fn entry(
        &mut self,
        seq: Seq,
        record: &Record,
        hash: &event::Hash,
        origin: &Origin,
    ) -> Result<LogEntry> {
        let origin = self.origin(seq, record, || Ok(origin_view(origin)))?;
        Ok(entry(seq, record, hash, origin))
    }
}

/// An event as the log shows it.
fn event_view(event: &Event) -> EventView {
    {
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
            Event::QuoteAttached(q) => EventView::QuoteAttached {
                epoch: q.epoch.0,
                id: q.id.0,
                text: q.text.clone(),
                snapshot: event::hex(&q.snapshot),
                start: q.selector.start,
                end: q.selector.end,
                added: q.added.clone(),
            },
            Event::SnapshotStored {
                epoch,
                id,
                snapshot,
            } => EventView::SnapshotStored {
                epoch: epoch.0,
                id: id.0,
                snapshot: event::hex(snapshot),
            },
            Event::Imported {
                epoch,
                from,
                sources,
                quotes,
            } => EventView::Imported {
                epoch: epoch.0,
                from: from.clone(),
                sources: *sources,
                quotes: *quotes,
            },
            Event::QuoteImported {
                epoch,
                id,
                text,
                added,
            } => EventView::QuoteImported {
                epoch: epoch.0,
                id: id.0,
                text: text.clone(),
                added: added.clone(),
            },
            Event::QuoteRetracted {
                epoch,
                id,
                quote,
                reason,
            } => EventView::QuoteRetracted {
                epoch: epoch.0,
                id: id.0,
                quote: *quote,
                reason: reason.clone(),
            },
            Event::TitleCorrected { epoch, id, title } => EventView::TitleCorrected {
                epoch: epoch.0,
                id: id.0,
                title: title.clone(),
            },
            Event::QuoteTyped {
                epoch,
                id,
                quote,
                typed,
            } => EventView::QuoteTyped {
                epoch: epoch.0,
                id: id.0,
                quote: *quote,
                typed: typed.clone(),
            },
            Event::MetadataSet { epoch, id, facts } => EventView::MetadataSet {
                epoch: epoch.0,
                id: id.0,
                metadata: page_meta(facts),
            },
        }
    }
}

fn entry(seq: Seq, record: &Record, hash: &event::Hash, origin: EntryOrigin) -> LogEntry {
    LogEntry {
        seq: seq.0,
        origin,
        event: event_view(&record.event),
        hash: event::hex(hash),
        prev: event::hex(&record.prev),
    }
}

/// Which sources `list` shows: a filter, a page size and where the page starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListRequest {
    /// Only sources whose URL or title contains this, ignoring case.
    pub query: Option<String>,
    /// Only sources registered with this route (`--via`).
    pub via: Option<String>,
    /// Only sources with ids above this one: the cursor a previous page gave, its last
    /// id. Ids only grow, so paging while others add neither repeats nor skips a source.
    pub after: u64,
    /// At most this many sources; every match when `None`.
    pub limit: Option<u64>,
}

impl ListRequest {
    /// Whether this asks for anything but every source: a filter, a limit or a cursor.
    pub fn is_paged(&self) -> bool {
        self.is_filtered() || self.after > 0 || self.limit.is_some()
    }

    /// The id a cursor stands for: the last id of the page that gave it. Cursors are
    /// meant to be copied, not made, but one made by hand does what it says.
    pub fn after_cursor(cursor: &str) -> std::result::Result<u64, String> {
        cursor.parse().map_err(|_| {
            format!("cursor {cursor:?} is not one that list gave (copy it from the previous page)")
        })
    }

    /// Whether only some sources match (a query or a route).
    pub fn is_filtered(&self) -> bool {
        self.query.is_some() || self.via.is_some()
    }
}

impl View {
    pub fn epoch(&self) -> Epoch {
        self.epoch
    }

    /// The ledger's newest epoch.
    pub fn current_epoch(&self) -> Epoch {
        self.current
    }

    /// The page text stored under a blake3 hash, if any.
    pub fn snapshot(&self, hash: &event::Hash) -> Result<Option<String>> {
        match &self.reader {
            None => Ok(None),
            Some(r) => Ok(r.snapshot(hash)?),
        }
    }

    /// What a source's page says, as stored (`verify --support`): the hashes of its page
    /// texts ([`View::pages_of`]), and texts without a page text of their own: those of
    /// its live quotes that have none (imported from `sources.py`), and, beside a page,
    /// what the tool output said about it ([`View::facts_texts`]). `None` when the epoch
    /// has no source `id`.
    pub fn page_texts(&self, id: u64) -> Result<Option<(Vec<event::Hash>, Vec<String>)>> {
        let Some((pages, mut quotes)) = self.pages_of(id)? else {
            return Ok(None);
        };
        // What the tool said of the page (its date, site, authors) is read as the page's
        // only beside a page: alone it would fail every figure of a sentence that cites
        // a search result, which no page was read for.
        if !pages.is_empty() || !quotes.is_empty() {
            quotes.extend(self.facts_texts(id)?);
        }
        Ok(Some((pages.into_iter().map(|p| p.hash).collect(), quotes)))
    }

    /// What the tool output said about the page of source `id` (and of the source it is
    /// an alias of), as a reader sees it beside the page's text (`facts_text`: when it
    /// was published, by whom, on which site), even where the text does not repeat it.
    fn facts_texts(&self, id: u64) -> Result<Vec<String>> {
        let Some(r) = &self.reader else {
            return Ok(Vec::new());
        };
        let Some(s) = r.source(self.epoch, SourceId(id))? else {
            return Ok(Vec::new());
        };
        let mut rows = vec![s.row];
        if let Some((_, of)) = alias_of(&rows[0].url)
            && let Some(t) = r.source(self.epoch, SourceId(of))?
        {
            rows.push(t.row);
        }
        Ok(rows
            .iter()
            .filter_map(|row| facts_text(&row.facts))
            .collect())
    }

    /// The page texts of source `id`, each once, in order: those stored with
    /// `add --snapshot` (and `ingest`), then those its live quotes were checked against
    /// (`quote --from`), each with the numbers of those quotes; and the texts of its live
    /// quotes that have no page text. An alias has its source's too. A retracted quote's
    /// page counts for nothing, as the quote does. `None` when the epoch has no source
    /// `id`.
    fn pages_of(&self, id: u64) -> Result<Option<(Vec<PageOf>, Vec<String>)>> {
        let Some(r) = &self.reader else {
            return Ok(None);
        };
        let Some(s) = r.source(self.epoch, SourceId(id))? else {
            return Ok(None);
        };
        let mut pages: Vec<PageOf> = Vec::new();
        let mut quotes: Vec<String> = Vec::new();
        let mut rows = vec![(s.id, s.row)];
        if let Some((_, of)) = alias_of(&rows[0].1.url)
            && let Some(t) = r.source(self.epoch, SourceId(of))?
        {
            rows.push((t.id, t.row));
        }
        for (sid, row) in rows {
            for h in &row.snapshots {
                if !pages.iter().any(|p| p.hash == *h) {
                    pages.push(PageOf {
                        hash: *h,
                        quotes: Vec::new(),
                    });
                }
            }
            for q in self.numbered_quotes(sid, row.quotes)? {
                if q.retracted.is_some() {
                    continue;
                }
                let Some(h) = q.row.snapshot else {
                    quotes.push(q.row.text);
                    continue;
                };
                match pages.iter_mut().find(|p| p.hash == h) {
                    Some(page) => page.quotes.push(q.n),
                    None => pages.push(PageOf {
                        hash: h,
                        quotes: vec![q.n],
                    }),
                }
            }
        }
        Ok(Some((pages, quotes)))
    }

    /// Reads the sources `ids` ahead (see `Tables::prefetch_sources`), so that the
    /// [`View::brief`] of each costs no round trip of its own.
    pub fn prefetch(&self, ids: &[u64]) -> Result<()> {
        if let Some(r) = &self.reader {
            r.tables().prefetch_sources(self.epoch.0, ids)?;
        }
        Ok(())
    }

    /// The URL of source `id` and how many quotes it carries, without reading them.
    pub fn brief(&self, id: u64) -> Result<Option<(String, u64)>> {
        let found = match &self.reader {
            None => None,
            Some(r) => r.source(self.epoch, SourceId(id))?,
        };
        let Some(mut s) = found else { return Ok(None) };
        if let Some(r) = &self.reader {
            s.row.quotes = r.live_quotes(self.epoch, s.id, s.row.quotes)?;
        }
        match alias_of(&s.row.url) {
            // An alias: its source's URL, and the quotes it shows, which are its source's.
            Some((url, of)) => {
                let n = self.brief(of)?.map_or(0, |(_, n)| n);
                Ok(Some((url.to_string(), s.row.quotes + n)))
            }
            None => Ok(Some((s.row.url, s.row.quotes))),
        }
    }

    /// The id of the source whose canonical URL is `url`, if the epoch has one.
    pub fn lookup(&self, url: &str) -> Result<Option<u64>> {
        match &self.reader {
            None => Ok(None),
            Some(r) => Ok(r.lookup(self.epoch, url)?.map(|id| id.0)),
        }
    }

    /// The newest epoch other than this one that has source `id`: a draft citing an id
    /// its epoch lacks may have been written before a `reset`.
    pub fn other_epoch_with(&self, id: u64) -> Result<Option<u64>> {
        let Some(r) = &self.reader else {
            return Ok(None);
        };
        for epoch in (1..=self.current.0).rev().filter(|&e| e != self.epoch.0) {
            if r.source(Epoch(epoch), SourceId(id))?.is_some() {
                return Ok(Some(epoch));
            }
        }
        Ok(None)
    }

    /// The epoch's ids as sorted inclusive ranges (one range when ids are dense).
    pub fn id_ranges(&self) -> Result<Vec<(u64, u64)>> {
        match &self.reader {
            None => Ok(Vec::new()),
            Some(r) => Ok(r.id_ranges(self.epoch)?),
        }
    }

    /// How many sources of the epoch carry at least one quote.
    pub fn quoted_count(&self) -> Result<u64> {
        match &self.reader {
            None => Ok(0),
            Some(r) => Ok(r.quoted_count(self.epoch)?),
        }
    }

    /// The sources with ids in `lo..=hi`, in id order, streamed.
    pub fn sources_between(
        &self,
        lo: u64,
        hi: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Source>> + '_>> {
        match &self.reader {
            None => Ok(Box::new(std::iter::empty())),
            Some(r) => Ok(Box::new(
                r.sources_between(self.epoch, lo, hi)?
                    .map(|s| self.full(s.map_err(Error::from)?)),
            )),
        }
    }

    /// Every source of the epoch in id order, streamed.
    pub fn sources(&self) -> Result<Box<dyn Iterator<Item = Result<Source>> + '_>> {
        match &self.reader {
            None => Ok(Box::new(std::iter::empty())),
            Some(r) => Ok(Box::new(
                r.sources(self.epoch)?
                    .map(|s| self.full(s.map_err(Error::from)?)),
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
        self.full(self.stored(id)?)
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
        let mut once = OncePerTransaction::default();
        for seq in r.history(self.epoch, SourceId(id))? {
            let record = r.record(seq)?.ok_or(StoreError::Corrupted {
                seq: seq.0,
                reason: "history names a record that is not in the log".into(),
            })?;
            // The transaction's first record is rarely this source's (an `add` of many
            // URLs), so the origin is looked up: once per transaction shown.
            let origin = once.origin(seq, &record, || Ok(origin_view(&r.origin(seq, &record)?)))?;
            out.push(entry(seq, &record, &record.hash(), origin));
        }
        Ok(out)
    }

    /// A source with its history.
    pub fn detail(&self, id: u64) -> Result<SourceDetail> {
        self.show(id, None)
    }

    /// A source with its history, and with `text`, the parts of its page texts it asks
    /// for.
    pub fn show(&self, id: u64, text: Option<&TextRequest>) -> Result<SourceDetail> {
        let stored = self.stored(id)?;
        let url_given = stored.row.url_given.clone();
        let snapshots = stored.row.snapshots.iter().map(event::hex).collect();
        let retracted = self
            .numbered_quotes(stored.id, stored.row.quotes)?
            .into_iter()
            .filter_map(|q| {
                let reason = q.retracted.clone()?;
                Some(RetractedQuote {
                    quote: numbered(q),
                    reason,
                })
            })
            .collect();
        let history = self.history(id)?;
        let (pages, _) = self.pages_of(id)?.unwrap_or_default();
        let chosen = match text.and_then(|t| t.snapshot.as_deref()) {
            None => vec![true; pages.len()],
            Some(prefix) => {
                let prefix = prefix.to_ascii_lowercase();
                let chosen: Vec<bool> = pages
                    .iter()
                    .map(|p| event::hex(&p.hash).starts_with(&prefix))
                    .collect();
                let matching = chosen.iter().filter(|&&c| c).count();
                if matching != 1 {
                    return Err(Error::NoSuchPageText {
                        id,
                        snapshot: prefix,
                        matching,
                    });
                }
                chosen
            }
        };
        let mut page_texts = Vec::with_capacity(pages.len());
        for (p, chosen) in pages.into_iter().zip(chosen) {
            let snapshot = event::hex(&p.hash);
            let stored_at = history.iter().find_map(|e| match &e.event {
                EventView::SnapshotStored { snapshot: s, .. } if *s == snapshot => Some(e.seq),
                _ => None,
            });
            let mut page = PageText {
                snapshot,
                stored_at,
                quotes: p.quotes,
                ..PageText::default()
            };
            if let Some(req) = text.filter(|_| chosen) {
                let whole = self
                    .snapshot(&p.hash)?
                    .ok_or_else(|| StoreError::CorruptedEntry {
                        what: format!("the page text {} of [{id}]", page.snapshot),
                        reason: "missing from the snapshots table".into(),
                    })?;
                let part = TextPart::of(&whole, req.offset, req.limit);
                page.chars = Some(part.chars);
                page.offset = Some(req.offset);
                page.next_offset = part.next;
                page.text = Some(part.text.to_string());
            }
            page_texts.push(page);
        }
        Ok(SourceDetail {
            epoch: self.epoch.0,
            source: self.full(stored)?,
            url_given,
            snapshots,
            page_texts,
            retracted,
            history,
        })
    }

    /// Every record of the log, or with `only`, the records of that epoch (a reset
    /// belongs to the epoch it starts), streamed.
    pub fn log(
        &self,
        only: Option<Epoch>,
    ) -> Result<Box<dyn Iterator<Item = Result<LogEntry>> + '_>> {
        let Some(r) = &self.reader else {
            return Ok(Box::new(std::iter::empty()));
        };
        let mut once = OncePerTransaction::default();
        Ok(Box::new(r.records_with_origin()?.filter_map(move |item| {
            let (seq, record, hash, origin) = match item {
                Ok(item) => item,
                Err(e) => return Some(Err(e.into())),
            };
            if only.is_some_and(|e| record.event.epoch() != e) {
                return None;
            }
            Some(once.entry(seq, &record, &hash, &origin))
        })))
    }

    /// Every source of the epoch in id order with its stored snapshot hashes, streamed.
    pub fn source_entries(&self) -> Result<Box<dyn Iterator<Item = Result<SourceEntry>> + '_>> {
        match &self.reader {
            None => Ok(Box::new(std::iter::empty())),
            Some(r) => Ok(Box::new(
                r.sources(self.epoch)?
                    .map(|s| self.full_entry(s.map_err(Error::from)?)),
            )),
        }
    }

    /// The sources with ids in `lo..=hi`, in id order, with their stored snapshot hashes,
    /// streamed: what an export of a few ids reads, and no more.
    pub fn source_entries_between(
        &self,
        lo: u64,
        hi: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<SourceEntry>> + '_>> {
        match &self.reader {
            None => Ok(Box::new(std::iter::empty())),
            Some(r) => Ok(Box::new(
                r.sources_between(self.epoch, lo, hi)?
                    .map(|s| self.full_entry(s.map_err(Error::from)?)),
            )),
        }
    }

    /// A source with its quotes and snapshot hashes, from its stored row.
    fn full_entry(&self, s: StoredSource) -> Result<SourceEntry> {
        let snapshots = s.row.snapshots.iter().map(event::hex).collect();
        Ok(SourceEntry {
            source: self.full(s)?,
            snapshots,
        })
    }

    /// Every record of the log (all epochs: the chain spans them) with its stored
    /// bytes, streamed. A record that does not decode, or whose provenance points
    /// nowhere, is an error naming its seq.
    pub fn chain(&self) -> Result<Box<dyn Iterator<Item = Result<ChainEntry>> + '_>> {
        let Some(r) = &self.reader else {
            return Ok(Box::new(std::iter::empty()));
        };
        let mut once = OncePerTransaction::default();
        Ok(Box::new(r.raw_records_with_origin()?.map(move |item| {
            let (seq, record, bytes, origin) = item?;
            let hash = event::hash_bytes(&bytes);
            Ok(ChainEntry {
                entry: once.entry(seq, &record, &hash, &origin)?,
                record: event::hex_bytes(&bytes),
            })
        })))
    }

    /// One page of the sources that match `req`, in id order (see [`ListRequest`]).
    ///
    /// Without a filter, only the page is read: the count of matches comes from the id
    /// ranges, and the rows from the cursor on. With one, every row of the epoch is read
    /// once to count the matches, but only the page's sources are built (quotes and
    /// all); a substring search has no index to use.
    pub fn list(&self, req: &ListRequest) -> Result<Page> {
        let Some(r) = &self.reader else {
            return Ok(Page {
                sources: Vec::new(),
                matched: 0,
                next: None,
            });
        };
        let limit = req.limit.unwrap_or(u64::MAX);
        let first = req.after.saturating_add(1);
        let mut page = Vec::new();
        let mut more = false;
        let matched = if !req.is_filtered() {
            for s in r.sources_between(self.epoch, first, u64::MAX)? {
                let s = s?;
                if page.len() as u64 == limit {
                    more = true;
                    break;
                }
                page.push(self.full(s)?);
            }
            self.id_ranges()?.iter().map(|(lo, hi)| hi - lo + 1).sum()
        } else {
            let query = req.query.as_deref().map(str::to_lowercase);
            let mut matched = 0;
            for s in r.sources(self.epoch)? {
                let s = s?;
                let via_ok = req.via.is_none() || s.row.via == req.via;
                let query_ok = query.as_deref().is_none_or(|q| {
                    s.row.url.to_lowercase().contains(q) || s.row.title.to_lowercase().contains(q)
                });
                if !(via_ok && query_ok) {
                    continue;
                }
                matched += 1;
                if s.id.0 < first {
                    continue;
                }
                if page.len() as u64 == limit {
                    more = true;
                } else {
                    page.push(self.full(s)?);
                }
            }
            matched
        };
        let next = if more {
            page.last().map(|s| s.id)
        } else {
            None
        };
        Ok(Page {
            sources: page,
            matched,
            next,
        })
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
