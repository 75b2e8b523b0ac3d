//! Quote matching: the reference's behaviours, selectors, and properties.
//!
//! Under `cfg(test)` a resume point is kept every 8 key bytes, so every test that finds a
//! match past the first few words also exercises restarting the pass mid-text.

use proptest::prelude::*;

use super::{Passage, QuoteError, Selector, check, closest, find, match_key};

fn sel(exact: &str, prefix: &str, suffix: &str, start: u64, end: u64) -> Selector {
    Selector {
        exact: exact.into(),
        prefix: prefix.into(),
        suffix: suffix.into(),
        start,
        end,
    }
}

// ---- the key, against outputs of the reference `_match_key` (Python 3.11) ----

#[test]
fn key_matches_the_reference_outputs() {
    let cases = [
        ("  The   Quick\n\tBrown  ", "the quick brown"),
        (
            "_[ERAP1](https://www.uniprot.org/erap1/)_ gene",
            "erap1 gene",
        ),
        // Python's re.sub scans on from the `[`: the label runs to the first `]`.
        ("[a [b](c)", "a [b"),
        // Whitespace in a target ends it, except inside a one-level `(…)` group.
        ("[a](b (c d) e)", "[a](b (c d) e)"),
        ("[x](a(b c)d)", "x"),
        ("[](https://x.example/) gone", "gone"),
        ("[unclosed (link", "[unclosed (link"),
        ("[label](target", "[label](target"),
        ("[a]\n(b)", "[a] (b)"),
        ("[a](b\nc)", "[a](b c)"),
        ("[two\nlines](u)", "two lines"),
        // The escape lookahead sees the text after link collapse.
        (r"[a\](b)!", "a!"),
        (r"\\\\*x", "x"),
        (r"ends with \\", r"ends with \"),
        (r"\[not a link\]", "[not a link]"),
        ("~~strike~~ `code`", "strike code"),
        // Python's whitespace: Unicode White_Space plus U+001C–U+001F.
        ("a\u{1c}b\u{a0}c\u{2003}d", "a b c d"),
        ("İstanbul", "i\u{307}stanbul"),
        ("", ""),
        ("* _ ` ~", ""),
    ];
    for (text, key) in cases {
        assert_eq!(match_key(text), key, "key of {text:?}");
    }
}

#[test]
fn simple_fold_agrees_outside_the_expanding_ranges() {
    let folder = icu_casemap::CaseMapper::new();
    let mut buf = [0u8; 4];
    for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
        if c.is_ascii() || super::key::folds_to_string(c) {
            continue;
        }
        let full = folder.fold_string(c.encode_utf8(&mut buf));
        let simple = folder.simple_fold(c);
        assert_eq!(
            full,
            simple.encode_utf8(&mut [0u8; 4]) as &str,
            "U+{:04X}",
            u32::from(c)
        );
    }
}

// ---- the reference's behaviours ----

#[test]
fn whitespace_and_case_do_not_matter() {
    let page = "The quick brown fox\n  jumps over the lazy dog.";
    assert!(check("the  QUICK\tbrown Fox jumps", page).is_ok());
    assert!(check("  fox jumps over  ", page).is_ok());
}

#[test]
fn a_linked_label_matches_plain_text() {
    let page = "Variants of _[ERAP1](https://www.uniprot.org/uniprotkb/erap1/)_ raise the risk.";
    assert!(check("Variants of ERAP1 raise", page).is_ok());
    assert!(check("of ERAP1 raise the risk", page).is_ok());
    // Both sides are keyed: a quote carrying the markdown matches plain text too.
    let plain = "Variants of ERAP1 raise the risk.";
    assert!(check("of _[ERAP1](https://x.example/erap1/)_ raise", plain).is_ok());
}

#[test]
fn backslash_escapes_before_punctuation_are_ignored() {
    let page = r"the product 2 \* 3 is six, \[citation needed\] here";
    assert!(check("the product 2 * 3 is six", page).is_ok());
    assert!(check("2 3 is six", page).is_ok());
    assert!(check("six, [citation needed] here", page).is_ok());
}

