//! The properties every decoder must hold, as functions that panic when one does not.
//!
//! The fuzz targets in `fuzz/` call these on every input libFuzzer makes, and
//! `tests/promises/fuzz_regressions.rs` calls them on every input that ever found something, so a
//! property is written once and a finding stays fixed. Not a public API: it exists for those
//! two callers and may change at any time.
//!
//! ```
//! // Anything at all may be fed; a panic is a finding.
//! opsapi::fuzzing::measurements_differential(br#"{"measurements":[]}"#);
//! opsapi::fuzzing::timestamps(b"9999-12-31T23:59:59-01:00");
//! ```

use chrono::{DateTime, Utc};

use crate::auth::{parse_auth_params, Challenge};
use crate::decode::scan::{self, DayCache};
use crate::decode::{check_nesting, decode_measurements_serde, from_raw_at};
use crate::error::Error;
use crate::models::time::{self, TimeError, END_MILLIS, MIN_MILLIS};
use crate::{
    query, AccessListEntry, Alert, AlertConfig, ApiError, Event, Group, Host, IsoDuration,
    Measurements, Model, Partition,
};

/// A property check: panics on an input that breaks it.
pub type Check = fn(&[u8]);

/// Every target: its name (the folder under `fuzz/regressions/` and the fuzz target's name)
/// and its check.
pub const TARGETS: &[(&str, Check)] = &[
    ("measurements_scanner", measurements_scanner),
    ("measurements_serde", measurements_serde),
    ("measurements_differential", measurements_differential),
    ("model_pages", model_pages),
    ("model_objects", model_objects),
    ("api_error", api_error),
    ("digest_challenge", digest_challenge),
    ("iso_duration", iso_duration),
    ("timestamps", timestamps),
];

fn in_range_millis(ms: i64) -> bool {
    (MIN_MILLIS..END_MILLIS).contains(&ms)
}

fn check_time(t: &Option<DateTime<Utc>>, what: &str) {
    if let Some(t) = t {
        let secs = t.timestamp();
        assert!(
            (MIN_MILLIS / 1000..END_MILLIS / 1000).contains(&secs),
            "{what} {t:?} is outside Python's datetime"
        );
    }
}

/// What every decoded `Measurements` holds: in-range timestamps, finite values, one value per
/// timestamp, and a serialization that decodes to itself (so nothing in it is nested too
/// deep or unreadable).
fn check_measurements(m: &Measurements) {
    check_time(&m.start, "start");
    check_time(&m.end, "end");
    for s in &m.series {
        assert_eq!(s.timestamps.len(), s.values.len(), "series {}", s.name);
        for &ms in &s.timestamps {
            assert!(in_range_millis(ms), "timestamp {ms} of {}", s.name);
        }
        for v in s.values.iter().flatten() {
            assert!(v.is_finite(), "value {v} of {}", s.name);
        }
    }
    let text = serde_json::to_string(m).expect("a decoded Measurements serializes");
    let again: Measurements = crate::decode_model(text.as_bytes())
        .unwrap_or_else(|e| panic!("its own serialization does not decode: {e}\n{text}"));
    let text2 = serde_json::to_string(&again).unwrap();
    assert_eq!(text, text2, "serialization is not a fixed point");
}

/// The same decoded value, float bits included (`-0.0` is not `0.0`).
fn assert_same(a: &Measurements, b: &Measurements, what: &str) {
    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{what}");
}

/// The byte scanner alone: no panic, and whatever it accepts holds `check_measurements`.
pub fn measurements_scanner(data: &[u8]) {
    if let Some(m) = scan::measurements(data) {
        check_measurements(&m);
    }
}

/// The serde path alone (what decodes a body the scanner gives up on): no panic; what it
/// accepts holds `check_measurements`; an error is a decode error.
pub fn measurements_serde(data: &[u8]) {
    match decode_measurements_serde("/m", data) {
        Ok(m) => check_measurements(&m),
        Err(Error::Decode { .. }) => {}
        Err(e) => panic!("not a decode error: {e}"),
    }
}

