//! Support: whether the pages a sentence cites say what the sentence says, as far as that
//! can be checked exactly — its figures, dates and quoted phrases, and (as warnings) its
//! names (`verify --support`, issue 21).
//!
//! Pure text in, plain data out: the cited sentences and the page texts of their sources
//! come in (a [`PageSource`]: the ledger's reads stored snapshots and quotes one page at
//! a time; [`Pages`] holds them in memory), and a [`SupportReport`] comes out, which
//! `draft::verify` words as findings. No store, no files.
//!
//! How it works, in one pass per page:
//!
//! 1. Each cited sentence is read for its facts (`scan`): figures (numbers with their
//!    unit — percent, percentage and basis points, currency, temperature — and scale
//!    word, in any of their written forms: `1,000`, `1 000`, `1.000` where that groups
//!    thousands, `2.5 billion`, `2.5bn`, `nine percent`, ranges `85–90°F`, fractions
//!    `1/3`), dates (`2024-03-15`, `March 15, 2024`, `15 March 2024`, `15.03.2024`,
//!    `March 2024`, `2024年3月15日`; a bare year is a figure), quoted phrases, and names.
//!    Each figure and date becomes canonical values (`value`): exact decimals, never
//!    floats, so `2.5 billion`, `2,500,000,000` and `2.5bn` are one value, and `8.9%` is
//!    not `8.94%`.
//! 2. Each page a sentence cites is read once, by the same scanner, into a hash set of
//!    the values it holds (`index`), dropped before the next page is read; the names
//!    the sentences want are looked up as its words go by, and for each fact no page
//!    has had so far, the page's closest candidate is kept before the next page is read.
//!    Only a quoted phrase no page has sends the check back to its pages, for the
//!    closest passage.
//! 3. A figure is supported when a page it cites has the same value in a class it
//!    accepts (a percentage needs a percentage; a bare count, any); a date when a page
//!    has it or a more precise one; a quoted phrase when a page's quote-matching key
//!    ([`crate::evidence::match_key`]) contains the phrase's, as `quote` checks quotes;
//!    a name when a page uses each of its words.
//!
//! Exact means exact: a sentence that rounds the page's `8.94%` to `8.9%`, or says
//! `about 9%` for `8.5%`, fails, and says what the page has. Meaning is out of reach:
//! a figure used in another sense, a negation, a claim the page's words do not make.

mod index;
mod lexicon;
mod names;
mod scan;
mod value;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::evidence;
use index::PageIndex;
use names::{Script, SentenceNames, Wanted, Words, fold};
use scan::{Fact, Side};
use value::Val;

/// Where the page texts of the cited sources come from: the pages of each id, by
/// number, and each page's text when the check reads it — once, and once more for a
/// page with a failure to explain. The ledger reads them from its store one at a
/// time, so a check holds one page however many there are; [`Pages`] holds them all.
pub trait PageSource {
    /// Why a page could not be read.
    type Error;
    /// The numbers of `id`'s pages (none: `id` has no page text).
    fn pages_of(&self, id: u64) -> &[usize];
    /// The text of page `n`.
    fn text(&mut self, n: usize) -> Result<std::borrow::Cow<'_, str>, Self::Error>;
}

/// The page texts of the cited sources in memory, each text once, with the ids whose
/// pages they are: stored snapshots (`add --snapshot`, `quote --from`, `ingest`) and
/// quotes kept without one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pages {
    pub texts: Vec<String>,
    /// For each id, the indices of its texts in `texts`.
    pub by_id: BTreeMap<u64, Vec<usize>>,
}

impl PageSource for Pages {
    type Error = std::convert::Infallible;

    fn pages_of(&self, id: u64) -> &[usize] {
        self.of(id)
    }

    fn text(&mut self, n: usize) -> Result<std::borrow::Cow<'_, str>, Self::Error> {
        Ok(std::borrow::Cow::Borrowed(&self.texts[n]))
    }
}

impl Pages {
    /// Adds `text` as a page of `id` (and of any id linked to it later).
    pub fn add(&mut self, id: u64, text: String) -> usize {
        self.texts.push(text);
        let n = self.texts.len() - 1;
        self.link(id, n);
        n
    }

    /// Makes text `n` a page of `id` too.
    pub fn link(&mut self, id: u64, n: usize) {
        let of = self.by_id.entry(id).or_default();
        if !of.contains(&n) {
            of.push(n);
        }
    }

    fn of(&self, id: u64) -> &[usize] {
        self.by_id.get(&id).map_or(&[], Vec::as_slice)
    }
}

