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

use icu_casemap::CaseMapper;

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

/// Where a piece of the key comes from in the original text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Origin {
    /// Byte offset of the character that produced the piece.
    pub at: usize,
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

/// Python's `str.isspace()`, which is what both `\s` and `str.split()` use: Unicode
/// White_Space plus the four ASCII information separators U+001C–U+001F.
pub(super) fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, ' ' | '\t'..='\r' | '\x1c'..='\x1f')
    } else {
        c.is_whitespace()
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
    let folder = CaseMapper::new();
    let mut chars = Collapsed::new(text, from.at);
    let mut next = chars.next();
    // The first whitespace character of a pending run, once something precedes it.
    let mut space: Option<Origin> = None;
    let mut started = from.key_len > 0;
    // The last key character was a folded dash (typographic key only).
    let mut dash = false;
    let mut buf = [0u8; 4];
    while let Some((c, origin)) = next {
        next = chars.next();
        match c {
            '*' | '_' | '`' | '~' => continue,
            '\\' if escapes(next.map(|(n, _)| n)) => continue,
            _ if is_space(c) => {
                if started && space.is_none() {
                    space = Some(origin);
                }
                continue;
            }
            _ => {}
        }
        let folded = match keying {
            Keying::Reference => None,
            Keying::Typographic => fold(c),
        };
        match folded {
            Some(Fold::Drop) => continue,
            Some(Fold::Dash) if dash && space.is_none() => continue,
            _ => {}
        }
        if let Some(origin) = space.take()
            && !sink.push_ascii(b' ', origin)
        {
            return;
        }
        started = true;
        dash = folded == Some(Fold::Dash);
        let go_on = match folded {
            Some(Fold::To(plain)) => sink.push(plain, origin),
            // (A dropped character never gets here.)
            Some(Fold::Dash | Fold::Drop) => sink.push_ascii(b'-', origin),
            None if c.is_ascii() => sink.push_ascii((c as u8).to_ascii_lowercase(), origin),
            // Full case folding, as `str.casefold()`: ß → ss, ﬁ → fi. It is context-free,
            // so folding character by character equals folding the string.
            None if folds_to_string(c) => match folder.fold_string(c.encode_utf8(&mut buf)) {
                Cow::Borrowed(s) => sink.push(s, origin),
                Cow::Owned(s) => sink.push(&s, origin),
            },
            // Everywhere else full folding is simple folding (ς → σ), a table lookup with
            // no allocation; `simple_fold_agrees_outside_the_expanding_ranges` checks it.
            None => sink.push(folder.simple_fold(c).encode_utf8(&mut buf), origin),
        };
        if !go_on {
            return;
        }
        // After a dash, a restart would not know that a dash came before.
        if origin.link.is_none() && !dash {
            sink.resume_point(origin.at + c.len_utf8());
        }
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
    /// While inside a label: where it ends (its `]`), and the whole link.
    label: Option<(usize, Link)>,
    /// Memo of the last search for a `]`: (searched from, first `]` found there). Every
    /// `[` before one `]` shares it, so a page of unclosed `[` stays linear.
    close: Option<(usize, Option<usize>)>,
    /// Memo of the last link tail checked: (its `]`, the end of the link if it is one).
    tail: Option<(usize, Option<usize>)>,
}

impl<'a> Collapsed<'a> {
    fn new(text: &'a str, pos: usize) -> Self {
        Collapsed {
            text,
            pos,
            label: None,
            close: None,
            tail: None,
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
        let end = link_tail(self.text, close);
        self.tail = Some((close, end));
        end
    }
}

/// Matches `\]\((?:[^()\s]|\([^()]*\))*\)` at `close`, returning where it ends.
fn link_tail(text: &str, close: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut pos = close + 2;
    loop {
        let c = text[pos..].chars().next()?;
        match c {
            ')' => return Some(pos + 1),
            '(' => {
                let inner = bytes[pos + 1..]
                    .iter()
                    .position(|&b| b == b'(' || b == b')')?;
                let at = pos + 1 + inner;
                if bytes[at] != b')' {
                    return None;
                }
                pos = at + 1;
            }
            _ if is_space(c) => return None,
            _ => pos += c.len_utf8(),
        }
    }
}

impl Iterator for Collapsed<'_> {
    type Item = (char, Origin);

    fn next(&mut self) -> Option<(char, Origin)> {
        loop {
            if let Some((label_end, link)) = self.label
                && self.pos == label_end
            {
                self.pos = link.end;
                self.label = None;
            }
            let at = self.pos;
            let b = *self.text.as_bytes().get(at)?;
            let c = if b.is_ascii() {
                char::from(b)
            } else {
                self.text[at..].chars().next()?
            };
            if c == '['
                && self.label.is_none()
                && let Some(close) = self.close_from(at + 1)
                && let Some(end) = self.tail_at(close)
            {
                // Yield the label's characters (none if it is empty), then skip the tail.
                self.label = Some((close, Link { start: at, end }));
                self.pos = at + 1;
                continue;
            }
            self.pos = at + c.len_utf8();
            let link = self.label.map(|(_, link)| link);
            return Some((c, Origin { at, link }));
        }
    }
}
