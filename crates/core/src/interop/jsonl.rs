//! `jsonl`: the whole log, one JSON object a line, checkable without `cite`.
//!
//! Each line is a `log --json` entry plus `record`: the hex of the exact bytes stored
//! for the record. The first record of a write transaction has `seq`, `time`, `pid`,
//! `actor` (when set), `command`, `event`, `hash`, `prev`; its later records have `seq`,
//! `same_transaction_as` (the seq of that first record, where their origin is),
//! `event`, `hash`, `prev`. The origin is written once per transaction, as it is
//! stored, so that an `add` of k URLs does not write its k-URL command line k times.
//!
//! The chain holds when, line by line, `blake3(unhex(record)) == hash` and `prev`
//! equals the previous line's `hash` (all zeros on the first line). The decoded fields
//! are a reading aid; `record` is what the hashes cover (its layout is documented in
//! `src/store/event.rs`; a later record's bytes name the same first seq as
//! `same_transaction_as`). Every epoch is written, since the chain runs through them all.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::{ChainEntry, LogEntry};

#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    entry: &'a LogEntry,
    record: &'a str,
}

/// The line for `e`, without its newline.
pub fn line(e: &ChainEntry) -> String {
    let line = Line {
        entry: &e.entry,
        record: &e.record,
    };
    // Plain data with string keys always serializes.
    serde_json::to_string(&line).expect("a log line serializes")
}

/// Writes one line per record, streaming. Returns how many.
pub fn write<E: From<io::Error>>(
    out: &mut dyn Write,
    records: impl Iterator<Item = Result<ChainEntry, E>>,
) -> Result<u64, E> {
    let mut n = 0u64;
    for r in records {
        writeln!(out, "{}", line(&r?))?;
        n += 1;
    }
    Ok(n)
}
