//! What happened to a deployment, in each flavour's own event types: elections and failovers,
//! restarts, hosts going down and coming up, auto-scaling, tier changes and disk resizes,
//! configuration changes, and an alert's acknowledgements. One table ([`EVENT_TYPES`]) says,
//! for each type, what kind of happening it is, what it names (a host, a cluster, the project,
//! an alert) and which flavours document it: an alert's context asks each flavour in its own
//! names (Atlas's specification enumerates the types its `eventType` filter takes, and Ops
//! Manager's documentation lists its alert types), and the capacity report marks the same
//! kinds on its charts.
//!
//! ```
//! use opsapi::api::event_kinds::{kind_of, EventKind};
//! assert_eq!(kind_of("PRIMARY_ELECTED"), Some(EventKind::Election));
//! assert_eq!(kind_of("COMPUTE_AUTO_SCALE_INITIATED_BASE"), Some(EventKind::Scaling));
//! assert_eq!(kind_of("JOINED_GROUP"), None);
//! ```

use crate::flavour::Flavour;
use crate::models::Event;

/// What kind of happening an event type is.
///
/// ```
/// assert_eq!(opsapi::api::event_kinds::EventKind::ClusterChange.as_str(), "cluster_change");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// A primary elected, a host becoming primary or secondary, a test failover, no primary.
    Election,
    /// A host or an instance restarted.
    Restart,
    /// A host went down.
    HostDown,
    /// A host came up.
    HostUp,
    /// Atlas's auto-scaling: compute (reactive or predictive) or disk.
    Scaling,
    /// An Atlas cluster's update: a tier change or a disk resize, made by a person.
    ClusterChange,
    /// A configuration published or changed (the automation configuration, the oplog's size).
    Configuration,
    /// A host's MongoDB upgraded or downgraded.
    Upgrade,
    /// An alert acknowledged or unacknowledged.
    Alert,
}

impl EventKind {
    /// `election`, `restart`, `host_down`, `host_up`, `scaling`, `cluster_change`,
    /// `configuration`, `upgrade` or `alert`: the `kind` column of the frames.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Election => "election",
            Self::Restart => "restart",
            Self::HostDown => "host_down",
            Self::HostUp => "host_up",
            Self::Scaling => "scaling",
            Self::ClusterChange => "cluster_change",
            Self::Configuration => "configuration",
            Self::Upgrade => "upgrade",
            Self::Alert => "alert",
        }
    }

    /// Whether a chart of a resource marks it: what moves a resource's series or its
    /// limit (failovers, restarts, a host down, scaling, tier changes and disk resizes).
    pub fn charted(self) -> bool {
        matches!(
            self,
            Self::Election | Self::Restart | Self::HostDown | Self::Scaling | Self::ClusterChange
        )
    }
}

/// What an event of a type names, which decides whether it is a deployment's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventScope {
    /// A host or a replica set, by `hostId`, `hostname` and `port`, or `replicaSetName`.
    Host,
    /// An Atlas cluster, which the event itself does not name: Atlas's `clusterNames`
    /// filter finds a cluster's.
    Cluster,
    /// The project (its automation configuration).
    Project,
    /// An alert, by `alertId`.
    Alert,
}

/// One event type: its name, kind, scope and the flavours whose documentation has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventType {
    /// `eventTypeName`.
    pub name: &'static str,
    /// What kind of happening it is.
    pub kind: EventKind,
    /// What it names.
    pub scope: EventScope,
    /// Ops Manager and Cloud Manager document it (their alert types).
    pub ops_manager: bool,
    /// Atlas's specification enumerates it (`EventTypeForNdsGroup`).
    pub atlas: bool,
}

const fn t(
    name: &'static str,
    kind: EventKind,
    scope: EventScope,
    ops_manager: bool,
    atlas: bool,
) -> EventType {
    EventType {
        name,
        kind,
        scope,
        ops_manager,
        atlas,
    }
}

use EventKind as K;
use EventScope as S;

