//! The client against the built-in simulator: the exact requests that go out and the results
//! that come back, for every operation; Digest request counts; retries; paging guards; errors.

#![cfg(feature = "sim")] // against the simulator

use std::time::Duration;

use futures_util::TryStreamExt;
use opsapi::sim::{Fault, Faults, RequestRecord, SimConfig, Simulator};
use opsapi::{
    AckUntil, Acknowledgement, AlertStatus, Client, Error, GlobalAlertsQuery, Granularity,
    MeasurementsQuery,
};

fn start(config: SimConfig) -> Simulator {
    Simulator::start(config).expect("simulator starts")
}

fn sim() -> Simulator {
    start(SimConfig::default())
}

fn client(sim: &Simulator) -> Client {
    Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap()
}

/// The requests that passed authentication.
fn authorized(sim: &Simulator) -> Vec<RequestRecord> {
    sim.requests()
        .into_iter()
        .filter(|r| r.authorized)
        .collect()
}

fn query_pairs(r: &RequestRecord) -> Vec<(String, String)> {
    url::form_urlencoded::parse(r.query.as_deref().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

const API: &str = "/api/public/v1.0";

#[tokio::test]
async fn get_host_sends_one_get_and_decodes_every_field() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    let host = c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert_eq!(host.id.as_deref(), Some(h.id.as_str()));
    assert_eq!(host.hostname.as_deref(), Some(h.hostname.as_str()));
    assert_eq!(host.port, Some(i64::from(h.port)));
    assert_eq!(
        host.type_name.as_ref().map(|t| t.as_str()),
        Some(h.type_name.as_str())
    );
    assert!(host.created.is_some() && host.last_ping.is_some());
    assert!(host
        .system_info
        .as_ref()
        .and_then(|s| s.num_cores)
        .is_some());
    let reqs = authorized(&sim);
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].method, "GET");
    assert_eq!(
        reqs[0].path,
        format!("{API}/groups/{}/hosts/{}", h.group_id, h.id)
    );
    assert_eq!(reqs[0].query, None);
    assert!(c.server_version().and_then(|v| v.git_hash).is_some());
}

#[tokio::test]
async fn digest_costs_one_request_per_call_after_the_first() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    for _ in 0..10 {
        c.hosts().get(&h.group_id, &h.id).await.unwrap();
    }
    let all = sim.requests();
    assert_eq!(all.len(), 11, "10 calls cost 11 requests");
    assert_eq!(all[0].status, 401);
    assert!(all[1..].iter().all(|r| r.status == 200 && r.authorized));
}

#[tokio::test]
async fn an_expired_nonce_costs_one_extra_request() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    sim.clear_requests();
    sim.inject(Fault::StaleNonce, 1);
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![401, 200]);
}

#[tokio::test]
async fn nonces_that_expire_by_time_are_renewed() {
    let sim = start(SimConfig {
        nonce_lifetime: Duration::from_millis(200),
        ..SimConfig::default()
    });
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    sim.clear_requests();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![401, 200]);
}

#[tokio::test]
async fn a_wrong_key_is_an_authentication_error_after_one_challenge() {
    let sim = sim();
    let c = Client::builder(sim.base_url())
        .credentials(sim.public_key(), "not-the-key")
        .build()
        .unwrap();
    let world = sim.world();
    let err = c
        .hosts()
        .get(&world.hosts[0].group_id, &world.hosts[0].id)
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(401));
    assert!(err.is_unauthorized());
    assert!(!err.to_string().contains("not-the-key"));
    assert!(!format!("{err:?}").contains("not-the-key"));
    assert!(!format!("{c:?}").contains("not-the-key"));
    assert_eq!(
        sim.requests().len(),
        2,
        "unsigned, then signed once: no loop"
    );
}

