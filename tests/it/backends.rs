//! Issue 10: every backend behaves the same. One workflow — every command, from `reset`
//! to `mcp` — written once and run on a redb file and on a PostgreSQL database (a fresh
//! one from `$CITE_TEST_POSTGRES`; ignored unless asked for, and then failing when that
//! is unset). Each transcript (every command's exit code, stdout and
//! stderr) is checked on its own, then the two are compared once the ledger location,
//! the work folder, clock times, pids and hashes are replaced by placeholders: they must
//! be identical.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp::Server;
use crate::util::{Outcome, Sandbox, cite_bin, postgres_db};

/// One command of the workflow and what it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The command as typed, after `cite --ledger LEDGER` (or a label such as
    /// `mcp add` or `cat draft.md`).
    pub cmd: String,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Everything the workflow did, in order.
pub struct Transcript {
    pub steps: Vec<Step>,
}

impl Transcript {
    /// The `n`-th (from 0) step whose command is `cmd`.
    fn nth(&self, cmd: &str, n: usize) -> &Step {
        self.steps
            .iter()
            .filter(|s| s.cmd == cmd)
            .nth(n)
            .unwrap_or_else(|| panic!("no step #{n} `{cmd}` in the transcript"))
    }

    fn step(&self, cmd: &str) -> &Step {
        self.nth(cmd, 0)
    }

    /// The whole transcript as text, for failure messages.
    fn text(&self) -> String {
        self.steps
            .iter()
            .map(show_step)
            .collect::<Vec<_>>()
            .join("")
    }
}

fn show_step(s: &Step) -> String {
    format!(
        "$ cite {}\n[exit {}]\n{}{}",
        s.cmd,
        s.code,
        s.stdout,
        if s.stderr.is_empty() {
            String::new()
        } else {
            format!("[stderr]\n{}", s.stderr)
        }
    )
}

/// Runs `cite --ledger LEDGER ARGS…` in the folder `dir` (relative input paths are
/// found there; and a binary without the PostgreSQL backend, which takes the URL for a
/// relative file path, writes nothing outside it).
pub fn cite_in(dir: &Path, ledger: &str, args: &[&str]) -> Outcome {
    let started = Instant::now();
    let out = cite_bin()
        .current_dir(dir)
        .arg("--ledger")
        .arg(ledger)
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run cite");
    Outcome::from_output(out, started.elapsed())
}

/// [`cite_in`], asserting it succeeded; returns stdout.
pub fn cite_ok(dir: &Path, ledger: &str, args: &[&str]) -> String {
    let o = cite_in(dir, ledger, args);
    assert_eq!(
        o.code, 0,
        "cite --ledger {ledger} {args:?} exited {}:\n{}{}",
        o.code, o.stdout, o.stderr
    );
    o.stdout
}

/// What the text of the snapshot stored with `add --snapshot` says.
const SNAPSHOT: &str = "# Sea ice\n\nSea ice forms when the surface of the ocean freezes, \
and brine is pushed out of the growing crystals.\n";

/// An Exa search result for [3], with its publication date and author.
const EXA_SEARCH: &str = r#"{"results": [{"id": "https://limnology.example.net/lakes/winter?lang=en",
  "url": "https://limnology.example.net/lakes/winter?lang=en", "title": "Lake ice and winter ecology",
  "publishedDate": "2021-11-03T00:00:00.000Z", "author": "R. Wetzel", "score": null}]}"#;

/// Runs commands on one ledger and records what each did.
struct Recorder<'a> {
    ledger: &'a str,
    work: &'a Path,
    steps: Vec<Step>,
}

impl Recorder<'_> {
    fn run(&mut self, args: &[&str]) {
        let o = cite_in(self.work, self.ledger, args);
        self.record(&args.join(" "), o.code, o.stdout, o.stderr);
    }

    fn record(&mut self, cmd: &str, code: i32, stdout: String, stderr: String) {
        self.steps.push(Step {
            cmd: cmd.into(),
            code,
            stdout,
            stderr,
        });
    }
}

