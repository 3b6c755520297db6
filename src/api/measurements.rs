//! Host and disk-partition measurements.

use crate::client::{Client, Request};
use crate::error::Result;
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
