//! Whole-draft tests of `analyze`, `cited_ids` and `body_without_block`.

use super::{BlockEntry, Citation, analyze, body_without_block, cited_ids};

fn ids(draft: &str) -> Vec<u64> {
    analyze(draft).citations.iter().map(|c| c.id).collect()
}

#[test]
fn citations_carry_their_line() {
    let a = analyze("# T [3]\n\nA claim here.[1][2]\n| cell [4] |\n");
    assert_eq!(
        a.citations,
        [
            Citation {
                id: 3,
                line: 1,
                pandoc: false
            },
            Citation {
                id: 1,
                line: 3,
                pandoc: false
            },
            Citation {
                id: 2,
                line: 3,
                pandoc: false
            },
            Citation {
                id: 4,
                line: 4,
                pandoc: false
            },
        ]
    );
    // Headings and table rows hold citations but no sentences.
    assert_eq!(a.sentences.len(), 0);
}

#[test]
fn links_and_reference_definitions_are_not_citations() {
    assert_eq!(
        ids("See [1](https://x.org) and\n[2]: https://y.org\n"),
        Vec::<u64>::new()
    );
}

#[test]
fn fenced_code_is_not_prose() {
    for fence in ["```", "~~~"] {
        let draft = format!(
            "A real claim is here.[1]\n{fence}python\nx = a[2]  # Not a sentence at all.\n{fence}\nAnother claim stands here.\n"
        );
        let a = analyze(&draft);
        assert_eq!(ids(&draft), [1], "{fence}");
        let texts: Vec<_> = a.sentences.iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            ["A real claim is here.[1]", "Another claim stands here."]
        );
    }
}

#[test]
fn a_sources_header_inside_a_fence_is_ignored() {
    let draft = "A real claim is here.[1]\n\n```\n## Sources\n[1] https://a.org\n```\n";
    let a = analyze(draft);
    assert_eq!(a.block, None);
    assert_eq!(ids(draft), [1]);
    assert_eq!(body_without_block(draft), draft.trim_end());
}

#[test]
fn author_prose_under_a_sources_heading_stays_prose() {
    let draft = "# Report\n\nIce floats on water.[1]\n\n## Sources\n\nWe relied on three field studies.[2]\n";
    let a = analyze(draft);
    assert_eq!(a.block, None);
    assert_eq!(ids(draft), [1, 2]);
    assert_eq!(a.sentences.len(), 2);
    assert_eq!(body_without_block(draft), draft.trim_end());
}

#[test]
fn the_block_is_not_prose() {
    let draft = "Ice floats on water.[1]\n\n## Sources\n\n[1] https://a.org — A title of several words\n[2] https://b.org\n";
    let a = analyze(draft);
    assert_eq!(ids(draft), [1]);
    assert_eq!(a.sentences.len(), 1);
    let block = a.block.unwrap();
    assert_eq!(block.header_line, 3);
    assert_eq!(
        block.entries,
        [
            BlockEntry {
                id: 1,
                url: "https://a.org".into(),
                line: 5
            },
            BlockEntry {
                id: 2,
                url: "https://b.org".into(),
                line: 6
            },
        ]
    );
}

#[test]
fn the_last_header_wins() {
    // An earlier "Sources" heading with prose under it is prose; the trailing one is the block.
    let draft =
        "## Sources\nWe read many of them carefully.[1]\n\n**Sources:**\n[1] https://a.org\n";
    let a = analyze(draft);
    assert_eq!(a.block.unwrap().header_line, 4);
    assert_eq!(a.sentences.len(), 1);
}

#[test]
fn trailing_footnote_and_bibtex_blocks_are_blocks_not_prose() {
    let f = "Ice floats on water.[1]\n\n[^1]: https://a.org — A long title with words\n";
    let a = analyze(f);
    assert_eq!(a.sentences.len(), 1);
    let block = a.block.unwrap();
    assert_eq!(block.header_line, 3);
    assert_eq!(
        block.entries,
        [BlockEntry {
            id: 1,
            url: "https://a.org".into(),
            line: 3
        }]
    );
    let b = "Ice floats on water.[1]\n\n@misc{source1,\n  title = {A long title with words},\n  howpublished = {\\url{https://a.org}},\n}\n";
    let a = analyze(b);
    assert_eq!(a.sentences.len(), 1);
    assert_eq!(
        a.block.unwrap().entries,
        [BlockEntry {
            id: 1,
            url: "https://a.org".into(),
            line: 3
        }]
    );
}

#[test]
fn blockquotes_are_prose() {
    let a = analyze("> Quoted claim with four words.[1]\n");
    assert_eq!(a.sentences[0].cited, [1]);
}

