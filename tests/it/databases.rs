//! Databases of a host: `hosts().databases()`, `measurements().database()`, database fleet
//! pulls, and the simulator's seeded truth (the databases add up to the data disk).

use opsapi::{Error, Granularity, MeasurementsQuery};

use crate::common::{authorized, client, sim, API};

#[tokio::test]
async fn databases_lists_every_name_of_a_host() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = world.hosts.iter().find(|h| h.databases.len() >= 5).unwrap();
    let names = c.hosts().databases(&h.group_id, &h.id).await.unwrap();
    let expected: Vec<String> = h.databases.iter().map(|d| d.name.clone()).collect();
    assert_eq!(names, expected);
    assert!(names.iter().any(|n| n == "admin"));
    let r = authorized(&sim).pop().unwrap();
    assert_eq!(
        (r.method.as_str(), r.path.clone(), r.query.as_deref()),
        (
            "GET",
            format!("{API}/groups/{}/hosts/{}/databases", h.group_id, h.id),
            Some("pageNum=1&itemsPerPage=500")
        )
    );
    assert!(r.body.is_empty());
    // A mongos has none.
    let mongos = world
        .hosts
        .iter()
        .find(|h| h.type_name == "SHARD_MONGOS")
        .unwrap();
    assert!(c
        .hosts()
        .databases(&mongos.group_id, &mongos.id)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn database_measurements_send_the_query_and_add_up_to_the_data_disk() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = world
        .hosts
        .iter()
        .find(|h| !h.databases.is_empty())
        .unwrap();
    let q = MeasurementsQuery::period(Granularity::P1D, "P10D".parse().unwrap())
        .metrics(["DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE"]);
    let mut sums: Vec<f64> = Vec::new();
    for d in &h.databases {
        let m = c
            .measurements()
            .database(&h.group_id, &h.id, &d.name, &q)
            .await
            .unwrap();
        assert_eq!(m.database_name.as_deref(), Some(d.name.as_str()));
        assert_eq!(m.partition_name, None);
        assert_eq!(m.host_id.as_deref(), Some(h.id.as_str()));
        let names: Vec<&str> = m.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE"]);
        let r = authorized(&sim).pop().unwrap();
        assert_eq!(
            r.path,
            format!(
                "{API}/groups/{}/hosts/{}/databases/{}/measurements",
                h.group_id, h.id, d.name
            )
        );
        assert_eq!(
            r.query.as_deref(),
            Some("granularity=P1D&period=P10D&m=DATABASE_STORAGE_SIZE&m=DATABASE_INDEX_SIZE")
        );
        let (storage, index) = (&m.series[0], &m.series[1]);
        if sums.is_empty() {
            sums = vec![0.0; storage.len()];
        }
        for (i, s) in sums.iter_mut().enumerate() {
            // A gap (null) would be the same instant on every series of the host: none here.
            *s += storage.values[i].unwrap_or(f64::NAN) + index.values[i].unwrap_or(f64::NAN);
        }
    }
    let q = MeasurementsQuery::period(Granularity::P1D, "P10D".parse().unwrap())
        .metrics(["DISK_PARTITION_SPACE_USED"]);
    let disk = c
        .measurements()
        .disk(&h.group_id, &h.id, &h.partitions[0].name, &q)
        .await
        .unwrap();
    let used = &disk.series[0];
    let slack = h.partitions[0].noise_bytes + h.databases.len() as f64;
    let mut compared = 0;
    for (i, sum) in sums.iter().enumerate() {
        if let (Some(u), false) = (used.values[i], sum.is_nan()) {
            let diff = (u - h.data_overhead_bytes - sum).abs();
            assert!(
                diff <= slack,
                "point {i}: used {u}, databases {sum}, overhead {}, slack {slack}",
                h.data_overhead_bytes
            );
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} points compared");
}

#[tokio::test]
async fn database_errors_say_what_is_wrong() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = world
        .hosts
        .iter()
        .find(|h| !h.databases.is_empty())
        .unwrap();
    let q = MeasurementsQuery::period(Granularity::PT1H, "P1D".parse().unwrap());
    let e = c
        .measurements()
        .database(&h.group_id, &h.id, "nope", &q)
        .await
        .unwrap_err();
    assert_eq!(
        (e.status(), e.error_code()),
        (Some(404), Some("DATABASE_NOT_FOUND"))
    );
    // A host measurement asked of a database, and an identifier that cannot be sent: refused
    // before any request.
    let before = sim.requests().len();
    let q = q.metrics(["CONNECTIONS"]);
    let e = c
        .measurements()
        .database(&h.group_id, &h.id, &h.databases[0].name, &q)
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid argument `metrics`: `CONNECTIONS` is not a database measurement of Ops Manager \
         (it is a host measurement)"
    );
    let e = c
        .measurements()
        .database(&h.group_id, &h.id, "", &q)
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { ref argument, .. } if argument == "database_name"),
        "{e:?}"
    );
    assert_eq!(sim.requests().len(), before);
}

