//! `export` through the binary: the exact shape of every format, `--output` and
//! `--epoch`, refusals, the chain re-checked from `jsonl` alone, the `hermes-json` →
//! `import` round trip, and pandoc `--citeproc` reading the CSL-JSON.
//!
//! Issue 18: DOI and arXiv sources exported with their identifiers, `--only` and
//! `--cited-in` (their refusals with exit codes and messages), and the exports read by
//! real readers: pandoc `--citeproc` prints a DOI, biber keeps `doi` and `eprint` in
//! the `.bbl`, and rispy and citation-js read the RIS export one URL a record, with its
//! DOI. Zotero's RIS importer cannot run here (it needs Zotero itself); reading
//! zotero/translators `RIS.js` shows it maps `UR` to `url` whole (it splits only `KW`,
//! and authors in ProCite files, on `;`) and `DO` to `DOI` through `cleanDOI`, for a
//! web page too.

use std::path::Path;
use std::process::Command as Process;

use predicates::prelude::*;
use serde_json::{Value, json};

use crate::util::Sandbox;

const PAGE_ONE: &str = "Ice is about 9% less dense than liquid water. It floats.";
const PAGE_TWO: &str = "NumPy is the fundamental package for array computing with Python.";

fn today_utc() -> String {
    let d = time::OffsetDateTime::now_utc().date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

fn blake3_hex(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

/// Three sources: one with a route, a stored page and two checked quotes (from two
/// pages); one whose title needs LaTeX escaping; one untitled.
fn sample(sb: &Sandbox) {
    let one = sb.file("page1.txt", PAGE_ONE);
    let two = sb.file("page2.txt", PAGE_TWO);
    sb.ok(&[
        "add",
        "https://en.wikipedia.org/wiki/Ice",
        "--title",
        "Ice - Wikipedia",
        "--accessed",
        "2025-03-01",
        "--via",
        "web",
        "--snapshot",
        one.to_str().unwrap(),
    ]);
    sb.ok(&[
        "add",
        "https://example.com/r&d?q=a_b",
        "--title",
        "R&D {costs} 100% #1",
        "--accessed",
        "2025-03-02",
    ]);
    sb.ok(&["add", "https://numpy.org", "--accessed", "2025-03-03"]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "Ice is about 9% less dense than liquid water.",
    ]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "the fundamental package for array computing",
        "--from",
        two.to_str().unwrap(),
    ]);
}

fn export(sb: &Sandbox, format: &str) -> String {
    sb.ok(&["export", "--format", format])
}

#[test]
fn hermes_json_is_a_sources_py_ledger() {
    let sb = Sandbox::new();
    sample(&sb);
    let today = today_utc();
    assert_eq!(
        export(&sb, "hermes-json"),
        format!(
            r#"{{
  "version": 1,
  "sources": [
    {{
      "id": 1,
      "url": "https://en.wikipedia.org/wiki/Ice",
      "title": "Ice - Wikipedia",
      "accessed": "2025-03-01",
      "quotes": [
        {{
          "text": "Ice is about 9% less dense than liquid water.",
          "added": "{today}"
        }},
        {{
          "text": "the fundamental package for array computing",
          "added": "{today}"
        }}
      ],
      "via": "web"
    }},
    {{
      "id": 2,
      "url": "https://example.com/r&d?q=a_b",
      "title": "R&D {{costs}} 100% #1",
      "accessed": "2025-03-02"
    }},
    {{
      "id": 3,
      "url": "https://numpy.org",
      "title": "",
      "accessed": "2025-03-03"
    }}
  ]
}}
"#
        )
    );
    // What the sources.py loader asks for: an object with a list `sources` whose
    // entries carry an `id` and a `url`.
    let v: Value = serde_json::from_str(&export(&sb, "hermes-json")).unwrap();
    assert_eq!(v["version"], 1);
    for e in v["sources"].as_array().unwrap() {
        assert!(e["id"].is_u64() && e["url"].is_string(), "{e}");
    }
}

#[test]
fn csl_json_items_are_webpages_keyed_like_bibtex() {
    let sb = Sandbox::new();
    sample(&sb);
    let v: Value = serde_json::from_str(&export(&sb, "csl-json")).unwrap();
    assert_eq!(
        v,
        json!([
            {
                "id": "source1",
                "type": "webpage",
                "citation-label": "1",
                "printing-number": "0000000000000001",
                "URL": "https://en.wikipedia.org/wiki/Ice",
                "title": "Ice - Wikipedia",
                "accessed": {"date-parts": [[2025, 3, 1]]},
                "custom": {"ledger_id": 1, "via": "web",
                           "snapshots": [blake3_hex(PAGE_ONE), blake3_hex(PAGE_TWO)]}
            },
            {
                "id": "source2",
                "type": "webpage",
                "citation-label": "2",
                "printing-number": "0000000000000002",
                "URL": "https://example.com/r&d?q=a_b",
                "title": "R&D {costs} 100% #1",
                "accessed": {"date-parts": [[2025, 3, 2]]},
                "custom": {"ledger_id": 2, "via": null, "snapshots": []}
            },
            {
                "id": "source3",
                "type": "webpage",
                "citation-label": "3",
                "printing-number": "0000000000000003",
                "URL": "https://numpy.org",
                "title": "https://numpy.org",
                "accessed": {"date-parts": [[2025, 3, 3]]},
                "custom": {"ledger_id": 3, "via": null, "snapshots": []}
            }
        ])
    );
    // The same key `render --style bibtex` uses.
    assert!(
        sb.ok(&["render", "--style", "bibtex"])
            .contains("@misc{source1,")
    );
}

