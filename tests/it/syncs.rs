//! How many times a command makes the disk wait: the fdatasync and fsync calls of the real
//! binary, counted with strace. A durable `add` of a new URL needs one commit (two syncs:
//! redb's two-phase commit); an `add` of a URL already registered changes nothing and a
//! read writes nothing, so neither may sync at all.

use std::path::Path;
use std::process::Command as Process;

use crate::util::{Sandbox, cite_bin, missing_tool, runs};

/// strace, which must run: the tests that use it are ignored unless asked for.
fn strace() -> &'static str {
    if !runs(
        "strace",
        &["-f", "-e", "trace=none", "-o", "/dev/null", "true"],
    ) {
        missing_tool("strace does not run — install it (Debian: apt-get install strace)");
    }
    "strace"
}

/// Runs `cite --ledger LEDGER ARGS…` under strace; returns its stdout and how many
/// fdatasync/fsync calls it made. The command must succeed.
fn syncs(strace: &str, sandbox: &Sandbox, args: &[&str]) -> (String, usize) {
    let trace = sandbox.dir.path().join("trace.txt");
    let bin = cite_bin().get_program().to_owned();
    let out = Process::new(strace)
        .args([
            "-f",
            "-e",
            "trace=fdatasync,fsync,sync_file_range,msync",
            "-o",
        ])
        .arg(&trace)
        .arg(&bin)
        .arg("--ledger")
        .arg(&sandbox.ledger)
        .args(args)
        .env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER")
        .output()
        .expect("run strace");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "cite {args:?} failed: {}{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    (stdout, count_syncs(&trace))
}

fn count_syncs(trace: &Path) -> usize {
    std::fs::read_to_string(trace)
        .expect("read the trace")
        .lines()
        .filter(|l| {
            ["fdatasync(", "fsync(", "sync_file_range(", "msync("]
                .iter()
                .any(|call| l.contains(call))
        })
        .count()
}

#[test]
#[ignore = "needs strace: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn an_add_of_a_new_url_syncs_at_most_twice() {
    let strace = strace();
    let s = Sandbox::new();
    s.ok(&["add", "https://first.example"]);
    for (i, url) in ["https://a.example", "https://b.example"]
        .iter()
        .enumerate()
    {
        let (out, n) = syncs(strace, &s, &["add", url]);
        assert_eq!(out, format!("[{}] {url}\n", i + 2));
        assert!(n <= 2, "add of a new URL made {n} syncs, at most 2 allowed");
        assert!(
            n >= 1,
            "add of a new URL made no sync: it cannot be durable"
        );
    }
    // Several URLs in one add are one commit.
    let (_, n) = syncs(
        strace,
        &s,
        &["add", "https://c.example", "https://d.example"],
    );
    assert!(n <= 2, "add of two new URLs made {n} syncs");
    s.ok(&["audit"]);
}

#[test]
#[ignore = "needs strace: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn an_add_of_a_registered_url_does_not_sync() {
    let strace = strace();
    let s = Sandbox::new();
    s.ok(&["add", "https://a.example", "--title", "A"]);
    let (out, n) = syncs(strace, &s, &["add", "https://a.example"]);
    assert_eq!(out, "[1] https://a.example\n");
    assert_eq!(n, 0, "add of a registered URL made {n} syncs");
    // The same URL as given in another spelling is the same source.
    let (out, n) = syncs(strace, &s, &["add", "https://A.example/"]);
    assert_eq!(out, "[1] https://a.example\n");
    assert_eq!(n, 0, "add of a registered URL made {n} syncs");
    s.ok(&["audit"]);
}

#[test]
#[ignore = "needs strace: see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn reads_do_not_sync() {
    let strace = strace();
    let s = Sandbox::new();
    s.ok(&["add", "https://a.example", "--title", "A"]);
    let draft = s.file("draft.md", "The first claim here has a source.[1]\n");
    let draft = draft.to_str().unwrap();
    s.ok(&["render", "--replace-in", draft]);
    for args in [
        &["list"][..],
        &["show", "1"],
        &["log"],
        &["export", "--format", "jsonl"],
        &["render"],
        &["verify", draft],
    ] {
        let (_, n) = syncs(strace, &s, args);
        assert_eq!(n, 0, "cite {args:?} made {n} syncs");
    }
}
