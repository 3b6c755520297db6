//! The handler context (`Ctx`: paging, links, the world) and the dispatch of each route to the
//! handler of its operation. Each file serves one resource and names the operations its
//! handlers serve (its `SERVES`); `HANDLERS` gathers them, and the crate does not compile
//! unless every operation of the table has exactly one (the error names it).

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

/// What the simulator answers one operation's request: a function of the request's context,
/// its path's identifiers and its body.
pub(crate) type Handler = for<'a, 'p, 'b> fn(&Ctx<'a>, &'p Params, &'b [u8]) -> Reply;

/// An operation and its handler, as a file of this folder names it (its `SERVES`).
pub(crate) type Serve = (Operation, Handler);

/// Each operation's handler, in the order of [`Operation::ALL`], from the files' `SERVES`.
static HANDLERS: [Handler; Operation::ALL.len()] = by_operation(&[
    access_list::SERVES,
    alert_configs::SERVES,
    alerts::SERVES,
    clusters::SERVES,
    events::SERVES,
    global_alerts::SERVES,
    groups::SERVES,
    hosts::SERVES,
    measurements::SERVES,
    performance_advisor::SERVES,
]);

/// The handlers in the order of the operations. An operation served twice, or by none, is an
/// error when the crate compiles, naming the operation (`evaluation panicked: hosts.get`) at
/// the line of its rule.
const fn by_operation(files: &[&[Serve]]) -> [Handler; Operation::ALL.len()] {
    let mut handlers: [Handler; Operation::ALL.len()] = [unserved; Operation::ALL.len()];
    let mut served = [false; Operation::ALL.len()];
    let mut f = 0;
    while f < files.len() {
        let mut i = 0;
        while i < files[f].len() {
            let (op, handler) = files[f][i];
            if served[op as usize] {
                // Served twice: two files (or two lines of one) name it.
                panic!("{}", op.row().name);
            }
            served[op as usize] = true;
            handlers[op as usize] = handler;
            i += 1;
        }
        f += 1;
    }
    let mut i = 0;
    while i < served.len() {
        if !served[i] {
            // Served by none: its handler's file names it in its `SERVES`.
            panic!("{}", Operation::ALL[i].row().name);
        }
        i += 1;
    }
    handlers
}

/// The place of a handler before its file's is put there; every place is filled (above).
fn unserved(_: &Ctx<'_>, _: &Params, _: &[u8]) -> Reply {
    unreachable!("every operation has its handler: checked when the crate compiles")
}

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

    /// The handler of the operation (`HANDLERS`), below a project once the project exists.
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
        HANDLERS[op as usize](self, p, body)
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
