//! Issue 18 — what the reader sees is what is checked: every `[N]` a reader can see is
//! rendered and checked, a list of sources under any heading is a Sources section, no
//! command drops an id the ledger lacks, `--strict` passes a research-shaped draft, a
//! draft can come on stdin, the blocks render one entry a line in real Markdown
//! renderers, and MCP clients send ids as strings and get tool-worded advice.

use std::path::Path;
use std::process::{Command as Process, Stdio};

use serde_json::{Value, json};

use crate::mcp::Server;
use crate::util::{Sandbox, missing_tool, runs, titled_ledger as ledger};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `cite ARGS…` with `stdin` on its standard input: (exit code, stdout, stderr).
fn with_stdin(sb: &Sandbox, args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = sb
        .cite()
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("run cite");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// ---- 1. every [N] a reader can see counts -----------------------------------------------

#[test]
fn glued_citations_in_every_position_are_rendered_and_checked() {
    let sb = ledger(4);
    // (draft text, the ids the reader sees)
    let cases: [(&str, &[u64]); 7] = [
        ("Several carmakers test it[1].", &[1]),
        ("It helps a lot[2][3].", &[2, 3]),
        ("The value of arr[1] is large here.", &[1]),
        ("Prices rose sharply (as reported[4]) last year.", &[4]),
        ("Three sources agree[1], it seems, on this.", &[1]),
        ("Die Größe[3] wächst jedes Jahr weiter.", &[3]),
        ("The final claim ends the draft here[4]", &[4]),
    ];
    for (text, shown) in cases {
        let draft = sb.file("draft.md", &format!("{text}\n"));
        let out = sb.run(&["render", "--cited-in", s(&draft)]);
        assert_eq!(out.code, 0, "{text}: {}", out.stderr);
        let listed: Vec<u64> = out
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix('['))
            .filter_map(|l| l.split(']').next()?.parse().ok())
            .collect();
        assert_eq!(listed, shown, "{text}");
        sb.ok(&["render", "--replace-in", s(&draft)]);
        let out = sb.run(&["verify", s(&draft)]);
        assert_eq!(out.code, 0, "{text}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains("warn: citation glued to a word: "),
            "{text}: {}",
            out.stdout
        );
        assert!(
            out.stdout
                .contains(&format!("{} distinct source(s) cited", shown.len())),
            "{text}: {}",
            out.stdout
        );
        // --strict fails it, and says why on a FAIL line.
        let out = sb.run(&["verify", "--strict", s(&draft)]);
        assert_eq!(out.code, 1, "{text}");
        assert!(
            out.stderr.contains("FAIL: citation glued to a word: "),
            "{text}: {}",
            out.stderr
        );
    }
    // Code stays code: fences, inline code, comments.
    let code =
        "Write `arr[1]` in code.\n\n```\nx = arr[2]\n```\n\nA hidden one <!-- see[3] --> here.\n";
    let draft = sb.file("code.md", code);
    let out = sb.run(&["render", "--cited-in", s(&draft)]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, "no sources to render\n")
    );
}

#[test]
fn the_issue_draft_no_longer_passes_with_a_source_missing() {
    let sb = ledger(3);
    let text = "Solid-state batteries are tested by several carmakers[2]. They should reach the market around 2030.[1]\n\n## Sources\n\n[1] https://s1.example/p — Title 1\n";
    let draft = sb.file("draft.md", text);
    let out = sb.run(&["verify", s(&draft)]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "FAIL: cited but absent from the Sources block: [2] — run `cite render --replace-in"
        ),
        "{}",
        out.stderr
    );
    sb.ok(&["render", "--replace-in", s(&draft)]);
    let written = std::fs::read_to_string(&draft).unwrap();
    assert!(
        written.contains("\n[2] https://s2.example/p — Title 2\n"),
        "{written}"
    );
    assert_eq!(sb.run(&["verify", s(&draft)]).code, 0);
}

// ---- 2. one Sources block, whatever its heading -------------------------------------------

