//! The world's clusters: its replica sets and sharded clusters by name, with what Atlas
//! configures for each (tier, disk, auto-scaling), and the aliases Atlas gives their
//! processes.
//!
//! Each cluster of the hosts (a replica set, or a sharded cluster with its shards, config
//! servers and mongos: the hosts' `cluster_id`) gets a name, and on Atlas:
//! - a tier: its processes' memory and cores are the tier's (`M10`: 2 GiB, 2 cores; ...;
//!   `M80`: 128 GiB, 32 cores), whatever flavour shows them;
//! - a disk size: its largest data-bearing member's data partition;
//! - auto-scaling, two truths ([`Cluster::compute_auto_scaling`], [`Cluster::disk_auto_scaling`]):
//!   compute (up to two tiers above its own) on the first cluster that holds no CPU or cache
//!   finding; disk on the cluster, another where there is one, whose data disk reaches 90 %
//!   soonest;
//! - one cluster clearly oversized for its tier ([`Cluster::oversized`]): the first replica
//!   set with no finding, no recent replication lag and no auto-scaling, made an `M60`
//!   whose disks are a quarter full and flat (its databases drawn again to fit them, from their own
//!   stream);
//! - its processes' aliases (`userAlias`), as Atlas names them after the cluster:
//!   `orders-shard-00-01.prod.example.net`, `orders-config-00-00...`, the cluster's SRV name
//!   being `orders.prod.example.net`.
//!
//! Drawn from a random stream of their own, after the rest of the world, which they change
//! only where said (the processes' memory and cores, the oversized cluster's disks).

use super::*;

/// The tiers the world draws from, smallest first: Atlas's first seven
/// ([`crate::ATLAS_TIERS`], `M10` to `M80`).
pub const TIERS: &[crate::AtlasTier] = crate::ATLAS_TIERS.split_at(7).0;

/// Cluster names, given in turn within a project (Atlas's pattern: letters, digits, `-`).
const NAMES: [&str; 12] = [
    "orders",
    "payments",
    "catalog",
    "sessions",
    "ledger",
    "search",
    "profiles",
    "inventory",
    "billing",
    "telemetry",
    "checkout",
    "reviews",
];

/// A replica set within a sharded cluster (a shard's, or its config servers'), which Ops
/// Manager lists as a cluster of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPart {
    /// Its Ops Manager cluster id.
    pub id: String,
    /// Its replica set name (the shard name, for a shard).
    pub replica_set_name: String,
}

/// A cluster of the world.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// The id its hosts name (`clusterId`).
    pub id: String,
    /// Project.
    pub group_id: String,
    /// Its name (Ops Manager's `clusterName`, Atlas's `name`).
    pub name: String,
    /// A sharded cluster (else a replica set).
    pub sharded: bool,
    /// A replica set's name.
    pub replica_set_name: Option<String>,
    /// A sharded cluster's shards, in the world's order.
    pub shards: Vec<ClusterPart>,
    /// A sharded cluster's config servers.
    pub config_servers: Option<ClusterPart>,
    /// Its members' `hostname:port`, in the world's order (every process of it).
    pub members: Vec<String>,
    /// When it was created.
    pub created: DateTime<Utc>,
    /// Its last heartbeat: its members' last ping.
    pub last_heartbeat: DateTime<Utc>,
    /// Its tier (Atlas), which its processes' memory and cores are.
    pub instance_size: &'static str,
    /// Its data disk, GB (Atlas): its largest data-bearing member's data partition.
    pub disk_size_gb: f64,
    /// Compute auto-scaling (Atlas): the smallest and the largest tier, when on.
    pub compute_auto_scaling: Option<(&'static str, &'static str)>,
    /// Disk auto-scaling (Atlas): Atlas grows the disk at 90 % used.
    pub disk_auto_scaling: bool,
    /// Seeded clearly oversized for its tier: every resource far below its limit.
    pub oversized: bool,
    /// Its MongoDB version (its first member's).
    pub mongodb_version: String,
    /// Its processes' aliases' stem and its SRV name's first label (`orders`).
    pub label: String,
    /// The domain of its aliases and SRV name.
    pub domain: String,
}

impl Cluster {
    /// Its SRV host name (`orders.prod.example.net`), which Atlas's `standardSrv` names.
    pub fn srv_host(&self) -> String {
        format!("{}.{}", self.label, self.domain)
    }
}

/// The memory (MiB) and cores of a tier.
pub fn tier_size(tier: &str) -> Option<(u64, u64)> {
    TIERS
        .iter()
        .find(|t| t.name == tier)
        .map(|t| ((t.memory_gib * 1024.0) as u64, u64::from(t.vcpus)))
}

