//! The simulator's protocol: Digest, paging, envelope, errors, state, roles, faults, log.

#![cfg(feature = "sim")] // against the simulator

mod sim_common;

use std::time::Duration;

use opsapi::auth::Challenge;
use opsapi::sim::{Fault, Faults, SimConfig};
use serde_json::Value;
use sim_common::*;

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
    // Replayed nc.
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 3)),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r
        .header("www-authenticate")
        .unwrap()
        .contains("stale=false"));
    // Wrong password.
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, "nope", "GET", uri, &c.nonce, 9)),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r
        .header("www-authenticate")
        .unwrap()
        .contains("stale=false"));
    // Unknown user.
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization("someone", p, "GET", uri, &c.nonce, 10)),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    // uri that is not the request target.
    let other = "/api/public/v1.0/groups?pageNum=1";
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", other, &c.nonce, 11)),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    // Method mismatch.
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "POST", uri, &c.nonce, 12)),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    // Garbage header never hurts.
    let r = api
        .raw("GET", uri, Some("Digest ,,,=\"".into()), None)
        .await;
    assert_eq!(r.status, 401);
    let log = sim.requests();
    assert_eq!(log.iter().filter(|r| r.authorized).count(), 3);
}

#[tokio::test]
async fn stale_nonce_after_its_lifetime() {
    let sim = start(SimConfig {
        nonce_lifetime: Duration::from_millis(150),
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
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 2)),
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
            Some(authorization(u, "x", "GET", uri, &c.nonce, 3)),
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
    sim.set_nonce_lifetime(Duration::from_secs(60));
    let r = api
        .raw(
            "GET",
            uri,
            Some(authorization(u, p, "GET", uri, &c.nonce, 4)),
            None,
        )
        .await;
    assert_eq!(r.status, 200);
}

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
async fn listings_and_entities() {
    let sim = sim();
    let api = Api::owner(&sim);
    let groups = api.get_json("/groups").await;
    assert_eq!(groups["totalCount"], 2);
    let g = groups["results"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(g, sim.group_ids()[0]);
    assert_eq!(g.len(), 24);
    let hosts = api.get_json(&format!("/groups/{g}/hosts")).await;
    assert_eq!(hosts["totalCount"], 5);
    let h = &hosts["results"][0];
    for field in [
        "alertsEnabled",
        "aliases",
        "authMechanismName",
        "clusterId",
        "created",
        "deactivated",
        "groupId",
        "hasStartupWarnings",
        "hidden",
        "hostEnabled",
        "hostname",
        "id",
        "ipAddress",
        "journalingEnabled",
        "lastDataSizeBytes",
        "lastIndexSizeBytes",
        "lastPing",
        "lastRestart",
        "links",
        "logsEnabled",
        "lowUlimit",
        "muninEnabled",
        "port",
        "profilerEnabled",
        "replicaSetName",
        "replicaStateName",
        "sslEnabled",
        "systemInfo",
        "typeName",
        "uptimeMsec",
        "username",
        "version",
    ] {
        assert!(h.get(field).is_some(), "host field {field}");
    }
    let types: Vec<&str> = hosts["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["typeName"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"REPLICA_PRIMARY")
            && types.contains(&"REPLICA_SECONDARY")
            && types.contains(&"STANDALONE"),
        "{types:?}"
    );
    let hid = h["id"].as_str().unwrap();
    let one = api.get_json(&format!("/groups/{g}/hosts/{hid}")).await;
    assert_eq!(&one, h);
    assert!(one["hostname"].as_str().unwrap().ends_with(".example.net"));
    let disks = api
        .get_json(&format!("/groups/{g}/hosts/{hid}/disks"))
        .await;
    let n = disks["totalCount"].as_i64().unwrap();
    assert!((1..=3).contains(&n));
    assert_eq!(disks["results"][0]["partitionName"], "data");
    let configs = api.get_json(&format!("/groups/{g}/alertConfigs")).await;
    let c = configs["results"][0]["id"].as_str().unwrap();
    let open = api
        .get_json(&format!("/groups/{g}/alertConfigs/{c}/alerts"))
        .await;
    assert!(open["totalCount"].as_i64().unwrap() >= 1);
    for a in open["results"].as_array().unwrap() {
        assert_eq!(a["status"], "OPEN");
        assert_eq!(a["alertConfigId"], c);
        assert!(a["currentValue"]["number"].is_f64());
        assert!(a["metricName"].is_string());
    }
    let events = api.get_json(&format!("/groups/{g}/events")).await;
    let evs = events["results"].as_array().unwrap();
    assert!(evs.len() >= 20);
    let created: Vec<&str> = evs.iter().map(|e| e["created"].as_str().unwrap()).collect();
    let mut sorted = created.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(created, sorted, "newest first");
    let with_diffs = evs
        .iter()
        .find(|e| e.get("diffs").is_some())
        .expect("an event with diffs");
    assert_eq!(
        with_diffs["diffs"][0]["params"][0]["display"],
        "Added Privilege"
    );
    let eid = evs[0]["id"].as_str().unwrap();
    let e = api.get_json(&format!("/groups/{g}/events/{eid}")).await;
    assert!(e.get("raw").is_none());
    let e = api
        .get_json(&format!("/groups/{g}/events/{eid}?includeRaw=true"))
        .await;
    assert!(e["raw"].is_object());
    let statuses: std::collections::HashSet<String> = api.get_json("/globalAlerts").await
        ["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap().to_string())
        .collect();
    for s in ["OPEN", "CLOSED", "TRACKING", "CANCELLED"] {
        assert!(statuses.contains(s), "{s}");
    }
    let access = api.get_json("/admin/accessList").await;
    assert!(access["totalCount"].as_i64().unwrap() >= 2);
}

#[tokio::test]
async fn global_alert_filters() {
    let sim = sim();
    let api = Api::owner(&sim);
    let all = api.get_json("/globalAlerts").await;
    let closed = api.get_json("/globalAlerts?status=CLOSED").await;
    let n_closed = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["status"] == "CLOSED")
        .count();
    assert_eq!(closed["totalCount"], n_closed);
    let mid = all["results"][30]["created"].as_str().unwrap().to_string();
    let after = api
        .get_json(&format!("/globalAlerts?createdOnOrAfter={mid}"))
        .await;
    let before = api
        .get_json(&format!("/globalAlerts?createdOnOrBefore={mid}"))
        .await;
    assert_eq!(
        after["totalCount"].as_i64().unwrap() + before["totalCount"].as_i64().unwrap(),
        61,
        "the boundary alert is in both"
    );
    for (q, code) in [
        ("status=BOGUS", "INVALID_ALERT_STATUS"),
        ("status=CANCELLED", "INVALID_ALERT_STATUS"),
        ("createdOnOrAfter=yesterday", "INVALID_QUERY_PARAMETER"),
    ] {
        let r = api.get(&format!("/globalAlerts?{q}")).await;
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{q}");
    }
}

#[tokio::test]
async fn acknowledge_unacknowledge_and_expiry() {
    let sim = sim();
    let api = Api::owner(&sim);
    let world = sim.world();
    let alert = world
        .alerts
        .iter()
        .find(|a| a.status == "OPEN" && a.acknowledged_until.is_none())
        .unwrap();
    let uri = format!("{PREFIX}/globalAlerts/{}", alert.id);
    let future = (chrono::Utc::now() + chrono::TimeDelta::days(2))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let body =
        format!("{{\"acknowledgedUntil\":\"{future}\",\"acknowledgementComment\":\"on it\"}}");
    let r = api.send("PATCH", &uri, Some(&body)).await;
    assert_eq!(r.status, 201);
    let v = r.json();
    assert_eq!(v["acknowledgedUntil"], future.as_str());
    assert_eq!(v["acknowledgementComment"], "on it");
    assert_eq!(v["acknowledgingUsername"], sim.public_key());
    let got = api.get_json(&format!("/globalAlerts/{}", alert.id)).await;
    assert_eq!(got["acknowledgedUntil"], future.as_str());
    // A past time un-acknowledges.
    let r = api
        .send(
            "PATCH",
            &uri,
            Some("{\"acknowledgedUntil\":\"2001-01-01T00:00:00Z\"}"),
        )
        .await;
    assert_eq!(r.status, 201);
    let v = r.json();
    for f in [
        "acknowledgedUntil",
        "acknowledgementComment",
        "acknowledgingUsername",
    ] {
        assert!(v.get(f).is_none(), "{f}");
    }
    // An acknowledgement that runs out reverts on read.
    let soon = (chrono::Utc::now() + chrono::TimeDelta::milliseconds(1500)).to_rfc3339();
    let r = api
        .send(
            "PATCH",
            &uri,
            Some(&format!("{{\"acknowledgedUntil\":\"{soon}\"}}")),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(r.json().get("acknowledgedUntil").is_some());
    // The list (served from the page cache when nothing changed) agrees, before and after.
    let in_list = |v: &Value| {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == alert.id.as_str())
            .cloned()
            .unwrap()
    };
    let listed = api
        .get_json("/globalAlerts?status=OPEN&itemsPerPage=500")
        .await;
    assert!(in_list(&listed).get("acknowledgedUntil").is_some());
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let got = api.get_json(&format!("/globalAlerts/{}", alert.id)).await;
    assert!(got.get("acknowledgedUntil").is_none());
    assert!(got.get("acknowledgingUsername").is_none());
    let listed = api
        .get_json("/globalAlerts?status=OPEN&itemsPerPage=500")
        .await;
    assert!(in_list(&listed).get("acknowledgedUntil").is_none());
    // Envelope on PATCH carries 201.
    let r = api
        .send("PATCH", &format!("{uri}?envelope=true"), Some(&body))
        .await;
    assert_eq!(r.json()["status"], 201);
    // Bad bodies.
    for (b, code) in [
        ("{not json", "INVALID_JSON"),
        ("[1]", "INVALID_JSON"),
        (
            "{\"acknowledgedUntil\":\"2030-01-01T00:00:00Z\",\"foo\":1}",
            "INVALID_ATTRIBUTE",
        ),
        (
            "{\"acknowledgedUntil\":\"next tuesday\"}",
            "INVALID_ATTRIBUTE",
        ),
        ("{\"acknowledgedUntil\":17}", "INVALID_ATTRIBUTE"),
    ] {
        let r = api.send("PATCH", &uri, Some(b)).await;
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{b}");
    }
    let r = api
        .send(
            "PATCH",
            &format!("{PREFIX}/globalAlerts/000000000000000000000000"),
            Some(&body),
        )
        .await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "ALERT_NOT_FOUND")
    );
    let log = sim.requests();
    let patch = log
        .iter()
        .find(|r| r.method == "PATCH" && r.authorized)
        .unwrap();
    assert_eq!(patch.body, body.as_bytes());
    assert_eq!(patch.status, 201);
}

