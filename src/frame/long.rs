//! The long shape: one row per data point, built in one pass over the decoded columns.

use polars::prelude::*;
use polars_arrow::array::PrimitiveArray;
use polars_arrow::bitmap::{Bitmap, MutableBitmap};
use polars_arrow::datatypes::ArrowDataType;

use super::keys::KeyColumn;
use super::polars_err;
use crate::error::{Error, Result};
use crate::models::{Measurements, Series};

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
/// key column looks each run's value up once and repeats its 4-byte category id. Most of the
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
    let keys: [(&str, Key); 7] = [
        ("group_id", |r| r.result.group_id.as_deref()),
        ("host_id", |r| r.result.host_id.as_deref()),
        ("process_id", |r| r.result.process_id.as_deref()),
        ("partition_name", |r| r.result.partition_name.as_deref()),
        ("database_name", |r| r.result.database_name.as_deref()),
        ("measurement", |r| Some(r.series.name.as_str())),
        ("units", |r| r.series.units.as_deref()),
    ];
    let key_columns = |range: std::ops::Range<usize>| -> Result<Vec<Column>> {
        keys[range]
            .iter()
            .map(|(name, key)| key_column(name, &runs, height, *key))
            .collect()
    };
    // The numbers are most of the bytes: one thread fills them, the other the keys.
    let columns = if height >= PARALLEL_ROWS {
        std::thread::scope(|scope| {
            let first = scope.spawn(|| key_columns(0..7));
            let numbers = number_columns(&runs, height);
            let mut columns = first
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
            columns.extend(numbers);
            Ok::<_, Error>(columns)
        })?
    } else {
        let mut columns = key_columns(0..7)?;
        columns.extend(number_columns(&runs, height));
        columns
    };
    DataFrame::new(height, columns).map_err(polars_err)
}

fn key_column(
    name: &str,
    runs: &[Run<'_>],
    height: usize,
    key: impl for<'r> Fn(&Run<'r>) -> Option<&'r str>,
) -> Result<Column> {
    let mut column = KeyColumn::with_capacity(height);
    for run in runs {
        column.extend(key(run), run.series.len())?;
    }
    Ok(column.finish(name))
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
    let mut frames = Vec::with_capacity(tasks.len());
    for FrameTask(task) in tasks {
        frames.push(
            task.await.unwrap_or_else(|e| {
                Err(Error::Internal(format!("building a frame failed: {e}")))
            })?,
        );
    }
    stack_frames(frames.into_iter().map(Ok))
}

/// Long frames stacked in order (one chunk each, no copy); none: the empty long frame. The
/// first error ends it.
pub(crate) fn stack_frames(
    frames: impl IntoIterator<Item = Result<DataFrame>>,
) -> Result<DataFrame> {
    let mut out: Option<DataFrame> = None;
    for df in frames {
        let df = df?;
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
