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
//! source listing whoever wrote it. A Sources header outside the tail is not ignored,
//! though: `verify` fails it (a second section, or one the reader may take for the
//! block), and `render --replace-in` will not add a block beside it.
//!
//! The tail is found in one backward pass (a small dynamic programme over the lines), so
//! a draft of many block-like lines still costs linear time.

use std::borrow::Cow;

use super::BlockEntry;
use super::layout;

/// The generated tail of a draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tail<'a> {
    /// Index (0-based) of the tail's first line; the lines before it are the body. The
    /// number of lines when there is no tail.
    pub start: usize,
    /// Byte offset of the tail's first line (the draft's length when there is no tail).
    pub offset: usize,
    /// Index of the last Sources header in the tail, if any.
    pub header: Option<usize>,
    /// What the tail lists, in order: `[N] …` entry lines, footnote definitions and BibTeX
    /// entries.
    pub entries: Vec<BlockEntry<'a>>,
}

/// Finds the generated tail.
///
/// The backward pass keeps, for the lines after the one it is at (index `i + 1`):
/// - `ok`: those lines are made only of generated blocks and blank lines;
/// - `next_ok`: the first index `k >= i + 1` (and its offset) where that holds;
/// - `run_end`: the first index `k >= i + 1` that cannot sit inside a header block's body;
/// - `close`: whether a `}` closing a BibTeX entry whose field lines start at `i + 1`
///   comes before any line that ends such an entry, and if so, `ok` just after it.
///
/// Each is a function of the same values one line further down, so the pass holds a few
/// numbers, not an array per line; which lines are fenced code is known only going
/// forwards, so a first pass keeps that as one bit per line.
pub(crate) fn tail(draft: &str) -> Tail<'_> {
    let mut code: Vec<u64> = Vec::new();
    let mut n = 0;
    for line in layout::lines(draft) {
        if n % 64 == 0 {
            code.push(0);
        }
        if line.code {
            code[n / 64] |= 1 << (n % 64);
        }
        n += 1;
    }
    let mut ok = true;
    let mut next_ok = (n, draft.len());
    let mut run_end = n;
    // The first index `k >= i + 1` of an `[N] URL` entry line.
    let mut next_entry = n;
    let mut close: Option<bool> = None;
    for (i, (offset, text)) in (0..n).rev().zip(layout::lines_backwards(draft)) {
        let shape = if code[i / 64] >> (i % 64) & 1 == 1 {
            Shape::Code
        } else {
            shape(text)
        };
        let ok_here = match shape {
            Shape::Blank | Shape::Footnote => ok,
            Shape::Header => next_ok.0 <= run_end,
            // Another name only over entries: `## Notes` over nothing is the author's.
            Shape::OtherHeader => next_ok.0 <= run_end && next_entry < run_end,
            Shape::BibOpen => close == Some(true),
            _ => false,
        };
        // Only `[N] URL` lines: footnote definitions and BibTeX entries come without a
        // header of their own, so a "Notes" heading over them stays the author's.
        if shape == Shape::Entry {
            next_entry = i;
        }
        if !matches!(
            shape,
            Shape::Blank | Shape::Entry | Shape::Footnote | Shape::Evidence
        ) {
            run_end = i;
        }
        close = match shape {
            Shape::BibClose => Some(ok),
            Shape::Code | Shape::Blank | Shape::BibOpen => None,
            _ if text.trim_start().starts_with('@') => None,
            _ => close,
        };
        ok = ok_here;
        if ok {
            next_ok = (i, offset);
        }
    }
    let (start, offset) = next_ok;

    // Read the tail forwards; it is known to decompose, so this cannot go astray.
    let mut header = None;
    let mut entries = Vec::new();
    let mut lines = layout::lines(&draft[offset..]);
    while let Some(line) = lines.next() {
        let i = start + line.number - 1;
        let text = line.text;
        let found = match shape(text) {
            Shape::Header | Shape::OtherHeader => {
                header = Some(i);
                None
            }
            Shape::Entry => entry(text).map(|(id, url)| (id, Cow::Borrowed(url))),
            Shape::Footnote => footnote(text).map(|(id, url)| (id, Cow::Borrowed(url))),
            Shape::BibOpen => {
                // Its fields run to the first `}` line, which the pass above found.
                let fields = lines
                    .by_ref()
                    .map(|l| l.text)
                    .take_while(|t| shape(t) != Shape::BibClose);
                bib_open(text).map(|(_, id)| (id, bib_url(fields)))
            }
            _ => None,
        };
        entries.extend(found.map(|(id, url)| BlockEntry {
            id,
            url,
            line: i + 1,
        }));
    }
    Tail {
        start,
        offset,
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
    /// A heading by another name (References, Notes, …): a Sources header only over
    /// entries.
    OtherHeader,
    Entry,
    Footnote,
    Evidence,
    BibOpen,
    BibClose,
    Other,
}

