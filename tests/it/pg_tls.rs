//! Issue 23, item 4: TLS to PostgreSQL, `sslmode` as libpq means it. Against the test
//! server of `.ci/postgres start`, which speaks TLS with a certificate made for the name
//! `localhost` only (`$CITE_TEST_POSTGRES_TLS`: its URL through `localhost` with
//! sslmode=verify-full and sslrootcert=DIR/tls/ca.pem; DIR/tls/other-ca.pem signed
//! nothing of it), and its PgBouncer, which speaks no TLS (`$CITE_TEST_PGBOUNCER`).

use std::time::{Duration, Instant};

use crate::util::{Outcome, cite_bin, missing_tool, plain_url, postgres_db_at};

/// The TLS server's URL, and the folder of its CA files.
fn tls_server() -> (String, std::path::PathBuf) {
    let url = match std::env::var("CITE_TEST_POSTGRES_TLS") {
        Ok(u) if !u.is_empty() => u,
        _ => missing_tool(
            "no PostgreSQL server with TLS: start one with `.ci/postgres start DIR` and \
             export CITE_TEST_POSTGRES_TLS=$(cat DIR/tls-url)",
        ),
    };
    let parsed = url::Url::parse(&url).expect("CITE_TEST_POSTGRES_TLS is a URL");
    let ca = parsed
        .query_pairs()
        .find(|(k, _)| k == "sslrootcert")
        .map(|(_, v)| std::path::PathBuf::from(v.as_ref()))
        .expect("CITE_TEST_POSTGRES_TLS names its sslrootcert");
    let dir = ca.parent().expect("the CA's folder").to_path_buf();
    (url, dir)
}

/// `url` with host `host` and the query `query` in place of its own.
fn with(url: &str, host: &str, query: &str) -> String {
    let mut u = url::Url::parse(url).expect("URL");
    u.set_host(Some(host)).expect("host");
    u.set_query(if query.is_empty() { None } else { Some(query) });
    u.to_string()
}

fn run(dir: &std::path::Path, ledger: &str, args: &[&str]) -> Outcome {
    let started = Instant::now();
    let out = cite_bin()
        .current_dir(dir)
        .arg("--ledger")
        .arg(ledger)
        .args(["--wait", "5"])
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run cite");
    Outcome::from_output(out, started.elapsed())
}

/// The modes that must connect, each one writing and reading: verify-full through the
/// name the certificate holds; verify-ca through an address it does not hold (the name
/// is not checked); require with channel binding required (which only a TLS connection
/// with SCRAM-SHA-256-PLUS passes: so TLS was used); require with a root certificate,
/// which libpq checks as verify-ca; prefer, which takes TLS when offered; disable.
#[test]
#[ignore = "needs a PostgreSQL server with TLS ($CITE_TEST_POSTGRES_TLS, $CITE_TEST_PGBOUNCER): .ci/postgres start DIR writes DIR/tls-url"]
fn every_sslmode_that_should_connect_writes_and_reads() {
    let (base, ca_dir) = tls_server();
    let db = postgres_db_at(base);
    let ca = ca_dir.join("ca.pem");
    let ca = ca.to_str().expect("a UTF-8 path");
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("localhost", format!("sslmode=verify-full&sslrootcert={ca}")),
        ("127.0.0.1", format!("sslmode=verify-ca&sslrootcert={ca}")),
        (
            "127.0.0.1",
            "sslmode=require&channel_binding=require".to_string(),
        ),
        ("127.0.0.1", format!("sslmode=require&sslrootcert={ca}")),
        (
            "127.0.0.1",
            "sslmode=prefer&channel_binding=require".to_string(),
        ),
        ("127.0.0.1", "channel_binding=require".to_string()),
        ("localhost", "sslmode=disable".to_string()),
    ];
    for (n, (host, query)) in cases.iter().enumerate() {
        let ledger = with(&db.url, host, query);
        let url = format!("https://tls{n}.example/");
        let added = run(dir.path(), &ledger, &["add", &url]);
        assert_eq!(added.code, 0, "{host} {query}: {added:?}");
        let listed = run(dir.path(), &ledger, &["list"]);
        assert_eq!(listed.code, 0, "{host} {query}: {listed:?}");
        let host_of = format!("tls{n}.example");
        assert!(
            listed.stdout.contains(&host_of),
            "{host} {query}: {listed:?}"
        );
        assert!(!added.stderr.contains("cite-ci"), "{added:?}");
    }
    // Plain text refuses channel binding: the check above proves TLS, not the setup.
    let plain = with(
        &db.url,
        "127.0.0.1",
        "sslmode=disable&channel_binding=require",
    );
    let refused = run(dir.path(), &plain, &["list"]);
    assert_eq!(refused.code, 1, "{refused:?}");
    let audit = run(
        dir.path(),
        &with(
            &db.url,
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        &["audit"],
    );
    assert_eq!(audit.code, 0, "{audit:?}");
}

