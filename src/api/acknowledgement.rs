//! Acknowledging alerts, global or project: how long for ([`AckUntil`]), the body of the PATCH
//! ([`Acknowledgement`]), and the one way both kinds of alert build and send it: the request
//! of one alert, the requests of many checked before any is sent, and many sent at once.

use chrono::{DateTime, Months, Utc};
use futures_util::StreamExt;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::Operation;
use crate::iso8601::{IsoDuration, MAX_DURATION_YEARS};
use crate::models::time::format_timestamp;
use crate::models::Alert;
use crate::request::{Request, TimedBody};

/// The PATCH of an acknowledgement of the alert `ids` name (`acknowledgedUntil`, resolved
/// against `now`, and `acknowledgementComment`). An acknowledgement that counts from now (a
/// duration, forever, un-acknowledge) is resolved again against the server's clock for each
/// attempt when the client sends it: `body` shows it as of `now`.
pub(crate) fn patch_request(
    operation: Operation,
    ids: &[&str],
    ack: &Acknowledgement,
    now: DateTime<Utc>,
) -> Result<Request> {
    ack.validate()?;
    let mut req = operation.request(ids)?;
    req.body = Some(ack.to_body(now)?.to_string().into_bytes());
    if matches!(ack.until, AckUntil::Unacknowledge) {
        // Atlas says it in words of its own (Ops Manager: an `acknowledgedUntil` past).
        req.atlas_body = Some(br#"{"unacknowledgeAlert":true}"#.to_vec());
    }
    if !matches!(ack.until, AckUntil::Until(_)) {
        let ack = ack.clone();
        req.timed_body = Some(TimedBody::new(move |now| {
            Ok(ack.to_body(now)?.to_string().into_bytes())
        }));
    }
    Ok(req)
}

/// The request of every alert of an `*_many` call, built by `one`, all checked before any is
/// sent: an argument error names the alert by its position in `argument` (`alert_ids[3]`).
pub(crate) fn many_requests<T>(
    items: &[T],
    argument: &str,
    ack: &Acknowledgement,
    mut one: impl FnMut(&T) -> Result<Request>,
) -> Result<Vec<Request>> {
    ack.validate()?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            one(item).map_err(|e| match e {
                Error::InvalidArgument { message, .. } => Error::InvalidArgument {
                    argument: format!("{argument}[{i}]"),
                    message,
                },
                other => other,
            })
        })
        .collect()
}

/// Sends the PATCHes of an `*_many` call concurrently (at most the client's `max_concurrency`
/// in flight): one result per request, in order. Each follows the rule of every PATCH: never
/// sent twice once an attempt may have reached the server.
pub(crate) async fn send_many(client: &Client, requests: Vec<Request>) -> Vec<Result<Alert>> {
    futures_util::stream::iter(requests)
        .map(|req| client.send_decoded::<Alert>(req))
        .buffered(client.max_concurrency())
        .collect()
        .await
}

/// How long to acknowledge an alert for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AckUntil {
    /// Until this time, which must be in the future (and within 100 years): a time in the
    /// past would un-acknowledge the alert, which [`AckUntil::Unacknowledge`] says plainly.
    Until(DateTime<Utc>),
    /// For this long from now.
    For(IsoDuration),
    /// Forever: the service's convention is 100 years from now.
    Forever,
    /// Un-acknowledge: the service's convention is an `acknowledgedUntil` in the past (a
    /// minute before now is sent).
    Unacknowledge,
}

/// The body of `PATCH /globalAlerts/{id}`.
///
/// ```
/// use opsapi::{AckUntil, Acknowledgement};
/// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("on it");
/// assert!(ack.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Acknowledgement {
    /// Until when.
    pub until: AckUntil,
    /// `acknowledgementComment`
    pub comment: Option<String>,
}

impl Acknowledgement {
    /// An acknowledgement without comment.
    pub fn new(until: AckUntil) -> Self {
        Self {
            until,
            comment: None,
        }
    }

