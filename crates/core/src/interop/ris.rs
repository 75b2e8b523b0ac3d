//! `ris`: one RIS record per source, for Zotero, EndNote, Mendeley and the like.
//!
//! ```text
//! TY  - ELEC
//! TI  - title (the URL when there is none)
//! AU  - K. Ito                    (one line per author the tool output named)
//! T2  - the site
//! PY  - YYYY                      (published)
//! DA  - YYYY/MM/DD/               (published; YYYY/MM// or YYYY/// when that is all)
//! LA  - en                        (its language)
//! UR  - url, with `;` as `%3B`
//! DO  - 10.… (a DOI source)
//! Y2  - YYYY/MM/DD/
//! M1  - YYYY/MM/DD/
//! ER  -
//! ```
//!
//! Lines end with CRLF, as the RIS specification (Research Information Systems) writes
//! them; every reader we know also takes LF, but not every reader takes LF alone, so the
//! conservative ending wins. Each tag is two characters, two spaces, a hyphen and a
//! space, `ER  - ` included. `ELEC` is the type Zotero and citation-js map to a web page
//! (CSL `webpage`). A blank line separates records. Titles are one line already (the
//! ledger folds line breaks).
//!
//! The access date is written twice, `Y2` and `M1`, both in the spec's `YYYY/MM/DD/`
//! form, because the readers people use disagree on where an `ELEC` record keeps it:
//!
//! - Zotero's RIS import (zotero/translators `RIS.js`) reads `Y2` as `accessDate` for
//!   every type, and also takes `M1` (then `VL`) of a web page as the access date
//!   EndNote writes there, only when `Y2` gave none; its own export writes `Y2`.
//! - citation-js (`@citation-js/plugin-ris`, its default "mixed" spec) maps `accessed`
//!   of an `ELEC` record from `M1`, then `VL`, following EndNote's Web Page type, where
//!   `M1` is "Access Date" and `VL` "Access Year"; it ignores `Y2` there.
//! - rispy reads `Y2` as `access_date` for every type (and `M1` as a `note`).
//!
//! `VL` is not written: rispy and most other readers take it as a volume. Neither tag is
//! written for a date not recorded as `YYYY-MM-DD`.
//!
//! A `;` in a URL is written `%3B`, because rispy splits `UR` on `;` by default
//! (`DELIMITED_TAG_MAPPING = {"UR": ";"}`, for the RIS files that list several URLs on
//! one line): `https://a.example/p;v=1` would come back as two URLs, `https://a.example/p`
//! and `v=1`, and a reader that keeps the first would link the wrong page.
//! citation-js and Zotero's importer read `UR` whole, and take `%3B` as written. The
//! escape names the same resource wherever the server decodes the path or query before
//! reading it, which is nearly everywhere; RFC 3986 lets a server tell `;` from `%3B`
//! (it is a reserved character), and the rare one that splits path parameters on a raw
//! `;` (`;jsessionid=…`) would read the escaped form differently. Losing part of the URL
//! in the most used Python reader is the worse of the two. No other tag is split: rispy
//! delimits only `UR`, and citation-js and Zotero split none of the tags written here
//! (Zotero splits `KW` on `;`, which is not written).
//!
//! A DOI source ([`identifier`]) gets `DO` with its DOI, decoded, which Zotero (`DOI`),
//! citation-js (`DOI`, for `ELEC` too) and rispy (`doi`) read. The type stays `ELEC`:
//! RIS has no type for a work of unknown kind that all three read alike, and `ELEC`
//! keeps the access date where each looks for it. RIS has no field for an arXiv id that
//! these readers agree on; the URL carries it.
//!
//! What the tool output said about the page (`ingest`) goes in the tags all three read
//! for it: `AU` for each author (as the tool wrote the name), `T2` for the site (Zotero's
//! website title, rispy's secondary title; citation-js, following EndNote's Web Page
//! type, keeps it as `collection-title`), `PY` for the year and `DA`
//! for the date it was published, in the spec's `YYYY/MM/DD/` form with the parts it does
//! not know left empty, and `LA` for its language.

use std::io::{self, Write};

use super::identifier::{self, Identifier};
use crate::model::{Source, SourceEntry};

/// The record for `s`, every line ending in `\r\n`.
pub fn record(s: &Source) -> String {
    let title = if s.title.is_empty() { &s.url } else { &s.title };
    let mut out = String::new();
    out.push_str("TY  - ELEC\r\n");
    out.push_str(&format!("TI  - {}\r\n", one_line(title)));
    let meta = &s.metadata;
    for author in &meta.authors {
        out.push_str(&format!("AU  - {}\r\n", one_line(author)));
    }
    if let Some(site) = &meta.site {
        out.push_str(&format!("T2  - {}\r\n", one_line(site)));
    }
    if let Some((y, m, d)) = meta.published_parts() {
        let part = |n: u8| {
            if n == 0 {
                String::new()
            } else {
                format!("{n:02}")
            }
        };
        out.push_str(&format!("PY  - {y:04}\r\n"));
        out.push_str(&format!("DA  - {y:04}/{}/{}/\r\n", part(m), part(d)));
    }
    if let Some(lang) = &meta.language {
        out.push_str(&format!("LA  - {}\r\n", one_line(lang)));
    }
    out.push_str(&format!("UR  - {}\r\n", one_url(&s.url)));
    if let Some(Identifier::Doi(doi)) = identifier::of(&s.url) {
        out.push_str(&format!("DO  - {}\r\n", one_line(&doi)));
    }
    if let Some((y, m, d)) = crate::model::date_parts(&s.accessed) {
        out.push_str(&format!("Y2  - {y:04}/{m:02}/{d:02}/\r\n"));
        out.push_str(&format!("M1  - {y:04}/{m:02}/{d:02}/\r\n"));
    }
    out.push_str("ER  - \r\n");
    out
}

