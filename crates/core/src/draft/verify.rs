//! The checks `verify` runs on an analyzed draft, worded and ordered as in `sources.py`,
//! each failure saying what to do to fix it, in the words of whoever reads it
//! ([`Advice`]: a shell command, or a tool and its arguments).
//!
//! Errors, in SPEC order: ids not in the ledger; citations without a Sources block; ids
//! missing from the block; block entries not in the ledger; block entries with another
//! URL; then what `sources.py` did not check — more than one Sources section or one
//! that is not the generated block, and lines outside the block that show an id with a
//! URL the ledger does not give it; coverage below `--min-coverage`; cited sources
//! without evidence quotes (`--evidence`).
//! Warnings, all about the draft itself: block entries never cited; sentences with more
//! than 3 citations; provenance mostly `[unverified]`; then a code fence left open,
//! malformed, spaced and glued markers, and URLs the ledger does not have. Under
//! `strict` each warning fails the draft and is listed with the errors too.
//! Information: ledger sources the draft does not cite — registering every result is
//! the method (issue 18), so that is no fault of the draft.
//!
//! Each check is one function over a [`Check`], which holds what they share; each
//! finding carries the first draft line it applies to.
//!
//! An id the ledger lacks is reported once, as such, with "remove it or register the
//! page": no finding about it says to render, since `render` cannot list an id the
//! ledger does not have (it refuses instead), and advice that loops is no advice.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::advice::{Advice, DraftName};
use super::{
    BlockEntry, LIST_AT_MOST, MAX_CITATIONS_PER_SENTENCE, NoteKind, Summary, id_list, range_list,
    summarize,
};
use crate::support::{FactKind, SupportReport};

/// What `verify` needs to know about the ledger.
pub trait LedgerFacts {
    /// The canonical URL of source `id`, if the ledger has it.
    fn url(&self, id: u64) -> Option<String>;
    /// Whether source `id` carries at least one verified quote.
    fn has_quotes(&self, id: u64) -> bool;
    /// Every id in the ledger, as sorted, disjoint, inclusive ranges (ids are dense, so
    /// usually one range: a million-source ledger is not a million-element list).
    fn id_ranges(&self) -> Vec<(u64, u64)>;
    /// How many sources carry at least one quote.
    fn quoted_count(&self) -> usize;
    /// Whether a canonical URL is the URL of a source in the ledger.
    fn registered(&self, url: &str) -> bool;
    /// For an id the ledger lacks: another epoch (the newest) that has it, so that a
    /// draft written before a `reset` is pointed at `--epoch N`.
    fn epoch_of(&self, _id: u64) -> Option<u64> {
        None
    }
}

/// The flags of `verify`, and where the draft and the ledger are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyOptions {
    /// Warnings fail too.
    pub strict: bool,
    /// Required share of sentences with declared provenance, 0.0–1.0.
    pub min_coverage: Option<f64>,
    /// Every cited source must carry an evidence quote.
    pub evidence: bool,
    /// Every figure, date and quoted phrase of a cited sentence must be on a page it
    /// cites (the report's `support`, made by [`crate::support::check`]).
    pub support: bool,
    /// The draft's path, named in the advice a failure gives (`-`, or none, when the
    /// draft came as text).
    pub draft: Option<PathBuf>,
    /// Where the ledger is, as the reader named it (a path, or a URL without password),
    /// named where an id is missing from it, so that a forgotten `--ledger` shows.
    pub ledger: Option<String>,
    /// Whose words the advice is in.
    pub advice: Advice,
}

/// One error, warning or piece of information.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// The message, worded as `sources.py` words it, with what to do appended.
    pub message: String,
    /// The first draft line it applies to (1-based), when it applies to one.
    pub line: Option<usize>,
    /// Every line it applies to, when that is more than one place (the sentences a
    /// coverage failure counts as uncovered).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<usize>,
    /// The sentences it is about (the first [`LIST_AT_MOST`]), each with its number and
    /// text: two findings on one line say which sentence each is about.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sentences: Vec<SentenceRef>,
    /// What its sentences are to it, for a front end that marks them.
    #[serde(skip)]
    pub(crate) about: About,
}

/// What the sentences a finding names are to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum About {
    /// They are what is wrong (a marker, too many citations).
    #[default]
    Fault,
    /// They cite ids the ledger lacks (each the first to cite one).
    Ids,
    /// What the support check found in them (a figure no page has, a name, no page
    /// text): its report says more of each than the finding.
    Support,
    /// They are listed for the finding, which is about the draft as a whole (its
    /// coverage, its share of `[unverified]`).
    Listed,
}

/// A sentence a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SentenceRef {
    /// Its number among the draft's sentences and cited table rows, from 0, in draft
    /// order (the support report's `index`); a message shows it counted from 1.
    pub index: usize,
    /// As the draft writes it, on one line.
    pub text: String,
    /// It is a row of a table.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub row: bool,
}

impl SentenceRef {
    /// The sentence numbered `index` whose text is `text`. A table row is the only
    /// text that opens with `|`: a prose line opening so is a row, never a sentence.
    pub fn new(index: usize, text: &str) -> SentenceRef {
        let text: String = text
            .split_whitespace()
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
            .collect();
        SentenceRef {
            index,
            row: text.starts_with('|'),
            text,
        }
    }

    fn of(named: &super::Named<'_>) -> SentenceRef {
        SentenceRef::new(named.index, named.text)
    }

    /// `sentence 4: "Prices rose 7.4% in May.[1]"`, a long text cut at a word with `…`.
    fn shown(&self) -> String {
        const LONG: usize = 80;
        let mut text = self.text.as_str();
        let mut cut = "";
        if let Some((at, _)) = text.char_indices().nth(LONG) {
            let word = text[..at]
                .rfind(' ')
                .filter(|&k| k > LONG / 2)
                .unwrap_or(at);
            text = text[..word].trim_end();
            cut = " …";
        }
        let what = if self.row { ", a table row" } else { "" };
        format!("sentence {}{what}: \"{text}{cut}\"", self.index + 1)
    }
}

impl Finding {
    fn at(message: String, line: Option<usize>) -> Finding {
        Finding {
            message,
            line,
            lines: Vec::new(),
            sentences: Vec::new(),
            about: About::Fault,
        }
    }

    /// The finding about `sentences`, which are `about` to it.
    fn about(mut self, about: About, sentences: Vec<SentenceRef>) -> Finding {
        self.about = about;
        self.sentences = sentences;
        self
    }
}

