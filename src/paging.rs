//! Paging: every page of a list, fetched concurrently once `totalCount` is known, or lazily
//! as a stream; with guards against servers whose pages do not add up.

use std::collections::HashMap;

use futures_util::stream::{self, Stream, StreamExt, TryStreamExt};

use crate::client::Client;
use crate::decode::{decode_page_shared, Page};
use crate::error::{Error, Result};
use crate::models::Model;
use crate::request::Request;

/// A spawned task that is aborted when its handle is dropped: a pull that fails or is
/// cancelled (Ctrl-C in Python drops the future) leaves nothing running behind it.
pub(crate) struct OwnedTask<T>(tokio::task::JoinHandle<Result<T>>);

impl<T> Drop for OwnedTask<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> std::future::Future for OwnedTask<T> {
    type Output = Result<T>;
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<T>> {
        std::pin::Pin::new(&mut self.0).poll(cx).map(|joined| {
            joined.unwrap_or_else(|e| Err(Error::Internal(format!("a request task failed: {e}"))))
        })
    }
}

/// Runs `fut` on the runtime's worker threads (decoding in parallel), owned by the handle.
pub(crate) fn spawn_owned<T: Send + 'static>(
    fut: impl std::future::Future<Output = Result<T>> + Send + 'static,
) -> OwnedTask<T> {
    OwnedTask(tokio::spawn(fut))
}

/// Items per page requested: the service's maximum.
pub const ITEMS_PER_PAGE: u32 = 500;

/// Every item of a list, in the server's order, with the server's `totalCount`.
///
/// ```
/// # fn f(list: opsapi::List<opsapi::GlobalAlert>) {
/// println!("{} of {}", list.len(), list.total_count());
/// for alert in &list { println!("{:?}", alert.id); }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct List<T> {
    items: Vec<T>,
    total_count: u64,
}

/// A list of alerts (global or project).
pub type AlertList<T> = List<T>;
/// A list of hosts.
pub type HostList = List<crate::models::Host>;
/// A list of clusters.
pub type ClusterList = List<crate::models::Cluster>;

impl<T> List<T> {
    /// A list from its items.
    pub fn new(items: Vec<T>, total_count: u64) -> Self {
        Self { items, total_count }
    }
    /// `totalCount` as the server reported it (equal to the number of items).
    pub fn total_count(&self) -> u64 {
        self.total_count
    }
    /// The items.
    pub fn items(&self) -> &[T] {
        &self.items
    }
    /// The items, owned.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl<T> std::ops::Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<T> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

async fn fetch_page<T: Model>(client: &Client, req: &Request, page_num: u64) -> Result<Page<T>> {
    let req = req.clone().query([
        ("pageNum", page_num.to_string()),
        ("itemsPerPage", ITEMS_PER_PAGE.to_string()),
    ]);
    let resp = client.execute(&req).await?;
    decode_page_shared(&req.path, &resp.body)
}

fn paging_error(req: &Request, message: String) -> Error {
    Error::Paging {
        path: req.path.clone(),
        message,
    }
}

fn repeated_page(req: &Request, id: &str, first: u64, again: u64) -> Error {
    paging_error(
        req,
        format!("item `{id}` arrived on page {first} and again on page {again}: the server repeated a page"),
    )
}

/// The fingerprint of a page: a hash of its length and of the text of its first and last
/// items (`None` for an empty page). A page sent twice has the same fingerprint, whether or
/// not its items carry an `id`, and is caught as soon as it arrives; a match is confirmed on
/// the whole text. Hashing every item's text instead (13 MB for 20 000 alerts, on the task
/// that drives the listing) was a tenth of the listing's time.
fn fingerprint<T: Model>(items: &[T]) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let (first, last) = (items.first()?, items.last()?);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    items.len().hash(&mut h);
    first.raw_json().hash(&mut h);
    last.raw_json().hash(&mut h);
    Some(h.finish())
}

fn repeated_items(req: &Request, first: u64, again: u64) -> Error {
    paging_error(
        req,
        format!("page {again} holds the same items as page {first}: the server repeated a page"),
    )
}

