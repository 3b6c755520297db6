//! Project alerts: `/groups/{g}/alerts` (status filter, paging), `/groups/{g}/alerts/{a}`
//! (GET, and PATCH with the rules of global alerts), and the open alerts of a configuration,
//! over the project's alerts of both of the world's lists (`World::project_alerts`).

use super::global_alerts::{apply_ack, parse_ack};
use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::AlertsList, |c, p, _| c.project_alerts(p.group())),
    (Operation::AlertsGet, |c, p, _| {
        c.project_alert(p.group(), p.get("alert_id"))
    }),
    (Operation::AlertsAcknowledge, |c, p, body| {
        c.acknowledge_project_alert(p.group(), p.get("alert_id"), body)
    }),
    (Operation::AlertConfigsOpenAlerts, |c, p, _| {
        c.config_alerts(p.group(), p.get("alert_config_id"))
    }),
];

/// `ALERT_NOT_FOUND` as the project routes word it.
fn not_in_group(g: &str, a: &str) -> Reply {
    err(
        404,
        "ALERT_NOT_FOUND",
        format!("No alert with ID {a} exists in group {g}."),
        vec![json!(a), json!(g)],
    )
}

impl Ctx<'_> {
    /// `GET /groups/{g}/alerts[?status=]`, oldest first.
    pub(crate) fn project_alerts(&self, g: &str) -> Reply {
        let status = match self.status_filter() {
            Ok(s) => s,
            Err(e) => return e,
        };
        let now = self.shared.clock.now();
        let w = self.world();
        let items: Vec<_> = w
            .project_alerts(g)
            .into_iter()
            .filter(|a| status.is_none_or(|s| a.status == s))
            .filter(|a| self.has_alert(&w, a))
            .collect();
        let reply = self.list(items, |a| self.alert_json(a, now, false));
        drop(w);
        reply
    }

    /// `GET /groups/{g}/alertConfigs/{c}/alerts`: the configuration's open alerts, the same
    /// as `alerts?status=OPEN` shows of it.
    pub(crate) fn config_alerts(&self, g: &str, c: &str) -> Reply {
        let now = self.shared.clock.now();
        let w = self.world();
        if !w
            .alert_configs
            .iter()
            .any(|x| x.group_id == g && x.id == c && self.has_alert_type(&x.event_type_name))
        {
            return config_not_found(g, c);
        }
        let items: Vec<_> = w
            .project_alerts(g)
            .into_iter()
            .filter(|a| a.alert_config_id == c && a.status == "OPEN" && self.has_alert(&w, a))
            .collect();
        let reply = self.list(items, |a| self.alert_json(a, now, false));
        drop(w);
        reply
    }

    /// `PATCH /groups/{g}/alerts/{a}`: acknowledges or un-acknowledges it.
    pub(crate) fn acknowledge_project_alert(&self, g: &str, id: &str, body: &[u8]) -> Reply {
        let now = self.shared.clock.now();
        let ack = match parse_ack(body, self.shared.config.flavour == crate::Flavour::Atlas) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let w = &mut *w;
        let served = w
            .alerts
            .iter()
            .chain(&w.alert_history)
            .any(|a| a.group_id == g && a.id == id && self.has_alert(w, a));
        let Some(a) = w
            .alerts
            .iter_mut()
            .chain(w.alert_history.iter_mut())
            .find(|a| served && a.group_id == g && a.id == id)
        else {
            return not_in_group(g, id);
        };
        apply_ack(a, ack, now, self.user);
        let a = a.clone();
        // A global alert's listing shows it too: its cached pages are stale now.
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        // Ops Manager documents 201; Atlas's specification 200.
        let status = if self.atlas() { 200 } else { 201 };
        self.r.entity(status, self.alert_json(&a, now, false))
    }

    /// `GET /groups/{g}/alerts/{a}`.
    pub(crate) fn project_alert(&self, g: &str, id: &str) -> Reply {
        let now = self.shared.clock.now();
        let w = self.world();
        let found = w
            .project_alerts(g)
            .into_iter()
            .find(|a| a.id == id && self.has_alert(&w, a))
            .cloned();
        drop(w);
        match found {
            Some(a) => self.r.entity(200, self.alert_json(&a, now, false)),
            None => not_in_group(g, id),
        }
    }
}
