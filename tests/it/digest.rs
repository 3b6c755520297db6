//! Digest: what a session costs in requests (one unsigned request per client, one more per
//! expired nonce, shared by concurrent calls) and how refusals end (a wrong key, a role
//! refusal, a 401 without a challenge, endless 401s: never a loop).

use std::time::Duration;

use opsapi::sim::{Fault, SimConfig};
use opsapi::Client;
#[cfg(feature = "frames")] // a fleet pull
use opsapi::{Granularity, MeasurementsQuery};

use crate::common::{
    client, for_an_hour, fresh_client, ids, seen, sim, sim_at_fixed_now, start, warm,
};

#[tokio::test]
async fn digest_costs_one_request_per_call_after_the_first() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    for _ in 0..10 {
        c.hosts().get(&h.group_id, &h.id).await.unwrap();
    }
    let all = sim.requests();
    assert_eq!(all.len(), 11, "10 calls cost 11 requests");
    assert_eq!(all[0].status, 401);
    assert!(all[1..].iter().all(|r| r.status == 200 && r.authorized));
}

#[tokio::test]
async fn an_expired_nonce_costs_one_extra_request() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    sim.clear_requests();
    sim.inject(Fault::StaleNonce, 1);
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![401, 200]);
}

#[tokio::test]
async fn nonces_that_expire_by_time_are_renewed() {
    // The simulator's clock stands still: the nonce outlives its 300 s only when the test
    // says so.
    let sim = sim_at_fixed_now();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    sim.clear_requests();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert_eq!(sim.requests().len(), 1, "the nonce is still good");
    sim.advance(Duration::from_secs(300));
    sim.clear_requests();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![401, 200]);
}

#[tokio::test]
async fn concurrent_calls_share_the_session() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = world.hosts[0].clone();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..32 {
        let c = c.clone();
        let h = h.clone();
        tasks.push(tokio::spawn(async move {
            c.hosts().get(&h.group_id, &h.id).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    // 33 calls, 34 requests: only the very first one was unsigned.
    assert_eq!(statuses.len(), 34, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 1);
}

#[cfg(feature = "frames")]
#[tokio::test]
async fn a_fresh_client_pulling_concurrently_is_challenged_once() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let targets: Vec<opsapi::frame::Target> = world
        .hosts
        .iter()
        .take(10)
        .map(|h| opsapi::frame::Target::host(&h.group_id, &h.id))
        .collect();
    let q = MeasurementsQuery::period(Granularity::PT1H, "PT6H".parse().unwrap())
        .metrics(["CONNECTIONS"]);
    c.measurements()
        .fleet(&targets, &q, &opsapi::frame::FleetOptions::new())
        .await
        .unwrap();
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses.len(), 11, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 1);
}

#[tokio::test]
async fn a_fresh_client_fetches_the_challenge_with_one_unsigned_request() {
    let sim = sim();
    let i = ids(&sim);
    let c = fresh_client(&sim);
    c.hosts().get(&i.group, &i.host).await.unwrap();
    c.hosts().get(&i.group, &i.host).await.unwrap();
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 200"),
            format!("GET {path} signed 200"),
        ]
    );
}

#[tokio::test]
async fn a_stale_nonce_costs_exactly_one_request_on_a_fresh_and_a_warm_client() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    // Fresh: the first signed request, right after the handshake, meets the stale nonce.
    let c = fresh_client(&sim);
    sim.inject(Fault::StaleNonce, 1);
    c.hosts().get(&i.group, &i.host).await.unwrap();
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 401 [stale nonce]"),
            format!("GET {path} signed 200"),
        ]
    );
    // Warm, and for a write too.
    sim.clear_requests();
    sim.inject(Fault::StaleNonce, 1);
    c.global_alerts()
        .acknowledge(&i.alert, &for_an_hour())
        .await
        .unwrap();
    assert_eq!(
        seen(&sim),
        [
            format!("PATCH /globalAlerts/{} signed 401 [stale nonce]", i.alert),
            format!("PATCH /globalAlerts/{} signed 201", i.alert),
        ]
    );
    // A nonce that expires by time on a fresh client's first signed request.
    let sim = start(SimConfig {
        nonce_lifetime: Duration::ZERO,
        ..SimConfig::default()
    });
    let err = fresh_client(&sim)
        .hosts()
        .get(&i.group, &i.host)
        .await
        .unwrap_err();
    assert!(err.is_unauthorized(), "{err:?}");
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 401"),
            format!("GET {path} signed 401"),
        ],
        "every nonce is stale at once: one renewal, then the error"
    );
}

