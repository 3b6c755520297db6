//! The seeded capacity findings as truths (`world/findings.rs` seeds them): what
//! `opsapi.capacity.headroom` must name, with its resource, scope and member.

use chrono::{DateTime, TimeDelta, Utc};

use super::world::{Finding, DIRTY_TRIGGER_PERCENT, OPLOG_TARGET_HOURS};
use super::Simulator;

/// One seeded capacity finding: the truth a headroom analysis should find.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadroomTruth {
    /// The `resource` it shows in: `oplog_window`, `cpu`, `connections`, `cache` or
    /// `shard_growth`.
    pub resource: &'static str,
    /// `host`, `replica_set`, `shard` or `cluster`: the scope that owns the finding.
    pub scope_kind: &'static str,
    /// The scope's name: `hostname:port`, the replica set or shard name, or the cluster id.
    pub scope: String,
    /// Project.
    pub group_id: String,
    /// The cluster, when the host belongs to one.
    pub cluster_id: Option<String>,
    /// The replica set, for a replica set's finding.
    pub replica_set_name: Option<String>,
    /// The shard that grows faster, for `shard_growth`.
    pub shard_name: Option<String>,
    /// `hostname:port` of the member(s) that set the value (every member of the fast shard).
    pub members: Vec<String>,
    /// The host ids of those members.
    pub host_ids: Vec<String>,
    /// The measurements that show it.
    pub measurements: Vec<&'static str>,
    /// The trend's level at the anchor (hours, percent, connections; for `shard_growth` the
    /// fast shard's growth over the others').
    pub level_at_anchor: f64,
    /// The trend's change per day (for `shard_growth`: the fast shard's bytes per day).
    pub per_day: f64,
    /// The threshold it passes or heads for (24 h, 90 %, the dirty trigger 20 %), if any.
    pub threshold: Option<f64>,
    /// When the trend crosses `threshold` (the oplog window), if it heads for it.
    pub crosses_at: Option<DateTime<Utc>>,
    /// Reference instant.
    pub anchor: DateTime<Utc>,
}

impl Simulator {
    /// The capacity findings seeded into the world: a replica set whose oplog window shrinks
    /// below 24 h, a host whose CPU p95 is above 90 %, one whose connections climb, a cache
    /// under pressure, and a sharded cluster whose one shard grows 4× faster than the
    /// others (each where the world's shape allows it: the default one holds all five).
    ///
    /// ```
    /// let sim = opsapi::sim::Simulator::start(Default::default()).unwrap();
    /// let truth = sim.headroom_truth();
    /// let resources: Vec<&str> = truth.iter().map(|t| t.resource).collect();
    /// assert_eq!(resources, ["shard_growth", "oplog_window", "cpu", "connections", "cache"]);
    /// ```
    pub fn headroom_truth(&self) -> Vec<HeadroomTruth> {
        let w = self.shared.world_read();
        let anchor = w.anchor;
        let mut out = Vec::new();
        if let Some(s) = &w.shard_growth {
            let fast: Vec<_> = w
                .hosts
                .iter()
                .filter(|h| {
                    h.cluster_id.as_ref() == Some(&s.cluster_id)
                        && h.shard_name.as_ref() == Some(&s.fast_shard)
                })
                .collect();
            out.push(HeadroomTruth {
                resource: Finding::ShardGrowth.resource(),
                scope_kind: "cluster",
                scope: s.cluster_id.clone(),
                group_id: fast[0].group_id.clone(),
                cluster_id: Some(s.cluster_id.clone()),
                replica_set_name: None,
                shard_name: Some(s.fast_shard.clone()),
                members: fast.iter().map(|h| h.process_id()).collect(),
                host_ids: fast.iter().map(|h| h.id.clone()).collect(),
                measurements: vec!["DISK_PARTITION_SPACE_USED"],
                level_at_anchor: s.ratio,
                per_day: s.fast_bytes_per_day,
                threshold: None,
                crosses_at: None,
                anchor,
            });
        }
        for finding in [
            Finding::OplogWindow,
            Finding::Cpu,
            Finding::Connections,
            Finding::Cache,
        ] {
            for h in &w.hosts {
                let series: Vec<_> = h.seeded.iter().filter(|s| s.finding == finding).collect();
                let Some(first) = series.first() else {
                    continue;
                };
                let (scope_kind, scope, threshold) = match finding {
                    Finding::OplogWindow => (
                        if h.shard_name.is_some() {
                            "shard"
                        } else {
                            "replica_set"
                        },
                        h.replica_set_name.clone().unwrap_or_default(),
                        Some(OPLOG_TARGET_HOURS),
                    ),
                    Finding::Cpu => ("host", h.process_id(), Some(90.0)),
                    Finding::Cache => ("host", h.process_id(), Some(DIRTY_TRIGGER_PERCENT)),
                    _ => ("host", h.process_id(), None),
                };
                let crosses_at = (finding == Finding::OplogWindow).then(|| {
                    let days = (first.level - OPLOG_TARGET_HOURS) / -first.per_day;
                    anchor + TimeDelta::milliseconds((days * 86_400_000.0) as i64)
                });
                out.push(HeadroomTruth {
                    resource: finding.resource(),
                    scope_kind,
                    scope,
                    group_id: h.group_id.clone(),
                    cluster_id: h.cluster_id.clone(),
                    replica_set_name: h.replica_set_name.clone(),
                    shard_name: None,
                    members: vec![h.process_id()],
                    host_ids: vec![h.id.clone()],
                    measurements: series.iter().map(|s| s.metric).collect(),
                    level_at_anchor: first.level,
                    per_day: first.per_day,
                    threshold,
                    crosses_at,
                    anchor,
                });
            }
        }
        out
    }
}
