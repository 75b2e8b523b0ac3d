//! `render` through the binary: every style byte for byte, id order, `--only` lists and
//! their refusals, `--cited-in` (prose only: not the Sources block, not code), and
//! `--replace-in` (idempotent in every style, style switches leave one block, author
//! prose under a "Sources" heading survives, nothing selected leaves the file alone),
//! and `--epoch` after a reset.

use std::path::Path;

use predicates::prelude::*;

use crate::util::{Sandbox, titled_ledger as many};

const STYLES: [&str; 5] = ["markdown", "plain", "footnotes", "bibtex", "evidence"];

/// A ledger of three sources, the second untitled, all accessed 2024-03-05.
fn three() -> Sandbox {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example/x",
        "--title",
        "Alpha report",
        "--accessed",
        "2024-03-05",
    ]);
    sb.ok(&["add", "https://b.example/y", "--accessed", "2024-03-05"]);
    sb.ok(&[
        "add",
        "https://c.example/z?q=1",
        "--title",
        "Gamma",
        "--accessed",
        "2024-03-05",
    ]);
    sb
}

fn render(sb: &Sandbox, args: &[&str]) -> String {
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    sb.ok(&all)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).expect("read draft")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The ids listed in a rendered markdown block.
fn ids(block: &str) -> Vec<u64> {
    block
        .lines()
        .filter_map(|l| l.strip_prefix('['))
        .filter_map(|l| l.split(']').next()?.parse().ok())
        .collect()
}

// ---- styles ------------------------------------------------------------------------------

#[test]
fn markdown_is_the_default_style() {
    let sb = three();
    // A blank line before each entry, so that Markdown shows one a line (issue 18).
    let expected = "## Sources\n\n\
                    [1] https://a.example/x — Alpha report\n\n\
                    [2] https://b.example/y\n\n\
                    [3] https://c.example/z?q=1 — Gamma\n";
    sb.cite()
        .arg("render")
        .assert()
        .success()
        .stderr("")
        .stdout(expected);
    assert_eq!(render(&sb, &["--style", "markdown"]), expected);
}

#[test]
fn plain_style() {
    assert_eq!(
        render(&three(), &["--style", "plain"]),
        "Sources:\n\
         [1] https://a.example/x — Alpha report\n\
         [2] https://b.example/y\n\
         [3] https://c.example/z?q=1 — Gamma\n"
    );
}

#[test]
fn footnotes_style() {
    assert_eq!(
        render(&three(), &["--style", "footnotes"]),
        "[^1]: https://a.example/x — Alpha report\n\
         [^2]: https://b.example/y\n\
         [^3]: https://c.example/z?q=1 — Gamma\n"
    );
}

#[test]
fn bibtex_style() {
    assert_eq!(
        render(&three(), &["--style", "bibtex"]),
        "@misc{source1,\n  title = {Alpha report},\n  howpublished = {\\url{https://a.example/x}},\n  note = {Accessed 2024-03-05},\n  urldate = {2024-03-05}\n}\n\
         @misc{source2,\n  title = {https://b.example/y},\n  howpublished = {\\url{https://b.example/y}},\n  note = {Accessed 2024-03-05},\n  urldate = {2024-03-05}\n}\n\
         @misc{source3,\n  title = {Gamma},\n  howpublished = {\\url{https://c.example/z?q=1}},\n  note = {Accessed 2024-03-05},\n  urldate = {2024-03-05}\n}\n"
    );
}