/// The reference kept the backslash of `\_` (Python's `\w` includes `_`), so the quote
/// `snake_case` failed against a page showing `snake\_case`. Here the escape is seen
/// through like any other, and every quote the reference accepted is still accepted.
#[test]
fn an_escaped_underscore_is_seen_through() {
    let page = r"name it snake\_case in code";
    assert_eq!(match_key(page), "name it snakecase in code");
    assert!(check(r"it snake\_case in", page).is_ok());
    assert!(check("it snake_case in", page).is_ok());
    assert!(check("it snakecase in", page).is_ok());
}

#[test]
fn emphasis_inside_words_is_ignored() {
    let page = "an un*believ*able re__sult__ for snake_case_names here";
    assert!(check("an unbelievable result", page).is_ok());
    assert!(check("for snakecasenames here", page).is_ok());
    assert!(check("for snake_case_names here", page).is_ok());
}

#[test]
fn case_folds_as_python_casefold() {
    assert!(check("STRASSE UND PLATZ", "die Straße und Platz").is_ok());
    assert!(check("die straße und", "DIE GROẞE STRAẞE UND").is_err());
    assert!(check("große straße und", "DIE GROẞE STRAẞE UND").is_ok());
    assert!(check("ὁ ΣΊΣΥΦΟΣ ἔφη", "ὁ σίσυφος ἔφη").is_ok());
    assert!(check("the ﬁnal ﬁgures are", "The final figures are in").is_ok());
    assert_eq!(match_key("ς Σ ẞ ß ﬁ"), "σ σ ss ss fi");
}

#[test]
fn cjk_counts_two_characters_as_a_word() {
    let page = "実験では氷は水より軽いことが分かった。";
    // 1 token + 7 CJK / 2 = 4 words.
    assert!(check("氷は水より軽い", page).is_ok());
    // 1 token + 3 / 2 = 2 words.
    assert_eq!(check("氷は水", page), Err(QuoteError::TooShort));
    assert_eq!(check("氷は水より重い", page), Err(QuoteError::NotFound));
}

#[test]
fn too_short_quotes_are_rejected_before_matching() {
    let page = "two words and more";
    assert_eq!(check("two words", page), Err(QuoteError::TooShort));
    assert_eq!(check("", page), Err(QuoteError::TooShort));
    assert_eq!(check("   \n ", page), Err(QuoteError::TooShort));
    assert_eq!(find("", page), None);
}

#[test]
fn paraphrases_and_absent_text_are_rejected() {
    let page = "The committee approved the budget on Tuesday.";
    assert_eq!(
        check("the committee passed the budget", page),
        Err(QuoteError::NotFound)
    );
    assert_eq!(
        check("approved the budget on Tuesday. Then", page),
        Err(QuoteError::NotFound)
    );
    assert_eq!(check("three whole words", ""), Err(QuoteError::NotFound));
    // Three words of markup are no words at all (issue 9).
    assert_eq!(check("* _ ~", page), Err(QuoteError::TooShort));
}

#[test]
fn a_quote_longer_than_the_evidence_is_not_found() {
    assert_eq!(
        check("short page text and then some", "short page text"),
        Err(QuoteError::NotFound)
    );
}

#[test]
fn errors_read_as_the_spec_says() {
    assert_eq!(
        QuoteError::TooShort.to_string(),
        "quote too short — use at least 3 words of verbatim text"
    );
    assert_eq!(
        QuoteError::NotFound.to_string(),
        "quote not found verbatim in the evidence text — copy the exact wording from the \
         fetched page, do not paraphrase"
    );
}

// ---- selectors ----

#[test]
fn selector_on_ascii() {
    let page = "Alpha beta gamma delta epsilon.";
    assert_eq!(
        check("BETA gamma  delta", page),
        Ok(sel("beta gamma delta", "Alpha ", " epsilon.", 6, 22))
    );
}

