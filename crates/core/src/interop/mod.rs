//! Interchange formats: what `export` writes for other tools to read.
//!
//! One file per format, each a set of pure functions from domain values
//! ([`SourceEntry`], [`crate::model::ChainEntry`]) to text, plus a streaming writer that frames them,
//! so a large ledger is written one source at a time. Reading (`import` of a
//! `sources.py` ledger) is a ledger operation and lives in `cite_ledger::import`.
//!
//! - [`jsonl`]: every record of the log with its hash, its predecessor's hash and its
//!   stored bytes, so the chain can be re-checked without `cite`;
//! - [`hermes`]: a `sources.py` ledger;
//! - [`csl`]: CSL-JSON, which pandoc `--citeproc` and Zotero read;
//! - [`biblatex`]: `@online` entries;
//! - [`ris`]: RIS records (Zotero, EndNote, Mendeley).
//!
//! The last three say what a source is when its URL says it ([`identifier`]): a DOI
//! link carries its DOI, an arXiv link its arXiv id, each in the field the format has
//! for it.

pub mod biblatex;
pub mod csl;
pub mod hermes;
pub mod identifier;
pub mod jsonl;
pub mod ris;

use std::io::{self, Write};

use serde::Serialize;

use crate::model::SourceEntry;

/// What `export --format` accepts.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    clap::ValueEnum,
    Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[schemars(inline)]
pub enum Format {
    /// Every record of the log (all epochs), one JSON object a line, with hashes and bytes
    Jsonl,
    /// A sources.py ledger ({"version": 1, "sources": […]})
    HermesJson,
    /// CSL-JSON items (with DOI, or arXiv number), for pandoc --citeproc and Zotero
    CslJson,
    /// BibLaTeX @online entries (with doi, or eprint for arXiv)
    Biblatex,
    /// RIS records (TY  - ELEC, with DO for DOI sources)
    Ris,
}

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::HermesJson => "hermes-json",
            Format::CslJson => "csl-json",
            Format::Biblatex => "biblatex",
            Format::Ris => "ris",
        }
    }
}

/// Writes the sources of one epoch in `format` (any but [`Format::Jsonl`], which writes
/// the log: see [`jsonl::write`]). Returns how many sources were written.
pub fn write_sources<E: From<io::Error>>(
    format: Format,
    out: &mut dyn Write,
    sources: impl Iterator<Item = Result<SourceEntry, E>>,
) -> Result<u64, E> {
    match format {
        Format::HermesJson => hermes::write(out, sources),
        Format::CslJson => csl::write(out, sources),
        Format::Biblatex => biblatex::write(out, sources),
        Format::Ris => ris::write(out, sources),
        Format::Jsonl => {
            debug_assert!(false, "jsonl writes the log, not sources");
            Err(io::Error::other("jsonl exports the log, not sources").into())
        }
    }
}

/// Writes `text` of each source, `separator` between two, streaming. Returns how many.
fn write_each<E: From<io::Error>>(
    out: &mut dyn Write,
    sources: impl Iterator<Item = Result<SourceEntry, E>>,
    separator: &[u8],
    text: impl Fn(&crate::model::Source) -> String,
) -> Result<u64, E> {
    let mut n = 0u64;
    for s in sources {
        let s = s?;
        if n > 0 {
            out.write_all(separator)?;
        }
        out.write_all(text(&s.source).as_bytes())?;
        n += 1;
    }
    Ok(n)
}

/// Writes `items` as the elements of a pretty JSON array whose `[` the caller wrote,
/// each element indented by `indent`, and closes it with `close`; an empty array
/// becomes `[]` plus `close`'s tail. Returns the number of items. Matches Python's
/// `json.dumps(indent=2)` for these shapes.
fn json_items<T: Serialize, E: From<io::Error>>(
    out: &mut dyn Write,
    indent: &str,
    items: impl Iterator<Item = Result<T, E>>,
) -> Result<u64, E> {
    let mut n = 0u64;
    for item in items {
        let item = item?;
        out.write_all(if n == 0 { b"[\n" } else { b",\n" })?;
        n += 1;
        let text = serde_json::to_string_pretty(&item).map_err(io::Error::other)?;
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(indent.as_bytes())?;
            out.write_all(line.as_bytes())?;
        }
    }
    if n == 0 {
        out.write_all(b"[]")?;
    } else {
        out.write_all(b"\n")?;
        out.write_all(&indent.as_bytes()[..indent.len() - 2])?;
        out.write_all(b"]")?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use crate::model::date_parts;

    #[test]
    fn dates() {
        assert_eq!(date_parts("2024-03-09"), Some((2024, 3, 9)));
        assert_eq!(date_parts("2024-02-30"), None);
        assert_eq!(date_parts("March 2024"), None);
        assert_eq!(date_parts(""), None);
    }
}
