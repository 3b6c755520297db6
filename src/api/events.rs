//! Project events: one, or every event of a project, of some types and between two dates.

use chrono::{DateTime, Utc};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::{Flavour, Operation};
use crate::models::event_kinds::{charted_types, EventScope};
use crate::models::time::format_timestamp;
use crate::models::Event;
use crate::paging::{list_all, List};
use crate::request::Request;

/// Filters of `GET /groups/{group_id}/events`, as every flavour documents them: the event
/// types (`eventType`, repeated), and the first and last creation date (`minDate` and
/// `maxDate`, each included). Checked before any request: a type is not empty, `min_date` is
/// not after `max_date`.
///
/// ```
/// use opsapi::api::events::EventsQuery;
/// let t = |s| opsapi::query::parse_timestamp("t", s).unwrap();
/// let q = EventsQuery::new()
///     .event_type("HOST_DOWN")
///     .event_type("ALERT_OPEN")
///     .min_date(t("2026-03-01T00:00:00Z"));
/// assert_eq!(q.to_pairs(), vec![
///     ("eventType", "HOST_DOWN".to_string()),
///     ("eventType", "ALERT_OPEN".to_string()),
///     ("minDate", "2026-03-01T00:00:00Z".to_string()),
/// ]);
/// let e = q.max_date(t("2026-02-01T00:00:00Z")).validate().unwrap_err();
/// assert_eq!(e.to_string(), "invalid argument `max_date`: is before min_date");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct EventsQuery {
    /// `eventType`: events of these types only (none: every type).
    pub event_types: Vec<String>,
    /// `minDate`: events created at or after it.
    pub min_date: Option<DateTime<Utc>>,
    /// `maxDate`: events created at or before it.
    pub max_date: Option<DateTime<Utc>>,
}

impl EventsQuery {
    /// No filter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Events of this type too (`eventType`, repeated once per type).
    pub fn event_type(mut self, event_type: impl Into<String>) -> Self {
        self.event_types.push(event_type.into());
        self
    }

    /// Events created at or after `t`.
    pub fn min_date(mut self, t: DateTime<Utc>) -> Self {
        self.min_date = Some(t);
        self
    }

    /// Events created at or before `t`.
    pub fn max_date(mut self, t: DateTime<Utc>) -> Self {
        self.max_date = Some(t);
        self
    }

    /// Checks the filters.
    pub fn validate(&self) -> Result<()> {
        if let Some(i) = self.event_types.iter().position(|t| t.trim().is_empty()) {
            return Err(Error::invalid_argument(
                format!("event_type[{i}]"),
                "must not be empty",
            ));
        }
        if let (Some(min), Some(max)) = (self.min_date, self.max_date) {
            if max < min {
                return Err(Error::invalid_argument("max_date", "is before min_date"));
            }
        }
        Ok(())
    }

    /// The query parameters, in the server's words.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = self
            .event_types
            .iter()
            .map(|t| ("eventType", t.clone()))
            .collect();
        if let Some(t) = self.min_date {
            out.push(("minDate", format_timestamp(&t)));
        }
        if let Some(t) = self.max_date {
            out.push(("maxDate", format_timestamp(&t)));
        }
        out
    }
}

/// `client.events()`
#[derive(Debug, Clone, Copy)]
pub struct Events<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/events/{event_id}`, with `includeRaw=true` when `include_raw`.
///
/// ```
/// let req = opsapi::api::events::get_request("g", "e", true).unwrap();
/// assert_eq!(req.path, "/groups/g/events/e");
/// assert_eq!(req.query, vec![("includeRaw", "true".to_string())]);
/// ```
pub fn get_request(group_id: &str, event_id: &str, include_raw: bool) -> Result<Request> {
    let req = Operation::EventsGet.request(&[group_id, event_id])?;
    Ok(if include_raw {
        req.query([("includeRaw", "true".to_string())])
    } else {
        req
    })
}

/// `GET /groups/{group_id}/events`.
pub fn list_request(group_id: &str) -> Result<Request> {
    Operation::EventsList.request(&[group_id])
}

/// `GET /groups/{group_id}/events` with the filters (paging parameters are added per page).
///
/// ```
/// use opsapi::api::events::{list_with_request, EventsQuery};
/// let req = list_with_request("g", &EventsQuery::new().event_type("HOST_DOWN")).unwrap();
/// assert_eq!(req.path, "/groups/g/events");
/// assert_eq!(req.query, vec![("eventType", "HOST_DOWN".to_string())]);
/// ```
pub fn list_with_request(group_id: &str, query: &EventsQuery) -> Result<Request> {
    query.validate()?;
    Ok(list_request(group_id)?.query(query.to_pairs()))
}

/// The events of `types` from `start` to `end` (an alert context's, a capacity chart's).
pub(crate) fn typed_window(
    types: Vec<&'static str>,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> EventsQuery {
    let q = EventsQuery::new().min_date(start).max_date(end);
    types.into_iter().fold(q, EventsQuery::event_type)
}

/// Atlas's listing of `query`'s events of one cluster, which name no cluster and which
/// `clusterNames` finds.
pub(crate) fn of_cluster(
    group_id: &str,
    cluster_name: &str,
    query: &EventsQuery,
) -> Result<Request> {
    Ok(list_with_request(group_id, query)?.query([("clusterNames", cluster_name.to_string())]))
}

