//! # opsapi
//!
//! A client for the Deployment Operations Public API v1.0 (in substance the MongoDB Ops
//! Manager public API under `/api/public/v1.0`): every operation over HTTP Digest auth with
//! one round trip per call, every page of every list, typed models that keep what they do not
//! know, typed errors, measurements as polars DataFrames, and a built-in simulator of the API
//! (feature `sim`) for tests, demos and benchmarks. The same client speaks to Cloud Manager
//! and to Atlas's Admin API v2 ([`Client::atlas`], [`Flavour`]): the same calls, models and
//! frames, hosts being Atlas's processes there.
//!
//! ```no_run
//! # async fn run() -> opsapi::Result<()> {
//! use opsapi::{AlertStatus, Client, GlobalAlertsQuery, Granularity, MeasurementsQuery};
//!
//! let client = Client::builder("https://om.example.com:8443")
//!     .credentials("PUBLIC-KEY", "PRIVATE-KEY")
//!     .build()?;
//! let open = client.global_alerts().list(&GlobalAlertsQuery::new().status(AlertStatus::Open)).await?;
//! let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap());
//! let m = client.measurements().host("GROUP-ID", "HOST-ID", &q).await?;
//! println!("{} open alerts, {} data points", open.len(), m.data_point_count());
//!
//! // Atlas, with a service account: the same calls (hosts are processes, `hostname:port`).
//! let atlas = Client::atlas().service_account("CLIENT-ID", "CLIENT-SECRET").build()?;
//! for p in &atlas.hosts().list("GROUP-ID").await? {
//!     let m = atlas.measurements().host("GROUP-ID", p.id.as_deref().unwrap(), &q).await?;
//! }
//! # Ok(()) }
//! ```

pub mod api;
pub mod auth;
mod client;
pub(crate) mod decode;
mod error;
pub mod flavour;
#[cfg(feature = "frames")]
pub mod fleet;
#[cfg(feature = "frames")]
pub mod frame;
#[doc(hidden)]
pub mod fuzzing;
pub mod iso8601;
pub mod models;
mod paging;
#[cfg(feature = "frames")]
pub mod parquet;
pub mod query;
pub mod request;
mod tls;

#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "frames")]
pub mod store;

#[cfg(feature = "python")]
mod python;

pub use api::acknowledgement::{AckUntil, Acknowledgement};
pub use api::alerts::{AlertContext, AlertsQuery, ContextOptions, MetricKind};
pub use api::global_alerts::GlobalAlertsQuery;
pub use api::measurements::{Granularity, MeasurementsQuery, Window};
pub use client::{
    redact_url, Client, ClientBuilder, ServiceVersion, API_PATH, DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_USER_AGENT, MAX_CONCURRENCY_LIMIT, MAX_RETRIES_LIMIT, MAX_TIMEOUT,
};
pub use decode::{decode_model, Decode};
pub use error::{ApiError, Error, Result};
pub use flavour::{Answer, EndpointSet, Flavour, Operation};
pub use iso8601::IsoDuration;
pub use models::{
    AccessListEntry, Alert, AlertConfig, AlertStatus, AtlasTier, AutoScaling, Cluster, ClusterType,
    CurrentValue, Database, Event, EventDiff, EventDiffParam, GlobalAlert, Group, Host, HostType,
    Link, Measurements, Model, Namespace, Partition, QueryShape, ReplicaState, Series, SlowQuery,
    SlowQueryLogs, SlowQueryRow, SuggestedIndex, SuggestedIndexes, SystemInfo, ATLAS_TIERS,
};
pub use paging::{AlertList, ClusterList, HostList, List, ITEMS_PER_PAGE};
pub use request::{Method, PathBuilder, Request};
