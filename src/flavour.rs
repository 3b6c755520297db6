//! The servers the client speaks to ("flavours"): Ops Manager, Cloud Manager and Atlas, and
//! the one table of what each operation is on each of them.
//!
//! Ops Manager and Cloud Manager serve the same API (`/api/public/v1.0`, hosts by a hex id);
//! Cloud Manager has no global alerts and no global API access list. Atlas serves its Admin
//! API v2 (`/api/atlas/v2`): hosts are processes, named `hostname:port`
//! (`/groups/{id}/processes/{hostname:port}`), every operation has a versioned media type
//! (`Accept: application/vnd.atlas.2023-01-01+json`), and requests are limited by token
//! buckets per endpoint set and project.
//!
//! Operations are written once: `<op>_request()` builds the Ops Manager form of a request,
//! tagged with its [`Operation`], and [`crate::Request::for_flavour`] (which the client applies
//! to every request it sends) gives the form of another flavour from this table, or
//! [`crate::Error::Unsupported`] before anything is sent.
//!
//! ```
//! use opsapi::{api::hosts, Flavour};
//! let req = hosts::get_request("g1", "db-0.example.net:27017").unwrap();
//! assert_eq!(req.path, "/groups/g1/hosts/db-0.example.net%3A27017");
//! let atlas = req.for_flavour(Flavour::Atlas).unwrap();
//! assert_eq!(atlas.path, "/groups/g1/processes/db-0.example.net%3A27017");
//! assert_eq!(atlas.accept(), "application/vnd.atlas.2023-01-01+json");
//! ```

use std::fmt;
use std::str::FromStr;

pub mod measurements;
pub use measurements::{frame_measurement_name, MeasurementName, ATLAS_MEASUREMENT_NAMES};

/// A server flavour. [`crate::Client::flavour`] tells a client's.
///
/// ```
/// use opsapi::Flavour;
/// let f: Flavour = "atlas".parse().unwrap();
/// assert_eq!((f, f.as_str(), f.api_path()), (Flavour::Atlas, "atlas", "/api/atlas/v2"));
/// assert_eq!(Flavour::CloudManager.to_string(), "Cloud Manager");
/// assert!("om".parse::<Flavour>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Flavour {
    /// Ops Manager on premises: `/api/public/v1.0`, Digest.
    #[default]
    OpsManager,
    /// Cloud Manager (the hosted Ops Manager, `https://cloud.mongodb.com/api/public/v1.0`):
    /// the same API, without global alerts and the global API access list.
    CloudManager,
    /// Atlas Admin API v2 (`/api/atlas/v2`): Digest with an API key, or a service account
    /// (OAuth 2 client credentials).
    Atlas,
}

/// The path of the Ops Manager and Cloud Manager API under the server's address
/// (`opsapi::API_PATH`).
pub const API_PATH: &str = "/api/public/v1.0";

/// The path of the Atlas Admin API v2 under the server's address.
pub const ATLAS_API_PATH: &str = "/api/atlas/v2";

/// The path of the OAuth 2 token endpoint of Atlas service accounts under the server's
/// address.
pub const OAUTH_TOKEN_PATH: &str = "/api/oauth/token";

impl Flavour {
    /// Every flavour.
    pub const ALL: [Flavour; 3] = [Flavour::OpsManager, Flavour::CloudManager, Flavour::Atlas];

