//! The seven tables of a ledger, as every backend stores them, and the rows they hold.
//!
//! - `events`: seq → encoded [`Record`](super::event::Record). Appended once per change,
//!   in the change's write transaction; never updated, never deleted. The truth: every
//!   other table but `snapshots` is a view of it, written in the same write transaction as
//!   the event that changes it (see `materialize.rs`), and recomputable from the log alone.
//! - `meta`: name → little-endian bytes. Keys: [`META_FORMAT`] (u16, written when the
//!   store is created), [`META_HEAD`] (seq u64 then hash 32 bytes of the last record,
//!   rewritten with every append), [`META_TALLY`] (the log's own counters, rewritten with
//!   the head), [`META_EPOCH`] (u64, the current epoch, rewritten by `reset`), and the
//!   per-epoch counters under [`META_COUNT_PREFIX`] and [`META_QUOTED_PREFIX`], and for
//!   retracted quotes [`META_RETRACTED_PREFIX`] and [`META_LIVE_PREFIX`]. All but the
//!   format, head and tally are views of the log.
//! - `urls`: (epoch, canonical url) → id. Written when a source is added; the url index
//!   that makes re-adding a URL return its id.
//! - `sources`: (epoch, id) → encoded [`SourceRow`]. Written when a source is added,
//!   rewritten when its title is set, a page text or quote is stored for it, or facts
//!   about its page are set (`MetadataSet`).
//! - `history`: (epoch, id, seq). One entry per event that concerns a source, so `show` and
//!   `log --id` find a source's history without scanning the log.
//! - `snapshots`: blake3 hash (32 bytes) → page text (UTF-8). Content-addressed, not a
//!   view: written once per distinct text, by `quote --from` or `add --snapshot`, in the
//!   transaction of the event that refers to it; never changed. `audit` re-hashes every
//!   entry.
//! - `quotes`: (epoch, id, n) → encoded [`QuoteRow`], n counting from 1 per source.
//!   Written when a quote is attached.
//!
//! How each backend lays them out: `redbfile/tables.rs` (redb tables) and
//! `pg/schema.rs` (SQL tables).

use serde::{Deserialize, Serialize};

use super::event::PageFact;

/// The layout of the tables this build writes, stored under [`META_FORMAT`]. (The layout
/// of a record is versioned apart, in each record: `event::FORMAT_VERSION`.)
///
/// - 1: the first release.
/// - 2: adds [`META_TALLY`]. A store of format 1 is migrated to 2 by the first write that
///   opens it (`migrate.rs`), under the writer lock and in one transaction; reading
///   needs no migration. A build that knows only format 1 refuses a store of format 2
///   rather than write to it without keeping the tally.
pub const STORE_FORMAT: u16 = 2;

pub const META_FORMAT: &str = "format";
/// The log's counters (`tally.rs`): epoch, sources added, highest id of the epoch.
pub const META_TALLY: &str = "tally";
/// Prefix of `count/EPOCH` keys (u64 LE): how many sources the epoch holds, rewritten
/// with every source added; equal to the highest id exactly when ids have no gap.
pub const META_COUNT_PREFIX: &str = "count/";
/// Prefix of `quoted/EPOCH` keys (u64 LE): how many sources of the epoch carry a quote,
/// rewritten when a source gets its first one, so `verify` need not count them.
pub const META_QUOTED_PREFIX: &str = "quoted/";
/// Prefix of `retracted/EPOCH/ID/N` keys: the reason quote N of a source was retracted
/// (UTF-8), written by its `QuoteRetracted` record. The quote's row stays; this says it
/// counts for nothing.
pub const META_RETRACTED_PREFIX: &str = "retracted/";
/// Prefix of `live/EPOCH/ID` keys (u64 LE): how many quotes of a source are not retracted,
/// written only for a source that has had one retracted (the others have them all live).
pub const META_LIVE_PREFIX: &str = "live/";
pub const META_HEAD: &str = "head";
pub const META_EPOCH: &str = "epoch";