#[test]
fn biblatex_entries_are_online_with_urldate_and_escaping() {
    let sb = Sandbox::new();
    sample(&sb);
    assert_eq!(
        export(&sb, "biblatex"),
        "@online{source1,\n  title = {Ice - Wikipedia},\n  url = {https://en.wikipedia.org/wiki/Ice},\n  urldate = {2025-03-01}\n}\n\
         \n\
         @online{source2,\n  title = {R\\&D \\textbraceleft{}costs\\textbraceright{} 100\\% \\#1},\n  url = {https://example.com/r&d?q=a_b},\n  urldate = {2025-03-02}\n}\n\
         \n\
         @online{source3,\n  title = {https://numpy.org},\n  url = {https://numpy.org},\n  urldate = {2025-03-03}\n}\n"
    );
}

#[test]
fn ris_records_are_elec_with_crlf_lines() {
    let sb = Sandbox::new();
    sample(&sb);
    assert_eq!(
        export(&sb, "ris"),
        "TY  - ELEC\r\nTI  - Ice - Wikipedia\r\nUR  - https://en.wikipedia.org/wiki/Ice\r\nY2  - 2025/03/01/\r\nM1  - 2025/03/01/\r\nER  - \r\n\
         \r\n\
         TY  - ELEC\r\nTI  - R&D {costs} 100% #1\r\nUR  - https://example.com/r&d?q=a_b\r\nY2  - 2025/03/02/\r\nM1  - 2025/03/02/\r\nER  - \r\n\
         \r\n\
         TY  - ELEC\r\nTI  - https://numpy.org\r\nUR  - https://numpy.org\r\nY2  - 2025/03/03/\r\nM1  - 2025/03/03/\r\nER  - \r\n"
    );
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn jsonl_lets_anyone_recheck_the_chain_across_epochs() {
    let sb = Sandbox::new();
    sample(&sb);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://second-epoch.example"]);
    let text = export(&sb, "jsonl");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    let log: Vec<Value> = serde_json::from_str(&sb.ok(&["log", "--json"])).unwrap();
    assert_eq!(lines.len(), log.len());
    assert_eq!(lines.len(), 8);
    let mut prev = "0".repeat(64);
    let mut with_origin = 0;
    for (line, entry) in lines.iter().zip(&log) {
        let obj = line.as_object().unwrap();
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        // A transaction's first record gives its origin; its later records point at it.
        if let Some(first) = line["same_transaction_as"].as_u64() {
            assert_eq!(
                keys,
                [
                    "seq",
                    "same_transaction_as",
                    "event",
                    "hash",
                    "prev",
                    "record"
                ]
            );
            let carrier = &lines[usize::try_from(first).unwrap() - 1];
            assert!(carrier["command"].is_array(), "{carrier}");
            // The stored bytes say the same: format 1, provenance variant 1 (`SameAs`),
            // then the seq as a varint (one byte here).
            let record = unhex(line["record"].as_str().unwrap());
            assert_eq!(record[..3], [1, 1, u8::try_from(first).unwrap()]);
        } else {
            with_origin += 1;
            assert_eq!(
                keys,
                [
                    "seq", "time", "pid", "command", "event", "hash", "prev", "record"
                ]
            );
        }
        // Recompute the hash from the stored bytes alone, and follow the links.
        let record = unhex(line["record"].as_str().unwrap());
        assert_eq!(
            blake3::hash(&record).to_hex().as_str(),
            line["hash"].as_str().unwrap()
        );
        assert_eq!(line["prev"].as_str().unwrap(), prev);
        // The stored bytes embed the previous hash right after the format and
        // provenance; at least, they contain it.
        let prev_bytes = unhex(&prev);
        assert!(record.windows(32).any(|w| w == prev_bytes.as_slice()));
        prev = line["hash"].as_str().unwrap().to_string();
        // Apart from `record`, a line is the `log --json` entry.
        let mut without = obj.clone();
        without.remove("record");
        assert_eq!(&Value::Object(without), entry);
    }
    let epochs: Vec<u64> = lines
        .iter()
        .filter_map(|l| l["event"]["epoch"].as_u64())
        .collect();
    assert!(epochs.contains(&1) && epochs.contains(&2), "{epochs:?}");
    // `add --snapshot` writes two records in one transaction.
    assert!(with_origin < lines.len(), "{text}");
    // A flipped byte in a record no longer matches its hash.
    let mut bad = unhex(lines[2]["record"].as_str().unwrap());
    bad[5] ^= 1;
    assert_ne!(
        blake3::hash(&bad).to_hex().as_str(),
        lines[2]["hash"].as_str().unwrap()
    );
}

#[test]
fn jsonl_carries_the_actor_when_set() {
    let sb = Sandbox::new();
    sb.cite()
        .env("CITE_ACTOR", "agent-7")
        .args(["add", "https://a.example"])
        .assert()
        .success();
    let line: Value = serde_json::from_str(export(&sb, "jsonl").trim()).unwrap();
    assert_eq!(line["actor"], "agent-7");
}

#[test]
fn output_file_is_written_whole_and_reported() {
    let sb = Sandbox::new();
    sample(&sb);
    let path = sb.path().join("refs.json");
    std::fs::write(&path, "old contents").unwrap();
    sb.cite()
        .args(["export", "--format", "csl-json", "--output"])
        .arg(&path)
        .assert()
        .success()
        .stdout(format!(
            "exported 3 source(s) of epoch 1 to {} as csl-json\n",
            path.display()
        ));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        export(&sb, "csl-json")
    );
    let path = sb.path().join("log.jsonl");
    let out = sb.ok(&["export", "--format", "jsonl", "-o", path.to_str().unwrap()]);
    assert!(
        out.starts_with("exported 6 record(s) of the log to "),
        "{out}"
    );
    // No temporary file is left beside the output.
    let names: Vec<String> = std::fs::read_dir(sb.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn a_failed_export_leaves_the_output_file_alone() {
    let sb = Sandbox::new();
    sample(&sb);
    let path = sb.path().join("refs.bib");
    std::fs::write(&path, "old contents").unwrap();
    // An epoch that does not exist fails before anything is written.
    sb.cite()
        .args(["export", "--format", "biblatex", "--epoch", "7", "-o"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr("error: no epoch 7 in the ledger (the current epoch is 1)\n");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents");
    sb.cite()
        .args(["export", "--format", "ris", "-o"])
        .arg(sb.path().join("missing-dir/refs.ris"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such folder"));
}

#[test]
fn epoch_selects_an_older_numbering() {
    let sb = Sandbox::new();
    sample(&sb);
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://new.example", "--accessed", "2025-04-01"]);
    let current = export(&sb, "ris");
    assert!(
        current.contains("UR  - https://new.example\r\n"),
        "{current}"
    );
    assert!(!current.contains("wikipedia"), "{current}");
    let old = sb.ok(&["export", "--format", "ris", "--epoch", "1"]);
    assert_eq!(old.matches("TY  - ELEC").count(), 3);
    assert!(!old.contains("new.example"));
}

#[test]
fn refusals_and_their_exit_codes() {
    let sb = Sandbox::new();
    sb.cite()
        .args(["export", "--format", "bibtex"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'bibtex'"));
    sb.cite().args(["export"]).assert().code(2);
    sb.cite()
        .args(["export", "--format", "jsonl", "--epoch", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--epoch does not apply to --format jsonl",
        ));
    // A read command: exporting a ledger that does not exist creates nothing.
    assert!(!sb.ledger.exists());
    // The ledger is never overwritten by its own export; `-o -` is stdout.
    sb.ok(&["add", "https://a.example"]);
    let before = std::fs::read(&sb.ledger).unwrap();
    sb.cite()
        .args(["export", "--format", "ris", "--output"])
        .arg(&sb.ledger)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is the ledger itself"));
    assert_eq!(std::fs::read(&sb.ledger).unwrap(), before);
    assert_eq!(
        sb.ok(&["export", "--format", "csl-json", "-o", "-"]),
        export(&sb, "csl-json")
    );
}

#[test]
fn an_empty_ledger_exports_empty_documents() {
    let sb = Sandbox::new();
    assert_eq!(
        export(&sb, "hermes-json"),
        "{\n  \"version\": 1,\n  \"sources\": []\n}\n"
    );
    assert_eq!(export(&sb, "csl-json"), "[]\n");
    assert_eq!(export(&sb, "biblatex"), "");
    assert_eq!(export(&sb, "ris"), "");
    assert_eq!(export(&sb, "jsonl"), "");
    assert!(!sb.ledger.exists());
}

/// `list --json` of every epoch-1 source, as JSON values.
fn list_json(sb: &Sandbox) -> Value {
    serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap()
}

#[test]
fn hermes_json_round_trips_through_import() {
    // A ledger that came from sources.py, grown with cite: imported quotes, a gap in
    // the ids, later adds with routes and titles.
    let sb = Sandbox::new();
    let first = sb.file(
        "first.json",
        r#"{"version": 1, "sources": [
            {"id": 1, "url": "https://a.example/x", "title": "A", "accessed": "2024-05-06",
             "quotes": [{"text": "one two three four", "added": "2024-05-07"},
                        {"text": "five six seven", "added": "2024-05-08"}]},
            {"id": 4, "url": "https://b.example", "title": "", "accessed": "2024-05-06"}]}"#,
    );
    sb.ok(&["import", first.to_str().unwrap()]);
    sb.ok(&[
        "add",
        "https://c.example",
        "--title",
        "C",
        "--via",
        "reddit",
    ]);
    sb.ok(&["add", "doi:10.1000/182"]);
    let exported = sb.path().join("export.json");
    sb.ok(&[
        "export",
        "--format",
        "hermes-json",
        "-o",
        exported.to_str().unwrap(),
    ]);
    let fresh = Sandbox::new();
    let out = fresh.ok(&["import", exported.to_str().unwrap()]);
    assert!(
        out.starts_with("imported 4 source(s) and 2 quote(s) from "),
        "{out}"
    );
    assert_eq!(list_json(&fresh), list_json(&sb));
    // And again: a second generation is byte-identical.
    assert_eq!(export(&fresh, "hermes-json"), export(&sb, "hermes-json"));
}

#[test]
fn hermes_json_round_trip_of_checked_quotes_keeps_their_text_not_their_page() {
    let sb = Sandbox::new();
    sample(&sb);
    let exported = sb.file("export.json", &export(&sb, "hermes-json"));
    let fresh = Sandbox::new();
    fresh.ok(&["import", exported.to_str().unwrap()]);
    // The format has no place for page text: the quotes come back without their
    // snapshot and selector, and everything else is the same.
    let strip = |mut v: Value| {
        for s in v.as_array_mut().unwrap() {
            s.as_object_mut().unwrap().remove("page_text");
            if let Some(qs) = s.get_mut("quotes") {
                for q in qs.as_array_mut().unwrap() {
                    q["snapshot"] = Value::Null;
                    q["selector"] = Value::Null;
                }
            }
        }
        v
    };
    assert_eq!(list_json(&fresh), strip(list_json(&sb)));
    let show = fresh.ok(&["show", "1"]);
    assert!(
        show.contains("imported from sources.py without page text"),
        "{show}"
    );
}

/// pandoc, which must be on PATH: the tests that use it are ignored unless asked for.
pub(crate) fn pandoc() -> &'static str {
    if !crate::util::runs("pandoc", &["--version"]) {
        crate::util::missing_tool(
            "pandoc is not on PATH — install it (Debian: apt-get install pandoc)",
        );
    }
    "pandoc"
}

fn run_pandoc(pandoc: &str, dir: &Path, bibliography: &str) -> String {
    let out = Process::new(pandoc)
        .current_dir(dir)
        .args([
            "--citeproc",
            "--bibliography",
            bibliography,
            "-t",
            "plain",
            "doc.md",
        ])
        .output()
        .expect("run pandoc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pandoc failed: {stderr}");
    assert!(
        !stderr.contains("not found"),
        "pandoc could not resolve a citation: {stderr}"
    );
    // Lines wrap at pandoc's column limit; compare words.
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `doc` (citing `[@sourceN]`) rendered by pandoc `--citeproc` with the ledger's CSL-JSON
/// export as its bibliography: the plain text, words single-spaced.
fn pandoc_on_export(pandoc: &str, sb: &Sandbox, doc: &str) -> String {
    sb.file("doc.md", doc);
    let bib = sb.path().join("export.json");
    sb.ok(&[
        "export",
        "--format",
        "csl-json",
        "-o",
        bib.to_str().unwrap(),
    ]);
    run_pandoc(pandoc, sb.path(), "export.json")
}

#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pandoc_citeproc_renders_the_csl_json_export() {
    let pandoc = pandoc();
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://en.wikipedia.org/wiki/Ice",
        "--title",
        "Ice on Wikipedia",
        "--accessed",
        "2025-03-01",
    ]);
    sb.ok(&[
        "add",
        "https://numpy.org/doc/stable",
        "--title",
        "NumPy documentation",
        "--accessed",
        "2025-03-02",
        "--via",
        "web",
    ]);
    sb.ok(&["add", "https://untitled.example/page"]);
    let text = pandoc_on_export(
        pandoc,
        &sb,
        "Ice floats on water [@source1]. Arrays live in NumPy [@source2]. See also [@source3].\n",
    );
    let lower = text.to_lowercase();
    // Styles may re-case titles; the words and the URLs are what must be there.
    for want in [
        "ice on wikipedia",
        "numpy documentation",
        "https://en.wikipedia.org/wiki/Ice",
        "https://numpy.org/doc/stable",
        "https://untitled.example/page",
    ] {
        assert!(
            lower.contains(&want.to_lowercase()),
            "{want} missing from: {text}"
        );
    }
    assert!(text.contains("2025"), "{text}");
    assert!(!text.contains("@source"), "unresolved citation in: {text}");
    // The biblatex export reads the same way.
    let bib = sb.path().join("export.bib");
    sb.ok(&[
        "export",
        "--format",
        "biblatex",
        "-o",
        bib.to_str().unwrap(),
    ]);
    let text = run_pandoc(pandoc, sb.path(), "export.bib").to_lowercase();
    assert!(text.contains("numpy documentation"), "{text}");
    assert!(text.contains("https://en.wikipedia.org/wiki/ice"), "{text}");
}

/// Issue 12: citeproc read `<i>…</i>` and `<span class="nocase">` in a CSL-JSON title
/// as markup; and the access date of `render --style bibtex` sat only in `note`, which
/// pandoc's CSL styles never print.
#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pandoc_prints_tag_like_titles_as_text_and_the_bibtex_access_date() {
    let pandoc = pandoc();
    let sb = Sandbox::new();
    let title = r#"Why <i>x</i> and <span class="nocase">y</span> <b>stay</b> <sup>2</sup>"#;
    sb.ok(&[
        "add",
        "https://tags.example/p",
        "--title",
        title,
        "--accessed",
        "2025-03-01",
    ]);
    sb.file("doc.md", "Tags stay text [@source1].\n");
    let bib = sb.path().join("export.json");
    sb.ok(&[
        "export",
        "--format",
        "csl-json",
        "-o",
        bib.to_str().unwrap(),
    ]);
    let text = run_pandoc(pandoc, sb.path(), "export.json");
    // The style may change the case of a title and the shape of its quotes; the tags
    // must come out as text, not as italics, bold or superscript.
    let text: String = text
        .to_lowercase()
        .chars()
        .map(|c| {
            if matches!(c, '‘' | '’' | '“' | '”') {
                '"'
            } else {
                c
            }
        })
        .collect();
    for tag in [
        "<i>x</i>",
        r#"<span class="nocase">y</span>"#,
        "<b>stay</b>",
        "<sup>2</sup>",
    ] {
        assert!(text.contains(tag), "{tag} missing from: {text}");
    }
    // pandoc reads the block `render --style bibtex` writes, and prints its access date.
    sb.file("refs.bib", &sb.ok(&["render", "--style", "bibtex"]));
    let text = run_pandoc(pandoc, sb.path(), "refs.bib");
    assert!(text.contains("March 1, 2025"), "{text}");
    assert!(text.contains("https://tags.example/p"), "{text}");
}

/// Issue 18: sources registered as a DOI or an arXiv id, or by their resolver URLs, and
/// a web page with `;` in its URL: `(given, title)`.
const IDENTIFIED: &[(&str, &str)] = &[
    ("doi:10.1000/182", "The DOI Handbook"),
    (
        "https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4<547::AID-JBM20>3.0.CO;2-%23",
        "A SICI DOI",
    ),
    ("arXiv:2305.14627v2", "A preprint"),
    (
        "https://arxiv.org/pdf/hep-th/9901001.pdf",
        "An old preprint",
    ),
    ("https://a.example/p;v=1?q=a;b", "Semicolons; everywhere"),
];

/// The SICI DOI of [`IDENTIFIED`], decoded.
const SICI: &str = "10.1002/(SICI)1097-4636(199812)43:4<547::AID-JBM20>3.0.CO;2-#";

fn identified(sb: &Sandbox) {
    for (i, (url, title)) in IDENTIFIED.iter().enumerate() {
        let accessed = format!("2025-03-0{}", i + 1);
        sb.ok(&["add", url, "--title", title, "--accessed", &accessed]);
    }
}

/// Issue 18.
#[test]
fn csl_json_says_what_a_doi_or_arxiv_source_is() {
    let sb = Sandbox::new();
    identified(&sb);
    let v: Value = serde_json::from_str(&export(&sb, "csl-json")).unwrap();
    let shape: Vec<Value> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            json!([
                item["type"],
                item["URL"],
                item["DOI"],
                item["number"],
                item["publisher"]
            ])
        })
        .collect();
    assert_eq!(
        shape,
        [
            json!([
                "document",
                "https://doi.org/10.1000/182",
                "10.1000/182",
                null,
                null
            ]),
            json!([
                "document",
                "https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO;2-%23",
                SICI,
                null,
                null
            ]),
            json!([
                "article",
                "https://arxiv.org/abs/2305.14627v2",
                null,
                "arXiv:2305.14627v2",
                "arXiv"
            ]),
            json!([
                "article",
                "https://arxiv.org/pdf/hep-th/9901001.pdf",
                null,
                "arXiv:hep-th/9901001",
                "arXiv"
            ]),
            json!(["webpage", "https://a.example/p;v=1?q=a;b", null, null, null]),
        ]
    );
}

