//! URL canonicalization: what makes two spellings of a page one source.
//!
//! Parsing is the `url` crate's (WHATWG): scheme and host case, default ports, IDNA,
//! dot segments and percent-encoding of what must be encoded. On top of it: the fragment
//! and trailing slashes are dropped (`/page`, `/page/` and `/page#s` are one source), an
//! empty query is dropped, percent escapes are upper-cased and unreserved characters
//! decoded (RFC 3986 §6.2.2), and `doi:` / `arXiv:` identifiers become their https form.
//! The result is a fixed point: canonicalizing it again returns it unchanged.

use url::{Position, Url};

/// Why an argument is not accepted as a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
// The schemes named here are [`SCHEMES`]: a message that says less than `add` accepts
// reads as if a working `file://` or `ftp://` URL were a mistake.
#[error(
    "not a URL: {given:?} ({reason}) — give an absolute http, https, ftp or file URL, doi:10.…, or arXiv:ID"
)]
pub struct UrlError {
    pub given: String,
    pub reason: String,
}

fn refuse(given: &str, reason: impl Into<String>) -> UrlError {
    UrlError {
        given: given.to_string(),
        reason: reason.into(),
    }
}

/// Schemes a citable source can have: the web's, and ftp and file for archives and local
/// documents (a PDF on disk is a source a report can cite, and `sources.py` kept any
/// string). `ingest` keeps only http(s), as `sources.py` does.
const SCHEMES: &[&str] = &["http", "https", "ftp", "file"];

/// The canonical form of `input`, or why it is not a URL.
pub fn canonicalize(input: &str) -> Result<String, UrlError> {
    let once = canonicalize_once(input)?;
    if !once.starts_with("file:") {
        return Ok(once);
    }
    // A file URL can change again when its canonical form is parsed: an escape decoded
    // below (`%4e` to `N`) can make the path start with a drive letter (`/N:`), and a
    // file URL whose path starts with one has no host. Canonicalize until nothing
    // changes, so that the form stored is one a later `add` of it finds.
    let mut current = once;
    for _ in 0..4 {
        let next = canonicalize_once(&current).map_err(|e| refuse(input, e.reason))?;
        if next == current {
            return Ok(current);
        }
        current = next;
    }
    Err(refuse(input, "its file path does not settle into one form"))
}

fn canonicalize_once(input: &str) -> Result<String, UrlError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(refuse(input, "empty"));
    }
    let expanded = expand_identifier(trimmed).map_err(|reason| refuse(input, reason))?;
    let mut url = Url::parse(&expanded).map_err(|e| refuse(input, e.to_string()))?;
    if !SCHEMES.contains(&url.scheme()) {
        return Err(refuse(
            input,
            format!("unsupported scheme {:?}", url.scheme()),
        ));
    }
    if url.scheme() != "file" && url.host_str().is_none_or(str::is_empty) {
        return Err(refuse(input, "no host"));
    }
    if url.scheme() == "file" {
        // WHATWG parsing is not idempotent here: in `file://h//c:/x` the path comes to
        // start with a drive letter only once it is parsed, and a file URL whose path
        // starts with one has no host, so the host goes on the *second* parse. Parse
        // the serialization again, so the canonical form is one a re-parse keeps. Only
        // file URLs: the second parse costs time on every ingested URL, and fuzzing
        // found no other scheme that needs it.
        url = Url::parse(url.as_str()).map_err(|e| refuse(input, e.to_string()))?;
    }
    url.set_fragment(None);
    if url.query() == Some("") {
        url.set_query(None);
    }
    let before_path = &url[..Position::BeforePath];
    let path = normalize_escapes(url.path(), false);
    let path = path.trim_end_matches('/');
    let query = match url.query() {
        Some(q) => format!("?{}", normalize_escapes(q, true)),
        None => String::new(),
    };
    Ok(format!("{before_path}{path}{query}"))
}

