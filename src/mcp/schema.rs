//! The JSON Schemas the tools declare, in a form strict validators accept.
//!
//! schemars writes what JSON Schema allows but strict clients refuse: `format` values
//! of its own (`uint64`, `double`, `int32`, which Ajv's strict mode throws on), type
//! arrays (`["string", "null"]`, which strict mode refuses as union types), and `$ref`s
//! into `$defs` (a 2020-12 keyword a draft-07 client does not know). [`strict`] is
//! applied once to every tool's schemas when the server starts, so that no schema is
//! written by hand and a new tool gets the same treatment:
//!
//! - `format` is kept only when it is one the JSON Schema specification defines;
//! - `$ref`s are inlined and `$defs` and `$schema` dropped: the schemas then use only
//!   keywords draft-07 and 2020-12 read alike (MCP takes a schema without `$schema` as
//!   2020-12);
//! - in an input schema, `null` is dropped from an optional field's types (and as its
//!   default): a field that may be left out is simply not required;
//! - in an output schema, a field that may be `null` says so with `anyOf` (the answer
//!   does carry `null` there, and the schema must accept what is sent).

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// Which side of a call a schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Arguments: optional fields are left out, never `null`.
    Input,
    /// Structured content: optional fields may be `null`.
    Output,
}

/// The formats the JSON Schema specification defines (2020-12, validation §7.3).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Nesting deeper than this is not followed (our types are not recursive; a `$ref`
/// cycle would otherwise never end).
const MAX_DEPTH: usize = 64;

/// The schema of what `T` serializes to, made strict: a tool's `outputSchema`.
pub fn output<T: JsonSchema>() -> Arc<JsonObject> {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let value = serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"}));
    let mut object = match strict(value, Side::Output) {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    // The type's name and doc say nothing to a client.
    object.remove("title");
    object.remove("description");
    Arc::new(object)
}

/// `schema` rewritten as the module comment says.
pub fn strict(schema: Value, side: Side) -> Value {
    let Value::Object(mut root) = schema else {
        return schema;
    };
    let defs = match root.remove("$defs") {
        Some(Value::Object(d)) => d,
        _ => Map::new(),
    };
    root.remove("$schema");
    walk(Value::Object(root), &defs, side, 0)
}

fn walk(node: Value, defs: &Map<String, Value>, side: Side, depth: usize) -> Value {
    let Value::Object(mut node) = node else {
        return node;
    };
    if depth > MAX_DEPTH {
        return Value::Object(node);
    }
    if let Some(Value::String(r)) = node.remove("$ref") {
        let target = r
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let Value::Object(mut merged) = walk(target, defs, side, depth + 1) else {
            return Value::Object(node);
        };
        // What sits beside the `$ref` (its field's description) says more than the
        // type's own.
        for (k, v) in node {
            merged.insert(k, v);
        }
        node = merged;
    }
    if let Some(Value::String(f)) = node.get("format")
        && !STANDARD_FORMATS.contains(&f.as_str())
    {
        node.remove("format");
    }
    for key in ["properties", "patternProperties", "$defs", "definitions"] {
        if let Some(Value::Object(props)) = node.remove(key) {
            let props = props
                .into_iter()
                .map(|(k, v)| (k, walk(v, defs, side, depth + 1)))
                .collect();
            node.insert(key.into(), Value::Object(props));
        }
    }
    for key in ["items", "additionalProperties", "not", "contains"] {
        if let Some(v) = node.get_mut(key)
            && v.is_object()
        {
            *v = walk(v.take(), defs, side, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(branches)) = node.remove(key) {
            let branches = branches
                .into_iter()
                .map(|b| walk(b, defs, side, depth + 1))
                .collect();
            node.insert(key.into(), Value::Array(branches));
        }
    }
    let nullable = drop_null_type(&mut node);
    if side == Side::Input {
        drop_null_branch(&mut node);
        // An optional field is left out, never `null`, so `null` is no default of it.
        if node.get("default") == Some(&Value::Null) {
            node.remove("default");
        }
        return Value::Object(node);
    }
    if nullable {
        return Value::Object(null_or(node));
    }
    Value::Object(node)
}

/// Turns `"type": ["T", "null"]` into `"type": "T"`; true when `null` was there.
fn drop_null_type(node: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(types)) = node.get("type") else {
        return false;
    };
    let had_null = types.iter().any(|t| t == "null");
    let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    match rest.len() {
        0 => node.insert("type".into(), json!("null")),
        1 => node.insert("type".into(), rest[0].clone()),
        // Several types: each its own branch, since strict mode refuses a type array.
        _ => {
            node.remove("type");
            let branches: Vec<Value> = rest.into_iter().map(|t| json!({"type": t})).collect();
            node.insert("anyOf".into(), Value::Array(branches))
        }
    };
    had_null
}

/// In an input schema, `anyOf: [X, {"type": "null"}]` (an optional field of a type with
/// a schema of its own) becomes X.
fn drop_null_branch(node: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return;
    };
    let rest: Vec<Value> = branches
        .iter()
        .filter(|b| **b != json!({"type": "null"}))
        .cloned()
        .collect();
    if rest.len() == branches.len() {
        return;
    }
    node.remove("anyOf");
    match <[Value; 1]>::try_from(rest) {
        Ok([Value::Object(only)]) => {
            for (k, v) in only {
                node.entry(k).or_insert(v);
            }
        }
        Ok([other]) => {
            node.insert("anyOf".into(), json!([other]));
        }
        Err(rest) => {
            node.insert("anyOf".into(), Value::Array(rest));
        }
    }
}

/// `node`, or null: its annotations stay outside, its constraints go in a branch.
fn null_or(mut node: Map<String, Value>) -> Map<String, Value> {
    let mut outer = Map::new();
    for key in ["description", "title", "default"] {
        if let Some(v) = node.remove(key) {
            outer.insert(key.into(), v);
        }
    }
    outer.insert(
        "anyOf".into(),
        json!([Value::Object(node), {"type": "null"}]),
    );
    outer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_schemas_lose_odd_formats_null_types_and_refs() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "id": {"type": "integer", "format": "uint64", "minimum": 1},
                "epoch": {"type": ["integer", "null"], "format": "uint64"},
                "at": {"type": "string", "format": "date-time"},
                "style": {"description": "Style.", "anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}
            },
            "$defs": {"S": {"type": "string", "enum": ["a", "b"], "description": "S."}}
        });
        assert_eq!(
            strict(schema, Side::Input),
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 1},
                    "epoch": {"type": "integer"},
                    "at": {"type": "string", "format": "date-time"},
                    "style": {"description": "Style.", "type": "string", "enum": ["a", "b"]}
                }
            })
        );
    }

    #[test]
    fn output_schemas_say_null_with_any_of() {
        let schema = json!({
            "type": "object",
            "properties": {"line": {"description": "Line.", "type": ["integer", "null"], "format": "uint", "minimum": 0}}
        });
        assert_eq!(
            strict(schema, Side::Output),
            json!({
                "type": "object",
                "properties": {"line": {"description": "Line.", "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}}
            })
        );
    }
}