/// Issue 18.
#[test]
fn biblatex_and_ris_carry_doi_and_eprint() {
    let sb = Sandbox::new();
    identified(&sb);
    assert_eq!(
        export(&sb, "biblatex"),
        format!(
            "@online{{source1,\n  title = {{The DOI Handbook}},\n  url = {{https://doi.org/10.1000/182}},\n  doi = {{10.1000/182}},\n  urldate = {{2025-03-01}}\n}}\n\
             \n\
             @online{{source2,\n  title = {{A SICI DOI}},\n  url = {{https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO;2-%23}},\n  doi = {{{SICI}}},\n  urldate = {{2025-03-02}}\n}}\n\
             \n\
             @online{{source3,\n  title = {{A preprint}},\n  url = {{https://arxiv.org/abs/2305.14627v2}},\n  eprint = {{2305.14627v2}},\n  eprinttype = {{arxiv}},\n  urldate = {{2025-03-03}}\n}}\n\
             \n\
             @online{{source4,\n  title = {{An old preprint}},\n  url = {{https://arxiv.org/pdf/hep-th/9901001.pdf}},\n  eprint = {{hep-th/9901001}},\n  eprinttype = {{arxiv}},\n  urldate = {{2025-03-04}}\n}}\n\
             \n\
             @online{{source5,\n  title = {{Semicolons; everywhere}},\n  url = {{https://a.example/p;v=1?q=a;b}},\n  urldate = {{2025-03-05}}\n}}\n"
        )
    );
    let ris = export(&sb, "ris");
    let records: Vec<&str> = ris.split("\r\n\r\n").collect();
    assert_eq!(records.len(), 5, "{ris}");
    assert_eq!(
        records[0],
        "TY  - ELEC\r\nTI  - The DOI Handbook\r\nUR  - https://doi.org/10.1000/182\r\nDO  - 10.1000/182\r\nY2  - 2025/03/01/\r\nM1  - 2025/03/01/\r\nER  - "
    );
    assert!(
        records[1].contains(&format!(
            "\r\nUR  - https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO%3B2-%23\r\nDO  - {SICI}\r\n"
        )),
        "{}",
        records[1]
    );
    assert!(!records[2].contains("DO  - "), "{}", records[2]);
    assert_eq!(
        records[4],
        "TY  - ELEC\r\nTI  - Semicolons; everywhere\r\nUR  - https://a.example/p%3Bv=1?q=a%3Bb\r\nY2  - 2025/03/05/\r\nM1  - 2025/03/05/\r\nER  - \r\n"
    );
}

