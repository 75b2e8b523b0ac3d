//! `verify` through the binary: the stats line, the verdict line, every error (on stderr,
//! `FAIL: `, in SPEC order, with line numbers) and warning, `--strict`, `--min-coverage`,
//! `--evidence`, `--json`, the marker rules as the stats count them, code fences, CJK
//! prose, drafts rendered by `render --replace-in` in every style, and odd bytes.

use predicates::prelude::*;
use serde_json::Value;

use crate::util::Sandbox;

const STYLES: [&str; 5] = ["markdown", "plain", "footnotes", "bibtex", "evidence"];

/// A ledger of `https://s1.example/p` … `https://sN.example/p`.
fn ledger(n: u64) -> Sandbox {
    let sb = Sandbox::new();
    for i in 1..=n {
        sb.ok(&["add", &format!("https://s{i}.example/p")]);
    }
    sb
}

/// Attaches `text` to source `id`, checked against a page holding it.
fn quote(sb: &Sandbox, id: &str, text: &str) {
    let page = sb.file(
        &format!("page{id}.txt"),
        &format!("Page text: {text}. The end."),
    );
    sb.ok(&[
        "quote",
        id,
        "--text",
        text,
        "--from",
        page.to_str().unwrap(),
    ]);
}

/// Runs `verify DRAFT ARGS…` on `text`; returns (exit code, stdout, stderr).
fn verify(sb: &Sandbox, text: &str, args: &[&str]) -> (i32, String, String) {
    let (code, out, err, _) = verify_file(sb, "draft.md", text, args);
    (code, out, err)
}

/// Runs `verify` on `text` written to `name`; returns (exit code, stdout, stderr, the
/// draft's path as the fixes name it).
fn verify_file(
    sb: &Sandbox,
    name: &str,
    text: &str,
    args: &[&str],
) -> (i32, String, String, String) {
    let draft = sb.file(name, text);
    let out = sb
        .cite()
        .arg("verify")
        .arg(&draft)
        .args(args)
        .output()
        .expect("run cite");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
        draft.display().to_string(),
    )
}

/// The `info: stats: …` line for a draft.
fn stats(sb: &Sandbox, text: &str) -> String {
    let (_, out, _) = verify(sb, text, &[]);
    out.lines().next().expect("a first line").to_string()
}

/// `info: stats: ` for `n` sentences, `p` with provenance, no citations or ledger facts.
fn counts_prefix(n: usize, p: usize, pct: &str, kinds: [usize; 4]) -> String {
    format!(
        "info: stats: {n} prose sentence(s), {p} with declared provenance ({pct}) — {} cited, {} tool-verified, {} policy, {} unverified;",
        kinds[0], kinds[1], kinds[2], kinds[3]
    )
}

// ---- the report lines --------------------------------------------------------------------

#[test]
fn a_clean_draft_prints_stats_then_citations_ok() {
    let sb = ledger(3);
    quote(&sb, "1", "ice floats on water");
    let draft = "# Title\n\nIce floats on liquid water.[1] We measured the latency ourselves.[tool:curl]\nRefunds are issued within a week.[policy] The release date is a guess.[unverified]\nAn entirely bare claim stands here.\n\n## Sources\n\n[1] https://s1.example/p — One\n";
    let (code, out, err) = verify(&sb, draft, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    assert_eq!(
        out,
        "info: stats: 5 prose sentence(s), 4 with declared provenance (80%) — 1 cited, 1 tool-verified, 1 policy, 1 unverified; 1 distinct source(s) cited, 3 in ledger (1 with evidence quotes)\n\
         info: registered in the ledger but not cited in this draft: [2], [3]\n\
         citations OK\n"
    );
}

#[test]
fn every_error_in_spec_order_with_line_numbers() {
    let sb = ledger(3);
    quote(&sb, "1", "ice floats on liquid water");
    let draft = "# Report\n\
\n\
Ice floats on liquid water.[1] Water boils at sea level.[2]\n\
A hallucinated claim appears here.[7]\n\
This line has no provenance at all.\n\
\n\
## Sources\n\
\n\
[1] https://wrong.example/p\n\
[3] https://s3.example/p\n\
[9] https://s9.example/p\n";
    let (code, out, err) = verify(&sb, draft, &["--min-coverage", "0.9", "--evidence"]);
    assert_eq!(code, 1);
    let path = sb.path().join("draft.md").display().to_string();
    let ledger = sb.ledger.display().to_string();
    assert_eq!(
        err,
        format!(
            "FAIL: citations not in the ledger (hallucinated or renumbered): [7] — remove them, or register each page with `cite add URL` and cite the id it prints (ledger: {ledger}) (line 4) in sentence 3: \"A hallucinated claim appears here.[7]\"\n\
             FAIL: cited but absent from the Sources block: [2] — run `cite render --replace-in {path}` (line 3)\n\
             FAIL: Sources block lists [9], which is not in the ledger — run `cite render --replace-in {path}` (line 11)\n\
             FAIL: Sources block URL for [1] does not match the ledger (block: https://wrong.example/p / ledger: https://s1.example/p) — re-run `render`: `cite render --replace-in {path}` (line 9)\n\
             FAIL: citation coverage 75% is below the required 90% (3/4 sentences with declared provenance; 3 cited, 0 tool-verified, 0 policy, 0 unverified) — give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified] (line 5)\n\
             FAIL: cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): [2] — for each, `cite quote ID --text \"WORDS COPIED FROM THE PAGE\" --from PAGE` (line 3)\n"
        )
    );
    assert_eq!(
        out,
        "info: stats: 4 prose sentence(s), 3 with declared provenance (75%) — 3 cited, 0 tool-verified, 0 policy, 0 unverified; 3 distinct source(s) cited, 3 in ledger (1 with evidence quotes)\n\
         info: registered in the ledger but not cited in this draft: [3]\n\
         info: evidence [1]: \"ice floats on liquid water\"\n\
         warn: listed in Sources but never cited inline: [3], [9] (line 10)\n\
         verification failed\n"
    );
    // Without the opt-in flags, neither coverage nor evidence is checked.
    let (code, _, err) = verify(&sb, draft, &[]);
    assert_eq!(code, 1);
    assert!(
        !err.contains("coverage") && !err.contains("evidence"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 4, "{err}");
}

#[test]
fn citations_without_a_block() {
    let sb = ledger(2);
    let (code, out, err) = verify(
        &sb,
        "Intro line here.\nIce floats on liquid water.[1]\n",
        &[],
    );
    assert_eq!(code, 1);
    let path = sb.path().join("draft.md").display().to_string();
    assert_eq!(
        err,
        format!(
            "FAIL: draft cites sources but has no `Sources:` block — run `cite render --replace-in {path}` (line 2)\n"
        )
    );
    assert!(out.ends_with("verification failed\n"), "{out}");
    // An unknown id comes first.
    let (_, _, err) = verify(&sb, "Ice floats on liquid water.[1] And [8] too.\n", &[]);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0]
            .starts_with("FAIL: citations not in the ledger (hallucinated or renumbered): [8] — "),
        "{err}"
    );
    assert!(
        lines[1].starts_with("FAIL: draft cites sources but has no `Sources:` block — "),
        "{err}"
    );
}

