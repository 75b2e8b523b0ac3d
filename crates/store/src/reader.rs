//! A read snapshot of the store: the log, the views and the page texts, streamed page by
//! page.

use std::sync::Arc;

use crate::backend::{self, Tables, paged};
use crate::event::{self, Epoch, Hash, Origin, Provenance, Record, Seq, SourceId};
use crate::head::read_head;
use crate::materialize;
use crate::tables::{QuoteRow, SourceRow};
use crate::{Head, StoreError};

pub(crate) fn decode_row(epoch: u64, id: u64, bytes: &[u8]) -> Result<SourceRow, StoreError> {
    SourceRow::decode(bytes).map_err(|reason| StoreError::CorruptedEntry {
        what: format!("the stored row of source [{id}] in epoch {epoch}"),
        reason,
    })
}

/// A stored snapshot as text; page text is stored as UTF-8, so anything else is damage.
pub(crate) fn snapshot_text(hash: &Hash, bytes: Vec<u8>) -> Result<String, StoreError> {
    String::from_utf8(bytes).map_err(|_| StoreError::CorruptedEntry {
        what: format!("snapshot {}", event::hex(hash)),
        reason: "not UTF-8".into(),
    })
}

/// Every entry of a table, streamed page by page in key order.
pub fn quote_entries(
    tables: &dyn Tables,
) -> impl Iterator<Item = Result<(backend::Key3, Vec<u8>), StoreError>> + '_ {
    paged(
        move |after, n: usize| tables.quote_page(after.copied(), n),
        |(k, _)| *k,
    )
}

/// Source `id`'s quotes that are not retracted, in order.
pub(crate) fn read_quotes(
    tables: &dyn Tables,
    epoch: Epoch,
    id: SourceId,
) -> Result<Vec<QuoteRow>, StoreError> {
    Ok(read_numbered_quotes(tables, epoch, id)?
        .into_iter()
        .filter(|q| q.retracted.is_none())
        .map(|q| q.row)
        .collect())
}

/// A quote with its number (as `show` numbers them) and, when it was retracted, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberedQuote {
    pub n: u64,
    pub row: QuoteRow,
    pub retracted: Option<String>,
}

/// Every quote of source `id`, retracted ones included, in order.
pub(crate) fn read_numbered_quotes(
    tables: &dyn Tables,
    epoch: Epoch,
    id: SourceId,
) -> Result<Vec<NumberedQuote>, StoreError> {
    let mut out = Vec::new();
    let start = (epoch.0, id.0, 0);
    let rows = paged(
        move |after: Option<&backend::Key3>, n: usize| {
            tables.quote_page(Some(*after.unwrap_or(&start)), n)
        },
        |(k, _)| *k,
    );
    // Only a source that has had a quote retracted has a `live/` counter.
    let any_retracted = tables.meta(&materialize::live_key(epoch, id))?.is_some();
    for item in rows {
        let (k, v) = item?;
        if (k.0, k.1) != (epoch.0, id.0) {
            break;
        }
        let row = QuoteRow::decode(&v).map_err(|reason| StoreError::CorruptedEntry {
            what: format!("quote {} of source [{}] in epoch {}", k.2, id.0, epoch.0),
            reason,
        })?;
        let retracted = match any_retracted {
            true => tables
                .meta(&materialize::retracted_key(epoch, id, k.2))?
                .map(|why| String::from_utf8_lossy(&why).into_owned()),
            false => None,
        };
        out.push(NumberedQuote {
            n: k.2,
            row,
            retracted,
        });
    }
    Ok(out)
}

/// A read snapshot of the store.
pub struct Reader {
    pub(crate) tables: Box<dyn Tables>,
}

/// Resolves each record's origin as the log streams by: a transaction's first record
/// carries it, and its later records point back at that one. The origin is shared, not
/// copied per record: it holds the whole command line, so a copy per record of a
/// k-URL `add` would cost k² bytes.
pub(crate) fn with_origin<T>(
    records: impl Iterator<Item = Result<(Seq, Record, T), StoreError>>,
) -> impl Iterator<Item = Result<(Seq, Record, T, Arc<Origin>), StoreError>> {
    let mut last: Option<(Seq, Arc<Origin>)> = None;
    records.map(move |item| {
        let (seq, record, extra) = item?;
        let origin = match &record.provenance {
            Provenance::Origin(o) => {
                let o = Arc::new(o.clone());
                last = Some((seq, Arc::clone(&o)));
                o
            }
            Provenance::SameAs(first) => match &last {
                Some((s, o)) if s == first => Arc::clone(o),
                _ => {
                    return Err(StoreError::Corrupted {
                        seq: seq.0,
                        reason: format!(
                            "provenance points at record {}, which does not start its transaction",
                            first.0
                        ),
                    });
                }
            },
        };
        Ok((seq, record, extra, origin))
    })
}

