//! The checks `verify` runs on an analyzed draft, worded and ordered as in `sources.py`.
//!
//! Errors, in SPEC order: ids not in the ledger; citations without a Sources block; ids
//! missing from the block; block entries not in the ledger; block entries with another
//! URL; coverage below `--min-coverage`; cited sources without evidence quotes
//! (`--evidence`).
//! Warnings: block entries never cited; ledger sources never cited; sentences with more
//! than 3 citations; provenance mostly `[unverified]`. Each finding carries the first
//! draft line it applies to; "registered but not cited" is about the ledger and has none.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::{MAX_CITATIONS_PER_SENTENCE, Summary, summarize};

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
}

/// The flags of `verify`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyOptions {
    /// Warnings fail too.
    pub strict: bool,
    /// Required share of sentences with declared provenance, 0.0–1.0.
    pub min_coverage: Option<f64>,
    /// Every cited source must carry an evidence quote.
    pub evidence: bool,
}

/// One error or warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The message, worded as `sources.py` words it.
    pub message: String,
    /// The first draft line it applies to (1-based), when it applies to one.
    pub line: Option<usize>,
}

impl fmt::Display for Finding {
    /// `MESSAGE (line N)`, or the message alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "{} (line {n})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The numbers behind the stats line.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Distinct ids cited (permissive scan).
    pub distinct_cited: usize,
    /// Sources in the ledger.
    pub in_ledger: usize,
    /// Ledger sources with evidence quotes.
    pub quoted: usize,
}

/// The outcome of `verify`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// `stats: …` (the CLI prints it after `info: `).
    pub stats: String,
    pub counts: Counts,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    /// 1 with errors, or with warnings under `strict`; else 0.
    pub exit_code: i32,
}

