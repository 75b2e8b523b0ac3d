//! Streaming a `sources.py` ledger: one pass over the file hands each entry of
//! `sources` to a callback and reports what is wrong with the file as a whole, holding
//! one entry at a time.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{ImportError, SOURCES_PY_VERSION};
use crate::input::unreadable;

/// The JSON an import reads twice.
#[derive(Debug)]
pub(super) enum Input {
    /// A regular file, read from `start` (where it stood when it was handed over).
    File {
        file: File,
        start: u64,
    },
    Text(String),
}

/// What the passes read through: it hashes the bytes, so that the two passes can tell
/// whether they read the same ones, and refuses bytes that are not UTF-8 anywhere in the
/// file, as reading the whole file into a `String` did (serde_json checks only the
/// strings it keeps).
struct Checked<R> {
    inner: R,
    hasher: blake3::Hasher,
    /// The start of a UTF-8 sequence cut by the end of the last read.
    pending: Vec<u8>,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let bytes = &buf[..n];
        self.hasher.update(bytes);
        let not_utf8 = || io::Error::from(io::ErrorKind::InvalidData);
        if n == 0 && !buf.is_empty() && !self.pending.is_empty() {
            return Err(not_utf8());
        }
        let mut rest = bytes;
        while !self.pending.is_empty() {
            let Some((&b, tail)) = rest.split_first() else {
                return Ok(n);
            };
            self.pending.push(b);
            rest = tail;
            match std::str::from_utf8(&self.pending) {
                Ok(_) => self.pending.clear(),
                Err(e) if e.error_len().is_some() => return Err(not_utf8()),
                Err(_) => {}
            }
        }
        match std::str::from_utf8(rest) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() => {
                self.pending.extend_from_slice(&rest[e.valid_up_to()..]);
            }
            Err(_) => return Err(not_utf8()),
        }
        Ok(n)
    }
}

impl Input {
    /// Streams the whole input once, handing each entry of `sources` to `each` with its
    /// 1-based position, and returns the blake3 of the bytes read. `each` may stop the
    /// pass early; then the digest covers only what was read.
    pub(super) fn pass(
        &self,
        from: &str,
        each: &mut dyn FnMut(u64, RawEntry) -> ControlFlow<()>,
    ) -> Result<[u8; 32], ImportError> {
        let inner: Box<dyn Read + '_> = match self {
            Input::File { file, start } => {
                let mut file = file;
                file.seek(SeekFrom::Start(*start))
                    .map_err(|e| unreadable(Path::new(from), &e))?;
                Box::new(file)
            }
            Input::Text(text) => Box::new(text.as_bytes()),
        };
        let mut checked = Checked {
            inner,
            hasher: blake3::Hasher::new(),
            pending: Vec::new(),
        };
        scan(BufReader::with_capacity(64 << 10, &mut checked), from, each)?;
        Ok(*checked.hasher.finalize().as_bytes())
    }
}

/// The fields of an entry, read in the first and the second pass. Values stay loose so
/// that a wrong type gets a message naming the entry, not serde's; `null` counts as
/// absent, as it did for `sources.py`'s loader.
#[derive(Default)]
pub(super) struct RawEntry {
    pub(super) id: Option<Value>,
    pub(super) url: Option<Value>,
    pub(super) title: Option<Value>,
    pub(super) accessed: Option<Value>,
    pub(super) quotes: Option<Value>,
    pub(super) via: Option<Value>,
    /// A field given twice (not null): which value counts is ambiguous, so it is refused.
    pub(super) repeated: Option<&'static str>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(field_identifier, rename_all = "lowercase")]
enum TopKey {
    Version,
    Sources,
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(field_identifier, rename_all = "lowercase")]
enum EntryKey {
    Id,
    Url,
    Title,
    Accessed,
    Quotes,
    Via,
    #[serde(other)]
    Other,
}

/// The state of one pass over the file.
struct Scan<'f> {
    each: &'f mut dyn FnMut(u64, RawEntry) -> ControlFlow<()>,
    /// The first part of the wrong shape. It outranks every entry's own problem, and the
    /// pass goes on to the end after it, since invalid JSON further on outranks it too.
    shape: Option<String>,
    version: Option<Value>,
    /// Whether a `sources` list was seen.
    sources: bool,
    /// `each` asked to stop.
    stopped: bool,
}

impl Scan<'_> {
    fn shape(&mut self, reason: impl FnOnce() -> String) {
        self.shape.get_or_insert_with(reason);
    }
}

/// Which part of the file a value is: each part wants one kind of value and names any
/// other kind it finds instead, so one visitor serves all three.
enum Part<'s, 'f> {
    Top(&'s mut Scan<'f>),
    Sources(&'s mut Scan<'f>),
    Entry,
}

