//! One page of a list, decoded with each item's text kept, and the slow path that names the
//! field at fault when a body is not the documented page.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{from_raw_at, kind_of_text, syntax_error, without_position};
use crate::error::{decode_error, Result};
use crate::models::{Link, Model};

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

/// A page as the service sends it, with each item's text borrowed from the body.
#[derive(Deserialize)]
struct RawPage<'a> {
    #[serde(borrow)]
    results: Option<Vec<&'a RawValue>>,
    #[serde(rename = "totalCount")]
    total_count: Option<u64>,
    links: Option<Vec<Link>>,
}

pub(crate) fn decode_page<T: Model>(path: &str, body: &[u8]) -> Result<Page<T>> {
    decode_page_of(path, body, None)
}

/// [`decode_page`] of a body held as `Bytes`: each item's text is a slice of it.
pub(crate) fn decode_page_shared<T: Model>(path: &str, body: &bytes::Bytes) -> Result<Page<T>> {
    decode_page_of(path, body, Some(body))
}

fn decode_page_of<T: Model>(
    path: &str,
    body: &[u8],
    shared: Option<&bytes::Bytes>,
) -> Result<Page<T>> {
    // Pages of alerts, the longest listings, have a scanner of their own that reads what it
    // fully understands in one pass (see `alerts`); `T` is known here only as a `Model`, so
    // the one model with a scanner is picked by its type (a move, not a copy, of the items).
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<crate::models::Alert>() {
        if let Some((items, total_count, links)) = super::alerts::alert_page(body) {
            let items: Vec<crate::models::Alert> = items
                .into_iter()
                .map(|(mut alert, range)| {
                    let text = std::str::from_utf8(&body[range]).unwrap_or("{}");
                    alert.set_raw(crate::models::RawText::within(text, shared));
                    alert
                })
                .collect();
            let items: Box<dyn std::any::Any> = Box::new(items);
            if let Ok(items) = items.downcast::<Vec<T>>() {
                return Ok(Page {
                    items: *items,
                    total_count,
                    links,
                });
            }
        }
    }
    decode_page_serde(path, body, shared)
}

/// [`decode_page`] by serde alone: each item's text found, then its typed fields read from it.
pub(crate) fn decode_page_serde<T: Model>(
    path: &str,
    body: &[u8],
    shared: Option<&bytes::Bytes>,
) -> Result<Page<T>> {
    let page = match serde_json::from_slice::<RawPage<'_>>(body) {
        Ok(
            page @ RawPage {
                results: Some(_), ..
            },
        ) => page,
        // Not the documented shape: read again as a value, to say precisely what is wrong.
        _ => return decode_page_value(path, body, shared),
    };
    let items = page
        .results
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, raw)| from_raw_at(path, Some(i), raw.get(), body, shared))
        .collect::<Result<Vec<T>>>()?;
    Ok(Page {
        items,
        total_count: page.total_count,
        links: page.links.unwrap_or_default(),
    })
}

/// The slow path of [`decode_page`], for bodies that are not the documented page: the error
/// names the field at fault (or, for a body that is only unusual, such as one with a repeated
/// key, the page decodes from its value).
///
/// The body is read as raw values, not as a `serde_json::Value`: the items keep the server's text
/// exactly as on the fast path, and a page is not held to a tighter nesting limit than its
/// items (a `Value` of the page counts the page's own two levels).
fn decode_page_value<T: Model>(
    path: &str,
    body: &[u8],
    shared: Option<&bytes::Bytes>,
) -> Result<Page<T>> {
    let raw: &RawValue = serde_json::from_slice(body).map_err(|e| syntax_error(path, &e, body))?;
    if !raw.get().starts_with('{') {
        let e = "expected a list object";
        return Err(decode_error(path, String::new(), &e, body));
    }
    // A repeated key: the last one wins, as in a `Value`.
    let mut map: std::collections::HashMap<String, &RawValue> =
        serde_json::from_str(raw.get()).map_err(|e| decode_error(path, String::new(), &e, body))?;
    let is_null = |v: &RawValue| v.get() == "null";
    let results = match map.remove("results") {
        Some(v) if v.get().starts_with('[') => serde_json::from_str::<Vec<&RawValue>>(v.get())
            .map_err(|e| decode_error(path, "results".into(), &e, body))?,
        Some(v) if !is_null(v) => {
            let e = format!("expected an array, found {}", kind_of_text(v.get()));
            return Err(decode_error(path, "results".into(), &e, body));
        }
        _ => {
            let e = <serde_json::Error as serde::de::Error>::missing_field("results");
            return Err(decode_error(path, "results".into(), &e, body));
        }
    };
    let total_count = match map.remove("totalCount") {
        None => None,
        Some(v) if is_null(v) => None,
        Some(v) => match serde_json::from_str::<u64>(v.get()) {
            Ok(n) => Some(n),
            Err(_) => {
                let e = "expected a non-negative integer";
                return Err(decode_error(path, "totalCount".into(), &e, body));
            }
        },
    };
    let links = links_of(path, map.remove("links"), body)?;
    let items = results
        .into_iter()
        .enumerate()
        .map(|(i, v)| from_raw_at(path, Some(i), v.get(), body, shared))
        .collect::<Result<Vec<T>>>()?;
    Ok(Page {
        items,
        total_count,
        links,
    })
}

fn links_of(path: &str, links: Option<&RawValue>, body: &[u8]) -> Result<Vec<Link>> {
    match links {
        None => Ok(Vec::new()),
        Some(v) if v.get() == "null" => Ok(Vec::new()),
        Some(v) => {
            let mut de = serde_json::Deserializer::from_str(v.get());
            serde_path_to_error::deserialize::<_, Vec<Link>>(&mut de).map_err(|e| {
                decode_error(
                    path,
                    format!("links{}", e.path().to_string().trim_start_matches('.')),
                    &without_position(e.inner()),
                    body,
                )
            })
        }
    }
}
