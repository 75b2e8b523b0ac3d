//! Whole-process latency of `cite` commands (SPEC §5): `add` of a new URL into an empty
//! ledger and into one of 100,000 sources, and read-only commands on the 100k ledger
//! (`show`, `render --only`, a small `verify`; `list --json` as a full-dump reference).
//!
//! Every iteration spawns the release binary, so the numbers include process start-up,
//! opening the store and (for `add`) the durable commit.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use common::{build_ledger, cite, run_ok};

/// Unique across the whole run, so every `add` registers a URL the ledger has not seen.
static NEXT: AtomicU64 = AtomicU64::new(0);

fn fresh_url() -> String {
    format!(
        "https://bench.example/new/{}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn add(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    // "Empty" starts with no file at all; it grows only by the bench's own adds (a few
    // thousand at most), which is what a fresh session sees.
    let empty = dir.path().join("empty.redb");
    run_ok(cite(&empty).args(["add", &fresh_url()]));
    let big = build_ledger(dir.path(), 100_000);

    let mut g = c.benchmark_group("cli/add");
    g.sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("empty", |b| {
        b.iter(|| run_ok(cite(&empty).args(["add", &fresh_url()])))
    });
    g.bench_function("100k", |b| {
        b.iter(|| run_ok(cite(&big).args(["add", &fresh_url()])))
    });
    g.finish();

    let mut g = c.benchmark_group("cli/read-100k");
    g.sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("show 1", |b| {
        b.iter(|| run_ok(cite(&big).args(["show", "1"])))
    });
    g.bench_function("render --only 1,3,5-7", |b| {
        b.iter(|| run_ok(cite(&big).args(["render", "--only", "1,3,5-7"])))
    });
    let draft = small_draft(dir.path(), &big);
    g.bench_function("verify small draft", |b| {
        b.iter(|| run_ok(cite(&big).arg("verify").arg(&draft)))
    });
    g.bench_function("list --json", |b| {
        b.iter(|| run_ok(cite(&big).args(["list", "--json"])))
    });
    g.finish();
}

/// A two-sentence draft citing [1] and [2], with the Sources block `render` makes for them.
fn small_draft(dir: &Path, ledger: &Path) -> PathBuf {
    let out = cite(ledger)
        .args(["render", "--only", "1,2"])
        .stdout(Stdio::piped())
        .output()
        .expect("spawn cite render");
    assert!(out.status.success(), "render failed: {out:?}");
    let mut text = String::from(
        "The first claim is stated here clearly [1].\n\nThe second claim follows from it [2].\n\n",
    );
    text.push_str(&String::from_utf8(out.stdout).expect("utf-8 render"));
    let path = dir.join("draft.md");
    std::fs::write(&path, text).expect("write draft");
    path
}

criterion_group!(benches, add);
criterion_main!(benches);