/// Whether a line (outside code) can sit under a Sources header in a generated block:
/// what ends a hand-typed Sources section is the first line that cannot.
pub(crate) fn in_block_body(text: &str) -> bool {
    matches!(
        shape(text),
        Shape::Blank
            | Shape::Entry
            | Shape::Footnote
            | Shape::Evidence
            | Shape::BibOpen
            | Shape::BibClose
    )
}

fn shape(text: &str) -> Shape {
    if text.trim().is_empty() {
        Shape::Blank
    } else if let Some(heading) = sources_heading(text) {
        match heading {
            Heading::Sources => Shape::Header,
            Heading::Other => Shape::OtherHeader,
        }
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

/// What a heading line names, when it names a list of sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Heading {
    /// `Sources`: whatever is under it is a Sources section (`sources.py`'s rule).
    Sources,
    /// Another name a list of sources goes by (References, Bibliography, Works cited,
    /// Notes, Links, …, in several languages): a Sources section only when a list of
    /// source entries is under it, since "Notes" over the author's prose is just a
    /// heading.
    Other,
}

/// The other names of a Sources section, lower case, single-spaced (issue 18): what
/// writers and models put over a list of `[N] URL` entries, in the languages drafts
/// are written in most.
const OTHER_HEADINGS: &[&str] = &[
    // English
    "source",
    "reference",
    "references",
    "reference list",
    "bibliography",
    "works cited",
    "work cited",
    "citations",
    "sources cited",
    "references cited",
    "notes",
    "endnotes",
    "footnotes",
    "links",
    "sources and references",
    "references and notes",
    "notes and references",
    "sources and notes",
    "notes and sources",
    "sources and links",
    // German
    "quellen",
    "quellenangaben",
    "quellenverzeichnis",
    "literatur",
    "literaturverzeichnis",
    "referenzen",
    "einzelnachweise",
    "anmerkungen",
    "belege",
    "weblinks",
    "fußnoten",
    // French
    "références",
    "bibliographie",
    "notes et références",
    "liens",
    "liens externes",
    // Spanish, Portuguese, Italian, Catalan
    "fuentes",
    "referencias",
    "bibliografía",
    "notas",
    "enlaces",
    "obras citadas",
    "fontes",
    "referências",
    "bibliografia",
    "fonti",
    "riferimenti",
    "note",
    "fonts",
    "referències",
    // Dutch, Nordic
    "bronnen",
    "referenties",
    "bronvermelding",
    "literatuur",
    "källor",
    "referenser",
    "kilder",
    "referanser",
    "referencer",
    "lähteet",
    "viitteet",
    // Slavic, Greek, Turkish
    "źródła",
    "przypisy",
    "zdroje",
    "literatura",
    "источники",
    "литература",
    "список литературы",
    "ссылки",
    "примечания",
    "джерела",
    "посилання",
    "πηγές",
    "αναφορές",
    "βιβλιογραφία",
    "kaynaklar",
    "kaynakça",
    // Asian and Semitic scripts
    "参考文献",
    "参考资料",
    "參考資料",
    "參考文獻",
    "来源",
    "來源",
    "资料来源",
    "資料來源",
    "出典",
    "出处",
    "脚注",
    "引用",
    "出處",
    "출처",
    "참고 문헌",
    "참고문헌",
    "각주",
    "المصادر",
    "المراجع",
    "مصادر",
    "مراجع",
    "מקורות",
    "הערות",
    "स्रोत",
    "संदर्भ",
    "सन्दर्भ",
    // Vietnamese, Indonesian
    "nguồn",
    "tài liệu tham khảo",
    "sumber",
    "referensi",
    "daftar pustaka",
];

/// The heading a line is, when it names a list of sources: `sources.py`'s
/// `^\s*(?:#{1,6}\s*)?(?:\*\*)?sources:?(?:\*\*)?\s*$`, case-insensitive, with
/// `**Sources**:` accepted too, for [`Heading::Sources`]; the same shape with one of
/// [`OTHER_HEADINGS`] (any case, a full-width colon too) for [`Heading::Other`].
pub(crate) fn sources_heading(text: &str) -> Option<Heading> {
    let mut s = text.trim();
    let hashes = s.bytes().take_while(|&b| b == b'#').count();
    if hashes > 6 {
        return None;
    }
    if hashes > 0 {
        s = s[hashes..].trim_start();
    }
    let s = s.strip_prefix("**").unwrap_or(s);
    let name = [":**", "**:", "**", ":", "：**", "**：", "："]
        .iter()
        .find_map(|end| s.strip_suffix(end))
        .unwrap_or(s);
    if name.eq_ignore_ascii_case("sources") {
        return Some(Heading::Sources);
    }
    // Words as written, one space between: `Works  cited` is `works cited`, while
    // `Sources :` (a space before the colon) is no heading, as in `sources.py`.
    let named = name.len() <= 40
        && !name.ends_with(char::is_whitespace)
        && OTHER_HEADINGS.contains(
            &name
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
                .as_str(),
        );
    // What a writer calls the list varies ("Sources and further reading", "Key
    // links"): any Markdown heading, or a line that is all bold, is one too when a list
    // of entries follows it.
    (named || is_heading_line(text)).then_some(Heading::Other)
}

/// A Markdown heading (`## Text`) or a line that is one bold run (`**Text**`,
/// `**Text:**`, `**Text**:`).
fn is_heading_line(text: &str) -> bool {
    let t = text.trim();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) {
        let rest = &t[hashes..];
        return rest.starts_with([' ', '\t']) && !rest.trim().is_empty();
    }
    let Some(inner) = t.strip_prefix("**") else {
        return false;
    };
    let inner = [":**", "**:", "**"]
        .iter()
        .find_map(|end| inner.strip_suffix(end));
    inner.is_some_and(|i| !i.trim().is_empty() && !i.contains("**"))
}

