//! `client.alerts()`: project alerts as they go out and come back against the seeded world
//! (the project's alerts of both of its lists, `World::project_alerts`): the status filter,
//! one alert, acknowledging and un-acknowledging one or many (of several projects), every
//! project at once; and the seeded history's agreement with the open alerts of each
//! configuration.

use futures_util::{StreamExt, TryStreamExt};
use opsapi::sim::Simulator;
use opsapi::{AckUntil, Acknowledgement, Alert, AlertStatus, AlertsQuery, Error};

use crate::common::{authorized, json_body, seen, sim, warm, API};

/// Every field of a decoded alert next to the seeded alert it must equal.
pub fn assert_alert_is(got: &Alert, want: &opsapi::sim::Alert) {
    let id = want.id.as_str();
    assert_eq!(got.id.as_deref(), Some(id));
    assert_eq!(
        got.group_id.as_deref(),
        Some(want.group_id.as_str()),
        "{id}"
    );
    let config = Some(want.alert_config_id.as_str());
    assert_eq!(got.alert_config_id.as_deref(), config, "{id}");
    let event = Some(want.event_type_name.as_str());
    assert_eq!(got.event_type_name.as_deref(), event, "{id}");
    assert_eq!(
        got.type_name.as_deref(),
        Some(want.type_name.as_str()),
        "{id}"
    );
    let status = got.status.as_ref().map(|s| s.as_str());
    assert_eq!(status, Some(want.status.as_str()), "{id}");
    assert_eq!(
        (got.created, got.updated, got.resolved, got.last_notified),
        (
            Some(want.created),
            Some(want.updated),
            want.resolved,
            want.last_notified
        ),
        "{id}"
    );
    assert_eq!(got.metric_name, want.metric_name, "{id}");
    let value = got
        .current_value
        .as_ref()
        .map(|v| (v.number.unwrap(), v.units.clone().unwrap()));
    assert_eq!(value, want.current_value, "{id}");
    assert_eq!(
        (&got.host_id, &got.hostname_and_port, &got.replica_set_name),
        (
            &want.host_id,
            &want.hostname_and_port,
            &want.replica_set_name
        ),
        "{id}"
    );
    assert_eq!(
        (
            got.acknowledged_until,
            &got.acknowledgement_comment,
            &got.acknowledging_username
        ),
        (
            want.acknowledged_until,
            &want.acknowledgement_comment,
            &want.acknowledging_username
        ),
        "{id}"
    );
}

/// The seeded alerts `/groups/{g}/alerts?status=` lists, owned.
fn project_alerts(sim: &Simulator, g: &str, status: Option<&str>) -> Vec<opsapi::sim::Alert> {
    let w = sim.world();
    let out: Vec<_> = w
        .project_alerts(g)
        .into_iter()
        .filter(|a| status.is_none_or(|s| a.status == s))
        .cloned()
        .collect();
    out
}

