//! Every resource's listing and entity as the simulator serves them: groups, hosts (every
//! documented field), disks, alert configurations and their open alerts, events, global
//! alerts of every status, the access list.

use crate::common::{sim, Api};

#[tokio::test]
async fn listings_and_entities() {
    let sim = sim();
    let api = Api::owner(&sim);
    let groups = api.get_json("/groups").await;
    assert_eq!(groups["totalCount"], 3); // the default world: three projects
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