#[test]
fn cited_ids_reads_only_prose() {
    // Not code (fenced or inline), not the block; but a citation glued to a word, or in
    // a malformed group that shows one id, is one the reader sees (issue 18).
    let draft = "A claim.[2] word[7] `[4]` [6]x [1, 9]\n```\n[3]\n```\n\n## Sources\n[2] https://b.org\n[5] https://e.org\n";
    assert_eq!(cited_ids(draft).into_iter().collect::<Vec<_>>(), [2, 6, 7]);
}

const BODY: &str = "# Report\n\nIce floats on water.[1] Steam rises.[3]\n";

fn styles() -> Vec<(&'static str, String)> {
    let bib = |id: u64, url: &str| {
        format!(
            "@misc{{source{id},\n  title = {{T}},\n  howpublished = {{\\url{{{url}}}}},\n  note = {{Accessed 2024-05-01}}\n}}"
        )
    };
    vec![
        ("markdown", "## Sources\n\n[1] https://a.org/x — Title A\n[3] https://c.org".into()),
        ("plain", "Sources:\n[1] https://a.org/x — Title A\n[3] https://c.org".into()),
        (
            "evidence",
            "## Sources\n\n[1] https://a.org/x — Title A\n    > \"Ice is less dense.\"\n    > \"A second quote.\"\n[3] https://c.org".into(),
        ),
        ("footnotes", "[^1]: https://a.org/x — Title A\n[^3]: https://c.org".into()),
        ("bibtex", format!("{}\n{}", bib(1, "https://a.org/x"), bib(3, "https://c.org"))),
        ("bibtex-spaced", format!("{}\n\n{}", bib(1, "https://a.org/x"), bib(3, "https://c.org"))),
    ]
}

/// What `render --replace-in` does with a body and a block.
fn replace(draft: &str, block: &str) -> String {
    format!("{}\n\n{block}\n", body_without_block(draft))
}

#[test]
fn body_without_block_is_idempotent_for_every_style() {
    for (name, block) in styles() {
        let once = replace(BODY, &block);
        assert_eq!(body_without_block(&once), BODY.trim_end(), "{name}");
        let twice = replace(&once, &block);
        assert_eq!(twice, once, "{name}");
        assert_eq!(
            cited_ids(&once).into_iter().collect::<Vec<_>>(),
            [1, 3],
            "{name}"
        );
    }
}

#[test]
fn switching_styles_replaces_the_block() {
    for (from, old) in styles() {
        for (to, new) in styles() {
            let draft = replace(&replace(BODY, &old), &new);
            assert_eq!(
                draft,
                format!("{}\n\n{new}\n", BODY.trim_end()),
                "{from} -> {to}"
            );
        }
    }
}

#[test]
fn stacked_stale_blocks_all_go() {
    let (_, md) = &styles()[0];
    let (_, foot) = &styles()[3];
    let draft = format!("{BODY}\n{md}\n\n{foot}\n\n{md}\n");
    assert_eq!(body_without_block(&draft), BODY.trim_end());
}

#[test]
fn body_without_block_keeps_author_text() {
    for draft in [
        "Intro.\n\n## Sources\n\nI also read widely beyond these.\n",
        "Intro.\n\n## Sources\n[1] https://a.org\nA closing remark by the author.\n",
        "Intro.\n\n## Sources\n\n[1] and [2] disagree on the date; we follow [2].\n",
        "Intro.\n\n[^1]: My own aside, not a URL.\n",
        "Intro.\n\n```\n## Sources\n[1] https://a.org\n```\n",
        "Intro.\n\n> ## Sources\n> [1] https://a.org\n",
    ] {
        assert_eq!(body_without_block(draft), draft.trim_end(), "{draft:?}");
    }
}

#[test]
fn body_without_block_handles_crlf_and_empty_drafts() {
    let draft = "Claim here.[1]\r\n\r\n## Sources\r\n\r\n[1] https://a.org\r\n";
    assert_eq!(body_without_block(draft), "Claim here.[1]");
    assert_eq!(body_without_block(""), "");
    assert_eq!(body_without_block("## Sources\n[1] https://a.org\n"), "");
    assert_eq!(body_without_block("\n\n  \n"), "");
}

// ---- issue 9: what the draft shows, wherever it is -------------------------------------

use super::{Misplaced, ReplaceError, Sections, body_for_block, summarize};

/// The (id, URL, line) of every listing outside the block.
fn listed(draft: &str) -> Vec<(u64, String, usize)> {
    summarize(draft)
        .listed
        .iter()
        .map(|e| (e.id, e.url.to_string(), e.line))
        .collect()
}