#[tokio::test]
async fn a_wrong_key_is_an_authentication_error_after_one_challenge() {
    let sim = sim();
    let c = Client::builder(sim.base_url())
        .credentials(sim.public_key(), "not-the-key")
        .build()
        .unwrap();
    let world = sim.world();
    let err = c
        .hosts()
        .get(&world.hosts[0].group_id, &world.hosts[0].id)
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(401));
    assert!(err.is_unauthorized());
    assert!(!err.to_string().contains("not-the-key"));
    assert!(!format!("{err:?}").contains("not-the-key"));
    assert!(!format!("{c:?}").contains("not-the-key"));
    assert_eq!(
        sim.requests().len(),
        2,
        "unsigned, then signed once: no loop"
    );
}

#[tokio::test]
async fn a_plain_401_right_after_the_handshake_is_a_wrong_key() {
    let sim = sim();
    let i = ids(&sim);
    let c = Client::builder(sim.base_url())
        .credentials(sim.public_key(), "00000000-wrong-key")
        .build()
        .unwrap();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(err.is_unauthorized(), "{err:?}");
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        err.to_string(),
        format!("HTTP 401 UNAUTHORIZED on GET {path}: You are not authorized for this resource.")
    );
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 401"),
        ]
    );
}

#[tokio::test]
async fn the_read_only_key_cannot_write() {
    let sim = sim();
    let ro = Client::builder(sim.base_url())
        .credentials(sim.read_only_public_key(), sim.read_only_private_key())
        .build()
        .unwrap();
    let world = sim.world();
    let target = world.alerts[0].id.clone();
    let err = ro.global_alerts().unacknowledge(&target).await.unwrap_err();
    assert_eq!(err.status(), Some(401));
    assert_eq!(err.error_code(), Some("USER_UNAUTHORIZED"));
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        vec![401, 401],
        "a role refusal is not re-challenged"
    );
}

#[tokio::test]
async fn a_warm_client_retries_one_plain_401_once() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    sim.inject(Fault::Challenge { stale: false }, 1);
    c.access_list().delete(&i.entry).await.unwrap();
    assert_eq!(
        seen(&sim),
        [
            format!(
                "DELETE /admin/accessList/{} signed 401 [challenge stale=false]",
                i.entry
            ),
            format!("DELETE /admin/accessList/{} signed 204", i.entry),
        ]
    );
}

#[tokio::test]
async fn a_401_without_a_challenge_is_an_authentication_error() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    // Fresh: the handshake itself gets no challenge.
    sim.inject(Fault::Unauthorized, 1);
    let err = fresh_client(&sim)
        .hosts()
        .get(&i.group, &i.host)
        .await
        .unwrap_err();
    assert!(err.is_unauthorized(), "{err:?}");
    assert_eq!(
        seen(&sim),
        [format!("GET {path} unsigned 401 [unauthorized]")]
    );
    // Warm.
    let c = warm(&sim).await;
    sim.inject(Fault::Unauthorized, 1);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("HTTP 401 UNAUTHORIZED on GET {path}: You are not authorized for this resource.")
    );
    assert_eq!(
        seen(&sim),
        [format!("GET {path} signed 401 [unauthorized]")]
    );
}

#[tokio::test]
async fn endless_401s_end_after_at_most_three_requests() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for stale in [false, true] {
        let label = format!("[challenge stale={stale}]");
        // Fresh client: the handshake, then one signed try (and one more for stale).
        sim.clear_requests();
        sim.inject(Fault::Challenge { stale }, 100);
        let err = fresh_client(&sim)
            .hosts()
            .get(&i.group, &i.host)
            .await
            .unwrap_err();
        assert!(err.is_unauthorized(), "{err:?}");
        let mut want = vec![
            format!("GET {path} unsigned 401 {label}"),
            format!("GET {path} signed 401 {label}"),
        ];
        if stale {
            want.push(format!("GET {path} signed 401 {label}"));
        }
        assert_eq!(seen(&sim), want, "fresh, stale={stale}");
        // Warm client: one retry.
        sim.clear_injected();
        let c = warm(&sim).await;
        sim.inject(Fault::Challenge { stale }, 100);
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        assert!(err.is_unauthorized(), "{err:?}");
        assert_eq!(
            seen(&sim),
            [
                format!("GET {path} signed 401 {label}"),
                format!("GET {path} signed 401 {label}"),
            ],
            "warm, stale={stale}"
        );
        sim.clear_injected();
    }
}
