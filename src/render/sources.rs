//! The generated Sources block, in every style, from ledger entries.
//!
//! Byte-for-byte the output of `sources.py`'s `render_sources`, except that BibTeX
//! fields are escaped (the reference pasted titles and URLs raw, which broke on `&`,
//! `%`, `_` and braces).

use crate::ledger::Source;

/// How the block is written.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Style {
    /// `## Sources`, a blank line, `[ID] URL — TITLE` lines.
    Markdown,
    /// `Sources:` then the lines.
    Plain,
    /// `[^ID]: URL — TITLE` definitions, no header.
    Footnotes,
    /// `@misc{sourceID, …}` entries, no header.
    Bibtex,
    /// Like markdown, with each quote under its entry as `    > "TEXT"`.
    Evidence,
}

/// ` — TITLE` (U+2014), or nothing for an untitled source.
fn title_suffix(s: &Source) -> String {
    if s.title.is_empty() {
        String::new()
    } else {
        format!(" — {}", s.title)
    }
}

/// The block for `sources` (already selected, in id order); empty when there are none.
pub fn block(sources: &[Source], style: Style) -> String {
    if sources.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = Vec::with_capacity(sources.len() + 2);
    match style {
        Style::Bibtex => {
            for s in sources {
                let title = if s.title.is_empty() { &s.url } else { &s.title };
                lines.push(format!(
                    "@misc{{source{},\n  title = {{{}}},\n  howpublished = {{\\url{{{}}}}},\n  note = {{Accessed {}}}\n}}",
                    s.id,
                    bibtex_escape(title),
                    url_escape(&s.url),
                    bibtex_escape(&s.accessed)
                ));
            }
        }
        Style::Footnotes => {
            for s in sources {
                lines.push(format!("[^{}]: {}{}", s.id, s.url, title_suffix(s)));
            }
        }
        Style::Markdown | Style::Plain | Style::Evidence => {
            if style == Style::Plain {
                lines.push("Sources:".into());
            } else {
                lines.push("## Sources".into());
                lines.push(String::new());
            }
            for s in sources {
                lines.push(format!("[{}] {}{}", s.id, s.url, title_suffix(s)));
                if style == Style::Evidence {
                    for q in &s.quotes {
                        // One line per quote, whatever whitespace the page had, so the
                        // block stays recognizable as generated.
                        let text = q.text.split_whitespace().collect::<Vec<_>>().join(" ");
                        lines.push(format!("    > \"{text}\""));
                    }
                }
            }
        }
    }
    lines.join("\n")
}

/// Escapes text for a BibTeX field: the ten characters LaTeX treats specially.
pub fn bibtex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes a URL for `\url{…}`: `\url` takes most characters verbatim, but `%` and `#`
/// must be escaped and braces balanced.
fn url_escape(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if matches!(c, '%' | '#' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A parsed `--only` list: ids and inclusive ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdSet(Vec<(u64, u64)>);

impl IdSet {
    /// Parses `1,3,5-7` (spaces ignored). Anything else is an error naming the part.
    pub fn parse(spec: &str) -> Result<IdSet, String> {
        let mut ranges = Vec::new();
        let compact: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
        for part in compact.split(',').filter(|p| !p.is_empty()) {
            let num = |s: &str| {
                s.parse::<u64>()
                    .map_err(|_| format!("{part:?} is not an id or a range like 5-7"))
            };
            let range = match part.split_once('-') {
                Some((lo, hi)) => {
                    let (lo, hi) = (num(lo)?, num(hi)?);
                    if lo > hi {
                        return Err(format!("{part:?} is a backwards range"));
                    }
                    (lo, hi)
                }
                None => {
                    let n = num(part)?;
                    (n, n)
                }
            };
            ranges.push(range);
        }
        if ranges.is_empty() {
            return Err(format!("{spec:?} names no ids"));
        }
        Ok(IdSet(ranges))
    }

    /// The ranges, sorted and merged, so that reading them in order yields each id once,
    /// in id order.
    pub fn ranges(&self) -> Vec<(u64, u64)> {
        let mut sorted = self.0.clone();
        sorted.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (lo, hi) in sorted {
            match out.last_mut() {
                Some((_, end)) if lo <= end.saturating_add(1) => *end = (*end).max(hi),
                _ => out.push((lo, hi)),
            }
        }
        out
    }

    pub fn contains(&self, id: u64) -> bool {
        self.0.iter().any(|&(lo, hi)| lo <= id && id <= hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(id: u64, url: &str, title: &str) -> Source {
        Source {
            id,
            url: url.into(),
            title: title.into(),
            accessed: "2026-11-30".into(),
            quotes: vec![],
            via: None,
        }
    }

    #[test]
    fn styles() {
        let s = [
            src(1, "https://a.example", "A"),
            src(2, "https://b.example", ""),
        ];
        assert_eq!(
            block(&s, Style::Markdown),
            "## Sources\n\n[1] https://a.example — A\n[2] https://b.example"
        );
        assert_eq!(
            block(&s, Style::Plain),
            "Sources:\n[1] https://a.example — A\n[2] https://b.example"
        );
        assert_eq!(
            block(&s, Style::Footnotes),
            "[^1]: https://a.example — A\n[^2]: https://b.example"
        );
        assert_eq!(
            block(&s[1..], Style::Bibtex),
            "@misc{source2,\n  title = {https://b.example},\n  howpublished = {\\url{https://b.example}},\n  note = {Accessed 2026-11-30}\n}"
        );
        assert_eq!(block(&[], Style::Markdown), "");
    }

    #[test]
    fn bibtex_escapes_what_latex_needs() {
        assert_eq!(
            bibtex_escape(r"R&D 100% $5 #1 a_b {x} \ ~ ^"),
            r"R\&D 100\% \$5 \#1 a\_b \{x\} \textbackslash{} \textasciitilde{} \textasciicircum{}"
        );
    }

    #[test]
    fn only_lists() {
        let ids = IdSet::parse("1, 3,5-7").unwrap();
        assert_eq!(
            IdSet::parse("9,5-7,1,6-8,2").unwrap().ranges(),
            [(1, 2), (5, 9)]
        );
        assert!(ids.contains(1) && ids.contains(3) && ids.contains(6) && !ids.contains(4));
        for bad in ["a", "1-", "7-5", "", ",", "1;2", "-3"] {
            assert!(IdSet::parse(bad).is_err(), "{bad}");
        }
    }
}