/// The event types an alert's context and the capacity report read, and what each is. Ops
/// Manager's from its alert types ("Host has restarted", "Host is now primary", ...), which
/// Cloud Manager shares; Atlas's from its specification's enumeration (its replica-set events
/// name a host by `hostname` and `port`, its cluster audits and auto-scaling name no cluster).
pub const EVENT_TYPES: &[EventType] = &[
    t("PRIMARY_ELECTED", K::Election, S::Host, true, true),
    t("HOST_NOW_PRIMARY", K::Election, S::Host, true, false),
    t("HOST_NOW_SECONDARY", K::Election, S::Host, true, false),
    t("NO_PRIMARY", K::Election, S::Host, true, true),
    t(
        "TEST_FAILOVER_REQUESTED",
        K::Election,
        S::Cluster,
        false,
        true,
    ),
    t("HOST_RESTARTED", K::Restart, S::Host, true, false),
    t(
        "CLUSTER_INSTANCE_RESTARTED",
        K::Restart,
        S::Cluster,
        false,
        true,
    ),
    t(
        "PROCESS_RESTART_REQUESTED",
        K::Restart,
        S::Cluster,
        false,
        true,
    ),
    t("HOST_DOWN", K::HostDown, S::Host, true, true),
    t("HOST_UP", K::HostUp, S::Host, true, true),
    t("HOST_UPGRADED", K::Upgrade, S::Host, true, false),
    t("HOST_DOWNGRADED", K::Upgrade, S::Host, true, false),
    t(
        "COMPUTE_AUTO_SCALE_INITIATED",
        K::Scaling,
        S::Cluster,
        false,
        true,
    ),
    t(
        "COMPUTE_AUTO_SCALE_INITIATED_BASE",
        K::Scaling,
        S::Cluster,
        false,
        true,
    ),
    t(
        "COMPUTE_AUTO_SCALE_INITIATED_ANALYTICS",
        K::Scaling,
        S::Cluster,
        false,
        true,
    ),
    t(
        "PREDICTIVE_COMPUTE_AUTO_SCALE_INITIATED_BASE",
        K::Scaling,
        S::Cluster,
        false,
        true,
    ),
    t(
        "DISK_AUTO_SCALE_INITIATED",
        K::Scaling,
        S::Cluster,
        false,
        true,
    ),
    t(
        "CLUSTER_UPDATE_STARTED",
        K::ClusterChange,
        S::Cluster,
        false,
        true,
    ),
    t(
        "CLUSTER_UPDATE_COMPLETED",
        K::ClusterChange,
        S::Cluster,
        false,
        true,
    ),
    t(
        "CLUSTER_OPLOG_RESIZED",
        K::Configuration,
        S::Cluster,
        false,
        true,
    ),
    t(
        "AUTOMATION_CONFIG_PUBLISHED_AUDIT",
        K::Configuration,
        S::Project,
        true,
        true,
    ),
    t("ALERT_ACKNOWLEDGED_AUDIT", K::Alert, S::Alert, true, true),
    t("ALERT_UNACKNOWLEDGED_AUDIT", K::Alert, S::Alert, true, true),
];

/// The table's row of a type.
pub fn event_type(name: &str) -> Option<&'static EventType> {
    EVENT_TYPES.iter().find(|t| t.name == name)
}

/// The kind of an event type, if the table has it.
pub fn kind_of(name: &str) -> Option<EventKind> {
    event_type(name).map(|t| t.kind)
}

/// The types `flavour` documents whose scope is one of `scopes`, in the table's order.
///
/// ```
/// use opsapi::api::event_kinds::{types_for, EventScope};
/// use opsapi::Flavour;
/// let om = types_for(Flavour::OpsManager, &[EventScope::Host]);
/// assert!(om.contains(&"HOST_RESTARTED") && !om.contains(&"CLUSTER_INSTANCE_RESTARTED"));
/// let atlas = types_for(Flavour::Atlas, &[EventScope::Cluster]);
/// assert!(atlas.contains(&"DISK_AUTO_SCALE_INITIATED") && !atlas.contains(&"PRIMARY_ELECTED"));
/// ```
pub fn types_for(flavour: Flavour, scopes: &[EventScope]) -> Vec<&'static str> {
    let documented = |t: &EventType| match flavour {
        Flavour::Atlas => t.atlas,
        _ => t.ops_manager,
    };
    EVENT_TYPES
        .iter()
        .filter(|t| documented(t) && scopes.contains(&t.scope))
        .map(|t| t.name)
        .collect()
}

/// The types of `scopes` that a capacity chart marks ([`EventKind::charted`]: elections and
/// failovers, restarts, hosts down, auto-scaling, tier changes and disk resizes) and that
/// `flavour` documents, in the table's order: what the report asks each flavour for, in its
/// own names.
///
/// ```
/// use opsapi::api::event_kinds::{charted_types, EventScope};
/// use opsapi::Flavour;
/// let om = charted_types(Flavour::OpsManager, &[EventScope::Host]);
/// assert!(om.contains(&"HOST_RESTARTED") && !om.contains(&"HOST_UP"));
/// let atlas = charted_types(Flavour::Atlas, &[EventScope::Cluster]);
/// assert!(atlas.contains(&"COMPUTE_AUTO_SCALE_INITIATED_BASE"));
/// assert!(!atlas.contains(&"CLUSTER_OPLOG_RESIZED"));
/// ```
pub fn charted_types(flavour: Flavour, scopes: &[EventScope]) -> Vec<&'static str> {
    types_for(flavour, scopes)
        .into_iter()
        .filter(|n| kind_of(n).is_some_and(EventKind::charted))
        .collect()
}

