//! Issue 24, item 7: `audit` on a full disk. The file check works on a scratch copy of the
//! ledger and the log audit replays into a scratch redb file; with no room left on the
//! ledger's disk or in the temporary folder, `audit` failed ("cannot copy for the file
//! check … No space left on device") although nothing was wrong with the ledger.
//!
//! A full disk is made for real: a 1 MiB tmpfs in a private mount namespace
//! (`unshare --mount`, as root or with `--map-root-user`), holding the ledger, the
//! temporary folder and `/dev/shm`, filled to the last block.

use std::path::Path;
use std::process::Command;

use crate::util::Sandbox;

/// Runs `script` (sh) in a private mount namespace where `$FULL` is a 1 MiB tmpfs
/// holding a copy of `ledger` as `$FULL/ledger.redb`, then filled; `$CITE` is the
/// binary. Returns (exit code of the script, stdout, stderr).
fn on_a_full_disk(ledger: &Path, work: &Path, script: &str) -> (i32, String, String) {
    let full = work.join("full");
    std::fs::create_dir_all(&full).unwrap();
    let setup = format!(
        "set -e
mount -t tmpfs -o size=1m tmpfs \"$FULL\"
cp \"$LEDGER\" \"$FULL/ledger.redb\"
dd if=/dev/zero of=\"$FULL/filler\" bs=4k >/dev/null 2>&1 || true
# Not one more byte fits.
if printf x >> \"$FULL/filler\" 2>/dev/null; then echo 'the disk is not full' >&2; exit 99; fi
# The temporary folder and /dev/shm are full too.
mount --bind \"$FULL\" /dev/shm
export TMPDIR=\"$FULL\"
set +e
{script}"
    );
    let root = crate::util::is_root();
    let mut cmd = Command::new("unshare");
    cmd.arg("--mount");
    if !root {
        cmd.arg("--map-root-user");
    }
    let out = cmd
        .args(["sh", "-c", &setup])
        .env("FULL", &full)
        .env("LEDGER", ledger)
        .env("CITE", assert_cmd::cargo::cargo_bin("cite"))
        .env_remove("CITE_LEDGER")
        .output()
        .expect("run unshare (util-linux)");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A ledger with sources, page texts and quotes.
fn ledger() -> Sandbox {
    let sb = Sandbox::new();
    let page = sb.file(
        "page.txt",
        "Ice is about 9% less dense than liquid water, so it floats on lakes.",
    );
    for i in 1..=20 {
        sb.ok(&["add", &format!("https://s{i}.example/p"), "--title", "T"]);
    }
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "less dense than liquid water",
        "--from",
        page.to_str().unwrap(),
    ]);
    sb.ok(&[
        "quote",
        "2",
        "--text",
        "it floats on lakes",
        "--from",
        page.to_str().unwrap(),
    ]);
    sb
}

#[test]
#[ignore = "needs unshare --mount (util-linux): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn audit_passes_on_a_full_disk_and_says_where_it_checked() {
    let sb = ledger();
    let (code, out, err) = on_a_full_disk(
        &sb.ledger,
        sb.path(),
        "\"$CITE\" --ledger \"$FULL/ledger.redb\" audit; echo \"exit=$?\"
\"$CITE\" --ledger \"$FULL/ledger.redb\" audit --json",
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("audit OK: 22 records"),
        "a sound ledger on a full disk passes its audit:\n{out}\n{err}"
    );
    assert!(out.contains("exit=0"), "{out}\n{err}");
    assert!(!err.contains("No space left"), "{err}");
    // It says how the checks ran without room on disk.
    assert!(
        out.contains("\nnote: no disk had room for a scratch copy of the ledger (the ledger's folder, the temporary folder, /dev/shm): the file check ran on a copy in memory\n"),
        "{out}"
    );
    assert!(
        out.contains("\nnote: the temporary folder had no room for the replay's scratch file: the log was replayed in memory\n"),
        "{out}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&out[out.find("\n{").map_or(0, |i| i + 1)..]).expect("JSON");
    assert_eq!(json["ok"], true, "{json}");
    assert_eq!(json["quotes_rechecked"], 2, "{json}");
    assert!(
        json["notes"].as_array().is_some_and(|n| !n.is_empty()),
        "{json}"
    );
}

#[test]
#[ignore = "needs unshare --mount (util-linux): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn audit_on_a_full_disk_still_finds_damage() {
    let sb = ledger();
    // A quote's page text changed in the ledger: the evidence re-check must still run.
    let (code, out, err) = on_a_full_disk(
        &sb.ledger,
        sb.path(),
        "\"$CITE\" --ledger \"$FULL/ledger.redb\" audit; echo \"exit=$?\"",
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("exit=0"), "{out}\n{err}");
    // Damage one record's bytes on a full disk: the audit must say so, not "no space".
    let damaged = sb.path().join("damaged.redb");
    std::fs::copy(&sb.ledger, &damaged).unwrap();
    let mut bytes = std::fs::read(&damaged).unwrap();
    let url = b"https://s7.example/p";
    let mut changed = 0;
    for at in 0..bytes.len() - url.len() {
        if &bytes[at..at + url.len()] == url {
            bytes[at + 10] = b'X';
            changed += 1;
        }
    }
    assert!(changed > 0, "the URL is stored as is");
    std::fs::write(&damaged, &bytes).unwrap();
    let (code, out, err) = on_a_full_disk(
        &damaged,
        sb.path(),
        "\"$CITE\" --ledger \"$FULL/ledger.redb\" audit; echo \"exit=$?\"",
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("exit=1"), "{out}\n{err}");
    assert!(err.contains("FAIL: "), "{err}");
    assert!(!err.contains("No space left"), "{err}");
}
