//! Prose lines into sentences, each with the provenance it declares; and a table row
//! that cites, read as one: its figures are checked against the pages it cites (with
//! its table's header row, whose units apply to the cells), though it is no sentence
//! for coverage.
//!
//! As in `sources.py`: a line is trimmed; blank lines, headings (`#`) and table rows
//! (`|`) are skipped; a leading run of `>` and spaces (a blockquote) is dropped. The line
//! splits after `。！？；` (whitespace after them optional) and after `.!?` followed by
//! whitespace or the end of the line. A fragment needs 4+ words ([`word_count`]) to be a
//! sentence.
//!
//! Unlike `sources.py`, what follows the punctuation before the whitespace stays with
//! the sentence it closes: markdown closers (`*`, `_`, `)`, quotes, `` ` ``, `~`) and
//! *any* bracket group, well-formed marker or not (with a link target after it), and
//! inline code or an HTML comment. So
//! `Ice floats.[1] It melts.` is two sentences and the first is cited, and a malformed
//! marker (`claim.[tool:] Next claim.[policy]`) cannot glue an unsupported sentence to a
//! supported one: only well-formed markers give provenance, but every group ends the
//! sentence. Punctuation inside inline code ends nothing, and markers there count for
//! nothing.
//!
//! A well-formed marker set off from the punctuation by a space (`wavelength. [1]`) is
//! read as the writer meant it, for the sentence before, and reported so that it is
//! written `wavelength.[1]`: left to the next sentence it would lend that sentence a
//! citation it never had.

use std::iter::Peekable;

use super::inline::{in_code, span_end};
use super::markers::{self, Kind, Marker};
use super::{Note, NoteKind, Sentence, Visit};
use crate::text::word_count;

/// Characters that may follow sentence-final punctuation and still belong to it.
const CLOSERS: &[char] = &['*', '_', ')', '"', '\'', '”', '’', ']', '`', '~'];

/// Hands the sentences of one prose line (1-based `number`) to `v`, in order. `code`:
/// the line's inline code spans.
pub(crate) fn split_line<'a>(
    line: &'a str,
    number: usize,
    code: &[(usize, usize)],
    v: &mut dyn Visit<'a>,
) {
    let mut text = line.trim();
    if text.is_empty() || text.starts_with('#') || text.starts_with('|') {
        return;
    }
    if text.starts_with('>') {
        text = text.trim_start_matches(['>', ' ']);
    }
    // Offsets in `text` are offsets in `line` less `base`.
    let base = text.as_ptr() as usize - line.as_ptr() as usize;
    let spans = code;
    let code = |at: usize| in_code(spans, base + at);
    // A span may run past the trimmed text, into trailing blanks or the next line.
    let span_end = |at: usize| span_end(spans, base + at).map(|end| (end - base).min(text.len()));
    // Read as the sentences go by, so a long line is never held as a list of markers.
    let mut found = markers::markers(text).filter(|m| !code(m.start)).peekable();
    let mut start = 0;
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        // A marker's own punctuation (`[@source3, p. 4]`) ends no sentence.
        if let Some(m) = (c == '[').then(|| markers::marker_at(text, at)).flatten() {
            at = m.end;
            continue;
        }
        let after = at + c.len_utf8();
        let cjk = matches!(c, '。' | '！' | '？' | '；');
        if (cjk || matches!(c, '.' | '!' | '?')) && !code(at) {
            let mut end = skip_closers(text, after, &span_end);
            let rest = &text[end..];
            if cjk || rest.is_empty() || rest.starts_with(char::is_whitespace) {
                if let Some((spaced, pandoc)) =
                    spaced_markers(text, end).filter(|&(e, _)| !code(e - 1))
                {
                    // A pandoc citation after a space is pandoc's own style for a note.
                    if !pandoc {
                        v.note(spaced_note(text, at, end, spaced, number));
                    }
                    end = spaced;
                }
                push(text, start, end, &mut found, number, v);
                let rest = &text[end..];
                start = end + (rest.len() - rest.trim_start().len());
                at = start;
                continue;
            }
        }
        at = after;
    }
    push(text, start, text.len(), &mut found, number, v);
}

/// The offset past any closers, bracket groups (a group's link target included), code
/// spans and comments starting at `at` (`span_end` gives where one that starts there
/// ends): what still belongs to a sentence after its final punctuation.
fn skip_closers(text: &str, mut at: usize, span_end: &dyn Fn(usize) -> Option<usize>) -> usize {
    while let Some(c) = text[at..].chars().next() {
        if let Some(end) = span_end(at) {
            at = end;
        } else if c == '[' {
            // A group runs to the next bracket when that closes it; a lone `[` is skipped.
            at = match text[at + 1..].find(['[', ']']).map(|i| at + 1 + i) {
                Some(close) if text.as_bytes()[close] == b']' => {
                    let end = close + 1;
                    match text[end..].strip_prefix('(').and_then(|r| r.find(')')) {
                        Some(paren) => end + 1 + paren + 1,
                        None => end,
                    }
                }
                _ => at + 1,
            };
        } else if CLOSERS.contains(&c) {
            at += c.len_utf8();
        } else {
            break;
        }
    }
    at
}

