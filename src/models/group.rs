//! Projects, disk partitions, databases and access-list entries. Each model's fields are declared once,
//! in its `<model>_fields!` list.

use super::declare_model;

/// The fields of [`Group`], declared once.
macro_rules! group_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A project (the API's group).
            Group { raw: raw, id: id, repr: [id, name] } {
                /// `id`
                id: Option<String>,
                /// `name`
                name: Option<String>,
                /// `orgId`
                org_id: Option<String>,
                /// `activeAgentCount`
                active_agent_count: Option<i64>,
                /// `replicaSetCount`
                replica_set_count: Option<i64>,
                /// `shardCount`
                shard_count: Option<i64>,
                /// `lastActiveAgent`
                #[serde(with = "crate::models::time::opt_datetime")]
                last_active_agent: Option<chrono::DateTime<chrono::Utc>>,
                /// `hostCounts`: as sent.
                host_counts: Option<serde_json::Value>,
                /// `tags`
                tags: Option<Vec<String>>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use group_fields;
group_fields!(declare_model);

declare_model! {
    ()
    /// A disk partition of a host (`/groups/{g}/hosts/{h}/disks`). Not a Python class: the
    /// Python face returns the names.
    Partition { raw: raw, id: partition_name } {
        /// `partitionName`
        partition_name: Option<String>,
        /// `links`
        links: Option<Vec<super::Link>>,
    }
}

declare_model! {
    ()
    /// A database of a host (`/groups/{g}/hosts/{h}/databases`). Not a Python class: the
    /// Python face returns the names.
    Database { raw: raw, id: database_name } {
        /// `databaseName`
        database_name: Option<String>,
        /// `links`
        links: Option<Vec<super::Link>>,
    }
}

/// The fields of [`AccessListEntry`], declared once.
macro_rules! access_list_entry_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// An entry of the global API access list (`/admin/accessList`).
            AccessListEntry { raw: raw, id: id, repr: [id, cidr_block] } {
                /// `id`
                id: Option<String>,
                /// `cidrBlock`
                cidr_block: Option<String>,
                /// `description`
                description: Option<String>,
                /// `created`
                #[serde(with = "crate::models::time::opt_datetime")]
                created: Option<chrono::DateTime<chrono::Utc>>,
                /// `links`
                links: Option<Vec<$crate::models::Link>>,
            }
        }
    };
}
pub(crate) use access_list_entry_fields;
access_list_entry_fields!(declare_model);