#[test]
fn a_sources_header_inside_a_fence_is_not_the_block() {
    let sb = ledger(1);
    let draft =
        "Ice floats on liquid water.[1]\n\n```\n## Sources\n\n[1] https://s1.example/p\n```\n";
    let (code, _, err) = verify(&sb, draft, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("FAIL: draft cites sources but has no `Sources:` block"),
        "{err}"
    );
}

#[test]
fn code_fences_are_not_prose() {
    let sb = ledger(1);
    let draft = "Ice floats on liquid water.[1]\n\n```rust\nThis fenced sentence has many words.[7]\nlet x = arr[2]; // another long line of code here.\n```\n\n~~~\nTilde fenced sentence with words [8].\n~~~\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, err) = verify(&sb, draft, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("info: stats: 1 prose sentence(s), 1 with declared provenance (100%) — 1 cited, 0 tool-verified, 0 policy, 0 unverified; 1 distinct source(s) cited, 1 in ledger (0 with evidence quotes)\n"),
        "{out}"
    );
}

// ---- warnings and --strict ---------------------------------------------------------------

#[test]
fn listed_but_never_cited_warns_and_strict_fails() {
    let sb = ledger(2);
    let draft = "Ice floats on liquid water.[1]\n\nSources:\n[1] https://s1.example/p\n[2] https://s2.example/p\n";
    let (code, out, err) = verify(&sb, draft, &[]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.contains("\nwarn: listed in Sources but never cited inline: [2] (line 5)\n"),
        "{out}"
    );
    assert!(out.ends_with("citations OK\n"), "{out}");
    let (code, out, err) = verify(&sb, draft, &["--strict"]);
    assert_eq!(code, 1);
    assert!(out.ends_with("verification failed\n"), "{out}");
    assert_eq!(
        err,
        "FAIL: listed in Sources but never cited inline: [2] (line 5)\n"
    );
}

