//! Measurement frames from documented payloads and from the simulator; fleet pulls.

#![cfg(all(feature = "frames", feature = "sim"))] // frames from the simulator

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use opsapi::frame::{self, FleetOptions, Shape, Target, LONG_COLUMNS};
use opsapi::sim::{SimConfig, Simulator};
use opsapi::{decode_model, Client, Granularity, Measurements, MeasurementsQuery};
use polars::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn utc_ms() -> DataType {
    DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
}

fn assert_long_schema(df: &DataFrame) {
    let names: Vec<&str> = df.get_column_names().iter().map(|s| s.as_str()).collect();
    assert_eq!(names, LONG_COLUMNS);
    let dtypes = df.dtypes();
    assert!(
        dtypes[..7].iter().all(|d| *d == opsapi::frame::key_dtype()),
        "{dtypes:?}"
    );
    assert_eq!(dtypes[7], utc_ms());
    assert_eq!(dtypes[8], DataType::Float64);
}

#[test]
fn long_frames_of_documented_payloads_keep_every_point_and_null() {
    let m: Measurements = decode_model(&fixture("disk-measurements-gofixture.json")).unwrap();
    let df = m.to_frame(Shape::Long).unwrap();
    assert_long_schema(&df);
    assert_eq!(df.height(), m.data_point_count());
    assert_eq!(
        df.column("value").unwrap().null_count(),
        2,
        "both nulls stay null"
    );
    let part = df.column("partition_name").unwrap().cat32().unwrap();
    assert!(part.iter_str().all(|p| p == Some("xvdb")));
    let ts = df.column("timestamp").unwrap().datetime().unwrap();
    assert_eq!(ts.physical().get(0), Some(1_503_433_872_000));

    let host: Measurements = decode_model(&fixture("host-measurements.json")).unwrap();
    let df = host.to_frame(Shape::Long).unwrap();
    assert_eq!(df.height(), 3);
    assert_eq!(df.column("partition_name").unwrap().null_count(), 3);
    let names = df.column("measurement").unwrap().cat32().unwrap();
    assert_eq!(
        names.iter_str().collect::<Vec<_>>(),
        [
            Some("CONNECTIONS"),
            Some("NETWORK_BYTES_IN"),
            Some("NETWORK_BYTES_OUT")
        ]
    );

    let empty: Measurements = decode_model(&fixture("disk-measurements.json")).unwrap();
    let df = empty.to_frame(Shape::Long).unwrap();
    assert_long_schema(&df);
    assert_eq!(df.height(), 0);
    let wide = empty.to_frame(Shape::Wide).unwrap();
    assert_eq!(wide.height(), 0);
    assert_eq!(
        wide.width(),
        10,
        "timestamp and nine all-null measurement columns"
    );
}

#[test]
fn wide_frames_align_series_with_different_timestamps() {
    let body = br#"{"measurements":[
      {"name":"A","units":"SCALAR","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1},{"timestamp":"2024-01-01T00:01:00Z","value":null}]},
      {"name":"B","units":"SCALAR","dataPoints":[{"timestamp":"2024-01-01T00:01:00Z","value":3},{"timestamp":"2024-01-01T00:02:00Z","value":4}]}]}"#;
    let m: Measurements = decode_model(body).unwrap();
    let wide = m.to_frame(Shape::Wide).unwrap();
    assert_eq!(wide.get_column_names(), ["timestamp", "A", "B"]);
    assert_eq!(wide.height(), 3);
    let a: Vec<Option<f64>> = wide.column("A").unwrap().f64().unwrap().iter().collect();
    let b: Vec<Option<f64>> = wide.column("B").unwrap().f64().unwrap().iter().collect();
    assert_eq!(a, [Some(1.0), None, None]);
    assert_eq!(b, [None, Some(3.0), Some(4.0)]);
}

fn sim_and_client(config: SimConfig) -> (Simulator, Client) {
    let sim = Simulator::start(config).unwrap();
    let client = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    (sim, client)
}