#[tokio::test]
async fn concurrent_calls_share_the_session() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = world.hosts[0].clone();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..32 {
        let c = c.clone();
        let h = h.clone();
        tasks.push(tokio::spawn(async move {
            c.hosts().get(&h.group_id, &h.id).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    // 33 calls, 34 requests: only the very first one was unsigned.
    assert_eq!(statuses.len(), 34, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 1);
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
    let expected = world.alerts.iter().filter(|a| a.status == "OPEN").count();
    assert_eq!(open.len(), expected);
    assert_eq!(open.total_count(), expected as u64);
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

#[tokio::test]
async fn every_page_is_fetched_in_order() {
    let sim = start(SimConfig {
        global_alerts: 1234,
        ..SimConfig::default()
    });
    let c = client(&sim);
    let all = c
        .global_alerts()
        .list(&GlobalAlertsQuery::new())
        .await
        .unwrap();
    assert_eq!(all.len(), 1234);
    assert_eq!(all.total_count(), 1234);
    let ids: Vec<&str> = all.iter().map(|a| a.id.as_deref().unwrap()).collect();
    let world = sim.world();
    let want: Vec<&str> = world.alerts.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, want, "server order kept across pages");
    let mut pages: Vec<String> = authorized(&sim)
        .iter()
        .map(|r| {
            query_pairs(r)
                .into_iter()
                .find(|(k, _)| k == "pageNum")
                .unwrap()
                .1
        })
        .collect();
    pages.sort();
    assert_eq!(pages, vec!["1", "2", "3"]);

    // The lazy stream gives the same items.
    let streamed: Vec<_> = c
        .global_alerts()
        .stream(&GlobalAlertsQuery::new())
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len(), 1234);
    assert_eq!(streamed[1233].id, all[1233].id);
}

#[tokio::test]
async fn a_repeated_page_or_a_wrong_total_is_an_error_not_a_short_list() {
    let sim = start(SimConfig {
        global_alerts: 1500,
        ..SimConfig::default()
    });
    let c = client(&sim);
    c.groups().list().await.unwrap();
    sim.inject(Fault::RepeatFirstPage, 1);
    let err = c.global_alerts().list(&GlobalAlertsQuery::new()).await;
    // The repeated page is page 2 or 3 (whichever asked first); either way an error that
    // names the repeated items.
    match err {
        Err(e @ Error::Paging { .. }) => {
            let text = e.to_string();
            // Caught by the page's fingerprint, before the ids are compared.
            assert!(
                text.ends_with("page 2 holds the same items as page 1: the server repeated a page")
                    || text.ends_with(
                        "page 3 holds the same items as page 1: the server repeated a page"
                    ),
                "{text}"
            );
        }
        other => panic!("{:?}", other.map(|l| l.len())),
    }

    sim.clear_injected();
    sim.inject(Fault::WrongTotalCount(1800), 1);
    let err = c
        .global_alerts()
        .list(&GlobalAlertsQuery::new())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
    assert!(
        err.to_string().contains("1800") || err.to_string().contains("1500"),
        "{err}"
    );

    sim.clear_injected();
    sim.inject(Fault::RepeatFirstPage, 1);
    let mut stream = c.global_alerts().stream(&GlobalAlertsQuery::new()).unwrap();
    let mut n = 0;
    let err = loop {
        match stream.try_next().await {
            Ok(Some(_)) => n += 1,
            Ok(None) => panic!("the stream ended after {n} items without error"),
            Err(e) => break e,
        }
    };
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
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
    assert!(sent < chrono::Utc::now());
    assert_eq!(body.as_object().unwrap().len(), 1);

    let for_4h = c
        .global_alerts()
        .acknowledge(
            &target,
            &Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())),
        )
        .await
        .unwrap();
    let left = for_4h.acknowledged_until.unwrap() - chrono::Utc::now();
    assert!(left > chrono::TimeDelta::minutes(239) && left <= chrono::TimeDelta::hours(4));
}

#[tokio::test]
async fn open_alerts_of_a_configuration() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let (cfg, n) = world
        .alert_configs
        .iter()
        .map(|cfg| {
            let n = world
                .alerts
                .iter()
                .filter(|a| a.alert_config_id == cfg.id && a.status == "OPEN")
                .count();
            (cfg, n)
        })
        .max_by_key(|(_, n)| *n)
        .unwrap();
    assert!(n > 0, "the simulator seeds open alerts");
    let alerts = c
        .alert_configs()
        .open_alerts(&cfg.group_id, &cfg.id)
        .await
        .unwrap();
    assert_eq!(alerts.len(), n);
    assert!(alerts
        .iter()
        .all(|a| a.alert_config_id.as_deref() == Some(cfg.id.as_str())
            && a.status == Some(AlertStatus::Open)));
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(
        req.path,
        format!(
            "{API}/groups/{}/alertConfigs/{}/alerts",
            cfg.group_id, cfg.id
        )
    );
}

