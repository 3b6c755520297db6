//! Fleet pulls: the measurements of many targets over one window, fetched concurrently,
//! decoded in tasks of their own and built into one frame (or written to Parquet) in target
//! order, with progress and an optional keep-going mode.

use std::sync::Arc;

use futures_util::stream::{self, StreamExt};
use polars::prelude::*;

use crate::api::measurements::query::MeasurementsQuery;
use crate::api::measurements::target::{fetch, target_request};
use crate::api::measurements::MeasurementsApi;
use crate::client::Client;
use crate::error::Result;
use crate::frame::columns::Shape;
use crate::frame::lists::Cols;
use crate::frame::long::{stack, FrameTask, DEFAULT_BATCH_ROWS};
use crate::frame::wide::wide_fleet_frame;
use crate::models::Measurements;
use crate::request::Request;

pub use crate::parquet::ParquetPull;

pub use crate::api::measurements::target::{Target, TargetFailure};

/// The fleet pulls' entry points: beside the workflow they run, so that `api/` never imports
/// it (the public path `client.measurements().fleet(..)` is unchanged).
impl MeasurementsApi<'_> {
    /// Measurements of many targets over one window, fetched concurrently (up to the
    /// client's `max_concurrency`), as one frame.
    ///
    /// Targets are `(group, host)` for host measurements and `(group, host, partition)` for
    /// disk measurements; they may be mixed. Every identifier is checked before the first
    /// request. A failing target fails the pull with an error that names its path, unless
    /// `options.keep_going` is set: then the frame holds every target that succeeded and
    /// [`FleetResult::failures`] the others.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::fleet::{FleetOptions, Target};
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let targets = vec![Target::host("g1", "h1"), Target::disk("g1", "h1", "data")];
    /// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap());
    /// let pulled = client.measurements().fleet(&targets, &q, &FleetOptions::new().keep_going(true)).await?;
    /// println!("{} rows, {} failures", pulled.frame.height(), pulled.failures.len());
    /// # Ok(()) }
    /// ```
    pub async fn fleet(
        &self,
        targets: &[Target],
        query: &MeasurementsQuery,
        options: &FleetOptions,
    ) -> Result<FleetResult> {
        pull(self.client, targets, query, options).await
    }

    /// A fleet pull written to hive-partitioned Parquet under `root`
    /// (`group_id=…/host_id=…/host.parquet`, `…/disk-<partition>.parquet`), target by target
    /// as results arrive, so that a pull bigger than memory works. DuckDB, Spark or polars
    /// (`scan_parquet(root, hive_partitioning=True)`) read it back with every long column.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::fleet::{FleetOptions, Target};
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap());
    /// let out = client.measurements()
    ///     .fleet_to_parquet(&[Target::host("g1", "h1")], &q, "out/measurements".as_ref(), &FleetOptions::new())
    ///     .await?;
    /// println!("{} rows in {} files", out.rows, out.files.len());
    /// # Ok(()) }
    /// ```
    pub async fn fleet_to_parquet(
        &self,
        targets: &[Target],
        query: &MeasurementsQuery,
        root: &std::path::Path,
        options: &FleetOptions,
    ) -> Result<ParquetPull> {
        pull_to_parquet(self.client, targets, query, root, options).await
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

/// The result of a fleet pull.
#[derive(Debug)]
pub struct FleetResult {
    /// The frame of every target that succeeded.
    pub frame: DataFrame,
    /// The targets that failed (only with `keep_going`; otherwise the pull fails).
    pub failures: Vec<TargetFailure>,
}

impl FleetResult {
    /// The failures as a table: `group_id, host_id, partition_name, database_name, status,
    /// error_code, error` (the message).
    pub fn failures_frame(&self) -> Result<DataFrame> {
        let f = &self.failures;
        let mut c = Cols::new(f.len());
        c.key("group_id", f.iter().map(|x| Some(x.target.group_id())));
        c.key("host_id", f.iter().map(|x| Some(x.target.host_id())));
        c.key(
            "partition_name",
            f.iter().map(|x| x.target.partition_name()),
        );
        c.key("database_name", f.iter().map(|x| x.target.database_name()));
        c.i64("status", f.iter().map(|x| x.error.status().map(i64::from)));
        c.str("error_code", f.iter().map(|x| x.error.error_code()));
        let messages: Vec<String> = f.iter().map(|x| x.error.to_string()).collect();
        c.str("error", messages.iter().map(|m| Some(m.as_str())));
        c.finish()
    }
}

/// The fleet pull behind [`crate::api::measurements::MeasurementsApi::fleet`].
pub(crate) async fn pull(
    client: &Client,
    targets: &[Target],
    query: &MeasurementsQuery,
    options: &FleetOptions,
) -> Result<FleetResult> {
    let requests = target_requests(client, targets, query)?;
    let shape = options.shape;
    // Each target is fetched and decoded in a task of its own, so that decoding runs on
    // every worker thread, not only on the one driving this loop. The long frame is built
    // in batches of about a million rows (`options.batch_rows`), each on a blocking thread while the next
    // targets are still on the wire: a frame is mostly fresh memory written once, and
    // that work overlaps the network. Batches are stacked without a copy, one chunk each.
    let order = fetch_order(targets);
    let results = spawned(client, requests, order, |_, m: Measurements| Ok(m));
    let mut batch: Vec<Measurements> = Vec::new();
    let mut batch_rows = 0;
    let batch_limit = options.batch_rows.unwrap_or(DEFAULT_BATCH_ROWS);
    let mut built: Vec<FrameTask> = Vec::new();
    let failures = drive(targets, results, options, |m| {
        batch_rows += m.data_point_count();
        batch.push(m);
        if shape == Shape::Long && batch_rows >= batch_limit {
            built.push(FrameTask::spawn(std::mem::take(&mut batch)));
            batch_rows = 0;
        }
        Ok(())
    })
    .await?;
    let frame = match shape {
        Shape::Long => {
            built.push(FrameTask::spawn(batch));
            stack(built).await?
        }
        Shape::Wide => wide_fleet_frame(&batch)?,
    };
    Ok(FleetResult { frame, failures })
}

/// The fleet pull behind [`crate::api::measurements::MeasurementsApi::fleet_to_parquet`].
pub(crate) async fn pull_to_parquet(
    client: &Client,
    targets: &[Target],
    query: &MeasurementsQuery,
    root: &std::path::Path,
    options: &FleetOptions,
) -> Result<ParquetPull> {
    let requests = target_requests(client, targets, query)?;
    let paths: Vec<std::path::PathBuf> = targets
        .iter()
        .map(|t| crate::parquet::parquet_path(root, t))
        .collect();
    // Encoding and compressing are CPU work too: done in the target's own task.
    let order = fetch_order(targets);
    let results = spawned(client, requests, order, move |i, m: Measurements| {
        let path = paths[i].clone();
        crate::parquet::write_parquet_file(&path, &m).map(|rows| (path, rows))
    });
    let (mut files, mut rows) = (Vec::new(), 0);
    let failures = drive(targets, results, options, |(path, n)| {
        files.push(path);
        rows += n;
        Ok(())
    })
    .await?;
    let out = ParquetPull {
        files,
        rows,
        failures,
    };
    Ok(out)
}

/// The request of every target as the client's flavour takes it, all checked (query,
/// identifiers, and measurement names against the flavour's) before any is sent.
fn target_requests(
    client: &Client,
    targets: &[Target],
    query: &MeasurementsQuery,
) -> Result<Vec<Request>> {
    query.validate()?;
    let flavour = client.flavour();
    targets
        .iter()
        .map(|t| target_request(t, query)?.for_flavour(flavour))
        .collect()
}

/// The order targets are fetched in: round-robin over their projects, each project's targets
/// in the order given. A server limits requests per project (and the client then paces each
/// project): with the targets of one project next to each other, all of the `max_concurrency`
/// requests in flight would wait on that one project's pace while the others sat idle.
pub(crate) fn fetch_order(targets: &[Target]) -> Vec<usize> {
    let mut projects: Vec<(&str, std::collections::VecDeque<usize>)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        match projects.iter_mut().find(|(g, _)| *g == t.group_id()) {
            Some((_, q)) => q.push_back(i),
            None => projects.push((t.group_id(), [i].into())),
        }
    }
    let mut order = Vec::with_capacity(targets.len());
    while order.len() < targets.len() {
        for (_, q) in &mut projects {
            order.extend(q.pop_front());
        }
    }
    order
}