#[tokio::test]
async fn simulator_frames_long_and_wide_agree() {
    let (sim, c) = sim_and_client(SimConfig::default());
    let h = sim.world().hosts[0].clone();
    let q = MeasurementsQuery::period(Granularity::PT5M, "PT6H".parse().unwrap()).metrics([
        "CONNECTIONS",
        "OPCOUNTER_QUERY",
        "SYSTEM_NORMALIZED_CPU_USER",
    ]);
    let m = c.measurements().host(&h.group_id, &h.id, &q).await.unwrap();
    let long = m.to_frame(Shape::Long).unwrap();
    let wide = m.to_frame(Shape::Wide).unwrap();
    assert_long_schema(&long);
    assert_eq!(long.height(), m.data_point_count());
    let nulls: usize = m
        .series
        .iter()
        .map(|s| s.values.iter().filter(|v| v.is_none()).count())
        .sum();
    assert_eq!(long.column("value").unwrap().null_count(), nulls);
    assert!(nulls >= 1, "the rate series starts with a null");
    // Every long row is in the wide frame at its timestamp and column.
    let ts: Vec<i64> = wide
        .column("timestamp")
        .unwrap()
        .datetime()
        .unwrap()
        .physical()
        .iter()
        .flatten()
        .collect();
    assert!(
        ts.windows(2).all(|w| w[0] < w[1]),
        "wide is sorted by timestamp"
    );
    for s in &m.series {
        let col: Vec<Option<f64>> = wide
            .column(&s.name)
            .unwrap()
            .f64()
            .unwrap()
            .iter()
            .collect();
        for (t, v) in s.timestamps.iter().zip(&s.values) {
            let i = ts.binary_search(t).unwrap();
            assert_eq!(col[i], *v, "{} at {t}", s.name);
        }
    }
    let ops = wide.column("OPCOUNTER_QUERY").unwrap();
    assert!(
        ops.f64().unwrap().get(0).is_none(),
        "first rate point null in wide too"
    );
}

