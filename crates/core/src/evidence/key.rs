//! The match key: one streaming pass that normalizes text as `sources.py`'s `_match_key`
//! does (or, as [`Keying::Typographic`], that and typographic variants folded to their
//! plain forms), and tells its sink which original character produced each key
//! character.
//!
//! The reference runs two regexes, then `" ".join(s.split())`, then `casefold()`:
//!
//! ```text
//! _MD_LINK_RE  = \[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*\)    → the label
//! _MD_NOISE_RE = [*_`~]|\\(?=[^\w\s])                       → removed
//! ```
//!
//! Here the four stages run fused over one character stream, because offsets into the
//! original text are the point: running the regexes and re-aligning their output with
//! the input afterwards is where such mappings go wrong. Each stage sees exactly what the
//! reference's stage sees (the noise lookahead looks at the link-collapsed text, the
//! whitespace collapse at the de-noised text), so the key is the same string.

use std::borrow::Cow;

use icu_casemap::{CaseMapper, CaseMapperBorrowed};

use super::fold::{Nfc, narrow};
use super::markup::{self, is_space, reference_link_tail};

/// Which key a pass computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keying {
    /// Exactly `sources.py`'s `_match_key`. Every quote stored before issue 9 was found,
    /// and its selector computed, with this key alone.
    Reference,
    /// The reference key with typographic variants folded to what a writer types: curly
    /// and angle quotes to `'` and `"`, the ellipsis to `...`, dashes, minus and Unicode
    /// hyphens (and runs of them: `--` is a typed em dash) to one `-`, and characters that
    /// show nothing (soft hyphen, zero-width space and joiners, word joiner, BOM) dropped.
    /// Each is folded where the reference keeps a character, so a key the reference finds
    /// in a text, this one finds in its fold too.
    Typographic,
    /// The typographic key, plus what else changes no letter or digit a reader sees
    /// (issue 20): HTML entities decoded; links with titles, `<…>` destinations,
    /// reference-style links, images and autolinks read as their label; blockquote
    /// markers and list bullets at the start of a line dropped; straight quotes folded
    /// with the curly ones, and whitespace next to a dash or quotation mark ignored; NFC,
    /// full-width ASCII and the `ĳ` ligature (see `fold.rs`).
    Page,
    /// The second view of a page: the page keying with HTML tags seen through and
    /// `[n]`/`[^n]` note markers dropped. Tried after the page keying, as a tag-looking
    /// piece of text or a bracketed number is text a reader can see.
    Seen,
    /// The third view: the second, with each numbered note marker read as the reader
    /// types it, `[n]`, on both sides, whatever form it takes (`[^n]`, `[n]`, `¹`,
    /// `<sup>n</sup>`, a linked `[[n]](#…)`), and whitespace before a marker ignored. Tried
    /// last: a quote that keeps a marker the page writes another way (`1887[1]` for
    /// `1887[^1]`) is found here, and its number still has to be the page's.
    Marked,
}

impl Keying {
    /// Whether this keying reads the markup of `markup.rs` and folds as `fold.rs` does.
    pub fn reads_markup(self) -> bool {
        matches!(self, Keying::Page | Keying::Seen | Keying::Marked)
    }

    /// Whether this keying sees through HTML tags and reads note markers (the second
    /// and third views).
    pub fn sees_through(self) -> bool {
        matches!(self, Keying::Seen | Keying::Marked)
    }
}

/// The digit a superscript digit stands for (`¹` is `1`), if `c` is one.
pub(super) fn superscript_digit(c: char) -> Option<char> {
    Some(match c {
        '\u{2070}' => '0',
        '\u{B9}' => '1',
        '\u{B2}' => '2',
        '\u{B3}' => '3',
        '\u{2074}'..='\u{2079}' => char::from_u32(u32::from(c) - 0x2074 + u32::from('4'))?,
        _ => return None,
    })
}

/// What [`Keying::Typographic`] makes of a character the reference key would keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fold {
    /// Shows nothing: not in the key, like markdown noise.
    Drop,
    /// One `-`, however many dashes follow each other.
    Dash,
    /// This plain text.
    To(&'static str),
}

