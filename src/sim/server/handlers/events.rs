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
                let mut r = Map::new();
                r.insert("_t".into(), json!(e.event_type_name));
                r.insert("cid".into(), json!(e.group_id));
                r.insert("cre".into(), json!({"$date": iso(&e.created)}));
                r.insert("et".into(), json!(e.event_type_name));
                r.insert("id".into(), json!({"$oid": e.id}));
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
