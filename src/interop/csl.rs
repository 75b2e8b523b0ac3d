//! `csl-json`: Citation Style Language items, which pandoc `--citeproc` and Zotero read.
//!
//! An array of `webpage` items. `id` is `source<N>`, the key the bibtex and biblatex
//! outputs use, so `[@source3]` cites ledger id 3 whichever bibliography a writer uses.
//! `title` falls back to the URL (an untitled item would render as nothing useful);
//! `accessed` is CSL date-parts `[[Y, M, D]]`, or `{"raw": …}` for a date imported in
//! another form, and absent when there is none. What CSL has no variable for goes under
//! `custom` (CSL-JSON 1.0.2), which citation processors carry without reading: the
//! ledger id, the retrieval route (`null` without one), and the blake3 hashes of every
//! page text stored for the source (`add --snapshot`, then each quote's, in order,
//! once each).

use std::io::{self, Write};

use serde::Serialize;

use crate::ledger::SourceEntry;

/// One CSL-JSON item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(rename = "URL")]
    pub url: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accessed: Option<Date>,
    pub custom: Custom,
}

/// A CSL date variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Date {
    Parts {
        #[serde(rename = "date-parts")]
        date_parts: Vec<Vec<i32>>,
    },
    Raw {
        raw: String,
    },
}

/// What the ledger knows that CSL has no variable for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Custom {
    pub ledger_id: u64,
    pub via: Option<String>,
    pub snapshots: Vec<String>,
}

/// The CSL item for `e`.
pub fn item(e: &SourceEntry) -> Item {
    let s = &e.source;
    let accessed = match super::date_parts(&s.accessed) {
        Some((y, m, d)) => Some(Date::Parts {
            date_parts: vec![vec![y, i32::from(m), i32::from(d)]],
        }),
        None if s.accessed.trim().is_empty() => None,
        None => Some(Date::Raw {
            raw: s.accessed.clone(),
        }),
    };
    let mut snapshots: Vec<String> = e.snapshots.clone();
    for h in s.quotes.iter().filter_map(|q| q.snapshot.as_ref()) {
        if !snapshots.contains(h) {
            snapshots.push(h.clone());
        }
    }
    Item {
        id: format!("source{}", s.id),
        kind: "webpage",
        url: s.url.clone(),
        title: if s.title.is_empty() {
            s.url.clone()
        } else {
            s.title.clone()
        },
        accessed,
        custom: Custom {
            ledger_id: s.id,
            via: s.via.clone(),
            snapshots,
        },
    }
}

/// Writes the array, streaming the items. Returns how many were written.
pub fn write<E: From<io::Error>>(
    out: &mut dyn Write,
    sources: impl Iterator<Item = Result<SourceEntry, E>>,
) -> Result<u64, E> {
    let n = super::json_items(out, "  ", sources.map(|s| s.map(|s| item(&s))))?;
    out.write_all(b"\n")?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Quote, Source};

    fn entry(title: &str, accessed: &str) -> SourceEntry {
        SourceEntry {
            source: Source {
                id: 7,
                url: "https://a.example/p".into(),
                title: title.into(),
                accessed: accessed.into(),
                quotes: vec![Quote {
                    text: "x y z".into(),
                    added: "2024-01-03".into(),
                    snapshot: Some("bb".into()),
                    selector: None,
                }],
                via: Some("web".into()),
            },
            snapshots: vec!["aa".into(), "bb".into()],
        }
    }

    #[test]
    fn item_shape() {
        let json = serde_json::to_value(item(&entry("T", "2024-01-02"))).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "id": "source7",
                "type": "webpage",
                "URL": "https://a.example/p",
                "title": "T",
                "accessed": {"date-parts": [[2024, 1, 2]]},
                "custom": {"ledger_id": 7, "via": "web", "snapshots": ["aa", "bb"]}
            })
        );
        let bare = item(&entry("", "last spring"));
        assert_eq!(bare.title, "https://a.example/p");
        assert_eq!(
            bare.accessed,
            Some(Date::Raw {
                raw: "last spring".into()
            })
        );
        assert_eq!(item(&entry("", "")).accessed, None);
    }
}