/// When whitespace after `end` is followed by well-formed markers and then whitespace
/// or the end of the line (`wavelength. [1][2] Next`), the offset past those markers,
/// and whether they are all pandoc citations.
fn spaced_markers(text: &str, end: usize) -> Option<(usize, bool)> {
    let rest = &text[end..];
    let mut at = end + (rest.len() - rest.trim_start().len());
    if at == end {
        return None;
    }
    let first = markers::marker_at(text, at)?;
    let mut pandoc = matches!(first.kind, Kind::Pandoc(_));
    at = first.end;
    while let Some(m) = markers::marker_at(text, at) {
        pandoc &= matches!(m.kind, Kind::Pandoc(_));
        at = m.end;
    }
    (text[at..].is_empty() || text[at..].starts_with(char::is_whitespace)).then_some((at, pandoc))
}

/// The note for markers at `..marker_end` set off by a space from the punctuation at
/// `punct` (its closers ending at `end`): the last word and the markers as written, and
/// as they should be.
fn spaced_note(text: &str, punct: usize, end: usize, marker_end: usize, line: usize) -> Note<'_> {
    let word = text[..punct].rfind(char::is_whitespace).map_or(0, |i| {
        i + text[i..].chars().next().map_or(1, char::len_utf8)
    });
    let marks = text[end..marker_end].trim_start();
    Note {
        line,
        kind: NoteKind::Spaced,
        written: &text[word..marker_end],
        fix: format!("{}{marks}", &text[word..end]),
        sentence: None,
    }
}

/// Hands `text[start..end]` to `v` as a sentence if it has 4+ words. `found` yields
/// the line's markers in order; those before `start` belong to earlier pieces.
fn push<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    found: &mut Peekable<impl Iterator<Item = Marker>>,
    line: usize,
    v: &mut dyn Visit<'a>,
) {
    while found.next_if(|m| m.start < start).is_some() {}
    let trimmed = text[start..end].trim();
    if word_count(trimmed) < 4 {
        return;
    }
    let mut sentence = unmarked(trimmed, line);
    while let Some(m) = found.next_if(|m| m.end <= end) {
        sentence.declares(m.kind);
    }
    v.sentence(sentence);
}

/// Hands the table row `line` (1-based `number`; `code`: its inline code spans) to `v`
/// if it has a well-formed citation outside code, with its table's `header`.
pub(crate) fn row<'a>(
    line: &'a str,
    number: usize,
    header: Option<&'a str>,
    code: &[(usize, usize)],
    v: &mut dyn Visit<'a>,
) {
    let text = line.trim();
    let base = text.as_ptr() as usize - line.as_ptr() as usize;
    let mut row = unmarked(text, number);
    row.row = true;
    row.header = header;
    for m in markers::markers(text).filter(|m| !in_code(code, base + m.start)) {
        row.declares(m.kind);
    }
    if !row.cited.is_empty() {
        v.row(row);
    }
}

/// `text` on `line`, before its markers are read.
fn unmarked(text: &str, line: usize) -> Sentence<'_> {
    Sentence {
        text,
        line,
        // Numbered by the walk.
        index: 0,
        row: false,
        header: None,
        cited: Vec::new(),
        tool: false,
        policy: false,
        unverified: false,
    }
}