#[tokio::test]
async fn the_truth_names_one_driving_database_per_growing_disk() {
    let sim = sim();
    let truth = sim.database_truth();
    let disks = sim.partition_truth();
    let world = sim.world();
    for h in world.hosts.iter().filter(|h| !h.databases.is_empty()) {
        let mine: Vec<_> = truth.iter().filter(|t| t.host_id == h.id).collect();
        let disk = disks
            .iter()
            .find(|d| d.host_id == h.id && d.partition_name == h.partitions[0].name)
            .unwrap();
        let drivers: Vec<_> = mine.iter().filter(|t| t.drives_growth).collect();
        if disk.growth_bytes_per_day > 0.0 {
            assert_eq!(drivers.len(), 1, "host {}", h.id);
            assert!(drivers[0].share_of_disk_growth >= 0.6);
            let total: f64 = mine.iter().map(|t| t.growth_bytes_per_day).sum();
            assert!((total - disk.growth_bytes_per_day).abs() < 1e-6 * disk.growth_bytes_per_day);
        } else {
            assert!(drivers.is_empty());
        }
        // Sizes add up to the disk's trend minus the overhead, 60 days back too.
        for days in [0.0, -30.0, -60.0] {
            let t = disk.anchor + chrono::TimeDelta::days(days as i64);
            let sum: f64 = h.databases.iter().map(|d| d.size_at(days)).sum();
            let trend = disk.used_bytes_at(t) - h.data_overhead_bytes;
            assert!((sum - trend).abs() < 1.0 + 1e-9 * trend, "{sum} vs {trend}");
        }
    }
    assert_eq!(disks[0].anchor, crate::common::fixed_now());
}

#[cfg(feature = "frames")]
#[tokio::test]
async fn a_fleet_pull_of_databases_has_the_database_name_column() {
    use opsapi::fleet::{FleetOptions, Target};
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let targets: Vec<Target> = world
        .hosts
        .iter()
        .filter(|h| !h.databases.is_empty())
        .take(2)
        .flat_map(|h| {
            h.databases
                .iter()
                .map(|d| Target::database(&h.group_id, &h.id, &d.name))
        })
        .collect();
    let q = MeasurementsQuery::period(Granularity::PT1H, "PT6H".parse().unwrap())
        .metrics(["DATABASE_DATA_SIZE"]);
    let pulled = c
        .measurements()
        .fleet(&targets, &q, &FleetOptions::new())
        .await
        .unwrap();
    let frame = pulled.frame;
    assert_eq!(
        frame.get_column_names(),
        opsapi::frame::LONG_COLUMNS.to_vec()
    );
    let names = frame.column("database_name").unwrap().cat32().unwrap();
    assert_eq!(names.null_count(), 0);
    let hosts = frame.column("host_id").unwrap().cat32().unwrap();
    let got: std::collections::BTreeSet<(&str, &str)> = hosts
        .iter_str()
        .zip(names.iter_str())
        .map(|(h, d)| (h.unwrap(), d.unwrap()))
        .collect();
    let expected: std::collections::BTreeSet<(&str, &str)> = targets
        .iter()
        .map(|t| (t.host_id(), t.database_name().unwrap()))
        .collect();
    assert_eq!(got, expected, "every target's rows, named");
    assert_eq!(
        frame.column("partition_name").unwrap().null_count(),
        frame.height()
    );
}
