//! What a source's URL says the source is: a work with a DOI, or an arXiv preprint.
//!
//! The ledger keeps no identifier beside the URL: `add doi:10.1000/182` stores
//! `https://doi.org/10.1000/182`, and `add arXiv:2305.14627` stores
//! `https://arxiv.org/abs/2305.14627` ([`crate::url`]). The exports read the
//! identifier back from that URL, and from the resolver URLs people paste instead:
//!
//! - a DOI from `http(s)://doi.org/…` or `http(s)://dx.doi.org/…`, its path
//!   percent-decoded (the stored URL is canonical, so `<`, `>`, `#`, `"`, a space and any
//!   non-ASCII character of a DOI are escaped there), when it starts `10.`, names a
//!   suffix after a `/`, and decodes to UTF-8 text without spaces or control characters
//!   (which no export could write as one field);
//! - an arXiv id from `http(s)://arxiv.org/abs/ID` or `http(s)://arxiv.org/pdf/ID`
//!   (`.pdf` dropped), kept as the URL shows it, version suffix and all, when `arXiv:ID`
//!   is an id `add` accepts.
//!
//! A URL with a query, a port or credentials is a page of the resolver, not the
//! identifier, and is left a web page. Nothing else is inferred: the kind of work a DOI
//! names, its authors and its date are not in the ledger.

use url::Url;

/// A persistent identifier a source's URL carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identifier {
    /// A DOI, `10.…/…`, decoded.
    Doi(String),
    /// An arXiv id, `2305.14627`, `2305.14627v2` or `hep-th/9901001`.
    Arxiv(String),
}

/// The identifier `url` carries, if it is a DOI or arXiv link.
pub fn of(url: &str) -> Option<Identifier> {
    let url = Url::parse(url).ok()?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.query().is_none()
        && url.port().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    if !plain {
        return None;
    }
    let path = url.path().strip_prefix('/')?;
    match url.host_str()? {
        "doi.org" | "dx.doi.org" => doi(path).map(Identifier::Doi),
        "arxiv.org" => arxiv(path).map(Identifier::Arxiv),
        _ => None,
    }
}

/// The DOI a resolver path spells, decoded.
fn doi(path: &str) -> Option<String> {
    let doi = String::from_utf8(percent_decoded(path)).ok()?;
    let (prefix, suffix) = doi.split_once('/')?;
    let writable = !doi.chars().any(|c| c.is_control() || c.is_whitespace());
    (prefix.starts_with("10.") && !suffix.is_empty() && writable).then_some(doi)
}

/// The arXiv id of an `abs/` or `pdf/` path, checked by the rule `add arXiv:ID` uses.
fn arxiv(path: &str) -> Option<String> {
    let id = match path.split_once('/')? {
        ("abs", id) => id,
        ("pdf", id) => id.strip_suffix(".pdf").unwrap_or(id),
        _ => return None,
    };
    let expanded = crate::url::canonicalize(&format!("arXiv:{id}")).ok()?;
    (expanded == format!("https://arxiv.org/abs/{id}")).then(|| id.to_string())
}

/// `text` with every `%HH` escape turned into its byte; a `%` that starts no escape
/// stays.
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = bytes.get(i + 1..i + 3).and_then(|hex| {
            let hex = std::str::from_utf8(hex).ok()?;
            u8::from_str_radix(hex, 16).ok()
        });
        match (bytes[i], escape) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::canonicalize;

    fn doi_of(given: &str) -> Option<Identifier> {
        of(&canonicalize(given).unwrap())
    }

    #[test]
    fn dois_are_read_from_their_resolver_urls() {
        let want = Some(Identifier::Doi("10.1000/182".into()));
        for given in [
            "doi:10.1000/182",
            "https://doi.org/10.1000/182",
            "http://doi.org/10.1000/182",
            "https://dx.doi.org/10.1000/182",
            "https://DOI.org/10.1000/182/",
            "https://doi.org/10.1000/182#section",
        ] {
            assert_eq!(doi_of(given), want, "{given}");
        }
        // Decoded from the escapes the canonical URL holds.
        assert_eq!(
            doi_of("doi:10.1002/(SICI)1097-4636(199812)43:4<547::AID-JBM20>3.0.CO;2-%23"),
            Some(Identifier::Doi(
                "10.1002/(SICI)1097-4636(199812)43:4<547::AID-JBM20>3.0.CO;2-#".into()
            ))
        );
        assert_eq!(
            doi_of("https://doi.org/10.1000/caf%C3%A9"),
            Some(Identifier::Doi("10.1000/café".into()))
        );
        assert_eq!(
            doi_of("https://doi.org/10.1000/x%7By%7D"),
            Some(Identifier::Doi("10.1000/x{y}".into()))
        );
    }

    #[test]
    fn other_doi_org_pages_are_not_dois() {
        for given in [
            "https://doi.org",
            "https://doi.org/help",
            "https://doi.org/10.1000",
            "https://doi.org/10.1000/",
            "https://doi.org/11.1000/182",
            "https://doi.org/10.1000/182?locatt=mode:legacy",
            "https://doi.org:8443/10.1000/182",
            "https://doi.org/10.1000/a%20b",
            "https://doi.org/10.1000/a%0Ab",
            "https://doi.org/10.1000/%FF",
            "ftp://doi.org/10.1000/182",
            "https://www.example.org/10.1000/182",
        ] {
            assert_eq!(doi_of(given), None, "{given}");
        }
        // Canonicalization drops a user name since issue 19, but a ledger written before
        // can hold one: such a URL is still no DOI.
        assert_eq!(of("https://user@doi.org/10.1000/182"), None);
    }

    #[test]
    fn arxiv_ids_are_read_as_the_url_shows_them() {
        for (given, id) in [
            ("arXiv:2305.14627", "2305.14627"),
            ("arxiv:2305.14627v2", "2305.14627v2"),
            ("arXiv:hep-th/9901001", "hep-th/9901001"),
            ("https://arxiv.org/abs/2305.14627", "2305.14627"),
            ("http://arxiv.org/abs/2305.14627v3", "2305.14627v3"),
            ("https://arxiv.org/pdf/2305.14627", "2305.14627"),
            ("https://arxiv.org/pdf/2305.14627v2.pdf", "2305.14627v2"),
            ("https://arxiv.org/pdf/hep-th/9901001v1", "hep-th/9901001v1"),
            ("https://arxiv.org/abs/math.GT/0309136", "math.GT/0309136"),
        ] {
            assert_eq!(doi_of(given), Some(Identifier::Arxiv(id.into())), "{given}");
        }
        for given in [
            "https://arxiv.org",
            "https://arxiv.org/list/cs.CL/recent",
            "https://arxiv.org/abs/12",
            "https://arxiv.org/abs/2305.14627?context=cs",
            "https://arxiv.org/html/2305.14627",
            "https://arxiv.org/pdf/2305.14627.pdf.pdf",
            "https://export.arxiv.org/abs/2305.14627",
            "https://example.com/abs/2305.14627",
        ] {
            assert_eq!(doi_of(given), None, "{given}");
        }
    }

    #[test]
    fn a_stray_percent_is_kept() {
        assert_eq!(percent_decoded("a%2Fb%zz%4"), b"a/b%zz%4");
        assert_eq!(percent_decoded("%e2%82%ac"), "€".as_bytes());
    }
}