#[tokio::test]
async fn events_with_and_without_raw() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let e = &world.events[0];
    let plain = c.events().get(&e.group_id, &e.id, false).await.unwrap();
    assert_eq!(plain.id.as_deref(), Some(e.id.as_str()));
    assert_eq!(
        plain.event_type_name.as_deref(),
        Some(e.event_type_name.as_str())
    );
    assert_eq!(plain.raw, None);
    assert_eq!(authorized(&sim).pop().unwrap().query, None);
    let raw = c.events().get(&e.group_id, &e.id, true).await.unwrap();
    assert!(raw.raw.is_some());
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(
        req.path,
        format!("{API}/groups/{}/events/{}", e.group_id, e.id)
    );
    assert_eq!(req.query.as_deref(), Some("includeRaw=true"));
}

#[tokio::test]
async fn delete_an_access_list_entry_twice() {
    let sim = sim();
    let c = client(&sim);
    let id = sim.world().access_list[0].id.clone();
    c.access_list().delete(&id).await.unwrap();
    let req = authorized(&sim).pop().unwrap();
    assert_eq!((req.method.as_str(), req.status), ("DELETE", 204));
    assert_eq!(req.path, format!("{API}/admin/accessList/{id}"));
    let err = c.access_list().delete(&id).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert_eq!(err.error_code(), Some("ACCESS_LIST_NOT_FOUND"));
}

#[tokio::test]
async fn host_and_disk_measurements_with_repeated_m() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    let q = MeasurementsQuery::period(Granularity::PT1M, "PT1H".parse().unwrap())
        .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
    let m = c.measurements().host(&h.group_id, &h.id, &q).await.unwrap();
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(
        req.path,
        format!("{API}/groups/{}/hosts/{}/measurements", h.group_id, h.id)
    );
    assert_eq!(
        query_pairs(&req),
        vec![
            ("granularity".into(), "PT1M".into()),
            ("period".into(), "PT1H".into()),
            ("m".into(), "CONNECTIONS".into()),
            ("m".into(), "OPCOUNTER_CMD".into()),
        ]
    );
    let names: Vec<&str> = m.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"CONNECTIONS") && names.contains(&"OPCOUNTER_CMD"));
    let ops = m.get("OPCOUNTER_CMD").unwrap();
    assert!(ops.len() >= 59);
    assert_eq!(
        ops.values[0], None,
        "the first point of a rate series is null"
    );
    assert!(ops.values[1..].iter().filter(|v| v.is_some()).count() > ops.len() / 2);
    assert!(ops.timestamps.windows(2).all(|w| w[1] - w[0] == 60_000));
    assert_eq!(m.group_id.as_deref(), Some(h.group_id.as_str()));

    let part = &h.partitions[0].name;
    let start = opsapi::query::parse_timestamp("start", "2024-05-01T00:00:00Z").unwrap();
    let end = opsapi::query::parse_timestamp("end", "2024-05-02T00:00:00Z").unwrap();
    let q = MeasurementsQuery::range(Granularity::PT1H, start, end)
        .metrics(["DISK_PARTITION_SPACE_USED"]);
    let d = c
        .measurements()
        .disk(&h.group_id, &h.id, part, &q)
        .await
        .unwrap();
    assert_eq!(d.partition_name.as_deref(), Some(part.as_str()));
    let used = d.get("DISK_PARTITION_SPACE_USED").unwrap();
    assert_eq!(used.units.as_deref(), Some("BYTES"));
    assert!(used.len() >= 24);
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(
        req.path,
        format!(
            "{API}/groups/{}/hosts/{}/disks/{part}/measurements",
            h.group_id, h.id
        )
    );
    assert_eq!(
        query_pairs(&req),
        vec![
            ("granularity".into(), "PT1H".into()),
            ("start".into(), "2024-05-01T00:00:00Z".into()),
            ("end".into(), "2024-05-02T00:00:00Z".into()),
            ("m".into(), "DISK_PARTITION_SPACE_USED".into()),
        ]
    );
}

