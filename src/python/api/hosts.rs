//! `client.hosts`: hosts of a project, their disk partitions and their databases.

use super::{handle_pair, twins};
use crate::python::models::{Host, HostList};

handle_pair!(
    /// Hosts of a project.
    Hosts,
    AsyncHosts
);

twins! {
    /// One host: `GET /groups/{group_id}/hosts/{host_id}`.
    ///
    Hosts
    /// >>> client.hosts.get(group_id, host_id).replica_state_name  # doctest: +SKIP
    /// 'PRIMARY'
    AsyncHosts
    /// >>> (await client.hosts.get(group_id, host_id)).replica_state_name  # doctest: +SKIP
    /// 'PRIMARY'
    fn get(group_id: Text, host_id: Text) -> "Host" {
        |c| Ok(Host::from(c.hosts().get(&group_id, &host_id).await?))
    }
}

twins! {
    /// Every host of a project, every page (a `HostList`).
    ///
    Hosts
    /// >>> client.hosts.list(group_id).to_polars()  # doctest: +SKIP
    AsyncHosts
    /// >>> hosts = await client.hosts.list(group_id)  # doctest: +SKIP
    fn list(group_id: Text) -> "HostList" {
        |c| Ok(HostList::from(c.hosts().list(&group_id).await?))
    }
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
    fn partitions(group_id: Text, host_id: Text) -> "list[str]" {
        |c| c.hosts().partitions(&group_id, &host_id).await
    }
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
    fn databases(group_id: Text, host_id: Text) -> "list[str]" {
        |c| c.hosts().databases(&group_id, &host_id).await
    }
}
