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
mod operations;
pub use measurements::{frame_measurement_name, MeasurementName, ATLAS_MEASUREMENT_NAMES};
pub(crate) use operations::{path_for, segments, Segment};
pub use operations::{Answer, AtlasVersion, Operation, Row, Scope};

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
        operation.row().on(self)
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
            Self::Atlas => operation.row().atlas_versions.first().map(|v| v.date),
            Self::OpsManager | Self::CloudManager => None,
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
/// events: 300, refilled at 100 a minute; Performance Advisor: 1 200, refilled at 500 a
/// minute), and [`crate::ClientBuilder::rate_limit_for`] a
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
    /// The Performance Advisor of processes and clusters.
    PerformanceAdvisor,
    /// Everything else (projects, clusters, the access list).
    Other,
}

impl EndpointSet {
    /// Every set.
    pub const ALL: [EndpointSet; 5] = [
        EndpointSet::Monitoring,
        EndpointSet::Alerts,
        EndpointSet::Events,
        EndpointSet::PerformanceAdvisor,
        EndpointSet::Other,
    ];

    /// `"monitoring"`, `"alerts"`, `"events"`, `"performance_advisor"` or `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Monitoring => "monitoring",
            Self::Alerts => "alerts",
            Self::Events => "events",
            Self::PerformanceAdvisor => "performance_advisor",
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
                         \"performance_advisor\", \"other\")"
                    ),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
