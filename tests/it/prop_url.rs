//! Property tests of canonicalization and registration, through the library (no process
//! per case, so a few hundred cases stay fast):
//!
//! - `canonicalize` is idempotent on generated http(s) URLs — random scheme and host
//!   case, IDNA labels, default and other ports, dot segments, percent escapes, empty
//!   segments, trailing slashes, queries and fragments — and its output has no fragment,
//!   no trailing slash and a lower-case scheme.
//! - Registering any permutation of a URL list with duplicates and spelling variants of
//!   the same pages (issue 19: over http and https, with tracking parameters) gives each
//!   page exactly one id, and the ids are dense from 1.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use cite_ledger::url::canonicalize;
use cite_ledger::{AddRequest, Context, Ledger};
use proptest::prelude::*;

// ---- generators ------------------------------------------------------------------------

/// `s` with each ASCII letter's case chosen by the bits of `mask`.
fn mixed_case(s: &str, mask: u64) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            if mask >> (i % 64) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

fn scheme() -> impl Strategy<Value = String> {
    (prop_oneof![Just("http"), Just("https")], any::<u64>()).prop_map(|(s, m)| mixed_case(s, m))
}

fn host() -> impl Strategy<Value = String> {
    let label = prop_oneof![
        6 => "[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?",
        1 => Just("bücher".to_string()),
        1 => Just("münchen".to_string()),
        1 => Just("例え".to_string()),
    ];
    // The last label is alphabetic: an all-numeric one would make the host an IPv4
    // address, which the url crate refuses when it is out of range.
    (
        prop::collection::vec(label, 1..4),
        "[a-z]{2,8}",
        any::<u64>(),
    )
        .prop_map(|(labels, tld, mask)| mixed_case(&format!("{}.{tld}", labels.join(".")), mask))
}

fn port() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just(String::new()),
        1 => Just(":80".to_string()),
        1 => Just(":443".to_string()),
        1 => Just(":8080".to_string()),
        1 => any::<u16>().prop_map(|p| format!(":{p}")),
    ]
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[A-Za-z0-9_~-]{1,8}",
        1 => Just(".".to_string()),
        1 => Just("..".to_string()),
        1 => Just(String::new()),
        1 => Just("%2e".to_string()),
        1 => Just("%2E%2e".to_string()),
        1 => Just("%7e".to_string()),
        1 => Just("%41b".to_string()),
        1 => Just("%2f".to_string()),
        1 => Just("%zz".to_string()),
        1 => Just("a b".to_string()),
        1 => Just("é".to_string()),
        1 => Just("%c3%a9".to_string()),
    ]
}

fn path() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(segment(), 0..6),
        prop_oneof![Just(""), Just("/"), Just("//")],
    )
        .prop_map(|(segs, tail)| {
            let mut p = String::new();
            for s in segs {
                p.push('/');
                p.push_str(&s);
            }
            p.push_str(tail);
            p
        })
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => Just(String::new()),
        1 => Just("?".to_string()),
        3 => "[a-z]{1,4}=[A-Za-z0-9.%]{0,6}(&[a-z]{1,3}=[a-z0-9 ]{0,3}){0,2}".prop_map(|q| format!("?{q}")),
        1 => Just("?a=%2e%2E&b=%7e".to_string()),
    ]
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => Just(String::new()),
        1 => Just("#".to_string()),
        2 => "[A-Za-z0-9/?-]{1,8}".prop_map(|f| format!("#{f}")),
    ]
}

fn http_url() -> impl Strategy<Value = String> {
    (scheme(), host(), port(), path(), query(), fragment())
        .prop_map(|(s, h, po, pa, q, f)| format!("{s}://{h}{po}{pa}{q}{f}"))
}

/// A page: distinct from every other page by its host.
#[derive(Clone, Debug)]
struct Page {
    https: bool,
    host: String,
    path: Vec<String>,
    query: Option<String>,
}

fn pages() -> impl Strategy<Value = Vec<Page>> {
    prop::collection::vec(
        (
            any::<bool>(),
            "[a-z]{1,6}",
            prop::collection::vec("[a-zA-Z0-9_-]{1,6}", 0..3),
            prop::option::of("[a-z]{1,3}=[a-z0-9]{1,3}"),
        ),
        1..7,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (https, label, path, query))| Page {
                https,
                host: format!("h{i}-{label}.example"),
                path,
                query,
            })
            .collect()
    })
}

