//! `client.groups`: projects.

use super::{handle_pair, twins};
use crate::python::models::Group;

handle_pair!(
    /// Projects (the API's groups).
    Groups,
    AsyncGroups
);

twins! {
    /// Every project the key can see, every page.
    ///
    Groups
    /// >>> [g.name for g in client.groups.list()]  # doctest: +SKIP
    AsyncGroups
    /// >>> [g.name for g in await client.groups.list()]  # doctest: +SKIP
    fn list() -> "list[Group]" {
        |c| Ok(c.groups().list().await?.into_vec().into_iter().map(Group::from).collect::<Vec<_>>())
    }
}

twins! {
    /// One project: `GET /groups/{group_id}`.
    ///
    Groups
    /// >>> client.groups.get(group_id).name  # doctest: +SKIP
    AsyncGroups
    /// >>> (await client.groups.get(group_id)).name  # doctest: +SKIP
    fn get(group_id: Text) -> "Group" {
        |c| Ok(Group::from(c.groups().get(&group_id).await?))
    }
}