/// The ledger ids `export --format csl-json ARGS…` writes, in order.
fn ids_in(sb: &Sandbox, args: &[&str]) -> Vec<u64> {
    let mut all = vec!["export", "--format", "csl-json"];
    all.extend_from_slice(args);
    let v: Value = serde_json::from_str(&sb.ok(&all)).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|item| item["custom"]["ledger_id"].as_u64().unwrap())
        .collect()
}

/// Issue 18.
#[test]
fn only_and_cited_in_choose_what_is_exported() {
    let sb = Sandbox::new();
    for n in 1..=7 {
        sb.ok(&["add", &format!("https://p{n}.example")]);
    }
    assert_eq!(ids_in(&sb, &["--only", "1,3,5-6"]), [1, 3, 5, 6]);
    let draft = sb.file(
        "draft.md",
        "# Draft\n\nOne claim [2]. Another [6][7]. Again [2].\n",
    );
    let draft = draft.to_str().unwrap();
    assert_eq!(ids_in(&sb, &["--cited-in", draft]), [2, 6, 7]);
    // Both: the cited ids that --only names.
    assert_eq!(ids_in(&sb, &["--cited-in", draft, "--only", "3-7"]), [6, 7]);
    // `-` reads the draft from stdin.
    let out = sb
        .cite()
        .args(["export", "--format", "ris", "--cited-in", "-"])
        .write_stdin("Only this [4].\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let ris = String::from_utf8(out.stdout).unwrap();
    assert_eq!(ris.matches("TY  - ").count(), 1, "{ris}");
    assert!(ris.contains("UR  - https://p4.example\r\n"), "{ris}");
    // Into a file, which says how many it wrote.
    let bib = sb.path().join("cited.bib");
    sb.cite()
        .args(["export", "--format", "biblatex", "--cited-in", draft, "-o"])
        .arg(&bib)
        .assert()
        .success()
        .stdout(format!(
            "exported 3 source(s) of epoch 1 to {} as biblatex\n",
            bib.display()
        ));
    let text = std::fs::read_to_string(&bib).unwrap();
    assert_eq!(text.matches("@online{").count(), 3, "{text}");
    // The hermes-json of a selection is a sources.py ledger of those sources.
    let v: Value =
        serde_json::from_str(&sb.ok(&["export", "--format", "hermes-json", "--only", "7"]))
            .unwrap();
    assert_eq!(v["sources"][0]["id"], 7);
    assert_eq!(v["sources"].as_array().unwrap().len(), 1);
    // An older epoch, selected.
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://new.example"]);
    assert_eq!(ids_in(&sb, &["--epoch", "1", "--only", "5"]), [5]);
}

/// Issue 18.
#[test]
fn a_selection_that_cannot_be_exported_is_refused_by_name() {
    let sb = Sandbox::new();
    for n in 1..=3 {
        sb.ok(&["add", &format!("https://p{n}.example")]);
    }
    let ledger = sb.ledger.display().to_string();
    let out = sb.path().join("refs.json");
    std::fs::write(&out, "old contents").unwrap();
    let run = |args: &[&str]| {
        let mut cmd = sb.cite();
        cmd.args(["export", "--format", "csl-json", "-o"])
            .arg(&out)
            .args(args);
        cmd
    };
    // An id the ledger lacks is named, not dropped.
    run(&["--only", "2,5-6"]).assert().code(1).stdout("").stderr(format!(
        "error: --only names [5], [6], not in the ledger (ledger: {ledger}) — the ledger's ids are listed by `cite list`\n"
    ));
    let draft = sb.file("draft.md", "A claim [1]. Another [9].\n");
    run(&["--cited-in", draft.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(format!(
            "error: the draft cites [9], not in the ledger (ledger: {ledger}) — remove those citations, or register each page with `cite add URL` and cite the id it prints\n"
        ));
    // A draft that cites nothing, or nothing --only keeps: nothing to write.
    let empty = sb.file("empty.md", "No citations here.\n");
    run(&["--cited-in", empty.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr("error: no sources to export\n");
    run(&["--cited-in", "-", "--only", "2-3"])
        .write_stdin("Just [1].\n")
        .assert()
        .code(1)
        .stderr("error: no sources to export\n");
    // jsonl is the whole log: no selection.
    for args in [["--only", "1"], ["--cited-in", "-"]] {
        sb.cite()
            .args(["export", "--format", "jsonl", "-o"])
            .arg(&out)
            .args(args)
            .write_stdin("A claim [1].\n")
            .assert()
            .code(2)
            .stderr(format!(
                "error: {} does not apply to --format jsonl, which exports the whole log (its hash chain runs through every record of every epoch) — export a selection as csl-json, biblatex, ris or hermes-json\n",
                args[0]
            ));
    }
    // A malformed id list is the caller's mistake.
    run(&["--only", "3-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--only: \"3-1\" is a backwards range",
        ));
    // A draft file that is not there.
    run(&["--cited-in", "missing.md"]).assert().code(2);
    // None of these touched the output file.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old contents");
}

/// Issue 18.
#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pandoc_citeproc_prints_the_doi_of_a_doi_source() {
    let pandoc = pandoc();
    let sb = Sandbox::new();
    identified(&sb);
    let text = pandoc_on_export(
        pandoc,
        &sb,
        "Handbook [@source1]. SICI [@source2]. Preprint [@source3].\n",
    );
    // pandoc's default style prints a DOI as its doi.org link in place of the URL: the
    // DOI decoded from the source's dx.doi.org URL shows it was read from `DOI`.
    for want in [
        "https://doi.org/10.1000/182",
        &format!("https://doi.org/{SICI}"),
        "arXiv",
        "https://arxiv.org/abs/2305.14627v2",
    ] {
        assert!(text.contains(want), "{want} missing from: {text}");
    }
    assert!(!text.contains("dx.doi.org"), "{text}");
    // pandoc reads `doi` from the biblatex export the same way.
    let bib = sb.path().join("export.bib");
    sb.ok(&[
        "export",
        "--format",
        "biblatex",
        "-o",
        bib.to_str().unwrap(),
    ]);
    let text = run_pandoc(pandoc, sb.path(), "export.bib");
    assert!(text.contains(&format!("https://doi.org/{SICI}")), "{text}");
    assert!(!text.contains("dx.doi.org"), "{text}");
}

/// Fails the test unless pdflatex and biber are on PATH.
fn pdflatex_and_biber() {
    if !(crate::util::runs("pdflatex", &["--version"])
        && crate::util::runs("biber", &["--version"]))
    {
        crate::util::missing_tool(
            "pdflatex or biber is not on PATH — install them (Debian: see .ci/run)",
        );
    }
}

/// Issue 18.
#[test]
#[ignore = "needs TeX (pdflatex, biber): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn biber_keeps_doi_and_eprint_in_the_bbl() {
    pdflatex_and_biber();
    let sb = Sandbox::new();
    identified(&sb);
    let bib = sb.path().join("export.bib");
    sb.ok(&[
        "export",
        "--format",
        "biblatex",
        "-o",
        bib.to_str().unwrap(),
    ]);
    sb.file(
        "doc.tex",
        "\\documentclass{article}\n\\usepackage[backend=biber,sorting=none]{biblatex}\n\
         \\addbibresource{export.bib}\n\\begin{document}\n\\nocite{*}\n\\printbibliography\n\\end{document}\n",
    );
    let latex = ["-interaction=nonstopmode", "-halt-on-error", "doc.tex"];
    crate::util::run_tool(sb.path(), "pdflatex", &latex);
    crate::util::run_tool(sb.path(), "biber", &["doc"]);
    let bbl = std::fs::read_to_string(sb.path().join("doc.bbl")).unwrap();
    for want in [
        "\\verb{doi}\n      \\verb 10.1000/182\n".to_string(),
        format!("\\verb{{doi}}\n      \\verb {SICI}\n"),
        "\\field{eprinttype}{arxiv}".to_string(),
        "\\verb{eprint}\n      \\verb 2305.14627v2\n".to_string(),
        "\\verb{eprint}\n      \\verb hep-th/9901001\n".to_string(),
    ] {
        assert!(
            bbl.contains(&want),
            "{want:?} missing from the .bbl:\n{bbl}"
        );
    }
    // And the document typesets with them.
    crate::util::run_tool(sb.path(), "pdflatex", &latex);
}

/// A Python that imports rispy: `$CITE_READERS_PYTHON`, else `python3`; the test fails
/// when it cannot.
fn python_with_rispy() -> String {
    let python = std::env::var("CITE_READERS_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "python3".into());
    if !crate::util::runs(&python, &["-c", "import rispy"]) {
        crate::util::missing_tool(&format!(
            "{python} cannot import rispy — install it (pip install -r tests/readers/requirements.txt) or set CITE_READERS_PYTHON"
        ));
    }
    python
}

/// Runs `program args…` and parses what it prints as JSON.
fn json_from(program: &str, args: &[&Path]) -> Value {
    let out = Process::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the reader prints JSON")
}

/// The readers' project: tests/readers.
fn readers() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/readers")
}

/// The RIS export of [`IDENTIFIED`], in a file of the sandbox.
fn ris_file(sb: &Sandbox) -> std::path::PathBuf {
    identified(sb);
    let ris = sb.path().join("export.ris");
    sb.ok(&["export", "--format", "ris", "-o", ris.to_str().unwrap()]);
    ris
}

/// Issue 18: rispy split the `UR` of a URL with `;` into several URLs.
#[test]
#[ignore = "needs rispy (tests/readers): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn rispy_reads_one_url_a_record_and_the_doi() {
    let python = python_with_rispy();
    let sb = Sandbox::new();
    let ris = ris_file(&sb);
    let records = json_from(&python, &[&readers().join("rispy_read.py"), &ris]);
    let got: Vec<Value> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["title"], r["urls"], r["doi"], r["access_date"]]))
        .collect();
    assert_eq!(
        got,
        [
            json!([
                "The DOI Handbook",
                ["https://doi.org/10.1000/182"],
                "10.1000/182",
                "2025/03/01/"
            ]),
            json!([
                "A SICI DOI",
                [
                    "https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO%3B2-%23"
                ],
                SICI,
                "2025/03/02/"
            ]),
            json!([
                "A preprint",
                ["https://arxiv.org/abs/2305.14627v2"],
                null,
                "2025/03/03/"
            ]),
            json!([
                "An old preprint",
                ["https://arxiv.org/pdf/hep-th/9901001.pdf"],
                null,
                "2025/03/04/"
            ]),
            json!([
                "Semicolons; everywhere",
                ["https://a.example/p%3Bv=1?q=a%3Bb"],
                null,
                "2025/03/05/"
            ]),
        ]
    );
}