/// The whole command workflow against `ledger` (a file path or a postgres URL), run in
/// the folder `work` with its input files (the example data copied there). Asserts
/// nothing about cite: every outcome goes into the transcript.
pub fn workflow(ledger: &str, work: &Path) -> Transcript {
    let w = |name: &str| work.join(name).display().to_string();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for (from, to) in [
        ("draft.md", "draft.md"),
        ("search-results.json", "search-results.json"),
        ("pages/density-anomaly.md", "density-anomaly.md"),
        ("pages/lake-ice.md", "lake-ice.md"),
    ] {
        std::fs::copy(examples.join(from), work.join(to)).expect("copy example data");
    }
    std::fs::write(work.join("snap.md"), SNAPSHOT).expect("write snapshot");
    std::fs::write(work.join("exa.json"), EXA_SEARCH).expect("write tool output");
    std::fs::write(work.join("sources.json"), crate::import::SOURCES_PY).expect("write");
    let mut r = Recorder {
        ledger,
        work,
        steps: Vec::new(),
    };

    // Register: a fresh numbering, JSON search output, a URL again, a DOI with a title
    // and a route, several URLs at once (one repeated), a page with its text.
    r.run(&["reset"]);
    r.run(&["ingest", "search-results.json", "--via", "web"]);
    r.run(&["add", "https://physics.example.org/water/density-anomaly/"]);
    r.run(&[
        "add",
        "doi:10.1000/182",
        "--title",
        "A handbook",
        "--via",
        "code",
    ]);
    r.run(&[
        "add",
        "https://more.example/a",
        "HTTPS://More.Example/b/",
        "https://more.example/a#again",
    ]);
    r.run(&[
        "add",
        "https://sea.example/ice",
        "--snapshot",
        &w("snap.md"),
    ]);
    // What a search tool said about a page registered before: kept, once.
    r.run(&["ingest", "exa.json"]);
    r.run(&["ingest", "exa.json"]);
    r.run(&["show", "3"]);

    // Evidence: from saved page text, from the stored snapshot; a paraphrase and an
    // unknown id are refused.
    r.run(&[
        "quote",
        "1",
        "--text",
        "Ice is therefore about 9% less dense than the water it forms from",
        "--from",
        "density-anomaly.md",
    ]);
    r.run(&[
        "quote",
        "3",
        "--text",
        "the bottom of a deep lake stays near 4 °C all winter",
        "--from",
        "lake-ice.md",
    ]);
    r.run(&[
        "quote",
        "7",
        "--text",
        "brine is pushed out of the growing crystals",
    ]);
    r.run(&[
        "quote",
        "1",
        "--text",
        "ice is ten percent lighter than water",
        "--from",
        "density-anomaly.md",
    ]);
    r.run(&[
        "quote",
        "99",
        "--text",
        "the bottom of a deep lake",
        "--from",
        "lake-ice.md",
    ]);

    // Corrections (issue 20): a second quote on [3] retracted, a title corrected, a
    // quote number that does not exist refused.
    r.run(&[
        "quote",
        "3",
        "--text",
        "the bottom of a deep lake",
        "--from",
        "lake-ice.md",
    ]);
    r.run(&[
        "retract",
        "3",
        "--quote",
        "2",
        "--reason",
        "a shorter copy of quote 1",
    ]);
    r.run(&["retract", "3", "--quote", "9", "--reason", "no such quote"]);
    r.run(&["retitle", "7", "Sea ice and brine"]);
    // The page's words (issue 20): a quote typed otherwise is stored as the page has it,
    // with a QuoteTyped record beside it.
    r.run(&["quote", "7", "--text", "BRINE   is pushed out"]);

    // Reading.
    r.run(&["list"]);
    r.run(&["list", "--json"]);
    r.run(&["log"]);
    r.run(&["show", "1"]);
    r.run(&["show", "7"]);

    // Rendering, and the draft rewritten in place, then verified.
    r.run(&["render"]);
    r.run(&["render", "--style", "bibtex", "--only", "1,3-4"]);
    r.run(&[
        "render",
        "--style",
        "evidence",
        "--replace-in",
        &w("draft.md"),
    ]);
    let draft = std::fs::read_to_string(work.join("draft.md")).expect("read draft");
    r.record("cat draft.md", 0, draft.clone(), String::new());
    std::fs::write(
        work.join("bad.md"),
        draft.replacen(
            "## Sources",
            "Pure water is densest at about 4 °C, so colder water rises.[99]\n\n## Sources",
            1,
        ),
    )
    .expect("write bad draft");
    r.run(&["verify", &w("draft.md"), "--evidence"]);
    r.run(&["verify", &w("bad.md")]);

    // Export, audit, rebuild.
    r.run(&["export", "--format", "jsonl"]);
    r.run(&["export", "--format", "biblatex"]);
    r.run(&["export", "--format", "csl-json"]);
    r.run(&["audit"]);
    r.run(&["rebuild"]);
    r.run(&["audit"]);

    // The MCP server over stdio: one `add` and one `list`.
    let mut srv = Server::start_in(Path::new(ledger), work);
    srv.initialize();
    let (added, _) = srv.ok(
        "add",
        json!({"urls": ["https://mcp.example/one", "https://sea.example/ice"], "via": "mcp"}),
    );
    let (listed, data) = srv.ok("list", json!({}));
    let code = srv.shutdown().unwrap_or(-1);
    r.record("mcp add", 0, format!("{added}\n"), String::new());
    let data = serde_json::to_string_pretty(&data).expect("JSON");
    r.record("mcp list", 0, format!("{listed}\n{data}\n"), String::new());
    r.record(
        "mcp (exit after stdin closed)",
        code,
        String::new(),
        String::new(),
    );

    // A second epoch: a sources.py ledger imported with its ids, numbering continuing
    // after them.
    r.run(&["reset"]);
    r.run(&["import", &w("sources.json")]);
    r.run(&["add", "https://after-import.example"]);
    r.run(&["list"]);
    r.run(&["list", "--epoch", "1"]);
    r.run(&["log", "--id", "1"]);
    r.run(&["export", "--format", "jsonl"]);
    r.run(&["audit"]);

    // Issue 19: spellings of one page get one id (the page is read before the write,
    // through the backend's read snapshot), and a look-alike is noted.
    r.run(&["add", "https://news.example/story?utm_source=feed&id=7"]);
    r.run(&[
        "add",
        "http://news.example/story?id=7&fbclid=IwAR",
        "https://news.example/story?id=8",
    ]);
    Transcript { steps: r.steps }
}