/// Both measurement paths on the same bytes: what the scanner accepts, serde accepts as the
/// same value, and the public decoder returns it; otherwise the public decoder answers (`Ok`
/// holding `check_measurements`, or a decode error) without panicking.
pub fn measurements_differential(data: &[u8]) {
    let fast = scan::measurements(data);
    let public = crate::decode_model::<Measurements>(data);
    match fast {
        Some(m) => {
            let slow = decode_measurements_serde("/m", data)
                .unwrap_or_else(|e| panic!("the scanner accepted what serde refuses: {e}"));
            assert_same(&m, &slow, "scanner vs serde");
            let public = public.expect("the public decoder refused what the scanner took");
            assert_same(&m, &public, "scanner vs public decoder");
            check_measurements(&m);
        }
        None => match public {
            Ok(m) => check_measurements(&m),
            Err(Error::Decode { .. }) => {}
            Err(e) => panic!("not a decode error: {e}"),
        },
    }
}

/// What every decoded model holds: its kept text is an object within the nesting limit that
/// decodes again to the same model, and its timestamps are in range.
fn check_model<T: Model + PartialEq + std::fmt::Debug>(
    item: &T,
    times: impl Fn(&T) -> Vec<Option<DateTime<Utc>>>,
) {
    let text = item.raw_json();
    assert!(text.starts_with('{'), "kept text is not an object: {text}");
    assert_eq!(check_nesting(text.as_bytes()), Ok(()), "{text}");
    for t in times(item) {
        check_time(&t, "a timestamp");
    }
    let again: T = from_raw_at("/x", None, text, text.as_bytes(), None)
        .unwrap_or_else(|e| panic!("the kept text does not decode again: {e}"));
    assert_eq!(&again, item, "the kept text decodes to another model");
    assert_eq!(again.raw_json(), text);
}

fn page_of<T: Model + PartialEq + std::fmt::Debug>(
    data: &[u8],
    times: impl Fn(&T) -> Vec<Option<DateTime<Utc>>>,
) {
    match decode_page::<T>(data) {
        Ok(items) => {
            for item in &items {
                check_model(item, &times);
            }
        }
        Err(Error::Decode { .. }) => {}
        Err(e) => panic!("not a decode error: {e}"),
    }
}

fn object_of<T: Model + PartialEq + std::fmt::Debug>(
    data: &[u8],
    times: impl Fn(&T) -> Vec<Option<DateTime<Utc>>>,
) {
    match crate::decode_model::<T>(data) {
        Ok(m) => check_model(&m, &times),
        Err(Error::Decode { .. }) => {}
        Err(e) => panic!("not a decode error: {e}"),
    }
}

/// Calls `$f::<Model>(data, timestamps of the model)` for every model with a list endpoint.
macro_rules! every_model {
    ($f:ident, $data:expr) => {{
        let data = $data;
        $f::<Alert>(data, |m| {
            vec![
                m.acknowledged_until,
                m.created,
                m.updated,
                m.resolved,
                m.last_notified,
            ]
        });
        $f::<AlertConfig>(data, |m| vec![m.created, m.updated]);
        $f::<Event>(data, |m| vec![m.created]);
        $f::<Group>(data, |m| vec![m.last_active_agent]);
        $f::<Host>(data, |m| vec![m.created, m.last_ping, m.last_restart]);
        $f::<AccessListEntry>(data, |m| vec![m.created]);
        $f::<Partition>(data, |_| vec![]);
    }};
}

/// The same bytes as a page of every model: no panic; every item holds `check_model`.
pub fn model_pages(data: &[u8]) {
    every_model!(page_of, data);
}

/// The same bytes as a single object of every model, plain and inside the `envelope=true`
/// wrapper: no panic; what decodes holds `check_model`.
pub fn model_objects(data: &[u8]) {
    every_model!(object_of, data);
    let mut wrapped = b"{\"status\":200,\"content\":".to_vec();
    wrapped.extend_from_slice(data);
    wrapped.push(b'}');
    every_model!(object_of, &wrapped[..]);
}

/// An API error body (the first two bytes pick the status): no panic, the body kept as text,
/// a message that can be shown.
pub fn api_error(data: &[u8]) {
    let (status, body) = match data {
        [a, b, rest @ ..] => (u16::from_be_bytes([*a, *b]), rest),
        _ => (500, data),
    };
    let e = ApiError::from_response(status, body, None);
    assert_eq!(e.status, status);
    assert_eq!(e.body, String::from_utf8_lossy(body));
    let shown = Error::Api(Box::new(e)).to_string();
    assert!(shown.starts_with(&format!("HTTP {status}")), "{shown}");
}

