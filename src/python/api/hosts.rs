//! `client.hosts`: hosts of a project, their disk partitions and their databases.

use pyo3::prelude::*;

use super::handle_pair;
use crate::python::args;
use crate::python::models::{Host, HostList};
use crate::python::runtime::dispatch;

handle_pair!(
    /// Hosts of a project.
    Hosts,
    AsyncHosts
);

fn get(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    host_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let host_id = args::text(py, "host_id", host_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Host::from(c.hosts().get(&group_id, &host_id).await?))
    })
}

#[pymethods]
impl Hosts {
    /// One host: `GET /groups/{group_id}/hosts/{host_id}`.
    ///
    /// >>> client.hosts.get(group_id, host_id).replica_state_name  # doctest: +SKIP
    /// 'PRIMARY'
    fn get(
        &self,
        py: Python<'_>,
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        get(py, &self.client, false, group_id, host_id)
    }
}

#[pymethods]
impl AsyncHosts {
    /// One host: `GET /groups/{group_id}/hosts/{host_id}`.
    ///
    /// >>> (await client.hosts.get(group_id, host_id)).replica_state_name  # doctest: +SKIP
    /// 'PRIMARY'
    fn get(
        &self,
        py: Python<'_>,
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        get(py, &self.client, true, group_id, host_id)
    }
}

fn list(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(HostList::from(c.hosts().list(&group_id).await?))
    })
}

#[pymethods]
impl Hosts {
    /// Every host of a project, every page (a `HostList`).
    ///
    /// >>> client.hosts.list(group_id).to_polars()  # doctest: +SKIP
    fn list(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        list(py, &self.client, false, group_id)
    }
}

#[pymethods]
impl AsyncHosts {
    /// Every host of a project, every page (a `HostList`).
    ///
    /// >>> hosts = await client.hosts.list(group_id)  # doctest: +SKIP
    fn list(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        list(py, &self.client, true, group_id)
    }
}

fn partitions(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    host_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let host_id = args::text(py, "host_id", host_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        c.hosts().partitions(&group_id, &host_id).await
    })
}

#[pymethods]
impl Hosts {
    /// The disk partition names of a host, every page.
    ///
    /// >>> client.hosts.partitions(group_id, host_id)  # doctest: +SKIP
    /// ['data', 'journal']
    fn partitions(
        &self,
        py: Python<'_>,
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        partitions(py, &self.client, false, group_id, host_id)
    }
}

#[pymethods]
impl AsyncHosts {
    /// The disk partition names of a host, every page.
    ///
    /// >>> await client.hosts.partitions(group_id, host_id)  # doctest: +SKIP
    /// ['data', 'journal']
    fn partitions(
        &self,
        py: Python<'_>,
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        partitions(py, &self.client, true, group_id, host_id)
    }
}

fn databases(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    host_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let host_id = args::text(py, "host_id", host_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        c.hosts().databases(&group_id, &host_id).await
    })
}

#[pymethods]
impl Hosts {
    /// The database names of a host, every page.
    ///
    /// >>> client.hosts.databases(group_id, host_id)  # doctest: +SKIP
    /// ['admin', 'orders']
    fn databases(
        &self,
        py: Python<'_>,
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        databases(py, &self.client, false, group_id, host_id)
    }
}

#[pymethods]
impl AsyncHosts {
    /// The database names of a host, every page.
    ///
    /// >>> await client.hosts.databases(group_id, host_id)  # doctest: +SKIP
    /// ['admin', 'orders']
    fn databases(
        &self,
        py: Python<'_>,
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        databases(py, &self.client, true, group_id, host_id)
    }
}
