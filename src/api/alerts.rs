//! Project alerts (`/groups/{group_id}/alerts`), the alerts most teams see (Cloud Manager has
//! no global alerts): list with a status filter, read, acknowledge, un-acknowledge, one or many
//! at once, every project at once, and an alert in its context (`alerts/context.rs`).
//!
//! The acknowledgement (its body, the PATCH never sent twice, many at once) is the one global
//! alerts use (`api/acknowledgement.rs`); pages go through the same paging and the same alert
//! page scanner; the model is [`Alert`].

use chrono::{DateTime, Utc};
use futures_util::Stream;

use super::acknowledgement::{many_requests, patch_request, send_many, Acknowledgement};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::Operation;
use crate::models::{Alert, AlertStatus};
use crate::paging::{every_project, list_all, per_project, project_ids, stream_all, AlertList};
use crate::request::{PathBuilder, Request};

mod alert_context;
pub mod around;
pub mod context;
mod metric;
mod missing;
pub mod reading;
pub mod slow;
pub use context::{AlertContext, ContextOptions, MetricKind};

/// The status filter both alert listings share: `TRACKING`, `OPEN` or `CLOSED` (the service
/// cannot filter on `CANCELLED`), never empty.
pub(crate) fn check_status_filter(status: Option<&AlertStatus>) -> Result<()> {
    match status {
        Some(AlertStatus::Cancelled) => Err(Error::invalid_argument(
            "status",
            "the service cannot filter on CANCELLED; use TRACKING, OPEN or CLOSED",
        )),
        Some(AlertStatus::Other(s)) if s.is_empty() => {
            Err(Error::invalid_argument("status", "must not be empty"))
        }
        _ => Ok(()),
    }
}

/// `client.alerts()`
#[derive(Debug, Clone, Copy)]
pub struct Alerts<'c> {
    pub(crate) client: &'c Client,
}

/// Filters of `GET /groups/{group_id}/alerts`: the status only (the service documents no
/// other filter for project alerts).
///
/// ```
/// use opsapi::{AlertStatus, AlertsQuery};
/// let q = AlertsQuery::new().status(AlertStatus::Open);
/// assert_eq!(q.to_pairs(), vec![("status", "OPEN".to_string())]);
/// assert!(AlertsQuery::new().status(AlertStatus::Cancelled).validate().is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AlertsQuery {
    /// `status`: `TRACKING`, `OPEN` or `CLOSED`.
    pub status: Option<AlertStatus>,
}

impl AlertsQuery {
    /// No filter: every alert of the project.
    pub fn new() -> Self {
        Self::default()
    }
    /// Only alerts with this status.
    pub fn status(mut self, status: AlertStatus) -> Self {
        self.status = Some(status);
        self
    }
    /// Checks the filter without sending anything.
    pub fn validate(&self) -> Result<()> {
        check_status_filter(self.status.as_ref())
    }
    /// The query parameters, as sent.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        self.status
            .iter()
            .map(|s| ("status", s.as_str().to_string()))
            .collect()
    }
}

/// `GET /groups/{group_id}/alerts` with the filter (paging parameters are added per page).
///
/// ```
/// use opsapi::{api::alerts::list_request, AlertStatus, AlertsQuery};
/// let req = list_request("g1", &AlertsQuery::new().status(AlertStatus::Closed)).unwrap();
/// assert_eq!(req.path, "/groups/g1/alerts");
/// assert_eq!(req.query, vec![("status", "CLOSED".to_string())]);
/// ```
pub fn list_request(group_id: &str, query: &AlertsQuery) -> Result<Request> {
    query.validate()?;
    Ok(Operation::AlertsList
        .request(&[group_id])?
        .query(query.to_pairs()))
}

/// `GET /groups/{group_id}/alerts/{alert_id}`.
///
/// ```
/// let req = opsapi::api::alerts::get_request("g1", "a/1").unwrap();
/// assert_eq!(req.path, "/groups/g1/alerts/a%2F1");
/// ```
pub fn get_request(group_id: &str, alert_id: &str) -> Result<Request> {
    Operation::AlertsGet.request(&[group_id, alert_id])
}

/// `PATCH /groups/{group_id}/alerts/{alert_id}` with `acknowledgedUntil` (resolved against
/// `now`, and again against the server's clock for each attempt when it counts from now) and
/// `acknowledgementComment`.
///
/// ```
/// use opsapi::{api::alerts::acknowledge_request, AckUntil, Acknowledgement, Method};
/// let now = opsapi::iso8601::parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
/// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("disk");
/// let req = acknowledge_request("g1", "a1", &ack, now).unwrap();
/// assert_eq!((req.method, req.path.as_str()), (Method::PATCH, "/groups/g1/alerts/a1"));
/// assert_eq!(
///     req.body.as_deref(),
///     Some(br#"{"acknowledgedUntil":"2024-01-31T14:00:00Z","acknowledgementComment":"disk"}"#.as_slice())
/// );
/// ```
pub fn acknowledge_request(
    group_id: &str,
    alert_id: &str,
    ack: &Acknowledgement,
    now: DateTime<Utc>,
) -> Result<Request> {
    patch_request(
        Operation::AlertsAcknowledge,
        &[group_id, alert_id],
        ack,
        now,
    )
}

