//! Draft analysis: what a draft cites, which sentences declare provenance, and whether
//! what it shows the reader as sources agrees with the ledger.
//!
//! Pure text in, plain data out: no store, no files, no terminal. The ledger comes in as
//! [`LedgerFacts`] and URL canonicalization as a function, so this module depends on
//! neither the store nor the ledger module, and `verify` of a large draft is a few
//! linear passes plus one lookup per distinct id and URL. Lines, sentences and markers
//! are read as iterators over the draft's text and never copied or collected: `verify`
//! holds the draft once, a bit per line, and what it cites and lists ([`Summary`]).
//!
//! The rules are `sources.py`'s, tightened where SPEC §2 says so and where a submodule
//! says why. The promise they keep: a draft that passes shows the reader only ledger
//! URLs next to ids, and hides no unsupported sentence behind a malformed marker.
//!
//! - `layout`: numbered lines; fenced code (```` ``` ```` / `~~~`) is never prose.
//! - `inline`: inline code spans, which are not prose either.
//! - `blocks`: the generated Sources block at the end (header + entries, footnote
//!   definitions, or BibTeX entries); a heading that says "Sources" with author prose
//!   under it is not one, and neither is any Sources section before the end.
//! - `listing`: every line, anywhere, that shows an id with a URL, however it is typed.
//! - `front`: a leading YAML metadata block (pandoc's front matter), which is not prose,
//!   and the bibliography it names.
//! - `markers`: the well-formed `[N]` / `[@sourceN]` / `[tool:NAME]` / `[policy]` /
//!   `[unverified]` markers — the one rule for what a citation is — and the malformed
//!   ones.
//! - `sentences`: prose lines into sentences of 4+ words; table rows that cite, which
//!   `--support` checks and coverage does not count.
//! - `verify`: the checks, their wording and order, and the report.
//! - `pandoc`: a draft as a pandoc document (`cite convert`): `[N]` become `[@sourceN]`.
//! - `placed`: where each sentence and marker stands, for what shows the draft (the HTML
//!   report).
//!
//! Line numbers are 1-based, as editors show them. A [`Finding`] keeps its message
//! exactly as `sources.py` words it (with what to run appended) and carries the line
//! separately; its `Display` is `MESSAGE (line N)`, so the CLI prints
//! `FAIL: MESSAGE (line N)` / `warn: MESSAGE (line N)` and tools matching the old wording
//! as a substring still match. Where a message names several ids, the line is the first
//! place in the draft any of them occurs.

mod advice;
mod blocks;
mod front;
mod inline;
mod layout;
mod listing;
mod markers;
mod pandoc;
mod placed;
mod sentences;
mod verify;

#[cfg(test)]
mod prop_closed;
#[cfg(test)]
mod prop_tests;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

pub use advice::{Advice, DraftName};
pub use front::FrontMatter;
pub use layout::Fence;
pub use pandoc::{Converted, FrontMatterError, to_pandoc};
pub use placed::{Mark, MarkKind, Placed, place};
pub(crate) use verify::About;
pub use verify::{
    CitedEvidence, Counts, Finding, LedgerFacts, Report, SentenceRef, Verification, VerifyOptions,
    verify, verify_summary, verify_with_support,
};

/// A sentence with more citations than this draws a warning.
pub const MAX_CITATIONS_PER_SENTENCE: usize = 3;

/// Findings that name one place each (a malformed marker, a raw URL) are listed one by
/// one up to this many, and the rest counted: a draft of a million mistakes gets a
/// report of a few lines, and so does the terminal for a coverage failure.
pub const LIST_AT_MOST: usize = 20;

/// Everything a draft says, item by item: each citation and each sentence. Holds an
/// entry per citation and per sentence; `verify` reads a [`Summary`] instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Analysis<'a> {
    /// Every well-formed `[N]` in the prose (outside code), in draft order.
    pub citations: Vec<Citation>,
    /// The generated Sources block the draft ends with, in any render style.
    pub block: Option<SourcesBlock<'a>>,
    /// The prose sentences (4+ words), in draft order.
    pub sentences: Vec<Sentence<'a>>,
}

