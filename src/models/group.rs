//! Projects, disk partitions and access-list entries.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::{raw_model, Link};

/// A project (`/groups`); the API calls projects groups.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Group {
    /// `id`
    pub id: Option<String>,
    /// `name`
    pub name: Option<String>,
    /// `orgId`
    pub org_id: Option<String>,
    /// `activeAgentCount`
    pub active_agent_count: Option<i64>,
    /// `replicaSetCount`
    pub replica_set_count: Option<i64>,
    /// `shardCount`
    pub shard_count: Option<i64>,
    /// `lastActiveAgent`
    #[serde(with = "super::time::opt_datetime")]
    pub last_active_agent: Option<DateTime<Utc>>,
    /// `hostCounts`: as sent.
    pub host_counts: Option<Value>,
    /// `tags`
    pub tags: Option<Vec<String>>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    raw: super::RawJson,
}
raw_model!(Group, raw, id: id);

/// A disk partition of a host (`/groups/{g}/hosts/{h}/disks`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Partition {
    /// `partitionName`
    pub partition_name: Option<String>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    raw: super::RawJson,
}

raw_model!(Partition, raw, id: partition_name);

/// An entry of the global API access list (`/admin/accessList`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct AccessListEntry {
    /// `id`
    pub id: Option<String>,
    /// `cidrBlock`
    pub cidr_block: Option<String>,
    /// `description`
    pub description: Option<String>,
    /// `created`
    #[serde(with = "super::time::opt_datetime")]
    pub created: Option<DateTime<Utc>>,
    /// `links`
    pub links: Option<Vec<Link>>,
    #[serde(skip)]
    raw: super::RawJson,
}
raw_model!(AccessListEntry, raw, id: id);
