//! Timestamps: a fast parser for the API's ISO 8601 form, the range every decoded timestamp
//! must fall in, and the formatting the API uses.

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};

/// 0001-01-01T00:00:00Z, the earliest instant a decoded timestamp may be, in milliseconds.
pub(crate) const MIN_MILLIS: i64 = -62_135_596_800_000;
/// 10000-01-01T00:00:00Z, the first instant past the range, in milliseconds.
pub(crate) const END_MILLIS: i64 = 253_402_300_800_000;

/// Why a timestamp was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TimeError {
    /// Not an RFC 3339 timestamp with an offset (chrono's reason, when chrono gave one).
    Invalid(Option<chrono::ParseError>),
    /// A valid instant outside 0001-01-01T00:00:00Z ..= 9999-12-31T23:59:59.999999Z (UTC).
    OutOfRange,
}

/// The message of [`TimeError::OutOfRange`].
pub(crate) const OUT_OF_RANGE: &str = "the instant is outside 0001-01-01T00:00:00Z ..= \
     9999-12-31T23:59:59.999999Z, the range of Python's datetime";

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(Some(e)) => e.fmt(f),
            Self::Invalid(None) => f.write_str("not an RFC 3339 timestamp with a time zone"),
            Self::OutOfRange => f.write_str(OUT_OF_RANGE),
        }
    }
}

/// The one range rule of every decoded timestamp, models and measurements alike: the UTC
/// instant must lie in years 1 to 9999, so that the Python layer can always make a
/// `datetime` of it (an attribute that raised after the response was read would be a late
/// error the caller cannot handle where it reads the response).
#[inline]
pub(crate) fn check_millis(ms: i64) -> Result<i64, TimeError> {
    if (MIN_MILLIS..END_MILLIS).contains(&ms) {
        Ok(ms)
    } else {
        Err(TimeError::OutOfRange)
    }
}

/// [`check_millis`] for an instant with sub-millisecond digits (and leap seconds, which chrono
/// keeps in the nanoseconds of the second before).
fn check_datetime(t: DateTime<Utc>) -> Result<DateTime<Utc>, TimeError> {
    let secs = t.timestamp();
    if (MIN_MILLIS / 1000..END_MILLIS / 1000).contains(&secs) {
        Ok(t)
    } else {
        Err(TimeError::OutOfRange)
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn digits(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(c - b'0');
    }
    Some(v)
}

/// The service's own form, `YYYY-MM-DDTHH:MM:SS[.fff...]Z`, as milliseconds since the epoch;
/// `None` for anything else (left to chrono). Sub-millisecond digits are checked and dropped.
fn parse_fast(b: &[u8]) -> Option<i64> {
    if b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b't')
        && b[13] == b':'
        && b[16] == b':'
        && (b[b.len() - 1] == b'Z' || b[b.len() - 1] == b'z')
    {
        let (y, mo, d) = (digits(&b[0..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
        let (h, mi, sec) = (
            digits(&b[11..13])?,
            digits(&b[14..16])?,
            digits(&b[17..19])?,
        );
        // Day-of-month validity (Feb 30) is left to the slow path.
        if (1..=12).contains(&mo) && (1..=28).contains(&d) && h < 24 && mi < 60 && sec < 60 {
            let frac = &b[19..b.len() - 1];
            let ms = match frac {
                [] => 0,
                [b'.', rest @ ..] if !rest.is_empty() && rest.len() <= 9 => {
                    if !rest.iter().all(u8::is_ascii_digit) {
                        return None;
                    }
                    let mut ms = 0u32;
                    for i in 0..3 {
                        ms = ms * 10 + u32::from(rest.get(i).map_or(0, |c| c - b'0'));
                    }
                    ms
                }
                _ => return None,
            };
            let days = days_from_civil(i64::from(y), mo, d);
            let secs = days * 86_400 + i64::from(h * 3600 + mi * 60 + sec);
            return Some(secs * 1000 + i64::from(ms));
        }
    }
    None
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff...](Z|+hh:mm|-hh:mm)` into milliseconds since the epoch.
///
/// The fast path covers what the service sends; anything else goes through chrono's RFC 3339
/// parser. A time without an offset is rejected: its zone would be a guess. The instant must
/// be in range ([`check_millis`]).
pub(crate) fn parse_millis(s: &str) -> Result<i64, TimeError> {
    let ms = match parse_fast(s.as_bytes()) {
        Some(ms) => ms,
        None => DateTime::parse_from_rfc3339(s)
            .map_err(|e| TimeError::Invalid(Some(e)))?
            .with_timezone(&Utc)
            .timestamp_millis(),
    };
    check_millis(ms)
}

/// A model's timestamp: exactly what chrono's `Deserialize` gives (nanoseconds kept, the
/// same relaxed RFC 3339, the same errors) for instants in range ([`check_millis`]), with the
/// service's millisecond form read by the fast path.
pub(crate) fn parse_datetime(s: &str) -> Result<DateTime<Utc>, TimeError> {
    // At most three fractional digits: milliseconds hold them exactly.
    if s.len() <= 24 {
        if let Some(t) = parse_fast(s.as_bytes()).and_then(DateTime::from_timestamp_millis) {
            return check_datetime(t);
        }
    }
    check_datetime(s.parse().map_err(|e| TimeError::Invalid(Some(e)))?)
}

/// `#[serde(with = "opt_datetime")]` for `Option<DateTime<Utc>>` fields: [`parse_datetime`].
pub(crate) mod opt_datetime {
    use std::fmt;

    use chrono::{DateTime, Utc};
    use serde::de::{self, Deserializer, Visitor};

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        d.deserialize_option(OptionVisitor)
    }

    struct OptionVisitor;

    impl<'de> Visitor<'de> for OptionVisitor {
        type Value = Option<DateTime<Utc>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an RFC 3339 timestamp or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(TimestampVisitor).map(Some)
        }
    }

    struct TimestampVisitor;

    impl Visitor<'_> for TimestampVisitor {
        type Value = DateTime<Utc>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            // chrono's words, so errors read as before.
            f.write_str("an RFC 3339 formatted date and time string")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            super::parse_datetime(s).map_err(E::custom)
        }
    }
}