/// A `Sources` heading ([`Heading::Sources`]).
#[cfg(test)]
pub(crate) fn is_sources_header(text: &str) -> bool {
    sources_heading(text) == Some(Heading::Sources)
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
pub(crate) fn entry(text: &str) -> Option<(u64, &str)> {
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
        Some(url) => Some((id, url)),
        None => looks_like_url(token).then_some((id, token)),
    }
}

/// `scheme://…`, `doi:…`, `arXiv:…`, or a bare domain (`example.org`, `a.b.co/path`).
pub(crate) fn looks_like_url(token: &str) -> bool {
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
pub(crate) fn footnote(text: &str) -> Option<(u64, &str)> {
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
    (scheme_ok && !rest.is_empty()).then(|| (id, first_url(token).unwrap_or(token)))
}

/// An evidence quote line under an entry: indented, then `>` (`    > "quote"`).
fn is_evidence(text: &str) -> bool {
    (text.starts_with("  ") || text.starts_with('\t')) && text.trim_start().starts_with('>')
}

/// `@misc{sourceN,` — the first line of a rendered BibTeX entry.
fn is_bib_open(text: &str) -> bool {
    bib_open(text).is_some_and(|(kind, _)| kind.eq_ignore_ascii_case("misc"))
}

/// `@TYPE{sourceN,`: the type and id of the BibTeX entry a line opens (any type: the
/// block writes `@misc`, BibLaTeX exports `@online`). An id too long for a `u64` is no
/// id the ledger has, and is read as `u64::MAX`.
pub(crate) fn bib_open(text: &str) -> Option<(&str, u64)> {
    let t = text.trim().strip_prefix('@')?;
    let kind = t.bytes().take_while(u8::is_ascii_alphabetic).count();
    let key = t[kind..].strip_prefix('{')?;
    let digits = key
        .get(..6)
        .filter(|k| k.eq_ignore_ascii_case("source"))
        .map(|_| &key[6..])?
        .strip_suffix(',')?;
    (kind > 0 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| (&t[..kind], digits.parse().unwrap_or(u64::MAX)))
}

/// The URL of a BibTeX entry as `render --style bibtex` writes it, from its field lines
/// (up to its `}`), all of which it reads: `howpublished = {\url{…}}`, unescaped, else
/// the first http(s) URL in the entry, else empty (which the ledger check then reports).
pub(crate) fn bib_url<'a>(fields: impl Iterator<Item = &'a str>) -> Cow<'a, str> {
    let mut published = None;
    let mut any_url = None;
    for field in fields {
        published = published.or_else(|| howpublished(field));
        any_url = any_url.or_else(|| first_url(field));
    }
    published
        .map(Cow::Owned)
        .or(any_url.map(Cow::Borrowed))
        .unwrap_or_default()
}

