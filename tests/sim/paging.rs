//! The simulator's list pages: links, page size limits, the envelope and pretty printing, and
//! a benchmark-sized population.

use opsapi::sim::SimConfig;

use crate::common::{sim, start, Api};

#[tokio::test]
async fn paging_links_and_limits() {
    let sim = start(SimConfig {
        global_alerts: 25,
        ..SimConfig::default()
    });
    let api = Api::owner(&sim);
    let base = sim.base_url();
    let v = api
        .get_json("/globalAlerts?itemsPerPage=10&pageNum=2")
        .await;
    assert_eq!(v["totalCount"], 25);
    assert_eq!(v["results"].as_array().unwrap().len(), 10);
    let links = v["links"].as_array().unwrap();
    let rel = |r: &str| {
        links
            .iter()
            .find(|l| l["rel"] == r)
            .map(|l| l["href"].as_str().unwrap().to_string())
    };
    assert_eq!(
        rel("self").unwrap(),
        format!("{base}/api/public/v1.0/globalAlerts?pageNum=2&itemsPerPage=10")
    );
    assert_eq!(
        rel("previous").unwrap(),
        format!("{base}/api/public/v1.0/globalAlerts?pageNum=1&itemsPerPage=10")
    );
    assert_eq!(
        rel("next").unwrap(),
        format!("{base}/api/public/v1.0/globalAlerts?pageNum=3&itemsPerPage=10")
    );
    let last = api
        .get_json("/globalAlerts?itemsPerPage=10&pageNum=3&status=OPEN")
        .await;
    let first = api
        .get_json("/globalAlerts?status=OPEN&itemsPerPage=10")
        .await;
    let open = first["totalCount"].as_i64().unwrap();
    assert!(open >= 14, "one open alert per configuration at least");
    let l = first["links"].as_array().unwrap();
    assert!(l.iter().all(|l| l["rel"] != "previous"));
    assert_eq!(
        l[0]["href"],
        format!("{base}/api/public/v1.0/globalAlerts?status=OPEN&pageNum=1&itemsPerPage=10")
    );
    assert!(last["results"].as_array().unwrap().len() <= 10);
    // Last page has no next; the default page size is 100.
    let all = api.get_json("/globalAlerts").await;
    assert_eq!(all["results"].as_array().unwrap().len(), 25);
    let l = all["links"].as_array().unwrap();
    assert_eq!(l.len(), 1);
    assert!(l[0]["href"]
        .as_str()
        .unwrap()
        .ends_with("?pageNum=1&itemsPerPage=100"));
    // Every item has a self link.
    for a in all["results"].as_array().unwrap() {
        assert_eq!(a["links"][0]["rel"], "self");
        assert!(a["links"][0]["href"]
            .as_str()
            .unwrap()
            .ends_with(a["id"].as_str().unwrap()));
    }
    // Beyond the last page: empty.
    let v = api.get_json("/globalAlerts?pageNum=9").await;
    assert_eq!(v["results"], serde_json::json!([]));
    assert_eq!(v["totalCount"], 25);
    // 500 is the maximum.
    assert_eq!(api.get("/globalAlerts?itemsPerPage=500").await.status, 200);
    for bad in [
        "itemsPerPage=501",
        "itemsPerPage=0",
        "itemsPerPage=x",
        "pageNum=0",
        "pageNum=1.5",
    ] {
        let r = api.get(&format!("/globalAlerts?{bad}")).await;
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.error_code(), "INVALID_QUERY_PARAMETER");
    }
}

#[tokio::test]
async fn envelope_and_pretty() {
    let sim = sim();
    let api = Api::owner(&sim);
    let g = &sim.group_ids()[0];
    let plain = api.get(&format!("/groups/{g}")).await;
    assert!(!plain.body.contains(&b'\n'));
    let pretty = api.get(&format!("/groups/{g}?pretty=true")).await;
    assert!(pretty.body.windows(3).any(|w| w == b"\n  "));
    assert_eq!(plain.json(), pretty.json());
    let env = api.get_json(&format!("/groups/{g}?envelope=true")).await;
    assert_eq!(env["status"], 200);
    assert_eq!(env["content"], plain.json());
    let list = api
        .get_json(&format!("/groups/{g}/hosts?envelope=true"))
        .await;
    assert_eq!(list["status"], 200);
    assert_eq!(list["totalCount"], 5);
    assert!(list.get("content").is_none());
}

#[tokio::test]
async fn a_benchmark_sized_alert_population() {
    let t = std::time::Instant::now();
    let sim = start(SimConfig {
        global_alerts: 20_000,
        ..SimConfig::default()
    });
    let started = t.elapsed();
    let api = Api::owner(&sim);
    let t = std::time::Instant::now();
    let mut ids = Vec::new();
    for page in [1, 2, 40] {
        let v = api
            .get_json(&format!("/globalAlerts?itemsPerPage=500&pageNum={page}"))
            .await;
        assert_eq!(v["totalCount"], 20_000);
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 500);
        ids.extend(
            results
                .iter()
                .map(|a| a["id"].as_str().unwrap().to_string()),
        );
        let has_next = v["links"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["rel"] == "next");
        assert_eq!(has_next, page < 40);
    }
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), 1500);
    assert_eq!(sim.world().alerts.len(), 20_000);
    eprintln!(
        "20k alerts: start {started:?}, 3 pages of 500 {:?}",
        t.elapsed()
    );
}