/// Fails the test unless node runs and tests/readers is installed.
fn node_with_citation_js() {
    let installed = readers()
        .join("node_modules/@citation-js/plugin-ris")
        .is_dir();
    if !(installed && crate::util::runs("node", &["--version"])) {
        crate::util::missing_tool(
            "node or tests/readers/node_modules is missing — run `npm ci --prefix tests/readers`",
        );
    }
}

/// Issue 18.
#[test]
#[ignore = "needs node and citation-js (tests/readers): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn citation_js_reads_one_url_a_record_and_the_doi() {
    node_with_citation_js();
    let sb = Sandbox::new();
    let ris = ris_file(&sb);
    let items = json_from("node", &[&readers().join("citation_js_read.mjs"), &ris]);
    let got: Vec<Value> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| json!([i["type"], i["title"], i["URL"], i["DOI"], i["accessed"]]))
        .collect();
    let day = |d: u32| json!({"date-parts": [[2025, 3, d]]});
    assert_eq!(
        got,
        [
            json!([
                "webpage",
                "The DOI Handbook",
                "https://doi.org/10.1000/182",
                "10.1000/182",
                day(1)
            ]),
            json!([
                "webpage",
                "A SICI DOI",
                "https://dx.doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C547::AID-JBM20%3E3.0.CO%3B2-%23",
                SICI,
                day(2)
            ]),
            json!([
                "webpage",
                "A preprint",
                "https://arxiv.org/abs/2305.14627v2",
                null,
                day(3)
            ]),
            json!([
                "webpage",
                "An old preprint",
                "https://arxiv.org/pdf/hep-th/9901001.pdf",
                null,
                day(4)
            ]),
            json!([
                "webpage",
                "Semicolons; everywhere",
                "https://a.example/p%3Bv=1?q=a%3Bb",
                null,
                day(5)
            ]),
        ]
    );
}

