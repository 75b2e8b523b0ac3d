//! `quote` through the binary: the success line and the three refusals (other tools match
//! them), trimming, de-duplication, the matching rules (whitespace, case, markdown, Unicode
//! folding, CJK word counting), evidence from a file, stdin or an `add --snapshot` page,
//! unreadable evidence, and what the ledger shows afterwards (`list`, `show`, `log`, the
//! stored snapshot and its TextQuoteSelector).

use std::time::Duration;

use predicates::prelude::*;
use serde_json::Value;

use cite_store::Store;
use cite_store::event::{Epoch, SourceId};

use crate::util::Sandbox;

const TOO_SHORT: &str = "error: quote too short — use at least 3 words of verbatim text\n";
const NOT_FOUND: &str = "error: quote not found verbatim in the evidence text — copy the exact wording from the fetched page, do not paraphrase\n";

/// NOT_FOUND followed by the closest passage, shown at `line` of the page.
fn not_found_near(line: u32, passage: &str) -> String {
    format!("{NOT_FOUND}closest on the page (line {line}): \"{passage}\"\n")
}

const PAGE: &str = "Hello there. The **quick** brown [fox](https://x.example/fox) jumps over \
the lazy dog.\nA second   paragraph\twith    odd spacing follows here.\n";

/// A sandbox with `https://a.example/page` as [1] and the page text in `page.txt`.
fn with_source(page: &str) -> (Sandbox, std::path::PathBuf) {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/page", "--title", "A page"]);
    let p = sb.file("page.txt", page);
    (sb, p)
}

/// `cite quote ID --text T --from FILE`, asserting success; returns stdout.
fn quote(sb: &Sandbox, id: &str, text: &str, from: &std::path::Path) -> String {
    sb.ok(&[
        "quote",
        id,
        "--text",
        text,
        "--from",
        from.to_str().unwrap(),
    ])
}

/// Asserts `quote` refuses `text` against `page` with `stderr`, exit 1.
fn refused(page: &str, text: &str, stderr: &str) {
    let (sb, p) = with_source(page);
    sb.cite()
        .args(["quote", "1", "--text", text, "--from"])
        .arg(&p)
        .assert()
        .code(1)
        .stdout("")
        .stderr(stderr.to_string());
}

/// `show ID --json` parsed.
fn show(sb: &Sandbox, id: &str) -> Value {
    serde_json::from_str(&sb.ok(&["show", id, "--json"])).expect("show --json is JSON")
}

