//! A quote and a page (the input split at its first NUL byte) → `evidence::check`, and
//! for a refused quote `evidence::closest`: never a panic, and what they report points
//! at the text they report. The selector is stored in the log and re-checked by `audit`
//! against the snapshot, so its offsets (chars, not bytes) and its context must be
//! exact; the closest passage is shown to the writer with its line.

#![no_main]

use cite_core::evidence::{self, QuoteError, match_key};
use libfuzzer_sys::fuzz_target;

/// Characters of context the selector keeps on each side of the match.
const CONTEXT: usize = 32;

fuzz_target!(|input: &str| {
    let (quote, page) = input.split_once('\0').unwrap_or((input, ""));
    let chars: Vec<char> = page.chars().collect();
    let at = |from: usize, to: usize| -> String {
        assert!(
            from <= to && to <= chars.len(),
            "{from}..{to} of {}",
            chars.len()
        );
        chars[from..to].iter().collect()
    };
    let selector = match evidence::accept(quote, page) {
        Ok(accepted) => {
            // What is stored is found on the page again (`audit` looks for it there).
            assert!(
                evidence::find(&accepted.words, page).is_some(),
                "{:?} is not on the page",
                accepted.words
            );
            accepted.selector
        }
        Err(QuoteError::NotFound) => {
            // Not found means not there, unless the quote was all markup (`* * *`).
            let needle = match_key(quote);
            assert!(needle.is_empty() || !match_key(page).contains(&needle));
            if let Some(passage) = evidence::closest(quote.trim(), page) {
                let (start, end) = (passage.start as usize, passage.end as usize);
                assert_eq!(passage.text, at(start, end));
                let newlines = chars[..start].iter().filter(|&&c| c == '\n').count();
                assert_eq!(passage.line as usize, newlines + 1);
                // One line on a terminal.
                let hint = passage.hint();
                assert!(!hint.contains(['\n', '\r', '\u{1b}']), "{hint:?}");
            }
            return;
        }
        // An elided quote refused: its parts are checked as quotes are above.
        Err(
            QuoteError::PartNotFound { .. }
            | QuoteError::PartTooShort { .. }
            | QuoteError::OutOfOrder
            | QuoteError::TooFarApart,
        ) => return,
        // Too short to be checked: still, matching itself must hold its promises.
        Err(QuoteError::TooShort) => match evidence::find(quote, page) {
            Some(selector) => selector,
            None => return,
        },
    };
    let (start, end) = (selector.start as usize, selector.end as usize);
    assert_eq!(selector.exact, at(start, end));
    assert_eq!(selector.prefix, at(start.saturating_sub(CONTEXT), start));
    assert_eq!(selector.suffix, at(end, (end + CONTEXT).min(chars.len())));
    // What was found holds the quote (the selector widens to whole links, never
    // narrows), unless a page view beyond the typographic key found it: those read
    // markers and entities that the selector's text, cut out of its page, reads
    // otherwise.
    let typographic = match_key(page).contains(&match_key(quote));
    assert!(
        !typographic || match_key(&selector.exact).contains(&match_key(quote)),
        "{:?} does not hold {quote:?}",
        selector.exact
    );
});