/// One attached quote, postcard-encoded in `quotes`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct QuoteRow {
    pub text: String,
    /// The page text it was checked against; `None` for a quote imported from
    /// `sources.py`, which kept none.
    pub snapshot: Option<[u8; 32]>,
    pub selector: Option<super::event::TextQuote>,
    pub added: String,
    /// The seq of the event that attached it.
    pub seq: u64,
}

impl QuoteRow {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(self).expect("postcard encoding of a quote row")
    }

    pub fn decode(bytes: &[u8]) -> Result<QuoteRow, String> {
        decode_exact(bytes, "quote row")
    }
}

/// Decodes a whole postcard value, refusing trailing bytes.
fn decode_exact<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, String> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((row, [])) => Ok(row),
        Ok((_, rest)) => Err(format!("{what} has {} trailing byte(s)", rest.len())),
        Err(e) => Err(format!("{what} does not decode: {e}")),
    }
}

/// The materialized state of one source, postcard-encoded in `sources`.
///
/// The encoding is the postcard encoding of the fields up to `snapshots`, in order, then,
/// only for a source that holds facts about its page, the postcard encoding of `facts`
/// (a `seq` of [`PageFact`]). A row without facts is thus byte for byte what a build
/// before `facts` wrote, so no stored row is rewritten and a rebuild of an older ledger
/// gives the same bytes; a row that ends with an empty list has a second spelling and is
/// refused. (`Serialize` is for messages, as JSON: [`SourceRow::encode`] is the
/// stored form.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceRow {
    pub url: String,
    pub url_given: String,
    pub title: String,
    pub accessed: String,
    pub via: Option<String>,
    /// The seq of the event that added it.
    pub added: u64,
    /// Number of quotes attached (rows in `quotes`).
    pub quotes: u64,
    /// Page texts stored for it with `add --snapshot`, oldest first.
    pub snapshots: Vec<[u8; 32]>,
    /// What tool output said about its page (`MetadataSet`): one fact of each kind, the
    /// latest, in the order of their kinds.
    pub facts: Vec<PageFact>,
}

/// The fields of a [`SourceRow`] before `facts`, borrowed, in their stored order.
#[derive(Serialize)]
struct RowHead<'a> {
    url: &'a str,
    url_given: &'a str,
    title: &'a str,
    accessed: &'a str,
    via: &'a Option<String>,
    added: u64,
    quotes: u64,
    snapshots: &'a [[u8; 32]],
}

/// The fields of a [`SourceRow`] before `facts`, as read back.
#[derive(Deserialize)]
struct StoredHead {
    url: String,
    url_given: String,
    title: String,
    accessed: String,
    via: Option<String>,
    added: u64,
    quotes: u64,
    snapshots: Vec<[u8; 32]>,
}

impl SourceRow {
    pub fn encode(&self) -> Vec<u8> {
        let head = RowHead {
            url: &self.url,
            url_given: &self.url_given,
            title: &self.title,
            accessed: &self.accessed,
            via: &self.via,
            added: self.added,
            quotes: self.quotes,
            snapshots: &self.snapshots,
        };
        let mut bytes = postcard::to_stdvec(&head).expect("postcard encoding of a source row");
        if !self.facts.is_empty() {
            bytes.extend(postcard::to_stdvec(&self.facts).expect("postcard encoding of facts"));
        }
        bytes
    }

    pub fn decode(bytes: &[u8]) -> Result<SourceRow, String> {
        let (head, rest) = postcard::take_from_bytes::<StoredHead>(bytes)
            .map_err(|e| format!("source row does not decode: {e}"))?;
        let facts: Vec<PageFact> = if rest.is_empty() {
            Vec::new()
        } else {
            decode_exact(rest, "source row's facts")?
        };
        if !rest.is_empty() && facts.is_empty() {
            return Err("source row ends with an empty list of facts".into());
        }
        Ok(SourceRow {
            url: head.url,
            url_given: head.url_given,
            title: head.title,
            accessed: head.accessed,
            via: head.via,
            added: head.added,
            quotes: head.quotes,
            snapshots: head.snapshots,
            facts,
        })
    }

