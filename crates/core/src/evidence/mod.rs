//! Quote matching: is a quote verbatim in the evidence text, where does it sit, and when
//! it is not there, what on the page comes closest.
//!
//! Pure functions, no store and no I/O. Matching follows `sources.py`: both sides are
//! reduced to a [`match_key`] (inline links count as their label, `* _ \` ~` and
//! backslash escapes before punctuation are dropped, whitespace runs collapse, case folds
//! as Python's `str.casefold()`), and the quote's key must occur in the evidence's key.
//! Beyond the reference, typographic variants fold to their plain forms (curly quotes,
//! dashes, the ellipsis, invisible characters: see [`key::Keying`]), and [`find`] reports
//! the match as a W3C TextQuoteSelector over the original evidence text, so a stored
//! quote can be located and re-checked in its snapshot. A quote not found whole that
//! leaves words out at an ellipsis is matched part by part (`elide.rs`).

mod clean;
mod elide;
mod fold;
mod key;
mod markup;
mod near;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_fold;

#[cfg(test)]
mod tests_elide;

#[cfg(test)]
mod realpages;

use key::{Keying, Origin, Resume, Sink};

/// Characters of context kept on each side of a match.
const CONTEXT: usize = 32;

/// Key bytes between the resume points kept while keying the evidence. Small under
/// test and fuzzing (`cargo fuzz` sets `--cfg fuzzing`), so that inputs of a few dozen
/// bytes already resume mid-text: at the real spacing only pages past 16 KiB would.
const RESUME_EVERY: usize = if cfg!(any(test, fuzzing)) {
    8
} else {
    16 * 1024
};

/// W3C TextQuoteSelector over the original evidence text (offsets in Unicode scalar
/// values, i.e. chars).
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[schemars(rename = "TextQuote")]
pub struct Selector {
    /// The evidence text from `start` to `end`, as it stands there (markdown included).
    pub exact: String,
    /// Up to 32 characters before `start`.
    pub prefix: String,
    /// Up to 32 characters after `end`.
    pub suffix: String,
    /// Char offset of the first original character that produced the match, or of the
    /// `[` of the link whose label it lies in.
    pub start: u64,
    /// Char offset just past the last original character that produced the match, or
    /// past the `)` of the link whose label it lies in.
    pub end: u64,
}

/// Why a quote was rejected. The messages are the CLI's, without `error: `.
///
/// Not `#[non_exhaustive]`: the spec closes the set of outcomes of a quote check, and
/// the refusals of an elided quote begin as its refusals do. (The passage to show beside
/// `NotFound`, or beside the part `PartNotFound` names, comes from [`closest`].)
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuoteError {
    #[error("quote too short — use at least 3 words of verbatim text")]
    TooShort,
    #[error(
        "quote not found verbatim in the evidence text — copy the exact wording from the fetched page, do not paraphrase"
    )]
    NotFound,
    /// A part of an elided quote is under [`elide::PART_WORDS`] words.
    #[error(
        "quote too short — each part of an elided quote needs at least {} words of verbatim text, and \"{text}\" has fewer",
        elide::PART_WORDS
    )]
    PartTooShort { text: String },
    /// Part `part` of `of` (from 1) of an elided quote is on no view of the page.
    #[error(
        "quote not found verbatim in the evidence text — part {part} of {of} of the elided quote, \"{text}\", is not on the page: copy the exact wording of each part from the fetched page, do not paraphrase"
    )]
    PartNotFound {
        part: usize,
        of: usize,
        text: String,
    },
    #[error(
        "quote not found verbatim in the evidence text — each part of the elided quote is on the page, but not in the quote's order: give the parts in the page's order"
    )]
    OutOfOrder,
    #[error(
        "quote not found verbatim in the evidence text — the parts of the elided quote are on the page in its order, but more than {} characters of the page lie between them: quote from one passage",
        elide::MAX_LEFT_OUT
    )]
    TooFarApart,
}

