//! Global alerts: listing (with its cache), reading, acknowledging; the rendering of an
//! alert and the PATCH's rules, which project alerts (`alerts.rs`) share.

use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::GlobalAlertsList, |c, _, _| {
        c.cached_alert_list(|| c.global_alerts())
    }),
    (Operation::GlobalAlertsGet, |c, p, _| {
        c.global_alert(p.get("alert_id"))
    }),
    (Operation::GlobalAlertsAcknowledge, |c, p, body| {
        c.acknowledge_global_alert(p.get("alert_id"), body)
    }),
];

impl Ctx<'_> {
    pub(crate) fn alert_json(&self, a: &Alert, now: DateTime<Utc>, global: bool) -> Value {
        let mut m = Map::new();
        if let Some(u) = a.acknowledged_until.filter(|u| *u > now) {
            m.insert("acknowledgedUntil".into(), json!(iso(&u)));
            if let Some(c) = &a.acknowledgement_comment {
                m.insert("acknowledgementComment".into(), json!(c));
            }
            if let Some(n) = &a.acknowledging_username {
                let n = if self.atlas() {
                    atlas::email(n)
                } else {
                    n.clone()
                };
                m.insert("acknowledgingUsername".into(), json!(n));
            }
        }
        m.insert("alertConfigId".into(), json!(a.alert_config_id));
        // Atlas's alerts name their cluster (its specification's `clusterName`).
        if let Some(c) = a.cluster_name.as_ref().filter(|_| self.atlas()) {
            m.insert("clusterName".into(), json!(c));
        }
        m.insert("created".into(), json!(iso(&a.created)));
        if let Some((n, u)) = &a.current_value {
            m.insert("currentValue".into(), json!({"number": n, "units": u}));
        }
        m.insert("eventTypeName".into(), json!(a.event_type_name));
        m.insert("groupId".into(), json!(a.group_id));
        // Atlas names a process by its `hostnameAndPort` alone: its alerts have no `hostId`
        // (nor `typeName` and `tags`, below), which no schema of its specification documents.
        if let Some(h) = a.host_id.as_ref().filter(|_| !self.atlas()) {
            m.insert("hostId".into(), json!(h));
        }
        if let Some(h) = &a.hostname_and_port {
            m.insert("hostnameAndPort".into(), json!(h));
        }
        m.insert("id".into(), json!(a.id));
        if let Some(t) = &a.last_notified {
            m.insert("lastNotified".into(), json!(iso(t)));
        }
        let self_href = if global {
            self.url(&format!("/globalAlerts/{}", a.id))
        } else {
            self.url(&format!("/groups/{}/alerts/{}", a.group_id, a.id))
        };
        m.insert(
            "links".into(),
            json!([
                link(self_href, "self"),
                link(
                    self.url(&format!("/groups/{}", a.group_id)),
                    "http://mms.mongodb.com/group"
                ),
            ]),
        );
        if let Some(n) = &a.metric_name {
            m.insert("metricName".into(), json!(self.alert_metric(n)));
        }
        if let Some(rs) = &a.replica_set_name {
            m.insert("replicaSetName".into(), json!(rs));
        }
        if let Some(t) = &a.resolved {
            m.insert("resolved".into(), json!(iso(t)));
        }
        m.insert("status".into(), json!(a.status));
        if !self.atlas() {
            m.insert("tags".into(), json!([]));
            m.insert("typeName".into(), json!(a.type_name));
        }
        m.insert("updated".into(), json!(iso(&a.updated)));
        Value::Object(m)
    }
    /// Serves an alert list page from the page cache when nothing it shows can have changed:
    /// same world generation, and no acknowledgement has run out since it was rendered.
    /// (The 20 000-alert benchmark pages through the same pages again and again.)
    pub(crate) fn cached_alert_list(&self, render: impl FnOnce() -> Reply) -> Reply {
        let list_faults = self
            .shared
            .queue
            .any(|f| matches!(f, Fault::RepeatFirstPage | Fault::WrongTotalCount(_)));
        if list_faults || self.shared.config.cache_bytes == 0 {
            return render();
        }
        let key = format!("{}?{}", self.path, self.q.raw.unwrap_or(""));
        let now = self.shared.clock.now();
        let generation = self.shared.generation.load(Ordering::SeqCst);
        if let Some(e) = lock(&self.shared.list_cache).get(&key) {
            if e.generation == generation && e.valid_until.is_none_or(|t| now < t) {
                return Reply::json(200, Vec::new()).with_body(e.body.clone());
            }
        }
        let reply = render();
        if reply.status == 200 {
            let valid_until = self
                .world()
                .alerts
                .iter()
                .filter_map(|a| a.acknowledged_until)
                .filter(|t| *t > now)
                .min();
            let mut c = lock(&self.shared.list_cache);
            if c.len() >= 4096 {
                c.clear();
            }
            c.insert(
                key,
                ListEntry {
                    generation,
                    valid_until,
                    body: reply.body.clone(),
                },
            );
        }
        reply
    }

    pub(crate) fn global_alerts(&self) -> Reply {
        let status = match self.status_filter() {
            Ok(s) => s,
            Err(e) => return e,
        };
        let bounds = match self.time_bounds(["createdOnOrAfter", "createdOnOrBefore"]) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let now = self.shared.clock.now();
        let w = self.world();
        let items: Vec<_> = w
            .alerts
            .iter()
            .filter(|a| {
                status.is_none_or(|s| a.status == s)
                    && bounds[0].is_none_or(|t| a.created >= t)
                    && bounds[1].is_none_or(|t| a.created <= t)
            })
            .collect();
        let reply = self.list(items, |a| self.alert_json(a, now, true));
        drop(w);
        reply
    }

    /// `PATCH /globalAlerts/{alert_id}`: acknowledges or un-acknowledges it.
    pub(crate) fn acknowledge_global_alert(&self, id: &str, body: &[u8]) -> Reply {
        let now = self.shared.clock.now();
        let ack = match parse_ack(body, false) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let Some(a) = w.alerts.iter_mut().find(|a| a.id == id) else {
            drop(w);
            return alert_not_found(id);
        };
        apply_ack(a, ack, now, self.user);
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        let a = a.clone();
        drop(w);
        self.r.entity(201, self.alert_json(&a, now, true))
    }

    /// `GET /globalAlerts/{alert_id}`.
    pub(crate) fn global_alert(&self, id: &str) -> Reply {
        let now = self.shared.clock.now();
        let w = self.world();
        match w.alerts.iter().find(|a| a.id == id) {
            Some(a) => {
                let v = self.alert_json(a, now, true);
                drop(w);
                self.r.entity(200, v)
            }
            None => alert_not_found(id),
        }
    }
}