/// `doi:10.…` and `arXiv:…` to their resolver URLs; anything else unchanged.
fn expand_identifier(s: &str) -> Result<String, String> {
    if let Some(rest) = strip_prefix_ci(s, "doi:") {
        let rest = rest.trim();
        if !rest.starts_with("10.") || !rest.contains('/') {
            return Err("a DOI looks like doi:10.1234/suffix".into());
        }
        return Ok(format!("https://doi.org/{rest}"));
    }
    if let Some(rest) = strip_prefix_ci(s, "arxiv:") {
        let rest = rest.trim();
        if !is_arxiv_id(rest) {
            return Err("an arXiv id looks like arXiv:2305.14627 or arXiv:hep-th/9901001".into());
        }
        return Ok(format!("https://arxiv.org/abs/{rest}"));
    }
    Ok(s.to_string())
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// New-style `YYMM.NNNNN` or old-style `archive(.SC)/YYMMNNN`, optional `vN`.
fn is_arxiv_id(id: &str) -> bool {
    let (body, version) = match id.rfind('v') {
        Some(i) if i > 0 && id[i + 1..].bytes().all(|b| b.is_ascii_digit()) && i + 1 < id.len() => {
            (&id[..i], Some(&id[i + 1..]))
        }
        _ => (id, None),
    };
    debug_assert!(version.is_none_or(|v| !v.is_empty()));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((yymm, num)) = body.split_once('.')
        && yymm.len() == 4
        && digits(yymm)
        && (4..=5).contains(&num.len())
        && digits(num)
    {
        return true;
    }
    if let Some((archive, num)) = body.split_once('/') {
        let archive_ok = !archive.is_empty()
            && archive
                .bytes()
                .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'.');
        return archive_ok && num.len() == 7 && digits(num);
    }
    false
}