impl fmt::Display for Finding {
    /// `MESSAGE (line N)`, `MESSAGE (lines A, B, … and K more)` (the first
    /// [`LIST_AT_MOST`]), or the message alone; `MESSAGE (line N) in sentence K: "TEXT"`
    /// when it is about one sentence, so that `(line N)` reads as it always has.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match (self.lines.len(), self.line) {
            (0 | 1, Some(n)) => {
                write!(f, " (line {n})")?;
                match &self.sentences[..] {
                    [one] if self.about != About::Listed => write!(f, " in {}", one.shown()),
                    _ => Ok(()),
                }
            }
            (0 | 1, None) => Ok(()),
            (count, _) => {
                let shown = &self.lines[..count.min(LIST_AT_MOST)];
                let list: Vec<String> = shown.iter().map(usize::to_string).collect();
                write!(f, " (lines {}", list.join(", "))?;
                if count > shown.len() {
                    write!(f, " and {} more", count - shown.len())?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The numbers behind the stats line.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Prose sentences.
    pub sentences: usize,
    /// Sentences with any well-formed marker.
    pub with_provenance: usize,
    pub cited: usize,
    pub tool_verified: usize,
    pub policy: usize,
    pub unverified: usize,
    /// `with_provenance / sentences`, 0 when there are no sentences.
    pub coverage: f64,
    /// Distinct ids cited.
    pub distinct_cited: usize,
    /// Sources in the ledger.
    pub in_ledger: usize,
    /// Ledger sources with evidence quotes.
    pub quoted: usize,
}

impl Counts {
    /// `a cited, b tool-verified, c policy, d unverified`.
    fn breakdown(&self) -> String {
        format!(
            "{} cited, {} tool-verified, {} policy, {} unverified",
            self.cited, self.tool_verified, self.policy, self.unverified
        )
    }

    /// The stats line, without `info: `.
    fn stats(&self) -> String {
        format!(
            "stats: {} prose sentence(s), {} with declared provenance ({}) — {}; {} distinct source(s) cited, {} in ledger ({} with evidence quotes)",
            self.sentences,
            self.with_provenance,
            percent(self.coverage),
            self.breakdown(),
            self.distinct_cited,
            self.in_ledger,
            self.quoted
        )
    }
}

/// The outcome of `verify`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// `stats: …` (the CLI prints it after `info: `).
    pub stats: String,
    pub counts: Counts,
    /// What fails the draft: the errors, then under `strict` every warning.
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    /// What is worth knowing and is no fault of the draft: ledger sources it does not
    /// cite.
    pub info: Vec<Finding>,
    /// 1 when `errors` is not empty, else 0.
    pub exit_code: i32,
    /// With `--support`: what each cited sentence's pages support.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support: Option<SupportReport>,
}

/// Checks `draft` against the ledger. `normalize` canonicalizes a URL from the draft
/// (returning its input when it is not a URL) for comparison with the ledger's.
pub fn verify(
    draft: &str,
    ledger: &dyn LedgerFacts,
    opts: &VerifyOptions,
    normalize: &dyn Fn(&str) -> String,
) -> Report {
    verify_summary(&summarize(draft), ledger, opts, normalize)
}

/// Entries that list sources (the block's, or those outside it), by id then line: a run
/// per listed id, its first entry first. A block can list millions of ids, so this list
/// of references is all that is built of it.
struct Listing<'s, 'a> {
    sorted: Vec<&'s BlockEntry<'a>>,
}

impl<'s, 'a> Listing<'s, 'a> {
    fn new(entries: &'s [BlockEntry<'a>]) -> Self {
        let mut sorted: Vec<&BlockEntry<'_>> = entries.iter().collect();
        sorted.sort_by_key(|e| (e.id, e.line));
        Listing { sorted }
    }

    fn runs(&self) -> impl Iterator<Item = &[&'s BlockEntry<'a>]> {
        self.sorted.chunk_by(|a, b| a.id == b.id)
    }

    fn lists(&self, id: u64) -> bool {
        self.sorted.binary_search_by_key(&id, |e| e.id).is_ok()
    }
}

/// What every check reads, and the findings so far.
struct Check<'s, 'a> {
    summary: &'s Summary<'a>,
    ledger: &'s dyn LedgerFacts,
    opts: &'s VerifyOptions,
    normalize: &'s dyn Fn(&str) -> String,
    /// The ledger's URL of each cited id (`None`: not in the ledger).
    cited_urls: BTreeMap<u64, Option<String>>,
    /// The Sources block's entries.
    block: Listing<'s, 'a>,
    /// What writes the block, as advice (`run `cite render --replace-in DRAFT``, or the
    /// tool call) and as a noun (the command alone).
    rerender: String,
    renderer: String,
    counts: Counts,
    /// What the cited pages support (`--support`).
    support: Option<SupportReport>,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    info: Vec<Finding>,
}

impl<'s, 'a> Check<'s, 'a> {
    fn new(
        summary: &'s Summary<'a>,
        ledger: &'s dyn LedgerFacts,
        opts: &'s VerifyOptions,
        normalize: &'s dyn Fn(&str) -> String,
    ) -> Self {
        let entries = summary.block.as_ref().map_or(&[][..], |b| &b.entries[..]);
        let sentences = &summary.sentences;
        let n = sentences.total;
        let counts = Counts {
            sentences: n,
            with_provenance: sentences.with_provenance,
            cited: sentences.cited,
            tool_verified: sentences.tool,
            policy: sentences.policy,
            unverified: sentences.unverified,
            coverage: if n == 0 {
                0.0
            } else {
                sentences.with_provenance as f64 / n as f64
            },
            distinct_cited: summary.cited.len(),
            in_ledger: ledger
                .id_ranges()
                .iter()
                .map(|&(lo, hi)| (hi - lo + 1) as usize)
                .sum(),
            quoted: ledger.quoted_count(),
        };
        Check {
            summary,
            ledger,
            opts,
            normalize,
            cited_urls: summary
                .cited
                .keys()
                .map(|&id| (id, ledger.url(id)))
                .collect(),
            block: Listing::new(entries),
            rerender: opts.advice.render(DraftName::of(opts.draft.as_deref())),
            renderer: opts.advice.renderer(DraftName::of(opts.draft.as_deref())),
            counts,
            support: None,
            errors: Vec::new(),
            warnings: Vec::new(),
            info: Vec::new(),
        }
    }

    fn error(&mut self, message: String, line: Option<usize>) {
        self.errors.push(Finding::at(message, line));
    }

    fn warn(&mut self, message: String, line: Option<usize>) {
        self.warnings.push(Finding::at(message, line));
    }

    /// The sentences in which the first of `ids` are first cited, each once, in order.
    fn citing(&self, ids: &[u64]) -> Vec<SentenceRef> {
        let mut named: Vec<&super::Named<'_>> = ids
            .iter()
            .filter_map(|id| self.summary.cited_in.get(id))
            .collect();
        named.sort_by_key(|n| n.index);
        named.dedup_by_key(|n| n.index);
        named
            .iter()
            .take(LIST_AT_MOST)
            .map(|n| SentenceRef::of(n))
            .collect()
    }

    /// The first line citing any of `ids`.
    fn first_line(&self, ids: &[u64]) -> Option<usize> {
        ids.iter()
            .filter_map(|id| self.summary.cited.get(id))
            .min()
            .copied()
    }

    /// The cited ids the ledger has (`known`) or lacks.
    fn cited_where(&self, known: bool) -> Vec<u64> {
        self.cited_urls
            .iter()
            .filter(|(_, url)| url.is_some() == known)
            .map(|(&id, _)| id)
            .collect()
    }

    /// The ledger's URL for `id`.
    fn url_of(&self, id: u64) -> Option<String> {
        match self.cited_urls.get(&id) {
            Some(url) => url.clone(),
            None => self.ledger.url(id),
        }
    }

    /// Cited ids the ledger lacks: made up, or from another numbering.
    fn unknown_ids(&mut self) {
        let unknown = self.cited_where(false);
        if unknown.is_empty() {
            return;
        }
        let advice = self.opts.advice;
        let mut message = format!(
            "citations not in the ledger (hallucinated or renumbered): {} — remove them, or {}",
            id_list(&unknown),
            advice.register()
        );
        if let Some(path) = &self.opts.ledger {
            message.push_str(&format!(" (ledger: {path})"));
        }
        let elsewhere: Vec<(u64, u64)> = unknown
            .iter()
            .take(LIST_AT_MOST)
            .filter_map(|&id| self.ledger.epoch_of(id).map(|e| (id, e)))
            .collect();
        if let Some(&(_, epoch)) = elsewhere.first() {
            let found: Vec<String> = elsewhere
                .iter()
                .map(|(id, e)| format!("[{id}] is in epoch {e}"))
                .collect();
            message.push_str(&format!(
                "; {}: if the draft was written before `cite reset`, verify it with {}",
                found.join(", "),
                advice.epoch(epoch)
            ));
        }
        let line = self.first_line(&unknown);
        let sentences = self.citing(&unknown);
        self.errors
            .push(Finding::at(message, line).about(About::Ids, sentences));
    }

    /// Cited ids the ledger has, with no block listing anything (as in `sources.py`, a
    /// block that lists nothing counts as none), or missing from the block. Ids cited
    /// only as `[@sourceN]` in a draft whose front matter names a bibliography are owed
    /// no entry: pandoc lists them from that file (issue 22).
    fn block_lacks_cited(&mut self) {
        let mut known = self.cited_where(true);
        if self.summary.bibliography.is_some() {
            known.retain(|id| self.summary.numbered.contains(id));
        }
        if known.is_empty() {
            return;
        }
        if self.block.sorted.is_empty() {
            let line = self.first_line(&known);
            let message = format!(
                "draft cites sources but has no `Sources:` block — {}",
                self.rerender
            );
            self.error(message, line);
            return;
        }
        let missing: Vec<u64> = known
            .into_iter()
            .filter(|&id| !self.block.lists(id))
            .collect();
        if !missing.is_empty() {
            let line = self.first_line(&missing);
            let message = format!(
                "cited but absent from the Sources block: {} — {}",
                id_list(&missing),
                self.rerender
            );
            self.error(message, line);
        }
    }

