//! `client.global_alerts()`: the list filters as they go out, acknowledging and
//! un-acknowledging one alert, and many alerts at once.

use chrono::{DateTime, Utc};
use futures_util::{StreamExt, TryStreamExt};
use opsapi::sim::{SimConfig, Simulator};
use opsapi::{AckUntil, Acknowledgement, AlertStatus, Error, GlobalAlert, GlobalAlertsQuery};

use crate::common::{
    authorized, client, client_with, json_body, query_pairs, seen, sim, start, warm, API,
};

fn at(s: &str) -> DateTime<Utc> {
    opsapi::query::parse_timestamp("t", s).unwrap()
}

/// A simulator of `alerts` global alerts whose clock stands at 2024-06-03T12:00:00Z (the
/// world's anchor): which acknowledgements still run does not depend on the time of day.
fn sim_at_fixed_now(alerts: usize) -> Simulator {
    start(SimConfig {
        global_alerts: alerts,
        now: Some(at("2024-06-03T12:00:00Z")),
        ..SimConfig::default()
    })
}

/// Every field of a decoded alert next to the seeded alert it must equal (the simulator's
/// snapshot, with the acknowledgements that ran out removed).
fn assert_alert_is(got: &GlobalAlert, want: &opsapi::sim::Alert) {
    let id = want.id.as_str();
    assert_eq!(got.id.as_deref(), Some(id));
    assert_eq!(
        got.group_id.as_deref(),
        Some(want.group_id.as_str()),
        "{id}"
    );
    assert_eq!(
        got.alert_config_id.as_deref(),
        Some(want.alert_config_id.as_str()),
        "{id}"
    );
    assert_eq!(
        got.event_type_name.as_deref(),
        Some(want.event_type_name.as_str()),
        "{id}"
    );
    assert_eq!(
        got.type_name.as_deref(),
        Some(want.type_name.as_str()),
        "{id}"
    );
    assert_eq!(
        got.status.as_ref().map(|s| s.as_str()),
        Some(want.status.as_str()),
        "{id}"
    );
    assert_eq!(got.created, Some(want.created), "{id}");
    assert_eq!(got.updated, Some(want.updated), "{id}");
    assert_eq!(got.resolved, want.resolved, "{id}");
    assert_eq!(got.last_notified, want.last_notified, "{id}");
    assert_eq!(got.metric_name, want.metric_name, "{id}");
    assert_eq!(
        got.current_value
            .as_ref()
            .map(|v| (v.number.unwrap(), v.units.clone().unwrap())),
        want.current_value.clone(),
        "{id}"
    );
    assert_eq!(got.host_id, want.host_id, "{id}");
    assert_eq!(got.hostname_and_port, want.hostname_and_port, "{id}");
    assert_eq!(got.replica_set_name, want.replica_set_name, "{id}");
    assert_eq!(got.acknowledged_until, want.acknowledged_until, "{id}");
    assert_eq!(
        got.acknowledgement_comment, want.acknowledgement_comment,
        "{id}"
    );
    assert_eq!(
        got.acknowledging_username, want.acknowledging_username,
        "{id}"
    );
}

/// Ids of open alerts in the seeded world.
fn open_alert_ids(sim: &opsapi::sim::Simulator, n: usize) -> Vec<String> {
    let ids: Vec<String> = sim
        .world()
        .alerts
        .iter()
        .filter(|a| a.status == "OPEN")
        .map(|a| a.id.clone())
        .take(n)
        .collect();
    assert_eq!(ids.len(), n, "the seeded world has {n} open alerts");
    ids
}