#[tokio::test]
async fn list_sends_the_status_filter_and_returns_the_projects_alerts_oldest_first() {
    let sim = sim();
    let c = warm(&sim).await;
    let mut lines = Vec::new();
    for g in sim.group_ids() {
        for (status, q) in [
            (None, AlertsQuery::new()),
            (Some("OPEN"), AlertsQuery::new().status(AlertStatus::Open)),
            (
                Some("CLOSED"),
                AlertsQuery::new().status(AlertStatus::Closed),
            ),
            (
                Some("TRACKING"),
                AlertsQuery::new().status(AlertStatus::Tracking),
            ),
        ] {
            let got = c.alerts().list(&g, &q).await.unwrap();
            let want = project_alerts(&sim, &g, status);
            assert!(!want.is_empty(), "{g} {status:?}");
            assert_eq!(got.total_count(), want.len() as u64);
            assert_eq!(got.len(), want.len());
            for (got, want) in got.iter().zip(&want) {
                assert_alert_is(got, want);
            }
            let filter = status.map(|s| format!("status={s}&")).unwrap_or_default();
            lines.push(format!(
                "GET /groups/{g}/alerts?{filter}pageNum=1&itemsPerPage=500 signed 200"
            ));
        }
    }
    assert_eq!(seen(&sim), lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
    // Project alerts include the history that the global listing does not show.
    let w = sim.world();
    assert!(!w.alert_history.is_empty());
    let global = c.global_alerts().list(&Default::default()).await.unwrap();
    assert_eq!(global.len(), w.alerts.len());
    assert!(w.alert_history.iter().all(|h| global
        .iter()
        .all(|g| g.id.as_deref() != Some(h.id.as_str()))));
}

#[tokio::test]
async fn stream_reads_the_same_alerts_once_polled() {
    let sim = sim();
    let c = warm(&sim).await;
    let g = &sim.group_ids()[1];
    let q = AlertsQuery::new().status(AlertStatus::Closed);
    let mut stream = c.alerts().stream(g, &q).unwrap();
    assert!(
        sim.requests().is_empty(),
        "nothing is sent before the stream is polled"
    );
    let first = stream.next().await.unwrap().unwrap();
    let rest: Vec<Alert> = stream.try_collect().await.unwrap();
    let want = project_alerts(&sim, g, Some("CLOSED"));
    assert_eq!(rest.len() + 1, want.len());
    for (got, want) in std::iter::once(&first).chain(&rest).zip(&want) {
        assert_alert_is(got, want);
    }
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{g}/alerts?status=CLOSED&pageNum=1&itemsPerPage=500 signed 200"
        )]
    );
}

#[tokio::test]
async fn get_reads_an_alert_of_the_project_and_not_of_another() {
    let sim = sim();
    let c = warm(&sim).await;
    let w = sim.world();
    let history = &w.alert_history[0];
    let global = w.alerts.iter().find(|a| a.status == "OPEN").unwrap();
    for want in [history, global] {
        let got = c.alerts().get(&want.group_id, &want.id).await.unwrap();
        assert_alert_is(&got, want);
        let link = &got.links.as_ref().unwrap()[0];
        assert_eq!(link.rel, "self");
        let path = format!("/groups/{}/alerts/{}", want.group_id, want.id);
        assert_eq!(link.href, format!("{}{API}{path}", sim.base_url()));
    }
    let other = w
        .projects
        .iter()
        .find(|p| p.id != history.group_id)
        .unwrap();
    let e = c.alerts().get(&other.id, &history.id).await.unwrap_err();
    assert_eq!(
        (e.status(), e.error_code()),
        (Some(404), Some("ALERT_NOT_FOUND"))
    );
    assert_eq!(
        e.api().unwrap().detail.as_deref(),
        Some(
            format!(
                "No alert with ID {} exists in group {}.",
                history.id, other.id
            )
            .as_str()
        )
    );
    assert_eq!(
        seen(&sim),
        [
            format!(
                "GET /groups/{}/alerts/{} signed 200",
                history.group_id, history.id
            ),
            format!(
                "GET /groups/{}/alerts/{} signed 200",
                global.group_id, global.id
            ),
            format!("GET /groups/{}/alerts/{} signed 404", other.id, history.id),
        ]
    );
}

