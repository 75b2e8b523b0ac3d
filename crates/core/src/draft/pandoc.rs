//! A draft as a pandoc document (`cite convert --to pandoc`): each run of `[N]` markers
//! becomes one pandoc citation (`claim.[1][2]` → `claim [@source1; @source2].`), the
//! generated Sources block goes, and the front matter names the bibliography (the
//! CSL-JSON of the cited sources, whose item ids are `sourceN`), the citation style
//! (`csl`, cite's own, which prints `[N]` by ledger id; a style the draft's front matter
//! already names is kept instead) and `link-citations`.
//!
//! The markers are the ones the draft analysis reads ([`super::place`], the walk of
//! `verify`), so a glued `carmakers[7].` and a malformed group that still shows an id
//! (`[1]junk`) are converted too, and nothing in code is. Pandoc's place for a citation
//! is before the punctuation it belongs to, after a space (a note style moves it behind
//! the punctuation itself), so a run right after `.`, `,`, `;`, `:`, `!` or `?` moves
//! in front of it; after CJK punctuation it moves in front without a space.
//!
//! `[tool:…]`, `[policy]` and `[unverified]` become pandoc spans in parentheses, in the
//! citation's place (`liquids.[unverified]` → `liquids ([unverified]{.cite-unverified
//! title="…"}).`): the reader of a fact-checked document is owed them, and a typeset
//! document shows each as a word in parentheses — `(unverified)`, `(policy)`,
//! `(tool:python)` — with a class that a style sheet or a Word style can set apart, and a
//! title that says what it means where the format shows one (HTML). The marker is still
//! the marker, brackets and all, where the draft module reads it (a marker may be
//! followed by `{`), so `verify` counts the converted document's markers as the draft's.
//! A marker already followed by `{` is a span already, and is kept, as are citations
//! already written for pandoc.

use std::collections::BTreeSet;

use super::body_without_block;
use super::front::{FrontMatter, front_matter};
use super::placed::{Mark, MarkKind, place};
use crate::text::is_cjk;

/// A converted draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// The pandoc Markdown, front matter first, ending with a newline.
    pub text: String,
    /// Every ledger id the document cites: what the bibliography must hold.
    pub cited: BTreeSet<u64>,
    /// How many pandoc citations the conversion wrote.
    pub written: usize,
    /// The style the draft's front matter names (`csl:`) instead of the one it was to
    /// name, kept as the author set it: no style need be written then.
    pub own_style: Option<String>,
}

/// Why a draft's front matter cannot take the bibliography.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontMatterError {
    /// It names another bibliography, which the document's citations would not be in.
    #[error(
        "the draft's front matter names another bibliography (line {line}: bibliography: {value}) — remove that key, or convert with that file as the bibliography"
    )]
    OtherBibliography { line: usize, value: String },
}