#[tokio::test]
async fn listings_find_every_identifier() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let groups = c.groups().list().await.unwrap();
    assert_eq!(groups.len(), world.projects.len());
    let g = groups[0].id.clone().unwrap();
    let hosts = c.hosts().list(&g).await.unwrap();
    let want: Vec<&str> = world
        .hosts
        .iter()
        .filter(|h| h.group_id == g)
        .map(|h| h.id.as_str())
        .collect();
    let got: Vec<&str> = hosts.iter().map(|h| h.id.as_deref().unwrap()).collect();
    assert_eq!(got, want);
    let h = world.hosts.iter().find(|h| h.group_id == g).unwrap();
    let parts = c.hosts().partitions(&g, &h.id).await.unwrap();
    let want: Vec<&str> = h.partitions.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(parts, want);
    let configs = c.alert_configs().list(&g).await.unwrap();
    assert!(!configs.is_empty());
    let events = c.events().list(&g).await.unwrap();
    assert!(
        events.windows(2).all(|w| w[0].created >= w[1].created),
        "newest first"
    );
}

#[tokio::test]
async fn argument_errors_are_raised_before_any_request() {
    let sim = sim();
    let c = client(&sim);
    let arg = |e: Error| match e {
        Error::InvalidArgument { argument, .. } => argument,
        other => panic!("{other:?}"),
    };
    assert_eq!(arg(c.hosts().get("", "h").await.unwrap_err()), "group_id");
    assert_eq!(arg(c.hosts().get("g", "..").await.unwrap_err()), "host_id");
    assert_eq!(
        arg(c.events().get("g", " ", false).await.unwrap_err()),
        "event_id"
    );
    assert_eq!(
        arg(c.access_list().delete("").await.unwrap_err()),
        "entry_id"
    );
    let q = MeasurementsQuery::range(
        Granularity::PT1M,
        opsapi::query::parse_timestamp("s", "2024-01-02T00:00:00Z").unwrap(),
        opsapi::query::parse_timestamp("e", "2024-01-01T00:00:00Z").unwrap(),
    );
    assert_eq!(
        arg(c.measurements().host("g", "h", &q).await.unwrap_err()),
        "start"
    );
    assert_eq!(
        arg(c
            .global_alerts()
            .list(&GlobalAlertsQuery::new().status(AlertStatus::Cancelled))
            .await
            .unwrap_err()),
        "status"
    );
    assert!(sim.requests().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn identifiers_cannot_change_the_path() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let g = &world.hosts[0].group_id;
    for evil in ["x/../../admin/accessList", "a?b=c", "a#frag", "100%", "a b"] {
        let err = c.hosts().get(g, evil).await.unwrap_err();
        assert_eq!(err.error_code(), Some("HOST_NOT_FOUND"), "{evil}: {err}");
    }
    let paths: Vec<String> = authorized(&sim).into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        vec![
            format!("{API}/groups/{g}/hosts/x%2F..%2F..%2Fadmin%2FaccessList"),
            format!("{API}/groups/{g}/hosts/a%3Fb%3Dc"),
            format!("{API}/groups/{g}/hosts/a%23frag"),
            format!("{API}/groups/{g}/hosts/100%25"),
            format!("{API}/groups/{g}/hosts/a%20b"),
        ]
    );
    assert!(authorized(&sim).iter().all(|r| r.query.is_none()));
}

