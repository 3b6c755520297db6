//! Project events.

use crate::client::Client;
use crate::error::Result;
use crate::flavour::Operation;
use crate::models::Event;
use crate::paging::{list_all, List};
use crate::request::{PathBuilder, Request};

/// `client.events()`
#[derive(Debug, Clone, Copy)]
pub struct Events<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/events/{event_id}`, with `includeRaw=true` when `include_raw`.
///
/// ```
/// let req = opsapi::api::events::get_request("g", "e", true).unwrap();
/// assert_eq!(req.path, "/groups/g/events/e");
/// assert_eq!(req.query, vec![("includeRaw", "true".to_string())]);
/// ```
pub fn get_request(group_id: &str, event_id: &str, include_raw: bool) -> Result<Request> {
    let path = PathBuilder::new()
        .lit("groups")
        .id("group_id", group_id)?
        .lit("events")
        .id("event_id", event_id)?
        .finish();
    let req = Request::get(Operation::EventsGet, path);
    Ok(if include_raw {
        req.query([("includeRaw", "true".to_string())])
    } else {
        req
    })
}

/// `GET /groups/{group_id}/events`.
pub fn list_request(group_id: &str) -> Result<Request> {
    let path = PathBuilder::new()
        .lit("groups")
        .id("group_id", group_id)?
        .lit("events")
        .finish();
    Ok(Request::get(Operation::EventsList, path))
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
        let req = get_request(group_id, event_id, include_raw)?;
        self.client.send_decoded(req).await
    }

    /// Every event of a project, newest first: `GET /groups/{group_id}/events`.
    pub async fn list(&self, group_id: &str) -> Result<List<Event>> {
        list_all(self.client, list_request(group_id)?).await
    }
}