    /// `"ops-manager"`, `"cloud-manager"` or `"atlas"` (what Python's `client.flavour` says).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpsManager => "ops-manager",
            Self::CloudManager => "cloud-manager",
            Self::Atlas => "atlas",
        }
    }

    /// The API's path under the server's address.
    pub fn api_path(self) -> &'static str {
        match self {
            Self::OpsManager | Self::CloudManager => API_PATH,
            Self::Atlas => ATLAS_API_PATH,
        }
    }

    /// Whether the flavour has `operation` at all.
    pub fn supports(self, operation: Operation) -> bool {
        let row = operation.row();
        match self {
            Self::OpsManager => true,
            Self::CloudManager => row.cloud_manager,
            Self::Atlas => row.atlas.is_some(),
        }
    }

    /// The versioned media type's version of `operation` (`2023-01-01`): Atlas only.
    ///
    /// ```
    /// use opsapi::{Flavour, Operation};
    /// assert_eq!(Flavour::Atlas.version(Operation::HostsList), Some("2023-01-01"));
    /// assert_eq!(Flavour::OpsManager.version(Operation::HostsList), None);
    /// assert_eq!(Flavour::Atlas.version(Operation::GlobalAlertsList), None);
    /// ```
    pub fn version(self, operation: Operation) -> Option<&'static str> {
        match self {
            Self::Atlas => operation.row().atlas,
            _ => None,
        }
    }

    /// The flavour a base URL names: Atlas under `/api/atlas/v2`, Cloud Manager on
    /// `cloud.mongodb.com` (and its government and test hosts), else Ops Manager.
    ///
    /// ```
    /// use opsapi::Flavour;
    /// assert_eq!(Flavour::from_base_url("https://cloud.mongodb.com"), Flavour::CloudManager);
    /// assert_eq!(Flavour::from_base_url("https://cloud.mongodb.com/api/atlas/v2"), Flavour::Atlas);
    /// assert_eq!(Flavour::from_base_url("https://om.example.com:8443"), Flavour::OpsManager);
    /// ```
    pub fn from_base_url(base_url: &str) -> Flavour {
        let Ok(url) = url::Url::parse(base_url.trim()) else {
            return Self::OpsManager;
        };
        let path = url.path().trim_end_matches('/');
        if path.ends_with(ATLAS_API_PATH) {
            return Self::Atlas;
        }
        match url.host_str() {
            Some(h) if CLOUD_HOSTS.contains(&h.to_ascii_lowercase().as_str()) => Self::CloudManager,
            _ => Self::OpsManager,
        }
    }
}

/// The hosts of Cloud Manager (and Atlas): the public, government and test clouds.
const CLOUD_HOSTS: [&str; 4] = [
    "cloud.mongodb.com",
    "cloud.mongodbgov.com",
    "cloud-qa.mongodb.com",
    "cloud-dev.mongodb.com",
];

impl fmt::Display for Flavour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::OpsManager => "Ops Manager",
            Self::CloudManager => "Cloud Manager",
            Self::Atlas => "Atlas",
        })
    }
}

impl FromStr for Flavour {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.as_str() == s.trim())
            .ok_or_else(|| {
                crate::Error::invalid_argument(
                    "flavour",
                    format!("`{s}` is not one of \"ops-manager\", \"cloud-manager\", \"atlas\""),
                )
            })
    }
}

/// Atlas's rate-limited endpoint sets: each has a token bucket per project (monitoring and
/// logs: 300 requests, refilled at 100 a minute; alerts: 1 200, refilled at 500 a minute;
/// events: 300, refilled at 100 a minute), and [`crate::ClientBuilder::rate_limit_for`] a
/// client-side pace per set.
///
/// ```
/// use opsapi::{EndpointSet, Operation};
/// assert_eq!(Operation::MeasurementsDisk.endpoint_set(), EndpointSet::Monitoring);
/// assert_eq!("alerts".parse::<EndpointSet>().unwrap(), EndpointSet::Alerts);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum EndpointSet {
    /// Processes, their disks and databases, and their measurements ("monitoring and logs").
    Monitoring,
    /// Alerts and alert configurations.
    Alerts,
    /// Events.
    Events,
    /// Everything else (projects, clusters, the access list).
    Other,
}

impl EndpointSet {
    /// Every set.
    pub const ALL: [EndpointSet; 4] = [
        EndpointSet::Monitoring,
        EndpointSet::Alerts,
        EndpointSet::Events,
        EndpointSet::Other,
    ];

    /// `"monitoring"`, `"alerts"`, `"events"` or `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Monitoring => "monitoring",
            Self::Alerts => "alerts",
            Self::Events => "events",
            Self::Other => "other",
        }
    }
}

impl fmt::Display for EndpointSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EndpointSet {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        Self::ALL
            .into_iter()
            .find(|e| e.as_str() == s.trim())
            .ok_or_else(|| {
                crate::Error::invalid_argument(
                    "rate_limit",
                    format!(
                        "`{s}` is not an endpoint set (\"monitoring\", \"alerts\", \"events\", \
                         \"other\")"
                    ),
                )
            })
    }
}

