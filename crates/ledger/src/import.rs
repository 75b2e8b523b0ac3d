//! Importing a `sources.py` ledger: checking the JSON, then writing it as events, in
//! memory that does not grow with the file.
//!
//! A `sources.py` ledger is `{"version": 1, "sources": [{"id", "url", "title",
//! "accessed", "quotes": [{"text", "added"}]}, …]}`; its own loader asks only for an
//! object with a list `sources` whose entries carry `id` and `url`.
//!
//! The file is read twice and never held. The first pass ([`ImportRequest::open`])
//! streams it, checks each entry as it goes by and drops it, keeping 24 bytes per entry
//! (its id and a hash of its canonical URL) to find repeated ids and URLs afterwards.
//! Everything that can be refused is refused there, before the store is opened, so a
//! bad entry at the end of a large file leaves the ledger untouched (and creates none).
//! The second pass ([`Ledger::import`]) streams the file again inside one write
//! transaction, writing each entry as it is read, in file order. Both passes hash the
//! bytes they read; a file that changed in between is refused and nothing is written.
//! Input that cannot be read twice (stdin, a pipe) is first copied to an anonymous
//! temporary file.
//!
//! When a file has several problems, the one reported is: invalid JSON anywhere; else the
//! first part of the wrong shape (top level, `sources`, an entry that is not an object);
//! else an unsupported `version`; else the first entry in file order with a problem of
//! its own or an id an earlier entry has; else two ids whose URLs are one once
//! canonicalized (the pair whose larger id is smallest). That is the order a reader fixing
//! the file one message at a time would want, and the one the check had when it held the
//! whole file, so no message changed with streaming.
//!
//! What is kept as recorded: ids (up to [`MAX_ID`]), the URL as given (`url_given`), quote
//! texts and dates. What is normalized: the URL is canonicalized like every other URL, the
//! title is cleaned like every title (line breaks made spaces) so rendered entries stay one
//! line, and the access date is checked and written like `add --accessed` writes it; a
//! missing or empty one stays empty (unknown), as `sources.py` itself would show it: the
//! import does not know when the page was read, and today would be false. `via`, which
//! `sources.py` does not know but `export --format hermes-json` writes for sources that
//! have one, is read when present.

mod stream;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::ops::ControlFlow;
use std::path::Path;

use serde_json::Value;

use super::url::{UrlError, canonicalize};
use super::{Context, Error, Ledger, Result, check_date, check_route, clean_title};
use crate::input::{InputError, unreadable};
use cite_store::event::{Epoch, Event, MAX_ID, SourceAdded, SourceId};
use cite_store::lock::LockMode;
use cite_store::{Store, StoreError};
use stream::{Input, RawEntry, kind, shown};

/// The `version` of the `sources.py` ledgers this build reads.
pub const SOURCES_PY_VERSION: u64 = 1;

/// Why a file cannot be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be read (missing, a folder, an I/O error).
    #[error(transparent)]
    Input(#[from] InputError),
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
        position: u64,
        /// The id as written in the file.
        id: String,
    },
    #[error("{from}: entry {position} (id {id}): {error}")]
    BadUrl {
        from: String,
        /// 1-based position in `sources`.
        position: u64,
        id: u64,
        error: UrlError,
    },
    #[error(
        "{from}: entry {position} (id {id}): \"accessed\" is not a date: {date:?} — give the access date as YYYY-MM-DD"
    )]
    BadDate {
        from: String,
        /// 1-based position in `sources`.
        position: u64,
        id: u64,
        date: String,
    },
    #[error("epoch {epoch} already has sources — run `cite reset` first, then import")]
    EpochNotEmpty { epoch: u64 },
    #[error(
        "{from} changed while it was being imported — nothing was written; import it again once it is complete"
    )]
    Changed { from: String },
    #[error(
        "cannot copy {from} to a temporary file to read it twice ({why}) — import from a file, or set TMPDIR to a folder with room"
    )]
    Spool { from: String, why: String },
}

