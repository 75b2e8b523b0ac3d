//! The support check on small cases: what each written form of a figure reads as, and
//! what passes and fails against a page.

use super::scan::{self, Fact, Side, Sink};
use super::value::{Class, Date, Dec, Val};
use super::{Cited, FactKind, Pages, check};

struct Facts(Vec<Fact>);

impl Sink for Facts {
    fn fact(&mut self, fact: Fact) {
        self.0.push(fact);
    }
}

/// Each fact of `text` read as a sentence: (as written, readings).
fn facts(text: &str, side: Side) -> Vec<(String, Vec<(Val, Class)>)> {
    let mut f = Facts(Vec::new());
    scan::scan(text, side, &mut f);
    f.0.iter()
        .map(|x| {
            (
                text[x.start..x.end].to_string(),
                x.readings.iter().map(|r| (r.val, r.class)).collect(),
            )
        })
        .collect()
}

fn num(s: &str) -> Val {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = format!("{int}{frac}");
    Val::Num(Dec::from_digits(digits.as_bytes(), frac.len()).unwrap())
}

fn date(y: u16, m: u8, d: u8) -> Val {
    Val::Date(Date { y, m, d })
}

/// The one reading of the one fact of `text` (as a sentence).
fn one(text: &str) -> (Val, Class) {
    let f = facts(text, Side::Sentence);
    assert_eq!(f.len(), 1, "{text}: {f:?}");
    assert_eq!(f[0].1.len(), 1, "{text}: {f:?}");
    f[0].1[0]
}

#[test]
fn written_forms_of_one_figure_read_alike() {
    let pct = (num("9"), Class::Percent);
    for s in [
        "rose 9% last year",
        "rose 9 percent",
        "rose 9 per cent",
        "rose nine percent",
        "rose 9 %",
        "rose 9.0%",
    ] {
        assert_eq!(one(s), pct, "{s}");
    }
    let big = (num("2500000000"), Class::Bare);
    for s in [
        "a total of 2.5 billion",
        "a total of 2,500,000,000",
        "a total of 2.5bn",
        "a total of 2 500 000 000",
    ] {
        assert_eq!(one(s), big, "{s}");
    }
    let money = (num("2500000000"), Class::Money);
    for s in [
        "cost $2.5 billion",
        "cost 2.5 billion dollars",
        "cost US$2.5bn",
        "cost USD 2.5 billion",
    ] {
        assert_eq!(one(s), money, "{s}");
    }
    assert_eq!(
        one("raised by 50 basis points"),
        (num("0.5"), Class::Points)
    );
    assert_eq!(
        one("raised by half a percentage point"),
        (num("0.5"), Class::Points)
    );
    assert_eq!(one("raised by 50bps"), (num("0.5"), Class::Points));
    assert_eq!(one("some 1,000 people"), (num("1000"), Class::Bare));
    assert_eq!(one("at 4 °C overnight"), (num("4"), Class::Celsius));
    assert_eq!(one("at 85°F overnight"), (num("85"), Class::Fahrenheit));
    assert_eq!(one("a third is 1/3 here"), (Val::ratio(1, 3), Class::Bare));
    assert_eq!(
        one("it fell to -40 degrees"),
        (Val::Num(Dec::int(40).negated()), Class::Degrees)
    );
    assert_eq!(
        one("one hundred and twenty people"),
        (num("120"), Class::Bare)
    );
    assert_eq!(one("twenty-five people"), (num("25"), Class::Bare));
}

#[test]
fn pages_are_read_generously() {
    let page = |text: &str| -> Vec<Val> {
        facts(text, Side::Page)
            .into_iter()
            .flat_map(|(_, r)| r.into_iter().map(|(v, _)| v))
            .collect()
    };
    // A thousands comma an extraction split off.
    assert!(page("a formidable 6\n\n,350 km").contains(&num("6350")));
    assert!(page("(3 ,946 miles").contains(&num("3946")));
    // CJK numerals, Japanese tenths, Roman centuries, Arabic `and` glued to a number.
    assert!(page("関東八国250万石").contains(&num("8")));
    assert!(page("近百万劳动力").contains(&num("1000000")));
    assert!(page("識字率が7割を超えていた").contains(&num("70")));
    assert!(page("All'inizio del XII secolo").contains(&num("12")));
    assert!(page("بين 2630 و1530 قبل").contains(&num("1530")));
    // `a quarter of a percentage point`.
    assert!(page("by a quarter of a percentage point to").contains(&num("0.25")));
    assert!(page("in a dozen European countries").contains(&num("12")));
    // Sentences are read as written: none of these there.
    assert!(facts("All'inizio del XII secolo", Side::Sentence).is_empty());
}

