//! What happened around an alert: the events of its deployment in its context's window,
//! asked in the flavour's own event types ([`crate::models::event_kinds`]) with the documented
//! `eventType`, `minDate` and `maxDate` filters, and on Atlas the cluster's own events (its
//! auto-scaling, instance restarts and updates, which name no cluster) with `clusterNames`.
//!
//! A part of the context the server refuses (the key's permission, an endpoint the server
//! lacks) is left out with the reason (`missing::why_missing`); any other failure is an error.

use chrono::{DateTime, Utc};

use super::alert_context::AlertContext;
use super::missing::part;
use crate::api::events::{list_with_request, of_cluster, typed_window, EventsQuery};
use crate::error::Result;
use crate::flavour::Flavour;
use crate::models::event_kinds::{event_type, types_for, EventScope};
use crate::models::Event;
use crate::paging::list_all;
use crate::request::Request;

/// The events of a context's window that can be its deployment's: those naming a host or a
/// replica set, the project's configuration changes and an alert's acknowledgements, in the
/// types `flavour` documents (`eventType`, repeated).
///
/// ```
/// use opsapi::api::alerts::around::deployment_events_request;
/// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
/// let req = deployment_events_request(opsapi::Flavour::OpsManager, "g1",
///     t("2024-06-03T06:00:00Z"), t("2024-06-03T10:00:00Z")).unwrap();
/// assert_eq!((req.path.as_str(), req.operation), ("/groups/g1/events", opsapi::Operation::EventsList));
/// assert!(req.query.contains(&("minDate", "2024-06-03T06:00:00Z".to_string())));
/// assert!(req.query.contains(&("maxDate", "2024-06-03T10:00:00Z".to_string())));
/// assert!(req.query.contains(&("eventType", "HOST_RESTARTED".to_string())));
/// ```
pub fn deployment_events_request(
    flavour: Flavour,
    group_id: &str,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Request> {
    let scopes = [EventScope::Host, EventScope::Project, EventScope::Alert];
    list_with_request(group_id, &window_of(flavour, &scopes, start, end))
}

/// The events of `flavour`'s types of `scopes`, from `start` to `end`.
fn window_of(
    flavour: Flavour,
    scopes: &[EventScope],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> EventsQuery {
    typed_window(types_for(flavour, scopes), start, end)
}

/// Atlas's events of one cluster in a context's window: its auto-scaling, instance restarts,
/// updates and test failovers, which name no cluster and which `clusterNames` finds.
///
/// ```
/// use opsapi::api::alerts::around::cluster_events_request;
/// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
/// let req = cluster_events_request("g1", "orders", t("2024-06-03T06:00:00Z"),
///     t("2024-06-03T10:00:00Z")).unwrap();
/// assert!(req.query.contains(&("eventType", "COMPUTE_AUTO_SCALE_INITIATED_BASE".to_string())));
/// assert_eq!(req.query.last(), Some(&("clusterNames", "orders".to_string())));
/// ```
pub fn cluster_events_request(
    group_id: &str,
    cluster_name: &str,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Request> {
    let q = window_of(Flavour::Atlas, &[EventScope::Cluster], start, end);
    of_cluster(group_id, cluster_name, &q)
}

/// `hostname:port` of a host, as alerts and events name it.
pub(crate) fn host_and_port(h: &crate::models::Host) -> Option<String> {
    Some(format!("{}:{}", h.hostname.as_deref()?, h.port?))
}

/// Whether an event is about the context's deployment: it names one of its hosts (by id, or
/// by `hostname` and `port`) or replica sets, it is an acknowledgement of the alert itself,
/// or it is the project's configuration (the automation configuration is a project's). An
/// event whose type the table lacks counts when it names a host, replica set or the alert.
fn about(e: &Event, ctx: &AlertContext, sets: &[&str]) -> bool {
    let hosts = || {
        e.host_id
            .as_deref()
            .is_some_and(|h| ctx.hosts.iter().any(|x| x.id.as_deref() == Some(h)))
            || (e.hostname.is_some()
                && e.port.is_some()
                && ctx
                    .hosts
                    .iter()
                    .any(|x| x.hostname.as_deref() == e.hostname.as_deref() && x.port == e.port))
            || e.replica_set_name
                .as_deref()
                .is_some_and(|r| sets.contains(&r))
    };
    let alert = || e.alert_id.is_some() && e.alert_id == ctx.alert.id;
    match e
        .event_type_name
        .as_deref()
        .and_then(event_type)
        .map(|t| t.scope)
    {
        Some(EventScope::Project) | Some(EventScope::Cluster) => true,
        Some(EventScope::Alert) => alert(),
        _ => hosts() || alert(),
    }
}

impl super::Alerts<'_> {
    /// The events of the context's deployment in its window, oldest first, or why they are
    /// missing. On Atlas, whose host events name a replica set and a port, a host's events are
    /// those of its replica set; its cluster's own events are asked by the alert's
    /// `clusterName` when it has one.
    pub(crate) async fn deployment_events(
        &self,
        g: &str,
        ctx: &AlertContext,
    ) -> Result<Result<Vec<Event>, String>> {
        let client = self.client;
        let flavour = client.flavour();
        let deployment = deployment_events_request(flavour, g, ctx.start, ctx.end)?;
        let cluster = match (flavour, ctx.alert.cluster_name.as_deref()) {
            (Flavour::Atlas, Some(c)) => Some(cluster_events_request(g, c, ctx.start, ctx.end)?),
            _ => None,
        };
        let (listed, of_cluster) = tokio::join!(list_all::<Event>(client, deployment), async {
            match cluster {
                Some(req) => list_all::<Event>(client, req).await.map(Some),
                None => Ok(None),
            }
        });
        let what = "the project's events";
        let listed = match part(listed, what)? {
            Ok(l) => l,
            Err(why) => return Ok(Err(why)),
        };
        let of_cluster = match part(of_cluster, what)? {
            Ok(l) => l,
            Err(why) => return Ok(Err(why)),
        };
        let mut sets: Vec<&str> = ctx.alert.replica_set_name.as_deref().into_iter().collect();
        sets.extend(
            ctx.hosts
                .iter()
                .filter_map(|h| h.replica_set_name.as_deref()),
        );
        let mut out: Vec<Event> = listed
            .into_vec()
            .into_iter()
            .filter(|e| about(e, ctx, &sets))
            .collect();
        out.extend(of_cluster.map(|l| l.into_vec()).unwrap_or_default());
        out.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        out.dedup_by(|a, b| a.id.is_some() && a.id == b.id);
        Ok(Ok(out))
    }
}
