//! Polars DataFrames: measurements (long and wide), fleet pulls, and frames of lists.
//!
//! Long shape: one row per data point, columns `group_id, host_id, process_id,
//! partition_name, measurement, units, timestamp, value`. Wide shape: key columns then one
//! Float64 column per measurement, sorted by key. A `null` data point stays null: never NaN,
//! 0, or dropped. Timestamps are `Datetime(ms, UTC)`.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use polars::prelude::*;
use polars_arrow::array::{MutableBinaryViewArray, PrimitiveArray};
use polars_arrow::bitmap::{Bitmap, MutableBitmap};
use polars_arrow::datatypes::ArrowDataType;

use crate::error::{Error, Result};
use crate::models::{Alert, Event, Host, Measurements, Series};

/// The shape of a measurements frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// One row per data point.
    #[default]
    Long,
    /// One row per key and timestamp, one column per measurement.
    Wide,
}

impl std::str::FromStr for Shape {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "long" => Ok(Self::Long),
            "wide" => Ok(Self::Wide),
            other => Err(Error::invalid_argument(
                "shape",
                format!("`{other}` is neither \"long\" nor \"wide\""),
            )),
        }
    }
}

/// The column names of the long shape, in order.
pub const LONG_COLUMNS: [&str; 8] = [
    "group_id",
    "host_id",
    "process_id",
    "partition_name",
    "measurement",
    "units",
    "timestamp",
    "value",
];

fn polars_err(e: PolarsError) -> Error {
    Error::Config(format!("building a DataFrame failed: {e}"))
}

/// The rows of one series in the long shape: its key columns hold the same value on each of
/// its rows.
struct Run<'a> {
    result: &'a Measurements,
    series: &'a Series,
}

/// Below this many rows a frame is built on one thread: a thread costs more than it saves.
const PARALLEL_ROWS: usize = 1 << 16;

/// Builds the long shape of many results in one pass over their columns, with no copy in
/// between: each column is allocated once at its final size and filled series by series. A
/// string column stores each distinct value once and repeats its 16-byte view. Most of the
/// time goes to the first write of freshly allocated memory (the kernel zeroes each page), so
/// a big frame has its columns filled on two threads.
fn long_frame_of(results: &[&Measurements]) -> Result<DataFrame> {
    let runs: Vec<Run<'_>> = results
        .iter()
        .flat_map(|m| {
            m.series
                .iter()
                .filter(|s| !s.is_empty())
                .map(move |series| Run { result: m, series })
        })
        .collect();
    let height: usize = runs.iter().map(|r| r.series.len()).sum();
    type Key = for<'r> fn(&Run<'r>) -> Option<&'r str>;
    let keys: [(&str, Key); 6] = [
        ("group_id", |r| r.result.group_id.as_deref()),
        ("host_id", |r| r.result.host_id.as_deref()),
        ("process_id", |r| r.result.process_id.as_deref()),
        ("partition_name", |r| r.result.partition_name.as_deref()),
        ("measurement", |r| Some(r.series.name.as_str())),
        ("units", |r| r.series.units.as_deref()),
    ];
    let strings = |range: std::ops::Range<usize>| -> Vec<Column> {
        keys[range]
            .iter()
            .map(|(name, key)| string_column(name, &runs, height, *key))
            .collect()
    };
    let second_half = || {
        let mut columns = strings(3..6);
        columns.extend(number_columns(&runs, height));
        columns
    };
    let columns = if height >= PARALLEL_ROWS {
        std::thread::scope(|scope| {
            let first = scope.spawn(|| strings(0..3));
            let rest = second_half();
            let mut columns = first
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            columns.extend(rest);
            columns
        })
    } else {
        let mut columns = strings(0..3);
        columns.extend(second_half());
        columns
    };
    DataFrame::new(height, columns).map_err(polars_err)
}

fn string_column(
    name: &str,
    runs: &[Run<'_>],
    height: usize,
    key: impl for<'r> Fn(&Run<'r>) -> Option<&'r str>,
) -> Column {
    let mut arr = MutableBinaryViewArray::<str>::with_capacity(height);
    for run in runs {
        let len = run.series.len();
        match key(run) {
            Some(v) => arr.extend_constant(len, Some(v)),
            // extend_constant(n, None) extends the validity but not the views.
            None => arr.extend_null(len),
        }
    }
    StringChunked::with_chunk(name.into(), arr.freeze()).into_column()
}