/// The normalized form both sides of a match are compared in: `sources.py`'s
/// `_match_key`, with typographic variants folded to their plain forms.
pub fn match_key(text: &str) -> String {
    key(text, Keying::Typographic)
}

/// Exactly `sources.py`'s `_match_key`.
#[cfg(test)]
fn reference_key(text: &str) -> String {
    key(text, Keying::Reference)
}

fn key(text: &str, keying: Keying) -> String {
    let mut key = String::with_capacity(text.len());
    key::normalize(text, Resume::START, keying, &mut key);
    key
}

/// Where the first occurrence of `quote`'s key sits in `evidence`; `None` when it does
/// not occur, or when the quote's key is empty. A quote not found whole that has parts
/// between ellipses (a stored elided quote, `part … part`) is found where its parts
/// are, as [`accept`] placed them: the selector spans them.
///
/// The reference key is tried first, the typographic one only when it finds nothing:
/// a quote that matched before typographic folding existed is found where it was found
/// then (its stored selector, which `audit` compares, stays right), even when a
/// typographic variant of it comes earlier on the page; and a quote typed with the page's
/// own characters lands on them.
pub fn find(quote: &str, evidence: &str) -> Option<Selector> {
    if let Some(found) = locate(quote, evidence) {
        return Some(found.selector);
    }
    let parts = elide::parts(quote);
    if parts.len() < 2 {
        return None;
    }
    let placed = elide::place(&parts, evidence).ok()?;
    Some(span(evidence, &placed.ranges))
}

/// The selector from the first range's start to the last one's end.
fn span(evidence: &str, ranges: &[(usize, usize)]) -> Selector {
    let start = ranges.first().map_or(0, |r| r.0);
    let end = ranges.last().map_or(0, |r| r.1);
    selector(evidence, start, end)
}

/// Where a quote sits, and in which view of the page it was found.
struct Found {
    selector: Selector,
    keying: Keying,
    /// Byte offsets of the selector in the evidence.
    start: usize,
    end: usize,
}

/// [`find`], with the keying that found the quote. Each keying is tried only when the
/// ones before it find nothing; the page keyings (issue 20) come last so that a quote
/// found before them is found where it was.
fn locate(quote: &str, evidence: &str) -> Option<Found> {
    KEYINGS
        .into_iter()
        .find_map(|keying| find_by(quote, evidence, keying))
}

/// The keyings [`locate`] tries, in order.
const KEYINGS: [Keying; 5] = [
    Keying::Reference,
    Keying::Typographic,
    Keying::Page,
    Keying::Seen,
    Keying::Marked,
];

/// How a quote is keyed to be looked for in `keying`'s key of a page: the second view is
/// a view of the page, and a quote's markers and tags are its own (a changed note
/// number is a changed digit). The third reads markers the same way on both sides, so
/// that the reader's `[1]` is the page's `[^1]`.
fn needle_keying(keying: Keying) -> Keying {
    if keying == Keying::Seen {
        Keying::Page
    } else {
        keying
    }
}

/// Whether `words` are looked for exactly as `quote` was, up to the keying that found
/// `quote`: then [`find`] finds them where it found it, with no pass over the page.
fn leads_back(words: &str, quote: &str, found_by: Keying) -> bool {
    let upto = KEYINGS
        .iter()
        .position(|&k| k == found_by)
        .map_or(0, |i| i + 1);
    KEYINGS[..upto].iter().all(|&k| {
        let k = needle_keying(k);
        key(words, k) == key(quote, k)
    })
}

fn find_by(quote: &str, evidence: &str, keying: Keying) -> Option<Found> {
    let needle = key(quote, needle_keying(keying));
    if needle.is_empty() {
        return None;
    }
    let keyed = Keyed::of(evidence, keying);
    let at = keyed.key.find(&needle)?;
    let (start, end) = keyed.original(evidence, at, at + needle.len())?;
    Some(Found {
        selector: selector(evidence, start, end),
        keying,
        start,
        end,
    })
}

