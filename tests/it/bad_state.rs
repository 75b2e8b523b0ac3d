//! Bad input and bad state through the binary: a `sources.py` JSON ledger, foreign and
//! damaged files, a directory where the ledger should be, malformed flags and input.
//! Each must end in one `error: …` line and the documented exit code, never a panic
//! message or a backtrace, and a foreign file must be left byte for byte as it was.

use std::path::Path;

use predicates::prelude::*;

use crate::util::{Sandbox, cite_bin};

/// Commands tried against every bad ledger: reads and a write.
const COMMANDS: &[&[&str]] = &[
    &["list"],
    &["list", "--json"],
    &["log"],
    &["show", "1"],
    &["add", "https://new.example"],
];

/// Runs `cite --ledger PATH ARGS…` with backtraces requested, and checks the failure is
/// reported as one clean error.
fn fails_cleanly(ledger: &Path, args: &[&str]) -> (i32, String) {
    let out = cite_bin()
        .env("RUST_BACKTRACE", "1")
        .arg("--ledger")
        .arg(ledger)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().expect("exited, not killed by a signal");
    assert_ne!(code, 0, "{args:?} succeeded on a bad ledger");
    assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "{args:?}: {stderr}");
    assert!(!stderr.contains("stack backtrace"), "{args:?}: {stderr}");
    (code, stderr)
}

/// A real ledger with a few sources and a reset in its history.
fn populated(sb: &Sandbox) {
    for i in 0..20 {
        sb.ok(&["add", &format!("https://s{i}.example/page"), "--title", "T"]);
    }
    sb.ok(&["reset"]);
    sb.ok(&["add", "https://after.example"]);
}

// ---- foreign files ---------------------------------------------------------------------

#[test]
fn a_sources_py_ledger_is_refused_with_an_import_hint_and_left_untouched() {
    let sb = Sandbox::new();
    let legacy = br#"{"version":1,"sources":[]}"#;
    std::fs::write(&sb.ledger, legacy).unwrap();
    for args in [
        &["add", "https://a.example"][..],
        &["list"],
        &["log"],
        &["reset"],
    ] {
        sb.cite().args(args).assert().code(1).stdout("").stderr(
            predicate::str::starts_with("error: ")
                .and(predicate::str::contains("sources.py"))
                .and(predicate::str::is_match(r"cite .*import").unwrap()),
        );
        assert_eq!(
            std::fs::read(&sb.ledger).unwrap(),
            legacy,
            "{args:?} changed it"
        );
    }
}

