//! The simulator's global alerts: the list filters, and acknowledging, un-acknowledging and
//! expiry (PATCH bodies, good and bad).

use std::time::Duration;

use serde_json::Value;

use opsapi::sim::SimConfig;

use crate::common::{sim, start, Api, PREFIX};

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
    // The simulator's clock stands at `now` until advanced: expiry happens when the test
    // says, not when a sleep happens to end.
    let now = chrono::DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z")
        .unwrap()
        .to_utc();
    let sim = start(SimConfig {
        now: Some(now),
        ..SimConfig::default()
    });
    let api = Api::owner(&sim);
    let world = sim.world();
    let alert = world
        .alerts
        .iter()
        .find(|a| a.status == "OPEN" && a.acknowledged_until.is_none())
        .unwrap();
    let uri = format!("{PREFIX}/globalAlerts/{}", alert.id);
    let future = (now + chrono::TimeDelta::days(2))
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
    let soon = (now + chrono::TimeDelta::milliseconds(1500)).to_rfc3339();
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
    sim.advance(Duration::from_millis(1499));
    let got = api.get_json(&format!("/globalAlerts/{}", alert.id)).await;
    assert!(got.get("acknowledgedUntil").is_some(), "a millisecond left");
    sim.advance(Duration::from_millis(1));
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