/// Fetches every request in a task of its own, in `order` (at most `max_concurrency` at once,
/// results in that order, with their index) and applies `then(index, result)` to each decoded
/// result inside that task. Each is one target's measurements ([`target::fetch`]: a list of
/// names longer than one request may carry on the client's flavour is asked in several and
/// merged; series carry the frames' names).
///
/// [`target::fetch`]: crate::api::measurements::target::fetch
pub(crate) fn spawned<T, F>(
    client: &Client,
    requests: Vec<Request>,
    order: Vec<usize>,
    then: F,
) -> impl futures_util::Stream<Item = (usize, Result<T>)> + '_
where
    T: Send + 'static,
    F: Fn(usize, Measurements) -> Result<T> + Send + Sync + 'static,
{
    let then = std::sync::Arc::new(then);
    let mut requests: Vec<Option<Request>> = requests.into_iter().map(Some).collect();
    let ordered: Vec<(usize, Request)> = order
        .into_iter()
        .filter_map(|i| Some((i, requests.get_mut(i)?.take()?)))
        .collect();
    stream::iter(ordered)
        .map(move |(i, req)| {
            let client = client.clone();
            let then = then.clone();
            async move {
                let task = crate::paging::spawn_owned(async move {
                    let m = fetch(&client, req, false).await?;
                    then(i, m)
                });
                (i, task.await)
            }
        })
        // In order, `max_concurrency` at once (a wider or unordered window was measured
        // slower: 0.22 s against 0.30 s and 0.36 s for the benchmark's pull; later targets'
        // bodies and decoding compete with the frame being built).
        .buffered(client.max_concurrency())
}

