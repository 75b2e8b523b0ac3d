//! Draft analysis: what a draft cites, which sentences declare provenance, and whether
//! its Sources block agrees with the ledger.
//!
//! Pure text in, plain data out: no store, no files, no terminal. The ledger comes in as
//! [`LedgerFacts`] and URL canonicalization as a function, so this module depends on
//! neither the store nor the ledger module, and `verify` of a large draft is a few
//! linear passes plus one lookup per distinct id. Lines, sentences and markers are read
//! as iterators over the draft's text and never copied or collected: `verify` holds the
//! draft once, a bit per line, and what it cites and lists ([`Summary`]).
//!
//! The rules are `sources.py`'s, tightened where SPEC §2 says so and where a submodule
//! says why:
//!
//! - `layout`: numbered lines; fenced code (```` ``` ```` / `~~~`) is never prose.
//! - `blocks`: the generated Sources block at the end (header + entries, footnote
//!   definitions, or BibTeX entries); a heading that merely says "Sources" with author
//!   prose under it stays prose.
//! - `markers`: the permissive `[N]` scan for ledger checks, and the well-formed
//!   `[N]` / `[tool:NAME]` / `[policy]` / `[unverified]` markers for provenance.
//! - `sentences`: prose lines into sentences of 4+ words.
//! - `verify`: the checks, their wording and order, and the report.
//!
//! Line numbers are 1-based, as editors show them. A [`Finding`] keeps its message
//! exactly as `sources.py` words it and carries the line separately; its `Display` is
//! `MESSAGE (line N)`, so the CLI prints `FAIL: MESSAGE (line N)` / `warn: MESSAGE (line N)`
//! and tools matching the old wording as a substring still match. Where a message names
//! several ids, the line is the first place in the draft any of them occurs.

mod blocks;
mod layout;
mod markers;
mod sentences;
mod verify;

#[cfg(test)]
mod prop_tests;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

pub use verify::{Counts, Finding, LedgerFacts, Report, VerifyOptions, verify, verify_summary};

/// A sentence with more citations than this draws a warning.
pub const MAX_CITATIONS_PER_SENTENCE: usize = 3;

/// Everything a draft says, item by item: each citation and each sentence. Holds an
/// entry per citation and per sentence; `verify` reads a [`Summary`] instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Analysis<'a> {
    /// Every `[N]` in the prose (the permissive scan: glued or not), in draft order.
    pub citations: Vec<Citation>,
    /// The generated Sources block the draft ends with, in any render style.
    pub block: Option<SourcesBlock<'a>>,
    /// The prose sentences (4+ words), in draft order.
    pub sentences: Vec<Sentence<'a>>,
}

/// What `verify` needs of a draft, in memory that grows with the ids it cites and the
/// entries of its Sources block, not with its prose: a draft is read line by line and
/// each citation and sentence is counted and dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary<'a> {
    /// Each id cited in the prose (the permissive scan), with the first line citing it.
    pub cited: BTreeMap<u64, usize>,
    /// The line of the first citation.
    pub first_citation: Option<usize>,
    /// The generated Sources block the draft ends with, in any render style.
    pub block: Option<SourcesBlock<'a>>,
    pub sentences: SentenceCounts,
}

/// The prose sentences of a draft, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SentenceCounts {
    pub total: usize,
    /// With any well-formed marker.
    pub with_provenance: usize,
    /// With a well-formed `[N]`.
    pub cited: usize,
    pub tool: usize,
    pub policy: usize,
    pub unverified: usize,
    /// With more than [`MAX_CITATIONS_PER_SENTENCE`] `[N]`, well-formed or not.
    pub over_cited: usize,
    /// The line of the first sentence without provenance.
    pub first_without_provenance: Option<usize>,
    /// The line of the first sentence marked `[unverified]`.
    pub first_unverified: Option<usize>,
    /// The line of the first over-cited sentence.
    pub first_over_cited: Option<usize>,
}

impl SentenceCounts {
    /// Counts `s`.
    pub fn add(&mut self, s: &Sentence<'_>) {
        let line = Some(s.line);
        self.total += 1;
        if s.has_provenance() {
            self.with_provenance += 1;
        } else {
            self.first_without_provenance = self.first_without_provenance.or(line);
        }
        self.cited += usize::from(!s.cited.is_empty());
        self.tool += usize::from(s.tool);
        self.policy += usize::from(s.policy);
        if s.unverified {
            self.unverified += 1;
            self.first_unverified = self.first_unverified.or(line);
        }
        if s.citations > MAX_CITATIONS_PER_SENTENCE {
            self.over_cited += 1;
            self.first_over_cited = self.first_over_cited.or(line);
        }
    }
}

/// One `[N]` in the prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Citation {
    pub id: u64,
    /// 1-based line number.
    pub line: usize,
}