/// An accepted quote: where it sits, and the page's own words there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// For an elided quote, from its first part's start to its last part's end.
    pub selector: Selector,
    /// The evidence text of the match as a reader sees it: links as their label,
    /// entities decoded, markup, note markers (when the quote was found only without
    /// them) and characters that show nothing removed, whitespace runs as one space.
    /// What the quote's own text had beyond that (a link target, a typed dash) is not
    /// in it. An elided quote's are the words of each part, joined by ` … `.
    pub words: String,
}

/// [`check`], with the page's words for the match.
///
/// A quote not on the page as a whole is read as an elided one: a leading or trailing
/// ellipsis only trims it, and one inside parts it. Each part must have
/// [`elide::PART_WORDS`] words or more, and the parts must be on the page in order within
/// one passage (see `elide.rs`).
pub fn accept(quote: &str, evidence: &str) -> Result<Accepted, QuoteError> {
    let quote = quote.trim();
    if quote_words(quote) < 3 {
        return Err(QuoteError::TooShort);
    }
    if let Some(found) = locate(quote, evidence) {
        return Ok(accepted(quote, evidence, found));
    }
    match elide::parts(quote).as_slice() {
        [] => Err(QuoteError::TooShort),
        [whole] if *whole == quote => Err(QuoteError::NotFound),
        [trimmed] if quote_words(trimmed) < 3 => Err(QuoteError::TooShort),
        [trimmed] => locate(trimmed, evidence)
            .map(|found| accepted(trimmed, evidence, found))
            .ok_or(QuoteError::NotFound),
        parts => elided(parts, evidence),
    }
}

/// How the page is read for the words of a match found in `keying`: as a page is,
/// whichever view found it, so that a quote copied with the page's blockquote marker or
/// entity still stores what a reader sees.
fn reading(keying: Keying) -> Keying {
    if keying.sees_through() {
        keying
    } else {
        Keying::Page
    }
}

/// An elided quote whose parts each have enough words: placed, and stored as the page's
/// words of each part joined by ` … `.
fn elided(parts: &[&str], evidence: &str) -> Result<Accepted, QuoteError> {
    if let Some(text) = elide::short_part(parts) {
        return Err(QuoteError::PartTooShort {
            text: text.to_string(),
        });
    }
    let placed = elide::place(parts, evidence)?;
    let reading = reading(placed.keying);
    let join = |each: &dyn Fn(usize, usize) -> String| {
        placed
            .ranges
            .iter()
            .map(|&(start, end)| each(start, end))
            .collect::<Vec<_>>()
            .join(ELISION)
    };
    let words = join(&|start, end| clean::words(evidence, start, end, reading));
    // Stored, the words must lead back to a place, for `audit`: the place they lead to
    // is the one recorded (the same words, in the same order and passage). Words that
    // would read otherwise (see `accept`) are the page's characters instead.
    let raw = join(&|start, end| evidence[start..end].to_string());
    [words, raw]
        .into_iter()
        .find_map(|words| {
            let selector = find(&words, evidence)?;
            Some(Accepted { selector, words })
        })
        .ok_or(QuoteError::NotFound)
}

/// Whether the stored quote `words`, at `selector`, is an elided one: parts between
/// ellipses, not found whole in the text its selector spans.
pub fn is_elided(words: &str, selector: &Selector) -> bool {
    elide::parts(words).len() > 1 && locate(words, &selector.exact).is_none()
}

/// What joins the parts of a stored elided quote.
pub const ELISION: &str = " … ";