    /// Entries of `listing` whose id the ledger lacks (each once, at its first line),
    /// then entries whose URL is not the ledger's (each distinct one of an id once): in
    /// SPEC order. Ids are dense, so one pass in id order would put the mismatches first.
    fn check_listing(
        &mut self,
        listing: &Listing<'_, '_>,
        missing: &dyn Fn(&Self, u64) -> String,
        mismatched: &dyn Fn(&Self, &BlockEntry<'_>, &str) -> String,
    ) {
        for run in listing.runs() {
            if self.url_of(run[0].id).is_none() {
                let message = missing(self, run[0].id);
                self.error(message, Some(run[0].line));
            }
        }
        for run in listing.runs() {
            let Some(url) = self.url_of(run[0].id) else {
                continue;
            };
            let mut reported: BTreeSet<&str> = BTreeSet::new();
            // A URL stored before issue 19 can hold what canonicalization now removes (a
            // tracking parameter): the block shows it as stored, and its canonical form
            // is not the stored one. Either is the ledger's URL.
            let now = (self.normalize)(&url);
            for e in run {
                // A BibTeX entry carries `{`, `}` and `\` of the query percent-encoded
                // (`crate::tex::tex_url`): either form is the ledger's URL.
                let same = |u: &str| {
                    let shown = (self.normalize)(u);
                    shown == url || shown == now
                };
                let matches =
                    same(&e.url) || crate::tex::tex_url_decoded(&e.url).is_some_and(|d| same(&d));
                if !matches && reported.insert(&e.url) {
                    let message = mismatched(self, e, &url);
                    self.error(message, Some(e.line));
                }
            }
        }
    }

    /// The block's entries: each id in the ledger, each with the ledger's URL.
    fn block_entries(&mut self) {
        let block = Listing::new(self.block_entries_slice());
        self.check_listing(
            &block,
            &|c, id| {
                if c.summary.cited.contains_key(&id) {
                    // Cited too: rendering cannot fix it, the citation must go.
                    format!(
                        "Sources block lists [{id}], which is not in the ledger — remove the citations of [{id}] (or {}), then {}",
                        c.opts.advice.register(),
                        c.rerender
                    )
                } else {
                    format!(
                        "Sources block lists [{id}], which is not in the ledger — {}",
                        c.rerender
                    )
                }
            },
            &|c, e, url| {
                format!(
                    "Sources block URL for [{}] does not match the ledger (block: {} / ledger: {url}) — re-run `render`: {}",
                    e.id, e.url, c.renderer
                )
            },
        );
    }

    fn block_entries_slice(&self) -> &'s [BlockEntry<'a>] {
        self.summary
            .block
            .as_ref()
            .map_or(&[][..], |b| &b.entries[..])
    }

    /// One Sources section, and that one the generated block at the end.
    fn sections(&mut self) {
        let sections = &self.summary.sections;
        if let (Some(a), Some(b)) = (sections.first, sections.second) {
            let fix = match &sections.misplaced {
                None => format!("{} to replace them with one block", self.rerender),
                Some(m) => format!(
                    "keep your text under another heading, remove the Sources heading at line {} and the entries under it, then {}",
                    m.header, self.rerender
                ),
            };
            self.error(
                format!("more than one Sources section (lines {a} and {b}) — {fix}"),
                Some(b),
            );
        } else if let Some(m) = &sections.misplaced {
            let follows = m
                .followed_by
                .map(|b| format!(": other text follows it at line {b}"))
                .unwrap_or_default();
            let message = format!(
                "the Sources section at line {} is not the generated block at the end of the draft{follows} — keep your text under another heading, remove that Sources heading and the entries under it, then {}",
                m.header, self.rerender
            );
            self.error(message, Some(m.header));
        }
    }

    /// Lines outside the block that show an id with a URL: the ledger's, or none.
    fn listings_outside(&mut self) {
        let listed = Listing::new(&self.summary.listed);
        let instead = format!(
            "delete it: cite sources as [N] alone, and let {} write the entries",
            self.renderer
        );
        self.check_listing(
            &listed,
            &|_, id| format!("a line outside the Sources block lists [{id}], which is not in the ledger — {instead}"),
            &|_, e, url| {
                format!(
                    "a line outside the Sources block shows [{}] with a URL that is not the ledger's (line: {} / ledger: {url}) — {instead}",
                    e.id, e.url
                )
            },
        );
    }

    /// `--min-coverage`: the share of sentences with declared provenance. As in
    /// `sources.py`, a draft without prose sentences has nothing to cover.
    fn coverage(&mut self) {
        let Some(required) = self.opts.min_coverage else {
            return;
        };
        let c = &self.counts;
        if c.sentences == 0 || c.coverage >= required {
            return;
        }
        let uncovered = &self.summary.sentences.uncovered;
        self.errors.push(Finding {
            message: format!(
                "citation coverage {} is below the required {} ({}/{} sentences with declared provenance; {}) — give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified]",
                percent(c.coverage),
                percent(required),
                c.with_provenance,
                c.sentences,
                c.breakdown()
            ),
            line: uncovered.first().copied(),
            lines: uncovered.clone(),
            sentences: self
                .summary
                .sentences
                .uncovered_sentences
                .iter()
                .map(SentenceRef::of)
                .collect(),
            about: About::Listed,
        });
    }

    /// `--evidence`: each cited source in the ledger carries a quote.
    fn evidence(&mut self) {
        if !self.opts.evidence {
            return;
        }
        let bare: Vec<u64> = self
            .cited_where(true)
            .into_iter()
            .filter(|&id| !self.ledger.has_quotes(id))
            .collect();
        if !bare.is_empty() {
            let line = self.first_line(&bare);
            let message = format!(
                "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): {} — {}",
                id_list(&bare),
                self.opts.advice.quote()
            );
            self.error(message, line);
        }
    }

    /// `--support`: each figure, date and quoted phrase no cited page has, with what the
    /// closest page has; the first [`LIST_AT_MOST`] one by one, the rest counted.
    fn unsupported(&mut self) {
        let Some(support) = self.support.take() else {
            return;
        };
        let mut listed = 0;
        for s in &support.sentences {
            for u in &s.unsupported {
                listed += 1;
                if listed > LIST_AT_MOST {
                    continue;
                }
                let mut message = format!(
                    "{} \"{}\" is on none of the pages cited ({})",
                    u.kind.noun(),
                    u.written,
                    pages_checked(&s.cited, &s.without_pages)
                );
                if let Some(c) = &u.closest {
                    match u.kind {
                        FactKind::Quote => {
                            message.push_str(&format!(" — [{}] has \"{}\"", c.id, c.written))
                        }
                        _ => message.push_str(&format!(
                            " — [{}] says \"{}\" in \"{}\"",
                            c.id, c.written, c.context
                        )),
                    }
                }
                message.push_str(" — write what the page says, or cite a page that says it");
                let sentence = SentenceRef::new(s.index, &s.text);
                self.errors
                    .push(Finding::at(message, Some(s.line)).about(About::Support, vec![sentence]));
            }
        }
        if listed > LIST_AT_MOST {
            let more = listed - LIST_AT_MOST;
            let message = format!(
                "{more} more figure(s), date(s) or quoted phrase(s) on none of the pages cited, not listed — {}",
                self.opts.advice.every_one()
            );
            // The sentences of the facts not listed: those after the first that are.
            let mut facts = 0;
            let rest: Vec<&crate::support::SentenceSupport> = support
                .sentences
                .iter()
                .filter(|s| {
                    facts += s.unsupported.len();
                    !s.unsupported.is_empty() && facts > LIST_AT_MOST
                })
                .collect();
            let line = rest.first().map(|s| s.line);
            let sentences = rest
                .iter()
                .take(LIST_AT_MOST)
                .map(|s| SentenceRef::new(s.index, &s.text))
                .collect();
            self.errors
                .push(Finding::at(message, line).about(About::Support, sentences));
        }
        self.support = Some(support);
    }