/// The tier `steps` above `tier` (or the largest).
fn tier_above(tier: &str, steps: usize) -> &'static str {
    let i = TIERS.iter().position(|t| t.name == tier).unwrap_or(0);
    TIERS[(i + steps).min(TIERS.len() - 1)].name
}

/// Whether a host holds the cluster's data (not a config server, a mongos or an arbiter).
fn holds_data(h: &Host) -> bool {
    !matches!(h.type_name.as_str(), "SHARD_CONFIG" | "SHARD_MONGOS")
        && !h.type_name.contains("ARBITER")
}

/// Days until a partition reaches 90 % used, if it grows.
fn days_to_90(p: &Partition) -> Option<f64> {
    (p.growth_bytes_per_day > 0.0)
        .then(|| (0.9 * p.capacity_bytes as f64 - p.used_bytes_at_anchor) / p.growth_bytes_per_day)
}

/// Seeds the clusters into `world` (see the module's documentation).
pub(super) fn seed(world: &mut World, seed: u64) {
    let mut r = SplitMix64::new(super::super::rng::hash(&[seed, 0x636c_7573_7465_7273]));
    let mut clusters = Vec::new();
    for (p, project) in world.projects.iter().enumerate() {
        let mut ids: Vec<&str> = Vec::new();
        for h in world.hosts.iter().filter(|h| h.group_id == project.id) {
            if let Some(c) = h.cluster_id.as_deref() {
                if !ids.contains(&c) {
                    ids.push(c);
                }
            }
        }
        for (i, id) in ids.into_iter().enumerate() {
            let members: Vec<&Host> = world
                .hosts
                .iter()
                .filter(|h| h.cluster_id.as_deref() == Some(id))
                .collect();
            let sharded = members
                .iter()
                .any(|h| h.shard_name.is_some() || h.type_name.starts_with("SHARD_"));
            let mut name = NAMES[(3 * p + i) % NAMES.len()].to_string();
            if i >= NAMES.len() {
                name = format!("{name}-{}", i / NAMES.len());
            }
            let part = |r: &mut SplitMix64, rs: &str| ClusterPart {
                id: r.object_id(project.created.timestamp()),
                replica_set_name: rs.to_string(),
            };
            let mut shards: Vec<ClusterPart> = Vec::new();
            for h in &members {
                if let Some(s) = &h.shard_name {
                    if !shards.iter().any(|x| &x.replica_set_name == s) {
                        shards.push(part(&mut r, s));
                    }
                }
            }
            let config_servers = members
                .iter()
                .find(|h| h.type_name == "SHARD_CONFIG")
                .and_then(|h| h.replica_set_name.as_deref())
                .map(|rs| part(&mut r, rs));
            let created = members
                .iter()
                .map(|h| h.created)
                .min()
                .unwrap_or(project.created);
            let tier = *r.pick(&["M10", "M20", "M30", "M30", "M40", "M40", "M50", "M60"]);
            let first = members[0];
            clusters.push(Cluster {
                id: id.to_string(),
                group_id: project.id.clone(),
                label: name.clone(),
                name,
                sharded,
                replica_set_name: (!sharded).then(|| first.replica_set_name.clone()).flatten(),
                shards,
                config_servers,
                members: members.iter().map(|h| h.process_id()).collect(),
                created,
                last_heartbeat: members.iter().map(|h| h.last_ping).max().unwrap_or(created),
                instance_size: tier,
                disk_size_gb: 0.0,
                compute_auto_scaling: None,
                disk_auto_scaling: false,
                oversized: false,
                mongodb_version: first.version.clone(),
                domain: first
                    .hostname
                    .split_once('.')
                    .map_or(String::new(), |(_, d)| d.to_string()),
            });
        }
    }
    auto_scaling(world, &mut clusters);
    oversized(world, &mut clusters, seed);
    for c in &mut clusters {
        configure(world, c);
    }
    world.clusters = clusters;
}

/// The hosts of cluster `c`, by index.
fn members_of(world: &World, c: &Cluster) -> Vec<usize> {
    world
        .hosts
        .iter()
        .filter(|h| h.cluster_id.as_deref() == Some(c.id.as_str()))
        .map(|h| h.index)
        .collect()
}