/// The URL of a `howpublished = {\url{…}},` field, unescaped.
fn howpublished(field: &str) -> Option<String> {
    let value = field.trim().strip_prefix("howpublished")?.trim_start();
    let value = value
        .strip_prefix('=')?
        .trim_start()
        .strip_prefix("{\\url{")?;
    let value = value
        .strip_suffix(',')
        .unwrap_or(value)
        .strip_suffix("}}")?;
    Some(unescape(value))
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

/// The first `` https?://[^\s"'<>)\]}`]+ `` in `text`, except that a `)` closing a `(`
/// opened inside the URL belongs to it: `render` writes ledger URLs such as
/// `https://en.wikipedia.org/wiki/Rust_(programming_language)` verbatim, and cutting
/// them at the `)` made every rendered draft citing one fail `verify`. A `)` with no
/// `(` before it in the URL still ends it, as in `(see https://a.org/x)`. A backtick
/// ends it too (it closes inline code; a canonical URL has it escaped as `%60`).
pub(crate) fn first_url(text: &str) -> Option<&str> {
    // Most lines of prose have no colon: one byte search skips them without building a
    // substring searcher.
    if !text.as_bytes().contains(&b':') {
        return None;
    }
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
                _ => c.is_whitespace() || "\"'<>)]}`".contains(c),
            })
            .unwrap_or(text.len() - at - scheme);
        (body > 0).then(|| &text[at..at + scheme + body])
    })
}

#[cfg(test)]
mod tests {
    use super::super::layout::lines;
    use super::{Tail, entry, first_url, footnote, is_sources_header, tail};

    fn start_line(draft: &str) -> Option<usize> {
        lines(draft).nth(tail(draft).start).map(|l| l.number)
    }

