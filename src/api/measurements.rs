//! Host, disk-partition and database measurements: the handle, one pure function per
//! operation that builds its request, and fleet pulls.
//!
//! The query (granularity, window, metric names) is in `measurements/query.rs`, the targets
//! and the request of one target in `measurements/target.rs`: below both this handle and the
//! fleet machinery (`src/fleet.rs`, `src/parquet.rs`), which use them and not this file.

use crate::client::Client;
use crate::error::Result;
#[cfg(feature = "frames")]
use crate::fleet::{self, FleetOptions, FleetResult, ParquetPull};
use crate::models::Measurements;
use crate::request::Request;

pub(crate) mod query;
pub(crate) mod target;

pub use query::{Granularity, MeasurementsQuery, Window};
pub use target::{check_metric_names, target_request, Target};

/// `client.measurements()`
#[derive(Debug, Clone, Copy)]
pub struct MeasurementsApi<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/hosts/{host_id}/measurements` with the query.
pub fn host_request(group_id: &str, host_id: &str, query: &MeasurementsQuery) -> Result<Request> {
    target_request(&Target::host(group_id, host_id), query)
}

/// `GET /groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements` with the query.
pub fn disk_request(
    group_id: &str,
    host_id: &str,
    partition_name: &str,
    query: &MeasurementsQuery,
) -> Result<Request> {
    target_request(&Target::disk(group_id, host_id, partition_name), query)
}

/// `GET /groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements` with the
/// query.
pub fn database_request(
    group_id: &str,
    host_id: &str,
    database_name: &str,
    query: &MeasurementsQuery,
) -> Result<Request> {
    target_request(&Target::database(group_id, host_id, database_name), query)
}

impl MeasurementsApi<'_> {
    /// One target's measurements ([`target::fetch`]), with the body kept for
    /// [`Measurements::raw_json`] when one request asked them all.
    async fn one(&self, req: Request) -> Result<Measurements> {
        target::fetch(self.client, req, true).await
    }

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
        self.one(host_request(group_id, host_id, query)?).await
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
        self.one(disk_request(group_id, host_id, partition_name, query)?)
            .await
    }

    /// The measurements of one target (host, disk partition or database).
    pub async fn target(&self, target: &Target, query: &MeasurementsQuery) -> Result<Measurements> {
        self.one(target_request(target, query)?).await
    }

    /// Database measurements:
    /// `GET /groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1H, "P30D".parse().unwrap())
    ///     .metrics(["DATABASE_DATA_SIZE", "DATABASE_INDEX_SIZE"]);
    /// let m = client.measurements().database("5e9f...", "a1b2...", "orders", &q).await?;
    /// assert_eq!(m.database_name.as_deref(), Some("orders"));
    /// # Ok(()) }
    /// ```
    pub async fn database(
        &self,
        group_id: &str,
        host_id: &str,
        database_name: &str,
        query: &MeasurementsQuery,
    ) -> Result<Measurements> {
        self.one(database_request(group_id, host_id, database_name, query)?)
            .await
    }

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
    #[cfg(feature = "frames")]
    pub async fn fleet(
        &self,
        targets: &[Target],
        query: &MeasurementsQuery,
        options: &FleetOptions,
    ) -> Result<FleetResult> {
        fleet::pull(self.client, targets, query, options).await
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
    #[cfg(feature = "frames")]
    pub async fn fleet_to_parquet(
        &self,
        targets: &[Target],
        query: &MeasurementsQuery,
        root: &std::path::Path,
        options: &FleetOptions,
    ) -> Result<ParquetPull> {
        fleet::pull_to_parquet(self.client, targets, query, root, options).await
    }

    /// Syncs a measurement store: asks each target only what the store does not hold yet
    /// (from its last stored point, overlapping by one), writes it crash-safely, compacts,
    /// and drops what left the store's window. With `Targets::All` (the default) it first
    /// discovers every project, host, partition and database the key can see. One writer at a
    /// time: it waits for another sync of the same store, or with `wait(false)` fails at once
    /// with [`crate::Error::StoreLocked`]. A target whose request fails is reported in
    /// [`crate::store::SyncReport::failed`] and asked again next time; it fails nothing else.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::store::{Store, SyncOptions};
    /// use opsapi::Granularity;
    /// let store = Store::new("fleet-store");
    /// let options = SyncOptions::new(Granularity::PT1H, "P35D".parse().unwrap());
    /// let report = client.measurements().sync(&store, &options).await?;
    /// println!("{} updated, {} data requests", report.updated.len(), report.data_requests);
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "frames")]
    pub async fn sync(
        &self,
        store: &crate::store::Store,
        options: &crate::store::SyncOptions,
    ) -> Result<crate::store::SyncReport> {
        crate::store::sync::run(self.client, store, options).await
    }
}