/// Applies a PATCH (global or project alert): an `acknowledgedUntil` in the future
/// acknowledges the alert by `user`, one in the past un-acknowledges it.
pub(crate) fn apply_ack(
    a: &mut Alert,
    (until, comment): (DateTime<Utc>, Option<String>),
    now: DateTime<Utc>,
    user: &str,
) {
    if until > now {
        a.acknowledged_until = Some(until);
        a.acknowledgement_comment = comment;
        a.acknowledging_username = Some(user.to_string());
    } else {
        a.acknowledged_until = None;
        a.acknowledgement_comment = None;
        a.acknowledging_username = None;
    }
    a.updated = now;
}

/// Validates a PATCH body: `{"acknowledgedUntil": ISO 8601, "acknowledgementComment": str?}`;
/// where `atlas`, also `{"unacknowledgeAlert": true}` (Atlas's un-acknowledgement: an
/// `acknowledgedUntil` of the epoch, which [`apply_ack`] takes as past).
pub(crate) fn parse_ack(
    body: &[u8],
    atlas: bool,
) -> Result<(DateTime<Utc>, Option<String>), Reply> {
    let invalid_json = || err(400, "INVALID_JSON", "Received JSON is malformed.", vec![]);
    let v: Value = serde_json::from_slice(body).map_err(|_| invalid_json())?;
    let Value::Object(m) = v else {
        return Err(invalid_json());
    };
    let invalid_attr = |k: &str| {
        err(
            400,
            "INVALID_ATTRIBUTE",
            format!("Invalid attribute {k} specified."),
            vec![json!(k)],
        )
    };
    for k in m.keys() {
        let atlas_key = atlas && k == "unacknowledgeAlert";
        if k != "acknowledgedUntil" && k != "acknowledgementComment" && !atlas_key {
            return Err(invalid_attr(k));
        }
    }
    match m.get("unacknowledgeAlert") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => return Ok((DateTime::<Utc>::UNIX_EPOCH, None)),
        Some(_) => return Err(invalid_attr("unacknowledgeAlert")),
    }
    let until = match m.get("acknowledgedUntil") {
        None | Some(Value::Null) => {
            return Err(err(
                400,
                "MISSING_ATTRIBUTE",
                "The required attribute acknowledgedUntil was not specified.",
                vec![json!("acknowledgedUntil")],
            ))
        }
        Some(Value::String(s)) => parse_time(s).ok_or_else(|| invalid_attr("acknowledgedUntil"))?,
        Some(_) => return Err(invalid_attr("acknowledgedUntil")),
    };
    let comment = match m.get("acknowledgementComment") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() > 200 => {
            return Err(err(
                400,
                "ACKNOWLEDGEMENT_COMMENT_TOO_LONG",
                "The acknowledgement comment is too long. It must be 200 characters or fewer.",
                vec![],
            ))
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(invalid_attr("acknowledgementComment")),
    };
    Ok((until, comment))
}
