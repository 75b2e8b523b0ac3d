//! Issue 12, item 5: what a new user meets in the first five minutes — help that says
//! what a command needs, a closed pipe that is not called damage, and URL schemes that
//! are refused or accepted as the message says.

use std::process::Stdio;

use crate::util::Sandbox;

/// Runs `cite --ledger LEDGER ARGS…` with its stdout a pipe whose read end is already
/// closed, like `cite completions bash | head -c 10` once `head` has exited: every
/// write fails with EPIPE, so the outcome does not depend on timing.
fn run_into_closed_pipe(sb: &Sandbox, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cite"))
        .arg("--ledger")
        .arg(&sb.ledger)
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run cite");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// ---- a closed pipe ---------------------------------------------------------------------

/// Issue 12.
#[test]
fn completions_into_a_closed_pipe_is_not_ledger_damage() {
    let sb = Sandbox::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, stderr) = run_into_closed_pipe(&sb, &["completions", shell]);
        assert_eq!(code, 0, "{shell}: {stderr}");
        assert!(stderr.is_empty(), "{shell}: {stderr}");
    }
    assert!(!sb.ledger.exists(), "completions touch no ledger");
}

/// Issue 12.
#[test]
fn help_into_a_closed_pipe_is_quiet() {
    let sb = Sandbox::new();
    for args in [&["--help"][..], &["verify", "--help"], &["--version"]] {
        let (code, stderr) = run_into_closed_pipe(&sb, args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert!(!stderr.contains("damaged"), "{args:?}: {stderr}");
    }
}

// ---- URL schemes -----------------------------------------------------------------------

/// Issue 12: `add` keeps ftp and file URLs (a local PDF, an FTP archive), and a refusal
/// names the schemes it accepts, ftp and file included, so the message and the behaviour
/// agree.
#[test]
fn add_accepts_ftp_and_file_urls_as_its_message_says() {
    let sb = Sandbox::new();
    sb.cite()
        .args([
            "add",
            "ftp://ftp.example.org/pub/notes.txt",
            "file:///home/me/papers/ice.pdf",
        ])
        .assert()
        .success()
        .stdout("[1] ftp://ftp.example.org/pub/notes.txt\n[2] file:///home/me/papers/ice.pdf\n");
    for bad in [
        "mailto:someone@example.org",
        "gopher://old.example/1",
        "ftp://",
    ] {
        let out = sb.run(&["add", bad]);
        assert_eq!(out.code, 2, "{bad}: {out:?}");
        assert!(
            out.stderr.contains(&format!("error: not a URL: {bad:?}"))
                && out.stderr.contains(
                    "give an absolute http, https, ftp or file URL, doi:10.…, or arXiv:ID"
                ),
            "{bad}: {}",
            out.stderr
        );
    }
    assert_eq!(
        sb.ok(&["list"]).lines().count(),
        2,
        "refusals write nothing"
    );
}

// ---- help ------------------------------------------------------------------------------

fn help(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.run(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    out.stdout
}

/// Issue 12.
#[test]
fn verify_help_names_the_markers() {
    let sb = Sandbox::new();
    let text = help(&sb, &["verify", "--help"]);
    for marker in ["[N]", "[tool:NAME]", "[policy]", "[unverified]"] {
        assert!(text.contains(marker), "{marker} missing from:\n{text}");
    }
    assert!(text.contains("render --replace-in"), "{text}");
}

/// Issue 12.
#[test]
fn completions_help_shows_only_what_completions_takes() {
    let sb = Sandbox::new();
    let text = help(&sb, &["completions", "--help"]);
    assert!(text.contains("<SHELL>"), "{text}");
    assert!(!text.contains("--ledger"), "{text}");
    assert!(!text.contains("--wait"), "{text}");
    // Still accepted, before and after the subcommand, as every global flag is.
    let out = sb.run(&["completions", "bash", "--wait", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("_cite()"));
}

/// Issue 12.
#[test]
fn mcp_help_shows_how_to_register_the_server() {
    let sb = Sandbox::new();
    let text = help(&sb, &["mcp", "--help"]);
    assert!(text.contains("claude mcp add cite -- cite mcp"), "{text}");
    assert!(text.contains("mcpServers"), "{text}");
    assert!(
        text.contains(
            "add, ingest, quote, retract, retitle, list, show, reset, render, verify, export"
        ),
        "{text}"
    );
    assert!(text.contains("--transport http"), "{text}");
}

// ---- notes -----------------------------------------------------------------------------

/// Issue 12.
#[test]
fn title_with_several_urls_says_it_was_ignored() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "add",
        "https://a.example",
        "https://b.example",
        "--title",
        "T",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "[1] https://a.example\n[2] https://b.example\n");
    assert_eq!(
        out.stderr,
        "note: the title was ignored: a title applies only when one URL is given (got 2) — add each URL with its own title\n"
    );
    assert_eq!(
        sb.ok(&["list"]),
        "[1] https://a.example\n[2] https://b.example\n"
    );
    // One URL: the title is taken, and nothing is said.
    let out = sb.run(&["add", "https://c.example", "--title", "C"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
}
