//! Frames of lists: one row per alert, host or event.

use chrono::{DateTime, Utc};
use polars::prelude::*;

use super::polars_err;
use crate::error::Result;
use crate::models::{Alert, Event, Host};

// ---------------------------------------------------------------------------------------
// Frames of lists.

pub(crate) struct Cols {
    height: usize,
    columns: Vec<Column>,
}

impl Cols {
    pub(crate) fn new(height: usize) -> Self {
        Self {
            height,
            columns: Vec::new(),
        }
    }
    pub(crate) fn str<'a>(&mut self, name: &str, it: impl Iterator<Item = Option<&'a str>>) {
        self.columns
            .push(StringChunked::from_iter_options(name.into(), it).into_column());
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
        DataFrame::new(self.height, self.columns).map_err(polars_err)
    }
}

/// One row per alert: snake_case columns, `current_value` flattened, timestamps as
/// `Datetime(ms, UTC)`.
pub fn alerts_frame(alerts: &[Alert]) -> Result<DataFrame> {
    let mut c = Cols::new(alerts.len());
    macro_rules! s {
        ($name:literal, $f:ident) => {
            c.str($name, alerts.iter().map(|a| a.$f.as_deref()))
        };
    }
    s!("id", id);
    s!("group_id", group_id);
    s!("alert_config_id", alert_config_id);
    s!("type_name", type_name);
    s!("event_type_name", event_type_name);
    c.str(
        "status",
        alerts.iter().map(|a| a.status.as_ref().map(|s| s.as_str())),
    );
    c.time("created", alerts.iter().map(|a| a.created));
    c.time("updated", alerts.iter().map(|a| a.updated));
    c.time("resolved", alerts.iter().map(|a| a.resolved));
    c.time("last_notified", alerts.iter().map(|a| a.last_notified));
    c.time(
        "acknowledged_until",
        alerts.iter().map(|a| a.acknowledged_until),
    );
    s!("acknowledgement_comment", acknowledgement_comment);
    s!("acknowledging_username", acknowledging_username);
    s!("metric_name", metric_name);
    c.f64(
        "current_value_number",
        alerts
            .iter()
            .map(|a| a.current_value.as_ref().and_then(|v| v.number)),
    );
    c.str(
        "current_value_units",
        alerts
            .iter()
            .map(|a| a.current_value.as_ref().and_then(|v| v.units.as_deref())),
    );
    s!("host_id", host_id);
    s!("hostname_and_port", hostname_and_port);
    s!("replica_set_name", replica_set_name);
    s!("cluster_id", cluster_id);
    s!("cluster_name", cluster_name);
    s!("source_type_name", source_type_name);
    c.finish()
}

/// One row per host.
pub fn hosts_frame(hosts: &[Host]) -> Result<DataFrame> {
    let mut c = Cols::new(hosts.len());
    macro_rules! s {
        ($name:literal, $f:ident) => {
            c.str($name, hosts.iter().map(|h| h.$f.as_deref()))
        };
    }
    s!("id", id);
    s!("group_id", group_id);
    s!("hostname", hostname);
    c.i64("port", hosts.iter().map(|h| h.port));
    c.str(
        "type_name",
        hosts
            .iter()
            .map(|h| h.type_name.as_ref().map(|t| t.as_str())),
    );
    s!("replica_set_name", replica_set_name);
    c.str(
        "replica_state_name",
        hosts
            .iter()
            .map(|h| h.replica_state_name.as_ref().map(|t| t.as_str())),
    );
    s!("shard_name", shard_name);
    s!("cluster_id", cluster_id);
    s!("version", version);
    s!("ip_address", ip_address);
    c.time("created", hosts.iter().map(|h| h.created));
    c.time("last_ping", hosts.iter().map(|h| h.last_ping));
    c.time("last_restart", hosts.iter().map(|h| h.last_restart));
    c.i64("uptime_msec", hosts.iter().map(|h| h.uptime_msec));
    c.i64(
        "last_data_size_bytes",
        hosts.iter().map(|h| h.last_data_size_bytes),
    );
    c.i64(
        "last_index_size_bytes",
        hosts.iter().map(|h| h.last_index_size_bytes),
    );
    c.i64(
        "system_info_mem_size_mb",
        hosts
            .iter()
            .map(|h| h.system_info.as_ref().and_then(|s| s.mem_size_mb)),
    );
    c.i64(
        "system_info_num_cores",
        hosts
            .iter()
            .map(|h| h.system_info.as_ref().and_then(|s| s.num_cores)),
    );
    c.bool("alerts_enabled", hosts.iter().map(|h| h.alerts_enabled));
    c.bool("host_enabled", hosts.iter().map(|h| h.host_enabled));
    c.bool("hidden", hosts.iter().map(|h| h.hidden));
    c.bool("ssl_enabled", hosts.iter().map(|h| h.ssl_enabled));
    c.bool(
        "journaling_enabled",
        hosts.iter().map(|h| h.journaling_enabled),
    );
    c.finish()
}

/// One row per event.
pub fn events_frame(events: &[Event]) -> Result<DataFrame> {
    let mut c = Cols::new(events.len());
    macro_rules! s {
        ($name:literal, $f:ident) => {
            c.str($name, events.iter().map(|e| e.$f.as_deref()))
        };
    }
    s!("id", id);
    s!("group_id", group_id);
    s!("event_type_name", event_type_name);
    c.time("created", events.iter().map(|e| e.created));
    s!("host_id", host_id);
    s!("hostname", hostname);
    c.i64("port", events.iter().map(|e| e.port));
    s!("replica_set_name", replica_set_name);
    s!("cluster_name", cluster_name);
    s!("alert_id", alert_id);
    s!("alert_config_id", alert_config_id);
    s!("metric_name", metric_name);
    c.f64(
        "current_value_number",
        events
            .iter()
            .map(|e| e.current_value.as_ref().and_then(|v| v.number)),
    );
    c.str(
        "current_value_units",
        events
            .iter()
            .map(|e| e.current_value.as_ref().and_then(|v| v.units.as_deref())),
    );
    s!("username", username);
    s!("public_key", public_key);
    s!("remote_address", remote_address);
    c.finish()
}