/// What `verify` needs of a draft, in memory that grows with the ids and URLs it shows
/// and the entries of its Sources block, not with its prose: a draft is read line by
/// line and each citation and sentence is counted and dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary<'a> {
    /// Each id cited in the prose, with the first line citing it.
    pub cited: BTreeMap<u64, usize>,
    /// The line of the first citation.
    pub first_citation: Option<usize>,
    /// The generated Sources block the draft ends with, in any render style.
    pub block: Option<SourcesBlock<'a>>,
    pub sentences: SentenceCounts<'a>,
    /// Every place outside that block that shows an id with a URL (a hand-typed entry,
    /// `[N](URL)`, a BibTeX entry, in prose or code), in draft order.
    pub listed: Vec<BlockEntry<'a>>,
    /// The Sources headers, and whether one is not the generated block.
    pub sections: Sections,
    /// A code fence left open at the end: everything after it is code.
    pub unclosed_fence: Option<Fence>,
    /// Each URL the draft shows with no id (in prose outside code, and beside an entry's
    /// own URL), as written, with the first line it is on.
    pub urls: BTreeMap<&'a str, usize>,
    /// The first [`LIST_AT_MOST`] malformed or misplaced markers, in draft order.
    pub notes: Vec<Note<'a>>,
    /// How many malformed or misplaced markers there are in all.
    pub note_count: usize,
    /// The ids cited at least once as `[N]` (or shown as one by a malformed group), not
    /// as a pandoc citation: those a Sources block must list whatever the front matter
    /// says.
    pub numbered: BTreeSet<u64>,
    /// The line of the `bibliography` key of the draft's front matter: pandoc lists the
    /// ids cited as `[@sourceN]` from that file, so they need no Sources block.
    pub bibliography: Option<usize>,
    /// Each id cited in a sentence, with the first sentence citing it.
    pub cited_in: BTreeMap<u64, Named<'a>>,
    /// How many of `notes` are before the sentence being read, their sentence found or
    /// none to find.
    #[serde(skip)]
    placed_notes: usize,
}

/// A sentence a finding names: its number among the draft's sentences (from 0, in the
/// order [`place`] gives them), and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Named<'a> {
    pub index: usize,
    pub text: &'a str,
}

impl<'a> Sentence<'a> {
    /// The sentence as a finding names it.
    pub fn named(&self) -> Named<'a> {
        Named {
            index: self.index,
            text: self.text,
        }
    }

    /// Whether `part`, a slice of the draft, starts inside this sentence.
    fn holds(&self, part: &str) -> bool {
        let (at, from) = (part.as_ptr() as usize, self.text.as_ptr() as usize);
        (from..from + self.text.len()).contains(&at)
    }
}

/// The Sources headers of a draft (outside code).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sections {
    /// How many there are.
    pub count: usize,
    /// The lines of the first two.
    pub first: Option<usize>,
    pub second: Option<usize>,
    /// The first that does not head the generated block at the end.
    pub misplaced: Option<Misplaced>,
}

/// A Sources header that does not head the generated block at the end: a section typed
/// by hand, or a heading with the author's own text under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Misplaced {
    pub header: usize,
    /// The first line after it that no generated block holds (author text, code, another
    /// header).
    pub followed_by: Option<usize>,
}

/// A marker that gives no provenance, or gives it only by a guess, and what to write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note<'a> {
    pub line: usize,
    pub kind: NoteKind,
    /// As written.
    pub written: &'a str,
    /// What to do instead (`write [1][2]`), or the text as it should be written.
    pub fix: String,
    /// The sentence it is in, when it is in one.
    pub sentence: Option<Named<'a>>,
}

