//! Clusters (`/groups/{g}/clusters`): a replica set or a sharded cluster, one model for the
//! two shapes the servers send, its fields declared once in `cluster_fields!`.
//!
//! - Ops Manager and Cloud Manager list what their agents discovered: a replica set, a
//!   sharded cluster, and each replica set within a sharded cluster (a shard's: `shardName`;
//!   its config servers': `CONFIG_SERVER_REPLICA_SET`) as a cluster of its own, named by
//!   `clusterName` after its parent. Its hosts name it by `clusterId`.
//! - Atlas describes what it runs (`ClusterDescription20240805`): `name`, `clusterType`, the
//!   hardware and auto-scaling of each replication spec (one per shard), `stateName`. Its
//!   processes do not name their cluster; its connection strings name the hosts a client
//!   connects to (a replica set's members, a sharded cluster's mongos).
//!
//! The fields a flavour does not send are `None`; `type` says either's kind in one word, and
//! the tier, disk and auto-scaling are read from the first replication spec's electable
//! region of the highest priority (`instance_size`, `disk_size_gb`, `auto_scaling`).

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::{declare_model, declare_part, string_enum, Link};

string_enum! {
    /// A cluster's kind in one word, whatever the flavour calls it (`type`).
    ClusterType {
        /// A replica set (Ops Manager's `REPLICA_SET`, a shard's included; Atlas's
        /// `REPLICASET`).
        ReplicaSet => "replica_set",
        /// A sharded cluster (Ops Manager's `SHARDED_REPLICA_SET` and `SHARDED`; Atlas's
        /// `SHARDED`).
        Sharded => "sharded",
        /// A global cluster: sharded by zone (Atlas's `GEOSHARDED`).
        GeoSharded => "geosharded",
        /// The config servers' replica set of a sharded cluster (Ops Manager's
        /// `CONFIG_SERVER_REPLICA_SET`).
        ConfigServers => "config_servers",
    }
}

impl ClusterType {
    /// The kind of Ops Manager's `typeName` or Atlas's `clusterType`; a value neither
    /// documents is kept as sent.
    ///
    /// ```
    /// use opsapi::ClusterType;
    /// assert_eq!(ClusterType::of("SHARDED_REPLICA_SET"), ClusterType::Sharded);
    /// assert_eq!(ClusterType::of("REPLICASET"), ClusterType::ReplicaSet);
    /// assert_eq!(ClusterType::of("SERVERLESS"), ClusterType::Other("SERVERLESS".into()));
    /// ```
    pub fn of(server: &str) -> ClusterType {
        match server {
            "REPLICA_SET" | "REPLICASET" => Self::ReplicaSet,
            "SHARDED" | "SHARDED_REPLICA_SET" => Self::Sharded,
            "GEOSHARDED" => Self::GeoSharded,
            "CONFIG_SERVER_REPLICA_SET" => Self::ConfigServers,
            other => Self::Other(other.to_string()),
        }
    }
}

/// The fields of [`AutoScaling`], declared once.
macro_rules! auto_scaling_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// An Atlas cluster's auto-scaling (`autoScaling` of its electable region): compute
            /// between two tiers, and disk.
            #[serde(default)]
            AutoScaling {} {
                /// `compute.enabled`: Atlas changes the tier with the load.
                compute_enabled: Option<bool>,
                /// `compute.scaleDownEnabled`
                compute_scale_down_enabled: Option<bool>,
                /// `compute.minInstanceSize`: the smallest tier it scales down to.
                compute_min_instance_size: Option<String>,
                /// `compute.maxInstanceSize`: the largest tier it scales up to.
                compute_max_instance_size: Option<String>,
                /// `diskGB.enabled`: Atlas grows the disk when it is 90 % full.
                disk_gb_enabled: Option<bool>,
            }
        }
    };
}
pub(crate) use auto_scaling_fields;
auto_scaling_fields!(declare_part);