/// The request of every `(group_id, alert_id)` pair of an `*_many` call, all resolved against
/// one `now` and all checked before any is sent (an invalid pair is named by its position:
/// `pairs[3]`).
///
/// ```
/// use opsapi::{api::alerts::acknowledge_many_requests, Acknowledgement};
/// let now = opsapi::iso8601::parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
/// let ack = Acknowledgement::unacknowledge();
/// let reqs = acknowledge_many_requests(&[("g1", "a1"), ("g2", "a2")], &ack, now).unwrap();
/// assert_eq!(reqs[1].path, "/groups/g2/alerts/a2");
/// let e = acknowledge_many_requests(&[("g1", "a1"), ("g2", "")], &ack, now).unwrap_err();
/// assert!(e.to_string().starts_with("invalid argument `pairs[1]`"), "{e}");
/// ```
pub fn acknowledge_many_requests<G: AsRef<str>, A: AsRef<str>>(
    pairs: &[(G, A)],
    ack: &Acknowledgement,
    now: DateTime<Utc>,
) -> Result<Vec<Request>> {
    many_requests(pairs, "pairs", ack, |(g, a)| {
        let (g, a) = (g.as_ref(), a.as_ref());
        acknowledge_request(g, a, ack, now).map_err(|e| match e {
            // Which of the two identifiers, since the position names only the pair.
            Error::InvalidArgument { argument, message } => Error::InvalidArgument {
                argument,
                message: format!("{}: {message}", which(g, a)),
            },
            other => other,
        })
    })
}

/// The part of a pair that cannot be sent, by the rule of [`PathBuilder::id`].
fn which(group_id: &str, alert_id: &str) -> &'static str {
    if PathBuilder::new().id("group_id", group_id).is_err() {
        "group_id"
    } else {
        debug_assert!(PathBuilder::new().id("alert_id", alert_id).is_err());
        "alert_id"
    }
}

/// The listing request of every project of a [`Alerts::list_all`] call, checked before any
/// is sent (an invalid id is named by its position: `groups[2]`).
///
/// ```
/// use opsapi::{api::alerts::list_all_requests, AlertsQuery};
/// let reqs = list_all_requests(&["g1", "g2"], &AlertsQuery::new()).unwrap();
/// assert_eq!(reqs[1].path, "/groups/g2/alerts");
/// assert!(list_all_requests(&["g1", ".."], &AlertsQuery::new()).is_err());
/// ```
pub fn list_all_requests<S: AsRef<str>>(
    group_ids: &[S],
    query: &AlertsQuery,
) -> Result<Vec<Request>> {
    query.validate()?;
    per_project(group_ids, |g| list_request(g, query))
}