/// The typographic fold of `c`, if it has one. Primes count as the quotes they are
/// typed as (`5′ 11″`); the ellipsis becomes three dots rather than dots becoming an
/// ellipsis, so the fold needs no look-ahead.
fn fold(c: char) -> Option<Fold> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2039}' | '\u{203A}'
        | '\u{2032}' => Fold::To("'"),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{AB}' | '\u{BB}' | '\u{2033}' => {
            Fold::To("\"")
        }
        '\u{2026}' => Fold::To("..."),
        '-' | '\u{2010}'..='\u{2015}' | '\u{2212}' => Fold::Dash,
        '\u{AD}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => Fold::Drop,
        _ => return None,
    })
}

/// [`fold`] as the page keyings have it: straight quotes are quotation marks too (so
/// that space beside them is ignored), full-width ASCII is ASCII, `ĳ` is `ij`.
fn page_fold(c: char) -> Option<Fold> {
    match c {
        '\'' => Some(Fold::To("'")),
        '"' => Some(Fold::To("\"")),
        '\u{132}' | '\u{133}' => Some(Fold::To("ij")),
        '\u{FE58}' | '\u{FE63}' => Some(Fold::Dash),
        _ => fold(c),
    }
}

/// Whether the fold is one of those next to which whitespace is ignored.
fn is_tight(fold: Option<Fold>) -> bool {
    matches!(fold, Some(Fold::Dash | Fold::To("'" | "\"")))
}

/// Where a piece of the key comes from in the original text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Origin {
    /// Byte offset of the character that produced the piece.
    pub at: usize,
    /// Just past it: past a whole entity, or a whole combining sequence, where one of
    /// those produced it.
    pub end: usize,
    /// The whole `[label](target)` (byte range) when that character is in a label.
    pub link: Option<Link>,
}

/// Byte range of an inline link, from its `[` to just past its `)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Link {
    pub start: usize,
    pub end: usize,
}

/// Receives the key one piece at a time, each with its [`Origin`]. Returning `false`
/// stops the pass.
pub(super) trait Sink {
    fn push(&mut self, piece: &str, origin: Origin) -> bool;
    /// An ASCII character; split out so the common case costs no `&str` plumbing. The
    /// collapsed whitespace arrives here as `b' '`.
    fn push_ascii(&mut self, b: u8, origin: Origin) -> bool;
    /// The pass could restart at byte offset `at` of the text (see [`Resume`]) and go on
    /// exactly as it does from here. Offered after every non-space key character that
    /// does not come from a link label.
    fn resume_point(&mut self, _at: usize) {}
}

/// Where a pass starts: the beginning of the text, or a point offered to an earlier pass
/// by [`Sink::resume_point`], with the length of the key up to it. At such a point the
/// pass is outside any link, holds no pending whitespace, and looks back at nothing (the
/// backslash rule only looks ahead), so restarting there reproduces the rest of the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Resume {
    pub at: usize,
    pub key_len: usize,
}

impl Resume {
    pub const START: Resume = Resume { at: 0, key_len: 0 };
}

/// Collects the key alone.
impl Sink for String {
    fn push(&mut self, piece: &str, _origin: Origin) -> bool {
        self.push_str(piece);
        true
    }
    fn push_ascii(&mut self, b: u8, _origin: Origin) -> bool {
        String::push(self, char::from(b));
        true
    }
}

/// Python's `\w` for `str` patterns: `_` or `str.isalnum()`. Rust's `is_alphanumeric`
/// is the closest std offers; it differs only on characters that are Alphabetic without
/// being letters (mostly combining marks, e.g. U+0345, Devanagari vowel signs), which
/// matters only for a backslash directly before such a mark.
fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python `re` character `\\` then a lookahead `[^\w\s]`: does a backslash followed by
/// `next` (in the link-collapsed text) count as an escape to drop?
fn escapes(next: Option<char>) -> bool {
    // `_` is a word character to Python's `\w`, so `sources.py` kept the backslash of a
    // markdown-escaped underscore (`snake\_case` keyed as `snake\case`) and refused the
    // quote `snake_case` a reader sees. SPEC says escapes before punctuation are
    // ignored; `_` is punctuation to markdown, so its backslash goes too.
    next.is_some_and(|n| n == '_' || (!is_word(n) && !is_space(n)))
}