#[tokio::test]
async fn acknowledge_and_unacknowledge_round_trip_through_the_server() {
    let sim = sim();
    let c = warm(&sim).await;
    let w = sim.world();
    // An open alert both listings show, and a closed one of the history.
    let open = w
        .alerts
        .iter()
        .find(|a| a.status == "OPEN" && a.acknowledged_until.is_none())
        .unwrap()
        .clone();
    let closed = w
        .alert_history
        .iter()
        .find(|a| a.status == "CLOSED")
        .unwrap()
        .clone();
    let until = opsapi::query::parse_timestamp("until", "2099-01-01T00:00:00Z").unwrap();
    let ack = Acknowledgement::new(AckUntil::Until(until)).comment("disk resize");
    for a in [&open, &closed] {
        let got = c
            .alerts()
            .acknowledge(&a.group_id, &a.id, &ack)
            .await
            .unwrap();
        let mut want = a.clone();
        want.acknowledged_until = Some(until);
        want.acknowledgement_comment = Some("disk resize".into());
        want.acknowledging_username = Some(sim.public_key().to_string());
        want.updated = sim.now();
        assert_alert_is(&got, &want);
        let req = authorized(&sim).pop().unwrap();
        assert_eq!((req.method.as_str(), req.status), ("PATCH", 201));
        assert_eq!(
            req.path,
            format!("{API}/groups/{}/alerts/{}", a.group_id, a.id)
        );
        assert_eq!(
            json_body(&req),
            serde_json::json!({"acknowledgedUntil": "2099-01-01T00:00:00Z", "acknowledgementComment": "disk resize"})
        );
        let read = c.alerts().get(&a.group_id, &a.id).await.unwrap();
        assert_alert_is(&read, &want);
    }
    // The global listing shows the same alert acknowledged.
    let global = c.global_alerts().get(&open.id).await.unwrap();
    assert_eq!(global.acknowledged_until, Some(until));

    for a in [&open, &closed] {
        let got = c.alerts().unacknowledge(&a.group_id, &a.id).await.unwrap();
        assert_eq!(
            (got.acknowledged_until, got.acknowledging_username),
            (None, None)
        );
        let req = authorized(&sim).pop().unwrap();
        let body = json_body(&req);
        assert_eq!(body.as_object().unwrap().len(), 1);
        let sent = opsapi::query::parse_timestamp("t", body["acknowledgedUntil"].as_str().unwrap())
            .unwrap();
        // A minute before the server's now (its clock stands still; the bracket is the time
        // the client may take between the answer whose Date it read and the PATCH).
        let before = sim.now() - sent;
        assert!(
            before >= chrono::TimeDelta::seconds(58) && before <= chrono::TimeDelta::minutes(1),
            "{before}"
        );
        let now = project_alerts(&sim, &a.group_id, None);
        let now = now.iter().find(|x| x.id == a.id).unwrap();
        assert_eq!(now.acknowledged_until, None);
    }
}

#[tokio::test]
async fn acknowledge_many_takes_pairs_of_several_projects_and_a_bad_pair_stops_nothing() {
    let sim = sim();
    let c = warm(&sim).await;
    let gs = sim.group_ids();
    let a0 = project_alerts(&sim, &gs[0], Some("OPEN"))[0].clone();
    let a1 = project_alerts(&sim, &gs[1], Some("OPEN"))[0].clone();
    // The second pair names an alert of the other project: not found there.
    let pairs = [
        (a0.group_id.as_str(), a0.id.as_str()),
        (gs[0].as_str(), a1.id.as_str()),
        (a1.group_id.as_str(), a1.id.as_str()),
    ];
    let ack = Acknowledgement::new(AckUntil::Forever).comment("incident 42");
    let results = c.alerts().acknowledge_many(&pairs, &ack).await.unwrap();
    assert_eq!(results.len(), 3);
    for (r, want) in [(&results[0], &a0), (&results[2], &a1)] {
        let got = r.as_ref().unwrap();
        assert_eq!(got.id.as_deref(), Some(want.id.as_str()));
        assert_eq!(got.acknowledgement_comment.as_deref(), Some("incident 42"));
        // Forever: a hundred years from the server's clock.
        let until = got.acknowledged_until.unwrap();
        let years = (until - sim.now()).num_days() / 365;
        assert_eq!(years, 100, "{until}");
    }
    match &results[1] {
        Err(e @ Error::Api(_)) => assert_eq!(e.error_code(), Some("ALERT_NOT_FOUND")),
        other => panic!("expected a 404, got {other:?}"),
    }
    let mut paths: Vec<String> = authorized(&sim)
        .iter()
        .filter(|r| r.method == "PATCH")
        .map(|r| r.path.clone())
        .collect();
    paths.sort();
    let mut want: Vec<String> = pairs
        .iter()
        .map(|(g, a)| format!("{API}/groups/{g}/alerts/{a}"))
        .collect();
    want.sort();
    assert_eq!(paths, want, "one PATCH per pair, none sent twice");

    let results = c.alerts().unacknowledge_many(&pairs[..1]).await.unwrap();
    assert_eq!(results[0].as_ref().unwrap().acknowledged_until, None);
}

