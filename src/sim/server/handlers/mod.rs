//! The handler context (`Ctx`: paging, links, the world) and the dispatch of each route to the
//! handler of its resource, one file per resource.

mod access_list;
mod alert_configs;
mod alerts;
mod clusters;
mod events;
mod global_alerts;
mod groups;
mod hosts;
mod measurements;
mod performance_advisor;

use super::*;
use crate::flavour::{Operation, Row, Scope};

pub(crate) struct Ctx<'a> {
    pub(crate) shared: &'a Shared,
    pub(crate) method: &'a str,
    pub(crate) role: Role,
    pub(crate) user: &'a str,
    pub(crate) path: &'a str,
    /// The row of the request's operation.
    pub(crate) row: &'static Row,
    pub(crate) q: &'a Query<'a>,
    pub(crate) r: &'a Render,
}

/// The query parameters of every request: paging (of a page) and the answer's form.
const COMMON_QUERY: [&str; 4] = ["pageNum", "itemsPerPage", "pretty", "envelope"];

pub(crate) struct Page {
    pub(crate) num: usize,
    pub(crate) size: usize,
}

impl Ctx<'_> {
    pub(crate) fn url(&self, rel_path: &str) -> String {
        let api = self.shared.config.flavour.api_path();
        format!("{}{api}{rel_path}", self.shared.base_url)
    }

    pub(crate) fn self_url(&self) -> String {
        let mut s = format!("{}{}", self.shared.base_url, self.path);
        if let Some(q) = self.q.raw {
            s.push('?');
            s.push_str(q);
        }
        s
    }

    pub(crate) fn page(&self) -> Result<Page, Reply> {
        let parse = |name: &str, default: usize, max: usize| -> Result<usize, Reply> {
            match self.query(name) {
                None => Ok(default),
                Some(v) => match v.trim().parse::<i64>() {
                    Ok(n) if n >= 1 && n as u64 <= max as u64 => Ok(n as usize),
                    _ => Err(err(
                        400,
                        "INVALID_QUERY_PARAMETER",
                        format!("An invalid value {v} was specified for query parameter {name}."),
                        vec![json!(name), json!(v)],
                    )),
                },
            }
        };
        Ok(Page {
            num: parse("pageNum", 1, 1_000_000_000)?,
            size: parse("itemsPerPage", 100, 500)?,
        })
    }

    /// A paged list of already rendered items.
    pub(crate) fn list<T>(&self, items: Vec<T>, render: impl Fn(T) -> Value) -> Reply {
        let page = match self.page() {
            Ok(p) => p,
            Err(e) => return e,
        };
        let mut total = items.len() as i64;
        // Only a request for a later page can repeat the first one.
        let arrival = Arrival {
            method: self.method,
            path: self.path,
            query: self.q.raw,
        };
        let repeat = page.num > 1
            && self
                .shared
                .take_fault(&arrival, |f| matches!(f, Fault::RepeatFirstPage))
                .is_some();
        if let Some(Fault::WrongTotalCount(n)) = self
            .shared
            .take_fault(&arrival, |f| matches!(f, Fault::WrongTotalCount(_)))
        {
            total = n;
        }
        let n = items.len();
        let start = if repeat {
            0
        } else {
            (page.num - 1).saturating_mul(page.size)
        };
        let results: Vec<Value> = items
            .into_iter()
            .skip(start)
            .take(page.size)
            .map(render)
            .collect();
        let base = {
            let mut s = format!("{}{}?", self.shared.base_url, self.path);
            for kv in self.q.raw_without_paging() {
                s.push_str(kv);
                s.push('&');
            }
            s
        };
        let href = |num: usize| format!("{base}pageNum={num}&itemsPerPage={}", page.size);
        let mut links = vec![link(href(page.num), "self")];
        if page.num > 1 {
            links.push(link(href(page.num - 1), "previous"));
        }
        if page.num.saturating_mul(page.size) < n {
            links.push(link(href(page.num + 1), "next"));
        }
        self.r.list(
            200,
            json!({"links": links, "results": results, "totalCount": total}),
        )
    }

    pub(crate) fn world(&self) -> RwLockReadGuard<'_, World> {
        self.shared.world_read()
    }

    /// The handler of the operation: every operation of the table has its arm (a new one
    /// does not compile without it), and nothing else is served.
    pub(crate) fn dispatch(&self, op: Operation, p: &Params, body: &[u8]) -> Reply {
        // Any operation below a project needs an existing project first.
        if self.row.scope() == Scope::Project {
            let g = p.group();
            if !self.world().projects.iter().any(|x| x.id == g) {
                return err(
                    404,
                    "GROUP_NOT_FOUND",
                    format!("No group with ID {g} exists."),
                    vec![json!(g)],
                );
            }
        }
        match op {
            Operation::GroupsList => self.groups(),
            Operation::GroupsGet => self.group(p.group()),
            Operation::HostsList => self.hosts(p.group()),
            Operation::HostsGet => self.host(p.group(), p.get("host_id")),
            Operation::HostsPartitions => self.disks(p.group(), p.get("host_id")),
            Operation::HostsDatabases => self.databases(p.group(), p.get("host_id")),
            Operation::MeasurementsHost => self.host_measurements(p.group(), p.get("host_id")),
            Operation::MeasurementsDisk => {
                self.disk_measurements(p.group(), p.get("host_id"), p.get("partition_name"))
            }
            Operation::MeasurementsDatabase => {
                self.database_measurements(p.group(), p.get("host_id"), p.get("database_name"))
            }
            Operation::AlertConfigsList => self.alert_configs(p.group()),
            Operation::AlertConfigsOpenAlerts => {
                self.config_alerts(p.group(), p.get("alert_config_id"))
            }
            Operation::AlertsList => self.project_alerts(p.group()),
            Operation::AlertsGet => self.project_alert(p.group(), p.get("alert_id")),
            Operation::AlertsAcknowledge => {
                self.acknowledge_project_alert(p.group(), p.get("alert_id"), body)
            }
            Operation::EventsList => self.events(p.group()),
            Operation::EventsGet => self.event(p.group(), p.get("event_id")),
            Operation::ClustersList => self.clusters(p.group()),
            Operation::ClustersGet => self.cluster(p.group(), p.get("cluster")),
            Operation::GlobalAlertsList => self.cached_alert_list(|| self.global_alerts()),
            Operation::GlobalAlertsGet => self.global_alert(p.get("alert_id")),
            Operation::GlobalAlertsAcknowledge => {
                self.acknowledge_global_alert(p.get("alert_id"), body)
            }
            Operation::AccessListList => self.access_list(),
            Operation::AccessListDelete => self.delete_access_list_entry(p.get("entry_id")),
            Operation::PerformanceAdvisorNamespaces => {
                self.advisor_namespaces(p.group(), p.get("host_id"))
            }
            Operation::PerformanceAdvisorSlowQueryLogs => {
                self.slow_query_logs(p.group(), p.get("host_id"))
            }
            Operation::PerformanceAdvisorSuggestedIndexes => {
                self.suggested_indexes(p.group(), p.get("host_id"))
            }
        }
    }

    /// The value of the query parameter `name`, one of the row's (or of paging, `pretty`,
    /// `envelope`): the simulator reads no parameter its row does not name.
    pub(crate) fn query(&self, name: &str) -> Option<&str> {
        debug_assert!(
            self.row.query.contains(&name) || COMMON_QUERY.contains(&name),
            "{} reads {name}, which its row does not name",
            self.row.name
        );
        self.q.get(name)
    }

    /// The times of the query parameters `names` (the first and the last of a window, each
    /// optional): 400 `INVALID_QUERY_PARAMETER` for one that is not ISO 8601.
    pub(crate) fn time_bounds(
        &self,
        names: [&str; 2],
    ) -> Result<[Option<DateTime<Utc>>; 2], Reply> {
        let mut bounds = [None, None];
        for (bound, name) in bounds.iter_mut().zip(names) {
            if let Some(v) = self.query(name) {
                *bound = Some(parse_time(v).ok_or_else(|| invalid_query(name, v))?);
            }
        }
        Ok(bounds)
    }

    /// Every value of the query parameter `name` (repeated: `m`, `eventType`), one of the
    /// row's.
    pub(crate) fn query_all(&self, name: &str) -> Vec<&str> {
        debug_assert!(self.row.query.contains(&name), "{}: {name}", self.row.name);
        self.q.all(name)
    }

    pub(crate) fn status_filter(&self) -> Result<Option<&str>, Reply> {
        match self.query("status") {
            None => Ok(None),
            Some(s @ ("TRACKING" | "OPEN" | "CLOSED")) => Ok(Some(s)),
            Some(s) => Err(err(
                400,
                "INVALID_ALERT_STATUS",
                format!("Invalid alert status {s}."),
                vec![json!(s)],
            )),
        }
    }

    pub(crate) fn find_host(&self, g: &str, h: &str) -> Result<Host, Reply> {
        self.world()
            .hosts
            .iter()
            .find(|x| x.group_id == g && self.names_host(x, h) && self.has_host(x))
            .cloned()
            .ok_or_else(|| {
                err(
                    404,
                    "HOST_NOT_FOUND",
                    format!("No host with ID {h} exists in group {g}."),
                    vec![json!(h), json!(g)],
                )
            })
    }
}
