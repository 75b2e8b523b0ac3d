//! `biblatex`: one `@online` entry per source, keyed `source<N>` like the bibtex style.
//!
//! ```text
//! @online{source1,
//!   title = {…},
//!   author = {{K. Ito} and {R. Roe}},         (what the tool output said of the page)
//!   organization = {…},                        (the site)
//!   date = {2023-05-12},                       (published; or 2023-05, 2023)
//!   langid = {ngerman},                        (its language, where babel names it)
//!   url = {…},
//!   doi = {…},                                 (a DOI source)
//!   eprint = {…},                              (an arXiv source)
//!   eprinttype = {arxiv},
//!   urldate = {YYYY-MM-DD}
//! }
//! ```
//!
//! The title (the URL when there is none) is escaped for LaTeX with the bibtex style's
//! [`bibtex_escape`], so that any title, braces and control characters included, leaves
//! the rest of the file readable to biber. `url` is a verbatim field for biblatex (biber
//! reads it as is, and it is typeset with `\url`), so `%`, `#`, `_` and `~` stay literal;
//! escaping them would put backslashes into the link. Only what would break the field
//! itself, `{`, `}` and `\`, is percent-encoded ([`tex_url`]). `urldate` is written only for a real `YYYY-MM-DD` date,
//! since biber refuses anything else there.
//!
//! A source whose URL is a DOI or arXiv link ([`identifier`]) keeps `@online` (the
//! ledger knows no other kind for it) and gains the fields biblatex documents for it: `doi` for a DOI, which biblatex prints and links as
//! `https://doi.org/…`; `eprint` with `eprinttype = {arxiv}` for an arXiv id, which it
//! prints as `arXiv: ID` and links to arxiv.org. `doi` and `eprint` are verbatim fields
//! like `url`, so a DOI goes through [`tex_url`] too: only a `{`, `}` or `\` in it is
//! percent-encoded, which the DOI resolver decodes. An arXiv id has none of them.
//!
//! What the tool output said about the page (`ingest`) goes in the fields biblatex gives
//! an `@online` entry: the site is its `organization`, the publication date its `date`
//! (biblatex's ISO 8601 form, which stops at the month or year where the date does), the
//! authors its `author`, each in braces so that biber keeps the name as the tool wrote it
//! instead of splitting it into given and family names. The language becomes `langid`,
//! the babel name biblatex switches hyphenation and sentence case on (`de-AT` →
//! `naustrian`), for the languages [`langid`] names; another language gets none, since
//! biblatex refuses a language it does not know.

use std::io::{self, Write};

use super::identifier::{self, Identifier};
use crate::model::{Source, SourceEntry};
use crate::tex::{bibtex_escape, tex_url};

/// The entry for `s`, without a trailing newline.
pub fn entry(s: &Source) -> String {
    let title = if s.title.is_empty() { &s.url } else { &s.title };
    let meta = &s.metadata;
    let mut fields = vec![format!("  title = {{{}}}", bibtex_escape(title))];
    if !meta.authors.is_empty() {
        let names: Vec<String> = meta
            .authors
            .iter()
            .map(|a| format!("{{{}}}", bibtex_escape(a)))
            .collect();
        fields.push(format!("  author = {{{}}}", names.join(" and ")));
    }
    if let Some(site) = &meta.site {
        fields.push(format!("  organization = {{{}}}", bibtex_escape(site)));
    }
    if let Some((y, m, d)) = meta.published_parts() {
        fields.push(match (m, d) {
            (0, _) => format!("  date = {{{y:04}}}"),
            (_, 0) => format!("  date = {{{y:04}-{m:02}}}"),
            _ => format!("  date = {{{y:04}-{m:02}-{d:02}}}"),
        });
    }
    if let Some(lang) = meta.language.as_deref().and_then(langid) {
        fields.push(format!("  langid = {{{lang}}}"));
    }
    fields.push(format!("  url = {{{}}}", tex_url(&s.url)));
    match identifier::of(&s.url) {
        Some(Identifier::Doi(doi)) => fields.push(format!("  doi = {{{}}}", tex_url(&doi))),
        Some(Identifier::Arxiv(id)) => {
            fields.push(format!("  eprint = {{{}}}", tex_url(&id)));
            fields.push("  eprinttype = {arxiv}".to_string());
        }
        None => {}
    }
    if let Some((y, m, d)) = crate::model::date_parts(&s.accessed) {
        fields.push(format!("  urldate = {{{y:04}-{m:02}-{d:02}}}"));
    }
    format!("@online{{source{},\n{}\n}}", s.id, fields.join(",\n"))
}

