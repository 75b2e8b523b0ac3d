//! Shared helpers for the whole-process benches: locating the release binary, generating
//! `ingest` input and building large ledgers in a temporary directory.

#![allow(dead_code)] // each bench target uses a subset

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `cite` binary cargo built for this bench run.
pub const CITE: &str = env!("CARGO_BIN_EXE_cite");

/// A `cite` command on `ledger`, isolated from the caller's environment, output discarded.
pub fn cite(ledger: &Path) -> Command {
    let mut cmd = Command::new(CITE);
    cmd.arg("--ledger")
        .arg(ledger)
        .env_remove("CITE_LEDGER")
        .env_remove("CITE_ACTOR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Runs `cmd` to completion and panics, with its stderr, if it failed.
pub fn run_ok(cmd: &mut Command) {
    let out = cmd.output().expect("spawn cite");
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Tool output holding `n` distinct URLs (`https://siteS.example/page/I`) with titles.
pub fn ingest_json(n: usize) -> String {
    let mut s = String::with_capacity(n * 72 + 16);
    s.push_str("{\"results\":[");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        write!(
            s,
            "{{\"url\":\"https://site{}.example/page/{i}\",\"title\":\"Page {i} of a generated corpus\"}}",
            i % 1000
        )
        .unwrap();
    }
    s.push_str("]}");
    s
}

/// Writes `ingest_json(n)` to `dir/ingest-N.json` and returns its path.
pub fn write_ingest_file(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join(format!("ingest-{n}.json"));
    std::fs::write(&path, ingest_json(n)).expect("write ingest input");
    path
}

/// A ledger of `n` sources built by one `cite ingest` in `dir`.
pub fn build_ledger(dir: &Path, n: usize) -> PathBuf {
    let input = write_ingest_file(dir, n);
    let ledger = dir.join(format!("ledger-{n}.redb"));
    run_ok(cite(&ledger).arg("ingest").arg(&input));
    std::fs::remove_file(input).ok();
    ledger
}
