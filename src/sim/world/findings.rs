//! The capacity findings seeded into the world (issue 23): what `opsapi.capacity.headroom`
//! must find, each a known truth ([`crate::sim::Simulator::headroom_truth`]).
//!
//! - a replica set member whose oplog window (`OPLOG_MASTER_TIME`) shrinks toward 24 h and
//!   crosses it 7 to 12 days after the anchor;
//! - a host whose normalized CPU runs at a p95 above 90 %;
//! - a host whose connections climb steadily;
//! - a host whose WiredTiger cache is under pressure (dirty above the 20 % trigger);
//! - a sharded cluster (the first with two shards or more) whose one shard's data partition
//!   grows 4× as fast as the others'.
//!
//! The CPU, connections and cache findings are each on a replica set's data-bearing member (a
//! shard's included), never a standalone, which Atlas does not have: every flavour serves
//! every finding's host. Each goes to a deployment with the fewest findings so far, so that
//! the findings spread over the deployments, and to its host with the fewest breaches that
//! would hide or outrank the finding: they are seeded after the alerts' breaches are settled
//! ([`seed_hosts`]); the shard growth before them (its partitions shape the disk alerts),
//! and the oplog window with it, as they were.
//!
//! Drawn from random streams of their own, after the rest of the world: with or without
//! them, every other value of the world is the same. A finding whose shape the world lacks
//! (no replica set, no cluster of two shards, too few hosts) is not seeded.

use super::*;

/// The finding a seeded series or partition belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    /// The oplog window shrinks below its 24 h target.
    OplogWindow,
    /// CPU p95 above 90 %.
    Cpu,
    /// Connections climbing steadily.
    Connections,
    /// WiredTiger cache under pressure (dirty bytes above the trigger).
    Cache,
    /// One shard growing much faster than the others.
    ShardGrowth,
}

impl Finding {
    /// The `resource` of `opsapi.capacity.headroom` the finding shows in.
    pub fn resource(self) -> &'static str {
        match self {
            Finding::OplogWindow => "oplog_window",
            Finding::Cpu => "cpu",
            Finding::Connections => "connections",
            Finding::Cache => "cache",
            Finding::ShardGrowth => "shard_growth",
        }
    }
}

/// A host series replaced by a seeded one: `(level + per_day · days) · (1 + cycle · (load −
/// 0.3)) · (1 + noise · u)`, `days` counted from the anchor, `load` the daily business-hours
/// cycle of every series, `u` uniform noise in [−1, 1).
#[derive(Debug, Clone, PartialEq)]
pub struct SeededSeries {
    /// The measurement name (`CONNECTIONS`, ...).
    pub metric: &'static str,
    /// The finding it belongs to.
    pub finding: Finding,
    /// The trend's value at the anchor, in the measurement's units.
    pub level: f64,
    /// The trend's change per day.
    pub per_day: f64,
    /// How much the daily load cycle moves it (0: not at all).
    pub cycle: f64,
    /// Relative noise amplitude.
    pub noise: f64,
    /// Whole numbers (gauges of counts).
    pub int: bool,
    /// A percentage (clamped to [0, 100]).
    pub percent: bool,
}

impl SeededSeries {
    /// The value at `t` (unix seconds); `anchor` in unix seconds, `load` the cycle in [0, 1],
    /// `u` the noise draw in [−1, 1).
    pub fn value(&self, anchor: i64, t: i64, load: f64, u: f64) -> f64 {
        let days = (t - anchor) as f64 / 86_400.0;
        let v = (self.level + self.per_day * days)
            * (1.0 + self.cycle * (load - 0.3))
            * (1.0 + self.noise * u);
        let v = if self.percent {
            v.clamp(0.0, 100.0)
        } else {
            v.max(0.0)
        };
        if self.int {
            v.round()
        } else {
            (v * 100.0).round() / 100.0
        }
    }
}

/// The seeded one-shard-grows-faster finding of a sharded cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardGrowth {
    /// The cluster.
    pub cluster_id: String,
    /// The shard that grows fastest.
    pub fast_shard: String,
    /// Its data partitions' growth over the other shards'.
    pub ratio: f64,
    /// Growth of the fast shard's data partition, bytes per day.
    pub fast_bytes_per_day: f64,
    /// Growth of every other shard's data partition, bytes per day.
    pub other_bytes_per_day: f64,
}

/// The oplog window's target: a secondary that falls further behind than the window needs a
/// full resync.
pub const OPLOG_TARGET_HOURS: f64 = 24.0;
/// WiredTiger's `eviction_dirty_trigger`, percent of the cache.
pub const DIRTY_TRIGGER_PERCENT: f64 = 20.0;

