//! History beyond the server's retention (issue 33 §3): one sync keeps several granularities,
//! each with its own window, so that the store holds what the server is about to drop; a
//! resource's whole history reads across them, the finest where it exists. (The year synced
//! daily is tests/python/test_store_history.py: 366 syncs run in a second or two against the
//! release build `make test` tests, and take 15 s in a debug one.)

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use opsapi::fleet::Target;
use opsapi::sim::{Retention, SimConfig, Simulator};
use opsapi::store::{Kind, Store, SyncOptions};
use opsapi::Granularity;
use polars::prelude::*;

use crate::common::{fixed_now, start};
use crate::store::sync;

const DAY: Duration = Duration::from_secs(86_400);

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// The distinct timestamps of a frame, ascending (ms).
fn timestamps(df: &DataFrame) -> Vec<i64> {
    let ts = df
        .column("timestamp")
        .unwrap()
        .cast(&DataType::Int64)
        .unwrap();
    let mut v: Vec<i64> = ts.i64().unwrap().iter().flatten().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Those of one granularity in a history frame.
fn stamps(df: &DataFrame, granularity: &str) -> Vec<i64> {
    let g = df
        .column("granularity")
        .unwrap()
        .cast(&DataType::String)
        .unwrap();
    let mask = g.str().unwrap().equal(granularity);
    timestamps(&df.filter(&mask).unwrap())
}

fn host_of(sim: &Simulator) -> Target {
    Target::host(&sim.group_ids()[0], &sim.world().hosts[0].id)
}

/// A simulator keeping measurements as Ops Manager does (minutes 2 days, hours 63 days, days
/// for good), one host, its clock at `now` (a year that lies behind this machine's clock, so
/// that no sync finds the server's clock ahead of it).
fn kept(now: DateTime<Utc>) -> Simulator {
    start(SimConfig {
        projects: 1,
        hosts_per_project: 1,
        now: Some(now),
        retention: Retention::ops_manager(),
        ..SimConfig::default()
    })
}

#[tokio::test]
async fn a_history_reads_the_finest_granularity_where_it_exists_and_coarser_before() {
    let t0 = fixed_now() - TimeDelta::days(30);
    let sim = kept(t0);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = host_of(&sim);
    // Minutes for 2 days, hours for 13 months, days for good: `PT1M` the finest.
    let o = SyncOptions::new(Granularity::PT1M, "P2D".parse().unwrap())
        .keep(Granularity::PT1H, "P395D".parse().unwrap())
        .keep_for_good(Granularity::P1D)
        .targets(vec![host.clone()])
        .metrics(Kind::Host, ["CONNECTIONS"]);
    sync(&sim, &store, &o).await;
    for _ in 0..3 {
        sim.advance(DAY);
        sync(&sim, &store, &o).await;
    }
    let end = sim.now();
    let h = store
        .read_history(
            Kind::Host,
            &[Granularity::P1D, Granularity::PT1H, Granularity::PT1M],
        )
        .unwrap();
    assert_eq!(
        h.get_column_names()[6..],
        ["units", "granularity", "timestamp", "value"]
    );
    let (m, hh, d) = (stamps(&h, "PT1M"), stamps(&h, "PT1H"), stamps(&h, "P1D"));
    // Minutes from the first one the store holds (two days back from the first sync: the
    // window of the server's retention, kept by the store since).
    let minutes = timestamps(&store.read(Kind::Host, Granularity::PT1M).unwrap());
    assert_eq!(m, minutes);
    assert_eq!(*m.last().unwrap(), ms(end));
    // Hours before the first minute, days before the first hour.
    assert!(!hh.is_empty() && *hh.last().unwrap() < m[0]);
    assert_eq!(*hh.last().unwrap(), m[0] - 3_600_000);
    assert!(!d.is_empty() && *d.last().unwrap() < hh[0]);
    // Each point as stored: the hours' values are the store's hours'.
    let hours = store.read(Kind::Host, Granularity::PT1H).unwrap();
    assert_eq!(
        timestamps(&hours)
            .into_iter()
            .filter(|t| *t < m[0])
            .collect::<Vec<_>>(),
        hh
    );
    // Nothing stored: an empty frame with the history's columns.
    let none = Store::new(dir.path().join("none"))
        .read_history(Kind::Disk, &[Granularity::PT1H])
        .unwrap();
    assert_eq!((none.height(), none.width()), (0, h.width()));
}
