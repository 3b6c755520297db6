//! `Simulator.cause_truth()` as dicts: the seeded causes of the world's alerts and findings,
//! with the event ids and type names of the simulator's flavour.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::sim::Causes;

/// The causes (`Simulator::cause_truth`) as a dict of lists (see
/// `opsapi.testing.Simulator.cause_truth`); `atlas`: the events as Atlas names them.
pub(super) fn truth<'py>(py: Python<'py>, c: Causes, atlas: bool) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let mut rows = Vec::new();
    for e in c.elections {
        let d = PyDict::new(py);
        d.set_item("group_id", e.group_id)?;
        d.set_item("alert_id", e.alert_id)?;
        d.set_item("ends", e.ends)?;
        d.set_item("replica_set_name", e.replica_set_name)?;
        d.set_item("primary", e.primary)?;
        d.set_item("event_id", e.event_id)?;
        d.set_item("event_type_name", "PRIMARY_ELECTED")?;
        d.set_item("at", e.at)?;
        rows.push(d);
    }
    out.set_item("elections", std::mem::take(&mut rows))?;
    for r in c.restarts {
        let event_id = if atlas {
            r.atlas_event_id
        } else {
            Some(r.event_id)
        };
        // A standalone's restart has no Atlas event (Atlas has no standalone).
        let Some(event_id) = event_id else {
            continue;
        };
        let d = PyDict::new(py);
        d.set_item("group_id", r.group_id)?;
        d.set_item("host_id", r.host_id)?;
        d.set_item("process_id", r.process_id)?;
        d.set_item("cluster_id", r.cluster_id)?;
        d.set_item("event_id", event_id)?;
        let name = if atlas {
            "CLUSTER_INSTANCE_RESTARTED"
        } else {
            "HOST_RESTARTED"
        };
        d.set_item("event_type_name", name)?;
        d.set_item("at", r.at)?;
        rows.push(d);
    }
    out.set_item("restarts", std::mem::take(&mut rows))?;
    for s in c.scaling.into_iter().filter(|_| atlas) {
        let d = PyDict::new(py);
        d.set_item("group_id", s.group_id)?;
        d.set_item("cluster_id", s.cluster_id)?;
        d.set_item("cluster_name", s.cluster_name)?;
        d.set_item("event_id", s.event_id)?;
        d.set_item("event_type_name", s.event_type_name)?;
        d.set_item("at", s.at)?;
        d.set_item("alert_id", s.alert_id)?;
        rows.push(d);
    }
    out.set_item("scaling", std::mem::take(&mut rows))?;
    for c in c.slow {
        let d = PyDict::new(py);
        d.set_item("group_id", c.group_id)?;
        d.set_item("alert_id", c.alert_id)?;
        d.set_item("host_id", c.host_id)?;
        d.set_item("namespace", c.namespace)?;
        d.set_item("index", c.index)?;
        d.set_item("from", c.from)?;
        d.set_item("to", c.to)?;
        rows.push(d);
    }
    out.set_item("slow", std::mem::take(&mut rows))?;
    for c in c.drivers {
        let d = PyDict::new(py);
        d.set_item("group_id", c.group_id)?;
        d.set_item("host_id", c.host_id)?;
        d.set_item("resource", c.resource)?;
        d.set_item("namespace", c.namespace)?;
        d.set_item("fields", c.fields)?;
        rows.push(d);
    }
    out.set_item("drivers", rows)?;
    Ok(out)
}
