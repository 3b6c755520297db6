//! The simulator's request log: raw paths and queries, in arrival order.

use opsapi::sim::Aim;
use serde_json::Value;

use crate::common::{sim, Api, PREFIX};

#[tokio::test]
async fn request_log_keeps_raw_path_and_query() {
    let sim = sim();
    let api = Api::owner(&sim);
    let g = &sim.group_ids()[0];
    let _ = api
        .get(&format!("/groups/{g}/hosts/a%2Fb?pageNum=1&x=%20y"))
        .await;
    let log = sim.requests();
    let last = log.last().unwrap();
    assert_eq!(last.method, "GET");
    assert_eq!(last.path, format!("{PREFIX}/groups/{g}/hosts/a%2Fb"));
    assert_eq!(last.query.as_deref(), Some("pageNum=1&x=%20y"));
    assert_eq!(last.status, 404);
    assert!(last.authorized);
    assert!(!log[0].authorized);
    assert_eq!(log[0].status, 401);
    sim.clear_requests();
    assert!(sim.requests().is_empty());
    let v: Value = api.get_json(&format!("/groups/{g}")).await;
    assert_eq!(v["id"], g.as_str());
    assert_eq!(sim.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_is_in_arrival_order_even_when_answers_finish_out_of_order() {
    let sim = sim();
    let api = std::sync::Arc::new(Api::owner(&sim));
    let w = sim.world();
    let h = &w.hosts[0];
    assert_eq!(api.get("/groups").await.status, 200);
    sim.clear_requests();
    // The first request is held on arrival until the second has been answered.
    let slow_path = format!("/groups/{}/hosts/{}/measurements", h.group_id, h.id);
    let slow = format!("{slow_path}?granularity=PT10S&period=P1D");
    let hold = sim.hold(Aim::get(slow_path));
    let a2 = api.clone();
    let first = tokio::spawn(async move { a2.get(&slow).await.status });
    hold.arrived().await;
    assert_eq!(api.get("/globalAlerts?pageNum=1").await.status, 200);
    assert_eq!(sim.requests()[1].status, 200, "answered");
    assert_eq!(sim.requests()[0].status, 0, "still held");
    hold.release();
    assert_eq!(first.await.unwrap(), 200);
    let log = sim.requests();
    assert_eq!(log.len(), 2);
    assert!(log[0].path.ends_with("/measurements"));
    assert_eq!(log[1].query.as_deref(), Some("pageNum=1"));
    assert!(log.iter().all(|r| r.status == 200));
}
