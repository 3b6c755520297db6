//! Hosts of a project, their disk partitions and their databases.

use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::Operation;
use crate::models::{Database, Host, Model, Partition};
use crate::paging::{list_all, HostList};
use crate::request::Request;

/// `client.hosts()`
#[derive(Debug, Clone, Copy)]
pub struct Hosts<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/hosts/{host_id}`.
///
/// ```
/// let req = opsapi::api::hosts::get_request("g1", "h/1").unwrap();
/// assert_eq!(req.path, "/groups/g1/hosts/h%2F1");
/// ```
pub fn get_request(group_id: &str, host_id: &str) -> Result<Request> {
    Operation::HostsGet.request(&[group_id, host_id])
}

/// `GET /groups/{group_id}/hosts`.
pub fn list_request(group_id: &str) -> Result<Request> {
    Operation::HostsList.request(&[group_id])
}

/// `GET /groups/{group_id}/hosts/{host_id}/disks`.
pub fn partitions_request(group_id: &str, host_id: &str) -> Result<Request> {
    Operation::HostsPartitions.request(&[group_id, host_id])
}

/// `GET /groups/{group_id}/hosts/{host_id}/databases`.
///
/// ```
/// let req = opsapi::api::hosts::databases_request("g1", "h1").unwrap();
/// assert_eq!(req.path, "/groups/g1/hosts/h1/databases");
/// ```
pub fn databases_request(group_id: &str, host_id: &str) -> Result<Request> {
    Operation::HostsDatabases.request(&[group_id, host_id])
}

/// The names of a listing's items (`partitionName`, `databaseName`), every one required: an
/// item without its name is a decode error naming it, not a shorter list.
fn names<T: Model>(
    path: &str,
    items: Vec<T>,
    field: &str,
    name: impl Fn(T) -> Option<String>,
) -> Result<Vec<String>> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            name(item).ok_or_else(|| Error::Decode {
                path: path.to_owned(),
                field: format!("results[{i}].{field}"),
                message: format!("missing field `{field}`"),
                body_start: String::new(),
            })
        })
        .collect()
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
        self.client
            .send_decoded(get_request(group_id, host_id)?)
            .await
    }

    /// Every host of a project: `GET /groups/{group_id}/hosts`, every page.
    pub async fn list(&self, group_id: &str) -> Result<HostList> {
        list_all(self.client, list_request(group_id)?).await
    }

    /// The disk partition names of a host: `GET /groups/{group_id}/hosts/{host_id}/disks`,
    /// every page.
    pub async fn partitions(&self, group_id: &str, host_id: &str) -> Result<Vec<String>> {
        let req = partitions_request(group_id, host_id)?;
        let path = req.path.clone();
        let list = list_all::<Partition>(self.client, req).await?;
        names(&path, list.into_vec(), "partitionName", |p| {
            p.partition_name
        })
    }

    /// The database names of a host: `GET /groups/{group_id}/hosts/{host_id}/databases`,
    /// every page.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// for db in client.hosts().databases("5e9f...", "a1b2...").await? { println!("{db}"); }
    /// # Ok(()) }
    /// ```
    pub async fn databases(&self, group_id: &str, host_id: &str) -> Result<Vec<String>> {
        let req = databases_request(group_id, host_id)?;
        let path = req.path.clone();
        let list = list_all::<Database>(self.client, req).await?;
        names(&path, list.into_vec(), "databaseName", |d| d.database_name)
    }
}