/// The ranges holding every character whose full case folding is not its simple one
/// (U+00DF ß, U+0130 İ, U+0149, U+01F0, U+0390, U+03B0, U+0587, U+1E96–U+1E9E, Greek
/// extended, the Latin and Armenian ligatures at U+FB00–U+FB17, and the Latin additions at
/// U+1DF00–U+1DFFF), kept a little wider than needed.
pub(super) fn folds_to_string(c: char) -> bool {
    matches!(
        u32::from(c),
        0xDF | 0x130
            | 0x149
            | 0x1F0
            | 0x390
            | 0x3B0
            | 0x587
            | 0x1E96..=0x1E9E
            | 0x1F50..=0x1FFF
            | 0xFB00..=0xFB17
            | 0x1DF00..=0x1DFFF
    )
}

/// Runs the normalization over `text` from `from`, feeding `sink` the key `keying` names.
pub(super) fn normalize<S: Sink>(text: &str, from: Resume, keying: Keying, sink: &mut S) {
    let mut chars = Collapsed::new(text, from.at, keying);
    let mut state = State::new(keying, from.key_len > 0);
    let nfc = keying.reads_markup().then(Nfc::new);
    let mut next = chars.next();
    while let Some((c, origin)) = next {
        next = chars.next();
        let go_on = match &nfc {
            // A character and the marks that join it are one NFC unit, folded as one.
            Some(nfc) if next.is_some_and(|(n, _)| nfc.joins(n)) => {
                let mut unit = String::from(c);
                let mut end = origin.end;
                while let Some((n, o)) = next
                    && nfc.joins(n)
                {
                    unit.push(n);
                    end = o.end;
                    next = chars.next();
                }
                let origin = Origin { end, ..origin };
                let after = next.map(|(n, _)| n);
                nfc.compose(&unit)
                    .chars()
                    .all(|c| state.push(c, origin, after, sink))
            }
            _ => state.push(c, origin, next.map(|(n, _)| n), sink),
        };
        if !go_on {
            return;
        }
    }
}

/// What a pass remembers between characters.
struct State {
    keying: Keying,
    folder: CaseMapperBorrowed<'static>,
    /// The first whitespace character of a pending run, once something precedes it.
    space: Option<Origin>,
    /// Something is in the key.
    started: bool,
    /// The last key character was a folded dash (typographic keys only).
    dash: bool,
    /// The last key character was a dash or a quotation mark: whitespace after it is
    /// ignored (page keyings only).
    tight: bool,
    /// Inside a run of superscript digits read as a marker, whose `]` is still to come
    /// (the marker keying only).
    superscript: bool,
}

impl State {
    fn new(keying: Keying, started: bool) -> Self {
        State {
            keying,
            folder: CaseMapper::new(),
            space: None,
            started,
            dash: false,
            tight: false,
            superscript: false,
        }
    }

