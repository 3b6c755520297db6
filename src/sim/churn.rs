//! A world that gains and loses hosts while the simulator runs, as a real fleet does between
//! two syncs: a host added answers its listings and measurements at once, a host removed is
//! gone from its project's listing and answers 404 `HOST_NOT_FOUND`. A host can also gain a
//! partition or database of any name, as a server lists it (`..`, an empty name, a space:
//! names a client cannot send back as a path segment).
//!
//! (A file of its own: the seeded world of `world.rs` is generated once, from the seed; these
//! are changes a test makes to it afterwards.)

use super::rng::hash;
use super::Simulator;

impl Simulator {
    /// Adds a standalone host to project `group_id` and returns its id (`None` when there is
    /// no such project, or it has no host to model the new one on). The new host has the
    /// partitions and databases of the project's first mongod, and data of its own (a value is
    /// a function of the seed, the host and the time, as for every seeded host).
    ///
    /// ```
    /// use opsapi::sim::{SimConfig, Simulator};
    /// let sim = Simulator::start(SimConfig::default()).unwrap();
    /// let g = sim.group_ids()[0].clone();
    /// let id = sim.add_host(&g).unwrap();
    /// assert_eq!(sim.world().hosts.iter().filter(|h| h.group_id == g).count(), 6);
    /// assert!(sim.remove_host(&id));
    /// assert!(!sim.remove_host(&id));
    /// ```
    pub fn add_host(&self, group_id: &str) -> Option<String> {
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let template = w
            .hosts
            .iter()
            .filter(|h| h.group_id == group_id)
            .find(|h| !h.databases.is_empty())
            .or_else(|| w.hosts.iter().find(|h| h.group_id == group_id))?
            .clone();
        let index = w.hosts.iter().map(|h| h.index + 1).max().unwrap_or(0);
        let seed = self.shared.config.seed;
        let domain = template
            .hostname
            .split_once('.')
            .map_or("example.net", |(_, d)| d)
            .to_string();
        let mut host = template;
        host.index = index;
        host.id = format!(
            "{:016x}{:016x}",
            hash(&[seed, index as u64, 0x6164_6465_6431]),
            hash(&[seed, index as u64, 0x6164_6465_6432])
        );
        host.hostname = format!("added{index}.{domain}");
        host.port = 27017;
        host.type_name = "STANDALONE".into();
        host.replica_state_name = None;
        host.replica_set_name = None;
        host.shard_name = None;
        host.cluster_id = None;
        host.created = self.shared.clock.now();
        let id = host.id.clone();
        w.hosts.push(host);
        Some(id)
    }

    /// Removes a host (from every project): its listings and measurements answer 404 from now
    /// on. Returns whether there was such a host.
    pub fn remove_host(&self, host_id: &str) -> bool {
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let before = w.hosts.len();
        w.hosts.retain(|h| h.id != host_id);
        w.hosts.len() != before
    }

    /// Adds a partition named `name` to host `host_id` (a copy of its first partition, under
    /// the new name), listed from now on. Returns whether there was such a host with a
    /// partition.
    ///
    /// ```
    /// use opsapi::sim::{SimConfig, Simulator};
    /// let sim = Simulator::start(SimConfig::default()).unwrap();
    /// let h = sim.world().hosts[0].id.clone();
    /// assert!(sim.add_partition(&h, ".."));
    /// assert!(sim.world().hosts[0].partitions.iter().any(|p| p.name == ".."));
    /// ```
    pub fn add_partition(&self, host_id: &str, name: &str) -> bool {
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let Some(host) = w.hosts.iter_mut().find(|h| h.id == host_id) else {
            return false;
        };
        let Some(mut p) = host.partitions.first().cloned() else {
            return false;
        };
        p.name = name.to_string();
        host.partitions.push(p);
        true
    }

    /// Adds a database named `name` to host `host_id` (a copy of its first database, under the
    /// new name), listed from now on. Returns whether there was such a host with a database.
    pub fn add_database(&self, host_id: &str, name: &str) -> bool {
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let Some(host) = w.hosts.iter_mut().find(|h| h.id == host_id) else {
            return false;
        };
        let Some(mut d) = host.databases.first().cloned() else {
            return false;
        };
        d.name = name.to_string();
        host.databases.push(d);
        true
    }
}
