//! Tracking parameters: the query pairs that say who sent the reader, not which page it
//! is (`utm_source=…`, `fbclid=…`). Two links to one article that differ only in them are
//! one source.
//!
//! The rules are ClearURLs' (`vendor/clearurls/`, pinned by [`RULES_SHA256`]), a list
//! maintained by the extension's users, so that cite follows the trackers as they change
//! instead of a list written here. On top of it, cite's own rules ([`CITE_RULES`]), for
//! what cite needs and ClearURLs leaves alone. What is applied, and what is not, is in
//! `vendor/clearurls/README.md`.
//!
//! Only whole `key=value` pairs are removed; every other byte of the URL stays as
//! canonicalization left it, so a URL without tracking parameters keeps the canonical
//! form it always had (existing ledgers hold it under that key).
//!
//! Cost: the rules hold about 1,000 regular expressions, 20 ms to compile. Nothing is read
//! for a URL without a query; for one with a query, the rule list is parsed once per
//! process (about 0.4 ms) and a pattern is compiled only when the URL holds one of the
//! literal texts every match of it contains (`vendor/clearurls/literals.txt`), which
//! leaves the few that can apply.

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;

/// ClearURLs' rule list (see `vendor/clearurls/README.md` for its version and licence).
const RULES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vendor/clearurls/data.min.json"
));

/// The sha256 of [`RULES`]: a change of the rule list is a change of the canonical form
/// of the URLs it covers, so it is made on purpose (a test compares).
pub const RULES_SHA256: &str = "d055d1e4612be57c706def4f3fb46c4858a8d97864a23e7d2f35622ea32a6b4f";

/// For each pattern of [`RULES`], literal texts one of which every match contains;
/// generated from [`RULES`] by a test (`literals_file_is_current`).
const LITERALS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vendor/clearurls/literals.txt"
));

/// cite's own rules, in ClearURLs' terms: (name, URL pattern, the literals its matches
/// contain, parameter rules).
///
/// - YouTube's `si` (a share id: who shared the link) and `t` (where playback starts):
///   ClearURLs keeps `t`, a playback position being no tracker, but a citation names the
///   video, and a link shared at 2:00 is the same video as one shared at the start.
/// - `_hsmi` (HubSpot's email id, the twin of `_hsenc`, which ClearURLs removes
///   everywhere but lists `_hsmi` for one site only) and `igshid` (Instagram's share id,
///   carried on links shared out of Instagram to any site), everywhere.
pub const CITE_RULES: &[(&str, &str, &[&str], &[&str])] = &[
    (
        "cite: YouTube videos",
        r"^https?://(?:(?:www|m|music)\.)?youtube\.com/(?:watch(?:$|\?)|shorts/|live/)|^https?://youtu\.be/",
        &["youtube.com/", "youtu.be/"],
        &["si", "t"],
    ),
    ("cite: everywhere", r".*", &[], &["_hsmi", "igshid"]),
];

/// A regular expression of the rules, compiled when first needed.
struct Pattern {
    source: String,
    /// Lower-case texts one of which every match contains; `None` when there are none.
    literals: Option<Vec<String>>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    fn new(source: String, literals: Option<Vec<String>>) -> Pattern {
        Pattern {
            source,
            literals,
            compiled: OnceLock::new(),
        }
    }

    /// Whether it matches `text` (whose ASCII lower case is `lower`), as a whole when
    /// `whole`. A pattern that does not compile matches nothing (a test compiles all).
    fn matches(&self, text: &str, lower: &str, whole: bool) -> bool {
        if let Some(literals) = &self.literals
            && !literals.iter().any(|l| lower.contains(l.as_str()))
        {
            return false;
        }
        self.compiled
            .get_or_init(|| compile(&self.source, whole).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(text.as_bytes()))
    }
}