#[test]
fn a_list_of_sources_under_another_heading_is_the_sources_block() {
    let sb = ledger(2);
    for heading in [
        "**References**",
        "## Bibliography",
        "### Works cited",
        "References:",
        "## Quellen",
        "## Références",
        "## 参考文献",
        // Any heading, or a bold line, over a list of entries.
        "## Sources and further reading",
        "**Key links:**",
    ] {
        // A hand-written list at the end with the ledger's URLs: the block, replaced.
        let text = format!(
            "Ice floats on liquid water.[1] It melts at zero degrees.[2]\n\n{heading}\n\n[1] https://s1.example/p\n[2] https://s2.example/p\n"
        );
        let draft = sb.file("draft.md", &text);
        assert_eq!(sb.run(&["verify", s(&draft)]).code, 0, "{heading}");
        sb.ok(&["render", "--replace-in", s(&draft)]);
        let written = std::fs::read_to_string(&draft).unwrap();
        assert!(!written.contains(heading), "{heading}: {written}");
        assert_eq!(written.matches("[1] https://s1.example/p").count(), 1);
        assert_eq!(sb.run(&["verify", s(&draft)]).code, 0, "{heading}");
        // A URL the ledger does not give is caught under any name.
        let wrong = text.replace("https://s2.example/p\n", "https://made-up.example/2\n");
        let draft = sb.file("wrong.md", &wrong);
        let out = sb.run(&["verify", s(&draft)]);
        assert_eq!(out.code, 1, "{heading}");
        assert!(
            out.stderr
                .contains("FAIL: Sources block URL for [2] does not match the ledger"),
            "{heading}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_second_list_under_another_heading_fails_and_render_will_not_add_a_third() {
    let sb = ledger(2);
    // The one the issue measured: a hand-written list, then the generated block.
    let text = "Ice floats on liquid water.[1]\n\n**References**\n\n- [1] https://s1.example/p\n\n## Appendix\n\nMethod notes are written here.\n";
    let draft = sb.file("draft.md", text);
    let out = sb.run(&["render", "--replace-in", s(&draft)]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("Sources section at line 3"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&draft).unwrap(), text);
    let stacked = format!("{text}\n## Sources\n\n[1] https://s1.example/p — Title 1\n");
    let draft = sb.file("stacked.md", &stacked);
    let out = sb.run(&["verify", s(&draft)]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("more than one Sources section (lines 3 and "),
        "{}",
        out.stderr
    );
    // "Notes" over the author's prose is only a heading.
    let notes = "Ice floats on liquid water.[1]\n\n## Notes\n\nWe measured this twice.\n";
    let draft = sb.file("notes.md", notes);
    sb.ok(&["render", "--replace-in", s(&draft)]);
    let written = std::fs::read_to_string(&draft).unwrap();
    assert!(written.starts_with(notes.trim_end()), "{written}");
    assert_eq!(sb.run(&["verify", s(&draft)]).code, 0);
}

// ---- 3. no id is dropped silently ----------------------------------------------------------

#[test]
fn an_id_the_ledger_lacks_fails_every_command_that_would_drop_it() {
    let sb = ledger(4);
    let text = "Ice floats on liquid water.[1] An invented claim stands here.[42]\n";
    let draft = sb.file("draft.md", text);
    let path = s(&draft);
    for args in [
        vec!["render", "--only", "4,99"],
        vec!["render", "--cited-in", path],
        vec!["render", "--replace-in", path],
        vec!["render", "--replace-in", path, "--only", "1,42"],
        vec!["export", "--format", "csl-json", "--only", "4,99"],
        vec!["export", "--format", "ris", "--cited-in", path],
    ] {
        let out = sb.run(&args);
        assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{args:?}");
        let named = if args.contains(&"--cited-in") || args.contains(&"--replace-in") {
            "error: the draft cites [42], not in the ledger"
        } else {
            "names [99], not in the ledger"
        };
        assert!(out.stderr.contains(named), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains(&format!("(ledger: {})", sb.ledger.display())),
            "{args:?}: {}",
            out.stderr
        );
    }
    assert_eq!(std::fs::read_to_string(&draft).unwrap(), text);
    // On stdin too.
    let (code, out, err) = with_stdin(&sb, &["render", "--cited-in", "-"], text);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("the draft cites [42]"), "{err}");
    // verify says to remove it or register the page — never to render, which cannot.
    let out = sb.run(&["verify", path]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        format!(
            "FAIL: citations not in the ledger (hallucinated or renumbered): [42] — remove them, or register each page with `cite add URL` and cite the id it prints (ledger: {}) (line 1) in sentence 2: \"An invented claim stands here.[42]\"\nFAIL: draft cites sources but has no `Sources:` block — run `cite render --replace-in {path}` (line 1)\n",
            sb.ledger.display()
        )
    );
}

// ---- 4. a --strict a real task passes -------------------------------------------------------

#[test]
fn strict_passes_a_research_draft_that_cites_some_of_many_results() {
    let sb = Sandbox::new();
    // Step 2 of the skill: register every search result.
    let results: Vec<Value> = (1..=12)
        .map(|i| json!({"title": format!("Result {i}"), "url": format!("https://r{i}.example/a")}))
        .collect();
    let json = sb.file("results.json", &json!({ "results": results }).to_string());
    sb.ok(&["ingest", s(&json)]);
    let text = "# Findings\n\nThe first study reports a clear effect.[1] A second study replicates it.[4]\nA review puts both in context.[7][9]\nWe read this as a modest effect.[unverified]\n";
    let draft = sb.file("report.md", text);
    sb.ok(&["render", "--replace-in", s(&draft)]);
    let out = sb.run(&["verify", s(&draft), "--strict", "--min-coverage", "0.5"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "info: registered in the ledger but not cited in this draft: [2], [3], [5], [6], [8], [10], [11], [12]\n"
        ),
        "{}",
        out.stdout
    );
    let out = sb.run(&["verify", s(&draft), "--strict", "--json"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (v["exit_code"].clone(), v["errors"].clone()),
        (json!(0), json!([]))
    );
}

// ---- 5. drafts from stdin -------------------------------------------------------------------

#[test]
fn every_command_that_takes_a_draft_reads_stdin() {
    let sb = ledger(2);
    let chat = "Ice floats on liquid water.[2]\n";
    let (code, block, err) = with_stdin(&sb, &["render", "--cited-in", "-"], chat);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(block, "## Sources\n\n[2] https://s2.example/p — Title 2\n");
    let answer = format!("{chat}\n{block}");
    let (code, out, err) = with_stdin(&sb, &["verify", "-", "--strict"], &answer);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.ends_with("citations OK\n"), "{out}");
    // Without its block the advice is for a draft on stdin, not a file named "-".
    let (code, _, err) = with_stdin(&sb, &["verify", "-"], chat);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "run `cite render --cited-in -` on the draft and end it with the block that prints"
        ),
        "{err}"
    );
    let (code, out, _) = with_stdin(&sb, &["export", "--format", "ris", "--cited-in", "-"], chat);
    assert_eq!(code, 0);
    assert_eq!(out.matches("TY  - ").count(), 1, "{out}");
    // A missing file is still named as such.
    let out = sb.run(&["verify", "nope.md"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "error: no such draft: nope.md\n")
    );
}

