//! The global API access list.

use crate::client::Client;
use crate::error::Result;
use crate::flavour::Operation;
use crate::models::AccessListEntry;
use crate::paging::{list_all, List};
use crate::request::Request;

/// `client.access_list()`
#[derive(Debug, Clone, Copy)]
pub struct AccessList<'c> {
    pub(crate) client: &'c Client,
}

/// `DELETE /admin/accessList/{entry_id}`.
///
/// ```
/// use opsapi::{api::access_list::delete_request, Method};
/// let req = delete_request("5f4a?x").unwrap();
/// assert_eq!((req.method, req.path.as_str()), (Method::DELETE, "/admin/accessList/5f4a%3Fx"));
/// ```
pub fn delete_request(entry_id: &str) -> Result<Request> {
    Operation::AccessListDelete.request(&[entry_id])
}

/// `GET /admin/accessList` (paging parameters are added per page).
pub fn list_request() -> Request {
    Operation::AccessListList.fixed_request()
}

impl AccessList<'_> {
    /// Deletes an entry: `DELETE /admin/accessList/{entry_id}` (204, no body). A DELETE
    /// retried after a fault that may have reached the server, which then answers 404, is a
    /// success: the first attempt deleted the entry.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// client.access_list().delete("5f4a...").await?;
    /// # Ok(()) }
    /// ```
    pub async fn delete(&self, entry_id: &str) -> Result<()> {
        let req = delete_request(entry_id)?;
        let resp = self.client.execute(&req).await?;
        // The API answers 204 No Content. A 2xx whose body is not JSON (a proxy's sign-in
        // page answered 200) did not reach the API: not a deletion, a decode error that
        // shows the page.
        let empty = resp.body.iter().all(u8::is_ascii_whitespace);
        if !empty && serde_json::from_slice::<serde::de::IgnoredAny>(&resp.body).is_err() {
            let e = "expected no body (204 No Content), found text that is not JSON";
            return Err(crate::error::decode_error(
                &req.path,
                String::new(),
                &e,
                &resp.body,
            ));
        }
        Ok(())
    }

    /// Every entry: `GET /admin/accessList`, every page.
    pub async fn list(&self) -> Result<List<AccessListEntry>> {
        list_all(self.client, list_request()).await
    }
}