/// The rules match any case, as ClearURLs applies them. URLs here are canonical, so ASCII:
/// no pattern needs Unicode, and without it they compile several times faster.
fn compile(source: &str, whole: bool) -> Result<Regex, regex::Error> {
    let source = if whole {
        format!("^(?:{source})$")
    } else {
        source.to_string()
    };
    RegexBuilder::new(&source)
        .case_insensitive(true)
        .unicode(false)
        .build()
}

struct Provider {
    url: Pattern,
    rules: Vec<Pattern>,
    exceptions: Vec<Pattern>,
}

impl Provider {
    /// Adds to `out` the query positions of the pairs of `keys` (key, position) that this
    /// provider removes from `url`.
    fn removes(&self, url: &str, lower: &str, keys: &[(String, usize)], out: &mut Vec<usize>) {
        if !self.url.matches(url, lower, false) {
            return;
        }
        let hits: Vec<usize> = keys
            .iter()
            .filter(|(key, _)| {
                let key_lower = key.to_ascii_lowercase();
                self.rules.iter().any(|r| r.matches(key, &key_lower, true))
            })
            .map(|(_, at)| *at)
            .collect();
        // Exceptions are read only when there is something to remove: most providers
        // never get that far, and their exceptions are never compiled.
        if hits.is_empty() || self.exceptions.iter().any(|e| e.matches(url, lower, false)) {
            return;
        }
        out.extend(hits);
    }
}

struct Engine {
    providers: Vec<Provider>,
    /// Finds, in one pass over a URL, the literals of the providers' URL patterns.
    finder: AhoCorasick,
    /// The provider of each literal `finder` holds.
    owner: Vec<usize>,
    /// Providers whose URL pattern has no literal: tried for every URL.
    always: Vec<usize>,
}

#[derive(Deserialize)]
struct Data {
    providers: std::collections::BTreeMap<String, RawProvider>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawProvider {
    url_pattern: String,
    #[serde(default)]
    rules: Vec<String>,
    #[serde(default)]
    exceptions: Vec<String>,
}

/// `literals.txt`: pattern → its literals.
fn literal_table() -> HashMap<&'static str, Vec<String>> {
    LITERALS
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let pattern = fields.next()?;
            let literals: Vec<String> = fields.map(str::to_string).collect();
            (!literals.is_empty()).then_some((pattern, literals))
        })
        .collect()
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        // The rule list is part of the binary and a test parses it: it cannot fail here
        // unless the build is broken, and then cite's own rules still apply.
        let data: Data = serde_json::from_str(RULES).unwrap_or(Data {
            providers: Default::default(),
        });
        let table = literal_table();
        let pattern = |source: &str| Pattern::new(source.to_string(), table.get(source).cloned());
        let mut providers: Vec<Provider> = data
            .providers
            .into_values()
            .map(|p| Provider {
                url: pattern(&p.url_pattern),
                rules: p.rules.iter().map(|r| pattern(r)).collect(),
                exceptions: p.exceptions.iter().map(|e| pattern(e)).collect(),
            })
            .collect();
        for (_, url, literals, rules) in CITE_RULES {
            let literals =
                (!literals.is_empty()).then(|| literals.iter().map(|l| l.to_string()).collect());
            providers.push(Provider {
                url: Pattern::new(url.to_string(), literals),
                rules: rules
                    .iter()
                    .map(|r| Pattern::new(r.to_string(), Some(vec![r.to_ascii_lowercase()])))
                    .collect(),
                exceptions: Vec::new(),
            });
        }
        let mut literals = Vec::new();
        let mut owner = Vec::new();
        let mut always = Vec::new();
        for (i, p) in providers.iter().enumerate() {
            match &p.url.literals {
                Some(ls) => {
                    for l in ls {
                        literals.push(l.clone());
                        owner.push(i);
                    }
                }
                None => always.push(i),
            }
        }
        let finder = AhoCorasick::new(&literals).unwrap_or_else(|_| {
            // Only a pattern set too large for the automaton fails: try every provider.
            always = (0..providers.len()).collect();
            AhoCorasick::new(Vec::<String>::new()).expect("an empty automaton builds")
        });
        Engine {
            providers,
            finder,
            owner,
            always,
        }
    })
}

