//! Polars DataFrames: measurements (long and wide), and frames of lists.
//!
//! Long shape: one row per data point, columns `group_id, host_id, process_id,
//! partition_name, database_name, measurement, units, timestamp, value`. Wide shape: key
//! columns then one Float64 column per measurement, sorted by key. Key columns are
//! Categorical over polars' global categories ([`key_dtype`]). A `null` data point stays
//! null: never NaN, 0, or dropped. Timestamps are `Datetime(ms, UTC)`.

pub(crate) mod columns;
pub mod context;
mod keys;
pub(crate) mod lists;
pub(crate) mod long;
pub(crate) mod wide;

use polars::prelude::*;

use crate::error::Result;
use crate::models::Measurements;

pub(crate) use columns::polars_err;
pub use columns::{Shape, LONG_COLUMNS, LONG_KEY_COLUMNS};
pub use keys::key_dtype;
pub(crate) use keys::{key_column, KeyColumn};
pub use lists::{alerts_frame, clusters_frame, events_frame, hosts_frame, slow_queries_frame};
pub(crate) use long::stack_frames;
pub use long::{long_frame, DEFAULT_BATCH_ROWS};
pub use wide::{wide_fleet_frame, wide_frame};

// Fleet pulls and their Parquet output lived here before they had modules of their own
// (those modules use this one's parts, `frame::long` and the like, never this file).
pub use crate::fleet::{FleetOptions, FleetResult, Progress, ProgressFn, Target, TargetFailure};
pub use crate::parquet::{parquet_path, ParquetPull};

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
