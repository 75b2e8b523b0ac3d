//! Property tests: no input makes draft analysis panic, and rewriting the generated
//! block is idempotent.

use proptest::prelude::*;

use super::verify::{LedgerFacts, VerifyOptions, verify};
use super::{
    MAX_CITATIONS_PER_SENTENCE, analyze, body_without_block, cited_ids, layout, summarize,
};

/// A ledger holding ids 1–5 (`https://sN.org`), the odd ones quoted.
pub(super) struct Small;

impl LedgerFacts for Small {
    fn url(&self, id: u64) -> Option<String> {
        (1..=5).contains(&id).then(|| format!("https://s{id}.org"))
    }
    fn has_quotes(&self, id: u64) -> bool {
        id % 2 == 1
    }
    fn id_ranges(&self) -> Vec<(u64, u64)> {
        vec![(1, 5)]
    }
    fn quoted_count(&self) -> usize {
        3
    }
    fn registered(&self, url: &str) -> bool {
        (1..=5).any(|id| self.url(id).as_deref() == Some(url))
    }
}

/// Pieces of markdown that exercise every rule, glued in any order.
fn markdownish() -> impl Strategy<Value = String> {
    glued(PIECES.iter().chain(FENCES).copied().collect())
}

/// The same without fence markers (a block appended inside a fence left open is code).
fn markdownish_unfenced() -> impl Strategy<Value = String> {
    glued(PIECES.to_vec())
}

fn glued(pieces: Vec<&'static str>) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), 0..80).prop_map(|v| v.concat())
}

const FENCES: &[&str] = &["```", "~~~", "````", "```js", "\n```\n"];

const PIECES: &[&str] = &[
    "[1]",
    "[2]",
    "[12]",
    "[12345]",
    "[",
    "]",
    "[[",
    "]]",
    "[tool:x]",
    "[tool:]",
    "[policy]",
    "[Unverified]",
    "[unverified:x]",
    "[^1]: https://s1.org",
    "[1](x)",
    "[1]:",
    "## Sources",
    "Sources:",
    "**Sources:**",
    "\n",
    "\n\n",
    "\r\n",
    " ",
    "\t",
    ".",
    ". ",
    "!",
    "?",
    "。",
    "；",
    "*",
    "_",
    "\"",
    "”",
    "`",
    ">",
    "> ",
    "|",
    "#",
    "    > \"q\"",
    "@misc{source1,",
    "}",
    "  title = {T},",
    "word",
    "four words in here",
    "https://s1.org",
    "https://s9.org/",
    "氷は水より軽い",
    "é",
    "\u{2028}",
    "\u{0}",
    "-",
    "–",
];

fn exercise(draft: &str) {
    let a = analyze(draft);
    for c in &a.citations {
        assert!(c.line >= 1);
    }
    let _ = cited_ids(draft);
    for opts in [
        VerifyOptions::default(),
        VerifyOptions {
            strict: true,
            min_coverage: Some(0.5),
            evidence: true,
            ..VerifyOptions::default()
        },
    ] {
        let r = verify(draft, &Small, &opts, &|u: &str| {
            u.trim_end_matches('/').to_string()
        });
        assert!(r.stats.starts_with("stats: "));
        assert_eq!(
            r.exit_code == 0,
            r.errors.is_empty() && (!opts.strict || r.warnings.is_empty())
        );
    }
    let body = body_without_block(draft);
    assert!(draft.starts_with(body));
    same_summary(draft);
}

/// What `verify` reads line by line ([`summarize`]) is what the draft says item by item
/// ([`analyze`]), counted.
fn same_summary(draft: &str) {
    let a = analyze(draft);
    let s = summarize(draft);
    assert_eq!(s.block, a.block);
    assert_eq!(s.first_citation, a.citations.first().map(|c| c.line));
    let ids: Vec<u64> = a.citations.iter().map(|c| c.id).collect();
    assert!(
        s.cited.keys().copied().eq(ids
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>())
    );
    for (id, line) in &s.cited {
        assert_eq!(
            a.citations.iter().find(|c| c.id == *id).map(|c| c.line),
            Some(*line)
        );
    }
    let ss = &a.sentences;
    let count = |f: &dyn Fn(&super::Sentence<'_>) -> bool| ss.iter().filter(|s| f(s)).count();
    let first = |f: &dyn Fn(&super::Sentence<'_>) -> bool| ss.iter().find(|s| f(s)).map(|s| s.line);
    let c = &s.sentences;
    assert_eq!(c.total, ss.len());
    assert_eq!(c.with_provenance, count(&|s| s.has_provenance()));
    assert_eq!(c.cited, count(&|s| !s.cited.is_empty()));
    assert_eq!(c.tool, count(&|s| s.tool));
    assert_eq!(c.policy, count(&|s| s.policy));
    assert_eq!(c.unverified, count(&|s| s.unverified));
    let over = |s: &super::Sentence<'_>| s.cited.len() > MAX_CITATIONS_PER_SENTENCE;
    assert_eq!(c.over_cited, count(&over));
    let mut uncovered: Vec<usize> = ss
        .iter()
        .filter(|s| !s.has_provenance())
        .map(|s| s.line)
        .collect();
    uncovered.dedup();
    assert_eq!(c.uncovered, uncovered);
    assert_eq!(c.first_unverified, first(&|s| s.unverified));
    assert_eq!(c.first_over_cited, first(&over));
}

proptest! {
    // Failures are reported with their shrunk input; no regression file is written into
    // the source tree.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_strings_never_panic(draft in any::<String>()) {
        exercise(&draft);
    }

    #[test]
    fn markdownish_strings_never_panic(draft in markdownish()) {
        exercise(&draft);
    }

    /// `render --replace-in` twice gives what it gave once.
    #[test]
    fn replacing_the_block_is_idempotent(draft in markdownish_unfenced(), style in 0usize..4) {
        let block = [
            "## Sources\n\n[1] https://s1.org — T",
            "Sources:\n[1] https://s1.org",
            "[^1]: https://s1.org — T",
            "@misc{source1,\n  title = {T},\n}",
        ][style];
        let body = body_without_block(&draft);
        // Backticks can still spell a fence; a block appended inside an open fence is code.
        let fence_open = layout::lines(&format!("{body}\nx")).last().is_some_and(|l| l.code);
        prop_assume!(!fence_open);
        let once = format!("{body}\n\n{block}\n");
        prop_assert_eq!(body_without_block(&once), body);
    }
}
