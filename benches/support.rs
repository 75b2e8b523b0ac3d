//! `verify --support` (issue 21): a 100-citation report against 100 cited pages of 50 KB
//! each must add under 200 ms to `verify`, with peak memory under 3× the input.
//!
//! The pages are made of the real extracted pages of `tests/fixtures/support/pages`
//! (news, docs, recipes, CJK, Cyrillic, Arabic): page `[k]` is the source page of the
//! k-th sentence followed by the pages after it, to 50 KB, so the 100 pages are 100
//! different texts. The report's sentences are the labelled cases of
//! `tests/fixtures/support/cases.json`, so that most figures are found and some (the
//! drifted ones) are not and get their closest candidate.
//!
//! Three measurements: the check alone (`cite_core::support::check`, in process), and
//! whole `cite verify` processes with and without `--support` on the same ledger and
//! draft; the difference of the last two is what `--support` adds. Before criterion runs,
//! one `verify --support` process is run alone and its peak RSS printed against the input
//! size (the draft and the page texts).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;

use common::{cite, run_ok};

const PAGES: usize = 100;
const PAGE_BYTES: usize = 50 * 1024;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/support")
}

/// The labelled cases: (page number, sentence).
fn cases() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(fixtures().join("cases.json")).expect("cases.json");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("cases are JSON");
    cases
        .iter()
        .map(|c| {
            (
                c["page"].as_str().unwrap().to_string(),
                c["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The page cited as `[k]`: fixture page `page`, then the fixture pages after it in turn,
/// to [`PAGE_BYTES`]: 50 KB of real text, each of the 100 pages a different text (the
/// ledger stores a text once, however many sources share it).
fn page_text(k: usize, page: &str) -> String {
    let dir = fixtures().join("pages");
    let first: usize = page.parse().expect("a page number");
    let mut out = format!("Page {k} of the benchmark.\n\n");
    for n in (0..).map(|i| (first - 1 + i) % 40 + 1) {
        if out.len() >= PAGE_BYTES {
            break;
        }
        let text = std::fs::read_to_string(dir.join(format!("{n:02}.md"))).expect("page");
        out.push_str(&text);
        out.push_str("\n\n");
    }
    out
}

/// The report and its pages: (draft body, each page's text, by id 1..=100).
fn inputs() -> (String, Vec<String>) {
    let cases = cases();
    let mut draft = String::from("# Report\n\n");
    let mut pages = Vec::new();
    for k in 0..PAGES {
        let (page, sentence) = &cases[k * cases.len() / PAGES];
        draft.push_str(&format!("{sentence}[{}]\n\n", k + 1));
        pages.push(page_text(k + 1, page));
    }
    (draft, pages)
}

fn support(c: &mut Criterion) {
    let (body, pages) = inputs();

    // The check alone, in process.
    let summary = cite_core::draft::summarize_cited(&body);
    let ids: Vec<Vec<u64>> = summary.1.iter().map(|s| s.cited.clone()).collect();
    let cited: Vec<cite_core::support::Cited<'_>> = summary
        .1
        .iter()
        .zip(&ids)
        .map(|(s, ids)| cite_core::support::Cited {
            line: s.line,
            text: s.text,
            ids,
            ..Default::default()
        })
        .collect();
    let mut store = cite_core::support::Pages::default();
    for (k, text) in pages.iter().enumerate() {
        store.add(k as u64 + 1, text.clone());
    }
    let mut g = c.benchmark_group("support");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("check: 100 sentences, 100 pages of 50 KB", |b| {
        b.iter(|| cite_core::support::check(&cited, &mut store))
    });

    // Whole processes on a ledger holding the pages as snapshots.
    let dir = tempfile::tempdir().expect("temp dir");
    let ledger = dir.path().join("ledger.redb");
    for (k, text) in pages.iter().enumerate() {
        let file = dir.path().join("page.md");
        std::fs::write(&file, text).expect("write page");
        run_ok(
            cite(&ledger)
                .args([
                    "add",
                    &format!("https://pages.example/{}", k + 1),
                    "--snapshot",
                ])
                .arg(&file),
        );
    }
    let draft = dir.path().join("report.md");
    std::fs::write(&draft, &body).expect("write draft");
    run_ok(cite(&ledger).arg("render").arg("--replace-in").arg(&draft));
    let input_bytes = std::fs::metadata(&draft).unwrap().len() as usize
        + pages.iter().map(String::len).sum::<usize>();
    if let Some(kib) = peak_rss_kib(&ledger, &draft) {
        eprintln!(
            "support: peak RSS of `verify --support`: {:.1} MiB for {:.1} MiB of input (draft and page texts): {:.2}×",
            kib as f64 / 1024.0,
            input_bytes as f64 / (1024.0 * 1024.0),
            kib as f64 * 1024.0 / input_bytes as f64
        );
    }
    // `verify` exits 1 on the drifted sentences: that is the report, not a failure.
    let verify = |support: bool| {
        let mut cmd = cite(&ledger);
        cmd.arg("verify").arg(&draft);
        if support {
            cmd.arg("--support");
        }
        let out = cmd.output().expect("spawn cite");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    };
    g.bench_function("cite verify (100 citations, 100 pages of 50 KB)", |b| {
        b.iter(|| verify(false))
    });
    g.bench_function(
        "cite verify --support (100 citations, 100 pages of 50 KB)",
        |b| b.iter(|| verify(true)),
    );
    g.finish();
}

/// Peak RSS (KiB) of one `verify --support` run, from GNU time, if it is installed.
fn peak_rss_kib(ledger: &Path, draft: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out = std::process::Command::new(time)
        .args(["-f", "%M"])
        .arg(common::CITE)
        .arg("--ledger")
        .arg(ledger)
        .arg("verify")
        .arg(draft)
        .arg("--support")
        .env_remove("CITE_LEDGER")
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines().last()?.trim().parse().ok()
}

criterion_group!(benches, support);
criterion_main!(benches);
