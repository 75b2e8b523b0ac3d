//! Importing a `sources.py` ledger: checking the JSON, then writing it as events.
//!
//! A `sources.py` ledger is `{"version": 1, "sources": [{"id", "url", "title",
//! "accessed", "quotes": [{"text", "added"}]}, …]}`; its own loader asks only for an
//! object with a list `sources` whose entries carry `id` and `url`. Everything is checked
//! before the store is opened ([`ImportRequest::parse`]), so a bad entry at the end of a
//! large file leaves the ledger untouched; the writing itself is one transaction
//! ([`Ledger::import`]).
//!
//! What is kept as recorded: ids, the URL as given (`url_given`), access dates and quote
//! texts and dates. What is normalized: the URL is canonicalized like every other URL
//! (two entries that become one URL are refused, naming both ids), and the title is
//! cleaned like every title (line breaks made spaces), so rendered entries stay one line.
//! `via`, which `sources.py` does not know but `export --format hermes-json` writes for
//! sources that have one, is read when present.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::url::{UrlError, canonicalize};
use super::{Context, Error, Ledger, Result, check_date, check_route, clean_title};
use crate::store::Store;
use crate::store::event::{Event, MAX_ID, SourceAdded, SourceId};
use crate::store::lock::LockMode;

/// The `version` of the `sources.py` ledgers this build reads.
pub const SOURCES_PY_VERSION: u64 = 1;

/// Why a file cannot be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    #[error("{from} is not valid JSON ({reason})")]
    NotJson { from: String, reason: String },
    #[error(
        "{from} is not a sources.py ledger: {reason} — expected {{\"version\": 1, \"sources\": [{{\"id\": 1, \"url\": \"…\", \"title\": \"…\", \"accessed\": \"YYYY-MM-DD\"}}, …]}}"
    )]
    NotALedger { from: String, reason: String },
    #[error(
        "{from}: entry {position} (id {id}): ids above {MAX_ID} (2^53 − 1) are not supported, as JSON readers cannot keep them exact — renumber the entry, then import"
    )]
    IdTooLarge {
        from: String,
        /// 1-based position in `sources`.
        position: usize,
        /// The id as written in the file.
        id: String,
    },
    #[error("{from}: entry {position} (id {id}): {error}")]
    BadUrl {
        from: String,
        /// 1-based position in `sources`.
        position: usize,
        id: u64,
        error: UrlError,
    },
    #[error(
        "{from}: entry {position} (id {id}): \"accessed\" is not a date: {date:?} — give the access date as YYYY-MM-DD"
    )]
    BadDate {
        from: String,
        /// 1-based position in `sources`.
        position: usize,
        id: u64,
        date: String,
    },
    #[error(
        "{from}: [{first}] and [{second}] are the same URL once canonicalized ({url}) — merge the two entries in the JSON, then import"
    )]
    SameUrl {
        from: String,
        first: u64,
        second: u64,
        url: String,
    },
    #[error("epoch {epoch} already has sources — run `cite reset` first, then import")]
    EpochNotEmpty { epoch: u64 },
}

impl ImportError {
    /// True when the input is at fault (exit 2), false when the ledger's state is.
    pub fn is_usage(&self) -> bool {
        !matches!(self, ImportError::EpochNotEmpty { .. })
    }
}

/// One quote of an imported entry, as `sources.py` recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct QuoteEntry {
    text: String,
    added: String,
}

/// One checked entry.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    id: u64,
    url_given: String,
    url: String,
    title: String,
    accessed: String,
    via: Option<String>,
    quotes: Vec<QuoteEntry>,
}

/// A `sources.py` ledger, checked and ready to write: ids unique, from 1 to [`MAX_ID`],
/// every URL canonical and distinct, every access date a real day (or none). Built only by [`ImportRequest::parse`].
#[derive(Clone, Debug)]
pub struct ImportRequest {
    from: String,
    /// In id order.
    entries: Vec<Entry>,
    quotes: u64,
}

/// What [`Ledger::import`] wrote.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Imported {
    pub from: String,
    pub epoch: u64,
    pub sources: u64,
    pub quotes: u64,
}

// The shapes read in the first pass. Fields are loose `Value`s so that a wrong type gets
// a message naming the entry, not serde's; unknown fields are ignored, as `sources.py`
// ignores them. Only these fields are kept, so a large ledger is not held as a tree.
#[derive(Deserialize)]
struct RawLedger {
    version: Option<Value>,
    sources: Option<Vec<RawEntry>>,
}

