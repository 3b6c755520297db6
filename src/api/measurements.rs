//! Host and disk-partition measurements.

use futures_util::stream::{self, StreamExt};

use crate::client::{Client, Request};
use crate::error::Result;
use crate::frame::{
    self, FleetOptions, FleetResult, ParquetPull, Progress, Shape, Target, TargetFailure,
};
use crate::models::Measurements;
use crate::query::MeasurementsQuery;

use super::hosts::host_path;

/// `client.measurements()`
#[derive(Debug, Clone, Copy)]
pub struct MeasurementsApi<'c> {
    pub(crate) client: &'c Client,
}

impl MeasurementsApi<'_> {
    /// Host measurements: `GET /groups/{group_id}/hosts/{host_id}/measurements`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap())
    ///     .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
    /// let m = client.measurements().host("5e9f...", "a1b2...", &q).await?;
    /// for s in &m.series { println!("{} {:?}: {} points", s.name, s.units, s.len()); }
    /// # Ok(()) }
    /// ```
    pub async fn host(
        &self,
        group_id: &str,
        host_id: &str,
        query: &MeasurementsQuery,
    ) -> Result<Measurements> {
        query.validate()?;
        let path = host_path(group_id, host_id)?.lit("measurements").finish();
        self.client
            .get_model(Request::get(path).query(query.to_pairs()))
            .await
    }

    /// Disk-partition measurements:
    /// `GET /groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1H, "P30D".parse().unwrap())
    ///     .metrics(["DISK_PARTITION_SPACE_USED"]);
    /// let m = client.measurements().disk("5e9f...", "a1b2...", "data", &q).await?;
    /// # Ok(()) }
    /// ```
    pub async fn disk(
        &self,
        group_id: &str,
        host_id: &str,
        partition_name: &str,
        query: &MeasurementsQuery,
    ) -> Result<Measurements> {
        query.validate()?;
        let path = host_path(group_id, host_id)?
            .lit("disks")
            .id("partition_name", partition_name)?
            .lit("measurements")
            .finish();
        self.client
            .get_model(Request::get(path).query(query.to_pairs()))
            .await
    }
}

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
    /// use opsapi::frame::{FleetOptions, Target};
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
        let requests = target_requests(targets, query)?;
        let shape = options.shape;
        // Each target is fetched, decoded and turned into frame chunks in a task of its own,
        // so that decoding runs on every worker thread, not only on the one driving this loop.
        // Each target is fetched and decoded in a task of its own, so that decoding runs on
        // every worker thread, not only on the one driving this loop. The long frame is built
        // in batches of about a million rows (`options.batch_rows`), each on a blocking thread while the next
        // targets are still on the wire: a frame is mostly fresh memory written once, and
        // that work overlaps the network. Batches are stacked without a copy, one chunk each.
        let results = spawned(self.client, requests, |_, m: Measurements| Ok(m));
        let mut batch: Vec<Measurements> = Vec::new();
        let mut batch_rows = 0;
        let batch_limit = options.batch_rows.unwrap_or(frame::DEFAULT_BATCH_ROWS);
        let mut built: Vec<frame::FrameTask> = Vec::new();
        let failures = drive(targets, results, options, |m| {
            batch_rows += m.data_point_count();
            batch.push(m);
            if shape == Shape::Long && batch_rows >= batch_limit {
                built.push(frame::FrameTask::spawn(std::mem::take(&mut batch)));
                batch_rows = 0;
            }
            Ok(())
        })
        .await?;
        let frame = match shape {
            Shape::Long => {
                built.push(frame::FrameTask::spawn(batch));
                frame::stack(built).await?
            }
            Shape::Wide => frame::wide_fleet_frame(&batch)?,
        };
        Ok(FleetResult { frame, failures })
    }
}

/// The request of every target, all checked (query and identifiers) before any is sent.
fn target_requests(targets: &[Target], query: &MeasurementsQuery) -> Result<Vec<Request>> {
    query.validate()?;
    targets.iter().map(|t| target_request(t, query)).collect()
}

fn target_request(target: &Target, query: &MeasurementsQuery) -> Result<Request> {
    let base = host_path(target.group_id(), target.host_id())?;
    let path = match target.partition_name() {
        None => base.lit("measurements").finish(),
        Some(p) => base
            .lit("disks")
            .id("partition_name", p)?
            .lit("measurements")
            .finish(),
    };
    Ok(Request::get(path).query(query.to_pairs()))
}

impl MeasurementsApi<'_> {
    /// A fleet pull written to hive-partitioned Parquet under `root`
    /// (`group_id=…/host_id=…/host.parquet`, `…/disk-<partition>.parquet`), target by target
    /// as results arrive, so that a pull bigger than memory works. DuckDB, Spark or polars
    /// (`scan_parquet(root, hive_partitioning=True)`) read it back with every long column.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::frame::{FleetOptions, Target};
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
        let requests = target_requests(targets, query)?;
        let paths: Vec<std::path::PathBuf> = targets
            .iter()
            .map(|t| frame::parquet_path(root, t))
            .collect();
        // Encoding and compressing are CPU work too: done in the target's own task.
        let results = spawned(self.client, requests, move |i, m: Measurements| {
            let path = paths[i].clone();
            frame::write_parquet_file(&path, &m).map(|rows| (path, rows))
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
}

/// Fetches every request in a task of its own (at most `max_concurrency` at once, results in
/// request order) and applies `then(index, result)` to each decoded result inside that task.
fn spawned<T, F>(
    client: &Client,
    requests: Vec<Request>,
    then: F,
) -> impl futures_util::Stream<Item = (usize, Result<T>)> + '_
where
    T: Send + 'static,
    F: Fn(usize, Measurements) -> Result<T> + Send + Sync + 'static,
{
    let then = std::sync::Arc::new(then);
    stream::iter(requests.into_iter().enumerate())
        .map(move |(i, req)| {
            let client = client.clone();
            let then = then.clone();
            async move {
                let task = crate::paging::spawn_owned(async move {
                    let m = client.get_model::<Measurements>(req).await?;
                    then(i, m)
                });
                (i, task.await)
            }
        })
        .buffered(client.max_concurrency())
}

/// Consumes the results of a fleet pull in target order: reports progress, hands each success
/// to `on_ok`, and either stops at the first failure or, with `keep_going`, collects them.
async fn drive<T>(
    targets: &[Target],
    results: impl futures_util::Stream<Item = (usize, Result<T>)>,
    options: &FleetOptions,
    mut on_ok: impl FnMut(T) -> Result<()>,
) -> Result<Vec<TargetFailure>> {
    let mut results = std::pin::pin!(results);
    let mut failures = Vec::new();
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
        match result {
            Ok(value) => on_ok(value)?,
            Err(error) if options.keep_going => failures.push(TargetFailure {
                target: target.clone(),
                error,
            }),
            Err(error) => return Err(error),
        }
    }
    Ok(failures)
}