#[test]
fn bibtex_escapes_what_latex_needs() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example/r",
        "--title",
        "R&D: 100% of $5 for #1 in a_b {x}",
        "--accessed",
        "2024-03-05",
    ]);
    sb.ok(&[
        "add",
        "https://b.example/a_b%20c",
        "--accessed",
        "2024-03-05",
    ]);
    let out = render(&sb, &["--style", "bibtex"]);
    assert!(
        out.contains(
            "  title = {R\\&D: 100\\% of \\$5 for \\#1 in a\\_b \\textbraceleft{}x\\textbraceright{}},\n"
        ),
        "{out}"
    );
    // The URL as a title is escaped like any title.
    assert!(
        out.contains("  title = {https://b.example/a\\_b\\%20c},\n"),
        "{out}"
    );
    assert!(out.contains("@misc{source2,\n"), "{out}");
    assert!(
        out.contains("  note = {Accessed 2024-03-05},\n  urldate = {2024-03-05}\n}\n"),
        "{out}"
    );
    // Every brace is balanced, as BibTeX and biber count them: backslashes or not.
    assert_eq!(out.matches('{').count(), out.matches('}').count());
}

/// Issue 12: a title with one unbalanced brace, ligature sequences and control
/// characters, and a URL with `%`, `#`, `_`, `~`, `;` and braces in its query: the
/// entry stays balanced, the URL verbatim for `\url`, and `verify` still reads the
/// rendered block as the ledger's.
#[test]
fn bibtex_block_of_hostile_titles_and_urls_still_verifies() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://a.example/Caf%C3%A9/x_y~z;p?q={a}&r=\\",
        "--title",
        // `add` stores the bell as U+FFFD, which LuaTeX refuses: it is written `?`.
        "half } brace -- x --- ``y'' ?` !` \u{7}bell",
        "--accessed",
        "2024-03-05",
    ]);
    let out = render(&sb, &["--style", "bibtex"]);
    assert_eq!(
        out,
        "@misc{source1,\n  \
         title = {half \\textbraceright{} brace -\\/- x -\\/-\\/- \\textasciigrave{}\\/\\textasciigrave{}y\\textquotesingle{}\\/\\textquotesingle{} ?\\/\\textasciigrave{} !\\/\\textasciigrave{} ?bell},\n  \
         howpublished = {\\url{https://a.example/Caf%C3%A9/x_y~z;p?q=%7Ba%7D&r=%5C}},\n  \
         note = {Accessed 2024-03-05},\n  \
         urldate = {2024-03-05}\n}\n"
    );
    let draft = sb.file("draft.md", "Cafés serve coffee in many places [1].\n");
    sb.ok(&["render", "--style", "bibtex", "--replace-in", s(&draft)]);
    sb.cite()
        .args(["verify", s(&draft), "--strict"])
        .assert()
        .success();
}

#[test]
fn evidence_style_lists_quotes_under_their_entry() {
    let sb = three();
    let page = sb.file(
        "page.txt",
        "Water expands as it freezes,\nso ice floats on liquid water. Quoted \"words\" here.",
    );
    for (id, text) in [
        ("1", "ice floats on liquid water"),
        ("1", "water expands as it\n   freezes"),
        ("3", "quoted \"words\" here"),
    ] {
        sb.ok(&["quote", id, "--text", text, "--from", s(&page)]);
    }
    assert_eq!(
        render(&sb, &["--style", "evidence"]),
        "## Sources\n\n\
         [1] https://a.example/x — Alpha report\n\n  \
         > \"ice floats on liquid water\"\n  \
         >\n  \
         > \"Water expands as it freezes\"\n\n\
         [2] https://b.example/y\n\n\
         [3] https://c.example/z?q=1 — Gamma\n\n  \
         > \"Quoted \"words\" here\"\n"
    );
    // The other styles do not show quotes.
    assert!(!render(&sb, &["--style", "markdown"]).contains('>'));
}

#[test]
fn an_unknown_style_is_a_usage_error() {
    three()
        .cite()
        .args(["render", "--style", "html"])
        .assert()
        .code(2)
        .stdout("");
}

// ---- selection ---------------------------------------------------------------------------