#[tokio::test]
async fn fleet_pull_of_hosts_and_disks() {
    let (sim, c) = sim_and_client(SimConfig::default());
    let world = sim.world();
    let mut targets = Vec::new();
    for h in world.hosts.iter().take(4) {
        targets.push(Target::host(&h.group_id, &h.id));
        for p in &h.partitions {
            targets.push(Target::disk(&h.group_id, &h.id, &p.name));
        }
    }
    // Host and disk targets have different measurements: one pull per kind.
    let host_q = MeasurementsQuery::period(Granularity::PT1H, "P1D".parse().unwrap())
        .metrics(["CONNECTIONS"]);
    let disk_q = MeasurementsQuery::period(Granularity::PT1H, "P1D".parse().unwrap())
        .metrics(["DISK_PARTITION_SPACE_USED"]);
    let hosts: Vec<Target> = targets
        .iter()
        .filter(|t| t.partition_name().is_none())
        .cloned()
        .collect();
    let disks: Vec<Target> = targets
        .iter()
        .filter(|t| t.partition_name().is_some())
        .cloned()
        .collect();

    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let opts = FleetOptions::new().progress(move |p| {
        assert_eq!(p.total, 4);
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let pulled = c
        .measurements()
        .fleet(&hosts, &host_q, &opts)
        .await
        .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    assert!(pulled.failures.is_empty());
    let df = pulled.frame;
    assert_long_schema(&df);
    let hosts_in_frame = df
        .column("host_id")
        .unwrap()
        .cat32()
        .unwrap()
        .iter_str()
        .flatten()
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(hosts_in_frame.len(), 4);
    assert_eq!(
        df.column("partition_name").unwrap().null_count(),
        df.height()
    );

    let wide = c
        .measurements()
        .fleet(&disks, &disk_q, &FleetOptions::new().shape(Shape::Wide))
        .await
        .unwrap()
        .frame;
    let names: Vec<&str> = wide.get_column_names().iter().map(|s| s.as_str()).collect();
    assert_eq!(
        names,
        [
            "group_id",
            "host_id",
            "partition_name",
            "database_name",
            "timestamp",
            "DISK_PARTITION_SPACE_USED"
        ]
    );
    let long = c
        .measurements()
        .fleet(&disks, &disk_q, &FleetOptions::new())
        .await
        .unwrap()
        .frame;
    assert_eq!(
        wide.height(),
        long.height(),
        "one measurement: one wide row per long row"
    );
    let sorted = wide
        .sort(
            ["group_id", "host_id", "partition_name", "timestamp"],
            SortMultipleOptions::default(),
        )
        .unwrap();
    for name in ["host_id", "partition_name", "timestamp"] {
        assert!(
            sorted
                .column(name)
                .unwrap()
                .equals_missing(wide.column(name).unwrap()),
            "wide is sorted by key"
        );
    }
}

#[tokio::test]
async fn a_failing_target_fails_the_pull_or_is_reported() {
    let (sim, c) = sim_and_client(SimConfig::default());
    let world = sim.world();
    let g = &world.hosts[0].group_id;
    let targets = vec![
        Target::host(g, &world.hosts[0].id),
        Target::host(g, "no-such-host"),
        Target::host(g, &world.hosts[1].id),
    ];
    let q = MeasurementsQuery::period(Granularity::PT1H, "PT12H".parse().unwrap())
        .metrics(["CONNECTIONS"]);
    let err = c
        .measurements()
        .fleet(&targets, &q, &FleetOptions::new())
        .await
        .unwrap_err();
    assert_eq!(err.error_code(), Some("HOST_NOT_FOUND"));
    assert!(
        err.to_string().contains("no-such-host"),
        "the error names the target: {err}"
    );

    let pulled = c
        .measurements()
        .fleet(&targets, &q, &FleetOptions::new().keep_going(true))
        .await
        .unwrap();
    assert_eq!(pulled.failures.len(), 1);
    assert_eq!(pulled.failures[0].target, targets[1]);
    let hosts: std::collections::BTreeSet<&str> = pulled
        .frame
        .column("host_id")
        .unwrap()
        .cat32()
        .unwrap()
        .iter_str()
        .flatten()
        .collect();
    assert_eq!(
        hosts,
        [world.hosts[0].id.as_str(), world.hosts[1].id.as_str()]
            .into_iter()
            .collect()
    );
    let table = pulled.failures_frame().unwrap();
    assert_eq!(table.height(), 1);
    assert_eq!(
        table.column("status").unwrap().i64().unwrap().get(0),
        Some(404)
    );
    assert_eq!(
        table.column("error_code").unwrap().str().unwrap().get(0),
        Some("HOST_NOT_FOUND")
    );

    // An invalid identifier is refused before any request.
    sim.clear_requests();
    let bad = vec![Target::host(g, &world.hosts[0].id), Target::host(g, "")];
    let err = c
        .measurements()
        .fleet(&bad, &q, &FleetOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(err, opsapi::Error::InvalidArgument { .. }));
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn list_frames_have_snake_case_columns() {
    let (sim, c) = sim_and_client(SimConfig::default());
    let alerts = c.global_alerts().list(&Default::default()).await.unwrap();
    let df = frame::alerts_frame(&alerts).unwrap();
    assert_eq!(df.height(), alerts.len());
    for col in [
        "id",
        "status",
        "created",
        "acknowledged_until",
        "current_value_number",
        "current_value_units",
    ] {
        assert!(df.column(col).is_ok(), "{col}");
    }
    assert_eq!(df.column("created").unwrap().dtype(), &utc_ms());
    let with_value = alerts
        .iter()
        .filter(|a| a.current_value.as_ref().and_then(|v| v.number).is_some())
        .count();
    assert_eq!(
        df.column("current_value_number").unwrap().len()
            - df.column("current_value_number").unwrap().null_count(),
        with_value
    );

    let g = sim.group_ids()[0].clone();
    let hosts = c.hosts().list(&g).await.unwrap();
    let df = frame::hosts_frame(&hosts).unwrap();
    assert_eq!(df.height(), hosts.len());
    assert_eq!(df.column("port").unwrap().dtype(), &DataType::Int64);
    let events = c.events().list(&g).await.unwrap();
    let df = frame::events_frame(&events).unwrap();
    assert_eq!(df.height(), events.len());
}

#[tokio::test]
async fn parquet_pulls_are_hive_partitioned_and_read_back_equal() {
    let (sim, c) = sim_and_client(SimConfig::default());
    let world = sim.world();
    let h = &world.hosts[0];
    let targets = [
        Target::host(&h.group_id, &h.id),
        Target::disk(&h.group_id, &h.id, &h.partitions[0].name),
    ];
    let start = opsapi::query::parse_timestamp("start", "2024-05-01T00:00:00Z").unwrap();
    let end = opsapi::query::parse_timestamp("end", "2024-05-01T06:00:00Z").unwrap();
    let host_q = MeasurementsQuery::range(Granularity::PT5M, start, end);
    let dir = tempfile::tempdir().unwrap();
    let out = c
        .measurements()
        .fleet_to_parquet(&targets[..1], &host_q, dir.path(), &FleetOptions::new())
        .await
        .unwrap();
    assert_eq!(out.files.len(), 1);
    assert_eq!(
        out.files[0],
        dir.path().join(format!(
            "group_id={}/host_id={}/host.parquet",
            h.group_id, h.id
        ))
    );
    let read = ParquetReader::new(std::fs::File::open(&out.files[0]).unwrap())
        .finish()
        .unwrap();
    let expected = c
        .measurements()
        .fleet(&targets[..1], &host_q, &FleetOptions::new())
        .await
        .unwrap()
        .frame
        .drop_many(["group_id", "host_id"]);
    assert_eq!(out.rows as usize, expected.height());
    assert!(
        read.equals_missing(&expected),
        "Parquet reads back equal, nulls included"
    );

    let disk_q = MeasurementsQuery::range(Granularity::PT1H, start, end);
    let out = c
        .measurements()
        .fleet_to_parquet(&targets[1..], &disk_q, dir.path(), &FleetOptions::new())
        .await
        .unwrap();
    assert!(out.files[0].ends_with(format!("disk-{}.parquet", h.partitions[0].name)));
    assert!(!std::fs::read_dir(out.files[0].parent().unwrap())
        .unwrap()
        .any(|e| e
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "partial")));
}

#[test]
fn mixed_host_and_disk_results_keep_nulls_row_by_row() {
    let host: Measurements = decode_model(&fixture("host-measurements.json")).unwrap();
    let disk: Measurements = decode_model(&fixture("disk-measurements-gofixture.json")).unwrap();
    let df = frame::long_frame([&host, &disk, &host]).unwrap();
    assert_long_schema(&df);
    let parts: Vec<Option<&str>> = df
        .column("partition_name")
        .unwrap()
        .cat32()
        .unwrap()
        .iter_str()
        .collect();
    let mut want = vec![None; 3];
    want.extend([Some("xvdb"); 2]);
    want.extend([None; 3]);
    assert_eq!(parts, want);
    let values: Vec<Option<f64>> = df.column("value").unwrap().f64().unwrap().iter().collect();
    assert_eq!(
        values,
        [
            Some(5.0),
            Some(5.0),
            Some(5.0),
            None,
            None,
            Some(5.0),
            Some(5.0),
            Some(5.0)
        ]
    );
    let hosts: Vec<Option<&str>> = df
        .column("host_id")
        .unwrap()
        .cat32()
        .unwrap()
        .iter_str()
        .collect();
    assert_eq!(hosts[3], Some("1"));
    assert_eq!(hosts[0], Some("hostID"));
}

/// The long frame of each result, stacked in order.
fn stacked_long_frames(parts: &[Measurements]) -> DataFrame {
    let mut stacked = parts[0].to_frame(Shape::Long).unwrap();
    for m in &parts[1..] {
        stacked
            .vstack_mut(&m.to_frame(Shape::Long).unwrap())
            .unwrap();
    }
    stacked
}

#[test]
fn big_frames_built_on_two_threads_equal_their_parts_stacked() {
    // Enough rows (> 65 536) for the two-thread build; every part differs from the others.
    let host: Measurements = decode_model(&fixture("host-measurements.json")).unwrap();
    let disk: Measurements = decode_model(&fixture("disk-measurements-gofixture.json")).unwrap();
    let mut parts = Vec::new();
    for i in 0..30_000 {
        let mut m = if i % 3 == 0 {
            disk.clone()
        } else {
            host.clone()
        };
        m.host_id = Some(format!("host-{i}"));
        if i % 7 == 0 {
            m.process_id = None;
        }
        for s in &mut m.series {
            for (k, v) in s.values.iter_mut().enumerate() {
                if v.is_some() && (i + k) % 5 == 0 {
                    *v = None;
                } else if let Some(x) = v {
                    *x += i as f64;
                }
            }
        }
        parts.push(m);
    }
    let whole = frame::long_frame(&parts).unwrap();
    assert!(whole.height() > 1 << 16, "{}", whole.height());
    assert_long_schema(&whole);
    let mut stacked = parts[0].to_frame(Shape::Long).unwrap();
    for m in &parts[1..] {
        stacked
            .vstack_mut(&m.to_frame(Shape::Long).unwrap())
            .unwrap();
    }
    assert!(whole.equals_missing(&stacked));
    assert_eq!(
        whole.column("value").unwrap().null_count(),
        stacked.column("value").unwrap().null_count()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_pull_is_built_in_batches_equal_to_its_parts() {
    let (sim, c) = sim_and_client(SimConfig::default());
    let hosts: Vec<Target> = sim
        .world()
        .hosts
        .iter()
        .take(12)
        .map(|h| Target::host(&h.group_id, &h.id))
        .collect();
    // A fixed window: a period ending now moves between the calls compared here.
    let start = opsapi::query::parse_timestamp("start", "2026-01-01T00:00:00Z").unwrap();
    let end = opsapi::query::parse_timestamp("end", "2026-01-02T00:00:00Z").unwrap();
    let q = MeasurementsQuery::range(Granularity::PT5M, start, end);
    let mut parts = Vec::new();
    for t in &hosts {
        let api = c.measurements();
        parts.push(api.host(t.group_id(), t.host_id(), &q).await.unwrap());
    }
    let stacked = stacked_long_frames(&parts);
    let rows = stacked.height();
    // Batches smaller than a host, of several hosts, and one for the whole pull.
    for batch in [1_000, rows / 5, rows] {
        let pulled = c
            .measurements()
            .fleet(&hosts, &q, &FleetOptions::new().batch_rows(batch))
            .await
            .unwrap();
        let df = pulled.frame;
        assert_long_schema(&df);
        assert!(df.equals_missing(&stacked), "batches of {batch} rows");
        let chunks = df
            .column("value")
            .unwrap()
            .as_materialized_series()
            .n_chunks();
        // One chunk per batch: several, or one when a batch holds the whole pull.
        assert_eq!(
            chunks == 1,
            batch == rows,
            "{chunks} chunks for batches of {batch}"
        );
    }
}
