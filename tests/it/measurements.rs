//! `client.measurements()`: host and disk measurements, one target, fleet pulls (a frame and
//! Parquet): the query as it goes out (`m` repeated, `start`/`end`) and the series that come
//! back, against the simulator's seeded truth. Windows are fixed instants before the world's
//! anchor, so the points expected follow from the anchor, not from the time of day.
//! (Database measurements are in `databases.rs`, frames of documented payloads in
//! `tests/promises/frame.rs`.)

use chrono::{DateTime, TimeDelta, Utc};
use opsapi::api::measurements::Target;
use opsapi::sim::{PartitionTruth, Simulator};
use opsapi::{Granularity, MeasurementsQuery};

use crate::common::{authorized, seen, sim, warm};

/// A timestamp as the query spells it, percent-encoded as it is in the request line.
fn q_time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H%%3A%M%%3A%SZ").to_string()
}

/// The instants of a window from `start` to `end` (both aligned) at `step`, in milliseconds.
fn grid(start: DateTime<Utc>, end: DateTime<Utc>, step: TimeDelta) -> Vec<i64> {
    let mut out = Vec::new();
    let mut t = start;
    while t <= end {
        out.push(t.timestamp_millis());
        t += step;
    }
    out
}

/// Checks a `DISK_PARTITION_SPACE_USED` series against the seeded trend of its partition:
/// every point on the window's grid, each value (a gap aside) within the partition's noise of
/// the trend, and no more than a few gaps.
fn assert_used_space_is_the_truth(
    what: &str,
    truth: &PartitionTruth,
    timestamps: &[i64],
    values: &[Option<f64>],
    want_grid: &[i64],
) {
    assert_eq!(timestamps, want_grid, "{what}: the window's grid");
    assert_eq!(values.len(), want_grid.len(), "{what}");
    let mut present = 0;
    for (&ms, v) in timestamps.iter().zip(values) {
        let Some(v) = v else { continue };
        present += 1;
        let t = DateTime::from_timestamp_millis(ms).unwrap();
        let trend = truth.used_bytes_at(t);
        assert!(
            (v - trend).abs() <= truth.noise_bytes + 1.0,
            "{what} at {t}: {v} is not within {} of the trend {trend}",
            truth.noise_bytes
        );
    }
    assert!(
        present * 10 >= values.len() * 9,
        "{what}: {present} of {} points present",
        values.len()
    );
}

/// A partition that grows (so that the trend moves over the window), and its host.
fn growing_partition(sim: &Simulator) -> (opsapi::sim::Host, PartitionTruth) {
    let truth = sim
        .partition_truth()
        .into_iter()
        .find(|p| p.growth_bytes_per_day > 0.0)
        .expect("a growing partition");
    let host = sim
        .world()
        .hosts
        .into_iter()
        .find(|h| h.id == truth.host_id)
        .unwrap();
    (host, truth)
}

