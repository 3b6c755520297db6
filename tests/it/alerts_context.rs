//! `client.alerts().context(..)`: a seeded alert of each kind (a host metric, a disk
//! partition's space, a replica set without a primary) placed on its host, partition or
//! replica set, with the window, granularity and threshold the rules give, the exact requests
//! sent, and the measurements the server serves for that window.

use chrono::{DateTime, TimeDelta, Utc};
use opsapi::{
    AlertStatus, AlertsQuery, ContextOptions, Granularity, MeasurementsQuery, MetricKind,
};

use crate::common::{fixed_now, seen, sim, warm};

fn floor(t: DateTime<Utc>, step: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp().div_euclid(step) * step, 0).unwrap()
}

fn iso(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `a:b` query encoding of the log (`:` as `%3A`).
fn q(t: DateTime<Utc>) -> String {
    iso(t).replace(':', "%3A")
}

#[tokio::test]
async fn a_host_metric_alert_reads_its_metric_on_its_host_with_the_threshold() {
    let sim = sim();
    let c = warm(&sim).await;
    let w = sim.world();
    // The open CONNECTIONS alert of the first project, as the project listing gives it.
    let g = &w.projects[0].id;
    let open = c
        .alerts()
        .list(g, &AlertsQuery::new().status(AlertStatus::Open))
        .await
        .unwrap();
    let alert = open
        .iter()
        .find(|a| a.metric_name.as_deref() == Some("CONNECTIONS"))
        .expect("an open CONNECTIONS alert")
        .clone();
    let h = alert.host_id.clone().unwrap();
    let cfg = w
        .alert_configs
        .iter()
        .find(|x| Some(&x.id) == alert.alert_config_id.as_ref())
        .unwrap();
    sim.clear_requests();

    let ctx = c
        .alerts()
        .context(&alert, &ContextOptions::new())
        .await
        .unwrap();

    // Open: from two hours before it was created until now. Older than a week's five-minute
    // data: hours (at most 1440 of them, within 63 days).
    let created = alert.created.unwrap();
    let now = fixed_now();
    assert!(now - created > TimeDelta::days(7) && now - created < TimeDelta::days(60));
    let (start, end) = (floor(created - TimeDelta::hours(2), 3600), floor(now, 3600));
    assert_eq!(
        (ctx.start, ctx.end, ctx.granularity),
        (start, end, Granularity::PT1H)
    );
    assert_eq!(
        (ctx.kind, ctx.measurement.as_deref()),
        (Some(MetricKind::Host), Some("CONNECTIONS"))
    );
    assert_eq!(ctx.threshold, cfg.threshold.as_ref().map(|t| t.0));
    assert_eq!(ctx.threshold_units.as_deref(), Some("RAW"));
    assert_eq!(ctx.host().and_then(|x| x.id.as_deref()), Some(h.as_str()));
    assert_eq!(ctx.note.as_deref(), None);
    // The events and the Performance Advisor beside the measurements (their requests and
    // parts: tests/python/test_alerts_context.py and test_alerts_why.py).
    let mut lines = of_series(seen(&sim));
    let measured = lines.pop().unwrap();
    lines.sort(); // the host and the configurations are asked at once
    assert_eq!(
        lines,
        [
            format!("GET /groups/{g}/alertConfigs?pageNum=1&itemsPerPage=500 signed 200"),
            format!("GET /groups/{g}/hosts/{h} signed 200"),
        ]
    );
    assert_eq!(
        measured,
        format!(
            "GET /groups/{g}/hosts/{h}/measurements?granularity=PT1H&start={}&end={}&m=CONNECTIONS signed 200",
            q(start),
            q(end)
        )
    );
    // The measurements are the server's for that window.
    let direct = c
        .measurements()
        .host(
            g,
            &h,
            &MeasurementsQuery::range(Granularity::PT1H, start, end).metrics(["CONNECTIONS"]),
        )
        .await
        .unwrap();
    assert_eq!(ctx.measurements.len(), 1);
    assert_eq!(ctx.measurements[0].series, direct.series);
    assert!(direct.data_point_count() > 24 * 7);
    let frame = ctx.frame().unwrap();
    assert_eq!(frame.height(), direct.data_point_count());
    assert_eq!(frame, direct.to_frame(opsapi::frame::Shape::Long).unwrap());
}

#[tokio::test]
async fn a_disk_alert_reads_its_data_partition_at_the_finest_granularity() {
    let sim = sim();
    let c = warm(&sim).await;
    let truth = sim.alert_truth().disk_alerts[0].clone();
    let (g, h) = (&truth.group_id, truth.host_id.clone().unwrap());
    let alert = c.alerts().get(g, &truth.alert_id).await.unwrap();
    assert_eq!(
        alert.metric_name.as_deref(),
        Some("DISK_PARTITION_SPACE_USED_DATA")
    );
    sim.clear_requests();

    let options = ContextOptions::new().before(TimeDelta::minutes(30));
    let ctx = c.alerts().context(&alert, &options).await.unwrap();

    // Raised days ago (the minute its series first went past the threshold), within the
    // week, and still open: five minutes (minutes are kept two days), from half an hour
    // before it to now.
    let created = alert.created.unwrap();
    let age = fixed_now() - created;
    assert!(
        age > TimeDelta::days(2) && age < TimeDelta::days(7),
        "{age}"
    );
    let start = floor(created - TimeDelta::minutes(30), 300);
    let end = fixed_now();
    assert_eq!(
        (ctx.start, ctx.end, ctx.granularity),
        (start, end, Granularity::PT5M)
    );
    assert_eq!(ctx.kind, Some(MetricKind::Disk));
    assert_eq!(
        ctx.measurement.as_deref(),
        Some("DISK_PARTITION_SPACE_PERCENT_USED")
    );
    assert_eq!(ctx.threshold, truth.threshold);
    let p = truth.partition_name.as_deref().unwrap();
    assert_eq!(p, "data");
    let mut lines = of_series(seen(&sim));
    let measured = lines.pop().unwrap();
    let disks = lines.pop().unwrap();
    lines.sort();
    assert_eq!(
        lines,
        [
            format!("GET /groups/{g}/alertConfigs?pageNum=1&itemsPerPage=500 signed 200"),
            format!("GET /groups/{g}/hosts/{h} signed 200"),
        ]
    );
    assert_eq!(
        disks,
        format!("GET /groups/{g}/hosts/{h}/disks?pageNum=1&itemsPerPage=500 signed 200")
    );
    assert_eq!(
        measured,
        format!(
            "GET /groups/{g}/hosts/{h}/disks/{p}/measurements?granularity=PT5M&start={}&end={}&m=DISK_PARTITION_SPACE_PERCENT_USED signed 200",
            q(start),
            q(end)
        )
    );
    let frame = ctx.frame().unwrap();
    let points = (end - start).num_minutes() as usize / 5 + 1;
    assert_eq!(frame.height(), points);
    assert_eq!(ctx.measurements.len(), 1);
    assert_eq!(ctx.measurements[0].partition_name.as_deref(), Some("data"));
    assert_eq!(
        frame.column("partition_name").unwrap().n_unique().unwrap(),
        1
    );
    // The alert's current value is the partition's use at the minute it was raised, past the
    // threshold.
    let value = alert.current_value.as_ref().unwrap().number.unwrap();
    assert!(value > truth.threshold.unwrap(), "{value}");
}

#[tokio::test]
async fn a_replica_set_alert_gives_its_members_state_and_events_and_no_frame() {
    let sim = sim();
    let c = warm(&sim).await;
    let truth = sim.alert_truth().replica_set_alerts[0].clone();
    let g = &truth.group_id;
    let rs = truth.replica_set_name.clone().unwrap();
    let alert = c.alerts().get(g, &truth.alert_id).await.unwrap();
    assert_eq!(
        (alert.metric_name.as_ref(), alert.host_id.as_ref()),
        (None, None)
    );
    sim.clear_requests();

    let ctx = c
        .alerts()
        .context(&alert, &ContextOptions::new())
        .await
        .unwrap();

    let w = sim.world();
    let members: Vec<&str> = w
        .hosts
        .iter()
        .filter(|x| &x.group_id == g && x.replica_set_name.as_deref() == Some(rs.as_str()))
        .map(|x| x.id.as_str())
        .collect();
    assert!(members.len() >= 2);
    let got: Vec<&str> = ctx.hosts.iter().map(|x| x.id.as_deref().unwrap()).collect();
    assert_eq!(got, members);
    assert!(ctx.hosts.iter().all(|x| x.replica_state_name.is_some()));
    assert!(ctx.host().is_none() && ctx.kind.is_none() && ctx.measurements.is_empty());
    assert_eq!(ctx.note.as_deref(), Some("the alert carries no metric"));
    let frame = ctx.frame().unwrap();
    assert_eq!(frame.height(), 0);
    assert_eq!(frame.get_column_names(), opsapi::frame::LONG_COLUMNS);
    // Closed minutes after it opened: two hours before to an hour after, at minutes if the
    // window is within two days, else coarser.
    let resolved = alert.resolved.unwrap();
    let step = ctx.granularity.seconds() as i64;
    assert_eq!(
        ctx.start,
        floor(alert.created.unwrap() - TimeDelta::hours(2), step)
    );
    assert_eq!(ctx.end, floor(resolved + TimeDelta::hours(1), step));
    // The events of the window about its members, its replica set or the alert itself (its
    // acknowledgement), oldest first.
    let want: Vec<String> = w
        .events
        .iter()
        .rev()
        .filter(|e| &e.group_id == g && e.created >= ctx.start && e.created <= ctx.end)
        .filter(|e| e.served_on(opsapi::Flavour::OpsManager) && e.event_type_name != "JOINED_GROUP")
        .filter(|e| {
            e.body["hostId"]
                .as_str()
                .is_some_and(|h| members.contains(&h))
                || e.body["replicaSetName"].as_str() == Some(rs.as_str())
                || e.body["alertId"].as_str() == alert.id.as_deref()
                // The project's configuration changes (a deployment's configuration).
                || e.event_type_name == "AUTOMATION_CONFIG_PUBLISHED_AUDIT"
        })
        .map(|e| e.id.clone())
        .collect();
    let got: Vec<String> = ctx.events.iter().map(|e| e.id.clone().unwrap()).collect();
    assert_eq!(got, want);
    assert!(!got.is_empty(), "the seeded window has events");
    // The members first; then the events of the window (in the flavour's event types: the
    // Python suite checks them), with the members' Performance Advisor.
    let lines = seen(&sim);
    assert_eq!(
        lines[0],
        format!("GET /groups/{g}/hosts?pageNum=1&itemsPerPage=500 signed 200")
    );
    let events: Vec<&String> = lines.iter().filter(|l| l.contains("/events?")).collect();
    assert_eq!(events.len(), 1);
    let window = format!("&minDate={}&maxDate={}&", q(ctx.start), q(ctx.end));
    assert!(events[0].contains(&window), "{}", events[0]);
}

/// The requests of a context but its events' and its Performance Advisor's, in order.
fn of_series(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .filter(|l| !l.contains("/events?") && !l.contains("/performanceAdvisor/"))
        .collect()
}

#[tokio::test]
async fn a_global_alert_works_too_and_what_cannot_be_placed_says_why() {
    let sim = sim();
    let c = warm(&sim).await;
    let global = c.global_alerts().list(&Default::default()).await.unwrap();
    let alert = global
        .iter()
        .find(|a| a.metric_name.as_deref() == Some("ASSERT_REGULAR") && a.host_id.is_some())
        .unwrap();
    let o = ContextOptions::new().granularity(Granularity::P1D);
    let ctx = c.alerts().context(alert, &o).await.unwrap();
    assert_eq!(
        (ctx.granularity, ctx.measurements.len()),
        (Granularity::P1D, 1)
    );
    assert_eq!(ctx.measurements[0].host_id, alert.host_id);
    assert_eq!(ctx.threshold, Some(0.0));

    // A host the project does not have (removed since), and a metric the server does not
    // measure: no frame, a note, no error.
    let g = alert.group_id.clone().unwrap();
    let gone: opsapi::Alert = opsapi::decode_model(
        format!(r#"{{"id":"a1","groupId":"{g}","status":"OPEN","created":"2026-03-02T08:00:00Z","metricName":"CONNECTIONS","hostId":"0000"}}"#)
            .as_bytes(),
    )
    .unwrap();
    let ctx = c
        .alerts()
        .context(&gone, &ContextOptions::new())
        .await
        .unwrap();
    assert_eq!(
        ctx.note.as_deref(),
        Some(format!("host 0000 is not in project {g}").as_str())
    );
    assert!(ctx.hosts.is_empty() && ctx.measurements.is_empty());
    let h = alert.host_id.clone().unwrap();
    let unknown: opsapi::Alert = opsapi::decode_model(
        format!(r#"{{"id":"a1","groupId":"{g}","status":"OPEN","created":"2026-03-02T08:00:00Z","metricName":"NO_SUCH_METRIC","hostId":"{h}"}}"#)
            .as_bytes(),
    )
    .unwrap();
    let ctx = c
        .alerts()
        .context(&unknown, &ContextOptions::new())
        .await
        .unwrap();
    assert_eq!(
        ctx.note.as_deref(),
        Some("the server has no host measurement NO_SUCH_METRIC")
    );
    assert_eq!(ctx.hosts.len(), 1);
    // Options are checked before anything is sent.
    sim.clear_requests();
    let bad = ContextOptions::new().before(TimeDelta::hours(-1));
    let e = c.alerts().context(alert, &bad).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid argument `before`: must not be negative"
    );
    assert!(sim.requests().is_empty());
}

/// The alert's context with the default options.
async fn context_of(c: &opsapi::Client, alert: &opsapi::Alert) -> opsapi::AlertContext {
    c.alerts()
        .context(alert, &ContextOptions::new())
        .await
        .unwrap()
}

/// The context's first series as (timestamp, value) points, its nulls left out, and when the
/// alert was raised, floored to the granularity's step (milliseconds).
fn series_points(ctx: &opsapi::AlertContext, alert: &opsapi::Alert) -> (Vec<(i64, f64)>, i64) {
    let step = ctx.granularity.seconds() as i64;
    let raised = floor(alert.created.unwrap(), step).timestamp_millis();
    let series = &ctx.measurements[0].series[0];
    let points = series
        .timestamps
        .iter()
        .zip(&series.values)
        .filter_map(|(&ts, v)| v.map(|v| (ts, v)))
        .collect();
    (points, raised)
}

/// Within `threshold` before the alert was raised, past it while it was open (until `end`).
fn assert_crosses(
    points: &[(i64, f64)],
    raised: i64,
    end: Option<DateTime<Utc>>,
    threshold: f64,
    what: &str,
) {
    let until = end.map_or(i64::MAX, |e| e.timestamp_millis());
    assert!(
        points.iter().any(|&(ts, v)| ts < raised && v <= threshold),
        "{what}: {points:?}"
    );
    assert!(
        points
            .iter()
            .any(|&(ts, v)| ts >= raised && ts < until && v > threshold),
        "{what}: {points:?}"
    );
}

/// Every metric alert of the world, global and of the history, in its default context: its
/// series crosses its threshold. A point before the alert was raised is within the threshold,
/// the point it was raised from is past it, and at minutes that point is its `currentValue`.
#[tokio::test]
async fn every_metric_alert_shows_its_series_crossing_its_threshold() {
    let sim = sim();
    let c = warm(&sim).await;
    let truth = sim.alert_truth().metric_alerts;
    // Global ones and the history's, of every kind of metric, on many hosts.
    let mut kinds: Vec<&str> = truth.iter().map(|t| t.metric_name.as_str()).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "ASSERT_REGULAR",
            "CONNECTIONS",
            "DISK_PARTITION_SPACE_USED_DATA",
            "OPLOG_REPLICATION_LAG_TIME"
        ]
    );
    assert!(truth.iter().any(|t| t.global) && truth.iter().any(|t| !t.global));
    assert!(truth.len() > 60, "{}", truth.len());
    let mut at_minutes = 0;
    for t in &truth {
        let alert = c.alerts().get(&t.group_id, &t.alert_id).await.unwrap();
        let ctx = context_of(&c, &alert).await;
        let what = format!(
            "{} {} on {} at {:?}",
            t.alert_id, t.metric_name, t.process_id, ctx.granularity
        );
        assert_eq!(ctx.threshold, Some(t.threshold), "{what}");
        assert_eq!(
            ctx.host().and_then(|h| h.id.clone()),
            Some(t.host_id.clone())
        );
        let value = alert.current_value.as_ref().and_then(|v| v.number);
        assert_eq!(value, Some(t.current_value), "{what}");
        assert!(t.current_value > t.threshold, "{what}: {}", t.current_value);
        let (points, raised) = series_points(&ctx, &alert);
        assert_crosses(&points, raised, t.end, t.threshold, &what);
        let at = points.iter().find(|p| p.0 == raised).map(|p| p.1);
        if ctx.granularity.seconds() == 60 {
            assert_eq!(at, Some(t.current_value), "{what}");
            at_minutes += 1;
        }
    }
    // The flapping configuration's alerts (and the newest disk alerts) are read at minutes.
    assert!(at_minutes >= 16, "{at_minutes}");
}

