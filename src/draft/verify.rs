//! The checks `verify` runs on an analyzed draft, worded and ordered as in `sources.py`,
//! each failure saying what to run to fix it.
//!
//! Errors, in SPEC order: ids not in the ledger; citations without a Sources block; ids
//! missing from the block; block entries not in the ledger; block entries with another
//! URL; then what `sources.py` did not check — more than one Sources section or one
//! that is not the generated block, and lines outside the block that show an id with a
//! URL the ledger does not give it; coverage below `--min-coverage`; cited sources
//! without evidence quotes (`--evidence`).
//! Warnings: block entries never cited; ledger sources never cited; sentences with more
//! than 3 citations; provenance mostly `[unverified]`; then a code fence left open,
//! malformed markers, and URLs the ledger does not have. Each finding carries the first
//! draft line it applies to; "registered but not cited" is about the ledger and has none.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::{BlockEntry, LIST_AT_MOST, MAX_CITATIONS_PER_SENTENCE, NoteKind, Summary, summarize};
use crate::text::shell_word;

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
    /// The draft's path, named in the commands a failure says to run (`DRAFT` when the
    /// draft came as text).
    pub draft: Option<PathBuf>,
    /// The ledger's path, named where an id is missing from it, so that a forgotten
    /// `--ledger` shows.
    /// Where the ledger is, as the reader named it (a path, or a URL without password).
    pub ledger: Option<String>,
}

/// One error or warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// The message, worded as `sources.py` words it, with what to run appended.
    pub message: String,
    /// The first draft line it applies to (1-based), when it applies to one.
    pub line: Option<usize>,
    /// Every line it applies to, when that is more than one place (the sentences a
    /// coverage failure counts as uncovered).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<usize>,
}

impl Finding {
    fn at(message: String, line: Option<usize>) -> Finding {
        Finding {
            message,
            line,
            lines: Vec::new(),
        }
    }
}

impl fmt::Display for Finding {
    /// `MESSAGE (line N)`, `MESSAGE (lines A, B, … and K more)` (the first
    /// [`LIST_AT_MOST`]), or the message alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match (self.lines.len(), self.line) {
            (0 | 1, Some(n)) => write!(f, " (line {n})"),
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

/// The outcome of `verify`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// `stats: …` (the CLI prints it after `info: `).
    pub stats: String,
    pub counts: Counts,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    /// 1 with errors, or with warnings under `strict`; else 0.
    pub exit_code: i32,
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

