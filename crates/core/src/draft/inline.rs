//! Inline code spans (`` `code` ``) and HTML comments (`<!-- … -->`): not prose, so a
//! marker, a citation or a URL inside one counts for nothing, and punctuation inside
//! one ends no sentence. A comment is not even seen by the reader: a marker hidden in
//! one (`claim.<!-- [1] -->`) must not cover the sentence it follows.
//!
//! CommonMark's rule for code: a run of N backticks opens a span that the next run of
//! exactly N backticks closes, even on a later line of the same paragraph; a run with no
//! such closer is literal text. Reading spans one line at a time would let a span that
//! crosses a line break (`` `x [1] `` ⏎ `` y` ``) hand out provenance from inside code,
//! so an opener without a closer on its line looks ahead, through the rest of its
//! paragraph only. A paragraph ends, for this purpose, at a blank line, a heading, a
//! table row, a fence line or the generated tail, which is simpler than CommonMark's
//! block rules but never joins text a renderer would keep apart across a blank line.
//! A comment runs to the next `-->`, wherever it is before the tail; one that is never
//! closed is read as text (as an inline one is shown).
//!
//! Two runs of the same length in a paragraph always pair up, so a look-ahead fails at
//! most once per run length per paragraph; with runs longer than [`LONGEST_RUN`] never
//! opening a span, and a failed search for `-->` never repeated, a draft is read in
//! linear time whatever its backticks and comments.

use super::layout;

/// Runs longer than this are never openers: CommonMark has no limit, but without one a
/// paragraph of runs of every length would be read once per length, and no draft
/// fences inline code with 64 backticks.
const LONGEST_RUN: usize = 63;

/// The code spans and comments of prose lines, read in draft order.
pub(crate) struct Spans<'a> {
    draft: &'a str,
    /// Where prose ends (the generated tail's offset): no span looks past it.
    limit: usize,
    /// A span opened on an earlier line: the offset just past its end.
    open_until: Option<usize>,
    /// No `-->` follows: a search for one failed, so every later one would.
    no_comment_end: bool,
}

impl<'a> Spans<'a> {
    pub(crate) fn new(draft: &'a str, limit: usize) -> Spans<'a> {
        Spans {
            draft,
            limit,
            open_until: None,
            no_comment_end: false,
        }
    }

    /// The code spans and comments of the line `text` starting at byte `start` of the
    /// draft, as ranges of `text`, in order, into `out`. `paragraph`: whether the line
    /// can be continued by the next (not a heading or table row), so a code span may run
    /// on.
    pub(crate) fn line(
        &mut self,
        start: usize,
        text: &str,
        paragraph: bool,
        out: &mut Vec<(usize, usize)>,
    ) {
        out.clear();
        let mut at = 0;
        if let Some(end) = self.open_until.take().filter(|&end| end > start) {
            if end - start > text.len() {
                out.push((0, text.len()));
                self.open_until = Some(end);
                return;
            }
            out.push((0, end - start));
            at = end - start;
        }
        let bytes = text.as_bytes();
        while let Some(i) = text[at..].find(['`', '<']).map(|i| at + i) {
            if bytes[i] == b'<' {
                if !text[i..].starts_with("<!--") {
                    at = i + 1;
                    continue;
                }
                if let Some(j) = text[i + 4..].find("-->") {
                    out.push((i, i + 4 + j + 3));
                    at = i + 4 + j + 3;
                    continue;
                }
                if let Some(end) = self.comment_end(start + text.len()) {
                    out.push((i, text.len()));
                    self.open_until = Some(end);
                    return;
                }
                at = i + 4;
                continue;
            }
            let n = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            let after = i + n;
            if n > LONGEST_RUN {
                at = after;
                continue;
            }
            if let Some(close) = run_of(text, after, n) {
                out.push((i, close + n));
                at = close + n;
                continue;
            }
            if paragraph && let Some(end) = self.look_ahead(start + text.len(), n) {
                out.push((i, text.len()));
                self.open_until = Some(end);
                return;
            }
            at = after;
        }
    }

    /// The offset just past the first `-->` after `from`, before the tail.
    fn comment_end(&mut self, from: usize) -> Option<usize> {
        if self.no_comment_end || from >= self.limit {
            return None;
        }
        let found = self.draft[from..self.limit]
            .find("-->")
            .map(|j| from + j + 3);
        self.no_comment_end = found.is_none();
        found
    }

    /// The offset just past a run of exactly `n` backticks in the lines after the one
    /// ending at `from`, within its paragraph.
    fn look_ahead(&self, from: usize, n: usize) -> Option<usize> {
        let rest = &self.draft[from.min(self.limit)..self.limit];
        // The first piece is what is left of the current line (`\r` at most).
        let mut offset = from.min(self.limit);
        let mut pieces = rest.split('\n');
        if let Some(first) = pieces.next() {
            offset += first.len() + 1;
        }
        for piece in pieces {
            let line = layout::text_of(piece);
            let t = line.trim_start();
            if t.is_empty() || t.starts_with(['#', '|']) || layout::opens(line).is_some() {
                break;
            }
            if let Some(close) = run_of(line, 0, n) {
                return Some(offset + close + n);
            }
            offset += piece.len() + 1;
        }
        None
    }
}

/// The start of the first run of exactly `n` backticks in `text` at or after `from`.
fn run_of(text: &str, from: usize, n: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(i) = text.get(at..)?.find('`').map(|i| at + i) {
        let len = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        if len == n {
            return Some(i);
        }
        at = i + len;
    }
    None
}

/// Whether byte `at` of a line lies in one of its `spans` (sorted, disjoint).
pub(crate) fn in_code(spans: &[(usize, usize)], at: usize) -> bool {
    span_end(spans, at).is_some()
}

/// The end of the span that holds byte `at`, if one does.
pub(crate) fn span_end(spans: &[(usize, usize)], at: usize) -> Option<usize> {
    let i = spans.partition_point(|&(_, end)| end <= at);
    spans
        .get(i)
        .filter(|&&(start, _)| start <= at)
        .map(|&(_, end)| end)
}

#[cfg(test)]
mod tests {
    use super::{Spans, in_code};