#[test]
fn an_ordinal_needs_an_ordinal() {
    assert_eq!(one("in the 15th century"), (num("15"), Class::Ordinal));
    let p = pages(&[
        "It was 15 to 50 feet wide. In the XIV secolo, and the sixteenth, and 17. Jahrhundert, and 18世紀, and 19 века.",
    ]);
    assert_eq!(
        run("It was built in the 15th century.[1]", &[1], &p)
            .unsupported
            .len(),
        1
    );
    for s in [
        "It was built in the 14th century.[1]",
        "It was built in the 16th century.[1]",
        "It was built in the 17th century.[1]",
        "It was built in the 18th century.[1]",
        "It was built in the 19th century.[1]",
        "It was 15 feet wide, or 50.[1]",
    ] {
        assert!(run(s, &[1], &p).unsupported.is_empty(), "{s}");
    }
}

#[test]
fn scale_words_alone_are_checked_by_magnitude() {
    assert_eq!(
        one("it cost millions of dollars"),
        (Val::Scale(6), Class::Bare)
    );
    let p = pages(&["It sold 2.5 million copies and hundreds of prints."]);
    assert!(
        run("It sold millions of copies.[1]", &[1], &p)
            .unsupported
            .is_empty()
    );
    assert!(
        run("It sold hundreds of prints.[1]", &[1], &p)
            .unsupported
            .is_empty()
    );
    assert_eq!(
        run("It sold billions of copies.[1]", &[1], &p)
            .unsupported
            .len(),
        1
    );
}

#[test]
fn separators_read_both_ways_only_where_they_can() {
    let f = facts("1.000 Menschen", Side::Sentence);
    assert_eq!(
        f[0].1,
        [(num("1"), Class::Bare), (num("1000"), Class::Bare)]
    );
    assert_eq!(one("2,35 Prozent"), (num("2.35"), Class::Percent));
    assert_eq!(one("1.000.000 Menschen"), (num("1000000"), Class::Bare));
    assert_eq!(one("1.234,5 Menschen"), (num("1234.5"), Class::Bare));
    assert_eq!(one("3.85% now"), (num("3.85"), Class::Percent));
}

#[test]
fn ranges_share_their_unit() {
    let f = facts("between 2 and 3% a year", Side::Sentence);
    assert_eq!(f[0].1, [(num("2"), Class::Percent)]);
    assert_eq!(f[1].1, [(num("3"), Class::Percent)]);
    let f = facts("water at 85-90°F works", Side::Sentence);
    assert_eq!(f[0].1, [(num("85"), Class::Fahrenheit)]);
    // A year before `to` keeps its own reading.
    let f = facts("rates went in 2022 to 3%", Side::Sentence);
    assert_eq!(f[0].1, [(num("2022"), Class::Bare)]);
}

#[test]
fn dates_in_their_forms() {
    for s in [
        "on 2024-03-15 it",
        "on March 15, 2024 it",
        "on 15 March 2024 it",
        "on 15.03.2024 it",
        "on the 15th of March 2024 it",
        "am 15. März 2024 war",
        "2024年3月15日に",
    ] {
        assert_eq!(one(s).0, date(2024, 3, 15), "{s}");
    }
    assert_eq!(one("in March 2024 it").0, date(2024, 3, 0));
    assert_eq!(one("in 03/2024 it").0, date(2024, 3, 0));
    // A span of years is two years, written either way.
    let years = |s: &str| -> Vec<Val> {
        facts(s, Side::Page)
            .into_iter()
            .map(|(_, r)| r[0].0)
            .collect()
    };
    assert_eq!(years("in 2021/22 it"), [num("2021"), num("22")]);
    assert_eq!(years("in 2021-22 it"), [num("2021"), num("22")]);
    assert_eq!(one("4 апреля 1147 года").0, date(1147, 4, 4));
    let f = facts("on 03/04/2024 it", Side::Sentence);
    assert_eq!(f[0].1.len(), 2);
}

