//! `jsonl`: the whole log, one JSON object a line, checkable without `cite`.
//!
//! Each line is a `log --json` entry (`seq`, `time`, `pid`, `actor` when set, `command`,
//! `event`, `hash`, `prev`) plus `record`: the hex of the exact bytes stored for the
//! record. The chain holds when, line by line, `blake3(unhex(record)) == hash` and `prev`
//! equals the previous line's `hash` (all zeros on the first line). The decoded fields
//! are a reading aid; `record` is what the hashes cover (its layout is documented in
//! `src/store/event.rs`). Every epoch is written, since the chain runs through them all.

use std::io::{self, Write};

use serde::Serialize;

use crate::ledger::{ChainEntry, LogEntry};

#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    entry: &'a LogEntry,
    record: String,
}

/// The line for `e`, without its newline.
pub fn line(e: &ChainEntry) -> String {
    let line = Line {
        entry: &e.entry,
        record: crate::store::event::hex_bytes(&e.record),
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
