//! A page read once: the set of canonical values its figures and dates take, with the
//! classes each is written in, the place of each for "closest", and which of the wanted
//! names it uses.

use std::collections::HashMap;

use super::names::{Wanted, fold};
use super::scan::{self, Fact, Side, Sink};
use super::value::{Class, Date, Reading, Val};

/// One figure or date on the page, as written there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spot {
    pub reading: Reading,
    pub start: u32,
    pub end: u32,
}

/// What a page says, indexed.
#[derive(Debug, Default)]
pub(crate) struct PageIndex {
    /// Each value, with a bit per class it is written in.
    vals: HashMap<Val, u8>,
    /// Every figure and date in page order (for the closest candidate of a failure).
    pub spots: Vec<Spot>,
    /// The wanted names the page uses (by number).
    pub names: Vec<bool>,
}

impl PageIndex {
    /// Reads `text` once.
    pub fn build(text: &str, wanted: &Wanted) -> PageIndex {
        let mut idx = Indexer {
            index: PageIndex {
                vals: HashMap::new(),
                spots: Vec::new(),
                names: vec![false; wanted.len()],
            },
            wanted,
            folded: String::new(),
        };
        scan::scan(text, Side::Page, &mut idx);
        idx.index
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
                    && has(Val::Num(super::value::Dec::int(u64::from(y))), 0xff)
            }
            _ => false,
        }
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
                start: fact.start as u32,
                end: fact.end as u32,
            });
            self.index.insert(r.val, r.class);
            match r.val {
                Val::Date(date) => {
                    for g in date.generalizations() {
                        self.index.insert(Val::Date(g), Class::Bare);
                    }
                    if date.y != 0 {
                        let year = Val::Num(super::value::Dec::int(u64::from(date.y)));
                        self.index.insert(year, Class::Bare);
                    }
                }
                // A sentence's positive figure may paraphrase the page's negative one
                // ("fell 3%" for "-3%"); a sentence's negative one needs the sign.
                Val::Num(d) if d.neg => self.index.insert(Val::Num(d.abs()), r.class),
                _ => {}
            }
        }
    }

    fn word(&mut self, word: &str, _start: usize, _lead: bool) {
        if self.wanted.is_empty() || !word.chars().next().is_some_and(|c| c.is_alphabetic()) {
            return;
        }
        self.folded.clear();
        if word.is_ascii() && !word.contains('\'') {
            self.folded.push_str(word);
            self.folded.make_ascii_lowercase();
        } else {
            self.folded.push_str(&fold(word));
        }
        let names = &mut self.index.names;
        self.wanted
            .matches(&self.folded, &mut |n| names[n as usize] = true);
    }
}
