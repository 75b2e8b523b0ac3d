//! `csl-json`: Citation Style Language items, which pandoc `--citeproc` and Zotero read.
//!
//! An array of items. `id` is `source<N>`, the key the bibtex and biblatex
//! outputs use, so `[@source3]` cites ledger id 3 whichever bibliography a writer uses.
//! The id is also the item's `citation-label` (`"3"`), what a label style prints, and,
//! as sixteen digits, its `printing-number` (`"0000000000000003"`), which sorts as the
//! id does even where it is compared as text: [`STYLE`], the style `cite convert`
//! writes, cites by the one and numbers its reference list by the other (its comment
//! says why these two variables).
//!
//! What the tool output said about the page (`ingest`) goes where CSL keeps it: the
//! publication date as `issued` date-parts (`[[Y]]`, `[[Y, M]]` or `[[Y, M, D]]`), the
//! site as `container-title`, the language as `language` (so that a processor does not
//! title-case a German title as English), the authors as `author` names written as given
//! (`{"literal": "K. Ito"}`: a tool's name is not split into given and family names).
//! `title` falls back to the URL (an untitled item would render as nothing useful) and
//! is kept from being read as markup ([`csl_text`]);
//! `accessed` is CSL date-parts `[[Y, M, D]]`, or `{"raw": …}` for a date imported in
//! another form, and absent when there is none. What CSL has no variable for goes under
//! `custom` (CSL-JSON 1.0.2), which citation processors carry without reading: the
//! ledger id, the retrieval route (`null` without one), and the blake3 hashes of every
//! page text stored for the source (`add --snapshot`, then each quote's, in order,
//! once each).
//!
//! The type says what the URL says the source is ([`identifier`]), and `URL` is always
//! the ledger's:
//!
//! - a DOI link is a `document` with its `DOI`. A DOI names a published work, not a web
//!   page, but the ledger does not know which kind (article, chapter, data set…), and
//!   `document` is CSL 1.0.2's "catch-all category for items not belonging to other
//!   types"; no other metadata is made up for it. pandoc's default style prints the DOI
//!   as `https://doi.org/…` in place of the URL.
//! - an arXiv link is a preprint, written the way Zotero's CSL export writes its
//!   `preprint` items (zotero-schema maps `preprint` to CSL `article`, its `archiveID`
//!   to `number` and its `repository` to `publisher`; the arXiv translator fills them
//!   with `arXiv:ID` and `arXiv`): `type: "article"`, `number: "arXiv:ID"`,
//!   `publisher: "arXiv"`. CSL 1.0.2 says `article` is for "preprints, working papers,
//!   and similar works posted on a platform … (e.g. arXiv …)". The id keeps the version
//!   the URL shows (`2305.14627v2`), which Zotero keeps apart. The arXiv DOI
//!   (`10.48550/arXiv.ID`) that Zotero's translator also derives is not written: the
//!   ledger holds the id, not that DOI.
//! - anything else is a `webpage`.

use std::io::{self, Write};

use serde::Serialize;

use super::identifier::{self, Identifier};
use crate::model::SourceEntry;

/// One CSL-JSON item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    pub id: String,
    /// `webpage`, `document` (a DOI source) or `article` (an arXiv preprint).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The ledger id, as a label style prints it.
    #[serde(rename = "citation-label")]
    pub label: String,
    #[serde(rename = "URL")]
    pub url: String,
    pub title: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub author: Vec<Name>,
    /// The site the page is on.
    #[serde(rename = "container-title", skip_serializing_if = "Option::is_none")]
    pub container_title: Option<String>,
    /// When the page was published.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issued: Option<Date>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accessed: Option<Date>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// A DOI source's DOI.
    #[serde(rename = "DOI", skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// An arXiv preprint's `arXiv:ID`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// `arXiv` for an arXiv preprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher: Option<&'static str>,
    /// The ledger id in sixteen digits, by which [`STYLE`] sorts.
    #[serde(rename = "printing-number")]
    pub sort_key: String,
    pub custom: Custom,
}

/// A CSL name, as the tool wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Name {
    pub literal: String,
}

