//! The simulator's alerts as Python sees them: an alert row of `world()`, and
//! `alert_truth()` as dicts.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::sim::AlertTruth;

/// An alert as `world()` shows it: the fields a write changes, and what says which it is.
pub(super) fn alert_row<'py>(
    py: Python<'py>,
    a: &crate::sim::Alert,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", &a.id)?;
    d.set_item("group_id", &a.group_id)?;
    d.set_item("alert_config_id", &a.alert_config_id)?;
    d.set_item("status", &a.status)?;
    d.set_item("acknowledged_until", a.acknowledged_until)?;
    d.set_item("acknowledgement_comment", &a.acknowledgement_comment)?;
    d.set_item("acknowledging_username", &a.acknowledging_username)?;
    Ok(d)
}

/// `Simulator::alert_truth` as a dict (see `opsapi.testing.Simulator.alert_truth`).
pub(super) fn truth<'py>(py: Python<'py>, t: AlertTruth) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let flapping = t.flapping.map(|f| -> PyResult<_> {
        let d = PyDict::new(py);
        d.set_item("group_id", f.group_id)?;
        d.set_item("alert_config_id", f.alert_config_id)?;
        d.set_item("metric_name", f.metric_name)?;
        d.set_item("host_id", f.host_id)?;
        d.set_item("hostname_and_port", f.hostname_and_port)?;
        d.set_item("episodes", f.episodes)?;
        d.set_item("longest_gap_minutes", f.longest_gap_minutes)?;
        Ok(d)
    });
    out.set_item("flapping", flapping.transpose()?)?;
    let noisy = t.noisy_host.map(|n| -> PyResult<_> {
        let d = PyDict::new(py);
        d.set_item("group_id", n.group_id)?;
        d.set_item("host_id", n.host_id)?;
        d.set_item("hostname_and_port", n.hostname_and_port)?;
        d.set_item("alerts", n.alerts)?;
        d.set_item("alert_config_ids", n.alert_config_ids)?;
        Ok(d)
    });
    out.set_item("noisy_host", noisy.transpose()?)?;
    let seeded = |list: Vec<crate::sim::SeededAlert>| -> PyResult<Vec<Bound<'py, PyDict>>> {
        list.into_iter()
            .map(|a| {
                let d = PyDict::new(py);
                d.set_item("group_id", a.group_id)?;
                d.set_item("alert_id", a.alert_id)?;
                d.set_item("alert_config_id", a.alert_config_id)?;
                d.set_item("host_id", a.host_id)?;
                d.set_item("partition_name", a.partition_name)?;
                d.set_item("replica_set_name", a.replica_set_name)?;
                d.set_item("threshold", a.threshold)?;
                Ok(d)
            })
            .collect()
    };
    out.set_item("disk_alerts", seeded(t.disk_alerts)?)?;
    out.set_item("replica_set_alerts", seeded(t.replica_set_alerts)?)?;
    let acked: PyResult<Vec<Bound<'py, PyDict>>> = t
        .acknowledged
        .into_iter()
        .map(|a| {
            let d = PyDict::new(py);
            d.set_item("alert_id", a.alert_id)?;
            d.set_item("at", a.at)?;
            Ok(d)
        })
        .collect();
    out.set_item("acknowledged", acked?)?;
    let metric: PyResult<Vec<Bound<'py, PyDict>>> = t
        .metric_alerts
        .into_iter()
        .map(|a| {
            let d = PyDict::new(py);
            d.set_item("group_id", a.group_id)?;
            d.set_item("alert_id", a.alert_id)?;
            d.set_item("global", a.global)?;
            d.set_item("host_id", a.host_id)?;
            d.set_item("process_id", a.process_id)?;
            d.set_item("metric_name", a.metric_name)?;
            d.set_item("partition_name", a.partition_name)?;
            d.set_item("threshold", a.threshold)?;
            d.set_item("current_value", a.current_value)?;
            d.set_item("start", a.start)?;
            d.set_item("end", a.end)?;
            Ok(d)
        })
        .collect();
    out.set_item("metric_alerts", metric?)?;
    Ok(out)
}