/// What is wrong with a marker a [`Note`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// Not well-formed (`[1, 2]`, `[tool:]`, `[[policy]]`): no provenance.
    Malformed,
    /// Well-formed but set off by a space from the sentence it follows
    /// (`wavelength. [1]`): counted for that sentence, and reported.
    Spaced,
    /// Glued to the word before it (`carmakers[7].`): counted, checked and rendered,
    /// and reported with the form to write (`carmakers.[7]`).
    Glued,
}

/// The prose sentences of a draft, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SentenceCounts<'a> {
    pub total: usize,
    /// With any well-formed marker.
    pub with_provenance: usize,
    /// With a well-formed `[N]`.
    pub cited: usize,
    pub tool: usize,
    pub policy: usize,
    pub unverified: usize,
    /// With more than [`MAX_CITATIONS_PER_SENTENCE`] `[N]`.
    pub over_cited: usize,
    /// The lines of the sentences without provenance, each line once, in order.
    pub uncovered: Vec<usize>,
    /// The line of the first sentence marked `[unverified]`.
    pub first_unverified: Option<usize>,
    /// The line of the first over-cited sentence.
    pub first_over_cited: Option<usize>,
    /// The first [`LIST_AT_MOST`] sentences without provenance.
    pub uncovered_sentences: Vec<Named<'a>>,
    /// The first sentence marked `[unverified]`.
    pub first_unverified_sentence: Option<Named<'a>>,
    /// The first [`LIST_AT_MOST`] over-cited sentences.
    pub over_cited_sentences: Vec<Named<'a>>,
}

impl<'a> SentenceCounts<'a> {
    /// Counts `s`.
    pub fn add(&mut self, s: &Sentence<'a>) {
        let line = Some(s.line);
        self.total += 1;
        if s.has_provenance() {
            self.with_provenance += 1;
        } else {
            if self.uncovered.last() != Some(&s.line) {
                self.uncovered.push(s.line);
            }
            if self.uncovered_sentences.len() < LIST_AT_MOST {
                self.uncovered_sentences.push(s.named());
            }
        }
        self.cited += usize::from(!s.cited.is_empty());
        self.tool += usize::from(s.tool);
        self.policy += usize::from(s.policy);
        if s.unverified {
            self.unverified += 1;
            self.first_unverified = self.first_unverified.or(line);
            self.first_unverified_sentence = self.first_unverified_sentence.or(Some(s.named()));
        }
        if s.cited.len() > MAX_CITATIONS_PER_SENTENCE {
            self.over_cited += 1;
            self.first_over_cited = self.first_over_cited.or(line);
            if self.over_cited_sentences.len() < LIST_AT_MOST {
                self.over_cited_sentences.push(s.named());
            }
        }
    }
}

/// One well-formed `[N]` in the prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Citation {
    pub id: u64,
    /// 1-based line number.
    pub line: usize,
    /// Written as a pandoc citation (`[@sourceN]`), not as `[N]`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pandoc: bool,
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

/// A prose sentence, or a table row that cites, and the provenance it declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sentence<'a> {
    pub text: &'a str,
    /// Line the sentence is on.
    pub line: usize,
    /// Its number among the draft's sentences and cited table rows, from 0, in draft
    /// order.
    pub index: usize,
    /// A row of a table, not a prose sentence: checked against the pages it cites, not
    /// counted for coverage (SPEC).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub row: bool,
    /// For a row, its table's header row, when the table has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<&'a str>,
    /// Ids of its well-formed `[N]` markers, in order.
    pub cited: Vec<u64>,
    /// Has a well-formed `[tool:NAME]`.
    pub tool: bool,
    /// Has a well-formed `[policy]`.
    pub policy: bool,
    /// Has a well-formed `[unverified]`.
    pub unverified: bool,
}

impl Sentence<'_> {
    /// Declares where its claim comes from: any well-formed marker.
    pub fn has_provenance(&self) -> bool {
        !self.cited.is_empty() || self.tool || self.policy || self.unverified
    }
}