/// One operation of the API, whatever the flavour: what a request is, so that the client can
/// give it its flavour's path and media type ([`crate::Request::for_flavour`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// `GET /admin/accessList`
    AccessListList,
    /// `DELETE /admin/accessList/{id}`
    AccessListDelete,
    /// `GET /globalAlerts`
    GlobalAlertsList,
    /// `GET /globalAlerts/{id}`
    GlobalAlertsGet,
    /// `PATCH /globalAlerts/{id}`
    GlobalAlertsAcknowledge,
    /// `GET /groups/{g}/alerts`
    AlertsList,
    /// `GET /groups/{g}/alerts/{a}`
    AlertsGet,
    /// `PATCH /groups/{g}/alerts/{a}` (acknowledge, un-acknowledge)
    AlertsAcknowledge,
    /// `GET /groups/{g}/alertConfigs`
    AlertConfigsList,
    /// `GET /groups/{g}/alertConfigs/{c}/alerts`
    AlertConfigsOpenAlerts,
    /// `GET /groups`
    GroupsList,
    /// `GET /groups/{g}`
    GroupsGet,
    /// `GET /groups/{g}/hosts` (Atlas: `/processes`)
    HostsList,
    /// `GET /groups/{g}/hosts/{h}`
    HostsGet,
    /// `GET /groups/{g}/hosts/{h}/disks`
    HostsPartitions,
    /// `GET /groups/{g}/hosts/{h}/databases`
    HostsDatabases,
    /// `GET /groups/{g}/hosts/{h}/measurements`
    MeasurementsHost,
    /// `GET /groups/{g}/hosts/{h}/disks/{p}/measurements`
    MeasurementsDisk,
    /// `GET /groups/{g}/hosts/{h}/databases/{d}/measurements`
    MeasurementsDatabase,
    /// `GET /groups/{g}/events`
    EventsList,
    /// `GET /groups/{g}/events/{e}`
    EventsGet,
    /// `GET /groups/{g}/clusters`
    ClustersList,
    /// `GET /groups/{g}/clusters/{c}` (Ops Manager: the cluster's id; Atlas: its name)
    ClustersGet,
}

/// One row of the table: what an operation is called, its Atlas version (`None`: Atlas does
/// not have it), whether Cloud Manager has it, its endpoint set, and whether its path is
/// below a host (`hosts` in Ops Manager, `processes` in Atlas).
struct Row {
    name: &'static str,
    atlas: Option<&'static str>,
    cloud_manager: bool,
    set: EndpointSet,
    below_host: bool,
}

/// The first version of every Atlas Admin API v2 resource.
const V2023: Option<&str> = Some("2023-01-01");
/// Clusters as the specification describes them now: one replication spec per shard, each
/// with its own hardware and auto-scaling (`ClusterDescription20240805`; the older versions
/// are sunset on 2027-07-01).
const V2024_08_05: Option<&str> = Some("2024-08-05");

const fn row(name: &'static str, atlas: Option<&'static str>, set: EndpointSet) -> Row {
    Row {
        name,
        atlas,
        cloud_manager: true,
        set,
        below_host: false,
    }
}

const fn host_row(name: &'static str) -> Row {
    Row {
        below_host: true,
        ..row(name, V2023, EndpointSet::Monitoring)
    }
}

/// Only on Ops Manager: the global resources of its administrators.
const fn global_row(name: &'static str) -> Row {
    Row {
        cloud_manager: false,
        ..row(name, None, EndpointSet::Other)
    }
}

impl Operation {
    /// Every operation.
    pub const ALL: [Operation; 23] = [
        Self::AccessListList,
        Self::AccessListDelete,
        Self::GlobalAlertsList,
        Self::GlobalAlertsGet,
        Self::GlobalAlertsAcknowledge,
        Self::AlertsList,
        Self::AlertsGet,
        Self::AlertsAcknowledge,
        Self::AlertConfigsList,
        Self::AlertConfigsOpenAlerts,
        Self::GroupsList,
        Self::GroupsGet,
        Self::HostsList,
        Self::HostsGet,
        Self::HostsPartitions,
        Self::HostsDatabases,
        Self::MeasurementsHost,
        Self::MeasurementsDisk,
        Self::MeasurementsDatabase,
        Self::EventsList,
        Self::EventsGet,
        Self::ClustersList,
        Self::ClustersGet,
    ];