#[test]
fn a_populated_sources_py_ledger_is_refused_too() {
    let sb = Sandbox::new();
    let legacy = b"\n  {\n  \"version\": 1,\n  \"sources\": [\n    {\"id\": 1, \"url\": \"https://a.example\", \"title\": \"\", \"accessed\": \"2024-01-01\"}\n  ]\n}\n";
    std::fs::write(&sb.ledger, legacy).unwrap();
    sb.cite()
        .args(["add", "https://b.example"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("sources.py"));
    assert_eq!(std::fs::read(&sb.ledger).unwrap(), legacy);
}

#[test]
fn random_bytes_are_not_a_cite_ledger() {
    let sb = Sandbox::new();
    // Deterministic noise (xorshift), so a failure reproduces.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(&sb.ledger, &bytes).unwrap();
    for args in COMMANDS {
        let (code, stderr) = fails_cleanly(&sb.ledger, args);
        assert_eq!(code, 1, "{args:?}");
        assert!(stderr.contains("not a cite ledger"), "{args:?}: {stderr}");
        assert_eq!(std::fs::read(&sb.ledger).unwrap(), bytes);
    }
}

#[test]
fn a_text_file_is_not_a_cite_ledger() {
    let sb = Sandbox::new();
    let text = "Notes\n[1] https://a.example\n";
    let f = sb.file("notes.md", text);
    for args in COMMANDS {
        let (code, stderr) = fails_cleanly(&f, args);
        assert_eq!(code, 1, "{args:?}");
        assert!(stderr.contains("not a cite ledger"), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
}

#[test]
fn an_empty_file_is_a_new_ledger() {
    let sb = Sandbox::new();
    std::fs::write(&sb.ledger, b"").unwrap();
    assert_eq!(
        sb.ok(&["list"]),
        format!("ledger is empty: {}\n", sb.ledger.display())
    );
    assert_eq!(
        sb.ok(&["add", "https://a.example"]),
        "[1] https://a.example\n"
    );
    assert_eq!(sb.ok(&["list"]), "[1] https://a.example\n");
}

#[test]
fn a_directory_is_not_a_ledger() {
    let sb = Sandbox::new();
    std::fs::create_dir(&sb.ledger).unwrap();
    for args in COMMANDS {
        fails_cleanly(&sb.ledger, args);
    }
    assert!(sb.ledger.is_dir());
    assert_eq!(std::fs::read_dir(&sb.ledger).unwrap().count(), 0);
}

#[test]
fn a_ledger_under_a_file_cannot_be_created() {
    let sb = Sandbox::new();
    let file = sb.file("plain.txt", "x");
    let under = file.join("ledger.redb");
    let (code, stderr) = fails_cleanly(&under, &["add", "https://a.example"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("plain.txt"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

// ---- damaged stores --------------------------------------------------------------------

#[test]
fn a_truncated_store_fails_cleanly() {
    let sb = Sandbox::new();
    populated(&sb);
    let bytes = std::fs::read(&sb.ledger).unwrap();
    for cut in [bytes.len() / 2, 4096, 100] {
        let damaged = sb.path().join(format!("cut{cut}.redb"));
        std::fs::write(&damaged, &bytes[..cut]).unwrap();
        for args in COMMANDS {
            fails_cleanly(&damaged, args);
        }
    }
}

#[test]
fn flipped_bytes_in_every_page_fail_cleanly() {
    let sb = Sandbox::new();
    populated(&sb);
    let mut bytes = std::fs::read(&sb.ledger).unwrap();
    // Damage the start of every page after the file header, where redb keeps each
    // page's type and layout: no live page survives.
    for page in (4096..bytes.len()).step_by(4096) {
        for b in &mut bytes[page..page + 64] {
            *b ^= 0xA5;
        }
    }
    std::fs::write(&sb.ledger, &bytes).unwrap();
    for args in COMMANDS {
        let (code, _) = fails_cleanly(&sb.ledger, args);
        assert_eq!(code, 1, "{args:?}");
    }
}

#[test]
fn flipped_bytes_in_the_middle_never_panic() {
    let sb = Sandbox::new();
    populated(&sb);
    let mut bytes = std::fs::read(&sb.ledger).unwrap();
    let n = bytes.len();
    for b in &mut bytes[n / 4..3 * n / 4] {
        *b ^= 0xFF;
    }
    let failures = COMMANDS
        .iter()
        .filter(|args| {
            let damaged = sb.path().join("damaged.redb");
            std::fs::write(&damaged, &bytes).unwrap();
            let out = cite_bin()
                .env("RUST_BACKTRACE", "1")
                .arg("--ledger")
                .arg(&damaged)
                .args(**args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            // Stale copy-on-write pages may be what was hit, so a command may still
            // succeed; if it fails, it fails cleanly.
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            assert!(!stderr.contains("RUST_BACKTRACE"), "{args:?}: {stderr}");
            match out.status.code() {
                Some(0) => false,
                Some(1) => {
                    assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
                    true
                }
                other => panic!("{args:?}: exit {other:?}: {stderr}"),
            }
        })
        .count();
    assert!(failures > 0, "half the file inverted and nothing noticed");
}

// ---- bad flags and input ---------------------------------------------------------------

#[test]
fn bad_wait_values_are_usage_errors() {
    let sb = Sandbox::new();
    for bad in ["abc", "-1", "1e9", "NaN", ""] {
        sb.cite()
            .args(["--wait", bad, "list"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("error:"));
    }
    sb.cite()
        .args(["add", "https://a.example", "--wait", "abc"])
        .assert()
        .code(2);
    assert!(!sb.ledger.exists());
}

#[test]
fn unknown_commands_and_flags_are_usage_errors() {
    let sb = Sandbox::new();
    for args in [
        &["frobnicate"][..],
        &["list", "--bogus"],
        &["show"],
        &["show", "abc"],
        &["show", "-1"],
        &["log", "--id", "x"],
        &["list", "--epoch", "two"],
        &["ingest"],
        &[],
    ] {
        sb.cite()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("error:").or(predicate::str::starts_with("Usage")));
    }
    assert!(!sb.ledger.exists());
}

#[test]
fn epoch_zero_does_not_exist() {
    let sb = Sandbox::new();
    sb.ok(&["add", "https://a.example"]);
    sb.cite()
        .args(["list", "--epoch", "0"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("error: no epoch 0 "));
}

#[test]
fn bad_route_names_are_usage_errors() {
    let sb = Sandbox::new();
    let f = sb.file("r.json", r#"[{"url":"https://a.example"}]"#);
    for bad in ["two words", "", "-dash", "a/b"] {
        sb.cite()
            .args(["add", "https://a.example", "--via", bad])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error: "));
        sb.cite()
            .args(["ingest", "--via", bad])
            .arg(&f)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error: "));
    }
    assert!(!sb.ledger.exists());
}

#[test]
fn hostile_json_is_refused_without_a_crash() {
    let sb = Sandbox::new();
    let deep = sb.file("deep.json", &"[".repeat(200_000));
    sb.cite()
        .arg("ingest")
        .arg(&deep)
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: input is not valid JSON (",
        ));
    let deep_valid = format!(
        "{}{{\"url\":\"https://deep.example\"}}{}",
        "[".repeat(100),
        "]".repeat(100)
    );
    let f = sb.file("deep_ok.json", &deep_valid);
    sb.cite()
        .arg("ingest")
        .arg(&f)
        .assert()
        .success()
        .stdout("[1] https://deep.example\n");
    for (name, text) in [
        ("empty.json", ""),
        ("trailing.json", "[] []"),
        ("nul.json", "\0"),
    ] {
        let f = sb.file(name, text);
        sb.cite()
            .arg("ingest")
            .arg(&f)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with(
                "error: input is not valid JSON (",
            ));
    }
}

#[test]
fn a_url_that_looks_like_one_but_is_broken_is_skipped_by_ingest() {
    let sb = Sandbox::new();
    let f = sb.file(
        "r.json",
        r#"[{"url":"https://"},{"url":"http://[broken"},{"url":"https://ok.example"}]"#,
    );
    sb.cite()
        .arg("ingest")
        .arg(&f)
        .assert()
        .success()
        .stdout("[1] https://ok.example\n")
        .stderr(predicate::str::contains("warn: ").and(predicate::str::contains("panicked").not()));
}
