//! The simulator's project alerts: the status filter, paging and links of
//! `/groups/{g}/alerts`, the envelope, one alert (GET and PATCH, good and bad bodies, the
//! project it belongs to), the roles, and the seeded history with its truth.

use opsapi::sim::SimConfig;

use crate::common::{sim, start, Api, PREFIX};

#[tokio::test]
async fn status_filter_paging_links_and_envelope() {
    let sim = sim();
    let api = Api::owner(&sim);
    let g = &sim.group_ids()[0];
    let all = api.get_json(&format!("/groups/{g}/alerts")).await;
    let items = all["results"].as_array().unwrap();
    let world = sim.world();
    assert_eq!(items.len(), world.project_alerts(g).len());
    assert_eq!(all["totalCount"], items.len());
    let created: Vec<&str> = items
        .iter()
        .map(|a| a["created"].as_str().unwrap())
        .collect();
    assert!(created.windows(2).all(|w| w[0] <= w[1]), "oldest first");
    for status in ["OPEN", "CLOSED", "TRACKING"] {
        let some = api
            .get_json(&format!("/groups/{g}/alerts?status={status}"))
            .await;
        let n = items.iter().filter(|a| a["status"] == status).count();
        assert_eq!(some["totalCount"], n, "{status}");
        assert!(some["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["status"] == status));
    }
    for q in ["status=BOGUS", "status=CANCELLED"] {
        let r = api.get(&format!("/groups/{g}/alerts?{q}")).await;
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (400, "INVALID_ALERT_STATUS"),
            "{q}"
        );
    }
    // Page 2 of 5 a page: the self link carries the filter and the paging, with previous
    // and next.
    let page = api
        .get_json(&format!(
            "/groups/{g}/alerts?status=CLOSED&pageNum=2&itemsPerPage=5"
        ))
        .await;
    assert_eq!(page["results"].as_array().unwrap().len(), 5);
    let rels: Vec<(&str, &str)> = page["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["rel"].as_str().unwrap(), l["href"].as_str().unwrap()))
        .collect();
    let base = format!(
        "{}{PREFIX}/groups/{g}/alerts?status=CLOSED&",
        sim.base_url()
    );
    assert_eq!(
        rels,
        [
            ("self", format!("{base}pageNum=2&itemsPerPage=5").as_str()),
            (
                "previous",
                format!("{base}pageNum=1&itemsPerPage=5").as_str()
            ),
            ("next", format!("{base}pageNum=3&itemsPerPage=5").as_str()),
        ]
    );
    let env = api
        .get_json(&format!("/groups/{g}/alerts?envelope=true"))
        .await;
    assert_eq!(
        (env["status"].as_i64(), &env["totalCount"]),
        (Some(200), &all["totalCount"])
    );
    let r = api.get("/groups/000000000000000000000000/alerts").await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "GROUP_NOT_FOUND")
    );
}

#[tokio::test]
async fn one_alert_get_and_patch_with_the_documented_codes() {
    let now = chrono::DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z")
        .unwrap()
        .to_utc();
    let sim = start(SimConfig {
        now: Some(now),
        ..SimConfig::default()
    });
    let api = Api::owner(&sim);
    let world = sim.world();
    let a = world
        .alert_history
        .iter()
        .find(|a| a.status == "CLOSED")
        .unwrap();
    let (g, other) = (
        &a.group_id,
        world.projects.iter().find(|p| p.id != a.group_id).unwrap(),
    );
    let uri = format!("{PREFIX}/groups/{g}/alerts/{}", a.id);
    let got = api.get_json(&format!("/groups/{g}/alerts/{}", a.id)).await;
    assert_eq!(
        (got["id"].as_str(), got["status"].as_str()),
        (Some(a.id.as_str()), Some("CLOSED"))
    );
    assert_eq!(got["links"][0]["href"], format!("{}{uri}", sim.base_url()));
    // Not of another project, and not at /globalAlerts (a project alert only).
    let r = api
        .get(&format!("/groups/{}/alerts/{}", other.id, a.id))
        .await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "ALERT_NOT_FOUND")
    );
    let r = api.get(&format!("/globalAlerts/{}", a.id)).await;
    assert_eq!(r.status, 404);

    let body = r#"{"acknowledgedUntil":"2026-03-03T10:00:00Z","acknowledgementComment":"on it"}"#;
    let r = api.send("PATCH", &uri, Some(body)).await;
    assert_eq!(r.status, 201);
    let v = r.json();
    assert_eq!(v["acknowledgedUntil"], "2026-03-03T10:00:00Z");
    assert_eq!(
        (v["acknowledgementComment"].as_str(), v["updated"].as_str()),
        (Some("on it"), Some("2026-03-02T10:00:00Z"))
    );
    assert_eq!(v["acknowledgingUsername"], sim.public_key());
    let r = api
        .send("PATCH", &format!("{uri}?envelope=true"), Some(body))
        .await;
    assert_eq!(r.json()["status"], 201);
    let r = api
        .send(
            "PATCH",
            &uri,
            Some(r#"{"acknowledgedUntil":"2001-01-01T00:00:00Z"}"#),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(
        r.json().get("acknowledgedUntil").is_none(),
        "a past time un-acknowledges"
    );
    let long = format!(
        r#"{{"acknowledgedUntil":"2030-01-01T00:00:00Z","acknowledgementComment":"{}"}}"#,
        "x".repeat(201)
    );
    for (b, code) in [
        ("{not json", "INVALID_JSON"),
        (
            r#"{"acknowledgedUntil":"2030-01-01T00:00:00Z","foo":1}"#,
            "INVALID_ATTRIBUTE",
        ),
        (r#"{"acknowledgementComment":"x"}"#, "MISSING_ATTRIBUTE"),
        (long.as_str(), "ACKNOWLEDGEMENT_COMMENT_TOO_LONG"),
    ] {
        let r = api.send("PATCH", &uri, Some(b)).await;
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{b}");
    }
    let r = api
        .send(
            "PATCH",
            &format!("{PREFIX}/groups/{}/alerts/{}", other.id, a.id),
            Some(body),
        )
        .await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "ALERT_NOT_FOUND")
    );
    let r = api.send("DELETE", &uri, None).await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (405, "METHOD_NOT_ALLOWED")
    );
    // A read-only key reads its project's alerts and changes none.
    let ro = Api::read_only(&sim);
    let g0 = &world.projects[0].id;
    let mine = &world.project_alerts(g0)[0].id;
    assert_eq!(
        ro.get(&format!("/groups/{g0}/alerts/{mine}")).await.status,
        200
    );
    let r = ro
        .send(
            "PATCH",
            &format!("{PREFIX}/groups/{g0}/alerts/{mine}"),
            Some(body),
        )
        .await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (401, "USER_UNAUTHORIZED")
    );
}

