//! Frames of lists: one row per alert, host, cluster or event.

use chrono::{DateTime, Utc};
use polars::prelude::*;

use super::{key_column, polars_err};
use crate::error::{Error, Result};
use crate::models::{self, Alert, Cluster, Event, Host};

// ---------------------------------------------------------------------------------------
// Frames of lists.

pub(crate) struct Cols {
    height: usize,
    columns: Vec<Column>,
    /// The first column that could not be built (more categories than polars holds).
    error: Option<Error>,
}

/// Whether a list frame's column holds identifiers: `id` and `*_id`.
fn is_identifier(name: &str) -> bool {
    name == "id" || name.ends_with("_id")
}

impl Cols {
    pub(crate) fn new(height: usize) -> Self {
        Self {
            height,
            columns: Vec::new(),
            error: None,
        }
    }
    /// A text column: identifiers (`id`, `*_id`) are key columns, Categorical like those of
    /// the measurement frames, so that every frame opsapi returns joins with every other.
    pub(crate) fn str<'a>(&mut self, name: &str, it: impl Iterator<Item = Option<&'a str>>) {
        if is_identifier(name) {
            let values: Vec<Option<&str>> = it.collect();
            self.key(name, values.into_iter());
        } else {
            self.columns
                .push(StringChunked::from_iter_options(name.into(), it).into_column());
        }
    }
    /// A key column, whatever its name (Categorical).
    pub(crate) fn key<'a>(
        &mut self,
        name: &str,
        it: impl ExactSizeIterator<Item = Option<&'a str>>,
    ) {
        match key_column(name, it) {
            Ok(c) => self.columns.push(c),
            Err(e) => self.error = self.error.take().or(Some(e)),
        }
    }
    pub(crate) fn time(&mut self, name: &str, it: impl Iterator<Item = Option<DateTime<Utc>>>) {
        let ca = Int64Chunked::from_iter_options(
            name.into(),
            it.map(|t| t.map(|t| t.timestamp_millis())),
        );
        self.columns.push(
            ca.into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
                .into_column(),
        );
    }
    pub(crate) fn f64(&mut self, name: &str, it: impl Iterator<Item = Option<f64>>) {
        self.columns
            .push(Float64Chunked::from_iter_options(name.into(), it).into_column());
    }
    pub(crate) fn i64(&mut self, name: &str, it: impl Iterator<Item = Option<i64>>) {
        self.columns
            .push(Int64Chunked::from_iter_options(name.into(), it).into_column());
    }
    pub(crate) fn bool(&mut self, name: &str, it: impl Iterator<Item = Option<bool>>) {
        self.columns
            .push(BooleanChunked::from_iter_options(name.into(), it).into_column());
    }
    pub(crate) fn finish(self) -> Result<DataFrame> {
        if let Some(e) = self.error {
            return Err(e);
        }
        DataFrame::new(self.height, self.columns).map_err(polars_err)
    }
}

/// How one field of a model becomes columns of its list frame: a scalar one column, a nested
/// object one column per part (`current_value` → `current_value_number`,
/// `current_value_units`), a list or free-form JSON none.
pub(crate) trait FrameColumn {
    /// Adds the columns of this field, named after `name`, one value per item.
    fn add(c: &mut Cols, name: &str, values: &[&Self]);
}

macro_rules! scalar_column {
    ($ty:ty, $method:ident, |$v:ident| $conv:expr) => {
        impl FrameColumn for Option<$ty> {
            fn add(c: &mut Cols, name: &str, values: &[&Self]) {
                c.$method(name, values.iter().map(|$v| $conv));
            }
        }
    };
}
scalar_column!(String, str, |v| v.as_deref());
scalar_column!(i64, i64, |v| **v);
scalar_column!(f64, f64, |v| **v);
scalar_column!(bool, bool, |v| **v);
scalar_column!(DateTime<Utc>, time, |v| **v);
scalar_column!(models::AlertStatus, str, |v| v.as_ref().map(|s| s.as_str()));
scalar_column!(models::HostType, str, |v| v.as_ref().map(|s| s.as_str()));
scalar_column!(models::ClusterType, str, |v| v.as_ref().map(|s| s.as_str()));
scalar_column!(models::ReplicaState, str, |v| v
    .as_ref()
    .map(|s| s.as_str()));

