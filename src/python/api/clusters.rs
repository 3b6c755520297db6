//! `client.clusters`: the clusters of projects.

use super::{handle_pair, twins};
use crate::python::models::{Cluster, ClusterList};

handle_pair!(
    /// Clusters of projects: replica sets and sharded clusters (`/groups/{group_id}/clusters`).
    Clusters,
    AsyncClusters
);

twins! {
    /// Every cluster of a project, every page (a `ClusterList`). Ops Manager and Cloud
    /// Manager list a sharded cluster and each replica set within it (its shards', its config
    /// servers'), named after it; Atlas each cluster once, with its configuration.
    ///
    Clusters
    /// >>> client.clusters.list(group_id).to_polars()  # doctest: +SKIP
    AsyncClusters
    /// >>> clusters = await client.clusters.list(group_id)  # doctest: +SKIP
    fn list(group_id: Text) -> "ClusterList" {
        |c| Ok(ClusterList::from(c.clusters().list(&group_id).await?))
    }
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
    fn get(group_id: Text, cluster: Text) -> "Cluster" {
        |c| Ok(Cluster::from(c.clusters().get(&group_id, &cluster).await?))
    }
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
    fn list_all(; groups: Texts) -> "ClusterList" {
        |c| {
            let ids: Option<Vec<&str>> = groups
                .as_ref()
                .map(|g| g.iter().map(String::as_str).collect());
            Ok(ClusterList::from(c.clusters().list_all(ids.as_deref()).await?))
        }
    }
}
