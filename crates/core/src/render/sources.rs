//! The generated Sources block, in every style, from ledger entries.
//!
//! Byte-for-byte the output of `sources.py`'s `render_sources`, except in BibTeX
//! entries: titles are escaped so that any title typesets (the reference pasted them
//! raw, which broke on `&`, `%`, `_` and braces), URLs are made safe for `\url`, and a
//! `urldate` field follows `note`, since biblatex and pandoc print only that one.

use crate::model::Source;
use crate::tex::{bibtex_escape, tex_url};

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
    /// `## Sources`, then `[ID] URL — TITLE` lines, a blank line before each.
    Markdown,
    /// `Sources:` then the lines.
    Plain,
    /// `[^ID]: URL — TITLE` definitions, no header.
    Footnotes,
    /// `@misc{sourceID, …}` entries, no header.
    Bibtex,
    /// Like markdown, with the quotes under each entry as a block quote, `  > "TEXT"`.
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

/// `[ID] URL — TITLE`.
fn entry_line(s: &Source) -> String {
    format!("[{}] {}{}", s.id, s.url, title_suffix(s))
}

/// The quotes of `s` as one block quote under its entry, a quote a paragraph:
/// `  > "TEXT"`, with `  >` between two. Indented by two spaces, which Markdown allows
/// before a block quote and which marks the lines as the block's own (an author's
/// unindented `>` under a Sources heading is prose); the old four-space indent made the
/// lines part of the entry's paragraph, with a literal `>`. One line per quote,
/// whatever whitespace the page had, so the block stays recognizable as generated.
fn quote_lines(s: &Source) -> Vec<String> {
    let mut lines = Vec::new();
    for q in &s.quotes {
        if !lines.is_empty() {
            lines.push("  >".to_string());
        }
        let text = q.text.split_whitespace().collect::<Vec<_>>().join(" ");
        lines.push(format!("  > \"{text}\""));
    }
    lines
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
                // `note` for BibTeX styles, which print it; `urldate` for biblatex and
                // pandoc's CSL styles, which print only that (and only a real date).
                let urldate = match crate::model::date_parts(&s.accessed) {
                    Some((y, m, d)) => format!(",\n  urldate = {{{y:04}-{m:02}-{d:02}}}"),
                    None => String::new(),
                };
                lines.push(format!(
                    "@misc{{source{},\n  title = {{{}}},\n  howpublished = {{\\url{{{}}}}},\n  note = {{Accessed {}}}{urldate}\n}}",
                    s.id,
                    bibtex_escape(title),
                    tex_url(&s.url),
                    bibtex_escape(&s.accessed)
                ));
            }
        }
        Style::Footnotes => {
            for s in sources {
                lines.push(format!("[^{}]: {}{}", s.id, s.url, title_suffix(s)));
            }
        }
        Style::Plain => {
            lines.push("Sources:".into());
            for s in sources {
                lines.push(entry_line(s));
            }
        }
        Style::Markdown | Style::Evidence => {
            lines.push("## Sources".into());
            for s in sources {
                // A blank line before each entry: Markdown joins consecutive lines into
                // one paragraph, so `sources.py`'s block rendered as one run-on line
                // (issue 18).
                lines.push(String::new());
                lines.push(entry_line(s));
                if style == Style::Evidence && !s.quotes.is_empty() {
                    lines.push(String::new());
                    lines.extend(quote_lines(s));
                }
            }
        }
    }
    lines.join("\n")
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
    use crate::tex::{is_noncharacter, tex_url_decoded};

    fn src(id: u64, url: &str, title: &str) -> Source {
        Source {
            id,
            url: url.into(),
            title: title.into(),
            accessed: "2026-11-30".into(),
            quotes: vec![],
            via: None,
            alias_of: None,
            page_text: false,
            metadata: Default::default(),
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
            "## Sources\n\n[1] https://a.example — A\n\n[2] https://b.example"
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
            "@misc{source2,\n  title = {https://b.example},\n  howpublished = {\\url{https://b.example}},\n  note = {Accessed 2026-11-30},\n  urldate = {2026-11-30}\n}"
        );
        assert_eq!(block(&[], Style::Markdown), "");
    }

    #[test]
    fn bibtex_escapes_what_latex_needs() {
        assert_eq!(
            bibtex_escape(r"R&D 100% $5 #1 a_b {x} \ ~ ^"),
            r"R\&D 100\% \$5 \#1 a\_b \textbraceleft{}x\textbraceright{} \textbackslash{} \textasciitilde{} \textasciicircum{}"
        );
    }

    /// Issue 12: under url.sty `\url{…Caf\%C3\%A9}` printed the backslashes, and `\{`
    /// broke hyperref; the access date sat only in `note`, which CSL styles never print.
    #[test]
    fn bibtex_urls_are_verbatim_and_dated() {
        let mut s = src(4, "https://a.example/Caf%C3%A9?q={x}\\y#z_~;", "T");
        assert_eq!(
            block(std::slice::from_ref(&s), Style::Bibtex),
            "@misc{source4,\n  title = {T},\n  howpublished = {\\url{https://a.example/Caf%C3%A9?q=%7Bx%7D%5Cy#z_~;}},\n  note = {Accessed 2026-11-30},\n  urldate = {2026-11-30}\n}"
        );
        // No `urldate` for a date recorded in another form: biber refuses it there.
        s.accessed = "last spring".into();
        assert!(
            block(std::slice::from_ref(&s), Style::Bibtex)
                .ends_with("  note = {Accessed last spring}\n}")
        );
        assert_eq!(
            tex_url("https://a.example/?q={x}\\"),
            "https://a.example/?q=%7Bx%7D%5C"
        );
    }

    /// Issue 12: one unbalanced `}` (written `\}`) made biber reject the whole file.
    #[test]
    fn braces_are_brace_safe() {
        let t = bibtex_escape("a } b { c");
        assert_eq!(t, r"a \textbraceright{} b \textbraceleft{} c");
        // What BibTeX and biber count, backslashes or not, is balanced.
        assert_eq!(t.matches('{').count(), t.matches('}').count());
    }

    /// Issue 12: `--`, `---`, ``` `` ```, `''`, `?``, `!``, `<<`, `>>`, `,,` are ligatures
    /// in TeX fonts; each character must print as itself.
    #[test]
    fn ligatures_are_broken_up() {
        assert_eq!(bibtex_escape("a--b"), r"a-\/-b");
        assert_eq!(bibtex_escape("---"), r"-\/-\/-");
        assert_eq!(
            bibtex_escape("``y''"),
            r"\textasciigrave{}\/\textasciigrave{}y\textquotesingle{}\/\textquotesingle{}"
        );
        assert_eq!(
            bibtex_escape("?` !`"),
            r"?\/\textasciigrave{} !\/\textasciigrave{}"
        );
        assert_eq!(
            bibtex_escape("<<a>> ,, \"|\""),
            r"\textless{}\/\textless{}a\textgreater{}\/\textgreater{} ,\/, \textquotedbl{}\textbar{}\textquotedbl{}"
        );
        // A single hyphen stays a hyphen (and a break point).
        assert_eq!(bibtex_escape("e-mail"), "e-mail");
    }

    /// Issue 12: control characters stopped lualatex (`Text line contains an invalid
    /// character`); line-breaking ones become spaces, the others go.
    #[test]
    fn control_characters_never_reach_tex() {
        assert_eq!(
            bibtex_escape("a\u{0}b\u{7}c\u{1b}d\u{7f}e\u{85}f\u{9f}g\u{fffe}h"),
            "abcde fgh"
        );
        assert_eq!(bibtex_escape("a\tb\nc\rd\u{2028}e"), "a b c d e");
        // A control character between two hyphens does not let them join.
        assert_eq!(bibtex_escape("-\u{1}-"), r"-\/-");
        assert_eq!(
            bibtex_escape("Caf\u{fffd} \u{fffd}`"),
            r"Caf? ?\/\textasciigrave{}"
        );
    }

    /// What TeX-side readers rely on, for any text at all: braces balanced as BibTeX
    /// and biber count them (no brace at all but those of the commands written), no
    /// character TeX refuses, no raw LaTeX special, and no two characters that could
    /// form a ligature side by side.
    fn tex_safe(out: &str) -> Result<(), String> {
        let mut depth = 0i64;
        for c in out.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if !(0..=1).contains(&depth) {
                return Err(format!("brace depth {depth} in {out:?}"));
            }
            if c.is_control() || is_noncharacter(c) || c == '\u{fffd}' {
                return Err(format!("{c:?} in {out:?}"));
            }
        }
        if depth != 0 {
            return Err(format!("unbalanced {out:?}"));
        }
        // Set the commands aside: U+FDD0 for one that prints a character that can join
        // a ligature, U+FDD1 for one that cannot (noncharacters: never in the output's
        // text), and `\/` as the break it is.
        let (joining, neutral) = ('\u{fdd0}', '\u{fdd1}');
        let mut text = out.to_string();
        for (cmd, mark) in [
            ("\\textbraceleft{}", neutral),
            ("\\textbraceright{}", neutral),
            ("\\textbackslash{}", neutral),
            ("\\textasciitilde{}", neutral),
            ("\\textasciicircum{}", neutral),
            ("\\textbar{}", neutral),
            ("\\textless{}", joining),
            ("\\textgreater{}", joining),
            ("\\textquotedbl{}", joining),
            ("\\textquotesingle{}", joining),
            ("\\textasciigrave{}", joining),
            ("\\&", neutral),
            ("\\%", neutral),
            ("\\$", neutral),
            ("\\#", neutral),
            ("\\_", neutral),
            ("\\/", ' '),
        ] {
            text = text.replace(cmd, &mark.to_string());
        }
        if let Some(c) = text.chars().find(|c| "\\{}&%$#_~^<>|\"'`".contains(*c)) {
            return Err(format!("raw {c:?} in {out:?}"));
        }
        let joins = |c: char| matches!(c, '-' | ',' | '!' | '?') || c == joining;
        let chars: Vec<char> = text.chars().collect();
        if let Some(w) = chars.windows(2).find(|w| joins(w[0]) && joins(w[1])) {
            return Err(format!("{:?}{:?} may join in {out:?}", w[0], w[1]));
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Issue 12.
        #[test]
        fn any_title_is_tex_safe(
            title in "(\\PC|[\\x00-\\x1f\\x7f-\\x9f{}\\\\`'\"<>,!?|-]|\u{fffd}|\u{2028}){0,40}"
        ) {
            let out = bibtex_escape(&title);
            if let Err(e) = tex_safe(&out) {
                proptest::prop_assert!(false, "{}", e);
            }
        }

        /// Issue 12.
        #[test]
        fn tex_urls_decode_back(url in "https://a\\.example/\\?[a-z{}\\\\]{0,20}") {
            let tex = tex_url(&url);
            let braces = tex.contains(['{', '}', '\\']);
            proptest::prop_assert!(!braces, "{}", tex);
            if url.contains(['{', '}', '\\']) {
                proptest::prop_assert_eq!(tex_url_decoded(&tex), Some(url));
            } else {
                proptest::prop_assert_eq!(tex, url);
            }
        }
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
