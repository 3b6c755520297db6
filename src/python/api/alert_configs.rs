//! `client.alert_configs`: alert configurations of a project and their open alerts.

use pyo3::prelude::*;

use super::{handle_pair, twins};
use crate::python::args;
use crate::python::models::{AlertConfig, AlertList};
use crate::python::runtime::dispatch;

handle_pair!(
    /// Alert configurations of a project.
    AlertConfigs,
    AsyncAlertConfigs
);

fn open_alerts(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    alert_config_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let alert_config_id = args::text(py, "alert_config_id", alert_config_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        let list = c
            .alert_configs()
            .open_alerts(&group_id, &alert_config_id)
            .await?;
        Ok(AlertList::from(list))
    })
}

twins! {
    /// The open alerts of one alert configuration, every page (an `AlertList`).
    ///
    AlertConfigs
    /// >>> alerts = client.alert_configs.open_alerts(group_id, config_id)  # doctest: +SKIP
    /// >>> alerts.to_polars()  # doctest: +SKIP
    AsyncAlertConfigs
    /// >>> alerts = await client.alert_configs.open_alerts(group_id, config_id)  # doctest: +SKIP
    fn open_alerts(group_id: &Bound<'_, PyAny>, alert_config_id: &Bound<'_, PyAny>) => open_alerts
}

fn list(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        let list = c.alert_configs().list(&group_id).await?;
        Ok(list
            .into_vec()
            .into_iter()
            .map(AlertConfig::from)
            .collect::<Vec<_>>())
    })
}

twins! {
    /// The alert configurations of a project, every page.
    ///
    AlertConfigs
    /// >>> [c.event_type_name for c in client.alert_configs.list(group_id)]  # doctest: +SKIP
    AsyncAlertConfigs
    /// >>> configs = await client.alert_configs.list(group_id)  # doctest: +SKIP
    fn list(group_id: &Bound<'_, PyAny>) => list
}