/// What a [`Part`] made of its value.
enum Seen {
    Done,
    Entry(Box<RawEntry>),
    /// A value of another kind than the part wants: `a list`, `null`, ….
    Other(&'static str),
}

/// Stands for `each` asking to stop; never shown, as [`Scan::stopped`] is checked first.
const STOPPED: &str = "stopped";

impl<'de> DeserializeSeed<'de> for Part<'_, '_> {
    type Value = Seen;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Seen, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Part<'_, '_> {
    type Value = Seen;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Seen, E> {
        Ok(Seen::Other("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Seen, E> {
        Ok(Seen::Other("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Seen, E> {
        Ok(Seen::Other("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Seen, E> {
        Ok(Seen::Other("a number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Seen, E> {
        Ok(Seen::Other("a string"))
    }

    fn visit_unit<E>(self) -> Result<Seen, E> {
        Ok(Seen::Other("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seen, A::Error> {
        let Part::Sources(scan) = self else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Seen::Other("a list"));
        };
        scan.sources = true;
        let mut position = 0u64;
        while let Some(seen) = seq.next_element_seed(Part::Entry)? {
            position += 1;
            let stop = match seen {
                Seen::Entry(raw) if scan.shape.is_none() => (scan.each)(position, *raw).is_break(),
                Seen::Other(kind) => {
                    scan.shape(|| {
                        format!("entry {position} of \"sources\" is {kind}, not an object")
                    });
                    false
                }
                _ => false,
            };
            if stop {
                scan.stopped = true;
                return Err(de::Error::custom(STOPPED));
            }
        }
        Ok(Seen::Done)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        match self {
            Part::Top(scan) => {
                while let Some(key) = map.next_key::<TopKey>()? {
                    match key {
                        TopKey::Version => {
                            let version = map.next_value::<Option<Value>>()?;
                            if scan.version.is_some() {
                                scan.shape(|| "\"version\" appears twice".into());
                            }
                            scan.version = version;
                        }
                        TopKey::Sources if scan.sources => {
                            map.next_value::<IgnoredAny>()?;
                            scan.shape(|| "\"sources\" appears twice".into());
                        }
                        TopKey::Sources => match map.next_value_seed(Part::Sources(scan))? {
                            // Like a missing list: reported after the version.
                            Seen::Other("null") => {}
                            Seen::Other(kind) => {
                                scan.sources = true;
                                scan.shape(|| format!("\"sources\" is {kind}, not a list"));
                            }
                            _ => {}
                        },
                        TopKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Seen::Done)
            }
            Part::Sources(_) => {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Seen::Other("an object"))
            }
            Part::Entry => {
                let mut raw = RawEntry::default();
                while let Some(key) = map.next_key::<EntryKey>()? {
                    let (name, slot) = match key {
                        EntryKey::Id => ("id", &mut raw.id),
                        EntryKey::Url => ("url", &mut raw.url),
                        EntryKey::Title => ("title", &mut raw.title),
                        EntryKey::Accessed => ("accessed", &mut raw.accessed),
                        EntryKey::Quotes => ("quotes", &mut raw.quotes),
                        EntryKey::Via => ("via", &mut raw.via),
                        EntryKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if let Some(value) = map.next_value::<Option<Value>>()?
                        && slot.replace(value).is_some()
                    {
                        raw.repeated.get_or_insert(name);
                    }
                }
                Ok(Seen::Entry(Box::new(raw)))
            }
        }
    }
}

/// One pass over `reader`: each entry goes to `each`; the error is the first problem of
/// the file as a whole (see the module docs for the ranking). Entries' own problems are
/// `each`'s to find.
fn scan(
    reader: impl Read,
    from: &str,
    each: &mut dyn FnMut(u64, RawEntry) -> ControlFlow<()>,
) -> Result<(), ImportError> {
    let mut scan = Scan {
        each,
        shape: None,
        version: None,
        sources: false,
        stopped: false,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let read = Part::Top(&mut scan)
        .deserialize(&mut de)
        .and_then(|seen| de.end().map(|()| seen));
    if scan.stopped {
        return Ok(());
    }
    let not_ledger = |reason: String| ImportError::NotALedger {
        from: from.to_string(),
        reason,
    };
    match read {
        Err(e) if e.is_io() => return Err(unreadable(Path::new(from), &e.into()).into()),
        Err(e) if e.is_syntax() || e.is_eof() => {
            return Err(ImportError::NotJson {
                from: from.to_string(),
                reason: e.to_string(),
            });
        }
        Err(e) => return Err(not_ledger(e.to_string())),
        Ok(Seen::Other(kind)) => {
            scan.shape(|| format!("the top level is {kind}, not an object with a \"sources\" list"))
        }
        Ok(_) => {}
    }
    if let Some(reason) = scan.shape {
        return Err(not_ledger(reason));
    }
    match &scan.version {
        None => {}
        Some(Value::Number(n)) if n.as_u64() == Some(SOURCES_PY_VERSION) => {}
        Some(v) => {
            return Err(not_ledger(format!(
                "unsupported \"version\" {} (cite imports version {SOURCES_PY_VERSION})",
                shown(v)
            )));
        }
    }
    if !scan.sources {
        return Err(not_ledger("no \"sources\" list at the top level".into()));
    }
    Ok(())
}

/// `a string`, `a list`, … for messages.
pub(super) fn kind(v: &Value) -> &'static str {
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
pub(super) fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
