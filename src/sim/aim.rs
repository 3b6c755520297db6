//! Which request a queued fault or a hold is for ([`Aim`]), the queue of one-shot faults, and
//! holds: a request kept waiting until the test releases it ([`Hold`]).
//!
//! A fault queued without an aim strikes the next request it applies to, whatever sent it: a
//! page request still in flight from an earlier call can use it up. Aimed at a method, a path
//! and a page (or the n-th such request), it can only strike that request.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::Fault;
use crate::flavour::API_PATH;
use crate::flavour::ATLAS_API_PATH;

/// The requests a fault or a hold is aimed at: every field given must match. The default
/// matches every request.
///
/// ```
/// use opsapi::sim::{Aim, Fault, SimConfig, Simulator};
///
/// let sim = Simulator::start(SimConfig::default()).unwrap();
/// // Page 2 of the global alerts, and no other request, answers page 1's items.
/// sim.inject_at(Aim::get("/globalAlerts").page(2), Fault::RepeatFirstPage, 1);
/// // The second PATCH of that alert (its retry) is reset.
/// sim.inject_at(Aim::new().method("PATCH").path("/globalAlerts/a1").nth(2), Fault::Reset, 1);
/// assert_eq!(sim.injected().len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Aim {
    /// HTTP method (compared without regard to case).
    pub method: Option<String>,
    /// The path as sent (percent-encoding kept), with or without the API's prefix
    /// (`/api/public/v1.0`, `/api/atlas/v2`).
    pub path: Option<String>,
    /// The `pageNum` query parameter (a request without one is page 1).
    pub page: Option<u32>,
    /// Strike the n-th matching request (1, the default: the first), counted from when the
    /// fault was queued; later copies strike the matching requests after it. A fault counts
    /// only the requests it applies to (a status fault: authorized ones, not a fresh
    /// client's unsigned first request); a hold counts every arrival.
    pub nth: u32,
}

impl Aim {
    /// Every request.
    pub fn new() -> Self {
        Self {
            nth: 1,
            ..Self::default()
        }
    }

    /// `GET` requests of `path`.
    pub fn get(path: impl Into<String>) -> Self {
        Self::new().method("GET").path(path)
    }

    /// Only this method.
    pub fn method(mut self, method: impl Into<String>) -> Self {
        self.method = Some(method.into());
        self
    }

    /// Only this path.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Only this page of a listing.
    pub fn page(mut self, page: u32) -> Self {
        self.page = Some(page);
        self
    }

    /// The n-th matching request (1-based).
    pub fn nth(mut self, n: u32) -> Self {
        self.nth = n.max(1);
        self
    }

    /// Whether a request matches (without counting `nth`).
    pub(crate) fn matches(&self, req: &Arrival<'_>) -> bool {
        self.method
            .as_deref()
            .is_none_or(|m| m.eq_ignore_ascii_case(req.method))
            && self.path.as_deref().is_none_or(|p| {
                req.path == p
                    || req
                        .path
                        .strip_prefix(API_PATH)
                        .or_else(|| req.path.strip_prefix(ATLAS_API_PATH))
                        .is_some_and(|rest| rest == p)
            })
            && self.page.is_none_or(|n| page_of(req.query) == Some(n))
    }
}

/// The `pageNum` of a query string; 1 when it has none, `None` when it is not a number.
fn page_of(query: Option<&str>) -> Option<u32> {
    let Some(q) = query else { return Some(1) };
    match q.split('&').find_map(|kv| kv.strip_prefix("pageNum=")) {
        Some(v) => v.parse().ok(),
        None => Some(1),
    }
}

/// What an aim is matched against: the request as it arrived.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arrival<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: Option<&'a str>,
}

struct Queued {
    fault: Fault,
    aim: Aim,
    /// Matching requests still to let pass before this one strikes.
    skip: u32,
}

/// The one-shot faults, oldest first.
#[derive(Default)]
pub(crate) struct FaultQueue {
    q: Mutex<VecDeque<Queued>>,
}

impl FaultQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Queued>> {
        self.q.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `count` copies: the first strikes the `aim.nth`-th matching request, the others
    /// the matching requests after it.
    pub(crate) fn push(&self, aim: Aim, fault: Fault, count: usize) {
        let mut q = self.lock();
        for i in 0..count {
            q.push_back(Queued {
                fault: fault.clone(),
                aim: aim.clone(),
                skip: if i == 0 { aim.nth.saturating_sub(1) } else { 0 },
            });
        }
    }

    /// Takes the first queued fault that `applies` accepts and whose aim matches `req`; one
    /// still waiting for its n-th request counts this one instead.
    pub(crate) fn take(
        &self,
        req: &Arrival<'_>,
        applies: impl Fn(&Fault) -> bool,
    ) -> Option<Fault> {
        let mut q = self.lock();
        let i = q
            .iter()
            .position(|e| applies(&e.fault) && e.aim.matches(req))?;
        if q[i].skip > 0 {
            q[i].skip -= 1;
            return None;
        }
        q.remove(i).map(|e| e.fault)
    }

    pub(crate) fn any(&self, pred: impl Fn(&Fault) -> bool) -> bool {
        self.lock().iter().any(|e| pred(&e.fault))
    }

