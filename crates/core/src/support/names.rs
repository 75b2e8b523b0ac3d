//! Names: capitalized words that do not open a sentence or clause, in scripts that have
//! case. A name the cited pages never use is a warning, not a failure: a paraphrase
//! names things its own way more often than it misnames them.
//!
//! A name is looked for word by word, case-folded, on the page's words: `Philip Lowe`
//! needs `philip` and `lowe` somewhere on a cited page. A possessive (`Lowe's`) counts as
//! its name. Names in Cyrillic and Greek decline (`Москва`, `Москвы`), so for them a page
//! word that shares all but the last two letters (at least four) is the name.

use super::value::FastMap;

use super::lexicon;
use super::scan::Sink;

/// The scripts names are told apart by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Script {
    Latin,
    Cyrillic,
    Greek,
    Other,
}

impl Script {
    pub fn of(c: char) -> Script {
        match c {
            'A'..='Z' | 'a'..='z' | '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' => {
                Script::Latin
            }
            '\u{0400}'..='\u{052F}' => Script::Cyrillic,
            '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' => Script::Greek,
            _ => Script::Other,
        }
    }
}

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
    /// Names a page must write with a capital.
    exact: FastMap<String, u32>,
    stems: FastMap<String, u32>,
    /// Names that open a sentence, where the capital says nothing: any case will do.
    loose: FastMap<String, u32>,
    count: u32,
    /// A bit per [`Script`] the names are written in, for exact and for loose ones.
    scripts: u8,
    loose_scripts: u8,
    /// A bit per (first letter, last letter, length) of the ASCII names, hashed into
    /// 2,048: a quick no for most page words ([`Wanted::may_be_ascii`]).
    ascii: [u64; 32],
}

/// The bit of an ASCII word's first and last bytes (lower-cased) and length.
fn shape(first: u8, last: u8, len: usize) -> usize {
    (usize::from(first.to_ascii_lowercase()) * 31 + usize::from(last.to_ascii_lowercase()))
        .wrapping_mul(37)
        .wrapping_add(len)
        % 2048
}

impl Wanted {
    /// The number of the folded name `folded`, added if new; `loose`: it opened its
    /// sentence, so a page word in any case is it; `script`: that of the name as written
    /// (its first letter's), which page words are compared in.
    pub fn add(&mut self, folded: &str, loose: bool, script: Script) -> u32 {
        let map = if loose { &self.loose } else { &self.exact };
        if let Some(&n) = map.get(folded) {
            return n;
        }
        let n = self.count;
        self.count += 1;
        if folded.is_ascii()
            && let (Some(&first), Some(&last)) =
                (folded.as_bytes().first(), folded.as_bytes().last())
        {
            let bit = shape(first, last, folded.len());
            self.ascii[bit / 64] |= 1 << (bit % 64);
        }
        let script = 1 << script as u8;
        if loose {
            self.loose_scripts |= script;
        } else {
            self.scripts |= script;
        }
        if loose {
            self.loose.insert(folded.to_string(), n);
            return n;
        }
        self.exact.insert(folded.to_string(), n);
        if let Some(stem) = stem_of(folded) {
            self.stems.insert(stem, n);
        }
        n
    }