    /// The entries as (line index, id, URL).
    fn listed(t: &Tail<'_>) -> Vec<(usize, u64, String)> {
        t.entries
            .iter()
            .map(|e| (e.line - 1, e.id, e.url.to_string()))
            .collect()
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
    fn other_names_of_a_sources_list() {
        use super::{Heading, sources_heading};
        for yes in [
            "## References",
            "**References**",
            "References:",
            "### Bibliography",
            "Works Cited",
            "## works  cited:",
            "**Citations:**",
            "## Notes",
            "# Links",
            "## Quellen",
            "## Références",
            "## Referencias",
            "## Источники",
            "## 参考文献",
            "参考文献：",
            "## المصادر",
        ] {
            assert_eq!(sources_heading(yes), Some(Heading::Other), "{yes}");
        }
        for no in [
            "References :",
            "References used",
            "- References",
            "Sources and more:",
            "**Note:** see [1]",
            "#hashtag",
            "##",
        ] {
            assert_eq!(sources_heading(no), None, "{no}");
        }
        // Any heading, or a line all bold, over a list of entries is one too.
        for other in [
            "## Further notes",
            "## Sources and further reading",
            "**Key links:**",
            "### Links & data",
        ] {
            assert_eq!(sources_heading(other), Some(Heading::Other), "{other}");
        }
        assert_eq!(sources_heading("## Sources"), Some(Heading::Sources));
    }

    #[test]
    fn a_list_under_another_name_at_the_end_is_the_tail() {
        let d = "p.[1]\n\n**References**\n\n[1] https://a.org — A\n";
        assert_eq!(start_line(d), Some(2));
        assert_eq!(listed(&tail(d)), [(4, 1, "https://a.org".to_string())]);
        let d = "p.[1]\n## Bibliography\n[1] https://a.org\n[2] https://b.org\n";
        assert_eq!(start_line(d), Some(2));
        // Without entries under it, another name is the author's heading.
        assert_eq!(start_line("p\n\n## Notes\n"), None);
        assert_eq!(
            start_line("p\n## Notes\n\n## Sources\n[1] https://a.org\n"),
            Some(3)
        );
        assert_eq!(start_line("p\n## Notes\nA remark of mine.\n"), None);
        // Footnotes and BibTeX come without a header: one above them stays the author's.
        assert_eq!(start_line("p\n## Notes\n\n[^1]: https://a.org\n"), Some(3));
    }

    #[test]
    fn entry_lines_follow_sources_py() {
        let e = entry;
        assert_eq!(e("[1] https://a.org/x — T"), Some((1, "https://a.org/x")));
        assert_eq!(e("  [2] - https://b.org"), Some((2, "https://b.org")));
        assert_eq!(e("[3]: https://c.org"), Some((3, "https://c.org")));
        assert_eq!(e("[4]–example.org T"), Some((4, "example.org")));
        assert_eq!(
            e("[5] Title (https://e.org/p)"),
            Some((5, "https://e.org/p"))
        );
        assert_eq!(e("[6] doi:10.1/x"), Some((6, "doi:10.1/x")));
        assert_eq!(e("[7] ftp://g.org/f — T"), Some((7, "ftp://g.org/f")));
        assert_eq!(
            e("[8] Smith (2020), see https://h.org"),
            Some((8, "https://h.org"))
        );
        assert_eq!(e("[12345] https://f.org"), Some((12345, "https://f.org")));
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
            Some((3, "https://a.org/p"))
        );
        assert_eq!(footnote("[^3]: As argued in https://a.org"), None);
        assert_eq!(footnote("[^note]: https://a.org"), None);
        assert_eq!(footnote("[^4]: ftp://a.org/f"), Some((4, "ftp://a.org/f")));
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
        let t = tail(d);
        assert_eq!(t.header, Some(2));
        assert_eq!(listed(&t), [(4, 1, "https://a.org".to_string())]);
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
        assert_eq!(tail(f).header, None);
        let b = "p\n\n@misc{source1,\n  title = {A},\n  howpublished = {\\url{https://a.org}},\n  note = {Accessed 2024-01-01}\n}\n@misc{source2,\n  title = {B},\n}\n";
        assert_eq!(start_line(b), Some(2));
    }

    #[test]
    fn headerless_blocks_list_their_sources() {
        let f = "p\n\n[^1]: https://a.org — A\n[^22]: ftp://b.org/x\n";
        assert_eq!(
            listed(&tail(f)),
            [
                (2, 1, "https://a.org".into()),
                (3, 22, "ftp://b.org/x".into())
            ]
        );
        let b = "p\n@misc{source7,\n  title = {A \\% B},\n  howpublished = {\\url{https://a.org/p\\%20q\\#r\\}}},\n  note = {Accessed 2024-01-01}\n}\n@misc{source8,\n  note = {see https://c.org}\n}\n@misc{source9,\n}\n";
        assert_eq!(
            listed(&tail(b)),
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
        let t = tail(d);
        assert_eq!(t.start, 1);
        assert_eq!(t.header, Some(6));
        let ids: Vec<_> = t.entries.iter().map(|e| e.id).collect();
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
        let t = tail("p\n\n\n");
        assert_eq!((t.header, t.entries.len()), (None, 0));
        assert_eq!(start_line("p\n## Sources\n\n"), Some(2));
    }
}
