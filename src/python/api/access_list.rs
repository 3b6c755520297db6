//! `client.access_list`: the global API access list.

use pyo3::prelude::*;

use super::{handle_pair, twins};
use crate::python::args;
use crate::python::models::AccessListEntry;
use crate::python::runtime::{dispatch, NoneResult};

handle_pair!(
    /// The global API access list (`/admin/accessList`).
    AccessList,
    AsyncAccessList
);

fn delete(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    entry_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let entry_id = args::text(py, "entry_id", entry_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        c.access_list().delete(&entry_id).await.map(|()| NoneResult)
    })
}

twins! {
    /// Deletes an entry: `DELETE /admin/accessList/{entry_id}`; returns None.
    ///
    AccessList
    /// >>> client.access_list.delete("5f4a1e7e0f2912c554080adc")  # doctest: +SKIP
    AsyncAccessList
    /// >>> await client.access_list.delete("5f4a1e7e0f2912c554080adc")  # doctest: +SKIP
    fn delete(entry_id: &Bound<'_, PyAny>) => delete
}

fn list(py: Python<'_>, c: &crate::Client, is_async: bool) -> PyResult<Py<PyAny>> {
    let c = c.clone();
    dispatch(py, is_async, async move {
        let list = c.access_list().list().await?;
        Ok(list
            .into_vec()
            .into_iter()
            .map(AccessListEntry::from)
            .collect::<Vec<_>>())
    })
}

twins! {
    /// Every entry: `GET /admin/accessList`, every page.
    ///
    AccessList
    /// >>> [e.cidr_block for e in client.access_list.list()]  # doctest: +SKIP
    AsyncAccessList
    /// >>> [e.cidr_block for e in await client.access_list.list()]  # doctest: +SKIP
    fn list() => list
}
