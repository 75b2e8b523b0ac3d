//! Source listings anywhere in a draft: every place that shows the reader an id with a
//! URL, whether or not it is in the generated Sources block.
//!
//! The generated block is found by its exact shapes (`blocks`); a writer who types a
//! Sources section by hand, or pastes an entry into a paragraph, a list, a blockquote or
//! a code example, shows the reader a URL as surely. `verify` fails closed on all of
//! them, so these shapes are deliberately looser than the block's:
//!
//! - a line that is an entry once a blockquote `>` or a list marker is dropped:
//!   `[N] URL…`, `[N]: URL` (a reference definition, which also makes every `[N]` in
//!   the prose a link to it), `[^N]: … URL …`;
//! - anywhere in a line, an id right before a URL: `[N] URL`, `[N] - URL`, `[N](URL)`;
//! - a BibTeX entry `@TYPE{sourceN,` with its fields, up to its `}` line (read by the
//!   walk in `mod.rs`, which skips those lines as prose).
//!
//! The URLs a line shows with no id are the prose's raw URLs, reported by `verify`
//! unless the ledger has them.

use super::blocks::{self, first_url};

/// The entry a whole line shows, wherever it is: its id and URL.
pub(crate) fn line_entry(text: &str) -> Option<(u64, &str)> {
    let t = strip_prefixes(text);
    if t.starts_with("[^") {
        return footnote(t);
    }
    blocks::entry(t)
}

/// The `[N] URL` (or `[N]: URL`) entry a whole line shows, behind a blockquote or list
/// marker too: not a footnote definition.
pub(crate) fn entry_line(text: &str) -> Option<(u64, &str)> {
    blocks::entry(strip_prefixes(text))
}

/// `text` without leading blockquote markers, list markers and whitespace.
fn strip_prefixes(text: &str) -> &str {
    let mut t = text.trim_start();
    loop {
        let next = if let Some(rest) = t.strip_prefix('>') {
            rest
        } else if let Some(rest) = t
            .strip_prefix(['-', '*', '+'])
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            rest
        } else {
            let digits = t.bytes().take_while(u8::is_ascii_digit).count();
            match t[digits..].strip_prefix(['.', ')']) {
                Some(rest) if digits > 0 && rest.starts_with(char::is_whitespace) => rest,
                _ => return t,
            }
        };
        t = next.trim_start();
    }
}

/// A footnote definition that lists a source: as the block writes it (`[^N]: URL`), with
/// an http(s) URL anywhere after `[^N]:`, whatever text comes before it, or with a bare
/// domain first (`[^N]: evil.example.com/x`), as an entry line may have one.
fn footnote(t: &str) -> Option<(u64, &str)> {
    blocks::footnote(t).or_else(|| {
        let s = t.strip_prefix("[^")?;
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let rest = s[digits..].strip_prefix("]:").filter(|_| digits > 0)?;
        let url = first_url(rest).or_else(|| {
            rest.split_whitespace()
                .next()
                .filter(|token| blocks::looks_like_url(token))
        })?;
        Some((parse_id(&s[..digits]), url))
    })
}

/// An id as written, any length: one too long for a `u64` is no id the ledger has, and
/// is read as `u64::MAX`.
fn parse_id(digits: &str) -> u64 {
    digits.parse().unwrap_or(u64::MAX)
}

/// Every id shown right before a URL in `text`: `[N] URL`, `[N] - URL`, `[N]: URL`,
/// `[N](URL)`, and the looser shapes a hand-typed listing takes — `**[N]** URL`,
/// `| [N] | URL |`, `[N] <URL>`, `[[N]](URL)` (a link whose text is the citation),
/// `[^N] URL`. The URL loses trailing sentence punctuation, as [`urls`] gives it.
pub(crate) fn pairs(text: &str) -> impl Iterator<Item = (u64, &str)> + '_ {
    text.match_indices('[').filter_map(move |(at, _)| {
        let s = &text[at + 1..];
        let nested = s.starts_with('[');
        let s = s.strip_prefix('[').unwrap_or(s);
        let s = s.strip_prefix('^').unwrap_or(s);
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let mut after = s[digits..].strip_prefix(']').filter(|_| digits > 0)?;
        if nested {
            after = after.strip_prefix(']')?;
        }
        let url_at = match after.strip_prefix('(') {
            Some(rest) => rest,
            None => {
                let rest = gap(after);
                gap(rest.strip_prefix(['-', '–', '—', ':', '|']).unwrap_or(rest))
            }
        };
        let url_at = url_at.strip_prefix('<').unwrap_or(url_at);
        if !(url_at.starts_with("http://") || url_at.starts_with("https://")) {
            return None;
        }
        Some((parse_id(&s[..digits]), trim_url(first_url(url_at)?)))
    })
}

