//! Hosts of a project and their disk partitions.

use crate::client::{Client, PathBuilder, Request};
use crate::error::{Error, Result};
use crate::models::{Host, Partition};
use crate::paging::{list_all, HostList};

/// `client.hosts()`
#[derive(Debug, Clone, Copy)]
pub struct Hosts<'c> {
    pub(crate) client: &'c Client,
}

pub(crate) fn host_path(group_id: &str, host_id: &str) -> Result<PathBuilder> {
    PathBuilder::new()
        .lit("groups")
        .id("group_id", group_id)?
        .lit("hosts")
        .id("host_id", host_id)
}

impl Hosts<'_> {
    /// One host: `GET /groups/{group_id}/hosts/{host_id}`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// let host = client.hosts().get("5e9f...", "a1b2...").await?;
    /// println!("{:?}:{:?} {:?}", host.hostname, host.port, host.replica_state_name);
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, group_id: &str, host_id: &str) -> Result<Host> {
        let path = host_path(group_id, host_id)?.finish();
        self.client.get_model(Request::get(path)).await
    }

    /// Every host of a project: `GET /groups/{group_id}/hosts`, every page.
    pub async fn list(&self, group_id: &str) -> Result<HostList> {
        let path = PathBuilder::new()
            .lit("groups")
            .id("group_id", group_id)?
            .lit("hosts")
            .finish();
        list_all(self.client, Request::get(path)).await
    }

    /// The disk partition names of a host: `GET /groups/{group_id}/hosts/{host_id}/disks`,
    /// every page.
    pub async fn partitions(&self, group_id: &str, host_id: &str) -> Result<Vec<String>> {
        let path = host_path(group_id, host_id)?.lit("disks").finish();
        let list = list_all::<Partition>(self.client, Request::get(path.clone())).await?;
        list.into_iter()
            .enumerate()
            .map(|(i, p)| {
                p.partition_name.ok_or_else(|| Error::Decode {
                    path: path.clone(),
                    field: format!("results[{i}].partitionName"),
                    message: "missing field `partitionName`".into(),
                    body_start: String::new(),
                })
            })
            .collect()
    }
}