    /// `--support`: names no cited page uses, and cited sentences whose sources have no
    /// page text, so that nothing in them could be checked.
    fn support_warnings(&mut self) {
        let Some(support) = self.support.take() else {
            return;
        };
        let mut named = 0;
        for s in support
            .sentences
            .iter()
            .filter(|s| !s.names_missing.is_empty())
        {
            named += 1;
            if named > LIST_AT_MOST {
                continue;
            }
            let names: Vec<String> = s.names_missing.iter().map(|n| format!("\"{n}\"")).collect();
            let message = format!(
                "name(s) on none of the pages cited ({}): {} — check the spelling, or cite a page that names them",
                pages_checked(&s.cited, &s.without_pages),
                names.join(", ")
            );
            let sentence = SentenceRef::new(s.index, &s.text);
            self.warnings
                .push(Finding::at(message, Some(s.line)).about(About::Support, vec![sentence]));
        }
        if named > LIST_AT_MOST {
            self.warn(
                format!(
                    "{} more sentence(s) with names on none of the pages cited, not listed — {}",
                    named - LIST_AT_MOST,
                    self.opts.advice.every_one()
                ),
                None,
            );
        }
        let unchecked: Vec<&crate::support::SentenceSupport> =
            support.sentences.iter().filter(|s| s.unchecked).collect();
        if !unchecked.is_empty() {
            let mut ids: Vec<u64> = unchecked
                .iter()
                .flat_map(|s| s.without_pages.iter().copied())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let shown = &ids[..ids.len().min(LIST_AT_MOST)];
            let more = if ids.len() > shown.len() {
                format!(" and {} more", ids.len() - shown.len())
            } else {
                String::new()
            };
            let mut lines: Vec<usize> = unchecked.iter().map(|s| s.line).collect();
            lines.dedup();
            self.warnings.push(Finding {
                message: format!(
                    "{} cited sentence(s) not checked for support: no page text is stored for {}{more} — {}",
                    unchecked.len(),
                    id_list(shown),
                    self.opts.advice.store_page()
                ),
                line: lines.first().copied(),
                lines: if lines.len() > 1 { lines } else { Vec::new() },
                sentences: unchecked
                    .iter()
                    .take(LIST_AT_MOST)
                    .map(|s| SentenceRef::new(s.index, &s.text))
                    .collect(),
                about: About::Support,
            });
        }
        self.support = Some(support);
    }

    /// Block entries the prose never cites.
    fn uncited_entries(&mut self) {
        let extra: Vec<&BlockEntry<'_>> = self
            .block
            .runs()
            .map(|run| run[0])
            .filter(|e| !self.summary.cited.contains_key(&e.id))
            .collect();
        if !extra.is_empty() {
            let ids: Vec<u64> = extra.iter().map(|e| e.id).collect();
            let line = extra.iter().map(|e| e.line).min();
            self.warn(
                format!(
                    "listed in Sources but never cited inline: {}",
                    id_list(&ids)
                ),
                line,
            );
        }
    }

    /// Ledger sources the draft does not cite: information, since registering every
    /// search result is the method.
    fn uncited_sources(&mut self) {
        let cited = &self.summary.cited;
        let mut uncited: Vec<(u64, u64)> = Vec::new();
        for (lo, hi) in self.ledger.id_ranges() {
            let mut start = lo;
            for (&id, _) in cited.range(lo..=hi) {
                if id > start {
                    uncited.push((start, id - 1));
                }
                start = id + 1;
            }
            if start <= hi {
                uncited.push((start, hi));
            }
        }
        if !uncited.is_empty() {
            self.info.push(Finding::at(
                format!(
                    "registered in the ledger but not cited in this draft: {}",
                    range_list(&uncited)
                ),
                None,
            ));
        }
    }

    /// Sentences with more than [`MAX_CITATIONS_PER_SENTENCE`] citations.
    fn over_cited(&mut self) {
        let s = &self.summary.sentences;
        if s.over_cited > 0 {
            let message = format!(
                "{} sentence(s) carry more than {MAX_CITATIONS_PER_SENTENCE} citations",
                s.over_cited
            );
            let sentences = s.over_cited_sentences.iter().map(SentenceRef::of).collect();
            self.warnings
                .push(Finding::at(message, s.first_over_cited).about(About::Fault, sentences));
        }
    }

    /// Provenance that is mostly `[unverified]`.
    fn mostly_unverified(&mut self) {
        let c = &self.counts;
        if c.unverified * 2 > c.with_provenance {
            let message = format!(
                "most declared provenance is [unverified] ({} of {} sentences) — say so in the deliverable's summary",
                c.unverified, c.with_provenance
            );
            let counts = &self.summary.sentences;
            let sentences = counts.first_unverified_sentence.iter().map(SentenceRef::of);
            self.warnings.push(
                Finding::at(message, counts.first_unverified)
                    .about(About::Listed, sentences.collect()),
            );
        }
    }

    /// A code fence left open: everything after it is code.
    fn unclosed_fence(&mut self) {
        if let Some(fence) = &self.summary.unclosed_fence {
            self.warn(
                format!(
                    "the code fence opened at line {} is never closed: everything after it is code — close it with a line {}",
                    fence.line,
                    fence.closer()
                ),
                Some(fence.line),
            );
        }
    }

    /// Markers that are malformed, set off by a space, or glued to a word.
    fn marker_notes(&mut self) {
        for note in &self.summary.notes {
            let message = match note.kind {
                NoteKind::Malformed => format!(
                    "malformed marker {} gives no provenance — {}",
                    note.written, note.fix
                ),
                NoteKind::Spaced => format!(
                    "marker after a space: \"{}\" — write \"{}\"",
                    note.written, note.fix
                ),
                NoteKind::Glued => format!(
                    "citation glued to a word: \"{}\" — {}",
                    note.written, note.fix
                ),
            };
            let sentences = note.sentence.iter().map(SentenceRef::of).collect();
            self.warnings
                .push(Finding::at(message, Some(note.line)).about(About::Fault, sentences));
        }
        let more = self.summary.note_count - self.summary.notes.len();
        if more > 0 {
            self.warn(
                format!("{more} more malformed or misplaced marker(s) not listed"),
                None,
            );
        }
    }

    /// URLs in the draft that are not registered sources: the first few by line, and a
    /// count (a draft can hold millions).
    fn raw_urls(&mut self) {
        let mut first: BinaryHeap<(usize, &str)> = BinaryHeap::new();
        let mut unregistered = 0;
        for (&url, &line) in &self.summary.urls {
            if !self.ledger.registered(&(self.normalize)(url)) {
                unregistered += 1;
                first.push((line, url));
                if first.len() > LIST_AT_MOST {
                    first.pop();
                }
            }
        }
        for (line, url) in first.into_sorted_vec() {
            let message = format!(
                "URL in the draft is not a registered source: {url} — {}",
                self.opts.advice.register_url(url)
            );
            self.warn(message, Some(line));
        }
        if unregistered > LIST_AT_MOST {
            self.warn(
                format!(
                    "{} more URL(s) in the draft are not registered sources",
                    unregistered - LIST_AT_MOST
                ),
                None,
            );
        }
    }

    /// The report: under `strict`, every warning fails the draft as well.
    fn report(mut self) -> Report {
        if self.opts.strict {
            self.errors.extend(self.warnings.iter().cloned());
        }
        let mut stats = self.counts.stats();
        if let Some(s) = &self.support {
            stats.push_str(&format!(
                "; support: {} figure(s), date(s) and quoted phrase(s) checked in {} cited sentence(s), {} supported, {} unsupported; {} sentence(s) unchecked (no page text)",
                s.checked, s.sentences_checked, s.supported, s.unsupported, s.sentences_unchecked
            ));
            if s.names_missing > 0 {
                stats.push_str(&format!(", {} name(s) on no cited page", s.names_missing));
            }
            if s.tool_figures > 0 {
                stats.push_str(&format!(
                    "; {} figure(s) from tools, not checked",
                    s.tool_figures
                ));
            }
        }
        Report {
            stats,
            exit_code: i32::from(!self.errors.is_empty()),
            counts: self.counts,
            errors: self.errors,
            warnings: self.warnings,
            info: self.info,
            support: self.support,
        }
    }
}