/// Issue 31: two pages whose tool output said when they were published, where, in which
/// language and by whom — one in English, one in German — registered as 1 and 2.
fn described(sb: &Sandbox) {
    for (url, title) in [
        (
            "https://physics.example.org/density",
            "the density anomaly of water",
        ),
        (
            "https://wasser.example.de/dichte",
            "über die dichte des wassers",
        ),
    ] {
        sb.ok(&["add", url, "--title", title, "--accessed", "2025-03-01"]);
    }
    let output = json!({"results": [
        {"url": "https://physics.example.org/density", "publishedDate": "2023-05-12",
         "siteName": "Physics Notes", "language": "en", "authors": ["Kenji Ito", "Rosa Roe"]},
        {"url": "https://wasser.example.de/dichte", "publishedDate": "2021-11",
         "siteName": "Wasser Heute", "language": "de"}
    ]});
    let f = sb.file("search.json", &output.to_string());
    sb.ok(&["ingest", f.to_str().unwrap()]);
}

#[test]
fn each_export_carries_what_the_tool_said_about_the_page() {
    let sb = Sandbox::new();
    described(&sb);
    let csl: Value = serde_json::from_str(&export(&sb, "csl-json")).unwrap();
    assert_eq!(csl[0]["issued"], json!({"date-parts": [[2023, 5, 12]]}));
    assert_eq!(csl[0]["container-title"], "Physics Notes");
    assert_eq!(csl[0]["language"], "en");
    assert_eq!(
        csl[0]["author"],
        json!([{"literal": "Kenji Ito"}, {"literal": "Rosa Roe"}])
    );
    assert_eq!(csl[1]["issued"], json!({"date-parts": [[2021, 11]]}));
    assert!(csl[1].get("author").is_none(), "{}", csl[1]);
    let bib = export(&sb, "biblatex");
    assert!(
        bib.starts_with("@online{source1,\n  title = {the density anomaly of water},\n  author = {{Kenji Ito} and {Rosa Roe}},\n  organization = {Physics Notes},\n  date = {2023-05-12},\n  langid = {english},\n  url = {https://physics.example.org/density},\n"),
        "{bib}"
    );
    assert!(
        bib.contains(
            "  organization = {Wasser Heute},\n  date = {2021-11},\n  langid = {ngerman},\n"
        ),
        "{bib}"
    );
    let ris = export(&sb, "ris");
    assert!(
        ris.starts_with("TY  - ELEC\r\nTI  - the density anomaly of water\r\nAU  - Kenji Ito\r\nAU  - Rosa Roe\r\nT2  - Physics Notes\r\nPY  - 2023\r\nDA  - 2023/05/12/\r\nLA  - en\r\nUR  - "),
        "{ris}"
    );
    assert!(
        ris.contains("PY  - 2021\r\nDA  - 2021/11//\r\nLA  - de\r\n"),
        "{ris}"
    );
}

