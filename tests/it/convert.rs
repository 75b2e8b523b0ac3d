//! Issue 22, item 2: `cite convert DRAFT --to pandoc` — `[N]` markers as `[@sourceN]`,
//! no Sources block, the CSL-JSON of the cited sources beside the document and named in
//! its front matter — and `verify` reading the converted document; pandoc `--citeproc`
//! typesets it with every cited URL in the reference list.
//!
//! Issue 31: the document looks like the draft. cite's own citation style, written
//! beside the bibliography and named in the front matter (a style the draft names is
//! kept), makes pandoc print `[3]` where the draft said `[3]` and a reference list
//! numbered and sorted by ledger id, with what the tool output said about each page;
//! `[unverified]`, `[policy]` and `[tool:NAME]` show as words in parentheses, and
//! `verify` still reads them.

use std::path::Path;
use std::process::Command as Process;

use crate::util::{Outcome, Sandbox};

/// Runs `cite ARGS…` in the sandbox's folder, as a user converts a draft beside them.
fn here(sb: &Sandbox, args: &[&str]) -> Outcome {
    let started = std::time::Instant::now();
    let out = sb
        .cite()
        .current_dir(sb.path())
        .args(args)
        .output()
        .expect("run cite");
    Outcome::from_output(out, started.elapsed())
}

/// [`here`], which must succeed: its stdout.
fn here_ok(sb: &Sandbox, args: &[&str]) -> String {
    let r = here(sb, args);
    assert_eq!(r.code, 0, "cite {args:?}: {}", r.stderr);
    r.stdout
}

const URLS: [&str; 3] = [
    "https://physics.example.org/water/density-anomaly",
    "https://chem.example.org/hydrogen-bonds",
    "https://limnology.example.net/lakes/winter",
];

/// A ledger holding [`URLS`] as 1–3, and the example draft (which cites 1 and 3) with a
/// glued marker and a front matter of its own, as `draft.md`.
fn drafted() -> Sandbox {
    let sb = Sandbox::new();
    let mut args = vec!["add"];
    args.extend(URLS);
    sb.ok(&args);
    let example = include_str!("../../examples/draft.md");
    let draft = format!(
        "---\ntitle: \"Why ice floats\"\n---\n\n{example}\nIt was tested by carmakers[2]. Both effects add up.[1][3]\n"
    );
    sb.file("draft.md", &draft);
    sb
}

#[test]
fn a_draft_converts_to_pandoc_markdown_with_its_bibliography_beside_it() {
    let sb = drafted();
    let out = here_ok(
        &sb,
        &["convert", "draft.md", "--to", "pandoc", "-o", "report.md"],
    );
    assert_eq!(
        out,
        "converted draft.md to report.md for pandoc: 7 citation(s) of 3 source(s); bibliography report.json (CSL-JSON); style report.csl ([N] by ledger id)\ntypeset it with: pandoc report.md --citeproc -o report.docx\n"
    );
    let doc = std::fs::read_to_string(sb.path().join("report.md")).unwrap();
    assert!(
        doc.starts_with(
            "---\ntitle: \"Why ice floats\"\nbibliography: \"report.json\"\ncsl: \"report.csl\"\nlink-citations: true\n---\n"
        ),
        "{doc}"
    );
    assert_eq!(
        std::fs::read_to_string(sb.path().join("report.csl")).unwrap(),
        cite_core::interop::csl::STYLE
    );
    assert!(
        doc.contains("it forms from [@source1]. When water"),
        "{doc}"
    );
    assert!(
        doc.contains("tested by carmakers [@source2]. Both effects add up [@source1; @source3].\n"),
        "{doc}"
    );
    assert!(
        doc.contains(
            "common liquids ([unverified]{.cite-unverified title=\"not checked against a source\"})."
        ),
        "{doc}"
    );
    assert!(!doc.contains("Sources") && !doc.contains("[1]"), "{doc}");
    let bib: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sb.path().join("report.json")).unwrap())
            .unwrap();
    let ids: Vec<&str> = bib
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["source1", "source2", "source3"]);
    // The converted document verifies, as the draft did.
    let v = here(&sb, &["verify", "report.md"]);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.ends_with("citations OK\n"), "{}", v.stdout);
    // The draft is untouched.
    assert!(
        std::fs::read_to_string(sb.path().join("draft.md"))
            .unwrap()
            .contains("carmakers[2]")
    );
}

