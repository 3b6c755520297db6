//! The store's data files: one target's points of one month (or part of a month, until
//! compacted), as Parquet that DuckDB, pandas, Dask and polars read as it is.
//!
//! Columns: `process_id, partition_name, database_name, measurement, units` (text,
//! dictionary-encoded), `timestamp` (Datetime(ms, UTC), delta-encoded), `value` (Float64,
//! dictionary-encoded where its values repeat, plain otherwise); `group_id` and `host_id` are
//! the hive folders. Rows are sorted by measurement then timestamp: each series is one run, so
//! that the deltas of its timestamps are one constant and zstd finds its values' repeats.
//! (bench/store.py measures the bytes per point against the JSON and `fleet_to_parquet`.)

use std::path::Path;

use polars::prelude::*;
use polars_parquet::write::{
    get_dtype_encoding, CompressionOptions, Encoding, FileWriter, RowGroupIterator,
    StatisticsOptions, Version, WriteOptions, ZstdLevel,
};

use super::plan;
use crate::error::{Error, Result};
use crate::frame::{long_frame, polars_err, LONG_COLUMNS};
use crate::models::Measurements;

/// The columns of a data file, in order: the long shape's without the two the folders hold
/// (`group_id`, `host_id`).
pub(crate) const FILE_COLUMNS: &[&str] = LONG_COLUMNS.split_at(2).1;

/// The text columns of a data file (Categorical in frames, text in files).
const KEY_COLUMNS: [&str; 5] = [
    "process_id",
    "partition_name",
    "database_name",
    "measurement",
    "units",
];

/// zstd level of the data files: small files written once and read many times.
const ZSTD_LEVEL: i32 = 9;

/// The frame of one target's points as a file holds them: the long frame without the hive
/// columns, text keys, sorted by measurement then timestamp.
pub(crate) fn file_frame(m: &Measurements) -> Result<DataFrame> {
    let df = long_frame([m])?.drop_many(["group_id", "host_id"]);
    let mut df = with_text_keys(df)?;
    sort(&mut df)?;
    Ok(df)
}

fn with_text_keys(mut df: DataFrame) -> Result<DataFrame> {
    for name in KEY_COLUMNS {
        let text = df
            .column(name)
            .and_then(|c| c.cast(&DataType::String))
            .map_err(polars_err)?;
        df.with_column(text).map_err(polars_err)?;
    }
    Ok(df)
}

fn sort(df: &mut DataFrame) -> Result<()> {
    df.sort_in_place(["measurement", "timestamp"], SortMultipleOptions::default())
        .map_err(polars_err)?;
    Ok(())
}

/// The first and last timestamp of a file frame (milliseconds), if it has rows.
pub(crate) fn time_range(df: &DataFrame) -> Result<Option<(i64, i64)>> {
    let ts = df
        .column("timestamp")
        .and_then(|c| c.cast(&DataType::Int64))
        .map_err(polars_err)?;
    let ts = ts.i64().map_err(polars_err)?;
    Ok(ts.min().zip(ts.max()))
}

/// The Parquet bytes of a file frame, with the encodings the module documents.
pub(crate) fn encode(df: &mut DataFrame) -> Result<Vec<u8>> {
    df.rechunk_mut();
    let schema = df.schema().to_arrow(CompatLevel::newest());
    let encodings: Vec<Vec<Encoding>> = schema
        .iter_values()
        .map(|f| {
            if f.name.as_str() == "timestamp" {
                vec![Encoding::DeltaBinaryPacked]
            } else {
                get_dtype_encoding(&f.dtype)
            }
        })
        .collect();
    let options = WriteOptions {
        statistics: StatisticsOptions::default(),
        version: Version::V1,
        compression: CompressionOptions::Zstd(Some(
            ZstdLevel::try_new(ZSTD_LEVEL).map_err(|e| Error::Frame(e.to_string()))?,
        )),
        data_page_size: None,
    };
    let batches: Vec<_> = df.iter_chunks(CompatLevel::newest(), false).collect();
    let rows: Vec<u64> = batches.iter().map(|b| b.len() as u64).collect();
    let groups = RowGroupIterator::try_new(
        batches.into_iter().map(Ok),
        &schema,
        options,
        encodings.into(),
    )
    .map_err(polars_err)?;
    let mut out = Vec::new();
    let mut writer = FileWriter::try_new(&mut out, schema.clone(), options).map_err(polars_err)?;
    for (group, n) in groups.zip(rows) {
        writer
            .write(n, group.map_err(polars_err)?)
            .map_err(polars_err)?;
    }
    // No Arrow schema in the footer (polars writes one): the Parquet types alone read back as
    // the same dtypes (text, Datetime(ms, UTC) from a UTC-adjusted timestamp, Float64) in
    // polars, DuckDB and pyarrow, and an hourly increment's file is 600 bytes (a fifth) smaller.
    writer.end(Some(Vec::new())).map_err(polars_err)?;
    Ok(out)
}

/// Reads a data file back (text keys), its columns in file order; a file that is not one is
/// an error naming it.
pub(crate) fn read(path: &Path) -> Result<DataFrame> {
    let bytes = std::fs::read(path).map_err(|e| Error::StoreFile {
        path: path.to_path_buf(),
        problem: match e.kind() {
            std::io::ErrorKind::NotFound => "missing".into(),
            _ => format!("cannot be read: {e}"),
        },
    })?;
    from_bytes(path, bytes)
}

