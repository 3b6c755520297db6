//! One module per resource family. Each exposes a handle borrowed from the [`Client`]
//! (`client.hosts().get(..)`).
//!
//! [`Client`]: crate::Client

pub mod access_list;
pub mod acknowledgement;
pub mod alert_configs;
pub mod alerts;
pub mod clusters;
pub use crate::models::event_kinds;
pub mod events;
pub mod global_alerts;
pub mod groups;
pub mod hosts;
pub mod measurements;
pub mod performance_advisor;

use crate::client::Client;

impl Client {
    /// The global API access list (`/admin/accessList`).
    pub fn access_list(&self) -> access_list::AccessList<'_> {
        access_list::AccessList { client: self }
    }
    /// Global alerts (`/globalAlerts`).
    pub fn global_alerts(&self) -> global_alerts::GlobalAlerts<'_> {
        global_alerts::GlobalAlerts { client: self }
    }
    /// Project alerts (`/groups/{g}/alerts`): list, acknowledge, every project at once, an
    /// alert in its context.
    pub fn alerts(&self) -> alerts::Alerts<'_> {
        alerts::Alerts { client: self }
    }
    /// Alert configurations of projects and their open alerts.
    pub fn alert_configs(&self) -> alert_configs::AlertConfigs<'_> {
        alert_configs::AlertConfigs { client: self }
    }
    /// Hosts of projects and their disk partitions.
    pub fn hosts(&self) -> hosts::Hosts<'_> {
        hosts::Hosts { client: self }
    }
    /// Host and disk-partition measurements.
    pub fn measurements(&self) -> measurements::MeasurementsApi<'_> {
        measurements::MeasurementsApi { client: self }
    }
    /// Project events.
    pub fn events(&self) -> events::Events<'_> {
        events::Events { client: self }
    }
    /// Projects (`/groups`).
    pub fn groups(&self) -> groups::Groups<'_> {
        groups::Groups { client: self }
    }
    /// Clusters of projects (`/groups/{g}/clusters`): replica sets and sharded clusters.
    pub fn clusters(&self) -> clusters::Clusters<'_> {
        clusters::Clusters { client: self }
    }
    /// The Performance Advisor of hosts: their slow queries and the indexes that would serve
    /// them.
    pub fn performance_advisor(&self) -> performance_advisor::PerformanceAdvisor<'_> {
        performance_advisor::PerformanceAdvisor { client: self }
    }
}
