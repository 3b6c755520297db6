//! `client.hosts`: hosts of a project, their disk partitions and their databases.

use pyo3::prelude::*;

use super::{handle_pair, twins};
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

twins! {
    /// One host: `GET /groups/{group_id}/hosts/{host_id}`.
    ///
    Hosts
    /// >>> client.hosts.get(group_id, host_id).replica_state_name  # doctest: +SKIP
    /// 'PRIMARY'
    AsyncHosts
    /// >>> (await client.hosts.get(group_id, host_id)).replica_state_name  # doctest: +SKIP
    /// 'PRIMARY'
    fn get(group_id: &Bound<'_, PyAny>, host_id: &Bound<'_, PyAny>) => get
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

twins! {
    /// Every host of a project, every page (a `HostList`).
    ///
    Hosts
    /// >>> client.hosts.list(group_id).to_polars()  # doctest: +SKIP
    AsyncHosts
    /// >>> hosts = await client.hosts.list(group_id)  # doctest: +SKIP
    fn list(group_id: &Bound<'_, PyAny>) => list
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

twins! {
    /// The disk partition names of a host, every page.
    ///
    Hosts
    /// >>> client.hosts.partitions(group_id, host_id)  # doctest: +SKIP
    /// ['data', 'journal']
    AsyncHosts
    /// >>> await client.hosts.partitions(group_id, host_id)  # doctest: +SKIP
    /// ['data', 'journal']
    fn partitions(group_id: &Bound<'_, PyAny>, host_id: &Bound<'_, PyAny>) => partitions
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

twins! {
    /// The database names of a host, every page.
    ///
    Hosts
    /// >>> client.hosts.databases(group_id, host_id)  # doctest: +SKIP
    /// ['admin', 'orders']
    AsyncHosts
    /// >>> await client.hosts.databases(group_id, host_id)  # doctest: +SKIP
    /// ['admin', 'orders']
    fn databases(group_id: &Bound<'_, PyAny>, host_id: &Bound<'_, PyAny>) => databases
}
