//! Global alerts: list, read, acknowledge, un-acknowledge. The filters of the list and one
//! pure function per operation that builds its request; the acknowledgement itself (its body,
//! the PATCH, many at once) is the one project alerts share (`api/acknowledgement.rs`).

use chrono::{DateTime, Utc};
use futures_util::Stream;

use super::acknowledgement::{many_requests, patch_request, send_many};
pub use super::acknowledgement::{AckUntil, Acknowledgement};
use super::alerts::check_status_filter;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::Operation;
use crate::models::time::format_timestamp;
use crate::models::{AlertStatus, GlobalAlert};
use crate::paging::{list_all, stream_all, AlertList};
use crate::request::Request;

/// The request of every id of an `*_many` call, all resolved against one `now` and all
/// checked before any is sent (an invalid id is named by its position: `alert_ids[3]`).
pub fn acknowledge_many_requests<S: AsRef<str>>(
    alert_ids: &[S],
    ack: &Acknowledgement,
    now: DateTime<Utc>,
) -> Result<Vec<Request>> {
    many_requests(alert_ids, "alert_ids", ack, |id| {
        acknowledge_request(id.as_ref(), ack, now)
    })
}

/// `client.global_alerts()`
#[derive(Debug, Clone, Copy)]
pub struct GlobalAlerts<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /globalAlerts` with the filters (paging parameters are added per page).
pub fn list_request(query: &GlobalAlertsQuery) -> Result<Request> {
    query.validate()?;
    Ok(Operation::GlobalAlertsList
        .fixed_request()
        .query(query.to_pairs()))
}

/// `GET /globalAlerts/{alert_id}`.
pub fn get_request(alert_id: &str) -> Result<Request> {
    Operation::GlobalAlertsGet.request(&[alert_id])
}

/// `PATCH /globalAlerts/{alert_id}` with `acknowledgedUntil` (resolved against `now`) and
/// `acknowledgementComment`. An acknowledgement that counts from now (a duration, forever,
/// un-acknowledge) is resolved again against the server's clock for each attempt when the
/// client sends it: `body` shows it as of `now`.
///
/// ```
/// use opsapi::{api::global_alerts::acknowledge_request, AckUntil, Acknowledgement, Method};
/// let now = opsapi::iso8601::parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
/// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("disk");
/// let req = acknowledge_request("a1", &ack, now).unwrap();
/// assert_eq!((req.method, req.path.as_str()), (Method::PATCH, "/globalAlerts/a1"));
/// assert_eq!(
///     req.body.as_deref(),
///     Some(br#"{"acknowledgedUntil":"2024-01-31T14:00:00Z","acknowledgementComment":"disk"}"#.as_slice())
/// );
/// ```
pub fn acknowledge_request(
    alert_id: &str,
    ack: &Acknowledgement,
    now: DateTime<Utc>,
) -> Result<Request> {
    patch_request(Operation::GlobalAlertsAcknowledge, &[alert_id], ack, now)
}

impl GlobalAlerts<'_> {
    /// Every global alert matching `query`: `GET /globalAlerts`, every page (fetched
    /// concurrently once `totalCount` is known).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AlertStatus, GlobalAlertsQuery};
    /// let open = client.global_alerts().list(&GlobalAlertsQuery::new().status(AlertStatus::Open)).await?;
    /// println!("{} open alerts", open.total_count());
    /// # Ok(()) }
    /// ```
    pub async fn list(&self, query: &GlobalAlertsQuery) -> Result<AlertList<GlobalAlert>> {
        list_all(self.client, list_request(query)?).await
    }

    /// The same alerts as a lazy stream, page by page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use futures_util::TryStreamExt;
    /// let mut alerts = client.global_alerts().stream(&Default::default())?;
    /// while let Some(alert) = alerts.try_next().await? {
    ///     println!("{:?}", alert.id);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn stream(
        &self,
        query: &GlobalAlertsQuery,
    ) -> Result<impl Stream<Item = Result<GlobalAlert>> + Send + Unpin + 'static + use<>> {
        self.client.require(Operation::GlobalAlertsList)?;
        Ok(Box::pin(stream_all(
            self.client.clone(),
            list_request(query)?,
        )))
    }

    /// One global alert: `GET /globalAlerts/{alert_id}`.
    pub async fn get(&self, alert_id: &str) -> Result<GlobalAlert> {
        self.client.send_decoded(get_request(alert_id)?).await
    }

    /// Acknowledges an alert: `PATCH /globalAlerts/{alert_id}` with `acknowledgedUntil`
    /// (and `acknowledgementComment`); the server answers 201 with the alert. Never sent twice
    /// once an attempt may have reached the server (see [`Client`]).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("disk resize under way");
    /// let alert = client.global_alerts().acknowledge("5e4c...", &ack).await?;
    /// println!("acknowledged until {:?}", alert.acknowledged_until);
    /// # Ok(()) }
    /// ```
    pub async fn acknowledge(&self, alert_id: &str, ack: &Acknowledgement) -> Result<GlobalAlert> {
        let req = acknowledge_request(alert_id, ack, self.client.server_time())?;
        self.client.send_decoded(req).await
    }

    /// Un-acknowledges an alert by sending an `acknowledgedUntil` in the past.
    pub async fn unacknowledge(&self, alert_id: &str) -> Result<GlobalAlert> {
        self.acknowledge(alert_id, &Acknowledgement::unacknowledge())
            .await
    }

    /// Acknowledges many alerts at once: concurrently (at most the client's
    /// `max_concurrency` in flight), one result per id in the order given. A failure is that
    /// id's `Err`, so one bad id stops nothing; the outer `Err` is an argument error (the
    /// acknowledgement, or an id that cannot be sent), returned before any request is sent.
    /// Each PATCH follows the rules of [`acknowledge`](Self::acknowledge): never sent twice
    /// once an attempt may have reached the server.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let ack = Acknowledgement::new(AckUntil::For("PT2H".parse().unwrap())).comment("incident 42");
    /// let results = client.global_alerts().acknowledge_many(&["a1", "a2"], &ack).await?;
    /// let failed = results.iter().filter(|r| r.is_err()).count();
    /// # Ok(()) }
    /// ```
    pub async fn acknowledge_many<S: AsRef<str>>(
        &self,
        alert_ids: &[S],
        ack: &Acknowledgement,
    ) -> Result<Vec<Result<GlobalAlert>>> {
        self.client.require(Operation::GlobalAlertsAcknowledge)?;
        let requests = acknowledge_many_requests(alert_ids, ack, self.client.server_time())?;
        Ok(send_many(self.client, requests).await)
    }

    /// Un-acknowledges many alerts at once, as [`acknowledge_many`](Self::acknowledge_many)
    /// does.
    pub async fn unacknowledge_many<S: AsRef<str>>(
        &self,
        alert_ids: &[S],
    ) -> Result<Vec<Result<GlobalAlert>>> {
        self.acknowledge_many(alert_ids, &Acknowledgement::unacknowledge())
            .await
    }
}