macro_rules! no_column {
    ($($ty:ty),*) => {
        $(impl FrameColumn for $ty {
            fn add(_: &mut Cols, _: &str, _: &[&Self]) {}
        })*
    };
}
no_column!(
    Option<Vec<String>>,
    Option<Vec<models::Link>>,
    Option<serde_json::Value>,
    Option<Vec<serde_json::Value>>,
    Option<Vec<models::EventDiff>>
);

/// A nested object's columns: its own fields, each named `<field>_<part>`.
macro_rules! part_columns {
    (
        ()
        $(#[$meta:meta])* $name:ident {}
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        impl FrameColumn for Option<models::$name> {
            fn add(c: &mut Cols, name: &str, values: &[&Self]) {
                $(
                    let parts: Vec<&$ty> = values
                        .iter()
                        .map(|v| v.as_ref().map_or(&None, |p| &p.$field))
                        .collect();
                    FrameColumn::add(c, &format!("{name}_{}", stringify!($field)), &parts);
                )*
            }
        }
    };
}
models::current_value_fields!(part_columns);
models::system_info_fields!(part_columns);
models::auto_scaling_fields!(part_columns);

/// A model with a list frame: one row per item, one or more columns per field, in the order
/// the fields are declared.
pub(crate) trait ListFrame: Sized {
    /// The frame of `items`.
    fn frame(items: &[Self]) -> Result<DataFrame>;
}

macro_rules! list_frame {
    (
        ()
        $(#[$meta:meta])* $name:ident { $($opts:tt)* }
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        impl ListFrame for models::$name {
            fn frame(items: &[Self]) -> Result<DataFrame> {
                let mut c = Cols::new(items.len());
                $(
                    let values: Vec<&$ty> = items.iter().map(|m| &m.$field).collect();
                    FrameColumn::add(&mut c, models::unraw(stringify!($field)), &values);
                )*
                c.finish()
            }
        }
    };
}
models::alert_fields!(list_frame);
models::host_fields!(list_frame);
models::cluster_fields!(list_frame);
models::event_fields!(list_frame);

/// One row per alert: every field but lists and links, `current_value` flattened, timestamps
/// as `Datetime(ms, UTC)`.
pub fn alerts_frame(alerts: &[Alert]) -> Result<DataFrame> {
    Alert::frame(alerts)
}

/// One row per host: every field but lists and links, `system_info` flattened.
pub fn hosts_frame(hosts: &[Host]) -> Result<DataFrame> {
    Host::frame(hosts)
}

/// One row per cluster: every field but links and the connection strings, `auto_scaling`
/// flattened (`auto_scaling_compute_max_instance_size`).
pub fn clusters_frame(clusters: &[Cluster]) -> Result<DataFrame> {
    Cluster::frame(clusters)
}

/// One row per event: every field but `diffs`, `raw` and links, `current_value` flattened.
pub fn events_frame(events: &[Event]) -> Result<DataFrame> {
    Event::frame(events)
}

/// One row per slow query log line ([`crate::SlowQueryLogs::rows`]): `timestamp`,
/// `namespace` (Categorical, a key like every identifier column), `shape`, `duration_ms`,
/// `docs_examined`, `docs_returned`, `plan_summary` and the `line` itself; a part the line
/// does not say is null.
pub fn slow_queries_frame(logs: &models::SlowQueryLogs) -> Result<DataFrame> {
    let rows = logs.rows();
    let mut c = Cols::new(rows.len());
    c.time("timestamp", rows.iter().map(|r| r.timestamp));
    c.key("namespace", rows.iter().map(|r| r.namespace.as_deref()));
    c.str("shape", rows.iter().map(|r| r.shape.as_deref()));
    c.i64("duration_ms", rows.iter().map(|r| r.duration_ms));
    c.i64("docs_examined", rows.iter().map(|r| r.docs_examined));
    c.i64("docs_returned", rows.iter().map(|r| r.docs_returned));
    c.str(
        "plan_summary",
        rows.iter().map(|r| r.plan_summary.as_deref()),
    );
    c.str("line", rows.iter().map(|r| r.line.as_deref()));
    c.finish()
}