    /// Takes `facts` in: each replaces the fact of its kind the row holds, if any.
    pub fn set_facts(&mut self, facts: &[PageFact]) {
        for fact in facts {
            match self.facts.iter().position(|f| f.kind() >= fact.kind()) {
                Some(i) if self.facts[i].kind() == fact.kind() => self.facts[i] = fact.clone(),
                Some(i) => self.facts.insert(i, fact.clone()),
                None => self.facts.push(fact.clone()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(facts: Vec<PageFact>) -> SourceRow {
        SourceRow {
            url: "https://a.example/".into(),
            url_given: "a.example".into(),
            title: "A".into(),
            accessed: "2025-01-02".into(),
            via: Some("web".into()),
            added: 3,
            quotes: 1,
            snapshots: vec![[7; 32]],
            facts,
        }
    }

    /// The layout every build before facts wrote: what a row without facts still is.
    #[derive(Serialize)]
    struct Before {
        url: String,
        url_given: String,
        title: String,
        accessed: String,
        via: Option<String>,
        added: u64,
        quotes: u64,
        snapshots: Vec<[u8; 32]>,
    }

    #[test]
    fn a_row_without_facts_is_stored_as_before_and_one_with_facts_reads_back() {
        let bare = row(Vec::new());
        let before = postcard::to_stdvec(&Before {
            url: bare.url.clone(),
            url_given: bare.url_given.clone(),
            title: bare.title.clone(),
            accessed: bare.accessed.clone(),
            via: bare.via.clone(),
            added: 3,
            quotes: 1,
            snapshots: vec![[7; 32]],
        })
        .unwrap();
        assert_eq!(bare.encode(), before);
        assert_eq!(SourceRow::decode(&before).unwrap(), bare);

        let full = row(vec![
            PageFact::Published("2023-05-12".into()),
            PageFact::Authors(vec!["K. Ito".into(), "R. Roe".into()]),
        ]);
        let bytes = full.encode();
        assert_eq!(&bytes[..before.len()], &before[..]);
        #[rustfmt::skip]
        let facts = [
            &[0x02][..],                                // 2 facts
            &[0x00, 0x0a], b"2023-05-12",               // Published
            &[0x03, 0x02, 0x06], b"K. Ito", &[0x06], b"R. Roe", // Authors
        ]
        .concat();
        assert_eq!(&bytes[before.len()..], &facts[..]);
        assert_eq!(SourceRow::decode(&bytes).unwrap(), full);
    }

    #[test]
    fn a_second_spelling_of_a_row_is_refused() {
        let mut empty_list = row(Vec::new()).encode();
        empty_list.push(0);
        assert_eq!(
            SourceRow::decode(&empty_list).unwrap_err(),
            "source row ends with an empty list of facts"
        );
        let mut trailing = row(vec![PageFact::Site("S".into())]).encode();
        trailing.push(0);
        assert_eq!(
            SourceRow::decode(&trailing).unwrap_err(),
            "source row's facts has 1 trailing byte(s)"
        );
    }

    #[test]
    fn facts_replace_their_kind_and_stay_in_kind_order() {
        let mut r = row(vec![PageFact::Site("Old".into())]);
        r.set_facts(&[
            PageFact::Authors(vec!["A".into()]),
            PageFact::Published("2020".into()),
            PageFact::Site("New".into()),
        ]);
        assert_eq!(
            r.facts,
            [
                PageFact::Published("2020".into()),
                PageFact::Site("New".into()),
                PageFact::Authors(vec!["A".into()])
            ]
        );
        r.set_facts(&[PageFact::Language("de".into())]);
        assert_eq!(r.facts[2], PageFact::Language("de".into()));
        assert_eq!(r.facts.len(), 4);
    }
}
