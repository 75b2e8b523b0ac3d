//! The folds of issue 20 (item 1): each one on its own, on both sides, and what none of
//! them may do (skip a word, ignore whitespace between letters or digits, match loosely).

use super::{QuoteError, accept, check};

fn accepts(page: &str, quote: &str) {
    assert!(check(quote, page).is_ok(), "{quote:?} refused in {page:?}");
    // Both sides fold the same way: the page's words are found in a page of the quote.
    assert!(check(page, page).is_ok() || page.split_whitespace().count() < 3);
}

fn refuses(page: &str, quote: &str) {
    assert_eq!(
        check(quote, page).map(|s| s.exact),
        Err(QuoteError::NotFound),
        "{quote:?} accepted in {page:?}"
    );
}

#[test]
fn html_entities_are_the_characters_they_name() {
    let page = "In URLs inside HTML attributes, every & must become &amp;.";
    accepts(page, "every & must become &.");
    // Copied from the markup, entities and all.
    accepts(
        "the escape is &amp;amp; in markup",
        "the escape is &amp;amp; in",
    );
    accepts(
        "The most famous HTML entity is &nbsp;, short for Non-Breaking Space.",
        "The most famous HTML entity is , short for Non-Breaking Space.",
    );
    accepts("a strength of &lt;1 MPa at rest", "a strength of <1 MPa");
    accepts("caf&#233; and th&#xE9; here", "café and thé here");
    accepts("Example: &copy; -> displays (c)", "Example: © -> displays");
    // A quote typed with the entity finds the character.
    accepts("cats & dogs and more", "cats &amp; dogs");
    // Not an entity: kept as typed.
    refuses("cats &bogus; dogs and more", "cats dogs and more");
}

#[test]
fn tags_are_seen_through_in_a_second_view() {
    accepts(
        "the formula H<sub>2</sub>O is water",
        "formula H2O is water",
    );
    accepts(
        "Image with \"title\" will be shown as <figcaption>.",
        "Image with “title” will be shown as .",
    );
    // A block tag parts words as a reader sees them parted.
    accepts(
        "the end of it</p><p>Next paragraph here",
        "end of it Next paragraph",
    );
    // Text that only looks like a tag is still text in the first view.
    accepts("a Vec<String> holds the words", "a Vec<String> holds");
    // A superscript is not on the line: `10<sup>6</sup>` is not `106`.
    refuses(
        "a gain of 10<sup>6</sup> units overall",
        "a gain of 106 units",
    );
    accepts(
        "the Tang dynasty,<sup>[3]</sup> and in Europe",
        "the Tang dynasty, and in Europe",
    );
    // Seeing through a tag never skips a word.
    refuses("the <b>bold</b> claim here", "the claim here");
}

#[test]
fn note_markers_are_dropped_in_the_second_view() {
    let page = "prevalent since the Tang dynasty,[3][4] and in Europe, woodblock printing";
    accepts(page, "since the Tang dynasty, and in Europe");
    accepts("a claim[^1] that holds true", "a claim that holds true");
    // Markers are dropped from the page, not from the quote: a changed marker is a
    // changed digit.
    accepts(page, "since the Tang dynasty,[3][4] and in Europe");
    refuses(page, "since the Tang dynasty,[3][2] and in Europe");
    // Markers as converters write them: a linked `[[n]]`, or `[n]` linked to the page's
    // own notes.
    accepts(
        "the Tang dynasty,[[3]](https://en.example/wiki/P#cite_note-3) and in Europe",
        "the Tang dynasty, and in Europe",
    );
    accepts(
        "the Tang dynasty,[3](#cite_note-3)[^4] and in Europe",
        "the Tang dynasty, and in Europe",
    );
    // A digit in brackets that is not a marker (a link label) is still text.
    refuses(
        "see item [12](https://x.example) on the list",
        "see item on the list",
    );
}

