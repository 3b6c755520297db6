//! What the simulator saw and holds, for tests to check a client against: the request log, the
//! seeded world and the truths an analysis should find (`partition_truth`, ...).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::alerts::{self, alert_row};
use super::PySimulator;

#[pymethods]
impl PySimulator {
    /// The request log: one dict per request (`method`, `path`, `query`, `body`, `status`,
    /// `signed`, `authorized`, `faults`), oldest first.
    fn requests<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let records = self.with(|s| s.requests())?;
        records
            .into_iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("method", r.method)?;
                d.set_item("path", r.path)?;
                d.set_item("query", r.query)?;
                d.set_item("body", PyBytes::new(py, &r.body))?;
                d.set_item("status", r.status)?;
                d.set_item("signed", r.signed)?;
                d.set_item("authorized", r.authorized)?;
                d.set_item("faults", r.faults)?;
                d.set_item("arrived", r.arrived.as_secs_f64())?;
                d.set_item("accept", r.accept)?;
                d.set_item("content_type", r.content_type)?;
                d.set_item("auth", r.auth)?;
                Ok(d)
            })
            .collect()
    }

    /// A snapshot of the world as the API would show it now (expired acknowledgements
    /// cleared, deleted access-list entries gone): a dict of lists of dicts, for tests to
    /// pick identifiers and check what a write did.
    fn world<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (w, flavour) = self.with(|s| (s.world(), s.flavour()))?;
        let out = PyDict::new(py);
        let list = |name: &str, rows: Vec<Bound<'py, PyDict>>| out.set_item(name, rows);
        let mut rows = Vec::new();
        for p in &w.projects {
            let d = PyDict::new(py);
            d.set_item("id", &p.id)?;
            d.set_item("name", &p.name)?;
            rows.push(d);
        }
        list("projects", std::mem::take(&mut rows))?;
        for h in &w.hosts {
            let d = PyDict::new(py);
            d.set_item("id", &h.id)?;
            d.set_item("group_id", &h.group_id)?;
            d.set_item("hostname", &h.hostname)?;
            d.set_item("type_name", &h.type_name)?;
            let parts: Vec<&str> = h.partitions.iter().map(|p| p.name.as_str()).collect();
            d.set_item("partitions", parts)?;
            rows.push(d);
        }
        list("hosts", std::mem::take(&mut rows))?;
        for c in &w.alert_configs {
            let d = PyDict::new(py);
            d.set_item("id", &c.id)?;
            d.set_item("group_id", &c.group_id)?;
            d.set_item("event_type_name", &c.event_type_name)?;
            rows.push(d);
        }
        list("alert_configs", std::mem::take(&mut rows))?;
        for a in &w.alerts {
            rows.push(alert_row(py, a)?);
        }
        list("alerts", std::mem::take(&mut rows))?;
        // What `/groups/{g}/alerts` lists, project by project: the history besides.
        for p in &w.projects {
            for a in w.project_alerts(&p.id) {
                rows.push(alert_row(py, a)?);
            }
        }
        list("project_alerts", std::mem::take(&mut rows))?;
        // The events the flavour serves (Atlas names a restart and its auto-scaling its own
        // way: `on_atlas`).
        for e in w.events.iter().filter(|e| e.served_on(flavour)) {
            let d = PyDict::new(py);
            d.set_item("id", &e.id)?;
            d.set_item("group_id", &e.group_id)?;
            d.set_item("event_type_name", &e.event_type_name)?;
            rows.push(d);
        }
        list("events", std::mem::take(&mut rows))?;
        for e in &w.access_list {
            let d = PyDict::new(py);
            d.set_item("id", &e.id)?;
            d.set_item("cidr_block", &e.cidr_block)?;
            d.set_item("description", &e.description)?;
            rows.push(d);
        }
        list("access_list", rows)?;
        Ok(out)
    }

    /// What the seeded alert history holds (`Simulator::alert_truth`): a dict of the
    /// flapping configuration, the noisy host, the disk and replica-set alerts, and when each
    /// history alert was acknowledged.
    fn alert_truth<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        alerts::truth(py, self.with(|s| s.alert_truth())?)
    }

    /// The seeded causes of the world's alerts and findings (`Simulator::cause_truth`), with
    /// the events as the simulator's flavour names them.
    fn cause_truth<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (causes, atlas) =
            self.with(|s| (s.cause_truth(), s.flavour() == crate::Flavour::Atlas))?;
        super::causes::truth(py, causes, atlas)
    }

    /// The seeded disk growth of every partition (the truth a capacity forecast should
    /// find): one dict per partition.
    fn partition_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let truth = self.with(|s| s.partition_truth())?;
        truth
            .into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("group_id", &t.group_id)?;
                d.set_item("host_id", &t.host_id)?;
                d.set_item("process_id", &t.process_id)?;
                d.set_item("partition_name", &t.partition_name)?;
                d.set_item("capacity_bytes", t.capacity_bytes)?;
                d.set_item("growth_bytes_per_day", t.growth_bytes_per_day)?;
                d.set_item("used_bytes_at_anchor", t.used_bytes_at_anchor)?;
                d.set_item("noise_bytes", t.noise_bytes)?;
                d.set_item("growth", format!("{:?}", t.growth).to_lowercase())?;
                d.set_item("anchor", t.anchor)?;
                Ok(d)
            })
            .collect()
    }

    /// The seeded size and growth of every database: one dict per database.
    fn database_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let truth = self.with(|s| s.database_truth())?;
        truth
            .into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("group_id", &t.group_id)?;
                d.set_item("host_id", &t.host_id)?;
                d.set_item("process_id", &t.process_id)?;
                d.set_item("database_name", &t.database_name)?;
                d.set_item("partition_name", &t.partition_name)?;
                d.set_item("size_bytes_at_anchor", t.size_bytes_at_anchor)?;
                d.set_item("growth_bytes_per_day", t.growth_bytes_per_day)?;
                d.set_item("share_of_disk_growth", t.share_of_disk_growth)?;
                d.set_item("drives_growth", t.drives_growth)?;
                d.set_item("anchor", t.anchor)?;
                Ok(d)
            })
            .collect()
    }

    /// The seeded capacity findings (what `opsapi.capacity.headroom` must name): one dict
    /// per finding.
    fn headroom_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let truth = self.with(|s| s.headroom_truth())?;
        truth
            .into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("resource", t.resource)?;
                d.set_item("scope_kind", t.scope_kind)?;
                d.set_item("scope", &t.scope)?;
                d.set_item("group_id", &t.group_id)?;
                d.set_item("cluster_id", &t.cluster_id)?;
                d.set_item("replica_set_name", &t.replica_set_name)?;
                d.set_item("shard_name", &t.shard_name)?;
                d.set_item("members", &t.members)?;
                d.set_item("host_ids", &t.host_ids)?;
                d.set_item("measurements", &t.measurements)?;
                d.set_item("level_at_anchor", t.level_at_anchor)?;
                d.set_item("per_day", t.per_day)?;
                d.set_item("threshold", t.threshold)?;
                d.set_item("crosses_at", t.crosses_at)?;
                d.set_item("anchor", t.anchor)?;
                Ok(d)
            })
            .collect()
    }

    /// The seeded clusters: one dict each (see `opsapi.testing.Simulator.cluster_truth`).
    fn cluster_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let w = self.with(|s| s.world())?;
        w.clusters
            .iter()
            .map(|c| {
                let d = PyDict::new(py);
                d.set_item("group_id", &c.group_id)?;
                d.set_item("id", &c.id)?;
                d.set_item("name", &c.name)?;
                d.set_item("type", if c.sharded { "sharded" } else { "replica_set" })?;
                d.set_item("replica_set_name", &c.replica_set_name)?;
                let part = |p: &crate::sim::ClusterPart| -> PyResult<Bound<'py, PyDict>> {
                    let d = PyDict::new(py);
                    d.set_item("id", &p.id)?;
                    d.set_item("replica_set_name", &p.replica_set_name)?;
                    Ok(d)
                };
                let shards = c.shards.iter().map(part).collect::<PyResult<Vec<_>>>()?;
                d.set_item("shards", shards)?;
                d.set_item(
                    "config_servers",
                    c.config_servers.as_ref().map(part).transpose()?,
                )?;
                d.set_item("members", &c.members)?;
                let hosts: Vec<_> = w
                    .hosts
                    .iter()
                    .filter(|h| h.cluster_id.as_deref() == Some(c.id.as_str()))
                    .collect();
                d.set_item("host_ids", hosts.iter().map(|h| &h.id).collect::<Vec<_>>())?;
                let aliases = PyDict::new(py);
                for h in &hosts {
                    aliases.set_item(h.process_id(), &h.alias)?;
                }
                d.set_item("aliases", aliases)?;
                d.set_item("srv_host", c.srv_host())?;
                d.set_item("instance_size", c.instance_size)?;
                d.set_item("disk_size_gb", c.disk_size_gb)?;
                d.set_item("compute_auto_scaling", c.compute_auto_scaling)?;
                d.set_item("disk_auto_scaling", c.disk_auto_scaling)?;
                d.set_item("oversized", c.oversized)?;
                Ok(d)
            })
            .collect()
    }

    fn clear_requests(&self) -> PyResult<()> {
        self.with(|s| s.clear_requests())
    }
}
