//! Projects (the API's groups).

use crate::client::Client;
use crate::error::Result;
use crate::flavour::Operation;
use crate::models::Group;
use crate::paging::{list_all, List};
use crate::request::{PathBuilder, Request};

/// `client.groups()`
#[derive(Debug, Clone, Copy)]
pub struct Groups<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups`.
pub fn list_request() -> Request {
    Request::get(
        Operation::GroupsList,
        PathBuilder::new().lit("groups").finish(),
    )
}

/// `GET /groups/{group_id}`.
pub fn get_request(group_id: &str) -> Result<Request> {
    let path = PathBuilder::new()
        .lit("groups")
        .id("group_id", group_id)?
        .finish();
    Ok(Request::get(Operation::GroupsGet, path))
}

impl Groups<'_> {
    /// Every project the key can see: `GET /groups`, every page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// for g in &client.groups().list().await? { println!("{:?} {:?}", g.id, g.name); }
    /// # Ok(()) }
    /// ```
    pub async fn list(&self) -> Result<List<Group>> {
        list_all(self.client, list_request()).await
    }

    /// One project: `GET /groups/{group_id}`.
    pub async fn get(&self, group_id: &str) -> Result<Group> {
        self.client.send_decoded(get_request(group_id)?).await
    }
}
