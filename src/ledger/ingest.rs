//! Finding source URLs in arbitrary JSON tool output.
//!
//! Mirrors `sources.py`: a depth-first walk in document order; in each object the URL is
//! the first truthy of `url`, `link`, `source_url` (Python truthiness: a non-empty list
//! there hides a valid `link`), and counts only if it is a string starting with
//! `http://` or `https://`; the title is the first truthy of `title`, `name`, kept only
//! if it is a string. Duplicates by canonical URL keep the first.

use std::collections::HashSet;

use serde_json::Value;

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

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn first_truthy<'a>(obj: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().filter_map(|k| obj.get(*k)).find(|v| truthy(v))
}

/// Walks `root` and returns the URLs in document order, deduplicated, plus the
/// URL-looking strings that were refused.
pub fn find_urls(root: &Value) -> (Vec<Found>, Vec<Skipped>) {
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = HashSet::new();
    // An explicit stack, not recursion: hostile input may nest arbitrarily deep.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(obj) => {
                if let Some(Value::String(raw)) = first_truthy(obj, &["url", "link", "source_url"])
                    && (raw.starts_with("http://") || raw.starts_with("https://"))
                {
                    {
                        match canonicalize(raw) {
                            Ok(url) => {
                                if seen.insert(url.clone()) {
                                    let title = match first_truthy(obj, &["title", "name"]) {
                                        Some(Value::String(t)) => super::clean_title(t),
                                        _ => String::new(),
                                    };
                                    found.push(Found {
                                        given: raw.clone(),
                                        url,
                                        title,
                                    });
                                }
                            }
                            Err(e) => skipped.push(Skipped {
                                given: raw.clone(),
                                reason: e.reason,
                            }),
                        }
                    }
                }
                stack.extend(obj.values().rev());
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    (found, skipped)
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
        let (found, skipped) = find_urls(&v);
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
}