#[test]
fn markers_urls_and_identifiers_are_no_figures() {
    assert!(facts("Ice floats on water.[1][2]", Side::Sentence).is_empty());
    assert!(
        facts(
            "See https://example.org/2024/05/report-9 for it",
            Side::Sentence
        )
        .is_empty()
    );
    assert!(facts("It runs on x86 and uses H2O.[3]", Side::Sentence).is_empty());
    assert!(facts("1. First the starter is fed.", Side::Sentence).is_empty());
    // Inline code is read on both sides, as the page shows it.
    assert_eq!(one("Use `--limit 50` for it"), (num("50"), Class::Bare));
    assert!(facts("a [label](https://x.org/p/12) here", Side::Sentence).is_empty());
    assert!(facts("It is one of the few.", Side::Sentence).is_empty());
}

fn pages(texts: &[&str]) -> Pages {
    let mut p = Pages::default();
    for (i, t) in texts.iter().enumerate() {
        p.add(i as u64 + 1, t.to_string());
    }
    p
}

fn run(sentence: &str, ids: &[u64], p: &Pages) -> super::SentenceSupport {
    let mut p = p.clone();
    let Ok(r) = check(
        &[Cited {
            line: 1,
            text: sentence,
            ids,
            ..Default::default()
        }],
        &mut p,
    );
    r.sentences.into_iter().next().unwrap()
}

const PAGE: &str = "The policy board of the RBA, headed by Governor Philip Lowe, decided to lift the cash rate target by 50 basis points to 2.35 percent, the highest since late 2014. It was about 8.5% less dense than before. date 2022-09-06";

#[test]
fn faithful_sentences_pass() {
    let p = pages(&[PAGE]);
    for s in [
        "The RBA lifted the cash rate by 50 basis points to 2.35%.[1]",
        "On 6 September 2022 the cash rate target went to 2.35 per cent.[1]",
        "Governor Philip Lowe's board raised it by half a percentage point.[1]",
        "The rate was the highest since 2014.[1]",
        "The board decided \"to lift the cash rate target\" again.[1]",
    ] {
        let r = run(s, &[1], &p);
        assert!(r.unsupported.is_empty(), "{s}: {r:?}");
        assert!(r.names_missing.is_empty(), "{s}: {r:?}");
        assert!(r.checked > 0, "{s}");
    }
}

#[test]
fn a_tools_figures_are_counted_not_checked() {
    let mut p = pages(&[PAGE]);
    let Ok(r) = check(
        &[Cited {
            line: 1,
            text: "The gap comes to 725 basis points over 2.35 percent.[1][tool:python]",
            ids: &[1],
            tool: true,
            ..Default::default()
        }],
        &mut p,
    );
    let s = &r.sentences[0];
    assert!(s.unsupported.is_empty(), "{s:?}");
    assert_eq!((s.tool_figures, s.checked, r.tool_figures), (2, 0, 2));
}

#[test]
fn drifted_sentences_fail_and_say_what_the_page_has() {
    let p = pages(&[PAGE]);
    let r = run("It was about 9% less dense than before.[1]", &[1], &p);
    assert_eq!(r.unsupported.len(), 1);
    let u = &r.unsupported[0];
    assert_eq!((u.kind, u.written.as_str()), (FactKind::Figure, "9%"));
    let c = u.closest.as_ref().unwrap();
    assert_eq!((c.id, c.written.as_str()), (1, "8.5%"));
    assert!(c.context.contains("about 8.5% less dense"), "{c:?}");
    for s in [
        "The cash rate went to 2.45 percent.[1]",
        "The rate was raised by 60 basis points.[1]",
        "The cash rate rose on 7 September 2022.[1]",
        "The rate was the highest since 2015.[1]",
        "The board decided \"to lower the cash rate target\" again.[1]",
    ] {
        let r = run(s, &[1], &p);
        assert_eq!(r.unsupported.len(), 1, "{s}: {r:?}");
    }
    let r = run("Governor Philip Lowry raised the rate.[1]", &[1], &p);
    assert_eq!(r.names_missing, ["Lowry"]);
}

