//! Issue 23, items 5 and 7, against the test PostgreSQL server (ignored unless asked
//! for, and then failing without `$CITE_TEST_POSTGRES`): the password from
//! `$PGPASSWORD`, `$PGPASSFILE` and `~/.pgpass` (libpq's rules), so that none need be in
//! argv; and no form of a URL puts its password in the log, an error, a note to the model
//! or stdout.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::{Outcome, PgDb, cite_bin, postgres_db};

/// Runs `cite --ledger LEDGER ARGS…` in `dir` with `env` added, `$HOME` pointed at
/// `dir` so that the user's own `~/.pgpass` plays no part.
fn cite_env(dir: &Path, ledger: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let started = Instant::now();
    let mut cmd = cite_bin();
    cmd.current_dir(dir)
        .env("HOME", dir)
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .arg("--ledger")
        .arg(ledger)
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run cite");
    Outcome::from_output(out, started.elapsed())
}

/// Asserts a refused login: exit 1, one `error: …` line saying `says`; returns it.
fn refused_login(o: &Outcome, says: &[&str], what: &str) -> String {
    assert_eq!(o.code, 1, "{what}: {o:?}");
    let line = o.stderr.trim_end();
    assert!(
        line.starts_with("error: ") && !line.contains('\n'),
        "{what}: {line}"
    );
    for s in ["refused the login"].iter().chain(says) {
        assert!(line.contains(s), "{what}: {line:?} does not say {s:?}");
    }
    line.to_string()
}

/// A role of the test's own with `password`, owning a fresh database; dropped after.
struct Role {
    name: String,
    db: PgDb,
}

impl Role {
    fn new(password: &str) -> Role {
        let db = postgres_db();
        let name = format!("{}_role", db.name);
        let mut c = db.connect();
        c.batch_execute(&format!(
            "DROP ROLE IF EXISTS \"{name}\"; \
             CREATE ROLE \"{name}\" LOGIN PASSWORD '{}'; \
             ALTER DATABASE \"{}\" OWNER TO \"{name}\"; \
             GRANT CREATE ON SCHEMA public TO \"{name}\"",
            password.replace('\'', "''"),
            db.name
        ))
        .expect("create the role");
        Role { name, db }
    }

    fn host_port(&self) -> (String, u16) {
        let u = url::Url::parse(&self.db.url).unwrap();
        (u.host_str().unwrap().to_string(), u.port().unwrap())
    }

    /// The database's URL for this role, with `userinfo` (`ROLE[:PASSWORD]`) and `query`.
    fn url(&self, userinfo: &str, query: &str) -> String {
        let (host, port) = self.host_port();
        let mut s = format!("postgres://{userinfo}@{host}:{port}/{}", self.db.name);
        if !query.is_empty() {
            s.push('?');
            s.push_str(query);
        }
        s
    }

    /// A password file (mode `mode`) in `dir` with the line for this role.
    fn passfile(&self, dir: &Path, name: &str, password: &str, mode: u32) -> String {
        let (host, port) = self.host_port();
        let path = dir.join(name);
        let escaped = password.replace('\\', "\\\\").replace(':', "\\:");
        let line = format!(
            "# cite's test\n{host}:{port}:other_db:{0}:wrong\n{host}:{port}:{1}:{0}:{escaped}\n",
            self.name, self.db.name
        );
        std::fs::write(&path, line).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path.display().to_string()
    }
}

impl Drop for Role {
    fn drop(&mut self) {
        if let Ok(mut c) =
            postgres::Client::connect(&crate::util::plain_url(&self.db.base), postgres::NoTls)
        {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE); DROP ROLE IF EXISTS \"{}\"",
                self.db.name, self.name
            ));
        }
    }
}