/// The checks every backend's transcript must pass on its own.
pub fn assert_sensible(t: &Transcript) {
    let ctx = || t.text();
    let ok = |cmd: &str, n: usize| -> &Step {
        let s = t.nth(cmd, n);
        assert_eq!(s.code, 0, "`{cmd}` failed:\n{}", show_step(s));
        s
    };
    assert!(
        ok("reset", 0).stdout.starts_with("ledger reset: "),
        "{}",
        ctx()
    );
    // Ids 1, 2, 3 in document order, the duplicate result folded into [1].
    assert_eq!(
        ok("ingest search-results.json --via web", 0).stdout,
        "[1] https://physics.example.org/water/density-anomaly\n\
         [2] https://chem.example.edu/notes/ice-ih\n\
         [3] https://limnology.example.net/lakes/winter?lang=en\n"
    );
    // Re-adding a URL returns its id.
    assert_eq!(
        ok("add https://physics.example.org/water/density-anomaly/", 0).stdout,
        "[1] https://physics.example.org/water/density-anomaly\n"
    );
    assert_eq!(
        ok("add doi:10.1000/182 --title A handbook --via code", 0).stdout,
        "[4] https://doi.org/10.1000/182\n"
    );
    assert_eq!(
        ok(
            "add https://more.example/a HTTPS://More.Example/b/ https://more.example/a#again",
            0
        )
        .stdout,
        "[5] https://more.example/a\n[6] https://more.example/b\n[5] https://more.example/a\n"
    );
    let snap = t
        .steps
        .iter()
        .find(|s| s.cmd.starts_with("add https://sea.example/ice --snapshot "))
        .expect("add --snapshot step");
    assert_eq!(snap.code, 0, "{}", show_step(snap));
    assert_eq!(snap.stdout, "[7] https://sea.example/ice\n");

    // What the tool said about [3]: one record, shown, and not written again.
    for n in 0..2 {
        assert_eq!(
            ok("ingest exa.json", n).stdout,
            "[3] https://limnology.example.net/lakes/winter?lang=en\n"
        );
    }
    let show = &ok("show 3", 0).stdout;
    assert!(
        show.contains("\n  published: 2021-11-03\n  authors:   R. Wetzel\n"),
        "{show}"
    );
    assert_eq!(
        show.matches("page of [3]: published 2021-11-03, authors R. Wetzel (epoch 1)")
            .count(),
        1,
        "{show}"
    );

    // Quotes: two from page files, one from the stored snapshot; refusals exit 1.
    for (cmd, want) in [
        (
            "quote 1 --text Ice is therefore about 9% less dense than the water it forms from --from density-anomaly.md",
            "[1] evidence attached (1 quote(s))\n",
        ),
        (
            "quote 3 --text the bottom of a deep lake stays near 4 °C all winter --from lake-ice.md",
            "[3] evidence attached (1 quote(s))\n",
        ),
        (
            "quote 7 --text brine is pushed out of the growing crystals",
            "[7] evidence attached (1 quote(s))\n",
        ),
    ] {
        assert_eq!(ok(cmd, 0).stdout, want, "{}", ctx());
    }
    let para =
        t.step("quote 1 --text ice is ten percent lighter than water --from density-anomaly.md");
    assert_eq!(para.code, 1, "{}", show_step(para));
    assert!(
        para.stderr
            .starts_with("error: quote not found verbatim in the evidence text"),
        "{}",
        show_step(para)
    );
    let unknown = t.step("quote 99 --text the bottom of a deep lake --from lake-ice.md");
    assert_eq!(unknown.code, 1, "{}", show_step(unknown));
    assert!(
        unknown.stderr.contains("no source [99] in the ledger"),
        "{}",
        show_step(unknown)
    );

    // Reading: ids dense 1..=7, titles and quote counts.
    let list = &ok("list", 0).stdout;
    let ids: Vec<&str> = list
        .lines()
        .map(|l| l.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(
        ids,
        ["[1]", "[2]", "[3]", "[4]", "[5]", "[6]", "[7]"],
        "{list}"
    );
    assert!(
        list.contains("[1] https://physics.example.org/water/density-anomaly  Ice and the density anomaly of water  (1 quote)\n"),
        "{list}"
    );
    assert!(
        list.contains("[4] https://doi.org/10.1000/182  A handbook\n"),
        "{list}"
    );
    let rows: Vec<Value> = serde_json::from_str(&ok("list --json", 0).stdout).expect("JSON");
    let json_ids: Vec<u64> = rows.iter().filter_map(|r| r["id"].as_u64()).collect();
    assert_eq!(json_ids, (1..=7).collect::<Vec<_>>());
    assert_eq!(rows[3]["via"], "code");
    let log = &ok("log", 0).stdout;
    assert!(log.starts_with("#1 "), "{log}");
    assert!(log.contains("added [7] https://sea.example/ice"), "{log}");
    assert!(log.contains("stored page text for [7]"), "{log}");
    assert!(
        log.contains("quote 2 of [7] was typed as \"BRINE   is pushed out\""),
        "{log}"
    );
    assert!(
        ok("show 1", 0)
            .stdout
            .starts_with("[1] https://physics.example.org/water/density-anomaly"),
        "{}",
        ctx()
    );
    assert!(
        ok("show 7", 0)
            .stdout
            .starts_with("[7] https://sea.example/ice")
    );

    // Rendering.
    let md = &ok("render", 0).stdout;
    assert!(md.starts_with("## Sources\n\n[1] https://physics.example.org/water/density-anomaly — Ice and the density anomaly of water\n"), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with('[')).count(), 7, "{md}");
    let bib = &ok("render --style bibtex --only 1,3-4", 0).stdout;
    assert_eq!(bib.matches("@misc{source").count(), 3, "{bib}");
    assert!(bib.contains("@misc{source4,"), "{bib}");
    let replace = t
        .steps
        .iter()
        .find(|s| s.cmd.starts_with("render --style evidence --replace-in "))
        .expect("render --replace-in step");
    assert_eq!(replace.code, 0, "{}", show_step(replace));
    let draft = ok("cat draft.md", 0);
    assert!(draft.stdout.contains("## Sources\n\n[1] https://physics.example.org/water/density-anomaly — Ice and the density anomaly of water\n\n  > \"Ice is therefore about 9% less dense than the water it forms from\"\n"), "{}", draft.stdout);

    // Verify: the rendered draft passes with its evidence; a made-up id fails.
    let good = t
        .steps
        .iter()
        .find(|s| s.cmd.starts_with("verify ") && s.cmd.ends_with("draft.md --evidence"))
        .expect("verify step");
    assert_eq!(good.code, 0, "{}", show_step(good));
    assert!(
        good.stdout.ends_with("citations OK\n") || good.stderr.ends_with("citations OK\n"),
        "{}",
        show_step(good)
    );
    let bad = t
        .steps
        .iter()
        .find(|s| s.cmd.starts_with("verify ") && s.cmd.ends_with("bad.md"))
        .expect("verify bad step");
    assert_eq!(bad.code, 1, "{}", show_step(bad));
    assert!(
        bad.stderr
            .contains("citations not in the ledger (hallucinated or renumbered): [99]"),
        "{}",
        show_step(bad)
    );

    // Export: the log as JSONL, one record a line, a chain.
    let jsonl = &ok("export --format jsonl", 0).stdout;
    let records: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record a line"))
        .collect();
    assert_eq!(records.first().map(|r| r["seq"].clone()), Some(json!(1)));
    for pair in records.windows(2) {
        assert_eq!(pair[1]["prev"], pair[0]["hash"], "chain: {jsonl}");
    }
    assert!(
        ok("export --format biblatex", 0)
            .stdout
            .contains("@online{"),
        "{}",
        ctx()
    );
    let csl: Value =
        serde_json::from_str(&ok("export --format csl-json", 0).stdout).expect("CSL-JSON");
    assert_eq!(csl.as_array().map(Vec::len), Some(7));
    assert_eq!(csl[2]["issued"], json!({"date-parts": [[2021, 11, 3]]}));
    assert_eq!(csl[2]["author"], json!([{"literal": "R. Wetzel"}]));

    // Audit, rebuild, audit.
    assert!(ok("audit", 0).stdout.starts_with("audit OK: "), "{}", ctx());
    assert!(ok("rebuild", 0).stdout.starts_with("rebuilt "), "{}", ctx());
    assert!(ok("audit", 1).stdout.starts_with("audit OK: "), "{}", ctx());

    // MCP: a new URL gets the next id, a known one its id.
    assert_eq!(
        ok("mcp add", 0).stdout,
        "[8] https://mcp.example/one\n[7] https://sea.example/ice\n"
    );
    assert!(
        ok("mcp list", 0)
            .stdout
            .contains("[8] https://mcp.example/one"),
        "{}",
        ctx()
    );
    assert_eq!(t.step("mcp (exit after stdin closed)").code, 0);

    // Epoch 2: the import keeps its ids (1, 2, 3, 5), the next add gets 6.
    assert!(ok("reset", 1).stdout.starts_with("ledger reset: "));
    let import = t
        .steps
        .iter()
        .find(|s| s.cmd.starts_with("import "))
        .expect("import step");
    assert_eq!(import.code, 0, "{}", show_step(import));
    assert!(
        import
            .stdout
            .starts_with("imported 4 source(s) and 3 quote(s) from ")
            && import.stdout.ends_with(" into epoch 2\n"),
        "{}",
        show_step(import)
    );
    assert_eq!(
        ok("add https://after-import.example", 0).stdout,
        "[6] https://after-import.example\n"
    );
    let ids2: Vec<&str> = ok("list", 1)
        .stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(ids2, ["[1]", "[2]", "[3]", "[5]", "[6]"]);
    assert_eq!(ok("list --epoch 1", 0).stdout.lines().count(), 8);
    ok("log --id 1", 0);
    assert!(ok("export --format jsonl", 1).stdout.lines().count() > records.len());
    assert!(ok("audit", 2).stdout.starts_with("audit OK: "), "{}", ctx());

    assert_eq!(
        ok("add https://news.example/story?utm_source=feed&id=7", 0).stdout,
        "[7] https://news.example/story?id=7\n"
    );
    let twins = ok(
        "add http://news.example/story?id=7&fbclid=IwAR https://news.example/story?id=8",
        0,
    );
    assert_eq!(
        (twins.stdout.as_str(), twins.stderr.as_str()),
        (
            "[7] https://news.example/story?id=7\n[8] https://news.example/story?id=8\n",
            "note: [8] looks like [7] https://news.example/story?id=7 (the same host and path, another query)\n"
        ),
        "{}",
        ctx()
    );
}