#[derive(Deserialize)]
struct RawEntry {
    id: Option<Value>,
    url: Option<Value>,
    title: Option<Value>,
    accessed: Option<Value>,
    quotes: Option<Value>,
    via: Option<Value>,
}

/// `a string`, `a list`, … for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A value as JSON, cut short, for messages.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

impl ImportRequest {
    /// Checks `text`, the contents of the `sources.py` ledger `from` (the path as given,
    /// used in messages and recorded in the log).
    pub fn parse(text: &str, from: &str) -> Result<ImportRequest, ImportError> {
        let not_ledger = |reason: String| ImportError::NotALedger {
            from: from.to_string(),
            reason,
        };
        let raw: RawLedger = match serde_json::from_str(text) {
            Ok(raw) => raw,
            Err(e) => return Err(diagnose(text, from, e)),
        };
        match &raw.version {
            None => {}
            Some(Value::Number(n)) if n.as_u64() == Some(SOURCES_PY_VERSION) => {}
            Some(v) => {
                return Err(not_ledger(format!(
                    "unsupported \"version\" {} (cite imports version {SOURCES_PY_VERSION})",
                    shown(v)
                )));
            }
        }
        let Some(raw_entries) = raw.sources else {
            return Err(not_ledger("no \"sources\" list at the top level".into()));
        };
        let mut entries = Vec::with_capacity(raw_entries.len());
        let mut positions: HashMap<u64, usize> = HashMap::with_capacity(raw_entries.len());
        let mut quotes = 0u64;
        for (i, raw) in raw_entries.into_iter().enumerate() {
            let position = i + 1;
            let entry = check_entry(raw, position, from)?;
            if let Some(first) = positions.insert(entry.id, position) {
                return Err(not_ledger(format!(
                    "id {} appears twice (entries {first} and {position})",
                    entry.id
                )));
            }
            quotes += entry.quotes.len() as u64;
            entries.push(entry);
        }
        entries.sort_by_key(|e| e.id);
        let mut urls: HashMap<&str, u64> = HashMap::with_capacity(entries.len());
        for e in &entries {
            if let Some(first) = urls.insert(&e.url, e.id) {
                return Err(ImportError::SameUrl {
                    from: from.to_string(),
                    first,
                    second: e.id,
                    url: e.url.clone(),
                });
            }
        }
        Ok(ImportRequest {
            from: from.to_string(),
            entries,
            quotes,
        })
    }

    /// The number of sources it holds.
    pub fn sources(&self) -> u64 {
        self.entries.len() as u64
    }

    /// The number of quotes it holds.
    pub fn quotes(&self) -> u64 {
        self.quotes
    }
}