#[tokio::test]
async fn global_alerts_filters_go_out_as_documented() {
    let sim = sim();
    let c = client(&sim);
    let after = opsapi::query::parse_timestamp("t", "2020-01-01T00:00:00Z").unwrap();
    let before = opsapi::query::parse_timestamp("t", "2100-01-01T00:00:00+01:00").unwrap();
    let open = c
        .global_alerts()
        .list(
            &GlobalAlertsQuery::new()
                .status(AlertStatus::Open)
                .created_on_or_after(after)
                .created_on_or_before(before),
        )
        .await
        .unwrap();
    let world = sim.world();
    let expected: Vec<&str> = world
        .alerts
        .iter()
        .filter(|a| a.status == "OPEN" && a.created >= after && a.created <= before)
        .map(|a| a.id.as_str())
        .collect();
    assert_eq!(open.len(), expected.len());
    assert_eq!(open.total_count(), expected.len() as u64);
    let got: Vec<&str> = open.iter().map(|a| a.id.as_deref().unwrap()).collect();
    assert_eq!(got, expected, "the seeded open alerts, oldest first");
    assert!(open.iter().all(|a| a.status == Some(AlertStatus::Open)));
    let reqs = authorized(&sim);
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, format!("{API}/globalAlerts"));
    assert_eq!(
        query_pairs(&reqs[0]),
        vec![
            ("status".into(), "OPEN".into()),
            ("createdOnOrAfter".into(), "2020-01-01T00:00:00Z".into()),
            ("createdOnOrBefore".into(), "2099-12-31T23:00:00Z".into()),
            ("pageNum".into(), "1".into()),
            ("itemsPerPage".into(), "500".into()),
        ]
    );
}

/// The filters of the many-page listing and stream tests, and the seeded alerts they match
/// (three pages' worth or more).
fn closed_in_window(world: &opsapi::sim::World) -> (GlobalAlertsQuery, Vec<&opsapi::sim::Alert>) {
    let (after, before) = (at("2024-04-15T00:00:00Z"), at("2024-05-31T23:59:59Z"));
    let q = GlobalAlertsQuery::new()
        .status(AlertStatus::Closed)
        .created_on_or_after(after)
        .created_on_or_before(before);
    let want: Vec<_> = world
        .alerts
        .iter()
        .filter(|a| a.status == "CLOSED" && a.created >= after && a.created <= before)
        .collect();
    assert!(want.len() > 1000, "{} alerts: three pages", want.len());
    (q, want)
}

/// The request line of page `n` of [`closed_in_window`]'s listing.
fn closed_in_window_page(n: usize) -> String {
    format!(
        "GET /globalAlerts?status=CLOSED&createdOnOrAfter=2024-04-15T00%3A00%3A00Z\
         &createdOnOrBefore=2024-05-31T23%3A59%3A59Z&pageNum={n}&itemsPerPage=500 signed 200"
    )
}

#[tokio::test]
async fn global_alerts_list_of_many_pages_sends_every_filter_with_every_page() {
    let sim = sim_at_fixed_now(4000);
    let c = warm(&sim).await;
    let world = sim.world();
    let (q, want) = closed_in_window(&world);
    let list = c.global_alerts().list(&q).await.unwrap();
    // Pages 2.. are fetched concurrently: compared as a sorted list, not in arrival order.
    let pages = want.len().div_ceil(500);
    assert!(pages >= 3, "{pages}");
    let mut lines = seen(&sim);
    lines.sort();
    let expected: Vec<String> = (1..=pages).map(closed_in_window_page).collect();
    assert_eq!(lines, expected);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
    assert_eq!(list.total_count(), want.len() as u64);
    assert_eq!(list.len(), want.len());
    for (got, want) in list.iter().zip(&want) {
        assert_alert_is(got, want);
    }
}

#[tokio::test]
async fn global_alerts_stream_fetches_one_page_at_a_time_as_it_is_consumed() {
    let sim = sim_at_fixed_now(4000);
    let c = warm(&sim).await;
    let world = sim.world();
    let (q, want) = closed_in_window(&world);
    let mut stream = c.global_alerts().stream(&q).unwrap();
    // Nothing is sent before the stream is polled.
    assert!(sim.requests().is_empty());
    let first = stream.next().await.unwrap().unwrap();
    assert_alert_is(&first, want[0]);
    assert_eq!(
        seen(&sim),
        [closed_in_window_page(1)],
        "only the first page"
    );
    let rest: Vec<GlobalAlert> = stream.try_collect().await.unwrap();
    // One page after the other: the order of the log is the order they were asked for.
    let pages = want.len().div_ceil(500);
    assert!(pages >= 3, "{pages}");
    assert_eq!(
        seen(&sim),
        (1..=pages).map(closed_in_window_page).collect::<Vec<_>>()
    );
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
    assert_eq!(rest.len() + 1, want.len());
    for (got, want) in rest.iter().zip(&want[1..]) {
        assert_alert_is(got, want);
    }
}