/// Issue 9.
#[test]
fn entries_outside_the_block_are_listed_wherever_they_are() {
    let draft = "\
Claim here.[1]
[2] https://a.org/x
- [3] https://b.org
> [4]: https://c.org
See [5] https://d.org/y. And [6](https://e.org) too.
[^7]: As argued at https://f.org
```
[8] https://g.org
```
@online{source9,
  url = {https://h.org},
}
Text `[10] https://i.org` here.

## Sources

[1] https://s1.org
";
    assert_eq!(
        listed(draft),
        [
            (2, "https://a.org/x".into(), 2),
            (3, "https://b.org".into(), 3),
            (4, "https://c.org".into(), 4),
            (5, "https://d.org/y".into(), 5),
            (6, "https://e.org".into(), 5),
            (7, "https://f.org".into(), 6),
            (8, "https://g.org".into(), 8),
            (9, "https://h.org".into(), 10),
            (10, "https://i.org".into(), 13),
        ]
    );
    let s = summarize(draft);
    // Listings are not prose; a pair in a sentence is a citation too; code is neither.
    assert_eq!(s.cited.keys().copied().collect::<Vec<_>>(), [1, 5]);
    assert_eq!(s.block.unwrap().entries.len(), 1);
    assert!(s.urls.is_empty(), "{:?}", s.urls);
}

/// Issue 9.
#[test]
fn raw_urls_are_those_in_prose_with_no_id() {
    let draft = "See https://a.org/x. and `https://code.org` or <https://b.org>.\n```\nhttps://fenced.org\n```\n[1] https://s1.org — also https://c.org\n";
    let s = summarize(draft);
    let urls: Vec<_> = s.urls.iter().map(|(u, l)| (*u, *l)).collect();
    assert_eq!(
        urls,
        [
            ("https://a.org/x", 1),
            ("https://b.org", 1),
            ("https://c.org", 5)
        ]
    );
}

/// Issue 9.
#[test]
fn sources_sections_before_the_end_are_named() {
    let s = summarize("Claim.[1]\n\n## Sources\n\n[2] https://x.org\n\n## Appendix\n\nText.\n");
    assert_eq!(
        s.sections,
        Sections {
            count: 1,
            first: Some(3),
            second: None,
            misplaced: Some(Misplaced {
                header: 3,
                followed_by: Some(7)
            }),
        }
    );
    assert_eq!(s.block, None);
    // Stacked generated blocks at the end are two sections, neither misplaced.
    let s =
        summarize("Claim.[1]\n\n## Sources\n[1] https://x.org\n\nSources:\n[1] https://x.org\n");
    assert_eq!(
        (s.sections.count, s.sections.first, s.sections.second),
        (2, Some(3), Some(6))
    );
    assert_eq!(s.sections.misplaced, None);
    // A fenced header is code.
    let s = summarize("Claim.[1]\n```\n## Sources\n```\n");
    assert_eq!(s.sections, Sections::default());
}

/// Issue 9.
#[test]
fn a_block_is_never_written_into_an_open_fence_or_beside_a_second_section() {
    assert_eq!(
        body_for_block("Claim.[1]\n\n## Sources\n[1] https://x.org\n"),
        Ok("Claim.[1]")
    );
    match body_for_block("Claim.[1]\n\n~~~~\ncode\n") {
        Err(ReplaceError::UnclosedFence(f)) => assert_eq!((f.line, f.closer()), (3, "~~~~".into())),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        body_for_block("Claim.[1]\n\n## Sources\n\nMy own notes on them.\n"),
        Err(ReplaceError::MisplacedSection(Misplaced {
            header: 3,
            followed_by: Some(5)
        }))
    );
    // Stale stacked blocks are the tail, replaced as one.
    assert_eq!(
        body_for_block(
            "Claim.[1]\n\n## Sources\n[1] https://x.org\n\nSources:\n[2] https://y.org\n"
        ),
        Ok("Claim.[1]")
    );
}

/// Issue 9.
#[test]
fn the_unclosed_fence_is_reported() {
    let s = summarize("Claim here.[1]\n\n```rust\nfn main() {}\n");
    assert_eq!(s.unclosed_fence.map(|f| f.line), Some(3));
    assert_eq!(summarize("```\nx\n```\n").unclosed_fence, None);
}

/// Found by fuzzing (issue 8; fuzz/, target `draft_analyze`): a line ending in a stray
/// `\r` before its `\r\n` kept that `\r` in the body, which the next `render
/// --replace-in` read as a line terminator and dropped, so replacing twice changed the
/// draft again.
#[test]
fn stray_carriage_returns_keep_replacement_idempotent() {
    let draft = "Claim here.[1]\r\r\n\r\n## Sources\r\n[1] https://a.org\r\n";
    let body = body_without_block(draft);
    assert_eq!(body, "Claim here.[1]");
    assert_eq!(body_without_block(body), body);
    let (_, block) = &styles()[0];
    let once = replace(draft, block);
    assert_eq!(replace(&once, block), once);
}

/// Issue 18: a hand-written list of sources under another heading is a Sources section
/// for every rule: a second list fails, and so does one that is not at the end.
#[test]
fn a_list_under_another_heading_is_a_sources_section() {
    let two =
        "Claim.[1]\n\n**References**\n\n[1] https://a.org\n\n## Sources\n\n[1] https://a.org\n";
    let s = summarize(two);
    assert_eq!(
        (s.sections.count, s.sections.first, s.sections.second),
        (2, Some(3), Some(7))
    );
    let misplaced = "Claim.[1]\n\n## Bibliography\n\n- [1] https://a.org\n\nMore prose here.\n";
    let s = summarize(misplaced);
    assert_eq!(s.sections.count, 1);
    assert_eq!(s.sections.misplaced.map(|m| m.header), Some(3));
    assert!(body_for_block(misplaced).is_err());
    // A heading by another name over the author's prose is just a heading.
    let notes =
        "Claim.[1]\n\n## Notes\n\nThese are my notes on it.\n\n## Sources\n\n[1] https://a.org\n";
    let s = summarize(notes);
    assert_eq!((s.sections.count, s.sections.misplaced), (1, None));
    assert!(body_for_block(notes).is_ok());
    // The generated block replaces a list at the end under another name.
    let refs = "Claim.[1]\n\n## References\n\n[1] https://a.org — A\n";
    assert_eq!(body_for_block(refs), Ok("Claim.[1]"));
}

/// Issue 21: `verify --support` reads the cited sentences whole, with the summary
/// `verify` reads otherwise; a fragment an abbreviation split off opens the next one.
#[test]
fn cited_sentences_are_kept_with_what_opens_their_line() {
    let draft = "# Rates\n\nOn Sept. 6, 2022 the bank moved rates.[1] Rates went up again.[2]\n> Dr. Anna Berg said it works.[1]\nAn uncited claim stands here.\n\n## Sources\n\n[1] https://a.org\n[2] https://b.org\n";
    let (summary, cited) = super::summarize_cited(draft);
    assert_eq!(summary, summarize(draft));
    let texts: Vec<(&str, usize, &[u64])> = cited
        .iter()
        .map(|s| (s.text, s.line, &s.cited[..]))
        .collect();
    assert_eq!(
        texts,
        [
            ("On Sept. 6, 2022 the bank moved rates.[1]", 3, &[1][..]),
            ("Rates went up again.[2]", 3, &[2][..]),
            ("Dr. Anna Berg said it works.[1]", 4, &[1][..]),
        ]
    );
}

/// A pandoc document's front matter names its bibliography for `verify --support` as for
/// `verify`: the ids it cites as `[@sourceN]` are owed no Sources block either way.
#[test]
fn a_pandoc_document_is_summarized_alike_with_its_cited_sentences() {
    let draft = "---\nbibliography: \"out.json\"\nlink-citations: true\n---\n\nIce floats on liquid water [@source1].\n";
    let (summary, cited) = super::summarize_cited(draft);
    assert_eq!(summary.bibliography, Some(2));
    assert_eq!(summary, summarize(draft));
    assert_eq!(cited.len(), 1);
}

/// A table's rows that cite are kept for `--support` with the table's header, never
/// counted as sentences; a header row and a delimiter row are no rows, and lines of
/// pipes with no delimiter row under the first are rows without a header.
#[test]
fn table_rows_that_cite_are_kept_with_their_header() {
    let draft = "| Rate [1] | Value |\n| :-- | --: |\n| Base | 4% [1] |\n| Floor | 3% |\n\nA plain sentence with four words.\n| a | 1 [2] |\n| b | 2 [3] |\n\n```\n| c | 3 [4] |\n```\n";
    let (summary, cited) = super::summarize_cited(draft);
    let rows: Vec<(&str, Option<&str>, usize, usize)> = cited
        .iter()
        .map(|s| (s.text, s.header, s.index, s.line))
        .collect();
    assert_eq!(
        rows,
        [
            ("| Base | 4% [1] |", Some("| Rate [1] | Value |"), 0, 3),
            ("| a | 1 [2] |", None, 2, 7),
            ("| b | 2 [3] |", None, 3, 8),
        ]
    );
    assert!(cited.iter().all(|s| s.row));
    assert_eq!(summary.sentences.total, 1);
    assert_eq!(summary, summarize(draft));
}