/// A data file's frame from its bytes (`path` names it in the error).
pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<DataFrame> {
    let bad = |problem: String| Error::StoreFile {
        path: path.to_path_buf(),
        problem,
    };
    let df = ParquetReader::new(std::io::Cursor::new(bytes))
        .finish()
        .map_err(|e| bad(format!("damaged: not a readable store file: {e}")))?;
    let mut df = df
        .select(FILE_COLUMNS)
        .map_err(|e| bad(format!("not a store file: {e}")))?;
    // A UTC-adjusted Parquet timestamp reads as "+00:00": the frames' zone is "UTC".
    let ms = df
        .column("timestamp")
        .and_then(|c| c.cast(&DataType::Int64))
        .map_err(polars_err)?;
    let ts = ms
        .i64()
        .map_err(polars_err)?
        .clone()
        .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC));
    df.with_column(ts.into_column()).map_err(polars_err)?;
    Ok(df)
}

/// One month's worth of a target's new points.
pub(crate) struct MonthPart {
    /// `YYYY-MM`.
    pub month: String,
    pub frame: DataFrame,
}

/// Splits a target's new points by calendar month (UTC), each part a file frame.
pub(crate) fn by_month(m: &Measurements) -> Result<Vec<MonthPart>> {
    let (lo, hi) = m
        .series
        .iter()
        .flat_map(|s| s.timestamps.iter().copied())
        .fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let mut parts = Vec::new();
    let mut start = lo;
    while start <= hi {
        let next = plan::next_month_start(start);
        let mut part = m.clone();
        if plan::retain_window(&mut part, start, next - 1) > 0 {
            parts.push(MonthPart {
                month: plan::month_of(start),
                frame: file_frame(&part)?,
            });
        }
        start = next;
    }
    Ok(parts)
}

/// The rows of several file frames as one, sorted as a file is.
pub(crate) fn merge(frames: Vec<DataFrame>) -> Result<DataFrame> {
    let mut df = merge_unsorted(frames)?;
    sort(&mut df)?;
    Ok(df)
}

fn merge_unsorted(frames: Vec<DataFrame>) -> Result<DataFrame> {
    let mut out: Option<DataFrame> = None;
    for f in frames {
        match &mut out {
            None => out = Some(f),
            Some(acc) => {
                acc.vstack_mut_owned(f).map_err(polars_err)?;
            }
        }
    }
    out.ok_or_else(|| Error::Internal("merging no files".into()))
}

/// The rows of several file frames as one, each point once (the first frame's row kept
/// where several hold the same series and timestamp), sorted as a file is.
pub(crate) fn merge_unique(frames: Vec<DataFrame>) -> Result<DataFrame> {
    let df = merge_unsorted(frames)?;
    let key: Vec<String> = KEY_COLUMNS
        .iter()
        .filter(|c| **c != "units")
        .chain(std::iter::once(&"timestamp"))
        .map(|c| c.to_string())
        .collect();
    let mut df = df
        .unique_stable(Some(&key), UniqueKeepStrategy::First, None)
        .map_err(polars_err)?;
    sort(&mut df)?;
    Ok(df)
}

/// How many rows of a file frame have a timestamp within `first..=last` (milliseconds).
pub(crate) fn count_between(df: &DataFrame, first: i64, last: i64) -> Result<u64> {
    let ts = df
        .column("timestamp")
        .and_then(|c| c.cast(&DataType::Int64))
        .map_err(polars_err)?;
    let ts = ts.i64().map_err(polars_err)?;
    Ok(ts
        .iter()
        .flatten()
        .filter(|t| (first..=last).contains(t))
        .count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Measurements {
        crate::decode_model(
            br#"{"groupId":"g","hostId":"h","processId":"h:27017","partitionName":"data","measurements":[
          {"name":"DISK_PARTITION_SPACE_USED","units":"BYTES","dataPoints":[
            {"timestamp":"2026-02-28T23:00:00Z","value":1},{"timestamp":"2026-03-01T00:00:00Z","value":2},
            {"timestamp":"2026-03-01T01:00:00Z","value":null}]},
          {"name":"DISK_PARTITION_IOPS_READ","units":"SCALAR_PER_SECOND","dataPoints":[
            {"timestamp":"2026-02-28T23:00:00Z","value":null},{"timestamp":"2026-03-01T00:00:00Z","value":5.5},
            {"timestamp":"2026-03-01T01:00:00Z","value":6.5}]}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_file_round_trips_with_its_nulls_and_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut df = file_frame(&sample()).unwrap();
        assert_eq!(df.get_column_names(), FILE_COLUMNS);
        let bytes = encode(&mut df).unwrap();
        let path = dir.path().join("f.parquet");
        std::fs::write(&path, bytes).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.schema(), df.schema());
        assert!(back.equals_missing(&df));
        // Sorted by measurement, then time.
        let m = back.column("measurement").unwrap().str().unwrap().get(0);
        assert_eq!(m, Some("DISK_PARTITION_IOPS_READ"));
        assert_eq!(back.column("value").unwrap().null_count(), 2);
        assert_eq!(
            time_range(&back).unwrap(),
            Some((1_772_319_600_000, 1_772_326_800_000))
        );
    }

    #[test]
    fn points_are_split_by_month() {
        let parts = by_month(&sample()).unwrap();
        let months: Vec<&str> = parts.iter().map(|p| p.month.as_str()).collect();
        assert_eq!(months, ["2026-02", "2026-03"]);
        assert_eq!(parts[0].frame.height(), 2);
        assert_eq!(parts[1].frame.height(), 4);
        let merged = merge(parts.into_iter().map(|p| p.frame).collect()).unwrap();
        assert!(merged.equals_missing(&file_frame(&sample()).unwrap()));
    }
}
