//! Stopping the simulator: prompt, safe on drop, the request in flight answered.

use std::time::Duration;

use opsapi::sim::{Faults, SimConfig};

use crate::common::{sim, start, Api};

#[test]
fn shutdown_is_prompt_and_drop_is_safe() {
    let sim = sim();
    let url = sim.base_url();
    let t = std::time::Instant::now();
    sim.shutdown();
    assert!(t.elapsed() < Duration::from_secs(3));
    let port = url.rsplit(':').next().unwrap();
    assert!(std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err());
    let s2 = start(SimConfig {
        seed: 3,
        ..SimConfig::default()
    });
    assert_eq!(s2.group_ids().len(), 2);
    assert!(!format!("{s2:?}").contains(s2.private_key()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_answers_the_request_in_flight_and_does_not_wait_for_idle_ones() {
    let sim = sim();
    let api = std::sync::Arc::new(Api::owner(&sim));
    // Leaves an idle keep-alive connection behind.
    assert_eq!(api.get("/groups").await.status, 200);
    sim.set_faults(Faults {
        latency: Duration::from_millis(300),
        ..Faults::default()
    });
    let a2 = api.clone();
    let in_flight = tokio::spawn(async move { a2.get("/groups").await.status });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t = std::time::Instant::now();
    tokio::task::spawn_blocking(move || sim.shutdown())
        .await
        .unwrap();
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(in_flight.await.unwrap(), 200);
}
