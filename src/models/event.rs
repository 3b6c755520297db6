//! Project events. Each model's fields are declared once, in its `<model>_fields!` list.

use super::{declare_model, declare_part};

/// The fields of [`EventDiffParam`], declared once.
macro_rules! event_diff_param_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// One changed parameter of an [`EventDiff`](crate::EventDiff).
            #[serde(default)]
            EventDiffParam {} {
                /// `display`: a human label.
                display: Option<String>,
                /// `new`: the value after the change.
                new: Option<serde_json::Value>,
                /// `old`: the value before the change.
                old: Option<serde_json::Value>,
                /// `param`: the parameter.
                param: Option<String>,
            }
        }
    };
}
pub(crate) use event_diff_param_fields;
event_diff_param_fields!(declare_part);

/// The fields of [`EventDiff`], declared once.
macro_rules! event_diff_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A change recorded by an event (`diffs[]`).
            #[serde(default)]
            EventDiff {} {
                /// `id`
                id: Option<String>,
                /// `name`
                name: Option<String>,
                /// `params`
                params: Option<Vec<$crate::models::EventDiffParam>>,
                /// `privileges`
                privileges: Option<Vec<serde_json::Value>>,
                /// `roles`
                roles: Option<Vec<serde_json::Value>>,
                /// `status` (`MODIFIED`, `NEW`, `REMOVED`, ...).
                status: Option<String>,
                /// `type` (`ROLES`, `USERS`, ...).
                #[serde(rename = "type")]
                diff_type: Option<String>,
            }
        }
    };
}
pub(crate) use event_diff_fields;
event_diff_fields!(declare_part);

/// The fields of [`Event`], declared once. Their order is the order of the list frame's
/// columns.
macro_rules! event_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A project event (`/groups/{g}/events/{e}`).
            ///
            /// ```
            /// let e: opsapi::Event = opsapi::decode_model(br#"{"id":"e1","created":"2020-07-13T21:28:37Z","diffs":[{"id":"admin@admin","name":null,"status":"MODIFIED","type":"ROLES"}]}"#).unwrap();
            /// assert_eq!(e.diffs.unwrap()[0].diff_type.as_deref(), Some("ROLES"));
            /// ```
            Event { raw: raw_object, id: id, repr: [id, event_type_name, created] } {
                /// `id`
                id: Option<String>,
                /// `groupId`
                group_id: Option<String>,
                /// `eventTypeName`
                event_type_name: Option<String>,
                /// `created`
                #[serde(with = "crate::models::time::opt_datetime")]
                created: Option<chrono::DateTime<chrono::Utc>>,
                /// `hostId`
                host_id: Option<String>,
                /// `hostname`
                hostname: Option<String>,
                /// `port`
                port: Option<i64>,
                /// `replicaSetName`
                replica_set_name: Option<String>,
                /// `clusterName`
                cluster_name: Option<String>,
                /// `alertId`
                alert_id: Option<String>,
                /// `alertConfigId`
                alert_config_id: Option<String>,
                /// `metricName`
                metric_name: Option<String>,
                /// `currentValue`
                current_value: Option<$crate::models::CurrentValue>,
                /// `username`
                username: Option<String>,
                /// `publicKey`: the API key that caused the event, if any.
                public_key: Option<String>,
                /// `remoteAddress`
                remote_address: Option<String>,
                /// `orgId`
                org_id: Option<String>,
                /// `shardName`
                shard_name: Option<String>,
                /// `clusterId`
                cluster_id: Option<String>,
                /// `userId`
                user_id: Option<String>,
                /// `isGlobalAdmin`
                is_global_admin: Option<bool>,
                /// `diffs`
                diffs: Option<Vec<$crate::models::EventDiff>>,
                /// `raw`: the raw document, with `includeRaw=true`.
                raw: Option<serde_json::Value>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use event_fields;
event_fields!(declare_model);