#[test]
fn entries_come_in_id_order() {
    let sb = many(4);
    assert_eq!(ids(&render(&sb, &[])), [1, 2, 3, 4]);
    assert_eq!(ids(&render(&sb, &["--only", "4,2,3"])), [2, 3, 4]);
    let notes = render(&sb, &["--style", "footnotes", "--only", "3,1"]);
    assert_eq!(
        notes,
        "[^1]: https://s1.example/p — Title 1\n[^3]: https://s3.example/p — Title 3\n"
    );
}

#[test]
fn only_takes_ids_and_ranges() {
    let sb = many(9);
    assert_eq!(ids(&render(&sb, &["--only", "1,3,5-7"])), [1, 3, 5, 6, 7]);
    assert_eq!(ids(&render(&sb, &["--only", "1, 3, 5-7"])), [1, 3, 5, 6, 7]);
    assert_eq!(ids(&render(&sb, &["--only", "2-2"])), [2]);
    assert_eq!(ids(&render(&sb, &["--only", "8-9"])), [8, 9]);
    assert_eq!(ids(&render(&sb, &["--only", "1,1,1-2"])), [1, 2]);
}

#[test]
fn only_garbage_is_a_usage_error() {
    let sb = many(3);
    for bad in ["a", "3-1", "1-", "-3", "1;2", "", ",", "1,x", "1.5"] {
        sb.cite()
            .args(["render", &format!("--only={bad}")])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("--only"));
    }
    // As separate arguments too.
    for bad in ["a", "3-1"] {
        sb.cite()
            .args(["render", "--only", bad])
            .assert()
            .code(2)
            .stdout("");
    }
}

#[test]
fn nothing_selected_is_exit_1() {
    let sb = many(3);
    let draft = sb.file("draft.md", "A draft that cites nothing at all.\n");
    sb.cite()
        .args(["render", "--cited-in", s(&draft)])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("no sources to render"));
    Sandbox::new()
        .cite()
        .arg("render")
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("no sources to render"));
}

const CITING: &str = "# Report\n\
\n\
Ice floats on liquid water.[1] See also word[6] and source [3] for more.\n\
\n\
```\n\
let x = arr[2];\n\
```\n\
\n\
~~~text\n\
[5] inside a tilde fence\n\
~~~\n\
\n\
## Sources\n\
\n\
[1] https://s1.example/p — Title 1\n\
[4] https://s4.example/p — Title 4\n";

#[test]
fn cited_in_keeps_ids_cited_in_the_prose() {
    let sb = many(6);
    let draft = sb.file("draft.md", CITING);
    // [2] and [5] are only in code and [4] only in the Sources block; word[6] is a
    // citation glued to a word, which the reader sees (issue 18).
    assert_eq!(ids(&render(&sb, &["--cited-in", s(&draft)])), [1, 3, 6]);
    assert_eq!(
        ids(&render(&sb, &["--cited-in", s(&draft), "--only", "3-5"])),
        [3]
    );
    sb.cite()
        .args(["render", "--cited-in", s(&draft), "--only", "2,4-5"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("no sources to render"));
    // Reading a draft does not change it.
    assert_eq!(read(&draft), CITING);
}

#[test]
fn cited_in_a_missing_draft_is_a_usage_error() {
    let sb = many(2);
    sb.cite()
        .args(["render", "--cited-in"])
        .arg(sb.path().join("nope.md"))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("nope.md"));
    sb.cite()
        .args(["render", "--replace-in"])
        .arg(sb.path().join("nope.md"))
        .assert()
        .code(2)
        .stdout("");
    assert!(!sb.path().join("nope.md").exists());
}

// ---- --replace-in ------------------------------------------------------------------------

#[test]
fn replace_in_rewrites_the_block_with_cited_ids_only() {
    let sb = many(6);
    let draft = sb.file("draft.md", CITING);
    sb.cite()
        .args(["render", "--replace-in"])
        .arg(&draft)
        .assert()
        .success()
        .stderr("")
        .stdout(format!("Sources block rewritten in {}\n", draft.display()));
    let body_end = CITING.find("## Sources").unwrap();
    assert_eq!(
        read(&draft),
        format!(
            "{}\n\n## Sources\n\n[1] https://s1.example/p — Title 1\n\n[3] https://s3.example/p — Title 3\n\n[6] https://s6.example/p — Title 6\n",
            CITING[..body_end].trim_end()
        )
    );
}

