//! `client.alert_configs`: alert configurations of a project and their open alerts.

use super::{handle_pair, twins};
use crate::python::models::{AlertConfig, AlertList};

handle_pair!(
    /// Alert configurations of a project.
    AlertConfigs,
    AsyncAlertConfigs
);

twins! {
    /// The open alerts of one alert configuration, every page (an `AlertList`).
    ///
    AlertConfigs
    /// >>> alerts = client.alert_configs.open_alerts(group_id, config_id)  # doctest: +SKIP
    /// >>> alerts.to_polars()  # doctest: +SKIP
    AsyncAlertConfigs
    /// >>> alerts = await client.alert_configs.open_alerts(group_id, config_id)  # doctest: +SKIP
    fn open_alerts(group_id: Text, alert_config_id: Text) -> "AlertList" {
        |c| {
            let configs = c.alert_configs();
            Ok(AlertList::from(configs.open_alerts(&group_id, &alert_config_id).await?))
        }
    }
}

twins! {
    /// The alert configurations of a project, every page.
    ///
    AlertConfigs
    /// >>> [c.event_type_name for c in client.alert_configs.list(group_id)]  # doctest: +SKIP
    AsyncAlertConfigs
    /// >>> configs = await client.alert_configs.list(group_id)  # doctest: +SKIP
    fn list(group_id: Text) -> "list[AlertConfig]" {
        |c| {
            let list = c.alert_configs().list(&group_id).await?;
            Ok(list.into_vec().into_iter().map(AlertConfig::from).collect::<Vec<_>>())
        }
    }
}

twins! {
    /// One alert configuration of a project:
    /// `GET /groups/{group_id}/alertConfigs/{alert_config_id}`.
    ///
    AlertConfigs
    /// >>> client.alert_configs.get(group_id, config_id).event_type_name  # doctest: +SKIP
    AsyncAlertConfigs
    /// >>> (await client.alert_configs.get(group_id, config_id)).enabled  # doctest: +SKIP
    fn get(group_id: Text, alert_config_id: Text) -> "AlertConfig" {
        |c| Ok(AlertConfig::from(c.alert_configs().get(&group_id, &alert_config_id).await?))
    }
}