/// What the walk over a draft hands out, item by item.
pub(crate) trait Visit<'a> {
    fn citation(&mut self, c: Citation);
    fn sentence(&mut self, s: Sentence<'a>);
    /// A table row with a well-formed citation (`row` set).
    fn row(&mut self, _row: Sentence<'a>) {}
    /// A place outside the generated block that shows an id with a URL.
    fn listed(&mut self, _entry: BlockEntry<'a>) {}
    /// A URL shown with no id.
    fn url(&mut self, _url: &'a str, _line: usize) {}
    fn note(&mut self, _note: Note<'a>) {}
    /// A well-formed marker `m` of the prose line that starts at byte `line_start`.
    fn marker(&mut self, _line_start: usize, _m: &markers::Marker) {}
    /// A malformed bracket group at `start..end` of the draft that shows `ids`.
    fn shown(&mut self, _start: usize, _end: usize, _ids: &[u64]) {}
}

/// What the walk learns of the draft as a whole.
struct Outline<'a> {
    tail: blocks::Tail<'a>,
    front: Option<FrontMatter>,
    sections: Sections,
    unclosed_fence: Option<Fence>,
}

/// Reads a draft in order, every line: the generated tail for the URLs beside its
/// entries; every other line, code included, for what it shows as a source listing;
/// the prose (outside code, before the tail) for citations, malformed markers, raw URLs
/// and sentences.
fn walk<'a>(draft: &'a str, v: &mut dyn Visit<'a>) -> Outline<'a> {
    let v = &mut Numbered { v, next: 0 };
    let tail = blocks::tail(draft);
    let front = front::front_matter(draft);
    let front_end = front.as_ref().map_or(0, |f| f.last_line);
    let mut headers = Headers::default();
    let mut prose = Prose {
        draft,
        spans: inline::Spans::new(draft, tail.offset),
        code: Vec::new(),
        shown: Vec::new(),
        table: None,
    };
    // The last line of a BibTeX entry read ahead.
    let mut skip_to = 0;
    let mut lines = layout::lines(draft);
    for line in lines.by_ref() {
        let in_tail = line.number > tail.start;
        if line.number <= front_end.max(skip_to) || headers.see(draft, &line, in_tail) {
            continue;
        }
        if in_tail {
            // The block's entries come from `tail`; a URL beside an entry's own is raw.
            let text = line.text;
            if let Some((_, url)) = blocks::entry(text).or_else(|| blocks::footnote(text)) {
                for (_, u) in listing::unlisted(text, &[url]) {
                    v.url(u, line.number);
                }
            }
        } else if let Some((entry, last)) = bib_entry(draft, &line, tail.offset) {
            v.listed(entry);
            skip_to = last;
        } else {
            prose.line(&line, v);
        }
    }
    Outline {
        tail,
        front,
        sections: headers.sections,
        unclosed_fence: lines.open_fence(),
    }
}

/// Hands the walk's items on, numbering the sentences as they go by: every reading of a
/// draft numbers them alike, so a finding's sentence is the report's.
struct Numbered<'v, 'a> {
    v: &'v mut dyn Visit<'a>,
    next: usize,
}

impl<'a> Visit<'a> for Numbered<'_, 'a> {
    fn citation(&mut self, c: Citation) {
        self.v.citation(c);
    }
    fn sentence(&mut self, mut s: Sentence<'a>) {
        s.index = self.next;
        self.next += 1;
        self.v.sentence(s);
    }
    fn row(&mut self, mut row: Sentence<'a>) {
        row.index = self.next;
        self.next += 1;
        self.v.row(row);
    }
    fn listed(&mut self, entry: BlockEntry<'a>) {
        self.v.listed(entry);
    }
    fn url(&mut self, url: &'a str, line: usize) {
        self.v.url(url, line);
    }
    fn note(&mut self, note: Note<'a>) {
        self.v.note(note);
    }
    fn marker(&mut self, line_start: usize, m: &markers::Marker) {
        self.v.marker(line_start, m);
    }
    fn shown(&mut self, start: usize, end: usize, ids: &[u64]) {
        self.v.shown(start, end, ids);
    }
}

/// Follows the Sources headers (outside code) as the lines go by.
#[derive(Default)]
struct Headers {
    sections: Sections,
    /// The first misplaced header's section is being read: its end is still to be found.
    seeking_end: bool,
}

impl Headers {
    /// Sees `line` of `draft` (`in_tail`: part of the generated tail); true if it is a
    /// header.
    fn see(&mut self, draft: &str, line: &layout::Line<'_>, in_tail: bool) -> bool {
        let n = line.number;
        if self.seeking_end && (line.code || !blocks::in_block_body(line.text)) {
            self.seeking_end = false;
            if let Some(m) = &mut self.sections.misplaced {
                m.followed_by = Some(n);
            }
        }
        let header = match blocks::sources_heading(line.text) {
            _ if line.code => false,
            Some(blocks::Heading::Sources) => true,
            Some(blocks::Heading::Other) => lists_sources_next(draft, line),
            None => false,
        };
        if !header {
            return false;
        }
        let s = &mut self.sections;
        s.count += 1;
        match s.first {
            None => s.first = Some(n),
            Some(_) => {
                s.second.get_or_insert(n);
            }
        }
        if !in_tail && s.misplaced.is_none() {
            s.misplaced = Some(Misplaced {
                header: n,
                followed_by: None,
            });
            self.seeking_end = true;
        }
        true
    }
}

/// Whether the first line after `line` that is not blank is an entry (`[N] URL`,
/// `[N]: URL`, behind a list marker or `>` too): what makes a heading by another name
/// (References, Notes, …) a Sources section. Footnote definitions and BibTeX entries
/// come with no header of their own, so a "Notes" heading over them is the author's,
/// as the tail finder reads it too.
fn lists_sources_next(draft: &str, line: &layout::Line<'_>) -> bool {
    let after = line.start + line.text.len();
    draft[after..]
        .split('\n')
        .skip(1)
        .map(layout::text_of)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| listing::entry_line(l).is_some())
}

/// The BibTeX entry `line` opens, if it opens one, with the number of its last line:
/// its fields run to its `}` line (or a blank line, or `limit`, where the tail starts),
/// and are not prose.
fn bib_entry<'a>(
    draft: &'a str,
    line: &layout::Line<'a>,
    limit: usize,
) -> Option<(BlockEntry<'a>, usize)> {
    let (_, id) = blocks::bib_open(line.text)?;
    let next = draft[line.start..]
        .find('\n')
        .map_or(limit, |i| line.start + i + 1)
        .min(limit);
    let mut taken = 0;
    let fields = draft[next..limit]
        .split('\n')
        .map(layout::text_of)
        .take_while(|l| !matches!(l.trim(), "" | "}"))
        .inspect(|_| taken += 1);
    let url = blocks::bib_url(fields);
    let entry = BlockEntry {
        id,
        url,
        line: line.number,
    };
    Some((entry, line.number + taken))
}

/// Reads the lines before the tail, and what they hold, with buffers reused from line to
/// line.
struct Prose<'a> {
    draft: &'a str,
    spans: inline::Spans<'a>,
    /// The inline code spans of the current line.
    code: Vec<(usize, usize)>,
    /// The URLs the current line shows with an id.
    shown: Vec<&'a str>,
    /// The table the lines before this one are rows of, with its header row if it has
    /// one.
    table: Option<Option<&'a str>>,
}

