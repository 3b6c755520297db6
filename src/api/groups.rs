//! Projects (the API's groups).

use crate::client::{Client, PathBuilder, Request};
use crate::error::Result;
use crate::models::Group;
use crate::paging::{list_all, List};

/// `client.groups()`
#[derive(Debug, Clone, Copy)]
pub struct Groups<'c> {
    pub(crate) client: &'c Client,
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
        list_all(
            self.client,
            Request::get(PathBuilder::new().lit("groups").finish()),
        )
        .await
    }

    /// One project: `GET /groups/{group_id}`.
    pub async fn get(&self, group_id: &str) -> Result<Group> {
        let path = PathBuilder::new()
            .lit("groups")
            .id("group_id", group_id)?
            .finish();
        self.client.get_model(Request::get(path)).await
    }
}