/// A value on one line: a stray line break would start a bogus tag.
fn one_line(text: &str) -> String {
    text.split(['\r', '\n']).collect::<Vec<_>>().join(" ")
}

/// A URL that every reader takes as one: `;`, which rispy splits `UR` on, as `%3B`.
fn one_url(url: &str) -> String {
    one_line(url).replace(';', "%3B")
}

/// Writes the records, a blank line between two, streaming. Returns how many.
pub fn write<E: From<io::Error>>(
    out: &mut dyn Write,
    sources: impl Iterator<Item = Result<SourceEntry, E>>,
) -> Result<u64, E> {
    super::write_each(out, sources, b"\r\n", record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elec_records() {
        let mut s = Source {
            id: 1,
            url: "https://a.example/p".into(),
            title: "A page".into(),
            accessed: "2024-01-02".into(),
            quotes: vec![],
            via: None,
            alias_of: None,
            page_text: false,
            metadata: Default::default(),
        };
        assert_eq!(
            record(&s),
            "TY  - ELEC\r\nTI  - A page\r\nUR  - https://a.example/p\r\nY2  - 2024/01/02/\r\nM1  - 2024/01/02/\r\nER  - \r\n"
        );
        s.title.clear();
        s.accessed = "n.d.".into();
        assert_eq!(
            record(&s),
            "TY  - ELEC\r\nTI  - https://a.example/p\r\nUR  - https://a.example/p\r\nER  - \r\n"
        );
    }

    /// Issue 18: rispy split `UR` on `;`, so a URL with a `;` came back as several.
    #[test]
    fn a_url_with_a_semicolon_stays_one_url() {
        let s = Source {
            id: 1,
            url: "https://a.example/p;v=1?q=a;b".into(),
            title: "T; U".into(),
            accessed: String::new(),
            quotes: vec![],
            page_text: false,
            metadata: Default::default(),
            via: None,
            alias_of: None,
        };
        assert_eq!(
            record(&s),
            "TY  - ELEC\r\nTI  - T; U\r\nUR  - https://a.example/p%3Bv=1?q=a%3Bb\r\nER  - \r\n"
        );
    }

    /// Issue 18: a DOI source's DOI was only in its URL.
    #[test]
    fn doi_sources_carry_do() {
        let s = Source {
            id: 1,
            url: "https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO;2-%23"
                .into(),
            title: "SICI".into(),
            accessed: "2024-01-02".into(),
            page_text: false,
            metadata: Default::default(),
            quotes: vec![],
            via: None,
            alias_of: None,
        };
        assert_eq!(
            record(&s),
            "TY  - ELEC\r\nTI  - SICI\r\n\
             UR  - https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO%3B2-%23\r\n\
             DO  - 10.1002/(SICI)1097-4636(199812)43:4<547::AID-JBM20>3.0.CO;2-#\r\n\
             Y2  - 2024/01/02/\r\nM1  - 2024/01/02/\r\nER  - \r\n"
        );
        let arxiv = Source {
            url: "https://arxiv.org/abs/2305.14627".into(),
            ..s
        };
        assert!(!record(&arxiv).contains("DO  - "), "{}", record(&arxiv));
    }

    #[test]
    fn what_the_tool_said_about_the_page_goes_in_au_t2_py_da_la() {
        let s = Source {
            id: 1,
            url: "https://a.example/p".into(),
            title: "A page".into(),
            accessed: "2024-01-02".into(),
            quotes: vec![],
            via: None,
            alias_of: None,
            page_text: false,
            metadata: crate::model::PageMeta {
                published: Some("2023-05".into()),
                site: Some("Physics\nNotes".into()),
                language: Some("en".into()),
                authors: vec!["K. Ito".into(), "R. Roe".into()],
            },
        };
        assert_eq!(
            record(&s),
            "TY  - ELEC\r\nTI  - A page\r\nAU  - K. Ito\r\nAU  - R. Roe\r\nT2  - Physics Notes\r\n\
             PY  - 2023\r\nDA  - 2023/05//\r\nLA  - en\r\nUR  - https://a.example/p\r\n\
             Y2  - 2024/01/02/\r\nM1  - 2024/01/02/\r\nER  - \r\n"
        );
    }
}