#[tokio::test]
async fn get_global_alert_sends_one_get_and_returns_the_seeded_alert() {
    let sim = sim_at_fixed_now(60);
    let c = warm(&sim).await;
    let world = sim.world();
    // One alert of each kind the simulator seeds: open with a running acknowledgement and
    // with none, closed (resolved), tracking (never notified), with and without a value.
    let picks: Vec<&opsapi::sim::Alert> = [
        world
            .alerts
            .iter()
            .find(|a| a.status == "OPEN" && a.acknowledged_until.is_some()),
        world
            .alerts
            .iter()
            .find(|a| a.status == "OPEN" && a.acknowledged_until.is_none()),
        world.alerts.iter().find(|a| a.status == "CLOSED"),
        world.alerts.iter().find(|a| a.status == "TRACKING"),
        world.alerts.iter().find(|a| a.current_value.is_some()),
        world.alerts.iter().find(|a| a.current_value.is_none()),
    ]
    .into_iter()
    .map(|a| a.expect("the simulator seeds this kind of alert"))
    .collect();
    let mut lines = Vec::new();
    for want in &picks {
        let got = c.global_alerts().get(&want.id).await.unwrap();
        assert_alert_is(&got, want);
        lines.push(format!("GET /globalAlerts/{} signed 200", want.id));
    }
    assert_eq!(seen(&sim), lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
}

#[tokio::test]
async fn acknowledge_and_unacknowledge_send_the_documented_body() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let target = world
        .alerts
        .iter()
        .find(|a| a.status == "OPEN")
        .unwrap()
        .id
        .clone();
    let until = opsapi::query::parse_timestamp("until", "2099-01-01T00:00:00Z").unwrap();
    let acked = c
        .global_alerts()
        .acknowledge(
            &target,
            &Acknowledgement::new(AckUntil::Until(until)).comment("disk resize"),
        )
        .await
        .unwrap();
    assert_eq!(acked.acknowledged_until, Some(until));
    assert_eq!(
        acked.acknowledgement_comment.as_deref(),
        Some("disk resize")
    );
    assert_eq!(
        acked.acknowledging_username.as_deref(),
        Some(sim.public_key())
    );
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(req.method, "PATCH");
    assert_eq!(req.path, format!("{API}/globalAlerts/{target}"));
    assert_eq!(req.status, 201);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&req.body).unwrap(),
        serde_json::json!({"acknowledgedUntil": "2099-01-01T00:00:00Z", "acknowledgementComment": "disk resize"})
    );

    let read = c.global_alerts().get(&target).await.unwrap();
    assert_eq!(read.acknowledged_until, Some(until));

    let un = c.global_alerts().unacknowledge(&target).await.unwrap();
    assert_eq!(un.acknowledged_until, None);
    let req = authorized(&sim).pop().unwrap();
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    let sent =
        opsapi::query::parse_timestamp("x", body["acknowledgedUntil"].as_str().unwrap()).unwrap();
    // A minute before the server's now (its clock stands still; the bracket is the time the
    // client may take between the answer whose Date it read and the PATCH).
    let before = sim.now() - sent;
    assert!(
        before >= chrono::TimeDelta::seconds(58) && before <= chrono::TimeDelta::minutes(1),
        "{before}"
    );
    assert_eq!(body.as_object().unwrap().len(), 1);

    let for_4h = c
        .global_alerts()
        .acknowledge(
            &target,
            &Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())),
        )
        .await
        .unwrap();
    // Four hours of the server's clock, to the second its Date header gives (the bracket is
    // the time the client may take between that answer and the PATCH).
    let left = for_4h.acknowledged_until.unwrap() - sim.now();
    assert!(
        left >= chrono::TimeDelta::hours(4) && left <= chrono::TimeDelta::seconds(4 * 3600 + 2),
        "{left}"
    );
}