/// The citation style `cite convert` writes beside a converted document: sources cited
/// by their ledger ids (`[3]`, `[1][3]`), the reference list numbered and sorted by them.
pub const STYLE: &str = include_str!("numbered.csl");

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
    let accessed = match crate::model::date_parts(&s.accessed) {
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
    let (kind, doi, number, publisher) = match identifier::of(&s.url) {
        Some(Identifier::Doi(doi)) => ("document", Some(doi), None, None),
        Some(Identifier::Arxiv(id)) => {
            ("article", None, Some(format!("arXiv:{id}")), Some("arXiv"))
        }
        None => ("webpage", None, None, None),
    };
    let meta = &s.metadata;
    let issued = meta.published_parts().map(|(y, m, d)| Date::Parts {
        date_parts: vec![
            [y, i32::from(m), i32::from(d)]
                .into_iter()
                .take(if m == 0 {
                    1
                } else if d == 0 {
                    2
                } else {
                    3
                })
                .collect(),
        ],
    });
    Item {
        id: format!("source{}", s.id),
        kind,
        label: s.id.to_string(),
        url: s.url.clone(),
        title: csl_text(if s.title.is_empty() { &s.url } else { &s.title }),
        author: meta
            .authors
            .iter()
            .map(|a| Name {
                literal: csl_text(a),
            })
            .collect(),
        container_title: meta.site.as_deref().map(csl_text),
        issued,
        accessed,
        language: meta.language.clone(),
        doi,
        number,
        publisher,
        sort_key: format!("{:016}", s.id),
        custom: Custom {
            ledger_id: s.id,
            via: s.via.clone(),
            snapshots,
        },
    }
}

