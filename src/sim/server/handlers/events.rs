//! Project events.

use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::EventsList, |c, p, _| c.events(p.group())),
    (Operation::EventsGet, |c, p, _| {
        c.event(p.group(), p.get("event_id"))
    }),
];

/// The event types of the world that Atlas's specification has as a replica set's
/// (`ReplicaSetEventTypeViewForNdsGroup`): they name their host by `hostname` and `port`, and
/// have no `isGlobalAdmin`. Its host events (`HOST_UP`, `HOST_DOWN`) name none but by `port`.
const ATLAS_REPLICA_SET_EVENTS: [&str; 1] = ["PRIMARY_ELECTED"];

/// An event of the world as Atlas's specification has it: without Ops Manager's host id, an
/// audit's `diffs`, an alert audit's configuration (which its raw document has: returned),
/// and a host's name or `isGlobalAdmin` where the event's schema has none.
fn as_atlas(e: &crate::sim::world::Event, m: &mut Map<String, Value>) -> Option<Value> {
    m.remove("hostId");
    m.remove("diffs");
    if ATLAS_REPLICA_SET_EVENTS.contains(&e.event_type_name.as_str()) {
        m.remove("isGlobalAdmin");
    } else {
        m.remove("hostname");
    }
    m.remove("alertConfigId")
}

impl Ctx<'_> {
    /// Whether the flavour serves `e` (Atlas names some events otherwise: `world/causes.rs`).
    fn serves_event(&self, e: &crate::sim::world::Event) -> bool {
        e.served_on(self.shared.config.flavour)
    }

    /// `GET /groups/{group_id}/events`, newest first: of the types `eventType` names (repeated),
    /// created from `minDate` to `maxDate` (each included), and on Atlas of the clusters
    /// `clusterNames` names (repeated: Atlas's cluster events name their cluster only so).
    pub(crate) fn events(&self, g: &str) -> Reply {
        let bounds = match self.time_bounds(["minDate", "maxDate"]) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let types = self.query_all("eventType");
        let names = if self.atlas() {
            self.query_all("clusterNames")
        } else {
            Vec::new()
        };
        let raw = self
            .query("includeRaw")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let w = self.world();
        let clusters: Vec<&str> = w
            .clusters
            .iter()
            .filter(|c| c.group_id == g && names.contains(&c.name.as_str()))
            .map(|c| c.id.as_str())
            .collect();
        let items: Vec<_> = w
            .events
            .iter()
            .filter(|e| e.group_id == g && self.serves_event(e))
            .filter(|e| types.is_empty() || types.contains(&e.event_type_name.as_str()))
            .filter(|e| bounds[0].is_none_or(|t| e.created >= t))
            .filter(|e| bounds[1].is_none_or(|t| e.created <= t))
            .filter(|e| {
                names.is_empty()
                    || e.cluster_id
                        .as_deref()
                        .is_some_and(|c| clusters.contains(&c))
            })
            .collect();
        let reply = self.list(items, |e| self.event_json(e, raw));
        drop(w);
        reply
    }

    /// `GET /groups/{group_id}/events/{event_id}`.
    pub(crate) fn event(&self, g: &str, id: &str) -> Reply {
        let raw = self
            .query("includeRaw")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let w = self.world();
        let found = w
            .events
            .iter()
            .find(|x| x.group_id == g && x.id == id && self.serves_event(x));
        match found {
            Some(ev) => {
                let v = self.event_json(ev, raw);
                drop(w);
                self.r.entity(200, v)
            }
            None => not_found_resource(self.path),
        }
    }

    pub(crate) fn event_json(&self, e: &crate::sim::world::Event, raw: bool) -> Value {
        let mut v = e.body.clone();
        if let Value::Object(m) = &mut v {
            let alert_config = if self.atlas() { as_atlas(e, m) } else { None };
            m.insert(
                "links".into(),
                json!([link(
                    self.url(&format!("/groups/{}/events/{}", e.group_id, e.id)),
                    "self"
                )]),
            );
            if raw {
                // Ops Manager's raw document is extended JSON; Atlas's specification has
                // plain strings there.
                let (cre, id) = if self.atlas() {
                    (json!(iso(&e.created)), json!(e.id))
                } else {
                    (json!({"$date": iso(&e.created)}), json!({"$oid": e.id}))
                };
                let mut r = Map::new();
                r.insert("_t".into(), json!(e.event_type_name));
                r.insert("cid".into(), json!(e.group_id));
                r.insert("cre".into(), cre);
                r.insert("id".into(), id);
                r.insert("severity".into(), json!("INFO"));
                // Atlas's raw document has the fields above and the alert configuration (its
                // specification's `raw`).
                if let Some(c) = alert_config {
                    r.insert("alertConfigId".into(), c);
                }
                if !self.atlas() {
                    r.insert("et".into(), json!(e.event_type_name));
                    for (k, src) in [("hid", "hostId"), ("hn", "hostname"), ("un", "username")] {
                        if let Some(x) = m.get(src) {
                            r.insert(k.into(), x.clone());
                        }
                    }
                }
                m.insert("raw".into(), Value::Object(r));
            }
        }
        v
    }
}
