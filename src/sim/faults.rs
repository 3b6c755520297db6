//! Fault injection: the standing fault rates ([`Faults`]), the one-shot faults a test queues
//! ([`Fault`]), and what they do to an answer (error pages, cut, stalled, drip-fed, oversize
//! and endless bodies).
//!
//! (Over 600 lines: every fault and what it does to an answer in one table, so that a new
//! fault is one variant and one arm here; its tests are the last tenth.)
//!
//! A queued fault strikes the next request it applies to, and only that one, so a test that
//! queues `n` of them knows exactly which requests they hit. Where a fault strikes decides
//! what it applies to:
//!
//! - *in front of the API* (a proxy, the network): any request, signed or not, before its
//!   signature is checked, and the request is not applied: [`Fault::Reset`],
//!   [`Fault::HtmlPage`], [`Fault::Redirect`], [`Fault::Unauthorized`], [`Fault::Challenge`];
//! - *on a signed request*: [`Fault::StaleNonce`];
//! - *instead of the handler*: an authorized request, not applied: [`Fault::Status`];
//! - *after the handler* (the PATCH acknowledged, the DELETE deleted): an authorized request:
//!   [`Fault::StatusAfterApplied`], [`Fault::ResetAfterApplied`],
//!   [`Fault::HtmlPageAfterApplied`], [`Fault::StallHeaders`];
//! - *on the body*: an authorized request whose answer has a body (not a 204, not a 401):
//!   [`Fault::Truncate`], [`Fault::GarbledJson`], [`Fault::InvalidUtf8`],
//!   [`Fault::StallBody`], [`Fault::Drip`], [`Fault::Oversize`], [`Fault::EndlessBody`];
//! - *on a listing*: [`Fault::RepeatFirstPage`], [`Fault::WrongTotalCount`].
//!
//! One request takes at most one fault of each kind of place.
//!
//! (Over 600 lines: one enum of faults and, next to it, what each does to an answer; split,
//! a fault's definition and its effect would sit in two files.)

use std::future::Future as _;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Frame, SizeHint};

use super::reply::{err, reason, Reply};

/// Standing faults: each request draws against these rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Faults {
    /// Delay before every answer.
    pub latency: Duration,
    /// Share of authorized requests answered 429 `RATE_LIMITED` (with `Retry-After`).
    pub rate_429: f64,
    /// Share answered 500 `UNEXPECTED_ERROR`.
    pub rate_500: f64,
    /// Share answered 503.
    pub rate_503: f64,
    /// Share of requests whose connection is closed without an answer (before the handler).
    pub rate_reset: f64,
    /// Share of answers sent with the full `Content-Length` but only half the body.
    pub rate_truncate: f64,
    /// `Retry-After` seconds on 429 (and 503) answers.
    pub retry_after_secs: u64,
}

impl Default for Faults {
    fn default() -> Self {
        Self {
            latency: Duration::ZERO,
            rate_429: 0.0,
            rate_500: 0.0,
            rate_503: 0.0,
            rate_reset: 0.0,
            rate_truncate: 0.0,
            retry_after_secs: 1,
        }
    }
}

