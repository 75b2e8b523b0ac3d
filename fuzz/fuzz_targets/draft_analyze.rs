//! Any text as a draft → `draft::summarize` (what `verify` reads) and `draft::analyze`,
//! and the checks `verify` runs, against a small in-memory ledger (no store): never a
//! panic, and the readings of a draft (`verify`, `render --cited-in`, `render
//! --replace-in`) agree with each other.

#![no_main]

use std::collections::BTreeSet;

use cite_core::draft::{self, LedgerFacts, VerifyOptions};
use cite_core::url::canonicalize;
use libfuzzer_sys::fuzz_target;

/// Ids 1–3, the odd ones quoted, and 4–6 in an earlier epoch: enough for every finding
/// `verify` can make (unknown ids, ids of another epoch, wrong or unregistered URLs,
/// uncited sources, missing evidence) to be reachable.
struct Ledger;

impl LedgerFacts for Ledger {
    fn url(&self, id: u64) -> Option<String> {
        (1..=3)
            .contains(&id)
            .then(|| format!("https://s{id}.example"))
    }
    fn has_quotes(&self, id: u64) -> bool {
        id % 2 == 1
    }
    fn id_ranges(&self) -> Vec<(u64, u64)> {
        vec![(1, 3)]
    }
    fn quoted_count(&self) -> usize {
        2
    }
    fn registered(&self, url: &str) -> bool {
        (1..=3).any(|id| self.url(id).as_deref() == Some(url))
    }
    /// Ids 4–6 were given out before a `reset`.
    fn epoch_of(&self, id: u64) -> Option<u64> {
        (4..=6).contains(&id).then_some(1)
    }
}

fuzz_target!(|text: &str| {
    // What `cite verify` reads (line by line, counting), and the same draft item by item.
    let summary = draft::summarize(text);
    let analysis = draft::analyze(text);
    let lines = text.lines().count().max(1);
    for c in &analysis.citations {
        assert!((1..=lines).contains(&c.line), "citation on line {}", c.line);
    }
    // The two readings agree (src/draft/prop_tests.rs compares every count; here the
    // parts the other commands share).
    let cited: BTreeSet<u64> = analysis.citations.iter().map(|c| c.id).collect();
    assert!(summary.cited.keys().eq(cited.iter()));
    assert_eq!(summary.block, analysis.block);
    assert_eq!(summary.sentences.total, analysis.sentences.len());
    // `render --cited-in` renders exactly the ids `verify` looks up.
    assert_eq!(draft::cited_ids(text), cited);

    // The checks as `cite verify` runs them: Sources-block URLs canonicalized, or
    // compared as written when they are not URLs.
    let normalize = |u: &str| canonicalize(u).unwrap_or_else(|_| u.to_string());
    for opts in [
        VerifyOptions::default(),
        VerifyOptions {
            strict: true,
            min_coverage: Some(0.5),
            evidence: true,
            // Named in the commands findings say to run, shell-quoted.
            draft: Some("my draft's.md".into()),
            ledger: Some("ledger dir/l.redb".into()),
            advice: draft::Advice::Shell,
            support: false,
        },
        // As an MCP client gets it: tools for commands, the draft given as text.
        VerifyOptions {
            strict: true,
            evidence: true,
            advice: draft::Advice::Tools,
            ..VerifyOptions::default()
        },
    ] {
        let report = draft::verify_summary(&summary, &Ledger, &opts, &normalize);
        let passed = report.errors.is_empty() && (!opts.strict || report.warnings.is_empty());
        assert_eq!(report.exit_code == 0, passed);
    }

    // `render --replace-in` keeps a prefix of the draft, and what it keeps has no
    // generated block left to remove.
    let body = draft::body_without_block(text);
    assert!(text.starts_with(body));
    assert_eq!(draft::body_without_block(body), body);
    // Where it agrees to write a block, writing one again changes nothing: the new block
    // is the whole tail the next run removes (src/cli/render.rs writes `body`, a blank
    // line, the block).
    if let Ok(body) = draft::body_for_block(text) {
        let once = format!("{body}\n\n## Sources\n\n[1] https://s1.example — T\n");
        assert_eq!(draft::body_for_block(&once), Ok(body), "{once:?}");
    }
});