/// The exact bytes stored for a record: what its hash is taken over.
pub type RawRecord = Vec<u8>;

/// A record of the log with its seq, its stored bytes and its resolved origin, shared
/// by the records of one transaction.
pub type RawLoggedRecord = (Seq, Record, RawRecord, Arc<Origin>);

/// A record of the log with its seq, its hash and its resolved origin, shared by the
/// records of one transaction.
pub type LoggedRecord = (Seq, Record, Hash, Arc<Origin>);

/// One source as the views hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSource {
    pub epoch: Epoch,
    pub id: SourceId,
    pub row: SourceRow,
}

impl Reader {
    /// The tables under this snapshot.
    pub fn tables(&self) -> &dyn Tables {
        &*self.tables
    }

    pub fn epoch(&self) -> Result<Epoch, StoreError> {
        materialize::current_epoch(&*self.tables)
    }

    pub fn head(&self) -> Result<Head, StoreError> {
        read_head(&*self.tables)
    }

    pub fn lookup(&self, epoch: Epoch, url: &str) -> Result<Option<SourceId>, StoreError> {
        Ok(self.tables.url(epoch.0, url)?.map(SourceId))
    }

    pub fn source(&self, epoch: Epoch, id: SourceId) -> Result<Option<StoredSource>, StoreError> {
        match self.tables.source(epoch.0, id.0)? {
            None => Ok(None),
            Some(v) => Ok(Some(StoredSource {
                epoch,
                id,
                row: decode_row(epoch.0, id.0, &v)?,
            })),
        }
    }

