//! Draft analysis: what a draft cites, which sentences declare provenance, and whether
//! its Sources block agrees with the ledger.
//!
//! Pure text in, plain data out: no store, no files, no terminal. The ledger comes in as
//! [`LedgerFacts`] and URL canonicalization as a function, so this module depends on
//! neither the store nor the ledger module, and `verify` of a large draft is one linear
//! pass plus one lookup per distinct id.
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

use std::collections::BTreeSet;

use serde::Serialize;

pub use verify::{Counts, Finding, LedgerFacts, Report, VerifyOptions, verify, verify_analysis};

/// What a draft says, ready for checking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// Every `[N]` in the prose (the permissive scan: glued or not), in draft order.
    pub citations: Vec<Citation>,
    /// The generated Sources block the draft ends with, in any render style.
    pub block: Option<SourcesBlock>,
    /// The prose sentences (4+ words), in draft order.
    pub sentences: Vec<Sentence>,
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
pub struct SourcesBlock {
    /// Line of the (last) Sources header; for a headerless footnote or BibTeX block, the
    /// line the block starts at.
    pub header_line: usize,
    /// `[N] URL` entry lines, `[^N]: URL` footnote definitions and `@misc{sourceN,`
    /// BibTeX entries, in draft order.
    pub entries: Vec<BlockEntry>,
}

/// One line of the Sources block that lists a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockEntry {
    pub id: u64,
    /// The first http(s) URL on the line, else the token after the id; as written.
    pub url: String,
    pub line: usize,
}

/// A prose sentence and the provenance it declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sentence {
    pub text: String,
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

impl Sentence {
    /// Declares where its claim comes from: any well-formed marker.
    pub fn has_provenance(&self) -> bool {
        !self.cited.is_empty() || self.tool || self.policy || self.unverified
    }
}

/// Reads a draft: its citations, its Sources block, its sentences.
pub fn analyze(draft: &str) -> Analysis {
    let lines = layout::lines(draft);
    let tail = blocks::tail(&lines);
    let mut citations = Vec::new();
    let mut found = Vec::new();
    for line in lines[..tail.start].iter().filter(|l| !l.code) {
        citations.extend(markers::citations(line.text).map(|(_, id)| Citation {
            id,
            line: line.number,
        }));
        sentences::split_line(line.text, line.number, &mut found);
    }
    // A header, or a headerless footnote or BibTeX block that lists something.
    let first_entry = tail.entries.first().map(|e| e.0);
    let block = tail.header.or(first_entry).map(|at| SourcesBlock {
        header_line: lines[at].number,
        entries: tail
            .entries
            .into_iter()
            .map(|(i, id, url)| BlockEntry {
                id,
                url,
                line: lines[i].number,
            })
            .collect(),
    });
    Analysis {
        citations,
        block,
        sentences: found,
    }
}

/// The ids cited in the draft's prose (for `render --cited-in`): the permissive scan,
/// so every id `verify` looks up is rendered.
pub fn cited_ids(draft: &str) -> BTreeSet<u64> {
    let lines = layout::lines(draft);
    let tail = blocks::tail(&lines);
    lines[..tail.start]
        .iter()
        .filter(|l| !l.code)
        .flat_map(|l| markers::citations(l.text).map(|(_, id)| id))
        .collect()
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
    let lines = layout::lines(draft);
    let tail = blocks::tail(&lines);
    let end = lines[..tail.start]
        .iter()
        .rev()
        .find(|l| !l.is_blank())
        .map_or(0, |l| l.end());
    &draft[..end]
}

#[cfg(test)]
mod tests;