#[tokio::test]
async fn on_atlas_a_replica_set_alerts_events_are_asked_as_the_events_operation() {
    use crate::flavours::{api_requests, client_of, sim_of};
    let sim = sim_of(opsapi::Flavour::Atlas);
    let c = client_of(&sim);
    let truth = sim.alert_truth().replica_set_alerts[0].clone();
    let g = &truth.group_id;
    let alert = c.alerts().get(g, &truth.alert_id).await.unwrap();
    sim.clear_requests();

    let ctx = c
        .alerts()
        .context(&alert, &ContextOptions::new())
        .await
        .unwrap();

    assert!(!ctx.events.is_empty(), "the seeded window has events");
    // The events request goes as `events.list` does: Atlas's versioned media type (a plain
    // `application/json` is answered 406 there), and the events endpoint set's pace.
    let events: Vec<_> = api_requests(&sim)
        .into_iter()
        .filter(|r| r.path.ends_with("/events"))
        .collect();
    assert_eq!(events.len(), 1);
    assert_eq!(
        (events[0].accept.as_deref(), events[0].status),
        (Some("application/vnd.atlas.2023-01-01+json"), 200)
    );
    let req = opsapi::api::alerts::around::deployment_events_request(
        opsapi::Flavour::Atlas,
        g,
        ctx.start,
        ctx.end,
    )
    .unwrap();
    assert_eq!(req.operation.endpoint_set(), opsapi::EndpointSet::Events);
}