/// The trailing generated Sources block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourcesBlock<'a> {
    /// Line of the (last) Sources header; for a headerless footnote or BibTeX block, the
    /// line the block starts at.
    pub header_line: usize,
    /// `[N] URL` entry lines, `[^N]: URL` footnote definitions and `@misc{sourceN,`
    /// BibTeX entries, in draft order.
    pub entries: Vec<BlockEntry<'a>>,
}

/// One line of the Sources block that lists a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockEntry<'a> {
    pub id: u64,
    /// The first http(s) URL on the line, else the token after the id; as written
    /// (a BibTeX URL unescaped).
    pub url: Cow<'a, str>,
    pub line: usize,
}

/// A prose sentence and the provenance it declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sentence<'a> {
    pub text: &'a str,
    /// Line the sentence is on.
    pub line: usize,
    /// Ids of its well-formed `[N]` markers, in order.
    pub cited: Vec<u64>,
    /// Has a well-formed `[tool:NAME]`.
    pub tool: bool,
    /// Has a well-formed `[policy]`.
    pub policy: bool,
    /// Has a well-formed `[unverified]`.
    pub unverified: bool,
    /// Every `[N]` in its text, well-formed or not (for the over-citation warning).
    pub citations: usize,
}

impl Sentence<'_> {
    /// Declares where its claim comes from: any well-formed marker.
    pub fn has_provenance(&self) -> bool {
        !self.cited.is_empty() || self.tool || self.policy || self.unverified
    }
}

/// Reads a draft's prose in order (the lines before its generated tail, outside fenced
/// code), handing each citation to `citation` and, when asked for, each sentence to
/// `sentence`. Returns the tail.
fn walk<'a>(
    draft: &'a str,
    citation: &mut dyn FnMut(Citation),
    mut sentence: Option<&mut dyn FnMut(Sentence<'a>)>,
) -> blocks::Tail<'a> {
    let tail = blocks::tail(draft);
    for line in layout::lines(draft).take(tail.start).filter(|l| !l.code) {
        for (_, id) in markers::citations(line.text) {
            citation(Citation {
                id,
                line: line.number,
            });
        }
        if let Some(each) = sentence.as_mut() {
            sentences::split_line(line.text, line.number, each);
        }
    }
    tail
}

/// The Sources block a tail holds: a header, or a headerless footnote or BibTeX block
/// that lists something.
fn block(tail: blocks::Tail<'_>) -> Option<SourcesBlock<'_>> {
    let header_line = match tail.header {
        Some(at) => at + 1,
        None => tail.entries.first()?.line,
    };
    Some(SourcesBlock {
        header_line,
        entries: tail.entries,
    })
}

/// Reads a draft, item by item: its citations, its Sources block, its sentences.
pub fn analyze(draft: &str) -> Analysis<'_> {
    let mut citations = Vec::new();
    let mut found = Vec::new();
    let tail = walk(
        draft,
        &mut |c| citations.push(c),
        Some(&mut |s| found.push(s)),
    );
    Analysis {
        citations,
        block: block(tail),
        sentences: found,
    }
}

/// Reads a draft for `verify`: what it cites, its Sources block, its sentences counted.
pub fn summarize(draft: &str) -> Summary<'_> {
    let mut cited = BTreeMap::new();
    let mut first_citation = None;
    let mut sentences = SentenceCounts::default();
    let tail = walk(
        draft,
        &mut |c| {
            first_citation.get_or_insert(c.line);
            cited.entry(c.id).or_insert(c.line);
        },
        Some(&mut |s| sentences.add(&s)),
    );
    Summary {
        cited,
        first_citation,
        block: block(tail),
        sentences,
    }
}

/// The ids cited in the draft's prose (for `render --cited-in`): the permissive scan,
/// so every id `verify` looks up is rendered.
pub fn cited_ids(draft: &str) -> BTreeSet<u64> {
    let mut ids = BTreeSet::new();
    walk(
        draft,
        &mut |c| {
            ids.insert(c.id);
        },
        None,
    );
    ids
}

/// The draft without its generated tail (for `render --replace-in`), ending at the end
/// of its last non-blank line: the caller appends a blank line and the new block.
///
/// Every render style is recognized (see the `blocks` module), and stacked stale
/// blocks go too, so `body + "\n\n" + block` fed back in gives `body` again. Author prose
/// is never removed; a draft without a block comes back whole, minus trailing blank
/// lines. One limit: a block appended after a code fence the author left open is inside
/// that fence, so it is code and stays.
pub fn body_without_block(draft: &str) -> &str {
    let tail = blocks::tail(draft);
    let end = layout::lines_backwards(draft)
        .skip_while(|&(start, _)| start >= tail.offset)
        .find(|(_, text)| !text.trim().is_empty())
        .map_or(0, |(start, text)| start + text.len());
    &draft[..end]
}

#[cfg(test)]
mod tests;