/// The babel name of a language tag, for the languages babel and biblatex both know.
pub fn langid(tag: &str) -> Option<&'static str> {
    let lower = tag.to_ascii_lowercase();
    let mut parts = lower.split('-');
    let language = parts.next()?;
    let region = parts.find(|p| p.len() == 2);
    Some(match (language, region) {
        ("en", Some("us")) => "american",
        ("en", Some("gb")) => "british",
        ("en", Some("au")) => "australian",
        ("en", Some("ca")) => "canadian",
        ("en", Some("nz")) => "newzealand",
        ("en", _) => "english",
        ("de", Some("at")) => "naustrian",
        ("de", Some("ch")) => "nswissgerman",
        ("de", _) => "ngerman",
        ("fr", _) => "french",
        ("es", _) => "spanish",
        ("it", _) => "italian",
        ("pt", Some("br")) => "brazilian",
        ("pt", _) => "portuguese",
        ("nl", _) => "dutch",
        ("sv", _) => "swedish",
        ("da", _) => "danish",
        ("nb" | "no", _) => "norsk",
        ("nn", _) => "nynorsk",
        ("fi", _) => "finnish",
        ("pl", _) => "polish",
        ("cs", _) => "czech",
        ("sk", _) => "slovak",
        ("sl", _) => "slovene",
        ("hr", _) => "croatian",
        ("sr", _) => "serbian",
        ("ru", _) => "russian",
        ("uk", _) => "ukrainian",
        ("el", _) => "greek",
        ("tr", _) => "turkish",
        ("hu", _) => "magyar",
        ("ro", _) => "romanian",
        ("ca", _) => "catalan",
        ("et", _) => "estonian",
        ("lv", _) => "latvian",
        ("lt", _) => "lithuanian",
        ("he", _) => "hebrew",
        _ => return None,
    })
}

/// Writes the entries, a blank line between two, streaming. Returns how many.
pub fn write<E: From<io::Error>>(
    out: &mut dyn Write,
    sources: impl Iterator<Item = Result<SourceEntry, E>>,
) -> Result<u64, E> {
    super::write_each(out, sources, b"\n", |s| format!("{}\n", entry(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(title: &str, url: &str, accessed: &str) -> Source {
        Source {
            id: 3,
            url: url.into(),
            title: title.into(),
            accessed: accessed.into(),
            quotes: vec![],
            via: None,
            alias_of: None,
            page_text: false,
            metadata: Default::default(),
        }
    }

    #[test]
    fn online_entries() {
        assert_eq!(
            entry(&src(
                "R&D at 100% {now}",
                "https://a.example/x_y?q=%7E#",
                "2024-01-02"
            )),
            "@online{source3,\n  title = {R\\&D at 100\\% \\textbraceleft{}now\\textbraceright{}},\n  url = {https://a.example/x_y?q=%7E#},\n  urldate = {2024-01-02}\n}"
        );
        assert_eq!(
            entry(&src("", "https://a.example/?q={x}", "someday")),
            "@online{source3,\n  title = {https://a.example/?q=\\textbraceleft{}x\\textbraceright{}},\n  url = {https://a.example/?q=%7Bx%7D}\n}"
        );
    }

    /// Issue 18: DOI and arXiv sources lost their identifiers in the export.
    #[test]
    fn doi_and_arxiv_sources_carry_doi_and_eprint() {
        assert_eq!(
            entry(&src(
                "Handbook",
                "https://doi.org/10.1000/a%7Bb%7D%5C%3C",
                "2024-01-02"
            )),
            "@online{source3,\n  title = {Handbook},\n  url = {https://doi.org/10.1000/a%7Bb%7D%5C%3C},\n  doi = {10.1000/a%7Bb%7D%5C<},\n  urldate = {2024-01-02}\n}"
        );
        assert_eq!(
            entry(&src("", "https://arxiv.org/pdf/hep-th/9901001v2", "")),
            "@online{source3,\n  title = {https://arxiv.org/pdf/hep-th/9901001v2},\n  url = {https://arxiv.org/pdf/hep-th/9901001v2},\n  eprint = {hep-th/9901001v2},\n  eprinttype = {arxiv}\n}"
        );
    }

    #[test]
    fn what_the_tool_said_about_the_page_fills_online_fields() {
        let mut s = src("Über Eis", "https://a.example/eis", "2024-01-02");
        s.metadata = crate::model::PageMeta {
            published: Some("2023-05".into()),
            site: Some("Physik & Co".into()),
            language: Some("de-AT".into()),
            authors: vec!["K. Ito".into(), "World {Ice} Council".into()],
        };
        assert_eq!(
            entry(&s),
            "@online{source3,\n  title = {Über Eis},\n  author = {{K. Ito} and {World \\textbraceleft{}Ice\\textbraceright{} Council}},\n  organization = {Physik \\& Co},\n  date = {2023-05},\n  langid = {naustrian},\n  url = {https://a.example/eis},\n  urldate = {2024-01-02}\n}"
        );
        s.metadata.language = Some("tlh".into());
        s.metadata.published = Some("2023-05-12".into());
        let e = entry(&s);
        assert!(e.contains("  date = {2023-05-12},\n"), "{e}");
        assert!(!e.contains("langid"), "{e}");
        assert_eq!(langid("en-US"), Some("american"));
        assert_eq!(langid("EN"), Some("english"));
        assert_eq!(langid("zh-Hans-CN"), None);
    }
}