/// `draft` as a pandoc document whose front matter names `bibliography` and the citation
/// style `style` (as written into the YAML, relative to where pandoc runs).
pub fn to_pandoc(
    draft: &str,
    bibliography: &str,
    style: &str,
) -> Result<Converted, FrontMatterError> {
    let body = body_without_block(draft);
    let front = front_matter(body);
    let mut out = String::with_capacity(body.len() + body.len() / 8 + 128);
    let mut own_style = None;
    let from = match &front {
        Some(f) => {
            own_style = merge_front(body, f, bibliography, style, &mut out)?;
            f.end
        }
        None => {
            out.push_str("---\n");
            push_key(&mut out, "bibliography", bibliography);
            push_key(&mut out, "csl", style);
            out.push_str("link-citations: true\n");
            out.push_str("---\n\n");
            0
        }
    };
    let placed = place(body);
    let mut cited = BTreeSet::new();
    let mut written = 0;
    let mut at = from;
    let marks = &placed.marks[..];
    let mut i = 0;
    while i < marks.len() {
        // A run of markers, each starting where the one before ends.
        let mut j = i + 1;
        while j < marks.len() && marks[j].start == marks[j - 1].end {
            j += 1;
        }
        let run = &marks[i..j];
        cited.extend(run.iter().flat_map(|m| m.kind.ids().iter().copied()));
        let citation = citation(run);
        let spans: Vec<String> = run
            .iter()
            .filter_map(|m| provenance_span(body, m))
            .collect();
        if citation.is_some() || !spans.is_empty() {
            at = rewrite_run(body, at, run, citation.as_deref(), &spans, &mut out);
            written += usize::from(citation.is_some());
        }
        i = j;
    }
    out.push_str(&body[at..]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(Converted {
        text: out,
        cited,
        written,
        own_style,
    })
}

/// The front matter `f` of `body` with the keys, into `out`: a `bibliography` or `csl`
/// key already naming `bibliography` or `style` is rewritten where it stands (so a second
/// conversion changes nothing); another bibliography is refused, and another style kept
/// (returned: the author chose it); `link-citations` is left as the author set it.
fn merge_front(
    body: &str,
    f: &FrontMatter,
    bibliography: &str,
    style: &str,
    out: &mut String,
) -> Result<Option<String>, FrontMatterError> {
    let value = |key: &super::front::Key| {
        body[key.start..key.end]
            .split_once(':')
            .map_or("", |(_, v)| v)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut at = 0;
    let (mut named, mut styled) = (false, false);
    let mut own_style = None;
    for key in &f.keys {
        let (name, ours) = match key.name.as_str() {
            "bibliography" => ("bibliography", bibliography),
            "csl" => ("csl", style),
            _ => continue,
        };
        let same = key.inline.trim_matches(['"', '\'']) == ours;
        if name == "bibliography" && !same {
            return Err(FrontMatterError::OtherBibliography {
                line: key.line,
                value: value(key),
            });
        }
        let done = if name == "csl" {
            &mut styled
        } else {
            &mut named
        };
        if name == "csl" && !same {
            own_style = Some(value(key).trim_matches(['"', '\'']).to_string());
            *done = true;
            continue;
        }
        out.push_str(&body[at..key.start]);
        if !*done {
            push_key(out, name, ours);
            *done = true;
        }
        at = key.end;
    }
    out.push_str(&body[at..f.close]);
    if !named {
        push_key(out, "bibliography", bibliography);
    }
    if !styled {
        push_key(out, "csl", style);
    }
    if !f.keys.iter().any(|k| k.name == "link-citations") {
        out.push_str("link-citations: true\n");
    }
    out.push_str(&body[f.close..f.end]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(own_style)
}

/// A front matter key naming a file: the name as a YAML double-quoted string, which a
/// JSON string is.
fn push_key(out: &mut String, key: &str, file: &str) {
    let quoted = serde_json::to_string(file).unwrap_or_default();
    out.push_str(&format!("{key}: {quoted}\n"));
}

/// The pandoc citation of a run's `[N]` markers (and groups that show ids), each id
/// once, in order; `None` when the run has none (only pandoc citations and other
/// markers).
fn citation(run: &[Mark]) -> Option<String> {
    let mut ids: Vec<u64> = Vec::new();
    for m in run.iter().filter(|m| converts(m)) {
        for &id in m.kind.ids() {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    if ids.is_empty() {
        return None;
    }
    let keys: Vec<String> = ids.iter().map(|id| format!("@source{id}")).collect();
    Some(format!("[{}]", keys.join("; ")))
}

/// A mark the conversion replaces: a `[N]`, or a malformed group showing ids.
fn converts(m: &Mark) -> bool {
    matches!(
        m.kind,
        MarkKind::Cite { pandoc: false, .. } | MarkKind::Shown { .. }
    )
}

/// The span a bare `[tool:NAME]`, `[policy]` or `[unverified]` becomes, in parentheses;
/// `None` for any other mark, and for one already followed by attributes (a span).
fn provenance_span(body: &str, m: &Mark) -> Option<String> {
    let marker = &body[m.start..m.end];
    let content = &marker[1..marker.len() - 1];
    let (class, title) = match m.kind {
        MarkKind::Unverified => (
            "cite-unverified",
            "not checked against a source".to_string(),
        ),
        MarkKind::Policy => (
            "cite-policy",
            "a statement of policy, not of fact".to_string(),
        ),
        MarkKind::Tool => (
            "cite-tool",
            format!("computed with {}, not taken from a source", &content[5..]),
        ),
        _ => return None,
    };
    if body[m.end..].starts_with('{') {
        return None;
    }
    Some(format!("({marker}{{.{class} title=\"{title}\"}})"))
}

/// Writes `body[at..]` up to the end of `run` into `out`, the run's converted markers
/// replaced by `citation` and its provenance markers by `spans`, in pandoc's place;
/// returns where the run ends.
fn rewrite_run(
    body: &str,
    at: usize,
    run: &[Mark],
    citation: Option<&str>,
    spans: &[String],
    out: &mut String,
) -> usize {
    let start = run[0].start;
    let end = run[run.len() - 1].end;
    let before = &body[at..start];
    // The punctuation right before the run, which the citation goes in front of.
    let punct = before.len()
        - before
            .trim_end_matches(['.', ',', ';', ':', '!', '?', '。', '！', '？', '；'])
            .len();
    let (text, punct) = before.split_at(before.len() - punct);
    out.push_str(text);
    let prev = text.chars().next_back();
    let spaced = prev.is_some_and(|c| !c.is_whitespace() && !is_cjk(c) && c != '[')
        && !punct.starts_with(['。', '！', '？', '；']);
    for (i, part) in citation
        .into_iter()
        .chain(spans.iter().map(String::as_str))
        .enumerate()
    {
        if i > 0 || spaced {
            out.push(' ');
        }
        out.push_str(part);
    }
    out.push_str(punct);
    // The markers left as they were, in order.
    for m in run
        .iter()
        .filter(|m| !converts(m) && provenance_span(body, m).is_none())
    {
        out.push_str(&body[m.start..m.end]);
    }
    let next = body[end..].chars().next();
    if next.is_some_and(|c| (c.is_alphanumeric() || c == '_') && !is_cjk(c)) {
        out.push(' ');
    }
    end
}

#[cfg(test)]
mod tests {
    use super::{FrontMatterError, to_pandoc};

    /// The converted body, without the front matter `to_pandoc` adds.
    fn body(draft: &str) -> String {
        let text = to_pandoc(draft, "out.json", "out.csl").unwrap().text;
        let head =
            "---\nbibliography: \"out.json\"\ncsl: \"out.csl\"\nlink-citations: true\n---\n\n";
        text.strip_prefix(head).expect(&text).to_string()
    }

    const UNVERIFIED: &str =
        "([unverified]{.cite-unverified title=\"not checked against a source\"})";

    #[test]
    fn markers_become_pandoc_citations_in_pandocs_place() {
        assert_eq!(
            body("Ice floats on water.[1] It grows by a ninth.[1][2]\n"),
            "Ice floats on water [@source1]. It grows by a ninth [@source1; @source2].\n"
        );
        assert_eq!(
            body("Tested by carmakers[7]. The arr[1] is big, [2] and so on,[3] here.\n"),
            "Tested by carmakers [@source7]. The arr [@source1] is big, [@source2] and so on [@source3], here.\n"
        );
        assert_eq!(
            body("氷は水より軽い[1]。事実です。[2]次\n"),
            "氷は水より軽い[@source1]。事実です[@source2]。次\n"
        );
        assert_eq!(
            body("Quoted \"claim.\"[4] Next.\n"),
            "Quoted \"claim.\" [@source4] Next.\n"
        );
    }

    #[test]
    fn provenance_markers_become_spans_in_the_citations_place() {
        assert_eq!(
            body(
                "A claim.[1][unverified] Another.[tool:curl][2] Rare.[unverified] We do.[policy]\n"
            ),
            format!(
                "A claim [@source1] {UNVERIFIED}. Another [@source2] ([tool:curl]{{.cite-tool title=\"computed with curl, not taken from a source\"}}). Rare {UNVERIFIED}. We do ([policy]{{.cite-policy title=\"a statement of policy, not of fact\"}}).\n"
            )
        );
        // Mid-sentence, glued, in CJK prose, and in any case.
        assert_eq!(
            body("Mean 4.2 [tool:python] here, x[UNVERIFIED] y 軽い[unverified]。\n"),
            "Mean 4.2 ([tool:python]{.cite-tool title=\"computed with python, not taken from a source\"}) here, x ([UNVERIFIED]{.cite-unverified title=\"not checked against a source\"}) y 軽い([unverified]{.cite-unverified title=\"not checked against a source\"})。\n"
        );
        // A span written already is kept, and its run is not rewritten.
        assert_eq!(
            body("Rare.[unverified]{.mine} Next.\n"),
            "Rare.[unverified]{.mine} Next.\n"
        );
    }

    #[test]
    fn the_converted_markers_are_the_drafts_markers() {
        let draft = "Ice floats.[1][unverified] A sum is 4.[tool:python] We do this.[policy]\n";
        let converted = to_pandoc(draft, "o.json", "o.csl").unwrap().text;
        let kinds = |text: &str| {
            crate::draft::place(text)
                .marks
                .into_iter()
                .map(|m| m.kind)
                .collect::<Vec<_>>()
        };
        let mut want = kinds(draft);
        // [1] is a pandoc citation now.
        want[0] = crate::draft::MarkKind::Cite {
            ids: vec![1],
            pandoc: true,
        };
        assert_eq!(kinds(&converted), want);
        assert_eq!(
            crate::draft::summarize(&converted).note_count,
            0,
            "{converted}"
        );
    }

    #[test]
    fn code_stays_and_the_sources_block_goes() {
        let draft = "Claim here.[1] `x[2]`\n\n```\ny[3]\n```\n\n## Sources\n\n[1] https://a.org\n";
        let c = to_pandoc(draft, "b.json", "b.csl").unwrap();
        assert!(
            c.text
                .ends_with("Claim here [@source1]. `x[2]`\n\n```\ny[3]\n```\n"),
            "{}",
            c.text
        );
        assert_eq!(c.cited.into_iter().collect::<Vec<_>>(), [1]);
        assert_eq!(c.written, 1);
    }

    #[test]
    fn malformed_groups_that_show_ids_and_pandoc_citations_are_kept_as_cited() {
        assert_eq!(
            body("See [1]junk and [@source2] here.\n"),
            "See [@source1] junk and [@source2] here.\n"
        );
        let c = to_pandoc("A [@source5] b.[6]\n", "x.json", "x.csl").unwrap();
        assert_eq!(c.cited.into_iter().collect::<Vec<_>>(), [5, 6]);
        assert_eq!(c.written, 1);
    }

    #[test]
    fn an_existing_front_matter_takes_the_keys() {
        let draft =
            "---\ntitle: \"Ice\"\nbibliography: out.json\nauthor: A\n---\n\nClaim here.[1]\n";
        let c = to_pandoc(draft, "out.json", "out.csl").unwrap();
        assert_eq!(
            c.text,
            "---\ntitle: \"Ice\"\nbibliography: \"out.json\"\nauthor: A\ncsl: \"out.csl\"\nlink-citations: true\n---\n\nClaim here [@source1].\n"
        );
        assert_eq!(c.own_style, None);
        let kept = to_pandoc(
            "---\nlink-citations: false\n---\nA b.[1]\n",
            "o.json",
            "o.csl",
        )
        .unwrap()
        .text;
        assert_eq!(
            kept,
            "---\nlink-citations: false\nbibliography: \"o.json\"\ncsl: \"o.csl\"\n---\nA b [@source1].\n"
        );
    }

    #[test]
    fn a_style_the_draft_names_is_kept_and_reported() {
        let c = to_pandoc(
            "---\ncsl: 'styles/apa.csl'\ntitle: T\n---\nA b.[1]\n",
            "o.json",
            "o.csl",
        )
        .unwrap();
        assert_eq!(
            c.text,
            "---\ncsl: 'styles/apa.csl'\ntitle: T\nbibliography: \"o.json\"\nlink-citations: true\n---\nA b [@source1].\n"
        );
        assert_eq!(c.own_style.as_deref(), Some("styles/apa.csl"));
    }

    #[test]
    fn another_bibliography_in_the_front_matter_is_refused() {
        let err = to_pandoc(
            "---\nbibliography:\n  - mine.bib\n---\nA.[1]\n",
            "out.json",
            "out.csl",
        )
        .unwrap_err();
        assert_eq!(
            err,
            FrontMatterError::OtherBibliography {
                line: 2,
                value: "- mine.bib".into()
            }
        );
        assert!(err.to_string().starts_with(
            "the draft's front matter names another bibliography (line 2: bibliography: - mine.bib)"
        ));
    }

    #[test]
    fn converting_twice_changes_nothing_more() {
        let once = to_pandoc(
            "T.[1] U.[2][3] V.[unverified] W.[tool:python][4]\n\n## Sources\n\n[1] https://a.org\n",
            "o.json",
            "o.csl",
        )
        .unwrap();
        assert_eq!(once.own_style, None);
        let twice = to_pandoc(&once.text, "o.json", "o.csl").unwrap();
        assert_eq!(twice.text, once.text);
        assert_eq!(twice.own_style, None);
    }

    #[test]
    fn names_that_yaml_would_misread_are_quoted() {
        let text = to_pandoc("A.[1]\n", "a \"b\": c.json", "a: b.csl")
            .unwrap()
            .text;
        assert!(
            text.starts_with("---\nbibliography: \"a \\\"b\\\": c.json\"\ncsl: \"a: b.csl\"\n"),
            "{text}"
        );
    }
}