/// Seeds the findings into `world` (see the module's documentation).
pub(super) fn seed(world: &mut World, seed: u64) {
    let mut r = SplitMix64::new(super::super::rng::hash(&[seed, 0x6865_6164_726f_6f6d]));
    let mut taken: Vec<usize> = Vec::new();
    if let Some(shards) = shard_growth(world, seed, &mut r) {
        taken.extend(
            world
                .hosts
                .iter()
                .filter(|h| h.cluster_id.as_deref() == Some(shards.cluster_id.as_str()))
                .map(|h| h.index),
        );
        world.shard_growth = Some(shards);
    }
    // The oplog window: a secondary of the first replica set (not a shard) with two members
    // or more, or else of any such replica set.
    let sets = replica_sets(world, &taken);
    let set = sets
        .iter()
        .find(|s| !world.hosts[s[0]].type_name.starts_with("SHARD"))
        .or(sets.first());
    if let Some(set) = set {
        let member = set[1 + r.range(0, set.len() as u64 - 1) as usize];
        let days = 7.0 + 5.0 * r.f64();
        let per_day = 2.0 + r.f64();
        world.hosts[member].seeded.push(SeededSeries {
            metric: "OPLOG_MASTER_TIME",
            finding: Finding::OplogWindow,
            level: OPLOG_TARGET_HOURS + days * per_day,
            per_day: -per_day,
            cycle: 0.0,
            noise: 0.01,
            int: false,
            percent: false,
        });
        taken.extend(set.iter().copied());
    }
}

/// Seeds the CPU, connections and cache findings, after the alerts' breaches are settled:
/// each on a replica set's data-bearing member (never a standalone, which Atlas does not
/// have, nor a mongos, a config server or an arbiter) of a deployment with the fewest findings
/// so far, without a breach of the finding's measurement (which would hide it) or of
/// replication lag (which would outrank it) where one is left: every flavour serves the
/// hosts of these findings, and every one is found as seeded.
pub(super) fn seed_hosts(world: &mut World, seed: u64) {
    let mut r = SplitMix64::new(super::super::rng::hash(&[seed, 0x686f_7374_7321]));
    let deployment = |h: &Host| h.cluster_id.clone().or_else(|| h.replica_set_name.clone());
    let mut held: Vec<Option<String>> = world
        .hosts
        .iter()
        .filter(|h| !h.seeded.is_empty())
        .map(deployment)
        .collect();
    held.extend(
        world
            .shard_growth
            .as_ref()
            .map(|s| Some(s.cluster_id.clone())),
    );
    // The fast shard's members are the shard growth's: each finding on hosts of its own.
    let fast = |h: &Host| {
        world.shard_growth.as_ref().is_some_and(|s| {
            h.cluster_id.as_deref() == Some(s.cluster_id.as_str())
                && h.shard_name.as_deref() == Some(s.fast_shard.as_str())
        })
    };
    let mut picked: Vec<usize> = Vec::new();
    let mut pick = |r: &mut SplitMix64, metrics: &[&str]| {
        let free: Vec<&Host> = world
            .hosts
            .iter()
            .filter(|h| h.seeded.is_empty() && !picked.contains(&h.index) && !fast(h))
            .filter(|h| h.replica_set_name.is_some())
            .filter(|h| {
                !matches!(h.type_name.as_str(), "SHARD_CONFIG" | "SHARD_MONGOS")
                    && !h.type_name.contains("ARBITER")
            })
            .collect();
        // Fewest findings first, then fewest breaches of the finding's measurements or of
        // replication lag, then fewest breaches.
        let key = |h: &Host| {
            let count = held.iter().filter(|d| **d == deployment(h)).count();
            let near = h
                .breaches
                .iter()
                .filter(|b| {
                    b.metric == "OPLOG_REPLICATION_LAG_TIME"
                        || metrics.iter().any(|x| b.metric.contains(x))
                })
                .count();
            (count, near, h.breaches.len())
        };
        let fewest = free.iter().map(|h| key(h)).min()?;
        let free: Vec<usize> = free
            .iter()
            .filter(|h| key(h) == fewest)
            .map(|h| h.index)
            .collect();
        let i = free[r.range(0, free.len() as u64) as usize];
        picked.push(i);
        held.push(deployment(&world.hosts[i]));
        Some(i)
    };
    let cpu = pick(&mut r, &["CPU"]);
    let connections = pick(&mut r, &["CONNECTIONS"]);
    let cache = pick(&mut r, &["CACHE", "DIRTY"]);
    if let Some(i) = cpu {
        // p95 about 93 % in the busiest hours of the weekdays; 65 % at night.
        let level = 72.0 + 3.0 * r.f64();
        for (metric, extra) in [
            ("PROCESS_NORMALIZED_CPU_USER", 0.0),
            ("SYSTEM_NORMALIZED_CPU_USER", 1.5),
        ] {
            world.hosts[i].seeded.push(SeededSeries {
                metric,
                finding: Finding::Cpu,
                level: level + extra,
                per_day: 0.0,
                cycle: 0.35,
                noise: 0.02,
                int: false,
                percent: true,
            });
        }
    }
    if let Some(i) = connections {
        let level = 1500.0 + 500.0 * r.f64();
        world.hosts[i].seeded.push(SeededSeries {
            metric: "CONNECTIONS",
            finding: Finding::Connections,
            level,
            per_day: level / 18.0,
            cycle: 0.3,
            noise: 0.03,
            int: true,
            percent: false,
        });
    }
    if let Some(i) = cache {
        // Dirty bytes at 1.05 to 1.15× the trigger through the day: application threads evict.
        let level = DIRTY_TRIGGER_PERCENT * (1.05 + 0.1 * r.f64());
        let cache_bytes = 4.0 * GIB as f64;
        for (metric, lvl, int, percent) in [
            ("DIRTY_FILL_RATIO", level, false, true),
            (
                "CACHE_DIRTY_BYTES",
                level / 100.0 * cache_bytes,
                true,
                false,
            ),
        ] {
            world.hosts[i].seeded.push(SeededSeries {
                metric,
                finding: Finding::Cache,
                level: lvl,
                per_day: 0.0,
                cycle: 0.2,
                noise: 0.03,
                int,
                percent,
            });
        }
    }
}