/// A marker typed as the reader sees it (`[1]`, `¹`) is the page's marker in whatever
/// form the page writes it; its number is still a digit the page must have.
#[test]
fn a_note_marker_typed_as_the_reader_sees_it_is_the_pages_marker() {
    let pages = [
        "The club was founded in 1887[^1] the society grew fast.",
        "The club was founded in 1887[1] the society grew fast.",
        "The club was founded in 1887¹ the society grew fast.",
        "The club was founded in 1887<sup>1</sup> the society grew fast.",
        "The club was founded in 1887<sup>[1]</sup> the society grew fast.",
        "The club was founded in 1887<sup><a href=\"#fn1\">1</a></sup> the society grew fast.",
        "The club was founded in 1887[[1]](#cite_note-1) the society grew fast.",
        "The club was founded in 1887[1](#fn1) the society grew fast.",
    ];
    let typed = [
        "founded in 1887[1] the society",
        "founded in 1887 [1] the society",
        "founded in 1887¹ the society",
        "founded in 1887[^1] the society",
        "founded in 1887<sup>1</sup> the society",
    ];
    for page in pages {
        for quote in typed {
            accepts(page, quote);
        }
        // Another number, or the number as a digit of the year, is not the marker.
        refuses(page, "founded in 1887[2] the society");
        refuses(page, "founded in 1887² the society");
        // (A marker written as a link to a note, `[1](#fn1)`, is a link to the
        // reference key, read as its label: `18871` is found there, as it always was.)
        if !page.contains("(#fn1)") {
            refuses(page, "founded in 18871 the society");
        }
    }
    // Dropping a bracketed marker still matches (a superscript digit is not dropped: it
    // may be an exponent).
    for page in [pages[0], pages[1], pages[4], pages[6], pages[7]] {
        accepts(page, "founded in 1887 the society");
    }
    // Several markers: each number counts.
    let page = "the Tang dynasty,[^3][^4] and in Europe";
    accepts(page, "the Tang dynasty,[3][4] and in Europe");
    refuses(page, "the Tang dynasty,[3][2] and in Europe");
    // A superscript that is no marker stays itself: `10⁶` is not `106`.
    accepts(
        "a gain of 10<sup>6</sup> units overall",
        "a gain of 10⁶ units",
    );
    refuses("a gain of 10⁶ units overall", "a gain of 106 units");
    // A named note gives the reader no number to type.
    refuses(
        "founded in 1887[^origin] the society grew",
        "founded in 1887[1] the society",
    );
    // What is stored is the page's words, the marker as a reader sees it.
    assert_eq!(
        words(pages[0], "founded in 1887[1] the society"),
        "founded in 1887[1] the society"
    );
    assert_eq!(
        words(pages[2], "founded in 1887[1] the society"),
        "founded in 1887¹ the society"
    );
    assert_eq!(
        words(pages[3], "founded in 1887 [1] the society"),
        "founded in 1887[1] the society"
    );
    for page in pages {
        let got = accept("founded in 1887[1] the society", page).unwrap();
        assert_eq!(super::find(&got.words, page), Some(got.selector), "{page}");
    }
}

#[test]
fn links_with_titles_images_autolinks_and_references_read_as_their_label() {
    accepts(
        "a [symmetric matrices](http://x.example/Sym \"Symmetric matrix\") result",
        "a symmetric matrices result",
    );
    accepts(
        "a [label](http://x.example/a 'Title') here",
        "a label here now".trim_end_matches(" now"),
    );
    accepts(
        "an image ![a red fox](fox.png) sits here",
        "an image a red fox sits here",
    );
    accepts(
        "mail <https://x.example/a> today or later",
        "mail https://x.example/a today",
    );
    accepts(
        "read [the guide][g] before you start",
        "read the guide before you start",
    );
    accepts(
        "read [the guide][] before you start",
        "read the guide before you start",
    );
    // The target is not text.
    refuses(
        "a [symmetric matrices](http://x.example/Sym \"Symmetric matrix\") result",
        "a Symmetric matrix result",
    );
}

#[test]
fn dashes_are_one_class_and_space_beside_them_is_ignored() {
    let page = "using water at a precise temperature—around 85-90°F (29-32°C)—to mix my dough";
    accepts(page, "temperature - around 85-90°F (29-32°C) - to mix");
    accepts(page, "temperature -- around 85–90°F (29–32°C) -- to mix");
    accepts("minus −40 degrees is cold", "minus -40 degrees");
    accepts(
        "It must be ‘active’—meaning you fed it",
        "It must be 'active' - meaning you fed it",
    );
    // Whitespace between two letters or digits always counts.
    refuses("the well known fact", "the wellknown fact");
    refuses("from 1 2 3 onwards we go", "from 123 onwards");
}