/// A cited sentence to check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cited<'s> {
    pub line: usize,
    /// Its number among the draft's sentences (from 0), as [`crate::draft::place`]
    /// numbers them: what a finding names, and what the report links a finding to.
    pub index: usize,
    pub text: &'s str,
    pub ids: &'s [u64],
    /// For a row of a table, the table's header row: a unit a column's header names
    /// (`Emissions (Mt)`, `Change (pp)`) applies to that column's cells.
    pub header: Option<&'s str>,
    /// The sentence declares a tool (`[tool:NAME]`) as well: its figures are the tool's
    /// work (a sum, a conversion), not the page's, and are counted, not checked.
    pub tool: bool,
}

/// What kind of fact failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    Figure,
    Date,
    Quote,
}

impl FactKind {
    pub fn noun(self) -> &'static str {
        match self {
            FactKind::Figure => "figure",
            FactKind::Date => "date",
            FactKind::Quote => "quoted phrase",
        }
    }
}

/// What a cited page has that comes closest to a fact none of them has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Closest {
    /// The id whose page it is on.
    pub id: u64,
    /// The page's figure, date or passage as written there.
    pub written: String,
    /// The words around it, on one line, `…` where cut.
    pub context: String,
}

/// A fact of a sentence that no cited page has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unsupported {
    pub kind: FactKind,
    /// As the sentence writes it.
    pub written: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<Closest>,
}

/// One cited sentence, checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SentenceSupport {
    pub line: usize,
    /// Its number among the draft's sentences ([`Cited::index`]).
    pub index: usize,
    /// The sentence as the draft writes it, on one line.
    pub text: String,
    /// The ids it cites.
    pub cited: Vec<u64>,
    /// Figures, dates and quoted phrases checked.
    pub checked: usize,
    pub supported: usize,
    /// Those no cited page has.
    pub unsupported: Vec<Unsupported>,
    /// Names no cited page uses (warnings).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names_missing: Vec<String>,
    /// Figures and dates of a sentence that declares a tool: the tool's, not checked.
    #[serde(skip_serializing_if = "is_zero")]
    pub tool_figures: usize,
    /// No cited source has page text: nothing could be checked.
    pub unchecked: bool,
    /// The cited ids with no page text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub without_pages: Vec<u64>,
}

/// The outcome of the support check over a draft's cited sentences.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SupportReport {
    /// Cited sentences whose sources have page text.
    pub sentences_checked: usize,
    /// Cited sentences none of whose sources has page text.
    pub sentences_unchecked: usize,
    /// Figures, dates and quoted phrases checked, supported, unsupported.
    pub checked: usize,
    pub supported: usize,
    pub unsupported: usize,
    /// Names no cited page uses.
    pub names_missing: usize,
    /// Figures and dates of sentences that declare a tool: the tool's, not checked.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tool_figures: usize,
    /// Each cited sentence, in draft order.
    pub sentences: Vec<SentenceSupport>,
}

/// A fact of a sentence, and what it is checked against.
struct Claim<'s> {
    facts: Vec<Fact>,
    /// Quoted phrases, each as the parts between ellipses and bracketed insertions.
    phrases: Vec<(&'s str, Vec<&'s str>)>,
    /// Names, as written, with their number in [`Wanted`].
    names: Vec<(&'s str, u32)>,
}