    /// Adds `c` (from `origin`, followed by `next`) to the key; `false` when the sink
    /// wants no more.
    fn push<S: Sink>(&mut self, c: char, origin: Origin, next: Option<char>, sink: &mut S) -> bool {
        let page = self.keying.reads_markup();
        let c = if page { narrow(c) } else { c };
        match c {
            '*' | '_' | '`' | '~' => return true,
            '\\' if escapes(next) => return true,
            // A hard line break (`\` at the end of a line) is the line break.
            '\\' if page && matches!(next, Some('\n' | '\r')) => return true,
            _ if is_space(c) => {
                if self.started && self.space.is_none() && !self.tight {
                    self.space = Some(origin);
                }
                return true;
            }
            _ => {}
        }
        if self.keying == Keying::Marked
            && let Some(marker) = self.marker(c, origin, next, sink)
        {
            return marker;
        }
        let folded = match self.keying {
            Keying::Reference => None,
            Keying::Typographic => fold(c),
            Keying::Page | Keying::Seen | Keying::Marked => page_fold(c),
        };
        let tight = page && is_tight(folded);
        if tight {
            self.space = None;
        }
        match folded {
            Some(Fold::Drop) => return true,
            Some(Fold::Dash) if self.dash && self.space.is_none() => return true,
            _ => {}
        }
        if let Some(origin) = self.space.take()
            && !sink.push_ascii(b' ', origin)
        {
            return false;
        }
        self.started = true;
        self.dash = folded == Some(Fold::Dash);
        self.tight = tight;
        let mut buf = [0u8; 4];
        let go_on = match folded {
            Some(Fold::To(plain)) => sink.push(plain, origin),
            // (A dropped character never gets here.)
            Some(Fold::Dash | Fold::Drop) => sink.push_ascii(b'-', origin),
            None if c.is_ascii() => sink.push_ascii((c as u8).to_ascii_lowercase(), origin),
            // Full case folding, as `str.casefold()`: ß → ss, ﬁ → fi. It is context-free,
            // so folding character by character equals folding the string.
            None if folds_to_string(c) => match self.folder.fold_string(c.encode_utf8(&mut buf)) {
                Cow::Borrowed(s) => sink.push(s, origin),
                Cow::Owned(s) => sink.push(&s, origin),
            },
            // Everywhere else full folding is simple folding (ς → σ), a table lookup with
            // no allocation; `simple_fold_agrees_outside_the_expanding_ranges` checks it.
            None => sink.push(self.folder.simple_fold(c).encode_utf8(&mut buf), origin),
        };
        // After a dash or a quotation mark, a restart would not know what came before;
        // after one of several characters an entity or an NFC unit yields, a restart
        // would skip the others.
        let whole = origin.end - origin.at == c.len_utf8();
        if go_on && origin.link.is_none() && !self.dash && !self.tight && whole {
            sink.resume_point(origin.end);
        }
        go_on
    }

    /// A note marker of the marker keying: a superscript digit, as part of `[n]`, or the
    /// `[` a marker starts with (the reader's form, or the one the reading of the page
    /// gives its markers). Whitespace before either is not in the key. `None` when `c`
    /// is neither.
    fn marker<S: Sink>(
        &mut self,
        c: char,
        origin: Origin,
        next: Option<char>,
        sink: &mut S,
    ) -> Option<bool> {
        let digit = superscript_digit(c);
        if digit.is_none() && c != '[' {
            return None;
        }
        if !self.superscript {
            self.space = None;
        }
        self.started = true;
        self.dash = false;
        self.tight = false;
        let Some(digit) = digit else {
            return Some(sink.push_ascii(b'[', origin));
        };
        let mut piece = String::with_capacity(3);
        if !std::mem::replace(&mut self.superscript, true) {
            piece.push('[');
        }
        piece.push(digit);
        // The run goes on: no `]` yet, and no restart here, which would open another.
        if next.and_then(superscript_digit).is_some() {
            return Some(sink.push(&piece, origin));
        }
        piece.push(']');
        self.superscript = false;
        let go_on = sink.push(&piece, origin);
        if go_on && origin.link.is_none() && origin.end - origin.at == c.len_utf8() {
            sink.resume_point(origin.end);
        }
        Some(go_on)
    }
}