    /// Adds a comment.
    pub fn comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = Some(comment.into());
        self
    }

    /// An acknowledgement ending in the past, which un-acknowledges the alert.
    pub fn unacknowledge() -> Self {
        Self::new(AckUntil::Unacknowledge)
    }

    /// Builds one from the keyword arguments of the Python face: exactly one of `until`,
    /// `duration` or `forever`.
    pub fn from_parts(
        until: Option<DateTime<Utc>>,
        duration: Option<&str>,
        forever: bool,
        comment: Option<String>,
    ) -> Result<Self> {
        let until = match (until, duration, forever) {
            (Some(t), None, false) => AckUntil::Until(t),
            (None, Some(d), false) => AckUntil::For(IsoDuration::parse_lenient("duration", d)?),
            (None, None, true) => AckUntil::Forever,
            (None, None, false) => {
                return Err(Error::invalid_argument(
                    "until",
                    "give exactly one of until, duration or forever=True",
                ))
            }
            _ => {
                return Err(Error::invalid_argument(
                    "until",
                    "give only one of until, duration or forever=True",
                ))
            }
        };
        let ack = Self { until, comment };
        ack.validate()?;
        Ok(ack)
    }

    /// Checks the acknowledgement without sending anything.
    pub fn validate(&self) -> Result<()> {
        if let AckUntil::For(d) = &self.until {
            if d.is_zero() {
                return Err(Error::invalid_argument(
                    "duration",
                    "must be longer than zero",
                ));
            }
        }
        Ok(())
    }

    /// The time to send, computed against `now`.
    ///
    /// ```
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let now = opsapi::query::parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
    /// let past = opsapi::query::parse_timestamp("until", "2024-01-31T09:00:00Z").unwrap();
    /// let e = Acknowledgement::new(AckUntil::Until(past)).resolve(now).unwrap_err();
    /// assert!(e.to_string().contains("unacknowledge()"), "{e}");
    /// ```
    pub fn resolve(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
        let latest = now.checked_add_months(Months::new(MAX_DURATION_YEARS * 12));
        match &self.until {
            AckUntil::Until(t) if *t <= now => Err(Error::invalid_argument(
                "until",
                format!(
                    "{} is not in the future, and acknowledging until a past time would \
                     un-acknowledge the alert; to do that, call unacknowledge()",
                    format_timestamp(t)
                ),
            )),
            AckUntil::Until(t) if latest.is_some_and(|l| *t > l) => Err(Error::invalid_argument(
                "until",
                format!(
                    "{} is more than {MAX_DURATION_YEARS} years ahead; to acknowledge without \
                     end, use forever",
                    format_timestamp(t)
                ),
            )),
            AckUntil::Until(t) => Ok(*t),
            AckUntil::For(d) => d.add_to(now).ok_or_else(|| {
                Error::invalid_argument("duration", format!("`{d}` is out of range"))
            }),
            AckUntil::Forever => {
                latest.ok_or_else(|| Error::invalid_argument("forever", "is out of range"))
            }
            AckUntil::Unacknowledge => Ok(DateTime::<Utc>::from_timestamp(now.timestamp() - 60, 0)
                .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)),
        }
    }

    /// The JSON body, computed against `now`.
    pub fn to_body(&self, now: DateTime<Utc>) -> Result<serde_json::Value> {
        let until = self.resolve(now)?;
        let mut body = serde_json::Map::new();
        body.insert(
            "acknowledgedUntil".into(),
            format_timestamp(&until.with_nanosecond_truncated()).into(),
        );
        if let Some(c) = &self.comment {
            body.insert("acknowledgementComment".into(), c.clone().into());
        }
        Ok(body.into())
    }
}

trait TruncateNanos {
    fn with_nanosecond_truncated(self) -> Self;
}

impl TruncateNanos for DateTime<Utc> {
    fn with_nanosecond_truncated(self) -> Self {
        DateTime::<Utc>::from_timestamp(self.timestamp(), 0).unwrap_or(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso8601::parse_timestamp;

    #[test]
    fn acknowledgements_resolve_against_now() {
        let now = parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
        let ack = Acknowledgement::from_parts(None, Some("PT4H"), false, Some("x".into())).unwrap();
        assert_eq!(
            ack.to_body(now).unwrap(),
            serde_json::json!({"acknowledgedUntil": "2024-01-31T14:00:00Z", "acknowledgementComment": "x"})
        );
        let forever = Acknowledgement::from_parts(None, None, true, None).unwrap();
        assert_eq!(
            forever.to_body(now).unwrap(),
            serde_json::json!({"acknowledgedUntil": "2124-01-31T10:00:00Z"})
        );
        let month = Acknowledgement::from_parts(None, Some("P1M"), false, None).unwrap();
        assert_eq!(
            month.resolve(now).unwrap().to_rfc3339(),
            "2024-02-29T10:00:00+00:00"
        );
        assert!(Acknowledgement::from_parts(None, None, false, None).is_err());
        assert!(Acknowledgement::from_parts(Some(now), None, true, None).is_err());
        assert!(Acknowledgement::from_parts(None, Some("PT0S"), false, None).is_err());
        assert_eq!(
            Acknowledgement::unacknowledge().to_body(now).unwrap(),
            serde_json::json!({"acknowledgedUntil": "2024-01-31T09:59:00Z"})
        );
        let past = Acknowledgement::from_parts(Some(now), None, false, None).unwrap();
        let e = past.resolve(now).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid argument `until`: 2024-01-31T10:00:00Z is not in the future, and \
             acknowledging until a past time would un-acknowledge the alert; to do that, call \
             unacknowledge()"
        );
        let far = parse_timestamp("t", "2124-02-01T00:00:00Z").unwrap();
        let e = Acknowledgement::new(AckUntil::Until(far))
            .resolve(now)
            .unwrap_err();
        assert!(e.to_string().contains("use forever"), "{e}");
    }
}
