//! The shape and columns of measurement frames, and the one conversion of a polars error.

use polars::prelude::PolarsError;

use crate::error::{Error, Result};

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
/// Categorical ([`key_dtype`](crate::frame::key_dtype)). The Python package takes them from here
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