impl<'a> Prose<'a> {
    /// Hands what `line` shows with ids to `v`; and, if it is prose (not code, not a
    /// listing), its raw URLs, citations, malformed markers and sentences.
    fn line(&mut self, line: &layout::Line<'a>, v: &mut dyn Visit<'a>) {
        let (n, text) = (line.number, line.text);
        self.shown.clear();
        let entry = listing::line_entry(text);
        for (id, url) in entry.into_iter().chain(listing::pairs(text)) {
            // A line entry `[N] URL` is also a pair: one listing.
            if !self.shown.iter().any(|s| s.as_ptr() == url.as_ptr()) {
                self.shown.push(url);
                let url = Cow::Borrowed(url);
                v.listed(BlockEntry { id, url, line: n });
            }
        }
        let row = !line.code && text.trim_start().starts_with('|');
        if !row {
            self.table = None;
        }
        if line.code {
            return;
        }
        let paragraph = !text.trim_start().starts_with(['#', '|']);
        self.spans.line(line.start, text, paragraph, &mut self.code);
        let code = &self.code[..];
        for (at, url) in listing::unlisted(text, &self.shown) {
            if !inline::in_code(code, at) {
                v.url(url, n);
            }
        }
        if entry.is_some() {
            // A listing, not prose.
            return;
        }
        for (at, _) in text.match_indices('[') {
            if inline::in_code(code, at) {
                continue;
            }
            if let Some(m) = markers::marker_at(text, at) {
                let pandoc = matches!(m.kind, markers::Kind::Pandoc(_));
                for &id in m.kind.ids() {
                    v.citation(Citation {
                        id,
                        line: n,
                        pandoc,
                    });
                }
                v.marker(line.start, &m);
                if m.glued {
                    let (written, fix) = markers::glued_fix(text, &m);
                    v.note(Note {
                        line: n,
                        kind: NoteKind::Glued,
                        written,
                        fix,
                        sentence: None,
                    });
                }
                continue;
            }
            // A malformed group that still shows one id: the reader sees it, so it is
            // checked and rendered, though it gives no provenance.
            if let Some(ids) = markers::shown_ids(text, at) {
                let pandoc = text[at + 1..].starts_with(|c: char| !c.is_ascii_digit());
                for &id in &ids {
                    v.citation(Citation {
                        id,
                        line: n,
                        pandoc,
                    });
                }
                let end = text[at..].find(']').map_or(text.len(), |i| at + i + 1);
                v.shown(line.start + at, line.start + end, &ids);
            }
            if let Some(m) = markers::malformed(text, at) {
                v.note(Note {
                    line: n,
                    kind: NoteKind::Malformed,
                    written: m.written,
                    fix: m.fix,
                    sentence: None,
                });
            }
        }
        if row {
            self.row(line, v);
        } else {
            sentences::split_line(text, n, code, v);
        }
    }