#[test]
fn replace_in_appends_a_block_to_a_draft_without_one() {
    let sb = many(2);
    let text = "Ice floats on liquid water.[2]";
    let draft = sb.file("draft.md", text);
    render(&sb, &["--replace-in", s(&draft)]);
    assert_eq!(
        read(&draft),
        "Ice floats on liquid water.[2]\n\n## Sources\n\n[2] https://s2.example/p — Title 2\n"
    );
}

#[test]
fn replace_in_is_idempotent_in_every_style() {
    for style in STYLES {
        let sb = many(3);
        let page = sb.file("page.txt", "Ice floats on liquid water, as everyone knows.");
        sb.ok(&[
            "quote",
            "1",
            "--text",
            "ice floats on liquid",
            "--from",
            s(&page),
        ]);
        let draft = sb.file(
            "draft.md",
            "# T\n\nIce floats on liquid water.[1] Snow is frozen water.[3]\n",
        );
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        let once = std::fs::read(&draft).unwrap();
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        let twice = std::fs::read(&draft).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&once),
            String::from_utf8_lossy(&twice),
            "{style}"
        );
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        assert_eq!(std::fs::read(&draft).unwrap(), once, "{style}");
    }
}

#[test]
fn switching_styles_leaves_exactly_one_block() {
    let sb = many(3);
    let page = sb.file("page.txt", "Ice floats on liquid water, as everyone knows.");
    sb.ok(&[
        "quote",
        "3",
        "--text",
        "as everyone knows",
        "--from",
        s(&page),
    ]);
    let body = "# T\n\nIce floats on liquid water.[1] Snow is frozen water.[3]";
    let draft = sb.file("draft.md", &format!("{body}\n"));
    let order = [
        "markdown",
        "bibtex",
        "plain",
        "footnotes",
        "evidence",
        "bibtex",
        "markdown",
        "evidence",
        "footnotes",
        "plain",
        "markdown",
    ];
    for style in order {
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        let block = render(&sb, &["--style", style, "--cited-in", s(&draft)]);
        assert_eq!(read(&draft), format!("{body}\n\n{block}"), "after {style}");
    }
}

#[test]
fn author_prose_under_a_sources_heading_is_never_removed() {
    // A new block after it would make a second Sources section, and removing the
    // author's text is not render's to do: the draft is refused, untouched (issue 9).
    let sb = many(2);
    for text in [
        "# Report\n\nA claim is made here.[1]\n\n## Sources\n\nWe relied on three kinds of sources for this report.\n",
        "Claim made here.[1]\n\n## Sources\n\n[1] and [2] disagree on the date.\n",
    ] {
        for style in STYLES {
            let draft = sb.file("draft.md", text);
            sb.cite()
                .args(["render", "--style", style, "--replace-in"])
                .arg(&draft)
                .assert()
                .code(1)
                .stdout("")
                .stderr(predicate::str::contains("has a Sources section at line"));
            assert_eq!(read(&draft), text, "{style}");
        }
    }
}

#[test]
fn text_before_the_block_is_kept_byte_for_byte() {
    let sb = many(3);
    let before = "---\ntitle: \"Über\"\n---\n\n#  Heading with  double  spaces  \n\n\tTabbed line.[2]  \n> quoted [1]\n\n| a | b |\n|---|---|\n| [3] | x |\n\n```\n## Sources\n[9] https://in.fence.example\n```\n\nLast prose line, with trailing spaces.   ";
    let draft = sb.file(
        "draft.md",
        &format!("{before}\n\n\n## Sources\n\n[7] https://stale.example\n\n\n"),
    );
    render(&sb, &["--replace-in", s(&draft)]);
    let out = read(&draft);
    assert!(out.starts_with(before), "{out}");
    assert_eq!(
        &out[before.len()..],
        "\n\n## Sources\n\n[1] https://s1.example/p — Title 1\n\n[2] https://s2.example/p — Title 2\n\n[3] https://s3.example/p — Title 3\n"
    );
    // The fenced "Sources" header is code: nothing after it was treated as a block.
    assert!(out.contains("[9] https://in.fence.example"));
}

