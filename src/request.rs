//! Requests before they are sent: the path of an operation with its identifiers as single
//! percent-encoded segments, its query and body. Pure: nothing here does I/O.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
pub use reqwest::Method;
use url::Url;

use crate::error::{Error, Result};
pub use crate::flavour::API_PATH;
use crate::flavour::{segments, Flavour, MeasurementName, Operation, Segment};

/// A request before it is sent: everything that makes it, and nothing that sends it.
///
/// Every operation has a pure function that builds its request (`opsapi::api::hosts::get_request`,
/// ...), so that what goes on the wire can be checked without a server:
///
/// ```
/// use opsapi::{api::global_alerts, Method, Operation};
/// let req = global_alerts::get_request("5a0a/1").unwrap();
/// assert_eq!((req.method, req.path.as_str()), (Method::GET, "/globalAlerts/5a0a%2F1"));
/// assert_eq!(req.operation, Operation::GlobalAlertsGet);
/// ```
///
/// A request is always of an [`Operation`]: every constructor takes one, so that no request
/// can be sent without the flavour's path, media type and pace ([`Request::for_flavour`]).
///
/// ```compile_fail
/// let untagged = opsapi::Request::get("/groups".to_string()); // no operation: does not build
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Request {
    /// The HTTP method.
    pub method: Method,
    /// The path under the API base, already percent-encoded (see [`PathBuilder`]).
    pub path: String,
    /// Query parameters in order, not yet encoded; a name may repeat (`m`).
    pub query: Vec<(&'static str, String)>,
    /// A JSON body.
    pub body: Option<Vec<u8>>,
    /// A body that counts from the server's now (an acknowledgement "for 4 hours"): made
    /// again for each attempt from the server's clock ([`crate::Client::server_time`]), in
    /// place of `body`, which shows it as of when the request was built.
    pub(crate) timed_body: Option<TimedBody>,
    /// The operation it is (given by `<op>_request()` to its constructor), which
    /// [`Request::for_flavour`] reads.
    pub operation: Operation,
    /// Atlas: the version of the operation's versioned media type (`2023-01-01`), sent in
    /// `Accept` (and `Content-Type` with a body); `None` for plain `application/json`.
    pub version: Option<&'static str>,
    /// The flavour the path and version are for (`None`: Ops Manager's, as built).
    pub(crate) flavour: Option<Flavour>,
    /// The body Atlas takes in place of `body` where its words differ (un-acknowledging an
    /// alert: `{"unacknowledgeAlert": true}`), applied by [`Request::for_flavour`].
    pub(crate) atlas_body: Option<Vec<u8>>,
}

/// A body made from the server's now when the request is sent.
#[derive(Clone)]
pub(crate) struct TimedBody(
    std::sync::Arc<dyn Fn(chrono::DateTime<chrono::Utc>) -> Result<Vec<u8>> + Send + Sync>,
);

impl TimedBody {
    pub(crate) fn new(
        f: impl Fn(chrono::DateTime<chrono::Utc>) -> Result<Vec<u8>> + Send + Sync + 'static,
    ) -> Self {
        Self(std::sync::Arc::new(f))
    }

    pub(crate) fn at(&self, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<u8>> {
        (self.0)(now)
    }
}

impl std::fmt::Debug for TimedBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TimedBody(..)")
    }
}

impl PartialEq for TimedBody {
    /// Not compared: a request's `body` (compared) shows what its timed body made when it
    /// was built, and the same acknowledgement built twice makes the same bodies.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Request {
    /// A GET of `path`, the operation `operation`.
    ///
    /// ```
    /// use opsapi::{Operation, Request};
    /// let req = Request::get(Operation::GroupsList, "/groups".into());
    /// assert_eq!((req.operation, req.path.as_str()), (Operation::GroupsList, "/groups"));
    /// ```
    pub fn get(operation: Operation, path: String) -> Self {
        Self::of(Method::GET, operation, path)
    }

    /// A request of `method` to `path`, the operation `operation` (its row's method:
    /// [`Operation::request`]).
    pub(crate) fn of(method: Method, operation: Operation, path: String) -> Self {
        Self {
            method,
            path,
            query: Vec::new(),
            body: None,
            timed_body: None,
            operation,
            version: None,
            flavour: None,
            atlas_body: None,
        }
    }

