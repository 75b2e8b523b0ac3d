//! Elided quotes: the ellipses a writer types, the parts found in order within one
//! passage, what is stored and where its selector points, and each refusal.

use super::{QuoteError, accept, check, find};

const PAGE: &str = "The committee met on Tuesday. It said that tighter monetary conditions \
had begun to weigh on demand, and that the base rate tightening cycle was close to its end. \
Members voted 7–2 to hold [the rate](https://bank.example/rate \"Rate\") at 4.25%.\n\n\
A second paragraph says that lending slowed in every region.";

fn stored(quote: &str) -> String {
    let got = accept(quote, PAGE).unwrap_or_else(|e| panic!("{quote:?} refused: {e}"));
    // What is stored leads back to where it was placed, as `audit` finds it again.
    assert_eq!(
        find(&got.words, PAGE),
        Some(got.selector.clone()),
        "{quote:?}"
    );
    got.words
}

#[test]
fn every_ellipsis_a_writer_types_parts_a_quote() {
    let want = "monetary conditions … the base rate tightening cycle";
    for quote in [
        "monetary conditions … the base rate tightening cycle",
        "monetary conditions…the base rate tightening cycle",
        "monetary conditions ... the base rate tightening cycle",
        "monetary conditions...the base rate tightening cycle",
        "monetary conditions [...] the base rate tightening cycle",
        "monetary conditions […] the base rate tightening cycle",
        "monetary conditions [ … ] the base rate tightening cycle",
        "monetary conditions (…) the base rate tightening cycle",
        "monetary conditions . . . the base rate tightening cycle",
        "monetary conditions .... the base rate tightening cycle",
        // Leading and trailing ellipses only trim the quote.
        "…monetary conditions … the base rate tightening cycle…",
        "...monetary conditions ... the base rate tightening cycle...",
        // Quotation marks around it are no part.
        "\"…monetary conditions … the base rate tightening cycle…\"",
        "“…monetary conditions … the base rate tightening cycle…”",
        // Punctuation beside an ellipsis is the writer's to add or drop.
        "monetary conditions, … the base rate tightening cycle",
        "monetary conditions … ; the base rate tightening cycle",
    ] {
        assert_eq!(stored(quote), want, "{quote:?}");
    }
}

#[test]
fn a_quote_with_only_outer_ellipses_is_the_quote_between_them() {
    assert_eq!(
        stored("…the base rate tightening cycle…"),
        "the base rate tightening cycle"
    );
    assert_eq!(
        stored("[...] the base rate tightening cycle"),
        "the base rate tightening cycle"
    );
    assert_eq!(
        stored("\"…the base rate tightening cycle…\""),
        "the base rate tightening cycle"
    );
    // Trimmed, it must still be three words.
    assert_eq!(
        accept("…tightening cycle…", PAGE).map(|a| a.words),
        Err(QuoteError::TooShort)
    );
}

#[test]
fn many_parts_are_stored_as_the_pages_words_each() {
    assert_eq!(
        stored("It said that … weigh on demand … was close to its end … hold the rate at 4.25%"),
        "It said that … weigh on demand … was close to its end … hold the rate at 4.25%"
    );
    // Markup in a part is read as it is in a whole quote: the page's words are stored.
    assert_eq!(
        stored("Members voted 7-2 … the rate at 4.25%"),
        "Members voted 7–2 … the rate at 4.25%"
    );
}

#[test]
fn the_selector_spans_the_parts_and_audits() {
    let got = accept("tighter monetary conditions … the base rate", PAGE).unwrap();
    let s = &got.selector;
    assert!(s.exact.starts_with("tighter monetary conditions had begun"));
    assert!(s.exact.ends_with("that the base rate"));
    assert_eq!(
        PAGE.chars()
            .skip(s.start as usize)
            .take((s.end - s.start) as usize)
            .collect::<String>(),
        s.exact
    );
    assert!(s.prefix.ends_with("It said that "));
    assert!(s.suffix.starts_with(" tightening cycle"));
}

#[test]
fn a_verbatim_quote_holding_the_pages_ellipsis_is_found_whole() {
    let page = "He paused… and then he left the room for good.";
    let got = accept("He paused... and then he left", page).unwrap();
    assert_eq!(got.words, "He paused… and then he left");
    assert_eq!(got.selector.start, 0);
}