impl Sentence<'_> {
    /// Takes in what a well-formed marker of it declares.
    fn declares(&mut self, kind: Kind) {
        match kind {
            Kind::Cite(id) => self.cited.push(id),
            Kind::Pandoc(ids) => self.cited.extend(ids),
            Kind::Tool => self.tool = true,
            Kind::Policy => self.policy = true,
            Kind::Unverified => self.unverified = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_line;
    use crate::draft::markers::ISSUE9_MALFORMED;
    use crate::draft::{Citation, Note, NoteKind, Sentence, Visit};

    #[derive(Default)]
    struct Collect<'a> {
        sentences: Vec<Sentence<'a>>,
        notes: Vec<Note<'a>>,
    }

    impl<'a> Visit<'a> for Collect<'a> {
        fn citation(&mut self, _: Citation) {}
        fn sentence(&mut self, s: Sentence<'a>) {
            self.sentences.push(s);
        }
        fn note(&mut self, n: Note<'a>) {
            self.notes.push(n);
        }
    }

    /// The sentences and notes of `line`, with inline code at `code`.
    fn read<'a>(line: &'a str, code: &[(usize, usize)]) -> Collect<'a> {
        let mut c = Collect::default();
        split_line(line, 7, code, &mut c);
        c
    }

    fn split(line: &str) -> Vec<Sentence<'_>> {
        read(line, &[]).sentences
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
    fn a_marker_glued_to_a_word_cites_its_sentence_and_one_glued_after_does_not() {
        // Issue 18: `arr[1]` is a citation the reader sees; `[1]junk` is malformed.
        let s = split("The value of arr[1] is large. Claim made here.[1]junk more words");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].cited, [1]);
        assert!(s[1].cited.is_empty());
        let s = split("Tested by several carmakers[2]. Expected in the year 2030.[1]");
        let got: Vec<_> = s.iter().map(|s| (s.text, s.cited.clone())).collect();
        assert_eq!(
            got,
            [
                ("Tested by several carmakers[2].", vec![2]),
                ("Expected in the year 2030.[1]", vec![1])
            ]
        );
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
        assert_eq!(s[0].cited, [1, 2, 3, 4]);
    }

    #[test]
    fn the_last_piece_needs_no_punctuation() {
        assert_eq!(
            texts("A list item without a period [1]"),
            ["A list item without a period [1]"]
        );
        assert_eq!(split("A list item without a period [1]")[0].cited, [1]);
    }

    /// Issue 9, item 2: a sentence whose marker is malformed, in any way, is not glued to
    /// the next one, which would lend it that one's provenance.
    #[test]
    fn any_bracket_group_after_the_punctuation_ends_the_sentence() {
        let others = ["[sic]", "[", "[x](https://a.org)"];
        for marker in ISSUE9_MALFORMED.iter().chain(&others) {
            let line = format!(
                "An unsupported claim is made here.{marker} A separate sentence is here.[policy]"
            );
            let s = split(&line);
            let got: Vec<_> = s.iter().map(|s| (s.has_provenance(), s.policy)).collect();
            assert_eq!(got, [(false, false), (true, true)], "{marker}");
        }
        let s = split(
            "*An unsupported claim is made here.*[tool:]] Next claim is stated here.[policy]",
        );
        assert_eq!(s.len(), 2);
        assert!(!s[0].has_provenance());
        assert_eq!(s[0].text, "*An unsupported claim is made here.*[tool:]]");
    }

    /// Issue 9.
    #[test]
    fn inline_code_ends_no_sentence_and_cites_nothing() {
        let line = "Run `make. Then` and cite `[2]` here now.[1] Done with this one.";
        let code = [(4, 16), (26, 31)];
        let s = read(line, &code).sentences;
        let got: Vec<_> = s.iter().map(|s| (s.text, s.cited.clone())).collect();
        assert_eq!(
            got,
            [
                ("Run `make. Then` and cite `[2]` here now.[1]", vec![1]),
                ("Done with this one.", vec![]),
            ]
        );
        // A marker only in code gives nothing.
        let line = "This claim has only code `[1]`.";
        assert!(!read(line, &[(25, 30)]).sentences[0].has_provenance());
    }

    /// Issue 9.
    #[test]
    fn a_comment_hides_no_marker_and_glues_no_sentences() {
        let line = "An unsupported claim is here.<!-- [1] --> A cited claim is here.[1]";
        let s = read(line, &[(29, 41)]).sentences;
        let got: Vec<_> = s.iter().map(|s| s.cited.clone()).collect();
        assert_eq!(got, [vec![], vec![1]]);
        let line = "An unsupported claim is here.`x` A cited claim is here.[1]";
        assert_eq!(read(line, &[(29, 32)]).sentences.len(), 2);
    }

    /// Issue 9.
    #[test]
    fn a_marker_after_a_space_goes_with_the_sentence_before_and_is_noted() {
        let c = read(
            "The light has a longer wavelength. [1][2] Next sentence is here.",
            &[],
        );
        let got: Vec<_> = c
            .sentences
            .iter()
            .map(|s| (s.text, s.cited.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("The light has a longer wavelength. [1][2]", vec![1, 2]),
                ("Next sentence is here.", vec![]),
            ]
        );
        assert_eq!(
            c.notes,
            [Note {
                line: 7,
                kind: NoteKind::Spaced,
                written: "wavelength. [1][2]",
                fix: "wavelength.[1][2]".into(),
                sentence: None,
            }]
        );
        // At the end of a line too; not when something is glued to the marker.
        let c = read("It has a longer wavelength.** [unverified]", &[]);
        assert!(c.sentences[0].unverified);
        assert_eq!(c.notes[0].fix, "wavelength.**[unverified]");
        let c = read(
            "The light has a longer wavelength. [1]x is a source we cite.",
            &[],
        );
        assert!(c.notes.is_empty());
        assert!(c.sentences.iter().all(|s| !s.has_provenance()));
    }
}
