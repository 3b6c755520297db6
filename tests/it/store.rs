//! The measurement store (`opsapi::store`) against the simulator: the requests a sync sends
//! (first, an hour later, with nothing new), what the store then holds against a fleet pull of
//! the same window, retention, discovery of added and removed hosts, faults, rate limits, the
//! lock, compaction and the store's window.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use opsapi::fleet::{FleetOptions, Target};
use opsapi::sim::{Aim, Fault, Retention, SimConfig, Simulator};
use opsapi::store::{Kind, Store, SyncOptions, SyncReport};
use opsapi::{Error, Granularity, MeasurementsQuery};
use polars::prelude::*;

use crate::common::{authorized, client, fixed_now, query_pairs, start, API};

/// Two projects of three hosts (about sixty targets), the clock at [`fixed_now`].
pub(crate) fn world() -> Simulator {
    world_with(|c| c)
}

pub(crate) fn world_with(f: impl FnOnce(SimConfig) -> SimConfig) -> Simulator {
    start(f(SimConfig {
        projects: 2,
        hosts_per_project: 3,
        now: Some(fixed_now()),
        ..SimConfig::default()
    }))
}

pub(crate) fn options() -> SyncOptions {
    SyncOptions::new(Granularity::PT1H, "P2D".parse().unwrap())
}

pub(crate) fn hours(n: i64) -> DateTime<Utc> {
    fixed_now() + TimeDelta::hours(n)
}

/// Every target of the simulator's world (partitions and databases as its hosts hold them).
pub(crate) fn all_targets(sim: &Simulator) -> Vec<Target> {
    let w = sim.world();
    let mut out = Vec::new();
    for h in &w.hosts {
        out.push(Target::host(&h.group_id, &h.id));
        for p in &h.partitions {
            out.push(Target::disk(&h.group_id, &h.id, &p.name));
        }
        for d in &h.databases {
            out.push(Target::database(&h.group_id, &h.id, &d.name));
        }
    }
    out
}

pub(crate) fn of_kind(targets: &[Target], kind: Kind) -> Vec<Target> {
    targets
        .iter()
        .filter(|t| Kind::of(t) == kind)
        .cloned()
        .collect()
}