/// [`verify`] on a draft already read: each check in the contract's order.
pub fn verify_summary(
    summary: &Summary<'_>,
    ledger: &dyn LedgerFacts,
    opts: &VerifyOptions,
    normalize: &dyn Fn(&str) -> String,
) -> Report {
    verify_with_support(summary, ledger, opts, normalize, None)
}

/// [`verify_summary`], with what the cited pages support (`--support`): each fact no
/// cited page has fails the draft, each name none uses and each sentence whose sources
/// have no page text is a warning, and the stats line counts them.
pub fn verify_with_support(
    summary: &Summary<'_>,
    ledger: &dyn LedgerFacts,
    opts: &VerifyOptions,
    normalize: &dyn Fn(&str) -> String,
    support: Option<SupportReport>,
) -> Report {
    let mut check = Check::new(summary, ledger, opts, normalize);
    check.support = support;
    check.unknown_ids();
    check.block_lacks_cited();
    check.block_entries();
    check.sections();
    check.listings_outside();
    check.coverage();
    check.evidence();
    check.unsupported();
    check.uncited_entries();
    check.uncited_sources();
    check.over_cited();
    check.mostly_unverified();
    check.unclosed_fence();
    check.marker_notes();
    check.raw_urls();
    check.support_warnings();
    check.report()
}

/// The ids whose pages a sentence was checked on, and those it cites with none:
/// `[1], [3]`, or `[1]; [2] has no page text`.
fn pages_checked(cited: &[u64], without: &[u64]) -> String {
    let with: Vec<u64> = cited
        .iter()
        .copied()
        .filter(|id| !without.contains(id))
        .collect();
    if without.is_empty() {
        id_list(&with)
    } else {
        format!("{}; no page text for {}", id_list(&with), id_list(without))
    }
}

/// Python's `f"{x:.0%}"`: `x * 100` rounded half to even. Rust's fixed-precision
/// formatting rounds the exact binary value half to even too, so the two agree digit
/// for digit (12.5 → `12%`, 37.5 → `38%`, 0.285 → `28%`).
pub(crate) fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The quotes of one cited source, as `verify --evidence` names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CitedEvidence {
    pub id: u64,
    pub quotes: Vec<String>,
}

/// A draft checked against the ledger: the report, and with `evidence`, each cited
/// source's quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub report: Report,
    /// Whether the quotes were asked for (`--evidence`).
    pub with_evidence: bool,
    /// For each cited source that carries quotes, in id order (empty unless asked for).
    pub evidence: Vec<CitedEvidence>,
}

impl Verification {
    /// Passed: no error (and, under `strict`, no warning).
    pub fn passed(&self) -> bool {
        self.report.exit_code == 0
    }

    /// The report as one JSON object (`verify --json`, which serializes it straight to
    /// its output): the [`Report`] fields, plus `evidence` (`[{id, quotes}]`) when the
    /// quotes were asked for.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report serializes")
    }
}

