//! The generated Sources block at the end of a draft: where it starts, what it lists.
//!
//! `render` writes one of three shapes: a header (`## Sources`, `Sources:`, …) followed
//! by `[N] URL — TITLE` entries (with `    > "quote"` lines in the evidence style); a
//! run of `[^N]: URL — TITLE` footnote definitions; or a run of `@misc{sourceN, … }`
//! BibTeX entries. The *generated tail* is the longest suffix of the draft, outside
//! fenced code, made only of such blocks and blank lines. Several stacked blocks (a stale
//! one left above a fresh one) are one tail, so rewriting it removes them all.
//!
//! A header counts only when everything after it is entry, footnote, evidence-quote or
//! blank lines up to the next generated block: author prose under a heading that says
//! "Sources" is prose and is never removed. The one shape of author text the tail can
//! take is a footnote definition whose text starts with an http(s) URL — which is a
//! source listing whoever wrote it.
//!
//! The tail is found in one backward pass (a small dynamic programme over the lines), so
//! a draft of many block-like lines still costs linear time.

use super::layout::Line;

/// The generated tail of a draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tail {
    /// Index (into the lines) of the tail's first line; the lines before it are the body.
    pub start: usize,
    /// Index of the last Sources header in the tail, if any.
    pub header: Option<usize>,
    /// What the tail lists, in order: `[N] …` entry lines, footnote definitions and BibTeX
    /// entries, as (line index, id, URL).
    pub entries: Vec<(usize, u64, String)>,
}