/// The page's words for a quote found whole.
fn accepted(quote: &str, evidence: &str, found: Found) -> Accepted {
    let words = clean::words(evidence, found.start, found.end, reading(found.keying));
    // The words must lead back to the match, for `audit`. Cleaned text that reads
    // otherwise when read again (`&amp;amp;` is `&amp;` once decoded, `&` twice) is
    // stored as the page's own characters there instead.
    let words = if leads_back(&words, quote, found.keying)
        || find(&words, evidence).as_ref() == Some(&found.selector)
    {
        words
    } else {
        found.selector.exact.clone()
    };
    Accepted {
        selector: found.selector,
        words,
    }
}

/// Words of `quote` as the quote check counts them ([`crate::text::word_count`]) once
/// the markup matching ignores is gone: `* * * a` is one word, not four.
pub fn quote_words(quote: &str) -> usize {
    crate::text::word_count(&match_key(quote))
}

/// Checks a quote against the evidence as the `quote` command does: trimmed, at least 3
/// words ([`quote_words`]), and verbatim by [`match_key`].
pub fn check(quote: &str, evidence: &str) -> Result<Selector, QuoteError> {
    accept(quote, evidence).map(|accepted| accepted.selector)
}

/// A passage of the evidence text: what a refused quote comes closest to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passage {
    /// The evidence text from `start` to `end`, as it stands there (markdown included).
    pub text: String,
    /// The line of the evidence it starts on, from 1.
    pub line: u64,
    /// Char offset of its first character (as in [`Selector`]).
    pub start: u64,
    /// Char offset just past its last character.
    pub end: u64,
}