#[test]
fn windows_line_endings_before_the_block_are_kept() {
    let sb = many(2);
    let before = "Title\r\n\r\nIce floats on liquid water.[1] Another claim is made here.[2]";
    let draft = sb.file("draft.md", &format!("{before}\r\n"));
    for style in STYLES {
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        let once = read(&draft);
        assert!(once.starts_with(before), "{style}: {once:?}");
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        assert_eq!(read(&draft), once, "{style}");
    }
}

#[test]
fn stale_stacked_blocks_are_all_replaced() {
    let sb = many(3);
    let text = "Claim made here.[2]\n\n## Sources\n\n[1] https://old.example\n\n[^1]: https://older.example — Old\n\n@misc{source1,\n  title = {Old},\n  howpublished = {\\url{https://oldest.example}},\n  note = {Accessed 2020-01-01}\n}\n\nSources:\n[3] https://s3.example/p\n";
    let draft = sb.file("draft.md", text);
    render(&sb, &["--replace-in", s(&draft)]);
    assert_eq!(
        read(&draft),
        "Claim made here.[2]\n\n## Sources\n\n[2] https://s2.example/p — Title 2\n"
    );
}

#[test]
fn nothing_selected_leaves_the_draft_untouched() {
    let sb = many(3);
    let cases: [(&str, &[&str], &str); 3] = [
        (
            "No citations at all here.\n\n## Sources\n\n[1] https://s1.example/p\n",
            &[],
            "no sources to render",
        ),
        // Issue 18: an id the ledger lacks fails, naming it; it was dropped silently.
        (
            "Cites a missing id.[42]\n",
            &[],
            "error: the draft cites [42], not in the ledger",
        ),
        (
            "Cites one.[1]\r\n\r\nSources:\n[1] https://x.example\n",
            &["--only", "2-3"],
            "no sources to render",
        ),
    ];
    for (text, extra, why) in cases {
        for style in STYLES {
            let draft = sb.file("draft.md", text);
            let before = std::fs::read(&draft).unwrap();
            sb.cite()
                .args(["render", "--style", style, "--replace-in"])
                .arg(&draft)
                .args(extra)
                .assert()
                .code(1)
                .stdout("")
                .stderr(predicate::str::contains(why));
            assert_eq!(std::fs::read(&draft).unwrap(), before, "{text:?} {style}");
        }
    }
}

#[test]
fn replace_in_intersects_with_only() {
    let sb = many(4);
    let draft = sb.file("draft.md", "One.[1] Two [2] three [3] and four words.[4]\n");
    render(&sb, &["--replace-in", s(&draft), "--only", "2-3"]);
    assert_eq!(
        read(&draft),
        "One.[1] Two [2] three [3] and four words.[4]\n\n## Sources\n\n[2] https://s2.example/p — Title 2\n\n[3] https://s3.example/p — Title 3\n"
    );
}

// ---- epochs ------------------------------------------------------------------------------

#[test]
fn epoch_renders_an_old_numbering() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example", "--title", "A"]);
    sb.ok(&["add", "https://b.example"]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://c.example", "--title", "C"]);
    assert_eq!(
        render(&sb, &[]),
        "## Sources\n\n[1] https://c.example — C\n"
    );
    assert_eq!(
        render(&sb, &["--epoch", "1"]),
        "## Sources\n\n[1] https://a.example — A\n\n[2] https://b.example\n"
    );
    assert_eq!(
        render(&sb, &["--epoch", "2", "--style", "plain"]),
        "Sources:\n[1] https://c.example — C\n"
    );
    assert_eq!(
        render(
            &sb,
            &["--epoch", "1", "--only", "2", "--style", "footnotes"]
        ),
        "[^2]: https://b.example\n"
    );
    sb.cite()
        .args(["render", "--epoch", "7"])
        .assert()
        .failure()
        .stdout("")
        .stderr(predicate::str::contains("epoch"));
}