/// The stored texts of source `id`'s quotes (also used by `page_words`).
pub(crate) fn quote_texts(sb: &Sandbox, id: &str) -> Vec<String> {
    let shown = show(sb, id);
    // An unquoted source may leave `quotes` out.
    shown["quotes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|q| q["text"].as_str().unwrap().to_string())
        .collect()
}

/// Every char of `text` from `start` to `end` (char offsets).
fn chars(text: &str, start: u64, end: u64) -> String {
    text.chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect()
}

/// Asserts `text` is accepted against `page` as [1]'s first quote.
fn accepted(page: &str, text: &str) {
    let (sb, p) = with_source(page);
    let out = sb
        .cite()
        .args(["quote", "1", "--text", text, "--from"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{text:?} against {page:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[1] evidence attached (1 quote(s))\n"
    );
}

// ---- the printed lines -----------------------------------------------------------------

#[test]
fn success_prints_the_id_and_the_quote_count() {
    let (sb, p) = with_source(PAGE);
    sb.cite()
        .args(["quote", "1", "--text", "quick brown fox jumps", "--from"])
        .arg(&p)
        .assert()
        .success()
        .stderr("")
        .stdout("[1] evidence attached (1 quote(s))\n");
    sb.cite()
        .args(["quote", "1", "--text", "the lazy dog", "--from"])
        .arg(&p)
        .assert()
        .success()
        .stdout("[1] evidence attached (2 quote(s))\n");
}

#[test]
fn fewer_than_three_words_is_too_short() {
    refused(PAGE, "quick brown", TOO_SHORT);
    refused(PAGE, "   quick   ", TOO_SHORT);
    refused(PAGE, "", TOO_SHORT);
}

#[test]
fn a_paraphrase_is_not_found() {
    refused(
        PAGE,
        "the fast brown fox",
        &not_found_near(1, "The quick brown fox"),
    );
    refused(
        PAGE,
        "lazy dog jumps over",
        &not_found_near(1, "jumps over the lazy"),
    );
}

#[test]
fn an_unknown_id_is_refused() {
    let (sb, p) = with_source(PAGE);
    sb.cite()
        .args(["quote", "7", "--text", "quick brown fox", "--from"])
        .arg(&p)
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: no source [7] in the ledger\n");
    // And on a ledger that does not exist yet.
    let empty = Sandbox::new();
    let p = empty.file("page.txt", PAGE);
    empty
        .cite()
        .args(["quote", "1", "--text", "quick brown fox", "--from"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "error: no source [1] in the ledger",
        ));
}

#[test]
fn a_refused_quote_stores_nothing() {
    let (sb, p) = with_source(PAGE);
    sb.cite()
        .args(["quote", "1", "--text", "not in the page", "--from"])
        .arg(&p)
        .assert()
        .code(1);
    assert!(quote_texts(&sb, "1").is_empty());
    assert!(!sb.ok(&["log"]).contains("quoted"));
}

// ---- what is stored ----------------------------------------------------------------------

#[test]
fn the_text_is_trimmed() {
    let (sb, p) = with_source(PAGE);
    quote(&sb, "1", "  \n\tquick brown fox jumps \n", &p);
    assert_eq!(quote_texts(&sb, "1"), ["quick brown fox jumps"]);
}

/// Issue 20: what is stored is the page's words; the typed text is in the log beside them.
#[test]
fn the_stored_quote_is_the_pages_words() {
    let (sb, p) = with_source(PAGE);
    quote(&sb, "1", "QUICK brown *fox*   jumps", &p);
    assert_eq!(quote_texts(&sb, "1"), ["quick brown fox jumps"]);
    assert!(
        sb.ok(&["log"])
            .contains("quote 1 of [1] was typed as \"QUICK brown *fox*   jumps\"")
    );
}

#[test]
fn the_same_quote_twice_is_stored_once() {
    let (sb, p) = with_source(PAGE);
    assert_eq!(
        quote(&sb, "1", "quick brown fox jumps", &p),
        "[1] evidence attached (1 quote(s))\n"
    );
    for same in [
        "quick brown fox jumps",
        "  quick brown fox jumps  ",
        "QUICK Brown FOX jumps",
        "quick\n  brown\tfox   jumps",
        "**quick** brown [fox](https://x.example/fox) jumps",
        "_quick_ `brown` fox ~jumps~",
    ] {
        assert_eq!(
            quote(&sb, "1", same, &p),
            "[1] evidence attached (1 quote(s))\n",
            "{same:?}"
        );
    }
    assert_eq!(quote_texts(&sb, "1"), ["quick brown fox jumps"]);
    assert_eq!(sb.ok(&["log"]).matches("quoted [1]").count(), 1);
}

// ---- matching ------------------------------------------------------------------------------

#[test]
fn matching_ignores_whitespace_runs() {
    accepted(PAGE, "second paragraph with odd spacing");
    accepted(PAGE, "the lazy dog. A second paragraph");
    accepted("one\n\ntwo\r\n three  four", "one two three four");
}

#[test]
fn matching_ignores_case() {
    accepted(PAGE, "THE LAZY DOG");
    accepted("Ice Floats On Water", "ice floats on water");
}

#[test]
fn matching_folds_unicode_case() {
    accepted("Die Straße ist lang und breit.", "die STRASSE ist lang");
    accepted("DIE STRASSE IST LANG", "die straße ist");
    accepted("ΣΟΦΊΑ ΚΑΙ ΓΝΏΣΗ ΕΔΏ", "σοφία και γνώση");
    accepted("Die ÄPFEL sind rot", "die äpfel sind");
}

#[test]
fn links_count_as_their_label() {
    accepted(
        "See [the full report](https://r.example/a_(b)) for details.",
        "see the full report for details",
    );
    // On the quote side too.
    accepted(
        "See the full report for details.",
        "see [the full report](https://elsewhere.example) for",
    );
    // The link target is not text.
    refused(
        "See [the full report](https://r.example/annual) for details.",
        "r.example/annual for details",
        NOT_FOUND,
    );
}

#[test]
fn markdown_noise_is_ignored() {
    accepted(
        "**bold** and _italic_ and `code` and ~~struck~~ words",
        "bold and italic and code and struck words",
    );
    accepted(
        "plain words in a row here",
        "**plain** _words_ in `a` ~row~ here",
    );
    accepted("snake_case_name is used here", "snakecasename is used");
}

#[test]
fn backslash_escapes_before_punctuation_are_ignored() {
    accepted(
        r"The price is \$5 per unit \(net\) today\!",
        "price is $5 per unit (net) today!",
    );
    accepted("The price is $5 per unit", r"price is \$5 per");
    accepted(
        r"a markdown\_escaped\_name appears",
        "a markdown_escaped_name appears",
    );
    // A backslash before a letter is text, not an escape.
    refused(
        r"path C:\temp\new folder here",
        "c:temp new folder",
        &not_found_near(1, r"C:\temp\new folder"),
    );
}

#[test]
fn cjk_quotes_count_two_characters_as_a_word() {
    let page = "氷は水より軽いので、水に浮かぶ。これはよく知られた事実です。";
    // 1 token + 5 CJK characters / 2 = 3 words.
    accepted(page, "水より軽い");
    accepted(page, "これはよく知られた事実です");
    // 1 token + 4 / 2 = 3 words.
    accepted(page, "水に浮かぶ");
    // Kana count too: 1 token + 4 / 2 = 3 words.
    accepted(page, "水より軽");
    // 1 token + 3 / 2 = 2 words; 1 token + 2 / 2 = 2 words.
    refused(page, "水より", TOO_SHORT);
    refused(page, "軽い", TOO_SHORT);
    refused(page, "水より重いので", &not_found_near(1, "水より軽いので"));
    // Mixed scripts: 2 tokens + 2 / 2.
    accepted("Der Begriff 水曜 bedeutet Mittwoch.", "Begriff 水曜");
}

// ---- evidence sources --------------------------------------------------------------------

#[test]
fn evidence_from_stdin() {
    let (sb, _) = with_source(PAGE);
    sb.cite()
        .args(["quote", "1", "--text", "over the lazy dog", "--from", "-"])
        .write_stdin(PAGE)
        .assert()
        .success()
        .stdout("[1] evidence attached (1 quote(s))\n");
    sb.cite()
        .args(["quote", "1", "--text", "not on the page", "--from", "-"])
        .write_stdin(PAGE)
        .assert()
        .code(1)
        .stderr(NOT_FOUND);
}

#[test]
fn a_missing_evidence_file_is_a_usage_error() {
    let (sb, _) = with_source(PAGE);
    let missing = sb.path().join("nope.txt");
    sb.cite()
        .args(["quote", "1", "--text", "quick brown fox", "--from"])
        .arg(&missing)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("nope.txt"))
        .stderr(predicate::str::contains("panicked").not());
    assert!(quote_texts(&sb, "1").is_empty());
}

#[test]
fn evidence_that_is_not_utf8_is_a_usage_error() {
    let (sb, _) = with_source(PAGE);
    let bad = sb.path().join("bad.txt");
    std::fs::write(&bad, b"quick brown \xff\xfe fox jumps over").unwrap();
    sb.cite()
        .args(["quote", "1", "--text", "quick brown fox", "--from"])
        .arg(&bad)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("bad.txt"))
        .stderr(predicate::str::contains("not UTF-8"))
        .stderr(predicate::str::contains("panicked").not());
    // From stdin, too.
    sb.cite()
        .args(["quote", "1", "--text", "quick brown fox", "--from", "-"])
        .write_stdin(&b"quick brown fox \xc3\x28 jumps"[..])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not UTF-8"));
    assert!(quote_texts(&sb, "1").is_empty());
}

#[test]
fn a_snapshot_registered_with_add_is_the_default_evidence() {
    let sb = Sandbox::new();
    let p = sb.file("page.txt", PAGE);
    sb.cite()
        .args(["add", "https://a.example/page", "--snapshot"])
        .arg(&p)
        .assert()
        .success()
        .stdout("[1] https://a.example/page\n");
    sb.cite()
        .args(["quote", "1", "--text", "brown fox jumps over"])
        .assert()
        .success()
        .stdout("[1] evidence attached (1 quote(s))\n");
    sb.cite()
        .args(["quote", "1", "--text", "brown cat jumps over"])
        .assert()
        .code(1)
        .stderr(not_found_near(1, "brown fox jumps over"));
    sb.cite()
        .args(["quote", "1", "--text", "brown fox"])
        .assert()
        .code(1)
        .stderr(TOO_SHORT);
    // The quote points into the registered snapshot.
    let shown = show(&sb, "1");
    let hash = shown["snapshots"][0].as_str().expect("a snapshot hash");
    assert_eq!(shown["quotes"][0]["snapshot"].as_str(), Some(hash));
}

#[test]
fn snapshot_applies_to_one_url_only() {
    let sb = Sandbox::new();
    let p = sb.file("page.txt", PAGE);
    sb.cite()
        .args([
            "add",
            "https://a.example",
            "https://b.example",
            "--snapshot",
        ])
        .arg(&p)
        .assert()
        .code(2)
        .stdout("");
    sb.cite()
        .arg("list")
        .assert()
        .success()
        .stdout(format!("ledger is empty: {}\n", sb.ledger.display()));
}

#[test]
fn without_from_or_snapshot_there_is_no_evidence() {
    let (sb, _) = with_source(PAGE);
    sb.cite()
        .args(["quote", "1", "--text", "quick brown fox"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--from"))
        .stderr(predicate::str::contains("panicked").not());
    assert!(quote_texts(&sb, "1").is_empty());
}

#[test]
fn a_ten_megabyte_page_works() {
    let mut page = String::with_capacity(10 * 1024 * 1024 + 100);
    let mut i = 0u64;
    while page.len() < 10 * 1024 * 1024 {
        page.push_str(&format!(
            "Filler **sentence** number {i} about [nothing](https://n.example/{i}) in particular. "
        ));
        if i % 8 == 7 {
            page.push('\n');
        }
        i += 1;
    }
    page.push_str("The needle sits at the very end of the page.\n");
    let (sb, p) = with_source(&page);
    quote(&sb, "1", "the needle sits at the very end", &p);
    quote(&sb, "1", "sentence number 12345 about nothing", &p);
    assert_eq!(quote_texts(&sb, "1").len(), 2);
}

// ---- what the ledger shows ---------------------------------------------------------------

#[test]
fn list_shows_the_quote_count() {
    let (sb, p) = with_source(PAGE);
    sb.ok(&["add", "https://b.example"]);
    quote(&sb, "1", "quick brown fox", &p);
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example/page  A page  (1 quote)\n[2] https://b.example\n"
    );
    quote(&sb, "1", "the lazy dog", &p);
    quote(&sb, "2", "second paragraph with", &p);
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example/page  A page  (2 quotes)\n[2] https://b.example  (1 quote)\n"
    );
}

#[test]
fn list_json_includes_the_quotes() {
    let (sb, p) = with_source(PAGE);
    quote(&sb, "1", "quick brown fox", &p);
    quote(&sb, "1", "the lazy dog", &p);
    let list: Vec<Value> = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let quotes = list[0]["quotes"].as_array().expect("quotes");
    assert_eq!(quotes.len(), 2);
    assert_eq!(quotes[0]["text"], "quick brown fox");
    assert_eq!(quotes[1]["text"], "the lazy dog");
    for q in quotes {
        let added = q["added"].as_str().expect("added");
        assert_eq!(added.len(), 10, "{added}");
        assert_eq!(&added[4..5], "-");
    }
}

#[test]
fn show_lists_quotes_with_their_snapshot() {
    let (sb, p) = with_source(PAGE);
    quote(&sb, "1", "quick brown fox", &p);
    let hash = blake3::hash(PAGE.as_bytes()).to_hex().to_string();
    let out = sb.ok(&["show", "1"]);
    assert!(out.contains("quick brown fox"), "{out}");
    assert!(out.contains(&hash), "{out}");
    let shown = show(&sb, "1");
    assert_eq!(shown["quotes"][0]["snapshot"].as_str(), Some(hash.as_str()));
}

#[test]
fn log_records_a_quoted_event() {
    let (sb, p) = with_source(PAGE);
    quote(&sb, "1", "quick brown fox", &p);
    let log = sb.ok(&["log"]);
    assert!(log.contains("quoted [1]"), "{log}");
    assert!(log.contains("quick brown fox"), "{log}");
    let by_id = sb.ok(&["log", "--id", "1"]);
    assert!(by_id.contains("quoted [1]"), "{by_id}");
}

#[test]
fn a_page_is_stored_once_and_selectors_point_into_it() {
    let (sb, p) = with_source(PAGE);
    sb.ok(&["add", "https://b.example"]);
    quote(&sb, "1", "quick brown fox jumps", &p);
    quote(&sb, "1", "second paragraph with odd", &p);
    quote(&sb, "2", "hello there. the", &p);

    let store = Store::open_read(&sb.ledger, Duration::from_secs(5))
        .expect("open")
        .expect("the ledger exists");
    let reader = store.read().expect("read");
    let epoch = Epoch(1);
    let q1 = reader.quotes(epoch, SourceId(1)).unwrap();
    let q2 = reader.quotes(epoch, SourceId(2)).unwrap();
    assert_eq!(q1.len(), 2);
    assert_eq!(q2.len(), 1);
    // One page, one snapshot, whichever source or quote it backs.
    assert_eq!(q1[0].snapshot, q1[1].snapshot);
    assert_eq!(q1[0].snapshot, q2[0].snapshot);
    assert_eq!(
        q1[0].snapshot,
        Some(*blake3::hash(PAGE.as_bytes()).as_bytes())
    );
    let page = reader
        .snapshot(&q1[0].snapshot.expect("checked quotes have a snapshot"))
        .unwrap()
        .expect("snapshot stored");
    assert_eq!(page, PAGE);

    for q in q1.iter().chain(&q2) {
        let sel = q.selector.as_ref().expect("checked quotes have a selector");
        assert_eq!(chars(&page, sel.start, sel.end), sel.exact, "{q:?}");
        assert_eq!(
            cite_core::evidence::match_key(&sel.exact),
            cite_core::evidence::match_key(&q.text),
            "{q:?}"
        );
        let before = chars(&page, 0, sel.start);
        assert!(before.ends_with(&sel.prefix), "{q:?}");
        assert!(sel.prefix.chars().count() <= 32);
        let after: String = page.chars().skip(sel.end as usize).collect();
        assert!(after.starts_with(&sel.suffix), "{q:?}");
        assert!(sel.suffix.chars().count() <= 32);
    }
    assert_eq!(
        q1[0].selector.as_ref().unwrap().exact,
        "quick** brown [fox](https://x.example/fox) jumps"
    );
    assert_eq!(q2[0].selector.as_ref().unwrap().start, 0);
}

#[test]
fn selectors_count_chars_not_bytes() {
    let page = "Ünïcödé prefix — then the quoted words appear here, after ß and 氷.";
    let (sb, p) = with_source(page);
    quote(&sb, "1", "the quoted words appear", &p);
    quote(&sb, "1", "after SS and 氷", &p);
    let shown = show(&sb, "1");
    for q in shown["quotes"].as_array().unwrap() {
        let sel = &q["selector"];
        let (start, end) = (sel["start"].as_u64().unwrap(), sel["end"].as_u64().unwrap());
        assert_eq!(
            chars(page, start, end),
            sel["exact"].as_str().unwrap(),
            "{q}"
        );
    }
    assert_eq!(
        shown["quotes"][0]["selector"]["exact"],
        "the quoted words appear"
    );
    assert_eq!(shown["quotes"][1]["selector"]["exact"], "after ß and 氷");
}

#[test]
fn a_second_page_gets_its_own_snapshot() {
    let (sb, p) = with_source(PAGE);
    let other = sb.file("other.txt", "An entirely different page with other words.");
    quote(&sb, "1", "quick brown fox", &p);
    quote(&sb, "1", "entirely different page", &other);
    let shown = show(&sb, "1");
    let quotes = shown["quotes"].as_array().unwrap();
    assert_ne!(quotes[0]["snapshot"], quotes[1]["snapshot"]);
}

// ---- issue 9: typography, markup that is not words, the closest passage, shared pages ----

const TYPOGRAPHIC: &str = "Notes.\nHe said “it’s done” — and left… The 1990–2000 data.\n";

/// A sandbox with `https://a.example/page` as [1], `page` stored with `add --snapshot`.
fn with_snapshot(page: &str) -> Sandbox {
    let sb = Sandbox::new();
    let p = sb.file("page.txt", page);
    sb.cite()
        .args(["add", "https://a.example/page", "--snapshot"])
        .arg(&p)
        .assert()
        .success();
    sb
}

/// `cite quote` with `args` after `quote`, returning (exit code, stdout, stderr).
fn run_quote(sb: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let out = sb.cite().arg("quote").args(args).output().unwrap();
    (
        out.status.code().expect("exited"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Issue 9.
#[test]
fn a_plain_quote_matches_typographic_page_text_and_points_at_it() {
    let (sb, p) = with_source(TYPOGRAPHIC);
    let from = p.to_str().unwrap();
    assert_eq!(
        run_quote(
            &sb,
            &[
                "1",
                "--text",
                r#"he said "it's done" - and left..."#,
                "--from",
                from
            ]
        ),
        (
            0,
            "[1] evidence attached (1 quote(s))\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run_quote(&sb, &["1", "--text", "the 1990-2000 data", "--from", from]).0,
        0
    );
    let shown = show(&sb, "1");
    let sel = &shown["quotes"][0]["selector"];
    assert_eq!(sel["exact"], "He said “it’s done” — and left…");
    assert_eq!(
        (sel["start"].as_u64(), sel["end"].as_u64()),
        (Some(7), Some(38))
    );
    assert_eq!(sel["prefix"], "Notes.\n");
    assert_eq!(
        shown["quotes"][1]["selector"]["exact"],
        "The 1990–2000 data"
    );
    // The stored text is the page's words (issue 20); `audit` finds both again at their
    // selectors.
    assert_eq!(
        shown["quotes"][0]["text"],
        "He said “it’s done” — and left…"
    );
    assert_eq!(shown["quotes"][1]["text"], "The 1990–2000 data");
    crate::audit::audit_ok(&sb.ledger);
}

/// Issue 9.
#[test]
fn a_typographic_quote_matches_plain_page_text() {
    let page = "He said \"it's done\" -- and left... then 1990-2000\u{a0}data.";
    accepted(page, "he said “it’s done” — and left…");
    accepted(page, "then 1990–2000 data");
    refused(
        page,
        "he said “it’s over” — and",
        &not_found_near(1, r#"He said "it's done" -- and"#),
    );
}

/// Issue 9: a quote the previous version stored (found by the reference key, at the
/// second place on the page, after a typographic variant) still audits: its selector is
/// where `find` puts it today.
#[test]
fn a_quote_stored_by_the_previous_version_still_audits() {
    let page = "First “it’s here” now, then \"it's here\" now.";
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/page"]);
    let store = Store::open_write(
        &sb.ledger,
        cite_store::lock::LockMode::Write,
        Duration::from_secs(5),
    )
    .unwrap();
    let origin = cite_store::event::Origin {
        at_ns: 0,
        pid: 1,
        actor: None,
        command: vec!["cite".into(), "quote".into()],
    };
    store
        .write(&origin, Duration::from_secs(5), |w| {
            let snapshot = w.put_snapshot(page)?.0;
            w.append(cite_store::event::Event::QuoteAttached(
                cite_store::event::QuoteAttached {
                    epoch: Epoch(1),
                    id: SourceId(1),
                    text: "\"it's here\" now".into(),
                    snapshot,
                    selector: cite_store::event::TextQuote {
                        exact: "\"it's here\" now".into(),
                        prefix: "First “it’s here” now, then ".into(),
                        suffix: ".".into(),
                        start: 28,
                        end: 43,
                    },
                    added: "2026-01-01".into(),
                },
            ))
            .map(|_| ())
        })
        .unwrap();
    drop(store);
    crate::audit::audit_ok(&sb.ledger);
}

/// Issue 9.
#[test]
fn markdown_noise_is_not_words() {
    // `A second` is on the page: before issue 9, `* * * a` counted as 4 words and matched.
    refused(PAGE, "* * * a", TOO_SHORT);
    refused(PAGE, "** quick ** brown", TOO_SHORT);
    refused(PAGE, "[quick](https://x.example/q) _ brown", TOO_SHORT);
    // Markup on real words leaves them words.
    accepted(PAGE, "**quick** brown _fox_");
    // The same rule without --from, against the page stored with `add --snapshot`.
    let sb = with_snapshot(PAGE);
    assert_eq!(
        run_quote(&sb, &["1", "--text", "* * * a"]),
        (1, String::new(), TOO_SHORT.into())
    );
}

/// Issue 9.
#[test]
fn a_refused_quote_shows_the_closest_passage() {
    // (`a_paraphrase_is_not_found` shows it on the first line, markdown included.)
    // On a later line, shown on one line however the page breaks it.
    refused(
        PAGE,
        "a second paragraph with strange spacing",
        &not_found_near(2, "A second paragraph with odd spacing"),
    );
    // Typed plainly against typographic text: the page's own characters are shown.
    refused(
        TYPOGRAPHIC,
        r#"he said "it's finished" - and left"#,
        &not_found_near(2, "He said “it’s done” — and left"),
    );
}

/// Issue 9.
#[test]
fn no_closest_passage_when_nothing_on_the_page_is_close() {
    refused(PAGE, "an entirely unrelated sentence", NOT_FOUND);
    // One word in common out of six is not close.
    refused(PAGE, "the dogs never sleep at noon", NOT_FOUND);
}

/// Issue 9.
#[test]
fn a_refused_quote_against_a_stored_snapshot_shows_the_closest_passage() {
    let sb = with_snapshot(PAGE);
    assert_eq!(
        run_quote(&sb, &["1", "--text", "the fast brown fox"]),
        (1, String::new(), not_found_near(1, "The quick brown fox"))
    );
}

/// Issue 9.
#[test]
fn the_closest_passage_does_not_reach_the_terminal_raw() {
    refused(
        "one two \u{1b}[2J three four five",
        "one two three six",
        &not_found_near(1, "one two \u{fffd}[2J three"),
    );
}

/// Issue 9.
#[test]
fn page_text_stored_for_another_source_is_noted() {
    let (sb, p) = with_source(PAGE);
    let from = p.to_str().unwrap();
    sb.ok(&["add", "https://b.example"]);
    sb.ok(&["add", "https://c.example"]);
    // The first source to get the page: nothing to note.
    assert_eq!(
        run_quote(&sb, &["1", "--text", "quick brown fox", "--from", from]),
        (
            0,
            "[1] evidence attached (1 quote(s))\n".into(),
            String::new()
        )
    );
    // The same source again: still nothing.
    assert_eq!(
        run_quote(&sb, &["1", "--text", "the lazy dog", "--from", from]),
        (
            0,
            "[1] evidence attached (2 quote(s))\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run_quote(&sb, &["3", "--text", "the lazy dog", "--from", from]),
        (
            0,
            "[3] evidence attached (1 quote(s))\n".into(),
            "note: this page text is also stored for [1]\n".into()
        )
    );
    let (code, out, err) = run_quote(
        &sb,
        &["2", "--text", "the lazy dog", "--from", from, "--json"],
    );
    assert_eq!(
        (code, err.as_str()),
        (0, "note: this page text is also stored for [1], [3]\n")
    );
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["page_also_stored_for"], serde_json::json!([1, 3]));
    // A quote checked against another page notes nothing, and its JSON has no such field.
    let other = sb.file("other.txt", "An entirely different page with other words.");
    let (code, out, err) = run_quote(
        &sb,
        &[
            "2",
            "--text",
            "entirely different page",
            "--from",
            other.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json.get("page_also_stored_for"), None);
    // `add --snapshot` notes it too; stdout is unchanged.
    sb.cite()
        .args(["add", "https://d.example", "--snapshot"])
        .arg(&p)
        .assert()
        .success()
        .stdout("[4] https://d.example\n")
        .stderr("note: this page text is also stored for [1], [2], [3]\n");
    // A source's own default snapshot is not another source's.
    sb.cite()
        .args(["quote", "4", "--text", "quick brown fox"])
        .assert()
        .success()
        .stdout("[4] evidence attached (1 quote(s))\n")
        .stderr("");
}

/// Issue 9.
#[test]
fn page_text_of_an_earlier_epoch_is_not_noted() {
    let (sb, p) = with_source(PAGE);
    let from = p.to_str().unwrap();
    run_quote(&sb, &["1", "--text", "quick brown fox", "--from", from]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://b.example"]);
    sb.ok(&["add", "https://c.example"]);
    assert_eq!(
        run_quote(&sb, &["2", "--text", "quick brown fox", "--from", from]),
        (
            0,
            "[2] evidence attached (1 quote(s))\n".into(),
            String::new()
        )
    );
}

/// Issue 20, item 4: a quote that starts with a minus sign or a list dash is a value, not
/// a flag (it was `unexpected argument '-4'`, exit 2).
#[test]
fn a_quote_starting_with_a_dash_is_taken_as_text() {
    let (sb, page) = with_source("At -40 degrees the two scales meet.\n- a list item here\n");
    assert_eq!(
        quote(&sb, "1", "-40 degrees the two scales meet", &page),
        "[1] evidence attached (1 quote(s))\n"
    );
    assert_eq!(
        quote(&sb, "1", "- a list item here", &page),
        "[1] evidence attached (2 quote(s))\n"
    );
}

/// A title that starts with a dash is a value too.
#[test]
fn a_title_starting_with_a_dash_is_taken_as_text() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example/cold",
        "--title",
        "-40: where the scales meet",
    ]);
    assert!(sb.ok(&["list"]).contains("-40: where the scales meet"));
}

// ---- quotes as readers write them: markers, ellipses, escapes ----------------------------

#[test]
fn an_escaped_character_is_stored_as_the_reader_sees_it() {
    let page =
        r"Carriers of HLA-B\*27 are at risk. Written in C\+\+ and \#rust by snake\_case fans.";
    let (sb, p) = with_source(page);
    for typed in [
        "Carriers of HLA-B*27 are at risk",
        "Written in C++ and #rust",
        "by snake_case fans",
    ] {
        quote(&sb, "1", typed, &p);
    }
    assert_eq!(
        quote_texts(&sb, "1"),
        [
            "Carriers of HLA-B*27 are at risk",
            "Written in C++ and #rust",
            "by snake_case fans"
        ]
    );
    crate::audit::audit_ok(&sb.ledger);
}

const MINUTES: &str = "# Minutes\n\nThe committee met on Tuesday. It said that tighter \
monetary conditions had begun to weigh on demand, and that the base rate tightening cycle \
was close to its end.[^1] Members voted 7–2 to hold the rate.\n\n[^1]: The vote was held \
in 1887[^2] the society's old hall.\n";

#[test]
fn a_note_marker_typed_as_the_reader_sees_it_is_accepted() {
    let (sb, p) = with_source(MINUTES);
    // The reader sees `1887[2]` (or `1887²`) where the page writes `1887[^2]`.
    assert_eq!(
        quote(&sb, "1", "held in 1887[2] the society's old hall", &p),
        "[1] evidence attached (1 quote(s))\n"
    );
    assert_eq!(
        quote(&sb, "1", "close to its end.¹ Members voted", &p),
        "[1] evidence attached (2 quote(s))\n"
    );
    assert_eq!(
        quote_texts(&sb, "1"),
        [
            "held in 1887[2] the society's old hall",
            "close to its end.[1] Members voted"
        ]
    );
    crate::audit::audit_ok(&sb.ledger);
    // Another number is another marker.
    refused(
        MINUTES,
        "held in 1887[3] the society's old hall",
        &not_found_near(5, "held in 1887[^2] the society's old hall"),
    );
}

#[test]
fn an_elided_quote_is_stored_as_the_pages_parts_and_audits() {
    let (sb, p) = with_source(MINUTES);
    let from = p.to_str().unwrap();
    assert_eq!(
        run_quote(
            &sb,
            &[
                "1",
                "--text",
                "\"…monetary conditions … the base rate tightening cycle…\"",
                "--from",
                from
            ]
        ),
        (
            0,
            "[1] evidence attached (1 quote(s))\n".into(),
            String::new()
        )
    );
    for typed in [
        "tighter monetary conditions [...] close to its end",
        "It said that ... weigh on demand",
    ] {
        run_quote(&sb, &["1", "--text", typed, "--from", from]);
    }
    assert_eq!(
        quote_texts(&sb, "1"),
        [
            "monetary conditions … the base rate tightening cycle",
            "tighter monetary conditions … close to its end",
            "It said that … weigh on demand"
        ]
    );
    // The selector spans the parts, so `audit` finds the quote again where it is.
    let shown = show(&sb, "1");
    let sel = &shown["quotes"][0]["selector"];
    let exact = sel["exact"].as_str().unwrap();
    assert!(
        exact.starts_with("monetary conditions had begun"),
        "{exact}"
    );
    assert!(exact.ends_with("the base rate tightening cycle"), "{exact}");
    assert_eq!(
        chars(
            MINUTES,
            sel["start"].as_u64().unwrap(),
            sel["end"].as_u64().unwrap()
        ),
        exact
    );
    crate::audit::audit_ok(&sb.ledger);
    // The same elision typed again is the same quote.
    assert_eq!(
        quote(
            &sb,
            "1",
            "monetary conditions ... the base rate tightening cycle",
            &p
        ),
        "[1] evidence attached (3 quote(s))\n"
    );
    // The evidence block prints the stored words.
    let block = sb.ok(&["render", "--style", "evidence"]);
    assert!(
        block.contains("> \"monetary conditions … the base rate tightening cycle\""),
        "{block}"
    );
}

#[test]
fn an_elided_quote_whose_part_is_missing_names_it() {
    refused(
        MINUTES,
        "monetary conditions … the interest rate tightening cycle",
        "error: quote not found verbatim in the evidence text — part 2 of 2 of the elided \
         quote, \"the interest rate tightening cycle\", is not on the page: copy the exact \
         wording of each part from the fetched page, do not paraphrase\nclosest on the page \
         (line 3): \"the base rate tightening cycle\"\n",
    );
    refused(
        MINUTES,
        "the base rate tightening cycle … tighter monetary conditions",
        "error: quote not found verbatim in the evidence text — each part of the elided quote \
         is on the page, but not in the quote's order: give the parts in the page's order\n",
    );
    refused(
        MINUTES,
        "monetary … the base rate tightening cycle",
        "error: quote too short — each part of an elided quote needs at least 2 words of \
         verbatim text, and \"monetary\" has fewer\n",
    );
    let far = format!(
        "The first claim is here. {}The second claim is there.\n",
        "Nothing of note was said. ".repeat(60)
    );
    refused(
        &far,
        "The first claim … The second claim",
        "error: quote not found verbatim in the evidence text — the parts of the elided quote \
         are on the page in its order, but more than 1000 characters of the page lie between \
         them: quote from one passage\n",
    );
}

/// The report shows an elided quote's parts, with their ellipsis, in the page's context:
/// not the text it leaves out as if it were quoted.
#[test]
fn the_report_shows_an_elided_quote_as_its_parts_in_context() {
    let (sb, p) = with_source(MINUTES);
    quote(
        &sb,
        "1",
        "tighter monetary conditions … the base rate tightening cycle",
        &p,
    );
    let draft = sb.file("draft.md", "The bank expects rates to stop rising.[1]\n");
    let out = sb.file("report.html", "");
    sb.ok(&[
        "report",
        draft.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains(
            "It said that <mark>tighter monetary conditions … the base rate tightening cycle</mark> was close"
        ),
        "{html}"
    );
    assert!(!html.contains("<mark>tighter monetary conditions had begun"));
}

#[test]
fn without_from_a_quote_is_checked_against_the_page_an_earlier_quote_stored() {
    let (sb, p) = with_source(PAGE);
    quote(&sb, "1", "quick brown fox jumps", &p);
    assert_eq!(
        run_quote(&sb, &["1", "--text", "the lazy dog"]),
        (
            0,
            "[1] evidence attached (2 quote(s))\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run_quote(&sb, &["1", "--text", "the lazy cat"]),
        (1, String::new(), not_found_near(1, "the lazy"))
    );
    let shown = show(&sb, "1");
    assert_eq!(
        shown["quotes"][0]["snapshot"],
        shown["quotes"][1]["snapshot"]
    );
    assert_eq!(shown["page_text"], true);
}
