//! Stopping the simulator: prompt, safe on drop, the request in flight answered.

use std::time::Duration;

use opsapi::sim::{Aim, Faults, SimConfig};

use crate::common::{sim, start, Api};

#[test]
fn shutdown_is_prompt_and_drop_is_safe() {
    let sim = sim();
    let url = sim.base_url();
    let t = std::time::Instant::now();
    sim.shutdown();
    // behaviour: with nothing in flight a stop is immediate; one that waited its bound (the
    // 1 s grace and 4 s more) would take 5 s, which 4 s tells apart with room for load.
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    let port = url.rsplit(':').next().unwrap();
    assert!(std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err());
    let s2 = start(SimConfig {
        seed: 3,
        ..SimConfig::default()
    });
    assert_eq!(s2.group_ids().len(), 3);
    assert!(!format!("{s2:?}").contains(s2.private_key()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_answers_the_request_in_flight_and_does_not_wait_for_idle_ones() {
    // A long grace, so that a stop that waited for the idle connection would be plain.
    let sim = start(SimConfig {
        shutdown_grace: Duration::from_secs(30),
        ..SimConfig::default()
    });
    let api = std::sync::Arc::new(Api::owner(&sim));
    // Leaves an idle keep-alive connection behind.
    assert_eq!(api.get("/groups").await.status, 200);
    sim.set_faults(Faults {
        latency: Duration::from_millis(300),
        ..Faults::default()
    });
    // The second request is in flight (arrived, held) when the stop begins.
    let hold = sim.hold(Aim::get("/groups"));
    let a2 = api.clone();
    let in_flight = tokio::spawn(async move { a2.get("/groups").await.status });
    hold.arrived().await;
    hold.release();
    let t = std::time::Instant::now();
    tokio::task::spawn_blocking(move || sim.shutdown())
        .await
        .unwrap();
    // behaviour: the stop ends once the request in flight is answered (its 300 ms of
    // latency), not after the 30 s grace that the idle connection would take: 10 s tells the
    // two apart with room for load.
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(in_flight.await.unwrap(), 200);
}
