//! Elided quotes: a quote that leaves words of the page out where it shows an ellipsis
//! (`…`, `...`, `. . .`, `[…]`, `[...]`, `(…)`) is on the page when each of its parts
//! is, in the quote's order, within one passage: at most [`MAX_LEFT_OUT`] characters of
//! the page left out between them, all gaps together.
//!
//! A part is matched as a whole quote is (every view of [`super::KEYINGS`]), all parts
//! in the same view. For each place the first part sits, in page order, every later part
//! is taken at its first place after the one before it: the nearest choice leaves the
//! most room for the rest, so the first place that fits is the first of all. Each part's
//! places are found once, and the pointers into them only move forward (the chosen
//! places grow with the first part's), so a page is read once per part and view, however
//! often the first part recurs.

use super::key::Keying;
use super::{KEYINGS, Keyed, QuoteError, needle_keying, quote_words};

/// The most characters of the page a quote may leave out, all its ellipses together:
/// about 150 words, a long paragraph or two short ones. Measured as a reader reads the
/// page (links as their label, markup and markers gone, whitespace runs as one).
pub const MAX_LEFT_OUT: usize = 1000;

/// The fewest words of each part of an elided quote: a single word is found in too many
/// places to say where the quote is.
pub const PART_WORDS: usize = 2;

/// The byte ranges of the ellipses in `quote`, in order, brackets included.
fn ellipses(quote: &str) -> Vec<(usize, usize)> {
    let bytes = quote.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let (at, end) = match ellipsis_at(quote, i) {
            Some(end) => (i, end),
            None => {
                // `[…]` and `(...)`: the bracket goes with the ellipsis.
                let open = matches!(bytes[i], b'[' | b'(');
                let inner = open.then(|| ellipsis_at(quote, skip_blank(quote, i + 1)));
                match inner.flatten() {
                    Some(end) => {
                        let end = skip_blank(quote, end);
                        let shut = if bytes[i] == b'[' { b']' } else { b')' };
                        if bytes.get(end) == Some(&shut) {
                            (i, end + 1)
                        } else {
                            i += 1;
                            continue;
                        }
                    }
                    None => {
                        i += quote[i..].chars().next().map_or(1, char::len_utf8);
                        continue;
                    }
                }
            }
        };
        out.push((at, end));
        i = end;
    }
    out
}