/// Compute auto-scaling on the first cluster without a CPU or cache finding (so that every
/// flavour finds those), disk auto-scaling on the cluster whose data disk reaches 90 %
/// soonest, another than the first where one has a growing disk.
fn auto_scaling(world: &World, clusters: &mut [Cluster]) {
    let pressed = |c: &Cluster| {
        members_of(world, c).iter().any(|&i| {
            world.hosts[i]
                .seeded
                .iter()
                .any(|s| matches!(s.finding, Finding::Cpu | Finding::Cache))
        })
    };
    let compute = clusters.iter().position(|c| !pressed(c));
    if let Some(i) = compute {
        let tier = clusters[i].instance_size;
        clusters[i].compute_auto_scaling = Some((tier, tier_above(tier, 2)));
    }
    let soonest = |c: &Cluster| {
        members_of(world, c)
            .iter()
            .filter(|&&i| holds_data(&world.hosts[i]))
            .filter_map(|&i| days_to_90(&world.hosts[i].partitions[0]))
            .filter(|d| *d > 0.0)
            .reduce(f64::min)
    };
    let by_days = |skip: Option<usize>| {
        clusters
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .filter_map(|(i, c)| soonest(c).map(|d| (i, d)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    };
    if let Some(i) = by_days(compute).or_else(|| by_days(None)) {
        clusters[i].disk_auto_scaling = true;
    }
}

/// Whether a breach can flag the host in a capacity analysis: one of replication lag (its
/// alerts' threshold, 60 s, is headroom's limit too; the connections' alerts fire at 2 000,
/// far below headroom's 5 000, and asserts are no resource), open or over within the 63
/// days before the anchor (what Atlas keeps of hourly data, the longest history a capacity
/// analysis pulls).
fn recent_breach(h: &Host, anchor: i64) -> bool {
    h.breaches.iter().any(|b| {
        b.metric == "OPLOG_REPLICATION_LAG_TIME" && b.end.is_none_or(|e| e > anchor - 63 * 86_400)
    })
}

/// The first replica set with no finding, no recent breach and no auto-scaling becomes an
/// `M60` whose disks are flat and a quarter full: clearly oversized.
fn oversized(world: &mut World, clusters: &mut [Cluster], seed: u64) {
    let anchor = world.anchor.timestamp();
    let quiet = |c: &Cluster, w: &World| {
        !c.sharded
            && c.compute_auto_scaling.is_none()
            && !c.disk_auto_scaling
            && members_of(w, c).iter().all(|&i| {
                let h = &w.hosts[i];
                h.seeded.is_empty() && !recent_breach(h, anchor)
            })
    };
    let Some(c) = clusters.iter_mut().find(|c| quiet(c, world)) else {
        return;
    };
    c.oversized = true;
    c.instance_size = "M60";
    for i in members_of(world, c) {
        let h = &mut world.hosts[i];
        for (k, p) in h.partitions.iter_mut().enumerate() {
            let cap = p.capacity_bytes as f64;
            p.used_bytes_at_anchor = (cap * (0.22 + 0.02 * k as f64)).round();
            p.growth_bytes_per_day = 0.0;
            p.growth = Growth::Flat;
            p.noise_bytes = (cap * 0.001).round();
        }
        let mut dbr = SplitMix64::new(super::super::rng::hash(&[seed, i as u64, 0x6462_7321]));
        let (dbs, overhead) = databases(&mut dbr, &h.partitions[0], false);
        h.databases = dbs;
        h.data_overhead_bytes = overhead;
    }
}

/// A cluster's processes take its tier's memory and cores and their Atlas aliases; its disk
/// size is its largest data-bearing member's data partition.
fn configure(world: &mut World, c: &mut Cluster) {
    let (mem, cores) = tier_size(c.instance_size).unwrap_or((8192, 2));
    let mut largest = 0u64;
    let mut per_part: Vec<(String, usize)> = Vec::new();
    for i in members_of(world, c) {
        let h = &mut world.hosts[i];
        h.mem_size_mb = mem;
        h.num_cores = cores;
        if holds_data(h) {
            largest = largest.max(h.partitions[0].capacity_bytes);
        }
        // The alias: `<label>-<part>-<ss>-<nn>.<domain>`, `nn` the member within its part.
        let (kind, shard) = match h.type_name.as_str() {
            "SHARD_CONFIG" => ("config", 0),
            "SHARD_MONGOS" => ("mongos", 0),
            _ => {
                let s = h
                    .shard_name
                    .as_ref()
                    .and_then(|s| c.shards.iter().position(|x| &x.replica_set_name == s));
                ("shard", s.unwrap_or(0))
            }
        };
        let key = format!("{kind}-{shard:02}");
        let n = match per_part.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                per_part.push((key.clone(), 0));
                0
            }
        };
        h.alias = Some(format!("{}-{key}-{n:02}.{}", c.label, c.domain));
    }
    c.disk_size_gb = (largest as f64 / GIB as f64).round();
}
