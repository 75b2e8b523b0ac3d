//! The stored event format: plain data, its canonical encoding, and its hash.
//!
//! Every state change of a ledger is one [`Record`] appended to the `events` table. The
//! record is the unit of the hash chain: its hash is `blake3(encode(record))`, and the next
//! record carries that hash in [`Record::prev`].
//!
//! # Wire format (format version 1)
//!
//! A stored record is the postcard encoding of, in this order:
//!
//! | field        | postcard type       | meaning                                          |
//! |--------------|---------------------|--------------------------------------------------|
//! | `format`     | varint u16          | [`FORMAT_VERSION`] of the writer; decides layout |
//! | `provenance` | enum [`Provenance`] | who, when, which command (see below)             |
//! | `prev`       | [u8; 32]            | hash of the previous record; zeros for the first |
//! | `event`      | enum [`Event`]      | variant index as varint, then its fields         |
//!
//! [`Provenance`] is variant 0, `Origin`: `at_ns` (zigzag varint i128, UTC nanoseconds
//! since the Unix epoch), `pid` (varint u32), `actor` (`option<string>`, `$CITE_ACTOR`),
//! `command` (`seq<string>`, the command line); or variant 1, `SameAs` (varint u64): the
//! seq of the first record of the same write transaction, which holds the origin. The
//! first record of every transaction carries the full origin; the others point at it,
//! so an `add` of k URLs stores its k-URL command line once, not k times.
//!
//! [`Event`] variants are only ever appended: an index, once released, keeps its meaning
//! and its fields forever. Golden byte fixtures in `tests/` pin every released shape.
//! Postcard was chosen over bincode (unmaintained, RUSTSEC-2025-0141) for its documented,
//! stable wire format.

use serde::{Deserialize, Serialize};

/// The record layout this build writes and the newest it reads.
pub const FORMAT_VERSION: u16 = 1;

/// Position of a record in the log; the first record is 1.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seq(pub u64);

/// A source's id within its epoch, as printed in `[N]`; the first is 1. Ids never exceed
/// [`MAX_ID`].
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceId(pub u64);

/// The largest id a source can have: 2^53 − 1. Ids leave the ledger in JSON
/// (`list --json`, exports, `sources.py` files), and every JSON reader keeps integers up
/// to this one exact (JavaScript's numbers are doubles), so an id printed anywhere reads
/// back as the same id. `import` refuses larger ones, and an epoch that has given it out
/// gives out no more (`reset` starts a new numbering).
pub const MAX_ID: u64 = (1 << 53) - 1;

/// A numbering era: `reset` starts the next one, and ids restart at 1 in it.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Epoch(pub u64);

impl Epoch {
    /// The epoch of a ledger that has never been reset.
    pub const FIRST: Epoch = Epoch(1);
}

/// A blake3 hash of an encoded record.
pub type Hash = [u8; 32];

/// The `prev` of the first record.
pub const GENESIS: Hash = [0; 32];

/// What happened. Variants are only ever appended, never reordered or changed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Index 0: a URL was registered and given the next id of its epoch.
    SourceAdded(SourceAdded),
    /// Index 1: a source that had no title was given one.
    TitleSet {
        epoch: Epoch,
        id: SourceId,
        title: String,
    },
    /// Index 2: `reset` started `new_epoch`; earlier epochs stay readable.
    Reset { new_epoch: Epoch },
    /// Index 3: a verbatim quote was checked against page text and attached to a source.
    QuoteAttached(QuoteAttached),
    /// Index 4: page text was stored for a source (`add --snapshot`).
    SnapshotStored {
        epoch: Epoch,
        id: SourceId,
        snapshot: Hash,
    },
    /// Index 5: the start of an import of a `sources.py` ledger into `epoch`; the
    /// `SourceAdded` and `QuoteImported` records of the same transaction follow it.
    Imported {
        epoch: Epoch,
        /// The file imported, as given.
        from: String,
        sources: u64,
        quotes: u64,
    },
    /// Index 6: a quote carried over by an import. `sources.py` kept no page text, so
    /// there is no snapshot to re-check it against.
    QuoteImported {
        epoch: Epoch,
        id: SourceId,
        text: String,
        /// The date `sources.py` recorded, as it recorded it.
        added: String,
    },
    /// Index 7: quote `quote` of a source (its number `n`, as `show` numbers the quotes)
    /// was retracted: it stays in the log and in `show`, and counts for nothing.
    QuoteRetracted {
        epoch: Epoch,
        id: SourceId,
        quote: u64,
        /// Why, as the person or agent who retracted it said.
        reason: String,
    },
    /// Index 8: a source's title was corrected (a wrong title, not an empty one: that is
    /// [`Event::TitleSet`]). The earlier title stays in the log.
    TitleCorrected {
        epoch: Epoch,
        id: SourceId,
        title: String,
    },
    /// Index 9: the text quote `quote` of a source (its number, as `show` numbers the
    /// quotes) was typed as, where it differs from the page's words its
    /// [`Event::QuoteAttached`] record stores (issue 20): that record, just before this
    /// one in the same transaction, holds what the page says, this one what the caller
    /// gave. It changes no row; the log keeps it.
    QuoteTyped {
        epoch: Epoch,
        id: SourceId,
        quote: u64,
        typed: String,
    },
    /// Index 10: what the tool output said about a source's page (its publication date,
    /// site, language, authors), each fact a value that differs from the one the source
    /// held: the source now holds these, and keeps its other facts.
    MetadataSet {
        epoch: Epoch,
        id: SourceId,
        facts: Vec<PageFact>,
    },
}

