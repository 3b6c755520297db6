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

use super::*;

pub(crate) struct Ctx<'a> {
    pub(crate) shared: &'a Shared,
    pub(crate) method: &'a str,
    pub(crate) role: Role,
    pub(crate) user: &'a str,
    pub(crate) path: &'a str,
    pub(crate) q: &'a Query<'a>,
    pub(crate) r: &'a Render,
}

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
            match self.q.get(name) {
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

    pub(crate) fn dispatch(&self, route: &Route<'_>, body: &[u8]) -> Reply {
        // Any /groups/{g}/... path needs an existing group first.
        if let Some(g) = route.group() {
            if !self.world().projects.iter().any(|p| p.id == g) {
                return err(
                    404,
                    "GROUP_NOT_FOUND",
                    format!("No group with ID {g} exists."),
                    vec![json!(g)],
                );
            }
        }
        match *route {
            Route::Groups => {
                let w = self.world();
                let items: Vec<_> = w
                    .projects
                    .iter()
                    .filter(|p| self.role == Role::Owner || p.id == self.shared.keys.ro_group)
                    .collect();
                let reply = self.list(items, |p| self.group_json(&w, &p.id));
                drop(w);
                reply
            }
            Route::Group(g) => {
                let v = self.group_json(&self.world(), g);
                self.r.entity(200, v)
            }
            Route::Hosts(g) => {
                let w = self.world();
                let cluster = self.q.get("clusterId");
                let items: Vec<_> = w
                    .hosts
                    .iter()
                    .filter(|h| h.group_id == g && self.has_host(h))
                    .filter(|h| cluster.is_none_or(|c| h.cluster_id.as_deref() == Some(c)))
                    .collect();
                let reply = self.list(items, |h| self.host_json(h));
                drop(w);
                reply
            }
            Route::Host(g, h) => match self.find_host(g, h) {
                Ok(host) => self.r.entity(200, self.host_json(&host)),
                Err(e) => e,
            },
            Route::Disks(g, h) => match self.find_host(g, h) {
                Ok(host) => {
                    let items: Vec<_> = host.partitions.iter().collect();
                    self.list(items, |p| self.disk_json(&host, &p.name))
                }
                Err(e) => e,
            },
            Route::Disk(g, h, d) => match self.find_host(g, h) {
                Ok(host) if host.partitions.iter().any(|p| p.name == d) => {
                    self.r.entity(200, self.disk_json(&host, d))
                }
                Ok(_) => device_not_found(h, d),
                Err(e) => e,
            },
            Route::HostMeasurements(g, h) => match self.find_host(g, h) {
                Ok(host) => self.measurements(&host, Of::Host),
                Err(e) => e,
            },
            Route::DiskMeasurements(g, h, d) => match self.find_host(g, h) {
                Ok(host) => match host.partitions.iter().position(|p| p.name == d) {
                    Some(i) => self.measurements(&host, Of::Disk(i)),
                    None => device_not_found(h, d),
                },
                Err(e) => e,
            },
            Route::Databases(g, h) => match self.find_host(g, h) {
                Ok(host) => {
                    let items: Vec<_> = host.databases.iter().collect();
                    self.list(items, |d| self.database_json(&host, &d.name))
                }
                Err(e) => e,
            },
            Route::Database(g, h, d) => match self.find_host(g, h) {
                Ok(host) if host.databases.iter().any(|x| x.name == d) => {
                    self.r.entity(200, self.database_json(&host, d))
                }
                Ok(_) => database_not_found(h, d),
                Err(e) => e,
            },
            Route::DatabaseMeasurements(g, h, d) => match self.find_host(g, h) {
                Ok(host) => match host.databases.iter().position(|x| x.name == d) {
                    Some(i) => self.measurements(&host, Of::Database(i)),
                    None => database_not_found(h, d),
                },
                Err(e) => e,
            },
            Route::AlertConfigs(g) => {
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
            Route::AlertConfig(g, c) => {
                let w = self.world();
                match w.alert_configs.iter().find(|x| {
                    x.group_id == g && x.id == c && self.has_alert_type(&x.event_type_name)
                }) {
                    Some(cfg) => {
                        let v = self.config_json(cfg);
                        drop(w);
                        self.r.entity(200, v)
                    }
                    None => config_not_found(g, c),
                }
            }
            Route::AlertConfigAlerts(g, c) => self.config_alerts(g, c),
            Route::GroupAlerts(g) => self.project_alerts(g),
            Route::GroupAlert(g, a) => self.project_alert(g, a, body),
            Route::Events(g) => self.events(g),
            Route::Event(g, e) => self.event(g, e),
            Route::Clusters(g) => self.clusters(g),
            Route::Cluster(g, c) => self.cluster(g, c),
            Route::GlobalAlerts => self.cached_alert_list(|| self.global_alerts()),
            Route::GlobalAlert(a) => self.global_alert(a, body),
            Route::AccessList => self.access_list(),
            Route::AccessListEntry(id) => self.access_list_entry(id),
        }
    }

    pub(crate) fn status_filter(&self) -> Result<Option<&str>, Reply> {
        match self.q.get("status") {
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
