//! The one error type of the crate.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// A result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when talking to the API.
///
/// No variant ever holds the private key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with an error status.
    #[error("{0}")]
    Api(Box<ApiError>),
    /// An argument was rejected before any request was sent.
    #[error("invalid argument `{argument}`: {message}")]
    InvalidArgument {
        /// The name of the argument, as the caller spelled it (`granularity`, `start`, ...).
        argument: String,
        /// What is wrong with it.
        message: String,
    },
    /// The server's flavour does not have the operation (Atlas has no global alerts, for
    /// example); raised before any request is sent.
    #[error(
        "`{operation}` is not available on {flavour}: {}",
        operation_hint(operation)
    )]
    Unsupported {
        /// The operation, as Python calls it (`global_alerts.list`).
        operation: &'static str,
        /// The client's flavour.
        flavour: crate::Flavour,
    },
    /// The request could not be sent or its answer not received: connect, TLS or reset.
    #[error("transport error on {method} {path}: {message}")]
    Transport {
        /// The HTTP method.
        method: String,
        /// The request path (no query).
        path: String,
        /// What failed, with its cause chain.
        message: String,
    },
    /// The request's time budget (the client's `timeout`, retries and waits included) was
    /// spent before it completed.
    #[error("timed out after {timeout:?} on {method} {path}")]
    Timeout {
        /// The HTTP method.
        method: String,
        /// The request path (no query).
        path: String,
        /// The configured per-request timeout.
        timeout: Duration,
    },
    /// The response body is larger than the client's `max_response_bytes`; it was not read
    /// past the limit.
    #[error("the response to {method} {path} is larger than max_response_bytes ({limit} bytes); it was not read further")]
    ResponseTooLarge {
        /// The HTTP method.
        method: String,
        /// The request path (no query).
        path: String,
        /// The configured limit in bytes.
        limit: usize,
    },
    /// The body is not the documented JSON.
    #[error("cannot decode the response of {path}: at `{field}`: {message}; body starts with: {body_start}")]
    Decode {
        /// The request path.
        path: String,
        /// The JSON path of the failing field (`results[3].created`), or `.` for the whole body.
        field: String,
        /// What is wrong.
        message: String,
        /// The first bytes of the body, for a human to see what the server sent.
        body_start: String,
    },
    /// Pages of a list do not add up: a repeated page, or a `totalCount` that disagrees with
    /// the items that arrived. Returned instead of a silently shorter or duplicated list.
    #[error("inconsistent paging on {path}: {message}")]
    Paging {
        /// The request path.
        path: String,
        /// What disagreed.
        message: String,
    },
    /// The HTTP stack or TLS could not be set up.
    #[error("configuration error: {0}")]
    Config(String),
    /// Building a DataFrame failed (a polars error).
    #[error("building a DataFrame failed: {0}")]
    Frame(String),
    /// Writing output (Parquet files of a fleet pull) failed.
    #[error("cannot write {path}: {message}")]
    Io {
        /// The file or folder.
        path: std::path::PathBuf,
        /// What failed.
        message: String,
    },
    /// Another process is syncing the same measurement store (a sync that was told not to
    /// wait for it).
    #[error("the store {} is locked: another process is syncing it", path.display())]
    StoreLocked {
        /// The store's folder.
        path: std::path::PathBuf,
    },
    /// A file of a measurement store is missing, damaged, or not where a store keeps its
    /// files (outside its folder): a reader never gets a silently shorter frame. `store.check()`
    /// lists every such file; the next sync drops it and asks the server again for its span.
    #[error("{}: {problem}", path.display())]
    StoreFile {
        /// The file, as the manifest names it under the store's folder.
        path: std::path::PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// A task of the library ended without a result (a bug: please report it).
    #[error("internal error: {0}")]
    Internal(String),
}

/// Why `flavour` lacks `operation` (by its name).
fn operation_hint(operation: &str) -> &'static str {
    crate::Operation::ALL
        .iter()
        .find(|op| op.name() == operation)
        .map_or("it has no such operation", |op| op.missing_because())
}

