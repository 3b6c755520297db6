//! Clusters (`world/clusters.rs`).
//!
//! - Ops Manager and Cloud Manager: each replica set and sharded cluster, and each replica
//!   set within a sharded cluster as a cluster of its own (each shard's, `REPLICA_SET` with
//!   `shardName`; its config servers', `CONFIG_SERVER_REPLICA_SET`), named after its parent
//!   (the documentation's "Clusters" resource); one by its id; 404 `CLUSTER_NOT_FOUND` (the
//!   simulator's choice of code: the documentation's error table has none for clusters).
//! - Atlas: each cluster once, as `ClusterDescription20240805` describes it (one replication
//!   spec per shard, its electable hardware and auto-scaling; connection strings naming its
//!   processes' aliases, a replica set's members with its `replicaSet`, a sharded cluster's
//!   mongos); one by its name; 404 `CLUSTER_NOT_FOUND` ("No cluster named {name} exists in
//!   group {groupId}.").

use super::*;
use crate::sim::{Cluster, ClusterPart};

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::ClustersList, |c, p, _| c.clusters(p.group())),
    (Operation::ClustersGet, |c, p, _| {
        c.cluster(p.group(), p.get("cluster"))
    }),
];

impl Ctx<'_> {
    pub(crate) fn clusters(&self, g: &str) -> Reply {
        let w = self.world();
        let items: Vec<Value> = if self.atlas() {
            w.clusters
                .iter()
                .filter(|c| c.group_id == g)
                .map(|c| self.atlas_cluster_json(&w, c))
                .collect()
        } else {
            w.clusters
                .iter()
                .filter(|c| c.group_id == g)
                .flat_map(|c| self.om_clusters_json(c))
                .collect()
        };
        drop(w);
        self.list(items, |v| v)
    }

    pub(crate) fn cluster(&self, g: &str, id: &str) -> Reply {
        let w = self.world();
        let found = if self.atlas() {
            w.clusters
                .iter()
                .find(|c| c.group_id == g && c.name == id)
                .map(|c| self.atlas_cluster_json(&w, c))
        } else {
            w.clusters
                .iter()
                .filter(|c| c.group_id == g)
                .flat_map(|c| self.om_clusters_json(c))
                .find(|v| v["id"] == id)
        };
        drop(w);
        match found {
            Some(v) => self.r.entity(200, v),
            None if self.atlas() => err(
                404,
                "CLUSTER_NOT_FOUND",
                format!("No cluster named {id} exists in group {g}."),
                vec![json!(id), json!(g)],
            ),
            None => err(
                404,
                "CLUSTER_NOT_FOUND",
                format!("No cluster with ID {id} exists in group {g}."),
                vec![json!(id), json!(g)],
            ),
        }
    }

    /// A cluster as Ops Manager lists it: itself, then each replica set within it.
    fn om_clusters_json(&self, c: &Cluster) -> Vec<Value> {
        let one = |id: &str, type_name: &str, rs: Option<&str>, shard: Option<&str>| {
            let mut m = Map::new();
            m.insert("clusterName".into(), json!(c.name));
            m.insert("groupId".into(), json!(c.group_id));
            m.insert("id".into(), json!(id));
            m.insert("lastHeartbeat".into(), json!(iso(&c.last_heartbeat)));
            let base = format!("/groups/{}/clusters/{id}", c.group_id);
            m.insert("links".into(), json!([link(self.url(&base), "self")]));
            if let Some(rs) = rs {
                m.insert("replicaSetName".into(), json!(rs));
            }
            if let Some(s) = shard {
                m.insert("shardName".into(), json!(s));
            }
            m.insert("typeName".into(), json!(type_name));
            Value::Object(m)
        };
        if !c.sharded {
            return vec![one(
                &c.id,
                "REPLICA_SET",
                c.replica_set_name.as_deref(),
                None,
            )];
        }
        let mut out = vec![one(&c.id, "SHARDED_REPLICA_SET", None, None)];
        for ClusterPart {
            id,
            replica_set_name,
        } in &c.shards
        {
            out.push(one(
                id,
                "REPLICA_SET",
                Some(replica_set_name),
                Some(replica_set_name),
            ));
        }
        if let Some(cfg) = &c.config_servers {
            out.push(one(
                &cfg.id,
                "CONFIG_SERVER_REPLICA_SET",
                Some(&cfg.replica_set_name),
                None,
            ));
        }
        out
    }

    /// A cluster as Atlas describes it (`ClusterDescription20240805`).
    fn atlas_cluster_json(&self, w: &World, c: &Cluster) -> Value {
        let members: Vec<&Host> = w
            .hosts
            .iter()
            .filter(|h| h.cluster_id.as_deref() == Some(c.id.as_str()))
            .collect();
        let alias = |h: &Host| format!("{}:{}", h.alias.as_deref().unwrap_or(&h.hostname), h.port);
        // A client connects to a replica set's members, to a sharded cluster's mongos.
        let standard = if c.sharded {
            let mongos: Vec<String> = members
                .iter()
                .filter(|h| h.type_name == "SHARD_MONGOS")
                .map(|h| alias(h))
                .collect();
            format!("mongodb://{}/?ssl=true&authSource=admin", mongos.join(","))
        } else {
            let all: Vec<String> = members.iter().map(|h| alias(h)).collect();
            format!(
                "mongodb://{}/?ssl=true&authSource=admin&replicaSet={}",
                all.join(","),
                c.replica_set_name.as_deref().unwrap_or_default()
            )
        };
        let compute = match c.compute_auto_scaling {
            Some((min, max)) => json!({
                "enabled": true,
                "maxInstanceSize": max,
                "minInstanceSize": min,
                "scaleDownEnabled": true,
            }),
            None => json!({"enabled": false, "scaleDownEnabled": false}),
        };
        let nodes = |rs: Option<&str>| {
            members
                .iter()
                .filter(|h| rs.is_none() || h.replica_set_name.as_deref() == rs)
                .filter(|h| !matches!(h.type_name.as_str(), "SHARD_MONGOS" | "SHARD_CONFIG"))
                .count()
        };
        let spec = |i: usize, rs: Option<&str>| {
            // The spec's and the zone's ids: stable, derived from the cluster's.
            let id = |k: usize| format!("{}{:02x}", &c.id[..22], (i * 2 + k) % 256);
            json!({
                "id": id(0),
                "regionConfigs": [{
                    "autoScaling": {
                        "compute": compute,
                        "diskGB": {"enabled": c.disk_auto_scaling},
                    },
                    "electableSpecs": {
                        "diskIOPS": 3000,
                        "diskSizeGB": c.disk_size_gb,
                        "ebsVolumeType": "STANDARD",
                        "instanceSize": c.instance_size,
                        "nodeCount": nodes(rs),
                    },
                    "priority": 7,
                    "providerName": "AWS",
                    "regionName": "US_EAST_1",
                }],
                "zoneId": id(1),
                "zoneName": "Zone 1",
            })
        };
        let specs: Vec<Value> = if c.sharded {
            c.shards
                .iter()
                .enumerate()
                .map(|(i, s)| spec(i, Some(&s.replica_set_name)))
                .collect()
        } else {
            vec![spec(0, None)]
        };
        let major = c.mongodb_version.rsplit_once('.').map_or("", |(m, _)| m);
        json!({
            "backupEnabled": false,
            "clusterType": if c.sharded { "SHARDED" } else { "REPLICASET" },
            "connectionStrings": {
                "standard": standard,
                "standardSrv": format!("mongodb+srv://{}", c.srv_host()),
            },
            "createDate": iso(&c.created),
            "diskWarmingMode": "FULLY_WARMED",
            "encryptionAtRestProvider": "NONE",
            "groupId": c.group_id,
            "id": c.id,
            "links": [link(self.url(&format!("/groups/{}/clusters/{}", c.group_id, enc(&c.name))), "self")],
            "mongoDBMajorVersion": major,
            "mongoDBVersion": c.mongodb_version,
            "name": c.name,
            "paused": false,
            "pitEnabled": false,
            "replicationSpecs": specs,
            "stateName": "IDLE",
            "terminationProtectionEnabled": false,
            "versionReleaseSystem": "LTS",
        })
    }
}
