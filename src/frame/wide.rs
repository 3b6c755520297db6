//! The wide shape: key columns, then one Float64 column per measurement, sorted by key.

use std::collections::HashMap;

use polars::prelude::*;

use super::{polars_err, KeyColumn};
use crate::error::{Error, Result};
use crate::models::Measurements;

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

/// The key columns of a wide fleet frame, in order.
const WIDE_KEYS: [&str; 5] = [
    "group_id",
    "host_id",
    "partition_name",
    "database_name",
    "timestamp",
];

/// The wide frame of many results: `group_id, host_id, partition_name, database_name,
/// timestamp`, then one
/// column per measurement (in order of first appearance), sorted by key.
pub fn wide_fleet_frame<'a>(
    results: impl IntoIterator<Item = &'a Measurements>,
) -> Result<DataFrame> {
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut keys: [KeyColumn; 4] = std::array::from_fn(|_| KeyColumn::with_capacity(0));
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
        for (k, v) in
            keys.iter_mut()
                .zip([&m.group_id, &m.host_id, &m.partition_name, &m.database_name])
        {
            k.extend(v.as_deref(), n)?;
        }
        ts_all.extend(timestamps);
    }
    let height = ts_all.len();
    let mut columns: Vec<Column> = WIDE_KEYS[..4]
        .iter()
        .zip(keys)
        .map(|(name, k)| k.finish(name))
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
        WIDE_KEYS,
        SortMultipleOptions::default().with_maintain_order(true),
    )
    .map_err(polars_err)
}
