//! The password file (`~/.pgpass`, `$PGPASSFILE`, `passfile=`), read by libpq's rules:
//! lines `HOST:PORT:DATABASE:USER:PASSWORD`, the first that matches wins; `*` matches
//! any value of a field; `\:` and `\\` stand for `:` and `\`; a line starting with `#`
//! is a comment. A file that is not a regular file, or that its group or others may
//! read or write, is ignored, as libpq ignores it; the caller hears why.

use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

/// Bytes read at most: a password file is a few lines.
const MAX_BYTES: u64 = 1 << 20;

/// The password of the first line that matches, `None` when there is no file or no
/// line matches; `Err` says why a file that is there was ignored.
pub fn lookup(
    file: &Path,
    host: &str,
    port: u16,
    dbname: &str,
    user: &str,
) -> Result<Option<String>, String> {
    // Checked before it is opened, so that a FIFO there is never opened (and never
    // hangs the login).
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(_) => return Ok(None),
    };
    if !meta.is_file() {
        return Err(format!(
            "the password file {} is not a regular file, so it was ignored",
            file.display()
        ));
    }
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "the password file {} was ignored: its group or others may read it (mode {:04o}; run `chmod 600 {}`)",
            file.display(),
            mode & 0o7777,
            file.display()
        ));
    }
    let mut text = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_BYTES).read_to_end(&mut text))
        .map_err(|e| format!("the password file {} cannot be read: {e}", file.display()))?;
    let port = port.to_string();
    let wanted = [host, port.as_str(), dbname, user];
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .find_map(|line| matches(line, &wanted)))
}

/// The password of `line` when its four fields match `wanted`.
fn matches(line: &str, wanted: &[&str; 4]) -> Option<String> {
    let mut rest = line;
    for token in wanted {
        rest = field_matches(rest, token)?;
    }
    // The password runs to the first unescaped `:`, unescaped.
    let mut password = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            ':' => break,
            '\\' => match chars.next() {
                Some(next) => password.push(next),
                None => password.push('\\'),
            },
            c => password.push(c),
        }
    }
    Some(password)
}

/// What follows the field at the start of `line` when it matches `token` (`*` matches
/// anything; a backslash escapes the next character), as libpq's `pwdfMatchesString`.
fn field_matches<'a>(line: &'a str, token: &str) -> Option<&'a str> {
    if let Some(rest) = line.strip_prefix("*:") {
        return Some(rest);
    }
    let mut want = token.chars();
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        let (c, escaped) = match c {
            '\\' => match chars.next() {
                Some((_, next)) => (next, true),
                None => return None,
            },
            c => (c, false),
        };
        if c == ':' && !escaped {
            return want.next().is_none().then(|| &line[i + 1..]);
        }
        if want.next() != Some(c) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str, mode: u32) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        f
    }

    #[test]
    fn the_first_matching_line_wins_with_wildcards_and_escapes() {
        let f = file(
            "# a comment\n\
             other:5432:db:u:wrong\n\
             h:5433:db:u:wrong-port\n\
             h:5432:db:u:p\\:a\\\\ss:trailing\n\
             *:*:*:*:fallback\n",
            0o600,
        );
        let find = |host: &str, port: u16, db: &str, user: &str| {
            lookup(f.path(), host, port, db, user).unwrap()
        };
        assert_eq!(find("h", 5432, "db", "u").as_deref(), Some("p:a\\ss"));
        assert_eq!(find("h", 5432, "db", "v").as_deref(), Some("fallback"));
        let g = file("a\\:b:*:*:u:colon-host\r\nh:5432:db:u:\n", 0o400);
        let found = lookup(g.path(), "a:b", 1, "x", "u").unwrap();
        assert_eq!(found.as_deref(), Some("colon-host"));
        assert_eq!(
            lookup(g.path(), "h", 5432, "db", "u").unwrap().as_deref(),
            Some("")
        );
        assert_eq!(lookup(g.path(), "hh", 5432, "db", "u").unwrap(), None);
        // A prefix of a field is no match.
        assert_eq!(lookup(g.path(), "a", 1, "x", "u").unwrap(), None);
    }

    #[test]
    fn a_file_others_may_read_or_that_is_not_a_file_is_ignored_with_the_reason() {
        let f = file("*:*:*:*:p\n", 0o640);
        let e = lookup(f.path(), "h", 1, "d", "u").unwrap_err();
        assert!(e.contains("mode 0640") && e.contains("chmod 600"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = lookup(dir.path(), "h", 1, "d", "u").unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        assert_eq!(lookup(&dir.path().join("none"), "h", 1, "d", "u"), Ok(None));
    }
}
