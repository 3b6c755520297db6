//! The world as a DBA reads it: config servers hold the cluster's metadata on small, slowly
//! growing disks; a mongos holds no data and has no data disk; application databases live on
//! data-bearing members only; every alert is about a host that can raise it.

use opsapi::sim::{SimConfig, Simulator};

use crate::common::start;

const GIB: f64 = (1u64 << 30) as f64;
const APP: [&str; 10] = [
    "orders",
    "customers",
    "inventory",
    "events",
    "sessions",
    "analytics",
    "billing",
    "catalog",
    "audit",
    "payments",
];

fn worlds() -> Vec<Simulator> {
    // The default world and a larger one (more clusters, more alerts).
    [(3, 5, 60, 0), (6, 12, 300, 7)]
        .into_iter()
        .map(|(projects, hosts, alerts, seed)| {
            start(SimConfig {
                seed,
                projects,
                hosts_per_project: hosts,
                global_alerts: alerts,
                ..SimConfig::default()
            })
        })
        .collect()
}

#[test]
fn config_servers_are_small_and_slow_and_a_mongos_has_no_data_disk() {
    for sim in worlds() {
        let w = sim.world();
        let config: Vec<_> = w
            .hosts
            .iter()
            .filter(|h| h.type_name == "SHARD_CONFIG")
            .collect();
        let mongos: Vec<_> = w
            .hosts
            .iter()
            .filter(|h| h.type_name == "SHARD_MONGOS")
            .collect();
        assert!(!config.is_empty() && !mongos.is_empty());
        for h in config {
            for p in &h.partitions {
                assert!(p.capacity_bytes as f64 <= 64.0 * GIB, "{}", h.hostname);
                assert!(p.used_bytes_at_anchor < 0.2 * p.capacity_bytes as f64);
                // Megabytes a day: years before it is 90 % full.
                assert!(p.growth_bytes_per_day < 0.001 * p.capacity_bytes as f64);
            }
            let names: Vec<&str> = h.databases.iter().map(|d| d.name.as_str()).collect();
            assert_eq!(names, ["admin", "config", "local"], "{}", h.hostname);
            let grows: Vec<&str> = h
                .databases
                .iter()
                .filter(|d| d.growth_bytes_per_day > 0.0)
                .map(|d| d.name.as_str())
                .collect();
            assert_eq!(grows, ["config"]);
        }
        for h in mongos {
            let names: Vec<&str> = h.partitions.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, ["root"], "{}", h.hostname);
            assert!(h.databases.is_empty());
            assert!(h.partitions[0].growth_bytes_per_day < 0.001 * GIB * 64.0);
        }
        // Application databases only on data-bearing members, and the database truth agrees.
        let role = |id: &str| {
            let h = w.hosts.iter().find(|h| h.id == id).unwrap();
            h.type_name.clone()
        };
        for d in sim.database_truth() {
            let t = role(&d.host_id);
            assert_ne!(t, "SHARD_MONGOS");
            if APP.contains(&d.database_name.as_str()) {
                assert_ne!(t, "SHARD_CONFIG", "{} on {}", d.database_name, d.process_id);
            }
        }
    }
}

#[test]
fn every_alert_is_about_a_host_that_can_raise_it() {
    for sim in worlds() {
        let w = sim.world();
        let host = |id: &Option<String>| w.hosts.iter().find(|h| Some(&h.id) == id.as_ref());
        let all = w.alerts.iter().chain(&w.alert_history);
        let mut lag = 0;
        for a in all {
            match a.metric_name.as_deref() {
                Some("OPLOG_REPLICATION_LAG_TIME") => {
                    let h = host(&a.host_id).expect("a lag alert names its host");
                    assert!(h.type_name.ends_with("_SECONDARY"), "{}", h.hostname);
                    lag += 1;
                }
                Some(m) if m.starts_with("DISK_") => {
                    let h = host(&a.host_id).expect("a disk alert names its host");
                    assert_ne!(h.type_name, "SHARD_MONGOS");
                }
                _ => {}
            }
            if a.event_type_name == "NO_PRIMARY" {
                assert!(a.replica_set_name.is_some(), "{}", a.id);
            }
        }
        assert!(lag > 0);
        // One breach of a measurement at a time on a host, three hours apart or more (but
        // for the flapping configuration's, minutes apart by design).
        let flapping = sim.alert_truth().flapping.unwrap();
        let config = |id: &str| {
            let all = w.alerts.iter().chain(&w.alert_history);
            all.clone()
                .find(|a| a.id == id)
                .unwrap()
                .alert_config_id
                .clone()
        };
        let flaps = |id: &str| config(id) == flapping.alert_config_id;
        for h in &w.hosts {
            let mut spans: Vec<_> = h.breaches.iter().collect();
            spans.sort_by_key(|b| (b.metric.clone(), b.start));
            for pair in spans.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if a.metric == b.metric && !(flaps(&a.alert_id) && flaps(&b.alert_id)) {
                    let end = a.end.expect("only the last one is still open");
                    let (x, y) = (&a.alert_id, &b.alert_id);
                    assert!(end + 3 * 3600 <= b.start, "{}: {x} then {y}", h.hostname);
                }
            }
        }
    }
}
