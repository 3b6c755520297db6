//! The simulator's measurements: windows, granularities, shapes, determinism, disk truth.

use chrono::{DateTime, TimeZone, Utc};
use opsapi::sim::{Growth, SimConfig};
use serde_json::Value;

use crate::common::{start, Api, PREFIX};

fn anchor() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, 20, 0, 0, 0).unwrap()
}

fn fixed(seed: u64) -> SimConfig {
    SimConfig {
        seed,
        anchor: Some(anchor()),
        ..SimConfig::default()
    }
}

fn series<'a>(v: &'a Value, name: &str) -> &'a Vec<Value> {
    v["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"))["dataPoints"]
        .as_array()
        .unwrap()
}

#[tokio::test]
async fn window_granularity_and_shape() {
    let sim = start(fixed(1));
    let api = Api::owner(&sim);
    let w = sim.world();
    let h = &w.hosts[0];
    let path = format!(
        "/groups/{}/hosts/{}/measurements?granularity=PT1M&start=2024-05-01T00:00:30Z&end=2024-05-02T00:00:00Z&m=SYSTEM_CPU_USER&m=CONNECTIONS&m=OPCOUNTER_QUERY",
        h.group_id, h.id
    );
    let v = api.get_json(&path).await;
    assert_eq!(v["groupId"], h.group_id.as_str());
    assert_eq!(v["hostId"], h.id.as_str());
    assert_eq!(v["processId"], format!("{}:{}", h.hostname, h.port));
    assert_eq!(v["granularity"], "PT1M");
    assert_eq!(v["start"], "2024-05-01T00:01:00Z");
    assert_eq!(v["end"], "2024-05-02T00:00:00Z");
    assert_eq!(v["links"][0]["rel"], "self");
    assert_eq!(
        v["links"][0]["href"],
        format!("{}{PREFIX}{path}", sim.base_url())
    );
    let names: Vec<&str> = v["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    // Catalog order, whatever the request order.
    assert_eq!(names, ["CONNECTIONS", "OPCOUNTER_QUERY", "SYSTEM_CPU_USER"]);
    let units: Vec<&str> = v["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["units"].as_str().unwrap())
        .collect();
    assert_eq!(units, ["SCALAR", "SCALAR_PER_SECOND", "PERCENT"]);
    let ops = series(&v, "OPCOUNTER_QUERY");
    assert_eq!(ops.len(), 1440);
    assert!(ops[0]["value"].is_null(), "rate series start with null");
    assert!(ops[1]["value"].is_f64() || ops[2]["value"].is_f64());
    let conn = series(&v, "CONNECTIONS");
    assert!(conn[0]["value"].is_number());
    for (i, p) in conn.iter().enumerate() {
        let t = DateTime::parse_from_rfc3339(p["timestamp"].as_str().unwrap()).unwrap();
        assert_eq!(t.timestamp() % 60, 0);
        assert_eq!(t.timestamp(), 1_714_521_660 + 60 * i as i64);
    }
    // Daily cycle: 2024-05-01 is a Wednesday; CPU is busier at 14:00 than at 03:00 UTC.
    let cpu = series(&v, "SYSTEM_CPU_USER");
    let avg = |from: usize, to: usize| {
        let xs: Vec<f64> = cpu[from..to]
            .iter()
            .filter_map(|p| p["value"].as_f64())
            .collect();
        xs.iter().sum::<f64>() / xs.len() as f64
    };
    assert!(avg(13 * 60, 15 * 60) > 1.5 * avg(2 * 60, 4 * 60));
    assert!(cpu
        .iter()
        .filter_map(|p| p["value"].as_f64())
        .all(|x| (0.0..=100.0).contains(&x)));
    // Occasional gaps.
    let nulls = conn.iter().filter(|p| p["value"].is_null()).count();
    assert!((1..30).contains(&nulls), "{nulls} gaps");
    // Every granularity aligns.
    for (g, step) in [
        ("PT10S", 10),
        ("PT5M", 300),
        ("PT1H", 3600),
        ("P1D", 86_400),
    ] {
        let v = api
            .get_json(&format!(
                "/groups/{}/hosts/{}/measurements?granularity={g}&period=P2D&m=CONNECTIONS",
                h.group_id, h.id
            ))
            .await;
        let pts = series(&v, "CONNECTIONS");
        assert!(!pts.is_empty());
        for p in pts {
            let t = DateTime::parse_from_rfc3339(p["timestamp"].as_str().unwrap()).unwrap();
            assert_eq!(t.timestamp() % step, 0, "{g}");
        }
        let expect = 2 * 86_400 / step;
        assert!(
            (expect..=expect + 1).contains(&(pts.len() as i64)),
            "{g} {}",
            pts.len()
        );
    }
    // All metrics when m is absent.
    let v = api
        .get_json(&format!(
            "/groups/{}/hosts/{}/measurements?granularity=PT1H&period=PT6H",
            h.group_id, h.id
        ))
        .await;
    assert!(v["measurements"].as_array().unwrap().len() >= 30);
    assert!(v.get("partitionName").is_none());
}

#[tokio::test]
async fn overlapping_windows_and_two_simulators_agree() {
    let a = start(fixed(5));
    let b = start(fixed(5));
    let c = start(fixed(6));
    assert_eq!(a.group_ids(), b.group_ids());
    assert_eq!(a.public_key(), b.public_key());
    assert_eq!(a.private_key(), b.private_key());
    assert_ne!(a.group_ids(), c.group_ids());
    assert_eq!(a.world(), b.world());
    let w = a.world();
    let h = &w.hosts[2];
    let q1 = format!(
        "/groups/{}/hosts/{}/measurements?granularity=PT5M&start=2024-05-10T00:00:00Z&end=2024-05-10T12:00:00Z&m=NETWORK_BYTES_IN&m=MEMORY_RESIDENT",
        h.group_id, h.id
    );
    let q2 = format!(
        "/groups/{}/hosts/{}/measurements?granularity=PT5M&start=2024-05-10T06:00:00Z&end=2024-05-10T18:00:00Z&m=NETWORK_BYTES_IN&m=MEMORY_RESIDENT",
        h.group_id, h.id
    );
    let (api_a, api_b) = (Api::owner(&a), Api::owner(&b));
    let v1 = api_a.get_json(&q1).await;
    let v2 = api_a.get_json(&q2).await;
    let v1b = api_b.get_json(&q1).await;
    assert_eq!(v1["measurements"], v1b["measurements"]);
    for name in ["NETWORK_BYTES_IN", "MEMORY_RESIDENT"] {
        let s1 = series(&v1, name);
        let s2 = series(&v2, name);
        // 06:00..12:00 is in both; the second window's first rate point is null.
        let skip = if name == "NETWORK_BYTES_IN" { 1 } else { 0 };
        for p2 in &s2[skip..=72] {
            let p1 = s1
                .iter()
                .find(|p| p["timestamp"] == p2["timestamp"])
                .unwrap();
            assert_eq!(p1["value"], p2["value"], "{name} {}", p2["timestamp"]);
        }
    }
}

#[tokio::test]
async fn disks_follow_the_partition_truth() {
    let sim = start(SimConfig {
        projects: 4,
        hosts_per_project: 6,
        anchor: Some(anchor()),
        ..SimConfig::default()
    });
    let api = Api::owner(&sim);
    let truth = sim.partition_truth();
    assert!(truth.iter().any(|t| t.growth == Growth::Fast));
    assert!(truth.iter().any(|t| t.growth == Growth::Flat));
    let fast = truth
        .iter()
        .find(|t| t.growth == Growth::Fast)
        .expect("a fast-filling disk");
    let full = fast.full_at().unwrap();
    assert!(
        full > anchor() + chrono::TimeDelta::days(6)
            && full < anchor() + chrono::TimeDelta::days(41)
    );
    let path = format!(
        "/groups/{}/hosts/{}/disks/{}/measurements?granularity=P1D&start=2024-04-20T00:00:00Z&end=2024-05-20T00:00:00Z",
        fast.group_id, fast.host_id, fast.partition_name
    );
    let v = api.get_json(&path).await;
    assert_eq!(v["partitionName"], fast.partition_name.as_str());
    let names: Vec<&str> = v["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "DISK_PARTITION_IOPS_READ",
            "DISK_PARTITION_IOPS_WRITE",
            "DISK_PARTITION_IOPS_TOTAL",
            "DISK_PARTITION_LATENCY_READ",
            "DISK_PARTITION_LATENCY_WRITE",
            "DISK_PARTITION_SPACE_FREE",
            "DISK_PARTITION_SPACE_USED",
            "DISK_PARTITION_SPACE_PERCENT_FREE",
            "DISK_PARTITION_SPACE_PERCENT_USED"
        ]
    );
    let used = series(&v, "DISK_PARTITION_SPACE_USED");
    let free = series(&v, "DISK_PARTITION_SPACE_FREE");
    assert_eq!(used.len(), 31);
    let mut checked = 0;
    for (u, f) in used.iter().zip(free) {
        let (Some(u), Some(f)) = (u["value"].as_f64(), f["value"].as_f64()) else {
            continue;
        };
        assert_eq!(u + f, fast.capacity_bytes as f64);
        let t = DateTime::parse_from_rfc3339(
            used.iter()
                .find(|p| p["value"].as_f64() == Some(u))
                .unwrap()["timestamp"]
                .as_str()
                .unwrap(),
        )
        .unwrap()
        .with_timezone(&Utc);
        let expect = fast.used_bytes_at(t);
        assert!(
            (u - expect).abs() <= fast.noise_bytes + 1.0,
            "{u} vs {expect}"
        );
        checked += 1;
    }
    assert!(checked > 25);
    // Growth is visible: the last day holds more than the first.
    let first = used.iter().find_map(|p| p["value"].as_f64()).unwrap();
    let last = used.iter().rev().find_map(|p| p["value"].as_f64()).unwrap();
    assert!(last - first > 20.0 * fast.growth_bytes_per_day);
    // An unknown partition.
    let r = api
        .get(&format!(
            "/groups/{}/hosts/{}/disks/nope/measurements?granularity=P1D&period=P1D",
            fast.group_id, fast.host_id
        ))
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn envelope_pretty_and_cache_agree() {
    let sim = start(fixed(2));
    let api = Api::owner(&sim);
    let w = sim.world();
    let h = &w.hosts[1];
    let base = format!(
        "/groups/{}/hosts/{}/measurements?granularity=PT1H&start=2024-05-01T00:00:00Z&end=2024-05-03T00:00:00Z",
        h.group_id, h.id
    );
    let plain = api.get(&base).await;
    let again = api.get(&base).await;
    assert_eq!(plain.body, again.body, "cached body identical");
    let env = api.get_json(&format!("{base}&envelope=true")).await;
    assert_eq!(env["status"], 200);
    assert_eq!(env["content"]["measurements"], plain.json()["measurements"]);
    let pretty = api.get(&format!("{base}&pretty=true")).await;
    assert!(pretty.body.windows(3).any(|w| w == b"\n  "));
    assert_eq!(pretty.json()["measurements"], plain.json()["measurements"]);
    // A window too large for its granularity is refused, not served.
    let r = api
        .get(&format!(
            "/groups/{}/hosts/{}/measurements?granularity=PT10S&period=P365D",
            h.group_id, h.id
        ))
        .await;
    assert_eq!(r.status, 400);
}

/// A fleet pull: `projects` x 10 hosts x 20 metrics x 1 day at PT1M, twice (cold, cached).
async fn fleet_pull(projects: usize) {
    let sim = start(SimConfig {
        projects,
        hosts_per_project: 10,
        worker_threads: 2,
        anchor: Some(anchor()),
        ..SimConfig::default()
    });
    let api = std::sync::Arc::new(Api::owner(&sim));
    let _ = api.get("/groups").await;
    let metrics = [
        "CONNECTIONS",
        "OPCOUNTER_CMD",
        "OPCOUNTER_QUERY",
        "OPCOUNTER_UPDATE",
        "OPCOUNTER_DELETE",
        "OPCOUNTER_INSERT",
        "OPCOUNTER_GETMORE",
        "NETWORK_BYTES_IN",
        "NETWORK_BYTES_OUT",
        "MEMORY_RESIDENT",
        "MEMORY_VIRTUAL",
        "CACHE_USED_BYTES",
        "CACHE_DIRTY_BYTES",
        "SYSTEM_CPU_USER",
        "SYSTEM_CPU_KERNEL",
        "SYSTEM_NORMALIZED_CPU_USER",
        "PROCESS_CPU_USER",
        "OPLOG_REPLICATION_LAG_TIME",
        "DB_STORAGE_TOTAL",
        "QUERY_EXECUTOR_SCANNED",
    ];
    let m: String = metrics.iter().map(|m| format!("&m={m}")).collect();
    let paths: Vec<String> = sim
        .world()
        .hosts
        .iter()
        .map(|h| {
            format!(
                "/groups/{}/hosts/{}/measurements?granularity=PT1M&start=2024-05-01T00:00:00Z&end=2024-05-01T23:59:00Z{m}",
                h.group_id, h.id
            )
        })
        .collect();
    assert_eq!(paths.len(), projects * 10);
    for round in 0..2 {
        let t = std::time::Instant::now();
        let mut total = 0usize;
        for chunk in paths.chunks(8) {
            let mut tasks = Vec::new();
            for p in chunk {
                let api = api.clone();
                let p = p.clone();
                tasks.push(tokio::spawn(async move { api.get(&p).await }));
            }
            for t in tasks {
                let r = t.await.unwrap();
                assert_eq!(r.status, 200);
                total += r.body.len();
            }
        }
        eprintln!(
            "fleet pull round {round}: {} MB in {:?}",
            total / 1_000_000,
            t.elapsed()
        );
        assert!(total > projects * 1_000_000 * 10);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fleet_pull_is_served() {
    fleet_pull(1).await;
}

/// The benchmark-sized pull (100 hosts, ~150 MB); run with `-- --ignored` to see its timing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "heavy in debug builds; prints the fleet-size timing"]
async fn fleet_pull_benchmark_size() {
    fleet_pull(10).await;
}

/// A host measurement asked of a database is the service's 404 `NOT_DATABASE_OR_DISK_METRIC`
/// (the client refuses it before sending: tests/python/test_databases.py), and a name of no
/// catalog its 404 `INVALID_METRIC_NAME`.
#[tokio::test]
async fn a_host_measurement_asked_of_a_database_is_refused_as_the_service_does() {
    let sim = start(fixed(1));
    let api = Api::owner(&sim);
    let w = sim.world();
    let h = w.hosts.iter().find(|h| !h.databases.is_empty()).unwrap();
    let path = |m: &str| {
        format!(
            "/groups/{}/hosts/{}/databases/{}/measurements?granularity=PT1H&period=P1D&m={m}",
            h.group_id, h.id, h.databases[0].name
        )
    };
    let r = api.get(&path("CONNECTIONS")).await;
    assert_eq!(
        (r.status, r.error_code()),
        (404, "NOT_DATABASE_OR_DISK_METRIC".to_string())
    );
    let r = api.get(&path("NO_SUCH_MEASUREMENT")).await;
    assert_eq!(
        (r.status, r.error_code()),
        (404, "INVALID_METRIC_NAME".to_string())
    );
}
