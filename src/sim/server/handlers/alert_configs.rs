//! Alert configurations.

use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::AlertConfigsList, |c, p, _| {
        c.alert_configs(p.group())
    }),
    (Operation::AlertConfigsGet, |c, p, _| {
        c.alert_config(p.group(), p.get("alert_config_id"))
    }),
];

impl Ctx<'_> {
    /// `GET /groups/{group_id}/alertConfigs` (Atlas: none of Ops Manager's agent alerts).
    pub(crate) fn alert_configs(&self, g: &str) -> Reply {
        let w = self.world();
        let items: Vec<_> = w
            .alert_configs
            .iter()
            .filter(|c| c.group_id == g && self.has_alert_type(&c.event_type_name))
            .collect();
        let reply = self.list(items, |c| self.config_json(c));
        drop(w);
        reply
    }

    /// `GET /groups/{group_id}/alertConfigs/{alert_config_id}`: 404 `ALERT_CONFIG_NOT_FOUND`
    /// for one the project does not have (Atlas: nor one of Ops Manager's agent alerts).
    pub(crate) fn alert_config(&self, g: &str, id: &str) -> Reply {
        let w = self.world();
        let config = w
            .alert_configs
            .iter()
            .find(|c| c.group_id == g && c.id == id && self.has_alert_type(&c.event_type_name));
        let reply = match config {
            Some(c) => self.r.entity(200, self.config_json(c)),
            None => config_not_found(g, id),
        };
        drop(w);
        reply
    }

    pub(crate) fn config_json(&self, c: &crate::sim::world::AlertConfig) -> Value {
        let mut m = Map::new();
        m.insert("created".into(), json!(iso(&c.created)));
        m.insert("enabled".into(), json!(true));
        m.insert("eventTypeName".into(), json!(c.event_type_name));
        m.insert("groupId".into(), json!(c.group_id));
        m.insert("id".into(), json!(c.id));
        m.insert(
            "links".into(),
            json!([
                link(
                    self.url(&format!("/groups/{}/alertConfigs/{}", c.group_id, c.id)),
                    "self"
                ),
                link(
                    self.url(&format!(
                        "/groups/{}/alertConfigs/{}/alerts",
                        c.group_id, c.id
                    )),
                    "http://mms.mongodb.com/alerts"
                ),
            ]),
        );
        m.insert("matchers".into(), json!([]));
        if let (Some(metric), Some((t, u))) = (&c.metric_name, &c.threshold) {
            m.insert(
                "metricThreshold".into(),
                json!({"metricName": self.alert_metric(metric), "mode": "AVERAGE", "operator": "GREATER_THAN", "threshold": t, "units": u}),
            );
        }
        m.insert(
            "notifications".into(),
            json!([{"delayMin": 0, "emailEnabled": true, "intervalMin": 60, "smsEnabled": false, "typeName": "GROUP", "roles": ["GROUP_OWNER"]}]),
        );
        m.insert("updated".into(), json!(iso(&c.created)));
        Value::Object(m)
    }
}