/// The host an event names, as people write it: `hostname:port`, or on Atlas (whose host
/// events name a port alone) `port N of <replica set>`.
pub fn host_named(e: &Event) -> Option<String> {
    match (&e.hostname, e.port, &e.replica_set_name) {
        (Some(h), Some(p), _) => Some(format!("{h}:{p}")),
        (Some(h), None, _) => Some(h.clone()),
        (None, Some(p), Some(rs)) => Some(format!("port {p} of {rs}")),
        _ => None,
    }
}

/// What an event says, in a few words (`rs0 elected rs0-0.example.net:27017 primary`,
/// `Atlas began compute auto-scaling`); its type's name where the table lacks it.
///
/// ```
/// let e: opsapi::Event = opsapi::decode_model(br#"{"eventTypeName":"PRIMARY_ELECTED","hostname":"rs0-0.example.net","port":27017,"replicaSetName":"rs0"}"#).unwrap();
/// assert_eq!(opsapi::api::event_kinds::said(&e), "rs0 elected rs0-0.example.net:27017 primary");
/// ```
pub fn said(e: &Event) -> String {
    let name = e.event_type_name.as_deref().unwrap_or("");
    let host = host_named(e);
    let rs = e.replica_set_name.as_deref();
    let who = |what: &str| match &host {
        Some(h) => format!("{h} {what}"),
        None => format!("a host {what}"),
    };
    let by = e
        .username
        .as_deref()
        .map(|u| format!(" by {u}"))
        .unwrap_or_default();
    match name {
        "PRIMARY_ELECTED" => match (rs, e.hostname.as_deref()) {
            (Some(rs), Some(_)) => format!("{rs} elected {} primary", host.unwrap_or_default()),
            (Some(rs), None) => format!("{rs} elected a primary"),
            _ => "a replica set elected a primary".into(),
        },
        "HOST_NOW_PRIMARY" => who("became primary"),
        "HOST_NOW_SECONDARY" => who("became secondary"),
        "NO_PRIMARY" => format!("{} had no primary", rs.unwrap_or("a replica set")),
        "TEST_FAILOVER_REQUESTED" => format!("a test failover was requested{by}"),
        "HOST_RESTARTED" => who("restarted"),
        "CLUSTER_INSTANCE_RESTARTED" => "an instance of the cluster restarted".into(),
        "PROCESS_RESTART_REQUESTED" => format!("a process restart was requested{by}"),
        "HOST_DOWN" => who("went down"),
        "HOST_UP" => who("came up"),
        "HOST_UPGRADED" => who("was upgraded"),
        "HOST_DOWNGRADED" => who("was downgraded"),
        "COMPUTE_AUTO_SCALE_INITIATED" | "COMPUTE_AUTO_SCALE_INITIATED_BASE" => {
            "Atlas began compute auto-scaling".into()
        }
        "COMPUTE_AUTO_SCALE_INITIATED_ANALYTICS" => {
            "Atlas began compute auto-scaling of the analytics nodes".into()
        }
        "PREDICTIVE_COMPUTE_AUTO_SCALE_INITIATED_BASE" => {
            "Atlas began predictive compute auto-scaling".into()
        }
        "DISK_AUTO_SCALE_INITIATED" => "Atlas began disk auto-scaling".into(),
        "CLUSTER_UPDATE_STARTED" => format!("a cluster update (tier or disk) started{by}"),
        "CLUSTER_UPDATE_COMPLETED" => "a cluster update (tier or disk) completed".into(),
        "CLUSTER_OPLOG_RESIZED" => format!("the oplog was resized{by}"),
        "AUTOMATION_CONFIG_PUBLISHED_AUDIT" => {
            format!("a deployment configuration was published{by}")
        }
        "ALERT_ACKNOWLEDGED_AUDIT" => format!("the alert was acknowledged{by}"),
        "ALERT_UNACKNOWLEDGED_AUDIT" => format!("the alert was unacknowledged{by}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_documented_by_a_flavour_and_named_once() {
        for (i, t) in EVENT_TYPES.iter().enumerate() {
            assert!(t.ops_manager || t.atlas, "{}", t.name);
            assert!(
                !EVENT_TYPES[..i].iter().any(|o| o.name == t.name),
                "{}",
                t.name
            );
            // Atlas names no cluster in its cluster events: only Atlas has the scope.
            assert!(
                t.scope != EventScope::Cluster || !t.ops_manager,
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn an_event_says_what_happened_with_what_it_names() {
        let e = |json: &str| -> Event { crate::decode_model(json.as_bytes()).unwrap() };
        let atlas = e(r#"{"eventTypeName":"HOST_DOWN","port":27017,"replicaSetName":"rs0"}"#);
        assert_eq!(said(&atlas), "port 27017 of rs0 went down");
        let ack = e(r#"{"eventTypeName":"ALERT_ACKNOWLEDGED_AUDIT","username":"a@b.c"}"#);
        assert_eq!(said(&ack), "the alert was acknowledged by a@b.c");
        assert_eq!(
            said(&e(r#"{"eventTypeName":"JOINED_GROUP"}"#)),
            "JOINED_GROUP"
        );
    }
}