/// Issue 31: pandoc's default style title-cases English titles; a page in German is left
/// as it is, and the site, date and authors are printed.
#[test]
#[ignore = "needs pandoc: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pandoc_leaves_a_german_title_alone_and_prints_the_site_date_and_authors() {
    let pandoc = pandoc();
    let sb = Sandbox::new();
    described(&sb);
    let text = pandoc_on_export(pandoc, &sb, "Dense [@source1]. Dicht [@source2].\n");
    for want in [
        "The Density Anomaly of Water",
        "über die dichte des wassers",
        "Physics Notes",
        "May 12, 2023",
        "Wasser Heute",
        // A name is printed as the tool wrote it, not split into given and family names.
        "Kenji Ito, and Rosa Roe",
    ] {
        assert!(text.contains(want), "{want} missing from: {text}");
    }
}

/// Issue 31.
#[test]
#[ignore = "needs TeX (pdflatex, biber): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn biber_keeps_the_date_site_authors_and_language_in_the_bbl() {
    pdflatex_and_biber();
    let sb = Sandbox::new();
    described(&sb);
    let bib = sb.path().join("export.bib");
    sb.ok(&[
        "export",
        "--format",
        "biblatex",
        "-o",
        bib.to_str().unwrap(),
    ]);
    sb.file(
        "doc.tex",
        "\\documentclass{article}\n\\usepackage[backend=biber,sorting=none]{biblatex}\n\
         \\addbibresource{export.bib}\n\\begin{document}\n\\nocite{*}\n\\printbibliography\n\\end{document}\n",
    );
    let latex = ["-interaction=nonstopmode", "-halt-on-error", "doc.tex"];
    crate::util::run_tool(sb.path(), "pdflatex", &latex);
    crate::util::run_tool(sb.path(), "biber", &["doc"]);
    let bbl = std::fs::read_to_string(sb.path().join("doc.bbl")).unwrap();
    for want in [
        "family={{Kenji Ito}}",
        "family={{Rosa Roe}}",
        "\\list{organization}{1}{%\n        {Physics Notes}%",
        "\\field{year}{2023}",
        "\\field{month}{5}",
        "\\field{day}{12}",
        "\\field{langid}{english}",
        "\\field{langid}{ngerman}",
        "\\field{month}{11}",
    ] {
        assert!(bbl.contains(want), "{want:?} missing from the .bbl:\n{bbl}");
    }
    crate::util::run_tool(sb.path(), "pdflatex", &latex);
}

