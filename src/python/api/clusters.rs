//! `client.clusters`: the clusters of projects.

use pyo3::prelude::*;

use super::{handle_pair, twins};
use crate::api::clusters::list_all_requests;
use crate::python::args;
use crate::python::errors::to_py_err;
use crate::python::models::{Cluster, ClusterList};
use crate::python::runtime::dispatch;

handle_pair!(
    /// Clusters of projects: replica sets and sharded clusters (`/groups/{group_id}/clusters`).
    Clusters,
    AsyncClusters
);

fn list(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(ClusterList::from(c.clusters().list(&group_id).await?))
    })
}

twins! {
    /// Every cluster of a project, every page (a `ClusterList`). Ops Manager and Cloud
    /// Manager list a sharded cluster and each replica set within it (its shards', its config
    /// servers'), named after it; Atlas each cluster once, with its configuration.
    ///
    Clusters
    /// >>> client.clusters.list(group_id).to_polars()  # doctest: +SKIP
    AsyncClusters
    /// >>> clusters = await client.clusters.list(group_id)  # doctest: +SKIP
    fn list(group_id: &Bound<'_, PyAny>) => list
}

fn get(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    cluster: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let cluster = args::text(py, "cluster", cluster)?;
    crate::api::clusters::get_request(&group_id, &cluster).map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Cluster::from(c.clusters().get(&group_id, &cluster).await?))
    })
}

twins! {
    /// One cluster: `GET /groups/{group_id}/clusters/{cluster}`, `cluster` its id on Ops
    /// Manager and Cloud Manager, its name on Atlas.
    ///
    Clusters
    /// >>> client.clusters.get(group_id, "orders").instance_size  # doctest: +SKIP
    /// 'M30'
    AsyncClusters
    /// >>> (await client.clusters.get(group_id, "orders")).instance_size  # doctest: +SKIP
    /// 'M30'
    fn get(group_id: &Bound<'_, PyAny>, cluster: &Bound<'_, PyAny>) => get
}

fn list_all(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    groups: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let groups = match groups.filter(|g| !g.is_none()) {
        Some(g) => Some(args::texts(py, "groups", "a list of project ids", g)?),
        None => None,
    };
    if let Some(g) = &groups {
        list_all_requests(g).map_err(|e| to_py_err(py, e))?;
    }
    let c = c.clone();
    dispatch(py, is_async, async move {
        let ids: Option<Vec<&str>> = groups
            .as_ref()
            .map(|g| g.iter().map(String::as_str).collect());
        Ok(ClusterList::from(
            c.clusters().list_all(ids.as_deref()).await?,
        ))
    })
}

twins! {
    /// The clusters of every project the key can see (or of the projects in `groups`), the
    /// projects concurrently: one `ClusterList` in the order of the projects, whose frame has
    /// `group_id`. A project that fails raises (never a silently shorter list).
    ///
    Clusters
    /// >>> client.clusters.list_all().to_polars().group_by("type").len()  # doctest: +SKIP
    AsyncClusters
    /// >>> everywhere = await client.clusters.list_all()  # doctest: +SKIP
    #[pyo3(signature = (*, groups = None))]
    fn list_all(groups: Option<&Bound<'_, PyAny>>) => list_all
}