/// The filters of the events a capacity chart marks from `start` to `end`, of `scopes`, in
/// `flavour`'s own type names ([`charted_types`]).
fn charted_query(
    flavour: Flavour,
    scopes: &[EventScope],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> EventsQuery {
    typed_window(charted_types(flavour, scopes), start, end)
}

/// The request of a project's events that a capacity chart marks and that name a host or a
/// replica set (elections, restarts, hosts down), from `start` to `end`, in `flavour`'s own
/// type names (`eventType`, repeated).
///
/// ```
/// use opsapi::api::events::charted_request;
/// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
/// let req = charted_request(opsapi::Flavour::OpsManager, "g1", t("2026-02-16T10:00:00Z"),
///     t("2026-03-02T10:00:00Z")).unwrap();
/// assert_eq!(req.path, "/groups/g1/events");
/// assert!(req.query.contains(&("eventType", "HOST_RESTARTED".to_string())));
/// assert!(!req.query.contains(&("eventType", "HOST_UP".to_string())));
/// assert!(req.query.contains(&("minDate", "2026-02-16T10:00:00Z".to_string())));
/// ```
pub fn charted_request(
    flavour: Flavour,
    group_id: &str,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Request> {
    list_with_request(
        group_id,
        &charted_query(flavour, &[EventScope::Host], start, end),
    )
}

/// Atlas's request of one cluster's events that a capacity chart marks (its auto-scaling,
/// updates, instance restarts and test failovers), which name no cluster and which
/// `clusterNames` finds.
///
/// ```
/// use opsapi::api::events::charted_cluster_request;
/// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
/// let req = charted_cluster_request("g1", "orders", t("2026-02-16T10:00:00Z"),
///     t("2026-03-02T10:00:00Z")).unwrap();
/// assert!(req.query.contains(&("eventType", "DISK_AUTO_SCALE_INITIATED".to_string())));
/// assert_eq!(req.query.last(), Some(&("clusterNames", "orders".to_string())));
/// ```
pub fn charted_cluster_request(
    group_id: &str,
    cluster_name: &str,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Request> {
    let q = charted_query(Flavour::Atlas, &[EventScope::Cluster], start, end);
    of_cluster(group_id, cluster_name, &q)
}

impl Events<'_> {
    /// One event: `GET /groups/{group_id}/events/{event_id}`, with `includeRaw=true` when
    /// `include_raw` is set.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let e = client.events().get("5e9f...", "5f01...", true).await?;
    /// println!("{:?} {:?}", e.event_type_name, e.raw);
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, group_id: &str, event_id: &str, include_raw: bool) -> Result<Event> {
        let req = get_request(group_id, event_id, include_raw)?;
        self.client.send_decoded(req).await
    }

    /// Every event of a project, newest first: `GET /groups/{group_id}/events`.
    pub async fn list(&self, group_id: &str) -> Result<List<Event>> {
        list_all(self.client, list_request(group_id)?).await
    }

    /// The events of a project that `query` keeps, newest first, every page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::api::events::EventsQuery;
    /// let q = EventsQuery::new().event_type("HOST_DOWN").event_type("HOST_RESTARTED");
    /// for e in &client.events().list_with("5e9f...", &q).await? {
    ///     println!("{:?} {:?}", e.created, e.event_type_name);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_with(&self, group_id: &str, query: &EventsQuery) -> Result<List<Event>> {
        list_all(self.client, list_with_request(group_id, query)?).await
    }

    /// The events of a project that a capacity chart marks from `start` to `end` (elections
    /// and failovers, restarts, hosts down, auto-scaling, tier changes and disk resizes),
    /// oldest first, asked in the flavour's own type names: one listing of the project's
    /// (every page), and on Atlas one per cluster of `clusters` for the cluster events, which
    /// name no cluster: each of those is given its cluster's name (`cluster_name`).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
    /// let events = client.events().charted("5e9f...", t("2026-02-16T10:00:00Z"),
    ///     t("2026-03-02T10:00:00Z"), &["orders"]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn charted(
        &self,
        group_id: &str,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        clusters: &[&str],
    ) -> Result<List<Event>> {
        let flavour = self.client.flavour();
        let project = charted_request(flavour, group_id, start, end)?;
        let per_cluster = match flavour {
            Flavour::Atlas => clusters
                .iter()
                .map(|c| Ok((*c, charted_cluster_request(group_id, c, start, end)?)))
                .collect::<Result<Vec<_>>>()?,
            _ => Vec::new(),
        };
        let client = self.client;
        let (listed, of_clusters) = tokio::join!(
            list_all::<Event>(client, project),
            futures_util::future::try_join_all(per_cluster.into_iter().map(
                |(name, req)| async move {
                    let list = list_all::<Event>(client, req).await?;
                    Ok::<_, Error>(list.into_vec().into_iter().map(move |mut e| {
                        e.cluster_name.get_or_insert_with(|| name.to_string());
                        e
                    }))
                }
            ))
        );
        let mut out = listed?.into_vec();
        out.extend(of_clusters?.into_iter().flatten());
        out.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        let n = out.len() as u64;
        Ok(List::new(out, n))
    }
}
