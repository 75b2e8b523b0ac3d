//! The realpages corpus (tests/fixtures/realpages, issue 20 item 3): 40 real extracted
//! pages and 561 labelled quotes. Every quote to accept is accepted, every one to refuse
//! is refused, and what is stored for an accepted one is the page's: its words are found
//! again where the quote was (so `audit` finds it there), and the informational
//! changed-link-target quote leaves its changed digit out of them.

use super::{accept, find};

#[derive(serde::Deserialize)]
struct Corpus {
    quotes: Vec<Item>,
}

#[derive(serde::Deserialize)]
struct Item {
    page: String,
    cat: String,
    text: String,
}

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/realpages")
}

#[test]
fn every_positive_is_accepted_and_every_negative_refused() {
    let corpus: Corpus =
        serde_json::from_str(&std::fs::read_to_string(dir().join("quotes.json")).unwrap()).unwrap();
    let (mut positives, mut accepted, mut negatives, mut false_accepts) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for q in &corpus.quotes {
        let page = std::fs::read_to_string(dir().join(format!("pages/{}.md", q.page))).unwrap();
        let got = accept(&q.text, &page);
        match q.cat.as_bytes()[0] {
            b'a' | b'b' | b'c' => {
                positives += 1;
                match &got {
                    Ok(a) => {
                        accepted += 1;
                        // The stored words sit where the quote does.
                        if find(&a.words, &page).as_ref() != Some(&a.selector) {
                            wrong.push(format!("words elsewhere: {} {:?}", q.page, a.words));
                        }
                    }
                    Err(_) => wrong.push(format!("refused: {} {} {:?}", q.page, q.cat, q.text)),
                }
            }
            b'd' => {
                negatives += 1;
                if got.is_ok() {
                    false_accepts += 1;
                    wrong.push(format!("accepted: {} {} {:?}", q.page, q.cat, q.text));
                }
            }
            _ if q.cat == "x-link-target" => {
                if let Ok(a) = got {
                    assert!(!a.words.contains("5.8"), "{:?}", a.words);
                    assert!(!a.words.contains("https"), "{:?}", a.words);
                }
            }
            _ => {}
        }
    }
    println!(
        "positives accepted {accepted} of {positives}; negatives accepted {false_accepts} of {negatives}"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!((positives, negatives), (353, 205));
}
