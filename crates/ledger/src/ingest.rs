//! Finding source URLs in arbitrary JSON tool output.
//!
//! Mirrors `sources.py`: a depth-first walk in document order; in each object the URL is
//! the first truthy of `url`, `link`, `source_url` (Python truthiness: a non-empty list
//! there hides a valid `link`), and counts only if it is a string starting with
//! `http://` or `https://`; the title is the first truthy of `title`, `name`, kept only
//! if it is a string. Duplicates by canonical URL keep the first.

use std::collections::HashSet;
use std::fmt;

use serde::Deserializer;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::url::canonicalize;

/// One URL found in tool output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// As it appeared in the input.
    pub given: String,
    pub url: String,
    pub title: String,
}

/// A URL-looking string that did not parse as a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub given: String,
    pub reason: String,
}

/// Parses `json` and returns its URLs in document order, deduplicated, plus the
/// URL-looking strings that were refused.
///
/// The walk runs inside the parser, so no tree of the whole document is built: what
/// stays in memory is the list of URLs found, which keeps a 100,000-result ingest small.
pub fn find_urls(json: &str) -> Result<(Vec<Found>, Vec<Skipped>), serde_json::Error> {
    walk(json, 0)
}

/// [`find_urls`] for the result of an agent's tool call, which often carries its JSON as
/// text: an MCP tool answers `[{"type": "text", "text": "{\"results\": …}"}]`. A string
/// that is itself a JSON object or array is walked too, where it stands (so document
/// order holds), as deep as [`NESTED_JSON_LEVELS`] strings inside strings. A string that
/// only looks like JSON is text, and adds nothing. `ingest` does not do this: it finds
/// what `sources.py` finds.
pub fn find_urls_in_tool_output(
    json: &str,
) -> Result<(Vec<Found>, Vec<Skipped>), serde_json::Error> {
    walk(json, NESTED_JSON_LEVELS)
}

/// How many levels of JSON held in a string [`find_urls_in_tool_output`] opens. Each
/// level is a new parser with its own recursion limit, so the bound also bounds the stack.
pub const NESTED_JSON_LEVELS: u8 = 2;

fn walk(json: &str, nested: u8) -> Result<(Vec<Found>, Vec<Skipped>), serde_json::Error> {
    let mut raw = Vec::new();
    let mut de = serde_json::Deserializer::from_str(json);
    Node {
        out: &mut raw,
        nested,
    }
    .deserialize(&mut de)?;
    de.end()?;
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    // 128 bits of blake3 per URL instead of a copy of it: a collision is as likely as
    // guessing a random 128-bit key.
    let mut seen: HashSet<[u8; 16]> = HashSet::new();
    for (given, title) in raw {
        match canonicalize(&given) {
            Ok(url) => {
                let digest = blake3::hash(url.as_bytes());
                let mut key = [0u8; 16];
                key.copy_from_slice(&digest.as_bytes()[..16]);
                if seen.insert(key) {
                    found.push(Found { given, url, title });
                }
            }
            Err(e) => skipped.push(Skipped {
                given,
                reason: e.reason,
            }),
        }
    }
    Ok((found, skipped))
}

/// What the walk needs to know of a value: its string, or its Python truthiness.
enum Seen {
    Str(String),
    Truthy,
    Falsy,
}

impl Seen {
    fn truthy(&self) -> bool {
        match self {
            Seen::Str(s) => !s.is_empty(),
            Seen::Truthy => true,
            Seen::Falsy => false,
        }
    }
}

/// The keys an object's own URL and title come from, in order of preference.
const URL_KEYS: [&str; 3] = ["url", "link", "source_url"];
const TITLE_KEYS: [&str; 2] = ["title", "name"];

/// Visits one value, appending `(url as given, title)` for every object in it that
/// names a URL, in the order `sources.py` walks: an object's own URL before those of
/// the values inside it.
struct Node<'a> {
    out: &'a mut Vec<(String, String)>,
    /// How many more levels of JSON held in strings to open (0: strings are text).
    nested: u8,
}

