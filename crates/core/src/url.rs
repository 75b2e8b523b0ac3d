//! URL canonicalization: what makes two spellings of a page one source.
//!
//! Parsing is the `url` crate's (WHATWG): scheme and host case, default ports, IDNA,
//! dot segments and percent-encoding of what must be encoded. On top of it: the fragment
//! and trailing slashes are dropped (`/page`, `/page/` and `/page#s` are one source), an
//! empty query is dropped, percent escapes are upper-cased and unreserved characters
//! decoded (RFC 3986 §6.2.2), and `doi:` / `arXiv:` identifiers become their https form.
//! Since issue 19, a user name and password are dropped (they are never stored), and so
//! are the tracking parameters of http(s) URLs ([`tracking`]: ClearURLs' rules and
//! cite's own). The result is a fixed point: canonicalizing it again returns it unchanged.
//!
//! Beyond the canonical form, what finds a page registered under another spelling: its
//! form before issue 19 ([`Canonical::earlier`], the key existing ledgers hold it under),
//! its [`twin`] over the other of http and https, and its [`page`] (scheme, host and
//! path), which look-alikes share.

pub mod tracking;

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
        // The message repeats the argument: a password in it would reach the terminal,
        // the model and the logs that keep either.
        given: hide_credentials(given),
        reason: reason.into(),
    }
}

/// Schemes a citable source can have: the web's, and ftp and file for archives and local
/// documents (a PDF on disk is a source a report can cite, and `sources.py` kept any
/// string). `ingest` keeps only http(s), as `sources.py` does.
const SCHEMES: &[&str] = &["http", "https", "ftp", "file"];

/// The canonical form of `input`, or why it is not a URL.
pub fn canonicalize(input: &str) -> Result<String, UrlError> {
    canonical(input).map(|c| c.url)
}

/// What canonicalization makes of a URL: its canonical form, and the form it had before
/// tracking parameters were removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical form: the key of the url index for a source registered now.
    pub url: String,
    /// The canonical form with the tracking parameters kept, when there were any: what
    /// cite stored before issue 19, and so the key under which an existing ledger holds
    /// the page if it was registered then by this very spelling.
    pub earlier: Option<String>,
    /// The tracking parameters removed (`key=value`, as canonicalization spells them).
    pub removed: Vec<String>,
}

/// [`canonicalize`], with the form before tracking parameters were removed.
pub fn canonical(input: &str) -> Result<Canonical, UrlError> {
    let kept = canonical_with_tracking(input)?;
    if !(kept.starts_with("https://") || kept.starts_with("http://")) {
        return Ok(Canonical {
            url: kept,
            earlier: None,
            removed: Vec::new(),
        });
    }
    Ok(match tracking::strip(&kept) {
        Some((url, removed)) => Canonical {
            url,
            earlier: Some(kept),
            removed,
        },
        None => Canonical {
            url: kept,
            earlier: None,
            removed: Vec::new(),
        },
    })
}

/// The canonical form as cite computed it before issue 19, except for credentials.
fn canonical_with_tracking(input: &str) -> Result<String, UrlError> {
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
    // Credentials are never stored (issue 19): a page is the same page whoever logs in.
    // Neither call can fail on a URL with a host, and a file URL has no user to drop.
    let _ = url.set_password(None);
    let _ = url.set_username("");
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

/// The same canonical URL over the other of http and https (`http://a.example/x` ↔
/// `https://a.example/x`), which is the same page. `None` for other schemes, and for a URL
/// with a port, which belongs to one of the two.
pub fn twin(url: &str) -> Option<String> {
    let (other, rest) = if let Some(rest) = url.strip_prefix("https://") {
        ("http://", rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        ("https://", rest)
    } else {
        return None;
    };
    let authority = rest.split(['/', '?']).next().unwrap_or(rest);
    // `[::1]` is a host, not a port: only a colon after an IPv6 literal is one.
    let host_end = authority.rfind(']').map_or(0, |i| i + 1);
    if authority[host_end..].contains(':') {
        return None;
    }
    Some(format!("{other}{rest}"))
}

/// A canonical URL without its query: scheme, host and path. Sources with one page and
/// different queries are look-alikes: perhaps one page, perhaps two.
pub fn page(url: &str) -> &str {
    url.split_once('?').map_or(url, |(page, _)| page)
}

/// `text` with the user name and password of every URL in it removed
/// (`https://alice:pw@intranet.example/r` → `https://intranet.example/r`): for whatever
/// records or repeats what a caller gave (the event's `url_given`, the command line of an
/// origin, messages). A PostgreSQL URL is left alone: its user names the ledger, and the
/// store hides its password (`cite_store::hide_password`).
pub fn hide_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        rest = tail;
        let scheme = &head[..at];
        // The scheme starts after the last character that cannot be in one, which may
        // be wider than a byte.
        let scheme = &scheme[scheme
            .char_indices()
            .rfind(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |(i, c)| i + c.len_utf8())..];
        if is_postgres(scheme) {
            continue;
        }
        // Where a browser ends the authority: `\` too, for the web's schemes.
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#' | '\\') || c.is_whitespace())
            .unwrap_or(tail.len());
        if let Some(userinfo_end) = tail[..end].rfind('@') {
            rest = &tail[userinfo_end + 1..];
        }
    }
    out.push_str(rest);
    if !out.contains('@') {
        return out;
    }
    // WHATWG parsing also finds credentials where no `://` shows them (`https:alice:pw@h`,
    // a tab inside the scheme): when the whole text is such a URL, keep it parsed and
    // without them.
    match Url::parse(out.trim()) {
        Ok(mut url)
            if (!url.username().is_empty() || url.password().is_some())
                && !is_postgres(url.scheme()) =>
        {
            let _ = url.set_password(None);
            let _ = url.set_username("");
            url.to_string()
        }
        _ => out,
    }
}