/// The text with every inline link `[label](target)` replaced by its label, as
/// `_MD_LINK_RE.sub(r"\1", text)`: characters with their [`Origin`] in `text`.
///
/// The regex is deterministic, so no backtracking is needed: the label runs to the first
/// `]`, which must be followed by `(`; the target is a run of characters that are neither
/// whitespace nor parentheses, or balanced one-level `(…)` groups (which may hold
/// whitespace), ended by `)`. Where no link starts at a `[`, the `[` stays and scanning
/// resumes at the next character, as `re.sub` does; the label of a link that did match
/// is not scanned again.
struct Collapsed<'a> {
    text: &'a str,
    pos: usize,
    keying: Keying,
    /// While inside a label: where it ends (its `]`, or an autolink's `>`), and the whole
    /// link.
    label: Option<(usize, Link)>,
    /// Memo of the last search for a `]`: (searched from, first `]` found there). Every
    /// `[` before one `]` shares it, so a page of unclosed `[` stays linear.
    close: Option<(usize, Option<usize>)>,
    /// Memo of the last link tail checked: (its `]`, the end of the link if it is one).
    tail: Option<(usize, Option<usize>)>,
    /// At the start of a line, where blockquote markers and bullets are looked for (page
    /// keyings only).
    line_start: bool,
    /// See [`markup::CommentMemo`].
    comment: markup::CommentMemo,
    /// The rest of a decoded entity, last character first, and where the entity sits.
    decoded: Vec<char>,
    entity: Origin,
}

impl<'a> Collapsed<'a> {
    fn new(text: &'a str, pos: usize, keying: Keying) -> Self {
        Collapsed {
            text,
            pos,
            keying,
            label: None,
            close: None,
            tail: None,
            line_start: keying.reads_markup()
                && (pos == 0 || text.as_bytes().get(pos - 1) == Some(&b'\n')),
            comment: None,
            decoded: Vec::new(),
            entity: Origin {
                at: 0,
                end: 0,
                link: None,
            },
        }
    }

    /// The first `]` at or after `from`.
    fn close_from(&mut self, from: usize) -> Option<usize> {
        if let Some((searched, found)) = self.close
            && searched <= from
            && found.is_none_or(|f| f >= from)
        {
            return found;
        }
        let found = self.text.as_bytes()[from..]
            .iter()
            .position(|&b| b == b']')
            .map(|i| from + i);
        self.close = Some((from, found));
        found
    }

    /// If `](target)` starts at `close`, the byte offset just past its `)`.
    fn tail_at(&mut self, close: usize) -> Option<usize> {
        if let Some((at, end)) = self.tail
            && at == close
        {
            return end;
        }
        let mut end = reference_link_tail(self.text, close);
        if end.is_none() && self.keying.reads_markup() {
            end = markup::link_tail(self.text, close);
        }
        self.tail = Some((close, end));
        end
    }
}

impl Collapsed<'_> {
    /// The end of a link starting at `at` (a `[`), if one does.
    fn link_at(&mut self, at: usize) -> Option<usize> {
        if self.label.is_some() {
            return None;
        }
        let close = self.close_from(at + 1)?;
        let end = self.tail_at(close)?;
        // `[3][4]` is two note markers, not a reference-style link.
        if self.keying.reads_markup()
            && markup::note(self.text, at).is_some()
            && self.text.as_bytes().get(close + 1) != Some(&b'(')
        {
            return None;
        }
        Some(end)
    }

    /// A note marker at `at` (a `[` or a `<`), for the marker keying: where it ends, and
    /// its number when it has one. A plain `[n]` is one too, so that whitespace before it
    /// goes as before any other marker.
    fn marker_at(&mut self, at: usize, b: u8) -> Option<(usize, Option<String>)> {
        let text = self.text;
        let end = match b {
            b'[' => markup::note_link(text, at).or_else(|| {
                self.link_at(at)
                    .is_none()
                    .then(|| markup::note(text, at))
                    .flatten()
            })?,
            b'<' => return markup::sup_marker(text, at).map(|(end, n)| (end, Some(n))),
            _ => return None,
        };
        Some((end, markup::note_number(&text[at..end]).map(str::to_string)))
    }

    /// Markup of the page keyings at `at` that yields nothing, or a single space: where
    /// it ends, and the space with its origin if it parts words.
    fn skip_markup(&mut self, at: usize, b: u8) -> Option<(usize, Option<(char, Origin)>)> {
        let text = self.text;
        let link = self.label.map(|(_, link)| link);
        if self.line_start
            && link.is_none()
            && let Some(end) = markup::block_marker(text, at)
        {
            return Some((end, None));
        }
        let seen = self.keying.sees_through();
        match b {
            b'!' if text.as_bytes().get(at + 1) == Some(&b'[')
                && self.link_at(at + 1).is_some() =>
            {
                Some((at + 1, None))
            }
            b'<' if seen && link.is_none() && markup::autolink(text, at).is_none() => {
                let (end, parts) = markup::tag(text, at, &mut self.comment)?;
                Some((end, parts.then_some((' ', Origin { at, end, link }))))
            }
            b'[' if seen
                && link.is_none()
                && let Some(end) = markup::note_link(text, at) =>
            {
                Some((end, None))
            }
            b'[' if seen && self.link_at(at).is_none() => Some((markup::note(text, at)?, None)),
            _ => None,
        }
    }
}

