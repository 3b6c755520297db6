//! The time budget (`timeout`): one bound on the whole call, waits and retries included; a
//! `Retry-After` that does not fit ends the call at once; a stalled answer is a timeout.

use std::time::{Duration, Instant};

use opsapi::sim::{Aim, Fault, Faults, SimConfig};
use opsapi::{Client, Error};

use crate::common::{api_error, builder, closed_port, ids, seen, sim, start, API};

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
    let c = builder(&sim)
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let t = Instant::now();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    // The call ends on the 429 without waiting, neither the 30 s asked for nor until its
    // 20 s budget runs out (the log below shows that no retry was sent); 15 s is far from
    // either and leaves a loaded machine room for the two requests.
    // behaviour: a time-budget bound (ending at once is the behaviour under test).
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
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
    // A 20 s budget; 503s asking for 5 s, 5 s, then 15 s. The first two waits fit (at about
    // 0 s and 5 s, 15 s or more are left); after the third answer, at about 10 s, 15 s do not
    // fit in what is left, so the call ends with that 503 instead of waiting into a timeout.
    // Every decision is 5 s or more away from flipping, which a loaded machine does not eat.
    let sim = sim();
    let i = ids(&sim);
    let c = builder(&sim)
        .timeout(Duration::from_secs(20))
        .max_retries(10)
        .build()
        .unwrap();
    c.groups().list().await.unwrap();
    sim.clear_requests();
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    let status = |secs| Fault::Status {
        status: 503,
        retry_after: Some(secs),
    };
    sim.inject_at(Aim::get(path.clone()), status(5), 2);
    sim.inject_at(Aim::get(path.clone()), status(15), 1);
    sim.inject_at(Aim::get(path.clone()), status(1), 1); // never reached
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    // The call ends inside its budget: with the third 503 (an API error), not a timeout.
    assert_eq!(api_error(&err).status, 503, "{err:?}");
    assert_eq!(api_error(&err).retry_after, Some(Duration::from_secs(15)));
    let line = |secs| format!("GET {path} signed 503 [status 503 retry-after {secs}]");
    assert_eq!(seen(&sim), [line(5), line(5), line(15)]);
    assert_eq!(sim.injected().len(), 1, "the last fault is left");
    // The Retry-After was honoured: the simulator saw the attempts 5 s apart or more.
    let at: Vec<Duration> = sim.requests().iter().map(|r| r.arrived).collect();
    for pair in at.windows(2) {
        assert!(pair[1] - pair[0] >= Duration::from_secs(5), "{at:?}");
    }
}

#[tokio::test]
async fn a_stalled_answer_is_a_timeout_and_not_retried() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for fault in [
        Fault::StallHeaders(Duration::from_secs(120)),
        Fault::StallBody(Duration::from_secs(120)),
        Fault::Drip(Duration::from_millis(500)),
    ] {
        // A fresh client: its handshake (an unsigned 401, then the signed request that
        // stalls) is inside the 5 s budget, with no earlier call to run out of it.
        let c = builder(&sim)
            .timeout(Duration::from_secs(5))
            .build()
            .unwrap();
        sim.clear_requests();
        sim.inject_at(Aim::get(path.clone()), fault.clone(), 1);
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        // The 5 s budget ends the call, not the end of the 120 s stall (or of the drip, a
        // byte every 500 ms), which would have answered in full: a timeout of that budget.
        assert!(matches!(err, Error::Timeout { .. }), "{fault:?}: {err:?}");
        assert_eq!(err.to_string(), format!("timed out after 5s on GET {path}"));
        assert_eq!(
            seen(&sim),
            [
                format!("GET {path} unsigned 401"),
                format!("GET {path} signed 200 [{}]", fault.label())
            ]
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