/// `url` (canonical, http or https) without its tracking parameters, and the pairs
/// removed, in order; `None` when there are none.
pub(super) fn strip(url: &str) -> Option<(String, Vec<String>)> {
    url.find('?')?;
    let engine = engine();
    let mut current = url.to_string();
    let mut removed = Vec::new();
    // Removing a pair can change which patterns and exceptions match the URL (a few of
    // them look at the query): apply the rules again until nothing changes, so that the
    // result is a fixed point. Each round removes a pair, so this ends.
    while let Some((before, query)) = current.split_once('?') {
        let pairs: Vec<&str> = query.split('&').collect();
        let keys: Vec<(String, usize)> = pairs
            .iter()
            .enumerate()
            .filter(|(_, pair)| !pair.is_empty())
            .map(|(i, pair)| (pair.split('=').next().unwrap_or(pair).to_string(), i))
            .collect();
        let lower = current.to_ascii_lowercase();
        let mut candidates: Vec<usize> = engine.always.clone();
        candidates.extend(
            engine
                .finder
                .find_overlapping_iter(&lower)
                .map(|m| engine.owner[m.pattern().as_usize()]),
        );
        candidates.sort_unstable();
        candidates.dedup();
        let mut gone = Vec::new();
        for &i in &candidates {
            engine.providers[i].removes(&current, &lower, &keys, &mut gone);
        }
        if gone.is_empty() {
            break;
        }
        gone.sort_unstable();
        gone.dedup();
        // With a pair gone, empty pairs (`a=1&&b=2`) go too: the query is being rewritten
        // anyway, and `&&` would only stand where a tracker was.
        let kept: Vec<&str> = pairs
            .iter()
            .enumerate()
            .filter(|(i, pair)| !pair.is_empty() && gone.binary_search(i).is_err())
            .map(|(_, pair)| *pair)
            .collect();
        removed.extend(gone.iter().map(|&i| pairs[i].to_string()));
        current = if kept.is_empty() {
            before.to_string()
        } else {
            format!("{before}?{}", kept.join("&"))
        };
    }
    (!removed.is_empty()).then_some((current, removed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_syntax::hir::{Hir, HirKind};

    fn strip_or_same(url: &str) -> String {
        strip(url).map_or_else(|| url.to_string(), |(u, _)| u)
    }

    fn data() -> Data {
        serde_json::from_str(RULES).expect("the rule list parses")
    }

    /// Every pattern of the rule list, in its order, once.
    fn patterns() -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for p in data().providers.into_values() {
            for pattern in std::iter::once(p.url_pattern)
                .chain(p.rules)
                .chain(p.exceptions)
            {
                if seen.insert(pattern.clone()) {
                    out.push(pattern);
                }
            }
        }
        out
    }

    #[test]
    fn the_rules_are_the_pinned_clearurls_list() {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(RULES.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex, RULES_SHA256,
            "vendor/clearurls/data.min.json changed: update RULES_SHA256, its README and the CHANGELOG on purpose"
        );
        let data = data();
        assert_eq!(data.providers.len(), 205);
        assert!(data.providers.contains_key("globalRules"));
    }

    #[test]
    fn every_pattern_compiles_as_cite_compiles_it() {
        let mut failed = Vec::new();
        for p in data().providers.into_values() {
            for (pattern, whole) in std::iter::once((p.url_pattern, false))
                .chain(p.rules.into_iter().map(|r| (r, true)))
                .chain(p.exceptions.into_iter().map(|e| (e, false)))
            {
                if let Err(e) = compile(&pattern, whole) {
                    failed.push(format!("{pattern}: {e}"));
                }
            }
        }
        for (_, url, _, rules) in CITE_RULES {
            compile(url, false).expect("cite's URL pattern compiles");
            for r in *rules {
                compile(r, true).expect("cite's rule compiles");
            }
        }
        assert!(failed.is_empty(), "{failed:#?}");
    }

    /// Literal texts one of which every match of `h` contains (lower case), from the
    /// parsed pattern: a literal; a repetition of at least one; any one part of a
    /// concatenation (the one with the longest shortest literal); every branch of an
    /// alternation. Anything else guarantees no text.
    fn required(h: &Hir) -> Option<Vec<String>> {
        let score = |set: &Vec<String>| set.iter().map(String::len).min().unwrap_or(0);
        match h.kind() {
            HirKind::Literal(l) => Some(vec![
                String::from_utf8(l.0.to_vec()).ok()?.to_ascii_lowercase(),
            ]),
            HirKind::Capture(c) => required(&c.sub),
            HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
            HirKind::Concat(parts) => parts
                .iter()
                .filter_map(required)
                .filter(|set| score(set) > 0)
                .fold(None, |best: Option<Vec<String>>, set| match best {
                    Some(b) if score(&b) >= score(&set) => Some(b),
                    _ => Some(set),
                }),
            HirKind::Alternation(branches) => {
                let mut all: Vec<String> = Vec::new();
                for b in branches {
                    all.extend(required(b)?);
                }
                all.sort();
                all.dedup();
                Some(all)
            }
            _ => None,
        }
    }

    fn literals_of(pattern: &str) -> Option<Vec<String>> {
        // Parsed as written, without case folding, so that literals stay literals; the
        // matching side lower-cases the text instead.
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(pattern)
            .ok()?;
        required(&hir).filter(|set| set.iter().all(|l| !l.is_empty()))
    }

    #[test]
    fn literals_file_is_current() {
        let mut text = String::new();
        for pattern in patterns() {
            assert!(!pattern.contains(['\t', '\n']), "{pattern:?}");
            text.push_str(&pattern);
            for l in literals_of(&pattern).unwrap_or_default() {
                text.push('\t');
                text.push_str(&l);
            }
            text.push('\n');
        }
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../vendor/clearurls/literals.txt"
        );
        if std::env::var_os("CITE_WRITE_CLEARURLS").is_some() {
            std::fs::write(path, &text).expect("write literals.txt");
            return;
        }
        assert!(
            LITERALS == text,
            "vendor/clearurls/literals.txt is stale: CITE_WRITE_CLEARURLS=1 cargo test -p cite-core url::tracking"
        );
    }

    /// Every provider but the one that applies everywhere is found through a literal, so
    /// a URL compiles only the patterns it could match.
    #[test]
    fn every_site_pattern_has_a_literal() {
        let table = literal_table();
        let without: Vec<String> = data()
            .providers
            .into_iter()
            .filter(|(_, p)| !table.contains_key(p.url_pattern.as_str()))
            .map(|(name, _)| name)
            .collect();
        assert_eq!(without, ["globalRules"]);
    }

    /// cite's own rules state their literals by hand: each must be in every match.
    #[test]
    fn cites_own_literals_are_in_every_match() {
        for (name, url, literals, _) in CITE_RULES {
            if literals.is_empty() {
                continue;
            }
            let required = literals_of(url).expect("a literal");
            for r in &required {
                assert!(
                    literals.iter().any(|l| r.contains(l)),
                    "{name}: {r:?} holds none of {literals:?}"
                );
            }
        }
    }

    /// Issue 19: each parameter the issue names, on an ordinary news site.
    #[test]
    fn the_parameters_the_issue_names_are_removed() {
        for key in [
            "utm_source",
            "utm_medium",
            "utm_campaign",
            "utm_term",
            "utm_content",
            "utm_id",
            "UTM_Source",
            "fbclid",
            "gclid",
            "dclid",
            "msclkid",
            "mc_cid",
            "mc_eid",
            "igshid",
            "_hsenc",
            "_hsmi",
            "yclid",
        ] {
            let url = format!("https://news.example/2024/story?id=7&{key}=abc123&page=2");
            assert_eq!(
                strip(&url),
                Some((
                    "https://news.example/2024/story?id=7&page=2".to_string(),
                    vec![format!("{key}=abc123")]
                )),
                "{key}"
            );
        }
        assert_eq!(
            strip_or_same("https://www.instagram.com/p/Cx1/?igshid=MzRlODBiNWFlZA=="),
            "https://www.instagram.com/p/Cx1/"
        );
    }

    #[test]
    fn youtube_share_ids_and_start_times_are_removed() {
        for (given, want) in [
            (
                "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=120s",
                "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            ),
            (
                "https://www.youtube.com/watch?si=abc&v=dQw4w9WgXcQ&t=42",
                "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            ),
            (
                "https://m.youtube.com/watch?v=x1&feature=share&pp=ygU",
                "https://m.youtube.com/watch?v=x1",
            ),
            (
                "https://youtu.be/dQw4w9WgXcQ?si=Q2x&t=120",
                "https://youtu.be/dQw4w9WgXcQ",
            ),
            (
                "https://www.youtube.com/shorts/abc?si=Q2x",
                "https://www.youtube.com/shorts/abc",
            ),
        ] {
            assert_eq!(strip_or_same(given), want, "{given}");
        }
        // Those are cite's rules: ClearURLs keeps a playback position.
        let youtube = &data().providers["youtube"];
        assert!(youtube.url_pattern.contains("youtu"));
        assert!(
            !youtube.rules.iter().any(|r| r == "t"),
            "{:?}",
            youtube.rules
        );
        // `t` is a tracker only where it is a playback position.
        for kept in [
            "https://example.com/a?t=120",
            "https://www.youtube.com/results?search_query=x&t=5",
            "https://notyoutube.com/watch?v=1&t=5",
        ] {
            assert_eq!(strip(kept), None, "{kept}");
        }
    }

    #[test]
    fn everything_else_stays_byte_for_byte() {
        for url in [
            "https://a.example/p?q=a/b&x=%2F&y=a+b&z",
            "https://a.example/p?b=2&a=1",
            "https://a.example/p?a=1&&b=2",
            "https://github.com/o/r/blob/main/x.rs?ref=main",
            "https://a.example/p?id=1;s=2",
            "https://a.example/p",
        ] {
            assert_eq!(strip(url), None, "{url}");
        }
        assert_eq!(
            strip_or_same("https://a.example/p?b=2&utm_source=x&a=1&&c"),
            "https://a.example/p?b=2&a=1&c"
        );
        assert_eq!(
            strip_or_same("https://a.example/p?utm_source=x&fbclid=y"),
            "https://a.example/p"
        );
    }

    #[test]
    fn site_rules_and_exceptions_apply_as_clearurls_applies_them() {
        // Amazon's own parameters, on Amazon only.
        assert_eq!(
            strip_or_same("https://www.amazon.com/dp/B0?qid=1&sr=8-1&psc=1"),
            "https://www.amazon.com/dp/B0?psc=1"
        );
        assert_eq!(strip("https://a.example/dp/B0?qid=1&sr=8-1"), None);
        // An exception keeps a provider away: matrix.org's API URLs keep everything.
        assert_eq!(
            strip("https://matrix.org/_matrix/client/x?utm_source=a"),
            None
        );
    }

    #[test]
    fn the_result_is_a_fixed_point() {
        for url in [
            "https://news.example/a?utm_source=x&id=1",
            "https://www.youtube.com/watch?v=1&t=2&si=3",
            "https://www.google.com/search?q=x&ved=1&ei=2&oq=x",
            "https://www.amazon.de/dp/B0?qid=1&ref_=x&th=1",
        ] {
            let once = strip_or_same(url);
            assert_eq!(strip(&once), None, "{url} → {once}");
        }
    }
}
