//! The simulator's documented error codes, and what the Project Read Only key is refused
//! (a 401 without a challenge).

use crate::common::{sim, Api, PREFIX};

#[tokio::test]
async fn error_codes() {
    let sim = sim();
    let api = Api::owner(&sim);
    let g = sim.group_ids()[0].clone();
    let w = sim.world();
    let h = w.hosts.iter().find(|h| h.group_id == g).unwrap();
    let hid = &h.id;
    let cases: Vec<(String, u16, &str)> = vec![
        ("/groups/5f0000000000000000000000".into(), 404, "GROUP_NOT_FOUND"),
        ("/groups/5f0000000000000000000000/hosts".into(), 404, "GROUP_NOT_FOUND"),
        (format!("/groups/{g}/hosts/nope"), 404, "HOST_NOT_FOUND"),
        (format!("/groups/{g}/alertConfigs/nope/alerts"), 404, "ALERT_CONFIG_NOT_FOUND"),
        ("/globalAlerts/nope".into(), 404, "ALERT_NOT_FOUND"),
        (format!("/groups/{g}/events/nope"), 404, "RESOURCE_NOT_FOUND"),
        // The table has no GET of one entry (a missing one's DELETE: access_list.rs).
        ("/admin/accessList/nope".into(), 405, "METHOD_NOT_ALLOWED"),
        ("/no/such/thing".into(), 404, "RESOURCE_NOT_FOUND"),
        (format!("/groups/{g}/hosts/{hid}/measurements?period=P1D"), 400, "MISSING_QUERY_PARAMETER"),
        (format!("/groups/{g}/hosts/{hid}/measurements?granularity=PT2M&period=P1D"), 400, "INVALID_GRANULARITY"),
        (format!("/groups/{g}/hosts/{hid}/measurements?granularity=PT1M"), 400, "MISSING_QUERY_PARAMETER"),
        (format!("/groups/{g}/hosts/{hid}/measurements?granularity=PT1M&start=2024-05-01T00:00:00Z"), 400, "MISSING_QUERY_PARAMETER"),
        (format!("/groups/{g}/hosts/{hid}/measurements?granularity=PT1M&period=P1D&start=2024-05-01T00:00:00Z&end=2024-05-02T00:00:00Z"), 400, "MUTUALLY_EXCLUSIVE_QUERY_PARAMETERS"),
        (format!("/groups/{g}/hosts/{hid}/measurements?granularity=PT1M&period=1D"), 400, "INVALID_PERIOD"),
        (format!("/groups/{g}/hosts/{hid}/measurements?granularity=PT1M&period=P1D&m=BOGUS"), 404, "INVALID_METRIC_NAME"),
        (format!("/groups/{g}/hosts/{hid}/disks/data/measurements?granularity=PT1M&period=P1D&m=CONNECTIONS"), 404, "INVALID_METRIC_NAME"),
        (format!("/groups/{g}/alerts?status=NOPE"), 400, "INVALID_ALERT_STATUS"),
    ];
    for (path, status, code) in cases {
        let r = api.get(&path).await;
        assert_eq!(
            r.status,
            status,
            "{path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let v = r.json();
        assert_eq!(v["errorCode"], code, "{path}");
        assert_eq!(v["error"], status);
        assert!(v["detail"].is_string() && v["reason"].is_string() && v["parameters"].is_array());
        assert!(r.header("x-mongodb-service-version").is_none());
    }
    // Outside the API prefix, also a JSON 404 (after auth).
    let r = api.send("GET", "/elsewhere", None).await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "RESOURCE_NOT_FOUND")
    );
}

#[tokio::test]
async fn read_only_key_limits() {
    let sim = sim();
    let ro = Api::read_only(&sim);
    let ids = sim.group_ids();
    let groups = ro.get_json("/groups").await;
    assert_eq!(groups["totalCount"], 1);
    assert_eq!(groups["results"][0]["id"], ids[0].as_str());
    assert_eq!(
        ro.get(&format!("/groups/{}/hosts", ids[0])).await.status,
        200
    );
    let r = ro.get(&format!("/groups/{}/hosts", ids[1])).await;
    assert_eq!((r.status, r.error_code().as_str()), (401, "NOT_IN_GROUP"));
    assert!(r.header("www-authenticate").is_none());
    let r = ro.get("/globalAlerts").await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (401, "USER_UNAUTHORIZED")
    );
    assert_eq!(
        r.json()["detail"],
        "Current user is not authorized to perform this action."
    );
    assert!(r.header("www-authenticate").is_none());
    let id = sim.world().access_list[0].id.clone();
    let r = ro
        .send("DELETE", &format!("{PREFIX}/admin/accessList/{id}"), None)
        .await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (401, "USER_UNAUTHORIZED")
    );
    assert_eq!(sim.world().access_list[0].id, id, "nothing deleted");
}