#[tokio::test]
async fn many_and_list_all_refuse_an_unsendable_id_before_any_request() {
    let sim = sim();
    let c = warm(&sim).await;
    let e = c
        .alerts()
        .unacknowledge_many(&[("g", "a"), ("g", "..")])
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid argument `pairs[1]`: alert_id: `..` cannot be sent as a path segment"
    );
    let e = c
        .alerts()
        .list_all(&AlertsQuery::new(), Some(&["g", " "]))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid argument `groups[1]`: must not be blank"
    );
    let cancelled = AlertsQuery::new().status(AlertStatus::Cancelled);
    let e = c.alerts().list_all(&cancelled, None).await.unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { ref argument, .. } if argument == "status"));
    let e = c.alerts().list("g", &cancelled).await.unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { ref argument, .. } if argument == "status"));
    assert!(sim.requests().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn list_all_reads_every_project_the_key_sees_in_their_order() {
    let sim = sim();
    let c = warm(&sim).await;
    let gs = sim.group_ids();
    let q = AlertsQuery::new().status(AlertStatus::Open);
    let all = c.alerts().list_all(&q, None).await.unwrap();
    let want: Vec<_> = gs
        .iter()
        .flat_map(|g| project_alerts(&sim, g, Some("OPEN")))
        .collect();
    assert_eq!(
        (all.len(), all.total_count()),
        (want.len(), want.len() as u64)
    );
    for (got, want) in all.iter().zip(&want) {
        assert_alert_is(got, want);
    }
    // The projects' listings run concurrently: their order in the log is not fixed.
    let mut lines = seen(&sim);
    assert_eq!(
        lines.remove(0),
        "GET /groups?pageNum=1&itemsPerPage=500 signed 200"
    );
    lines.sort();
    let mut expected: Vec<String> = gs
        .iter()
        .map(|g| {
            format!("GET /groups/{g}/alerts?status=OPEN&pageNum=1&itemsPerPage=500 signed 200")
        })
        .collect();
    expected.sort();
    assert_eq!(lines, expected);

    // Given projects: those only, no /groups.
    sim.clear_requests();
    let one = c
        .alerts()
        .list_all(&AlertsQuery::new(), Some(&[gs[1].as_str()]))
        .await
        .unwrap();
    let want = project_alerts(&sim, &gs[1], None);
    assert_eq!(one.len(), want.len());
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{}/alerts?pageNum=1&itemsPerPage=500 signed 200",
            gs[1]
        )]
    );
    // A project that fails fails the call.
    let e = c
        .alerts()
        .list_all(
            &AlertsQuery::new(),
            Some(&[gs[0].as_str(), "5d0000000000000000000000"]),
        )
        .await
        .unwrap_err();
    assert_eq!(e.error_code(), Some("GROUP_NOT_FOUND"));
}

#[tokio::test]
async fn open_alerts_of_each_configuration_agree_with_the_open_project_alerts() {
    let sim = sim();
    let c = warm(&sim).await;
    let w = sim.world();
    let mut with_open = 0;
    for g in sim.group_ids() {
        let open = c
            .alerts()
            .list(&g, &AlertsQuery::new().status(AlertStatus::Open))
            .await
            .unwrap();
        for cfg in w.alert_configs.iter().filter(|x| x.group_id == g) {
            let of_config = c.alert_configs().open_alerts(&g, &cfg.id).await.unwrap();
            let ids = |l: &[Alert]| l.iter().map(|a| a.id.clone()).collect::<Vec<_>>();
            let want: Vec<Alert> = open
                .iter()
                .filter(|a| a.alert_config_id.as_deref() == Some(cfg.id.as_str()))
                .cloned()
                .collect();
            assert_eq!(ids(&of_config), ids(&want), "{}", cfg.id);
            with_open += usize::from(!want.is_empty());
        }
    }
    // Every configuration has an open alert, the history's disk configurations included.
    assert_eq!(with_open, w.alert_configs.len());
}
