//! `biblatex`: one `@online` entry per source, keyed `source<N>` like the bibtex style.
//!
//! ```text
//! @online{source1,
//!   title = {…},
//!   url = {…},
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

use std::io::{self, Write};

use crate::ledger::{Source, SourceEntry};
use crate::tex::{bibtex_escape, tex_url};

/// The entry for `s`, without a trailing newline.
pub fn entry(s: &Source) -> String {
    let title = if s.title.is_empty() { &s.url } else { &s.title };
    let mut fields = vec![
        format!("  title = {{{}}}", bibtex_escape(title)),
        format!("  url = {{{}}}", tex_url(&s.url)),
    ];
    if let Some((y, m, d)) = crate::ledger::date_parts(&s.accessed) {
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
}