/// On Atlas, whose alerts name their process by `hostnameAndPort` alone (no `hostId`), every
/// metric alert of the world in its default context: its process asked by `hostname:port`,
/// its threshold, and its series crossing it, as on Ops Manager (the alert's metric by its own
/// name: `OPLOG_SLAVE_LAG_MASTER_TIME` is the replication lag's series).
#[tokio::test]
async fn on_atlas_every_metric_alert_shows_its_series_crossing_its_threshold() {
    use crate::flavours::{api_requests, client_of, sim_of};
    let sim = sim_of(opsapi::Flavour::Atlas);
    let c = client_of(&sim);
    let served: Vec<String> = crate::flavours::served_hosts(&sim)
        .iter()
        .map(|h| h.process_id())
        .collect();
    let truth: Vec<_> = sim
        .alert_truth()
        .metric_alerts
        .into_iter()
        .filter(|t| served.contains(&t.process_id))
        .collect();
    assert!(truth.len() > 40, "{}", truth.len());
    let mut metrics: Vec<String> = Vec::new();
    for t in &truth {
        let alert = c.alerts().get(&t.group_id, &t.alert_id).await.unwrap();
        let what = format!("{} {} on {}", t.alert_id, t.metric_name, t.process_id);
        assert_eq!(
            (alert.host_id.as_deref(), alert.hostname_and_port.as_deref()),
            (None, Some(t.process_id.as_str())),
            "{what}"
        );
        metrics.extend(alert.metric_name.clone());
        sim.clear_requests();
        let ctx = context_of(&c, &alert).await;
        let process = format!(
            "/api/atlas/v2/groups/{}/processes/{}",
            t.group_id,
            t.process_id.replace(':', "%3A")
        );
        assert!(
            api_requests(&sim)
                .iter()
                .any(|r| r.path == process && r.status == 200),
            "{what}: {:?}",
            api_requests(&sim)
        );
        // The configuration's threshold, in the series' units: Atlas measures the
        // replication lag in milliseconds, and its configuration says seconds.
        let series = &ctx.measurements[0].series[0];
        let threshold = match alert.metric_name.as_deref() {
            Some("OPLOG_SLAVE_LAG_MASTER_TIME") => {
                let ms = Some("MILLISECONDS");
                assert_eq!(
                    (ctx.threshold_units.as_deref(), series.units.as_deref()),
                    (ms, ms)
                );
                t.threshold * 1000.0
            }
            _ => t.threshold,
        };
        assert_eq!(
            (ctx.note.as_deref(), ctx.threshold),
            (None, Some(threshold)),
            "{what}"
        );
        assert_eq!(
            ctx.host().and_then(|h| h.id.clone()),
            Some(t.process_id.clone())
        );
        let (points, raised) = series_points(&ctx, &alert);
        assert_crosses(&points, raised, t.end, threshold, &what);
    }
    metrics.sort();
    metrics.dedup();
    assert_eq!(
        metrics,
        [
            "ASSERT_REGULAR",
            "CONNECTIONS",
            "DISK_PARTITION_SPACE_USED_DATA",
            "OPLOG_SLAVE_LAG_MASTER_TIME"
        ]
    );
}
