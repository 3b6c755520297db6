//! Atlas service accounts: one access token for every request of a client (its clones, its
//! tasks), bought again once when it expires in the middle of a fleet pull, a 401 of a token
//! that has not expired answered as it is, the token endpoint's 429 waited out, a wrong
//! secret an authentication error that never shows it, and Atlas's token buckets teaching the
//! pace. The token cache that the processes of a machine share: one purchase for sixteen
//! clients, a cached token judged by the server's clock, one the server refuses bought anew
//! once, a corrupt cache replaced. On the simulator's fixed clock, moved by the test
//! (`advance`), except where the wall clock is the behaviour (a `Retry-After` waited, a pace
//! kept).

use std::time::Duration;

use opsapi::sim::{Aim, Fault, SimConfig, Simulator, TokenBucket};
use opsapi::{Client, Flavour};

use crate::common::{fixed_now, on_retry, start};
use crate::flavours::{api_requests, client_of, sim_of};

const TOKEN: &str = "/api/oauth/token";

/// The token endpoint's requests: (status, seconds after the simulator started).
fn purchases(sim: &Simulator) -> Vec<(u16, Duration)> {
    sim.requests()
        .iter()
        .filter(|r| r.path == TOKEN)
        .map(|r| (r.status, r.arrived))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_calls_over_eight_tasks_cost_one_token() {
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    let group = sim.group_ids()[0].clone();
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (c, group) = (c.clone(), group.clone());
            tokio::spawn(async move {
                for _ in 0..125 {
                    c.groups().get(&group).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(purchases(&sim).len(), 1);
    let api = api_requests(&sim);
    assert_eq!(api.len(), 1000);
    assert!(api
        .iter()
        .all(|r| r.status == 200 && r.auth.as_deref() == Some("Bearer")));
}

#[cfg(feature = "frames")] // fleet pulls
#[tokio::test]
async fn a_token_expiring_in_the_middle_of_a_fleet_pull_costs_one_more_and_fails_nothing() {
    use opsapi::fleet::{FleetOptions, Target};
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    c.groups().list().await.unwrap();
    let hosts = crate::flavours::served_hosts(&sim);
    let targets: Vec<_> = hosts
        .iter()
        .map(|h| Target::host(&h.group_id, h.process_id()))
        .collect();
    let q = opsapi::MeasurementsQuery::period(opsapi::Granularity::PT1H, "P1D".parse().unwrap())
        .metrics(["CONNECTIONS"]);
    // The sixth target's request waits on arrival while the token's hour passes.
    let sixth = &hosts[5];
    let path = format!(
        "/groups/{}/processes/{}/measurements",
        sixth.group_id,
        sixth.process_id().replace(':', "%3A")
    );
    let held = sim.hold(Aim::get(path));
    let pull = {
        let (c, targets) = (c.clone(), targets.clone());
        tokio::spawn(async move {
            c.measurements()
                .fleet(&targets, &q, &FleetOptions::new().keep_going(true))
                .await
        })
    };
    tokio::time::timeout(Duration::from_secs(30), held.arrived())
        .await
        .expect("the sixth request arrives");
    sim.advance(Duration::from_secs(3600));
    held.release();
    let pulled = pull.await.unwrap().unwrap();
    assert!(pulled.failures.is_empty(), "{:?}", pulled.failures);
    assert_eq!(pulled.frame.height(), targets.len() * 25);
    let bought = purchases(&sim);
    assert_eq!(bought.len(), 2, "{bought:?}");
    assert!(bought.iter().all(|(status, _)| *status == 200));
    // The requests refused were those signed with the expired token, each sent once more.
    let measurements: Vec<_> = api_requests(&sim)
        .into_iter()
        .filter(|r| r.path.ends_with("/measurements"))
        .collect();
    let refused = measurements.iter().filter(|r| r.status == 401).count();
    assert!(refused >= 1, "the held request's token had expired");
    assert_eq!(measurements.len(), targets.len() + refused);
}

#[tokio::test]
async fn a_401_whose_token_has_not_expired_is_not_retried() {
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    let group = sim.group_ids()[0].clone();
    c.groups().get(&group).await.unwrap();
    sim.inject_at(Aim::get(format!("/groups/{group}")), Fault::Unauthorized, 1);
    let e = c.groups().get(&group).await.unwrap_err();
    assert_eq!(e.status(), Some(401));
    assert_eq!(purchases(&sim).len(), 1, "no second token");
    assert_eq!(api_requests(&sim).len(), 2);
}

#[tokio::test]
async fn a_token_bought_before_its_expiry_by_the_servers_clock() {
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    let group = sim.group_ids()[0].clone();
    c.groups().get(&group).await.unwrap();
    // 59 minutes later by the server's clock (the Date of its next answer), the token is
    // within a minute of its expiry: the next request buys another first.
    sim.advance(Duration::from_secs(59 * 60));
    c.groups().get(&group).await.unwrap(); // still the first token; its Date tells the time
    c.groups().get(&group).await.unwrap();
    let bought = purchases(&sim);
    assert_eq!(bought.len(), 2, "{bought:?}");
    assert!(api_requests(&sim).iter().all(|r| r.status == 200));
}

/// The server's clock a month ahead of this machine's, and tokens of 600 seconds: when the
/// `Date` of an answer says 550 of them have passed, the next call buys a new token before it
/// is sent, with the machine's token cache and without (a token taken back from the cache is
/// judged by its lifetime, as the client that bought it judges it), and no request goes out
/// with a token about to lapse.
#[tokio::test]
async fn a_token_is_bought_again_when_the_servers_clock_says_550_of_its_600_seconds_passed() {
    use chrono::{SubsecRound, TimeDelta, Utc};
    for cache in [false, true] {
        let ahead = (Utc::now() + TimeDelta::days(30)).trunc_subsecs(0);
        let sim = start(SimConfig {
            flavour: Flavour::Atlas,
            now: Some(ahead),
            token_lifetime: Duration::from_secs(600),
            ..SimConfig::default()
        });
        let dir = tempfile::tempdir().unwrap();
        let c = Client::atlas()
            .base_url(sim.base_url())
            .service_account(sim.client_id(), sim.client_secret())
            .token_cache_dir(dir.path())
            .token_cache(cache)
            .build()
            .unwrap();
        let group = sim.group_ids()[0].clone();
        c.groups().get(&group).await.unwrap();
        sim.advance(Duration::from_secs(550));
        c.groups().get(&group).await.unwrap(); // the first token still; its Date says 550 s
        c.groups().get(&group).await.unwrap();
        assert!(
            sim.now() > Utc::now() + TimeDelta::days(29),
            "the server is ahead"
        );
        let log: Vec<_> = sim
            .requests()
            .iter()
            .map(|r| (r.path == TOKEN, r.status))
            .collect();
        let (token, api) = (true, false);
        assert_eq!(
            log,
            [
                (token, 200),
                (api, 200),
                (api, 200),
                (token, 200),
                (api, 200)
            ],
            "cache {cache}"
        );
        assert_eq!(dir.path().join("tokens.json").exists(), cache);
    }
}

#[tokio::test]
async fn the_token_endpoints_429_is_waited_out() {
    // Its bucket holds one purchase, back after a second of the simulator's clock.
    let sim = start(SimConfig {
        flavour: Flavour::Atlas,
        now: Some(fixed_now()),
        token_endpoint_limit: Some(TokenBucket {
            capacity: 1,
            per_minute: 60.0,
        }),
        ..SimConfig::default()
    });
    client_of(&sim).groups().list().await.unwrap();
    // With no time for the wait, the 429 is the answer.
    let hurried = Client::atlas()
        .base_url(sim.base_url())
        .service_account(sim.client_id(), sim.client_secret())
        .token_cache(false)
        .max_retry_wait(Duration::ZERO)
        .build()
        .unwrap();
    let e = hurried.groups().list().await.unwrap_err();
    let api = e.api().expect("an API error");
    assert_eq!(
        (api.status, api.error_code.as_deref()),
        (429, Some("RATE_LIMITED_TOKEN_BUCKET"))
    );
    assert_eq!(api.request, "POST /api/oauth/token");
    assert_eq!(api.retry_after, Some(Duration::from_secs(1)));
    // A client that may wait waits the Retry-After; the test moves the clock meanwhile.
    let other = client_of(&sim);
    let mut signal = on_retry();
    let call = tokio::spawn(async move { other.groups().list().await });
    let why = signal.retries.recv().await.unwrap();
    assert!(why.contains("429"), "{why}");
    sim.advance(Duration::from_secs(1));
    call.await.unwrap().unwrap();
    drop(signal);
    let bought = purchases(&sim);
    assert_eq!(
        bought.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        [200, 429, 429, 200]
    );
    // behaviour: the Retry-After of the 429 (1 s) was waited before buying again.
    assert!(bought[3].1 - bought[2].1 >= Duration::from_millis(900));
}

#[tokio::test]
async fn a_wrong_secret_is_an_authentication_error_that_never_shows_it() {
    let sim = sim_of(Flavour::Atlas);
    let secret = "mdb_sa_sk_not-the-secret-at-all";
    let c = Client::atlas()
        .base_url(sim.base_url())
        .service_account(sim.client_id(), secret)
        .token_cache(false)
        .build()
        .unwrap();
    let e = c.groups().list().await.unwrap_err();
    let api = e.api().expect("an API error");
    assert_eq!(
        (api.status, api.error_code.as_deref()),
        (401, Some("invalid_client"))
    );
    for shown in [e.to_string(), format!("{e:?}"), format!("{c:?}")] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(
        api_requests(&sim).is_empty(),
        "no API request without a token"
    );
    assert_eq!(purchases(&sim).len(), 1);
}

/// A client of `sim`'s service account with the token cache in `dir`: one of the machine's
/// processes. (Each client has its own token in memory and opens the cache's lock for
/// itself; a flock belongs to its open file, so clients of one process wait for each other
/// as processes do.)
fn cached(sim: &Simulator, dir: &std::path::Path) -> Client {
    Client::atlas()
        .base_url(sim.base_url())
        .service_account(sim.client_id(), sim.client_secret())
        .token_cache_dir(dir)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_clients_sharing_the_token_cache_buy_one_token() {
    // The token endpoint keeps Atlas's 10 a minute, and the fixed clock never refills it:
    // sixteen clients that each bought their own would see 429s they could not wait out.
    let sim = sim_of(Flavour::Atlas);
    let dir = tempfile::tempdir().unwrap();
    let group = sim.group_ids()[0].clone();
    let calls: Vec<_> = (0..16)
        .map(|_| {
            let (c, group) = (cached(&sim, dir.path()), group.clone());
            tokio::spawn(async move { c.hosts().list(&group).await.map(|h| h.len()) })
        })
        .collect();
    for call in calls {
        assert!(call.await.unwrap().unwrap() > 0);
    }
    let bought = purchases(&sim);
    assert_eq!(bought.len(), 1, "{bought:?}");
    let api = api_requests(&sim);
    assert_eq!(api.len(), 16);
    assert!(api
        .iter()
        .all(|r| r.status == 200 && r.auth.as_deref() == Some("Bearer")));
    // The simulator's clock is months behind this machine's: the clients that took the token
    // from the cache judged it by the server's clock as its buyer saw it.
    assert!(sim.now() < chrono::Utc::now() - chrono::TimeDelta::days(30));
    let text = std::fs::read_to_string(dir.path().join("tokens.json")).unwrap();
    for secret in [sim.client_secret(), sim.client_id(), &sim.base_url()] {
        assert!(!text.contains(secret), "{text}");
    }
}

#[tokio::test]
async fn a_cached_token_that_expired_on_the_servers_clock_is_bought_again_once() {
    let sim = sim_of(Flavour::Atlas);
    let dir = tempfile::tempdir().unwrap();
    let group = sim.group_ids()[0].clone();
    cached(&sim, dir.path()).groups().get(&group).await.unwrap();
    // The token's hour passes on the server's clock; a new client knows only the cache's
    // offset, sends the token, is refused 401, and buys the next one.
    sim.advance(Duration::from_secs(3600));
    cached(&sim, dir.path()).groups().get(&group).await.unwrap();
    cached(&sim, dir.path()).groups().get(&group).await.unwrap();
    assert_eq!(
        purchases(&sim).len(),
        2,
        "the third took the second's token"
    );
    let statuses: Vec<_> = api_requests(&sim).iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 401, 200, 200]);
}

#[tokio::test]
async fn a_cached_token_the_server_refuses_is_bought_anew_once() {
    let sim = sim_of(Flavour::Atlas);
    let dir = tempfile::tempdir().unwrap();
    let group = sim.group_ids()[0].clone();
    let path = format!("/groups/{group}");
    cached(&sim, dir.path()).groups().get(&group).await.unwrap();
    // A server that does not know the cache's token (revoked; a server restarted at the same
    // address): the request is sent once more with a token bought anew.
    let c = cached(&sim, dir.path());
    sim.inject_at(Aim::get(path.clone()), Fault::Unauthorized, 1);
    c.groups().get(&group).await.unwrap();
    assert_eq!(purchases(&sim).len(), 2);
    // The new token is the cache's now; one this client bought is not bought again on a 401.
    cached(&sim, dir.path()).groups().get(&group).await.unwrap();
    sim.inject_at(Aim::get(path), Fault::Unauthorized, 1);
    assert_eq!(
        c.groups().get(&group).await.unwrap_err().status(),
        Some(401)
    );
    assert_eq!(purchases(&sim).len(), 2);
    let statuses: Vec<_> = api_requests(&sim).iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 401, 200, 200, 401]);
}

#[tokio::test]
async fn a_corrupt_cache_is_replaced_and_a_client_without_the_cache_writes_none() {
    let sim = sim_of(Flavour::Atlas);
    let dir = tempfile::tempdir().unwrap();
    let group = sim.group_ids()[0].clone();
    let off = Client::atlas()
        .base_url(sim.base_url())
        .service_account(sim.client_id(), sim.client_secret())
        .token_cache_dir(dir.path())
        .token_cache(false);
    assert_eq!(off.clone().build().unwrap().token_cache(), None);
    off.build().unwrap().groups().get(&group).await.unwrap();
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    let file = dir.path().join("tokens.json");
    std::fs::write(&file, b"{\"format\": 1, \"tokens\": [oops").unwrap();
    let c = cached(&sim, dir.path());
    assert_eq!(c.token_cache(), Some(dir.path()));
    c.groups().get(&group).await.unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let cache: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        cache["tokens"].as_object().map(|t| t.len()),
        Some(1),
        "{text}"
    );
    cached(&sim, dir.path()).groups().get(&group).await.unwrap();
    assert_eq!(
        purchases(&sim).len(),
        2,
        "the client without the cache, and one for both"
    );
}

