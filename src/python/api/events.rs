//! `client.events`: project events.

use pyo3::prelude::*;

use super::{handle_pair, twins};
use crate::python::args;
use crate::python::models::{Event, EventList};
use crate::python::runtime::dispatch;

handle_pair!(
    /// Project events.
    Events,
    AsyncEvents
);

fn get(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    event_id: &Bound<'_, PyAny>,
    include_raw: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let event_id = args::text(py, "event_id", event_id)?;
    let include_raw = args::flag(py, "include_raw", include_raw)?.unwrap_or(false);
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Event::from(
            c.events().get(&group_id, &event_id, include_raw).await?,
        ))
    })
}

twins! {
    /// One event: `GET /groups/{group_id}/events/{event_id}`; with `include_raw=True` the
    /// event's `raw` document too.
    ///
    Events
    /// >>> client.events.get(group_id, event_id).event_type_name  # doctest: +SKIP
    AsyncEvents
    /// >>> (await client.events.get(group_id, event_id)).event_type_name  # doctest: +SKIP
    #[pyo3(signature = (group_id, event_id, *, include_raw = None))]
    fn get(
        group_id: &Bound<'_, PyAny>,
        event_id: &Bound<'_, PyAny>,
        include_raw: Option<&Bound<'_, PyAny>>,
    ) => get
}

fn list(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(EventList::from(c.events().list(&group_id).await?))
    })
}

twins! {
    /// Every event of a project, newest first (an `EventList`).
    ///
    Events
    /// >>> client.events.list(group_id).to_polars()  # doctest: +SKIP
    AsyncEvents
    /// >>> events = await client.events.list(group_id)  # doctest: +SKIP
    fn list(group_id: &Bound<'_, PyAny>) => list
}