/// Finds the generated tail; `start == lines.len()` when there is none.
pub(crate) fn tail(lines: &[Line<'_>]) -> Tail {
    let n = lines.len();
    // ok[i]: lines[i..] is made only of generated blocks and blank lines.
    let mut ok = vec![false; n + 1];
    // next_ok[i]: the first k >= i with ok[k].
    let mut next_ok = vec![n; n + 1];
    // run_end[i]: the first k >= i that cannot sit inside a header block's body.
    let mut run_end = vec![n; n + 1];
    // close[i]: the `}` closing a BibTeX entry whose field lines start at i.
    let mut close: Vec<Option<usize>> = vec![None; n + 1];
    ok[n] = true;
    for i in (0..n).rev() {
        let line = &lines[i];
        let shape = if line.code {
            Shape::Code
        } else {
            shape(line.text)
        };
        run_end[i] = match shape {
            Shape::Blank | Shape::Entry | Shape::Footnote | Shape::Evidence => run_end[i + 1],
            _ => i,
        };
        close[i] = match shape {
            Shape::BibClose => Some(i),
            Shape::Code | Shape::Blank | Shape::BibOpen => None,
            _ if line.text.trim_start().starts_with('@') => None,
            _ => close[i + 1],
        };
        ok[i] = match shape {
            Shape::Blank | Shape::Footnote => ok[i + 1],
            Shape::Header => next_ok[i + 1] <= run_end[i + 1],
            Shape::BibOpen => close[i + 1].is_some_and(|end| ok[end + 1]),
            _ => false,
        };
        next_ok[i] = if ok[i] { i } else { next_ok[i + 1] };
    }
    let start = next_ok[0];

    // Read the tail forwards; it is known to decompose, so this cannot go astray.
    let mut header = None;
    let mut entries = Vec::new();
    let mut i = start;
    while i < n {
        let text = lines[i].text;
        match shape(text) {
            Shape::Header => header = Some(i),
            Shape::Entry => entries.extend(entry(text).map(|(id, url)| (i, id, url))),
            Shape::Footnote => entries.extend(footnote(text).map(|(id, url)| (i, id, url))),
            Shape::BibOpen => {
                let end = close[i + 1].unwrap_or(i);
                entries.extend(bib_entry(&lines[i..end]).map(|(id, url)| (i, id, url)));
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    Tail {
        start,
        header,
        entries,
    }
}

/// What a line outside code looks like to the tail finder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Code,
    Blank,
    Header,
    Entry,
    Footnote,
    Evidence,
    BibOpen,
    BibClose,
    Other,
}

fn shape(text: &str) -> Shape {
    if text.trim().is_empty() {
        Shape::Blank
    } else if is_sources_header(text) {
        Shape::Header
    } else if entry(text).is_some() {
        Shape::Entry
    } else if footnote(text).is_some() {
        Shape::Footnote
    } else if is_evidence(text) {
        Shape::Evidence
    } else if is_bib_open(text) {
        Shape::BibOpen
    } else if text.trim() == "}" {
        Shape::BibClose
    } else {
        Shape::Other
    }
}

/// `sources.py`'s `^\s*(?:#{1,6}\s*)?(?:\*\*)?sources:?(?:\*\*)?\s*$`, case-insensitive;
/// `**Sources**:` is accepted too.
pub(crate) fn is_sources_header(text: &str) -> bool {
    let mut s = text.trim();
    let hashes = s.bytes().take_while(|&b| b == b'#').count();
    if hashes > 6 {
        return false;
    }
    if hashes > 0 {
        s = s[hashes..].trim_start();
    }
    let s = s.strip_prefix("**").unwrap_or(s);
    let Some(rest) = s
        .get(..7)
        .filter(|w| w.eq_ignore_ascii_case("sources"))
        .map(|_| &s[7..])
    else {
        return false;
    };
    matches!(rest, "" | ":" | "**" | ":**" | "**:")
}

/// An entry line, `sources.py`'s `^\s*\[(\d{1,4})\]\s*[-–:]?\s*(\S+)`: its id and URL
/// (the first http(s) URL in the line, else the token after the id). Ids of any length up
/// to 18 digits are read, so a block listing a large id is still a block.
///
/// Tighter than `sources.py` in one way: the line must hold something URL-like (an
/// http(s) URL anywhere, or a token after the id such as `ftp://…`, `doi:…` or
/// `example.org/page`). Otherwise `[1] and [2] disagree on the date.` under a "Sources"
/// heading would make the author's paragraph a block, and `render --replace-in` would
/// delete it.
pub(crate) fn entry(text: &str) -> Option<(u64, String)> {
    let s = text.trim_start().strip_prefix('[')?;
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=18).contains(&digits) {
        return None;
    }
    let id = s[..digits].parse().ok()?;
    let s = s[digits..].strip_prefix(']')?.trim_start();
    let token = match s.strip_prefix(['-', '–', ':']) {
        // The separator is optional: alone, it is the token.
        Some(rest) => rest
            .split_whitespace()
            .next()
            .or_else(|| s.get(..s.len() - rest.len())),
        None => s.split_whitespace().next(),
    }?;
    match first_url(text) {
        Some(url) => Some((id, url.to_string())),
        None => looks_like_url(token).then(|| (id, token.to_string())),
    }
}

/// `scheme://…`, `doi:…`, `arXiv:…`, or a bare domain (`example.org`, `a.b.co/path`).
fn looks_like_url(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    if token.contains("://") || lower.starts_with("doi:") || lower.starts_with("arxiv:") {
        return true;
    }
    let host = token.split('/').next().unwrap_or_default();
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|tld| tld.chars().count() >= 2 && tld.chars().all(char::is_alphabetic))
}

/// A footnote definition as `render --style footnotes` writes it: `[^N]: URL — TITLE`,
/// the URL first (any `scheme://`, since the ledger also keeps ftp and file URLs). An
/// author's footnote of prose (`[^1]: As argued…`) is not one.
fn footnote(text: &str) -> Option<(u64, String)> {
    let s = text.trim_start().strip_prefix("[^")?;
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=18).contains(&digits) {
        return None;
    }
    let id = s[..digits].parse().ok()?;
    let s = s[digits..].strip_prefix("]:")?.trim_start();
    let token = s.split_whitespace().next()?;
    let (scheme, rest) = token.split_once("://")?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'));
    (scheme_ok && !rest.is_empty()).then(|| (id, first_url(token).unwrap_or(token).to_string()))
}