/// The listing request of each project of `group_ids`, made by `request`, every one checked
/// before any is sent: an invalid id is named by its position (`groups[2]`).
pub(crate) fn per_project<S: AsRef<str>>(
    group_ids: &[S],
    request: impl Fn(&str) -> Result<Request>,
) -> Result<Vec<Request>> {
    group_ids
        .iter()
        .enumerate()
        .map(|(i, g)| {
            request(g.as_ref()).map_err(|e| match e {
                Error::InvalidArgument { message, .. } => Error::InvalidArgument {
                    argument: format!("groups[{i}]"),
                    message,
                },
                other => other,
            })
        })
        .collect()
}

/// A listing of every project: each project's (`requests`, one per project) with every page,
/// the projects concurrently (at most the client's `max_concurrency` requests in flight), one
/// list in the order of the projects whose `total_count` is the sum of theirs. A project
/// that fails fails the whole (never a silently shorter list).
pub(crate) async fn every_project<T: Model>(
    client: &Client,
    requests: Vec<Request>,
) -> Result<List<T>> {
    let lists: Vec<List<T>> = stream::iter(requests)
        .map(|req| list_all::<T>(client, req))
        .buffered(client.max_concurrency())
        .try_collect()
        .await?;
    let total = lists.iter().map(|l| l.total_count()).sum();
    let items = lists.into_iter().flat_map(|l| l.into_vec()).collect();
    Ok(List::new(items, total))
}

/// The project ids of `groups`, or of every project the key can see (`GET /groups`, every
/// page) where it is `None`.
pub(crate) async fn project_ids(client: &Client, groups: Option<&[&str]>) -> Result<Vec<String>> {
    Ok(match groups {
        Some(ids) => ids.iter().map(|g| g.to_string()).collect(),
        None => {
            let projects = client.groups().list().await?;
            projects.into_iter().filter_map(|p| p.id).collect()
        }
    })
}

/// Remembers item ids and page fingerprints to catch a page the server sends twice.
#[derive(Default)]
struct SeenIds {
    ids: HashMap<String, u64>,
    pages: HashMap<u64, u64>,
}

impl SeenIds {
    fn check<T: Model>(&mut self, req: &Request, items: &[T], page: u64) -> Result<()> {
        for item in items {
            if let Some(id) = item.item_id() {
                if let Some(first) = self.ids.insert(id.to_string(), page) {
                    return Err(repeated_page(req, id, first, page));
                }
            }
        }
        if let Some(print) = fingerprint(items) {
            if let Some(first) = self.pages.insert(print, page) {
                return Err(repeated_items(req, first, page));
            }
        }
        Ok(())
    }
}

/// The guard of [`SeenIds`] over a whole list at once, borrowing the ids: an id that occurs
/// twice means the server sent a page again (pages hold `per_page` items each).
fn repeated_page_check<T: Model>(req: &Request, items: &[T], per_page: u64) -> Result<()> {
    let mut first_at: HashMap<&str, usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(items.len(), Default::default());
    for (i, item) in items.iter().enumerate() {
        if let Some(id) = item.item_id() {
            if let Some(first) = first_at.insert(id, i) {
                let page = |i: usize| i as u64 / per_page + 1;
                return Err(repeated_page(req, id, page(first), page(i)));
            }
        }
    }
    Ok(())
}