/// Formats a timestamp as the API does: `2024-05-01T00:00:00Z`, with milliseconds only when
/// there are any.
pub fn format_timestamp(t: &DateTime<Utc>) -> String {
    if t.timestamp_subsec_nanos() == 0 {
        t.to_rfc3339_opts(SecondsFormat::Secs, true)
    } else {
        t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
    }
}

/// [`format_timestamp`] for milliseconds since the epoch.
pub(crate) fn format_millis(ms: i64) -> String {
    match DateTime::<Utc>::from_timestamp_millis(ms) {
        Some(t) => format_timestamp(&t),
        None => ms.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_ms(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis()
    }

    #[test]
    fn fast_path_agrees_with_chrono() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2016-08-11T21:08:40Z",
            "2014-04-22T15:57:13.562Z",
            "2014-04-22T15:57:13.5Z",
            "2000-02-29T23:59:59.999999Z",
            "2024-12-31T12:00:00Z",
            "1969-12-31T23:59:59Z",
            "2024-02-29T10:00:00+02:00",
        ] {
            assert_eq!(parse_millis(s), Ok(chrono_ms(s)), "{s}");
        }
    }

    #[test]
    fn rejects_naive_and_garbage() {
        for s in [
            "2024-01-01T00:00:00",
            "2024-13-01T00:00:00Z",
            "2023-02-30T00:00:00Z",
            "yesterday",
        ] {
            assert!(matches!(parse_millis(s), Err(TimeError::Invalid(_))), "{s}");
        }
    }

    #[test]
    fn model_timestamps_are_what_chrono_gives() {
        #[derive(serde::Deserialize)]
        struct T {
            #[serde(default, with = "opt_datetime")]
            t: Option<DateTime<Utc>>,
        }
        #[derive(serde::Deserialize)]
        struct C {
            #[serde(default)]
            t: Option<DateTime<Utc>>,
        }
        let texts = [
            "\"2014-04-22T15:57:13.562Z\"",
            "\"2014-04-22T15:57:13Z\"",
            "\"2014-04-22T15:57:13.5z\"",
            "\"2014-04-22T15:57:13.123456789Z\"",
            "\"2014-04-22T15:57:13.1234Z\"",
            "\"2024-02-29T23:59:59Z\"",
            "\"2023-02-29T00:00:00Z\"",
            "\"2014-04-22T15:57:13+02:00\"",
            "\"2014-04-22 15:57:13Z\"",
            "\"2016-12-31T23:59:60Z\"",
            "\"2014-04-22T15:57:13\"",
            "\"2014-04-22T15:57:13.Z\"",
            "\"2014-04-22T15:57:13.56xZ\"",
            "\"2014-04-22T15:5\\u0037:13Z\"",
            "\"yesterday\"",
            "null",
            "17",
        ];
        for text in texts {
            let json = format!("{{\"t\": {text}}}");
            let ours = serde_json::from_str::<T>(&json).map(|v| v.t);
            let chrono = serde_json::from_str::<C>(&json).map(|v| v.t);
            match (ours, chrono) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
                (a, b) => panic!("{text}: ours {a:?}, chrono {b:?}"),
            }
        }
        assert!(serde_json::from_str::<T>("{}").unwrap().t.is_none());
    }

    #[test]
    fn instants_outside_pythons_datetime_are_refused_on_both_parsers() {
        for s in [
            "9999-12-31T23:59:59-01:00",
            "0000-01-01T00:00:00Z",
            "0000-12-31T23:59:59.999Z",
            "0001-01-01T00:00:00+01:00",
            "0001-01-01T00:59:59.999999999+01:00",
            "9999-12-31T23:00:00-01:00",
        ] {
            assert_eq!(parse_millis(s), Err(TimeError::OutOfRange), "{s}");
            assert_eq!(parse_datetime(s), Err(TimeError::OutOfRange), "{s}");
        }
        for (s, ms) in [
            ("0001-01-01T00:00:00Z", MIN_MILLIS),
            ("0000-12-31T23:00:00-01:00", MIN_MILLIS),
            ("0001-01-01T01:00:00+01:00", MIN_MILLIS),
            ("9999-12-31T23:59:59.999Z", END_MILLIS - 1),
            ("9999-12-31T23:59:59.999999Z", END_MILLIS - 1),
            ("10000-01-01T00:59:59.999+01:00", END_MILLIS - 1),
        ] {
            let dt = s.parse::<DateTime<Utc>>();
            if dt.is_err() {
                // chrono reads no five-digit year; the rule only has to agree where it reads.
                assert!(parse_millis(s).is_err(), "{s}");
                continue;
            }
            assert_eq!(parse_millis(s), Ok(ms), "{s}");
            assert_eq!(parse_datetime(s), Ok(dt.unwrap()), "{s}");
        }
        assert_eq!(
            parse_datetime("9999-12-31T23:59:59.999999999Z")
                .unwrap()
                .timestamp_subsec_nanos(),
            999_999_999
        );
        assert_eq!(
            TimeError::OutOfRange.to_string(),
            "the instant is outside 0001-01-01T00:00:00Z ..= 9999-12-31T23:59:59.999999Z, \
             the range of Python's datetime"
        );
    }

    #[test]
    fn formats_like_the_api() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_millis(1_398_182_233_562), "2014-04-22T15:57:13.562Z");
    }
}
