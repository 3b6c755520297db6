//! Projects.

use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::GroupsList, |c, _, _| c.groups()),
    (Operation::GroupsGet, |c, p, _| c.group(p.group())),
];

impl Ctx<'_> {
    /// `GET /groups`: the projects the key can see.
    pub(crate) fn groups(&self) -> Reply {
        let w = self.world();
        let items: Vec<_> = w
            .projects
            .iter()
            .filter(|p| self.role == Role::Owner || p.id == self.shared.keys.ro_group)
            .collect();
        let reply = self.list(items, |p| self.group_json(&w, &p.id));
        drop(w);
        reply
    }

    /// `GET /groups/{group_id}` (the project exists: `Ctx::dispatch`).
    pub(crate) fn group(&self, g: &str) -> Reply {
        let v = self.group_json(&self.world(), g);
        self.r.entity(200, v)
    }

    pub(crate) fn group_json(&self, w: &World, g: &str) -> Value {
        let Some(p) = w.projects.iter().find(|p| p.id == g) else {
            return Value::Null;
        };
        let hosts: Vec<&Host> = w.hosts.iter().filter(|h| h.group_id == g).collect();
        if self.atlas() {
            return self.atlas_group_json(p, &hosts);
        }
        let count = |t: &[&str]| {
            hosts
                .iter()
                .filter(|h| t.contains(&h.type_name.as_str()))
                .count()
        };
        let mut rs: Vec<&str> = hosts
            .iter()
            .filter_map(|h| h.replica_set_name.as_deref())
            .collect();
        rs.sort_unstable();
        rs.dedup();
        let shards = hosts
            .iter()
            .filter_map(|h| h.shard_name.as_deref())
            .collect::<HashSet<_>>();
        json!({
            // One agent per host (the documented integer; numShards is not a documented field).
            "activeAgentCount": hosts.len(),
            "hostCounts": {
                "arbiter": 0,
                "config": count(&["SHARD_CONFIG"]),
                "master": 0,
                "mongos": count(&["SHARD_MONGOS"]),
                "primary": count(&["REPLICA_PRIMARY", "SHARD_PRIMARY"]),
                "secondary": count(&["REPLICA_SECONDARY", "SHARD_SECONDARY"]),
                "slave": 0,
            },
            "id": p.id,
            "lastActiveAgent": iso(&w.anchor),
            "links": [
                link(self.url(&format!("/groups/{}", p.id)), "self"),
                link(self.url(&format!("/groups/{}/hosts", p.id)), "http://mms.mongodb.com/hosts"),
            ],
            "name": p.name,
            "orgId": p.org_id,
            "publicApiEnabled": true,
            "replicaSetCount": rs.len(),
            "shardCount": shards.len(),
            "tags": [],
        })
    }

    /// A project as Atlas shows it (its specification's `Group`): the clusters it holds,
    /// when it was created, its organization; no host counts.
    fn atlas_group_json(&self, p: &crate::sim::Project, hosts: &[&Host]) -> Value {
        // A cluster: a replica set, or a sharded cluster with its shards, mongos and config
        // servers (the world's cluster ids).
        let mut clusters: Vec<&str> = hosts
            .iter()
            .filter_map(|h| h.cluster_id.as_deref())
            .collect();
        clusters.sort_unstable();
        clusters.dedup();
        json!({
            "clusterCount": clusters.len(),
            "created": iso(&p.created),
            "id": p.id,
            "links": [link(self.url(&format!("/groups/{}", p.id)), "self")],
            "name": self.project_name(&p.name),
            "orgId": p.org_id,
            "tags": [],
            "withDefaultAlertsSettings": true,
        })
    }
}
