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
//!   rewritten when its title is set.
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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
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
}

impl SourceRow {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(self).expect("postcard encoding of a source row")
    }

    pub fn decode(bytes: &[u8]) -> Result<SourceRow, String> {
        decode_exact(bytes, "source row")
    }
}
