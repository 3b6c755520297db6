//! Hosts, their partitions and their databases.

use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::HostsList, |c, p, _| c.hosts(p.group())),
    (Operation::HostsGet, |c, p, _| {
        c.host(p.group(), p.get("host_id"))
    }),
    (Operation::HostsPartitions, |c, p, _| {
        c.disks(p.group(), p.get("host_id"))
    }),
    (Operation::HostsDatabases, |c, p, _| {
        c.databases(p.group(), p.get("host_id"))
    }),
];

impl Ctx<'_> {
    /// `GET /groups/{group_id}/hosts` (Atlas: its processes, no standalone).
    pub(crate) fn hosts(&self, g: &str) -> Reply {
        let w = self.world();
        let items: Vec<_> = w
            .hosts
            .iter()
            .filter(|h| h.group_id == g && self.has_host(h))
            .collect();
        let reply = self.list(items, |h| self.host_json(h));
        drop(w);
        reply
    }

    /// `GET /groups/{group_id}/hosts/{host_id}`.
    pub(crate) fn host(&self, g: &str, h: &str) -> Reply {
        match self.find_host(g, h) {
            Ok(host) => self.r.entity(200, self.host_json(&host)),
            Err(e) => e,
        }
    }

    /// `GET /groups/{group_id}/hosts/{host_id}/disks`.
    pub(crate) fn disks(&self, g: &str, h: &str) -> Reply {
        match self.find_host(g, h) {
            Ok(host) => {
                let items: Vec<_> = host.partitions.iter().collect();
                self.list(items, |p| self.disk_json(&host, &p.name))
            }
            Err(e) => e,
        }
    }

    /// `GET /groups/{group_id}/hosts/{host_id}/databases`.
    pub(crate) fn databases(&self, g: &str, h: &str) -> Reply {
        match self.find_host(g, h) {
            Ok(host) => {
                let items: Vec<_> = host.databases.iter().collect();
                self.list(items, |d| self.database_json(&host, &d.name))
            }
            Err(e) => e,
        }
    }

    pub(crate) fn host_json(&self, h: &Host) -> Value {
        if self.shared.config.flavour == crate::Flavour::Atlas {
            return self.process_json(h);
        }
        let mut m = Map::new();
        m.insert("alertsEnabled".into(), json!(true));
        m.insert(
            "aliases".into(),
            json!([h.process_id(), format!("{}:{}", h.ip_address, h.port)]),
        );
        m.insert("authMechanismName".into(), json!("SCRAM-SHA-256"));
        if let Some(c) = &h.cluster_id {
            m.insert("clusterId".into(), json!(c));
        }
        m.insert("created".into(), json!(iso(&h.created)));
        m.insert("deactivated".into(), json!(false));
        m.insert("groupId".into(), json!(h.group_id));
        m.insert("hasStartupWarnings".into(), json!(h.index % 7 == 3));
        m.insert("hidden".into(), json!(false));
        m.insert("hostEnabled".into(), json!(true));
        m.insert("hostname".into(), json!(h.hostname));
        m.insert("id".into(), json!(h.id));
        m.insert("ipAddress".into(), json!(h.ip_address));
        m.insert("journalingEnabled".into(), json!(true));
        m.insert("lastDataSizeBytes".into(), json!(h.last_data_size_bytes));
        m.insert("lastIndexSizeBytes".into(), json!(h.last_index_size_bytes));
        m.insert("lastPing".into(), json!(iso(&h.last_ping)));
        m.insert("lastRestart".into(), json!(iso(&h.last_restart)));
        let base = format!("/groups/{}/hosts/{}", h.group_id, h.id);
        m.insert(
            "links".into(),
            json!([
                link(self.url(&base), "self"),
                link(
                    self.url(&format!("/groups/{}", h.group_id)),
                    "http://mms.mongodb.com/group"
                ),
                link(
                    self.url(&format!("{base}/disks")),
                    "http://mms.mongodb.com/disks"
                ),
                link(
                    self.url(&format!("{base}/measurements")),
                    "http://mms.mongodb.com/measurements"
                ),
            ]),
        );
        m.insert("logsEnabled".into(), json!(false));
        m.insert("lowUlimit".into(), json!(false));
        m.insert("muninEnabled".into(), json!(false));
        m.insert("port".into(), json!(h.port));
        m.insert("profilerEnabled".into(), json!(false));
        if let Some(rs) = &h.replica_set_name {
            m.insert("replicaSetName".into(), json!(rs));
        }
        if let Some(s) = &h.replica_state_name {
            m.insert("replicaStateName".into(), json!(s));
        }
        if let Some(s) = &h.shard_name {
            m.insert("shardName".into(), json!(s));
        }
        m.insert("sslEnabled".into(), json!(h.ssl_enabled));
        m.insert(
            "systemInfo".into(),
            json!({"memSizeMB": h.mem_size_mb, "numCores": h.num_cores}),
        );
        m.insert("typeName".into(), json!(h.type_name));
        let uptime = (self.shared.anchor - h.last_restart)
            .num_milliseconds()
            .max(0);
        m.insert("uptimeMsec".into(), json!(uptime));
        m.insert("username".into(), json!("mms-automation"));
        m.insert("version".into(), json!(h.version));
        Value::Object(m)
    }

    pub(crate) fn database_json(&self, h: &Host, name: &str) -> Value {
        let base = format!("{}/databases/{}", self.host_base(h), enc(name));
        json!({
            "databaseName": name,
            "links": [
                link(self.url(&base), "self"),
                link(self.url(&format!("{base}/measurements")), "http://mms.mongodb.com/measurements"),
                link(self.url(&self.host_base(h)), "http://mms.mongodb.com/host"),
            ],
        })
    }

    pub(crate) fn disk_json(&self, h: &Host, name: &str) -> Value {
        let base = format!("{}/disks/{}", self.host_base(h), enc(name));
        json!({
            "links": [
                link(self.url(&base), "self"),
                link(self.url(&format!("{base}/measurements")), "http://mms.mongodb.com/measurements"),
                link(self.url(&self.host_base(h)), "http://mms.mongodb.com/host"),
            ],
            "partitionName": name,
        })
    }
}
