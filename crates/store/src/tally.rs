//! The log's own counters: the current epoch, how many sources the log has added, and
//! the highest id of the current epoch.
//!
//! Ids are allocated from here, not from the views: a view damaged behind the store's
//! back (a missing row, a wrong epoch) must not make the store hand out an id twice. The
//! tally is written beside the head, only by the append path (and recomputed from the log
//! by `rebuild`); at the start of every write transaction it is checked against the views
//! in a few constant-time reads, and a disagreement refuses the write until `rebuild` has
//! recomputed the views from the log.

use super::StoreError;
use super::backend::Tables;
use super::event::{Epoch, Event, MAX_ID, SourceId};
use super::materialize;

/// See the module comment. Stored under [`META_TALLY`](super::tables::META_TALLY) as
/// three little-endian u64s: epoch, sources, last id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The current epoch.
    pub epoch: Epoch,
    /// `SourceAdded` records over all epochs: the rows the sources table and the url
    /// index must each hold.
    pub sources: u64,
    /// The highest id added to the current epoch; 0 when it has none.
    pub last_id: u64,
}

impl Tally {
    /// The tally of an empty log.
    pub const EMPTY: Tally = Tally {
        epoch: Epoch::FIRST,
        sources: 0,
        last_id: 0,
    };

    pub fn encode(&self) -> [u8; 24] {
        let mut out = [0u8; 24];
        out[..8].copy_from_slice(&self.epoch.0.to_le_bytes());
        out[8..16].copy_from_slice(&self.sources.to_le_bytes());
        out[16..].copy_from_slice(&self.last_id.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Tally, StoreError> {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        if bytes.len() != 24 {
            return Err(StoreError::CorruptedEntry {
                what: "the stored tally".into(),
                reason: format!("{} bytes, not 24", bytes.len()),
            });
        }
        Ok(Tally {
            epoch: Epoch(word(0)),
            sources: word(1),
            last_id: word(2),
        })
    }

    /// Counts `event` in. An error names what the log may not do.
    pub fn count(&mut self, event: &Event) -> Result<(), String> {
        match event {
            Event::SourceAdded(a) => {
                if a.epoch != self.epoch {
                    return Err(format!(
                        "adds [{}] to epoch {}, but the current epoch is {}",
                        a.id.0, a.epoch.0, self.epoch.0
                    ));
                }
                self.sources = self
                    .sources
                    .checked_add(1)
                    .ok_or("the log has added more sources than can be counted")?;
                self.last_id = self.last_id.max(a.id.0);
            }
            Event::Reset { new_epoch } => {
                if Some(new_epoch.0) != self.epoch.0.checked_add(1) {
                    return Err(format!(
                        "resets to epoch {}, but the current epoch is {}",
                        new_epoch.0, self.epoch.0
                    ));
                }
                self.epoch = *new_epoch;
                self.last_id = 0;
            }
            _ => {}
        }
        Ok(())
    }

    /// The id the next source of the current epoch gets, if any is left.
    pub fn next_id(&self) -> Result<SourceId, StoreError> {
        match self.last_id.checked_add(1) {
            Some(id) if id <= MAX_ID => Ok(SourceId(id)),
            _ => Err(StoreError::IdsExhausted {
                epoch: self.epoch.0,
            }),
        }
    }

    /// Checks the views against this tally: the current epoch, the row counts of the
    /// sources table and the url index, and the highest id of the current epoch. Each is
    /// one lookup, so every write transaction can afford it.
    pub fn check(&self, views: &dyn Tables) -> Result<(), StoreError> {
        let disagree = |detail: String| Err(StoreError::ViewsDisagree { detail });
        let epoch = materialize::current_epoch(views)?;
        if epoch != self.epoch {
            return disagree(format!(
                "the tables' current epoch is {}, the log's is {}",
                epoch.0, self.epoch.0
            ));
        }
        let counts = views.row_counts()?;
        let rows = counts.sources;
        if rows != self.sources {
            return disagree(format!(
                "the sources table has {rows} rows, the log added {} sources",
                self.sources
            ));
        }
        let entries = counts.urls;
        if entries != self.sources {
            return disagree(format!(
                "the url index has {entries} entries, the log added {} sources",
                self.sources
            ));
        }
        let last = views.last_source(epoch.0)?.unwrap_or(0);
        if last != self.last_id {
            return disagree(format!(
                "the highest id of epoch {} is [{last}] in the tables, [{}] in the log",
                epoch.0, self.last_id
            ));
        }
        Ok(())
    }
}

/// The stored tally, `None` where none is (a store of format 1, not yet migrated).
pub fn read(tables: &dyn Tables) -> Result<Option<Tally>, StoreError> {
    match tables.meta(super::tables::META_TALLY)? {
        None => Ok(None),
        Some(v) => Tally::decode(&v).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::SourceAdded;

    fn add(epoch: u64, id: u64) -> Event {
        Event::SourceAdded(SourceAdded {
            epoch: Epoch(epoch),
            id: SourceId(id),
            url_given: String::new(),
            url: String::new(),
            title: String::new(),
            accessed: String::new(),
            via: None,
        })
    }

    #[test]
    fn counts_adds_and_resets_and_bounds_ids() {
        let mut t = Tally::EMPTY;
        t.count(&add(1, 1)).unwrap();
        t.count(&add(1, 7)).unwrap();
        t.count(&add(1, 3)).unwrap();
        assert_eq!(
            t,
            Tally {
                epoch: Epoch(1),
                sources: 3,
                last_id: 7
            }
        );
        assert_eq!(t.next_id().unwrap(), SourceId(8));
        assert!(
            t.count(&add(2, 1))
                .unwrap_err()
                .contains("current epoch is 1")
        );
        t.count(&Event::Reset {
            new_epoch: Epoch(2),
        })
        .unwrap();
        assert_eq!(t.next_id().unwrap(), SourceId(1));
        assert!(
            t.count(&Event::Reset {
                new_epoch: Epoch(4)
            })
            .is_err()
        );
        t.count(&add(2, MAX_ID)).unwrap();
        assert!(matches!(
            t.next_id(),
            Err(StoreError::IdsExhausted { epoch: 2 })
        ));
        t.last_id = u64::MAX;
        assert!(t.next_id().is_err());
        assert_eq!(Tally::decode(&t.encode()).unwrap(), t);
        assert!(Tally::decode(&[0; 23]).is_err());
    }
}