    /// Hands `line`, a table row, to `v` if it cites: a table's first line is its header
    /// when a delimiter row (`|---|:--:|`) follows it, and the delimiter row is no row.
    fn row(&mut self, line: &layout::Line<'a>, v: &mut dyn Visit<'a>) {
        let text = line.text.trim();
        let header = match self.table {
            Some(header) => {
                if delimiter_row(text) {
                    return;
                }
                header
            }
            None => {
                let after = line.start + line.text.len();
                let next = self.draft[after..].split('\n').nth(1).map(layout::text_of);
                if next.is_some_and(|l| delimiter_row(l.trim())) {
                    self.table = Some(Some(text));
                    return;
                }
                self.table = Some(None);
                None
            }
        };
        sentences::row(line.text, line.number, header, &self.code, v);
    }
}

/// A table's delimiter row: pipes, dashes, colons and blanks, a dash among them.
fn delimiter_row(text: &str) -> bool {
    text.starts_with('|')
        && text.contains('-')
        && text
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
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
    struct Items<'a> {
        citations: Vec<Citation>,
        sentences: Vec<Sentence<'a>>,
    }
    impl<'a> Visit<'a> for Items<'a> {
        fn citation(&mut self, c: Citation) {
            self.citations.push(c);
        }
        fn sentence(&mut self, s: Sentence<'a>) {
            self.sentences.push(s);
        }
    }
    let mut items = Items {
        citations: Vec::new(),
        sentences: Vec::new(),
    };
    let outline = walk(draft, &mut items);
    Analysis {
        citations: items.citations,
        block: block(outline.tail),
        sentences: items.sentences,
    }
}

