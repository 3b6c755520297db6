//! The causes seeded into the world (issue 40): what an alert's context and the capacity
//! report must name as the why beside the what, each a truth ([`Causes`],
//! `Simulator::cause_truth`).
//!
//! - An election before every replication-lag alert: `PRIMARY_ELECTED` on the alert's replica
//!   set, 3 to 20 minutes before the alert was raised (a secondary that falls behind after a
//!   new primary takes over), naming the set's primary; and the election that ended every
//!   replica set's spell without a primary (`NO_PRIMARY`), at the alert's resolution. Ops
//!   Manager, Cloud Manager and Atlas all document the type; Atlas's replica-set event names
//!   its host by `hostname` and `port`.
//! - Every host's last restart, at its `lastRestart`, in each flavour's own words: Ops
//!   Manager's and Cloud Manager's `HOST_RESTARTED` (their alert types' "Host has restarted")
//!   naming the host; Atlas's `CLUSTER_INSTANCE_RESTARTED` (its specification's audit of a
//!   cluster's instance), which names no host: its `clusterNames` filter finds it by the
//!   cluster. A standalone has no Atlas counterpart.
//! - Atlas's compute auto-scaling of the cluster that has it on
//!   (`COMPUTE_AUTO_SCALE_INITIATED_BASE`, its specification's audit, which names no cluster
//!   either): 10 to 30 minutes into the newest connections alert on one of its members (Atlas
//!   reacting to the load that raised it), or at a drawn day of the last two weeks where none
//!   is; and its disk resized by disk auto-scaling (`DISK_AUTO_SCALE_INITIATED`) in the same
//!   way into the newest disk-space alert of a cluster that has disk auto-scaling on. Ops
//!   Manager and Cloud Manager have no auto-scaling and serve no such event.
//! - The slow queries behind every CPU or connections finding ([`DriverCause`]): its host's
//!   heaviest collection scan (else its heaviest pattern) runs slowly in proportion to the
//!   finding's own series, over the whole history.
//! - The slow queries behind every CPU or connections alert on a host with a workload
//!   ([`SlowCause`]): its heaviest collection scan (else its heaviest pattern) runs hot from
//!   an hour before the alert to its end, which the Performance Advisor's slow query logs and
//!   suggested indexes then show.
//!
//! Drawn from a random stream of their own after the rest of the world is placed (the alerts
//! where their breaches settled, the clusters named): they add events and change nothing else
//! (each alert about a host of a cluster is given that cluster's name first, which Atlas's
//! alerts carry as `clusterName`).

use chrono::Duration as CDuration;
use serde_json::{json, Map, Value};

use super::activity::{add_events, add_host};
use super::*;

/// The election seeded before a replication-lag alert, or at the end of a replica set's
/// spell without a primary.
#[derive(Debug, Clone, PartialEq)]
pub struct ElectionCause {
    /// Project.
    pub group_id: String,
    /// The replication-lag alert it comes before, or the no-primary alert it ends.
    pub alert_id: String,
    /// Whether it ends the alert (a no-primary alert resolved by it), else it comes before.
    pub ends: bool,
    /// The replica set that elected a primary.
    pub replica_set_name: String,
    /// `hostname:port` of the primary it elected.
    pub primary: String,
    /// The `PRIMARY_ELECTED` event.
    pub event_id: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A host's last restart, as events.
#[derive(Debug, Clone, PartialEq)]
pub struct RestartCause {
    /// Project.
    pub group_id: String,
    /// The host.
    pub host_id: String,
    /// Its `hostname:port`.
    pub process_id: String,
    /// Its cluster, if any.
    pub cluster_id: Option<String>,
    /// When (its `lastRestart`).
    pub at: DateTime<Utc>,
    /// Ops Manager's and Cloud Manager's `HOST_RESTARTED`.
    pub event_id: String,
    /// Atlas's `CLUSTER_INSTANCE_RESTARTED`, for a host of a cluster.
    pub atlas_event_id: Option<String>,
}

/// Atlas's seeded auto-scaling of a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingCause {
    /// Project.
    pub group_id: String,
    /// The cluster.
    pub cluster_id: String,
    /// Its name (what `clusterNames` filters by).
    pub cluster_name: String,
    /// `COMPUTE_AUTO_SCALE_INITIATED_BASE` or `DISK_AUTO_SCALE_INITIATED`.
    pub event_type_name: &'static str,
    /// The event.
    pub event_id: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The connections alert in whose window it falls, if one was there to react to.
    pub alert_id: Option<String>,
}

