//! Passwords, as libpq finds them and as cite hides them.
//!
//! A URL without a password takes `$PGPASSWORD`, else the line of the password file
//! (`$PGPASSFILE`, else `~/.pgpass`) that matches it, so that no password need be in argv
//! where `ps` shows it. The library reads no environment: the front end reads it into a
//! [`PgEnv`].
//!
//! [`hide_password`] is the one hider of passwords in text: the command line every record
//! keeps, and every message that names a location, go through it.

use std::fmt;
use std::path::PathBuf;

use percent_encoding::percent_decode_str;
use tokio_postgres::Config;
use tokio_postgres::config::Host;

use super::pgpass;

/// What libpq would take from the environment of the user, read by the front end.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PgEnv {
    /// `$PGPASSWORD`.
    pub password: Option<String>,
    /// `$PGPASSFILE`.
    pub passfile: Option<PathBuf>,
    /// `$HOME`, for `~/.pgpass`.
    pub home: Option<PathBuf>,
}

impl fmt::Debug for PgEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgEnv")
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("passfile", &self.passfile)
            .field("home", &self.home)
            .finish()
    }
}

impl PgEnv {
    /// Completes `config` with a password when its URL gave none. Returns why a password
    /// file that is there was ignored, or that no password was found anywhere, for the
    /// message of a refused login.
    pub(super) fn complete(&self, config: &mut Config) -> Option<String> {
        if config.get_password().is_some() {
            return None;
        }
        if let Some(p) = self.password.as_ref().filter(|p| !p.is_empty()) {
            config.password(p.as_str());
            return None;
        }
        let file = self
            .passfile
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".pgpass")))?;
        // libpq matches a socket directory as `localhost`.
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(h)) => h.clone(),
            _ => "localhost".to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or_default();
        let dbname = config.get_dbname().unwrap_or(user);
        match pgpass::lookup(&file, &host, port, dbname, user) {
            Ok(Some(p)) => {
                config.password(p);
                None
            }
            Ok(None) => Some(
                "no password in --ledger, $PGPASSWORD, $PGPASSFILE or ~/.pgpass matched".into(),
            ),
            Err(why) => Some(why),
        }
    }
}

/// Text with the password of every PostgreSQL URL in it (`--ledger=URL`, a message that
/// quotes one) replaced by `***`: in the user information, which ends at the first `@`
/// as the driver reads it (so a password with `/` or `:` is hidden whole), and in any
/// `password=` parameter, its name percent-encoded or not. Other text is kept as it is.
pub fn hide_password(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_scheme(rest) {
        let (before, url) = rest.split_at(start);
        out.push_str(before);
        let end = url.find(char::is_whitespace).unwrap_or(url.len());
        out.push_str(&hide_in_url(&url[..end]));
        rest = &url[end..];
    }
    out.push_str(rest);
    out
}

/// Where the next `postgres://` or `postgresql://` starts, in any case.
fn find_scheme(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    [lower.find("postgres://"), lower.find("postgresql://")]
        .into_iter()
        .flatten()
        .min()
}

/// One URL, from its scheme to the first white space, with its passwords hidden.
fn hide_in_url(url: &str) -> String {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let (head, tail) = url.split_at(after_scheme);
    let mut out = head.to_string();
    let rest = match tail.find('@') {
        Some(at) => {
            match tail[..at].find(':') {
                Some(colon) => {
                    out.push_str(&tail[..=colon]);
                    out.push_str("***");
                }
                None => out.push_str(&tail[..at]),
            }
            &tail[at..]
        }
        None => tail,
    };
    let Some(q) = rest.find('?') else {
        out.push_str(rest);
        return out;
    };
    out.push_str(&rest[..=q]);
    let params: Vec<String> = rest[q + 1..]
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((key, _))
                if percent_decode_str(key)
                    .decode_utf8_lossy()
                    .trim()
                    .eq_ignore_ascii_case("password") =>
            {
                format!("{key}=***")
            }
            _ => param.to_string(),
        })
        .collect();
    out.push_str(&params.join("&"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form of a URL a user may write, and what a message shows of it.
    #[test]
    fn no_form_of_a_url_keeps_its_password() {
        let table = [
            ("postgres://u:p@h/db", "postgres://u:***@h/db"),
            ("PostgreSQL://u:p@h:5/db", "PostgreSQL://u:***@h:5/db"),
            ("postgres://u:a/b@h/db", "postgres://u:***@h/db"),
            ("postgres://u:a:b?c@h/db", "postgres://u:***@h/db"),
            ("postgres://u:a%40b%2Fc@h/db", "postgres://u:***@h/db"),
            ("postgres://u:@h/db", "postgres://u:***@h/db"),
            (
                "postgres://u@h/db?password=s",
                "postgres://u@h/db?password=***",
            ),
            (
                "postgres://u@h/db?sslmode=prefer&PassWord=s%2F1&x=y",
                "postgres://u@h/db?sslmode=prefer&PassWord=***&x=y",
            ),
            (
                "postgres://u@h/db?%70assword=s",
                "postgres://u@h/db?%70assword=***",
            ),
            (
                "postgres://u@h/db?password=a=b",
                "postgres://u@h/db?password=***",
            ),
            (
                "postgres://u:p@h/db?password=q",
                "postgres://u:***@h/db?password=***",
            ),
            (
                "postgres://u@h/db?passfile=/x",
                "postgres://u@h/db?passfile=/x",
            ),
            ("postgres://u@h/db", "postgres://u@h/db"),
            ("postgres://h/db", "postgres://h/db"),
            (
                "--ledger=postgresql://u:p@h/db",
                "--ledger=postgresql://u:***@h/db",
            ),
            (
                "at postgres://u:p@h/db and postgres://v:q@i/e?password=r — no",
                "at postgres://u:***@h/db and postgres://v:***@i/e?password=*** — no",
            ),
            ("https://u:p@h/x", "https://u:p@h/x"),
            ("postgres", "postgres"),
        ];
        for (given, shown) in table {
            assert_eq!(hide_password(given), shown, "{given}");
        }
    }

    fn config(url: &str) -> Config {
        url.parse().unwrap()
    }

    #[test]
    fn a_password_comes_from_the_url_then_pgpassword_then_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(&file, "h:5432:db:u:from-file\n").unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
        let env = PgEnv {
            password: Some("from-env".into()),
            passfile: Some(file.clone()),
            home: None,
        };
        let mut c = config("postgres://u:in-url@h/db");
        assert_eq!(env.complete(&mut c), None);
        assert_eq!(c.get_password(), Some(&b"in-url"[..]));
        let mut c = config("postgres://u@h/db");
        env.complete(&mut c);
        assert_eq!(c.get_password(), Some(&b"from-env"[..]));
        let env = PgEnv {
            password: None,
            ..env
        };
        let mut c = config("postgres://u@h/db");
        env.complete(&mut c);
        assert_eq!(c.get_password(), Some(&b"from-file"[..]));
        let mut c = config("postgres://u@h/other");
        let why = env.complete(&mut c).unwrap();
        assert!(
            why.contains("$PGPASSWORD") && why.contains("~/.pgpass"),
            "{why}"
        );
        assert_eq!(c.get_password(), None);
        // ~/.pgpass through $HOME.
        std::fs::copy(&file, dir.path().join(".pgpass")).unwrap();
        let env = PgEnv {
            home: Some(dir.path().to_path_buf()),
            ..PgEnv::default()
        };
        let mut c = config("postgres://u@h:5432/db");
        env.complete(&mut c);
        assert_eq!(c.get_password(), Some(&b"from-file"[..]));
    }
}
