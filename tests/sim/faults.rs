//! The simulator's fault injection: one-shot faults (status, Retry-After, reset, truncation,
//! stale nonce, repeated page, wrong total) and standing rates.

use std::time::Duration;

use opsapi::sim::{Fault, Faults};

use crate::common::{authorization, sim, Api, PREFIX};

#[tokio::test]
async fn faults_status_and_retry_after() {
    let sim = sim();
    let api = Api::owner(&sim);
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(7),
        },
        1,
    );
    sim.inject(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    sim.inject(
        Fault::Status {
            status: 500,
            retry_after: None,
        },
        1,
    );
    let r = api.get("/groups").await;
    assert_eq!((r.status, r.error_code().as_str()), (429, "RATE_LIMITED"));
    assert_eq!(r.header("retry-after").as_deref(), Some("7"));
    let r = api.get("/groups").await;
    assert_eq!(r.status, 503);
    assert!(r.header("retry-after").is_none());
    let r = api.get("/groups").await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (500, "UNEXPECTED_ERROR")
    );
    assert_eq!(api.get("/groups").await.status, 200);
    // Standing rate: all 429.
    sim.set_faults(Faults {
        rate_429: 1.0,
        retry_after_secs: 3,
        ..Faults::default()
    });
    let r = api.get("/groups").await;
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after").as_deref(), Some("3"));
    sim.set_faults(Faults::default());
    assert_eq!(api.get("/groups").await.status, 200);
}

#[tokio::test]
async fn faults_reset_truncate_and_latency() {
    let sim = sim();
    let api = Api::owner(&sim);
    assert_eq!(api.get("/groups").await.status, 200);
    sim.inject(Fault::Reset, 1);
    let url = format!("{}{PREFIX}/groups", sim.base_url());
    let e = api.http.get(&url).send().await;
    assert!(e.is_err(), "reset: {e:?}");
    // Truncated: the full Content-Length, half the body.
    sim.inject(Fault::Truncate, 1);
    let c = api.challenge().await;
    let uri = format!("{PREFIX}/groups");
    let auth = authorization(
        sim.public_key(),
        sim.private_key(),
        "GET",
        &uri,
        &c.nonce,
        1,
    );
    let r = api
        .http
        .get(&url)
        .header("authorization", auth)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let announced = r.content_length().unwrap();
    assert!(announced > 100);
    assert!(r.bytes().await.is_err(), "body cut short");
    let log = sim.requests();
    let n = log.len();
    assert_eq!(log[n - 1].status, 200);
    // Latency.
    sim.set_faults(Faults {
        latency: Duration::from_millis(120),
        ..Faults::default()
    });
    let t = std::time::Instant::now();
    assert_eq!(api.get("/groups").await.status, 200);
    // behaviour: the latency is the fault; a lower bound cannot fail by load.
    assert!(t.elapsed() >= Duration::from_millis(120));
}

#[tokio::test]
async fn faults_stale_nonce_repeat_page_and_wrong_total() {
    let sim = sim();
    let api = Api::owner(&sim);
    assert_eq!(api.get("/groups").await.status, 200);
    let c = api.nonce.lock().unwrap().clone().unwrap();
    sim.inject(Fault::StaleNonce, 1);
    let uri = format!("{PREFIX}/groups");
    let r = api
        .raw(
            "GET",
            &uri,
            Some(authorization(
                sim.public_key(),
                sim.private_key(),
                "GET",
                &uri,
                &c,
                50,
            )),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").unwrap().contains("stale=true"));
    let p1 = api.get_json("/globalAlerts?itemsPerPage=5").await;
    sim.inject(Fault::RepeatFirstPage, 1);
    let p2 = api.get_json("/globalAlerts?itemsPerPage=5&pageNum=2").await;
    assert_eq!(p1["results"], p2["results"]);
    let p2b = api.get_json("/globalAlerts?itemsPerPage=5&pageNum=2").await;
    assert_ne!(p1["results"], p2b["results"]);
    sim.inject(Fault::WrongTotalCount(3), 1);
    let v = api.get_json("/globalAlerts?itemsPerPage=5").await;
    assert_eq!(v["totalCount"], 3);
    assert_eq!(
        api.get_json("/globalAlerts?itemsPerPage=5").await["totalCount"],
        60
    );
}

#[tokio::test]
async fn standing_fault_rates_of_one_always_fire() {
    let sim = sim();
    let api = Api::owner(&sim);
    assert_eq!(api.get("/groups").await.status, 200);
    sim.set_faults(Faults {
        rate_500: 1.0,
        ..Faults::default()
    });
    let r = api.get("/groups").await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (500, "UNEXPECTED_ERROR")
    );
    sim.set_faults(Faults {
        rate_503: 1.0,
        retry_after_secs: 2,
        ..Faults::default()
    });
    let r = api.get("/groups").await;
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after").as_deref(), Some("2"));
    let url = format!("{}{PREFIX}/groups", sim.base_url());
    sim.set_faults(Faults {
        rate_reset: 1.0,
        ..Faults::default()
    });
    assert!(api.http.get(&url).send().await.is_err());
    assert_eq!(sim.requests().last().unwrap().status, 0);
    sim.set_faults(Faults {
        rate_truncate: 1.0,
        ..Faults::default()
    });
    let nonce = api.nonce.lock().unwrap().clone().unwrap();
    let uri = format!("{PREFIX}/groups");
    let auth = authorization(
        sim.public_key(),
        sim.private_key(),
        "GET",
        &uri,
        &nonce,
        1000,
    );
    let r = api
        .http
        .get(&url)
        .header("authorization", auth)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.bytes().await.is_err());
    // Unauthenticated probes are never truncated: the challenge stays intact.
    let r = api.raw("GET", &uri, None, None).await;
    assert_eq!(r.status, 401);
    assert!(r.json()["detail"].is_string());
    assert_eq!(sim.faults().rate_truncate, 1.0);
}
