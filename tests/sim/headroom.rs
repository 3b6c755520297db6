//! The seeded capacity findings (`Simulator::headroom_truth`): the default world holds all
//! five, the served series show each, and they move nothing else of the world.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use opsapi::sim::{SimConfig, Simulator};
use serde_json::Value;

use crate::common::{start, Api};

fn anchor() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap()
}

fn default_world() -> Simulator {
    start(SimConfig {
        now: Some(anchor()),
        ..SimConfig::default()
    })
}

/// The values of one host series over the 14 days before the anchor, hourly.
async fn values(api: &Api, group: &str, host: &str, metric: &str) -> Vec<f64> {
    let path = format!(
        "/groups/{group}/hosts/{host}/measurements?granularity=PT1H&period=P14D&m={metric}"
    );
    let v: Value = api.get_json(&path).await;
    v["measurements"][0]["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["value"].as_f64())
        .collect()
}

fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[tokio::test]
async fn the_default_world_holds_every_finding_on_hosts_of_its_own() {
    let sim = default_world();
    let truth = sim.headroom_truth();
    let resources: Vec<&str> = truth.iter().map(|t| t.resource).collect();
    assert_eq!(
        resources,
        [
            "shard_growth",
            "oplog_window",
            "cpu",
            "connections",
            "cache"
        ]
    );
    let mut hosts: Vec<&String> = truth.iter().flat_map(|t| &t.host_ids).collect();
    hosts.sort();
    hosts.dedup();
    assert_eq!(hosts.len(), 5, "each finding on hosts of its own");
    let world = sim.world();
    let host = |id: &str| world.hosts.iter().find(|h| h.id == id).unwrap();

    let oplog = &truth[1];
    let member = host(&oplog.host_ids[0]);
    assert_eq!(oplog.scope_kind, "replica_set");
    assert_eq!(member.type_name, "REPLICA_SECONDARY");
    assert_eq!(oplog.scope, *member.replica_set_name.as_ref().unwrap());
    assert_eq!(oplog.threshold, Some(24.0));
    let crosses = oplog.crosses_at.unwrap();
    assert!(crosses > anchor() + TimeDelta::days(7) && crosses < anchor() + TimeDelta::days(12));

    let shards = &truth[0];
    assert_eq!(shards.scope_kind, "cluster");
    assert_eq!(shards.level_at_anchor, 4.0);
    let fast = shards.shard_name.as_ref().unwrap();
    let parts = sim.partition_truth();
    let data_growth = |shard: &str| -> Vec<f64> {
        world
            .hosts
            .iter()
            .filter(|h| h.cluster_id.as_ref() == Some(&shards.scope))
            .filter(|h| h.shard_name.as_deref() == Some(shard))
            .map(|h| {
                parts
                    .iter()
                    .find(|p| p.host_id == h.id && p.partition_name == "data")
                    .unwrap()
                    .growth_bytes_per_day
            })
            .collect()
    };
    let others: Vec<&str> = world
        .hosts
        .iter()
        .filter(|h| h.cluster_id.as_ref() == Some(&shards.scope))
        .filter_map(|h| h.shard_name.as_deref())
        .filter(|s| s != fast)
        .collect();
    assert!(!others.is_empty());
    for g in data_growth(fast) {
        for o in others.iter().flat_map(|s| data_growth(s)) {
            assert!((g / o - 4.0).abs() < 0.01, "{g} against {o}");
        }
    }
    // The databases still add up to the data partitions they sit on.
    for h in world
        .hosts
        .iter()
        .filter(|h| h.cluster_id.as_ref() == Some(&shards.scope) && h.shard_name.is_some())
    {
        let sum: f64 = h.databases.iter().map(|d| d.size_at_anchor).sum();
        let data = &h.partitions[0];
        assert!((sum + h.data_overhead_bytes - data.used_bytes_at_anchor).abs() < 1.0);
    }
}

#[tokio::test]
async fn the_served_series_show_each_finding() {
    let sim = default_world();
    let api = Api::owner(&sim);
    let truth = sim.headroom_truth();
    let of = |r: &str| truth.iter().find(|t| t.resource == r).unwrap();

    let oplog = of("oplog_window");
    let v = values(
        &api,
        &oplog.group_id,
        &oplog.host_ids[0],
        "OPLOG_MASTER_TIME",
    )
    .await;
    let (first, last) = (v[0], *v.last().unwrap());
    let expect_first = oplog.level_at_anchor - 14.0 * oplog.per_day;
    assert!(
        (first - expect_first).abs() < 0.02 * expect_first,
        "{first} {expect_first}"
    );
    assert!((last - oplog.level_at_anchor).abs() < 0.02 * last, "{last}");

    let cpu = of("cpu");
    for metric in ["PROCESS_NORMALIZED_CPU_USER", "SYSTEM_NORMALIZED_CPU_USER"] {
        let v = values(&api, &cpu.group_id, &cpu.host_ids[0], metric).await;
        let p95 = quantile(v, 0.95);
        assert!(p95 > 90.0 && p95 <= 100.0, "{metric} p95 {p95}");
    }

    let conn = of("connections");
    let v = values(&api, &conn.group_id, &conn.host_ids[0], "CONNECTIONS").await;
    let (day1, day14) = (mean(&v[..24]), mean(&v[v.len() - 24..]));
    assert!(day14 > day1 + 10.0 * conn.per_day, "{day1} -> {day14}");

    let cache = of("cache");
    let v = values(
        &api,
        &cache.group_id,
        &cache.host_ids[0],
        "DIRTY_FILL_RATIO",
    )
    .await;
    assert!(quantile(v, 0.5) > 20.0);
}

#[test]
fn the_findings_move_nothing_else() {
    // The first two projects of the default world are those of a world of two projects,
    // host for host and database for database, but for the hosts findings name.
    let cfg = |projects| SimConfig {
        projects,
        anchor: Some(anchor()),
        ..SimConfig::default()
    };
    let (two, three) = (start(cfg(2)), start(cfg(3)));
    assert!(two
        .headroom_truth()
        .iter()
        .all(|t| t.resource != "shard_growth"));
    let named: Vec<String> = three
        .headroom_truth()
        .into_iter()
        .flat_map(|t| t.host_ids)
        .collect();
    let (a, b) = (two.world(), three.world());
    assert_eq!(a.projects[..], b.projects[..2]);
    for (x, y) in a.hosts.iter().zip(&b.hosts) {
        assert_eq!(x.partitions, y.partitions);
        assert_eq!(x.databases, y.databases);
        if !named.contains(&y.id) {
            assert!(y.seeded.is_empty());
        }
    }
    let (da, db) = (two.database_truth(), three.database_truth());
    assert_eq!(da[..], db[..da.len()]);
}