/// Percent-encodes every byte of `s` that is not a letter or a digit.
fn encode_all(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// No form of a URL puts its password in the log, an error, a note to the model, or
/// stdout: a password with `/`, `@`, `:` and more, in the user information
/// (percent-encoded), as `password=` (its name encoded or not), in `$PGPASSWORD`,
/// `$PGPASSFILE` and `~/.pgpass`; each form logs in, and a wrong one is refused without
/// showing it.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES)"]
fn no_form_of_a_url_shows_its_password() {
    let secret = "Zq/9@x:y?w#v&u%t sp";
    let role = Role::new(secret);
    let dir = tempfile::tempdir().unwrap();
    let passfile = role.passfile(dir.path(), "pgpass", secret, 0o600);
    let enc = encode_all(secret);
    let r = &role.name;
    let forms: Vec<(String, Vec<(&str, &str)>)> = vec![
        (role.url(&format!("{r}:{enc}"), ""), vec![]),
        (role.url(r, &format!("password={enc}")), vec![]),
        (
            role.url(r, &format!("%70assword={enc}&sslmode=prefer")),
            vec![],
        ),
        (role.url(r, ""), vec![("PGPASSWORD", secret)]),
        (role.url(r, ""), vec![("PGPASSFILE", passfile.as_str())]),
    ];
    let leaks = |text: &str| {
        [secret, enc.as_str(), "9@x", "%2F9%40", "Zq/9", "Zq%2F9"]
            .iter()
            .any(|s| text.contains(s))
    };
    for (n, (url, env)) in forms.iter().enumerate() {
        let add_url = format!("https://s.example/{n}");
        for args in [
            vec!["add", add_url.as_str()],
            vec!["list"],
            vec!["log"],
            vec!["show", "1"],
            vec!["export", "--format", "jsonl"],
        ] {
            let o = cite_env(dir.path(), url, &args, env);
            assert_eq!(o.code, 0, "{url} {args:?} {env:?}: {}", o.stderr);
            assert!(
                !leaks(&o.stdout) && !leaks(&o.stderr),
                "{args:?} shows the password: {o:?}"
            );
        }
    }
    // ~/.pgpass, found through $HOME.
    std::fs::copy(&passfile, dir.path().join(".pgpass")).unwrap();
    let o = cite_env(dir.path(), &role.url(r, ""), &["list"], &[]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("https://s.example/4"), "{o:?}");
    // Wrong passwords, in every form: refused, and not shown.
    let wrong = "Wr/0@ng:pw";
    for url in [
        role.url(&format!("{r}:{}", encode_all(wrong)), ""),
        role.url(r, &format!("password={}", encode_all(wrong))),
        role.url(
            r,
            &format!("pass%77ord={}&sslmode=disable", encode_all(wrong)),
        ),
    ] {
        let o = cite_env(
            dir.path(),
            &url,
            &["--wait", "5", "add", "https://w.example"],
            &[],
        );
        let line = refused_login(&o, &[], &url);
        for shown in ["Wr/0", "0@ng", "Wr%2F", "ng%3Apw"] {
            assert!(!line.contains(shown), "{line}");
        }
    }
    // A parameter the driver does not know is refused as a usage error, and not shown.
    let url = role.url(r, &format!("PASSWORD={}", encode_all(wrong)));
    let o = cite_env(dir.path(), &url, &["list"], &[]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(
        o.stderr.contains("PASSWORD=***") && !o.stderr.contains("Wr%2F"),
        "{o:?}"
    );
    // The note a hook gives the model names the ledger without the password.
    let payload = json!({
        "hook_event_name": "PostToolUse",
        "tool_name": "WebFetch",
        "tool_input": {"url": "https://hook.example/p"},
        "tool_response": {"url": "https://hook.example/p", "code": 200}
    });
    let out = cite_bin()
        .current_dir(dir.path())
        .args(["--ledger", &forms[1].0, "hook", "claude-code"])
        .write_stdin(payload.to_string())
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run the hook");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("hook.example"), "{stdout}{stderr}");
    assert!(!leaks(&stdout) && !leaks(&stderr), "{stdout}{stderr}");
}

/// libpq's rules for the password file: a file its group may read is ignored, and the
/// refused login says so and how to fix it; `$PGPASSWORD` wins over the file.
#[test]
#[ignore = "needs a PostgreSQL server ($CITE_TEST_POSTGRES)"]
fn a_password_file_others_may_read_is_ignored_and_the_refusal_says_why() {
    let role = Role::new("file-pw-1");
    let dir = tempfile::tempdir().unwrap();
    let passfile = role.passfile(dir.path(), "pgpass", "file-pw-1", 0o640);
    let url = role.url(&role.name, "");
    let env = [("PGPASSFILE", passfile.as_str())];
    let o = cite_env(
        dir.path(),
        &url,
        &["--wait", "5", "add", "https://p.example"],
        &env,
    );
    refused_login(&o, &["mode 0640", "chmod 600"], "group-readable");
    std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = cite_env(dir.path(), &url, &["add", "https://p.example"], &env);
    assert_eq!(o.code, 0, "{o:?}");
    let o = cite_env(
        dir.path(),
        &url,
        &["--wait", "5", "list"],
        &[env[0], ("PGPASSWORD", "not-it")],
    );
    refused_login(&o, &[], "PGPASSWORD first");
    // No password anywhere: the refusal names the three places.
    let o = cite_env(dir.path(), &url, &["--wait", "5", "list"], &[]);
    refused_login(&o, &["PGPASSWORD", ".pgpass"], "no password");
}