#[tokio::test]
async fn the_seeded_history_holds_its_truth() {
    let fixed = chrono::DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z")
        .unwrap()
        .to_utc();
    let config = || SimConfig {
        now: Some(fixed),
        ..SimConfig::default()
    };
    let sim = start(config());
    let world = sim.world();
    let truth = sim.alert_truth();
    let by_id = |id: &str| world.alert_history.iter().find(|a| a.id == id).unwrap();
    // The flapping configuration: its episodes in a row on one host, each opening within the
    // stated gap of the previous close.
    let f = truth.flapping.as_ref().unwrap();
    let mut episodes: Vec<_> = world
        .alert_history
        .iter()
        .filter(|a| {
            a.alert_config_id == f.alert_config_id && a.host_id.as_deref() == Some(&f.host_id)
        })
        .collect();
    episodes.sort_by_key(|a| a.created);
    let gaps: Vec<i64> = episodes
        .windows(2)
        .map(|w| (w[1].created - w[0].resolved.unwrap()).num_seconds())
        .filter(|s| (0..=f.longest_gap_minutes * 60).contains(s))
        .collect();
    assert_eq!(gaps.len() + 1, f.episodes);
    // The noisy host: far more alerts than any other host.
    let n = truth.noisy_host.as_ref().unwrap();
    let count = |h: &str| {
        world
            .alerts
            .iter()
            .chain(&world.alert_history)
            .filter(|a| a.host_id.as_deref() == Some(h))
            .count()
    };
    let noisy = count(&n.host_id);
    assert!(noisy >= n.alerts);
    for h in world.hosts.iter().filter(|h| h.id != n.host_id) {
        assert!(
            count(&h.id) * 2 < noisy,
            "{}: {} of {noisy}",
            h.id,
            count(&h.id)
        );
    }
    // Disk alerts are open now, above their configuration's threshold.
    assert_eq!(truth.disk_alerts.len(), world.projects.len());
    for d in &truth.disk_alerts {
        let a = by_id(&d.alert_id);
        assert_eq!(a.status, "OPEN");
        assert!(a.current_value.as_ref().unwrap().0 > d.threshold.unwrap());
    }
    for r in &truth.replica_set_alerts {
        assert_eq!(by_id(&r.alert_id).event_type_name, "NO_PRIMARY");
    }
    // Each acknowledgement is a project event about its alert, while the alert was open.
    for ack in &truth.acknowledged {
        let a = by_id(&ack.alert_id);
        assert!(a.created < ack.at && ack.at < a.resolved.unwrap());
        assert!(world.events.iter().any(|e| e.created == ack.at
            && e.body["alertId"] == a.id.as_str()
            && e.event_type_name == "ALERT_ACKNOWLEDGED_AUDIT"));
    }
    assert!(truth.acknowledged.len() > 10);
    // The same seed gives the same history; a world without projects has none.
    let again = start(config());
    assert_eq!(again.alert_truth(), truth);
    let empty = start(SimConfig {
        projects: 0,
        ..SimConfig::default()
    });
    assert_eq!(empty.alert_truth(), Default::default());
}
