//! Alert configurations of a project and their open alerts.

use crate::client::Client;
use crate::error::Result;
use crate::flavour::Operation;
use crate::models::{Alert, AlertConfig};
use crate::paging::{list_all, AlertList, List};
use crate::request::Request;

/// `client.alert_configs()`
#[derive(Debug, Clone, Copy)]
pub struct AlertConfigs<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/alertConfigs/{alert_config_id}/alerts`.
pub fn open_alerts_request(group_id: &str, alert_config_id: &str) -> Result<Request> {
    Operation::AlertConfigsOpenAlerts.request(&[group_id, alert_config_id])
}

/// `GET /groups/{group_id}/alertConfigs`.
pub fn list_request(group_id: &str) -> Result<Request> {
    Operation::AlertConfigsList.request(&[group_id])
}

/// `GET /groups/{group_id}/alertConfigs/{alert_config_id}`.
///
/// ```
/// let req = opsapi::api::alert_configs::get_request("5e9f", "5730").unwrap();
/// assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/groups/5e9f/alertConfigs/5730"));
/// ```
pub fn get_request(group_id: &str, alert_config_id: &str) -> Result<Request> {
    Operation::AlertConfigsGet.request(&[group_id, alert_config_id])
}

impl AlertConfigs<'_> {
    /// The open alerts of one alert configuration:
    /// `GET /groups/{group_id}/alertConfigs/{alert_config_id}/alerts`, every page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let alerts = client.alert_configs().open_alerts("5e9f...", "5730...").await?;
    /// for a in &alerts { println!("{:?} {:?}", a.metric_name, a.current_value); }
    /// # Ok(()) }
    /// ```
    pub async fn open_alerts(
        &self,
        group_id: &str,
        alert_config_id: &str,
    ) -> Result<AlertList<Alert>> {
        list_all(self.client, open_alerts_request(group_id, alert_config_id)?).await
    }

    /// The alert configurations of a project: `GET /groups/{group_id}/alertConfigs`.
    pub async fn list(&self, group_id: &str) -> Result<List<AlertConfig>> {
        list_all(self.client, list_request(group_id)?).await
    }

    /// One alert configuration of a project:
    /// `GET /groups/{group_id}/alertConfigs/{alert_config_id}`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let config = client.alert_configs().get("5e9f...", "5730...").await?;
    /// println!("{:?} {:?}", config.event_type_name, config.metric_threshold);
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, group_id: &str, alert_config_id: &str) -> Result<AlertConfig> {
        let req = get_request(group_id, alert_config_id)?;
        self.client.send_decoded(req).await
    }
}