/// One thing a tool's output said about a page, as [`Event::MetadataSet`] records it and
/// a source row keeps it. Variants are only ever appended: a later kind of fact is a new
/// variant, and a source holds one fact of each kind.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum PageFact {
    /// Index 0: when the page was published: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`, the
    /// calendar date the page gives (not moved to UTC).
    Published(String),
    /// Index 1: the name of the site or publication it appeared in.
    Site(String),
    /// Index 2: its language, a language tag as the tool gave it (`en`, `de-AT`).
    Language(String),
    /// Index 3: its authors, in order, as the tool wrote them.
    Authors(Vec<String>),
}

impl PageFact {
    /// The kind of fact, its variant index: a source holds one fact of each.
    pub fn kind(&self) -> u8 {
        match self {
            PageFact::Published(_) => 0,
            PageFact::Site(_) => 1,
            PageFact::Language(_) => 2,
            PageFact::Authors(_) => 3,
        }
    }
}

impl Event {
    /// The epoch the event belongs to; a reset belongs to the epoch it starts.
    pub fn epoch(&self) -> Epoch {
        match self {
            Event::SourceAdded(SourceAdded { epoch, .. })
            | Event::TitleSet { epoch, .. }
            | Event::QuoteAttached(QuoteAttached { epoch, .. })
            | Event::SnapshotStored { epoch, .. }
            | Event::Imported { epoch, .. }
            | Event::QuoteImported { epoch, .. }
            | Event::QuoteRetracted { epoch, .. }
            | Event::TitleCorrected { epoch, .. }
            | Event::QuoteTyped { epoch, .. }
            | Event::MetadataSet { epoch, .. } => *epoch,
            Event::Reset { new_epoch } => *new_epoch,
        }
    }
}

/// Where a quote sits in its snapshot: a W3C TextQuoteSelector, with the character
/// (Unicode scalar value) offsets of the match.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct TextQuote {
    /// The snapshot text the quote matched, as it stands there.
    pub exact: String,
    /// Up to 32 characters before `exact`.
    pub prefix: String,
    /// Up to 32 characters after `exact`.
    pub suffix: String,
    pub start: u64,
    pub end: u64,
}

/// The fields of [`Event::QuoteAttached`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct QuoteAttached {
    pub epoch: Epoch,
    pub id: SourceId,
    /// The page's words for the match (issue 20; before it, the quote as the caller
    /// gave it, trimmed). Where the caller's text differs, an [`Event::QuoteTyped`]
    /// record follows with it.
    pub text: String,
    /// blake3 of the page text the quote was checked against, a key of `snapshots`.
    pub snapshot: Hash,
    pub selector: TextQuote,
    /// The day it was attached, `YYYY-MM-DD` (UTC).
    pub added: String,
}

/// The fields of [`Event::SourceAdded`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct SourceAdded {
    pub epoch: Epoch,
    pub id: SourceId,
    /// The argument exactly as the caller gave it.
    pub url_given: String,
    /// The canonical form, the key of the url index.
    pub url: String,
    pub title: String,
    /// Access date, `YYYY-MM-DD`.
    pub accessed: String,
    /// The retrieval route (`web`, `reddit`, …) when the caller named one.
    pub via: Option<String>,
}

/// Who made a change, when, and from which command: the provenance of a record.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub at_ns: i128,
    pub pid: u32,
    pub actor: Option<String>,
    pub command: Vec<String>,
}

/// Where a record came from. Variants are only ever appended.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// Index 0: the first record of a write transaction carries its full origin.
    Origin(Origin),
    /// Index 1: a later record of the transaction whose first record is at this seq.
    SameAs(Seq),
}

