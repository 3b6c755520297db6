//! `client.alert_configs()`: the alert configurations of a project, one of them, and the open
//! alerts of one of them.

use opsapi::{AlertConfig, AlertStatus};

use crate::common::{api_error, authorized, seen, sim, warm};

/// `got` is the seeded configuration `want`: its id, project, type, creation and metric
/// threshold (or none).
fn assert_seeded(got: &AlertConfig, want: &opsapi::sim::AlertConfig) {
    assert_eq!(got.id.as_deref(), Some(want.id.as_str()));
    assert_eq!(got.group_id.as_deref(), Some(want.group_id.as_str()));
    assert_eq!(
        got.event_type_name.as_deref(),
        Some(want.event_type_name.as_str())
    );
    assert_eq!(got.created, Some(want.created), "{}", want.id);
    let threshold = got.metric_threshold.as_ref();
    match (&want.metric_name, &want.threshold) {
        (Some(metric), Some((t, units))) => {
            let th = threshold.expect("metricThreshold");
            assert_eq!(th["metricName"], metric.as_str(), "{}", want.id);
            assert_eq!(th["threshold"], *t, "{}", want.id);
            assert_eq!(th["units"], units.as_str(), "{}", want.id);
        }
        _ => assert_eq!(threshold, None, "{}", want.id),
    }
}

#[tokio::test]
async fn list_alert_configs_sends_one_page_request_and_returns_the_seeded_configurations() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let mut lines = Vec::new();
    for p in &world.projects {
        let configs = c.alert_configs().list(&p.id).await.unwrap();
        lines.push(format!(
            "GET /groups/{}/alertConfigs?pageNum=1&itemsPerPage=500 signed 200",
            p.id
        ));
        let want: Vec<&opsapi::sim::AlertConfig> = world
            .alert_configs
            .iter()
            .filter(|c| c.group_id == p.id)
            .collect();
        assert!(!want.is_empty());
        assert_eq!(configs.total_count(), want.len() as u64);
        assert_eq!(configs.len(), want.len());
        for (got, want) in configs.iter().zip(&want) {
            assert_seeded(got, want);
        }
    }
    assert!(
        world.alert_configs.iter().any(|c| c.threshold.is_some())
            && world.alert_configs.iter().any(|c| c.threshold.is_none()),
        "configurations with and without a metric threshold"
    );
    assert_eq!(seen(&sim), lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
}

#[tokio::test]
async fn open_alerts_of_a_configuration() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let (cfg, want) = world
        .alert_configs
        .iter()
        .map(|cfg| {
            let open: Vec<&opsapi::sim::Alert> = world
                .alerts
                .iter()
                .filter(|a| a.alert_config_id == cfg.id && a.status == "OPEN")
                .collect();
            (cfg, open)
        })
        .max_by_key(|(_, open)| open.len())
        .unwrap();
    assert!(want.len() > 1, "the simulator seeds open alerts");
    let alerts = c
        .alert_configs()
        .open_alerts(&cfg.group_id, &cfg.id)
        .await
        .unwrap();
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{}/alertConfigs/{}/alerts?pageNum=1&itemsPerPage=500 signed 200",
            cfg.group_id, cfg.id
        )]
    );
    assert!(authorized(&sim)[0].body.is_empty());
    assert_eq!(alerts.total_count(), want.len() as u64);
    assert_eq!(alerts.len(), want.len());
    for (got, want) in alerts.iter().zip(&want) {
        assert_eq!(got.id.as_deref(), Some(want.id.as_str()));
        assert_eq!(got.alert_config_id.as_deref(), Some(cfg.id.as_str()));
        assert_eq!(got.group_id.as_deref(), Some(cfg.group_id.as_str()));
        assert_eq!(got.status, Some(AlertStatus::Open));
        assert_eq!(got.created, Some(want.created));
        assert_eq!(got.metric_name, want.metric_name);
    }
}

/// Each configuration of a project, one GET each: the seeded configuration (its metric
/// threshold or none), and the one the listing gives.
#[tokio::test]
async fn get_returns_each_seeded_configuration() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let g = &world.projects[0].id;
    let listed = c.alert_configs().list(g).await.unwrap();
    sim.clear_requests();
    let want: Vec<&opsapi::sim::AlertConfig> = world
        .alert_configs
        .iter()
        .filter(|x| &x.group_id == g)
        .collect();
    let mut lines = Vec::new();
    for (want, listed) in want.iter().zip(listed.iter()) {
        let got = c.alert_configs().get(g, &want.id).await.unwrap();
        lines.push(format!(
            "GET /groups/{g}/alertConfigs/{} signed 200",
            want.id
        ));
        assert_seeded(&got, want);
        assert_eq!(&got, listed, "{}: as the listing gives it", want.id);
    }
    assert!(
        want.iter().any(|x| x.threshold.is_some()) && want.iter().any(|x| x.threshold.is_none()),
        "configurations with and without a metric threshold"
    );
    assert_eq!(seen(&sim), lines);
}

/// An unknown configuration, or another project's: 404 `ALERT_CONFIG_NOT_FOUND`, asked once;
/// an empty id is refused before any request, naming the argument.
#[tokio::test]
async fn get_of_an_unknown_configuration_is_not_found() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let (g, other) = (&world.projects[0].id, &world.projects[1].id);
    let theirs = world
        .alert_configs
        .iter()
        .find(|x| &x.group_id == other)
        .unwrap();
    let missing = "0".repeat(24);
    for id in [missing.as_str(), theirs.id.as_str()] {
        let e = c.alert_configs().get(g, id).await.unwrap_err();
        let api = api_error(&e);
        assert_eq!(api.status, 404);
        assert_eq!(api.error_code.as_deref(), Some("ALERT_CONFIG_NOT_FOUND"));
    }
    let e = c.alert_configs().get(g, "").await.unwrap_err();
    assert!(
        matches!(&e, opsapi::Error::InvalidArgument { argument, .. } if argument == "alert_config_id"),
        "{e}"
    );
    assert_eq!(
        seen(&sim),
        [
            format!("GET /groups/{g}/alertConfigs/{missing} signed 404"),
            format!("GET /groups/{g}/alertConfigs/{} signed 404", theirs.id),
        ]
    );
}