/// The slow queries behind a CPU or connections alert: one pattern of its host's workload
/// that runs 10 times as often and 3 times as slowly (the workload's `HOT_RATE` and
/// `HOT_DURATION`) from an hour before the alert to its end (at least an hour after it began).
#[derive(Debug, Clone, PartialEq)]
pub struct SlowCause {
    /// Project.
    pub group_id: String,
    /// The alert.
    pub alert_id: String,
    /// Its host.
    pub host_id: String,
    /// The namespace of the hot pattern (`<database>.<collection>`).
    pub namespace: String,
    /// The index the Performance Advisor suggests for it (`{status: 1, createdAt: 1}`), when
    /// no index serves it.
    pub index: Option<String>,
    /// The hot span.
    pub from: DateTime<Utc>,
    /// Its end.
    pub to: DateTime<Utc>,
}

/// The namespace whose slow queries drive a CPU or connections finding (`headroom_truth`):
/// the heaviest collection scan of the finding's host (else its heaviest pattern), which runs
/// slowly in proportion to the finding's series hour by hour (its climb and its daily cycle)
/// over the whole history: 80 % of the host's slow-query time when the series is at its level
/// (the workload's `DRIVE_SHARE` and `drive_rate`), most of it in any recent window.
#[derive(Debug, Clone, PartialEq)]
pub struct DriverCause {
    /// Project.
    pub group_id: String,
    /// The finding's host.
    pub host_id: String,
    /// The finding's resource (`cpu`, `connections`).
    pub resource: &'static str,
    /// `<database>.<collection>`.
    pub namespace: String,
    /// The fields its filter names, in order.
    pub fields: Vec<&'static str>,
}

/// What the world seeded as causes (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Causes {
    /// The namespace behind each CPU or connections finding.
    pub drivers: Vec<DriverCause>,
    /// The slow queries behind each CPU or connections alert on a host with a workload.
    pub slow: Vec<SlowCause>,
    /// One election before each replication-lag alert, in the alerts' order (global first).
    pub elections: Vec<ElectionCause>,
    /// Every host's last restart, in host order.
    pub restarts: Vec<RestartCause>,
    /// Atlas's auto-scaling events (compute, then disk).
    pub scaling: Vec<ScalingCause>,
}

/// Seeds the causes into `world` (see the module's documentation).
pub(super) fn seed(world: &mut World, seed: u64) {
    name_clusters(world);
    let mut r = SplitMix64::new(super::super::rng::hash(&[seed, 0x6361_7573_6573]));
    let mut causes = Causes::default();
    let mut events = Vec::new();
    elections(world, &mut r, &mut causes, &mut events);
    restarts(world, &mut r, &mut causes, &mut events);
    scaling(world, &mut r, &mut causes, &mut events);
    slow(world, seed, &mut causes);
    drivers(world, seed, &mut causes);
    world.causes = causes;
    add_events(world, events);
}

/// Each alert about a host of a cluster names the cluster (Atlas's `clusterName`), now that
/// the alerts have settled on their hosts and the clusters have names.
fn name_clusters(world: &mut World) {
    let names: std::collections::HashMap<&str, &str> = world
        .hosts
        .iter()
        .filter_map(|h| {
            let c = h.cluster_id.as_deref()?;
            let name = world.clusters.iter().find(|x| x.id == c)?.name.as_str();
            Some((h.id.as_str(), name))
        })
        .collect();
    for a in world
        .alerts
        .iter_mut()
        .chain(world.alert_history.iter_mut())
    {
        let of = a.host_id.as_deref().and_then(|h| names.get(h));
        a.cluster_name = of.map(|n| n.to_string());
    }
}

/// Whether an alert's metric is the load slow queries raise: connections or a CPU's.
fn load_metric(metric: &str) -> bool {
    metric == "CONNECTIONS" || metric.contains("CPU")
}

/// The slow queries behind each CPU or connections alert on a host whose workload has a
/// pattern: its heaviest scan (the most milliseconds an hour), else its heaviest pattern,
/// runs hot around the alert.
fn slow(world: &mut World, seed: u64, causes: &mut Causes) {
    let anchor = world.anchor;
    // Each alert's cause, its namespace and index to be found; `from`..`to`: the alert.
    let alerts: Vec<SlowCause> = world
        .alerts
        .iter()
        .chain(&world.alert_history)
        .filter(|a| a.metric_name.as_deref().is_some_and(load_metric))
        .filter_map(|a| {
            Some(SlowCause {
                group_id: a.group_id.clone(),
                alert_id: a.id.clone(),
                host_id: a.host_id.clone()?,
                namespace: String::new(),
                index: None,
                from: a.created,
                to: a
                    .resolved
                    .unwrap_or(anchor)
                    .max(a.created + CDuration::hours(1)),
            })
        })
        .collect();
    for mut cause in alerts {
        let Some(host) = world.hosts.iter_mut().find(|h| h.id == cause.host_id) else {
            continue;
        };
        let patterns = workload::patterns(seed, host);
        let Some(pattern) = workload::heaviest(&patterns) else {
            continue;
        };
        let p = &patterns[pattern];
        cause.from -= CDuration::hours(1);
        host.hot.push(workload::Hot {
            pattern,
            from: cause.from,
            to: cause.to,
            follows: None,
        });
        cause.index = (!p.indexed).then(|| {
            let keys: Vec<String> = workload::index_keys(p)
                .into_iter()
                .map(|(f, o)| format!("{f}: {o}"))
                .collect();
            format!("{{{}}}", keys.join(", "))
        });
        cause.namespace = p.namespace.clone();
        causes.slow.push(cause);
    }
}