#[tokio::test]
async fn delete_access_list_entry_twice() {
    let sim = sim();
    let api = Api::owner(&sim);
    let id = sim.world().access_list[0].id.clone();
    let uri = format!("{PREFIX}/admin/accessList/{id}");
    let r = api.send("DELETE", &uri, None).await;
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    assert!(r.header("x-mongodb-service-version").is_some());
    let r = api.send("DELETE", &uri, None).await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "ACCESS_LIST_NOT_FOUND")
    );
    assert!(sim.world().access_list.iter().all(|e| e.id != id));
}

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
        ("/admin/accessList/nope".into(), 404, "ACCESS_LIST_NOT_FOUND"),
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_is_in_arrival_order_even_when_answers_finish_out_of_order() {
    let sim = sim();
    let api = std::sync::Arc::new(Api::owner(&sim));
    let w = sim.world();
    let h = &w.hosts[0];
    assert_eq!(api.get("/groups").await.status, 200);
    sim.clear_requests();
    // A slow request (a big measurement render) first, then a fast one.
    let slow = format!(
        "/groups/{}/hosts/{}/measurements?granularity=PT10S&period=P1D",
        h.group_id, h.id
    );
    let a2 = api.clone();
    let first = tokio::spawn(async move { a2.get(&slow).await.status });
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(api.get("/globalAlerts?pageNum=1").await.status, 200);
    assert_eq!(first.await.unwrap(), 200);
    let log = sim.requests();
    assert_eq!(log.len(), 2);
    assert!(log[0].path.ends_with("/measurements"));
    assert_eq!(log[1].query.as_deref(), Some("pageNum=1"));
    assert!(log.iter().all(|r| r.status == 200));
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