    /// The request as `flavour` takes it: its path there (on Atlas, `processes` for `hosts`),
    /// its versioned media type, and its measurement names (`m`) in the flavour's words, each
    /// once (a name in no catalog of opsapi's as it is, with a warning once per name: the
    /// server judges it); [`Error::Unsupported`] when the flavour lacks the operation, and
    /// [`Error::InvalidArgument`] for a measurement name the catalogs know the flavour not to
    /// have there ([`Flavour::ask_measurement`]). The client applies it to every request it
    /// sends, so that nothing that cannot work is sent.
    ///
    /// ```
    /// use opsapi::{api::global_alerts, Error, Flavour, GlobalAlertsQuery};
    /// let req = global_alerts::list_request(&GlobalAlertsQuery::new()).unwrap();
    /// let e = req.for_flavour(Flavour::Atlas).unwrap_err();
    /// assert!(matches!(e, Error::Unsupported { operation: "global_alerts.list", flavour: Flavour::Atlas }));
    /// ```
    pub fn for_flavour(mut self, flavour: Flavour) -> Result<Self> {
        let op = self.operation;
        if !flavour.supports(op) {
            return Err(Error::Unsupported {
                operation: op.name(),
                flavour,
            });
        }
        let from = self.flavour.unwrap_or_default();
        if let Some(path) = crate::flavour::path_for(from, flavour, op, &self.path) {
            self.path = path;
        }
        if !flavour.measurement_names(op).is_empty() {
            self.query = measurement_query(flavour, op, std::mem::take(&mut self.query))?;
        }
        self.version = flavour.version(op);
        self.flavour = Some(flavour);
        if flavour == Flavour::Atlas {
            if let Some(body) = self.atlas_body.take() {
                self.body = Some(body);
                self.timed_body = None;
            }
        }
        Ok(self)
    }

    /// Whether [`Request::for_flavour`] has yet to be applied for `flavour` (the client then
    /// sends a copy): a request as built (whose measurement names are not checked yet), or
    /// one made for another flavour.
    pub(crate) fn needs_flavour(&self, flavour: Flavour) -> bool {
        self.flavour != Some(flavour)
    }

    /// The `Accept` header: the versioned media type of Atlas
    /// (`application/vnd.atlas.2023-01-01+json`), else `application/json`.
    pub fn accept(&self) -> std::borrow::Cow<'static, str> {
        match self.version {
            Some(v) => format!("application/vnd.atlas.{v}+json").into(),
            None => "application/json".into(),
        }
    }

    /// A DELETE of `path`, the operation `operation`.
    pub fn delete(operation: Operation, path: String) -> Self {
        Self {
            method: Method::DELETE,
            ..Self::get(operation, path)
        }
    }

    /// A PATCH of `path` with a JSON body, the operation `operation`.
    pub fn patch_json(operation: Operation, path: String, body: &serde_json::Value) -> Self {
        Self {
            method: Method::PATCH,
            body: Some(body.to_string().into_bytes()),
            ..Self::get(operation, path)
        }
    }

    /// Adds query parameters.
    pub fn query(mut self, pairs: impl IntoIterator<Item = (&'static str, String)>) -> Self {
        self.query.extend(pairs);
        self
    }

    /// The full URL under `base_url` (a client's [`crate::Client::base_url`]), with the query
    /// percent-encoded.
    pub fn url(&self, base_url: &str) -> Result<Url> {
        build_url(base_url, &self.path, &self.query)
    }
}

impl Operation {
    /// Its request as Ops Manager takes it (what every `<op>_request()` builds on): the row's
    /// method, and its path with `ids` in the placeholders' order, each a single
    /// percent-encoded segment checked by [`PathBuilder::id`] under its placeholder's name.
    ///
    /// ```
    /// use opsapi::{Method, Operation};
    /// let req = Operation::AccessListDelete.request(&["a/b"]).unwrap();
    /// assert_eq!((req.method, req.path.as_str()), (Method::DELETE, "/admin/accessList/a%2Fb"));
    /// let e = Operation::HostsGet.request(&["g", ""]).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `host_id`: must not be empty");
    /// ```
    pub fn request(self, ids: &[&str]) -> Result<Request> {
        let row = self.row();
        let mut path = PathBuilder::new();
        let mut ids = ids.iter();
        for segment in segments(row.ops_manager_path) {
            path = match segment {
                Segment::Literal(s) => path.lit(s),
                Segment::Param(name) => {
                    let id = ids.next().ok_or_else(|| missing_ids(self))?;
                    path.id(name, id)?
                }
            };
        }
        if ids.next().is_some() {
            return Err(missing_ids(self));
        }
        Ok(Request::of(row.method.clone(), self, path.finish()))
    }

    /// The request of an operation whose path has no identifier (`GET /groups`).
    pub(crate) fn fixed_request(self) -> Request {
        let row = self.row();
        debug_assert_eq!(row.params().count(), 0, "{}", row.name);
        Request::of(row.method.clone(), self, row.ops_manager_path.to_string())
    }
}