impl Iterator for Collapsed<'_> {
    type Item = (char, Origin);

    fn next(&mut self) -> Option<(char, Origin)> {
        if let Some(c) = self.decoded.pop() {
            return Some((c, self.entity));
        }
        loop {
            if let Some((label_end, link)) = self.label
                && self.pos == label_end
            {
                self.pos = link.end;
                self.label = None;
            }
            let at = self.pos;
            let b = *self.text.as_bytes().get(at)?;
            if self.keying == Keying::Marked
                && self.label.is_none()
                && let Some((end, number)) = self.marker_at(at, b)
            {
                self.pos = end;
                self.line_start = false;
                // A marker without a number (`[^note]`) is shown as one the reader cannot
                // know: it goes, as in the second view.
                let Some(number) = number else { continue };
                self.entity = Origin {
                    at,
                    end,
                    link: None,
                };
                self.decoded = format!("[{number}]").chars().rev().collect();
                return self.decoded.pop().map(|c| (c, self.entity));
            }
            if self.keying.reads_markup() {
                if let Some((end, yielded)) = self.skip_markup(at, b) {
                    self.pos = end;
                    if yielded.is_some() {
                        self.line_start = false;
                        return yielded;
                    }
                    continue;
                }
                self.line_start = false;
                let link = self.label.map(|(_, link)| link);
                if b == b'&'
                    && let Some((end, decoded)) = markup::entity(self.text, at)
                {
                    self.pos = end;
                    self.entity = Origin { at, end, link };
                    self.decoded = decoded.chars().rev().collect();
                    if let Some(c) = self.decoded.pop() {
                        return Some((c, self.entity));
                    }
                    continue;
                }
                if b == b'<'
                    && link.is_none()
                    && let Some(close) = markup::autolink(self.text, at)
                {
                    self.label = Some((
                        close,
                        Link {
                            start: at,
                            end: close + 1,
                        },
                    ));
                    self.pos = at + 1;
                    continue;
                }
            }
            let c = if b.is_ascii() {
                char::from(b)
            } else {
                self.text[at..].chars().next()?
            };
            if c == '['
                && let Some(end) = self.link_at(at)
                && let Some(close) = self.close_from(at + 1)
            {
                // Yield the label's characters (none if it is empty), then skip the tail.
                self.label = Some((close, Link { start: at, end }));
                self.pos = at + 1;
                continue;
            }
            self.pos = at + c.len_utf8();
            self.line_start = c == '\n' && self.keying.reads_markup();
            let link = self.label.map(|(_, link)| link);
            let end = self.pos;
            return Some((c, Origin { at, end, link }));
        }
    }
}

/// The characters of `text` from byte `from` as `keying` reads them: links as their
/// label, and in the page keyings entities decoded and markup skipped (a tag that parts
/// words as one space). Nothing is folded.
pub(super) fn read(
    text: &str,
    from: usize,
    keying: Keying,
) -> impl Iterator<Item = (char, Origin)> {
    Collapsed::new(text, from, keying)
}

/// Whether `c` shows nothing (a soft hyphen, a zero-width character).
pub(super) fn is_invisible(c: char) -> bool {
    fold(c) == Some(Fold::Drop)
}