/// Checks each cited sentence against the pages its ids have.
///
/// Each page is read once, into an index that is dropped before the next page is read:
/// what is held beyond the pages themselves is the sentences' facts and one page's
/// values. Only a failure reads its cited pages again, for the closest candidate.
pub fn check<'s, S: PageSource>(
    sentences: &[Cited<'s>],
    pages: &mut S,
) -> Result<SupportReport, S::Error> {
    let mut wanted = Wanted::default();
    let mut claims: Vec<Claim<'s>> = sentences
        .iter()
        .map(|s| claims_of(s.text, &mut wanted))
        .collect();
    // A tool's figures are set aside before any page is read for them.
    let tool_figures: Vec<usize> = sentences
        .iter()
        .zip(&mut claims)
        .map(|(s, c)| {
            if s.tool {
                std::mem::take(&mut c.facts).len()
            } else {
                0
            }
        })
        .collect();
    // The pages each sentence is checked on, each once, with the first id citing it.
    let on: Vec<Vec<(u64, usize)>> = sentences
        .iter()
        .map(|s| {
            let mut on: Vec<(u64, usize)> = Vec::new();
            for &id in s.ids {
                for &n in pages.pages_of(id) {
                    if !on.iter().any(|&(_, m)| m == n) {
                        on.push((id, n));
                    }
                }
            }
            on
        })
        .collect();
    let mut found: Vec<Found> = claims.iter().map(Found::new).collect();
    // The sentences to check on each page.
    let mut by_page: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, list) in on.iter().enumerate() {
        if claims[k].is_empty() {
            continue;
        }
        for &(_, n) in list {
            by_page.entry(n).or_default().push(k);
        }
    }
    let mut closest: ClosestFacts = HashMap::new();
    let mut words: HashMap<usize, Vec<String>> = HashMap::new();
    for (n, ks) in by_page {
        let text = pages.text(n)?;
        let text = &*text;
        let index = PageIndex::build(text, &wanted);
        // The page's quote-matching key, made when a phrase asks for it.
        let mut key: Option<String> = None;
        for &k in &ks {
            let (claim, got) = (&claims[k], &mut found[k]);
            for (fact, ok) in claim.facts.iter().zip(&mut got.facts) {
                *ok = *ok || fact.readings.iter().any(|r| index.supports(r));
            }
            for ((_, parts), ok) in claim.phrases.iter().zip(&mut got.phrases) {
                if !*ok {
                    let key = key.get_or_insert_with(|| evidence::match_key(text));
                    *ok = parts
                        .iter()
                        .all(|part| key.contains(&evidence::match_key(part)));
                }
            }
            for (((name, w), ok), asked) in claim
                .names
                .iter()
                .zip(&mut got.names)
                .zip(&mut got.names_asked)
            {
                let script = name.chars().next().map_or(Script::Other, Script::of);
                if index.writes(script) {
                    *asked = true;
                    *ok = *ok || index.names.get(*w as usize).copied().unwrap_or(false);
                }
            }
        }
        // What this page has closest to each fact no page has had so far, while its
        // text and figures are at hand: the page is not read again for it.
        let mut asks: Vec<(u64, usize, usize)> = Vec::new();
        for &k in &ks {
            let id = on[k]
                .iter()
                .find(|&&(_, m)| m == n)
                .map_or(0, |&(id, _)| id);
            for (f, &ok) in found[k].facts.iter().enumerate() {
                if !ok {
                    asks.push((id, k, f));
                    words
                        .entry(k)
                        .or_insert_with(|| content_words(sentences[k].text));
                }
            }
        }
        if !asks.is_empty() {
            closest_on_page(text, &index, &asks, &claims, &words, &mut closest);
        }
    }

    let mut report = SupportReport::default();
    for (k, s) in sentences.iter().enumerate() {
        let (claim, got) = (&claims[k], &found[k]);
        let mut cited: Vec<u64> = Vec::new();
        let mut without_pages = Vec::new();
        for &id in s.ids {
            if !cited.contains(&id) {
                cited.push(id);
                if pages.pages_of(id).is_empty() {
                    without_pages.push(id);
                }
            }
        }
        let unchecked = on[k].is_empty();
        let mut out = SentenceSupport {
            line: s.line,
            index: s.index,
            text: one_line(s.text),
            cited,
            checked: 0,
            supported: 0,
            unsupported: Vec::new(),
            names_missing: Vec::new(),
            tool_figures: tool_figures[k],
            unchecked,
            without_pages,
        };
        report.tool_figures += out.tool_figures;
        if unchecked {
            report.sentences_unchecked += 1;
            report.sentences.push(out);
            continue;
        }
        report.sentences_checked += 1;
        for (f, (fact, &ok)) in claim.facts.iter().zip(&got.facts).enumerate() {
            out.checked += 1;
            if ok {
                out.supported += 1;
                continue;
            }
            out.unsupported.push(Unsupported {
                kind: if fact.date {
                    FactKind::Date
                } else {
                    FactKind::Figure
                },
                written: one_line(&s.text[fact.start..fact.end]),
                closest: closest.remove(&(k, f)).map(|(_, c)| c),
            });
        }
        for ((whole, _), &ok) in claim.phrases.iter().zip(&got.phrases) {
            out.checked += 1;
            if ok {
                out.supported += 1;
            } else {
                out.unsupported.push(Unsupported {
                    kind: FactKind::Quote,
                    written: one_line(whole),
                    closest: closest_phrase(whole, &on[k], pages)?,
                });
            }
        }
        let names = claim.names.iter().zip(&got.names).zip(&got.names_asked);
        for (((name, _), &ok), &asked) in names {
            if asked && !ok && !out.names_missing.iter().any(|m| m == name) {
                out.names_missing.push(name.to_string());
            }
        }
        report.checked += out.checked;
        report.supported += out.supported;
        report.unsupported += out.unsupported.len();
        report.names_missing += out.names_missing.len();
        report.sentences.push(out);
    }
    Ok(report)
}