    /// Whether an ASCII page word may fold to an ASCII name (as itself, or less a
    /// possessive's `'s` or `'`).
    pub fn may_be_ascii(&self, word: &[u8]) -> bool {
        let word = word
            .strip_suffix(b"'s")
            .or_else(|| word.strip_suffix(b"'"))
            .filter(|w| !w.is_empty())
            .unwrap_or(word);
        let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
            return false;
        };
        let bit = shape(first, last, word.len());
        self.ascii[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// Whether a name opened its sentence, so that a page's lower-case word may be it.
    pub fn has_loose(&self) -> bool {
        !self.loose.is_empty()
    }

    /// Whether a page word starting with `first` may be a wanted name: one written
    /// in its script, with a capital unless it opened its sentence.
    pub fn may_be(&self, first: char) -> bool {
        let script = 1 << Script::of(first) as u8;
        self.loose_scripts & script != 0 || (self.scripts & script != 0 && first.is_uppercase())
    }

    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// The names a page word (folded) is: itself, and the declining names it is a
    /// form of; `capital`: the page writes it with one.
    pub fn matches(&self, folded: &str, capital: bool, found: &mut dyn FnMut(u32)) {
        if let Some(&n) = self.loose.get(folded) {
            found(n);
        }
        if !capital {
            return;
        }
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

/// Words that open a sentence or clause with a capital and are no names, though a
/// capitalized word follows them (`The RBA`, `In Europe`, `On Tuesday`).
const NOT_NAMES_AT_START: &[&str] = &[
    "a",
    "about",
    "according",
    "after",
    "all",
    "also",
    "although",
    "an",
    "and",
    "around",
    "as",
    "at",
    "because",
    "before",
    "both",
    "but",
    "by",
    "during",
    "each",
    "early",
    "even",
    "every",
    "for",
    "from",
    "he",
    "her",
    "his",
    "however",
    "if",
    "in",
    "into",
    "it",
    "its",
    "last",
    "later",
    "like",
    "many",
    "meanwhile",
    "most",
    "much",
    "my",
    "new",
    "next",
    "no",
    "not",
    "of",
    "on",
    "one",
    "only",
    "or",
    "our",
    "over",
    "she",
    "since",
    "so",
    "some",
    "such",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "today",
    "under",
    "unlike",
    "until",
    "we",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "with",
    "within",
    "without",
    "yet",
    "you",
];

/// Collects the names of a sentence as a scan hands out its words.
#[derive(Default)]
pub(crate) struct SentenceNames<'s> {
    /// Each word: as written in the sentence, whether it opens a sentence or clause,
    /// and where it ends.
    words: Vec<(&'s str, bool, usize)>,
}

impl<'s> SentenceNames<'s> {
    pub fn see(&mut self, text: &'s str, word: &str, start: usize, lead: bool) {
        let w = &text[start..start + word.len()];
        self.words.push((w, lead, start + word.len()));
    }

    /// The names, each once, with whether it opens its sentence or clause (`loose`): a
    /// capitalized word anywhere else, and one at the start when it is the first of a
    /// run of capitalized words (`Philip Lowe said`) or possessive (`Lowe's board`), and
    /// not a word that opens sentences (`The RBA`).
    pub fn names(&self, text: &str) -> Vec<(&'s str, bool)> {
        let mut out: Vec<(&'s str, bool)> = Vec::new();
        for (k, &(w, lead, end)) in self.words.iter().enumerate() {
            if !is_name(w) {
                continue;
            }
            if lead {
                let folded = fold(w);
                let possessive = folded.len() < w.to_lowercase().len();
                let run = self.words.get(k + 1).is_some_and(|&(next, next_lead, _)| {
                    let next_start = next.as_ptr() as usize - text.as_ptr() as usize;
                    !next_lead && is_name(next) && text[end..next_start].chars().all(|c| c == ' ')
                });
                if !(run || possessive) || NOT_NAMES_AT_START.contains(&folded.as_str()) {
                    continue;
                }
            }
            if !out.iter().any(|&(n, _)| n == w) {
                out.push((w, lead));
            }
        }
        out
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

impl SentenceNames<'_> {
    #[cfg(test)]
    fn of(text: &str) -> Vec<(&str, bool)> {
        let mut names = SentenceNames::default();
        let mut facts = Vec::new();
        super::scan::scan(
            text,
            super::scan::Side::Sentence,
            &mut Words {
                text,
                names: &mut names,
                facts: &mut facts,
            },
        );
        names.names(text)
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
        let n = w.add(&fold("Москва"), false, Script::Cyrillic);
        let mut hits = Vec::new();
        w.matches("москвы", true, &mut |k| hits.push(k));
        assert_eq!(hits, [n]);
        let m = w.add("lowe", false, Script::Latin);
        hits.clear();
        w.matches("lowry", true, &mut |k| hits.push(k));
        assert!(hits.is_empty());
        w.matches("lowe", false, &mut |k| hits.push(k));
        assert!(hits.is_empty());
        w.matches("lowe", true, &mut |k| hits.push(k));
        assert_eq!(hits, [m]);
        // At a sentence's start, any case will do.
        let l = w.add("rates", true, Script::Latin);
        hits.clear();
        w.matches("rates", false, &mut |k| hits.push(k));
        assert_eq!(hits, [l]);
    }

    #[test]
    fn a_name_opening_a_sentence_is_one_when_a_capital_or_possessive_follows() {
        assert_eq!(
            SentenceNames::of("Philip Lowe said the RBA would act."),
            [("Philip", true), ("Lowe", false), ("RBA", false)]
        );
        assert_eq!(SentenceNames::of("Lowe's board acted."), [("Lowe's", true)]);
        assert_eq!(SentenceNames::of("Lowe said so again."), []);
        assert_eq!(
            SentenceNames::of("The RBA acted. In Europe it rained."),
            [("RBA", false), ("Europe", false)]
        );
        assert_eq!(SentenceNames::of("Rates rose in May."), []);
    }
}
