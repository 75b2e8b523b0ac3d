//! Prose lines into sentences, each with the provenance it declares.
//!
//! As in `sources.py`: a line is trimmed; blank lines, headings (`#`) and table rows
//! (`|`) are skipped; a leading run of `>` and spaces (a blockquote) is dropped. The line
//! splits after `。！？；` (whitespace after them optional) and after `.!?` followed by
//! whitespace or the end of the line. Unlike `sources.py`, markdown closers (`*`, `_`,
//! `)`, quotes, `]`, `` ` ``, `~`) and well-formed markers right after the punctuation
//! stay with the sentence they close, so `Ice floats.[1] It melts.` is two sentences and
//! the first is cited. A fragment needs 4+ words ([`word_count`]) to be a sentence.

use std::iter::Peekable;

use super::Sentence;
use super::markers::{self, Kind, Marker};
use crate::text::word_count;

/// Characters that may follow sentence-final punctuation and still belong to it.
const CLOSERS: &[char] = &['*', '_', ')', '"', '\'', '”', '’', ']', '`', '~'];

/// Hands the sentences of one prose line (1-based `number`) to `each`, in order.
pub(crate) fn split_line<'a>(line: &'a str, number: usize, each: &mut dyn FnMut(Sentence<'a>)) {
    let mut text = line.trim();
    if text.is_empty() || text.starts_with('#') || text.starts_with('|') {
        return;
    }
    if text.starts_with('>') {
        text = text.trim_start_matches(['>', ' ']);
    }
    // Read as the sentences go by, so a long line is never held as a list of markers.
    let mut found = markers::markers(text).peekable();
    let mut start = 0;
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        let after = at + c.len_utf8();
        let cjk = matches!(c, '。' | '！' | '？' | '；');
        if cjk || matches!(c, '.' | '!' | '?') {
            let end = skip_closers(text, after);
            let rest = &text[end..];
            if cjk || rest.is_empty() || rest.starts_with(char::is_whitespace) {
                push(text, start, end, &mut found, number, each);
                start = end + (rest.len() - rest.trim_start().len());
                at = start;
                continue;
            }
        }
        at = after;
    }
    push(text, start, text.len(), &mut found, number, each);
}

/// The offset past any closers and well-formed markers starting at `at`.
fn skip_closers(text: &str, mut at: usize) -> usize {
    loop {
        if let Some(c) = text[at..].chars().next().filter(|c| CLOSERS.contains(c)) {
            at += c.len_utf8();
        } else if let Some(m) = markers::marker_at(text, at) {
            at = m.end;
        } else {
            return at;
        }
    }
}

/// Hands `text[start..end]` to `each` as a sentence if it has 4+ words. `found` yields
/// the line's markers in order; those before `start` belong to earlier pieces.
fn push<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    found: &mut Peekable<impl Iterator<Item = Marker>>,
    line: usize,
    each: &mut dyn FnMut(Sentence<'a>),
) {
    let trimmed = text[start..end].trim();
    if word_count(trimmed) < 4 {
        return;
    }
    let mut sentence = Sentence {
        text: trimmed,
        line,
        cited: Vec::new(),
        tool: false,
        policy: false,
        unverified: false,
        citations: markers::citation_count(trimmed),
    };
    while found.next_if(|m| m.start < start).is_some() {}
    while let Some(m) = found.next_if(|m| m.end <= end) {
        match m.kind {
            Kind::Cite(id) => sentence.cited.push(id),
            Kind::Tool => sentence.tool = true,
            Kind::Policy => sentence.policy = true,
            Kind::Unverified => sentence.unverified = true,
        }
    }
    each(sentence);
}

#[cfg(test)]
mod tests {
    use super::split_line;
    use crate::draft::Sentence;