/// `timestamp` and `value`: flat buffers, `null` values as validity bits.
fn number_columns(runs: &[Run<'_>], height: usize) -> [Column; 2] {
    let mut timestamps = Vec::with_capacity(height);
    let mut values = Vec::with_capacity(height);
    let mut validity = MutableBitmap::with_capacity(height);
    for run in runs {
        timestamps.extend_from_slice(&run.series.timestamps);
        for v in &run.series.values {
            values.push(v.unwrap_or(0.0));
            validity.push(v.is_some());
        }
    }
    let validity: Option<Bitmap> = validity.into();
    let values = PrimitiveArray::<f64>::new(ArrowDataType::Float64, values.into(), validity);
    [
        Int64Chunked::from_vec("timestamp".into(), timestamps)
            .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
            .into_column(),
        Float64Chunked::with_chunk("value".into(), values).into_column(),
    ]
}

/// Rows of a fleet pull's long frame built at once, while later targets are still fetched.
pub const DEFAULT_BATCH_ROWS: usize = 1 << 20;

/// The long frame of a batch of results, built on a blocking thread.
pub(crate) struct FrameTask(tokio::task::JoinHandle<Result<DataFrame>>);

impl FrameTask {
    pub(crate) fn spawn(results: Vec<Measurements>) -> Self {
        Self(tokio::task::spawn_blocking(move || long_frame(&results)))
    }
}

/// The frames of batches, stacked in order (one chunk per batch, no copy).
pub(crate) async fn stack(tasks: Vec<FrameTask>) -> Result<DataFrame> {
    let mut out: Option<DataFrame> = None;
    for FrameTask(task) in tasks {
        let df = task
            .await
            .unwrap_or_else(|e| Err(Error::Config(format!("building a frame failed: {e}"))))?;
        match &mut out {
            None => out = Some(df),
            Some(acc) => {
                acc.vstack_mut_owned(df).map_err(polars_err)?;
            }
        }
    }
    match out {
        Some(df) => Ok(df),
        None => long_frame([]),
    }
}

/// The long frame of many results, in their order (then series order, then time).
pub fn long_frame<'a>(results: impl IntoIterator<Item = &'a Measurements>) -> Result<DataFrame> {
    let results: Vec<&Measurements> = results.into_iter().collect();
    long_frame_of(&results)
}