/// Members of each replica set with two members or more, hosts in `taken` left out, in world
/// order (the primary first).
fn replica_sets(world: &World, taken: &[usize]) -> Vec<Vec<usize>> {
    let mut sets: Vec<(String, String, Vec<usize>)> = Vec::new();
    for h in world.hosts.iter().filter(|h| !taken.contains(&h.index)) {
        let Some(rs) = &h.replica_set_name else {
            continue;
        };
        match sets
            .iter_mut()
            .find(|(g, name, _)| *g == h.group_id && name == rs)
        {
            Some(s) => s.2.push(h.index),
            None => sets.push((h.group_id.clone(), rs.clone(), vec![h.index])),
        }
    }
    sets.into_iter()
        .map(|s| s.2)
        .filter(|m| m.len() >= 2)
        .collect()
}

/// The first cluster with two shards or more: one shard's data partitions grow 4× as fast
/// as the others'. Every member's data partition gets the same capacity and byte growth as its
/// shard's others (members hold the same data), its other partitions stop growing, and its
/// databases are drawn again (from their own stream, as at first) to add up to the new data
/// partition.
fn shard_growth(world: &mut World, seed: u64, r: &mut SplitMix64) -> Option<ShardGrowth> {
    let (cluster, shards) = world.hosts.iter().find_map(|h| {
        let cluster = h.cluster_id.as_ref()?;
        let mut shards: Vec<&str> = world
            .hosts
            .iter()
            .filter(|o| o.cluster_id.as_ref() == Some(cluster))
            .filter_map(|o| o.shard_name.as_deref())
            .collect();
        shards.dedup();
        (shards.len() >= 2).then(|| {
            let owned: Vec<String> = shards.iter().map(|s| s.to_string()).collect();
            (cluster.clone(), owned)
        })
    })?;
    let fast = shards[r.range(0, shards.len() as u64) as usize].clone();
    let members: Vec<usize> = world
        .hosts
        .iter()
        .filter(|h| h.cluster_id.as_ref() == Some(&cluster) && h.shard_name.is_some())
        .map(|h| h.index)
        .collect();
    let capacity = world.hosts[members[0]].partitions[0].capacity_bytes;
    let cap = capacity as f64;
    // The fast shard's data partition: about 1 % of its capacity a day from about 66 % used,
    // so 90 % in 2 to 4 weeks; the databases' 60 days of history still fit (60 × 1 % < 66 %).
    let fast_frac = 0.0095 + 0.001 * r.f64();
    let slow_frac = fast_frac / 4.0;
    let fast_used = 60.0 * fast_frac + 0.05;
    let slow_used = 0.3 + 0.2 * r.f64();
    for &i in &members {
        let is_fast = world.hosts[i].shard_name.as_deref() == Some(fast.as_str());
        let host = &mut world.hosts[i];
        for p in host.partitions.iter_mut().skip(1) {
            p.growth_bytes_per_day = 0.0;
            p.growth = Growth::Flat;
            p.noise_bytes = (p.capacity_bytes as f64 * 0.001).round();
        }
        let data = &mut host.partitions[0];
        let (frac, used) = if is_fast {
            (fast_frac, fast_used)
        } else {
            (slow_frac, slow_used)
        };
        data.capacity_bytes = capacity;
        data.used_bytes_at_anchor = (cap * used).round();
        data.growth_bytes_per_day = (cap * frac).round();
        data.noise_bytes = (cap * 0.002).round();
        data.growth = if is_fast { Growth::Fast } else { Growth::Slow };
        let mut dbr = SplitMix64::new(super::super::rng::hash(&[seed, i as u64, 0x6462_7321]));
        let (dbs, overhead) = databases(&mut dbr, &host.partitions[0], false);
        host.databases = dbs;
        host.data_overhead_bytes = overhead;
    }
    Some(ShardGrowth {
        cluster_id: cluster,
        fast_shard: fast,
        ratio: 4.0,
        fast_bytes_per_day: (cap * fast_frac).round(),
        other_bytes_per_day: (cap * slow_frac).round(),
    })
}
