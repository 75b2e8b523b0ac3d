//! Issue 22, item 2: `cite convert DRAFT --to pandoc` — `[N]` markers as `[@sourceN]`,
//! no Sources block, the CSL-JSON of the cited sources beside the document and named in
//! its front matter — and `verify` reading the converted document; pandoc `--citeproc`
//! typesets it with every cited URL in the reference list.

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
        "converted draft.md to report.md for pandoc: 7 citation(s) of 3 source(s); bibliography report.json (CSL-JSON)\ntypeset it with: pandoc report.md --citeproc -o report.docx\n"
    );
    let doc = std::fs::read_to_string(sb.path().join("report.md")).unwrap();
    assert!(
        doc.starts_with(
            "---\ntitle: \"Why ice floats\"\nbibliography: \"report.json\"\nlink-citations: true\n---\n"
        ),
        "{doc}"
    );
    assert!(
        doc.contains("it forms from [@source1]. When water"),
        "{doc}"
    );
    assert!(
        doc.contains("tested by carmakers [@source2]. Both effects add up [@source1; @source3].\n"),
        "{doc}"
    );
    assert!(doc.contains("common liquids.[unverified]"), "{doc}");
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