impl Claim<'_> {
    fn is_empty(&self) -> bool {
        self.facts.is_empty() && self.phrases.is_empty() && self.names.is_empty()
    }
}

/// Which facts, phrases and names of a sentence a cited page has, so far.
struct Found {
    facts: Vec<bool>,
    phrases: Vec<bool>,
    names: Vec<bool>,
    /// Whether a cited page is written in the name's script, so could have used it.
    names_asked: Vec<bool>,
}

impl Found {
    fn new(c: &Claim<'_>) -> Found {
        Found {
            facts: vec![false; c.facts.len()],
            phrases: vec![false; c.phrases.len()],
            names: vec![false; c.names.len()],
            names_asked: vec![false; c.names.len()],
        }
    }
}

/// The facts, quoted phrases and names of a sentence.
fn claims_of<'s>(text: &'s str, wanted: &mut Wanted) -> Claim<'s> {
    let mut facts = Vec::new();
    let mut names = SentenceNames::default();
    scan::scan(
        text,
        Side::Sentence,
        &mut Words {
            text,
            names: &mut names,
            facts: &mut facts,
        },
    );
    let phrases = quoted(text);
    // A name inside a quoted phrase is checked with the phrase.
    let in_phrase = |name: &str| {
        let at = name.as_ptr() as usize - text.as_ptr() as usize;
        phrases.iter().any(|(whole, _)| {
            let from = whole.as_ptr() as usize - text.as_ptr() as usize;
            (from..from + whole.len()).contains(&at)
        })
    };
    let names = names
        .names(text)
        .into_iter()
        .filter(|(n, _)| !in_phrase(n))
        .map(|(n, loose)| {
            let script = n.chars().next().map_or(Script::Other, Script::of);
            (n, wanted.add(&fold(n), loose, script))
        })
        .collect();
    Claim {
        facts,
        phrases,
        names,
    }
}

/// The quoted phrases of a sentence of two words or more (one quoted word is a term, not
/// a quotation), each split into its parts at ellipses and bracketed insertions.
fn quoted(text: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(k) = text[at..].find(['"', '“', '„', '«', '「', '『', '”']) {
        let open = at + k;
        let c = text[open..].chars().next().expect("found");
        let closers: &[char] = match c {
            '"' => &['"'],
            '“' => &['”', '“'],
            '”' => &['”'],
            '„' => &['“', '”'],
            '«' => &['»'],
            '「' => &['」'],
            _ => &['』'],
        };
        let from = open + c.len_utf8();
        let Some(len) = text[from..].find(closers) else {
            break;
        };
        let inner = &text[from..from + len];
        let close = text[from + len..].chars().next().map_or(1, char::len_utf8);
        at = from + len + close;
        let parts: Vec<&str> = inner
            .split(['…', '[', ']'])
            .flat_map(|p| p.split("..."))
            .map(|p| {
                p.trim_matches(|c: char| {
                    c.is_whitespace() || matches!(c, ',' | '.' | ';' | ':' | '\\' | '*' | '_')
                })
            })
            .filter(|p| evidence::quote_words(p) >= 2)
            .collect();
        if crate::text::word_count(inner) >= 2 && !parts.is_empty() {
            out.push((inner, parts));
        }
    }
    out
}

/// A candidate for the closest of a failed fact: of the class the fact accepts, words
/// shared with the sentence, nearness in value.
type Score = (bool, usize, f64);

/// For each failed fact (by sentence and fact number), its best candidate.
type ClosestFacts = HashMap<(usize, usize), (Score, Closest)>;

fn better(a: Score, b: Score) -> bool {
    (a.0, a.1) > (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && a.2 > b.2)
}