impl Error {
    /// An [`Error::Io`] for `path`.
    #[cfg(feature = "frames")]
    pub(crate) fn io(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid_argument(argument: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidArgument {
            argument: argument.into(),
            message: message.into(),
        }
    }

    /// The API error, if this is one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Self::Api(e) => Some(e),
            _ => None,
        }
    }

    /// The HTTP status of an API error.
    pub fn status(&self) -> Option<u16> {
        self.api().map(|e| e.status)
    }

    /// The API's `errorCode` (`HOST_NOT_FOUND`, ...), if the server sent one.
    pub fn error_code(&self) -> Option<&str> {
        self.api().and_then(|e| e.error_code.as_deref())
    }

    /// A 404 answer.
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }

    /// A 401 answer that survived the Digest handshake.
    pub fn is_unauthorized(&self) -> bool {
        self.status() == Some(401)
    }
}

/// The error body of the API, with the HTTP status and the raw body.
///
/// ```
/// use opsapi::ApiError;
/// let body = br#"{"error":404,"errorCode":"HOST_NOT_FOUND","reason":"Not Found","detail":"No host with ID x exists in group y.","parameters":["x","y"]}"#;
/// let e = ApiError::from_response(404, body, None);
/// assert_eq!(e.error_code.as_deref(), Some("HOST_NOT_FOUND"));
/// assert_eq!(e.parameters.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// `errorCode`: an UPPER_SNAKE code; absent in old servers' bodies.
    pub error_code: Option<String>,
    /// `detail`: the human-readable message.
    pub detail: Option<String>,
    /// `reason`: the HTTP status phrase.
    pub reason: Option<String>,
    /// `parameters`: mixed JSON values.
    pub parameters: Vec<Value>,
    /// The whole body as text (a proxy's HTML page stays readable here).
    pub body: String,
    /// `Retry-After` of a 429 or 503, when the server sent one.
    pub retry_after: Option<Duration>,
    /// The request method and path, for the message.
    pub request: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ErrorBody {
    error_code: Option<String>,
    detail: Option<String>,
    reason: Option<String>,
    parameters: Option<Vec<Value>>,
}

impl ApiError {
    /// Builds the error from a status, a body and `Retry-After`.
    ///
    /// A body that is not the documented JSON is kept as text in [`ApiError::body`].
    pub fn from_response(status: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let parsed: ErrorBody = serde_json::from_slice(body).unwrap_or_default();
        Self {
            status,
            error_code: parsed.error_code,
            detail: parsed.detail,
            reason: parsed.reason,
            parameters: parsed.parameters.unwrap_or_default(),
            body: String::from_utf8_lossy(body).into_owned(),
            retry_after,
            request: String::new(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        if let Some(code) = &self.error_code {
            write!(f, " {code}")?;
        } else if let Some(reason) = &self.reason {
            write!(f, " {reason}")?;
        }
        if !self.request.is_empty() {
            write!(f, " on {}", self.request)?;
        }
        match &self.detail {
            Some(detail) => write!(f, ": {detail}"),
            None if !self.body.is_empty() => write!(f, ": {}", truncate(&self.body, 200)),
            None => Ok(()),
        }
    }
}

/// The first `max` bytes of `s`, cut at a character boundary.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Turns a serde error with its path into [`Error::Decode`].
pub(crate) fn decode_error(
    path: &str,
    field: String,
    err: &dyn std::fmt::Display,
    body: &[u8],
) -> Error {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
    Error::Decode {
        path: path.to_string(),
        field: if field.is_empty() { ".".into() } else { field },
        message: err.to_string(),
        body_start: text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_bodies_are_kept_as_text() {
        let e = ApiError::from_response(502, b"<html><body>Bad gateway</body></html>", None);
        assert_eq!(e.error_code, None);
        assert!(e.body.contains("Bad gateway"));
        assert!(e.to_string().contains("Bad gateway"));
    }

    #[test]
    fn legacy_bodies_without_error_code_decode() {
        let e = ApiError::from_response(
            404,
            br#"{"error": 404, "reason": "Not Found", "detail": "No host exists with ID yyy in group xxx."}"#,
            None,
        );
        assert_eq!(e.reason.as_deref(), Some("Not Found"));
        assert_eq!(e.error_code, None);
        assert_eq!(
            e.to_string(),
            "HTTP 404 Not Found: No host exists with ID yyy in group xxx."
        );
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("héllo", 2), "h");
        assert_eq!(truncate("abc", 10), "abc");
    }
}