impl ImportError {
    /// True when the input is at fault (exit 2), false when the ledger's state or the
    /// machine is.
    pub fn is_usage(&self) -> bool {
        !matches!(
            self,
            ImportError::EpochNotEmpty { .. }
                | ImportError::Changed { .. }
                | ImportError::Spool { .. }
        )
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
/// every URL canonical and distinct, every access date a real day. It holds the open
/// file (or a copy of what could be read only once), not the entries.
#[derive(Debug)]
pub struct ImportRequest {
    input: Input,
    from: String,
    sources: u64,
    quotes: u64,
    max_id: u64,
    /// blake3 of the bytes the check read; the write must read the same.
    digest: [u8; 32],
    /// Each id whose canonical URL a smaller id of the file has: the alias and that id.
    aliases: HashMap<u64, u64>,
}

/// What [`Ledger::import`] wrote.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Imported {
    pub from: String,
    pub epoch: u64,
    pub sources: u64,
    pub quotes: u64,
}

/// What the check keeps of an entry: 24 bytes, so a million entries take 24 MB.
#[derive(Clone, Copy)]
struct Key {
    /// The first 128 bits of the blake3 of the canonical URL. Two distinct URLs share
    /// them with a probability below 2^-88 even among a million entries, so equal keys
    /// are taken as equal URLs; the message then reads the URL back from the file.
    url: [u8; 16],
    id: u64,
}

impl Key {
    fn new(entry: &Entry) -> Key {
        let mut url = [0u8; 16];
        url.copy_from_slice(&blake3::hash(entry.url.as_bytes()).as_bytes()[..16]);
        Key { url, id: entry.id }
    }
}

impl ImportRequest {
    /// Checks the `sources.py` ledger at `path`; `from` names it in messages and in the
    /// log. A regular file is read where it is; anything else (a pipe, a device) is first
    /// copied to a temporary file, since the write reads it again.
    pub fn open(path: &Path, from: &str) -> Result<ImportRequest, ImportError> {
        let file = File::open(path).map_err(|e| unreadable(path, &e))?;
        ImportRequest::from_file(file, from)
    }

    /// Checks a `sources.py` ledger read from `file`, from where it stands.
    pub fn from_file(mut file: File, from: &str) -> Result<ImportRequest, ImportError> {
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        match file.stream_position() {
            Ok(start) if regular => check(Input::File { file, start }, from),
            _ => ImportRequest::from_reader(file, from),
        }
    }

    /// Checks a `sources.py` ledger that can be read only once, such as stdin: it is
    /// copied to an anonymous temporary file (in `$TMPDIR`, gone when the process ends,
    /// however it ends) and read from there.
    pub fn from_reader(mut reader: impl Read, from: &str) -> Result<ImportRequest, ImportError> {
        let spool = |e: io::Error| ImportError::Spool {
            from: from.to_string(),
            why: e.to_string(),
        };
        let mut file = tempfile::tempfile().map_err(spool)?;
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(unreadable(Path::new(from), &e).into()),
            };
            file.write_all(&buf[..n]).map_err(spool)?;
        }
        check(Input::File { file, start: 0 }, from)
    }

    /// Checks `text`, the contents of the `sources.py` ledger `from`. The request keeps
    /// a copy of the text; for a file, [`ImportRequest::open`] holds none.
    pub fn parse(text: &str, from: &str) -> Result<ImportRequest, ImportError> {
        check(Input::Text(text.to_string()), from)
    }

    /// The number of sources it holds.
    pub fn sources(&self) -> u64 {
        self.sources
    }

    /// The number of quotes it holds.
    pub fn quotes(&self) -> u64 {
        self.quotes
    }

    /// Its highest id (0 when it holds no source).
    pub fn max_id(&self) -> u64 {
        self.max_id
    }
}

