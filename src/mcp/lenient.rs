//! Parameters as models send them (issue 18): an id as `3` or `"3"`, a list of URLs or
//! ids as an array or as one value. Each reader accepts both shapes and refuses the
//! rest with a message naming what to send; each schema says both shapes, so a client
//! that validates arguments before sending them lets them through.

use schemars::{Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

/// A whole number from a JSON number or a string of digits (spaces around it allowed).
fn whole(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => {
            let s = s.trim();
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        }
        _ => None,
    }
}

/// An id, epoch or count: `3` or `"3"`.
pub fn number<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = Value::deserialize(d)?;
    whole(&v).ok_or_else(|| {
        de::Error::custom(format!(
            "expected a whole number such as 3 (or \"3\"), got {v}"
        ))
    })
}

/// [`number`], optional.
pub fn number_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    number(d).map(Some)
}

/// Ids for `only`: `"1,3,5-7"`, `[1, 3]`, `["1", "3"]` or `3`, as the text `IdSet`
/// parses.
pub fn ids_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = Value::deserialize(d)?;
    let text = match &v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) => whole(&v).map(|n| n.to_string()),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Some(s.trim().to_string()),
                other => whole(other).map(|n| n.to_string()),
            })
            .collect::<Option<Vec<String>>>()
            .map(|parts| parts.join(",")),
        _ => None,
    };
    text.map(Some).ok_or_else(|| {
        de::Error::custom(format!(
            "expected ids such as \"1,3,5-7\" or [1, 3], got {v}"
        ))
    })
}

/// URLs: an array of strings, or one string.
pub fn urls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(vec![s]),
        Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                Value::String(s) => Ok(s),
                other => Err(de::Error::custom(format!(
                    "expected each URL as a string, got {other}"
                ))),
            })
            .collect(),
        other => Err(de::Error::custom(format!(
            "expected urls as an array of strings, got {other}"
        ))),
    }
}

/// The schema of an id (1 or more): an integer, or a string of digits.
pub fn id_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "integer", "minimum": 1},
            {"type": "string", "pattern": "^\\s*[0-9]+\\s*$"}
        ]
    })
}

/// The schema of a page size for `list` (1 to 1000): an integer, or a string of
/// digits (checked when read).
pub fn limit_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 1000},
            {"type": "string", "pattern": "^\\s*[0-9]+\\s*$"}
        ]
    })
}

/// The schema of a character offset (0 or more): an integer, or a string of digits.
pub fn offset_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": "^\\s*[0-9]+\\s*$"}
        ]
    })
}

/// The schema of how many characters of a page text `show` returns (1 to 100000): an
/// integer, or a string of digits (checked when read).
pub fn text_limit_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 100000},
            {"type": "string", "pattern": "^\\s*[0-9]+\\s*$"}
        ]
    })
}

/// The schema of `only`: `"1,3,5-7"`, or an array of ids.
pub fn ids_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string"}
            ]}}
        ]
    })
}

/// The schema of `urls`: an array of strings (at least one), or one string.
pub fn urls_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "array", "items": {"type": "string"}, "minItems": 1},
            {"type": "string"}
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Debug)]
    struct P {
        #[serde(deserialize_with = "number")]
        id: u64,
        #[serde(default, deserialize_with = "number_opt")]
        epoch: Option<u64>,
        #[serde(default, deserialize_with = "ids_opt")]
        only: Option<String>,
        #[serde(default, deserialize_with = "urls")]
        urls: Vec<String>,
    }

    fn p(v: Value) -> Result<P, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_come_as_numbers_or_digit_strings() {
        assert_eq!(p(json!({"id": 3})).unwrap().id, 3);
        assert_eq!(p(json!({"id": "3"})).unwrap().id, 3);
        assert_eq!(p(json!({"id": " 12 "})).unwrap().id, 12);
        assert_eq!(p(json!({"id": 1, "epoch": "2"})).unwrap().epoch, Some(2));
        assert_eq!(p(json!({"id": 1})).unwrap().epoch, None);
        for bad in [
            json!("3a"),
            json!(""),
            json!(-1),
            json!(1.5),
            json!(null),
            json!([3]),
        ] {
            let e = p(json!({"id": bad})).unwrap_err();
            assert!(e.contains("expected a whole number"), "{e}");
        }
    }

    #[test]
    fn ids_and_urls_come_as_lists_or_one_value() {
        let only = |v: Value| p(json!({"id": 1, "only": v})).map(|p| p.only);
        assert_eq!(only(json!("1,3,5-7")), Ok(Some("1,3,5-7".into())));
        assert_eq!(only(json!([1, "3", "5-7"])), Ok(Some("1,3,5-7".into())));
        assert_eq!(only(json!(4)), Ok(Some("4".into())));
        assert!(only(json!({"a": 1})).unwrap_err().contains("expected ids"));
        let urls = |v: Value| p(json!({"id": 1, "urls": v})).map(|p| p.urls);
        assert_eq!(
            urls(json!("https://a.org")),
            Ok(vec!["https://a.org".into()])
        );
        assert_eq!(
            urls(json!(["https://a.org", "https://b.org"])),
            Ok(vec!["https://a.org".into(), "https://b.org".into()])
        );
        assert!(urls(json!([1])).unwrap_err().contains("as a string"));
    }
}