/// Past any spaces and tabs from `at`.
fn skip_blank(text: &str, mut at: usize) -> usize {
    while matches!(text.as_bytes().get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

/// An ellipsis starting at byte `at`: `…`, three dots or more, or three dots spaced
/// (`. . .`); where it ends.
fn ellipsis_at(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    if rest.starts_with('…') {
        return Some(at + '…'.len_utf8());
    }
    let dots = rest.bytes().take_while(|&b| b == b'.').count();
    if dots >= 3 {
        return Some(at + dots);
    }
    rest.starts_with(". . .").then_some(at + 5)
}

/// The parts of `quote` between its ellipses, each trimmed of whitespace, and where an
/// ellipsis is beside it, of the `,` `;` `:` a writer puts there; a leading or trailing
/// ellipsis only trims the quote, and a "part" without a letter or digit (the quotation
/// marks of `"…words…"`) is none. One part for a quote with no ellipsis inside.
pub(super) fn parts(quote: &str) -> Vec<&str> {
    let beside = |c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':');
    let cuts = ellipses(quote);
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for (i, &(at, end)) in cuts.iter().chain(&[(quote.len(), quote.len())]).enumerate() {
        let mut part = &quote[from..at];
        part = if i > 0 {
            part.trim_start_matches(beside)
        } else {
            part.trim_start()
        };
        part = if i < cuts.len() {
            part.trim_end_matches(beside)
        } else {
            part.trim_end()
        };
        // Quotation marks around an elided quote are a part with no words: no part.
        if part.chars().any(char::is_alphanumeric) {
            out.push(part);
        }
        from = end;
    }
    out
}

/// Where each part sits: byte ranges of the page, in order.
pub(super) struct Placed {
    pub keying: Keying,
    pub ranges: Vec<(usize, usize)>,
}

/// Why the parts were not placed, for the refusal to name.
#[derive(Default)]
struct Seen {
    /// Per part: found somewhere on the page, in some view.
    anywhere: Vec<bool>,
    /// All parts in order, somewhere, gaps aside.
    in_order: bool,
}

/// Places `parts` on the page, in order and within [`MAX_LEFT_OUT`]; or says why not:
/// the first part on no view of the page, parts out of order, or too far apart.
pub(super) fn place(parts: &[&str], evidence: &str) -> Result<Placed, QuoteError> {
    let mut seen = Seen {
        anywhere: vec![false; parts.len()],
        in_order: false,
    };
    for keying in KEYINGS {
        if let Some(placed) = place_by(parts, evidence, keying, &mut seen) {
            return Ok(placed);
        }
    }
    if let Some(i) = seen.anywhere.iter().position(|&found| !found) {
        return Err(QuoteError::PartNotFound {
            part: i + 1,
            of: parts.len(),
            text: parts[i].to_string(),
        });
    }
    Err(if seen.in_order {
        QuoteError::TooFarApart
    } else {
        QuoteError::OutOfOrder
    })
}

/// [`place`] in one view; notes in `seen` what it found on the way.
fn place_by(parts: &[&str], evidence: &str, keying: Keying, seen: &mut Seen) -> Option<Placed> {
    let needles: Vec<String> = parts
        .iter()
        .map(|p| super::key(p, needle_keying(keying)))
        .collect();
    if needles.iter().any(String::is_empty) {
        return None;
    }
    let keyed = Keyed::of(evidence, keying);
    let places: Vec<Vec<usize>> = needles.iter().map(|n| occurrences(&keyed.key, n)).collect();
    for (found, at) in seen.anywhere.iter_mut().zip(&places) {
        *found |= !at.is_empty();
    }
    if places.iter().any(Vec::is_empty) {
        return None;
    }
    let chain = chain(&keyed.key, &needles, &places, Some(MAX_LEFT_OUT));
    if chain.is_none() {
        seen.in_order |= self::chain(&keyed.key, &needles, &places, None).is_some();
        return None;
    }
    let ranges = chain?
        .into_iter()
        .map(|(from, to)| keyed.original(evidence, from, to))
        .collect::<Option<Vec<_>>>()?;
    Some(Placed { keying, ranges })
}

/// The characters in UTF-8 `bytes`: those that do not continue one.
fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Every byte offset at which `needle` starts in `hay`, overlapping ones included.
fn occurrences(hay: &str, needle: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|rest| rest.find(needle)) {
        let at = from + i;
        out.push(at);
        from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// The key ranges of the first chain of `needles` in `hay`, each after the one before,
/// leaving out at most `max_gap` characters in all (no bound when `None`); `places` are
/// each needle's [`occurrences`].
fn chain(
    hay: &str,
    needles: &[String],
    places: &[Vec<usize>],
    max_gap: Option<usize>,
) -> Option<Vec<(usize, usize)>> {
    let mut next = vec![0usize; needles.len()];
    'first: for &start in &places[0] {
        let mut ranges = vec![(start, start + needles[0].len())];
        let mut left_out = 0;
        for k in 1..needles.len() {
            let end = ranges[k - 1].1;
            let at = &places[k];
            while next[k] < at.len() && at[next[k]] < end {
                next[k] += 1;
            }
            // Nowhere after this part: nor after any later place of the first part.
            let &from = at.get(next[k])?;
            if let Some(max) = max_gap {
                // A character is at most 4 bytes: a gap of more bytes than that allows is
                // too long uncounted, so a part that recurs far from the next one costs
                // one comparison per place.
                let room = max - left_out;
                if from - end > 4 * room {
                    continue 'first;
                }
                left_out += chars(&hay.as_bytes()[end..from]);
                if left_out > max {
                    continue 'first;
                }
            }
            ranges.push((from, from + needles[k].len()));
        }
        return Some(ranges);
    }
    None
}

/// The first part under [`PART_WORDS`] words, if any.
pub(super) fn short_part<'q>(parts: &[&'q str]) -> Option<&'q str> {
    parts.iter().find(|p| quote_words(p) < PART_WORDS).copied()
}
