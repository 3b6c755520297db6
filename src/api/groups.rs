//! Projects (the API's groups).

use crate::client::Client;
use crate::error::Result;
use crate::flavour::Operation;
use crate::models::Group;
use crate::paging::{list_all, List};
use crate::request::Request;

/// `client.groups()`
#[derive(Debug, Clone, Copy)]
pub struct Groups<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups`.
pub fn list_request() -> Request {
    Operation::GroupsList.fixed_request()
}

/// `GET /groups/{group_id}`.
pub fn get_request(group_id: &str) -> Result<Request> {
    Operation::GroupsGet.request(&[group_id])
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
