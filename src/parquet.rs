//! Hive-partitioned Parquet output of fleet pulls: `group_id=G/host_id=H/host.parquet`.

use polars::prelude::*;

use crate::api::measurements::target::{Target, TargetFailure};
use crate::error::{Error, Result};
use crate::frame::columns::{polars_err, LONG_COLUMNS};
use crate::frame::long::long_frame;
use crate::models::Measurements;

/// A hive partition value: RFC 3986 unreserved characters as they are, everything else
/// percent-encoded, as Spark and polars expect (the same set as a request path segment).
pub(crate) fn hive_value(v: &str) -> String {
    percent_encoding::utf8_percent_encode(v, crate::request::SEGMENT).to_string()
}

/// Where the Parquet file of one target goes under `root`:
/// `group_id=G/host_id=H/host.parquet`, `group_id=G/host_id=H/disk-<partition>.parquet` or
/// `group_id=G/host_id=H/database-<database>.parquet`.
pub fn parquet_path(root: &std::path::Path, target: &Target) -> std::path::PathBuf {
    let dir = root
        .join(format!("group_id={}", hive_value(target.group_id())))
        .join(format!("host_id={}", hive_value(target.host_id())));
    match target {
        Target::Host { .. } => dir.join("host.parquet"),
        Target::Disk { partition_name, .. } => {
            dir.join(format!("disk-{}.parquet", hive_value(partition_name)))
        }
        Target::Database { database_name, .. } => {
            dir.join(format!("database-{}.parquet", hive_value(database_name)))
        }
    }
}

/// Writes the long frame of one result as a Parquet file (zstd), leaving out the hive
/// partition columns `group_id` and `host_id`, which the path carries.
///
/// Key columns are written as text (Parquet dictionary-encodes them all the same): a
/// Categorical column would carry its Arrow dictionary type into every file, and readers that
/// combine files (pandas and Dask) refuse dictionaries that differ from file to file.
pub(crate) fn write_parquet_file(path: &std::path::Path, m: &Measurements) -> Result<u64> {
    let mut df = long_frame([m])?.drop_many(["group_id", "host_id"]);
    for name in LONG_COLUMNS {
        let is_key = df
            .column(name)
            .is_ok_and(|c| matches!(c.dtype(), DataType::Categorical(..)));
        if is_key {
            let text = df
                .column(name)
                .and_then(|c| c.cast(&DataType::String))
                .map_err(polars_err)?;
            df.with_column(text).map_err(polars_err)?;
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    // Written next to its final name and renamed, so a reader never sees half a file.
    let tmp = path.with_extension("parquet.partial");
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(&mut df)
        .map_err(polars_err)?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
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