#[cfg(feature = "frames")] // fleet pulls
mod buckets {
    use super::*;
    use opsapi::fleet::{FleetOptions, Target};
    use opsapi::EndpointSet;

    fn bucketed(per_minute: f64, hosts_per_project: usize) -> Simulator {
        start(SimConfig {
            flavour: Flavour::Atlas,
            projects: 2,
            hosts_per_project,
            token_buckets: vec![(
                EndpointSet::Monitoring,
                TokenBucket {
                    capacity: (per_minute / 60.0) as u32,
                    per_minute,
                },
            )],
            ..SimConfig::default()
        })
    }

    fn targets(sim: &Simulator) -> Vec<Target> {
        crate::flavours::served_hosts(sim)
            .iter()
            .map(|h| Target::host(&h.group_id, h.process_id()))
            .collect()
    }

    fn query() -> opsapi::MeasurementsQuery {
        let t = |s: &str| opsapi::query::parse_timestamp("start", s).unwrap();
        opsapi::MeasurementsQuery::range(
            opsapi::Granularity::PT1M,
            t("2026-01-01T00:00:00Z"),
            t("2026-01-01T01:00:00Z"),
        )
        .metrics(["CONNECTIONS"])
    }

    #[tokio::test]
    async fn a_fleet_pull_learns_the_refill_rate_of_each_projects_bucket() {
        // 2 projects x 40 hosts (Atlas serves all but the standalones, more than 30 a
        // project), buckets of 20 refilled at 20 a second: the others of each project must be
        // paced (unpaced, each would be refused at least once).
        let sim = bucketed(1200.0, 40);
        let targets = targets(&sim);
        let n = targets.len();
        assert!(n > 60, "{n}");
        let c = client_of(&sim);
        let pulled = c
            .measurements()
            .fleet(&targets, &query(), &FleetOptions::new().keep_going(true))
            .await
            .unwrap();
        assert!(pulled.failures.is_empty(), "{:?}", pulled.failures);
        assert_eq!(pulled.frame.height(), n * 61);
        let answered = api_requests(&sim);
        let refused: Vec<_> = answered.iter().filter(|r| r.status == 429).collect();
        assert!(refused.iter().all(|r| r.faults == ["token_bucket"]));
        assert_eq!(answered.iter().filter(|r| r.status == 200).count(), n);
        // Only the requests on the wire when a bucket ran dry are refused (at most
        // max_concurrency, 8, per project), and a few paced ones a busy machine sends late
        // and together: not one or more per paced target (40).
        assert!(
            refused.len() <= 20,
            "{} of {} refused",
            refused.len(),
            answered.len()
        );
    }

    #[tokio::test]
    async fn a_rate_limit_per_endpoint_set_avoids_429s_altogether() {
        let sim = bucketed(600.0, 12);
        let targets = targets(&sim);
        let c = Client::atlas()
            .base_url(sim.base_url())
            .service_account(sim.client_id(), sim.client_secret())
            .token_cache(false)
            .rate_limit_for(EndpointSet::Monitoring, 10.0)
            .build()
            .unwrap();
        let pulled = c
            .measurements()
            .fleet(&targets, &query(), &FleetOptions::new())
            .await
            .unwrap();
        assert_eq!(pulled.frame.height(), targets.len() * 61);
        let answered = api_requests(&sim);
        assert_eq!(answered.len(), targets.len());
        assert!(answered.iter().all(|r| r.status == 200), "no 429 at all");
        assert_eq!(c.rate_limit_for(EndpointSet::Events), None);
    }
}