/// Issue 18: registering every search result is the method, so a registered source the
/// draft does not cite is information, and `--strict` passes a draft that cites some.
#[test]
fn registered_but_not_cited_is_information_that_strict_passes() {
    let sb = ledger(4);
    let draft = "Ice floats on liquid water.[2]\n\n## Sources\n\n[2] https://s2.example/p\n";
    for flags in [&[][..], &["--strict"]] {
        let (code, out, err) = verify(&sb, draft, flags);
        assert_eq!((code, err.as_str()), (0, ""), "{flags:?}: {out}");
        assert!(
            out.contains(
                "\ninfo: registered in the ledger but not cited in this draft: [1], [3], [4]\n"
            ),
            "{out}"
        );
        assert!(!out.contains("warn:"), "{out}");
    }
    let (_, out, _) = verify(&sb, draft, &["--strict", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["errors"], serde_json::json!([]));
    assert_eq!(
        v["info"][0]["message"],
        "registered in the ledger but not cited in this draft: [1], [3], [4]"
    );
}

/// Issue 18: a draft that `--strict` fails says why, as one `FAIL:` line per warning
/// that failed it, and `--json` lists them under `errors`.
#[test]
fn strict_names_each_warning_that_fails_it() {
    let sb = ledger(2);
    let draft = "Ice floats on liquid water.[1] Listed twice as well.[1][1][1][1]\n\n## Sources\n\n[1] https://s1.example/p\n\n[2] https://s2.example/p\n";
    let (code, out, err) = verify(&sb, draft, &["--strict"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        err,
        "FAIL: listed in Sources but never cited inline: [2] (line 7)\n\
         FAIL: 1 sentence(s) carry more than 3 citations (line 1) in sentence 2: \"Listed twice as well.[1][1][1][1]\"\n"
    );
    assert!(
        out.contains("warn: listed in Sources but never cited inline: [2] (line 7)\n"),
        "{out}"
    );
    assert!(out.ends_with("verification failed\n"), "{out}");
    let (code, out, _) = verify(&sb, draft, &["--strict", "--json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["errors"], v["warnings"]);
    assert_eq!(v["errors"].as_array().unwrap().len(), 2);
}

#[test]
fn over_citation_warns() {
    let sb = ledger(4);
    let draft = "Short.\nThis claim rests on many.[1][2][3][4] So does this one.[1][2][3][4]\nThis one is fine though.[1][2][3]\n\n## Sources\n[1] https://s1.example/p\n[2] https://s2.example/p\n[3] https://s3.example/p\n[4] https://s4.example/p\n";
    let (code, out, err) = verify(&sb, draft, &[]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.contains("\nwarn: 2 sentence(s) carry more than 3 citations (line 2)\n"),
        "{out}"
    );
    assert_eq!(verify(&sb, draft, &["--strict"]).0, 1);
}

#[test]
fn mostly_unverified_provenance_warns() {
    let sb = ledger(1);
    let draft = "Bare claim without anything here.\nFirst guess from memory alone.[unverified]\nSecond guess from memory alone.[unverified]\nA cited claim from a page.[1]\n\nSources:\n[1] https://s1.example/p\n";
    let (code, out, _) = verify(&sb, draft, &[]);
    assert_eq!(code, 0);
    assert!(
        out.contains("\nwarn: most declared provenance is [unverified] (2 of 3 sentences)"),
        "{out}"
    );
    assert!(out.contains("(line 2)\n"), "{out}");
    assert_eq!(verify(&sb, draft, &["--strict"]).0, 1);
    // Half is not most.
    let half = "First guess from memory alone.[unverified]\nA cited claim from a page.[1]\n\nSources:\n[1] https://s1.example/p\n";
    let (code, out, _) = verify(&sb, half, &["--strict"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn warnings_keep_their_order() {
    let sb = ledger(3);
    let draft = "A claim cited four times.[1][1][1][1]\nGuess one from memory here.[unverified]\nGuess two from memory here.[unverified]\n\nSources:\n[1] https://s1.example/p\n[2] https://s2.example/p\n";
    let (_, out, _) = verify(&sb, draft, &[]);
    let warns: Vec<&str> = out.lines().filter(|l| l.starts_with("warn: ")).collect();
    assert_eq!(warns.len(), 3, "{out}");
    assert!(warns[0].starts_with("warn: listed in Sources but never cited inline: [2]"));
    assert!(warns[1].starts_with("warn: 1 sentence(s) carry more than 3 citations"));
    assert!(warns[2].starts_with("warn: most declared provenance is [unverified]"));
}

#[test]
fn strict_without_warnings_passes() {
    let sb = ledger(1);
    let draft = "Ice floats on liquid water.[1]\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, err) = verify(&sb, draft, &["--strict"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.ends_with("citations OK\n"));
}

// ---- coverage and evidence -----------------------------------------------------------------

#[test]
fn min_coverage_counts_every_marker_kind() {
    let sb = ledger(0);
    let draft = "We measured the latency ourselves.[tool:curl]\nRefunds are issued within a week.[policy]\nThe refactor likely predates the release.[unverified]\nAn entirely bare claim stands here.\n";
    let (code, _, err) = verify(&sb, draft, &["--min-coverage", "0.8"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "FAIL: citation coverage 75% is below the required 80% (3/4 sentences with declared provenance; 0 cited, 1 tool-verified, 1 policy, 1 unverified) — give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified] (line 4)\n"
    );
    assert_eq!(verify(&sb, draft, &["--min-coverage", "0.75"]).0, 0);
    assert_eq!(verify(&sb, draft, &["--min-coverage", "0"]).0, 0);
}

#[test]
fn min_coverage_out_of_range_is_a_usage_error() {
    let sb = ledger(0);
    for bad in ["1.5", "-0.1", "abc"] {
        let (code, out, _) = verify(
            &sb,
            "Some prose sentence is here.\n",
            &[&format!("--min-coverage={bad}")],
        );
        assert_eq!(code, 2, "{bad}");
        assert_eq!(out, "");
    }
}

#[test]
fn evidence_lists_quotes_of_cited_sources() {
    let sb = ledger(3);
    quote(&sb, "1", "ice floats on liquid water");
    quote(&sb, "1", "water expands when freezing");
    quote(&sb, "3", "snow is frozen water vapour");
    let draft = "Ice floats on liquid water.[1]\nWater boils at sea level.[2]\n\n## Sources\n\n[1] https://s1.example/p\n[2] https://s2.example/p\n";
    let (code, out, err) = verify(&sb, draft, &["--evidence"]);
    assert_eq!(code, 1);
    let info: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info: evidence"))
        .collect();
    assert_eq!(
        info,
        [
            "info: evidence [1]: \"ice floats on liquid water\"",
            "info: evidence [1]: \"water expands when freezing\"",
        ]
    );
    assert!(
        err.starts_with("FAIL: cited sources carry no verbatim evidence quote (run `quote` with the fetched page text): [2] — "),
        "{err}"
    );
    assert!(
        err.ends_with(" (line 2)\n") && err.lines().count() == 1,
        "{err}"
    );
    // Once [2] is quoted too, evidence passes.
    quote(&sb, "2", "water boils at sea level");
    let (code, out, err) = verify(&sb, draft, &["--evidence"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.contains("info: evidence [2]: \"water boils at sea level\"\n"));
    // Without --evidence no evidence lines.
    let (_, out, _) = verify(&sb, draft, &[]);
    assert!(!out.contains("info: evidence"), "{out}");
}

#[test]
fn evidence_checks_only_numeric_citations() {
    let sb = ledger(1);
    let draft = "We measured the latency ourselves.[tool:curl]\nRefunds are issued within a week.[policy]\n";
    let (code, _, err) = verify(&sb, draft, &["--evidence"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

// ---- --json --------------------------------------------------------------------------------

#[test]
fn json_is_one_object() {
    let sb = ledger(3);
    quote(&sb, "1", "ice floats on liquid water");
    let draft = "Ice floats on liquid water.[1] A claim from nowhere.[7]\nA bare claim stands here.\n\n## Sources\n\n[1] https://s1.example/p\n[2] https://s2.example/p\n";
    let (code, out, _) = verify(&sb, draft, &["--json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("stdout is one JSON value");
    assert!(v.is_object());
    assert_eq!(v["exit_code"], 1);
    let errors: Vec<(&str, Option<u64>)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["message"].as_str().unwrap(), e["line"].as_u64()))
        .collect();
    assert_eq!(
        errors,
        [
            (
                format!(
                    "citations not in the ledger (hallucinated or renumbered): [7] — remove them, or register each page with `cite add URL` and cite the id it prints (ledger: {})",
                    sb.ledger.display()
                )
                .as_str(),
                Some(1)
            ),
        ]
    );
    // An unknown id is not "absent from the block": render can never add it (issue 18).
    assert!(!out.contains("absent from the Sources block"), "{out}");
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert_eq!(warnings, ["listed in Sources but never cited inline: [2]"]);
    assert_eq!(
        v["info"][0]["message"],
        "registered in the ledger but not cited in this draft: [2], [3]"
    );
    let c = &v["counts"];
    assert_eq!(c["sentences"], 3);
    assert_eq!(c["with_provenance"], 2);
    assert_eq!(c["cited"], 2);
    assert_eq!(c["distinct_cited"], 2);
    assert_eq!(c["in_ledger"], 3);
    assert_eq!(c["quoted"], 1);
    assert!(
        v["stats"]
            .as_str()
            .unwrap()
            .starts_with("stats: 3 prose sentence(s)")
    );

    // A passing draft: exit 0 and `exit_code` 0; `--strict` turns warnings into 1.
    let ok = "Ice floats on liquid water.[1]\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, _) = verify(&sb, ok, &["--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((code, v["exit_code"].as_i64()), (0, Some(0)));
    assert_eq!(v["errors"].as_array().unwrap().len(), 0);
    // Sources the draft does not cite are no warning: `--strict` passes it too.
    let (code, out, _) = verify(&sb, ok, &["--json", "--strict"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((code, v["exit_code"].as_i64()), (0, Some(0)));
    let glued = ok.replace("water.[1]", "water[1].");
    let (code, out, _) = verify(&sb, &glued, &["--json", "--strict"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((code, v["exit_code"].as_i64()), (1, Some(1)));
    assert_eq!(v["errors"], v["warnings"]);
}

// ---- the draft file ----------------------------------------------------------------------

#[test]
fn a_missing_draft_is_a_usage_error() {
    let sb = ledger(1);
    let missing = sb.path().join("nope.md");
    sb.cite()
        .arg("verify")
        .arg(&missing)
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!("error: no such draft: {}\n", missing.display()));
}

#[test]
fn odd_bytes_never_panic() {
    let sb = ledger(3);
    // xorshift64*: deterministic, no extra dependency.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let pieces: &[&[u8]] = &[
        b"[",
        b"]",
        b"[1]",
        b"[12345]",
        b"[^1]:",
        b"(",
        b")",
        b":",
        b"\n",
        b"\r\n",
        b" ",
        b"```",
        b"~~~",
        b"## Sources",
        b"Sources:",
        b"@misc{source1,",
        b"}",
        b"https://",
        b"s1.example/p",
        b".",
        b"!",
        "。".as_bytes(),
        "氷".as_bytes(),
        b"[tool:",
        b"[policy]",
        b"[unverified]",
        b">",
        b"|",
        b"#",
        b"word",
        b"\xff",
        b"\xc3",
        b"\xe3\x80",
        b"\0",
        b"    > \"",
        b"\\url{",
    ];
    let mut drafts: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\xff\xfe\xfd".to_vec(),
        b"Ice floats.[1]\n\xc3\x28\n## Sources\n[1] https://s1.example/p\n".to_vec(),
        b"\xef\xbb\xbfIce floats on liquid water.[1]\n".to_vec(),
        vec![b'['; 5000],
        "```\n".repeat(3).into_bytes(),
    ];
    for round in 0..40 {
        let len = (next() % 2000) as usize;
        let mut d = Vec::with_capacity(len);
        if round % 2 == 0 {
            d.extend((0..len).map(|_| next() as u8));
        } else {
            while d.len() < len {
                d.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
            }
        }
        drafts.push(d);
    }
    for (i, d) in drafts.iter().enumerate() {
        let p = sb.path().join(format!("odd{i}.md"));
        std::fs::write(&p, d).unwrap();
        for extra in [
            &[][..],
            &["--json", "--evidence", "--min-coverage", "0.5"][..],
        ] {
            let out = sb
                .cite()
                .arg("verify")
                .arg(&p)
                .args(extra)
                .output()
                .unwrap();
            let code = out.status.code();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(matches!(code, Some(0..=2)), "draft {i}: {code:?} {err}");
            assert!(!err.contains("panicked"), "draft {i}: {err}");
            assert!(!err.contains("internal error"), "draft {i}: {err}");
        }
    }
    // Invalid UTF-8 is named as such.
    let p = sb.path().join("odd1.md");
    sb.cite()
        .arg("verify")
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("UTF-8"));
}

// ---- markers and sentences ---------------------------------------------------------------

#[test]
fn malformed_markers_give_no_provenance() {
    let sb = ledger(1);
    for marker in [
        "[1]junk",
        "[[policy]]",
        "[policy]]",
        "[tool:]",
        "[tool bad]",
        "[policy:]",
        "[unverified:x]",
        "[12345]",
        "[tool:-x]",
        "[1](https://s1.example/p)",
    ] {
        let draft = format!("This claim is stated here {marker} now.\n");
        assert!(
            stats(&sb, &draft).starts_with(&counts_prefix(1, 0, "0%", [0, 0, 0, 0])),
            "{marker}: {}",
            stats(&sb, &draft)
        );
    }
    // A malformed group that shows the reader an id is still checked (issue 18).
    let (code, out, err) = verify(&sb, "The claim is stated here [9]now.\n", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("citations not in the ledger (hallucinated or renumbered): [9]"),
        "{err}"
    );
}

/// Issue 18: a citation glued to a word (`carmakers[7].`) is one the reader sees. It was
/// read as an index: `render --replace-in` left it out of the block and `verify` said
/// `citations OK` while the reader saw `[2]` with no source.
#[test]
fn a_citation_glued_to_a_word_is_rendered_checked_and_counted() {
    let sb = ledger(3);
    let text = "Solid-state batteries are tested by several carmakers[2]. They are expected around 2030.[1] It helps a lot[2][3].\n";
    let (_, _, _, path) = verify_file(&sb, "draft.md", text, &[]);
    sb.ok(&["render", "--replace-in", &path]);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.ends_with("## Sources\n\n[1] https://s1.example/p\n\n[2] https://s2.example/p\n\n[3] https://s3.example/p\n"),
        "{written}"
    );
    let (code, out, err) = verify(&sb, &written, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.starts_with(&counts_prefix(3, 3, "100%", [3, 0, 0, 0])),
        "{out}"
    );
    assert!(out.contains("; 3 distinct source(s) cited"), "{out}");
    assert!(
        out.contains("\nwarn: citation glued to a word: \"carmakers[2].\" — write \"carmakers.[2]\" (line 1) in sentence 1: \"Solid-state batteries are tested by several carmakers[2].\"\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "\nwarn: citation glued to a word: \"lot[2][3].\" — write \"lot.[2][3]\" (line 1) in sentence 3: \"It helps a lot[2][3].\"\n"
        ),
        "{out}"
    );
    // The block without [2] fails; the glued [2] is not "never cited".
    let stale = written.replace("[2] https://s2.example/p\n\n", "");
    let (code, _, err) = verify(&sb, &stale, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("FAIL: cited but absent from the Sources block: [2]"),
        "{err}"
    );
    // An id the ledger lacks, glued anywhere, fails.
    for glued in [
        "word[9].",
        "word[9]",
        "(see[9])",
        "**bold**[9].",
        "\"quoted\"[9].",
    ] {
        let draft = format!("A sentence with a made up source {glued} in it.\n");
        let (code, _, err) = verify(&sb, &draft, &[]);
        assert_eq!(code, 1, "{glued}");
        assert!(
            err.contains("citations not in the ledger (hallucinated or renumbered): [9]"),
            "{glued}: {err}"
        );
    }
}

#[test]
fn well_formed_markers_give_provenance() {
    let sb = ledger(2);
    for (marker, kinds) in [
        ("[tool:web_search]", [0, 1, 0, 0]),
        ("[tool:gh.search-v2_1]", [0, 1, 0, 0]),
        ("[policy]", [0, 0, 1, 0]),
        ("[unverified]", [0, 0, 0, 1]),
        ("[1]", [1, 0, 0, 0]),
        ("[1][2]", [1, 0, 0, 0]),
        ("[2][unverified]", [1, 0, 0, 1]),
    ] {
        let draft = format!("This claim is stated here now.{marker}\n");
        let line = stats(&sb, &draft);
        assert!(
            line.starts_with(&counts_prefix(1, 1, "100%", kinds)),
            "{marker}: {line}"
        );
    }
    let line = stats(&sb, "This claim is stated here now.[1][2]\n");
    assert!(
        line.contains("; 2 distinct source(s) cited, 2 in ledger"),
        "{line}"
    );
}

#[test]
fn a_marker_after_the_period_ends_the_sentence() {
    let sb = ledger(1);
    let line = stats(
        &sb,
        "This is the first claim.[1] Next sentence is here now.\n",
    );
    assert!(
        line.starts_with(&counts_prefix(2, 1, "50%", [1, 0, 0, 0])),
        "{line}"
    );
    let line = stats(&sb, "claim.[1] Next sentence here.\n");
    // Two fragments, `claim.[1]` and `Next sentence here.`, each under 4 words; merged,
    // they would be one cited sentence of 4.
    assert!(
        line.starts_with(&counts_prefix(0, 0, "0%", [0, 0, 0, 0])),
        "{line}"
    );
    let line = stats(&sb, "One two three claim.[1] Next sentence here now.\n");
    assert!(
        line.starts_with(&counts_prefix(2, 1, "50%", [1, 0, 0, 0])),
        "{line}"
    );
}

#[test]
fn cjk_prose_splits_at_the_ideographic_full_stop() {
    let sb = ledger(1);
    // 1 token + 14 CJK / 2 = 8 words, cited; 1 token + 9 / 2 = 5 words, bare.
    let draft = "氷は水より軽いので水に浮かぶ。[1]水は百度で沸騰する。\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, err) = verify(&sb, draft, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.starts_with(&format!(
            "{} 1 distinct source(s) cited",
            counts_prefix(2, 1, "50%", [1, 0, 0, 0])
        )),
        "{out}"
    );
    // A full-width question mark and semicolon split too.
    let line = stats(
        &sb,
        "これは本当に正しいのでしょうか？[unverified]それは誰にも分からない事実；\n",
    );
    assert!(
        line.starts_with(&counts_prefix(2, 1, "50%", [0, 0, 0, 1])),
        "{line}"
    );
}

#[test]
fn headings_tables_and_blank_lines_are_not_sentences() {
    let sb = ledger(0);
    let draft = "# A heading with many words in it\n\n| a table | row with | many words |\n\n> A quoted line with enough words.\n";
    let line = stats(&sb, draft);
    assert!(
        line.starts_with(&counts_prefix(1, 0, "0%", [0, 0, 0, 0])),
        "{line}"
    );
}

// ---- drafts written by render ------------------------------------------------------------

#[test]
fn a_draft_rendered_in_every_style_verifies() {
    let sb = Sandbox::new();
    sb.ok(&[
        "add",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        "--title",
        "Rust (programming language)",
    ]);
    sb.ok(&[
        "add",
        "https://example.com/a_b%20c?x=1&y=2",
        "--title",
        "R&D {100%} $5 #1",
    ]);
    sb.ok(&["add", "https://example.org/plain"]);
    quote(&sb, "1", "rust is a language");
    for style in STYLES {
        let draft = sb.file(
            &format!("{style}.md"),
            "# Report\n\nRust is a systems programming language.[1] Another claim is made here.[2]\nA third claim rests on this page.[3]\n",
        );
        sb.ok(&[
            "render",
            "--style",
            style,
            "--replace-in",
            draft.to_str().unwrap(),
        ]);
        for _ in 0..2 {
            sb.cite()
                .arg("verify")
                .arg(&draft)
                .arg("--strict")
                .assert()
                .success()
                .stderr("")
                .stdout(predicate::str::ends_with("citations OK\n"));
            // Rendering again changes nothing that verify sees.
            sb.ok(&[
                "render",
                "--style",
                style,
                "--replace-in",
                draft.to_str().unwrap(),
            ]);
        }
    }
}

#[test]
fn a_stale_block_is_caught_and_render_fixes_it() {
    let sb = ledger(2);
    let text = "Ice floats on liquid water.[1] Snow is frozen water here.[2]\n\n## Sources\n\n[1] https://s2.example/p\n";
    let draft = sb.file("draft.md", text);
    let (code, _, err) = verify(&sb, text, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "FAIL: cited but absent from the Sources block: [2] — run `cite render --replace-in "
        ),
        "{err}"
    );
    assert!(err.contains("FAIL: Sources block URL for [1] does not match the ledger (block: https://s2.example/p / ledger: https://s1.example/p) — re-run `render`"), "{err}");
    sb.ok(&["render", "--replace-in", draft.to_str().unwrap()]);
    sb.cite()
        .arg("verify")
        .arg(&draft)
        .assert()
        .success()
        .stderr("");
}

#[test]
fn epoch_verifies_against_an_old_numbering() {
    let sb = ledger(2);
    sb.ok(&["reset"]);
    let draft = "Ice floats on liquid water.[2]\n\n## Sources\n\n[2] https://s2.example/p\n";
    let (code, _, err) = verify(&sb, draft, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("citations not in the ledger (hallucinated or renumbered): [2]"),
        "{err}"
    );
    let (code, out, err) = verify(&sb, draft, &["--epoch", "1"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
}

// ---- issue 9: a draft that passes shows only ledger URLs and hides no sentence ---------

/// The draft of issue 9, item 1: a hand-typed Sources section with a made-up URL, and an
/// appendix after it.
const FAKE_SECTION: &str = "\
# Report

Ice floats on liquid water.[1]

## Sources

[2] https://evil.example.com/made-up

## Appendix

More text about the method is here.
";

/// Issue 9.
#[test]
fn a_hand_typed_sources_section_with_an_appendix_after_it_fails() {
    let sb = ledger(2);
    let (code, out, err, path) = verify_file(&sb, "draft.md", FAKE_SECTION, &[]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        err,
        format!(
            "FAIL: draft cites sources but has no `Sources:` block — run `cite render --replace-in {path}` (line 3)\n\
             FAIL: the Sources section at line 5 is not the generated block at the end of the draft: other text follows it at line 9 — keep your text under another heading, remove that Sources heading and the entries under it, then run `cite render --replace-in {path}` (line 5)\n\
             FAIL: a line outside the Sources block shows [2] with a URL that is not the ledger's (line: https://evil.example.com/made-up / ledger: https://s2.example/p) — delete it: cite sources as [N] alone, and let `cite render --replace-in {path}` write the entries (line 7)\n"
        )
    );
    // The fake entry is not prose: two sentences, neither of them the entry.
    assert!(
        out.starts_with(&counts_prefix(2, 1, "50%", [1, 0, 0, 0])),
        "{out}"
    );
}

/// Issue 9.
#[test]
fn a_second_block_appended_after_the_fake_one_still_fails() {
    // What `render --replace-in` used to write: the draft, then a second block.
    let sb = ledger(2);
    quote(&sb, "1", "ice floats on liquid water");
    let text = format!("{FAKE_SECTION}\n## Sources\n\n[1] https://s1.example/p\n");
    let (code, out, err, _) = verify_file(
        &sb,
        "draft.md",
        &text,
        &["--evidence", "--min-coverage", "0.6"],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with("verification failed\n"), "{out}");
    assert!(
        err.contains("FAIL: more than one Sources section (lines 5 and 13)"),
        "{err}"
    );
    assert!(
        err.contains("line: https://evil.example.com/made-up / ledger: https://s2.example/p"),
        "{err}"
    );
    assert!(err.contains("(line 7)\n"), "{err}");
    assert!(!err.contains("no `Sources:` block"), "{err}");
}

/// Issue 9.
#[test]
fn stacked_sources_blocks_fail_and_render_folds_them() {
    let sb = ledger(1);
    let text = "Ice floats on liquid water.[1]\n\n## Sources\n\n[1] https://s1.example/p\n\nSources:\n[1] https://s1.example/p\n";
    let (code, _, err, path) = verify_file(&sb, "draft.md", text, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "FAIL: more than one Sources section (lines 3 and 7) — run `cite render --replace-in {path}` to replace them with one block (line 7)\n"
        )
    );
    sb.ok(&["render", "--replace-in", &path]);
    let (code, _, err, _) = verify_file(
        &sb,
        "draft.md",
        &std::fs::read_to_string(&path).unwrap(),
        &["--strict"],
    );
    assert_eq!((code, err.as_str()), (0, ""));
}

/// Issue 9.
#[test]
fn a_source_entry_line_anywhere_must_carry_the_ledgers_url() {
    let sb = ledger(2);
    let good_block = "\n## Sources\n\n[1] https://s1.example/p\n";
    // Each stray line sits on line 3 of an otherwise good draft, with prose after it.
    for stray in [
        "[2] https://evil.example.com/x",
        "[2] - https://evil.example.com/x — Title",
        "[^2]: https://evil.example.com/x",
        "[^2]: As argued at https://evil.example.com/x",
        "[2]: https://evil.example.com/x",
        "- [2] https://evil.example.com/x",
        "> [2] https://evil.example.com/x",
        "1. [2] evil.example.com/x",
        "See [2] https://evil.example.com/x for the data.",
        "See the [2](https://evil.example.com/x) data here.",
        "Use `[2] https://evil.example.com/x` as the source.",
        "**[2]** https://evil.example.com/x",
        "| [2] | https://evil.example.com/x |",
        "See [[2]](https://evil.example.com/x) here.",
        "[2] <https://evil.example.com/x>",
        "<!-- [2] https://evil.example.com/x -->",
    ] {
        let text = format!(
            "Ice floats on liquid water.[1]\n\n{stray}\n\nMore prose follows it here.\n{good_block}"
        );
        let (code, out, err, _) = verify_file(&sb, "draft.md", &text, &[]);
        assert_eq!(code, 1, "{stray}: {out}");
        assert!(
            err.contains("shows [2] with a URL that is not the ledger's (line: "),
            "{stray}: {err}"
        );
        assert!(
            err.contains("evil.example.com/x / ledger: https://s2.example/p) — "),
            "{stray}: {err}"
        );
        assert!(err.contains("(line 3)\n"), "{stray}: {err}");
    }
    // Right before the block, a footnote is part of it: the block's check names it.
    let text =
        format!("Ice floats on liquid water.[1]\n\n[^2]: https://evil.example.com/x\n{good_block}");
    let (code, _, err, _) = verify_file(&sb, "draft.md", &text, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("FAIL: Sources block URL for [2] does not match the ledger (block: https://evil.example.com/x / ledger: https://s2.example/p)"),
        "{err}"
    );
    // In fenced code too, and as a BibTeX entry.
    for (lines, at) in [
        ("```\n[2] https://evil.example.com/x\n```", 4),
        (
            "@misc{source2,\n  title = {X},\n  howpublished = {\\url{https://evil.example.com/x}},\n}",
            3,
        ),
    ] {
        let text = format!(
            "Ice floats on liquid water.[1]\n\n{lines}\n\nMore prose follows it here.\n{good_block}"
        );
        let (code, _, err, _) = verify_file(&sb, "draft.md", &text, &[]);
        assert_eq!(code, 1, "{lines}");
        assert!(
            err.contains("shows [2] with a URL that is not the ledger's"),
            "{lines}: {err}"
        );
        assert!(err.contains(&format!("(line {at})\n")), "{lines}: {err}");
    }
    // An id the ledger does not have.
    let text = format!("Ice floats on liquid water.[1]\n\n[7] https://s7.example/p\n{good_block}");
    let (code, _, err, _) = verify_file(&sb, "draft.md", &text, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "FAIL: a line outside the Sources block lists [7], which is not in the ledger"
        ),
        "{err}"
    );
    // A line that does carry the ledger's URL passes.
    let text =
        format!("Ice floats on liquid water.[1]\n\n- [2] https://s2.example/p\n{good_block}");
    let (code, out, err, _) = verify_file(&sb, "draft.md", &text, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
}

/// Issue 9.
#[test]
fn a_raw_url_in_prose_warns_and_strict_fails() {
    let sb = ledger(1);
    let text = "Ice floats on liquid water.[1] The data is at https://unlisted.example.org/data.\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, err, _) = verify_file(&sb, "draft.md", text, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.contains("\nwarn: URL in the draft is not a registered source: https://unlisted.example.org/data — register it with `cite add https://unlisted.example.org/data` and cite the id it prints instead (line 1)\n"),
        "{out}"
    );
    let (code, out, _, _) = verify_file(&sb, "draft.md", text, &["--strict"]);
    assert_eq!(code, 1);
    assert!(out.ends_with("verification failed\n"), "{out}");
    // A registered URL, and URLs in code, draw no warning.
    let text = "Ice floats on liquid water.[1] It is also at https://s1.example/p/ today.\nRun `curl https://api.example.org/v1` to see it.\n\n```\nhttps://code.example.org\n```\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, err, _) = verify_file(&sb, "draft.md", text, &["--strict"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
}

/// Issue 9.
#[test]
fn malformed_markers_never_merge_sentences() {
    let sb = ledger(1);
    for marker in [
        "[tool:]",
        "[tool bad]",
        "[tool=bad]",
        "[tool:]]",
        "[[policy]]",
        "[policy]]",
        "[policy:]",
        "[unverified:bad]",
        "[12345]",
        "[1, 2]",
        "[tool: python]",
    ] {
        let text = format!(
            "An unsupported claim is made here.{marker} A separate sentence is here.[policy]\n"
        );
        let (code, out, err, _) = verify_file(&sb, "draft.md", &text, &["--min-coverage", "0.6"]);
        assert!(
            out.starts_with(&counts_prefix(2, 1, "50%", [0, 0, 1, 0])),
            "{marker}: {out}"
        );
        assert_eq!(code, 1, "{marker}");
        assert!(
            err.starts_with("FAIL: citation coverage 50% is below the required 60%"),
            "{marker}: {err}"
        );
    }
    // After a markdown closer too.
    let text = "*An unsupported claim is made here.*[tool:]] Next claim is stated here.[policy]\n";
    let (_, out, _, _) = verify_file(&sb, "draft.md", text, &[]);
    assert!(
        out.starts_with(&counts_prefix(2, 1, "50%", [0, 0, 1, 0])),
        "{out}"
    );
}

/// Issue 9.
#[test]
fn a_comment_hides_no_marker_and_glues_no_sentences() {
    let sb = ledger(1);
    let text = "An unsupported claim is made right here.<!-- [1] -->\nAnother claim is made right here.<!-- x --> A cited claim is here.[1]\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, _, _) = verify_file(&sb, "draft.md", text, &["--min-coverage", "0.5"]);
    assert!(
        out.starts_with(&counts_prefix(3, 1, "33%", [1, 0, 0, 0])),
        "{out}"
    );
    assert_eq!(code, 1);
}

/// Issue 9.
#[test]
fn malformed_markers_warn_with_the_correct_form() {
    let sb = ledger(2);
    let text = "\
A claim backed by two sources.[1, 2]
We ran the converter on it.[tool: python]
We ran another tool on it.[tool:]
The light has a longer wavelength. [1]
A policy is stated here.[[policy]]
";
    let (code, out, err, _) = verify_file(&sb, "draft.md", text, &[]);
    assert_eq!(code, 1, "{out}");
    let warns: Vec<&str> = out.lines().filter(|l| l.starts_with("warn: ")).collect();
    for expected in [
        "warn: malformed marker [1, 2] gives no provenance — write [1][2] (line 1) in sentence 1: \"A claim backed by two sources.[1, 2]\"",
        "warn: malformed marker [tool: python] gives no provenance — write [tool:python] (line 2) in sentence 2: \"We ran the converter on it.[tool: python]\"",
        "warn: malformed marker [tool:] gives no provenance — write [tool:NAME], NAME the tool you ran (line 3) in sentence 3: \"We ran another tool on it.[tool:]\"",
        "warn: marker after a space: \"wavelength. [1]\" — write \"wavelength.[1]\" (line 4) in sentence 4: \"The light has a longer wavelength. [1]\"",
        "warn: malformed marker [[policy]] gives no provenance — write [policy] (line 5) in sentence 5: \"A policy is stated here.[[policy]]\"",
    ] {
        assert!(warns.contains(&expected), "{expected}\n{out}");
    }
    // Only the [1] after a space counts, for the sentence it follows.
    assert!(
        out.starts_with(&counts_prefix(5, 1, "20%", [1, 0, 0, 0])),
        "{out}"
    );
    assert!(err.contains("no `Sources:` block"), "{err}");
}

/// Issue 9.
#[test]
fn code_is_never_a_citation() {
    let sb = ledger(0);
    // (`arr[1]` outside code is a citation the reader sees: issue 18.)
    let text = "Cite a source with `[2]` after the sentence.\nThe value of `arr[1]` is large here.\nA list uses `x[42]` and then `[42]` too.\n";
    let (code, out, err, path) = verify_file(&sb, "draft.md", text, &["--strict"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(
        out,
        format!(
            "{} 0 distinct source(s) cited, 0 in ledger (0 with evidence quotes)\ncitations OK\n",
            counts_prefix(3, 0, "0%", [0, 0, 0, 0])
        )
    );
    // The same rule picks what `render` lists.
    sb.ok(&["add", "https://s1.example/p"]);
    sb.ok(&["add", "https://s2.example/p"]);
    sb.cite()
        .args(["render", "--cited-in", &path])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no sources to render"));
}

/// Issue 9.
#[test]
fn an_unclosed_fence_warns_naming_its_line() {
    let sb = ledger(1);
    let text = "Ice floats on liquid water.[1]\n\n```python\nprint(1)\n";
    let (code, out, err, _) = verify_file(&sb, "draft.md", text, &[]);
    assert!(
        out.contains("\nwarn: the code fence opened at line 3 is never closed: everything after it is code — close it with a line ``` (line 3)\n"),
        "{out}"
    );
    assert_eq!(code, 1, "no block: {out}");
    assert!(err.contains("no `Sources:` block"), "{err}");
    // A block written after the open fence is code, not a block.
    let text = "Ice floats on liquid water.[1]\n\n~~~~\nprint(1)\n\n## Sources\n\n[1] https://s1.example/p\n";
    let (code, out, err, _) = verify_file(&sb, "draft.md", text, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("no `Sources:` block"), "{err}");
    assert!(out.contains("warn: the code fence opened at line 3 is never closed: everything after it is code — close it with a line ~~~~ (line 3)"), "{out}");
}

/// Issue 9.
#[test]
fn every_fail_says_what_to_run() {
    let sb = ledger(2);
    let ledger_path = sb.ledger.display().to_string();
    // An unknown id: remove it or register the page, in this ledger.
    let (code, _, err, _) = verify_file(&sb, "draft.md", "Ice floats on liquid water.[42]\n", &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("FAIL: citations not in the ledger (hallucinated or renumbered): [42] — remove them, or register each page with `cite add URL` and cite the id it prints (ledger: {ledger_path}) (line 1) in sentence 1: \"Ice floats on liquid water.[42]\"\n")),
        "{err}"
    );
    // An id of an earlier epoch: say so, and how to verify against it.
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://new.example/p"]);
    let text = "Ice floats on liquid water.[2]\n\n## Sources\n\n[2] https://s2.example/p\n";
    let (code, _, err, _) = verify_file(&sb, "draft.md", text, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("[2] is in epoch 1: if the draft was written before `cite reset`, verify it with `--epoch 1`"),
        "{err}"
    );
    assert_eq!(verify_file(&sb, "draft.md", text, &["--epoch", "1"]).0, 0);
}

/// Issue 9.
#[test]
fn a_coverage_failure_lists_every_uncovered_line() {
    let sb = ledger(0);
    let mut text = String::from("A claim from memory is flagged.[unverified]\n");
    for i in 0..25 {
        text.push_str(&format!("Bare claim number {i} stands here.\n"));
    }
    let (code, _, err, _) = verify_file(&sb, "draft.md", &text, &["--min-coverage", "0.5"]);
    assert_eq!(code, 1);
    assert!(
        err.ends_with("(lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 and 5 more)\n"),
        "{err}"
    );
    assert!(
        err.contains(
            "— give each sentence listed a marker: [N], [tool:NAME], [policy] or [unverified]"
        ),
        "{err}"
    );
    let (_, out, _, _) = verify_file(&sb, "draft.md", &text, &["--min-coverage", "0.5", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let lines: Vec<u64> = v["errors"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap())
        .collect();
    assert_eq!(lines, (2..=26).collect::<Vec<u64>>());
    assert_eq!(v["errors"][0]["line"], 2);
}