/// Filters of `GET /globalAlerts`.
///
/// ```
/// use opsapi::{AlertStatus, GlobalAlertsQuery};
/// let q = GlobalAlertsQuery::new().status(AlertStatus::Open);
/// assert_eq!(q.to_pairs(), vec![("status", "OPEN".to_string())]);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GlobalAlertsQuery {
    /// `status`: `TRACKING`, `OPEN` or `CLOSED`.
    pub status: Option<AlertStatus>,
    /// `createdOnOrAfter`
    pub created_on_or_after: Option<DateTime<Utc>>,
    /// `createdOnOrBefore`
    pub created_on_or_before: Option<DateTime<Utc>>,
}

impl GlobalAlertsQuery {
    /// No filter: every global alert.
    pub fn new() -> Self {
        Self::default()
    }
    /// Only alerts with this status.
    pub fn status(mut self, status: AlertStatus) -> Self {
        self.status = Some(status);
        self
    }
    /// Only alerts created at or after `t`.
    pub fn created_on_or_after(mut self, t: DateTime<Utc>) -> Self {
        self.created_on_or_after = Some(t);
        self
    }
    /// Only alerts created at or before `t`.
    pub fn created_on_or_before(mut self, t: DateTime<Utc>) -> Self {
        self.created_on_or_before = Some(t);
        self
    }

    /// Checks the filters without sending anything.
    pub fn validate(&self) -> Result<()> {
        check_status_filter(self.status.as_ref())?;
        if let (Some(a), Some(b)) = (self.created_on_or_after, self.created_on_or_before) {
            if a > b {
                return Err(Error::invalid_argument(
                    "created_on_or_after",
                    format!(
                        "{} is after created_on_or_before {}",
                        format_timestamp(&a),
                        format_timestamp(&b)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The query parameters, as sent.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(s) = &self.status {
            out.push(("status", s.as_str().to_string()));
        }
        if let Some(t) = &self.created_on_or_after {
            out.push(("createdOnOrAfter", format_timestamp(t)));
        }
        if let Some(t) = &self.created_on_or_before {
            out.push(("createdOnOrBefore", format_timestamp(t)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso8601::parse_timestamp;

    #[test]
    fn requests_are_built_without_a_server() {
        let q = GlobalAlertsQuery::new()
            .status(AlertStatus::Open)
            .created_on_or_after(parse_timestamp("t", "2024-01-01T00:00:00Z").unwrap());
        let req = list_request(&q).unwrap();
        assert_eq!(req.path, "/globalAlerts");
        assert_eq!(
            req.query,
            vec![
                ("status", "OPEN".to_string()),
                ("createdOnOrAfter", "2024-01-01T00:00:00Z".to_string())
            ]
        );
        let now = parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
        let req = acknowledge_request("a b", &Acknowledgement::unacknowledge(), now).unwrap();
        assert_eq!(req.path, "/globalAlerts/a%20b");
        assert_eq!(
            req.body.as_deref(),
            Some(br#"{"acknowledgedUntil":"2024-01-31T09:59:00Z"}"#.as_slice())
        );
        assert!(get_request("..").is_err());
    }
}