#[tokio::test]
async fn not_found_errors_carry_the_api_body() {
    let sim = sim();
    let c = client(&sim);
    let g = sim.group_ids()[0].clone();
    let err = c.hosts().get(&g, "nope").await.unwrap_err();
    let api = err.api().unwrap();
    assert_eq!(api.status, 404);
    assert_eq!(api.error_code.as_deref(), Some("HOST_NOT_FOUND"));
    assert_eq!(api.reason.as_deref(), Some("Not Found"));
    assert!(api.detail.as_deref().unwrap().contains("nope"));
    assert!(api.body.contains("HOST_NOT_FOUND"));
    let h = sim.world().hosts[0].clone();
    let q = MeasurementsQuery::period(Granularity::PT1M, "PT1H".parse().unwrap())
        .metrics(["NOT_A_METRIC"]);
    let err = c
        .measurements()
        .host(&h.group_id, &h.id, &q)
        .await
        .unwrap_err();
    assert_eq!(
        (err.status(), err.error_code()),
        (Some(404), Some("INVALID_METRIC_NAME"))
    );
}

#[tokio::test]
async fn transient_faults_are_retried_and_others_are_not() {
    let sim = sim();
    let c = client(&sim);
    let h = sim.world().hosts[0].clone();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();

    for status in [429, 502, 503, 504] {
        sim.clear_requests();
        sim.inject(
            Fault::Status {
                status,
                retry_after: if status == 429 { Some(0) } else { None },
            },
            2,
        );
        c.hosts().get(&h.group_id, &h.id).await.unwrap();
        let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
        assert_eq!(statuses, vec![status, status, 200], "{status}");
    }

    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 500,
            retry_after: None,
        },
        1,
    );
    let err = c.hosts().get(&h.group_id, &h.id).await.unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert_eq!(sim.requests().len(), 1, "500 is not retried");

    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        10,
    );
    let err = c.hosts().get(&h.group_id, &h.id).await.unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(sim.requests().len(), 4, "1 + max_retries (3)");
    sim.clear_injected();

    sim.clear_requests();
    sim.inject(Fault::Truncate, 1);
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert_eq!(sim.requests().len(), 2, "a cut body on GET is retried");

    sim.clear_requests();
    sim.inject(Fault::Reset, 1);
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert!(sim.requests().len() >= 2, "a reset on GET is retried");
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let sim = sim();
    let c = client(&sim);
    let h = sim.world().hosts[0].clone();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(1),
        },
        1,
    );
    let t = std::time::Instant::now();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );

    let impatient = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .max_retry_wait(Duration::from_millis(500))
        .build()
        .unwrap();
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(30),
        },
        1,
    );
    let t = std::time::Instant::now();
    let err = impatient.hosts().get(&h.group_id, &h.id).await.unwrap_err();
    assert_eq!(err.status(), Some(429));
    assert_eq!(
        err.api().unwrap().retry_after,
        Some(Duration::from_secs(30))
    );
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn timeouts_and_refused_connections_are_transport_errors() {
    let sim = start(SimConfig {
        faults: Faults {
            latency: Duration::from_millis(500),
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let c = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let err = c.groups().list().await.unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let c = Client::builder(format!("http://127.0.0.1:{port}"))
        .credentials("a", "b")
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let err = c.groups().list().await.unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
}

#[tokio::test]
async fn the_read_only_key_cannot_write() {
    let sim = sim();
    let ro = Client::builder(sim.base_url())
        .credentials(sim.read_only_public_key(), sim.read_only_private_key())
        .build()
        .unwrap();
    let world = sim.world();
    let target = world.alerts[0].id.clone();
    let err = ro.global_alerts().unacknowledge(&target).await.unwrap_err();
    assert_eq!(err.status(), Some(401));
    assert_eq!(err.error_code(), Some("USER_UNAUTHORIZED"));
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        vec![401, 401],
        "a role refusal is not re-challenged"
    );
}

#[cfg(feature = "frames")]
#[tokio::test]
async fn a_fresh_client_pulling_concurrently_is_challenged_once() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let targets: Vec<opsapi::frame::Target> = world
        .hosts
        .iter()
        .take(10)
        .map(|h| opsapi::frame::Target::host(&h.group_id, &h.id))
        .collect();
    let q = MeasurementsQuery::period(Granularity::PT1H, "PT6H".parse().unwrap())
        .metrics(["CONNECTIONS"]);
    c.measurements()
        .fleet(&targets, &q, &opsapi::frame::FleetOptions::new())
        .await
        .unwrap();
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses.len(), 11, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 1);
}
