//! `client.groups`: projects.

use pyo3::prelude::*;

use super::{handle_pair, twins};
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

twins! {
    /// Every project the key can see, every page.
    ///
    Groups
    /// >>> [g.name for g in client.groups.list()]  # doctest: +SKIP
    AsyncGroups
    /// >>> [g.name for g in await client.groups.list()]  # doctest: +SKIP
    fn list() => list
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

twins! {
    /// One project: `GET /groups/{group_id}`.
    ///
    Groups
    /// >>> client.groups.get(group_id).name  # doctest: +SKIP
    AsyncGroups
    /// >>> (await client.groups.get(group_id)).name  # doctest: +SKIP
    fn get(group_id: &Bound<'_, PyAny>) => get
}
