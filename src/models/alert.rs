//! Alerts: global alerts, project alerts, and alert configurations.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{raw_model, string_enum, Link};

string_enum! {
    /// The status of an alert.
    AlertStatus {
        /// The condition exists but has not persisted long enough to open an alert.
        Tracking => "TRACKING",
        /// Open: the condition persists.
        Open => "OPEN",
        /// Closed: the condition was resolved.
        Closed => "CLOSED",
        /// Cancelled: the configuration was deleted or changed.
        Cancelled => "CANCELLED",
    }
}

/// The current value of the metric that triggered an alert.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct CurrentValue {
    /// The value.
    pub number: Option<f64>,
    /// Its units (`RAW`, `BYTES`, `MILLISECONDS`, ...).
    pub units: Option<String>,
}

/// An alert: a global alert (`/globalAlerts`) or a project alert (`/groups/{g}/alerts`,
/// `/groups/{g}/alertConfigs/{c}/alerts`). Both have the same fields.
///
/// ```
/// let alert: opsapi::Alert = opsapi::decode_model(br#"{"id":"a1","status":"OPEN","created":"2014-04-22T15:57:13.562Z","currentValue":{"number":0.0,"units":"RAW"},"brandNew":1}"#).unwrap();
/// assert_eq!(alert.status, Some(opsapi::AlertStatus::Open));
/// assert_eq!(alert.current_value.as_ref().unwrap().units.as_deref(), Some("RAW"));
/// // Fields this library does not know are kept.
/// assert_eq!(alert.raw()["brandNew"], 1);
/// # use opsapi::Model;
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Alert {
    /// `id`
    pub id: Option<String>,
    /// `groupId`: the project.
    pub group_id: Option<String>,
    /// `alertConfigId`: the configuration that triggered the alert.
    pub alert_config_id: Option<String>,
    /// `typeName` (`AGENT`, `BACKUP`, `HOST_METRIC`, ...).
    pub type_name: Option<String>,
    /// `eventTypeName` (`OUTSIDE_METRIC_THRESHOLD`, ...).
    pub event_type_name: Option<String>,
    /// `status`
    pub status: Option<AlertStatus>,
    /// `acknowledgedUntil`: the alert is acknowledged until this time.
    #[serde(with = "super::time::opt_datetime")]
    pub acknowledged_until: Option<DateTime<Utc>>,
    /// `acknowledgementComment`
    pub acknowledgement_comment: Option<String>,
    /// `acknowledgingUsername`
    pub acknowledging_username: Option<String>,
    /// `created`
    #[serde(with = "super::time::opt_datetime")]
    pub created: Option<DateTime<Utc>>,
    /// `updated`
    #[serde(with = "super::time::opt_datetime")]
    pub updated: Option<DateTime<Utc>>,
    /// `resolved`: when a closed alert was resolved.
    #[serde(with = "super::time::opt_datetime")]
    pub resolved: Option<DateTime<Utc>>,
    /// `lastNotified`
    #[serde(with = "super::time::opt_datetime")]
    pub last_notified: Option<DateTime<Utc>>,
    /// `currentValue`: the metric value at the last check.
    pub current_value: Option<CurrentValue>,
    /// `metricName` (`ASSERT_REGULAR`, ...).
    pub metric_name: Option<String>,
    /// `hostId`
    pub host_id: Option<String>,
    /// `hostnameAndPort`
    pub hostname_and_port: Option<String>,
    /// `replicaSetName`
    pub replica_set_name: Option<String>,
    /// `clusterId`
    pub cluster_id: Option<String>,
    /// `clusterName`
    pub cluster_name: Option<String>,
    /// `sourceTypeName` (`REPLICA_SET`, `SHARDED_CLUSTER`, ...).
    pub source_type_name: Option<String>,
    /// `tags`
    pub tags: Option<Vec<String>>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    raw: super::RawJson,
}
raw_model!(Alert, raw, id: id);

/// A global alert: the same fields as [`Alert`].
pub type GlobalAlert = Alert;

/// An alert configuration of a project (`/groups/{g}/alertConfigs`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct AlertConfig {
    /// `id`
    pub id: Option<String>,
    /// `groupId`
    pub group_id: Option<String>,
    /// `eventTypeName`
    pub event_type_name: Option<String>,
    /// `typeName`
    pub type_name: Option<String>,
    /// `enabled`
    pub enabled: Option<bool>,
    /// `created`
    #[serde(with = "super::time::opt_datetime")]
    pub created: Option<DateTime<Utc>>,
    /// `updated`
    #[serde(with = "super::time::opt_datetime")]
    pub updated: Option<DateTime<Utc>>,
    /// `matchers`: as sent.
    pub matchers: Option<Vec<Value>>,
    /// `metricThreshold`: as sent.
    pub metric_threshold: Option<Value>,
    /// `notifications`: as sent.
    pub notifications: Option<Vec<Value>>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    raw: super::RawJson,
}
raw_model!(AlertConfig, raw, id: id);