/// `text` as CSL-JSON rich text that reads back as `text`.
///
/// Citation processors read a few HTML-like tags in CSL-JSON strings as markup (`<i>`,
/// `<b>`, `<u>`, `<sc>`, `<sup>`, `<sub>`, `<span class="nocase">`, `<span
/// style=…>`…), and neither pandoc's citeproc nor citeproc-js decodes entities, so
/// `&lt;` would print as is. A `<` that could open or close a tag (followed by a letter
/// or `/`) is followed by an empty `<span class="nocase"></span>`, which both read as
/// markup with no text and no effect: the `<` no longer starts a tag and prints as
/// itself. Any other `<` is left alone.
pub fn csl_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '<'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '/')
        {
            out.push_str("<span class=\"nocase\"></span>");
        }
    }
    out
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
    use crate::model::{Quote, Source};

    fn entry(title: &str, accessed: &str) -> SourceEntry {
        entry_at("https://a.example/p", title, accessed)
    }

    fn entry_at(url: &str, title: &str, accessed: &str) -> SourceEntry {
        SourceEntry {
            source: Source {
                id: 7,
                url: url.into(),
                title: title.into(),
                accessed: accessed.into(),
                quotes: vec![Quote {
                    text: "x y z".into(),
                    added: "2024-01-03".into(),
                    snapshot: Some("bb".into()),
                    selector: None,
                    number: 1,
                }],
                via: Some("web".into()),
                alias_of: None,
                page_text: false,
                metadata: Default::default(),
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
                "citation-label": "7",
                "URL": "https://a.example/p",
                "title": "T",
                "accessed": {"date-parts": [[2024, 1, 2]]},
                "printing-number": "0000000000000007",
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

    /// Issue 12: citeproc (pandoc's and citeproc-js) reads `<i>`, `<b>`, `<sup>`,
    /// `<span class="nocase">`… in a title as markup; a page title is plain text.
    #[test]
    fn titles_are_not_read_as_markup() {
        assert_eq!(
            csl_text("<i>x</i> <span class=\"nocase\">y</span> a < b <3"),
            "<<span class=\"nocase\"></span>i>x<<span class=\"nocase\"></span>/i> \
             <<span class=\"nocase\"></span>span class=\"nocase\">y<<span class=\"nocase\"></span>/span> a < b <3"
        );
        assert_eq!(csl_text("plain & simple"), "plain & simple");
        assert_eq!(
            item(&entry("<b>bold</b>", "2024-01-02")).title,
            "<<span class=\"nocase\"></span>b>bold<<span class=\"nocase\"></span>/b>"
        );
    }

    /// Issue 18: a source registered as `doi:…` or `arXiv:…` was exported as a bare
    /// web page, its identifier left in the URL for nobody to read.
    #[test]
    fn doi_and_arxiv_sources_carry_their_identifiers() {
        let doi = serde_json::to_value(item(&entry_at(
            "https://doi.org/10.1000/a%3Cb%3E",
            "Handbook",
            "2024-01-02",
        )))
        .unwrap();
        assert_eq!(doi["type"], "document");
        assert_eq!(doi["DOI"], "10.1000/a<b>");
        assert_eq!(doi["URL"], "https://doi.org/10.1000/a%3Cb%3E");
        assert!(doi.get("number").is_none() && doi.get("publisher").is_none());

        let preprint = serde_json::to_value(item(&entry_at(
            "https://arxiv.org/abs/2305.14627v2",
            "A preprint",
            "2024-01-02",
        )))
        .unwrap();
        assert_eq!(
            preprint,
            serde_json::json!({
                "id": "source7",
                "type": "article",
                "citation-label": "7",
                "URL": "https://arxiv.org/abs/2305.14627v2",
                "title": "A preprint",
                "accessed": {"date-parts": [[2024, 1, 2]]},
                "number": "arXiv:2305.14627v2",
                "publisher": "arXiv",
                "printing-number": "0000000000000007",
                "custom": {"ledger_id": 7, "via": "web", "snapshots": ["aa", "bb"]}
            })
        );

        let page = serde_json::to_value(item(&entry("T", "2024-01-02"))).unwrap();
        for key in ["DOI", "number", "publisher"] {
            assert!(page.get(key).is_none(), "{key} in {page}");
        }
    }

    #[test]
    fn what_the_tool_said_about_the_page_goes_where_csl_keeps_it() {
        let mut e = entry("Über die Dichte <i>", "2024-01-02");
        e.source.id = 12;
        e.source.metadata = crate::model::PageMeta {
            published: Some("2023-05-12".into()),
            site: Some("Physik <b>Notizen</b>".into()),
            language: Some("de-AT".into()),
            authors: vec!["K. Ito".into(), "R. Roe".into()],
        };
        let json = serde_json::to_value(item(&e)).unwrap();
        assert_eq!(
            json["issued"],
            serde_json::json!({"date-parts": [[2023, 5, 12]]})
        );
        assert_eq!(
            json["container-title"],
            "Physik <<span class=\"nocase\"></span>b>Notizen<<span class=\"nocase\"></span>/b>"
        );
        assert_eq!(json["language"], "de-AT");
        assert_eq!(
            json["author"],
            serde_json::json!([{"literal": "K. Ito"}, {"literal": "R. Roe"}])
        );
        assert_eq!(json["citation-label"], "12");
        assert_eq!(json["printing-number"], "0000000000000012");
        // A date that stops at the month or the year stops there in CSL too.
        for (published, parts) in [
            ("2023-05", serde_json::json!([[2023, 5]])),
            ("2023", serde_json::json!([[2023]])),
        ] {
            e.source.metadata.published = Some(published.into());
            let json = serde_json::to_value(item(&e)).unwrap();
            assert_eq!(json["issued"]["date-parts"], parts, "{published}");
        }
        // Nothing said, nothing written.
        let bare = serde_json::to_value(item(&entry("T", ""))).unwrap();
        for key in ["issued", "container-title", "language", "author"] {
            assert!(bare.get(key).is_none(), "{key} in {bare}");
        }
    }

    #[test]
    fn the_style_is_a_csl_style_that_cites_by_label_and_sorts_by_the_padded_id() {
        assert!(STYLE.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>"));
        assert!(STYLE.contains(
            "<style xmlns=\"http://purl.org/net/xbiblio/csl\" class=\"in-text\" version=\"1.0\""
        ));
        assert!(STYLE.contains("<key variable=\"printing-number\"/>"));
        assert!(STYLE.contains("<text variable=\"citation-label\"/>"));
        // An XML comment may not hold two hyphens in a row.
        let comment = &STYLE[STYLE.find("<!--").unwrap() + 4..STYLE.find("-->").unwrap()];
        assert!(!comment.contains("--"));
    }
}