/// A one-shot fault, queued with [`super::Simulator::inject`] and consumed by the next request
/// it applies to (each variant says which requests those are).
///
/// ```
/// use std::time::Duration;
/// use opsapi::sim::{Fault, SimConfig, Simulator};
///
/// let sim = Simulator::start(SimConfig::default()).unwrap();
/// // The next authorized request is applied, then answered 502 as a gateway would.
/// sim.inject(Fault::StatusAfterApplied { status: 502, retry_after: None }, 1);
/// // The next two answers with a body come a byte every 10 ms.
/// sim.inject(Fault::Drip(Duration::from_millis(10)), 2);
/// assert_eq!(sim.injected().len(), 3);
/// assert_eq!(Fault::Drip(Duration::from_millis(10)).label(), "drip 10ms");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer an authorized request with this status instead of handling it (429 →
    /// `RATE_LIMITED`, 500 → `UNEXPECTED_ERROR`, ...) and, when given, a `Retry-After` header.
    Status {
        /// HTTP status.
        status: u16,
        /// `Retry-After` seconds.
        retry_after: Option<u64>,
    },
    /// Handle an authorized request (a PATCH or DELETE takes effect), then answer this status
    /// with the API's JSON error body instead: a gateway that lost the upstream's answer.
    StatusAfterApplied {
        /// HTTP status.
        status: u16,
        /// `Retry-After` seconds.
        retry_after: Option<u64>,
    },
    /// Close the connection without an answer, before the request is handled (acts before
    /// authentication).
    Reset,
    /// Handle an authorized request, then close the connection without an answer.
    ResetAfterApplied,
    /// A proxy's HTML page (`text/html`) with this status (200: a sign-in page; 502: a bad
    /// gateway page) instead of the API's answer; the request does not reach the API.
    HtmlPage {
        /// HTTP status.
        status: u16,
    },
    /// Handle an authorized request, then answer a gateway's HTML page with this status.
    HtmlPageAfterApplied {
        /// HTTP status.
        status: u16,
    },
    /// A redirect (301, 302, 303, 307, 308) to `location` instead of the API's answer.
    Redirect {
        /// HTTP status.
        status: u16,
        /// The `Location` header, as sent (absolute or relative).
        location: String,
    },
    /// 401 `UNAUTHORIZED` without a `WWW-Authenticate` challenge.
    Unauthorized,
    /// 401 with a fresh Digest challenge, whatever the signature: queue many for a server
    /// that refuses every request.
    Challenge {
        /// The challenge's `stale` flag.
        stale: bool,
    },
    /// The next signed request is refused as if its nonce had expired (`stale=true`).
    StaleNonce,
    /// Send the full `Content-Length` but only half of the body, then close.
    Truncate,
    /// The answer's JSON with a syntax error part-way (a `:` between a key and its value
    /// turned into `=`).
    GarbledJson,
    /// The answer's JSON with two bytes that are not UTF-8 (`\xff\xfe`) at the start of a
    /// string value.
    InvalidUtf8,
    /// Handle the request, then hold the answer's headers back this long.
    StallHeaders(Duration),
    /// Send the headers, then hold the body back this long.
    StallBody(Duration),
    /// Send the body a byte at a time, one every this long.
    Drip(Duration),
    /// A body of this many bytes (announced in `Content-Length`) instead of the answer's.
    Oversize(u64),
    /// A chunked body that never ends instead of the answer's.
    EndlessBody,
    /// The next request for a later page (`pageNum` > 1) answers page 1's items.
    RepeatFirstPage,
    /// The next list request reports this `totalCount`.
    WrongTotalCount(i64),
}

/// Where a fault strikes (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Front,
    Signed,
    Instead,
    After,
    Body,
    Listing,
}

impl Fault {
    /// A short name, as the request log records it ([`super::RequestRecord::faults`]).
    pub fn label(&self) -> String {
        let secs = |d: &Duration| format!("{d:?}");
        match self {
            Fault::Status {
                status,
                retry_after,
            } => match retry_after {
                Some(s) => format!("status {status} retry-after {s}"),
                None => format!("status {status}"),
            },
            Fault::StatusAfterApplied {
                status,
                retry_after,
            } => match retry_after {
                Some(s) => format!("status {status} retry-after {s} after applied"),
                None => format!("status {status} after applied"),
            },
            Fault::Reset => "reset".into(),
            Fault::ResetAfterApplied => "reset after applied".into(),
            Fault::HtmlPage { status } => format!("html {status}"),
            Fault::HtmlPageAfterApplied { status } => format!("html {status} after applied"),
            Fault::Redirect { status, .. } => format!("redirect {status}"),
            Fault::Unauthorized => "unauthorized".into(),
            Fault::Challenge { stale } => format!("challenge stale={stale}"),
            Fault::StaleNonce => "stale nonce".into(),
            Fault::Truncate => "truncate".into(),
            Fault::GarbledJson => "garbled json".into(),
            Fault::InvalidUtf8 => "invalid utf-8".into(),
            Fault::StallHeaders(d) => format!("stall headers {}", secs(d)),
            Fault::StallBody(d) => format!("stall body {}", secs(d)),
            Fault::Drip(d) => format!("drip {}", secs(d)),
            Fault::Oversize(n) => format!("oversize {n}"),
            Fault::EndlessBody => "endless body".into(),
            Fault::RepeatFirstPage => "repeat first page".into(),
            Fault::WrongTotalCount(n) => format!("wrong total count {n}"),
        }
    }