#[test]
fn selector_keeps_the_original_markup_and_whitespace() {
    let page = "Risk rises with **two**\n copies of [ERAP1](https://x.example/erap1/) in carriers.";
    let got = check("with two copies of ERAP1 in", page).unwrap();
    assert_eq!(
        got.exact,
        "with **two**\n copies of [ERAP1](https://x.example/erap1/) in"
    );
    assert_eq!(
        (got.prefix.as_str(), got.suffix.as_str()),
        ("Risk rises ", " carriers.")
    );
    assert_eq!((got.start, got.end), (11, 71));
}

#[test]
fn selector_leaves_out_markup_outside_the_match() {
    let page = "so **bold words here** after";
    assert_eq!(
        check("bold words here", page),
        Ok(sel("bold words here", "so **", "** after", 5, 20))
    );
}

#[test]
fn selector_ending_or_starting_in_a_label_takes_the_whole_link() {
    let page = "see the [ERAP1 gene](https://x.example/erap1) for more";
    let end = check("see the ERAP1", page).unwrap();
    assert_eq!(end.exact, "see the [ERAP1 gene](https://x.example/erap1)");
    assert_eq!(end.suffix, " for more");
    let start = check("gene for more", page).unwrap();
    assert_eq!(
        start.exact,
        "[ERAP1 gene](https://x.example/erap1) for more"
    );
    assert_eq!((start.start, start.prefix.as_str()), (8, "see the "));
    // Covering the label exactly gives exact that keys back to the quote.
    let whole = check("the ERAP1 gene", page).unwrap();
    assert_eq!(match_key(&whole.exact), "the erap1 gene");
}

#[test]
fn selector_counts_chars_not_bytes() {
    let page = "Ο Σίσυφος κυλά την πέτρα — Straße 氷は水より軽い。";
    let got = check("σίσυφος κυλά την", page).unwrap();
    assert_eq!(
        got,
        sel(
            "Σίσυφος κυλά την",
            "Ο ",
            " πέτρα — Straße 氷は水より軽い。",
            2,
            18
        )
    );
    let cjk = check("STRASSE 氷は水より", page).unwrap();
    assert_eq!(
        cjk,
        sel(
            "Straße 氷は水より",
            "Ο Σίσυφος κυλά την πέτρα — ",
            "軽い。",
            27,
            39
        )
    );
}

#[test]
fn selector_at_the_ends_of_the_evidence() {
    let page = "first words of a page that runs on for a good while and ends here";
    let head = check("first words of", page).unwrap();
    assert_eq!(
        head,
        sel(
            "first words of",
            "",
            " a page that runs on for a good ",
            0,
            14
        )
    );
    let tail = check("and ends here", page).unwrap();
    assert_eq!(
        tail,
        sel(
            "and ends here",
            "e that runs on for a good while ",
            "",
            52,
            65
        )
    );
    assert_eq!(tail.prefix.chars().count(), 32);
    let all = check(page, page).unwrap();
    assert_eq!(
        (all.prefix.as_str(), all.suffix.as_str(), all.start, all.end),
        ("", "", 0, 65)
    );
}

#[test]
fn selector_finds_the_first_occurrence() {
    let page = "one two three, then one two three again";
    assert_eq!(check("one two three", page).map(|s| s.start), Ok(0));
    assert_eq!(
        check("two three again", page).map(|s| (s.start, s.end)),
        Ok((24, 39))
    );
}

#[test]
fn selector_on_a_match_inside_a_folded_expansion_covers_the_whole_character() {
    // The key of `Fußsen` is `fusssen`; the quote's key starts at the second `s` of `ß`.
    let got = find("ssen und zwar", "Fußsen und zwar").unwrap();
    assert_eq!(
        (got.exact.as_str(), got.start, got.end),
        ("ßsen und zwar", 2, 15)
    );
}

// ---- typographic variants (issue 9) ----

