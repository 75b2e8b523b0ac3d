//! What a check finds: a problem and where it is (a record, an entry of a view, the
//! head, the file). Below both the storage seam, whose backends check their own files,
//! and the replay, which checks the log and the views.

use std::fmt;

use serde::Serialize;

/// Findings kept in full; the rest are only counted.
pub const MAX_FINDINGS: usize = 50;

/// Where a problem sits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Place {
    /// A record of the log, by seq.
    Record { seq: u64 },
    /// The stored head of the chain.
    Head,
    /// An entry of a table, its key written out (`epoch 1, id 5`).
    Entry { table: String, key: String },
    /// The store as a whole: it could not be read.
    Store,
    /// The file's own structure, as redb sees it.
    File,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Record { seq } => write!(f, "record {seq}"),
            Place::Head => f.write_str("head"),
            Place::Entry { table, key } => write!(f, "{table} ({key})"),
            Place::Store => f.write_str("store"),
            Place::File => f.write_str("file"),
        }
    }
}

/// One problem found by a check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub place: Place,
    pub reason: String,
}

impl Finding {
    pub fn record(seq: u64, reason: impl Into<String>) -> Finding {
        Finding {
            place: Place::Record { seq },
            reason: reason.into(),
        }
    }

    pub fn entry(table: &str, key: impl Into<String>, reason: impl Into<String>) -> Finding {
        Finding {
            place: Place::Entry {
                table: table.to_string(),
                key: key.into(),
            },
            reason: reason.into(),
        }
    }

    /// The store could not be read: `error` says why.
    pub fn store(error: impl fmt::Display) -> Finding {
        Finding {
            place: Place::Store,
            reason: format!("cannot read the store: {error}"),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.reason)
    }
}

/// What a check found, and what it could not do the usual way (a note for the reader,
/// not a problem of the ledger: the file check ran on a copy in memory, say).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
}

/// Findings in the order found, the first [`MAX_FINDINGS`] kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Findings {
    pub kept: Vec<Finding>,
    /// How many more were found but not kept.
    pub omitted: u64,
}

impl Findings {
    pub fn push(&mut self, f: Finding) {
        if self.kept.len() < MAX_FINDINGS {
            self.kept.push(f);
        } else {
            self.omitted += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_keep_the_first_ones_and_count_the_rest() {
        let mut f = Findings::default();
        for i in 0..(MAX_FINDINGS as u64 + 3) {
            f.push(Finding::record(i + 1, "bad"));
        }
        assert_eq!(f.kept.len(), MAX_FINDINGS);
        assert_eq!(f.omitted, 3);
        assert_eq!(f.kept[0].to_string(), "record 1: bad");
    }
}