/// Upper-cases percent escapes and decodes those of unreserved characters. Two stay
/// encoded, because decoding them would change what the next canonicalization sees and
/// break idempotence: `.` in paths (it could create a dot segment that a re-parse would
/// resolve), and a hex digit right after a stray `%` or `%H` (`%7%37` would become
/// `%77`, a new escape the next pass decodes to `w`).
fn normalize_escapes(s: &str, in_query: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = &s[i + 1..i + 3];
            let byte = u8::from_str_radix(hex, 16).expect("two hex digits");
            let unreserved = byte.is_ascii_alphanumeric()
                || byte == b'-'
                || byte == b'_'
                || byte == b'~'
                || (byte == b'.' && in_query);
            if unreserved && !(byte.is_ascii_hexdigit() && ends_in_stray_percent(&out)) {
                out.push(byte as char);
            } else {
                out.push('%');
                out.push_str(&hex.to_ascii_uppercase());
            }
            i += 3;
            continue;
        }
        // Advance by one whole character; the url crate's output is ASCII, but be exact.
        let ch = s[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// `out` ends in `%` or `%H`, a `%` that a hex digit appended next would turn into an
/// escape. Every `%` already in `out` is a stray one or begins an escape kept whole, so
/// a `%` in the last two characters is a stray one.
fn ends_in_stray_percent(out: &str) -> bool {
    let b = out.as_bytes();
    b.last() == Some(&b'%')
        || (b.len() >= 2 && b[b.len() - 2] == b'%' && b[b.len() - 1].is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::canonicalize;

    fn c(s: &str) -> String {
        canonicalize(s).unwrap()
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(c("https://a.example/"), "https://a.example");
        assert_eq!(
            c("HTTPS://A.Example:443/Page/#frag"),
            "https://a.example/Page"
        );
        assert_eq!(c("http://a.example:80/x//"), "http://a.example/x");
        assert_eq!(c("http://a.example:8080/x"), "http://a.example:8080/x");
        assert_eq!(c("https://a.example/a/./b/../c"), "https://a.example/a/c");
        assert_eq!(c("https://a.example/?q=1#x"), "https://a.example?q=1");
        assert_eq!(c("https://a.example/p?"), "https://a.example/p");
        assert_eq!(
            c("https://a.example/%7euser/%2f"),
            "https://a.example/~user/%2F"
        );
        assert_eq!(
            c("https://bücher.example/x"),
            "https://xn--bcher-kva.example/x"
        );
        assert_eq!(c("https://a.example/a b"), "https://a.example/a%20b");
        assert_eq!(c("  https://a.example/x  "), "https://a.example/x");
        assert_eq!(c("doi:10.1000/xyz123"), "https://doi.org/10.1000/xyz123");
        assert_eq!(c("DOI:10.1000/xyz123"), "https://doi.org/10.1000/xyz123");
        assert_eq!(c("arXiv:2305.14627"), "https://arxiv.org/abs/2305.14627");
        assert_eq!(
            c("arxiv:2305.14627v2"),
            "https://arxiv.org/abs/2305.14627v2"
        );
        assert_eq!(
            c("arXiv:hep-th/9901001"),
            "https://arxiv.org/abs/hep-th/9901001"
        );
    }

    #[test]
    fn refusals_name_the_argument() {
        for bad in [
            "",
            "   ",
            "not a url",
            "example.com/page",
            "mailto:a@b.example",
            "javascript:alert(1)",
            "http://",
            "doi:foo",
            "arXiv:12",
        ] {
            let err = canonicalize(bad).unwrap_err();
            assert_eq!(err.given, bad);
            assert!(err.to_string().starts_with("not a URL: "), "{err}");
        }
    }

    #[test]
    fn idempotent_on_samples() {
        for s in [
            "https://a.example/%2e%2e/x",
            "https://a.example/a/%2E/b/",
            "https://a.example/?a=%2e",
            "file:///tmp/x/",
            "https://user:pw@a.example:444/x?y#z",
        ] {
            let once = c(s);
            assert_eq!(c(&once), once, "{s}");
        }
    }

    /// Found by fuzzing (issue 8; fuzz/, target `url_canonicalize`): decoding `%37` after
    /// a stray `%7` spelled a new escape, `%77`, which the next canonicalization decoded
    /// to `w`. The canonical form was not a fixed point, so a URL given in the canonical
    /// form `add` printed could be a different source.
    #[test]
    fn decoding_never_spells_a_new_escape() {
        for s in [
            "https://a.example/%7%37",
            "https://a.example/%%34%31",
            "https://a.example/x?q=%7%37&r=%%34%31",
            "https://ae?`%7Aee(\0\0\0?%7Ae\0=%7%37\0\u{8}E",
        ] {
            let once = c(s);
            assert_eq!(c(&once), once, "{s}");
        }
    }

    /// Found by fuzzing (issue 8; fuzz/, target `url_canonicalize`): a file URL whose
    /// path comes to start with a drive letter kept its host on the first parse and lost
    /// it on the second, so its canonical form was not a fixed point.
    #[test]
    fn file_urls_with_a_drive_letter_are_a_fixed_point() {
        for s in ["file://h//t:?/", "file://h//c:/x/", "file://h/.//c|/x"] {
            let once = c(s);
            assert_eq!(c(&once), once, "{s}");
        }
    }

    /// Found by fuzzing (CI run of this session, target `url_canonicalize`): the escape
    /// `%4e` decoded to `N` makes the path start with a drive letter (`/N:`), so the
    /// host went on the next parse.
    #[test]
    fn a_drive_letter_made_by_decoding_an_escape_is_a_fixed_point_too() {
        for s in [
            "file://pqpqq\npppp!pp/%4e://]\0\0\0&",
            "file://host/%43:/x",
            "file://host/%63%3a/x",
        ] {
            let once = c(s);
            assert_eq!(c(&once), once, "{s:?}");
        }
    }
}