/// The fields of [`Cluster`], declared once. Their order is the order of the list frame's
/// columns.
macro_rules! cluster_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A cluster: a replica set or a sharded cluster (`/groups/{g}/clusters/{c}`), as
            /// Ops Manager and Cloud Manager list it or as Atlas describes it.
            ///
            /// ```
            /// let om: opsapi::Cluster = opsapi::decode_model(br#"{"id":"c1","groupId":"g1","clusterName":"orders","typeName":"SHARDED_REPLICA_SET"}"#).unwrap();
            /// assert_eq!((om.name.as_deref(), om.r#type), (Some("orders"), Some(opsapi::ClusterType::Sharded)));
            /// let atlas: opsapi::Cluster = opsapi::decode_model(br#"{"name":"orders","clusterType":"REPLICASET","replicationSpecs":[{"regionConfigs":[{"priority":7,"electableSpecs":{"instanceSize":"M30","diskSizeGB":40},"autoScaling":{"compute":{"enabled":true,"maxInstanceSize":"M50"},"diskGB":{"enabled":true}}}]}]}"#).unwrap();
            /// assert_eq!((atlas.instance_size.as_deref(), atlas.disk_size_gb), (Some("M30"), Some(40.0)));
            /// assert_eq!(atlas.auto_scaling.unwrap().compute_max_instance_size.as_deref(), Some("M50"));
            /// ```
            #[serde(from = "ClusterWire")]
            Cluster { raw: raw, id: id, repr: [id, name, r#type, instance_size] } {
                /// `id`
                id: Option<String>,
                /// `groupId`
                group_id: Option<String>,
                /// `clusterName` (Ops Manager; a replica set within a sharded cluster is
                /// named after its parent) or `name` (Atlas).
                name: Option<String>,
                /// The kind: `replica_set`, `sharded`, `geosharded` or `config_servers`
                /// (from `typeName` or `clusterType`).
                r#type: Option<$crate::models::ClusterType>,
                /// `typeName` (Ops Manager): `REPLICA_SET`, `SHARDED_REPLICA_SET`, `SHARDED`,
                /// `CONFIG_SERVER_REPLICA_SET`.
                type_name: Option<String>,
                /// `clusterType` (Atlas): `REPLICASET`, `SHARDED`, `GEOSHARDED`.
                cluster_type: Option<String>,
                /// `replicaSetName` (Ops Manager); on Atlas the `replicaSet` of the standard
                /// connection string (a replica set's).
                replica_set_name: Option<String>,
                /// `shardName` (Ops Manager): the shard a replica set is.
                shard_name: Option<String>,
                /// `stateName` (Atlas): `IDLE`, `CREATING`, `UPDATING`, `DELETING`,
                /// `REPAIRING`.
                state: Option<String>,
                /// The tier (Atlas): `instanceSize` of the electable nodes, `M30`.
                instance_size: Option<String>,
                /// `diskSizeGB` of the electable nodes (Atlas).
                disk_size_gb: Option<f64>,
                /// `nodeCount` of the electable nodes (Atlas), per shard.
                node_count: Option<i64>,
                /// The number of replication specs of a sharded cluster (Atlas): its shards.
                shard_count: Option<i64>,
                /// `autoScaling` of the electable nodes (Atlas).
                auto_scaling: Option<$crate::models::AutoScaling>,
                /// `mongoDBVersion` (Atlas).
                mongodb_version: Option<String>,
                /// `createDate` (Atlas).
                created: Option<chrono::DateTime<chrono::Utc>>,
                /// `lastHeartbeat` (Ops Manager): the last ping from the cluster.
                last_heartbeat: Option<chrono::DateTime<chrono::Utc>>,
                /// `paused` (Atlas).
                paused: Option<bool>,
                /// `connectionStrings` (Atlas): as sent (`standard`, `standardSrv`, ...).
                connection_strings: Option<serde_json::Value>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use cluster_fields;
cluster_fields!(declare_model);

impl Cluster {
    /// The hosts (`host:port`) of the standard connection string (Atlas: a replica set's
    /// members, a sharded cluster's mongos), as its `connectionStrings.standard` names them.
    ///
    /// ```
    /// let c: opsapi::Cluster = opsapi::decode_model(br#"{"connectionStrings":{"standard":"mongodb://a.x.net:27017,b.x.net:27017/?ssl=true&replicaSet=rs0"}}"#).unwrap();
    /// assert_eq!(c.connection_hosts(), ["a.x.net:27017", "b.x.net:27017"]);
    /// assert_eq!(c.replica_set_name.as_deref(), Some("rs0"));
    /// ```
    pub fn connection_hosts(&self) -> Vec<String> {
        let standard = self
            .connection_strings
            .as_ref()
            .and_then(|c| c.get("standard"))
            .and_then(|s| s.as_str())
            .unwrap_or("");
        standard_hosts(standard)
    }
}

impl Cluster {
    /// Whether a process is one of this cluster's, mongos and config servers included: its
    /// Ops Manager `clusterId` is the cluster's `id`, or (Atlas, whose processes do not name
    /// their cluster) its name (`userAlias`, else `hostname`) is one of the standard
    /// connection string's hosts or is named after the cluster's SRV host, as Atlas names
    /// every process of a cluster (`orders-shard-00-01.ab1cd.mongodb.net`,
    /// `orders-config-00-00...` for the SRV host `orders.ab1cd.mongodb.net`), or its replica
    /// set is the cluster's (a replica set's `replicaSet`).
    ///
    /// ```
    /// let c: opsapi::Cluster = opsapi::decode_model(br#"{"name":"orders","connectionStrings":{"standardSrv":"mongodb+srv://orders.ab1cd.mongodb.net"}}"#).unwrap();
    /// assert!(c.serves(None, "orders-config-00-01.ab1cd.mongodb.net", None));
    /// assert!(!c.serves(None, "orders2-shard-00-00.ab1cd.mongodb.net", None));
    /// assert!(!c.serves(None, "orders-shard-00-00.other.mongodb.net", None));
    /// ```
    pub fn serves(&self, cluster_id: Option<&str>, name: &str, replica_set: Option<&str>) -> bool {
        if let (Some(a), Some(b)) = (cluster_id, self.id.as_deref()) {
            return a == b;
        }
        let name = name.to_ascii_lowercase();
        let host = name.split(':').next().unwrap_or("");
        if self
            .connection_hosts()
            .iter()
            .any(|h| h.split(':').next().unwrap_or("").eq_ignore_ascii_case(host))
        {
            return true;
        }
        if let (Some(a), Some(b)) = (replica_set, self.replica_set_name.as_deref()) {
            if a == b {
                return true;
            }
        }
        let srv = self
            .connection_strings
            .as_ref()
            .and_then(|c| c.get("standardSrv"))
            .and_then(|s| s.as_str())
            .and_then(|s| s.strip_prefix("mongodb+srv://"))
            .map(|s| {
                s.split(['/', '?'])
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase()
            });
        let Some((label, domain)) = srv.as_deref().and_then(|s| s.split_once('.')) else {
            return false;
        };
        host.split_once('.').is_some_and(|(first, rest)| {
            rest == domain
                && first
                    .strip_prefix(label)
                    .is_some_and(|tail| tail.starts_with('-'))
        })
    }
}

/// An Atlas tier: its name and each of its data-bearing nodes' vCPUs and memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtlasTier {
    /// `M10`, ...
    pub name: &'static str,
    /// vCPUs of a node.
    pub vcpus: u32,
    /// Memory of a node, GiB.
    pub memory_gib: f64,
}

/// Atlas's dedicated tiers, smallest first, with each one's vCPUs and memory per
/// data-bearing node, as Atlas's AWS documentation lists them for the General class
/// (mongodb.com/docs/atlas/reference/amazon-aws/; Google Cloud and Azure differ slightly,
/// the ratios between neighbouring tiers hardly). The one table: the simulator's clusters
/// take their processes' memory and cores from it, and Python's `capacity.ATLAS_TIERS` is
/// it.
///
/// ```
/// let m50 = opsapi::ATLAS_TIERS.iter().find(|t| t.name == "M50").unwrap();
/// assert_eq!((m50.vcpus, m50.memory_gib), (8, 32.0));
/// ```
// (Its rows share a shape, which `duplicates` pairs: one tier's data each.)
pub const ATLAS_TIERS: [AtlasTier; 12] = {
    const fn t(name: &'static str, vcpus: u32, memory_gib: f64) -> AtlasTier {
        AtlasTier {
            name,
            vcpus,
            memory_gib,
        }
    }
    [
        t("M10", 2, 2.0),
        t("M20", 2, 4.0),
        t("M30", 2, 8.0),
        t("M40", 4, 16.0),
        t("M50", 8, 32.0),
        t("M60", 16, 64.0),
        t("M80", 32, 128.0),
        t("M140", 48, 192.0),
        t("M200", 64, 256.0),
        t("M300", 96, 384.0),
        t("M400", 64, 488.0),
        t("M700", 96, 768.0),
    ]
};

/// The hosts of a `mongodb://` connection string (none for another scheme).
fn standard_hosts(uri: &str) -> Vec<String> {
    let Some(rest) = uri.strip_prefix("mongodb://") else {
        return Vec::new();
    };
    let hosts = rest.split(['/', '?']).next().unwrap_or("");
    let hosts = hosts.rsplit('@').next().unwrap_or("");
    hosts
        .split(',')
        .filter(|h| !h.is_empty())
        .map(str::to_string)
        .collect()
}

/// The `replicaSet` option of a `mongodb://` connection string.
fn replica_set_option(uri: &str) -> Option<String> {
    let (_, query) = uri.strip_prefix("mongodb://")?.split_once('?')?;
    query.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == "replicaSet" && !v.is_empty()).then(|| v.to_string())
    })
}

