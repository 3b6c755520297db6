//! `client.events`: project events.

use super::{handle_pair, twins};
use crate::api::events::EventsQuery;
use crate::python::models::{Event, EventList};

handle_pair!(
    /// Project events.
    Events,
    AsyncEvents
);

twins! {
    /// One event: `GET /groups/{group_id}/events/{event_id}`; with `include_raw=True` the
    /// event's `raw` document too.
    ///
    Events
    /// >>> client.events.get(group_id, event_id).event_type_name  # doctest: +SKIP
    AsyncEvents
    /// >>> (await client.events.get(group_id, event_id)).event_type_name  # doctest: +SKIP
    fn get(group_id: Text, event_id: Text; include_raw: Flag) -> "Event" {
        |c| {
            let raw = include_raw.unwrap_or(false);
            Ok(Event::from(c.events().get(&group_id, &event_id, raw).await?))
        }
    }
}

twins! {
    /// Every event of a project, newest first (an `EventList`): of the types `event_type`
    /// names (one, or a list), created from `min_date` to `max_date` (each included; a
    /// timezone-aware `datetime` or ISO 8601), as every flavour documents them.
    ///
    Events
    /// >>> client.events.list(group_id, event_type="HOST_DOWN").to_polars()  # doctest: +SKIP
    AsyncEvents
    /// >>> events = await client.events.list(group_id, min_date="2026-03-01T00:00:00Z")  # doctest: +SKIP
    fn list(group_id: Text; event_type: OneOrMore, min_date: Timestamp, max_date: Timestamp)
        -> "EventList"
    {
        |c| {
            let mut q = EventsQuery::new();
            q.event_types = event_type.unwrap_or_default();
            q.min_date = min_date;
            q.max_date = max_date;
            Ok(EventList::from(c.events().list_with(&group_id, &q).await?))
        }
    }
}
