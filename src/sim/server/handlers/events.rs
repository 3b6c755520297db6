//! Project events.

use super::*;

impl Ctx<'_> {
    pub(crate) fn event_json(&self, e: &crate::sim::world::Event, raw: bool) -> Value {
        let mut v = e.body.clone();
        if let Value::Object(m) = &mut v {
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
                r.insert("et".into(), json!(e.event_type_name));
                r.insert("id".into(), id);
                r.insert("severity".into(), json!("INFO"));
                for (k, src) in [("hid", "hostId"), ("hn", "hostname"), ("un", "username")] {
                    if let Some(x) = m.get(src) {
                        r.insert(k.into(), x.clone());
                    }
                }
                m.insert("raw".into(), Value::Object(r));
            }
        }
        v
    }
}
