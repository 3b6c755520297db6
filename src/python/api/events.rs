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

twins! {
    /// The events of a project that a capacity chart marks, created from `min_date` to
    /// `max_date` (each included), oldest first (an `EventList`): elections and failovers,
    /// restarts, hosts down, auto-scaling, tier changes and disk resizes, asked in the
    /// flavour's own type names (one listing, every page). On Atlas, whose cluster events name
    /// no cluster, also one listing per cluster of `clusters` (`clusterNames`), each of its
    /// events given that cluster's `cluster_name`. `EventList.timeline()` says what kind each
    /// is.
    ///
    Events
    /// >>> client.events._charted(group_id, "2026-02-16T10:00:00Z", "2026-03-02T10:00:00Z").timeline()  # doctest: +SKIP
    AsyncEvents
    /// >>> events = await client.events._charted(group_id, start, end, clusters=["orders"])  # doctest: +SKIP
    fn _charted(group_id: Text, min_date: Timestamp, max_date: Timestamp; clusters: Texts)
        -> "EventList"
    {
        |c| {
            let clusters = clusters.unwrap_or_default();
            let names: Vec<&str> = clusters.iter().map(String::as_str).collect();
            Ok(EventList::from(c.events().charted(&group_id, min_date, max_date, &names).await?))
        }
    }
}
