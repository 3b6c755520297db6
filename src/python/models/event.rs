//! Python classes of project events, made from their field lists.

use pyo3::prelude::*;

use super::{list_class, py_model, py_part};

crate::models::event_diff_param_fields!(py_part
    "One changed parameter of an event's diff: `param`, `display`, and the `old` and `new` \
     values as the server sent them.");

crate::models::event_diff_fields!(py_part
    "A change recorded by an event (`diffs[]`); the API's `type` is `diff_type`.");

crate::models::event_fields!(py_model
    "A project event. `raw` is the raw document (only with `include_raw=True`); `diffs` the \
     changes it records.\n\n\
     >>> event = client.events.get(group_id, event_id, include_raw=True)  # doctest: +SKIP\n\
     >>> event.event_type_name  # doctest: +SKIP\n\
     'JOINED_GROUP'");

list_class!(
    /// Events: a read-only sequence with `total_count` and `to_polars()`.
    EventList("EventList") of Event(crate::Event), crate::frame::events_frame, EventListIterator
);

#[pymethods]
impl EventList {
    /// The events as a timeline, one row each: `created`, `event_type_name`, `kind`
    /// (`election`, `restart`, `host_down`, `host_up`, `scaling`, `cluster_change`,
    /// `configuration`, `upgrade`, `alert`, or null for a type opsapi does not class),
    /// `charted` (whether a capacity chart marks it), `said` (what happened, in a few
    /// words), `host`, `replica_set_name`, `id`, `host_id`, `alert_id` and `cluster_name`:
    /// the columns of an alert context's `.events`, and two more.
    ///
    /// >>> client.events.list(group_id).timeline().select("created", "kind", "said")  # doctest: +SKIP
    fn timeline(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = crate::frame::context::timeline_frame(&self.items)
            .map_err(|e| crate::python::errors::to_py_err(py, e))?;
        Ok(crate::python::frame::PyFrame(frame))
    }
}
