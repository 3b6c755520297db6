//! Alerts: global alerts, project alerts, and alert configurations.
//!
//! Each model's fields are declared once, in its `<model>_fields!` list: the struct here, its
//! Python class and its list frame's columns are made from that list.

use super::{declare_model, declare_part, string_enum};

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

/// The fields of [`CurrentValue`], declared once.
macro_rules! current_value_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// The current value of the metric that triggered an alert.
            #[serde(default, rename_all = "camelCase")]
            CurrentValue {} {
                /// The value.
                number: Option<f64>,
                /// Its units (`RAW`, `BYTES`, `MILLISECONDS`, ...).
                units: Option<String>,
            }
        }
    };
}
pub(crate) use current_value_fields;
current_value_fields!(declare_part);

/// The fields of [`Alert`], declared once. Their order is the order of the list frame's
/// columns.
macro_rules! alert_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// An alert: a global alert (`/globalAlerts`) or a project alert
            /// (`/groups/{g}/alerts`, `/groups/{g}/alertConfigs/{c}/alerts`). Both have the
            /// same fields.
            ///
            /// ```
            /// let alert: opsapi::Alert = opsapi::decode_model(br#"{"id":"a1","status":"OPEN","created":"2014-04-22T15:57:13.562Z","currentValue":{"number":0.0,"units":"RAW"},"brandNew":1}"#).unwrap();
            /// assert_eq!(alert.status, Some(opsapi::AlertStatus::Open));
            /// assert_eq!(alert.current_value.as_ref().unwrap().units.as_deref(), Some("RAW"));
            /// // Fields this library does not know are kept.
            /// assert_eq!(alert.raw()["brandNew"], 1);
            /// # use opsapi::Model;
            /// ```
            Alert { raw: raw, id: id, repr: [id, event_type_name, status, created] } {
                /// `id`
                id: Option<String>,
                /// `groupId`: the project.
                group_id: Option<String>,
                /// `alertConfigId`: the configuration that triggered the alert.
                alert_config_id: Option<String>,
                /// `typeName` (`AGENT`, `BACKUP`, `HOST_METRIC`, ...).
                type_name: Option<String>,
                /// `eventTypeName` (`OUTSIDE_METRIC_THRESHOLD`, ...).
                event_type_name: Option<String>,
                /// `status`
                status: Option<$crate::models::AlertStatus>,
                /// `created`
                #[serde(with = "crate::models::time::opt_datetime")]
                created: Option<chrono::DateTime<chrono::Utc>>,
                /// `updated`
                #[serde(with = "crate::models::time::opt_datetime")]
                updated: Option<chrono::DateTime<chrono::Utc>>,
                /// `resolved`: when a closed alert was resolved.
                #[serde(with = "crate::models::time::opt_datetime")]
                resolved: Option<chrono::DateTime<chrono::Utc>>,
                /// `lastNotified`
                #[serde(with = "crate::models::time::opt_datetime")]
                last_notified: Option<chrono::DateTime<chrono::Utc>>,
                /// `acknowledgedUntil`: the alert is acknowledged until this time.
                #[serde(with = "crate::models::time::opt_datetime")]
                acknowledged_until: Option<chrono::DateTime<chrono::Utc>>,
                /// `acknowledgementComment`
                acknowledgement_comment: Option<String>,
                /// `acknowledgingUsername`
                acknowledging_username: Option<String>,
                /// `metricName` (`ASSERT_REGULAR`, ...).
                metric_name: Option<String>,
                /// `currentValue`: the metric value at the last check.
                current_value: Option<$crate::models::CurrentValue>,
                /// `hostId`
                host_id: Option<String>,
                /// `hostnameAndPort`
                hostname_and_port: Option<String>,
                /// `replicaSetName`
                replica_set_name: Option<String>,
                /// `clusterId`
                cluster_id: Option<String>,
                /// `clusterName`
                cluster_name: Option<String>,
                /// `sourceTypeName` (`REPLICA_SET`, `SHARDED_CLUSTER`, ...).
                source_type_name: Option<String>,
                /// `tags`
                tags: Option<Vec<String>>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use alert_fields;
alert_fields!(declare_model);

/// A global alert: the same fields as [`Alert`].
pub type GlobalAlert = Alert;

/// The fields of [`AlertConfig`], declared once.
macro_rules! alert_config_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// An alert configuration of a project (`/groups/{g}/alertConfigs`).
            AlertConfig { raw: raw, id: id, repr: [id, event_type_name, enabled] } {
                /// `id`
                id: Option<String>,
                /// `groupId`
                group_id: Option<String>,
                /// `eventTypeName`
                event_type_name: Option<String>,
                /// `typeName`
                type_name: Option<String>,
                /// `enabled`
                enabled: Option<bool>,
                /// `created`
                #[serde(with = "crate::models::time::opt_datetime")]
                created: Option<chrono::DateTime<chrono::Utc>>,
                /// `updated`
                #[serde(with = "crate::models::time::opt_datetime")]
                updated: Option<chrono::DateTime<chrono::Utc>>,
                /// `matchers`: as sent.
                matchers: Option<Vec<serde_json::Value>>,
                /// `metricThreshold`: as sent.
                metric_threshold: Option<serde_json::Value>,
                /// `notifications`: as sent.
                notifications: Option<Vec<serde_json::Value>>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use alert_config_fields;
alert_config_fields!(declare_model);