/// An evidence quote line under an entry: indented, then `>` (`    > "quote"`).
fn is_evidence(text: &str) -> bool {
    (text.starts_with("  ") || text.starts_with('\t')) && text.trim_start().starts_with('>')
}

/// `@misc{sourceN,` — the first line of a rendered BibTeX entry.
fn is_bib_open(text: &str) -> bool {
    let t = text.trim();
    let Some(rest) = t
        .get(..6)
        .filter(|p| p.eq_ignore_ascii_case("@misc{"))
        .map(|_| &t[6..])
    else {
        return false;
    };
    rest.strip_prefix("source")
        .and_then(|r| r.strip_suffix(','))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The id and URL of a BibTeX entry as `render --style bibtex` writes it (`lines` runs
/// from `@misc{sourceN,` to before its `}`): the URL is `howpublished = {\url{…}}`,
/// unescaped, else the first http(s) URL in the entry, else empty (which the ledger check
/// then reports).
fn bib_entry(lines: &[Line<'_>]) -> Option<(u64, String)> {
    let open = lines.first()?.text.trim();
    let id = open
        .get(6..open.len() - 1)?
        .strip_prefix("source")?
        .parse()
        .ok()?;
    let fields = &lines[1..];
    let published = fields.iter().find_map(|l| {
        let value = l.text.trim().strip_prefix("howpublished")?.trim_start();
        let value = value
            .strip_prefix('=')?
            .trim_start()
            .strip_prefix("{\\url{")?;
        let value = value
            .strip_suffix(',')
            .unwrap_or(value)
            .strip_suffix("}}")?;
        Some(unescape(value))
    });
    let url = published
        .or_else(|| {
            fields
                .iter()
                .find_map(|l| first_url(l.text))
                .map(str::to_string)
        })
        .unwrap_or_default();
    Some((id, url))
}

/// Drops the backslash of each `\X` escape.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The first `https?://[^\s"'<>)\]}]+` in `text`, except that a `)` closing a `(`
/// opened inside the URL belongs to it: `render` writes ledger URLs such as
/// `https://en.wikipedia.org/wiki/Rust_(programming_language)` verbatim, and cutting
/// them at the `)` made every rendered draft citing one fail `verify`. A `)` with no
/// `(` before it in the URL still ends it, as in `(see https://a.org/x)`.
pub(crate) fn first_url(text: &str) -> Option<&str> {
    text.match_indices("http").find_map(|(at, _)| {
        let rest = &text[at + 4..];
        let scheme = if rest.starts_with("://") {
            7
        } else if rest.starts_with("s://") {
            8
        } else {
            return None;
        };
        let mut open = 0usize;
        let body = text[at + scheme..]
            .find(|c: char| match c {
                '(' => {
                    open += 1;
                    false
                }
                ')' if open > 0 => {
                    open -= 1;
                    false
                }
                _ => c.is_whitespace() || "\"'<>)]}".contains(c),
            })
            .unwrap_or(text.len() - at - scheme);
        (body > 0).then(|| &text[at..at + scheme + body])
    })
}

#[cfg(test)]
mod tests {
    use super::super::layout::lines;
    use super::{entry, first_url, footnote, is_sources_header, tail};

    fn start_line(draft: &str) -> Option<usize> {
        let ls = lines(draft);
        let t = tail(&ls);
        ls.get(t.start).map(|l| l.number)
    }

    #[test]
    fn header_shapes() {
        for yes in [
            "Sources:",
            "sources",
            "## Sources",
            "###### Sources:",
            "#Sources",
            "**Sources:**",
            "**Sources**",
            "**Sources**:",
            "  ## SOURCES  ",
            "## **Sources:**",
        ] {
            assert!(is_sources_header(yes), "{yes}");
        }
        for no in [
            "####### Sources",
            "Sources used",
            "Source:",
            "## The sources",
            "Sources :",
            "> Sources",
            "- Sources",
            "## ** Sources",
            "",
        ] {
            assert!(!is_sources_header(no), "{no}");
        }
    }

    #[test]
    fn entry_lines_follow_sources_py() {
        let e = entry;
        assert_eq!(
            e("[1] https://a.org/x — T"),
            Some((1, "https://a.org/x".into()))
        );
        assert_eq!(
            e("  [2] - https://b.org"),
            Some((2, "https://b.org".into()))
        );
        assert_eq!(e("[3]: https://c.org"), Some((3, "https://c.org".into())));
        assert_eq!(e("[4]–example.org T"), Some((4, "example.org".into())));
        assert_eq!(
            e("[5] Title (https://e.org/p)"),
            Some((5, "https://e.org/p".into()))
        );
        assert_eq!(e("[6] doi:10.1/x"), Some((6, "doi:10.1/x".into())));
        assert_eq!(
            e("[7] ftp://g.org/f — T"),
            Some((7, "ftp://g.org/f".into()))
        );
        assert_eq!(
            e("[8] Smith (2020), see https://h.org"),
            Some((8, "https://h.org".into()))
        );
        assert_eq!(
            e("[12345] https://f.org"),
            Some((12345, "https://f.org".into()))
        );
        assert_eq!(e("[1]"), None);
        assert_eq!(e("[^1]: https://a.org"), None);
        assert_eq!(e("- [1] https://a.org"), None);
        // Prose that opens with a citation is not an entry.
        assert_eq!(e("[1] and [2] disagree on the date."), None);
        assert_eq!(e("[6] -"), None);
        assert_eq!(e("[6] e.g. this"), None);
        assert_eq!(e("[6] v1.2 is out"), None);
    }

    #[test]
    fn footnote_lines_need_a_url_first() {
        assert_eq!(
            footnote("[^3]: https://a.org/p — T"),
            Some((3, "https://a.org/p".into()))
        );
        assert_eq!(footnote("[^3]: As argued in https://a.org"), None);
        assert_eq!(footnote("[^note]: https://a.org"), None);
        assert_eq!(
            footnote("[^4]: ftp://a.org/f"),
            Some((4, "ftp://a.org/f".into()))
        );
        assert_eq!(footnote("[^4]: https://"), None);
    }

    #[test]
    fn urls_in_text() {
        assert_eq!(
            first_url("see https://a.org/x?y=1)."),
            Some("https://a.org/x?y=1")
        );
        assert_eq!(first_url("httpx http:// http://b"), Some("http://b"));
        assert_eq!(first_url("HTTPS://a.org"), None);
        assert_eq!(first_url("é https://ü.org]"), Some("https://ü.org"));
        // A `)` closing a `(` of the URL is part of it; an unbalanced one is not.
        assert_eq!(
            first_url("[1] https://w.org/wiki/Rust_(lang) — Rust"),
            Some("https://w.org/wiki/Rust_(lang)")
        );
        assert_eq!(
            first_url("(see https://w.org/wiki/Rust_(lang))."),
            Some("https://w.org/wiki/Rust_(lang)")
        );
    }

    #[test]
    fn a_markdown_block_is_the_tail() {
        let d = "Claim.[1]\n\n## Sources\n\n[1] https://a.org — A\n";
        assert_eq!(start_line(d), Some(2));
        let ls = lines(d);
        let t = tail(&ls);
        assert_eq!(t.header, Some(2));
        assert_eq!(t.entries, [(4, 1, "https://a.org".to_string())]);
    }

    #[test]
    fn plain_and_evidence_blocks_are_tails() {
        assert_eq!(start_line("p\nSources:\n[1] https://a.org"), Some(2));
        let d = "p\n## Sources\n\n[1] https://a.org — A\n    > \"a quote\"\n    > \"two\"\n[2] https://b.org\n";
        assert_eq!(start_line(d), Some(2));
    }

    #[test]
    fn footnote_and_bibtex_runs_are_tails() {
        let f = "p\n\n[^1]: https://a.org — A\n[^2]: https://b.org\n";
        assert_eq!(start_line(f), Some(2));
        assert_eq!(tail(&lines(f)).header, None);
        let b = "p\n\n@misc{source1,\n  title = {A},\n  howpublished = {\\url{https://a.org}},\n  note = {Accessed 2024-01-01}\n}\n@misc{source2,\n  title = {B},\n}\n";
        assert_eq!(start_line(b), Some(2));
    }

    #[test]
    fn headerless_blocks_list_their_sources() {
        let f = "p\n\n[^1]: https://a.org — A\n[^22]: ftp://b.org/x\n";
        let ids: Vec<_> = tail(&lines(f))
            .entries
            .into_iter()
            .map(|e| (e.0, e.1, e.2))
            .collect();
        assert_eq!(
            ids,
            [
                (2, 1, "https://a.org".into()),
                (3, 22, "ftp://b.org/x".into())
            ]
        );
        let b = "p\n@misc{source7,\n  title = {A \\% B},\n  howpublished = {\\url{https://a.org/p\\%20q\\#r\\}}},\n  note = {Accessed 2024-01-01}\n}\n@misc{source8,\n  note = {see https://c.org}\n}\n@misc{source9,\n}\n";
        let got: Vec<_> = tail(&lines(b))
            .entries
            .into_iter()
            .map(|e| (e.0, e.1, e.2))
            .collect();
        assert_eq!(
            got,
            [
                (1, 7, "https://a.org/p%20q#r}".into()),
                (6, 8, "https://c.org".into()),
                (9, 9, String::new()),
            ]
        );
    }

    #[test]
    fn a_header_over_a_bibtex_run_goes_with_it() {
        let d = "p\n## Sources\n\n@misc{source1,\n  title = {A},\n}\n";
        assert_eq!(start_line(d), Some(2));
    }

    #[test]
    fn stacked_blocks_are_one_tail() {
        let d = "p\n## Sources\n[1] https://a.org\n\n[^1]: https://a.org\n\nSources:\n[2] https://b.org\n";
        let ls = lines(d);
        let t = tail(&ls);
        assert_eq!(t.start, 1);
        assert_eq!(t.header, Some(6));
        let ids: Vec<_> = t.entries.iter().map(|e| e.1).collect();
        assert_eq!(ids, [1, 1, 2]);
    }

    #[test]
    fn author_prose_under_a_sources_heading_is_not_a_tail() {
        assert_eq!(
            start_line("## Sources\n\nWe read [1] https://a.org closely.\n"),
            None
        );
        assert_eq!(
            start_line("## Sources\n[1] https://a.org\nA closing remark.\n"),
            None
        );
        // An unindented blockquote is prose, not an evidence line.
        assert_eq!(
            start_line("## Sources\n[1] https://a.org\n> \"Quoted\"\n"),
            None
        );
        // An incomplete BibTeX entry is not generated.
        assert_eq!(start_line("p\n@misc{source1,\n  title = {A},\n"), None);
    }

    #[test]
    fn fenced_headers_and_entries_are_code() {
        assert_eq!(
            start_line("p\n```\n## Sources\n[1] https://a.org\n```\n"),
            None
        );
        assert_eq!(
            start_line("p\n## Sources\n```\n[1] https://a.org\n```\n"),
            None
        );
        assert_eq!(start_line("p\n```\n[^1]: https://a.org\n"), None);
    }

    #[test]
    fn blank_lines_alone_are_no_block() {
        let ls = lines("p\n\n\n");
        let t = tail(&ls);
        assert_eq!((t.header, t.entries.len()), (None, 0));
        assert_eq!(start_line("p\n## Sources\n\n"), Some(2));
    }
}