/// One spelling of `page`, chosen by the bits of `how`; every spelling is the same page.
fn spelling(page: &Page, how: u16) -> String {
    let bit = |n: u16| how >> n & 1 == 1;
    // Issue 19: the other of http and https is the same page.
    let https = page.https != bit(7);
    let scheme = if https { "https" } else { "http" };
    let scheme = if bit(0) {
        scheme.to_uppercase()
    } else {
        scheme.to_string()
    };
    let host = if bit(1) {
        page.host.to_uppercase()
    } else {
        page.host.clone()
    };
    let port = match (bit(2), https) {
        (false, _) => "",
        (true, true) => ":443",
        (true, false) => ":80",
    };
    let mut path = String::new();
    if bit(3) {
        path.push_str("/detour/..");
    }
    for seg in &page.path {
        path.push('/');
        path.push_str(seg);
        if bit(4) {
            path.push_str("/.");
        }
    }
    if bit(5) {
        path.push('/');
    }
    let mut pairs: Vec<&str> = page.query.iter().map(String::as_str).collect();
    // Issue 19: tracking parameters are no part of the page, wherever they stand.
    if bit(8) {
        pairs.insert(0, "utm_source=newsletter");
    }
    if bit(9) {
        pairs.push("fbclid=IwAR0");
    }
    let query = if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    };
    let fragment = if bit(6) { "#section-2" } else { "" };
    format!("{scheme}://{host}{port}{path}{query}{fragment}")
}

fn context() -> Context {
    Context {
        now: time::OffsetDateTime::now_utc(),
        pid: 1,
        actor: None,
        command: vec![],
    }
}

// ---- properties ------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn canonicalize_is_idempotent(url in http_url()) {
        let once = canonicalize(&url).map_err(|e| TestCaseError::fail(format!("{url}: {e}")))?;
        let twice = canonicalize(&once).map_err(|e| TestCaseError::fail(format!("{once}: {e}")))?;
        prop_assert_eq!(&twice, &once, "input {}", url);
        prop_assert!(once.starts_with("http://") || once.starts_with("https://"), "{}", once);
        prop_assert!(!once.contains('#'), "{}", once);
        let before_query = once.split('?').next().unwrap();
        prop_assert!(!before_query.ends_with('/'), "{}", once);
        prop_assert!(once.is_ascii(), "{}", once);
        let (scheme, rest) = once.split_once("://").unwrap();
        let authority = rest.split(['/', '?']).next().unwrap();
        prop_assert_eq!(authority.to_ascii_lowercase(), authority, "{}", once);
        let default_port = if scheme == "https" { ":443" } else { ":80" };
        prop_assert!(!authority.ends_with(default_port), "{}", once);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_page_gets_exactly_one_dense_id(
        (pages, picks, calls) in pages().prop_flat_map(|pages| {
            let n = pages.len();
            (
                Just(pages),
                prop::collection::vec((0..n, any::<u16>()), 1..24).prop_shuffle(),
                1usize..5,
            )
        })
    ) {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path().join("ledger.redb"), Duration::from_secs(5));
        let ctx = context();
        let inputs: Vec<(usize, String)> =
            picks.iter().map(|&(p, how)| (p, spelling(&pages[p], how))).collect();

        // Register in `calls` batches; collect page → id.
        let mut id_of_page: BTreeMap<usize, u64> = BTreeMap::new();
        let mut url_of_id: BTreeMap<u64, String> = BTreeMap::new();
        let per_call = inputs.len().div_ceil(calls);
        for batch in inputs.chunks(per_call) {
            let urls: Vec<String> = batch.iter().map(|(_, u)| u.clone()).collect();
            let got = ledger
                .add(&ctx, &AddRequest { urls: urls.clone(), ..Default::default() })
                .map_err(|e| TestCaseError::fail(e.to_string()))?
                .sources;
            prop_assert_eq!(got.len(), batch.len());
            for ((page, given), source) in batch.iter().zip(&got) {
                // The canonical form, or its twin when the page came first over the other
                // of http and https.
                let canonical = canonicalize(given).unwrap();
                prop_assert!(
                    source.url == canonical
                        || Some(&source.url) == cite_ledger::url::twin(&canonical).as_ref(),
                    "{} gave {}", given, source.url
                );
                let id = *id_of_page.entry(*page).or_insert(source.id);
                prop_assert_eq!(source.id, id, "{} is page {} but got another id", given, page);
                let url = url_of_id.entry(source.id).or_insert_with(|| source.url.clone());
                prop_assert_eq!(&*url, &source.url, "id {} handed to two URLs", source.id);
            }
        }

        let distinct = picks.iter().map(|&(p, _)| p).collect::<BTreeSet<_>>().len();
        prop_assert_eq!(id_of_page.len(), distinct);
        let ids: BTreeSet<u64> = id_of_page.values().copied().collect();
        prop_assert_eq!(ids, (1..=distinct as u64).collect::<BTreeSet<_>>());

        // Registering everything again, in one call, changes nothing.
        let all: Vec<String> = inputs.iter().map(|(_, u)| u.clone()).collect();
        let again = ledger
            .add(&ctx, &AddRequest { urls: all, ..Default::default() })
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .sources;
        for ((page, _), source) in inputs.iter().zip(&again) {
            prop_assert_eq!(source.id, id_of_page[page]);
        }

        // The stored view agrees: ids 1..=distinct in order, each with its URL.
        let view = ledger.view(None).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let stored: Vec<(u64, String)> = view
            .sources()
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .map(|s| s.map(|s| (s.id, s.url)))
            .collect::<Result<_, _>>()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(stored, url_of_id.into_iter().collect::<Vec<_>>());
    }
}
