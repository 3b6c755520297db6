//! What a client learns about the server from its answers' headers: the service version, and
//! its clock (`Date`).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use chrono::{DateTime, TimeDelta, Utc};
use reqwest::header::{HeaderMap, DATE};

/// The service version the server reports in `X-Vendor-Service-Version` (or the live name
/// `X-MongoDB-Service-Version`): `gitHash=...; versionString=...`.
///
/// ```
/// use opsapi::ServiceVersion;
/// let v = ServiceVersion::parse("gitHash=ca9b4ac; versionString=current");
/// assert_eq!(v.version_string.as_deref(), Some("current"));
/// assert_eq!(ServiceVersion::parse("gitHash=abc;").version_string, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ServiceVersion {
    /// `gitHash`
    pub git_hash: Option<String>,
    /// `versionString`
    pub version_string: Option<String>,
}

impl ServiceVersion {
    /// Parses the header value, tolerating missing parts and unknown keys.
    pub fn parse(header: &str) -> Self {
        let mut v = Self::default();
        for part in header.split(';') {
            let Some((k, val)) = part.split_once('=') else {
                continue;
            };
            let val = val.trim();
            if val.is_empty() {
                continue;
            }
            match k.trim() {
                "gitHash" => v.git_hash = Some(val.to_string()),
                "versionString" => v.version_string = Some(val.to_string()),
                _ => {}
            }
        }
        v
    }
}

/// The server's clock, from the `Date` header of its answers (RFC 9110: the time the answer
/// was made, to the second).
///
/// Acknowledgement times are absolute instants that the server compares with its own clock:
/// "for 4 hours" and "un-acknowledge" (a minute ago) must be counted from the server's now,
/// or a client whose clock is ahead of the server's would leave an alert acknowledged that it
/// meant to release. Within [`ServerClock::TOLERANCE`] of this machine's clock (the header's
/// resolution and a round trip), this machine's clock is taken as it is.
#[derive(Debug, Default)]
pub(crate) struct ServerClock {
    /// The server's clock minus this machine's, in milliseconds (0: the same, or not known).
    skew_ms: AtomicI64,
    /// Whether an answer has told it (else `skew_ms` is 0 for want of knowing).
    known: AtomicBool,
}

impl ServerClock {
    /// A skew the `Date` header cannot tell from none.
    pub(crate) const TOLERANCE: TimeDelta = TimeDelta::seconds(2);

    /// Takes the `Date` of an answer received at `received` (this machine's clock).
    pub(crate) fn observe(&self, headers: &HeaderMap, received: DateTime<Utc>) {
        let Some(date) = http_date(headers) else {
            return;
        };
        let skew = date - received;
        let skew = if skew.abs() < Self::TOLERANCE {
            0
        } else {
            skew.num_milliseconds()
        };
        self.skew_ms.store(skew, Ordering::Relaxed);
        self.known.store(true, Ordering::Relaxed);
    }

    /// The server's clock minus this machine's, once an answer has told it.
    pub(crate) fn offset(&self) -> Option<TimeDelta> {
        self.known
            .load(Ordering::Relaxed)
            .then(|| TimeDelta::milliseconds(self.skew_ms.load(Ordering::Relaxed)))
    }

    /// The server's now, as far as its answers tell.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        Utc::now() + TimeDelta::milliseconds(self.skew_ms.load(Ordering::Relaxed))
    }
}

/// The `Date` header, when it is a valid HTTP date.
pub(crate) fn http_date(headers: &HeaderMap) -> Option<DateTime<Utc>> {
    let v = headers.get(DATE)?.to_str().ok()?;
    DateTime::parse_from_rfc2822(v.trim())
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn date(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(DATE, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn service_versions_tolerate_missing_parts() {
        assert_eq!(
            ServiceVersion::parse("gitHash=9aedcdd; versionString=v20200901"),
            ServiceVersion {
                git_hash: Some("9aedcdd".into()),
                version_string: Some("v20200901".into())
            }
        );
        assert_eq!(ServiceVersion::parse("versionString=x").git_hash, None);
        assert_eq!(ServiceVersion::parse(""), ServiceVersion::default());
    }

    #[test]
    fn the_servers_clock_is_taken_from_date_beyond_the_tolerance() {
        let received = DateTime::parse_from_rfc3339("2026-11-25T10:00:00.400Z")
            .unwrap()
            .with_timezone(&Utc);
        let c = ServerClock::default();
        assert_eq!(c.offset(), None, "no answer yet");
        c.observe(&date("Wed, 25 Nov 2026 10:00:00 GMT"), received);
        assert_eq!(c.offset(), Some(TimeDelta::zero()));
        assert_eq!(c.skew_ms.load(Ordering::Relaxed), 0, "within the tolerance");
        c.observe(&date("Mon, 01 Jun 2026 12:00:00 GMT"), received);
        let want = DateTime::parse_from_rfc3339("2026-06-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            - received;
        assert_eq!(c.skew_ms.load(Ordering::Relaxed), want.num_milliseconds());
        c.observe(&date("not a date"), received);
        assert_eq!(
            c.skew_ms.load(Ordering::Relaxed),
            want.num_milliseconds(),
            "kept"
        );
        c.observe(&HeaderMap::new(), received);
        assert_eq!(
            c.skew_ms.load(Ordering::Relaxed),
            want.num_milliseconds(),
            "kept"
        );
        let before = Utc::now() + want;
        let now = c.now();
        assert!(before <= now && now <= Utc::now() + want);
    }
}
