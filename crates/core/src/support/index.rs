//! A page read once: the set of canonical values its figures and dates take, with the
//! classes each is written in, and which of the wanted names it uses. Built for one page
//! at a time and dropped before the next, so the check holds one index however many
//! pages there are.
//!
//! The places of the page's figures are kept with it, for the closest candidate of a
//! fact no page has, chosen while the page is at hand.

use super::names::{Script, Wanted};
use super::scan::{self, Fact, Side, Sink};
use super::value::{Class, Date, Dec, FastMap, Reading, Val};

/// What a page says, indexed.
#[derive(Debug, Default)]
pub(crate) struct PageIndex {
    /// Each value, with a bit per class it is written in.
    vals: FastMap<Val, u8>,
    /// The wanted names the page uses (by number).
    pub names: Vec<bool>,
    /// Every figure and date of the page, in page order: candidates for the closest of
    /// a fact it does not have.
    pub spots: Vec<Spot>,
    /// Letters of the page's words by script ([`Script`]), counted to 20,000.
    letters: [usize; 4],
}

impl PageIndex {
    /// Reads `text` once.
    pub fn build(text: &str, wanted: &Wanted) -> PageIndex {
        let mut idx = Indexer {
            index: PageIndex {
                vals: FastMap::default(),
                names: vec![false; wanted.len()],
                spots: Vec::new(),
                letters: [0; 4],
            },
            wanted,
            folded: String::new(),
        };
        scan::scan(text, Side::Page, &mut idx);
        idx.index
    }

    /// Whether the page is written in `script` enough to say whether it names
    /// something: a fifth of its letters. An English name is not looked for on a page in
    /// Japanese, where it would be written another way.
    pub fn writes(&self, script: Script) -> bool {
        let total: usize = self.letters.iter().sum();
        self.letters[script as usize] * 5 >= total
    }

    fn insert(&mut self, val: Val, class: Class) {
        *self.vals.entry(val).or_insert(0) |= class.bit();
    }

    /// Whether the page supports a sentence's reading: the same value, in a class the
    /// reading's class accepts; a date also by a more precise one, or by its day and
    /// month with its year elsewhere on the page.
    pub fn supports(&self, r: Reading) -> bool {
        let has =
            |val: Val, accepts: u8| self.vals.get(&val).is_some_and(|&bits| bits & accepts != 0);
        if has(r.val, r.class.accepts()) {
            return true;
        }
        match r.val {
            Val::Date(Date { y, m, d }) if y != 0 && d != 0 => {
                has(Val::Date(Date { y: 0, m, d }), 0xff)
                    && has(Val::Num(Dec::int(u64::from(y))), 0xff)
            }
            _ => false,
        }
    }
}

impl Indexer<'_> {
    /// Whether enough of the page's letters are counted to know its scripts.
    fn counted(&self) -> bool {
        self.index.letters.iter().sum::<usize>() >= 20_000
    }
}

struct Indexer<'w> {
    index: PageIndex,
    wanted: &'w Wanted,
    folded: String,
}

impl Sink for Indexer<'_> {
    fn fact(&mut self, fact: Fact) {
        for r in fact.readings.iter() {
            self.index.spots.push(Spot {
                reading: r,
                start: fact.start,
                end: fact.end,
            });
            self.index.insert(r.val, r.class);
            match r.val {
                Val::Date(date) => {
                    for g in date.generalizations() {
                        self.index.insert(Val::Date(g), Class::Bare);
                    }
                    if date.y != 0 {
                        let year = Val::Num(Dec::int(u64::from(date.y)));
                        self.index.insert(year, Class::Bare);
                    }
                }
                Val::Num(d) => {
                    // A sentence's positive figure may paraphrase the page's negative one
                    // ("fell 3%" for "-3%"); a sentence's negative one needs the sign.
                    if d.neg {
                        self.index.insert(Val::Num(d.abs()), r.class);
                    }
                    // "Millions of …" is said of any figure in the millions.
                    for p in d.magnitudes() {
                        self.index.insert(Val::Scale(p), Class::Bare);
                    }
                }
                _ => {}
            }
        }
    }

    fn word(&mut self, word: &str, _start: usize, _lead: bool) {
        let bytes = word.as_bytes();
        // A lower-case ASCII word on a page that has been counted: asked about only
        // when a name opened a sentence (and may be written in any case).
        if bytes.first().is_some_and(u8::is_ascii_lowercase)
            && !self.wanted.has_loose()
            && self.counted()
        {
            return;
        }
        let Some(first) = word.chars().next() else {
            return;
        };
        let ascii = word.is_ascii();
        // The scripts a page is written in, from its first 20,000 letters.
        if !self.counted() {
            let letters = if ascii {
                word.len()
            } else {
                word.chars().count()
            };
            self.index.letters[Script::of(first) as usize] += letters;
        }
        // Only a word that may be a wanted name is folded and looked up.
        if !self.wanted.may_be(first) {
            return;
        }
        // An ASCII word folds to its length, less a possessive's `'s` or `'`.
        if ascii && !self.wanted.may_be_ascii(word.as_bytes()) {
            return;
        }
        // As `fold` does, without allocating: lower-cased, a possessive dropped.
        self.folded.clear();
        if ascii {
            self.folded.push_str(word);
            self.folded.make_ascii_lowercase();
        } else {
            for c in word.chars() {
                scan::push_lower(&mut self.folded, c);
            }
        }
        for suffix in ["'s", "’s", "'", "’"] {
            if self.folded.len() > suffix.len() && self.folded.ends_with(suffix) {
                self.folded.truncate(self.folded.len() - suffix.len());
                break;
            }
        }
        // A name is written with a capital: `clinical` on a page is not `Clinical`.
        let names = &mut self.index.names;
        self.wanted
            .matches(&self.folded, first.is_uppercase(), &mut |n| {
                names[n as usize] = true
            });
    }
}

/// One figure or date on a page, as written there: a candidate for the closest of a
/// failed fact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spot {
    pub reading: Reading,
    pub start: usize,
    pub end: usize,
}
