//! Global alerts: list, read, acknowledge, un-acknowledge.

use futures_util::Stream;
use reqwest::Method;

use crate::client::{Client, PathBuilder, Request};
use crate::error::Result;
use crate::models::GlobalAlert;
use crate::paging::{list_all, stream_all, AlertList};
use crate::query::{Acknowledgement, GlobalAlertsQuery};

/// `client.global_alerts()`
#[derive(Debug, Clone, Copy)]
pub struct GlobalAlerts<'c> {
    pub(crate) client: &'c Client,
}

fn list_request(query: &GlobalAlertsQuery) -> Result<Request> {
    query.validate()?;
    Ok(Request::get(PathBuilder::new().lit("globalAlerts").finish()).query(query.to_pairs()))
}

fn alert_path(alert_id: &str) -> Result<String> {
    Ok(PathBuilder::new()
        .lit("globalAlerts")
        .id("alert_id", alert_id)?
        .finish())
}

impl GlobalAlerts<'_> {
    /// Every global alert matching `query`: `GET /globalAlerts`, every page (fetched
    /// concurrently once `totalCount` is known).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AlertStatus, GlobalAlertsQuery};
    /// let open = client.global_alerts().list(&GlobalAlertsQuery::new().status(AlertStatus::Open)).await?;
    /// println!("{} open alerts", open.total_count());
    /// # Ok(()) }
    /// ```
    pub async fn list(&self, query: &GlobalAlertsQuery) -> Result<AlertList<GlobalAlert>> {
        list_all(self.client, list_request(query)?).await
    }

    /// The same alerts as a lazy stream, page by page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use futures_util::TryStreamExt;
    /// let mut alerts = client.global_alerts().stream(&Default::default())?;
    /// while let Some(alert) = alerts.try_next().await? {
    ///     println!("{:?}", alert.id);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn stream(
        &self,
        query: &GlobalAlertsQuery,
    ) -> Result<impl Stream<Item = Result<GlobalAlert>> + Send + Unpin + 'static> {
        Ok(Box::pin(stream_all(
            self.client.clone(),
            list_request(query)?,
        )))
    }

    /// One global alert: `GET /globalAlerts/{alert_id}`.
    pub async fn get(&self, alert_id: &str) -> Result<GlobalAlert> {
        self.client
            .get_model(Request::get(alert_path(alert_id)?))
            .await
    }

    /// Acknowledges an alert: `PATCH /globalAlerts/{alert_id}` with `acknowledgedUntil`
    /// (and `acknowledgementComment`); the server answers 201 with the alert.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("disk resize under way");
    /// let alert = client.global_alerts().acknowledge("5e4c...", &ack).await?;
    /// println!("acknowledged until {:?}", alert.acknowledged_until);
    /// # Ok(()) }
    /// ```
    pub async fn acknowledge(&self, alert_id: &str, ack: &Acknowledgement) -> Result<GlobalAlert> {
        ack.validate()?;
        let path = alert_path(alert_id)?;
        let body = ack.to_body(chrono::Utc::now())?;
        let req = Request {
            method: Method::PATCH,
            path,
            query: Vec::new(),
            body: Some(serde_json::to_vec(&body).map_err(|e| crate::Error::Config(e.to_string()))?),
        };
        let resp = self.client.execute(&req).await?;
        crate::decode::decode_object_at(&req.path, &resp.body)
    }

    /// Un-acknowledges an alert by sending an `acknowledgedUntil` in the past.
    pub async fn unacknowledge(&self, alert_id: &str) -> Result<GlobalAlert> {
        self.acknowledge(alert_id, &Acknowledgement::unacknowledge())
            .await
    }
}