#[tokio::test]
async fn acknowledge_many_returns_one_result_per_id_in_order_and_a_bad_id_stops_nothing() {
    let sim = sim();
    let c = client(&sim);
    let open = open_alert_ids(&sim, 2);
    let ids = [
        open[0].as_str(),
        "5d0000000000000000000000",
        open[1].as_str(),
    ];
    let until = opsapi::query::parse_timestamp("until", "2099-01-01T00:00:00Z").unwrap();
    let ack = Acknowledgement::new(AckUntil::Until(until)).comment("incident 42");

    let results = c
        .global_alerts()
        .acknowledge_many(&ids, &ack)
        .await
        .unwrap();

    assert_eq!(results.len(), 3);
    for (i, r) in [0, 2].into_iter().zip([&open[0], &open[1]]) {
        let alert = results[i].as_ref().unwrap();
        assert_eq!(alert.id.as_deref(), Some(r.as_str()));
        assert_eq!(alert.acknowledged_until, Some(until));
        assert_eq!(
            alert.acknowledgement_comment.as_deref(),
            Some("incident 42")
        );
    }
    match &results[1] {
        Err(e @ Error::Api(_)) => {
            assert_eq!(e.status(), Some(404));
            assert_eq!(e.error_code(), Some("ALERT_NOT_FOUND"));
        }
        other => panic!("expected a 404, got {other:?}"),
    }
    // One PATCH per id (none sent twice), each with the same body.
    let mut patches: Vec<_> = authorized(&sim)
        .into_iter()
        .filter(|r| r.method == "PATCH")
        .collect();
    patches.sort_by(|a, b| a.path.cmp(&b.path));
    let mut expected: Vec<String> = ids
        .iter()
        .map(|i| format!("{API}/globalAlerts/{i}"))
        .collect();
    expected.sort();
    assert_eq!(
        patches.iter().map(|r| r.path.clone()).collect::<Vec<_>>(),
        expected
    );
    for p in &patches {
        assert_eq!(
            json_body(p),
            serde_json::json!({"acknowledgedUntil": "2099-01-01T00:00:00Z", "acknowledgementComment": "incident 42"})
        );
    }
    // The server's state: both alerts acknowledged.
    for id in &open {
        let read = c.global_alerts().get(id).await.unwrap();
        assert_eq!(read.acknowledged_until, Some(until));
    }
}

#[tokio::test]
async fn acknowledge_many_refuses_an_unsendable_id_before_any_request() {
    let sim = sim();
    let c = client(&sim);
    let open = open_alert_ids(&sim, 1);
    let ack = Acknowledgement::new(AckUntil::Forever);
    let err = c
        .global_alerts()
        .acknowledge_many(&[open[0].as_str(), ""], &ack)
        .await
        .unwrap_err();
    match err {
        Error::InvalidArgument { argument, .. } => assert_eq!(argument, "alert_ids[1]"),
        other => panic!("expected an argument error, got {other:?}"),
    }
    assert!(sim.requests().is_empty(), "nothing was sent");
    // No ids: no request, no result.
    let none: [&str; 0] = [];
    assert!(c
        .global_alerts()
        .acknowledge_many(&none, &ack)
        .await
        .unwrap()
        .is_empty());
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn unacknowledge_many_sends_an_instant_in_the_past_for_each_id() {
    let sim = sim();
    let c = client_with(&sim, |b| b.max_concurrency(2));
    let ids = open_alert_ids(&sim, 5);
    let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap()));
    let acked = c
        .global_alerts()
        .acknowledge_many(&ids, &ack)
        .await
        .unwrap();
    assert!(acked
        .iter()
        .all(|r| r.as_ref().unwrap().acknowledged_until.is_some()));

    let before = authorized(&sim).len();
    let results = c.global_alerts().unacknowledge_many(&ids).await.unwrap();
    let got: Vec<String> = results
        .iter()
        .map(|r| r.as_ref().unwrap().id.clone().unwrap())
        .collect();
    assert_eq!(got, ids, "results come in the order of the ids");
    assert!(results
        .iter()
        .all(|r| r.as_ref().unwrap().acknowledged_until.is_none()));
    let sent = &authorized(&sim)[before..];
    assert_eq!(sent.len(), 5);
    for r in sent {
        assert_eq!(r.method, "PATCH");
        let body = json_body(r);
        let at = opsapi::query::parse_timestamp("x", body["acknowledgedUntil"].as_str().unwrap())
            .unwrap();
        let before = sim.now() - at;
        assert!(
            before >= chrono::TimeDelta::seconds(58) && before <= chrono::TimeDelta::minutes(1),
            "{before}"
        );
        assert_eq!(body.as_object().unwrap().len(), 1);
    }
}