/// `text` without leading blanks and emphasis marks.
fn gap(text: &str) -> &str {
    text.trim_start_matches([' ', '\t', '*', '_'])
}

/// Every http(s) URL in `text`, with its byte offset, without the punctuation that ends
/// the sentence around it (`see https://a.org/x.`), as Markdown autolinks read it.
pub(crate) fn urls(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = text.get(at..)?;
        let url = first_url(rest)?;
        let offset = at + (url.as_ptr() as usize - rest.as_ptr() as usize);
        at = offset + url.len();
        Some((offset, trim_url(url)))
    })
}

fn trim_url(url: &str) -> &str {
    url.trim_end_matches(['.', ',', ':', ';', '!', '?', '*', '_', '~'])
}

/// The URLs `text` shows with no id: those of [`urls`] that are not the URL of one of
/// `shown` (slices of `text`).
pub(crate) fn unlisted<'a>(
    text: &'a str,
    shown: &[&str],
) -> impl Iterator<Item = (usize, &'a str)> {
    urls(text).filter(|(_, url)| !shown.iter().any(|s| s.as_ptr() == url.as_ptr()))
}

#[cfg(test)]
mod tests {
    use super::{line_entry, pairs, unlisted, urls};
    use crate::draft::blocks::bib_open;

    #[test]
    fn entry_lines_behind_quotes_and_list_markers() {
        let e = line_entry;
        assert_eq!(e("[2] https://e.org/x"), Some((2, "https://e.org/x")));
        assert_eq!(e("- [2] https://e.org/x"), Some((2, "https://e.org/x")));
        assert_eq!(e("> > * [2] e.org/x"), Some((2, "e.org/x")));
        assert_eq!(e("12. [2]: https://e.org"), Some((2, "https://e.org")));
        assert_eq!(e("[^2]: https://e.org — T"), Some((2, "https://e.org")));
        assert_eq!(
            e("[^2]: As argued in https://e.org"),
            Some((2, "https://e.org"))
        );
        assert_eq!(e("[^2]: An aside without a link."), None);
        assert_eq!(e("[^2]: e.org/x — T"), Some((2, "e.org/x")));
        assert_eq!(e("[1] and [2] disagree on the date."), None);
        assert_eq!(e("-[2] https://e.org"), None);
        assert_eq!(e("A claim.[2] https://e.org"), None);
    }

    #[test]
    fn ids_right_before_urls() {
        let p = |t| pairs(t).collect::<Vec<_>>();
        assert_eq!(
            p("See [2] https://e.org/x. And [3](https://f.org) or [4]: http://g.org"),
            [
                (2, "https://e.org/x"),
                (3, "https://f.org"),
                (4, "http://g.org")
            ]
        );
        assert_eq!(p("[5] — https://h.org"), [(5, "https://h.org")]);
        assert_eq!(
            p("[123456789012345678901234] https://i.org"),
            [(u64::MAX, "https://i.org")]
        );
        assert_eq!(p("A claim.[1] Next https://e.org [x] https://f.org"), []);
        assert_eq!(p("[1]https://e.org"), [(1, "https://e.org")]);
        assert_eq!(p("[] https://e.org [x] https://e.org"), []);
        // The shapes of hand-typed listings.
        for shown in [
            "**[6]** https://j.org",
            "| [6] | https://j.org |",
            "[6] <https://j.org>",
            "See [[6]](https://j.org) here",
            "text[^6] https://j.org",
            "[^6]: https://j.org",
            "[6] — *https://j.org*",
        ] {
            assert_eq!(p(shown), [(6, "https://j.org")], "{shown}");
        }
        assert_eq!(p("| [6] | see https://j.org |"), []);
    }

    #[test]
    fn urls_lose_sentence_punctuation() {
        let u: Vec<_> = urls("a https://a.org/x. b (https://b.org), c https://c.org?q=1!")
            .map(|(_, u)| u)
            .collect();
        assert_eq!(u, ["https://a.org/x", "https://b.org", "https://c.org?q=1"]);
        let text = "[1] https://a.org — see https://b.org";
        let shown = [&text[4..17]];
        let rest: Vec<_> = unlisted(text, &shown).collect();
        assert_eq!(rest, [(26, "https://b.org")]);
    }

    #[test]
    fn bibtex_openers_of_any_type() {
        assert_eq!(bib_open("@misc{source7,"), Some(("misc", 7)));
        assert_eq!(bib_open("  @online{Source12,"), Some(("online", 12)));
        assert_eq!(bib_open("@misc{source,"), None);
        assert_eq!(bib_open("@{source1,"), None);
        assert_eq!(bib_open("@misc{source1}"), None);
        assert_eq!(bib_open("@misc{sourceé,"), None);
    }
}