/// Issue 9.
#[test]
fn curly_quotes_dashes_and_ellipses_match_their_plain_forms() {
    let page = "He said “it’s done” — and left… The 1990–2000 data, ‘mostly’ −5 °C.";
    let plain = check(r#"he said "it's done" - and left..."#, page).unwrap();
    // The selector points at the page's own characters.
    assert_eq!(
        plain,
        sel(
            "He said “it’s done” — and left…",
            "",
            " The 1990–2000 data, ‘mostly’ −5",
            0,
            31
        )
    );
    assert!(check("the 1990-2000 data", page).is_ok());
    assert!(check("data, 'mostly' -5", page).is_ok());
    // `--` is how an em dash is typed in plain text.
    assert!(check("done\" -- and left", page).is_ok());
    // And the other way round: a typographic quote against a plain page.
    let page = r#"He said "it's done" - and left... then 1990-2000 -- or so."#;
    assert!(check("he said “it’s done” — and left…", page).is_ok());
    assert!(check("then 1990–2000 — or so", page).is_ok());
}

/// Issue 9.
#[test]
fn other_quote_marks_and_hyphens_fold_too() {
    let cases = [
        (
            "she wrote \"Bonjour tout le monde\"",
            "Elle: she wrote «Bonjour tout le monde» hier",
        ),
        ("the 'low-lying' islands", "the ‹low‐lying› islands"),
        ("a \"German\" quote here", "a „German‟ quote here"),
        ("a 6' 2\" man", "a 6′ 2″ man"),
        (
            "non-breaking hyphens - and bars",
            "non‑breaking hyphens ― and bars",
        ),
        ("a figure-dash range", "a figure‒dash range"),
    ];
    for (quote, page) in cases {
        assert!(check(quote, page).is_ok(), "{quote:?} in {page:?}");
    }
}

/// Issue 9.
#[test]
fn unicode_spaces_are_whitespace() {
    // Already true before issue 9 (Python's whitespace is Unicode White_Space); kept here
    // beside the other typographic variants.
    let page = "one\u{a0}two\u{2002}three\u{2009}four\u{202f}five\u{205f}six\u{3000}seven";
    assert!(check("one two three four five six seven", page).is_ok());
    assert!(check("two\u{a0}three four", "one two three four").is_ok());
}

/// Issue 9.
#[test]
fn invisible_characters_are_not_text() {
    // Soft hyphens, zero-width spaces and joiners, word joiners and byte order marks
    // show nothing, and a writer retyping the words never types them.
    let page = "the in\u{ad}for\u{ad}ma\u{200b}tion age\u{2060} \u{feff}began";
    let got = check("the information age began", page).unwrap();
    assert_eq!((got.start, got.end), (0, 30));
    assert!(
        check(
            "information age began",
            "\u{200c}in\u{200d}formation age began"
        )
        .is_ok()
    );
    // A quote of invisible characters alone is no words; `find` still locates it by the
    // reference key, as quotes stored before are located.
    assert_eq!(
        check("\u{ad} \u{ad} \u{ad}", "a \u{ad} \u{ad} \u{ad} b"),
        Err(QuoteError::TooShort)
    );
    assert_eq!(find("\u{ad}", "a\u{ad}b").map(|s| s.start), Some(1));
}

/// Issue 9.
#[test]
fn paraphrase_is_still_refused_with_typography() {
    let page = "He said “it’s done” — and left… the room.";
    assert_eq!(
        check(r#"he said "it's over" - and"#, page),
        Err(QuoteError::NotFound)
    );
    // Read as an elided quote, it is refused naming the part that is not on the page.
    assert_eq!(
        check("and left… the house", page),
        Err(QuoteError::PartNotFound {
            part: 2,
            of: 2,
            text: "the house".into()
        })
    );
    // Punctuation folds to punctuation, never to nothing: a dash is not a space.
    assert_eq!(
        check("said “it’s done” and left", page),
        Err(QuoteError::NotFound)
    );
    assert_eq!(
        check("it’s done — and. left", page),
        Err(QuoteError::NotFound)
    );
}

/// Quotes stored before issue 9 were found by the reference key alone; `audit` re-finds
/// every stored quote and compares its selector. Where the reference key finds the quote,
/// it is found at the same place as before, even when a typographic variant of it comes
/// earlier on the page. The selectors are the ones the previous version stored.
#[test]
fn quotes_stored_before_keep_their_selectors() {
    let cases = [
        (
            "\"it's here\" now",
            "First “it’s here” now, then \"it's here\" now.",
            sel(
                "\"it's here\" now",
                "First “it’s here” now, then ",
                ".",
                28,
                43,
            ),
        ),
        (
            "\u{ad} alpha beta",
            "x \u{ad} alpha beta gamma",
            sel("\u{ad} alpha beta", "x ", " gamma", 2, 14),
        ),
        (
            "10-20 kg here",
            "It weighs 10--20 kg here, or 10-20 kg here.",
            sel(
                "10-20 kg here",
                "It weighs 10--20 kg here, or ",
                ".",
                29,
                42,
            ),
        ),
        (
            "wait... what now",
            "So “wait…” she said: wait... what now?",
            sel("wait... what now", "So “wait…” she said: ", "?", 21, 37),
        ),
    ];
    for (quote, page, before) in cases {
        assert_eq!(find(quote, page), Some(before), "{quote:?} in {page:?}");
    }
    // A quote only a typographic variant matches lands on the first such place.
    let got = find("\"it's here\" now", "First “it’s here” now.").unwrap();
    assert_eq!((got.exact.as_str(), got.start), ("“it’s here” now", 6));
}

/// Issue 9.
#[test]
fn the_key_folds_typography() {
    assert_eq!(
        match_key("“It’s” — ‘so’… «x» ‹y› 1–2 −3 a‐b c‑d e--f g---h \u{ad}i\u{200b}j"),
        r#""it's" - 'so'... "x" 'y' 1-2 -3 a-b c-d e-f g-h ij"#
    );
    // The reference key, which locates quotes stored before, folds none of it.
    assert_eq!(super::reference_key("“It’s” — a--b…"), "“it’s” — a--b…");
}

// ---- markdown noise is not words (issue 9) ----

/// Issue 9.
#[test]
fn markdown_noise_does_not_count_as_words() {
    let page = "a b c and more";
    for quote in [
        "* * * a",
        "* _ ~",
        "** a ** b",
        "[a](https://x.example/1) [b](https://x.example/2)",
        "a \u{200b} b",
    ] {
        assert_eq!(check(quote, page), Err(QuoteError::TooShort), "{quote:?}");
    }
    // Markup on real words leaves them words.
    assert!(check("**a** _b_ `c`", page).is_ok());
    assert_eq!(super::quote_words("* * * a"), 1);
    assert_eq!(
        super::quote_words("**bold** [two words](https://x.example) here"),
        4
    );
    assert_eq!(super::quote_words("氷は水より"), 1 + 5 / 2);
}

// ---- the closest passage (issue 9) ----

fn passage(text: &str, line: u64, start: u64, end: u64) -> Passage {
    Passage {
        text: text.into(),
        line,
        start,
        end,
    }
}

/// Issue 9.
#[test]
fn a_paraphrase_gets_the_closest_passage() {
    let page = "Minutes.\nThe committee approved the budget on Tuesday.\nNothing else.";
    assert_eq!(
        closest("the committee passed the budget", page),
        Some(passage("The committee approved the budget", 2, 9, 42))
    );
    // Of passages with as many of the quote's words, the one with more of them side by
    // side, as in the quote, wins.
    let page = "delta gamma beta alpha. then alpha beta gamma delta";
    assert_eq!(
        closest("alpha beta gamma omega", page).map(|p| (p.text, p.start)),
        Some(("alpha beta gamma".to_string(), 29))
    );
}

/// Issue 9.
#[test]
fn the_closest_passage_keeps_the_pages_characters() {
    let page = "Risk rises with **two**\n copies of [ERAP1](https://x.example/e) in carriers.";
    assert_eq!(
        closest("risk rises with three copies of ERAP1", page),
        Some(passage(
            "Risk rises with **two**\n copies of [ERAP1](https://x.example/e)",
            1,
            0,
            63
        ))
    );
    let page = "Notes.\nHe said “it’s done” — and left… The end.";
    assert_eq!(
        closest(r#"he said "it's finished" - and left"#, page).map(|p| p.text),
        Some("He said “it’s done” — and left".to_string())
    );
    let page = "実験では氷は水より軽いことが分かった。";
    assert_eq!(
        closest("氷は水より重い", page).map(|p| p.text),
        Some("氷は水より軽い".to_string())
    );
}

/// Issue 9.
#[test]
fn no_closest_passage_when_nothing_is_close() {
    let page = "The committee approved the budget on Tuesday.";
    assert_eq!(closest("an entirely unrelated sentence", page), None);
    // One word in six in common is not close.
    assert_eq!(closest("the dogs never sleep at noon", page), None);
    assert_eq!(closest("* * *", page), None);
    assert_eq!(closest("the committee approved", ""), None);
    // Words far apart are not a passage: a window may span little more than the quote.
    let far = format!("committee {} approved budget", "! ".repeat(200));
    assert_eq!(
        closest("committee approved budget", &far).map(|p| p.text),
        Some("approved budget".into())
    );
}

// ---- properties ----

/// Four-letter words over `a`–`k` (both cases): equal lengths keep every match on word
/// boundaries, and the small alphabet makes repeats.
fn word() -> impl Strategy<Value = String> {
    "[a-kA-K]{4}"
}

/// How a word is written in the page.
fn wrap(word: &str, how: u8) -> String {
    match how {
        0 => format!("*{word}*"),
        1 => format!("_{word}_"),
        2 => format!("**{word}**"),
        3 => format!("[{word}](https://x.example/{word})"),
        _ => word.to_string(),
    }
}

/// A page (words, how each is written, the separators after each) and a run of 3+ words.
fn page_and_run() -> impl Strategy<Value = (Vec<String>, Vec<u8>, Vec<&'static str>, usize, usize)>
{
    prop::collection::vec(word(), 3..40).prop_flat_map(|words| {
        let n = words.len();
        (
            Just(words),
            prop::collection::vec(0u8..8, n),
            prop::collection::vec(prop::sample::select(vec![" ", "  ", "\n", " \n\t"]), n),
            (0..n - 2).prop_flat_map(move |i| (Just(i), i + 3..=n)),
        )
            .prop_map(|(w, h, s, (i, j))| (w, h, s, i, j))
    })
}

fn render(words: &[String], how: &[u8], seps: &[&str]) -> String {
    let mut page = String::from("Intro: ");
    for ((w, &h), s) in words.iter().zip(how).zip(seps) {
        page.push_str(&wrap(w, h));
        page.push_str(s);
    }
    page.push_str("The end.");
    page
}

/// The selector's own invariants, given the text it points into.
fn assert_selector_fits(s: &Selector, page: &str, quote: &str) {
    let chars: Vec<char> = page.chars().collect();
    let (start, end) = (s.start as usize, s.end as usize);
    assert!(start < end && end <= chars.len());
    assert_eq!(s.exact, chars[start..end].iter().collect::<String>());
    assert_eq!(
        s.prefix,
        chars[start.saturating_sub(32)..start]
            .iter()
            .collect::<String>()
    );
    assert_eq!(
        s.suffix,
        chars[end..(end + 32).min(chars.len())]
            .iter()
            .collect::<String>()
    );
    assert!(match_key(&s.exact).contains(&match_key(quote)));
}

/// Word `w` as a page sets it (curly quotes, dashes, an ellipsis) and as a writer
/// retypes it. Each plain form has one typographic form, so a run retyped plainly
/// matches exactly where the run itself does.
fn dressed(w: &str, dress: u8) -> (String, String) {
    match dress {
        0 => (format!("“{w}”"), format!("\"{w}\"")),
        1 => (format!("‘{w}’"), format!("'{w}'")),
        2 => (format!("{w}’s"), format!("{w}'s")),
        3 => (format!("{w}—"), format!("{w}--")),
        4 => (format!("{w}…"), format!("{w}...")),
        5 => (format!("–{w}"), format!("-{w}")),
        _ => (w.to_string(), w.to_string()),
    }
}

/// A page of `words` dressed typographically, some separators non-breaking spaces, and
/// the run `i..j` as it stands there and retyped plainly.
fn typographic_page(
    words: &[String],
    how: &[u8],
    seps: &[&str],
    dress: &[u8],
    nbsp: &[bool],
    i: usize,
    j: usize,
) -> (String, String, String) {
    let mut typographic = Vec::new();
    let mut plain = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let (t, p) = dressed(w, dress[k % dress.len()]);
        typographic.push(t);
        plain.push(p);
    }
    let mut page = String::from("Intro: ");
    for (k, t) in typographic.iter().enumerate() {
        // Markup goes around the whole dressed word, as a page would set it.
        page.push_str(&wrap(t, how[k]));
        page.push_str(if nbsp[k % nbsp.len()] {
            "\u{a0}"
        } else {
            seps[k]
        });
    }
    page.push_str("The end.");
    (page, typographic[i..j].join(" "), plain[i..j].join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn any_run_of_three_words_is_found(
        (words, how, seps, i, j) in page_and_run(),
    ) {
        let quote = words[i..j].join(" ");
        let plain = render(&words, &[u8::MAX].repeat(words.len()), &seps);
        let marked = render(&words, &how, &seps);
        for page in [&plain, &marked] {
            let got = check(&quote, page);
            prop_assert!(got.is_ok(), "{quote:?} not found in {page:?}");
            let got = got.unwrap();
            assert_selector_fits(&got, page, &quote);
            prop_assert_eq!(match_key(&got.exact), match_key(&quote));
        }
    }

    #[test]
    fn a_paraphrase_is_rejected(
        (words, how, seps, i, j) in page_and_run(),
        pick in any::<prop::sample::Index>(),
        stranger in "[q-zQ-Z]{4}",
    ) {
        let page = render(&words, &how, &seps);
        let mut quote = words[i..j].to_vec();
        let k = pick.index(quote.len());
        quote[k] = stranger;
        prop_assert_eq!(check(&quote.join(" "), &page), Err(QuoteError::NotFound));
    }

    /// Issue 9.
    #[test]
    fn a_retyped_quote_lands_where_the_verbatim_one_does(
        (words, how, seps, i, j) in page_and_run(),
        dress in prop::collection::vec(0u8..8, 40),
        nbsp in prop::collection::vec(any::<bool>(), 40),
    ) {
        let (page, verbatim, plain) = typographic_page(&words, &how, &seps, &dress, &nbsp, i, j);
        let want = check(&verbatim, &page);
        prop_assert!(want.is_ok(), "{verbatim:?} not found in {page:?}");
        let got = check(&plain, &page);
        prop_assert_eq!(&got, &want, "{:?} against {:?}", plain, page);
        assert_selector_fits(&got.unwrap(), &page, &plain);
    }

    /// Issue 9.
    #[test]
    fn a_retyped_quote_with_a_word_changed_is_refused(
        (words, how, seps, i, j) in page_and_run(),
        dress in prop::collection::vec(0u8..8, 40),
        nbsp in prop::collection::vec(any::<bool>(), 40),
        pick in any::<prop::sample::Index>(),
        stranger in "[q-zQ-Z]{4}",
    ) {
        let mut changed = words.clone();
        changed[i + pick.index(j - i)] = stranger;
        let (page, ..) = typographic_page(&words, &how, &seps, &dress, &nbsp, i, j);
        let (_, _, plain) = typographic_page(&changed, &how, &seps, &dress, &nbsp, i, j);
        // (A run holding an ellipsis is refused as an elided quote, naming a part.)
        let refused = check(&plain, &page);
        prop_assert!(
            matches!(&refused, Err(e) if *e != QuoteError::TooShort),
            "{:?}",
            refused
        );
    }

    /// Issue 9.
    #[test]
    fn closest_points_into_the_page(
        page in "[\\[\\]()*_~`\\\\ \n\tabcßΣ氷.!‘’“”…—\u{ad}-]{0,80}",
        quote in "[ abcßΣ氷.!'\"-]{0,30}",
    ) {
        if let Some(p) = closest(&quote, &page) {
            let chars: Vec<char> = page.chars().collect();
            let (start, end) = (p.start as usize, p.end as usize);
            prop_assert!(start < end && end <= chars.len());
            prop_assert_eq!(&p.text, &chars[start..end].iter().collect::<String>());
            let line = chars[..start].iter().filter(|&&c| c == '\n').count() as u64 + 1;
            prop_assert_eq!(p.line, line);
        }
    }

    #[test]
    fn find_never_panics_on_arbitrary_text(quote in any::<String>(), page in any::<String>()) {
        if let Some(s) = find(&quote, &page) {
            assert_selector_fits(&s, &page, &quote);
        }
    }

    #[test]
    fn find_never_panics_on_markdown_soup(
        page in "[\\[\\]()*_~`\\\\ \n\tabßΣςİﬁ氷.!'\"‘’“”«…—–\u{ad}\u{200b}\u{a0}-]{0,60}",
        from in any::<prop::sample::Index>(),
        len in 0usize..20,
    ) {
        // Half the time quote a piece of the page itself, to land on matches.
        let chars: Vec<char> = page.chars().collect();
        let a = if chars.is_empty() { 0 } else { from.index(chars.len()) };
        let quote: String = chars[a..(a + len).min(chars.len())].iter().collect();
        let got = find(&quote, &page);
        let key = match_key(&quote);
        let reference = super::reference_key(&quote);
        let found_before = !reference.is_empty() && super::reference_key(&page).contains(&reference);
        if key.is_empty() {
            // Only invisible characters (a soft hyphen): found as the reference found it,
            // and never accepted by `check`, which counts no word in it.
            prop_assert_eq!(got.is_some(), found_before);
        } else {
            // What the reference found, the typographic key finds too.
            prop_assert!(!found_before || match_key(&page).contains(&key));
            prop_assert_eq!(got.is_some(), match_key(&page).contains(&key));
        }
        if let Some(s) = got {
            assert_selector_fits(&s, &page, &quote);
        }
    }
}

// ---- large pages ----
// Timings live in benches/measure.sh (`quote` against a 10 MB page, verbatim, retyped and
// refused); these check only that the answers stay right on a page of some size.

fn large_page(unit: &str) -> String {
    let mut page = unit.repeat(300_000 / unit.len() + 1);
    page.push_str("and the very last sentence ends here");
    page
}

#[test]
fn a_large_page_is_checked_to_its_last_sentence() {
    let page = large_page(
        "The *quick* brown fox jumps over the [lazy dog](https://x.example/dog), \\*escaped\\* \
         `code` ~~gone~~ _emph_. Ο ΣΊΣΥΦΟΣ κυλά την πέτρα, Straße. 氷は水より軽い。\n\n",
    );
    assert!(check("the very last sentence ends", &page).is_ok());
}

/// Issue 9.
#[test]
fn a_large_page_refuses_with_the_closest_passage() {
    let page = large_page(
        "The “quick” brown fox — it’s said — jumps over the [lazy dog](https://x.example/dog)… \
         `code` ~~gone~~ _emph_. Ο ΣΊΣΥΦΟΣ κυλά την πέτρα, Straße. 氷は水より軽い。\n\n",
    );
    assert!(check("the very last sentence ends", &page).is_ok());
    assert!(check(r#"the "quick" brown fox - it's said"#, &page).is_ok());
    assert_eq!(
        check("the very first sentence ends", &page),
        Err(QuoteError::NotFound)
    );
    assert_eq!(
        closest("the very first sentence ends", &page).map(|p| p.text),
        Some("the very last sentence ends".to_string())
    );
}
