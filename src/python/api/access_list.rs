//! `client.access_list`: the global API access list.

use super::{handle_pair, twins};
use crate::python::models::AccessListEntry;
use crate::python::runtime::NoneResult;

handle_pair!(
    /// The global API access list (`/admin/accessList`).
    AccessList,
    AsyncAccessList
);

twins! {
    /// Deletes an entry: `DELETE /admin/accessList/{entry_id}`; returns None.
    ///
    AccessList
    /// >>> client.access_list.delete("5f4a1e7e0f2912c554080adc")  # doctest: +SKIP
    AsyncAccessList
    /// >>> await client.access_list.delete("5f4a1e7e0f2912c554080adc")  # doctest: +SKIP
    fn delete(entry_id: Text) -> "None" {
        |c| c.access_list().delete(&entry_id).await.map(|()| NoneResult)
    }
}

twins! {
    /// Every entry: `GET /admin/accessList`, every page.
    ///
    AccessList
    /// >>> [e.cidr_block for e in client.access_list.list()]  # doctest: +SKIP
    AsyncAccessList
    /// >>> [e.cidr_block for e in await client.access_list.list()]  # doctest: +SKIP
    fn list() -> "list[AccessListEntry]" {
        |c| {
            let list = c.access_list().list().await?;
            Ok(list.into_vec().into_iter().map(AccessListEntry::from).collect::<Vec<_>>())
        }
    }
}
