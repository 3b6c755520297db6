//! Hosts (monitored MongoDB processes).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{raw_model, string_enum, Link};

string_enum! {
    /// `typeName` of a host.
    HostType {
        /// A standalone process.
        Standalone => "STANDALONE",
        /// The primary of a replica set.
        ReplicaPrimary => "REPLICA_PRIMARY",
        /// A secondary of a replica set.
        ReplicaSecondary => "REPLICA_SECONDARY",
        /// An arbiter.
        ReplicaArbiter => "REPLICA_ARBITER",
        /// A member in recovery.
        Recovering => "RECOVERING",
        /// A mongos router.
        ShardMongos => "SHARD_MONGOS",
        /// A config server.
        ShardConfig => "SHARD_CONFIG",
        /// A standalone shard.
        ShardStandalone => "SHARD_STANDALONE",
        /// The primary of a shard.
        ShardPrimary => "SHARD_PRIMARY",
        /// A secondary of a shard.
        ShardSecondary => "SHARD_SECONDARY",
        /// No data yet (before the first ping).
        NoData => "NO_DATA",
    }
}

string_enum! {
    /// `replicaStateName` of a host: the member state of the replica set.
    ReplicaState {
        /// STARTUP
        Startup => "STARTUP",
        /// PRIMARY
        Primary => "PRIMARY",
        /// SECONDARY
        Secondary => "SECONDARY",
        /// RECOVERING
        Recovering => "RECOVERING",
        /// STARTUP2
        Startup2 => "STARTUP2",
        /// UNKNOWN
        Unknown => "UNKNOWN",
        /// ARBITER
        Arbiter => "ARBITER",
        /// DOWN
        Down => "DOWN",
        /// ROLLBACK
        Rollback => "ROLLBACK",
        /// REMOVED
        Removed => "REMOVED",
        /// NO_DATA (not a member state; Ops Manager's own).
        NoData => "NO_DATA",
    }
}

/// `systemInfo` of a host.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SystemInfo {
    /// `memSizeMB`: physical memory in MiB.
    #[serde(rename = "memSizeMB")]
    pub mem_size_mb: Option<i64>,
    /// `numCores`
    #[serde(rename = "numCores")]
    pub num_cores: Option<i64>,
}

/// A host: one monitored MongoDB process (`/groups/{g}/hosts/{h}`).
///
/// ```
/// let host: opsapi::Host = opsapi::decode_model(br#"{"id":"h1","hostname":"db1","port":27017,"typeName":"REPLICA_PRIMARY","systemInfo":{"memSizeMB":65536,"numCores":16}}"#).unwrap();
/// assert_eq!(host.type_name, Some(opsapi::HostType::ReplicaPrimary));
/// assert_eq!(host.system_info.unwrap().num_cores, Some(16));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Host {
    /// `id`
    pub id: Option<String>,
    /// `groupId`
    pub group_id: Option<String>,
    /// `hostname`
    pub hostname: Option<String>,
    /// `port`
    pub port: Option<i64>,
    /// `ipAddress`
    pub ip_address: Option<String>,
    /// `aliases`: other `host:port` names of the process.
    pub aliases: Option<Vec<String>>,
    /// `typeName`
    pub type_name: Option<HostType>,
    /// `replicaSetName`
    pub replica_set_name: Option<String>,
    /// `replicaStateName`
    pub replica_state_name: Option<ReplicaState>,
    /// `shardName`
    pub shard_name: Option<String>,
    /// `clusterId`
    pub cluster_id: Option<String>,
    /// `version`: the MongoDB version.
    pub version: Option<String>,
    /// `created`
    #[serde(with = "super::time::opt_datetime")]
    pub created: Option<DateTime<Utc>>,
    /// `lastPing`
    #[serde(with = "super::time::opt_datetime")]
    pub last_ping: Option<DateTime<Utc>>,
    /// `lastRestart`
    #[serde(with = "super::time::opt_datetime")]
    pub last_restart: Option<DateTime<Utc>>,
    /// `uptimeMsec`
    pub uptime_msec: Option<i64>,
    /// `lastDataSizeBytes`
    pub last_data_size_bytes: Option<i64>,
    /// `lastIndexSizeBytes`
    pub last_index_size_bytes: Option<i64>,
    /// `alertsEnabled`
    pub alerts_enabled: Option<bool>,
    /// `hostEnabled`
    pub host_enabled: Option<bool>,
    /// `hidden`
    pub hidden: Option<bool>,
    /// `hasStartupWarnings`
    pub has_startup_warnings: Option<bool>,
    /// `journalingEnabled`
    pub journaling_enabled: Option<bool>,
    /// `logsEnabled`
    pub logs_enabled: Option<bool>,
    /// `lowUlimit`
    pub low_ulimit: Option<bool>,
    /// `profilerEnabled`
    pub profiler_enabled: Option<bool>,
    /// `sslEnabled`
    pub ssl_enabled: Option<bool>,
    /// `deactivated` (older servers)
    pub deactivated: Option<bool>,
    /// `muninEnabled` (older servers)
    pub munin_enabled: Option<bool>,
    /// `muninPort` (older servers)
    pub munin_port: Option<i64>,
    /// `slaveDelaySec`
    pub slave_delay_sec: Option<i64>,
    /// `authMechanismName`
    pub auth_mechanism_name: Option<String>,
    /// `username`: the user the agent monitors with.
    pub username: Option<String>,
    /// `systemInfo`
    pub system_info: Option<SystemInfo>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    raw: super::RawJson,
}
raw_model!(Host, raw, id: id);
