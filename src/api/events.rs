//! Project events.

use crate::client::{Client, PathBuilder, Request};
use crate::error::Result;
use crate::models::Event;
use crate::paging::{list_all, List};

/// `client.events()`
#[derive(Debug, Clone, Copy)]
pub struct Events<'c> {
    pub(crate) client: &'c Client,
}

impl Events<'_> {
    /// One event: `GET /groups/{group_id}/events/{event_id}`, with `includeRaw=true` when
    /// `include_raw` is set.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let e = client.events().get("5e9f...", "5f01...", true).await?;
    /// println!("{:?} {:?}", e.event_type_name, e.raw);
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, group_id: &str, event_id: &str, include_raw: bool) -> Result<Event> {
        let path = PathBuilder::new()
            .lit("groups")
            .id("group_id", group_id)?
            .lit("events")
            .id("event_id", event_id)?
            .finish();
        let mut req = Request::get(path);
        if include_raw {
            req = req.query([("includeRaw", "true".to_string())]);
        }
        self.client.get_model(req).await
    }

    /// Every event of a project, newest first: `GET /groups/{group_id}/events`.
    pub async fn list(&self, group_id: &str) -> Result<List<Event>> {
        let path = PathBuilder::new()
            .lit("groups")
            .id("group_id", group_id)?
            .lit("events")
            .finish();
        list_all(self.client, Request::get(path)).await
    }
}