#[test]
fn verify_reads_pandoc_citations_and_fails_an_unknown_key() {
    let sb = drafted();
    sb.file(
        "doc.md",
        "---\nbibliography: b.json\n---\n\nIce floats on water [see @source1, p. 4; @source2]. Lakes freeze from the top [@source9].\n",
    );
    let v = here(&sb, &["verify", "doc.md"]);
    assert_eq!(v.code, 1, "{}{}", v.stdout, v.stderr);
    assert!(
        v.stderr.contains(
            "FAIL: citations not in the ledger (hallucinated or renumbered): [9] — remove them"
        ),
        "{}",
        v.stderr
    );
    assert!(v.stdout.ends_with("verification failed\n"), "{}", v.stdout);
}

#[test]
fn stdout_needs_a_bibliography_file_and_the_draft_is_never_replaced() {
    let sb = drafted();
    let r = here(&sb, &["convert", "draft.md", "--to", "pandoc"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "error: the document goes to stdout, so the bibliography needs --bibliography FILE — or give -o OUT.md, and the bibliography goes beside it as OUT.json\n"
    );
    let r = here(
        &sb,
        &[
            "convert",
            "draft.md",
            "--to",
            "pandoc",
            "--bibliography",
            "b.json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("---\ntitle: \"Why ice floats\"\nbibliography: \"b.json\"\n"),
        "{}",
        r.stdout
    );
    assert!(sb.path().join("b.json").exists());
    for args in [
        &["-o", "draft.md"][..],
        &["-o", "out.md", "--bibliography", "./draft.md"][..],
    ] {
        let mut all = vec!["convert", "draft.md", "--to", "pandoc"];
        all.extend(args);
        let r = here(&sb, &all);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(
            r.stderr
                .contains("is the draft itself: convert never replaces the draft"),
            "{}",
            r.stderr
        );
    }
    let r = here(
        &sb,
        &["convert", "draft.md", "--to", "pandoc", "-o", "x.json"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("error: -o x.json and the bibliography are one file"),
        "{}",
        r.stderr
    );
    assert!(!sb.path().join("out.md").exists() && !sb.path().join("x.json").exists());
}

#[test]
fn a_cited_id_the_ledger_lacks_is_refused_and_nothing_is_written() {
    let sb = drafted();
    sb.file("bad.md", "Ice floats on water.[7]\n");
    let r = here(
        &sb,
        &["convert", "bad.md", "--to", "pandoc", "-o", "out.md"],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("error: the draft cites [7], not in the ledger"),
        "{}",
        r.stderr
    );
    assert!(!sb.path().join("out.md").exists() && !sb.path().join("out.json").exists());
    let r = here(
        &sb,
        &["convert", "nope.md", "--to", "pandoc", "-o", "out.md"],
    );
    assert_eq!(r.code, 2);
    sb.file(
        "other.md",
        "---\nbibliography: mine.bib\n---\nIce floats on water.[1]\n",
    );
    let r = here(
        &sb,
        &["convert", "other.md", "--to", "pandoc", "-o", "out.md"],
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.starts_with("error: the draft's front matter names another bibliography (line 2: bibliography: mine.bib)"), "{}", r.stderr);
}

/// pandoc `--citeproc` on the converted document, in its folder, to `file`.
fn typeset(pandoc: &str, dir: &Path, file: &str) {
    let out = Process::new(pandoc)
        .current_dir(dir)
        .args(["report.md", "--citeproc", "--standalone", "-o", file])
        .output()
        .expect("run pandoc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pandoc failed: {stderr}");
    assert!(
        !stderr.contains("not found"),
        "a citation did not resolve: {stderr}"
    );
}

#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pandoc_typesets_the_converted_draft_with_every_cited_url_in_the_references() {
    let pandoc = crate::export::pandoc();
    let sb = drafted();
    here_ok(
        &sb,
        &["convert", "draft.md", "--to", "pandoc", "-o", "report.md"],
    );
    typeset(pandoc, sb.path(), "report.html");
    let html = std::fs::read_to_string(sb.path().join("report.html")).unwrap();
    let refs = html.split("id=\"refs\"").nth(1).expect("a reference list");
    for url in URLS {
        assert!(refs.contains(url), "{url} not in the references: {refs}");
    }
    // link-citations: each citation links to its entry.
    assert!(html.contains("href=\"#ref-source2\""), "{html}");
    typeset(pandoc, sb.path(), "report.docx");
    let docx = sb.path().join("report.docx");
    let text = Process::new(pandoc)
        .args([docx.to_str().unwrap(), "-t", "plain", "--wrap=none"])
        .output()
        .expect("read the docx back");
    let text = String::from_utf8(text.stdout).unwrap();
    for url in URLS {
        assert!(text.contains(url), "{url} not in the docx: {text}");
    }
}

#[test]
fn the_style_goes_beside_the_bibliography_unless_the_draft_names_its_own() {
    let sb = drafted();
    std::fs::create_dir(sb.path().join("refs")).unwrap();
    let out = here_ok(
        &sb,
        &[
            "convert",
            "draft.md",
            "--to",
            "pandoc",
            "--bibliography",
            "refs/b.json",
        ],
    );
    assert!(
        out.starts_with(
            "---\ntitle: \"Why ice floats\"\nbibliography: \"refs/b.json\"\ncsl: \"refs/b.csl\"\n"
        ),
        "{out}"
    );
    assert!(sb.path().join("refs/b.csl").exists());

    // A style the draft names is the author's choice: kept, and none written.
    sb.file(
        "own.md",
        "---\ncsl: styles/house.csl\n---\n\nIce floats on water.[1]\n",
    );
    let r = here(
        &sb,
        &["convert", "own.md", "--to", "pandoc", "-o", "own-out.md"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "converted own.md to own-out.md for pandoc: 1 citation(s) of 1 source(s); bibliography own-out.json (CSL-JSON); style styles/house.csl, as the draft's front matter names it (csl:)\ntypeset it with: pandoc own-out.md --citeproc -o report.docx\n"
    );
    assert!(!sb.path().join("own-out.csl").exists());
    let doc = std::fs::read_to_string(sb.path().join("own-out.md")).unwrap();
    assert!(
        doc.starts_with("---\ncsl: styles/house.csl\nbibliography: \"own-out.json\"\nlink-citations: true\n---\n"),
        "{doc}"
    );

    // The style may be neither the bibliography nor the document.
    let r = here(
        &sb,
        &[
            "convert",
            "draft.md",
            "--to",
            "pandoc",
            "--bibliography",
            "x.csl",
        ],
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "error: --bibliography x.csl and the citation style written beside it are one file — give the bibliography a .json name, e.g. --bibliography sources.json\n"
    );
    let r = here(
        &sb,
        &["convert", "draft.md", "--to", "pandoc", "-o", "r.csl"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("error: -o r.csl and the style are one file"),
        "{}",
        r.stderr
    );
    assert!(!sb.path().join("r.json").exists() && !sb.path().join("x.csl").exists());
}

#[test]
fn verify_counts_the_converted_provenance_markers_as_the_drafts() {
    let sb = drafted();
    sb.file(
        "marks.md",
        "Ice floats on water, as measured.[1] The sum is 12 units in all.[tool:python]\n\nWe publish every source we cite.[policy] It is rare among common liquids.[unverified]\n",
    );
    here_ok(&sb, &["render", "--replace-in", "marks.md"]);
    let stats = |name: &str| {
        let v = here(&sb, &["verify", name]);
        assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
        v.stdout
            .lines()
            .find(|l| l.starts_with("info: stats: "))
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string()
    };
    let before = stats("marks.md");
    here_ok(
        &sb,
        &["convert", "marks.md", "--to", "pandoc", "-o", "out.md"],
    );
    assert_eq!(stats("out.md"), before);
    assert!(
        before.ends_with("1 cited, 1 tool-verified, 1 policy, 1 unverified"),
        "{before}"
    );
}

/// A ledger of twelve titled sources accessed on 2025-03-01; what a search tool said
/// about [2] and [10] ingested; a draft citing [10], [2], [3][1] and declaring the three
/// kinds of provenance, converted to report.md.
fn numbered() -> Sandbox {
    let sb = Sandbox::new();
    for id in 1..=12 {
        let title = match id {
            10 => "Über die Dichte des Wassers".to_string(),
            _ => format!("Page {id}"),
        };
        sb.ok(&[
            "add",
            &format!("https://site.example/p{id}"),
            "--title",
            &title,
            "--accessed",
            "2025-03-01",
        ]);
    }
    let output = serde_json::json!({"results": [
        {"url": "https://site.example/p2", "publishedDate": "2023-05-12T08:00:00.000Z",
         "author": "K. Ito", "siteName": "Physics Notes", "language": "en"},
        {"url": "https://site.example/p10", "publishedDate": "2021-11",
         "siteName": "Wasser Heute", "language": "de"}
    ]});
    let f = sb.file("search.json", &output.to_string());
    sb.ok(&["ingest", f.to_str().unwrap()]);
    sb.file(
        "draft.md",
        "Ten is cited first.[10] Two comes next.[2] Both of these hold.[3][1]\n\nIt is rare among liquids.[unverified] The sum is 12 in all.[tool:python] We cite every source.[policy]\n",
    );
    here_ok(
        &sb,
        &["convert", "draft.md", "--to", "pandoc", "-o", "report.md"],
    );
    sb
}

/// `pandoc report.md --citeproc ARGS…` in the sandbox: its stdout.
fn pandoc_out(pandoc: &str, sb: &Sandbox, args: &[&str]) -> String {
    let out = Process::new(pandoc)
        .current_dir(sb.path())
        .args(["report.md", "--citeproc"])
        .args(args)
        .output()
        .expect("run pandoc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pandoc failed: {stderr}");
    assert!(stderr.is_empty(), "pandoc warned: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

const NUMBERED_PLAIN: &str = "\
Ten is cited first [10]. Two comes next [2]. Both of these hold [3][1].

It is rare among liquids (unverified). The sum is 12 in all (tool:python). We cite every source (policy).

[1] Page 1. https://site.example/p1 (accessed March 1, 2025)

[2] K. Ito. Page 2. Physics Notes. May 12, 2023. https://site.example/p2 (accessed March 1, 2025)

[3] Page 3. https://site.example/p3 (accessed March 1, 2025)

[10] Über die Dichte des Wassers. Wasser Heute. November 2021. https://site.example/p10 (accessed March 1, 2025)
";

#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pandoc_prints_the_drafts_numbers_and_a_list_numbered_by_ledger_id() {
    let pandoc = crate::export::pandoc();
    let sb = numbered();
    assert_eq!(
        pandoc_out(pandoc, &sb, &["-t", "plain", "--wrap=none"]),
        NUMBERED_PLAIN
    );
    // HTML: each citation links to its entry, the entries in id order, each marker a
    // span with its class and what it means.
    let html = pandoc_out(pandoc, &sb, &["-t", "html", "--wrap=none"]);
    for (id, shown) in [(10, "[10]"), (2, "[2]")] {
        assert!(
            html.contains(&format!(
                "<a href=\"#ref-source{id}\" role=\"doc-biblioref\">{shown}</a>"
            )),
            "{html}"
        );
    }
    let entries: Vec<&str> = html
        .match_indices("<div id=\"ref-source")
        .map(|(at, _)| &html[at + 19..at + 19 + html[at + 19..].find('"').unwrap()])
        .collect();
    assert_eq!(entries, ["1", "2", "3", "10"], "{html}");
    for span in [
        "(<span class=\"cite-unverified\" title=\"not checked against a source\">unverified</span>)",
        "(<span class=\"cite-tool\" title=\"computed with python, not taken from a source\">tool:python</span>)",
        "(<span class=\"cite-policy\" title=\"a statement of policy, not of fact\">policy</span>)",
    ] {
        assert!(html.contains(span), "{span} not in {html}");
    }
    // DOCX, read back: the same text.
    pandoc_out(pandoc, &sb, &["-o", "report.docx"]);
    let out = Process::new(pandoc)
        .current_dir(sb.path())
        .args(["report.docx", "-t", "plain", "--wrap=none"])
        .output()
        .expect("read the docx back");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), NUMBERED_PLAIN);
}