#[test]
fn a_missing_part_is_named() {
    assert_eq!(
        check("monetary conditions … the interest rate cycle", PAGE),
        Err(QuoteError::PartNotFound {
            part: 2,
            of: 2,
            text: "the interest rate cycle".into()
        })
    );
    assert_eq!(
        check(
            "loose monetary conditions … the base rate … a new cycle",
            PAGE
        ),
        Err(QuoteError::PartNotFound {
            part: 1,
            of: 3,
            text: "loose monetary conditions".into()
        })
    );
    // The message says which, and that the parts must be verbatim.
    let e = check("monetary conditions … the interest rate cycle", PAGE).unwrap_err();
    assert_eq!(
        e.to_string(),
        "quote not found verbatim in the evidence text — part 2 of 2 of the elided quote, \
         \"the interest rate cycle\", is not on the page: copy the exact wording of each part \
         from the fetched page, do not paraphrase"
    );
}

#[test]
fn parts_out_of_order_are_refused() {
    assert_eq!(
        check(
            "the base rate tightening cycle … tighter monetary conditions",
            PAGE
        ),
        Err(QuoteError::OutOfOrder)
    );
}

#[test]
fn parts_far_apart_are_refused() {
    let filler = "Nothing of note was said here at all. ".repeat(30);
    let page = format!("The first claim is here. {filler}The second claim is there.");
    // Up to the bound of left-out characters, one passage; past it, not.
    let near = format!(
        "The first claim is here. {}The second claim is there.",
        &filler[..900]
    );
    assert!(check("The first claim … The second claim", &near).is_ok());
    assert_eq!(
        check("The first claim … The second claim", &page),
        Err(QuoteError::TooFarApart)
    );
    let left_out = |page: &str| page.find("The second").unwrap() - "The first claim".len();
    assert!(left_out(&near) <= super::elide::MAX_LEFT_OUT);
    assert!(left_out(&page) > super::elide::MAX_LEFT_OUT);
    // Where a nearer pair follows a far one, the near pair is the one found.
    let both = format!("{page} The first claim again, and The second claim.");
    let got = accept("The first claim … The second claim", &both).unwrap();
    assert!(got.selector.exact.starts_with("The first claim again"));
}

#[test]
fn each_part_needs_two_words() {
    assert_eq!(
        check("monetary … the base rate tightening cycle", PAGE),
        Err(QuoteError::PartTooShort {
            text: "monetary".into()
        })
    );
    // The whole quote's count comes first.
    assert_eq!(check("monetary…cycle", PAGE), Err(QuoteError::TooShort));
}

#[test]
fn a_changed_word_in_any_part_is_refused() {
    assert!(matches!(
        check(
            "tighter monetary conditions … the base rate loosening cycle",
            PAGE
        ),
        Err(QuoteError::PartNotFound { part: 2, .. })
    ));
    // Glued across the gap without an ellipsis it is a paraphrase, as before.
    assert_eq!(
        check("monetary conditions the base rate tightening cycle", PAGE),
        Err(QuoteError::NotFound)
    );
}

/// A first part that recurs all over a large page costs one pass per part, not one per
/// place.
#[test]
fn a_recurring_first_part_on_a_large_page_is_placed_once() {
    let mut page = "the cat sat on the mat. ".repeat(50_000);
    page.push_str("the cat finally ate the fish.");
    let started = std::time::Instant::now();
    assert!(check("the cat … ate the fish", &page).is_ok());
    assert!(matches!(
        check("the cat … ate the bird", &page),
        Err(QuoteError::PartNotFound { part: 2, .. })
    ));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// The report shows an elided quote's parts, not the text its selector spans.
#[test]
fn a_stored_elided_quote_is_told_from_a_whole_one() {
    let got = accept("monetary conditions … the base rate", PAGE).unwrap();
    assert!(super::is_elided(&got.words, &got.selector));
    let page = "He paused… and then he left the room.";
    let whole = accept("He paused... and then he left", page).unwrap();
    assert!(!super::is_elided(&whole.words, &whole.selector));
    let plain = accept("the base rate tightening cycle", PAGE).unwrap();
    assert!(!super::is_elided(&plain.words, &plain.selector));
}