/// The measurement requests in the log: (path under the API, start, end).
pub(crate) fn data_requests(sim: &Simulator) -> Vec<(String, String, String)> {
    authorized(sim)
        .iter()
        .filter(|r| r.path.ends_with("/measurements"))
        .map(|r| {
            let q = query_pairs(r);
            let get = |k: &str| {
                q.iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            (
                r.path.strip_prefix(API).unwrap_or(&r.path).to_string(),
                get("start"),
                get("end"),
            )
        })
        .collect()
}

pub(crate) fn iso(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A long frame with its keys as text, sorted: what two frames of the same points share
/// whatever their row order.
pub(crate) fn canonical(df: &DataFrame) -> DataFrame {
    let mut df = df.clone();
    for name in opsapi::frame::LONG_KEY_COLUMNS {
        let c = df.column(name).unwrap().cast(&DataType::String).unwrap();
        df.with_column(c).unwrap();
    }
    let by = [
        "group_id",
        "host_id",
        "partition_name",
        "database_name",
        "measurement",
        "timestamp",
    ];
    df.sort(by, SortMultipleOptions::default().with_nulls_last(true))
        .unwrap()
}

/// The store holds exactly what one fleet pull of `start..=end` returns, for every kind.
pub(crate) async fn assert_holds(
    sim: &Simulator,
    store: &Store,
    targets: &[Target],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) {
    let c = client(sim);
    for kind in Kind::ALL {
        let of = of_kind(targets, kind);
        let q = MeasurementsQuery::range(Granularity::PT1H, start, end);
        let pulled = c
            .measurements()
            .fleet(&of, &q, &FleetOptions::new())
            .await
            .unwrap()
            .frame;
        let stored = store.read(kind, Granularity::PT1H).unwrap();
        assert_eq!(stored.get_column_names(), pulled.get_column_names());
        assert_eq!(stored.height(), pulled.height(), "{kind}");
        let (a, b) = (canonical(&stored), canonical(&pulled));
        assert!(
            a.equals_missing(&b),
            "{kind}: the store differs from a fleet pull"
        );
    }
}

pub(crate) async fn sync(sim: &Simulator, store: &Store, o: &SyncOptions) -> SyncReport {
    client(sim).measurements().sync(store, o).await.unwrap()
}

#[tokio::test]
async fn the_first_sync_asks_each_target_its_window_once_and_stores_what_fleet_pulls() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let targets = all_targets(&sim);
    let r = sync(&sim, &store, &options()).await;

    assert_eq!(r.new.len(), targets.len());
    assert!(r.updated.is_empty() && r.unchanged.is_empty() && r.failed.is_empty());
    // One request per target, for the store's window ending now.
    let mut asked = data_requests(&sim);
    asked.sort();
    let mut want: Vec<(String, String, String)> = targets
        .iter()
        .map(|t| {
            let path = opsapi::api::measurements::target_request(
                t,
                &MeasurementsQuery::period(Granularity::PT1H, "P1D".parse().unwrap()),
            )
            .unwrap()
            .path;
            (path, iso(hours(-48)), iso(hours(0)))
        })
        .collect();
    want.sort();
    assert_eq!(asked, want);
    assert_eq!(r.data_requests, targets.len() as u64);
    // Discovery: the projects, their hosts, each host's partitions and databases.
    let listings = authorized(&sim).len() as u64 - r.data_requests;
    assert_eq!(r.requests, r.data_requests + listings);
    assert_eq!(listings, 1 + 2 + 2 * 6);
    assert_holds(&sim, &store, &targets, hours(-48), hours(0)).await;
    let points: u64 = store
        .targets()
        .unwrap()
        .column("points")
        .unwrap()
        .i64()
        .unwrap()
        .sum()
        .unwrap() as u64;
    assert_eq!(r.points_added, points);
}

#[tokio::test]
async fn an_hour_later_a_sync_asks_only_the_new_hour_and_keeps_every_point_once() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let targets = all_targets(&sim);
    sync(&sim, &store, &options()).await;
    sim.advance(Duration::from_secs(3600));
    sim.clear_requests();
    let r = sync(&sim, &store, &options()).await;

    // From the last stored point (the one-point overlap) to now, once per target; the
    // partitions and databases are not listed again within a day.
    let asked = data_requests(&sim);
    assert_eq!(asked.len(), targets.len());
    assert!(asked
        .iter()
        .all(|(_, s, e)| (s.as_str(), e.as_str())
            == (iso(hours(0)).as_str(), iso(hours(1)).as_str())));
    assert_eq!(r.requests, targets.len() as u64 + 1 + 2);
    assert_eq!(r.updated.len(), targets.len());
    assert!(r.new.is_empty());
    // What one pull of the whole span returns: the overlapped point of every rate series kept
    // its value (a pull from hour 0 answers null there), and no point is there twice.
    assert_holds(&sim, &store, &targets, hours(-48), hours(1)).await;
    assert_eq!(
        r.points_added,
        store_points(&store) - first_points(&sim, &targets).await
    );
}

pub(crate) fn store_points(store: &Store) -> u64 {
    store
        .targets()
        .unwrap()
        .column("points")
        .unwrap()
        .i64()
        .unwrap()
        .sum()
        .unwrap() as u64
}

/// The points of the first sync's window.
async fn first_points(sim: &Simulator, targets: &[Target]) -> u64 {
    let q = MeasurementsQuery::range(Granularity::PT1H, hours(-48), hours(0));
    let f = client(sim)
        .measurements()
        .fleet(targets, &q, &FleetOptions::new())
        .await
        .unwrap();
    f.frame.height() as u64
}

#[tokio::test]
async fn with_nothing_new_a_sync_sends_no_data_request() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    sync(&sim, &store, &options()).await;
    let before = store.targets().unwrap();
    sim.clear_requests();
    let r = sync(&sim, &store, &options()).await;
    assert!(data_requests(&sim).is_empty());
    assert_eq!(r.data_requests, 0);
    assert_eq!(r.unchanged.len(), all_targets(&sim).len());
    assert_eq!(r.points_added, 0);
    let after = store.targets().unwrap();
    assert!(after
        .drop("last_sync")
        .unwrap()
        .equals_missing(&before.drop("last_sync").unwrap()));
}

