//! The measurement store against a hostile world (issue 31, failures 1, 2, 4 and 5): a server
//! whose clock is a year ahead, a manifest that names a file outside the store, files
//! truncated, filled with noise or deleted, a span the server no longer has, an identifier a
//! client cannot send back. Each test failed before the store checked for it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use opsapi::fleet::Target;
use opsapi::sim::{Retention, SimConfig, Simulator};
use opsapi::store::{Kind, Store, SyncOptions};
use opsapi::{Error, Granularity};

use crate::common::{fixed_now, start};
use crate::store::{assert_holds, data_requests, hours, iso, of_kind, options, store_points, sync};

/// One project of two hosts on the fixed clock.
fn small() -> Simulator {
    small_with(|c| c)
}

fn small_with(f: impl FnOnce(SimConfig) -> SimConfig) -> Simulator {
    start(f(SimConfig {
        projects: 1,
        hosts_per_project: 2,
        now: Some(fixed_now()),
        ..SimConfig::default()
    }))
}

/// The hosts and their partitions.
fn hosts_and_disks(sim: &Simulator) -> Vec<Target> {
    crate::store::all_targets(sim)
        .into_iter()
        .filter(|t| Kind::of(t) != Kind::Database)
        .collect()
}

/// The store's manifest as JSON, to edit as a shared folder or a restored backup might.
fn manifest(store: &Store) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(store.path().join("MANIFEST.json")).unwrap()).unwrap()
}

fn write_manifest(store: &Store, m: &serde_json::Value) {
    std::fs::write(
        store.path().join("MANIFEST.json"),
        serde_json::to_vec(m).unwrap(),
    )
    .unwrap();
}

#[tokio::test]
async fn a_server_clock_a_year_ahead_removes_nothing_and_the_store_recovers_when_it_is_right() {
    let sim = small();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let targets = of_kind(&hosts_and_disks(&sim), Kind::Host);
    let o = options().targets(targets.clone());
    let first = sync(&sim, &store, &o).await;
    assert!(first.warnings.iter().all(|w| !w.contains("ahead")));
    // An hour later the answers say it is a year after this machine's now; the data are
    // unchanged (as a misconfigured proxy or server clock answers).
    sim.advance(Duration::from_secs(3600));
    let year_ahead = Utc::now() + TimeDelta::days(365) - sim.now();
    sim.set_date_skew(year_ahead);
    let skewed = sync(&sim, &store, &o).await;
    assert_eq!(skewed.files_removed, 0);
    assert!(
        skewed
            .warnings
            .iter()
            .any(|w| w.contains("ahead of this machine's")
                && w.contains("nothing left the store's window")),
        "{:?}",
        skewed.warnings
    );
    assert_holds(&sim, &store, &targets, hours(-48), hours(1)).await;
    // The clock right again: the next sync asks every target from its last point (not
    // "unchanged" for a year).
    sim.set_date_skew(TimeDelta::zero());
    sim.advance(Duration::from_secs(3600));
    sim.clear_requests();
    let right = sync(&sim, &store, &o).await;
    assert_eq!(right.data_requests, targets.len() as u64);
    assert_eq!(right.updated.len(), targets.len());
    assert!(data_requests(&sim)
        .iter()
        .all(|(_, s, e)| (s, e) == (&iso(hours(1)), &iso(hours(2)))));
    assert_holds(&sim, &store, &targets, hours(-48), hours(2)).await;
    // A manifest whose `asked_until` lies a year ahead (as such a sync left it before this
    // was fixed) is repaired, and said so.
    let mut m = manifest(&store);
    let ahead = (hours(2) + TimeDelta::days(365)).timestamp_millis();
    for t in m["targets"].as_array_mut().unwrap() {
        t["asked_until"] = serde_json::json!(ahead);
    }
    write_manifest(&store, &m);
    sim.advance(Duration::from_secs(3600));
    let repaired = sync(&sim, &store, &o).await;
    assert_eq!(repaired.updated.len(), targets.len());
    assert!(
        repaired.warnings.iter().any(|w| w.contains("asked again")),
        "{:?}",
        repaired.warnings
    );
    assert_holds(&sim, &store, &targets, hours(-48), hours(3)).await;
}

