//! Numbered lines and fenced code: the draft as the other passes see it.
//!
//! Lines end at `\n` (trailing `\r`s are dropped), numbered from 1 as editors show them.
//! All of them, not one: a body cut at a line's end must not end in a `\r` that the
//! next read takes for half a `\r\n`, or `render --replace-in` would not be idempotent.
//! `sources.py` used `str.splitlines`, which also breaks at `\v`, `\f`, U+2028 and
//! friends; those are rare in drafts, and breaking there would make the line numbers we
//! report disagree with every editor.
//!
//! Fences follow CommonMark rather than `sources.py`'s "any fence line toggles": a fence
//! opens with three or more backticks or tildes (any indentation), and only a run of the
//! *same* character, at least as long, with nothing after it, closes it. So a `~~~` line
//! inside a ```` ``` ```` example stays code, as every markdown renderer shows it. A fence
//! left open runs to the end of the draft, and [`Lines::open_fence`] names it: a block
//! appended after it would be code, so `verify` warns and `render --replace-in` refuses.

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

/// A code fence: the line that opens it, and the run that opens it (``` ```` ``` or
/// `~~~`), which a line of the same run closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Fence {
    /// 1-based line number of the opening line.
    pub line: usize,
    pub ch: char,
    pub len: usize,
}

impl Fence {
    /// The run of fence characters that closes it.
    pub fn closer(&self) -> String {
        self.ch.to_string().repeat(self.len)
    }
}

/// The draft's lines in order, with fenced code marked. An iterator, so a large draft
/// is never held as a list of lines.
pub(crate) fn lines(draft: &str) -> Lines<'_> {
    Lines {
        pieces: body(draft).map(|b| b.split('\n')),
        number: 0,
        start: 0,
        open: None,
    }
}

/// A line's text: the piece of the draft between two `\n`s without its trailing `\r`s
/// (see the module docs). Every pass that splits the draft itself goes through this, so
/// all of them agree on where a line's text ends.
pub(crate) fn text_of(raw: &str) -> &str {
    raw.trim_end_matches('\r')
}

/// The draft's lines from the last to the first, as (byte offset, text): the same lines
/// as [`lines`], without the fence marks, which only a forward pass can tell.
pub(crate) fn lines_backwards(draft: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = body(draft);
    let mut end = text.map_or(0, str::len);
    text.into_iter()
        .flat_map(|t| t.rsplit('\n'))
        .map(move |raw| {
            let start = end - raw.len();
            // The piece before this one ends at the newline before `start`.
            end = start.saturating_sub(1);
            (start, text_of(raw))
        })
}

/// The text that holds the lines: `None` for an empty draft, which has none; a final
/// newline ends the last line rather than starting an empty one.
fn body(draft: &str) -> Option<&str> {
    (!draft.is_empty()).then(|| draft.strip_suffix('\n').unwrap_or(draft))
}

/// The iterator of [`lines`].
pub(crate) struct Lines<'a> {
    pieces: Option<std::str::Split<'a, char>>,
    number: usize,
    start: usize,
    /// The fence that is open.
    open: Option<Fence>,
}

impl Lines<'_> {
    /// The fence still open after the lines read so far.
    pub(crate) fn open_fence(&self) -> Option<Fence> {
        self.open
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let raw = self.pieces.as_mut()?.next()?;
        let text = text_of(raw);
        self.number += 1;
        let code = match self.open {
            Some(fence) => {
                if closes(text, fence.ch, fence.len) {
                    self.open = None;
                }
                true
            }
            None => match opens(text) {
                Some((ch, len)) => {
                    self.open = Some(Fence {
                        line: self.number,
                        ch,
                        len,
                    });
                    true
                }
                None => false,
            },
        };
        let line = Line {
            number: self.number,
            start: self.start,
            text,
            code,
        };
        self.start += raw.len() + 1;
        Some(line)
    }
}

/// The fence character and length if `text` opens a fence.
pub(crate) fn opens(text: &str) -> Option<(char, usize)> {
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
    use super::{Fence, lines, lines_backwards};

    fn code_flags(draft: &str) -> Vec<bool> {
        lines(draft).map(|l| l.code).collect()
    }

    #[test]
    fn numbers_lines_and_drops_carriage_returns() {
        let texts: Vec<_> = lines("a\r\nb\n\nc")
            .map(|l| (l.number, l.text, l.start))
            .collect();
        assert_eq!(texts, [(1, "a", 0), (2, "b", 3), (3, "", 5), (4, "c", 6)]);
        assert_eq!(lines("a\n").count(), 1);
        assert_eq!(lines("\n").count(), 1);
        assert_eq!(lines("").count(), 0);
    }

    #[test]
    fn backwards_gives_the_same_lines() {
        for draft in [
            "a\r\nb\n\nc",
            "a\n",
            "\n",
            "",
            "\n\nx\r\n",
            "é\n\r\n",
            "a\r\r\nb\r",
        ] {
            let mut back: Vec<_> = lines_backwards(draft).collect();
            back.reverse();
            let forward: Vec<_> = lines(draft).map(|l| (l.start, l.text)).collect();
            assert_eq!(back, forward, "{draft:?}");
        }
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

    /// The fence left open at the end of `draft`.
    fn unclosed_fence(draft: &str) -> Option<Fence> {
        let mut all = lines(draft);
        all.by_ref().for_each(drop);
        all.open_fence()
    }

    #[test]
    fn the_fence_left_open_is_named() {
        let open = |d| unclosed_fence(d).map(|f| (f.line, f.closer()));
        assert_eq!(open("p\n```\nx\n```\n~~~~\ny\n"), Some((5, "~~~~".into())));
        assert_eq!(open("p\n```\nx\n```\n"), None);
        assert_eq!(open("```\n~~~\n"), Some((1, "```".into())));
        assert_eq!(open(""), None);
    }

    #[test]
    fn inline_triple_backticks_are_not_a_fence() {
        assert_eq!(code_flags("```x``` here\np"), [false, false]);
    }
}