impl Provenance {
    /// The seq of the first record of the transaction that wrote the record at `own`:
    /// `own` itself when the record carries the origin.
    pub fn transaction(&self, own: Seq) -> Seq {
        match self {
            Provenance::Origin(_) => own,
            Provenance::SameAs(first) => *first,
        }
    }
}

/// One entry of the log. See the module docs for the field order on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub format: u16,
    pub provenance: Provenance,
    pub prev: Hash,
    pub event: Event,
}

/// Borrowing twin of [`Record`] used for encoding; the field order is the wire order.
#[derive(Serialize)]
struct WireRef<'a> {
    format: u16,
    provenance: &'a Provenance,
    prev: &'a Hash,
    event: &'a Event,
}

/// Owned body of a version-1 record, after its `format` field.
#[derive(Deserialize)]
struct BodyV1 {
    provenance: Provenance,
    prev: Hash,
    event: Event,
}

/// Why stored bytes could not become a [`Record`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    #[error("unsupported record format (got {got}, supports {supports})")]
    UnsupportedFormat { got: u16, supports: u16 },
    #[error("record does not decode: {0}")]
    Malformed(String),
    #[error("record has {0} trailing byte(s)")]
    TrailingBytes(usize),
    #[error("record is not in its canonical encoding (it decodes, but encodes to other bytes)")]
    NotCanonical,
}

impl Record {
    /// The canonical encoding: what is stored and what is hashed.
    pub fn encode(&self) -> Vec<u8> {
        let wire = WireRef {
            format: self.format,
            provenance: &self.provenance,
            prev: &self.prev,
            event: &self.event,
        };
        // Encoding plain owned data into a Vec cannot fail.
        postcard::to_stdvec(&wire).expect("postcard encoding of a record")
    }

    /// Decodes stored bytes, refusing unknown formats and trailing bytes.
    pub fn decode(bytes: &[u8]) -> Result<Record, DecodeError> {
        let (format, rest): (u16, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| DecodeError::Malformed(e.to_string()))?;
        if format != FORMAT_VERSION {
            return Err(DecodeError::UnsupportedFormat {
                got: format,
                supports: FORMAT_VERSION,
            });
        }
        let (body, rest): (BodyV1, &[u8]) =
            postcard::take_from_bytes(rest).map_err(|e| DecodeError::Malformed(e.to_string()))?;
        if !rest.is_empty() {
            return Err(DecodeError::TrailingBytes(rest.len()));
        }
        let record = Record {
            format,
            provenance: body.provenance,
            prev: body.prev,
            event: body.event,
        };
        // A record has one spelling: postcard reads overlong varints it never writes, and
        // a second spelling of a record would hash differently from its re-encoding.
        if record.encode() != bytes {
            return Err(DecodeError::NotCanonical);
        }
        Ok(record)
    }

    /// The chain hash of this record: blake3 over its canonical encoding.
    pub fn hash(&self) -> Hash {
        hash_bytes(&self.encode())
    }
}

/// The chain hash of already-encoded record bytes.
pub fn hash_bytes(encoded: &[u8]) -> Hash {
    *blake3::hash(encoded).as_bytes()
}

/// Lower-case hex of a hash, for messages and JSON.
pub fn hex(hash: &Hash) -> String {
    hex_bytes(hash)
}

/// Lower-case hex of any bytes (stored records, keys read back from disk).
pub fn hex_bytes(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rejects_trailing_bytes_and_future_formats() {
        let rec = Record {
            format: FORMAT_VERSION,
            provenance: Provenance::Origin(Origin {
                at_ns: 0,
                pid: 1,
                actor: None,
                command: vec![],
            }),
            prev: GENESIS,
            event: Event::Reset {
                new_epoch: Epoch(2),
            },
        };
        let mut bytes = rec.encode();
        assert_eq!(Record::decode(&bytes).unwrap(), rec);
        // The format, 1, spelled as an overlong varint: a second spelling is refused.
        let overlong = [&[0x81, 0x00], &bytes[1..]].concat();
        assert_eq!(Record::decode(&overlong), Err(DecodeError::NotCanonical));
        bytes.push(0);
        assert_eq!(Record::decode(&bytes), Err(DecodeError::TrailingBytes(1)));
        let future = postcard::to_stdvec(&(FORMAT_VERSION + 1)).unwrap();
        assert!(matches!(
            Record::decode(&future),
            Err(DecodeError::UnsupportedFormat { got: 2, .. })
        ));
    }
}