// ---- 6. blocks that render as they print -----------------------------------------------------

/// Fails the test unless `program` (a Markdown renderer) is on PATH.
fn renderer(program: &str) {
    if !runs(program, &["--version"]) {
        missing_tool(&format!(
            "{program} is not on PATH — install it (Debian: apt-get install {program})"
        ));
    }
}

/// `markdown` as HTML, by `program` `args…`.
fn to_html(program: &str, args: &[&str], markdown: &str) -> String {
    use std::io::Write;
    let mut child = Process::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the renderer");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{program} {args:?} failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The text of each `<tag>…</tag>` in `html`, whitespace folded.
fn elements(html: &str, tag: &str) -> Vec<String> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at..];
        let Some(start) = after.find('>') else { break };
        let Some(end) = after.find(&close) else { break };
        let inner = &after[start + 1..end];
        out.push(inner.split_whitespace().collect::<Vec<_>>().join(" "));
        rest = &after[end + close.len()..];
    }
    out
}

/// Tags dropped, entities of `"` and `>` decoded.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&quot;", "\"").replace("&gt;", ">")
}

/// The Markdown and evidence blocks rendered into a draft of three sources (the first
/// with two quotes, the third with one), each read back by `verify --strict`:
/// `(style, draft text)`.
fn rendered_blocks() -> Vec<(&'static str, String)> {
    let sb = ledger(3);
    let page = sb.file(
        "page.txt",
        "Ice is about 9% less dense than liquid water.\nEvery molecule is held by four hydrogen bonds.\n",
    );
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "about 9% less dense than liquid water",
        "--from",
        s(&page),
    ]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "held by four hydrogen bonds",
        "--from",
        s(&page),
    ]);
    sb.ok(&[
        "quote",
        "3",
        "--text",
        "Every molecule is held",
        "--from",
        s(&page),
    ]);
    let body = "# Ice\n\nIce floats on liquid water.[1] Lakes freeze from the top.[2] Fish survive under it.[3]\n";
    ["markdown", "evidence"]
        .into_iter()
        .map(|style| {
            let draft = sb.file("draft.md", body);
            sb.ok(&["render", "--style", style, "--replace-in", s(&draft)]);
            let text = std::fs::read_to_string(&draft).unwrap();
            let out = sb.run(&["verify", s(&draft), "--strict"]);
            assert_eq!(out.code, 0, "{style}: {}{}", out.stdout, out.stderr);
            (style, text)
        })
        .collect()
}