#[tokio::test]
async fn host_and_disk_measurements_with_repeated_m() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let (h, disk_truth) = growing_partition(&sim);
    let anchor = world.anchor;

    // Host measurements, two hours before the anchor to one hour before, by the minute.
    let (start, end) = (anchor - TimeDelta::hours(2), anchor - TimeDelta::hours(1));
    let q = MeasurementsQuery::range(Granularity::PT1M, start, end)
        .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
    let m = c.measurements().host(&h.group_id, &h.id, &q).await.unwrap();
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{}/hosts/{}/measurements?granularity=PT1M&start={}&end={}\
             &m=CONNECTIONS&m=OPCOUNTER_CMD signed 200",
            h.group_id,
            h.id,
            q_time(start),
            q_time(end)
        )]
    );
    assert!(authorized(&sim)[0].body.is_empty());
    assert_eq!(m.group_id.as_deref(), Some(h.group_id.as_str()));
    assert_eq!(m.host_id.as_deref(), Some(h.id.as_str()));
    assert_eq!(m.process_id, Some(h.process_id()));
    assert_eq!(m.granularity.as_deref(), Some("PT1M"));
    assert_eq!((m.start, m.end), (Some(start), Some(end)));
    let mut names: Vec<(&str, Option<&str>)> = m
        .series
        .iter()
        .map(|s| (s.name.as_str(), s.units.as_deref()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("CONNECTIONS", Some("SCALAR")),
            ("OPCOUNTER_CMD", Some("SCALAR_PER_SECOND"))
        ]
    );
    let minutes = grid(start, end, TimeDelta::minutes(1));
    assert_eq!(minutes.len(), 61);
    for s in &m.series {
        assert_eq!(s.timestamps, minutes, "{}", s.name);
    }
    let ops = m.get("OPCOUNTER_CMD").unwrap();
    assert_eq!(
        ops.values[0], None,
        "the first point of a rate series is null"
    );
    assert!(ops.values[1..].iter().filter(|v| v.is_some()).count() >= 55);
    let conns = m.get("CONNECTIONS").unwrap();
    assert!(conns
        .values
        .iter()
        .flatten()
        .all(|v| *v >= 0.0 && v.fract() == 0.0));

    // Disk measurements of a growing partition, the day before the anchor, by the hour.
    sim.clear_requests();
    let part = &disk_truth.partition_name;
    let (start, end) = (anchor - TimeDelta::days(2), anchor - TimeDelta::days(1));
    let q = MeasurementsQuery::range(Granularity::PT1H, start, end)
        .metrics(["DISK_PARTITION_SPACE_USED"]);
    let d = c
        .measurements()
        .disk(&h.group_id, &h.id, part, &q)
        .await
        .unwrap();
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{}/hosts/{}/disks/{part}/measurements?granularity=PT1H&start={}&end={}\
             &m=DISK_PARTITION_SPACE_USED signed 200",
            h.group_id,
            h.id,
            q_time(start),
            q_time(end)
        )]
    );
    assert!(authorized(&sim)[0].body.is_empty());
    assert_eq!(d.partition_name.as_deref(), Some(part.as_str()));
    assert_eq!(d.host_id.as_deref(), Some(h.id.as_str()));
    assert_eq!(d.series.len(), 1);
    let used = d.get("DISK_PARTITION_SPACE_USED").unwrap();
    assert_eq!(used.units.as_deref(), Some("BYTES"));
    let hours = grid(start, end, TimeDelta::hours(1));
    assert_eq!(hours.len(), 25);
    assert_used_space_is_the_truth("disk", &disk_truth, &used.timestamps, &used.values, &hours);
    // The trend moved over the day by the seeded growth (noise aside).
    let day = disk_truth.growth_bytes_per_day;
    let (first, last) = (used.values[0], used.values[24]);
    if let (Some(first), Some(last)) = (first, last) {
        assert!(((last - first) - day).abs() <= 2.0 * disk_truth.noise_bytes + 1.0);
    }
}

#[tokio::test]
async fn measurements_of_one_target_are_the_seeded_database_sizes() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let truth = sim
        .database_truth()
        .into_iter()
        .find(|d| d.drives_growth)
        .expect("a database that drives its disk's growth");
    // Days on the P1D grid (midnight UTC), ten of them before the anchor's day.
    let day = chrono::DurationRound::duration_trunc(world.anchor, TimeDelta::days(1)).unwrap();
    let (start, end) = (day - TimeDelta::days(10), day - TimeDelta::days(1));
    let q = MeasurementsQuery::range(Granularity::P1D, start, end)
        .metrics(["DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE"]);
    let target = Target::database(&truth.group_id, &truth.host_id, &truth.database_name);
    let m = c.measurements().target(&target, &q).await.unwrap();
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{}/hosts/{}/databases/{}/measurements?granularity=P1D&start={}&end={}\
             &m=DATABASE_STORAGE_SIZE&m=DATABASE_INDEX_SIZE signed 200",
            truth.group_id,
            truth.host_id,
            truth.database_name,
            q_time(start),
            q_time(end)
        )]
    );
    assert!(authorized(&sim)[0].body.is_empty());
    assert_eq!(
        m.database_name.as_deref(),
        Some(truth.database_name.as_str())
    );
    assert_eq!(m.process_id.as_deref(), Some(truth.process_id.as_str()));
    let (storage, index) = (
        m.get("DATABASE_STORAGE_SIZE").unwrap(),
        m.get("DATABASE_INDEX_SIZE").unwrap(),
    );
    let days = grid(start, end, TimeDelta::days(1));
    assert_eq!(days.len(), 10);
    assert_eq!(storage.timestamps, days);
    assert_eq!(index.timestamps, days);
    let mut compared = 0;
    for (i, &ms) in days.iter().enumerate() {
        let (Some(s), Some(x)) = (storage.values[i], index.values[i]) else {
            continue;
        };
        let t = DateTime::from_timestamp_millis(ms).unwrap();
        let d = (t - truth.anchor).num_seconds() as f64 / 86_400.0;
        let size = truth.size_bytes_at_anchor + truth.growth_bytes_per_day * d;
        assert!(
            (s + x - size).abs() <= 0.5 + 1e-9 * size,
            "day {i}: storage {s} + index {x} is not the seeded size {size}"
        );
        compared += 1;
    }
    assert!(compared >= 8, "{compared} days compared");
}