#[test]
fn a_sentence_without_page_text_is_unchecked() {
    let p = pages(&[PAGE]);
    let r = run("The cash rate went to 2.35 percent.[2]", &[2], &p);
    assert!(r.unchecked);
    assert_eq!(r.without_pages, [2]);
    // Another cited page that has it is enough.
    let r = run("The cash rate went to 2.35 percent.[2][1]", &[2, 1], &p);
    assert!(!r.unchecked && r.unsupported.is_empty());
}

#[test]
fn letters_and_lower_case_agree_with_unicode() {
    for c in (0..0x3100u32)
        .chain(0x4E00..0x4E10)
        .chain(0xAC00..0xAC10)
        .chain(0xFF00..0xFF30)
        .filter_map(char::from_u32)
    {
        assert_eq!(scan::letter(c), c.is_alphabetic(), "{c:?} {:x}", c as u32);
        let mut ours = String::new();
        scan::push_lower(&mut ours, c);
        assert_eq!(ours, c.to_lowercase().collect::<String>(), "{c:?}");
    }
}

mod never_panics {
    use proptest::prelude::*;

    use super::super::{Cited, Pages, check};

    /// Text made of what the reader looks at: digits, separators, units, scale words,
    /// months, quotes, markers, and letters of several scripts.
    fn figureish() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "1",
            "23",
            "2024",
            "0",
            "9",
            ".",
            ",",
            " ",
            "\n",
            "\n\n",
            "-",
            "–",
            "/",
            ":",
            "'",
            "%",
            "°",
            "°C",
            "$",
            "€",
            "¥",
            "k",
            "m",
            "bn",
            " billion",
            " million",
            " percent",
            " basis points",
            "half a percentage point",
            "quarter of a",
            " to ",
            " and ",
            "March ",
            "Mar. ",
            "марта ",
            "年",
            "月",
            "日",
            "万",
            "百",
            "八",
            "割",
            "XII ",
            "و",
            "\"",
            "“",
            "”",
            "«",
            "»",
            "[1]",
            "[^2]",
            "(",
            ")",
            "`",
            "http://x.org/9",
            "Lowe",
            "lowe's",
            "Москва",
            "Ωμέγα",
            "é",
            "ß",
            "twenty-five ",
            "a dozen ",
            "millions",
            "١٢",
            "１２",
            "\u{a0}",
            "\u{202f}",
            "\u{ad}",
            "…",
            "...",
        ]);
        prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
    }

    fn exercise(sentence: &str, page: &str) {
        let mut pages = Pages::default();
        pages.add(1, page.to_string());
        let ids = [1, 2];
        let Ok(r) = check(
            &[Cited {
                line: 1,
                text: sentence,
                ids: &ids,
                ..Default::default()
            }],
            &mut pages,
        );
        assert_eq!(r.checked, r.supported + r.unsupported);
        // A sentence is supported by itself as a page: figures, phrases and names.
        let mut own = Pages::default();
        own.add(1, sentence.to_string());
        let Ok(r) = check(
            &[Cited {
                line: 1,
                text: sentence,
                ids: &ids[..1],
                ..Default::default()
            }],
            &mut own,
        );
        assert!(
            r.sentences[0].unsupported.is_empty() && r.sentences[0].names_missing.is_empty(),
            "{sentence:?}: {:?}",
            r.sentences[0]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn arbitrary_text_never_panics(sentence in any::<String>(), page in any::<String>()) {
            exercise(&sentence, &page);
        }

        #[test]
        fn figure_like_text_never_panics(sentence in figureish(), page in figureish()) {
            exercise(&sentence, &page);
        }
    }
}