/// Checks `draft` against the ledger. `normalize` canonicalizes a URL from the Sources
/// block (returning its input when it is not a URL) for comparison with the ledger's.
pub fn verify(
    draft: &str,
    ledger: &dyn LedgerFacts,
    opts: &VerifyOptions,
    normalize: &dyn Fn(&str) -> String,
) -> Report {
    verify_summary(&summarize(draft), ledger, opts, normalize)
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
        errors.push(Finding {
            message: format!(
                "citations not in the ledger (hallucinated or renumbered): {}",
                id_list(&unknown)
            ),
            line: first_line(&unknown),
        });
    }

    let entries = summary.block.as_ref().map_or(&[][..], |b| &b.entries[..]);
    // The entries by id, then line: a run per listed id, its first entry first. A block
    // can list millions of ids, so this list of references is all that is built of it.
    let mut sorted: Vec<&super::BlockEntry<'_>> = entries.iter().collect();
    sorted.sort_by_key(|e| (e.id, e.line));
    let runs = || sorted.chunk_by(|a, b| a.id == b.id);
    let listed = |id: &u64| sorted.binary_search_by_key(id, |e| e.id).is_ok();

    // As in `sources.py`, a block that lists nothing counts as no block.
    if !cited.is_empty() && sorted.is_empty() {
        errors.push(Finding {
            message: "draft cites sources but has no `Sources:` block — run `render --cited-in`"
                .into(),
            line: summary.first_citation,
        });
    }
    if !sorted.is_empty() {
        let missing: Vec<u64> = cited.keys().filter(|id| !listed(id)).copied().collect();
        if !missing.is_empty() {
            errors.push(Finding {
                message: format!(
                    "cited but absent from the Sources block: {}",
                    id_list(&missing)
                ),
                line: first_line(&missing),
            });
        }
    }

    let url_of = |id: u64| match ledger_urls.get(&id) {
        Some(url) => url.clone(),
        None => ledger.url(id),
    };
    // SPEC order: every listed id missing from the ledger (each once), then every wrong
    // URL (each distinct one of an id once). Ids are dense, so one pass in id order would
    // always put the mismatches first.
    for run in runs() {
        if url_of(run[0].id).is_none() {
            errors.push(Finding {
                message: format!(
                    "Sources block lists [{}], which is not in the ledger",
                    run[0].id
                ),
                line: Some(run[0].line),
            });
        }
    }
    for run in runs() {
        let Some(url) = url_of(run[0].id) else {
            continue;
        };
        let mut reported: BTreeSet<&str> = BTreeSet::new();
        for e in run {
            if normalize(&e.url) != url && reported.insert(&e.url) {
                errors.push(Finding {
                    message: format!(
                        "Sources block URL for [{}] does not match the ledger (block: {} / ledger: {}) — re-run `render`",
                        e.id, e.url, url
                    ),
                    line: Some(e.line),
                });
            }
        }
    }

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
                "citation coverage {} is below the required {} ({}/{} sentences with declared provenance; {})",
                percent(counts.coverage),
                percent(required),
                with_provenance,
                n,
                breakdown
            ),
            line: sentences.first_without_provenance,
        });
    }

    if opts.evidence {
        let bare: Vec<u64> = ledger_urls
            .iter()
            .filter(|(id, url)| url.is_some() && !ledger.has_quotes(**id))
            .map(|(&id, _)| id)
            .collect();
        if !bare.is_empty() {
            errors.push(Finding {
                message: format!(
                    "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): {}",
                    id_list(&bare)
                ),
                line: first_line(&bare),
            });
        }
    }

    let extra: Vec<&super::BlockEntry<'_>> = runs()
        .map(|run| run[0])
        .filter(|e| !cited.contains_key(&e.id))
        .collect();
    if !extra.is_empty() {
        let ids: Vec<u64> = extra.iter().map(|e| e.id).collect();
        warnings.push(Finding {
            message: format!(
                "listed in Sources but never cited inline: {}",
                id_list(&ids)
            ),
            line: extra.iter().map(|e| e.line).min(),
        });
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
        warnings.push(Finding {
            message: format!(
                "registered in the ledger but not cited in this draft: {}",
                range_list(&uncited)
            ),
            line: None,
        });
    }

    if sentences.over_cited > 0 {
        warnings.push(Finding {
            message: format!(
                "{} sentence(s) carry more than {MAX_CITATIONS_PER_SENTENCE} citations",
                sentences.over_cited
            ),
            line: sentences.first_over_cited,
        });
    }

    if counts.unverified * 2 > with_provenance {
        warnings.push(Finding {
            message: format!(
                "most declared provenance is [unverified] ({} of {} sentences) — say so in the deliverable's summary",
                counts.unverified, with_provenance
            ),
            line: sentences.first_unverified,
        });
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
    }

    /// Stands in for `ledger::url::canonicalize`: drops a trailing slash.
    fn norm(url: &str) -> String {
        url.trim_end_matches('/').to_string()
    }

    fn run(draft: &str, ledger: &Fake, opts: &VerifyOptions) -> Report {
        verify(draft, ledger, opts, &norm)
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

    #[test]
    fn every_error_and_warning_in_order_with_lines() {
        let draft = "\
# Title
Ice floats on water.[1] Water boils at sea level.[2]
This line has no provenance at all.
Seen in word[9] which is unknown here.
The third source says this.[3]

## Sources

[1] https://s1.org/p/ — A
[3] https://wrong.org/3
[7] https://s7.org/p
";
        let ledger = Fake::new(&[1, 2, 3, 4], &[1]);
        let opts = VerifyOptions {
            strict: false,
            min_coverage: Some(0.75),
            evidence: true,
        };
        let r = run(draft, &ledger, &opts);
        assert_eq!(
            messages(&r.errors),
            [
                f(
                    "citations not in the ledger (hallucinated or renumbered): [9]",
                    Some(4)
                ),
                f("cited but absent from the Sources block: [2], [9]", Some(2)),
                f(
                    "Sources block lists [7], which is not in the ledger",
                    Some(11)
                ),
                f(
                    "Sources block URL for [3] does not match the ledger (block: https://wrong.org/3 / ledger: https://s3.org/p) — re-run `render`",
                    Some(10)
                ),
                f(
                    "citation coverage 60% is below the required 75% (3/5 sentences with declared provenance; 3 cited, 0 tool-verified, 0 policy, 0 unverified)",
                    Some(3)
                ),
                f(
                    "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): [2], [3]",
                    Some(2)
                ),
            ]
        );
        assert_eq!(
            messages(&r.warnings),
            [
                f("listed in Sources but never cited inline: [7]", Some(11)),
                f(
                    "registered in the ledger but not cited in this draft: [4]",
                    None
                ),
            ]
        );
        assert_eq!(r.exit_code, 1);
        assert_eq!(
            r.stats,
            "stats: 5 prose sentence(s), 3 with declared provenance (60%) — 3 cited, 0 tool-verified, 0 policy, 0 unverified; 4 distinct source(s) cited, 4 in ledger (1 with evidence quotes)"
        );
    }

    #[test]
    fn citations_without_a_block() {
        let draft = "Intro line.\nIce floats on water.[1]\n";
        let r = run(draft, &Fake::new(&[1], &[]), &VerifyOptions::default());
        assert_eq!(
            messages(&r.errors),
            [f(
                "draft cites sources but has no `Sources:` block — run `render --cited-in`",
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
                "Sources block URL for [1] does not match the ledger (block: https://elsewhere.org / ledger: https://s1.org/p) — re-run `render`",
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
        let m: Vec<_> = r
            .errors
            .iter()
            .map(|e| (e.line, e.message.as_str()))
            .collect();
        assert_eq!(
            m,
            [
                (
                    Some(6),
                    "Sources block lists [5], which is not in the ledger"
                ),
                (
                    Some(4),
                    "Sources block URL for [1] does not match the ledger (block: https://x.org / ledger: https://s1.org/p) — re-run `render`"
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
                "citations not in the ledger (hallucinated or renumbered): [8]",
                "Sources block lists [8], which is not in the ledger",
                "cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): [1]",
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
                "citation coverage 75% is below the required 80% (3/4 sentences with declared provenance; 0 cited, 1 tool-verified, 1 policy, 1 unverified)",
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
        let r = run(
            draft,
            &Fake::new(&[1, 2, 3], &[]),
            &VerifyOptions::default(),
        );
        let m: Vec<_> = r.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            m,
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
}
