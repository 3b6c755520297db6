//! `client.access_list`: the global API access list.

use pyo3::prelude::*;

use super::handle_pair;
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

#[pymethods]
impl AccessList {
    /// Deletes an entry: `DELETE /admin/accessList/{entry_id}`; returns None.
    ///
    /// >>> client.access_list.delete("5f4a1e7e0f2912c554080adc")  # doctest: +SKIP
    fn delete(&self, py: Python<'_>, entry_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        delete(py, &self.client, false, entry_id)
    }
}

#[pymethods]
impl AsyncAccessList {
    /// Deletes an entry: `DELETE /admin/accessList/{entry_id}`; returns None.
    ///
    /// >>> await client.access_list.delete("5f4a1e7e0f2912c554080adc")  # doctest: +SKIP
    fn delete(&self, py: Python<'_>, entry_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        delete(py, &self.client, true, entry_id)
    }
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

#[pymethods]
impl AccessList {
    /// Every entry: `GET /admin/accessList`, every page.
    ///
    /// >>> [e.cidr_block for e in client.access_list.list()]  # doctest: +SKIP
    fn list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        list(py, &self.client, false)
    }
}

#[pymethods]
impl AsyncAccessList {
    /// Every entry: `GET /admin/accessList`, every page.
    ///
    /// >>> [e.cidr_block for e in await client.access_list.list()]  # doctest: +SKIP
    fn list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        list(py, &self.client, true)
    }
}
