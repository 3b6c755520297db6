//! Decoding of response bodies, with the failing field named on error.

use serde_json::{Map, Value};

use crate::error::{decode_error, Result};
use crate::models::{Decode, Link, Measurements, Model};

/// Decodes a JSON body into a model (models keep the object for [`Model::raw`]; measurements
/// go straight into columns).
///
/// Bodies wrapped by `envelope=true` (`{"status": 200, "content": {...}}`) decode too.
///
/// ```
/// let host: opsapi::Host = opsapi::decode_model(br#"{"status":200,"content":{"id":"h1"}}"#).unwrap();
/// assert_eq!(host.id.as_deref(), Some("h1"));
/// let err = opsapi::decode_model::<opsapi::Host>(br#"{"id":"h1","port":"27017"}"#).unwrap_err();
/// assert!(err.to_string().contains("`port`"), "{err}");
/// ```
pub fn decode_model<T: Decode>(body: &[u8]) -> Result<T> {
    T::decode_at("", body)
}

/// A model that keeps its object: parsed as a `Value`, then read with path tracking.
pub(crate) fn decode_object_at<T: Model>(path: &str, body: &[u8]) -> Result<T> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| decode_error(path, String::new(), &e, body))?;
    from_value_at(path, String::new(), unwrap_envelope(value), body)
}

/// Measurements are large: scanned straight into columns in one pass; a body the scanner does
/// not take is decoded by serde, with path tracking only on failure, to name the field.
pub(crate) fn decode_measurements(path: &str, body: &[u8]) -> Result<Measurements> {
    if let Some(m) = crate::models::scan::measurements(body) {
        return Ok(m);
    }
    match serde_json::from_slice::<Measurements>(body) {
        Ok(m) => Ok(m),
        Err(first) => {
            let mut de = serde_json::Deserializer::from_slice(body);
            match serde_path_to_error::deserialize::<_, Measurements>(&mut de) {
                Err(e) => {
                    let field = e.path().to_string();
                    Err(decode_error(path, field, e.inner(), body))
                }
                Ok(_) => Err(decode_error(path, String::new(), &first, body)),
            }
        }
    }
}

/// `{"status": 200, "content": X}` → `X`; anything else as it is.
pub(crate) fn unwrap_envelope(value: Value) -> Value {
    match value {
        Value::Object(mut map)
            if map.len() == 2
                && map.contains_key("content")
                && map.get("status").is_some_and(Value::is_number) =>
        {
            map.remove("content").unwrap_or(Value::Null)
        }
        other => other,
    }
}

/// Decodes one object, with `prefix` (`results[3]`) leading the field path on error.
pub(crate) fn from_value_at<T: Model>(
    path: &str,
    prefix: String,
    value: Value,
    body: &[u8],
) -> Result<T> {
    let Value::Object(map) = value else {
        let e = <serde_json::Error as serde::de::Error>::custom(format!(
            "expected a JSON object, found {}",
            kind(&value)
        ));
        return Err(decode_error(path, prefix, &e, body));
    };
    let value = Value::Object(map);
    let mut model: T = serde_path_to_error::deserialize(&value).map_err(|e| {
        let inner = e.path().to_string();
        let field = match (prefix.is_empty(), inner == ".") {
            (true, _) => inner,
            (false, true) => prefix.clone(),
            (false, false) => format!("{prefix}.{inner}"),
        };
        decode_error(path, field, e.inner(), body)
    })?;
    let Value::Object(map) = value else {
        unreachable!("constructed as an object above")
    };
    model.set_raw(map);
    Ok(model)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One page of a list: `{"links": [...], "results": [...], "totalCount": N}`.
#[derive(Debug, Clone)]
pub(crate) struct Page<T> {
    pub(crate) items: Vec<T>,
    pub(crate) total_count: Option<u64>,
    pub(crate) links: Vec<Link>,
}

impl<T> Page<T> {
    pub(crate) fn link(&self, rel: &str) -> Option<&str> {
        self.links
            .iter()
            .find(|l| l.rel == rel)
            .map(|l| l.href.as_str())
    }
}

pub(crate) fn decode_page<T: Model>(path: &str, body: &[u8]) -> Result<Page<T>> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| decode_error(path, String::new(), &e, body))?;
    let Value::Object(mut map) = value else {
        let e = <serde_json::Error as serde::de::Error>::custom("expected a list object");
        return Err(decode_error(path, String::new(), &e, body));
    };
    let results = match map.remove("results") {
        Some(Value::Array(items)) => items,
        Some(Value::Null) | None => {
            let e = <serde_json::Error as serde::de::Error>::missing_field("results");
            return Err(decode_error(path, "results".into(), &e, body));
        }
        Some(other) => {
            let e = <serde_json::Error as serde::de::Error>::custom(format!(
                "expected an array, found {}",
                kind(&other)
            ));
            return Err(decode_error(path, "results".into(), &e, body));
        }
    };
    let total_count = match map.remove("totalCount") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(_) => {
            let e =
                <serde_json::Error as serde::de::Error>::custom("expected a non-negative integer");
            return Err(decode_error(path, "totalCount".into(), &e, body));
        }
    };
    let links = links_of(path, &mut map, body)?;
    let items = results
        .into_iter()
        .enumerate()
        .map(|(i, v)| from_value_at(path, format!("results[{i}]"), v, body))
        .collect::<Result<Vec<T>>>()?;
    Ok(Page {
        items,
        total_count,
        links,
    })
}

fn links_of(path: &str, map: &mut Map<String, Value>, body: &[u8]) -> Result<Vec<Link>> {
    match map.remove("links") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => serde_path_to_error::deserialize::<_, Vec<Link>>(&v).map_err(|e| {
            decode_error(
                path,
                format!("links{}", e.path().to_string().trim_start_matches('.')),
                e.inner(),
                body,
            )
        }),
    }
}
