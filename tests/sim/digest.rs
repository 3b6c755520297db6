//! The simulator's Digest: the challenge, nonces reused with increasing nc, replays and wrong
//! signatures refused, stale nonces after their lifetime.

use std::time::Duration;

use opsapi::auth::Challenge;
use opsapi::sim::SimConfig;

use crate::common::{authorization, sim, start, Api};

#[tokio::test]
async fn challenge_headers_and_body() {
    let sim = sim();
    let api = Api::owner(&sim);
    let r = api.raw("GET", "/api/public/v1.0/groups", None, None).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("content-type").unwrap(),
        "application/json;charset=ISO-8859-1"
    );
    let h = r.header("www-authenticate").unwrap();
    assert!(
        h.starts_with("Digest realm=\"MMS Public API\", domain=\"\", nonce=\""),
        "{h}"
    );
    assert!(
        h.ends_with("\", algorithm=MD5, qop=\"auth\", stale=false"),
        "{h}"
    );
    let c = Challenge::parse(&h).unwrap();
    assert!(c.qop_auth && !c.stale);
    let body = r.json();
    assert_eq!(body["error"], 401);
    assert_eq!(body["reason"], "Unauthorized");
    assert_eq!(body["detail"], "You are not authorized for this resource.");
    assert!(body["errorCode"].is_string());
    assert_eq!(body["parameters"], serde_json::json!([]));
    assert!(r.header("x-mongodb-service-version").is_none());
}

#[tokio::test]
async fn signed_requests_reuse_the_nonce_and_reject_replays() {
    let sim = sim();
    let api = Api::owner(&sim);
    let c = api.challenge().await;
    let uri = "/api/public/v1.0/groups";
    let (u, p) = (sim.public_key(), sim.private_key());
    // nc 1, 3, 2: out of order is fine, each once.
    for nc in [1, 3, 2] {
        let r = api
            .raw(
                "GET",
                uri,
                Some(authorization(u, p, "GET", uri, &c.nonce, nc)),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "nc {nc}");
        let v = r.header("x-vendor-service-version").unwrap();
        assert!(
            v.starts_with("gitHash=") && v.contains("; versionString="),
            "{v}"
        );
        let hash = &v["gitHash=".len()..v.find(';').unwrap()];
        assert_eq!(hash.len(), 40);
        assert!(r.header("x-mongodb-service-version").is_some());
    }
    // Refused, each with a fresh challenge (stale=false where the nonce is still good but
    // the request is wrong).
    let other = "/api/public/v1.0/groups?pageNum=1";
    let refused = [
        (
            "replayed nc",
            authorization(u, p, "GET", uri, &c.nonce, 3),
            true,
        ),
        (
            "wrong password",
            authorization(u, "nope", "GET", uri, &c.nonce, 9),
            true,
        ),
        (
            "unknown user",
            authorization("someone", p, "GET", uri, &c.nonce, 10),
            false,
        ),
        (
            "uri not the target",
            authorization(u, p, "GET", other, &c.nonce, 11),
            false,
        ),
        (
            "method mismatch",
            authorization(u, p, "POST", uri, &c.nonce, 12),
            false,
        ),
        ("garbage header", "Digest ,,,=\"".to_owned(), false),
    ];
    for (case, header, not_stale) in refused {
        let r = api.raw("GET", uri, Some(header), None).await;
        assert_eq!(r.status, 401, "{case}");
        if not_stale {
            let challenge = r.header("www-authenticate").unwrap();
            assert!(challenge.contains("stale=false"), "{case}: {challenge}");
        }
    }
    let log = sim.requests();
    assert_eq!(log.iter().filter(|r| r.authorized).count(), 3);
}

#[tokio::test]
async fn stale_nonce_after_its_lifetime() {
    // The clock stands still until advanced: the nonce is good for its whole lifetime and
    // stale from its end, whatever the load.
    let sim = start(SimConfig {
        nonce_lifetime: Duration::from_secs(150),
        now: Some(chrono::DateTime::UNIX_EPOCH + chrono::TimeDelta::days(20_000)),
        ..SimConfig::default()
    });
    let api = Api::owner(&sim);
    let c = api.challenge().await;
    let uri = "/api/public/v1.0/groups";
    let (u, p) = (sim.public_key(), sim.private_key());
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 1)),
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    sim.advance(Duration::from_millis(149_999));
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 2)),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "a millisecond of its lifetime left");
    sim.advance(Duration::from_millis(1));
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 3)),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    let c2 = Challenge::parse(&r.header("www-authenticate").unwrap()).unwrap();
    assert!(c2.stale);
    assert_ne!(c2.nonce, c.nonce);
    // Wrong password with the expired nonce: not stale.
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, "x", "GET", uri, &c.nonce, 4)),
            None,
        )
        .await;
    assert!(r
        .header("www-authenticate")
        .unwrap()
        .contains("stale=false"));
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c2.nonce, 1)),
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    // Switched at runtime: a long lifetime revives the first nonce.
    sim.set_nonce_lifetime(Duration::from_secs(600));
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 5)),
            None,
        )
        .await;
    assert_eq!(r.status, 200);
}
