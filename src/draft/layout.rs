//! Numbered lines and fenced code: the draft as the other passes see it.
//!
//! Lines end at `\n` (a trailing `\r` is dropped), numbered from 1 as editors show them.
//! `sources.py` used `str.splitlines`, which also breaks at `\v`, `\f`, U+2028 and
//! friends; those are rare in drafts, and breaking there would make the line numbers we
//! report disagree with every editor.
//!
//! Fences follow CommonMark rather than `sources.py`'s "any fence line toggles": a fence
//! opens with three or more backticks or tildes (any indentation), and only a run of the
//! *same* character, at least as long, with nothing after it, closes it. So a `~~~` line
//! inside a ```` ``` ```` example stays code, as every markdown renderer shows it. A fence
//! left open runs to the end of the draft.

/// One line of the draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line's first character in the draft.
    pub start: usize,
    /// The line without its terminator.
    pub text: &'a str,
    /// A fence line or a line inside fenced code: never prose, never part of a block.
    pub code: bool,
}

impl Line<'_> {
    /// Whitespace only.
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Byte offset just past the line's text (before its terminator).
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// The draft's lines, with fenced code marked.
pub(crate) fn lines(draft: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let mut start = 0;
    for (index, raw) in draft.split('\n').enumerate() {
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        let code = match open {
            Some((ch, len)) => {
                if closes(text, ch, len) {
                    open = None;
                }
                true
            }
            None => match opens(text) {
                Some(fence) => {
                    open = Some(fence);
                    true
                }
                None => false,
            },
        };
        out.push(Line {
            number: index + 1,
            start,
            text,
            code,
        });
        start += raw.len() + 1;
    }
    // `split` yields one empty piece after a final newline; it is not a line.
    if draft.ends_with('\n') || draft.is_empty() {
        out.pop();
    }
    out
}

/// The fence character and length if `text` opens a fence.
fn opens(text: &str) -> Option<(char, usize)> {
    let t = text.trim_start();
    let ch = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = t.chars().take_while(|&c| c == ch).count();
    // A backtick "fence" whose info string holds a backtick is inline code
    // (```` ```x``` ````), as in CommonMark.
    (len >= 3 && !(ch == '`' && t[len..].contains('`'))).then_some((ch, len))
}

fn closes(text: &str, ch: char, len: usize) -> bool {
    let t = text.trim_start();
    let run = t.chars().take_while(|&c| c == ch).count();
    run >= len && t[run * ch.len_utf8()..].trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::lines;

    fn code_flags(draft: &str) -> Vec<bool> {
        lines(draft).iter().map(|l| l.code).collect()
    }

    #[test]
    fn numbers_lines_and_drops_carriage_returns() {
        let ls = lines("a\r\nb\n\nc");
        let texts: Vec<_> = ls.iter().map(|l| (l.number, l.text, l.start)).collect();
        assert_eq!(texts, [(1, "a", 0), (2, "b", 3), (3, "", 5), (4, "c", 6)]);
        assert_eq!(lines("a\n").len(), 1);
        assert!(lines("").is_empty());
    }

    #[test]
    fn backtick_and_tilde_fences_are_code() {
        assert_eq!(
            code_flags("p\n```rust\nx\n```\np\n~~~\ny\n~~~\np"),
            [false, true, true, true, false, true, true, true, false]
        );
    }

    #[test]
    fn only_the_same_fence_closes() {
        // A tilde line inside a backtick fence, and a shorter run, are content.
        assert_eq!(
            code_flags("````\n~~~\n```\n````\np"),
            [true, true, true, true, false]
        );
        // A line with an info string does not close.
        assert_eq!(code_flags("```\n```js\n```\np"), [true, true, true, false]);
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        assert_eq!(code_flags("p\n  ```\nx\ny"), [false, true, true, true]);
    }

    #[test]
    fn inline_triple_backticks_are_not_a_fence() {
        assert_eq!(code_flags("```x``` here\np"), [false, false]);
    }
}