    fn split(line: &str) -> Vec<Sentence<'_>> {
        let mut out = Vec::new();
        split_line(line, 7, &mut |s| out.push(s));
        out
    }

    fn texts(line: &str) -> Vec<&str> {
        split(line).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn splits_after_terminal_punctuation_and_whitespace() {
        assert_eq!(
            texts("One two three four. Five six seven eight! Nine ten eleven twelve?"),
            [
                "One two three four.",
                "Five six seven eight!",
                "Nine ten eleven twelve?"
            ]
        );
        // No whitespace after the period: one sentence (decimals, domains, e.g.).
        assert_eq!(
            texts("Version 3.5 of example.org ships today now."),
            ["Version 3.5 of example.org ships today now."]
        );
    }

    #[test]
    fn short_fragments_are_not_sentences() {
        assert_eq!(
            texts("Yes. No. This one has four words."),
            ["This one has four words."]
        );
        assert!(split("Three words only.").is_empty());
    }

    #[test]
    fn a_marker_after_the_period_belongs_to_the_sentence_before() {
        let s = split("Ice floats on water.[1] Next sentence here now.");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].text, "Ice floats on water.[1]");
        assert_eq!(s[0].cited, [1]);
        assert!(s[1].cited.is_empty());
        assert_eq!(s[1].line, 7);
    }

    #[test]
    fn markdown_closers_stay_with_the_sentence() {
        let s = split(
            "*Ice floats on water.*[1] And **it melts quickly.**[2][3] \"Quoted claim is here.\"[unverified]",
        );
        let got: Vec<_> = s
            .iter()
            .map(|s| (s.text, s.cited.clone(), s.unverified))
            .collect();
        assert_eq!(
            got,
            [
                ("*Ice floats on water.*[1]", vec![1], false),
                ("And **it melts quickly.**[2][3]", vec![2, 3], false),
                ("\"Quoted claim is here.\"[unverified]", vec![], true),
            ]
        );
    }

    #[test]
    fn every_marker_kind_is_recorded() {
        let s = split("We ran the command ourselves.[tool:curl] Refunds take a week.[policy]");
        assert!(s[0].tool && !s[0].policy && s[0].cited.is_empty());
        assert!(s[1].policy && !s[1].tool);
    }

    #[test]
    fn glued_markers_do_not_end_or_cite_a_sentence() {
        let s = split("The value of arr[1] is large. Claim made here.[1]junk more words");
        assert_eq!(s.len(), 2);
        assert!(s[0].cited.is_empty());
        assert!(s[1].cited.is_empty());
        assert_eq!(s[1].citations, 1);
    }

    #[test]
    fn cjk_sentences_split_without_spaces() {
        let s = split("氷は水より軽いです。[1]水は百度で沸騰する；これは事実。短い。");
        let got: Vec<_> = s.iter().map(|s| (s.text, s.cited.clone())).collect();
        // 氷は水より軽いです。[1]: 1 token + 9 CJK / 2 = 5 words; 短い。: 1 + 1 = 2 words.
        assert_eq!(
            got,
            [
                ("氷は水より軽いです。[1]", vec![1]),
                ("水は百度で沸騰する；", vec![]),
            ]
        );
        // これは事実。 has 5 CJK characters: 1 + 2 = 3 words, dropped.
    }

    #[test]
    fn blockquotes_are_prose_headings_and_tables_are_not() {
        assert_eq!(
            texts("> > Quoted text with four words."),
            ["Quoted text with four words."]
        );
        assert!(split("## A heading with many words in it.").is_empty());
        assert!(split("| a table | row with | many words |").is_empty());
        assert!(split("   ").is_empty());
    }

    #[test]
    fn over_citation_counts_every_id() {
        let s = split("This claim has many sources.[1][2][3][4]");
        assert_eq!((s[0].citations, s[0].cited.len()), (4, 4));
    }

    #[test]
    fn the_last_piece_needs_no_punctuation() {
        assert_eq!(
            texts("A list item without a period [1]"),
            ["A list item without a period [1]"]
        );
        assert_eq!(split("A list item without a period [1]")[0].cited, [1]);
    }
}