/// Issue 31.
#[test]
#[ignore = "needs rispy (tests/readers): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn rispy_reads_the_authors_site_date_and_language() {
    let python = python_with_rispy();
    let sb = Sandbox::new();
    described(&sb);
    let ris = sb.path().join("export.ris");
    sb.ok(&["export", "--format", "ris", "-o", ris.to_str().unwrap()]);
    let records = json_from(&python, &[&readers().join("rispy_read.py"), &ris]);
    let got: Vec<Value> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            json!([
                r["authors"],
                r["secondary_title"],
                r["year"],
                r["date"],
                r["language"]
            ])
        })
        .collect();
    assert_eq!(
        got,
        [
            json!([
                ["Kenji Ito", "Rosa Roe"],
                "Physics Notes",
                "2023",
                "2023/05/12/",
                "en"
            ]),
            json!([null, "Wasser Heute", "2021", "2021/11//", "de"]),
        ]
    );
}

/// Issue 31. citation-js follows EndNote's Web Page type, where `T2` is no container:
/// it keeps the site as `collection-title` (Zotero reads `T2` as the website's title,
/// rispy as `secondary_title`).
#[test]
#[ignore = "needs node and citation-js (tests/readers): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn citation_js_reads_the_authors_site_date_and_language() {
    node_with_citation_js();
    let sb = Sandbox::new();
    described(&sb);
    let ris = sb.path().join("export.ris");
    sb.ok(&["export", "--format", "ris", "-o", ris.to_str().unwrap()]);
    let items = json_from("node", &[&readers().join("citation_js_read.mjs"), &ris]);
    let got: Vec<Value> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            json!([
                i["author"],
                i["collection-title"],
                i["issued"],
                i["language"]
            ])
        })
        .collect();
    assert_eq!(
        got,
        [
            json!([
                [{"literal": "Kenji Ito"}, {"literal": "Rosa Roe"}],
                "Physics Notes",
                {"date-parts": [[2023, 5, 12]]},
                "en"
            ]),
            json!([null, "Wasser Heute", {"date-parts": [[2021, 11]]}, "de"]),
        ]
    );
}
