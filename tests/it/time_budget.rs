//! The time budget (`timeout`): one bound on the whole call, waits and retries included; a
//! `Retry-After` that does not fit ends the call at once; a stalled answer is a timeout.

use std::time::{Duration, Instant};

use opsapi::sim::{Aim, Fault, Faults, SimConfig};
use opsapi::{Client, Error};

use crate::common::{api_error, builder, client_5s, closed_port, ids, seen, sim, start, API};

#[tokio::test]
async fn a_retry_after_beyond_the_budget_ends_the_call_at_once() {
    let sim = start(SimConfig {
        faults: Faults {
            rate_429: 1.0,
            retry_after_secs: 30,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let i = ids(&sim);
    let c = client_5s(&sim); // timeout 5 s
    let t = Instant::now();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    // behaviour: the call ends on the 429 without waiting, neither the 30 s asked for nor
    // until its 5 s budget runs out; 4 s is far from either and leaves a loaded machine
    // room (the log below shows that no retry was sent).
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    let api = api_error(&err);
    assert_eq!(api.status, 429);
    assert_eq!(api.retry_after, Some(Duration::from_secs(30)));
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        err.to_string(),
        format!(
            "HTTP 429 RATE_LIMITED on GET {path}: Too many requests for {API}{path}; retry \
             later."
        )
    );
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 429 [rate_429]"),
        ]
    );

    // Longer than max_retry_wait (60 s) with a budget that would allow it: at once, too.
    sim.set_faults(Faults::default());
    let patient = builder(&sim)
        .timeout(Duration::from_secs(600))
        .build()
        .unwrap();
    patient.groups().list().await.unwrap();
    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(61),
        },
        1,
    );
    let t = Instant::now();
    let err = patient.hosts().get(&i.group, &i.host).await.unwrap_err();
    // behaviour: a wait longer than max_retry_wait is not waited, even with the budget for
    // it: the call ends at once, far under the 61 s asked for.
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert_eq!(api_error(&err).retry_after, Some(Duration::from_secs(61)));
    assert_eq!(
        seen(&sim),
        [format!("GET {path} signed 429 [status 429 retry-after 61]")]
    );
}

#[tokio::test]
async fn a_slow_retry_chain_stops_within_the_budget() {
    let sim = sim();
    let i = ids(&sim);
    let c = builder(&sim)
        .timeout(Duration::from_secs(5))
        .max_retries(10)
        .build()
        .unwrap();
    c.groups().list().await.unwrap();
    sim.clear_requests();
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    sim.inject_at(
        Aim::get(path.clone()),
        Fault::Status {
            status: 503,
            retry_after: Some(2),
        },
        10,
    );
    let t = Instant::now();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    let took = t.elapsed();
    // behaviour: attempts at about 0 s, 2 s and 4 s; a third wait would end past the 5 s
    // budget, so the call ends with the third answer instead of waiting into a timeout.
    // Each step has a second to spare on a loaded machine, and the call ends inside its
    // budget (plus that second).
    assert!(took < Duration::from_secs(6), "{took:?}");
    assert_eq!(api_error(&err).status, 503, "{err:?}");
    assert_eq!(api_error(&err).retry_after, Some(Duration::from_secs(2)));
    let line = format!("GET {path} signed 503 [status 503 retry-after 2]");
    assert_eq!(seen(&sim), [line.clone(), line.clone(), line]);
    assert_eq!(sim.injected().len(), 7);
    // The Retry-After was honoured: the simulator saw the attempts 2 s apart or more.
    let at: Vec<Duration> = sim.requests().iter().map(|r| r.arrived).collect();
    for pair in at.windows(2) {
        assert!(pair[1] - pair[0] >= Duration::from_secs(2), "{at:?}");
    }
}

#[tokio::test]
async fn a_stalled_answer_is_a_timeout_and_not_retried() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for fault in [
        Fault::StallHeaders(Duration::from_secs(10)),
        Fault::StallBody(Duration::from_secs(10)),
        Fault::Drip(Duration::from_millis(50)),
    ] {
        let c = builder(&sim)
            .timeout(Duration::from_millis(300))
            .build()
            .unwrap();
        c.groups().list().await.unwrap();
        sim.clear_requests();
        sim.inject(fault.clone(), 1);
        let t = Instant::now();
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        // behaviour: the 300 ms budget ends the call, not the end of the 10 s stall (or of
        // the drip): 5 s leaves a loaded machine room and is still half the stall.
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        assert!(matches!(err, Error::Timeout { .. }), "{fault:?}: {err:?}");
        assert_eq!(
            err.to_string(),
            format!("timed out after 300ms on GET {path}")
        );
        assert_eq!(
            seen(&sim),
            [format!("GET {path} signed 200 [{}]", fault.label())]
        );
    }
}

#[tokio::test]
async fn timeouts_and_refused_connections_are_transport_errors() {
    let sim = start(SimConfig {
        faults: Faults {
            latency: Duration::from_millis(500),
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let c = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let err = c.groups().list().await.unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");

    let (_held, port) = closed_port();
    let c = Client::builder(format!("http://127.0.0.1:{port}"))
        .credentials("a", "b")
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let err = c.groups().list().await.unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
}
