//! Host, disk-partition and database measurements: the handle and one pure function per
//! operation that builds its request.
//!
//! The query (granularity, window, metric names) is in `measurements/query.rs`, the targets
//! and the request of one target in `measurements/target.rs`: below both this handle and the
//! workflows above it, which add their entry points to the handle beside themselves (fleet
//! pulls in `src/fleet.rs`, the store's sync in `src/store/sync.rs`): `api/` imports neither.

use crate::client::Client;
use crate::error::Result;
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
}