/// The modes that must refuse, each with one line that says why, exit 1, no password,
/// nothing written: verify-full through an address the certificate does not name;
/// verify-ca and verify-full with a CA that signed nothing of the server's; require
/// against a server without TLS (PgBouncer here).
#[test]
#[ignore = "needs a PostgreSQL server with TLS ($CITE_TEST_POSTGRES_TLS, $CITE_TEST_PGBOUNCER): .ci/postgres start DIR writes DIR/tls-url"]
fn a_certificate_that_does_not_check_out_and_a_server_without_tls_are_refused() {
    let (base, ca_dir) = tls_server();
    let db = postgres_db_at(base);
    let ca = ca_dir.join("ca.pem");
    let other = ca_dir.join("other-ca.pem");
    let (ca, other) = (ca.to_str().unwrap(), other.to_str().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "127.0.0.1",
            format!("sslmode=verify-full&sslrootcert={ca}"),
            "not valid for name",
        ),
        (
            "localhost",
            format!("sslmode=verify-ca&sslrootcert={other}"),
            "UnknownIssuer",
        ),
        (
            "localhost",
            format!("sslmode=verify-full&sslrootcert={other}"),
            "UnknownIssuer",
        ),
        (
            "127.0.0.1",
            format!("sslmode=require&sslrootcert={other}"),
            "UnknownIssuer",
        ),
    ];
    for (host, query, says) in &cases {
        let ledger = with(&db.url, host, query);
        let o = run(dir.path(), &ledger, &["add", "https://refused.example/"]);
        assert_eq!(o.code, 1, "{host} {query}: {o:?}");
        let line = o.stderr.trim_end();
        assert!(
            line.starts_with("error: no TLS connection to the PostgreSQL server"),
            "{host} {query}: {line}"
        );
        assert!(line.contains(says), "{host} {query}: {line}");
        assert!(line.contains("sslrootcert"), "{line}");
        assert!(!line.contains('\n') && !line.contains("cite-ci"), "{line}");
    }
    assert!(
        db.tables().is_empty(),
        "a refused connection wrote: {:?}",
        db.tables()
    );
    // PgBouncer speaks no TLS: prefer falls back to plain text, require refuses.
    let pooled = match std::env::var("CITE_TEST_PGBOUNCER") {
        Ok(u) if !u.is_empty() => u,
        _ => missing_tool("no PgBouncer: export CITE_TEST_PGBOUNCER=$(cat DIR/pooled-url)"),
    };
    let mut u = url::Url::parse(&plain_url(&pooled)).expect("URL");
    u.set_path(&format!("/{}", db.name));
    let through = u.to_string();
    let prefer = run(
        dir.path(),
        &with(&through, "127.0.0.1", "sslmode=prefer"),
        &["add", "https://plain.example/"],
    );
    assert_eq!(prefer.code, 0, "{prefer:?}");
    let require = run(
        dir.path(),
        &with(&through, "127.0.0.1", "sslmode=require"),
        &["list"],
    );
    assert_eq!(require.code, 1, "{require:?}");
    assert!(
        require.stderr.contains("server does not support TLS"),
        "{require:?}"
    );
    assert!(
        require.stderr.starts_with("error: no TLS connection"),
        "{require:?}"
    );
}

/// What is wrong in the URL itself is a usage error (exit 2), before any connection:
/// an unknown sslmode, verify-full without a root certificate, an unreadable one.
#[test]
fn tls_settings_that_cannot_work_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (query, says) in [
        ("sslmode=required", "unknown sslmode \"required\""),
        ("sslmode=verify-full", "needs sslrootcert"),
        (
            "sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem",
            "cannot read it",
        ),
        ("sslcert=client.pem", "sslcert is not supported"),
    ] {
        // Nothing listens on port 9: a connection attempt would fail differently.
        let ledger = format!("postgres://cite:s3cret@127.0.0.1:9/db?{query}");
        let o = run(dir.path(), &ledger, &["list"]);
        assert_eq!(o.code, 2, "{query}: {o:?}");
        assert!(o.stderr.contains(says), "{query}: {o:?}");
        assert!(!o.stderr.contains("s3cret"), "{o:?}");
    }
}