impl Alerts<'_> {
    /// Every alert of a project matching `query`: `GET /groups/{group_id}/alerts`, every page
    /// (fetched concurrently once `totalCount` is known).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AlertStatus, AlertsQuery};
    /// let open = client.alerts().list("5e9f...", &AlertsQuery::new().status(AlertStatus::Open)).await?;
    /// println!("{} open alerts", open.total_count());
    /// # Ok(()) }
    /// ```
    pub async fn list(&self, group_id: &str, query: &AlertsQuery) -> Result<AlertList<Alert>> {
        list_all(self.client, list_request(group_id, query)?).await
    }

    /// The same alerts as a lazy stream, page by page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use futures_util::TryStreamExt;
    /// let mut alerts = client.alerts().stream("5e9f...", &Default::default())?;
    /// while let Some(alert) = alerts.try_next().await? {
    ///     println!("{:?}", alert.id);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn stream(
        &self,
        group_id: &str,
        query: &AlertsQuery,
    ) -> Result<impl Stream<Item = Result<Alert>> + Send + Unpin + 'static + use<>> {
        Ok(Box::pin(stream_all(
            self.client.clone(),
            list_request(group_id, query)?,
        )))
    }

    /// One alert: `GET /groups/{group_id}/alerts/{alert_id}`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let alert = client.alerts().get("5e9f...", "5d31...").await?;
    /// println!("{:?} {:?}", alert.status, alert.metric_name);
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, group_id: &str, alert_id: &str) -> Result<Alert> {
        self.client
            .send_decoded(get_request(group_id, alert_id)?)
            .await
    }

    /// Acknowledges an alert: `PATCH /groups/{group_id}/alerts/{alert_id}` with
    /// `acknowledgedUntil` (and `acknowledgementComment`); returns the alert. Never sent twice
    /// once an attempt may have reached the server (see [`Client`]).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("disk resize");
    /// let alert = client.alerts().acknowledge("5e9f...", "5d31...", &ack).await?;
    /// println!("acknowledged until {:?}", alert.acknowledged_until);
    /// # Ok(()) }
    /// ```
    pub async fn acknowledge(
        &self,
        group_id: &str,
        alert_id: &str,
        ack: &Acknowledgement,
    ) -> Result<Alert> {
        let req = acknowledge_request(group_id, alert_id, ack, self.client.server_time())?;
        self.client.send_decoded(req).await
    }

    /// Un-acknowledges an alert by sending an `acknowledgedUntil` in the past.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let alert = client.alerts().unacknowledge("5e9f...", "5d31...").await?;
    /// assert_eq!(alert.acknowledged_until, None);
    /// # Ok(()) }
    /// ```
    pub async fn unacknowledge(&self, group_id: &str, alert_id: &str) -> Result<Alert> {
        self.acknowledge(group_id, alert_id, &Acknowledgement::unacknowledge())
            .await
    }

    /// Acknowledges many alerts, of one project or several, at once: concurrently (at most
    /// the client's `max_concurrency` in flight), one result per `(group_id, alert_id)` pair
    /// in the order given. A failure is that pair's `Err`, so one bad id stops nothing; the
    /// outer `Err` is an argument error, returned before any request is sent. Each PATCH is
    /// never sent twice once an attempt may have reached the server.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let ack = Acknowledgement::new(AckUntil::For("PT2H".parse().unwrap())).comment("incident 42");
    /// let results = client.alerts().acknowledge_many(&[("g1", "a1"), ("g2", "a2")], &ack).await?;
    /// let failed = results.iter().filter(|r| r.is_err()).count();
    /// # Ok(()) }
    /// ```
    pub async fn acknowledge_many<G: AsRef<str>, A: AsRef<str>>(
        &self,
        pairs: &[(G, A)],
        ack: &Acknowledgement,
    ) -> Result<Vec<Result<Alert>>> {
        let requests = acknowledge_many_requests(pairs, ack, self.client.server_time())?;
        Ok(send_many(self.client, requests).await)
    }

    /// Un-acknowledges many alerts at once, as [`acknowledge_many`](Self::acknowledge_many)
    /// does.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let results = client.alerts().unacknowledge_many(&[("g1", "a1")]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn unacknowledge_many<G: AsRef<str>, A: AsRef<str>>(
        &self,
        pairs: &[(G, A)],
    ) -> Result<Vec<Result<Alert>>> {
        self.acknowledge_many(pairs, &Acknowledgement::unacknowledge())
            .await
    }

    /// The alerts of every project the key can see (`GET /groups`, every page), or of the
    /// projects in `groups`, matching `query`: each project's listing with every page, the
    /// projects concurrently (at most the client's `max_concurrency` requests in flight),
    /// one list in the order of the projects; `total_count` is the sum of theirs. A project
    /// that fails fails the call (never a silently shorter list); every id in `groups` is
    /// checked before any request is sent. Each alert carries its `group_id`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AlertStatus, AlertsQuery};
    /// let q = AlertsQuery::new().status(AlertStatus::Open);
    /// let everywhere = client.alerts().list_all(&q, None).await?;
    /// let two = client.alerts().list_all(&q, Some(&["g1", "g2"])).await?;
    /// # Ok(()) }
    /// ```
    pub async fn list_all(
        &self,
        query: &AlertsQuery,
        groups: Option<&[&str]>,
    ) -> Result<AlertList<Alert>> {
        query.validate()?;
        let ids = project_ids(self.client, groups).await?;
        every_project(self.client, list_all_requests(&ids, query)?).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso8601::parse_timestamp;

    #[test]
    fn requests_are_built_without_a_server() {
        let req = list_request("g 1", &AlertsQuery::new()).unwrap();
        assert_eq!(
            (req.path.as_str(), req.query.len()),
            ("/groups/g%201/alerts", 0)
        );
        assert!(list_request(
            "g",
            &AlertsQuery::new().status(AlertStatus::Other(String::new()))
        )
        .is_err());
        let now = parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
        let req = acknowledge_request("g", "a", &Acknowledgement::unacknowledge(), now).unwrap();
        assert_eq!(req.path, "/groups/g/alerts/a");
        assert_eq!(
            req.body.as_deref(),
            Some(br#"{"acknowledgedUntil":"2024-01-31T09:59:00Z"}"#.as_slice())
        );
        let e = acknowledge_many_requests(&[("..", "a")], &Acknowledgement::unacknowledge(), now)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid argument `pairs[0]`: group_id: `..` cannot be sent as a path segment"
        );
        let e = list_all_requests(&["g", ""], &AlertsQuery::new())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "invalid argument `groups[1]`: must not be empty");
    }
}