/// The rows of a long frame (or of a Parquet file of one, without `group_id` and
/// `host_id`): `(host_id, process_id, partition_name, measurement, units, timestamp, value)`.
#[cfg(feature = "frames")]
type Row = (
    Option<String>,
    String,
    String,
    String,
    String,
    i64,
    Option<f64>,
);

#[cfg(feature = "frames")]
fn rows(df: &polars::prelude::DataFrame) -> Vec<Row> {
    use polars::prelude::DataType;
    let text = |name: &str| -> Vec<Option<String>> {
        match df.column(name) {
            Ok(c) => {
                let c = c.cast(&DataType::String).unwrap();
                let c = c.str().unwrap();
                (0..c.len()).map(|i| c.get(i).map(str::to_string)).collect()
            }
            Err(_) => vec![None; df.height()],
        }
    };
    let (hosts, procs, parts, names, units) = (
        text("host_id"),
        text("process_id"),
        text("partition_name"),
        text("measurement"),
        text("units"),
    );
    let ts = df
        .column("timestamp")
        .unwrap()
        .cast(&DataType::Int64)
        .unwrap();
    let ts = ts.i64().unwrap();
    let values = df.column("value").unwrap().f64().unwrap();
    assert_eq!(
        df.column("database_name").unwrap().null_count(),
        df.height()
    );
    (0..df.height())
        .map(|i| {
            (
                hosts[i].clone(),
                procs[i].clone().unwrap(),
                parts[i].clone().unwrap(),
                names[i].clone().unwrap(),
                units[i].clone().unwrap(),
                ts.get(i).unwrap(),
                values.get(i),
            )
        })
        .collect()
}

/// The disk targets of every partition of the seeded world (hosts of both projects), with
/// their truth, and the window of the fleet tests: the day before the anchor, by the hour.
#[cfg(feature = "frames")]
fn every_partition(
    sim: &Simulator,
) -> (Vec<(Target, PartitionTruth)>, MeasurementsQuery, Vec<i64>) {
    let anchor = sim.world().anchor;
    let targets: Vec<(Target, PartitionTruth)> = sim
        .partition_truth()
        .into_iter()
        .map(|p| (Target::disk(&p.group_id, &p.host_id, &p.partition_name), p))
        .collect();
    let groups: std::collections::BTreeSet<&str> =
        targets.iter().map(|(t, _)| t.group_id()).collect();
    assert!(groups.len() > 1 && targets.len() > 10);
    let (start, end) = (anchor - TimeDelta::days(1), anchor);
    let q = MeasurementsQuery::range(Granularity::PT1H, start, end)
        .metrics(["DISK_PARTITION_SPACE_USED"]);
    (targets, q, grid(start, end, TimeDelta::hours(1)))
}

/// The request lines of a fleet pull of disk targets, sorted (the targets are fetched
/// concurrently, in no fixed order).
#[cfg(feature = "frames")]
fn fleet_lines(targets: &[(Target, PartitionTruth)], q: &MeasurementsQuery) -> Vec<String> {
    let window = match q.window {
        opsapi::Window::Range { start, end } => {
            format!("start={}&end={}", q_time(start), q_time(end))
        }
        _ => unreachable!("the fleet tests pass start and end"),
    };
    let mut lines: Vec<String> = targets
        .iter()
        .map(|(t, _)| {
            format!(
                "GET /groups/{}/hosts/{}/disks/{}/measurements?granularity=PT1H&{window}\
                 &m=DISK_PARTITION_SPACE_USED signed 200",
                t.group_id(),
                t.host_id(),
                t.partition_name().unwrap()
            )
        })
        .collect();
    lines.sort();
    lines
}