    /// Every source of `epoch` in id order, streamed from the table.
    pub fn sources(
        &self,
        epoch: Epoch,
    ) -> Result<impl Iterator<Item = Result<StoredSource, StoreError>> + '_, StoreError> {
        self.sources_between(epoch, 0, u64::MAX)
    }

    /// How many sources of `epoch` carry at least one quote.
    pub fn quoted_count(&self, epoch: Epoch) -> Result<u64, StoreError> {
        Ok(materialize::read_u64(&*self.tables, &materialize::quoted_key(epoch))?.unwrap_or(0))
    }

    /// The sources of `epoch` with ids in `lo..=hi`, in id order, streamed.
    pub fn sources_between(
        &self,
        epoch: Epoch,
        lo: u64,
        hi: u64,
    ) -> Result<impl Iterator<Item = Result<StoredSource, StoreError>> + '_, StoreError> {
        let tables: &dyn Tables = &*self.tables;
        let rows = paged(
            move |after: Option<&u64>, n: usize| {
                let from = match after {
                    None => lo,
                    Some(&id) if id >= hi => return Ok(Vec::new()),
                    Some(&id) => id + 1,
                };
                tables.source_page(epoch.0, from, hi, n)
            },
            |(id, _)| *id,
        );
        Ok(rows.map(move |item| {
            let (id, v) = item?;
            Ok(StoredSource {
                epoch,
                id: SourceId(id),
                row: decode_row(epoch.0, id, &v)?,
            })
        }))
    }

    /// The ids of `epoch` as inclusive ranges, in order. Ids are dense, so this is one
    /// range unless a store was built otherwise; then the keys are scanned.
    pub fn id_ranges(&self, epoch: Epoch) -> Result<Vec<(u64, u64)>, StoreError> {
        let last = self.count(epoch)?;
        if last == 0 {
            return Ok(Vec::new());
        }
        let Some(first) = self.tables.first_source(epoch.0)? else {
            return Ok(Vec::new());
        };
        let stored = materialize::read_u64(&*self.tables, &materialize::count_key(epoch))?;
        if first == 1 && stored == Some(last) {
            return Ok(vec![(1, last)]);
        }
        let mut out: Vec<(u64, u64)> = Vec::new();
        for item in self.sources(epoch)? {
            let id = item?.id.0;
            match out.last_mut() {
                Some((_, hi)) if *hi + 1 == id => *hi = id,
                _ => out.push((id, id)),
            }
        }
        Ok(out)
    }

    /// Number of sources in `epoch`: the highest id, since ids are dense.
    pub fn count(&self, epoch: Epoch) -> Result<u64, StoreError> {
        Ok(self.tables.last_source(epoch.0)?.unwrap_or(0))
    }

    /// The record at `seq`, decoded.
    pub fn record(&self, seq: Seq) -> Result<Option<Record>, StoreError> {
        match self.tables.record(seq.0)? {
            None => Ok(None),
            Some(v) => Record::decode(&v)
                .map(Some)
                .map_err(|e| StoreError::Corrupted {
                    seq: seq.0,
                    reason: e.to_string(),
                }),
        }
    }

    /// Every record of the log in order, with its hash, streamed.
    pub fn records(
        &self,
    ) -> Result<impl Iterator<Item = Result<(Seq, Record, Hash), StoreError>> + '_, StoreError>
    {
        Ok(self.decoded()?.map(|item| {
            let (seq, record, bytes) = item?;
            Ok((seq, record, event::hash_bytes(&bytes)))
        }))
    }

    /// Every record of the log in order, decoded, beside the exact bytes it was decoded
    /// from.
    fn decoded(
        &self,
    ) -> Result<impl Iterator<Item = Result<(Seq, Record, RawRecord), StoreError>> + '_, StoreError>
    {
        Ok(self.raw_records().map(|item| {
            let (seq, bytes) = item?;
            let record = Record::decode(&bytes).map_err(|e| StoreError::Corrupted {
                seq: seq.0,
                reason: e.to_string(),
            })?;
            Ok((seq, record, bytes))
        }))
    }

    /// Every record of the log in order, as the exact bytes stored (and hashed), streamed
    /// and not decoded.
    pub fn raw_records(&self) -> impl Iterator<Item = Result<(Seq, Vec<u8>), StoreError>> + '_ {
        records_from(&*self.tables).map(|item| item.map(|(seq, bytes)| (Seq(seq), bytes)))
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
    ) -> Result<Vec<NumberedQuote>, StoreError> {
        read_numbered_quotes(&*self.tables, epoch, id)
    }

    /// How many of source `id`'s `quotes` quotes are not retracted.
    pub fn live_quotes(&self, epoch: Epoch, id: SourceId, quotes: u64) -> Result<u64, StoreError> {
        materialize::live_quotes(&*self.tables, epoch, id, quotes)
    }

    /// The page text stored under `hash`, if any.
    pub fn snapshot(&self, hash: &Hash) -> Result<Option<String>, StoreError> {
        match self.tables.snapshot(hash)? {
            None => Ok(None),
            Some(v) => snapshot_text(hash, v).map(Some),
        }
    }

    /// The origin of `record` (at `seq`): its own, or that of its transaction's first
    /// record.
    pub fn origin(&self, seq: Seq, record: &Record) -> Result<Origin, StoreError> {
        match &record.provenance {
            Provenance::Origin(o) => Ok(o.clone()),
            Provenance::SameAs(first) => {
                let bad = |reason: &str| StoreError::Corrupted {
                    seq: seq.0,
                    reason: format!("provenance points at record {}, {reason}", first.0),
                };
                if *first >= seq {
                    return Err(bad("which is not earlier"));
                }
                let head = self
                    .record(*first)?
                    .ok_or_else(|| bad("which is missing"))?;
                match head.provenance {
                    Provenance::Origin(o) => Ok(o),
                    Provenance::SameAs(_) => Err(bad("which has no origin of its own")),
                }
            }
        }
    }

    /// Like [`Reader::records`], with each record's origin resolved.
    pub fn records_with_origin(
        &self,
    ) -> Result<impl Iterator<Item = Result<LoggedRecord, StoreError>> + '_, StoreError> {
        Ok(with_origin(self.records()?))
    }

    /// Every record with its origin resolved and the exact bytes stored for it: what
    /// `export --format jsonl` hands out, so anyone can re-hash the chain.
    pub fn raw_records_with_origin(
        &self,
    ) -> Result<impl Iterator<Item = Result<RawLoggedRecord, StoreError>> + '_, StoreError> {
        Ok(with_origin(self.decoded()?))
    }

    /// The seqs of the events that concern source `id` of `epoch`, in order.
    pub fn history(&self, epoch: Epoch, id: SourceId) -> Result<Vec<Seq>, StoreError> {
        let start = (epoch.0, id.0, 0);
        let tables: &dyn Tables = &*self.tables;
        let keys = paged(
            move |after: Option<&backend::Key3>, n: usize| {
                tables.history_page(Some(*after.unwrap_or(&start)), n)
            },
            |k| *k,
        );
        let mut out = Vec::new();
        for item in keys {
            let k = item?;
            if (k.0, k.1) != (epoch.0, id.0) {
                break;
            }
            out.push(Seq(k.2));
        }
        Ok(out)
    }
}

/// Every record of the log in order, as stored, streamed page by page.
pub(crate) fn records_from(
    tables: &dyn Tables,
) -> impl Iterator<Item = Result<(u64, Vec<u8>), StoreError>> + '_ {
    paged(
        move |after: Option<&u64>, n: usize| tables.record_page(after.map_or(0, |s| s + 1), n),
        |(seq, _)| *seq,
    )
}