/// Consumes the results of a fleet pull as they arrive (reporting progress, and stopping at
/// the first failure unless `keep_going`), and hands them to `on_ok`, and failures to the
/// list, in target order: a result that arrives before those of earlier targets waits.
async fn drive<T>(
    targets: &[Target],
    results: impl futures_util::Stream<Item = (usize, Result<T>)>,
    options: &FleetOptions,
    mut on_ok: impl FnMut(T) -> Result<()>,
) -> Result<Vec<TargetFailure>> {
    let mut results = std::pin::pin!(results);
    let mut failures = Vec::new();
    let mut waiting: std::collections::BTreeMap<usize, Result<T>> = Default::default();
    let mut next = 0;
    let mut done = 0;
    while let Some((i, result)) = results.next().await {
        done += 1;
        let target = &targets[i];
        if let Some(progress) = &options.progress {
            progress(Progress {
                done,
                total: targets.len(),
                target,
                ok: result.is_ok(),
            });
        }
        let result = match result {
            Err(error) if !options.keep_going => return Err(error),
            r => r,
        };
        waiting.insert(i, result);
        while let Some(result) = waiting.remove(&next) {
            match result {
                Ok(value) => on_ok(value)?,
                Err(error) => failures.push(TargetFailure {
                    target: targets[next].clone(),
                    error,
                }),
            }
            next += 1;
        }
    }
    Ok(failures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_fetched_round_robin_over_projects_in_the_order_given() {
        let t = |g: &str, h: &str| Target::host(g, h);
        let targets = [
            t("g1", "a"),
            t("g1", "b"),
            t("g2", "c"),
            t("g1", "d"),
            t("g2", "e"),
            t("g3", "f"),
        ];
        assert_eq!(fetch_order(&targets), [0, 2, 5, 1, 4, 3]);
        assert_eq!(fetch_order(&targets[..2]), [0, 1]);
        assert!(fetch_order(&[]).is_empty());
    }
}
