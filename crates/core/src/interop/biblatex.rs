//! `biblatex`: one `@online` entry per source, keyed `source<N>` like the bibtex style.
//!
//! ```text
//! @online{source1,
//!   title = {…},
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

use std::io::{self, Write};

use super::identifier::{self, Identifier};
use crate::model::{Source, SourceEntry};
use crate::tex::{bibtex_escape, tex_url};

/// The entry for `s`, without a trailing newline.
pub fn entry(s: &Source) -> String {
    let title = if s.title.is_empty() { &s.url } else { &s.title };
    let mut fields = vec![
        format!("  title = {{{}}}", bibtex_escape(title)),
        format!("  url = {{{}}}", tex_url(&s.url)),
    ];
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
}