/// For the facts `asks` (id, sentence, fact), the figure or date of page `text` that
/// comes closest, kept in `best` when it comes closer than what an earlier page had: of
/// the same kind, in a class the fact accepts, on the passage that shares most words
/// with the sentence, then nearest in value.
fn closest_on_page(
    text: &str,
    index: &PageIndex,
    asks: &[(u64, usize, usize)],
    claims: &[Claim<'_>],
    words: &HashMap<usize, Vec<String>>,
    best: &mut ClosestFacts,
) {
    // The page lower-cased (ASCII only, so that its offsets are the text's) once, for the
    // words around each candidate.
    let lowered = text.to_ascii_lowercase();
    // The best on this page: score, id, and where.
    let mut here: HashMap<(usize, usize), (Score, u64, usize, usize)> = HashMap::new();
    for spot in &index.spots {
        let r = spot.reading;
        let near = passage(&lowered, spot.start, spot.end, 80);
        for &(id, k, f) in asks {
            let fact = &claims[k].facts[f];
            let Some(first) = fact.readings.iter().next() else {
                continue;
            };
            let same_kind = matches!(
                (r.val, first.val),
                (Val::Date(_), Val::Date(_))
                    | (Val::Num(_), Val::Num(_))
                    | (Val::Ratio(..), Val::Ratio(..))
                    | (Val::Scale(_), Val::Scale(_))
            );
            if !same_kind {
                continue;
            }
            let class_ok = first.class.accepts() & r.class.bit() != 0;
            let distance = match (r.val, first.val) {
                (Val::Num(a), Val::Num(b)) => {
                    let (a, b) = (a.to_f64(), b.to_f64());
                    (a - b).abs() / a.abs().max(b.abs()).max(1e-9)
                }
                (Val::Date(a), Val::Date(b)) => (a.ordinal() - b.ordinal()).abs(),
                (Val::Scale(a), Val::Scale(b)) => f64::from((a - b).abs()),
                _ => 1.0,
            };
            let shared = words[&k]
                .iter()
                .filter(|w| near.contains(w.as_str()))
                .count();
            let score = (class_ok, shared, -distance);
            match here.get(&(k, f)) {
                Some(&(b, ..)) if !better(score, b) => {}
                _ => {
                    here.insert((k, f), (score, id, spot.start, spot.end));
                }
            }
        }
    }
    for (key, (score, id, start, end)) in here {
        if best.get(&key).is_none_or(|(b, _)| better(score, *b)) {
            let closest = Closest {
                id,
                written: one_line(&text[start..end]),
                context: context(text, start, end),
            };
            best.insert(key, (score, closest));
        }
    }
}

/// The passage of a cited page closest to a quoted phrase none of them has.
fn closest_phrase<S: PageSource>(
    phrase: &str,
    on: &[(u64, usize)],
    pages: &mut S,
) -> Result<Option<Closest>, S::Error> {
    for &(id, n) in on {
        let text = pages.text(n)?;
        let text = &*text;
        if let Some(p) = evidence::closest(phrase, text) {
            let start = text
                .char_indices()
                .nth(p.start as usize)
                .map_or(text.len(), |(i, _)| i);
            let end = start + p.text.len();
            return Ok(Some(Closest {
                id,
                written: one_line(&p.text),
                context: context(text, start, end),
            }));
        }
    }
    Ok(None)
}

/// Lower-cased words of 4+ letters of a sentence: what "shares words" counts.
fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .map(|w| w.to_lowercase())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `text[start..end]` with up to `around` bytes either side, on char boundaries.
fn passage(text: &str, start: usize, end: usize, around: usize) -> &str {
    let mut from = start.saturating_sub(around);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (end + around).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    &text[from..to]
}

/// The words around `start..end` on one line: about 40 characters either side, cut at
/// a word, `…` where cut.
fn context(text: &str, start: usize, end: usize) -> String {
    const AROUND: usize = 40;
    let before = &text[..start];
    let after = &text[end..];
    let mut from = before
        .char_indices()
        .rev()
        .nth(AROUND - 1)
        .map_or(0, |(i, _)| i);
    let cut_before = from > 0;
    if cut_before {
        // To the start of a word.
        if let Some(k) = before[from..].find(char::is_whitespace) {
            from += k;
        }
    }
    let mut to = after
        .char_indices()
        .nth(AROUND)
        .map_or(after.len(), |(i, _)| i);
    let cut_after = to < after.len();
    if cut_after && let Some(k) = after[..to].rfind(char::is_whitespace) {
        to = k;
    }
    let mut out = String::new();
    if cut_before {
        out.push_str("… ");
    }
    out.push_str(before[from..].trim_start());
    out.push_str(&text[start..end]);
    out.push_str(after[..to].trim_end());
    if cut_after {
        out.push_str(" …");
    }
    one_line(&out)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Whitespace runs as one space, control characters as U+FFFD: page text goes to a
/// terminal.
fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| {
            if crate::text::is_terminal_control(c) {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}
