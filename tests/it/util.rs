#![allow(dead_code)]
//! Shared test helpers: each test gets its own temp dir, ledger path and `cite` command.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

/// A fresh folder with a ledger path in it (the ledger file is not created).
pub struct Sandbox {
    pub dir: TempDir,
    pub ledger: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = dir.path().join("ledger.redb");
        Sandbox { dir, ledger }
    }

    /// `cite --ledger LEDGER`, with a clean environment for the variables cite reads.
    pub fn cite(&self) -> Command {
        let mut cmd = cite_bin();
        cmd.arg("--ledger").arg(&self.ledger);
        cmd
    }

    /// Writes `text` to `name` inside the sandbox and returns its path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).expect("write fixture");
        p
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `cite --ledger LEDGER ARGS…`, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cite().args(args).output().expect("run cite");
        assert!(
            out.status.success(),
            "cite {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }
}

/// The `cite` binary with `CITE_LEDGER`, `CITE_ACTOR` and `XDG_DATA_HOME` removed.
pub fn cite_bin() -> Command {
    let mut cmd = Command::cargo_bin("cite").expect("cite binary");
    cmd.env_remove("CITE_LEDGER")
        .env_remove("CITE_ACTOR")
        .env_remove("XDG_DATA_HOME")
        .env("NO_COLOR", "1");
    cmd
}