/// Fetches every page: the first one, then the rest concurrently (up to the client's
/// `max_concurrency`), returned in order.
pub(crate) async fn list_all<T: Model>(client: &Client, req: Request) -> Result<List<T>> {
    let first: Page<T> = fetch_page(client, &req, 1).await?;
    let Some(total) = first.total_count else {
        // No totalCount (includeCount=false servers): follow `next` links one by one.
        let items: Vec<T> = stream_from(client.clone(), req, Some(first))
            .try_collect()
            .await?;
        let n = items.len() as u64;
        return Ok(List::new(items, n));
    };
    let got = first.items.len() as u64;
    if got >= total {
        if got > total {
            return Err(paging_error(
                &req,
                format!("totalCount is {total} but the first page holds {got} items"),
            ));
        }
        return Ok(List::new(first.items, total));
    }
    if got == 0 {
        return Err(paging_error(
            &req,
            format!("totalCount is {total} but the first page is empty"),
        ));
    }
    // The server may cap itemsPerPage below what was asked; the first page tells its size.
    let per_page = got;
    let pages = total.div_ceil(per_page);
    // Each page is fetched and decoded in a task of its own: decoding runs on every worker.
    // Pages are checked and moved into the list as they arrive in order, so no more than
    // `max_concurrency` decoded pages wait beside it.
    let mut rest = stream::iter(2..=pages)
        .map(|p| {
            let (client, req) = (client.clone(), req.clone());
            spawn_owned(async move {
                fetch_page::<T>(&client, &req, p)
                    .await
                    .map(|page| (p, page))
            })
        })
        .buffered(client.max_concurrency());
    let mut items = first.items;
    items.reserve_exact(total.saturating_sub(got) as usize);
    // Pages by fingerprint, for items without ids (the id check below covers the others).
    let mut seen_pages: HashMap<u64, u64> =
        fingerprint(&items).map(|f| (f, 1)).into_iter().collect();
    while let Some((p, page)) = rest.try_next().await? {
        let expected = if p == pages {
            total - per_page * (pages - 1)
        } else {
            per_page
        };
        if page.items.len() as u64 != expected {
            return Err(paging_error(
                &req,
                format!(
                    "page {p} of {pages} holds {} items where {expected} were expected (totalCount {total}, {per_page} per page)",
                    page.items.len()
                ),
            ));
        }
        if page.total_count.is_some_and(|t| t != total) {
            return Err(paging_error(
                &req,
                format!(
                    "totalCount changed from {total} to {} while paging",
                    page.total_count.unwrap_or_default()
                ),
            ));
        }
        let repeated = fingerprint(&page.items).and_then(|f| seen_pages.insert(f, p));
        if let Some(first) = repeated {
            // Confirmed on the text, so that a hash collision can never fail a good list.
            let at = |n: u64| ((n - 1) * per_page) as usize;
            let earlier = &items[at(first)..at(first) + page.items.len()];
            let same = earlier
                .iter()
                .zip(&page.items)
                .all(|(a, b)| a.raw_json() == b.raw_json());
            if same {
                return Err(repeated_items(&req, first, p));
            }
        }
        items.extend(page.items);
    }
    repeated_page_check(&req, &items, per_page)?;
    Ok(List::new(items, total))
}

/// Every item of a list, page by page as it is consumed.
pub(crate) fn stream_all<T: Model>(
    client: Client,
    req: Request,
) -> impl Stream<Item = Result<T>> + Send + 'static {
    stream_from(client, req, None)
}

struct StreamState<T> {
    client: Client,
    req: Request,
    next_page: u64,
    received: u64,
    total: Option<u64>,
    seen: SeenIds,
    prefetched: Option<Page<T>>,
    done: bool,
}

fn stream_from<T: Model>(
    client: Client,
    req: Request,
    first: Option<Page<T>>,
) -> impl Stream<Item = Result<T>> + Send + 'static {
    let state = StreamState {
        client,
        req,
        next_page: 1,
        received: 0,
        total: None,
        seen: SeenIds::default(),
        prefetched: first,
        done: false,
    };
    stream::try_unfold(state, |mut st| async move {
        if st.done {
            return Ok(None);
        }
        let page_num = st.next_page;
        let page = match st.prefetched.take() {
            Some(p) => p,
            None => fetch_page::<T>(&st.client, &st.req, page_num).await?,
        };
        st.next_page += 1;
        st.seen.check(&st.req, &page.items, page_num)?;
        if page_num == 1 {
            st.total = page.total_count;
        } else if let (Some(t), Some(now)) = (st.total, page.total_count) {
            if t != now {
                return Err(paging_error(
                    &st.req,
                    format!("totalCount changed from {t} to {now} while paging"),
                ));
            }
        }
        st.received += page.items.len() as u64;
        let has_next = page.link("next").is_some();
        match st.total {
            Some(total) => {
                if st.received > total {
                    return Err(paging_error(
                        &st.req,
                        format!("{} items arrived but totalCount is {total}", st.received),
                    ));
                }
                if st.received == total {
                    st.done = true;
                } else if page.items.is_empty() {
                    return Err(paging_error(
                        &st.req,
                        format!(
                            "page {page_num} is empty after {} of {total} items",
                            st.received
                        ),
                    ));
                }
            }
            None => {
                if page.items.is_empty() || !has_next {
                    st.done = true;
                }
            }
        }
        Ok(Some((stream::iter(page.items.into_iter().map(Ok)), st)))
    })
    .try_flatten()
}