    fn row(self) -> Row {
        use EndpointSet::*;
        match self {
            Self::AccessListList => global_row("access_list.list"),
            Self::AccessListDelete => global_row("access_list.delete"),
            Self::GlobalAlertsList => global_row("global_alerts.list"),
            Self::GlobalAlertsGet => global_row("global_alerts.get"),
            Self::GlobalAlertsAcknowledge => global_row("global_alerts.acknowledge"),
            Self::AlertsList => row("alerts.list", V2023, Alerts),
            Self::AlertsGet => row("alerts.get", V2023, Alerts),
            // Acknowledging is a newer resource version than reading (the SDK's docs).
            Self::AlertsAcknowledge => row("alerts.acknowledge", Some("2024-05-30"), Alerts),
            Self::AlertConfigsList => row("alert_configs.list", V2023, Alerts),
            Self::AlertConfigsOpenAlerts => row("alert_configs.open_alerts", V2023, Alerts),
            Self::GroupsList => row("groups.list", V2023, Other),
            Self::GroupsGet => row("groups.get", V2023, Other),
            Self::HostsList => host_row("hosts.list"),
            Self::HostsGet => host_row("hosts.get"),
            Self::HostsPartitions => host_row("hosts.partitions"),
            Self::HostsDatabases => host_row("hosts.databases"),
            Self::MeasurementsHost => host_row("measurements.host"),
            Self::MeasurementsDisk => host_row("measurements.disk"),
            Self::MeasurementsDatabase => host_row("measurements.database"),
            Self::EventsList => row("events.list", V2023, Events),
            Self::EventsGet => row("events.get", V2023, Events),
            Self::ClustersList => row("clusters.list", V2024_08_05, Other),
            Self::ClustersGet => row("clusters.get", V2024_08_05, Other),
        }
    }

    /// The operation as Python calls it: `"hosts.list"`, `"global_alerts.acknowledge"`.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Its Atlas endpoint set (the token bucket it draws from).
    pub fn endpoint_set(self) -> EndpointSet {
        self.row().set
    }

    /// Why a flavour lacks it, for [`crate::Error::Unsupported`]'s message.
    pub(crate) fn missing_because(self) -> &'static str {
        match self.row().name.split('.').next() {
            Some("global_alerts") => {
                "it has no global alerts (the alerts of a project are client.alerts)"
            }
            Some("access_list") => "it has no global API access list",
            _ => "it has no such operation",
        }
    }
}

/// The segment below a project that hosts are under on `flavour`.
fn hosts_segment(flavour: Flavour) -> &'static str {
    match flavour {
        Flavour::Atlas => "processes",
        _ => "hosts",
    }
}

/// The path on `to` of `path`, a path of `operation` on `from`: Atlas names the `hosts`
/// segment below a project `processes`. Identifiers are percent-encoded single segments
/// ([`crate::PathBuilder::id`]), so the third segment of a path below a host is always that
/// literal. `None`: the path is the same.
pub(crate) fn path_for(
    from: Flavour,
    to: Flavour,
    operation: Operation,
    path: &str,
) -> Option<String> {
    let (old, new) = (hosts_segment(from), hosts_segment(to));
    if old == new || !operation.row().below_host {
        return None;
    }
    let rest = path.strip_prefix("/groups/")?;
    let (group, rest) = rest.split_once('/')?;
    let rest = rest.strip_prefix(old)?;
    Some(format!("/groups/{group}/{new}{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_below_a_host_change_on_atlas() {
        let p = |op, path: &str| path_for(Flavour::OpsManager, Flavour::Atlas, op, path);
        assert_eq!(
            p(Operation::HostsList, "/groups/g/hosts").as_deref(),
            Some("/groups/g/processes")
        );
        assert_eq!(
            p(
                Operation::MeasurementsDisk,
                "/groups/g/hosts/a%3A1/disks/d/measurements"
            )
            .as_deref(),
            Some("/groups/g/processes/a%3A1/disks/d/measurements")
        );
        assert_eq!(p(Operation::EventsGet, "/groups/g/events/e"), None);
        let om = Flavour::OpsManager;
        assert_eq!(
            path_for(
                om,
                Flavour::CloudManager,
                Operation::HostsList,
                "/groups/g/hosts"
            ),
            None
        );
        assert_eq!(
            path_for(
                Flavour::Atlas,
                om,
                Operation::HostsGet,
                "/groups/g/processes/h"
            )
            .as_deref(),
            Some("/groups/g/hosts/h")
        );
    }

    #[test]
    fn cloud_manager_lacks_only_the_global_operations() {
        for f in Flavour::ALL {
            assert!(f.supports(Operation::HostsGet));
        }
        assert!(!Flavour::CloudManager.supports(Operation::GlobalAlertsList));
        assert!(!Flavour::CloudManager.supports(Operation::AccessListDelete));
        assert!(!Flavour::Atlas.supports(Operation::AccessListList));
        assert!(Flavour::OpsManager.supports(Operation::AccessListList));
    }
}
