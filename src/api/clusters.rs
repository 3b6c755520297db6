//! Clusters of a project (`/groups/{group_id}/clusters`): its replica sets and sharded
//! clusters, by name, with Atlas's configuration (tier, disk, auto-scaling).
//!
//! Ops Manager and Cloud Manager name a cluster by its id and list a sharded cluster's
//! replica sets (its shards', its config servers') as clusters of their own; Atlas names a
//! cluster by its name and lists each once ([`crate::models::Cluster`]).

use crate::client::Client;
use crate::error::Result;
use crate::flavour::Operation;
use crate::models::Cluster;
use crate::paging::{every_project, list_all, per_project, project_ids, ClusterList};
use crate::request::Request;

/// `client.clusters()`
#[derive(Debug, Clone, Copy)]
pub struct Clusters<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/clusters`.
///
/// ```
/// let req = opsapi::api::clusters::list_request("g1").unwrap();
/// assert_eq!(req.path, "/groups/g1/clusters");
/// ```
pub fn list_request(group_id: &str) -> Result<Request> {
    Operation::ClustersList.request(&[group_id])
}

/// `GET /groups/{group_id}/clusters/{cluster}`: `cluster` is the cluster's id on Ops Manager
/// and Cloud Manager, its name on Atlas.
///
/// ```
/// let req = opsapi::api::clusters::get_request("g1", "orders").unwrap();
/// assert_eq!(req.path, "/groups/g1/clusters/orders");
/// assert!(opsapi::api::clusters::get_request("g1", "a/b").unwrap().path.ends_with("/a%2Fb"));
/// ```
pub fn get_request(group_id: &str, cluster: &str) -> Result<Request> {
    Operation::ClustersGet.request(&[group_id, cluster])
}

/// The listing request of every project of a [`Clusters::list_all`] call, checked before any
/// is sent (an invalid id is named by its position: `groups[2]`).
///
/// ```
/// use opsapi::api::clusters::list_all_requests;
/// assert_eq!(list_all_requests(&["g1", "g2"]).unwrap()[1].path, "/groups/g2/clusters");
/// let e = list_all_requests(&["g1", ""]).unwrap_err().to_string();
/// assert_eq!(e, "invalid argument `groups[1]`: must not be empty");
/// ```
pub fn list_all_requests<S: AsRef<str>>(group_ids: &[S]) -> Result<Vec<Request>> {
    per_project(group_ids, list_request)
}

impl Clusters<'_> {
    /// Every cluster of a project: `GET /groups/{group_id}/clusters`, every page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// for c in &client.clusters().list("5e9f...").await? {
    ///     println!("{:?} {:?} {:?}", c.name, c.r#type, c.instance_size);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list(&self, group_id: &str) -> Result<ClusterList> {
        list_all(self.client, list_request(group_id)?).await
    }

    /// One cluster: `GET /groups/{group_id}/clusters/{cluster}`, by its id on Ops Manager and
    /// Cloud Manager, by its name on Atlas.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let c = client.clusters().get("5e9f...", "orders").await?;
    /// println!("{:?}", c.auto_scaling);
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, group_id: &str, cluster: &str) -> Result<Cluster> {
        self.client
            .send_decoded(get_request(group_id, cluster)?)
            .await
    }

    /// The clusters of every project the key can see (`GET /groups`, every page), or of the
    /// projects in `groups`: each project's listing with every page, the projects
    /// concurrently (at most the client's `max_concurrency` requests in flight), one list in
    /// the order of the projects. A project that fails fails the call (never a silently
    /// shorter list); every id in `groups` is checked before any request is sent. Each
    /// cluster carries its `group_id`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let everywhere = client.clusters().list_all(None).await?;
    /// let two = client.clusters().list_all(Some(&["g1", "g2"])).await?;
    /// # Ok(()) }
    /// ```
    pub async fn list_all(&self, groups: Option<&[&str]>) -> Result<ClusterList> {
        let ids = project_ids(self.client, groups).await?;
        every_project(self.client, list_all_requests(&ids)?).await
    }
}