/// Checks one entry of `sources`, at 1-based `position`.
fn check_entry(raw: RawEntry, position: usize, from: &str) -> Result<Entry, ImportError> {
    let bad = |reason: String| ImportError::NotALedger {
        from: from.to_string(),
        reason,
    };
    let not_an_id = |v: &Value| {
        bad(format!(
            "entry {position} has no integer \"id\" of 1 or more (got {})",
            shown(v)
        ))
    };
    let too_large = |v: &Value| ImportError::IdTooLarge {
        from: from.to_string(),
        position,
        id: shown(v),
    };
    let id = match &raw.id {
        None => return Err(bad(format!("entry {position} has no \"id\""))),
        Some(v @ Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(id), _) if id > MAX_ID => return Err(too_large(v)),
            (Some(id), _) if id >= 1 => id,
            // Integers past u64, and ones written with an exponent, arrive as floats.
            (None, Some(f)) if f.fract() == 0.0 && f > MAX_ID as f64 => {
                return Err(too_large(v));
            }
            _ => return Err(not_an_id(v)),
        },
        Some(v) => return Err(not_an_id(v)),
    };
    let at = format!("entry {position} (id {id})");
    let string = |field: &str, v: Option<Value>| -> Result<Option<String>, ImportError> {
        match v {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(bad(format!(
                "{at}: \"{field}\" is {}, not a string",
                kind(&v)
            ))),
        }
    };
    let url_given = match raw.url {
        Some(Value::String(s)) => s,
        Some(v) => {
            return Err(bad(format!(
                "{at} has no string \"url\" (got {})",
                shown(&v)
            )));
        }
        None => return Err(bad(format!("{at} has no \"url\""))),
    };
    let url = canonicalize(&url_given).map_err(|error| ImportError::BadUrl {
        from: from.to_string(),
        position,
        id,
        error,
    })?;
    let title = clean_title(&string("title", raw.title)?.unwrap_or_default());
    // An empty date is an unknown one: sources.py always writes one, and the import
    // does not know when the page was read (today would be false). Any other must be a
    // real day, written as `add --accessed` writes it.
    let accessed = match string("accessed", raw.accessed)? {
        Some(date) if !date.trim().is_empty() => {
            check_date(&date).map_err(|_| ImportError::BadDate {
                from: from.to_string(),
                position,
                id,
                date,
            })?
        }
        _ => String::new(),
    };
    let via = match string("via", raw.via)? {
        None => None,
        Some(v) => Some(check_route(&v).map_err(|_| {
            bad(format!(
                "{at}: \"via\" {v:?} is not a route name (one word such as web or reddit)"
            ))
        })?),
    };
    let quotes = match raw.quotes {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (j, item) in items.into_iter().enumerate() {
                let n = j + 1;
                let Value::Object(mut q) = item else {
                    return Err(bad(format!(
                        "{at}: quote {n} is {}, not an object",
                        kind(&item)
                    )));
                };
                let text = match q.remove("text") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s,
                    Some(Value::String(_)) => {
                        return Err(bad(format!("{at}: quote {n} has an empty \"text\"")));
                    }
                    _ => return Err(bad(format!("{at}: quote {n} has no string \"text\""))),
                };
                let added = match q.remove("added") {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s,
                    Some(v) => {
                        return Err(bad(format!(
                            "{at}: quote {n}: \"added\" is {}, not a string",
                            kind(&v)
                        )));
                    }
                };
                out.push(QuoteEntry { text, added });
            }
            out
        }
        Some(v) => {
            return Err(bad(format!("{at}: \"quotes\" is {}, not a list", kind(&v))));
        }
    };
    Ok(Entry {
        id,
        url_given,
        url,
        title,
        accessed,
        via,
        quotes,
    })
}

/// Why `text` did not read as a ledger: invalid JSON, or which part has the wrong shape.
/// Runs only on failure, so the tree it builds costs nothing on the way that works.
fn diagnose(text: &str, from: &str, first: serde_json::Error) -> ImportError {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return ImportError::NotJson {
                from: from.to_string(),
                reason: e.to_string(),
            };
        }
    };
    let reason = match &value {
        Value::Object(top) => match top.get("sources") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .find(|(_, item)| !item.is_object())
                .map(|(i, item)| {
                    format!(
                        "entry {} of \"sources\" is {}, not an object",
                        i + 1,
                        kind(item)
                    )
                })
                .unwrap_or_else(|| first.to_string()),
            Some(Value::Null) | None => "no \"sources\" list at the top level".to_string(),
            Some(v) => format!("\"sources\" is {}, not a list", kind(v)),
        },
        v => format!(
            "the top level is {}, not an object with a \"sources\" list",
            kind(v)
        ),
    };
    ImportError::NotALedger {
        from: from.to_string(),
        reason,
    }
}