// ---- issue 9, item 9: --replace-in and --output write only where they should ---------

/// Runs `cite ARGS…` against `sb`'s ledger through `sh -c` with `umask` set.
fn with_umask(sb: &Sandbox, umask: &str, args: &[&str]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("cite");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(bin)
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(args)
        .env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER");
    cmd.output().unwrap()
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Issue 9.
#[test]
fn replace_in_a_symlink_writes_through_to_its_target() {
    let sb = three();
    let target = sb.file("real.md", "Ice floats.[1] Water is dense.[2]\n");
    let link = sb.path().join("link.md");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    render(&sb, &["--replace-in", s(&link)]);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = read(&target);
    assert!(text.contains("## Sources"), "{text}");
    assert!(text.contains("[2] https://b.example/y"), "{text}");
}

/// Issue 9.
#[test]
fn replace_in_and_output_refuse_what_is_not_a_regular_file() {
    let sb = three();
    let fifo = sb.path().join("fifo.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for args in [
        vec!["render", "--replace-in", "-"],
        vec!["render", "--replace-in", s(&fifo)],
        vec!["export", "--format", "ris", "--output", s(&fifo)],
        vec!["export", "--format", "ris", "--output", "/dev/null"],
    ] {
        let out = sb.run(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.took < std::time::Duration::from_secs(10), "{args:?}");
        assert!(
            out.stderr.contains("not a regular file") || out.stderr.contains("`-`"),
            "{args:?}: {}",
            out.stderr
        );
    }
    assert!(!sb.path().join("-").exists());
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

use std::os::unix::fs::FileTypeExt;

/// Issue 9.
#[test]
fn new_export_files_honour_the_umask_and_drafts_keep_their_mode() {
    let sb = three();
    let out = with_umask(
        &sb,
        "022",
        &["export", "--format", "ris", "--output", "new.ris"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `sh -c` runs in the test's working folder.
    let created = Path::new("new.ris");
    let m = mode(created);
    std::fs::remove_file(created).unwrap();
    assert_eq!(m, 0o644);
    let out = with_umask(
        &sb,
        "077",
        &[
            "export",
            "--format",
            "ris",
            "--output",
            s(&sb.path().join("private.ris")),
        ],
    );
    assert!(out.status.success());
    assert_eq!(mode(&sb.path().join("private.ris")), 0o600);
    let draft = sb.file("draft.md", "Ice floats.[1]\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&draft, std::fs::Permissions::from_mode(0o640)).unwrap();
    render(&sb, &["--replace-in", s(&draft)]);
    assert_eq!(mode(&draft), 0o640);
}

/// Issue 9.
#[test]
fn a_crlf_draft_stays_crlf() {
    let sb = three();
    let draft = sb.file(
        "draft.md",
        "Title\r\n\r\nIce floats.[1] Water is dense.[2]\r\n",
    );
    for style in STYLES {
        render(&sb, &["--style", style, "--replace-in", s(&draft)]);
        let text = read(&draft);
        assert!(
            !text.replace("\r\n", "").contains('\n'),
            "{style}: {text:?}"
        );
        assert!(text.ends_with("\r\n"), "{style}: {text:?}");
    }
}

/// Issue 9.
#[test]
fn a_draft_the_user_cannot_write_is_not_rewritten() {
    let sb = three();
    let dir = sb.path().join("shared");
    std::fs::create_dir(&dir).unwrap();
    let draft = dir.join("draft.md");
    std::fs::write(&draft, "Ice floats.[1]\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    // The folder is writable (a rename would succeed); the draft itself is not.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&draft, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(sb.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&sb.ledger, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut cmd = crate::util::cite_unprivileged();
    let out = cmd
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(["render", "--replace-in"])
        .arg(&draft)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("read-only"), "{stderr}");
    assert_eq!(read(&draft), "Ice floats.[1]\n");
}

// ---- issue 9: --replace-in never makes a second Sources section or writes into code ----

/// Runs `render --replace-in DRAFT` on `text` and expects a refusal: exit 1, nothing on
/// stdout, the draft byte for byte as it was. Returns (stderr, the draft's path).
fn refused_replace(sb: &Sandbox, text: &str) -> (String, String) {
    let draft = sb.file("draft.md", text);
    let out = sb
        .cite()
        .args(["render", "--replace-in"])
        .arg(&draft)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{text:?}");
    assert!(out.stdout.is_empty());
    assert_eq!(read(&draft), text, "the draft was changed");
    (
        String::from_utf8(out.stderr).unwrap(),
        draft.display().to_string(),
    )
}

/// Issue 9.
#[test]
fn replace_in_refuses_a_sources_section_that_is_not_at_the_end() {
    let sb = many(2);
    let text = "# Report\n\nIce floats on liquid water.[1]\n\n## Sources\n\n[2] https://evil.example.com/made-up\n\n## Appendix\n\nMore text about the method is here.\n";
    for _ in 0..2 {
        let (err, path) = refused_replace(&sb, text);
        assert_eq!(
            err,
            format!(
                "error: {path} has a Sources section at line 5 that is not the block at its end (other text follows at line 9), and a new block would make two — keep your text under another heading, remove that Sources heading and the entries under it, then run `cite render --replace-in {path}` again; nothing was written\n"
            )
        );
    }
    // Author prose under a heading that says "Sources" is such a section too.
    let text = "# Report\n\nA claim is made here.[1]\n\n## Sources\n\nWe relied on three kinds of sources for this report.\n";
    let (err, _) = refused_replace(&sb, text);
    assert!(err.contains("Sources section at line 5"), "{err}");
    assert!(err.contains("(other text follows at line 7)"), "{err}");
}

/// Issue 9.
#[test]
fn replace_in_never_writes_inside_an_open_fence() {
    let sb = many(2);
    let text = "Ice floats on liquid water.[1]\n\n```python\nprint(1)\n";
    for _ in 0..3 {
        let (err, path) = refused_replace(&sb, text);
        assert_eq!(
            err,
            format!(
                "error: {path}: the code fence opened at line 3 is never closed, so a block written after it would be code — close it with a line ```, then run `cite render --replace-in {path}` again; nothing was written\n"
            )
        );
    }
    // Once the fence is closed, the block goes after it, and stays one block.
    let draft = sb.file("draft.md", &format!("{text}```\n"));
    render(&sb, &["--replace-in", s(&draft)]);
    render(&sb, &["--replace-in", s(&draft)]);
    assert_eq!(
        read(&draft),
        format!("{text}```\n\n## Sources\n\n[1] https://s1.example/p — Title 1\n")
    );
}

/// Issue 9.
#[test]
fn cited_in_and_replace_in_read_citations_as_verify_does() {
    let sb = many(4);
    // Code is never a citation; `arr[3]` outside code is one the reader sees (issue 18).
    let text = "Ice floats on liquid water.[1] Write `[2]` to cite, as in arr[3] here.[4]\n";
    let draft = sb.file("draft.md", text);
    assert_eq!(ids(&render(&sb, &["--cited-in", s(&draft)])), [1, 3, 4]);
    render(&sb, &["--replace-in", s(&draft)]);
    assert_eq!(
        read(&draft),
        format!(
            "{text}\n## Sources\n\n[1] https://s1.example/p — Title 1\n\n[3] https://s3.example/p — Title 3\n\n[4] https://s4.example/p — Title 4\n"
        )
    );
}