    pub(crate) fn stage(&self) -> Stage {
        match self {
            Fault::Reset
            | Fault::HtmlPage { .. }
            | Fault::Redirect { .. }
            | Fault::Unauthorized
            | Fault::Challenge { .. } => Stage::Front,
            Fault::StaleNonce => Stage::Signed,
            Fault::Status { .. } => Stage::Instead,
            Fault::StatusAfterApplied { .. }
            | Fault::ResetAfterApplied
            | Fault::HtmlPageAfterApplied { .. }
            | Fault::StallHeaders(_) => Stage::After,
            Fault::Truncate
            | Fault::GarbledJson
            | Fault::InvalidUtf8
            | Fault::StallBody(_)
            | Fault::Drip(_)
            | Fault::Oversize(_)
            | Fault::EndlessBody => Stage::Body,
            Fault::RepeatFirstPage | Fault::WrongTotalCount(_) => Stage::Listing,
        }
    }
}

/// What a fault in front of the API answers instead of it; `None` for a reset (and for
/// [`Fault::Challenge`], whose fresh nonce the server issues).
pub(crate) fn front_reply(fault: &Fault) -> Option<Reply> {
    match fault {
        Fault::HtmlPage { status } => Some(html_page(*status)),
        Fault::Redirect { status, location } => {
            let mut r = Reply::json(*status, Vec::new());
            r.content_type = "text/html";
            r.body = Bytes::from(format!(
                "<html><body>Moved: <a href=\"{location}\">here</a></body></html>"
            ));
            r.version_header = false;
            r.headers.push(("location", location.clone()));
            Some(r)
        }
        Fault::Unauthorized => Some(err(
            401,
            "UNAUTHORIZED",
            "You are not authorized for this resource.",
            vec![],
        )),
        _ => None,
    }
}

/// An error status as the API answers it.
pub(crate) fn fault_status(path: &str, status: u16, retry_after: Option<u64>) -> Reply {
    let mut reply = match status {
        // A refusal that states no limit: the simulator does not enforce one for this fault
        // (its `rate_limit` does, and says so as Ops Manager does), and a client that paces
        // itself by a stated limit would then pace by one that is not there.
        429 => err(
            429,
            "RATE_LIMITED",
            format!("Too many requests for {path}; retry later."),
            vec![serde_json::json!(path)],
        ),
        500 => err(500, "UNEXPECTED_ERROR", "Unexpected error.", vec![]),
        503 => err(503, "SERVICE_UNAVAILABLE", "Service Unavailable.", vec![]),
        s => err(s, "UNEXPECTED_ERROR", reason(s), vec![]),
    };
    if let Some(secs) = retry_after {
        reply.headers.push(("retry-after", secs.to_string()));
    }
    reply
}

/// A proxy's page, as nginx writes them.
pub(crate) fn html_page(status: u16) -> Reply {
    let title = if status == 200 {
        "Sign in to the corporate proxy".to_string()
    } else {
        format!("{status} {}", reason(status))
    };
    let mut r = Reply::json(status, Vec::new());
    r.body = Bytes::from(format!(
        "<!DOCTYPE html>\n<html>\n<head><title>{title}</title></head>\n<body>\n<center><h1>{title}</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n"
    ));
    r.content_type = "text/html";
    r.version_header = false;
    r
}

/// Byte offsets of a JSON text's structural `:` (outside strings), and of the opening quote of
/// every string that is a value (after a `:`, or an element of an array), in one pass.
fn json_landmarks(body: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let (mut colons, mut values) = (Vec::new(), Vec::new());
    let (mut in_string, mut escaped) = (false, false);
    let mut open: Vec<u8> = Vec::new();
    let mut last = 0u8;
    for (i, &b) in body.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                let in_array = open.last() == Some(&b'[');
                if last == b':' || (in_array && (last == b'[' || last == b',')) {
                    values.push(i);
                }
            }
            b'[' | b'{' => open.push(b),
            b']' | b'}' => {
                open.pop();
            }
            b':' => colons.push(i),
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
    }
    (colons, values)
}

/// The body with its first structural `:` from the middle on turned into `=` (the first one
/// at all in a short body); a body without one gets `=` appended.
pub(crate) fn garble(body: &[u8]) -> Bytes {
    let (colons, _) = json_landmarks(body);
    let mut out = body.to_vec();
    match colons
        .iter()
        .find(|&&i| i >= body.len() / 2)
        .or(colons.first())
    {
        Some(&i) => out[i] = b'=',
        None => out.push(b'='),
    }
    Bytes::from(out)
}