#[tokio::test]
async fn a_window_the_server_no_longer_holds_is_asked_once_not_again() {
    // Minute data kept for two days, as Ops Manager keeps it; the store's window is a week.
    let sim = world_with(|c| SimConfig {
        retention: Retention::ops_manager(),
        ..c
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = Target::host(&sim.group_ids()[0], &sim.world().hosts[0].id);
    let o = SyncOptions::new(Granularity::PT1M, "P7D".parse().unwrap())
        .targets(vec![host.clone()])
        .metrics(Kind::Host, ["CONNECTIONS"]);
    sync(&sim, &store, &o).await;
    let now = fixed_now();
    assert_eq!(
        data_requests(&sim)
            .iter()
            .map(|(_, s, e)| (s.clone(), e.clone()))
            .collect::<Vec<_>>(),
        [(iso(now - TimeDelta::days(7)), iso(now))]
    );
    // The server had two days of it: the store holds those.
    let t = store.targets().unwrap();
    let first = t
        .column("first")
        .unwrap()
        .datetime()
        .unwrap()
        .physical()
        .get(0);
    assert_eq!(first, Some((now - TimeDelta::days(2)).timestamp_millis()));
    // A minute later only the new minute is asked, not the five days the server never had.
    sim.advance(Duration::from_secs(60));
    sim.clear_requests();
    let r = sync(&sim, &store, &o).await;
    assert_eq!(
        data_requests(&sim)
            .iter()
            .map(|(_, s, e)| (s.clone(), e.clone()))
            .collect::<Vec<_>>(),
        [(iso(now), iso(now + TimeDelta::minutes(1)))]
    );
    assert_eq!(r.points_added, 1);
    // Three days later (nothing synced meanwhile) the store asks from its last point; the
    // server answers the last two days only, and the gap is asked once: the next sync starts
    // where this one ended.
    sim.advance(Duration::from_secs(3 * 86_400));
    sync(&sim, &store, &o).await;
    sim.advance(Duration::from_secs(60));
    sim.clear_requests();
    sync(&sim, &store, &o).await;
    let later = now + TimeDelta::minutes(1) + TimeDelta::days(3);
    assert_eq!(
        data_requests(&sim)
            .iter()
            .map(|(_, s, e)| (s.clone(), e.clone()))
            .collect::<Vec<_>>(),
        [(iso(later), iso(later + TimeDelta::minutes(1)))]
    );
}

#[tokio::test]
async fn a_host_added_starts_filling_and_a_host_removed_is_kept_as_no_longer_seen() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    sync(&sim, &store, &options()).await;
    let g = sim.group_ids()[1].clone();
    let gone = sim
        .world()
        .hosts
        .iter()
        .find(|h| h.group_id == g)
        .unwrap()
        .id
        .clone();
    let added = sim.add_host(&g).unwrap();
    assert!(sim.remove_host(&gone));
    sim.advance(Duration::from_secs(3600));
    sim.clear_requests();
    let r = sync(&sim, &store, &options()).await;

    let w = sim.world();
    let new_host = w.hosts.iter().find(|h| h.id == added).unwrap();
    let added_targets = 1 + new_host.partitions.len() + new_host.databases.len();
    assert_eq!(r.new.len(), added_targets);
    assert!(r.new.iter().all(|t| t.host_id() == added));
    assert!(!r.no_longer_seen.is_empty());
    assert!(r.no_longer_seen.iter().all(|t| t.host_id() == gone));
    assert!(r.failed.is_empty() && r.listings_failed.is_empty());
    // The removed host is not asked; the added one is asked its whole window.
    let asked = data_requests(&sim);
    assert!(!asked.iter().any(|(p, _, _)| p.contains(&gone)));
    let new_asks: Vec<_> = asked
        .iter()
        .filter(|(p, _, _)| p.contains(&added))
        .collect();
    assert_eq!(new_asks.len(), added_targets);
    assert!(new_asks.iter().all(|(_, s, _)| *s == iso(hours(-47))));
    // Its data is kept, marked as no longer seen.
    let t = store.targets().unwrap();
    let ids = t
        .column("host_id")
        .unwrap()
        .cast(&DataType::String)
        .unwrap();
    let ids = ids.str().unwrap();
    let mask: BooleanChunked = (0..ids.len())
        .map(|i| Some(ids.get(i) == Some(gone.as_str())))
        .collect();
    let rows = t.filter(&mask).unwrap();
    assert_eq!(rows.height(), r.no_longer_seen.len());
    assert!(!rows.column("seen").unwrap().bool().unwrap().any());
    assert!(rows.column("points").unwrap().i64().unwrap().min().unwrap() > 0);
}

#[tokio::test]
async fn a_failing_target_is_reported_loses_nothing_and_is_asked_again_next_time() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let targets = all_targets(&sim);
    let host = of_kind(&targets, Kind::Host)[1].clone();
    let path = format!(
        "/groups/{}/hosts/{}/measurements",
        host.group_id(),
        host.host_id()
    );
    // 503 past the client's retries (3): the target fails, the others are stored.
    let unavailable = Fault::Status {
        status: 503,
        retry_after: Some(0),
    };
    sim.inject_at(Aim::get(&path), unavailable, 4);
    let r = sync(&sim, &store, &options()).await;
    assert_eq!(r.failed.len(), 1);
    assert_eq!(r.failed[0].target, host);
    assert_eq!(r.failed[0].error.status(), Some(503));
    assert_eq!(r.new.len(), targets.len() - 1);
    assert!(sim.injected().is_empty());
    // The next sync asks it its whole window (and the others only what is new: nothing).
    sim.clear_requests();
    let r = sync(&sim, &store, &options()).await;
    assert!(r.failed.is_empty());
    assert_eq!(r.new, std::slice::from_ref(&host));
    assert_eq!(
        data_requests(&sim),
        [(path, iso(hours(-48)), iso(hours(0)))]
    );
    assert_holds(&sim, &store, &targets, hours(-48), hours(0)).await;
}