impl<'a> Visit<'a> for Summary<'a> {
    fn citation(&mut self, c: Citation) {
        self.first_citation.get_or_insert(c.line);
        self.cited.entry(c.id).or_insert(c.line);
        if !c.pandoc {
            self.numbered.insert(c.id);
        }
    }
    fn sentence(&mut self, s: Sentence<'a>) {
        self.see(&s);
    }
    fn row(&mut self, row: Sentence<'a>) {
        self.see(&row);
    }
    fn listed(&mut self, entry: BlockEntry<'a>) {
        self.listed.push(entry);
    }
    fn url(&mut self, url: &'a str, line: usize) {
        self.urls.entry(url).or_insert(line);
    }
    fn note(&mut self, note: Note<'a>) {
        self.note_count += 1;
        if self.notes.len() < LIST_AT_MOST {
            self.notes.push(note);
        }
    }
}

/// Reads a draft for `verify`: what it cites and shows as sources, its Sources block,
/// its sentences counted.
pub fn summarize(draft: &str) -> Summary<'_> {
    let mut summary = Summary::default();
    let outline = walk(draft, &mut summary);
    summary.outline(outline);
    summary
}

impl<'a> Summary<'a> {
    /// Counts `s` (a row is not counted), and names it as the sentence of the notes in
    /// it and of the ids it is the first to cite. A line's notes come before its
    /// sentences, in order.
    fn see(&mut self, s: &Sentence<'a>) {
        if !s.row {
            self.sentences.add(s);
        }
        for &id in &s.cited {
            self.cited_in.entry(id).or_insert(s.named());
        }
        while let Some(note) = self.notes.get_mut(self.placed_notes) {
            let later = note.line > s.line
                || (note.line == s.line && note.written.as_ptr() >= s.text.as_ptr());
            if s.holds(note.written) {
                note.sentence = Some(s.named());
            } else if later {
                // A sentence still to come may hold it.
                break;
            }
            self.placed_notes += 1;
        }
    }

    /// Takes in what the walk learned of the draft as a whole: the same for every reading
    /// of it, so that a document `verify` reads one way is read so with `--support` too.
    fn outline(&mut self, outline: Outline<'a>) {
        self.block = block(outline.tail);
        self.bibliography = outline.front.and_then(|f| f.bibliography);
        self.sections = outline.sections;
        self.unclosed_fence = outline.unclosed_fence;
    }
}

/// [`summarize`], keeping the sentences and table rows that cite an id too, with their
/// text: what `verify --support` checks against the pages they cite. Only those are
/// kept, each a slice of the draft and its ids.
///
/// A cited sentence's text takes in what opens its line before it and is too short to
/// be a sentence (`On Sept.` of `On Sept. 6, 2022 the bank moved.[1]`, split at the
/// abbreviation's full stop), so that the figures and names it shows are read whole.
pub fn summarize_cited(draft: &str) -> (Summary<'_>, Vec<Sentence<'_>>) {
    struct Keep<'a> {
        draft: &'a str,
        summary: Summary<'a>,
        cited: Vec<Sentence<'a>>,
        /// Where the last sentence ended, in the draft.
        last_end: usize,
    }
    impl<'a> Visit<'a> for Keep<'a> {
        fn citation(&mut self, c: Citation) {
            self.summary.citation(c);
        }
        fn sentence(&mut self, mut s: Sentence<'a>) {
            self.summary.see(&s);
            let start = s.text.as_ptr() as usize - self.draft.as_ptr() as usize;
            let end = start + s.text.len();
            let line_start = self.draft[..start].rfind('\n').map_or(0, |i| i + 1);
            let from = line_start.max(self.last_end.min(start));
            self.last_end = end;
            if s.cited.is_empty() {
                return;
            }
            let lead_in = &self.draft[from..start];
            let fragment = lead_in.trim().trim_start_matches(['>', ' ']);
            if !fragment.is_empty() && !fragment.contains(['[', '`', '<']) {
                let at = start - fragment.len() - (lead_in.len() - lead_in.trim_end().len());
                s.text = &self.draft[at..end];
            }
            self.cited.push(s);
        }
        fn row(&mut self, row: Sentence<'a>) {
            self.summary.see(&row);
            self.cited.push(row);
        }
        fn listed(&mut self, entry: BlockEntry<'a>) {
            self.summary.listed(entry);
        }
        fn url(&mut self, url: &'a str, line: usize) {
            self.summary.url(url, line);
        }
        fn note(&mut self, note: Note<'a>) {
            self.summary.note(note);
        }
    }
    let mut keep = Keep {
        draft,
        summary: Summary::default(),
        cited: Vec::new(),
        last_end: 0,
    };
    let outline = walk(draft, &mut keep);
    let mut summary = keep.summary;
    summary.outline(outline);
    (summary, keep.cited)
}