/// The body with `\xff\xfe` after the opening quote of its first string value from the middle
/// on (the first one at all in a short body); a body without one gets them appended.
pub(crate) fn invalid_utf8(body: &[u8]) -> Bytes {
    let (_, values) = json_landmarks(body);
    let mut out = body.to_vec();
    match values
        .iter()
        .find(|&&i| i >= body.len() / 2)
        .or(values.first())
    {
        Some(&i) => {
            out.splice(i + 1..i + 1, [0xff, 0xfe]);
        }
        None => out.extend_from_slice(&[0xff, 0xfe]),
    }
    Bytes::from(out)
}

/// The error that makes hyper drop a connection without answering (or in the middle of a
/// body).
#[derive(Debug)]
pub(crate) struct Abort;

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection aborted by fault injection")
    }
}

impl std::error::Error for Abort {}

/// How a body goes out.
pub(crate) enum Shape {
    Whole,
    /// Half of it, the full length announced, then the connection closes.
    Cut,
    /// After a delay.
    Stalled(Duration),
    /// A byte at a time, one every this long.
    Drip(Duration),
    /// This many filler bytes, announced.
    Oversize(u64),
    /// Filler bytes without end (chunked).
    Endless,
}

/// Filler: `{"pad":"xxx…` — the opening of a JSON document that a reader must buffer whole.
const FILLER_HEAD: &[u8] = b"{\"pad\":\"";
const FILLER_TAIL: &[u8] = b"\"}";
static FILLER: [u8; 64 << 10] = [b'x'; 64 << 10];

enum Kind {
    Whole(Bytes),
    Cut(Bytes),
    Stalled(Duration, Bytes),
    Drip(Bytes, Duration),
    /// Filler from `pos` to `end` (`None`: endless).
    Filler {
        pos: u64,
        end: Option<u64>,
    },
    Done,
}

/// A response body, shaped by the faults that struck it.
pub(crate) struct SimBody {
    kind: Kind,
    /// The exact length, sent as `Content-Length`; `None` for a chunked body.
    len: Option<u64>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl SimBody {
    pub(crate) fn new(body: Bytes, shape: Shape) -> Self {
        let len = Some(body.len() as u64);
        let (kind, len) = match shape {
            Shape::Whole => (Kind::Whole(body), len),
            Shape::Cut => (Kind::Cut(body.slice(..body.len() / 2)), len),
            Shape::Stalled(d) => (Kind::Stalled(d, body), len),
            Shape::Drip(d) => (Kind::Drip(body, d), len),
            Shape::Oversize(n) => (
                Kind::Filler {
                    pos: 0,
                    end: Some(n),
                },
                Some(n),
            ),
            Shape::Endless => (Kind::Filler { pos: 0, end: None }, None),
        };
        Self {
            kind,
            len,
            sleep: None,
        }
    }

    /// The length to announce in `Content-Length` (`None`: chunked).
    pub(crate) fn announced_len(&self) -> Option<u64> {
        self.len
    }

    fn wait(&mut self, d: Duration, cx: &mut Context<'_>) -> Poll<()> {
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(d)));
        ready!(sleep.as_mut().poll(cx));
        self.sleep = None;
        Poll::Ready(())
    }
}

/// The next piece of filler at `pos`, of a body of `end` bytes (`None`: endless).
fn filler(pos: u64, end: Option<u64>) -> Bytes {
    let tail_at = end.map(|e| e.saturating_sub(FILLER_TAIL.len() as u64));
    let left = |upto: u64| usize::try_from(upto - pos).unwrap_or(usize::MAX);
    if pos < FILLER_HEAD.len() as u64 && tail_at.is_none_or(|t| t >= FILLER_HEAD.len() as u64) {
        return Bytes::from_static(&FILLER_HEAD[pos as usize..]);
    }
    match (tail_at, end) {
        (Some(t), Some(e)) if pos >= t => {
            let from = FILLER_TAIL.len() - left(e);
            Bytes::from_static(&FILLER_TAIL[from..])
        }
        (Some(t), _) => Bytes::from_static(&FILLER[..left(t).min(FILLER.len())]),
        _ => Bytes::from_static(&FILLER),
    }
}