#[tokio::test]
async fn a_removed_host_asked_by_name_is_a_404_in_the_report_and_the_rest_is_stored() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let hosts = of_kind(&all_targets(&sim), Kind::Host);
    sim.remove_host(hosts[0].host_id());
    let r = sync(&sim, &store, &options().targets(hosts.clone())).await;
    assert_eq!(r.failed.len(), 1);
    assert!(r.failed[0].error.is_not_found());
    assert_eq!(r.failed[0].error.error_code(), Some("HOST_NOT_FOUND"));
    assert_eq!(r.new.len(), hosts.len() - 1);
    assert_eq!(store.targets().unwrap().height(), hosts.len() - 1);
}

#[tokio::test]
async fn a_rate_limit_slows_a_sync_and_fails_no_target() {
    // A project's limit answering one target 429 with Retry-After, three times in a row (aimed
    // at its request, so that the machine's speed cannot decide whether the limit is met):
    // the sync waits each out and stores every target.
    let sim = start(SimConfig {
        projects: 2,
        hosts_per_project: 2,
        ..SimConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = of_kind(&all_targets(&sim), Kind::Host)[1].clone();
    let path = format!(
        "/groups/{}/hosts/{}/measurements",
        host.group_id(),
        host.host_id()
    );
    let limited = Fault::Status {
        status: 429,
        retry_after: Some(1),
    };
    sim.inject_at(Aim::get(&path), limited, 3);
    let r = sync(&sim, &store, &options().kinds([Kind::Host, Kind::Disk])).await;
    assert!(r.failed.is_empty() && r.listings_failed.is_empty(), "{r:?}");
    let statuses: Vec<u16> = sim
        .requests()
        .iter()
        .filter(|q| q.path.ends_with(&path))
        .map(|q| q.status)
        .collect();
    assert_eq!(statuses, [429, 429, 429, 200]);
    let want = all_targets(&sim)
        .iter()
        .filter(|t| Kind::of(t) != Kind::Database)
        .count();
    assert_eq!(r.new.len(), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_writer_at_a_time_the_other_waits_or_fails_at_once() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = of_kind(&all_targets(&sim), Kind::Host)[0].clone();
    let o = options().targets(vec![host.clone()]);
    let path = format!(
        "/groups/{}/hosts/{}/measurements",
        host.group_id(),
        host.host_id()
    );
    // The first sync holds the lock while its data request waits.
    let held = sim.hold(Aim::get(&path));
    let c = client(&sim);
    let first = tokio::spawn({
        let (c, store, o) = (c.clone(), store.clone(), o.clone());
        async move { c.measurements().sync(&store, &o).await }
    });
    // (On a thread of its own: the hold waits on a runtime of its own.)
    let arrived = std::thread::scope(|s| {
        s.spawn(|| held.wait_arrived(Duration::from_secs(30)))
            .join()
            .unwrap()
    });
    assert!(arrived);
    match c.measurements().sync(&store, &o.clone().wait(false)).await {
        Err(Error::StoreLocked { path }) => assert_eq!(path, store.path()),
        other => panic!("{other:?}"),
    }
    let second = tokio::spawn({
        let (c, store, o) = (c.clone(), store.clone(), o.clone());
        async move { c.measurements().sync(&store, &o).await }
    });
    held.release();
    let first = first.await.unwrap().unwrap();
    let second = second.await.unwrap().unwrap();
    // The waiting sync ran after the first had stored everything: nothing new for it.
    assert_eq!(first.new, std::slice::from_ref(&host));
    assert_eq!(second.unchanged, [host]);
    assert_eq!(second.data_requests, 0);
}

#[tokio::test]
async fn a_months_files_are_compacted_and_the_window_drops_whole_files() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let disks = of_kind(&all_targets(&sim), Kind::Disk);
    let o = options().targets(disks.clone());
    sync(&sim, &store, &o).await;
    // Feb 28 10:00 to Mar 2 10:00: two months, a file each.
    let files = |store: &Store| store.files(Kind::Disk, Granularity::PT1H).unwrap();
    assert_eq!(files(&store).len(), 2 * disks.len());
    for _ in 0..5 {
        sim.advance(Duration::from_secs(3600));
        sync(&sim, &store, &o).await;
    }
    // Five hourly increments of March: compacted at four files a month.
    let t = store.targets().unwrap();
    let most = t.column("files").unwrap().i64().unwrap().max().unwrap();
    assert!(most <= 1 + 4, "{most} files for one target");
    assert_holds(&sim, &store, &disks, hours(-48), hours(5)).await;
    // A day later the window starts on March 1st 15:00: February's files go whole.
    sim.advance(Duration::from_secs(86_400));
    let r = sync(&sim, &store, &o).await;
    assert!(r.files_removed >= disks.len() as u64);
    let feb = files(&store)
        .iter()
        .filter(|p| p.to_string_lossy().contains(".2026-02."))
        .count();
    assert_eq!(feb, 0);
    // The files that left the store are still on disk for readers of older manifests (a
    // day by default); `vacuum` removes them, and the folder then holds exactly the
    // manifest's files.
    let mut listed = files(&store);
    listed.sort();
    let before = files_on_disk(&store.path().join("kind=disk"));
    assert!(listed.iter().all(|f| before.contains(f)));
    let retired = before.len() - listed.len();
    assert!(retired as u64 >= r.files_removed, "{retired} retired");
    assert_eq!(store.vacuum().unwrap(), retired);
    assert_eq!(files_on_disk(&store.path().join("kind=disk")), listed);
    assert_eq!(store.vacuum().unwrap(), 0);
}

/// Every file below `dir`, sorted.
fn files_on_disk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut on_disk = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                on_disk.push(e.path());
            }
        }
    }
    on_disk.sort();
    on_disk
}

#[tokio::test]
async fn arguments_are_checked_before_anything_is_sent_or_written() {
    let sim = world();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let bad_window = SyncOptions::new(Granularity::PT1H, "P1M".parse().unwrap());
    let bad_target = options().targets(vec![Target::host("g", "")]);
    let none = options().kinds([]);
    for (o, argument) in [
        (bad_window, "window"),
        (bad_target, "host_id"),
        (none, "kind"),
    ] {
        match client(&sim).measurements().sync(&store, &o).await {
            Err(Error::InvalidArgument { argument: a, .. }) => assert_eq!(a, argument),
            other => panic!("{argument}: {other:?}"),
        }
    }
    assert!(sim.requests().is_empty());
    assert!(!store.path().exists());
}
