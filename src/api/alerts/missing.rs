//! Why a part of an alert's context is missing: an error that costs only that part (the
//! key's permission, an endpoint the server or the flavour lacks, an answer larger than the
//! client may read), said in words.

use crate::error::{Error, Result};

/// Why a part of a context is left out, for an error that only costs that part: a key
/// without the permission (403), an endpoint the server lacks (404), an operation the flavour
/// lacks, an answer over the client's `max_response_bytes` (a busy host's slow query logs
/// over a small limit: the rest of the context stands); `None` for any other error, which
/// fails the context.
pub(crate) fn why_missing(e: &Error, what: &str) -> Option<String> {
    match e {
        Error::Unsupported { flavour, .. } => Some(format!("{flavour} has no {what}")),
        Error::Api(a) if a.status == 403 => Some(format!(
            "the key may not read {what} (HTTP 403{})",
            a.error_code
                .as_deref()
                .map(|c| format!(" {c}"))
                .unwrap_or_default()
        )),
        Error::Api(a) if a.status == 404 => Some(format!(
            "the server has no {what} here (HTTP 404{})",
            a.error_code
                .as_deref()
                .map(|c| format!(" {c}"))
                .unwrap_or_default()
        )),
        Error::ResponseTooLarge { limit, .. } => Some(format!(
            "the answer for {what} is larger than max_response_bytes ({limit} bytes)"
        )),
        _ => None,
    }
}

/// A part's result: its value, or why it is missing; other errors fail the context.
pub(crate) fn part<T>(r: Result<T>, what: &str) -> Result<Result<T, String>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) => match why_missing(&e, what) {
            Some(why) => Ok(Err(why)),
            None => Err(e),
        },
    }
}
