//! Hosts (monitored MongoDB processes). Each model's fields are declared once, in its
//! `<model>_fields!` list.

use super::{declare_model, declare_part, string_enum};

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

/// The fields of [`SystemInfo`], declared once.
macro_rules! system_info_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// `systemInfo` of a host.
            #[serde(default)]
            SystemInfo {} {
                /// `memSizeMB`: physical memory in MiB.
                #[serde(rename = "memSizeMB")]
                mem_size_mb: Option<i64>,
                /// `numCores`
                #[serde(rename = "numCores")]
                num_cores: Option<i64>,
            }
        }
    };
}
pub(crate) use system_info_fields;
system_info_fields!(declare_part);

/// The fields of [`Host`], declared once. Their order is the order of the list frame's
/// columns.
macro_rules! host_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A host: one monitored MongoDB process (`/groups/{g}/hosts/{h}`).
            ///
            /// ```
            /// let host: opsapi::Host = opsapi::decode_model(br#"{"id":"h1","hostname":"db1","port":27017,"typeName":"REPLICA_PRIMARY","systemInfo":{"memSizeMB":65536,"numCores":16}}"#).unwrap();
            /// assert_eq!(host.type_name, Some(opsapi::HostType::ReplicaPrimary));
            /// assert_eq!(host.system_info.unwrap().num_cores, Some(16));
            /// ```
            Host { raw: raw, id: id, repr: [id, hostname, port, type_name, replica_state_name] } {
                /// `id`
                id: Option<String>,
                /// `groupId`
                group_id: Option<String>,
                /// `hostname`
                hostname: Option<String>,
                /// `port`
                port: Option<i64>,
                /// `typeName`
                type_name: Option<$crate::models::HostType>,
                /// `replicaSetName`
                replica_set_name: Option<String>,
                /// `replicaStateName`
                replica_state_name: Option<$crate::models::ReplicaState>,
                /// `shardName`
                shard_name: Option<String>,
                /// `clusterId`
                cluster_id: Option<String>,
                /// `version`: the MongoDB version.
                version: Option<String>,
                /// `ipAddress`
                ip_address: Option<String>,
                /// `created`
                #[serde(with = "crate::models::time::opt_datetime")]
                created: Option<chrono::DateTime<chrono::Utc>>,
                /// `lastPing`
                #[serde(with = "crate::models::time::opt_datetime")]
                last_ping: Option<chrono::DateTime<chrono::Utc>>,
                /// `lastRestart`
                #[serde(with = "crate::models::time::opt_datetime")]
                last_restart: Option<chrono::DateTime<chrono::Utc>>,
                /// `uptimeMsec`
                uptime_msec: Option<i64>,
                /// `lastDataSizeBytes`
                last_data_size_bytes: Option<i64>,
                /// `lastIndexSizeBytes`
                last_index_size_bytes: Option<i64>,
                /// `systemInfo`
                system_info: Option<$crate::models::SystemInfo>,
                /// `alertsEnabled`
                alerts_enabled: Option<bool>,
                /// `hostEnabled`
                host_enabled: Option<bool>,
                /// `hidden`
                hidden: Option<bool>,
                /// `sslEnabled`
                ssl_enabled: Option<bool>,
                /// `journalingEnabled`
                journaling_enabled: Option<bool>,
                /// `hasStartupWarnings`
                has_startup_warnings: Option<bool>,
                /// `logsEnabled`
                logs_enabled: Option<bool>,
                /// `lowUlimit`
                low_ulimit: Option<bool>,
                /// `profilerEnabled`
                profiler_enabled: Option<bool>,
                /// `deactivated` (older servers)
                deactivated: Option<bool>,
                /// `muninEnabled` (older servers)
                munin_enabled: Option<bool>,
                /// `muninPort` (older servers)
                munin_port: Option<i64>,
                /// `slaveDelaySec`
                slave_delay_sec: Option<i64>,
                /// `authMechanismName`
                auth_mechanism_name: Option<String>,
                /// `username`: the user the agent monitors with.
                username: Option<String>,
                /// `aliases`: other `host:port` names of the process.
                aliases: Option<Vec<String>>,
                /// `userAlias` (Atlas): the host name the cluster's connection strings give
                /// the process (`cluster0-shard-00-01.ab1cd.mongodb.net`).
                user_alias: Option<String>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use host_fields;
host_fields!(declare_model);