#[test]
fn space_beside_a_quotation_mark_is_ignored() {
    accepts(
        "the gruesome title \"longest cemetery on Earth \" or \"the long graveyard .",
        "the gruesome title “longest cemetery on Earth” or “the long graveyard .",
    );
}

#[test]
fn quotes_primes_ellipses_and_spaces() {
    accepts("he is 5′ 11″ tall and more", "he is 5' 11\" tall");
    accepts("and so on… until the end", "and so on... until the end");
    accepts(
        "a\u{a0}no-break\u{2009}thin space here",
        "a no-break thin space here",
    );
}

#[test]
fn soft_hyphens_and_zero_width_characters_are_not_text() {
    accepts(
        "an extra\u{ad}ordinary claim is made",
        "an extraordinary claim is made",
    );
    accepts("zero\u{200b}width joins here", "zerowidth joins here");
}

#[test]
fn blockquote_and_list_continuation_markers_are_not_text() {
    accepts(
        "> batteries hold more than conventional\n> lithium-ion cells do",
        "more than conventional lithium-ion cells",
    );
    accepts(
        "> > nested quote goes\n> > on and on",
        "nested quote goes on and on",
    );
    accepts(
        "- first item here\n- second item there",
        "first item here second item",
    );
}

#[test]
fn a_hard_line_break_is_a_line_break() {
    accepts(
        "the first line\\\nand the second one",
        "the first line and the second",
    );
}

#[test]
fn nfc_and_chosen_compatibility_folds_but_not_nfkc() {
    // e + combining acute is é.
    accepts("caf\u{65}\u{301} au lait today", "café au lait");
    accepts("café au lait today", "caf\u{65}\u{301} au lait");
    // Ligatures and full-width forms.
    accepts("the ﬁnal oﬃce memo", "the final office memo");
    accepts("ＡＢＣ１２３ is the code", "ABC123 is the");
    // A superscript is not a digit on the line.
    refuses("a gain of 10⁶ units overall", "a gain of 106 units");
}

#[test]
fn no_fold_matches_loosely() {
    let page = "The board forecast inflation to be around 7.75 percent over 2022.";
    refuses(page, "forecast inflation to be around 7.76 percent");
    refuses(page, "forecast inflation to be about 7.75 percent");
    refuses(page, "forecast inflation be around 7.75 percent");
}

// ---- item 2: the page's words ----

fn words(page: &str, quote: &str) -> String {
    accept(quote, page).expect("accepted").words
}

#[test]
fn the_page_words_are_the_pages_own_text_cleaned_of_markup() {
    assert_eq!(
        words(
            "As [reported](https://wp.example/2014/11/17/x \"T\") on **Monday**, the  rate\nrose.",
            "reported on Monday, the rate rose"
        ),
        "reported on Monday, the rate rose"
    );
    assert_eq!(
        words(
            "a precise temperature—around 85-90°F—to mix",
            "temperature - around 85-90°F - to mix"
        ),
        "temperature—around 85-90°F—to mix"
    );
    assert_eq!(
        words("every & must become &amp;.", "every & must become &."),
        "every & must become &."
    );
    assert_eq!(
        words(
            "> more than conventional\n> lithium-ion cells",
            "conventional lithium-ion cells"
        ),
        "conventional lithium-ion cells"
    );
    assert_eq!(
        words("the snake_case name is kept", "snake_case name is"),
        "snake_case name is"
    );
}