/// The timestamps shared by all non-empty series, or their sorted union when they differ.
fn shared_timestamps(m: &Measurements) -> Vec<i64> {
    let mut non_empty = m.series.iter().filter(|s| !s.is_empty());
    let Some(first) = non_empty.next() else {
        return Vec::new();
    };
    let sorted = first.timestamps.windows(2).all(|w| w[0] < w[1]);
    if sorted && non_empty.all(|s| s.timestamps == first.timestamps) {
        return first.timestamps.clone();
    }
    let mut all: Vec<i64> = m
        .series
        .iter()
        .flat_map(|s| s.timestamps.iter().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// One Float64 column per measurement over `timestamps`.
fn wide_values(m: &Measurements, timestamps: &[i64]) -> Result<Vec<(String, Vec<Option<f64>>)>> {
    let mut out: Vec<(String, Vec<Option<f64>>)> = Vec::with_capacity(m.series.len());
    for s in &m.series {
        if out.iter().any(|(n, _)| n == &s.name) {
            return Err(Error::invalid_argument(
                "shape",
                format!(
                    "measurement {} appears twice in one result; use the long shape",
                    s.name
                ),
            ));
        }
        let values = if s.timestamps.as_slice() == timestamps {
            s.values.clone()
        } else {
            let mut v = vec![None; timestamps.len()];
            for (ts, val) in s.timestamps.iter().zip(&s.values) {
                if let Ok(i) = timestamps.binary_search(ts) {
                    if v[i].is_some() && val.is_some() && v[i] != *val {
                        return Err(Error::invalid_argument(
                            "shape",
                            format!("measurement {} has two values at one timestamp; use the long shape", s.name),
                        ));
                    }
                    if val.is_some() {
                        v[i] = *val;
                    }
                }
            }
            v
        };
        out.push((s.name.clone(), values));
    }
    Ok(out)
}

/// The wide frame of one result: `timestamp`, then one column per measurement.
pub fn wide_frame(m: &Measurements) -> Result<DataFrame> {
    let timestamps = shared_timestamps(m);
    let height = timestamps.len();
    let mut columns = vec![
        Int64Chunked::from_vec("timestamp".into(), timestamps.clone())
            .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
            .into_column(),
    ];
    for (name, values) in wide_values(m, &timestamps)? {
        columns
            .push(Float64Chunked::from_slice_options(name.as_str().into(), &values).into_column());
    }
    DataFrame::new(height, columns).map_err(polars_err)
}

/// The wide frame of many results: `group_id, host_id, partition_name, timestamp`, then one
/// column per measurement (in order of first appearance), sorted by key.
pub fn wide_fleet_frame<'a>(
    results: impl IntoIterator<Item = &'a Measurements>,
) -> Result<DataFrame> {
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut keys: [Vec<Option<String>>; 3] = Default::default();
    let mut ts_all: Vec<i64> = Vec::new();
    let mut cols: Vec<Vec<Option<f64>>> = Vec::new();
    for m in results {
        let timestamps = shared_timestamps(m);
        let n = timestamps.len();
        let before = ts_all.len();
        for (name, values) in wide_values(m, &timestamps)? {
            let i = *index.entry(name.clone()).or_insert_with(|| {
                names.push(name);
                cols.push(vec![None; before]);
                cols.len() - 1
            });
            cols[i].extend(values);
        }
        for c in &mut cols {
            c.resize(before + n, None);
        }
        for (k, v) in keys
            .iter_mut()
            .zip([&m.group_id, &m.host_id, &m.partition_name])
        {
            k.extend(std::iter::repeat_n(v.clone(), n));
        }
        ts_all.extend(timestamps);
    }
    let height = ts_all.len();
    let mut columns: Vec<Column> = ["group_id", "host_id", "partition_name"]
        .iter()
        .zip(&keys)
        .map(|(name, k)| {
            StringChunked::from_iter_options((*name).into(), k.iter().map(|v| v.as_deref()))
                .into_column()
        })
        .collect();
    columns.push(
        Int64Chunked::from_vec("timestamp".into(), ts_all)
            .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
            .into_column(),
    );
    for (name, values) in names.iter().zip(&cols) {
        columns
            .push(Float64Chunked::from_slice_options(name.as_str().into(), values).into_column());
    }
    let df = DataFrame::new(height, columns).map_err(polars_err)?;
    df.sort(
        ["group_id", "host_id", "partition_name", "timestamp"],
        SortMultipleOptions::default().with_maintain_order(true),
    )
    .map_err(polars_err)
}

impl Measurements {
    /// This result as a DataFrame.
    ///
    /// ```
    /// let m: opsapi::Measurements = opsapi::decode_model(br#"{"groupId":"g","hostId":"h","measurements":[
    ///   {"name":"OPCOUNTER_CMD","units":"SCALAR_PER_SECOND","dataPoints":[
    ///     {"timestamp":"2024-05-01T00:00:00Z","value":null},{"timestamp":"2024-05-01T00:01:00Z","value":2.5}]}]}"#).unwrap();
    /// let long = m.to_frame(opsapi::frame::Shape::Long).unwrap();
    /// assert_eq!(long.height(), 2);
    /// assert_eq!(long.column("value").unwrap().null_count(), 1);
    /// let wide = m.to_frame(opsapi::frame::Shape::Wide).unwrap();
    /// assert_eq!(wide.get_column_names(), ["timestamp", "OPCOUNTER_CMD"]);
    /// ```
    pub fn to_frame(&self, shape: Shape) -> Result<DataFrame> {
        match shape {
            Shape::Long => long_frame([self]),
            Shape::Wide => wide_frame(self),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Frames of lists.

struct Cols {
    height: usize,
    columns: Vec<Column>,
}

impl Cols {
    fn new(height: usize) -> Self {
        Self {
            height,
            columns: Vec::new(),
        }
    }
    fn str<'a>(&mut self, name: &str, it: impl Iterator<Item = Option<&'a str>>) {
        self.columns
            .push(StringChunked::from_iter_options(name.into(), it).into_column());
    }
    fn time(&mut self, name: &str, it: impl Iterator<Item = Option<DateTime<Utc>>>) {
        let ca = Int64Chunked::from_iter_options(
            name.into(),
            it.map(|t| t.map(|t| t.timestamp_millis())),
        );
        self.columns.push(
            ca.into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
                .into_column(),
        );
    }
    fn f64(&mut self, name: &str, it: impl Iterator<Item = Option<f64>>) {
        self.columns
            .push(Float64Chunked::from_iter_options(name.into(), it).into_column());
    }
    fn i64(&mut self, name: &str, it: impl Iterator<Item = Option<i64>>) {
        self.columns
            .push(Int64Chunked::from_iter_options(name.into(), it).into_column());
    }
    fn bool(&mut self, name: &str, it: impl Iterator<Item = Option<bool>>) {
        self.columns
            .push(BooleanChunked::from_iter_options(name.into(), it).into_column());
    }
    fn finish(self) -> Result<DataFrame> {
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

// ---------------------------------------------------------------------------------------
// Fleet pulls.

/// One target of a fleet pull.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// Host measurements of `(group_id, host_id)`.
    Host {
        /// The project.
        group_id: String,
        /// The host.
        host_id: String,
    },
    /// Disk-partition measurements of `(group_id, host_id, partition_name)`.
    Disk {
        /// The project.
        group_id: String,
        /// The host.
        host_id: String,
        /// The partition.
        partition_name: String,
    },
}

impl Target {
    /// A host target.
    pub fn host(group_id: impl Into<String>, host_id: impl Into<String>) -> Self {
        Self::Host {
            group_id: group_id.into(),
            host_id: host_id.into(),
        }
    }
    /// A disk-partition target.
    pub fn disk(
        group_id: impl Into<String>,
        host_id: impl Into<String>,
        partition_name: impl Into<String>,
    ) -> Self {
        Self::Disk {
            group_id: group_id.into(),
            host_id: host_id.into(),
            partition_name: partition_name.into(),
        }
    }
    /// The project.
    pub fn group_id(&self) -> &str {
        match self {
            Self::Host { group_id, .. } | Self::Disk { group_id, .. } => group_id,
        }
    }
    /// The host.
    pub fn host_id(&self) -> &str {
        match self {
            Self::Host { host_id, .. } | Self::Disk { host_id, .. } => host_id,
        }
    }
    /// The partition, for disk targets.
    pub fn partition_name(&self) -> Option<&str> {
        match self {
            Self::Host { .. } => None,
            Self::Disk { partition_name, .. } => Some(partition_name),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Host { group_id, host_id } => write!(f, "host {host_id} of group {group_id}"),
            Self::Disk {
                group_id,
                host_id,
                partition_name,
            } => write!(
                f,
                "partition {partition_name} of host {host_id} of group {group_id}"
            ),
        }
    }
}

/// Progress of a fleet pull: called once per finished target.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Targets finished so far (succeeded or failed).
    pub done: usize,
    /// All targets.
    pub total: usize,
    /// The target that just finished.
    pub target: &'a Target,
    /// Whether it succeeded.
    pub ok: bool,
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(Progress<'_>) + Send + Sync>;

/// Options of a fleet pull.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct FleetOptions {
    /// Long (default) or wide.
    pub shape: Shape,
    /// Keep the targets that succeeded and report the failed ones in
    /// [`FleetResult::failures`], instead of failing the whole pull on the first error.
    pub keep_going: bool,
    /// Called after each target.
    pub progress: Option<ProgressFn>,
    /// Rows of the long frame built at once, while later targets are still fetched; each
    /// batch is one chunk of the frame. `None`: about a million ([`DEFAULT_BATCH_ROWS`]).
    pub batch_rows: Option<usize>,
}

impl std::fmt::Debug for FleetOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FleetOptions")
            .field("shape", &self.shape)
            .field("keep_going", &self.keep_going)
            .field("progress", &self.progress.is_some())
            .field("batch_rows", &self.batch_rows)
            .finish()
    }
}

impl FleetOptions {
    /// The default options: long shape, stop at the first failure, no progress.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the shape.
    pub fn shape(mut self, shape: Shape) -> Self {
        self.shape = shape;
        self
    }
    /// Keeps going past failed targets.
    pub fn keep_going(mut self, keep_going: bool) -> Self {
        self.keep_going = keep_going;
        self
    }
    /// Sets a progress callback.
    pub fn progress(mut self, f: impl Fn(Progress<'_>) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }
    /// Sets the rows of the long frame built at once (at least 1).
    pub fn batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = Some(rows.max(1));
        self
    }
}

/// A target that failed in a fleet pull with `keep_going`.
#[derive(Debug)]
pub struct TargetFailure {
    /// The target.
    pub target: Target,
    /// Why it failed.
    pub error: Error,
}

/// The result of a fleet pull.
#[derive(Debug)]
pub struct FleetResult {
    /// The frame of every target that succeeded.
    pub frame: DataFrame,
    /// The targets that failed (only with `keep_going`; otherwise the pull fails).
    pub failures: Vec<TargetFailure>,
}

impl FleetResult {
    /// The failures as a table: `group_id, host_id, partition_name, status, error_code,
    /// error` (the message).
    pub fn failures_frame(&self) -> Result<DataFrame> {
        let f = &self.failures;
        let mut c = Cols::new(f.len());
        c.str("group_id", f.iter().map(|x| Some(x.target.group_id())));
        c.str("host_id", f.iter().map(|x| Some(x.target.host_id())));
        c.str(
            "partition_name",
            f.iter().map(|x| x.target.partition_name()),
        );
        c.i64("status", f.iter().map(|x| x.error.status().map(i64::from)));
        c.str("error_code", f.iter().map(|x| x.error.error_code()));
        let messages: Vec<String> = f.iter().map(|x| x.error.to_string()).collect();
        c.str("error", messages.iter().map(|m| Some(m.as_str())));
        c.finish()
    }
}

// ---------------------------------------------------------------------------------------
// Parquet.

/// Characters kept as they are in a hive partition value; everything else is
/// percent-encoded, as Spark and polars expect.
const HIVE_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn hive_value(v: &str) -> String {
    percent_encoding::utf8_percent_encode(v, HIVE_VALUE).to_string()
}

/// Where the Parquet file of one target goes under `root`:
/// `group_id=G/host_id=H/host.parquet` or `group_id=G/host_id=H/disk-<partition>.parquet`.
pub fn parquet_path(root: &std::path::Path, target: &Target) -> std::path::PathBuf {
    let dir = root
        .join(format!("group_id={}", hive_value(target.group_id())))
        .join(format!("host_id={}", hive_value(target.host_id())));
    match target.partition_name() {
        None => dir.join("host.parquet"),
        Some(p) => dir.join(format!("disk-{}.parquet", hive_value(p))),
    }
}

/// Writes the long frame of one result as a Parquet file (zstd), leaving out the hive
/// partition columns `group_id` and `host_id`, which the path carries.
pub(crate) fn write_parquet_file(path: &std::path::Path, m: &Measurements) -> Result<u64> {
    let mut df = long_frame([m])?.drop_many(["group_id", "host_id"]);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Config(format!("cannot create {}: {e}", dir.display())))?;
    }
    // Written next to its final name and renamed, so a reader never sees half a file.
    let tmp = path.with_extension("parquet.partial");
    let file = std::fs::File::create(&tmp)
        .map_err(|e| Error::Config(format!("cannot create {}: {e}", tmp.display())))?;
    ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(&mut df)
        .map_err(polars_err)?;
    std::fs::rename(&tmp, path)
        .map_err(|e| Error::Config(format!("cannot write {}: {e}", path.display())))?;
    Ok(df.height() as u64)
}

/// What a Parquet fleet pull wrote.
#[derive(Debug)]
pub struct ParquetPull {
    /// One file per target that succeeded, in target order.
    pub files: Vec<std::path::PathBuf>,
    /// Data points written.
    pub rows: u64,
    /// Targets that failed (with `keep_going`).
    pub failures: Vec<TargetFailure>,
}