/// The first pass: refuses whatever can be refused, keeping a [`Key`] per entry.
fn check(input: Input, from: &str) -> Result<ImportRequest, ImportError> {
    let mut keys: Vec<Key> = Vec::new();
    let mut quotes = 0u64;
    let mut problem: Option<ImportError> = None;
    let digest = input.pass(from, &mut |position, raw| {
        // Entries after the first problem are only read, for the JSON's sake.
        if problem.is_none() {
            match check_entry(raw, position, from) {
                Ok(entry) => {
                    quotes += entry.quotes.len() as u64;
                    keys.push(Key::new(&entry));
                }
                Err(e) => problem = Some(e),
            }
        }
        ControlFlow::Continue(())
    })?;
    // `keys` holds the entries before the first problem, so a repeated id among them
    // comes first in the file.
    keys.sort_unstable_by_key(|k| k.id);
    let mut repeated: Vec<u64> = keys
        .windows(2)
        .filter(|w| w[0].id == w[1].id)
        .map(|w| w[0].id)
        .collect();
    if !repeated.is_empty() {
        repeated.dedup();
        drop(keys);
        return Err(first_repeated_id(&input, from, &repeated));
    }
    if let Some(e) = problem {
        return Err(e);
    }
    let sources = keys.len() as u64;
    let max_id = keys.last().map_or(0, |k| k.id);
    keys.sort_unstable_by_key(|k| (k.url, k.id));
    // Entries that canonicalize to one URL all keep their ids (issue 19: merging them
    // broke every draft that cited both): the smallest id is the source, the others its
    // aliases.
    let aliases: HashMap<u64, u64> = keys
        .chunk_by(|a, b| a.url == b.url)
        .filter(|run| run.len() > 1)
        .flat_map(|run| run[1..].iter().map(|k| (k.id, run[0].id)))
        .collect();
    drop(keys);
    Ok(ImportRequest {
        input,
        from: from.to_string(),
        sources,
        quotes,
        max_id,
        digest,
        aliases,
    })
}

/// The message for the first entry whose id an earlier entry has, among `repeated` ids
/// (sorted): found by reading the file again, as positions are not kept.
fn first_repeated_id(input: &Input, from: &str, repeated: &[u64]) -> ImportError {
    let mut first_at: HashMap<u64, u64> = HashMap::new();
    let mut found = None;
    let read = input.pass(from, &mut |position, raw| {
        let Ok(id) = entry_id(&raw, position, from) else {
            return ControlFlow::Continue(());
        };
        if repeated.binary_search(&id).is_ok() {
            if let Some(&first) = first_at.get(&id) {
                found = Some((id, first, position));
                return ControlFlow::Break(());
            }
            first_at.insert(id, position);
        }
        ControlFlow::Continue(())
    });
    match (read, found) {
        (_, Some((id, first, second))) => ImportError::NotALedger {
            from: from.to_string(),
            reason: format!("id {id} appears twice (entries {first} and {second})"),
        },
        (Err(e), None) => e,
        (Ok(_), None) => changed(from),
    }
}

fn changed(from: &str) -> ImportError {
    ImportError::Changed {
        from: from.to_string(),
    }
}

/// The id of the entry at 1-based `position`: an integer from 1 to [`MAX_ID`].
fn entry_id(raw: &RawEntry, position: u64, from: &str) -> Result<u64, ImportError> {
    let not_an_id = |v: &Value| ImportError::NotALedger {
        from: from.to_string(),
        reason: format!(
            "entry {position} has no integer \"id\" of 1 or more (got {})",
            shown(v)
        ),
    };
    let too_large = |v: &Value| ImportError::IdTooLarge {
        from: from.to_string(),
        position,
        id: shown(v),
    };
    match &raw.id {
        None => Err(ImportError::NotALedger {
            from: from.to_string(),
            reason: format!("entry {position} has no \"id\""),
        }),
        Some(v @ Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(id), _) if id > MAX_ID => Err(too_large(v)),
            (Some(id), _) if id >= 1 => Ok(id),
            // Integers past u64, and ones written with an exponent, arrive as floats.
            (None, Some(f)) if f.fract() == 0.0 && f > MAX_ID as f64 => Err(too_large(v)),
            _ => Err(not_an_id(v)),
        },
        Some(v) => Err(not_an_id(v)),
    }
}