fn missing_ids(op: Operation) -> Error {
    Error::Internal(format!(
        "{} takes {} identifiers",
        op.name(),
        op.row().params().count()
    ))
}

/// A measurements query as `flavour` takes it for `op`: each `m` in the flavour's name, once
/// (Atlas's `m` is `uniqueItems`; a repeated name asks nothing more anywhere).
fn measurement_query(
    flavour: Flavour,
    op: Operation,
    query: Vec<(&'static str, String)>,
) -> Result<Vec<(&'static str, String)>> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(query.len());
    for (k, v) in query {
        if k != "m" {
            out.push((k, v));
            continue;
        }
        let name = match flavour.ask_measurement(op, &v)? {
            MeasurementName::Known(n) => n.to_string(),
            MeasurementName::Unknown(n) => {
                warn_unknown_measurement(n, flavour);
                n.to_string()
            }
        };
        if !seen.contains(&name) {
            seen.push(name.clone());
            out.push((k, name));
        }
    }
    Ok(out)
}

/// Says once per name in this process that opsapi does not know a measurement it sends (a
/// fleet pull sends it to every host; one line says it).
fn warn_unknown_measurement(name: &str, flavour: Flavour) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.iter().any(|w| w == name) {
        return;
    }
    warned.push(name.to_string());
    drop(warned);
    tracing::warn!(
        target: "opsapi",
        "opsapi does not know the measurement {name}: sent to {flavour} as it is, for the server \
         to judge"
    );
}

/// Characters kept as they are in a path segment: RFC 3986 unreserved. Everything else,
/// `/ ? # %` included, is percent-encoded, so an identifier stays one segment.
pub(crate) const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Builds a request path from literal segments and caller-supplied identifiers.
///
/// ```
/// use opsapi::PathBuilder;
/// let p = PathBuilder::new().lit("groups").id("group_id", "a/b?c#d%").unwrap().finish();
/// assert_eq!(p, "/groups/a%2Fb%3Fc%23d%25");
/// assert!(PathBuilder::new().id("host_id", "..").is_err());
/// assert!(PathBuilder::new().id("host_id", "").is_err());
/// ```
#[derive(Debug, Default)]
pub struct PathBuilder(String);

impl PathBuilder {
    /// An empty path.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a literal segment (no encoding).
    pub fn lit(mut self, segment: &str) -> Self {
        self.0.push('/');
        self.0.push_str(segment);
        self
    }

    /// Appends an identifier as one percent-encoded segment, rejecting what cannot be one:
    /// the empty string, `.` and `..` (which URL parsers resolve away even when encoded).
    pub fn id(mut self, argument: &str, value: &str) -> Result<Self> {
        if value.is_empty() {
            return Err(Error::invalid_argument(argument, "must not be empty"));
        }
        if value.trim().is_empty() {
            return Err(Error::invalid_argument(argument, "must not be blank"));
        }
        if value == "." || value == ".." {
            return Err(Error::invalid_argument(
                argument,
                format!("`{value}` cannot be sent as a path segment"),
            ));
        }
        self.0.push('/');
        self.0.extend(utf8_percent_encode(value, SEGMENT));
        Ok(self)
    }

    /// The path.
    pub fn finish(self) -> String {
        self.0
    }
}

/// The full URL of a request: base, path and query, with the query percent-encoded.
pub(crate) fn build_url(base: &str, path: &str, query: &[(&'static str, String)]) -> Result<Url> {
    let mut s = String::with_capacity(base.len() + path.len() + 64);
    s.push_str(base);
    s.push_str(path);
    if !query.is_empty() {
        s.push('?');
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in query {
            ser.append_pair(k, v);
        }
        s.push_str(&ser.finish());
    }
    Url::parse(&s).map_err(|e| Error::Internal(format!("cannot build a URL for {path}: {e}")))
}

/// The request target as it goes on the wire, which Digest signs.
pub(crate) fn request_target(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{}", url.path(), q),
        None => url.path().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_keep_encoded_segments_and_repeat_m() {
        let path = PathBuilder::new()
            .lit("groups")
            .id("group_id", "g/1")
            .unwrap()
            .lit("hosts")
            .id("host_id", "h?#")
            .unwrap()
            .finish();
        let url = build_url(
            "http://127.0.0.1:1/api/public/v1.0",
            &path,
            &[
                ("m", "A".into()),
                ("m", "B".into()),
                ("start", "2024-01-01T00:00:00Z".into()),
            ],
        )
        .unwrap();
        assert_eq!(
            request_target(&url),
            "/api/public/v1.0/groups/g%2F1/hosts/h%3F%23?m=A&m=B&start=2024-01-01T00%3A00%3A00Z"
        );
    }
}