impl Ledger {
    /// Writes a checked `sources.py` ledger into the current epoch, in one transaction
    /// under the exclusive maintenance lock: an `Imported` record, then per source (in id
    /// order) its `SourceAdded` with the same id and its `QuoteImported` records. Refuses
    /// an epoch that already has sources. Later adds continue after the highest id.
    /// `progress(done, total)` is called after each source is written.
    pub fn import(
        &self,
        ctx: &Context,
        req: ImportRequest,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Imported> {
        let store = Store::open_write(&self.path, LockMode::Exclusive, self.wait)?;
        let origin = ctx.origin();
        let total = req.sources();
        let quotes = req.quotes;
        let from = req.from;
        store.write(&origin, self.wait, |w| {
            let epoch = w.epoch();
            if w.next_id(epoch)? != SourceId(1) {
                return Err(Error::from(ImportError::EpochNotEmpty { epoch: epoch.0 }));
            }
            w.append(Event::Imported {
                epoch,
                from: from.clone(),
                sources: total,
                quotes,
            })?;
            for (done, e) in (1u64..).zip(req.entries) {
                let id = SourceId(e.id);
                w.append(Event::SourceAdded(SourceAdded {
                    epoch,
                    id,
                    url_given: e.url_given,
                    url: e.url,
                    title: e.title,
                    accessed: e.accessed,
                    via: e.via,
                }))?;
                for q in e.quotes {
                    w.append(Event::QuoteImported {
                        epoch,
                        id,
                        text: q.text,
                        added: q.added,
                    })?;
                }
                progress(done, total);
            }
            Ok(Imported {
                from: from.clone(),
                epoch: epoch.0,
                sources: total,
                quotes,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ImportRequest, ImportError> {
        ImportRequest::parse(text, "l.json")
    }

    fn reason(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_a_ledger_in_id_order() {
        let req = parse(
            r#"{"version":1,"sources":[
              {"id":2,"url":"https://B.example/x/","title":"B\nline","accessed":"2024-01-02",
               "quotes":[{"text":"one two three","added":"2024-01-03"}]},
              {"id":1,"url":"https://a.example","extra":true}]}"#,
        )
        .unwrap();
        assert_eq!(req.sources(), 2);
        assert_eq!(req.quotes(), 1);
        assert_eq!(req.entries[0].id, 1);
        assert_eq!(req.entries[0].title, "");
        assert_eq!(req.entries[0].accessed, "");
        let b = &req.entries[1];
        assert_eq!(b.url, "https://b.example/x");
        assert_eq!(b.url_given, "https://B.example/x/");
        assert_eq!(b.title, "B line");
        assert_eq!(b.quotes[0].added, "2024-01-03");
    }

    #[test]
    fn names_what_is_wrong() {
        let cases = [
            ("[1]", "the top level is a list"),
            (r#"{"version":1}"#, "no \"sources\" list"),
            (r#"{"sources":null}"#, "no \"sources\" list"),
            (r#"{"sources":{}}"#, "\"sources\" is an object, not a list"),
            (
                r#"{"sources":[{"id":1,"url":"https://a.example"},3]}"#,
                "entry 2 of \"sources\" is a number",
            ),
            (
                r#"{"sources":[{"url":"https://a.example"}]}"#,
                "entry 1 has no \"id\"",
            ),
            (
                r#"{"sources":[{"id":0,"url":"https://a.example"}]}"#,
                "entry 1 has no integer \"id\" of 1 or more (got 0)",
            ),
            (
                r#"{"sources":[{"id":1.5,"url":"https://a.example"}]}"#,
                "(got 1.5)",
            ),
            (
                r#"{"sources":[{"id":"1","url":"https://a.example"}]}"#,
                "(got \"1\")",
            ),
            (r#"{"sources":[{"id":1}]}"#, "entry 1 (id 1) has no \"url\""),
            (
                r#"{"sources":[{"id":1,"url":7}]}"#,
                "entry 1 (id 1) has no string \"url\" (got 7)",
            ),
            (
                r#"{"sources":[{"id":1,"url":"https://a.example","title":3}]}"#,
                "\"title\" is a number, not a string",
            ),
            (
                r#"{"sources":[{"id":1,"url":"https://a.example","quotes":"x"}]}"#,
                "\"quotes\" is a string, not a list",
            ),
            (
                r#"{"sources":[{"id":1,"url":"https://a.example","quotes":[{"added":"x"}]}]}"#,
                "quote 1 has no string \"text\"",
            ),
            (r#"{"version":2,"sources":[]}"#, "unsupported \"version\" 2"),
            (
                r#"{"sources":[{"id":3,"url":"https://a.example"},{"id":3,"url":"https://b.example"}]}"#,
                "id 3 appears twice (entries 1 and 2)",
            ),
        ];
        for (text, want) in cases {
            let got = reason(text);
            assert!(got.contains(want), "{text}: {got}");
            assert!(
                got.starts_with("l.json is not a sources.py ledger: "),
                "{got}"
            );
        }
        assert!(reason("{").starts_with("l.json is not valid JSON ("));
        assert!(
            reason(r#"{"sources":[{"id":4,"url":"nope"}]}"#)
                .starts_with("l.json: entry 1 (id 4): not a URL: \"nope\"")
        );
        assert_eq!(
            reason(
                r#"{"sources":[{"id":9,"url":"https://a.example/#x"},{"id":2,"url":"HTTPS://A.EXAMPLE"}]}"#
            ),
            "l.json: [2] and [9] are the same URL once canonicalized (https://a.example) — merge the two entries in the JSON, then import"
        );
    }
}
