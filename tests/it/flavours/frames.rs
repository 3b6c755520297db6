//! The same world through each flavour: the same fleet frames (Atlas names a host by its
//! process, `hostname:port`). (Atlas's own measurement names: `metric_names.rs`.)

use opsapi::api::measurements::Target;
use opsapi::fleet::FleetOptions;
use opsapi::{Flavour, Granularity, MeasurementsQuery};

use super::{api_requests, client_of, sim_of};

#[tokio::test]
async fn the_same_world_gives_the_same_frames_through_each_flavour() {
    let q = MeasurementsQuery::range(
        Granularity::PT1H,
        opsapi::query::parse_timestamp("start", "2026-02-28T00:00:00Z").unwrap(),
        opsapi::query::parse_timestamp("end", "2026-03-01T00:00:00Z").unwrap(),
    );
    let mut frames = Vec::new();
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let w = sim.world();
        let name = |h: &opsapi::sim::Host| {
            if flavour == Flavour::Atlas {
                h.process_id()
            } else {
                h.id.clone()
            }
        };
        // The hosts Atlas serves (not the world's standalones), on every flavour.
        let mut targets = Vec::new();
        for h in w.hosts.iter().filter(|h| h.type_name != "STANDALONE") {
            targets.push(Target::host(&h.group_id, name(h)));
            for p in &h.partitions {
                targets.push(Target::disk(&h.group_id, name(h), &p.name));
            }
        }
        let disks = q
            .clone()
            .metrics(["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"]);
        let hosts = q
            .clone()
            .metrics(["CONNECTIONS", "OPCOUNTER_CMD", "SYSTEM_CPU_USER"]);
        let host_targets: Vec<_> = targets
            .iter()
            .filter(|t| matches!(t, Target::Host { .. }))
            .cloned()
            .collect();
        let disk_targets: Vec<_> = targets
            .iter()
            .filter(|t| matches!(t, Target::Disk { .. }))
            .cloned()
            .collect();
        let o = FleetOptions::new();
        let host_frame = c
            .measurements()
            .fleet(&host_targets, &hosts, &o)
            .await
            .unwrap();
        let disk_frame = c
            .measurements()
            .fleet(&disk_targets, &disks, &o)
            .await
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = c
            .measurements()
            .fleet_to_parquet(&disk_targets, &disks, dir.path(), &o)
            .await
            .unwrap();
        assert_eq!(written.rows as usize, disk_frame.frame.height());
        if flavour == Flavour::Atlas {
            // host_id is the process, hostname:port.
            let text = |f: &polars::prelude::DataFrame, name: &str| {
                f.column(name)
                    .unwrap()
                    .as_materialized_series()
                    .cast(&polars::prelude::DataType::String)
                    .unwrap()
            };
            for f in [&host_frame.frame, &disk_frame.frame] {
                assert!(text(f, "host_id").equals(&text(f, "process_id")));
            }
        }
        let sent: Vec<_> = api_requests(&sim)
            .iter()
            .filter(|r| r.path.ends_with("/measurements") && r.status == 200)
            .map(|r| r.accept.clone().unwrap_or_default())
            .collect();
        assert_eq!(sent.len(), host_targets.len() + 2 * disk_targets.len());
        assert!(sent.iter().all(|a| a.contains(match flavour {
            Flavour::Atlas => "vnd.atlas.2023-01-01",
            _ => "application/json",
        })));
        frames.push((
            host_frame.frame.drop("host_id").unwrap(),
            disk_frame.frame.drop("host_id").unwrap(),
        ));
    }
    for (i, f) in frames.iter().enumerate().skip(1) {
        assert!(
            frames[0].0.equals_missing(&f.0),
            "host frame of {:?}",
            Flavour::ALL[i]
        );
        assert!(
            frames[0].1.equals_missing(&f.1),
            "disk frame of {:?}",
            Flavour::ALL[i]
        );
    }
    assert!(frames[0].0.height() > 0 && frames[0].1.height() > 0);
}