impl Serialize for Verification {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            report: &'a Report,
            #[serde(skip_serializing_if = "Option::is_none")]
            evidence: Option<&'a [CitedEvidence]>,
        }
        Json {
            report: &self.report,
            evidence: self.with_evidence.then_some(&self.evidence[..]),
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::{Finding, LedgerFacts, Report, VerifyOptions, percent, verify};

    struct Fake {
        urls: BTreeMap<u64, String>,
        quoted: BTreeSet<u64>,
    }

    impl Fake {
        fn new(ids: &[u64], quoted: &[u64]) -> Fake {
            Fake {
                urls: ids
                    .iter()
                    .map(|&id| (id, format!("https://s{id}.org/p")))
                    .collect(),
                quoted: quoted.iter().copied().collect(),
            }
        }
    }

    impl LedgerFacts for Fake {
        fn url(&self, id: u64) -> Option<String> {
            self.urls.get(&id).cloned()
        }
        fn has_quotes(&self, id: u64) -> bool {
            self.quoted.contains(&id)
        }
        fn id_ranges(&self) -> Vec<(u64, u64)> {
            let mut out: Vec<(u64, u64)> = Vec::new();
            let mut ids: Vec<u64> = self.urls.keys().copied().collect();
            ids.sort_unstable();
            for id in ids {
                match out.last_mut() {
                    Some((_, hi)) if *hi + 1 == id => *hi = id,
                    _ => out.push((id, id)),
                }
            }
            out
        }
        fn quoted_count(&self) -> usize {
            self.quoted.len()
        }
        fn registered(&self, url: &str) -> bool {
            self.urls.values().any(|u| u == url)
        }
    }

    /// Stands in for `ledger::url::canonicalize`: drops a trailing slash.
    fn norm(url: &str) -> String {
        url.trim_end_matches('/').to_string()
    }

    fn run(draft: &str, ledger: &dyn LedgerFacts, opts: &VerifyOptions) -> Report {
        verify(draft, ledger, opts, &norm)
    }

    /// Each finding as the CLI prints it (after `warn: ` or `FAIL: `).
    fn printed(findings: &[Finding]) -> Vec<String> {
        findings.iter().map(Finding::to_string).collect()
    }

    /// The warnings for `draft` against a ledger of ids 1–3, as printed.
    fn warned(draft: &str) -> Vec<String> {
        let r = run(
            draft,
            &Fake::new(&[1, 2, 3], &[]),
            &VerifyOptions::default(),
        );
        printed(&r.warnings)
    }

    fn messages(findings: &[Finding]) -> Vec<(String, Option<usize>)> {
        findings
            .iter()
            .map(|f| (f.message.clone(), f.line))
            .collect()
    }

    fn f(message: &str, line: Option<usize>) -> (String, Option<usize>) {
        (message.to_string(), line)
    }

    #[test]
    fn a_clean_draft_passes() {
        let draft = "# Ice\n\nIce floats on liquid water.[1] It melts at zero degrees.[2]\n\n## Sources\n\n[1] https://s1.org/p — One\n[2] https://s2.org/p/ — Two\n";
        let r = run(draft, &Fake::new(&[1, 2], &[1]), &VerifyOptions::default());
        assert_eq!(r.errors, []);
        assert_eq!(r.warnings, []);
        assert_eq!(r.exit_code, 0);
        assert_eq!(
            r.stats,
            "stats: 2 prose sentence(s), 2 with declared provenance (100%) — 2 cited, 0 tool-verified, 0 policy, 0 unverified; 2 distinct source(s) cited, 2 in ledger (1 with evidence quotes)"
        );
    }

    /// What a failure about the block says to run, for a draft given as text.
    const RERENDER: &str = "`cite render --replace-in DRAFT`";

    const UNKNOWN_FIX: &str =
        " — remove them, or register each page with `cite add URL` and cite the id it prints";

    #[test]
    fn every_error_and_warning_in_order_with_lines() {
        let draft = "\
# Title
Ice floats on water.[1] Water boils at sea level.[2]
This line has no provenance at all.
A claim that is unknown here.[9]
The third source says this.[3]
See [4] https://evil.org for the data. And [8](https://s8.org/p) too.

## Sources

[1] https://s1.org/p/ — A
[3] https://wrong.org/3
[7] https://s7.org/p

Sources:
[1] https://s1.org/p
";
        let ledger = Fake::new(&[1, 2, 3, 4], &[1]);
        let opts = VerifyOptions {
            min_coverage: Some(0.9),
            evidence: true,
            ..VerifyOptions::default()
        };
        let r = run(draft, &ledger, &opts);
        let stray = "delete it: cite sources as [N] alone, and let `cite render --replace-in DRAFT` write the entries";
        assert_eq!(
            messages(&r.errors),
            [
                f(
                    &format!(
                        "citations not in the ledger (hallucinated or renumbered): [9]{UNKNOWN_FIX}"
                    ),
                    Some(4)
                ),
                f(
                    &format!("cited but absent from the Sources block: [2], [4] — run {RERENDER}"),
                    Some(2)
                ),
                f(
                    &format!(
                        "Sources block lists [7], which is not in the ledger — run {RERENDER}"
                    ),
                    Some(12)
                ),
                f(
                    &format!(
                        "Sources block URL for [3] does not match the ledger (block: https://wrong.org/3 / ledger: https://s3.org/p) — re-run `render`: {RERENDER}"
                    ),
                    Some(11)
                ),
                f(
                    &format!(
                        "more than one Sources section (lines 8 and 14) — run {RERENDER} to replace them with one block"
                    ),
                    Some(14)
                ),
                f(
                    &format!(
                        "a line outside the Sources block lists [8], which is not in the ledger — {stray}"
                    ),
                    Some(6)
                ),
                f(
                    &format!(
                        "a line outside the Sources block shows [4] with a URL that is not the ledger's (line: https://evil.org / ledger: https://s4.org/p) — {stray}"
                    ),
                    Some(6)
                ),
                f(
                    "citation coverage 83% is below the required 90% (5/6 sentences with declared provenance; 5 cited, 0 tool-verified, 0 policy, 0 unverified) — give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified]",
                    Some(3)
                ),
                f(
                    "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): [2], [3], [4] — for each, `cite quote ID --text \"WORDS COPIED FROM THE PAGE\" --from PAGE`",
                    Some(2)
                ),
            ]
        );
        assert_eq!(
            messages(&r.warnings),
            [f("listed in Sources but never cited inline: [7]", Some(12))]
        );
        assert_eq!(r.exit_code, 1);
        assert_eq!(
            r.stats,
            "stats: 6 prose sentence(s), 5 with declared provenance (83%) — 5 cited, 0 tool-verified, 0 policy, 0 unverified; 5 distinct source(s) cited, 4 in ledger (1 with evidence quotes)"
        );
    }

    #[test]
    fn citations_without_a_block() {
        let draft = "Intro line.\nIce floats on water.[1]\n";
        let r = run(draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
        assert_eq!(
            messages(&r.errors),
            [f(
                &format!("draft cites sources but has no `Sources:` block — run {RERENDER}"),
                Some(2)
            )]
        );
        // A header with nothing under it lists nothing: the same error, nothing "absent".
        let r = run(
            "Ice floats on water.[1]\n\n## Sources\n",
            &Fake::new(&[1], &[]),
            &VerifyOptions::default(),
        );
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0]
                .message
                .starts_with("draft cites sources but has no")
        );
    }

    #[test]
    fn pandoc_citations_verify_against_the_bibliography_of_the_front_matter() {
        let ledger = Fake::new(&[1, 2, 3], &[]);
        let front = "---\ntitle: Ice\nbibliography: \"d.json\"\nlink-citations: true\n---\n\n";
        let draft = format!(
            "{front}Ice floats on water [@source1]. Water expands when it freezes [@source2; @source3, p. 4].\n"
        );
        let r = run(&draft, &ledger, &VerifyOptions::default());
        assert_eq!(messages(&r.errors), []);
        assert_eq!(r.exit_code, 0);
        assert_eq!(r.counts.sentences, 2);
        assert_eq!(r.counts.cited, 2);
        // An unknown key fails as an unknown id does.
        let r = run(
            &format!("{front}Ice floats on water [@source9].\n"),
            &ledger,
            &VerifyOptions::default(),
        );
        assert_eq!(r.exit_code, 1);
        assert!(
            r.errors[0]
                .message
                .starts_with("citations not in the ledger (hallucinated or renumbered): [9]"),
            "{:?}",
            r.errors
        );
        // Without a bibliography in the front matter, or for `[N]`, the block is owed.
        let r = run(
            "Ice floats on water [@source1].\n",
            &ledger,
            &VerifyOptions::default(),
        );
        assert!(
            r.errors[0]
                .message
                .starts_with("draft cites sources but has no")
        );
        let r = run(
            &format!("{front}Ice floats on water [@source1]. Snow is cold and white.[2]\n"),
            &ledger,
            &VerifyOptions::default(),
        );
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0]
                .message
                .starts_with("draft cites sources but has no")
        );
        assert_eq!(r.errors[0].line, Some(7));
    }

    #[test]
    fn fixes_name_the_draft_and_the_ledger() {
        let opts = VerifyOptions {
            draft: Some("my notes/draft's.md".into()),
            ledger: Some("/data/ledger.redb".into()),
            ..VerifyOptions::default()
        };
        let r = run(
            "Ice floats on water.[1] Snow is cold.[5]\n",
            &Fake::new(&[1], &[]),
            &opts,
        );
        assert_eq!(
            messages(&r.errors),
            [
                f(
                    &format!(
                        "citations not in the ledger (hallucinated or renumbered): [5]{UNKNOWN_FIX} (ledger: /data/ledger.redb)"
                    ),
                    Some(1)
                ),
                f(
                    "draft cites sources but has no `Sources:` block — run `cite render --replace-in 'my notes/draft'\\''s.md'`",
                    Some(1)
                ),
            ]
        );
    }

    #[test]
    fn an_id_of_another_epoch_is_named() {
        struct Reset(Fake);
        impl LedgerFacts for Reset {
            fn url(&self, id: u64) -> Option<String> {
                self.0.url(id)
            }
            fn has_quotes(&self, id: u64) -> bool {
                self.0.has_quotes(id)
            }
            fn id_ranges(&self) -> Vec<(u64, u64)> {
                self.0.id_ranges()
            }
            fn quoted_count(&self) -> usize {
                self.0.quoted_count()
            }
            fn registered(&self, url: &str) -> bool {
                self.0.registered(url)
            }
            fn epoch_of(&self, id: u64) -> Option<u64> {
                (id == 7).then_some(2)
            }
        }
        let r = run(
            "Ice floats on water.[1][7][8]\n",
            &Reset(Fake::new(&[1], &[])),
            &VerifyOptions::default(),
        );
        assert_eq!(
            r.errors[0].message,
            format!(
                "citations not in the ledger (hallucinated or renumbered): [7], [8]{UNKNOWN_FIX}; [7] is in epoch 2: if the draft was written before `cite reset`, verify it with `--epoch 2`"
            )
        );
    }

    #[test]
    fn every_render_style_is_a_block() {
        let body = "Ice floats on liquid water.[1]\n\n";
        for block in [
            "## Sources\n\n[1] https://s1.org/p — One\n    > \"quoted\"",
            "Sources:\n[1] https://s1.org/p",
            "[^1]: https://s1.org/p — One",
            "@misc{source1,\n  title = {One},\n  howpublished = {\\url{https://s1.org/p}},\n  note = {Accessed 2024-01-01}\n}",
        ] {
            let r = run(
                &format!("{body}{block}\n"),
                &Fake::new(&[1], &[]),
                &VerifyOptions::default(),
            );
            assert_eq!((r.errors, r.warnings), (vec![], vec![]), "{block}");
        }
        let wrong = "[^1]: https://elsewhere.org\n";
        let r = run(
            &format!("{body}{wrong}"),
            &Fake::new(&[1], &[]),
            &VerifyOptions::default(),
        );
        assert_eq!(
            messages(&r.errors),
            [f(
                &format!(
                    "Sources block URL for [1] does not match the ledger (block: https://elsewhere.org / ledger: https://s1.org/p) — re-run `render`: {RERENDER}"
                ),
                Some(3)
            )]
        );
    }

    #[test]
    fn a_block_entry_is_compared_after_normalizing() {
        let draft = "Ice floats on water.[1]\n\nSources:\n[1] https://s1.org/p/\n";
        let r = run(draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
        assert_eq!(r.errors, []);
    }

    #[test]
    fn a_repeated_wrong_entry_is_reported_once() {
        let draft = "Ice floats on water.[1]\n\nSources:\n[1] https://x.org\n[1] https://x.org\n[5] https://a.org\n[5] https://b.org\n";
        let r = run(draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
        assert_eq!(
            messages(&r.errors),
            [
                f(
                    &format!(
                        "Sources block lists [5], which is not in the ledger — run {RERENDER}"
                    ),
                    Some(6)
                ),
                f(
                    &format!(
                        "Sources block URL for [1] does not match the ledger (block: https://x.org / ledger: https://s1.org/p) — re-run `render`: {RERENDER}"
                    ),
                    Some(4)
                ),
            ]
        );
    }

    #[test]
    fn evidence_names_only_cited_ids_in_the_ledger() {
        let draft = "Ice floats on water.[1] Snow is frozen water too.[8]\n\n## Sources\n\n[1] https://s1.org/p\n[8] https://s8.org/p\n";
        let opts = VerifyOptions {
            evidence: true,
            ..VerifyOptions::default()
        };
        let r = run(draft, &Fake::new(&[1, 2], &[2]), &opts);
        let m: Vec<_> = r.errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            m,
            [
                format!("citations not in the ledger (hallucinated or renumbered): [8]{UNKNOWN_FIX}"),
                format!("Sources block lists [8], which is not in the ledger — remove the citations of [8] (or register each page with `cite add URL` and cite the id it prints), then run {RERENDER}"),
                "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): [1] — for each, `cite quote ID --text \"WORDS COPIED FROM THE PAGE\" --from PAGE`".to_string(),
            ]
        );
    }

    #[test]
    fn all_marker_kinds_count_as_provenance() {
        let draft = "We measured the latency ourselves.[tool:curl]\nRefunds are issued within a week.[policy]\nThe refactor likely predates the release.[unverified]\nAn entirely bare claim stands here.\n";
        let opts = VerifyOptions {
            min_coverage: Some(0.8),
            ..VerifyOptions::default()
        };
        let r = run(draft, &Fake::new(&[], &[]), &opts);
        assert_eq!(
            messages(&r.errors),
            [f(
                "citation coverage 75% is below the required 80% (3/4 sentences with declared provenance; 0 cited, 1 tool-verified, 1 policy, 1 unverified) — give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified]",
                Some(4)
            )]
        );
        assert_eq!(
            r.stats,
            "stats: 4 prose sentence(s), 3 with declared provenance (75%) — 0 cited, 1 tool-verified, 1 policy, 1 unverified; 0 distinct source(s) cited, 0 in ledger (0 with evidence quotes)"
        );
        // Meeting the threshold exactly passes.
        let opts = VerifyOptions {
            min_coverage: Some(0.75),
            ..VerifyOptions::default()
        };
        assert_eq!(run(draft, &Fake::new(&[], &[]), &opts).exit_code, 0);
    }

    #[test]
    fn malformed_markers_do_not_cover() {
        let draft = "The claim made [1]junk here.\nA policy in [[policy]] brackets.\nA tool marker [tool:] without name.\nA [12345] id is too long.\n";
        let opts = VerifyOptions {
            min_coverage: Some(0.01),
            ..VerifyOptions::default()
        };
        let r = run(draft, &Fake::new(&[1], &[]), &opts);
        assert_eq!(r.counts.sentences, 4);
        assert_eq!(r.counts.with_provenance, 0);
        assert!(r.errors.iter().any(|e| {
            e.message
                .starts_with("citation coverage 0% is below the required 1% (0/4")
        }));
    }

    /// Issue 18: `carmakers[2].` is a citation the reader sees. It was read as an index
    /// and counted for nothing, so a draft citing an id the ledger lacks, or one the
    /// block does not list, passed.
    #[test]
    fn a_citation_glued_to_a_word_is_checked_counted_and_warned() {
        let draft = "Batteries are tested by several carmakers[2]. They arrive around 2030.[1]\n\n## Sources\n\n[1] https://s1.org/p\n";
        let r = run(draft, &Fake::new(&[1, 2], &[]), &VerifyOptions::default());
        assert_eq!(
            messages(&r.errors),
            [f(
                &format!("cited but absent from the Sources block: [2] — run {RERENDER}"),
                Some(1)
            )]
        );
        assert_eq!(r.counts.with_provenance, 2);
        assert_eq!(r.counts.distinct_cited, 2);
        assert_eq!(
            messages(&r.warnings),
            [f(
                "citation glued to a word: \"carmakers[2].\" — write \"carmakers.[2]\"",
                Some(1)
            )]
        );
        // An id the ledger lacks fails, glued or not, in any position.
        for glued in [
            "word[9].",
            "a lot[1][9].",
            "(see[9])",
            "x[9]y",
            "[9]x",
            "[[9]]",
            "arr[9] is",
        ] {
            let draft = format!("This sentence ends with a marker {glued} here.\n");
            let r = run(&draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
            assert!(
                r.errors[0]
                    .message
                    .starts_with("citations not in the ledger (hallucinated or renumbered): [9]"),
                "{glued}: {:?}",
                r.errors
            );
            assert_eq!(r.exit_code, 1, "{glued}");
        }
    }

    /// Two findings on one line each name their sentence, by number and text, on the
    /// terminal and in JSON; a long sentence is cut at a word.
    #[test]
    fn findings_on_one_line_name_their_sentences() {
        let long = "Cells of this kind arrive from the factory lines of several makers in a year not yet named by anyone at all[3].";
        let draft = format!(
            "# Cells\n\nAn opening claim stands here. Batteries are tested by carmakers[2]. Cells arrive around the year 2030[9]. {long}\n"
        );
        let r = run(
            &draft,
            &Fake::new(&[1, 2, 3], &[]),
            &VerifyOptions::default(),
        );
        assert_eq!(
            printed(&r.warnings)[..3],
            [
                "citation glued to a word: \"carmakers[2].\" — write \"carmakers.[2]\" (line 3) in sentence 2: \"Batteries are tested by carmakers[2].\"",
                "citation glued to a word: \"2030[9].\" — write \"2030.[9]\" (line 3) in sentence 3: \"Cells arrive around the year 2030[9].\"",
                "citation glued to a word: \"all[3].\" — write \"all.[3]\" (line 3) in sentence 4: \"Cells of this kind arrive from the factory lines of several makers in a year …\"",
            ]
        );
        // The unknown id names the sentence that cites it.
        assert!(
            r.errors[0]
                .to_string()
                .ends_with("(line 3) in sentence 3: \"Cells arrive around the year 2030[9].\""),
            "{}",
            r.errors[0]
        );
        let json = serde_json::to_value(&r.warnings[1]).unwrap();
        assert_eq!(
            json["sentences"],
            serde_json::json!([{"index": 2, "text": "Cells arrive around the year 2030[9]."}])
        );
        // A finding about the draft as a whole lists its sentences in JSON only.
        let opts = VerifyOptions {
            min_coverage: Some(0.9),
            ..VerifyOptions::default()
        };
        let r = run(&draft, &Fake::new(&[1, 2, 3], &[]), &opts);
        let coverage = r
            .errors
            .iter()
            .find(|e| e.message.starts_with("citation coverage"))
            .unwrap();
        assert!(coverage.to_string().ends_with("(line 3)"), "{coverage}");
        assert_eq!(coverage.sentences[0].text, "An opening claim stands here.");
    }

    /// Issue 18: an id the ledger lacks is not "absent from the Sources block — run
    /// render": render can never add it. It is reported once, with remove-or-register.
    #[test]
    fn an_unknown_id_is_never_sent_to_render() {
        for draft in [
            "An invented claim is here.[42]\n",
            "An invented claim is here.[42]\n\n## Sources\n\n[1] https://s1.org/p\n",
        ] {
            let r = run(draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
            let errors = messages(&r.errors);
            assert_eq!(
                errors[0],
                f(
                    &format!(
                        "citations not in the ledger (hallucinated or renumbered): [42]{UNKNOWN_FIX}"
                    ),
                    Some(1)
                ),
                "{draft}"
            );
            assert!(
                errors.iter().all(|(m, _)| !m.contains("render")),
                "{errors:?}"
            );
        }
    }

    /// Issue 18: `--strict` fails on warnings about the draft and lists each as an
    /// error; a ledger source the draft does not cite is information and fails nothing.
    #[test]
    fn strict_fails_on_draft_warnings_only_and_lists_them_as_errors() {
        let strict = VerifyOptions {
            strict: true,
            ..VerifyOptions::default()
        };
        let clean = "Ice floats on liquid water.[1]\n\n## Sources\n\n[1] https://s1.org/p\n";
        let r = run(clean, &Fake::new(&[1, 2, 3], &[]), &strict);
        assert_eq!((r.exit_code, r.errors.len(), r.warnings.len()), (0, 0, 0));
        assert_eq!(
            messages(&r.info),
            [f(
                "registered in the ledger but not cited in this draft: [2], [3]",
                None
            )]
        );
        let glued = clean.replace("water.[1]", "water[1].");
        let r = run(&glued, &Fake::new(&[1, 2], &[]), &strict);
        assert_eq!(r.exit_code, 1);
        assert_eq!(r.warnings.len(), 1);
        assert_eq!(r.errors, r.warnings);
        let r = run(&glued, &Fake::new(&[1, 2], &[]), &VerifyOptions::default());
        assert_eq!((r.exit_code, r.errors.len()), (0, 0));
    }

    #[test]
    fn a_draft_without_sentences_has_nothing_to_cover() {
        let opts = VerifyOptions {
            min_coverage: Some(0.5),
            ..VerifyOptions::default()
        };
        let r = run("# Only a heading\n", &Fake::new(&[], &[]), &opts);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(r.counts.coverage, 0.0);
        assert_eq!(r.exit_code, 0);
    }

    #[test]
    fn percentages_round_half_to_even_like_python() {
        assert_eq!(percent(0.125), "12%");
        assert_eq!(percent(0.375), "38%");
        assert_eq!(percent(0.625), "62%");
        assert_eq!(percent(0.285), "28%");
        assert_eq!(percent(0.015), "2%");
        assert_eq!(percent(1.0 / 3.0), "33%");
        assert_eq!(percent(2.0 / 3.0), "67%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0), "100%");
        // 1 of 8 sentences covered.
        let mut draft = String::from("One claim is cited here.[1]\n");
        for _ in 0..7 {
            draft.push_str("Another bare claim stands here.\n");
        }
        draft.push_str("\n## Sources\n[1] https://s1.org/p\n");
        let r = run(&draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
        assert!(
            r.stats
                .contains("8 prose sentence(s), 1 with declared provenance (12%)")
        );
    }

    #[test]
    fn over_citation_is_counted_per_sentence() {
        let draft = "Short line.\nThis claim rests on many.[1][2][3][4] So does this one.[1][2][3][4][1]\nThis one is fine though.[1][2][3]\n\n## Sources\n[1] https://s1.org/p\n[2] https://s2.org/p\n[3] https://s3.org/p\n[4] https://s4.org/p\n";
        let r = run(
            draft,
            &Fake::new(&[1, 2, 3, 4], &[]),
            &VerifyOptions::default(),
        );
        assert_eq!(
            messages(&r.warnings),
            [f("2 sentence(s) carry more than 3 citations", Some(2))]
        );
        assert_eq!(r.exit_code, 0);
        let strict = VerifyOptions {
            strict: true,
            ..VerifyOptions::default()
        };
        assert_eq!(
            run(draft, &Fake::new(&[1, 2, 3, 4], &[]), &strict).exit_code,
            1
        );
    }

    #[test]
    fn mostly_unverified_provenance_is_flagged() {
        let draft = "Bare claim without anything here.\nFirst guess from memory alone.[unverified]\nSecond guess from memory alone.[Unverified]\nA cited claim from a page.[1]\n\nSources:\n[1] https://s1.org/p\n";
        let r = run(draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
        assert_eq!(
            messages(&r.warnings),
            [f(
                "most declared provenance is [unverified] (2 of 3 sentences) — say so in the deliverable's summary",
                Some(2)
            )]
        );
        // Exactly half is not most.
        let half = "First guess from memory alone.[unverified]\nA cited claim from a page.[1]\n\nSources:\n[1] https://s1.org/p\n";
        assert_eq!(
            run(half, &Fake::new(&[1], &[]), &VerifyOptions::default()).warnings,
            []
        );
    }

    #[test]
    fn warnings_come_in_their_order() {
        let draft = "A claim cited four times.[1][1][1][1]\nGuess one from memory here.[unverified]\nGuess two from memory here.[unverified]\n\nSources:\n[1] https://s1.org/p\n[2] https://s2.org/p\n";
        assert_eq!(
            warned(draft),
            [
                "listed in Sources but never cited inline: [2] (line 7)",
                "1 sentence(s) carry more than 3 citations (line 1) in sentence 1: \"A claim cited four times.[1][1][1][1]\"",
                "most declared provenance is [unverified] (2 of 3 sentences) — say so in the deliverable's summary (line 2)",
            ]
        );
    }

    #[test]
    fn the_report_serializes() {
        let r = run(
            "Ice floats on water.[1]\n",
            &Fake::new(&[1], &[]),
            &VerifyOptions::default(),
        );
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["exit_code"], 1);
        assert_eq!(json["errors"][0]["line"], 1);
        assert_eq!(json["counts"]["cited"], 1);
    }

    /// Issue 9.
    #[test]
    fn new_warnings_come_after_the_old_ones() {
        let draft = "\
A claim cited four times.[1][1][1][1]
Two sources back this claim.[1, 2]
The light has a longer wavelength. [1]
Data is at https://s2.org/p and https://elsewhere.org/data today.

```
unclosed
";
        assert_eq!(
            warned(draft),
            [
                "1 sentence(s) carry more than 3 citations (line 1) in sentence 1: \"A claim cited four times.[1][1][1][1]\"",
                "the code fence opened at line 6 is never closed: everything after it is code — close it with a line ``` (line 6)",
                "malformed marker [1, 2] gives no provenance — write [1][2] (line 2) in sentence 2: \"Two sources back this claim.[1, 2]\"",
                "marker after a space: \"wavelength. [1]\" — write \"wavelength.[1]\" (line 3) in sentence 3: \"The light has a longer wavelength. [1]\"",
                "URL in the draft is not a registered source: https://elsewhere.org/data — register it with `cite add https://elsewhere.org/data` and cite the id it prints instead (line 4)",
            ]
        );
        // The only error: the draft cites [1] and has no block.
        let r = run(
            draft,
            &Fake::new(&[1, 2, 3], &[]),
            &VerifyOptions::default(),
        );
        assert_eq!(
            messages(&r.errors),
            [f(
                &format!("draft cites sources but has no `Sources:` block — run {RERENDER}"),
                Some(1)
            )]
        );
    }

    /// Issue 9.
    #[test]
    fn many_mistakes_make_a_short_report() {
        let mut draft = String::new();
        for i in 0..30 {
            draft.push_str(&format!(
                "Claim {i} is made right here.[tool:] See https://x{i}.org/p here.\n"
            ));
        }
        let r = run(&draft, &Fake::new(&[], &[]), &VerifyOptions::default());
        let m = printed(&r.warnings);
        assert_eq!(m.len(), 20 + 1 + 20 + 1, "{m:#?}");
        assert_eq!(m[20], "10 more malformed or misplaced marker(s) not listed");
        assert!(m[21].ends_with("(line 1)"), "{}", m[21]);
        assert_eq!(
            m[41],
            "10 more URL(s) in the draft are not registered sources"
        );
    }

    /// Issue 9.
    #[test]
    fn coverage_lists_every_uncovered_line() {
        let mut draft = String::from("One covered claim is here.[policy]\n");
        for _ in 0..22 {
            draft.push_str("A bare claim stands here. Another bare one too here.\n");
        }
        let opts = VerifyOptions {
            min_coverage: Some(0.5),
            ..VerifyOptions::default()
        };
        let r = run(&draft, &Fake::new(&[], &[]), &opts);
        let e = &r.errors[0];
        assert_eq!(e.lines, (2..=23).collect::<Vec<usize>>());
        assert_eq!(e.line, Some(2));
        assert!(
            e.to_string().ends_with(
                " (lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 and 2 more)"
            ),
            "{e}"
        );
        let json = serde_json::to_value(e).unwrap();
        assert_eq!(json["lines"].as_array().unwrap().len(), 22);
        // A finding of one line has no `lines`.
        let one = Finding::at("x".into(), Some(3));
        assert_eq!(serde_json::to_value(&one).unwrap().get("lines"), None);
        assert_eq!(one.to_string(), "x (line 3)");
    }
}
