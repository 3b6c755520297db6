//! The global API access list.

use reqwest::Method;

use crate::client::{Client, PathBuilder, Request};
use crate::error::Result;
use crate::models::AccessListEntry;
use crate::paging::{list_all, List};

/// `client.access_list()`
#[derive(Debug, Clone, Copy)]
pub struct AccessList<'c> {
    pub(crate) client: &'c Client,
}

impl AccessList<'_> {
    /// Deletes an entry: `DELETE /admin/accessList/{entry_id}` (204, no body).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// client.access_list().delete("5f4a...").await?;
    /// # Ok(()) }
    /// ```
    pub async fn delete(&self, entry_id: &str) -> Result<()> {
        let path = PathBuilder::new()
            .lit("admin")
            .lit("accessList")
            .id("entry_id", entry_id)?
            .finish();
        let req = Request {
            method: Method::DELETE,
            path,
            query: Vec::new(),
            body: None,
        };
        self.client.execute(&req).await?;
        Ok(())
    }

    /// Every entry: `GET /admin/accessList`, every page.
    pub async fn list(&self) -> Result<List<AccessListEntry>> {
        let path = PathBuilder::new().lit("admin").lit("accessList").finish();
        list_all(self.client, Request::get(path)).await
    }
}