/// `text` with what rightly differs between two runs of the workflow replaced by
/// placeholders: the ledger location (`<LEDGER>`: the path or URL given, and any other
/// `postgres://…` spelling of it), the work folder (`<WORK>`), clock times (`<TIME>`),
/// pids (`<PID>`), and runs of 12 or more hex digits (`<HEX>`: hashes and record bytes,
/// which cover the time, pid and command line). Content-derived values — ids, URLs,
/// titles, dates, quotes, counts — stay.
pub fn normalize(text: &str, ledger: &str, work: &Path) -> String {
    let mut s = text.replace(ledger, "<LEDGER>");
    for scheme in ["postgresql://", "postgres://"] {
        s = replace_tokens(&s, scheme, "<LEDGER>");
    }
    // A URL with its password hidden (`***`) is shell-quoted where the log shows a
    // command line; a path is not.
    let s = s.replace("'<LEDGER>'", "<LEDGER>");
    let s = s.replace(&work.display().to_string(), "<WORK>");
    let s = replace_times(&s);
    let s = replace_number_after(&s, "pid ", "<PID>");
    let s = replace_number_after(&s, "\"pid\":", "<PID>");
    replace_hex(&s)
}

/// Every word that starts with `prefix` (up to whitespace, a quote, a comma or a
/// closing bracket) replaced by `with`.
fn replace_tokens(s: &str, prefix: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(prefix) {
        out.push_str(&rest[..i]);
        out.push_str(with);
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| c.is_whitespace() || "\"'`,)]}".contains(c))
            .unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction][Z]` replaced by `<TIME>`.
fn replace_times(s: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    let b = s.as_bytes();
    let fits = |at: usize| {
        b.len() >= at + SHAPE.len()
            && SHAPE.iter().zip(&b[at..]).all(|(want, got)| match want {
                b'd' => got.is_ascii_digit(),
                w => w == got,
            })
    };
    let mut out = String::with_capacity(s.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if fits(i) {
            out.push_str(&s[copied..i]);
            out.push_str("<TIME>");
            i += SHAPE.len();
            if b.get(i) == Some(&b'.') {
                i += 1;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            if b.get(i) == Some(&b'Z') {
                i += 1;
            }
            copied = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// The digits right after each `prefix` replaced by `with`.
fn replace_number_after(s: &str, prefix: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(prefix) {
        let after = &rest[i + prefix.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..i + prefix.len()]);
        if digits > 0 {
            out.push_str(with);
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Every run of 12 or more lowercase hex digits that is a whole word replaced by `<HEX>`.
fn replace_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.len() >= 12 && word.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            out.push_str("<HEX>");
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The transcript with [`normalize`] applied to every command and output.
fn normalized(t: &Transcript, ledger: &str, work: &Path) -> Vec<Step> {
    t.steps
        .iter()
        .map(|s| Step {
            cmd: normalize(&s.cmd, ledger, work),
            code: s.code,
            stdout: normalize(&s.stdout, ledger, work),
            stderr: normalize(&s.stderr, ledger, work),
        })
        .collect()
}

#[test]
fn normalize_replaces_only_what_differs_between_runs() {
    let work = Path::new("/tmp/w1");
    let out = normalize(
        "#3 2026-12-01T15:40:44.820896852Z pid 26640  added [3] https://c.example \
         (epoch 1)  <- cite --ledger postgres://cite@127.0.0.1:5/db add /tmp/w1/snap.md\n\
         {\"seq\":1,\"time\":\"2026-12-01T15:40:44Z\",\"pid\":7,\"hash\":\"a0a61d2053f288acea\"}\n\
         audit OK: head 6856ce3723e7…; accessed 2026-12-01, pid 4",
        "postgres://cite:cite-ci@127.0.0.1:5/db",
        work,
    );
    assert_eq!(
        out,
        "#3 <TIME> pid <PID>  added [3] https://c.example (epoch 1)  <- cite --ledger \
         <LEDGER> add <WORK>/snap.md\n\
         {\"seq\":1,\"time\":\"<TIME>\",\"pid\":<PID>,\"hash\":\"<HEX>\"}\n\
         audit OK: head <HEX>…; accessed 2026-12-01, pid <PID>"
    );
}

#[test]
fn redb_file_runs_the_whole_workflow() {
    let sb = crate::util::Sandbox::new();
    let t = workflow(&sb.ledger.display().to_string(), sb.path());
    // Shown when the test fails (and with --nocapture).
    eprintln!("{}", t.text());
    assert_sensible(&t);
}

#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn postgres_runs_the_whole_workflow_as_redb_does() {
    let db = postgres_db();
    let file = crate::util::Sandbox::new();
    let file_ledger = file.ledger.display().to_string();
    let redb = workflow(&file_ledger, file.path());
    let pg_work = tempfile::tempdir().expect("temp dir");
    let pg = workflow(&db.url, pg_work.path());
    eprintln!("{}", pg.text());
    db.assert_holds_the_ledger(pg_work.path());
    assert_sensible(&pg);
    assert_sensible(&redb);

    let a = normalized(&redb, &file_ledger, file.path());
    let b = normalized(&pg, &db.url, pg_work.path());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            x,
            y,
            "the backends differ at `{}`:\n--- redb\n{}--- postgres\n{}",
            x.cmd,
            show_step(x),
            show_step(y)
        );
    }
    assert_eq!(a.len(), b.len());
}

/// `cite copy` between two files, without a server: the log byte for byte, the views
/// rebuilt, the copy audited; refusals change nothing.
#[test]
fn copy_between_files_keeps_the_log_and_refuses_what_it_must() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example/1", "https://b.example/2"]);
    let page = sb.path().join("page.md");
    std::fs::write(
        &page,
        "Water is densest at four degrees Celsius, so lakes freeze from the top.",
    )
    .unwrap();
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "densest at four degrees Celsius",
        "--from",
        page.to_str().unwrap(),
    ]);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://c.example/3", "--title", "C"]);
    let to = sb.path().join("copy.redb");
    let out = cite_bin()
        .args(["copy", sb.ledger.to_str().unwrap(), to.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("copied 5 records (2 epochs, 3 sources, 1 quote, 1 snapshot) from "),
        "{stdout}"
    );
    assert!(stdout.contains("\naudit OK: 5 records"), "{stdout}");
    let export = |ledger: &Path| sb.run_at(ledger, &["export", "--format", "jsonl"]).stdout;
    assert_eq!(export(&sb.ledger), export(&to));
    for args in [
        &["list", "--epoch", "1"][..],
        &["show", "1", "--epoch", "1"],
        &["list"],
    ] {
        assert_eq!(
            sb.run_at(&sb.ledger, args).stdout,
            sb.run_at(&to, args).stdout,
            "{args:?}"
        );
    }

    // Into a ledger that holds records: refused, exit 1, nothing changed.
    let before = std::fs::read(&to).unwrap();
    let again = cite_bin()
        .args(["copy", sb.ledger.to_str().unwrap(), to.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("already holds 5 record(s)"), "{err}");
    assert_eq!(export(&to), export(&sb.ledger));
    assert_eq!(before.len(), std::fs::read(&to).unwrap().len());

    // From nothing, and onto itself.
    let nothing = sb.path().join("none.redb");
    let o = cite_bin()
        .args([
            "copy",
            nothing.to_str().unwrap(),
            sb.path().join("x.redb").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("there is no ledger at"));
    assert!(!sb.path().join("x.redb").exists());
    let o = cite_bin()
        .args([
            "copy",
            sb.ledger.to_str().unwrap(),
            sb.ledger.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the same ledger"));
}