/// The ids cited in the draft's prose (for `render --cited-in`), by the same rule
/// `verify` reads citations with.
pub fn cited_ids(draft: &str) -> BTreeSet<u64> {
    summarize(draft).cited.into_keys().collect()
}

/// Why `render --replace-in` will not write a block into a draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplaceError {
    /// A code fence is left open: a block written after it would be code, and every
    /// rerun would append another.
    UnclosedFence(Fence),
    /// A Sources section that is not the generated block at the end, which a rewrite
    /// does not remove (it may hold the author's text): a new block would make two.
    MisplacedSection(Misplaced),
}

/// The draft without its generated tail, for `render --replace-in` to write a new block
/// after ([`body_without_block`]), unless a block written there would be code or a
/// second Sources section.
pub fn body_for_block(draft: &str) -> Result<&str, ReplaceError> {
    let summary = summarize(draft);
    if let Some(fence) = summary.unclosed_fence {
        return Err(ReplaceError::UnclosedFence(fence));
    }
    if let Some(m) = summary.sections.misplaced {
        return Err(ReplaceError::MisplacedSection(m));
    }
    Ok(body_without_block(draft))
}

/// The draft without its generated tail (for `render --replace-in`), ending at the end
/// of its last non-blank line: the caller appends a blank line and the new block.
///
/// Every render style is recognized (see the `blocks` module), and stacked stale
/// blocks go too, so `body + "\n\n" + block` fed back in gives `body` again. Author prose
/// is never removed; a draft without a block comes back whole, minus trailing blank
/// lines. A block after a code fence the author left open is inside that fence, so it is
/// code and stays: [`body_for_block`] refuses such a draft.
pub fn body_without_block(draft: &str) -> &str {
    let tail = blocks::tail(draft);
    let end = layout::lines_backwards(draft)
        .skip_while(|&(start, _)| start >= tail.offset)
        .find(|(_, text)| !text.trim().is_empty())
        .map_or(0, |(start, text)| start + text.len());
    &draft[..end]
}

/// Up to this many ids are listed one by one, as `sources.py` lists them.
pub const LIST_IN_FULL: u64 = 20;

/// `[a], [b]` for a short list; past [`LIST_IN_FULL`] ids, runs of three or more become
/// `[a]–[b]`, so a draft citing 3 of 100,000 sources gets a line, not a megabyte.
pub fn range_list(ranges: &[(u64, u64)]) -> String {
    let total = ranges
        .iter()
        .map(|&(lo, hi)| (hi - lo).saturating_add(1))
        .fold(0, u64::saturating_add);
    ranges_shown(ranges, total > LIST_IN_FULL)
}

/// `[a], [b]`, every run of three or more as `[a]–[b]` when `compact`.
pub fn ranges_shown(ranges: &[(u64, u64)], compact: bool) -> String {
    let mut parts = Vec::new();
    for &(lo, hi) in ranges {
        if compact && hi - lo >= 2 {
            parts.push(format!("[{lo}]–[{hi}]"));
        } else {
            parts.extend((lo..=hi).map(|id| format!("[{id}]")));
        }
    }
    parts.join(", ")
}

/// `[a], [b]`.
pub fn id_list(ids: &[u64]) -> String {
    ids.iter()
        .map(|id| format!("[{id}]"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
