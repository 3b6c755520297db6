//! `client.groups`: projects.

use pyo3::prelude::*;

use super::handle_pair;
use crate::python::args;
use crate::python::models::Group;
use crate::python::runtime::dispatch;

handle_pair!(
    /// Projects (the API's groups).
    Groups,
    AsyncGroups
);

fn list(py: Python<'_>, c: &crate::Client, is_async: bool) -> PyResult<Py<PyAny>> {
    let c = c.clone();
    dispatch(py, is_async, async move {
        let list = c.groups().list().await?;
        Ok(list
            .into_vec()
            .into_iter()
            .map(Group::from)
            .collect::<Vec<_>>())
    })
}

#[pymethods]
impl Groups {
    /// Every project the key can see, every page.
    ///
    /// >>> [g.name for g in client.groups.list()]  # doctest: +SKIP
    fn list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        list(py, &self.client, false)
    }
}

#[pymethods]
impl AsyncGroups {
    /// Every project the key can see, every page.
    ///
    /// >>> [g.name for g in await client.groups.list()]  # doctest: +SKIP
    fn list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        list(py, &self.client, true)
    }
}

fn get(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Group::from(c.groups().get(&group_id).await?))
    })
}

#[pymethods]
impl Groups {
    /// One project: `GET /groups/{group_id}`.
    ///
    /// >>> client.groups.get(group_id).name  # doctest: +SKIP
    fn get(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        get(py, &self.client, false, group_id)
    }
}

#[pymethods]
impl AsyncGroups {
    /// One project: `GET /groups/{group_id}`.
    ///
    /// >>> (await client.groups.get(group_id)).name  # doctest: +SKIP
    fn get(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        get(py, &self.client, true, group_id)
    }
}
