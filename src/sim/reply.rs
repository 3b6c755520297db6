//! A finished answer before it becomes an HTTP response, and the service's error body: the
//! base that the server, the fault effects and the rate limiter all build answers from (so
//! that none of those has to reach into another).

use bytes::Bytes;
use hyper::StatusCode;
use serde_json::{json, Value};

/// A finished answer before it becomes an HTTP response.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Bytes,
    pub(crate) content_type: &'static str,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) version_header: bool,
}

impl Reply {
    pub(crate) fn json(status: u16, body: Vec<u8>) -> Self {
        Self {
            status,
            body: Bytes::from(body),
            content_type: "application/json",
            headers: Vec::new(),
            version_header: (200..300).contains(&status),
        }
    }
}

pub(crate) fn reason(status: u16) -> &'static str {
    StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Unknown")
}

/// The service's error body.
fn error_body(status: u16, code: &str, detail: &str, params: Vec<Value>) -> Vec<u8> {
    let v = json!({
        "detail": detail,
        "error": status,
        "errorCode": code,
        "parameters": params,
        "reason": reason(status),
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

pub(crate) fn err(status: u16, code: &str, detail: impl AsRef<str>, params: Vec<Value>) -> Reply {
    Reply::json(status, error_body(status, code, detail.as_ref(), params))
}
