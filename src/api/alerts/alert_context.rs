//! An alert in its context: what [`super::Alerts::context`] gathers (`alerts/context.rs`
//! gathers it; `alerts/around.rs`, `alerts/slow.rs` and `alerts/reading.rs` each add a part),
//! and its parts as frames.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::metric::MetricKind;
use crate::api::measurements::Granularity;
#[cfg(feature = "frames")]
use crate::error::Result;
use crate::models::{Alert, Event, Host, IndexSuggestion, Measurements, SlowQueryShape};

/// An alert in its context (see [`super::Alerts::context`]).
///
/// ```no_run
/// # async fn f(client: opsapi::Client, alert: opsapi::Alert) -> opsapi::Result<()> {
/// let ctx = client.alerts().context(&alert, &opsapi::ContextOptions::new()).await?;
/// match (&ctx.kind, ctx.host()) {
///     (Some(kind), Some(host)) => println!("{} on {:?}: {} series", kind.as_str(), host.hostname, ctx.measurements.len()),
///     _ => println!("no metric: {:?}; hosts {:?}", ctx.note, ctx.hosts.len()),
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AlertContext {
    /// The alert.
    pub alert: Alert,
    /// Where its metric is measured; `None` for an alert without a metric.
    pub kind: Option<MetricKind>,
    /// The measurement asked for (its metric, as the measurements API names it).
    pub measurement: Option<String>,
    /// The window's start (the alert's creation minus `before`, floored to the step).
    pub start: DateTime<Utc>,
    /// The window's end.
    pub end: DateTime<Utc>,
    /// The granularity of the measurements.
    pub granularity: Granularity,
    /// The hosts it concerns: the alert's host, or the members of its replica set.
    pub hosts: Vec<Host>,
    /// The measurements: one per host, partition or database read.
    pub measurements: Vec<Measurements>,
    /// `metricThreshold.threshold` of the alert's configuration, when it has one, in the
    /// units of the series (a configuration in seconds of a series in milliseconds: ×1000).
    pub threshold: Option<f64>,
    /// Its units: the series', where it was converted to them, else `metricThreshold.units`.
    pub threshold_units: Option<String>,
    /// The deployment's events of the window, oldest first: those about its hosts or replica
    /// sets (elections, restarts, hosts down and up), its cluster's on Atlas (auto-scaling,
    /// tier changes and disk resizes), the project's configuration changes, and the alert's
    /// own acknowledgements ([`crate::api::event_kinds`] says which types, per flavour).
    pub events: Vec<Event>,
    /// The window's slow queries on the alert's host, by namespace and query shape, the
    /// most time first.
    pub slow_queries: Vec<SlowQueryShape>,
    /// The indexes the Performance Advisor suggests for the window's namespaces.
    pub suggested_indexes: Vec<IndexSuggestion>,
    /// One sentence built from what was found (`alerts/reading.rs`).
    pub reading: String,
    /// The parts left out, and why: `events`, `slow_queries`, `suggested_indexes`, when the
    /// flavour or the key's permission does not offer them (never an error).
    pub missing: BTreeMap<String, String>,
    /// Why there are no measurements, when there are none.
    pub note: Option<String>,
}

impl AlertContext {
    /// The alert's own host (the one its `hostId` or `hostnameAndPort` names), if found.
    pub fn host(&self) -> Option<&Host> {
        let named = self.alert.host_id.is_some() || self.alert.hostname_and_port.is_some();
        named.then(|| self.hosts.first()).flatten()
    }

    /// The measurements as one long frame (the columns of every long frame; empty, with
    /// those columns, when there are none).
    #[cfg(feature = "frames")]
    pub fn frame(&self) -> Result<polars::prelude::DataFrame> {
        crate::frame::long_frame(&self.measurements)
    }

    /// The deployment's events of the window, oldest first: `created`, `event_type_name`,
    /// `kind` (`election`, `restart`, `scaling`, ...: [`crate::api::event_kinds`]), `said`
    /// (what it says, in words), `host` (`hostname:port` where it names one), and its
    /// `replica_set_name`, `id`, `host_id` and `alert_id`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client, alert: opsapi::Alert) -> opsapi::Result<()> {
    /// let ctx = client.alerts().context(&alert, &opsapi::ContextOptions::new()).await?;
    /// let events = ctx.events_frame()?;
    /// assert_eq!(events.get_column_names(), opsapi::frame::context::EVENT_COLUMNS);
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "frames")]
    pub fn events_frame(&self) -> Result<polars::prelude::DataFrame> {
        crate::frame::context::events_frame(&self.events)
    }

    /// The window's slow queries by namespace and query shape, the most time first:
    /// `namespace`, `shape`, `count`, `total_ms`, `median_ms`, `docs_examined`,
    /// `docs_returned`, `examined_per_returned`, `plan_summary` and `index` (the suggested
    /// index that would serve the shape, if one is).
    #[cfg(feature = "frames")]
    pub fn slow_queries_frame(&self) -> Result<polars::prelude::DataFrame> {
        crate::frame::context::slow_queries_frame(&self.slow_queries)
    }

    /// The indexes suggested for the window's namespaces: `host`, `namespace`, `index` (its
    /// keys, `{status: 1, createdAt: 1}`), `shapes` (a list of the shapes it serves),
    /// `count` and `avg_ms` (of those shapes' queries) and `weight` (Atlas's share of the
    /// improvement).
    #[cfg(feature = "frames")]
    pub fn suggested_indexes_frame(&self) -> Result<polars::prelude::DataFrame> {
        crate::frame::context::suggested_indexes_frame(&self.suggested_indexes)
    }
}