impl Node<'_> {
    /// Walks `text` as JSON when it is an object or array and nesting is allowed,
    /// appending what it names only if all of it parses.
    fn open_string(&mut self, text: &str) {
        let t = text.trim();
        let shaped =
            (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
        if self.nested == 0 || !shaped {
            return;
        }
        let mut found = Vec::new();
        let mut de = serde_json::Deserializer::from_str(t);
        let walked = Node {
            out: &mut found,
            nested: self.nested - 1,
        }
        .deserialize(&mut de)
        .and_then(|_| de.end());
        if walked.is_ok() {
            self.out.append(&mut found);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Seen;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Seen, D::Error> {
        d.deserialize_any(self)
    }
}

fn truth(b: bool) -> Seen {
    if b { Seen::Truthy } else { Seen::Falsy }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Seen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Seen, E> {
        Ok(truth(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Seen, E> {
        Ok(truth(v != 0))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Seen, E> {
        Ok(truth(v != 0))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Seen, E> {
        Ok(truth(v != 0.0))
    }
    fn visit_str<E>(mut self, v: &str) -> Result<Seen, E> {
        self.open_string(v);
        Ok(Seen::Str(v.to_string()))
    }
    fn visit_string<E>(mut self, v: String) -> Result<Seen, E> {
        self.open_string(&v);
        Ok(Seen::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Seen, E> {
        Ok(Seen::Falsy)
    }
    fn visit_none<E>(self) -> Result<Seen, E> {
        Ok(Seen::Falsy)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seen, A::Error> {
        let mut n = 0usize;
        while seq
            .next_element_seed(Node {
                out: self.out,
                nested: self.nested,
            })?
            .is_some()
        {
            n += 1;
        }
        Ok(truth(n > 0))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        // A later duplicate key wins, as in a Python dict.
        let mut urls: [Option<Seen>; 3] = [None, None, None];
        let mut titles: [Option<Seen>; 2] = [None, None];
        let mut inner = Vec::new();
        let mut n = 0usize;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            n += 1;
            let seen = map.next_value_seed(Node {
                out: &mut inner,
                nested: self.nested,
            })?;
            if let Some(i) = URL_KEYS.iter().position(|k| *k == key) {
                urls[i] = Some(seen);
            } else if let Some(i) = TITLE_KEYS.iter().position(|k| *k == key) {
                titles[i] = Some(seen);
            }
        }
        let first = |slots: &mut [Option<Seen>]| {
            slots
                .iter_mut()
                .find(|s| s.as_ref().is_some_and(Seen::truthy))
                .and_then(Option::take)
        };
        if let Some(Seen::Str(url)) = first(&mut urls)
            && (url.starts_with("http://") || url.starts_with("https://"))
        {
            let title = match first(&mut titles) {
                Some(Seen::Str(t)) => super::clean_title(&t),
                _ => String::new(),
            };
            self.out.push((url, title));
        }
        self.out.append(&mut inner);
        Ok(truth(n > 0))
    }
}

impl From<serde_json::Error> for super::Error {
    fn from(e: serde_json::Error) -> Self {
        super::Error::Json(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn document_order_dedupe_and_truthiness() {
        let v = json!({
            "data": {"web": [
                {"url": "https://a.example/x/", "title": "A"},
                {"link": "https://b.example", "name": "B"},
                {"url": "", "source_url": "http://c.example"},
                {"url": ["hides"], "link": "https://d.example"},
                {"url": "ftp://e.example"},
                {"url": "https://a.example/x#dup", "title": "dup"},
                {"url": "https://", "title": "broken"}
            ]},
            "results": [{"url": "https://f.example", "title": 7}]
        });
        let (found, skipped) = find_urls(&v.to_string()).unwrap();
        let urls: Vec<_> = found
            .iter()
            .map(|f| (f.url.as_str(), f.title.as_str()))
            .collect();
        assert_eq!(
            urls,
            [
                ("https://a.example/x", "A"),
                ("https://b.example", "B"),
                ("http://c.example", ""),
                ("https://f.example", ""),
            ]
        );
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].given, "https://");
    }

    #[test]
    fn tool_output_opens_json_held_in_strings_in_place() {
        let inner = json!({"results": [{"url": "https://b.example", "title": "B"}]});
        let deeper =
            json!([{"type": "text", "text": json!({"link": "https://d.example"}).to_string()}]);
        let v = json!([
            {"url": "https://a.example"},
            {"type": "text", "text": inner.to_string()},
            {"url": "https://c.example"},
            {"type": "text", "text": "[not json, https://x.example]"},
            {"type": "text", "text": "{\"url\": \"https://half.example\", "},
            {"text": deeper.to_string()}
        ]);
        let urls = |found: Vec<Found>| found.into_iter().map(|f| f.url).collect::<Vec<_>>();
        let (found, _) = find_urls_in_tool_output(&v.to_string()).unwrap();
        assert_eq!(
            urls(found),
            [
                "https://a.example",
                "https://b.example",
                "https://c.example",
                "https://d.example"
            ]
        );
        // `ingest` finds what sources.py finds: no JSON inside strings.
        let (found, _) = find_urls(&v.to_string()).unwrap();
        assert_eq!(urls(found), ["https://a.example", "https://c.example"]);
        // Three levels down is text.
        let third = json!({"t": json!({"t": json!({"t": json!({"url": "https://e.example"}).to_string()}).to_string()}).to_string()});
        let (found, _) = find_urls_in_tool_output(&third.to_string()).unwrap();
        assert!(found.is_empty(), "{found:?}");
    }
}
