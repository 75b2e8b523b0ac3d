//! Issue 20, items 1 and 2, through the binary: quotes as a reader sees an extracted page
//! (entities, link titles, spaced dashes, wrapped blockquotes, soft hyphens, note
//! markers, tags) are accepted, and what is stored, shown, rendered and exported is the
//! page's own words, never a link target or digit the quote alone had; the text as
//! typed stays in the log beside it.

use crate::util::Sandbox;

/// A sandbox with `https://a.example/page` as [1] and `page` in `page.md`.
fn with_page(page: &str) -> (Sandbox, String) {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/page", "--title", "A page"]);
    let p = sb.file("page.md", page);
    (sb, p.to_str().unwrap().to_string())
}

/// `quote 1 --text QUOTE --from page.md` succeeds; the stored texts of [1] after it.
fn stored(page: &str, quote: &str) -> Vec<String> {
    let (sb, p) = with_page(page);
    let out = sb.run(&["quote", "1", "--text", quote, "--from", &p]);
    assert_eq!(out.code, 0, "{quote:?} against {page:?}: {}", out.stderr);
    texts(&sb)
}

fn texts(sb: &Sandbox) -> Vec<String> {
    crate::cli_quote::quote_texts(sb, "1")
}

#[test]
fn entities_are_read_as_the_characters_they_name() {
    assert_eq!(
        stored(
            "In URLs inside HTML attributes, every & must become &amp;.",
            "every & must become &."
        ),
        ["every & must become &."]
    );
    assert_eq!(
        stored(
            "a strength of &lt;1&nbsp;MPa at rest",
            "a strength of <1 MPa at rest"
        ),
        ["a strength of <1 MPa at rest"]
    );
}

#[test]
fn a_link_with_a_title_is_read_as_its_label() {
    assert_eq!(
        stored(
            "It holds for [symmetric matrices](https://en.example/wiki/Symmetric_matrix \"Symmetric matrix\") of any size.",
            "It holds for symmetric matrices of any size."
        ),
        ["It holds for symmetric matrices of any size."]
    );
}

#[test]
fn a_spaced_hyphen_stands_for_an_unspaced_dash_and_the_pages_dash_is_stored() {
    assert_eq!(
        stored(
            "water at a precise temperature—around 85-90°F—to mix my dough",
            "temperature - around 85-90°F - to mix"
        ),
        ["temperature—around 85-90°F—to mix"]
    );
}

#[test]
fn a_wrapped_blockquote_reads_as_one_sentence_without_its_markers() {
    assert_eq!(
        stored(
            "> The cells store more energy than conventional\n> lithium-ion cells of that size.",
            "more energy than conventional lithium-ion cells"
        ),
        ["more energy than conventional lithium-ion cells"]
    );
}

#[test]
fn soft_hyphens_and_zero_width_characters_do_not_split_words() {
    assert_eq!(
        stored(
            "an extra\u{ad}ordinary claim needs zero\u{200b}width proof",
            "an extraordinary claim needs zerowidth proof"
        ),
        ["an extraordinary claim needs zerowidth proof"]
    );
}

#[test]
fn tags_and_note_markers_are_seen_through() {
    assert_eq!(
        stored(
            "The formula H<sub>2</sub>O names water,[3][4] as every chemist knows.",
            "The formula H2O names water, as every chemist knows."
        ),
        ["The formula H2O names water, as every chemist knows."]
    );
}

#[test]
fn a_changed_digit_or_word_is_still_refused() {
    let (sb, p) = with_page("The board forecast inflation to be around 7.75 percent over 2022.");
    for quote in [
        "forecast inflation to be around 7.76 percent",
        "forecast inflation to be about 7.75 percent",
    ] {
        let out = sb.run(&["quote", "1", "--text", quote, "--from", &p]);
        assert_eq!(out.code, 1, "{quote:?}");
        assert!(
            out.stderr
                .starts_with("error: quote not found verbatim in the evidence text"),
            "{}",
            out.stderr
        );
    }
    assert!(texts(&sb).is_empty());
}

/// The false accept of issue 20: a quote whose link target differs from the page's was
/// accepted and stored as typed, so a URL and digits not on the page became evidence.
#[test]
fn a_link_target_only_the_quote_has_never_enters_the_evidence() {
    let page = "As [the Post reported](https://www.washingtonpost.example/wp/2014/11/17/story/) on Monday, the dam held.";
    let typed =
        "As [the Post reported](https://evil.example/2014/41/17/story/) on Monday, the dam held.";
    let (sb, p) = with_page(page);
    sb.ok(&["quote", "1", "--text", typed, "--from", &p]);
    assert_eq!(
        texts(&sb),
        ["As the Post reported on Monday, the dam held."]
    );
    // (Its history shows the command line as given: what was typed, not evidence.)
    let show = sb.ok(&["show", "1"]);
    let shown = show.split("history:").next().unwrap().to_string();
    let evidence = sb.ok(&["render", "--style", "evidence"]);
    let csl = sb.ok(&["export", "--format", "csl-json"]);
    let hermes = sb.ok(&["export", "--format", "hermes-json"]);
    for (what, out) in [
        ("show", &shown),
        ("render --style evidence", &evidence),
        ("csl-json", &csl),
        ("hermes-json", &hermes),
    ] {
        assert!(!out.contains("evil.example"), "{what}: {out}");
        assert!(!out.contains("41"), "{what}: {out}");
    }
    assert!(
        evidence.contains("As the Post reported on Monday, the dam held."),
        "{evidence}"
    );
    // The text as typed is kept in the log, beside the page's words.
    let log = sb.ok(&["log"]);
    assert!(
        log.contains("quoted [1] \"As the Post reported on Monday, the dam held.\""),
        "{log}"
    );
    assert!(log.contains(&format!("typed as \"{typed}\"")), "{log}");
}

#[test]
fn a_quote_typed_as_the_page_has_it_logs_no_typed_text() {
    let (sb, p) = with_page("The quick brown fox jumps over the lazy dog.");
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "quick brown fox jumps",
        "--from",
        &p,
    ]);
    assert!(!sb.ok(&["log"]).contains("typed as"));
}

#[test]
fn the_same_words_typed_differently_are_stored_once() {
    let (sb, p) = with_page("water at a precise temperature—around 85-90°F—to mix my dough");
    for typed in [
        "temperature - around 85-90°F - to mix",
        "temperature -- around 85–90°F -- to mix",
        "temperature—around 85-90°F—to mix",
    ] {
        assert_eq!(
            sb.ok(&["quote", "1", "--text", typed, "--from", &p]),
            "[1] evidence attached (1 quote(s))\n"
        );
    }
    assert_eq!(texts(&sb), ["temperature—around 85-90°F—to mix"]);
}

#[test]
fn audit_finds_the_stored_words_where_the_quote_was() {
    let (sb, p) = with_page(
        "> As [the Post reported](https://wp.example/2014/11/17/ \"The Post\") on\n> Monday &amp; Tuesday, the dam—a 1930s build—held.",
    );
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "the Post reported on Monday & Tuesday, the dam - a 1930s build - held",
        "--from",
        &p,
    ]);
    assert_eq!(
        texts(&sb),
        ["the Post reported on Monday & Tuesday, the dam—a 1930s build—held"]
    );
    let out = sb.run(&["audit"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}