    /// The code spans of each line of `draft`, every line paragraph text.
    fn spans(draft: &str) -> Vec<Vec<&str>> {
        let mut s = Spans::new(draft, draft.len());
        let mut out = Vec::new();
        let mut start = 0;
        let mut all = Vec::new();
        for line in draft.split('\n') {
            s.line(start, line, true, &mut out);
            all.push(out.iter().map(|&(a, b)| &line[a..b]).collect());
            start += line.len() + 1;
        }
        all
    }

    #[test]
    fn spans_on_one_line() {
        assert_eq!(spans("a `[1]` b ``x`y`` c"), [vec!["`[1]`", "``x`y``"]]);
        assert_eq!(spans("no code here"), [Vec::<&str>::new()]);
        // An unmatched run is literal.
        assert_eq!(spans("a ` b [1]"), [Vec::<&str>::new()]);
        assert_eq!(spans("a `` b ` c"), [Vec::<&str>::new()]);
    }

    #[test]
    fn a_span_runs_on_within_its_paragraph() {
        assert_eq!(spans("a `x [1]\ny` z.[2]"), [vec!["`x [1]"], vec!["y`"]]);
        assert_eq!(
            spans("a `x\nmiddle\ny` b"),
            [vec!["`x"], vec!["middle"], vec!["y`"]]
        );
        // Not across a blank line, a heading or a fence.
        for stop in ["", "# h", "```", "| t |"] {
            let d = format!("a `x [1]\n{stop}\ny` z");
            assert_eq!(spans(&d)[0], Vec::<&str>::new(), "{stop:?}");
        }
    }

    #[test]
    fn a_crlf_line_ends_before_its_carriage_return() {
        let d = "a `x\r\ny` b";
        let mut s = Spans::new(d, d.len());
        let mut out = Vec::new();
        s.line(0, "a `x", true, &mut out);
        assert_eq!(out, [(2, 4)]);
        s.line(6, "y` b", true, &mut out);
        assert_eq!(out, [(0, 2)]);
    }

    #[test]
    fn html_comments_are_not_prose() {
        assert_eq!(
            spans("a.<!-- [1] --> b `c` <b> <!- d"),
            [vec!["<!-- [1] -->", "`c`"]]
        );
        // Across lines, even blank ones; one never closed is text.
        assert_eq!(
            spans("a <!-- x\n\n[1] -->.[2] <!-- y"),
            [vec!["<!-- x"], vec![""], vec!["[1] -->"]]
        );
        assert_eq!(spans("a <!-- x [1]\nb [2]"), [Vec::<&str>::new(), vec![]]);
    }

    #[test]
    fn very_long_runs_are_literal() {
        let run = "`".repeat(64);
        assert_eq!(
            spans(&format!("a {run}x\ny{run} b")),
            [Vec::<&str>::new(), vec![]]
        );
        assert_eq!(spans(&format!("a {run}x{run} b")), [Vec::<&str>::new()]);
    }

    #[test]
    fn positions_in_code() {
        let s = [(2, 5), (8, 9)];
        let inside: Vec<usize> = (0..10).filter(|&i| in_code(&s, i)).collect();
        assert_eq!(inside, [2, 3, 4, 8]);
        assert!(!in_code(&[], 0));
    }
}
