//! A server that limits requests per project: the simulator's `rate_limit`, the limit its 429s
//! state, the pace the client learns from them, and the client's own opt-in `rate_limit`.

use opsapi::fleet::{FleetOptions, Target};
use opsapi::sim::{SimConfig, Simulator};
use opsapi::{Granularity, MeasurementsQuery};

use crate::common::{authorized, client, client_with, fixed_now, on_retry, start, API};

fn limited(per_second: f64, hosts_per_project: usize) -> Simulator {
    start(SimConfig {
        projects: 2,
        hosts_per_project,
        rate_limit: Some(per_second),
        ..SimConfig::default()
    })
}

fn targets(sim: &Simulator) -> Vec<Target> {
    let world = sim.world();
    world
        .hosts
        .iter()
        .map(|h| Target::host(h.group_id.clone(), h.id.clone()))
        .collect()
}

/// A fixed hour, 61 points with both ends (a window ending now holds 60 or 61 as the clock
/// crosses a minute while the pull is paced).
fn query() -> MeasurementsQuery {
    let t = |s: &str| opsapi::query::parse_timestamp("start", s).unwrap();
    MeasurementsQuery::range(
        Granularity::PT1M,
        t("2026-01-01T00:00:00Z"),
        t("2026-01-01T01:00:00Z"),
    )
    .metrics(["CONNECTIONS"])
}

#[tokio::test]
async fn past_the_limit_the_simulator_answers_429_with_the_limit_and_retry_after() {
    // On a clock that stands still, a bucket refills only when the test advances it: no
    // token comes back while a loaded machine is slow between two calls.
    let sim = start(SimConfig {
        projects: 2,
        hosts_per_project: 1,
        rate_limit: Some(5.0),
        now: Some(fixed_now()),
        ..SimConfig::default()
    });
    let group = sim.group_ids()[0].clone();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let once = client_with(&sim, |b| b.max_retries(0));
    // Five requests fit the bucket (one second's worth); the sixth is refused.
    for _ in 0..5 {
        once.groups().get(&group).await.unwrap();
    }
    let e = once.groups().get(&group).await.unwrap_err();
    let api = e.api().expect("an API error");
    assert_eq!(
        (api.status, api.error_code.as_deref()),
        (429, Some("RATE_LIMITED"))
    );
    assert_eq!(
        api.detail.as_deref(),
        Some(
            format!("Resource {API}/groups/{group} is limited to 300 requests every 1 minutes.")
                .as_str()
        )
    );
    assert_eq!(api.retry_after, Some(std::time::Duration::from_secs(1)));
    let refused: Vec<_> = authorized(&sim)
        .into_iter()
        .filter(|r| r.status == 429)
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].faults, ["rate_limit"]);
    // A token comes back every 200 ms of the simulator's clock.
    sim.advance(std::time::Duration::from_millis(200));
    once.groups().get(&group).await.unwrap();
    assert!(once.groups().get(&group).await.is_err());

    // A client that retries waits the Retry-After (1 s) and gets through: the test advances
    // the clock while it waits.
    let c = client(&sim);
    c.groups().list().await.unwrap();
    let mut signal = on_retry();
    let call = {
        let (c, group) = (c.clone(), group.clone());
        tokio::spawn(async move { c.groups().get(&group).await })
    };
    let why = signal.retries.recv().await.unwrap();
    assert!(why.contains("429"), "{why}");
    sim.advance(std::time::Duration::from_secs(1));
    call.await.unwrap().unwrap();
    drop(signal);

    // Another project has its own bucket; requests outside projects are not limited.
    let refused_before = authorized(&sim).iter().filter(|r| r.status == 429).count();
    let other = sim.group_ids()[1].clone();
    once.groups().get(&other).await.unwrap();
    for _ in 0..10 {
        once.global_alerts()
            .list(&opsapi::GlobalAlertsQuery::default())
            .await
            .unwrap();
    }
    assert_eq!(
        authorized(&sim).iter().filter(|r| r.status == 429).count(),
        refused_before
    );
    // What the 429 says at another rate, as Ops Manager says it.
    sim.set_rate_limit(Some(1.0));
    let unsigned = http
        .get(format!("{}{API}/groups/{group}", sim.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(
        unsigned.status(),
        401,
        "the limit applies to authorized requests"
    );
    once.groups().get(&group).await.unwrap();
    let e = once.groups().get(&group).await.unwrap_err();
    let api = e.api().expect("an API error");
    assert_eq!(api.status, 429);
    assert_eq!(
        api.detail.as_deref(),
        Some(
            format!("Resource {API}/groups/{group} is limited to 60 requests every 1 minutes.")
                .as_str()
        )
    );
    assert_eq!(api.retry_after, Some(std::time::Duration::from_secs(1)));
}

#[tokio::test]
async fn a_fleet_pull_learns_the_stated_limit_and_paces_each_project() {
    // 2 projects x 40 hosts at 20 requests per second per project: 20 fit the first second's
    // bucket, the other 20 of each project must be paced (unpaced, each would be refused at
    // least once).
    let sim = limited(20.0, 40);
    let targets = targets(&sim);
    assert_eq!(targets.len(), 80);
    let c = client(&sim);
    let pulled = c
        .measurements()
        .fleet(&targets, &query(), &FleetOptions::new().keep_going(true))
        .await
        .unwrap();
    assert!(pulled.failures.is_empty(), "{:?}", pulled.failures);
    assert_eq!(
        pulled.frame.height(),
        80 * 61,
        "every target's hour of points"
    );
    let answered: Vec<_> = authorized(&sim);
    let refused = answered.iter().filter(|r| r.status == 429).count();
    let ok = answered.iter().filter(|r| r.status == 200).count();
    assert_eq!(ok, 80);
    // Only the requests on the wire when a bucket ran dry are refused (at most
    // max_concurrency, 8, per project), and a few paced ones a busy machine sends late and
    // together: not one or more per paced target (40).
    assert!(refused <= 20, "{refused} of {} refused", answered.len());
}

#[tokio::test]
async fn the_clients_own_rate_limit_avoids_429s_altogether() {
    let sim = limited(10.0, 12);
    let targets = targets(&sim);
    let c = client_with(&sim, |b| b.rate_limit(10.0));
    let pulled = c
        .measurements()
        .fleet(&targets, &query(), &FleetOptions::new())
        .await
        .unwrap();
    assert_eq!(pulled.frame.height(), 24 * 61);
    let answered = authorized(&sim);
    assert_eq!(answered.len(), 24);
    assert!(answered.iter().all(|r| r.status == 200), "no 429 at all");
}