impl hyper::body::Body for SimBody {
    type Data = Bytes;
    type Error = Abort;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Abort>>> {
        let this = self.get_mut();
        loop {
            match &mut this.kind {
                Kind::Whole(b) => {
                    let b = std::mem::take(b);
                    this.kind = Kind::Done;
                    if !b.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(b))));
                    }
                }
                Kind::Cut(b) if !b.is_empty() => {
                    let b = std::mem::take(b);
                    return Poll::Ready(Some(Ok(Frame::data(b))));
                }
                Kind::Cut(_) => {
                    // Lets the written half reach the client before the connection drops.
                    ready!(this.wait(Duration::from_millis(20), cx));
                    this.kind = Kind::Done;
                    return Poll::Ready(Some(Err(Abort)));
                }
                Kind::Stalled(d, b) => {
                    let (d, b) = (*d, b.clone());
                    ready!(this.wait(d, cx));
                    this.kind = Kind::Whole(b);
                }
                Kind::Drip(b, _) if b.is_empty() => this.kind = Kind::Done,
                Kind::Drip(_, d) => {
                    let d = *d;
                    ready!(this.wait(d, cx));
                    if let Kind::Drip(b, _) = &mut this.kind {
                        return Poll::Ready(Some(Ok(Frame::data(b.split_to(1)))));
                    }
                }
                Kind::Filler { pos, end } => {
                    if end.is_some_and(|e| *pos >= e) {
                        this.kind = Kind::Done;
                        continue;
                    }
                    let chunk = filler(*pos, *end);
                    *pos += chunk.len() as u64;
                    return Poll::Ready(Some(Ok(Frame::data(chunk))));
                }
                Kind::Done => return Poll::Ready(None),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Done => true,
            Kind::Whole(b) => b.is_empty(),
            _ => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self.len {
            Some(n) => SizeHint::with_exact(n),
            None => SizeHint::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbling_breaks_the_json_at_a_colon_outside_strings() {
        // 50 bytes: the first structural colon from byte 25 on is the one after "d", not
        // those inside the strings.
        let body = br#"{"a":"x:y","b":{"c":1,"d":"2024-01-01T00:00:00Z"}}"#;
        let g = garble(body);
        assert_eq!(
            &g[..],
            br#"{"a":"x:y","b":{"c":1,"d"="2024-01-01T00:00:00Z"}}"#
        );
        assert!(serde_json::from_slice::<serde_json::Value>(&g).is_err());
        assert_eq!(&garble(b"[]")[..], b"[]=");
    }

    #[test]
    fn invalid_utf8_goes_into_a_string_value_not_a_key() {
        // 45 bytes: from byte 22 on, "links" and "name" are keys; "y" is the first value.
        let body = br#"{"id":"a","links":["x","y"],"name":"n","z":1}"#;
        let bad = invalid_utf8(body);
        let want: Vec<u8> = [
            &br#"{"id":"a","links":["x",""#[..],
            &[0xff, 0xfe],
            &br#"y"],"name":"n","z":1}"#[..],
        ]
        .concat();
        assert_eq!(&bad[..], &want[..]);
        assert!(std::str::from_utf8(&bad).is_err());
    }

    #[test]
    fn filler_is_a_json_opening_of_the_announced_length() {
        for n in [0u64, 1, 5, 9, 10, 11, 100, (64 << 10) + 7, 200_000] {
            let mut pos = 0;
            let mut all = Vec::new();
            while pos < n {
                let c = filler(pos, Some(n));
                assert!(!c.is_empty());
                pos += c.len() as u64;
                all.extend_from_slice(&c);
            }
            assert_eq!(all.len() as u64, n, "{n}");
            if n >= 10 {
                let v: serde_json::Value = serde_json::from_slice(&all).unwrap();
                assert_eq!(v["pad"].as_str().unwrap().len() as u64, n - 10);
            }
        }
        assert_eq!(&filler(0, None)[..], FILLER_HEAD);
        assert_eq!(filler(8, None).len(), 64 << 10);
    }

    #[test]
    fn labels_name_the_fault() {
        assert_eq!(
            Fault::StatusAfterApplied {
                status: 502,
                retry_after: None
            }
            .label(),
            "status 502 after applied"
        );
        assert_eq!(
            Fault::StallHeaders(Duration::from_secs(2)).label(),
            "stall headers 2s"
        );
        assert_eq!(
            Fault::Challenge { stale: true }.label(),
            "challenge stale=true"
        );
    }
}
