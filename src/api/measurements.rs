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
        query.validate()?;
        let requests = targets
            .iter()
            .map(|t| target_request(t, query))
            .collect::<Result<Vec<_>>>()?;
        let total = targets.len();
        let client = self.client;
        let mut results = stream::iter(requests.into_iter().enumerate())
            .map(|(i, req)| async move { (i, client.get_model::<Measurements>(req).await) })
            .buffered(client.max_concurrency());
        let mut failures = Vec::new();
        let mut long = (options.shape == Shape::Long).then(frame::LongFrameBuilder::new);
        let mut kept: Vec<Measurements> = Vec::new();
        let mut done = 0;
        while let Some((i, result)) = results.next().await {
            done += 1;
            let target = &targets[i];
            if let Some(progress) = &options.progress {
                progress(Progress {
                    done,
                    total,
                    target,
                    ok: result.is_ok(),
                });
            }
            match result {
                Ok(m) => match &mut long {
                    Some(b) => b.push(&m)?,
                    None => kept.push(m),
                },
                Err(error) if options.keep_going => failures.push(TargetFailure {
                    target: target.clone(),
                    error,
                }),
                Err(error) => return Err(error),
            }
        }
        let frame = match long {
            Some(b) => b.finish()?,
            None => frame::wide_fleet_frame(&kept)?,
        };
        Ok(FleetResult { frame, failures })
    }
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
        query.validate()?;
        let requests = targets
            .iter()
            .map(|t| target_request(t, query))
            .collect::<Result<Vec<_>>>()?;
        let total = targets.len();
        let client = self.client;
        let mut results = stream::iter(requests.into_iter().enumerate())
            .map(|(i, req)| async move { (i, client.get_model::<Measurements>(req).await) })
            .buffered(client.max_concurrency());
        let mut out = ParquetPull {
            files: Vec::new(),
            rows: 0,
            failures: Vec::new(),
        };
        let mut done = 0;
        while let Some((i, result)) = results.next().await {
            done += 1;
            let target = &targets[i];
            if let Some(progress) = &options.progress {
                progress(Progress {
                    done,
                    total,
                    target,
                    ok: result.is_ok(),
                });
            }
            match result {
                Ok(m) => {
                    let path = frame::parquet_path(root, target);
                    let write = |path: std::path::PathBuf, m: Measurements| {
                        frame::write_parquet_file(&path, &m).map(|rows| (path, rows))
                    };
                    // Encoding and compressing are CPU work: keep them off the I/O threads.
                    let (path, rows) = tokio::task::spawn_blocking(move || write(path, m))
                        .await
                        .map_err(|e| {
                        crate::Error::Config(format!("writing Parquet failed: {e}"))
                    })??;
                    out.files.push(path);
                    out.rows += rows;
                }
                Err(error) if options.keep_going => out.failures.push(TargetFailure {
                    target: target.clone(),
                    error,
                }),
                Err(error) => return Err(error),
            }
        }
        Ok(out)
    }
}
