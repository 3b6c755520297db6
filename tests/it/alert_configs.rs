//! `client.alert_configs()`: the open alerts of one alert configuration.

use opsapi::AlertStatus;

use crate::common::{authorized, client, sim, API};

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
