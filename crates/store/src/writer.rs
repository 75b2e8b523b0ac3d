//! One write transaction in progress: records appended to the chain, the views and the
//! tally kept in step.

use crate::backend::{Tables, TablesMut, paged};
use crate::event::{
    self, Epoch, Event, FORMAT_VERSION, Hash, Origin, Provenance, Record, Seq, SourceId,
};
use crate::head::{check_head, read_head};
use crate::reader::{decode_row, read_quotes, snapshot_text};
use crate::tables::{META_HEAD, META_TALLY, QuoteRow, SourceRow};
use crate::tally::Tally;
use crate::{Head, StoreError};
use crate::{materialize, tally};

/// One write transaction in progress: appends records and keeps the views in step.
pub struct Writer<'t> {
    origin: &'t Origin,
    /// The origin of the records appended since [`Writer::start_group`], if it was called.
    group: Option<Origin>,
    /// The seq of the first record of this transaction (or of its current group), once
    /// there is one.
    first: Option<Seq>,
    tables: &'t mut dyn TablesMut,
    head: Head,
    tally: Tally,
    dirty: bool,
}

impl<'t> Writer<'t> {
    /// Checks the views against the log's tally, and the stored head against the log,
    /// before anything is written: a write on views that disagree with the log is
    /// refused.
    pub(crate) fn new(
        tables: &'t mut dyn TablesMut,
        origin: &'t Origin,
    ) -> Result<Writer<'t>, StoreError> {
        let head = read_head(&*tables)?;
        let tally = match tally::read(&*tables)? {
            Some(t) => t,
            None if head.seq.0 == 0 => Tally::EMPTY,
            // Every store with records is migrated (format 2) before it is written.
            None => {
                return Err(StoreError::ViewsDisagree {
                    detail: "the log's tally is missing".into(),
                });
            }
        };
        tally.check(&*tables)?;
        check_head(&*tables, &head)?;
        Ok(Writer {
            origin,
            group: None,
            first: None,
            tables,
            head,
            tally,
            dirty: false,
        })
    }

    /// Gives the records appended from now on `origin`, not the transaction's: a group of
    /// records another process asked for, written in this transaction (a server's
    /// shared commit). The group's first record carries the origin; its others point at
    /// that one, as a transaction's do.
    pub fn start_group(&mut self, origin: Origin) {
        self.group = Some(origin);
        self.first = None;
    }

    /// The current epoch, as of the events appended so far.
    pub fn epoch(&self) -> Epoch {
        self.tally.epoch
    }

    /// The id of `url` in `epoch`, if it is registered.
    pub fn lookup(&self, epoch: Epoch, url: &str) -> Result<Option<SourceId>, StoreError> {
        Ok(self.tables.url(epoch.0, url)?.map(SourceId))
    }

    /// Reads ahead what `hint` names of the current epoch's url index (see
    /// [`crate::backend::Prefetch`]): the lookups that follow cost no round trip.
    pub fn prefetch(&self, hint: &crate::backend::Prefetch) -> Result<(), StoreError> {
        self.tables.prefetch_urls(self.tally.epoch.0, hint)
    }

    /// Up to `limit` url index entries after `(epoch, after)`, as [`Tables::url_page`]
    /// gives them, this transaction's writes included where the backend has sent them.
    pub fn url_page(
        &self,
        epoch: Epoch,
        after: &str,
        limit: usize,
    ) -> Result<crate::backend::UrlPage, StoreError> {
        self.tables.url_page(Some((epoch.0, after)), limit)
    }

    pub fn source(&self, epoch: Epoch, id: SourceId) -> Result<Option<SourceRow>, StoreError> {
        match self.tables.source(epoch.0, id.0)? {
            None => Ok(None),
            Some(v) => decode_row(epoch.0, id.0, &v).map(Some),
        }
    }

    /// The id the next source added to `epoch` (the current one) gets: one past the
    /// highest the log has given out in it, never past [`event::MAX_ID`].
    pub fn next_id(&self, epoch: Epoch) -> Result<SourceId, StoreError> {
        if epoch != self.tally.epoch {
            return Err(StoreError::Invariant {
                seq: self.head.seq.0.saturating_add(1),
                reason: format!(
                    "ids are given out in the current epoch {}, not in epoch {}",
                    self.tally.epoch.0, epoch.0
                ),
            });
        }
        self.tally.next_id()
    }

    /// Whether the current epoch has no source yet.
    pub fn epoch_is_empty(&self) -> bool {
        self.tally.last_id == 0
    }

    /// The quotes attached to source `id` of `epoch`, in order.
    pub fn quotes(&self, epoch: Epoch, id: SourceId) -> Result<Vec<QuoteRow>, StoreError> {
        read_quotes(&*self.tables, epoch, id)
    }

    /// Every quote of source `id` with its number, retracted ones included.
    pub fn numbered_quotes(
        &self,
        epoch: Epoch,
        id: SourceId,
    ) -> Result<Vec<crate::reader::NumberedQuote>, StoreError> {
        crate::reader::read_numbered_quotes(&*self.tables, epoch, id)
    }

    /// The page text stored under `hash`, if any.
    pub fn snapshot_text(&self, hash: &Hash) -> Result<Option<String>, StoreError> {
        match self.tables.snapshot(hash)? {
            None => Ok(None),
            Some(v) => snapshot_text(hash, v).map(Some),
        }
    }

    /// Stores `text` under its blake3 hash (once per distinct text); returns the hash, and
    /// whether the text was stored before.
    pub fn put_snapshot(&mut self, text: &str) -> Result<(Hash, bool), StoreError> {
        let hash = *blake3::hash(text.as_bytes()).as_bytes();
        let stored_before = self.tables.has_snapshot(&hash)?;
        if !stored_before {
            self.tables.put_snapshot(&hash, text.as_bytes())?;
        }
        Ok((hash, stored_before))
    }

    /// The events of the latest `limit` records (this transaction's included), newest
    /// first, decoded one by one as the caller reads on; a record that does not decode
    /// is [`StoreError::Corrupted`].
    pub fn recent_events(
        &self,
        limit: usize,
    ) -> Result<impl Iterator<Item = Result<Event, StoreError>> + '_, StoreError> {
        let tables: &dyn Tables = &*self.tables;
        let rows = paged(
            move |after: Option<&u64>, n: usize| {
                tables.record_page_back(after.copied().unwrap_or(u64::MAX), n)
            },
            |(seq, _)| *seq,
        );
        Ok(rows.take(limit).map(|item| {
            let (seq, bytes) = item?;
            Record::decode(&bytes)
                .map(|r| r.event)
                .map_err(|e| StoreError::Corrupted {
                    seq,
                    reason: e.to_string(),
                })
        }))
    }

    /// Appends `event` to the log and applies it to the views. Refused, before anything
    /// of it is written, when the tally or the views say it must not happen (see
    /// `materialize::apply`).
    pub fn append(&mut self, event: Event) -> Result<Seq, StoreError> {
        let seq = Seq(self
            .head
            .seq
            .0
            .checked_add(1)
            .ok_or(StoreError::Invariant {
                seq: u64::MAX,
                reason: "the log is full".into(),
            })?);
        let mut tally = self.tally;
        tally
            .count(&event)
            .map_err(|reason| StoreError::Invariant { seq: seq.0, reason })?;
        materialize::apply(&mut *self.tables, seq, &event)?;
        let provenance = match self.first {
            None => Provenance::Origin(self.group.clone().unwrap_or_else(|| self.origin.clone())),
            Some(first) => Provenance::SameAs(first),
        };
        let record = Record {
            format: FORMAT_VERSION,
            provenance,
            prev: self.head.hash,
            event,
        };
        let bytes = record.encode();
        self.tables.put_record(seq.0, &bytes)?;
        self.tally = tally;
        self.head = Head {
            seq,
            hash: event::hash_bytes(&bytes),
        };
        self.first.get_or_insert(seq);
        self.dirty = true;
        Ok(seq)
    }

    /// Seals what was appended (head and tally); returns whether the transaction changed
    /// anything. A snapshot stored without a record to name it is left out with the rest.
    pub(crate) fn finish(&mut self) -> Result<bool, StoreError> {
        if self.dirty {
            self.tables.put_meta(META_HEAD, &self.head.encode())?;
            self.tables.put_meta(META_TALLY, &self.tally.encode())?;
        }
        Ok(self.dirty)
    }
}