#[tokio::test]
async fn a_manifest_entry_outside_the_store_is_refused_by_name_and_nothing_outside_is_touched() {
    let sim = small();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let targets = of_kind(&hosts_and_disks(&sim), Kind::Host);
    let o = options().targets(targets.clone());
    sync(&sim, &store, &o).await;
    // `../victim.txt` beside the store, named by a target's files, old enough for the
    // window to expire it.
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let mut m = manifest(&store);
    let entry = serde_json::json!({"name": "../victim.txt", "rows": 1, "bytes": 8,
        "first": 0, "last": 0});
    m["targets"][0]["files"]
        .as_array_mut()
        .unwrap()
        .insert(0, entry);
    write_manifest(&store, &m);

    match store.files(Kind::Host, Granularity::PT1H) {
        Err(Error::StoreFile { path, problem }) => {
            assert!(path.ends_with("../victim.txt"), "{path:?}");
            assert!(problem.contains("not a path inside the store"), "{problem}");
        }
        other => panic!("{other:?}"),
    }
    assert!(store.read(Kind::Host, Granularity::PT1H).is_err());
    let check = store.check().unwrap();
    assert_eq!(check.problems.len(), 1);
    assert!(check.problems[0].path.ends_with("../victim.txt"));

    sim.advance(Duration::from_secs(3600));
    let r = sync(&sim, &store, &o).await;
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(
        r.warnings.iter().any(|w| w.contains("victim.txt")),
        "{:?}",
        r.warnings
    );
    let listed = store.files(Kind::Host, Granularity::PT1H).unwrap();
    assert!(listed.iter().all(|p| p.starts_with(store.path())));
    assert!(store.check().unwrap().ok());
    assert_holds(&sim, &store, &targets, hours(-48), hours(1)).await;
    store.vacuum().unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
}

#[cfg(unix)]
#[tokio::test]
async fn a_symbolic_link_out_of_the_store_is_neither_read_written_nor_removed() {
    let sim = small();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = of_kind(&hosts_and_disks(&sim), Kind::Host)[0].clone();
    let o = options().targets(vec![host.clone()]);
    sync(&sim, &store, &o).await;
    // The host's folder replaced by a link to a folder outside holding the same file names.
    let files = store.files(Kind::Host, Granularity::PT1H).unwrap();
    let folder = files[0].parent().unwrap().to_path_buf();
    let outside = dir.path().join("elsewhere");
    std::fs::rename(&folder, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &folder).unwrap();
    let before: Vec<PathBuf> = listing(&outside);
    match store.files(Kind::Host, Granularity::PT1H) {
        Err(Error::StoreFile { problem, .. }) => {
            assert!(problem.contains("outside the store"), "{problem}")
        }
        other => panic!("{other:?}"),
    }
    let check = store.check().unwrap();
    assert_eq!(check.problems.len(), files.len());
    sim.advance(Duration::from_secs(3600));
    let r = sync(&sim, &store, &o).await;
    // The target fails alone (its folder leads outside); nothing outside changed.
    assert_eq!(r.failed.len(), 1, "{r:?}");
    assert!(r.failed[0].error.to_string().contains("outside the store"));
    assert_eq!(listing(&outside), before);
    store.vacuum().unwrap();
    assert_eq!(listing(&outside), before);
}

fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn a_truncated_a_noisy_and_a_deleted_file_are_named_by_check_and_repaired_by_the_next_sync() {
    let sim = small();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let targets = hosts_and_disks(&sim);
    let o = options().targets(targets.clone());
    sync(&sim, &store, &o).await;
    let points = store_points(&store);
    // One file of each of three partitions: March's (a file that starts the store's window
    // comes back with the value of its first point, where the first request had the null of
    // a rate series' first point).
    let mut files = store.files(Kind::Disk, Granularity::PT1H).unwrap();
    files.retain(|f| f.to_string_lossy().contains(".2026-03."));
    files.sort();
    assert!(files.len() >= 3);
    let (truncated, noisy, deleted) = (&files[0], &files[1], &files[2]);
    let len = std::fs::metadata(truncated).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(truncated)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let n = std::fs::metadata(noisy).unwrap().len() as usize;
    std::fs::write(
        noisy,
        (0..n).map(|i| (i * 7 + 3) as u8).collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::remove_file(deleted).unwrap();

    let check = store.check().unwrap();
    let found: Vec<(&Path, &str)> = check
        .problems
        .iter()
        .map(|p| (p.path.as_path(), p.problem.as_str()))
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    let problem = |f: &PathBuf| found.iter().find(|(p, _)| p == f).unwrap().1;
    assert!(problem(truncated).starts_with("truncated"));
    assert!(problem(noisy).starts_with("damaged"));
    assert_eq!(problem(deleted), "missing");
    // A reader is told which file, never handed a shorter frame.
    match store.read(Kind::Disk, Granularity::PT1H) {
        Err(Error::StoreFile { path, .. }) => assert!(files[..3].contains(&path)),
        other => panic!("{other:?}"),
    }

    // The next sync (nothing new on the server) drops them and asks their spans again.
    sim.clear_requests();
    let r = sync(&sim, &store, &o).await;
    assert_eq!(r.data_requests, 3, "{:?}", data_requests(&sim));
    assert!(r.gaps.is_empty());
    for f in &files[..3] {
        let name = f.display().to_string();
        assert!(
            r.warnings.iter().any(|w| w.starts_with(&name)),
            "{name}: {:?}",
            r.warnings
        );
    }
    assert!(store.check().unwrap().ok());
    assert_eq!(store_points(&store), points);
    assert_holds(&sim, &store, &targets, hours(-48), hours(0)).await;
    // Repaired: the sync after asks nothing.
    let again = sync(&sim, &store, &o).await;
    assert_eq!(again.data_requests, 0);
    assert!(again.warnings.iter().all(|w| !w.contains("dropped")));
}

#[tokio::test]
async fn a_lost_span_the_server_no_longer_has_is_a_gap_never_silent() {
    // Hourly data kept two days by the server, a week by the store.
    let sim = small_with(|c| SimConfig {
        retention: Retention::unlimited().with(3600, Some(Duration::from_secs(2 * 86_400))),
        ..c
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = of_kind(&hosts_and_disks(&sim), Kind::Host)[0].clone();
    let o = SyncOptions::new(Granularity::PT1H, "P7D".parse().unwrap())
        .targets(vec![host.clone()])
        .metrics(Kind::Host, ["CONNECTIONS"]);
    sync(&sim, &store, &o).await;
    for _ in 0..3 {
        sim.advance(Duration::from_secs(86_400));
        sync(&sim, &store, &o).await;
    }
    // February's file (Feb 28 10:00 to 23:00): the server has dropped those hours since.
    let feb = store
        .files(Kind::Host, Granularity::PT1H)
        .unwrap()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(".2026-02."))
        .unwrap();
    std::fs::remove_file(&feb).unwrap();
    let r = sync(&sim, &store, &o).await;
    assert_eq!(r.gaps.len(), 1, "{r:?}");
    let g = &r.gaps[0];
    assert_eq!(g.target, host);
    assert_eq!((g.first, g.last), (hours(-48), hours(-35)));
    assert_eq!(g.points, 14);
    let t = store.targets().unwrap();
    let col = |n: &str| t.column(n).unwrap().i64().unwrap().get(0);
    assert_eq!((col("gaps"), col("points_lost")), (Some(1), Some(14)));
    assert_eq!(col("points_pending"), Some(0));
    assert!(store.check().unwrap().ok());
}

#[tokio::test]
async fn an_identifier_that_cannot_be_sent_fails_its_target_alone() {
    let sim = small();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let h = sim.world().hosts[0].id.clone();
    assert!(sim.add_partition(&h, ".."));
    assert!(sim.add_partition(&h, " "));
    assert!(sim.add_database(&h, "."));
    let r = sync(&sim, &store, &options()).await;
    let mut failed: Vec<String> = r
        .failed
        .iter()
        .map(|f| {
            assert!(
                matches!(f.error, Error::InvalidArgument { .. }),
                "{:?}",
                f.error
            );
            f.target
                .partition_name()
                .or(f.target.database_name())
                .unwrap()
                .to_string()
        })
        .collect();
    failed.sort();
    assert_eq!(failed, [" ", ".", ".."]);
    let good = crate::store::all_targets(&sim).len() - 3;
    assert_eq!(r.new.len(), good);
    assert_eq!(store.targets().unwrap().height(), good);
    // And the next sync is not stopped either.
    sim.advance(Duration::from_secs(3600));
    let r = sync(&sim, &store, &options()).await;
    assert_eq!((r.updated.len(), r.failed.len()), (good, 3));
}

#[tokio::test]
async fn a_file_replaced_by_a_compaction_stays_for_older_readers_until_vacuum() {
    let sim = small();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = of_kind(&hosts_and_disks(&sim), Kind::Host)[0].clone();
    let o = options().targets(vec![host.clone()]);
    sync(&sim, &store, &o).await;
    sim.advance(Duration::from_secs(3600));
    sync(&sim, &store, &o).await;
    // A reader's snapshot (with the small file of the last hour), then syncs that compact
    // that file away.
    let snapshot = store.files(Kind::Host, Granularity::PT1H).unwrap();
    for _ in 0..3 {
        sim.advance(Duration::from_secs(3600));
        sync(&sim, &store, &o).await;
    }
    let now = store.files(Kind::Host, Granularity::PT1H).unwrap();
    assert!(snapshot.iter().any(|f| !now.contains(f)));
    assert!(snapshot.iter().all(|f| f.exists()));
    // With no grace, a sync removes them at once; `vacuum` does the same by hand.
    assert!(store.vacuum().unwrap() > 0);
    assert!(snapshot.iter().any(|f| !f.exists()));
    assert!(now.iter().all(|f| f.exists()));
    sim.advance(Duration::from_secs(3600));
    sync(&sim, &store, &o.clone().grace(Duration::ZERO)).await;
    let after = store.files(Kind::Host, Granularity::PT1H).unwrap();
    let on_disk: usize = after
        .iter()
        .map(|f| std::fs::read_dir(f.parent().unwrap()).unwrap().count())
        .max()
        .unwrap();
    assert_eq!(on_disk, after.len());
}

#[tokio::test]
async fn a_lost_file_whose_span_encloses_another_files_points_comes_back_once() {
    // March as a compaction leaves it: a small first file (Mar 1 00:00-05:00), a big one
    // after a four-day pause, then small ones merged with the first around the big one: the
    // merged file's span encloses the big file's points.
    let start = fixed_now() - TimeDelta::hours(29); // Mar 1 05:00
    let sim = small_with(|c| SimConfig {
        now: Some(start),
        ..c
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join("store"));
    let host = of_kind(&hosts_and_disks(&sim), Kind::Host)[0].clone();
    let o = SyncOptions::new(Granularity::PT1H, "P7D".parse().unwrap())
        .targets(vec![host.clone()])
        .metrics(Kind::Host, ["CONNECTIONS"]);
    sync(&sim, &store, &o).await;
    sim.advance(Duration::from_secs(4 * 86_400));
    sync(&sim, &store, &o).await;
    for _ in 0..2 {
        sim.advance(Duration::from_secs(3600));
        sync(&sim, &store, &o).await;
    }
    let m = manifest(&store);
    let march: Vec<(String, i64, i64)> = m["targets"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["name"].as_str().unwrap().contains(".2026-03."))
        .map(|f| {
            let n = f["name"].as_str().unwrap().to_string();
            (n, f["first"].as_i64().unwrap(), f["last"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(march.len(), 2, "{march:?}");
    let (outer, inner) = if march[0].1 < march[1].1 {
        (&march[0], &march[1])
    } else {
        (&march[1], &march[0])
    };
    assert!(outer.1 < inner.1 && inner.2 < outer.2, "{march:?}");
    // The enclosing file lost: its span is asked again, the enclosed points stay once.
    std::fs::remove_file(store.path().join(&outer.0)).unwrap();
    let r = sync(&sim, &store, &o).await;
    assert!(r.gaps.is_empty(), "{:?}", r.gaps);
    let held = store.read(Kind::Host, Granularity::PT1H).unwrap();
    let end = sim.now();
    let pulled = crate::common::client(&sim)
        .measurements()
        .fleet(
            &[host],
            &opsapi::MeasurementsQuery::range(Granularity::PT1H, start - TimeDelta::days(7), end)
                .metrics(["CONNECTIONS"]),
            &opsapi::fleet::FleetOptions::new(),
        )
        .await
        .unwrap()
        .frame;
    assert_eq!(held.height(), pulled.height());
    assert!(crate::store::canonical(&held).equals_missing(&crate::store::canonical(&pulled)));
}
