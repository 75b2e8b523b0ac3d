//! The head of the log: the seq and hash of its last record, stored beside the views and
//! checked against the log before a record is chained onto it.

use crate::StoreError;
use crate::backend::Tables;
use crate::event::{self, GENESIS, Hash, Seq};
use crate::tables::META_HEAD;

/// The head of the chain: the last record's seq and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    pub seq: Seq,
    pub hash: Hash,
}

impl Head {
    pub(crate) const EMPTY: Head = Head {
        seq: Seq(0),
        hash: GENESIS,
    };

    pub(crate) fn encode(&self) -> [u8; 40] {
        let mut out = [0u8; 40];
        out[..8].copy_from_slice(&self.seq.0.to_le_bytes());
        out[8..].copy_from_slice(&self.hash);
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Head, StoreError> {
        if bytes.len() != 40 {
            return Err(StoreError::Corrupted {
                seq: 0,
                reason: format!("stored head is {} bytes, not 40", bytes.len()),
            });
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&bytes[..8]);
        let mut hash = [0u8; 32];
        hash.copy_from_slice(&bytes[8..]);
        Ok(Head {
            seq: Seq(u64::from_le_bytes(seq)),
            hash,
        })
    }
}

pub(crate) fn read_head(tables: &dyn Tables) -> Result<Head, StoreError> {
    match tables.meta(META_HEAD)? {
        None => Ok(Head::EMPTY),
        Some(v) => Head::decode(&v),
    }
}

/// Checks that the stored head names the last record of the log, by seq and by hash,
/// before a record is chained onto it: a new record must never seal a damaged head (or
/// a truncated log) into the chain.
pub(crate) fn check_head(tables: &dyn Tables, head: &Head) -> Result<(), StoreError> {
    let (seq, hash) = match tables.last_record()? {
        None => (0, GENESIS),
        Some((k, v)) => (k, event::hash_bytes(&v)),
    };
    if seq != head.seq.0 || hash != head.hash {
        return Err(StoreError::CorruptedEntry {
            what: "the stored head of the log".into(),
            reason: format!(
                "it names record {}, but the log ends at record {seq}, or that record was changed; nothing was written",
                head.seq.0
            ),
        });
    }
    Ok(())
}
