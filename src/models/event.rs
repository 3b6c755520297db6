//! Project events.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{alert::CurrentValue, raw_model, Link};

/// One changed parameter of an [`EventDiff`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct EventDiffParam {
    /// `display`: a human label.
    pub display: Option<String>,
    /// `new`: the value after the change.
    pub new: Option<Value>,
    /// `old`: the value before the change.
    pub old: Option<Value>,
    /// `param`: the parameter.
    pub param: Option<String>,
}

/// A change recorded by an event (`diffs[]`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct EventDiff {
    /// `id`
    pub id: Option<String>,
    /// `name`
    pub name: Option<String>,
    /// `params`
    pub params: Option<Vec<EventDiffParam>>,
    /// `privileges`
    pub privileges: Option<Vec<Value>>,
    /// `roles`
    pub roles: Option<Vec<Value>>,
    /// `status` (`MODIFIED`, `NEW`, `REMOVED`, ...).
    pub status: Option<String>,
    /// `type` (`ROLES`, `USERS`, ...).
    #[serde(rename = "type")]
    pub diff_type: Option<String>,
}

/// A project event (`/groups/{g}/events/{e}`).
///
/// ```
/// let e: opsapi::Event = opsapi::decode_model(br#"{"id":"e1","created":"2020-07-13T21:28:37Z","diffs":[{"id":"admin@admin","name":null,"status":"MODIFIED","type":"ROLES"}]}"#).unwrap();
/// assert_eq!(e.diffs.unwrap()[0].diff_type.as_deref(), Some("ROLES"));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Event {
    /// `id`
    pub id: Option<String>,
    /// `groupId`
    pub group_id: Option<String>,
    /// `orgId`
    pub org_id: Option<String>,
    /// `eventTypeName`
    pub event_type_name: Option<String>,
    /// `created`
    #[serde(with = "super::time::opt_datetime")]
    pub created: Option<DateTime<Utc>>,
    /// `hostId`
    pub host_id: Option<String>,
    /// `hostname`
    pub hostname: Option<String>,
    /// `port`
    pub port: Option<i64>,
    /// `replicaSetName`
    pub replica_set_name: Option<String>,
    /// `shardName`
    pub shard_name: Option<String>,
    /// `clusterId`
    pub cluster_id: Option<String>,
    /// `clusterName`
    pub cluster_name: Option<String>,
    /// `alertId`
    pub alert_id: Option<String>,
    /// `alertConfigId`
    pub alert_config_id: Option<String>,
    /// `metricName`
    pub metric_name: Option<String>,
    /// `currentValue`
    pub current_value: Option<CurrentValue>,
    /// `userId`
    pub user_id: Option<String>,
    /// `username`
    pub username: Option<String>,
    /// `publicKey`: the API key that caused the event, if any.
    pub public_key: Option<String>,
    /// `remoteAddress`
    pub remote_address: Option<String>,
    /// `isGlobalAdmin`
    pub is_global_admin: Option<bool>,
    /// `diffs`
    pub diffs: Option<Vec<EventDiff>>,
    /// `raw`: the raw document, with `includeRaw=true`.
    pub raw: Option<Value>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    #[doc(hidden)]
    raw_object: super::RawJson,
}

raw_model!(Event, raw_object, id: id);
