//! `hermes-json`: a `sources.py` ledger, as that script writes and reads it.
//!
//! `{"version": 1, "sources": [...]}`, indented by 2 like `json.dumps(indent=2)`. Each
//! entry: `id`, `url`, `title`, `accessed`, then `quotes` (`text`, `added`) when there
//! are any, as `sources.py` writes them. `via` follows when the source has a route:
//! `sources.py` ignores keys it does not know, and `cite import` reads it back, so a
//! round trip keeps routes. Snapshots and selectors have no place in this format; the
//! quotes travel without them (an import marks them as such).

use std::io::{self, Write};

use serde::Serialize;

use crate::model::SOURCES_PY_VERSION;
use crate::model::{Source, SourceEntry};

/// One entry of a `sources.py` ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub id: u64,
    pub url: String,
    pub title: String,
    pub accessed: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<Quote>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// A quote of a `sources.py` ledger entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Quote {
    pub text: String,
    pub added: String,
}

/// The `sources.py` entry for `s`.
pub fn entry(s: &Source) -> Entry {
    Entry {
        id: s.id,
        url: s.url.clone(),
        title: s.title.clone(),
        accessed: s.accessed.clone(),
        // An alias shows its source's quotes; the file lists them once, under the
        // source, so that an import gives them back once.
        quotes: s
            .quotes
            .iter()
            .filter(|_| s.alias_of.is_none())
            .map(|q| Quote {
                text: q.text.clone(),
                added: q.added.clone(),
            })
            .collect(),
        via: s.via.clone(),
    }
}

/// Writes the whole ledger, streaming the entries. Returns how many were written.
pub fn write<E: From<io::Error>>(
    out: &mut dyn Write,
    sources: impl Iterator<Item = Result<SourceEntry, E>>,
) -> Result<u64, E> {
    write!(
        out,
        "{{\n  \"version\": {SOURCES_PY_VERSION},\n  \"sources\": "
    )?;
    let n = super::json_items(out, "    ", sources.map(|s| s.map(|s| entry(&s.source))))?;
    out.write_all(b"\n}\n")?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Quote as LedgerQuote;

    fn src(id: u64, quotes: &[&str]) -> SourceEntry {
        SourceEntry {
            source: Source {
                id,
                url: format!("https://{id}.example"),
                title: format!("T{id}"),
                accessed: "2024-01-02".into(),
                quotes: quotes
                    .iter()
                    .map(|t| LedgerQuote {
                        text: t.to_string(),
                        added: "2024-01-03".into(),
                        snapshot: None,
                        selector: None,
                        number: 1,
                    })
                    .collect(),
                via: None,
                alias_of: None,
                page_text: false,
                metadata: Default::default(),
            },
            snapshots: vec![],
        }
    }

    fn render(items: Vec<SourceEntry>) -> String {
        let mut out = Vec::new();
        write::<io::Error>(&mut out, items.into_iter().map(Ok)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn shape_matches_json_dumps_indent_2() {
        assert_eq!(
            render(vec![]),
            "{\n  \"version\": 1,\n  \"sources\": []\n}\n"
        );
        assert_eq!(
            render(vec![src(1, &["a b c"]), src(2, &[])]),
            r#"{
  "version": 1,
  "sources": [
    {
      "id": 1,
      "url": "https://1.example",
      "title": "T1",
      "accessed": "2024-01-02",
      "quotes": [
        {
          "text": "a b c",
          "added": "2024-01-03"
        }
      ]
    },
    {
      "id": 2,
      "url": "https://2.example",
      "title": "T2",
      "accessed": "2024-01-02"
    }
  ]
}
"#
        );
    }
}