/// A `WWW-Authenticate` header: no panic; the parameters read back from a header written
/// from them; a parsed challenge holds the values of its parameters.
pub fn digest_challenge(data: &[u8]) {
    let header = String::from_utf8_lossy(data);
    let (scheme, params) = parse_auth_params(&header);
    let mut again = scheme.clone();
    for (i, (name, value)) in params.iter().enumerate() {
        assert!(!name.is_empty());
        assert_eq!(name, &name.to_ascii_lowercase());
        let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
        again.push_str(if i == 0 { " " } else { ", " });
        again.push_str(&format!("{name}=\"{quoted}\""));
    }
    assert_eq!(
        parse_auth_params(&again),
        (scheme, params.clone()),
        "{again}"
    );
    if let Ok(c) = Challenge::parse(&header) {
        let first = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(Some(c.realm.as_str()), first("realm"));
        assert_eq!(Some(c.nonce.as_str()), first("nonce"));
        assert_eq!(c.opaque.as_deref(), first("opaque"));
    }
}

/// ISO 8601 durations, strict and lenient: no panic; what parses prints as a duration that
/// parses to the same value.
pub fn iso_duration(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let strict = IsoDuration::parse("period", s);
    let lenient = IsoDuration::parse_lenient("for", s);
    for d in [strict, lenient].into_iter().flatten() {
        let shown = d.to_string();
        assert_eq!(
            shown.parse::<IsoDuration>(),
            Ok(d),
            "{s:?} shown as {shown}"
        );
        let _ = d.fixed_seconds();
        let _ = d.is_zero();
        let _ = d.add_to(DateTime::UNIX_EPOCH);
    }
}

/// Timestamps: `query::parse_timestamp` does not panic; the models' parser and the
/// measurements' parser (fast paths and the day cache included) give exactly chrono's answer
/// inside the range and the range error outside it.
pub fn timestamps(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let _ = query::parse_timestamp("start", s);

    let in_range =
        |t: &DateTime<Utc>| (MIN_MILLIS / 1000..END_MILLIS / 1000).contains(&t.timestamp());
    let want = match s.parse::<DateTime<Utc>>() {
        Ok(t) if in_range(&t) => Ok(t),
        Ok(_) => Err(TimeError::OutOfRange),
        Err(e) => Err(TimeError::Invalid(Some(e))),
    };
    assert_eq!(time::parse_datetime(s), want, "{s:?}");

    let want = match DateTime::parse_from_rfc3339(s) {
        Ok(t) if in_range(&t.to_utc()) => Ok(t.timestamp_millis()),
        Ok(_) => Err(TimeError::OutOfRange),
        Err(e) => Err(TimeError::Invalid(Some(e))),
    };
    let ours = time::parse_millis(s);
    match (&ours, &want) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{s:?}"),
        (Err(TimeError::OutOfRange), Err(TimeError::OutOfRange)) => {}
        // The fast path does not say why chrono would refuse.
        (Err(TimeError::Invalid(_)), Err(TimeError::Invalid(_))) => {}
        _ => panic!("{s:?}: ours {ours:?}, chrono {want:?}"),
    }
    let ours = ours.ok();
    assert_eq!(DayCache::default().millis(data), ours, "{s:?} (cold cache)");
    if data.len() >= 10 {
        // The same day seen first at midnight: the cached path.
        let mut days = DayCache::default();
        let mut midnight = data[..10].to_vec();
        midnight.extend_from_slice(b"T00:00:00Z");
        let _ = days.millis(&midnight);
        assert_eq!(days.millis(data), ours, "{s:?} (warm cache)");
    }
}

/// The items of a page as list operations decode it, for tests outside the crate.
pub fn decode_page<T: Model>(body: &[u8]) -> crate::Result<Vec<T>> {
    crate::decode::decode_page("/p", body).map(|p| p.items)
}

/// Whether the byte scanner (not serde) takes a measurements body.
pub fn scanner_takes(body: &[u8]) -> bool {
    scan::measurements(body).is_some()
}