/// A backslash escape is markdown for the character after it: the reader sees that
/// character, so the stored words keep it (and lose the backslash).
#[test]
fn an_escaped_character_is_stored_as_the_reader_sees_it() {
    let cases = [
        (
            r"the HLA-B\*27 allele is common",
            "the HLA-B*27 allele",
            "the HLA-B*27 allele",
        ),
        // The key drops `*` on both sides, so the quote without it is on the page too;
        // what is stored is still what the page shows.
        (
            r"the HLA-B\*27 allele is common",
            "the HLA-B27 allele",
            "the HLA-B*27 allele",
        ),
        (
            r"written in C\+\+ since 2011",
            "written in C++ since",
            "written in C++ since",
        ),
        (
            r"the snake\_case name is kept",
            "the snake_case name",
            "the snake_case name",
        ),
        (
            r"a tag like \#release is used",
            "a tag like #release",
            "a tag like #release",
        ),
        (
            r"see \[1\] and more here",
            "see [1] and more",
            "see [1] and more",
        ),
        (
            r"about \~40 people came",
            "about ~40 people came",
            "about ~40 people came",
        ),
        (
            r"the \`tick\` mark here",
            "the `tick` mark",
            "the `tick` mark",
        ),
        (
            r"a path C:\\temp is used",
            r"a path C:\temp is",
            r"a path C:\temp is",
        ),
        (
            r"use \_\_init\_\_ to start",
            "use __init__ to start",
            "use __init__ to start",
        ),
        (
            r"two \*\*stars\*\* shown",
            "two **stars** shown",
            "two **stars** shown",
        ),
        // Before anything but ASCII punctuation, CommonMark shows the backslash.
        (
            r"a \— dash after it",
            r"a \— dash after",
            r"a \— dash after",
        ),
    ];
    let mut bad = Vec::new();
    for (page, quote, stored) in cases {
        match accept(quote, page) {
            Ok(got) => {
                if got.words != stored || super::find(&got.words, page) != Some(got.selector) {
                    bad.push(format!("{quote:?} stored as {:?}", got.words));
                }
            }
            Err(e) => bad.push(format!("{quote:?} refused: {e}")),
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn words_that_would_read_otherwise_are_the_pages_characters() {
    // Decoded once, `&amp;amp;` is `&amp;`; stored so, it would read as `&`, which is
    // not where the quote was.
    let page = "In markup, write &amp;amp; for it.";
    let got = accept("write &amp;amp; for it", page).unwrap();
    assert_eq!(got.words, "write &amp;amp; for it");
    assert_eq!(super::find(&got.words, page), Some(got.selector));
}

#[test]
fn a_link_target_typed_in_the_quote_never_enters_the_page_words() {
    let page = "It was [reported](https://wp.example/2014/11/17/story) on 17 November.";
    let quote = "It was [reported](https://evil.example/2014/41/17/story) on 17 November.";
    let got = words(page, quote);
    assert_eq!(got, "It was reported on 17 November.");
    assert!(!got.contains("evil") && !got.contains("41"));
}

/// The closest passage is shown as a reader sees it: copying it puts no stray `>` or
/// link target into a quote.
#[test]
fn the_closest_passage_is_shown_as_the_page_words() {
    let page = "> The cells store more than conventional\n> [lithium-ion](https://x.example/li \"Li\") cells do.";
    let hint = super::closest("store more than usual lithium-ion cells", page)
        .expect("a passage")
        .hint();
    assert_eq!(
        hint,
        "closest on the page (line 1): \"store more than conventional lithium-ion cells\""
    );
}

/// Constructs as readability-style extractors and HTML-to-markdown converters leave
/// them, each with a quote as a reader types it.
#[test]
fn extracted_page_constructs_as_a_reader_types_them() {
    let cases = [
        (
            "The rate rose to 3.4&nbsp;% on&nbsp;Tuesday, the bank said.",
            "The rate rose to 3.4 % on Tuesday",
        ),
        (
            "He wrote &ldquo;never again&rdquo; &mdash; and left.",
            "He wrote \"never again\" - and left.",
        ),
        (
            "a co&shy;operative effort by every&shy;one here",
            "a cooperative effort by everyone here",
        ),
        (
            "> - The first item is long and\n>   wraps onto the next line here",
            "The first item is long and wraps onto the next line",
        ),
        (
            "[![logo](l.png)](https://x.example) The company said it grew.",
            "The company said it grew.",
        ),
        (
            "It was, per [the report](https://x.example/r 'Annual report 2023'), a record year.",
            "It was, per the report, a record year.",
        ),
        (
            "the team’s 10\u{a0}000 runners finished",
            "the team's 10 000 runners finished",
        ),
        (
            "Line one<br>line two of the text",
            "Line one line two of the text",
        ),
        (
            "Line one<br/>line two of the text",
            "Line one line two of the text",
        ),
        (
            "what <em>it</em> <strong>really</strong> means here",
            "what it really means here",
        ),
        (
            "in 1990&ndash;2000 the rate doubled",
            "in 1990-2000 the rate doubled",
        ),
        (
            "see <https://example.com/a?b=1&amp;c=2> for it",
            "see https://example.com/a?b=1&c=2 for it",
        ),
        (
            "the **bold** claim\\\nand the next line",
            "the bold claim and the next line",
        ),
    ];
    let mut bad = Vec::new();
    for (page, quote) in cases {
        if accept(quote, page).is_err() {
            bad.push(quote);
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