/// The slow queries behind each CPU or connections finding: its host's heaviest pattern
/// follows the finding's series (see [`DriverCause`]). After the alerts' causes: an alert's
/// hot span stays the busiest hours of its pattern.
fn drivers(world: &mut World, seed: u64, causes: &mut Causes) {
    let anchor = world.anchor;
    for host in world.hosts.iter_mut() {
        let found = host
            .seeded
            .iter()
            .find(|s| matches!(s.finding, super::Finding::Cpu | super::Finding::Connections));
        let Some(series) = found.cloned() else {
            continue;
        };
        let patterns = workload::patterns(seed, host);
        let Some(pattern) = workload::heaviest(&patterns) else {
            continue;
        };
        host.hot.push(workload::Hot {
            pattern,
            from: anchor - CDuration::days(400),
            to: anchor + CDuration::days(3650),
            follows: Some(workload::Follows {
                series: series.clone(),
                anchor: anchor.timestamp(),
                rate: workload::drive_rate(&patterns, pattern),
            }),
        });
        causes.drivers.push(DriverCause {
            group_id: host.group_id.clone(),
            host_id: host.id.clone(),
            resource: series.finding.resource(),
            namespace: patterns[pattern].namespace.clone(),
            fields: patterns[pattern].filter.clone(),
        });
    }
}

/// An event's common fields.
fn body(r: &mut SplitMix64, group_id: &str, at: DateTime<Utc>, etype: &str) -> Map<String, Value> {
    let mut b = Map::new();
    b.insert("created".into(), json!(iso(&at)));
    b.insert("eventTypeName".into(), json!(etype));
    b.insert("groupId".into(), json!(group_id));
    b.insert("id".into(), json!(r.object_id(at.timestamp())));
    b.insert("isGlobalAdmin".into(), json!(false));
    b
}

fn event(b: Map<String, Value>, cluster_id: Option<String>, on_atlas: Option<bool>) -> Event {
    let text = |k: &str| b.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let (id, group_id, event_type_name) = (text("id"), text("groupId"), text("eventTypeName"));
    let created = b
        .get("created")
        .and_then(|v| v.as_str())
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default();
    Event {
        id,
        group_id,
        created,
        event_type_name,
        body: Value::Object(b),
        cluster_id,
        on_atlas,
    }
}

/// A `PRIMARY_ELECTED` before every replication-lag alert, and at the resolution of every
/// no-primary alert, naming its set's primary.
fn elections(world: &World, r: &mut SplitMix64, causes: &mut Causes, events: &mut Vec<Event>) {
    let alerts = || world.alerts.iter().chain(&world.alert_history);
    let lag = alerts().filter(|a| a.metric_name.as_deref() == Some("OPLOG_REPLICATION_LAG_TIME"));
    let no_primary = alerts().filter(|a| a.event_type_name == "NO_PRIMARY" && a.resolved.is_some());
    for (a, ends) in lag.map(|a| (a, false)).chain(no_primary.map(|a| (a, true))) {
        let host = world
            .hosts
            .iter()
            .find(|h| Some(&h.id) == a.host_id.as_ref());
        let Some(rs) = a
            .replica_set_name
            .clone()
            .or_else(|| host.and_then(|h| h.replica_set_name.clone()))
        else {
            continue;
        };
        let members: Vec<&Host> = world
            .hosts
            .iter()
            .filter(|h| h.group_id == a.group_id && h.replica_set_name.as_ref() == Some(&rs))
            .collect();
        let primary = members
            .iter()
            .find(|h| h.replica_state_name.as_deref() == Some("PRIMARY"))
            .or(members.first());
        let Some(primary) = primary else {
            continue;
        };
        let at = if ends {
            a.resolved.unwrap_or(a.updated)
        } else {
            a.created - CDuration::seconds(r.range(180, 1200) as i64)
        };
        let at = DateTime::<Utc>::from_timestamp(at.timestamp(), 0).unwrap_or(at);
        let mut b = body(r, &a.group_id, at, "PRIMARY_ELECTED");
        add_host(&mut b, primary);
        let e = event(b, primary.cluster_id.clone(), None);
        causes.elections.push(ElectionCause {
            group_id: a.group_id.clone(),
            alert_id: a.id.clone(),
            ends,
            replica_set_name: rs,
            primary: primary.process_id(),
            event_id: e.id.clone(),
            at,
        });
        events.push(e);
    }
}