/// Checks one entry of `sources`, at 1-based `position`.
fn check_entry(raw: RawEntry, position: u64, from: &str) -> Result<Entry, ImportError> {
    let id = entry_id(&raw, position, from)?;
    let bad = |reason: String| ImportError::NotALedger {
        from: from.to_string(),
        reason,
    };
    let at = format!("entry {position} (id {id})");
    if let Some(field) = raw.repeated {
        return Err(bad(format!("{at}: \"{field}\" appears twice")));
    }
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
    // An empty date is an unknown one (see the module docs); any other must be a day.
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
        Some(Value::Array(items)) => (1..)
            .zip(items)
            .map(|(n, item)| {
                check_quote_entry(item).map_err(|why| bad(format!("{at}: quote {n}{why}")))
            })
            .collect::<Result<_, _>>()?,
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

/// Checks one quote of an entry; what is wrong with it, worded to follow "quote N".
fn check_quote_entry(item: Value) -> Result<QuoteEntry, String> {
    let Value::Object(mut q) = item else {
        return Err(format!(" is {}, not an object", kind(&item)));
    };
    let text = match q.remove("text") {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::String(_)) => return Err(" has an empty \"text\"".to_string()),
        _ => return Err(" has no string \"text\"".to_string()),
    };
    let added = match q.remove("added") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(v) => return Err(format!(": \"added\" is {}, not a string", kind(&v))),
    };
    Ok(QuoteEntry { text, added })
}