#[cfg(feature = "frames")]
#[tokio::test]
async fn fleet_pull_sends_one_request_per_target_and_its_frame_is_the_seeded_disks() {
    use opsapi::fleet::FleetOptions;
    let sim = sim();
    let c = warm(&sim).await;
    let (targets, q, hours) = every_partition(&sim);
    let only: Vec<Target> = targets.iter().map(|(t, _)| t.clone()).collect();
    let pulled = c
        .measurements()
        .fleet(&only, &q, &FleetOptions::new())
        .await
        .unwrap();
    let mut lines = seen(&sim);
    lines.sort();
    assert_eq!(lines, fleet_lines(&targets, &q));
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
    assert!(pulled.failures.is_empty());
    assert_eq!(
        pulled.frame.get_column_names(),
        opsapi::frame::LONG_COLUMNS.to_vec()
    );
    let groups = pulled
        .frame
        .column("group_id")
        .unwrap()
        .cast(&polars::prelude::DataType::String)
        .unwrap();
    let groups = groups.str().unwrap();
    let all = rows(&pulled.frame);
    assert_eq!(all.len(), targets.len() * hours.len());
    // In target order, one block of rows per target.
    for (k, ((target, truth), block)) in targets.iter().zip(all.chunks(hours.len())).enumerate() {
        let what = target.to_string();
        assert!(
            (k * hours.len()..(k + 1) * hours.len())
                .all(|i| groups.get(i) == Some(truth.group_id.as_str())),
            "{what}"
        );
        assert_block_is_the_truth(&what, truth, block, Some(&truth.host_id), &hours);
    }
}

#[cfg(feature = "frames")]
#[tokio::test]
async fn fleet_to_parquet_sends_one_request_per_target_and_writes_the_seeded_disks() {
    use opsapi::fleet::FleetOptions;
    use polars::prelude::{ParquetReader, SerReader};
    let sim = sim();
    let c = warm(&sim).await;
    let (targets, q, hours) = every_partition(&sim);
    let only: Vec<Target> = targets.iter().map(|(t, _)| t.clone()).collect();
    let dir = tempfile::tempdir().unwrap();
    let out = c
        .measurements()
        .fleet_to_parquet(&only, &q, dir.path(), &FleetOptions::new())
        .await
        .unwrap();
    let mut lines = seen(&sim);
    lines.sort();
    assert_eq!(lines, fleet_lines(&targets, &q));
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
    assert!(out.failures.is_empty());
    assert_eq!(out.rows, (targets.len() * hours.len()) as u64);
    let want_files: Vec<std::path::PathBuf> = targets
        .iter()
        .map(|(_, p)| {
            dir.path()
                .join(format!("group_id={}", p.group_id))
                .join(format!("host_id={}", p.host_id))
                .join(format!("disk-{}.parquet", p.partition_name))
        })
        .collect();
    assert_eq!(
        out.files, want_files,
        "one file per target, in target order"
    );
    for ((target, truth), file) in targets.iter().zip(&out.files) {
        let what = target.to_string();
        let df = ParquetReader::new(std::fs::File::open(file).unwrap())
            .finish()
            .unwrap();
        let names: Vec<&str> = df.get_column_names().iter().map(|s| s.as_str()).collect();
        assert_eq!(
            names,
            opsapi::frame::LONG_COLUMNS[2..],
            "{what}: the path holds the rest"
        );
        // The host is in the file's path, not in its rows.
        assert_block_is_the_truth(&what, truth, &rows(&df), None, &hours);
    }
}

/// One target's rows of a fleet pull of disks: its keys, and its used space against the
/// seeded truth at every hour.
#[cfg(feature = "frames")]
fn assert_block_is_the_truth(
    what: &str,
    truth: &PartitionTruth,
    block: &[Row],
    host: Option<&str>,
    hours: &[i64],
) {
    for (h, process, part, name, units, _, _) in block {
        assert_eq!(h.as_deref(), host, "{what}");
        assert_eq!(process, &truth.process_id, "{what}");
        assert_eq!(part, &truth.partition_name, "{what}");
        assert_eq!(
            (name.as_str(), units.as_str()),
            ("DISK_PARTITION_SPACE_USED", "BYTES")
        );
    }
    let ts: Vec<i64> = block.iter().map(|r| r.5).collect();
    let values: Vec<Option<f64>> = block.iter().map(|r| r.6).collect();
    assert_used_space_is_the_truth(what, truth, &ts, &values, hours);
}
