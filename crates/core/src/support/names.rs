//! Names: capitalized words that do not open a sentence or clause, in scripts that have
//! case. A name the cited pages never use is a warning, not a failure: a paraphrase
//! names things its own way more often than it misnames them.
//!
//! A name is looked for word by word, case-folded, on the page's words: `Philip Lowe`
//! needs `philip` and `lowe` somewhere on a cited page. A possessive (`Lowe's`) counts as
//! its name. Names in Cyrillic and Greek decline (`Москва`, `Москвы`), so for them a page
//! word that shares all but the last two letters (at least four) is the name.

use std::collections::HashMap;

use super::lexicon;
use super::scan::Sink;

/// Words that are capitalized by custom and are no names.
const NOT_NAMES: &[&str] = &[
    "i",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Whether `word` (as written, at a position that does not open a sentence or clause)
/// is a name to look for.
pub(crate) fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if !first.is_uppercase() || word.chars().count() < 2 {
        return false;
    }
    let lower = fold(word);
    !NOT_NAMES.contains(&lower.as_str()) && lexicon::month(&lower).is_none()
}

/// The form a name word is compared in: lower-cased, a possessive dropped.
pub(crate) fn fold(word: &str) -> String {
    let lower: String = word.chars().flat_map(char::to_lowercase).collect();
    for suffix in ["'s", "’s", "'", "’"] {
        if let Some(stem) = lower.strip_suffix(suffix)
            && !stem.is_empty()
        {
            return stem.to_string();
        }
    }
    lower
}

/// Whether a folded name declines: Cyrillic or Greek, long enough to have an ending.
fn stem_of(folded: &str) -> Option<String> {
    let n = folded.chars().count();
    let inflected = folded
        .chars()
        .any(|c| matches!(c, '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' | '\u{0400}'..='\u{04FF}'));
    (inflected && n >= 6).then(|| folded.chars().take(n - 2).collect())
}

/// The names every sentence asks for, each with a number, to be looked for on pages.
#[derive(Debug, Default)]
pub(crate) struct Wanted {
    exact: HashMap<String, u32>,
    stems: HashMap<String, u32>,
    count: u32,
}

impl Wanted {
    /// The number of the folded name `folded`, added if new.
    pub fn add(&mut self, folded: &str) -> u32 {
        if let Some(&n) = self.exact.get(folded) {
            return n;
        }
        let n = self.count;
        self.count += 1;
        self.exact.insert(folded.to_string(), n);
        if let Some(stem) = stem_of(folded) {
            self.stems.insert(stem, n);
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// The names a page word (folded) is: itself, and the declining names it is a
    /// form of.
    pub fn matches(&self, folded: &str, found: &mut dyn FnMut(u32)) {
        if let Some(&n) = self.exact.get(folded) {
            found(n);
        }
        if self.stems.is_empty() || folded.is_ascii() {
            return;
        }
        for (k, c) in folded.char_indices().skip(4) {
            let _ = c;
            if let Some(&n) = self.stems.get(&folded[..k]) {
                found(n);
            }
        }
        if let Some(&n) = self.stems.get(folded) {
            found(n);
        }
    }
}

/// Collects the names of a sentence as a scan hands out its words.
#[derive(Default)]
pub(crate) struct SentenceNames<'s> {
    pub names: Vec<&'s str>,
}

impl<'s> SentenceNames<'s> {
    pub fn see(&mut self, text: &'s str, word: &str, start: usize, lead: bool) {
        if !lead && is_name(word) {
            let w = &text[start..start + word.len()];
            if !self.names.contains(&w) {
                self.names.push(w);
            }
        }
    }
}

/// A sink that only collects words with their lead flag (for a sentence's names).
pub(crate) struct Words<'a, 's> {
    pub text: &'s str,
    pub names: &'a mut SentenceNames<'s>,
    pub facts: &'a mut Vec<super::scan::Fact>,
}

impl Sink for Words<'_, '_> {
    fn fact(&mut self, fact: super::scan::Fact) {
        self.facts.push(fact);
    }
    fn word(&mut self, word: &str, start: usize, lead: bool) {
        self.names.see(self.text, word, start, lead);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_capitalized_words_that_are_no_month_or_day() {
        assert!(is_name("Lowe"));
        assert!(is_name("RBA"));
        assert!(is_name("Москва"));
        assert!(!is_name("the"));
        assert!(!is_name("March"));
        assert!(!is_name("Tuesday"));
        assert!(!is_name("I"));
        assert!(!is_name("東京"));
        assert_eq!(fold("Lowe's"), "lowe");
    }

    #[test]
    fn declining_names_match_their_forms() {
        let mut w = Wanted::default();
        let n = w.add(&fold("Москва"));
        let mut hits = Vec::new();
        w.matches("москвы", &mut |k| hits.push(k));
        assert_eq!(hits, [n]);
        let m = w.add("lowe");
        hits.clear();
        w.matches("lowry", &mut |k| hits.push(k));
        assert!(hits.is_empty());
        w.matches("lowe", &mut |k| hits.push(k));
        assert_eq!(hits, [m]);
    }
}