#[test]
fn the_markdown_and_evidence_blocks_pass_verify_strict() {
    assert_eq!(rendered_blocks().len(), 2);
}

/// Each block, rendered to HTML by `program ARGS…` for each of `arg_sets`, is one
/// paragraph an entry; the evidence block puts each source's quotes in one block quote
/// under it.
fn assert_one_entry_a_paragraph(program: &str, arg_sets: &[&[&str]]) {
    let blocks = rendered_blocks();
    for ((style, text), args) in blocks
        .iter()
        .flat_map(|b| arg_sets.iter().map(move |a| (b, a)))
    {
        let html = to_html(program, args, text);
        let paragraphs: Vec<String> = elements(&html, "p").iter().map(|p| text_of(p)).collect();
        let entries: Vec<&String> = paragraphs.iter().filter(|p| p.starts_with('[')).collect();
        assert_eq!(
            entries.len(),
            3,
            "{style} {program} {args:?}: one paragraph an entry\n{html}"
        );
        for (i, e) in entries.iter().enumerate() {
            let id = i + 1;
            assert!(
                e.starts_with(&format!("[{id}] https://s{id}.example/p — Title {id}")),
                "{style} {program} {args:?}: {e}"
            );
            assert!(
                !e.contains('>') && !e.contains(&format!("[{}]", id + 1)),
                "{style} {program} {args:?}: {e}"
            );
        }
        let quotes = elements(&html, "blockquote");
        if *style == "markdown" {
            assert!(quotes.is_empty(), "{html}");
            continue;
        }
        // Each source's quotes in one block quote under it, a quote a paragraph.
        assert_eq!(quotes.len(), 2, "{program} {args:?}\n{html}");
        let q1: Vec<String> = elements(&quotes[0], "p")
            .iter()
            .map(|p| text_of(p))
            .collect();
        let plain = |q: &str| q.replace(['“', '”'], "\"");
        assert_eq!(
            q1.iter().map(|q| plain(q)).collect::<Vec<_>>(),
            [
                "\"about 9% less dense than liquid water\"",
                "\"held by four hydrogen bonds\""
            ],
            "{program} {args:?}"
        );
        let block = &html[html.find("Sources</h2>").unwrap()..];
        let first = block.find("<blockquote").unwrap();
        assert!(block[..first].contains("[1] "), "{html}");
        assert!(!block[..first].contains("[2] "), "{html}");
    }
}

#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn the_markdown_and_evidence_blocks_render_one_entry_a_paragraph_in_pandoc() {
    renderer("pandoc");
    assert_one_entry_a_paragraph(
        "pandoc",
        &[
            &["-f", "markdown", "-t", "html"],
            &["-f", "gfm", "-t", "html"],
            &["-f", "commonmark", "-t", "html"],
        ],
    );
}

#[test]
#[ignore = "needs cmark-gfm: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn the_markdown_and_evidence_blocks_render_one_entry_a_paragraph_in_cmark_gfm() {
    renderer("cmark-gfm");
    assert_one_entry_a_paragraph("cmark-gfm", &[&[]]);
}

// ---- the skill's own final check ------------------------------------------------------------

#[test]
fn the_skill_final_check_passes_on_the_example_data() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let sb = Sandbox::new();
    let ex = |name: &str| examples.join(name).to_str().unwrap().to_string();
    sb.ok(&["reset"]);
    sb.ok(&["ingest", &ex("search-results.json"), "--via", "web"]);
    sb.ok(&[
        "add",
        "doi:10.1000/182",
        "--title",
        "A handbook",
        "--via",
        "code",
    ]);
    for (id, text, page) in [
        (
            "1",
            "Ice is therefore about 9% less dense than the water it forms from",
            "pages/density-anomaly.md",
        ),
        (
            "1",
            "every molecule is locked into four hydrogen bonds",
            "pages/density-anomaly.md",
        ),
        (
            "1",
            "a lake freezes from the top down",
            "pages/density-anomaly.md",
        ),
        (
            "3",
            "the bottom of a deep lake stays near 4 °C all winter",
            "pages/lake-ice.md",
        ),
    ] {
        sb.ok(&["quote", id, "--text", text, "--from", &ex(page)]);
    }
    let draft = sb.file(
        "draft.md",
        &std::fs::read_to_string(examples.join("draft.md")).unwrap(),
    );
    sb.ok(&["render", "--style", "evidence", "--replace-in", s(&draft)]);
    // The skill's final check, the quickstart's with the evidence and support gates, and
    // the end of the skill's fact-checking mode.
    for flags in [
        &["--strict", "--min-coverage", "0.5"][..],
        &[
            "--strict",
            "--evidence",
            "--min-coverage",
            "0.5",
            "--support",
        ],
        &["--evidence", "--support", "--min-coverage", "0.5"],
    ] {
        let out = sb.run(&[&["verify", s(&draft)][..], flags].concat());
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (0, ""),
            "{flags:?}: {}",
            out.stdout
        );
    }
    let skill = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/grounded-citations/SKILL.md"),
    )
    .unwrap();
    assert!(
        skill.contains("cite verify report.md --strict --min-coverage 0.5"),
        "the skill's final check changed: update this test"
    );
    let quickstart = std::fs::read_to_string(examples.join("quickstart.sh")).unwrap();
    assert!(
        quickstart.contains("--strict --evidence --min-coverage 0.5 --support"),
        "the quickstart's check changed: update this test"
    );
    assert!(
        skill.contains("cite verify report.md --evidence --support --min-coverage 0.5"),
        "the skill's fact-checking check changed: update this test"
    );
}