    /// In SPEC order: every listed id missing from the ledger (each once, at its first
    /// line), then every URL that is not the ledger's (each distinct one of an id once).
    /// Ids are dense, so one pass in id order would always put the mismatches first.
    fn check(
        &self,
        url_of: &dyn Fn(u64) -> Option<String>,
        normalize: &dyn Fn(&str) -> String,
        missing: &dyn Fn(u64) -> String,
        mismatched: &dyn Fn(&BlockEntry<'_>, &str) -> String,
        errors: &mut Vec<Finding>,
    ) {
        for run in self.runs() {
            if url_of(run[0].id).is_none() {
                errors.push(Finding::at(missing(run[0].id), Some(run[0].line)));
            }
        }
        for run in self.runs() {
            let Some(url) = url_of(run[0].id) else {
                continue;
            };
            let mut reported: BTreeSet<&str> = BTreeSet::new();
            for e in run {
                // A BibTeX entry carries `{`, `}` and `\` of the query percent-encoded
                // (`crate::tex::tex_url`): either form is the ledger's URL.
                let same = |u: &str| normalize(u) == url;
                let matches =
                    same(&e.url) || crate::tex::tex_url_decoded(&e.url).is_some_and(|d| same(&d));
                if !matches && reported.insert(&e.url) {
                    errors.push(Finding::at(mismatched(e, &url), Some(e.line)));
                }
            }
        }
    }
}

/// [`verify`] on a draft already read.
pub fn verify_summary(
    summary: &Summary<'_>,
    ledger: &dyn LedgerFacts,
    opts: &VerifyOptions,
    normalize: &dyn Fn(&str) -> String,
) -> Report {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let draft_arg = opts.draft.as_ref().map_or_else(
        || "DRAFT".to_string(),
        |p| shell_word(&p.to_string_lossy()).into_owned(),
    );
    let rerender = format!("`cite render --replace-in {draft_arg}`");

    // First line of each cited id; its keys are the cited set.
    let cited = &summary.cited;
    let first_line = |ids: &[u64]| ids.iter().filter_map(|id| cited.get(id)).min().copied();
    let ledger_urls: BTreeMap<u64, Option<String>> =
        cited.keys().map(|&id| (id, ledger.url(id))).collect();

    let unknown: Vec<u64> = ledger_urls
        .iter()
        .filter(|(_, url)| url.is_none())
        .map(|(&id, _)| id)
        .collect();
    if !unknown.is_empty() {
        errors.push(Finding::at(
            unknown_message(&unknown, ledger, opts),
            first_line(&unknown),
        ));
    }

    let entries = summary.block.as_ref().map_or(&[][..], |b| &b.entries[..]);
    let block = Listing::new(entries);

    // As in `sources.py`, a block that lists nothing counts as no block.
    if !cited.is_empty() && block.sorted.is_empty() {
        errors.push(Finding::at(
            format!("draft cites sources but has no `Sources:` block — run {rerender}"),
            summary.first_citation,
        ));
    }
    if !block.sorted.is_empty() {
        let missing: Vec<u64> = cited
            .keys()
            .filter(|&&id| !block.lists(id))
            .copied()
            .collect();
        if !missing.is_empty() {
            errors.push(Finding::at(
                format!(
                    "cited but absent from the Sources block: {} — run {rerender}",
                    id_list(&missing)
                ),
                first_line(&missing),
            ));
        }
    }

    let url_of = |id: u64| match ledger_urls.get(&id) {
        Some(url) => url.clone(),
        None => ledger.url(id),
    };
    block.check(
        &url_of,
        normalize,
        &|id| format!("Sources block lists [{id}], which is not in the ledger — run {rerender}"),
        &|e, url| {
            format!(
                "Sources block URL for [{}] does not match the ledger (block: {} / ledger: {url}) — re-run `render`: {rerender}",
                e.id, e.url
            )
        },
        &mut errors,
    );

    let sections = &summary.sections;
    if let (Some(a), Some(b)) = (sections.first, sections.second) {
        let fix = match &sections.misplaced {
            None => format!("run {rerender} to replace them with one block"),
            Some(m) => format!(
                "keep your text under another heading, remove the Sources heading at line {} and the entries under it, then run {rerender}",
                m.header
            ),
        };
        errors.push(Finding::at(
            format!("more than one Sources section (lines {a} and {b}) — {fix}"),
            Some(b),
        ));
    } else if let Some(m) = &sections.misplaced {
        let follows = m
            .followed_by
            .map(|b| format!(": other text follows it at line {b}"))
            .unwrap_or_default();
        errors.push(Finding::at(
            format!(
                "the Sources section at line {} is not the generated block at the end of the draft{follows} — keep your text under another heading, remove that Sources heading and the entries under it, then run {rerender}",
                m.header
            ),
            Some(m.header),
        ));
    }

    let instead =
        format!("delete it: cite sources as [N] alone, and let {rerender} write the entries");
    Listing::new(&summary.listed).check(
        &url_of,
        normalize,
        &|id| format!("a line outside the Sources block lists [{id}], which is not in the ledger — {instead}"),
        &|e, url| {
            format!(
                "a line outside the Sources block shows [{}] with a URL that is not the ledger's (line: {} / ledger: {url}) — {instead}",
                e.id, e.url
            )
        },
        &mut errors,
    );

    let sentences = &summary.sentences;
    let n = sentences.total;
    let with_provenance = sentences.with_provenance;
    let counts = Counts {
        sentences: n,
        with_provenance,
        cited: sentences.cited,
        tool_verified: sentences.tool,
        policy: sentences.policy,
        unverified: sentences.unverified,
        coverage: if n == 0 {
            0.0
        } else {
            with_provenance as f64 / n as f64
        },
        distinct_cited: cited.len(),
        in_ledger: ledger
            .id_ranges()
            .iter()
            .map(|&(lo, hi)| (hi - lo + 1) as usize)
            .sum(),
        quoted: ledger.quoted_count(),
    };
    let breakdown = format!(
        "{} cited, {} tool-verified, {} policy, {} unverified",
        counts.cited, counts.tool_verified, counts.policy, counts.unverified
    );

    // As in `sources.py`, a draft without prose sentences has nothing to cover.
    if let Some(required) = opts.min_coverage
        && n > 0
        && counts.coverage < required
    {
        errors.push(Finding {
            message: format!(
                "citation coverage {} is below the required {} ({}/{} sentences with declared provenance; {}) — give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified]",
                percent(counts.coverage),
                percent(required),
                with_provenance,
                n,
                breakdown
            ),
            line: sentences.uncovered.first().copied(),
            lines: sentences.uncovered.clone(),
        });
    }

    if opts.evidence {
        let bare: Vec<u64> = ledger_urls
            .iter()
            .filter(|(id, url)| url.is_some() && !ledger.has_quotes(**id))
            .map(|(&id, _)| id)
            .collect();
        if !bare.is_empty() {
            errors.push(Finding::at(
                format!(
                    "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): {} — for each, `cite quote ID --text \"WORDS COPIED FROM THE PAGE\" --from PAGE`",
                    id_list(&bare)
                ),
                first_line(&bare),
            ));
        }
    }

    let extra: Vec<&BlockEntry<'_>> = block
        .runs()
        .map(|run| run[0])
        .filter(|e| !cited.contains_key(&e.id))
        .collect();
    if !extra.is_empty() {
        let ids: Vec<u64> = extra.iter().map(|e| e.id).collect();
        warnings.push(Finding::at(
            format!(
                "listed in Sources but never cited inline: {}",
                id_list(&ids)
            ),
            extra.iter().map(|e| e.line).min(),
        ));
    }

    let mut uncited: Vec<(u64, u64)> = Vec::new();
    for (lo, hi) in ledger.id_ranges() {
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
        warnings.push(Finding::at(
            format!(
                "registered in the ledger but not cited in this draft: {}",
                range_list(&uncited)
            ),
            None,
        ));
    }

    if sentences.over_cited > 0 {
        warnings.push(Finding::at(
            format!(
                "{} sentence(s) carry more than {MAX_CITATIONS_PER_SENTENCE} citations",
                sentences.over_cited
            ),
            sentences.first_over_cited,
        ));
    }

    if counts.unverified * 2 > with_provenance {
        warnings.push(Finding::at(
            format!(
                "most declared provenance is [unverified] ({} of {} sentences) — say so in the deliverable's summary",
                counts.unverified, with_provenance
            ),
            sentences.first_unverified,
        ));
    }

    if let Some(fence) = &summary.unclosed_fence {
        warnings.push(Finding::at(
            format!(
                "the code fence opened at line {} is never closed: everything after it is code — close it with a line {}",
                fence.line,
                fence.closer()
            ),
            Some(fence.line),
        ));
    }

    for note in &summary.notes {
        let message = match note.kind {
            NoteKind::Malformed => format!(
                "malformed marker {} gives no provenance — {}",
                note.written, note.fix
            ),
            NoteKind::Spaced => format!(
                "marker after a space: \"{}\" — write \"{}\"",
                note.written, note.fix
            ),
        };
        warnings.push(Finding::at(message, Some(note.line)));
    }
    if summary.note_count > summary.notes.len() {
        warnings.push(Finding::at(
            format!(
                "{} more malformed or misplaced marker(s) not listed",
                summary.note_count - summary.notes.len()
            ),
            None,
        ));
    }

    // The first few by line, and a count: a draft can hold millions of URLs.
    let mut first: BinaryHeap<(usize, &str)> = BinaryHeap::new();
    let mut unregistered = 0;
    for (&url, &line) in &summary.urls {
        if !ledger.registered(&normalize(url)) {
            unregistered += 1;
            first.push((line, url));
            if first.len() > LIST_AT_MOST {
                first.pop();
            }
        }
    }
    for (line, url) in first.into_sorted_vec() {
        warnings.push(Finding::at(
            format!(
                "URL in the draft is not a registered source: {url} — register it with `cite add {}` and cite the id it prints instead",
                shell_word(url)
            ),
            Some(line),
        ));
    }
    if unregistered > LIST_AT_MOST {
        warnings.push(Finding::at(
            format!(
                "{} more URL(s) in the draft are not registered sources",
                unregistered - LIST_AT_MOST
            ),
            None,
        ));
    }

    let stats = format!(
        "stats: {} prose sentence(s), {} with declared provenance ({}) — {}; {} distinct source(s) cited, {} in ledger ({} with evidence quotes)",
        n,
        with_provenance,
        percent(counts.coverage),
        breakdown,
        counts.distinct_cited,
        counts.in_ledger,
        counts.quoted
    );
    let failed = !errors.is_empty() || (opts.strict && !warnings.is_empty());
    Report {
        stats,
        counts,
        errors,
        warnings,
        exit_code: i32::from(failed),
    }
}

/// The failure for cited ids the ledger lacks: remove them or register the pages, in
/// the ledger named; and for an id another epoch has, how to verify against it.
fn unknown_message(unknown: &[u64], ledger: &dyn LedgerFacts, opts: &VerifyOptions) -> String {
    let mut message = format!(
        "citations not in the ledger (hallucinated or renumbered): {} — remove them, or register each page with `cite add URL` and cite the id it prints",
        id_list(unknown)
    );
    if let Some(path) = &opts.ledger {
        message.push_str(&format!(" (ledger: {path})"));
    }
    let elsewhere: Vec<(u64, u64)> = unknown
        .iter()
        .take(LIST_AT_MOST)
        .filter_map(|&id| ledger.epoch_of(id).map(|e| (id, e)))
        .collect();
    if let Some(&(_, epoch)) = elsewhere.first() {
        let found: Vec<String> = elsewhere
            .iter()
            .map(|(id, e)| format!("[{id}] is in epoch {e}"))
            .collect();
        message.push_str(&format!(
            "; {}: if the draft was written before `cite reset`, verify it with `--epoch {epoch}`",
            found.join(", ")
        ));
    }
    message
}

/// Up to this many ids are listed one by one, as `sources.py` lists them.
const LIST_IN_FULL: u64 = 20;

/// `[a], [b]` for a short list; past [`LIST_IN_FULL`] ids, runs of three or more become
/// `[a]–[b]`, so a draft citing 3 of 100,000 sources gets a line, not a megabyte.
fn range_list(ranges: &[(u64, u64)]) -> String {
    let total: u64 = ranges.iter().map(|&(lo, hi)| hi - lo + 1).sum();
    let mut parts = Vec::new();
    for &(lo, hi) in ranges {
        if total > LIST_IN_FULL && hi - lo >= 2 {
            parts.push(format!("[{lo}]–[{hi}]"));
        } else {
            parts.extend((lo..=hi).map(|id| format!("[{id}]")));
        }
    }
    parts.join(", ")
}

/// `[a], [b]`.
fn id_list(ids: &[u64]) -> String {
    ids.iter()
        .map(|id| format!("[{id}]"))
        .collect::<Vec<_>>()
        .join(", ")
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
                    &format!(
                        "cited but absent from the Sources block: [2], [4], [9] — run {RERENDER}"
                    ),
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
                format!("Sources block lists [8], which is not in the ledger — run {RERENDER}"),
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
    fn glued_and_malformed_markers_do_not_cover() {
        let draft = "Seen in the word[1] only here.\nThe claim made [1]junk here.\nA policy in [[policy]] brackets.\nA tool marker [tool:] without name.\nA [12345] id is too long.\n";
        let opts = VerifyOptions {
            min_coverage: Some(0.01),
            ..VerifyOptions::default()
        };
        let r = run(draft, &Fake::new(&[1], &[]), &opts);
        assert_eq!(r.counts.sentences, 5);
        assert_eq!(r.counts.with_provenance, 0);
        assert!(r.errors.iter().any(|e| {
            e.message
                .starts_with("citation coverage 0% is below the required 1% (0/5")
        }));
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
                "registered in the ledger but not cited in this draft: [2], [3]",
                "1 sentence(s) carry more than 3 citations (line 1)",
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

    #[test]
    fn issue9_new_warnings_come_after_the_old_ones() {
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
                "registered in the ledger but not cited in this draft: [2], [3]",
                "1 sentence(s) carry more than 3 citations (line 1)",
                "the code fence opened at line 6 is never closed: everything after it is code — close it with a line ``` (line 6)",
                "malformed marker [1, 2] gives no provenance — write [1][2] (line 2)",
                "marker after a space: \"wavelength. [1]\" — write \"wavelength.[1]\" (line 3)",
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

    #[test]
    fn issue9_many_mistakes_make_a_short_report() {
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

    #[test]
    fn issue9_coverage_lists_every_uncovered_line() {
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