fn is_postgres(scheme: &str) -> bool {
    scheme.eq_ignore_ascii_case("postgres") || scheme.eq_ignore_ascii_case("postgresql")
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
    use super::{canonical, canonicalize, hide_credentials, page, twin};

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

    /// Issue 19: a user name and password are never part of what is stored.
    #[test]
    fn credentials_are_dropped() {
        assert_eq!(
            c("https://alice:pw@intranet.example/report"),
            "https://intranet.example/report"
        );
        assert_eq!(
            c("https://alice@intranet.example:8443/report?q=1"),
            "https://intranet.example:8443/report?q=1"
        );
        assert_eq!(
            c("https:alice:pw@intranet.example/r"),
            "https://intranet.example/r"
        );
        assert_eq!(c("ftp://u:p@ftp.example/f.pdf"), "ftp://ftp.example/f.pdf");
        let err = canonicalize("https://alice:pw@bad host/").unwrap_err();
        assert_eq!(err.given, "https://bad host/");
        assert!(!err.to_string().contains("pw"), "{err}");
    }

    /// Issue 19: tracking parameters go, and the form an older ledger holds is kept.
    #[test]
    fn tracking_parameters_are_dropped_and_the_earlier_form_is_kept() {
        let k = canonical("HTTPS://News.Example/a/?utm_source=tw&id=3&fbclid=Iw#top").unwrap();
        assert_eq!(k.url, "https://news.example/a?id=3");
        assert_eq!(
            k.earlier.as_deref(),
            Some("https://news.example/a?utm_source=tw&id=3&fbclid=Iw")
        );
        assert_eq!(k.removed, ["utm_source=tw", "fbclid=Iw"]);
        assert_eq!(
            c("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=120s"),
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
        );
        let plain = canonical("https://news.example/a?id=3").unwrap();
        assert_eq!((plain.earlier, plain.removed.len()), (None, 0));
        // Tracking is the web's: a file or FTP URL keeps its query as it is.
        assert_eq!(
            c("ftp://a.example/f?utm_source=x"),
            "ftp://a.example/f?utm_source=x"
        );
        // A parameter named like one inside a value, or as a value, is no parameter.
        assert_eq!(
            c("https://a.example/s?q=utm_source&next=/x?fbclid=1"),
            "https://a.example/s?q=utm_source&next=/x?fbclid=1"
        );
    }

    #[test]
    fn twins_are_the_other_of_http_and_https() {
        assert_eq!(
            twin("https://www.reuters.com/world/x?id=1").as_deref(),
            Some("http://www.reuters.com/world/x?id=1")
        );
        assert_eq!(
            twin("http://www.reuters.com").as_deref(),
            Some("https://www.reuters.com")
        );
        assert_eq!(twin("http://[::1]/x").as_deref(), Some("https://[::1]/x"));
        assert_eq!(twin("http://a.example:8080/x"), None);
        assert_eq!(twin("http://[::1]:8080/x"), None);
        assert_eq!(twin("ftp://a.example/x"), None);
        for url in ["http://a.example/x?q=1", "https://a.example"] {
            let t = twin(url).unwrap();
            assert_eq!(c(&t), t, "a twin is canonical");
            assert_eq!(twin(&t).as_deref(), Some(url));
        }
    }

    #[test]
    fn a_page_is_the_url_without_its_query() {
        assert_eq!(page("https://a.example/p?x=1?y"), "https://a.example/p");
        assert_eq!(page("https://a.example/p"), "https://a.example/p");
    }

    #[test]
    fn a_wide_character_before_a_scheme_is_no_panic() {
        // Found by the url_canonicalize fuzz target: the scheme's start was taken one
        // byte after a character of two or three bytes.
        assert_eq!(
            hide_credentials("h**：ttps://a:b@x.example"),
            "h**：ttps://x.example"
        );
        assert_eq!(
            hide_credentials("[:>1]ջ8081zhttp://x"),
            "[:>1]ջ8081zhttp://x"
        );
    }

    #[test]
    fn credentials_are_hidden_wherever_a_url_stands() {
        for (text, shown) in [
            (
                "https://alice:pw@intranet.example/report",
                "https://intranet.example/report",
            ),
            ("--url=http://a:b@h.example/x", "--url=http://h.example/x"),
            (
                "see ftp://u:p@f.example and https://x:y@z.example/?q=a@b",
                "see ftp://f.example and https://z.example/?q=a@b",
            ),
            (
                "https:alice:pw@intranet.example/r",
                "https://intranet.example/r",
            ),
            ("HTTPS://A:B@h.example", "HTTPS://h.example"),
            ("https://h.example/a@b", "https://h.example/a@b"),
            ("mailto:alice@example.com", "mailto:alice@example.com"),
            ("postgres://u:***@h/db", "postgres://u:***@h/db"),
            (
                "--ledger=postgresql://u:***@h/db",
                "--ledger=postgresql://u:***@h/db",
            ),
            ("add", "add"),
            ("", ""),
        ] {
            assert_eq!(hide_credentials(text), shown, "{text}");
        }
    }
}