// ---- 7. MCP clients are first-class ----------------------------------------------------------

#[test]
fn mcp_takes_ids_as_strings_and_exports_and_advises_with_tools() {
    let sb = ledger(3);
    let page = "Ice is about 9% less dense than liquid water, as measured.";
    let mut srv = Server::start(&sb.ledger);
    srv.initialize();
    let (text, _) = srv.ok(
        "quote",
        json!({"id": "1", "text": "less dense than liquid water", "evidence": page}),
    );
    assert_eq!(text, "[1] evidence attached (1 quote(s))");
    let (text, _) = srv.ok("show", json!({"id": " 2 "}));
    assert!(text.starts_with("[2] https://s2.example/p"), "{text}");
    let (_, data) = srv.ok("list", json!({"limit": "2", "epoch": "1"}));
    assert_eq!(data["sources"].as_array().unwrap().len(), 2);
    let (_, data) = srv.ok("render", json!({"only": [1, "3"]}));
    assert_eq!(data["ids"], json!([1, 3]));
    let (_, data) = srv.ok("add", json!({"urls": "https://s4.example/p"}));
    assert_eq!(data["sources"][0]["id"], 4);
    let msg = srv.refused(
        "quote",
        json!({"id": "one", "text": "less dense than liquid water", "evidence": page}),
    );
    assert!(msg.contains("expected a whole number"), "{msg}");

    // export: a format, a draft's citations, ids.
    let draft = "Ice floats on liquid water.[3] It is less dense.[1]\n";
    let (text, data) = srv.ok("export", json!({"format": "csl-json", "cited_in": draft}));
    assert_eq!(data["ids"], json!([1, 3]));
    assert_eq!(data["count"], 2);
    let items: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(items[1]["id"], "source3");
    let (text, _) = srv.ok("export", json!({"format": "biblatex", "only": "2"}));
    assert!(text.starts_with("@online{source2,"), "{text}");
    let msg = srv.refused("export", json!({"format": "ris", "only": [2, 99]}));
    assert!(msg.contains("only names [99], not in the ledger"), "{msg}");
    assert!(
        msg.contains("the `list` tool") && !msg.contains("`cite "),
        "{msg}"
    );
    let msg = srv.refused("export", json!({"format": "jsonl", "only": "1"}));
    assert!(msg.contains("does not apply to --format jsonl"), "{msg}");

    // The advice a client gets names tools and arguments.
    let (text, report) = srv.ok(
        "verify",
        json!({"draft": "An invented claim is here.[42]\n", "evidence": true}),
    );
    assert_eq!(report["exit_code"], 1);
    assert!(
        text.contains("register each page with the `add` tool"),
        "{text}"
    );
    assert!(!text.contains("`cite "), "{text}");
    let (text, _) = srv.ok(
        "verify",
        json!({"draft": "Ice floats on liquid water.[1]\n", "evidence": true}),
    );
    assert!(
        text.contains("call `render` with the draft text as draft"),
        "{text}"
    );
    assert!(!text.contains("`cite "), "{text}");
    let msg = srv.refused(
        "quote",
        json!({"id": 2, "text": "less dense than liquid water"}),
    );
    assert!(
        msg.contains("pass the fetched page text as evidence"),
        "{msg}"
    );
    assert!(!msg.contains("--from"), "{msg}");
    assert_eq!(srv.shutdown(), Some(0));
}