/// Every host's last restart: Ops Manager's `HOST_RESTARTED`, Atlas's
/// `CLUSTER_INSTANCE_RESTARTED` of its cluster.
fn restarts(world: &World, r: &mut SplitMix64, causes: &mut Causes, events: &mut Vec<Event>) {
    for h in &world.hosts {
        let at = h.last_restart;
        let mut b = body(r, &h.group_id, at, "HOST_RESTARTED");
        add_host(&mut b, h);
        let om = event(b, h.cluster_id.clone(), Some(false));
        let atlas = h.cluster_id.as_ref().map(|c| {
            let b = body(r, &h.group_id, at, "CLUSTER_INSTANCE_RESTARTED");
            event(b, Some(c.clone()), Some(true))
        });
        causes.restarts.push(RestartCause {
            group_id: h.group_id.clone(),
            host_id: h.id.clone(),
            process_id: h.process_id(),
            cluster_id: h.cluster_id.clone(),
            at,
            event_id: om.id.clone(),
            atlas_event_id: atlas.as_ref().map(|e| e.id.clone()),
        });
        events.push(om);
        events.extend(atlas);
    }
}

/// Atlas's auto-scaling of each cluster that has it on: compute (`COMPUTE_AUTO_SCALE_INITIATED_BASE`)
/// in the window of the newest connections alert on one of its members, disk
/// (`DISK_AUTO_SCALE_INITIATED`, its disk resized) in that of the newest disk-space alert.
fn scaling(world: &World, r: &mut SplitMix64, causes: &mut Causes, events: &mut Vec<Event>) {
    type Has = fn(&Cluster) -> bool;
    let compute: Has = |c| c.compute_auto_scaling.is_some();
    let disk: Has = |c| c.disk_auto_scaling;
    let kinds = [
        (compute, "CONNECTIONS", "COMPUTE_AUTO_SCALE_INITIATED_BASE"),
        (
            disk,
            "DISK_PARTITION_SPACE_USED_DATA",
            "DISK_AUTO_SCALE_INITIATED",
        ),
    ];
    for (has, metric, etype) in kinds {
        for c in world.clusters.iter().filter(|c| has(c)) {
            let (at, alert_id) = scaled_at(world, r, c, metric);
            let e = event(
                body(r, &c.group_id, at, etype),
                Some(c.id.clone()),
                Some(true),
            );
            causes.scaling.push(ScalingCause {
                group_id: c.group_id.clone(),
                cluster_id: c.id.clone(),
                cluster_name: c.name.clone(),
                event_type_name: etype,
                event_id: e.id.clone(),
                at,
                alert_id,
            });
            events.push(e);
        }
    }
}

/// When Atlas scaled `c`: 10 to 30 minutes into the newest `metric` alert on one of its
/// members (half-way through one that lasted less), or at a drawn day of the last two weeks
/// where none is.
fn scaled_at(
    world: &World,
    r: &mut SplitMix64,
    c: &Cluster,
    metric: &str,
) -> (DateTime<Utc>, Option<String>) {
    let members: Vec<&str> = world
        .hosts
        .iter()
        .filter(|h| h.cluster_id.as_deref() == Some(c.id.as_str()))
        .map(|h| h.id.as_str())
        .collect();
    let newest = world
        .alerts
        .iter()
        .chain(&world.alert_history)
        .filter(|a| a.metric_name.as_deref() == Some(metric))
        .filter(|a| a.host_id.as_deref().is_some_and(|h| members.contains(&h)))
        .max_by_key(|a| (a.created, a.id.clone()));
    let drawn = r.range(600, 1800) as i64;
    let (at, alert_id) = match newest {
        Some(a) => {
            let open = a.resolved.map(|e| (e - a.created).num_seconds());
            let into = open.map_or(drawn, |s| drawn.min(s / 2).max(60));
            (a.created + CDuration::seconds(into), Some(a.id.clone()))
        }
        None => {
            let back = r.range(86_400, 13 * 86_400) as i64;
            (world.anchor - CDuration::seconds(back), None)
        }
    };
    let at = DateTime::<Utc>::from_timestamp(at.timestamp(), 0).unwrap_or(at);
    (at, alert_id)
}