/// A cluster as either flavour sends it: every field [`Cluster`] reads, under the server's
/// name, typed (a field of the wrong type is a decode error naming it).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ClusterWire {
    id: Option<String>,
    group_id: Option<String>,
    name: Option<String>,
    cluster_name: Option<String>,
    type_name: Option<String>,
    cluster_type: Option<String>,
    replica_set_name: Option<String>,
    shard_name: Option<String>,
    state_name: Option<String>,
    #[serde(rename = "mongoDBVersion")]
    mongodb_version: Option<String>,
    #[serde(with = "crate::models::time::opt_datetime")]
    create_date: Option<DateTime<Utc>>,
    #[serde(with = "crate::models::time::opt_datetime")]
    last_heartbeat: Option<DateTime<Utc>>,
    paused: Option<bool>,
    connection_strings: Option<serde_json::Value>,
    replication_specs: Option<Vec<ReplicationSpecWire>>,
    links: Option<Vec<Link>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ReplicationSpecWire {
    region_configs: Option<Vec<RegionConfigWire>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RegionConfigWire {
    priority: Option<i64>,
    electable_specs: Option<HardwareWire>,
    auto_scaling: Option<AutoScalingWire>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct HardwareWire {
    instance_size: Option<String>,
    #[serde(rename = "diskSizeGB")]
    disk_size_gb: Option<f64>,
    node_count: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AutoScalingWire {
    compute: Option<ComputeWire>,
    #[serde(rename = "diskGB")]
    disk_gb: Option<EnabledWire>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ComputeWire {
    enabled: Option<bool>,
    scale_down_enabled: Option<bool>,
    min_instance_size: Option<String>,
    max_instance_size: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EnabledWire {
    enabled: Option<bool>,
}

impl From<ClusterWire> for Cluster {
    fn from(w: ClusterWire) -> Self {
        let specs = w.replication_specs.unwrap_or_default();
        // The electable region of the highest priority of the first spec: where the primary
        // runs, whose hardware the cluster is sized by.
        let region = specs.first().and_then(|s| {
            s.region_configs
                .iter()
                .flatten()
                .max_by_key(|r| r.priority.unwrap_or(0))
        });
        let hardware = region.and_then(|r| r.electable_specs.as_ref());
        let auto_scaling = region.and_then(|r| r.auto_scaling.as_ref()).map(|a| {
            let compute = a.compute.as_ref();
            AutoScaling {
                compute_enabled: compute.and_then(|c| c.enabled),
                compute_scale_down_enabled: compute.and_then(|c| c.scale_down_enabled),
                compute_min_instance_size: compute.and_then(|c| c.min_instance_size.clone()),
                compute_max_instance_size: compute.and_then(|c| c.max_instance_size.clone()),
                disk_gb_enabled: a.disk_gb.as_ref().and_then(|d| d.enabled),
            }
        });
        let standard = w
            .connection_strings
            .as_ref()
            .and_then(|c| c.get("standard"))
            .and_then(|s| s.as_str())
            .map(str::to_string);
        let kind = w.type_name.as_deref().or(w.cluster_type.as_deref());
        let sharded = matches!(w.cluster_type.as_deref(), Some("SHARDED" | "GEOSHARDED"));
        Cluster {
            id: w.id,
            group_id: w.group_id,
            name: w.cluster_name.or(w.name),
            r#type: kind.map(ClusterType::of),
            type_name: w.type_name,
            cluster_type: w.cluster_type,
            replica_set_name: w
                .replica_set_name
                .or_else(|| standard.as_deref().and_then(replica_set_option)),
            shard_name: w.shard_name,
            state: w.state_name,
            instance_size: hardware.and_then(|h| h.instance_size.clone()),
            disk_size_gb: hardware.and_then(|h| h.disk_size_gb),
            node_count: hardware.and_then(|h| h.node_count),
            shard_count: (sharded && !specs.is_empty()).then_some(specs.len() as i64),
            auto_scaling,
            mongodb_version: w.mongodb_version,
            created: w.create_date,
            last_heartbeat: w.last_heartbeat,
            paused: w.paused,
            connection_strings: w.connection_strings,
            links: w.links,
            raw: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_strings_give_hosts_and_the_replica_set() {
        let uri = "mongodb://u:p@a.x.net:27017,b.x.net:27017/admin?ssl=true&replicaSet=rs-0";
        assert_eq!(standard_hosts(uri), ["a.x.net:27017", "b.x.net:27017"]);
        assert_eq!(replica_set_option(uri).as_deref(), Some("rs-0"));
        assert!(standard_hosts("mongodb+srv://c.x.net").is_empty());
        assert_eq!(replica_set_option("mongodb://a:1/?ssl=true"), None);
        assert_eq!(replica_set_option("mongodb://a:1"), None);
    }

    #[test]
    fn a_process_is_served_by_id_connection_string_replica_set_or_srv_name() {
        let om: Cluster = crate::decode_model(br#"{"id":"c1","replicaSetName":"rs0"}"#).unwrap();
        assert!(om.serves(Some("c1"), "a.x.net", None));
        // A host naming another cluster is not this one's, whatever its replica set.
        assert!(!om.serves(Some("c2"), "a.x.net", Some("rs0")));
        assert!(om.serves(None, "a.x.net", Some("rs0")));
        let atlas: Cluster = crate::decode_model(
            br#"{"name":"Orders","connectionStrings":{"standard":"mongodb://m.y.net:27016/?ssl=true","standardSrv":"mongodb+srv://orders.ab1cd.mongodb.net"}}"#,
        )
        .unwrap();
        assert!(atlas.serves(None, "m.y.net:27016", None));
        assert!(atlas.serves(None, "ORDERS-shard-01-02.ab1cd.mongodb.net", None));
        assert!(!atlas.serves(None, "orders.ab1cd.mongodb.net", None));
        assert!(!atlas.serves(None, "ordersx-shard-00-00.ab1cd.mongodb.net", None));
        assert!(!atlas.serves(None, "other-shard-00-00.ab1cd.mongodb.net", Some("rs0")));
    }

    #[test]
    fn unknown_kinds_are_kept_and_absent_ones_are_none() {
        let c: Cluster =
            crate::decode_model(br#"{"typeName":"SOMETHING_NEW","clusterName":"x"}"#).unwrap();
        assert_eq!(c.r#type, Some(ClusterType::Other("SOMETHING_NEW".into())));
        let c: Cluster = crate::decode_model(br#"{}"#).unwrap();
        assert_eq!(
            (c.r#type, c.auto_scaling, c.shard_count),
            (None, None, None)
        );
    }
}