impl Ledger {
    /// Writes a checked `sources.py` ledger into the current epoch, in one transaction
    /// under the exclusive maintenance lock: an `Imported` record, then per source, in
    /// file order, its `SourceAdded` with the same id and its `QuoteImported` records.
    /// The file is read again as it is written; if it is not what the check read, nothing
    /// is written ([`ImportError::Changed`]). Refuses an epoch that already has sources.
    /// Later adds continue after the highest id. `progress(done, total)` is called after
    /// each source is written.
    pub fn import(
        &self,
        ctx: &Context,
        req: ImportRequest,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Imported> {
        let store = Store::open_write(&self.location, LockMode::Maintenance, self.wait)?;
        let origin = ctx.origin();
        let ImportRequest {
            input,
            from,
            sources: total,
            quotes,
            digest,
            aliases,
            ..
        } = req;
        store.write(&origin, self.wait, |w| {
            let epoch = w.epoch();
            if !w.epoch_is_empty() {
                return Err(Error::from(ImportError::EpochNotEmpty { epoch: epoch.0 }));
            }
            w.append(Event::Imported {
                epoch,
                from: from.clone(),
                sources: total,
                quotes,
            })?;
            let mut done = 0u64;
            let mut failed: Option<Error> = None;
            // Quotes of aliases, for their source, which a later entry may add.
            let mut deferred: Vec<(u64, QuoteEntry)> = Vec::new();
            let read = input.pass(&from, &mut |position, raw| {
                let written = match check_entry(raw, position, &from) {
                    // The check found no id or URL twice, and the views agreed with the
                    // log when the transaction began: a record the store refuses as a
                    // duplicate can only come from a file that changed since.
                    Ok(entry) if done < total => {
                        let of = aliases.get(&entry.id).copied();
                        write_entry(w, epoch, entry, of, &mut deferred).map_err(|e| match e {
                            Error::Store(StoreError::Invariant { .. }) => changed(&from).into(),
                            e => e,
                        })
                    }
                    _ => Err(changed(&from).into()),
                };
                match written {
                    Ok(()) => {
                        done += 1;
                        progress(done, total);
                        ControlFlow::Continue(())
                    }
                    Err(e) => {
                        failed = Some(e);
                        ControlFlow::Break(())
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            match read {
                Ok(again) if again == digest && done == total => {}
                Err(e @ ImportError::Input(_)) => return Err(e.into()),
                _ => return Err(changed(&from).into()),
            }
            for (of, q) in deferred {
                w.append(Event::QuoteImported {
                    epoch,
                    id: SourceId(of),
                    text: q.text,
                    added: q.added,
                })?;
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

/// Appends one checked entry: its source, then its quotes.
/// Writes one checked entry; an alias (`of`: its source's id) is stored under its
/// source's URL marked as an alias ([`crate::alias_url`]), and its quotes go to its source,
/// after every entry is written (`deferred`), so that both ids show the same evidence.
fn write_entry(
    w: &mut cite_store::Writer<'_>,
    epoch: Epoch,
    e: Entry,
    of: Option<u64>,
    deferred: &mut Vec<(u64, QuoteEntry)>,
) -> Result<()> {
    let id = SourceId(e.id);
    let url = match of {
        Some(of) => crate::alias_url(&e.url, of),
        None => e.url,
    };
    w.append(Event::SourceAdded(SourceAdded {
        epoch,
        id,
        url_given: e.url_given,
        url,
        title: e.title,
        accessed: e.accessed,
        via: e.via,
    }))?;
    for q in e.quotes {
        match of {
            Some(of) => deferred.push((of, q)),
            None => {
                w.append(Event::QuoteImported {
                    epoch,
                    id,
                    text: q.text,
                    added: q.added,
                })?;
            }
        }
    }
    Ok(())
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
    fn counts_sources_quotes_and_the_highest_id() {
        let req = parse(
            r#"{"version":1,"sources":[
              {"id":9,"url":"https://B.example/x/","title":"B\nline","accessed":"2024-01-02",
               "quotes":[{"text":"one two three","added":"2024-01-03"}]},
              {"id":1,"url":"https://a.example","extra":{"nested":[1,2]}}]}"#,
        )
        .unwrap();
        assert_eq!((req.sources(), req.quotes(), req.max_id()), (2, 1, 9));
        let empty = parse(r#"{"sources":[]}"#).unwrap();
        assert_eq!((empty.sources(), empty.quotes(), empty.max_id()), (0, 0, 0));
    }

    fn ctx() -> Context {
        Context {
            now: time::macros::datetime!(2025-01-02 03:04:05 UTC),
            pid: 7,
            actor: None,
            command: vec!["cite".into(), "import".into()],
        }
    }

    /// A file that changes between the check and the write is refused, and the write
    /// transaction leaves nothing behind, whether the change still reads as a ledger or
    /// not.
    #[test]
    fn a_file_changed_after_the_check_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path().join("l.redb"), std::time::Duration::from_secs(5));
        let path = dir.path().join("l.json");
        let good = r#"{"sources":[{"id":1,"url":"https://a.example"},{"id":2,"url":"https://b.example"}]}"#;
        let changes = [
            r#"{"sources":[{"id":1,"url":"https://a.example"},{"id":2,"url":"https://c.example"}]}"#,
            r#"{"sources":[{"id":1,"url":"https://a.example"},{"id":1,"url":"https://a.example"}]}"#,
            r#"{"sources":[{"id":1,"url":"https://a.example"}]}"#,
            r#"{"sources":[{"id":1,"url":"https://a.example"},{"id":2,"url":"https://b.example"},{"id":3,"url":"https://c.example"}]}"#,
            r#"{"sources":[{"id":1,"url":"https://a.example"},{"id":2,"url":"nope"}]}"#,
            r#"{"sources":[{"id":1,"url":"https://a.example"},"#,
        ];
        for change in changes {
            std::fs::write(&path, good).unwrap();
            let req = ImportRequest::open(&path, "l.json").unwrap();
            std::fs::write(&path, change).unwrap();
            let err = ledger.import(&ctx(), req, &mut |_, _| {}).unwrap_err();
            assert!(
                matches!(&err, Error::Import(ImportError::Changed { from }) if from == "l.json"),
                "{change}: {err}"
            );
            assert!(!err.is_usage());
            let view = ledger.view(None).unwrap();
            assert_eq!(view.count().unwrap(), 0, "{change}");
        }
        // Unchanged, it imports.
        std::fs::write(&path, good).unwrap();
        let req = ImportRequest::open(&path, "l.json").unwrap();
        let done = ledger.import(&ctx(), req, &mut |_, _| {}).unwrap();
        assert_eq!(done.sources, 2);
    }

    /// What cannot be read twice is copied first: a pipe imports like a file.
    #[test]
    fn a_reader_is_spooled_and_read_twice() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path().join("l.redb"), std::time::Duration::from_secs(5));
        let text = r#"{"sources":[{"id":3,"url":"https://a.example","accessed":"2025-01-01"}]}"#;
        let req = ImportRequest::from_reader(text.as_bytes(), "-").unwrap();
        assert_eq!(req.max_id(), 3);
        let mut seen = Vec::new();
        let done = ledger
            .import(&ctx(), req, &mut |d, t| seen.push((d, t)))
            .unwrap();
        assert_eq!((done.sources, done.quotes, seen), (1, 0, vec![(1, 1)]));
    }

    /// Reads one byte at a time, so UTF-8 sequences are cut at every possible point.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_wherever_they_are() {
        let good = "{\"sources\":[{\"id\":1,\"url\":\"https://a.example\",\"title\":\"Æ € 𝄞\",\"x\":\"é\"}]}";
        assert_eq!(
            ImportRequest::from_reader(Trickle(good.as_bytes()), "t.json")
                .unwrap()
                .sources(),
            1
        );
        let not_utf8 = |bytes: &[u8]| {
            let err = ImportRequest::from_reader(Trickle(bytes), "t.json").unwrap_err();
            assert_eq!(
                err.to_string(),
                "cannot read t.json: it is not UTF-8 text",
                "{bytes:?}"
            );
        };
        // In a field that is skipped, in one that is kept, cut short at the end.
        not_utf8(b"{\"sources\":[{\"id\":1,\"url\":\"https://a.example\",\"x\":\"\xff\"}]}");
        not_utf8(
            b"{\"sources\":[{\"id\":1,\"url\":\"https://a.example\",\"title\":\"\xe2\x82x\"}]}",
        );
        not_utf8(b"{\"sources\":[],\"x\":\"\xe2\x82");
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
                r#"{"sources":[{"id":1,"url":"https://a.example","url":"https://b.example"}]}"#,
                "entry 1 (id 1): \"url\" appears twice",
            ),
            (
                r#"{"sources":[],"sources":[]}"#,
                "\"sources\" appears twice",
            ),
            (r#"{"version":3}"#, "unsupported \"version\" 3"),
            (
                r#"{"version":1,"sources":"x"}"#,
                "\"sources\" is a string, not a list",
            ),
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
    }

    /// Issue 19: entries that canonicalize to one URL are kept, the later ids as aliases
    /// of the smallest.
    #[test]
    fn entries_of_one_url_become_aliases_of_the_smallest_id() {
        let req = parse(
            r#"{"sources":[{"id":9,"url":"https://a.example/#x"},{"id":2,"url":"HTTPS://A.EXAMPLE"},
              {"id":4,"url":"https://a.example/"},{"id":5,"url":"https://b.example"}]}"#,
        )
        .unwrap();
        let mut aliases: Vec<(u64, u64)> = req.aliases.iter().map(|(&a, &b)| (a, b)).collect();
        aliases.sort_unstable();
        assert_eq!(aliases, [(4, 2), (9, 2)]);
    }
}