impl Passage {
    /// `closest on the page (line N): "TEXT"`, on one line, TEXT being the passage's
    /// words as a reader sees them (as a quote of them would be stored: no markdown, no
    /// `> ` marker to copy into a quote), and control characters U+FFFD, since the text
    /// is a web page's and goes to a terminal.
    pub fn hint(&self) -> String {
        let text: String = clean::words(&self.text, 0, self.text.len(), Keying::Page)
            .chars()
            .map(|c| {
                if crate::text::is_terminal_control(c) {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
        format!("closest on the page (line {}): \"{text}\"", self.line)
    }
}

/// The passage of `evidence` that comes closest to `quote`, for a writer whose quote was
/// refused to copy the exact words from; `None` when no passage shares at least half of
/// the quote's words (and two of them). See `near.rs` for what "closest" means and what
/// it costs.
pub fn closest(quote: &str, evidence: &str) -> Option<Passage> {
    // Read as a page is (links with titles, entities, markers), so that the passage
    // starts and ends on words a reader sees.
    let needle = key(quote, Keying::Page);
    let keyed = Keyed::of(evidence, Keying::Page);
    let (from, to) = near::closest(&needle, &keyed.key)?;
    let (start, end) = keyed.original(evidence, from, to)?;
    // A passage is about as long as the quote; one stretched by a huge link target or
    // markup is no help on a terminal.
    if end - start > MAX_PASSAGE.max(4 * quote.len()) {
        return None;
    }
    let at = selector(evidence, start, end);
    Some(Passage {
        text: at.exact,
        line: evidence[..start].bytes().filter(|&b| b == b'\n').count() as u64 + 1,
        start: at.start,
        end: at.end,
    })
}

/// The most bytes of evidence a [`Passage`] spans, unless the quote itself is longer
/// (see [`closest`]).
const MAX_PASSAGE: usize = 4096;

/// The selector for the original bytes `start..end` of `text` (char boundaries).
fn selector(text: &str, start: usize, end: usize) -> Selector {
    let before = &text[..start];
    let prefix_from = before
        .char_indices()
        .rev()
        .nth(CONTEXT - 1)
        .map_or(0, |(i, _)| i);
    let after = &text[end..];
    let suffix_to = after
        .char_indices()
        .nth(CONTEXT)
        .map_or(after.len(), |(i, _)| i);
    let exact = &text[start..end];
    let start_chars = before.chars().count();
    Selector {
        exact: exact.to_string(),
        prefix: before[prefix_from..].to_string(),
        suffix: after[..suffix_to].to_string(),
        start: start_chars as u64,
        end: (start_chars + exact.chars().count()) as u64,
    }
}

/// The evidence's key, with a resume point every [`RESUME_EVERY`] key bytes or so.
struct Keyed {
    keying: Keying,
    key: String,
    /// In increasing order of key length.
    resumes: Vec<Resume>,
}

impl Keyed {
    /// Keys all of `text`.
    fn of(text: &str, keying: Keying) -> Self {
        let mut keyed = Keyed {
            keying,
            key: String::with_capacity(text.len()),
            resumes: Vec::new(),
        };
        key::normalize(text, Resume::START, keying, &mut keyed);
        keyed
    }

    /// The last resume point at or before key byte `at`.
    fn resume_before(&self, at: usize) -> Resume {
        let n = self.resumes.partition_point(|r| r.key_len <= at);
        n.checked_sub(1).map_or(Resume::START, |i| self.resumes[i])
    }

    /// The original byte range of `text` (the text this was keyed from) that produced
    /// key bytes `first..end` (`first < end`).
    ///
    /// A second run of the same pass, from the last resume point before `first`, maps
    /// the range back and stops at its end. It spares a full map (4 bytes per key byte)
    /// at the cost of re-reading at most `RESUME_EVERY` key bytes before the range, plus
    /// the range.
    fn original(&self, text: &str, first: usize, end: usize) -> Option<(usize, usize)> {
        let from = self.resume_before(first);
        let mut locate = Locate::new(from.key_len, first, end.checked_sub(1)?);
        key::normalize(text, from, self.keying, &mut locate);
        locate.finish()
    }
}

impl Sink for Keyed {
    fn push(&mut self, piece: &str, _origin: Origin) -> bool {
        self.key.push_str(piece);
        true
    }
    fn push_ascii(&mut self, b: u8, _origin: Origin) -> bool {
        self.key.push(char::from(b));
        true
    }
    fn resume_point(&mut self, at: usize) {
        let last = self.resumes.last().map_or(0, |r| r.key_len);
        if self.key.len() - last >= RESUME_EVERY {
            self.resumes.push(Resume {
                at,
                key_len: self.key.len(),
            });
        }
    }
}

/// Maps a match (key bytes `first..=last`) back to original byte offsets, fed by a
/// second run of the normalizing pass.
///
/// A boundary that falls inside a link label widens to the whole `[label](target)`:
/// cutting there would leave a stray `[` or `](target)` in `exact`. So `exact` always
/// normalizes to a key that contains the quote's key, and equals it when the match
/// boundaries fall on label boundaries (and not inside a folded `ß`-like expansion).
struct Locate {
    /// Key bytes seen so far.
    seen: usize,
    first: usize,
    last: usize,
    start: Option<usize>,
    end: Option<usize>,
    /// Just past the source of the match's last key byte.
    last_end: Option<usize>,
}

impl Locate {
    fn new(seen: usize, first: usize, last: usize) -> Self {
        Locate {
            seen,
            first,
            last,
            start: None,
            end: None,
            last_end: None,
        }
    }

    fn advance(&mut self, len: usize, origin: Origin) -> bool {
        let upto = self.seen + len;
        if self.start.is_none() && self.first < upto {
            self.start = Some(origin.link.map_or(origin.at, |link| link.start));
        }
        self.seen = upto;
        if self.last < upto {
            match origin.link {
                Some(link) => self.end = Some(link.end),
                None => self.last_end = Some(origin.end),
            }
            return false;
        }
        true
    }

    /// The byte range of the match, once the pass is over.
    fn finish(self) -> Option<(usize, usize)> {
        Some((self.start?, self.end.or(self.last_end)?))
    }
}

impl Sink for Locate {
    fn push(&mut self, piece: &str, origin: Origin) -> bool {
        self.advance(piece.len(), origin)
    }
    fn push_ascii(&mut self, _b: u8, origin: Origin) -> bool {
        self.advance(1, origin)
    }
}
