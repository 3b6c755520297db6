//! Polars DataFrames: measurements (long and wide), and frames of lists.
//!
//! Long shape: one row per data point, columns `group_id, host_id, process_id,
//! partition_name, database_name, measurement, units, timestamp, value`. Wide shape: key
//! columns then one Float64 column per measurement, sorted by key. Key columns are
//! Categorical over polars' global categories ([`key_dtype`]). A `null` data point stays
//! null: never NaN, 0, or dropped. Timestamps are `Datetime(ms, UTC)`.

mod keys;
mod lists;
mod long;
mod wide;

use polars::prelude::*;

use crate::error::{Error, Result};
use crate::models::Measurements;

pub use keys::key_dtype;
pub(crate) use keys::{key_column, KeyColumn};
pub(crate) use lists::Cols;
pub use lists::{alerts_frame, events_frame, hosts_frame};
pub use long::{long_frame, DEFAULT_BATCH_ROWS};
pub(crate) use long::{stack, FrameTask};
pub use wide::{wide_fleet_frame, wide_frame};

// Fleet pulls and their Parquet output lived here before they had modules of their own.
pub use crate::fleet::{FleetOptions, FleetResult, Progress, ProgressFn, Target, TargetFailure};
pub use crate::parquet::{parquet_path, ParquetPull};

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
pub const LONG_COLUMNS: [&str; 9] = [
    "group_id",
    "host_id",
    "process_id",
    "partition_name",
    "database_name",
    "measurement",
    "units",
    "timestamp",
    "value",
];

/// The key columns of the long shape, in order: the first seven of [`LONG_COLUMNS`], each
/// Categorical ([`key_dtype`]). The Python package takes them from here
/// (`opsapi._native.LONG_KEY_COLUMNS`).
///
/// ```
/// use opsapi::frame::{key_dtype, Shape, LONG_KEY_COLUMNS};
/// let m: opsapi::Measurements = opsapi::decode_model(br#"{"groupId":"g","hostId":"h","measurements":[
///   {"name":"CONNECTIONS","units":"SCALAR","dataPoints":[{"timestamp":"2024-05-01T00:00:00Z","value":1}]}]}"#).unwrap();
/// let long = m.to_frame(Shape::Long).unwrap();
/// let keys: Vec<&str> = long.columns().iter()
///     .filter(|c| c.dtype() == &key_dtype()).map(|c| c.name().as_str()).collect();
/// assert_eq!(keys, LONG_KEY_COLUMNS);
/// ```
pub const LONG_KEY_COLUMNS: [&str; 7] = *LONG_COLUMNS.first_chunk().unwrap();

pub(crate) fn polars_err(e: PolarsError) -> Error {
    Error::Frame(e.to_string())
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