    pub(crate) fn faults(&self) -> Vec<Fault> {
        self.lock().iter().map(|e| e.fault.clone()).collect()
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}

/// One hold's state, shared by the server and the test's [`Hold`].
#[derive(Debug)]
pub(crate) struct HoldState {
    aim: Aim,
    skip: Mutex<u32>,
    arrived: tokio::sync::watch::Sender<bool>,
    released: tokio::sync::watch::Sender<bool>,
}

/// The holds not yet taken by a request.
#[derive(Default)]
pub(crate) struct Holds {
    waiting: Mutex<Vec<Arc<HoldState>>>,
}

impl Holds {
    pub(crate) fn add(&self, aim: Aim) -> Hold {
        let state = Arc::new(HoldState {
            skip: Mutex::new(aim.nth.saturating_sub(1)),
            aim,
            arrived: tokio::sync::watch::channel(false).0,
            released: tokio::sync::watch::channel(false).0,
        });
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(state.clone());
        Hold { state }
    }

    /// The hold `req` is to wait for, if any (taken off the list: a hold holds one request).
    pub(crate) fn take(&self, req: &Arrival<'_>) -> Option<Arc<HoldState>> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let i = waiting.iter().position(|h| h.aim.matches(req))?;
        {
            let mut skip = waiting[i].skip.lock().unwrap_or_else(|e| e.into_inner());
            if *skip > 0 {
                *skip -= 1;
                return None;
            }
        }
        Some(waiting.remove(i))
    }
}

impl HoldState {
    /// Says the request arrived, then waits until the test releases it.
    pub(crate) async fn wait(&self) {
        self.arrived.send_replace(true);
        let mut released = self.released.subscribe();
        let _ = released.wait_for(|r| *r).await;
    }
}

/// A request kept waiting on arrival (logged, not yet handled) until [`Hold::release`], or
/// until the `Hold` is dropped. Made by [`super::Simulator::hold`].
///
/// ```
/// use opsapi::sim::{Aim, SimConfig, Simulator};
///
/// let sim = Simulator::start(SimConfig::default()).unwrap();
/// let hold = sim.hold(Aim::get("/groups"));
/// assert!(!hold.has_arrived());
/// hold.release(); // nothing arrived: the next GET /groups is not held
/// ```
#[derive(Debug)]
pub struct Hold {
    state: Arc<HoldState>,
}

impl Hold {
    /// Whether the held request has arrived.
    pub fn has_arrived(&self) -> bool {
        *self.state.arrived.borrow()
    }

    /// Waits until the held request has arrived.
    pub async fn arrived(&self) {
        let mut rx = self.state.arrived.subscribe();
        let _ = rx.wait_for(|a| *a).await;
    }

    /// Blocks until the held request has arrived, for at most `timeout`; whether it did.
    pub fn wait_arrived(&self, timeout: Duration) -> bool {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
        else {
            return false;
        };
        rt.block_on(async { tokio::time::timeout(timeout, self.arrived()).await })
            .is_ok()
    }

    /// Lets the held request (or the one still to come) go on.
    pub fn release(&self) {
        self.state.released.send_replace(true);
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(method: &'a str, path: &'a str, query: Option<&'a str>) -> Arrival<'a> {
        Arrival {
            method,
            path,
            query,
        }
    }

    #[test]
    fn an_aim_matches_method_path_under_the_prefix_and_page() {
        let a = Aim::get("/globalAlerts").page(2);
        let p = "/api/public/v1.0/globalAlerts";
        assert!(a.matches(&req("GET", p, Some("pageNum=2&itemsPerPage=500"))));
        assert!(a.matches(&req(
            "get",
            "/globalAlerts",
            Some("itemsPerPage=1&pageNum=2")
        )));
        assert!(!a.matches(&req("GET", p, Some("pageNum=3"))));
        assert!(!a.matches(&req("GET", p, None)), "no pageNum: page 1");
        assert!(!a.matches(&req("PATCH", p, Some("pageNum=2"))));
        assert!(!a.matches(&req(
            "GET",
            "/api/public/v1.0/globalAlerts/x",
            Some("pageNum=2")
        )));
        assert!(Aim::get(p).page(1).matches(&req("GET", p, None)));
        assert!(Aim::new().matches(&req("DELETE", "/anything", Some("pageNum=x"))));
    }

    #[test]
    fn the_nth_matching_request_takes_the_fault_and_copies_strike_the_ones_after() {
        let q = FaultQueue::default();
        q.push(Aim::get("/a").nth(2), Fault::Reset, 2);
        q.push(Aim::new(), Fault::Truncate, 1);
        let any = |_: &Fault| true;
        let a = req("GET", "/a", None);
        let b = req("GET", "/b", None);
        assert_eq!(q.take(&b, any), Some(Fault::Truncate), "not aimed at /b");
        assert_eq!(q.take(&a, any), None, "the first /a is let pass");
        assert_eq!(q.take(&a, any), Some(Fault::Reset));
        assert_eq!(q.take(&a, any), Some(Fault::Reset));
        assert_eq!(q.take(&a, any), None);
        assert!(q.faults().is_empty());
    }

    #[test]
    fn a_hold_takes_its_nth_request_once() {
        let holds = Holds::default();
        let h = holds.add(Aim::get("/a").nth(2));
        let a = req("GET", "/a", None);
        assert!(holds.take(&a).is_none());
        assert!(holds.take(&a).is_some());
        assert!(holds.take(&a).is_none());
        assert!(!h.has_arrived());
    }
}
