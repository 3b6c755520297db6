//! Shared by the benchmarks: the simulator fleet, the 20 metrics, and raw fetching (the
//! "raw-bytes floor": the same requests, signed the same way, bodies read and discarded).

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use opsapi::auth::{Challenge, Credentials, DigestSession};
use opsapi::sim::{SimConfig, Simulator};

/// Twenty host metrics: gauges and rate series (whose first point is null).
pub const METRICS: [&str; 20] = [
    "CONNECTIONS",
    "OPCOUNTER_CMD",
    "OPCOUNTER_QUERY",
    "OPCOUNTER_UPDATE",
    "OPCOUNTER_DELETE",
    "OPCOUNTER_GETMORE",
    "OPCOUNTER_INSERT",
    "NETWORK_BYTES_IN",
    "NETWORK_BYTES_OUT",
    "NETWORK_NUM_REQUESTS",
    "MEMORY_RESIDENT",
    "MEMORY_VIRTUAL",
    "CACHE_USED_BYTES",
    "CACHE_DIRTY_BYTES",
    "SYSTEM_NORMALIZED_CPU_USER",
    "SYSTEM_NORMALIZED_CPU_KERNEL",
    "SYSTEM_NORMALIZED_CPU_IOWAIT",
    "PROCESS_NORMALIZED_CPU_USER",
    "CURSORS_TOTAL_OPEN",
    "QUERY_EXECUTOR_SCANNED",
];

/// One day at PT1M, fixed so that the simulator renders each body once and serves it from
/// its cache: the benchmarks measure the client.
pub const START: &str = "2026-01-01T00:00:00Z";
pub const END: &str = "2026-01-02T00:00:00Z";

/// A simulator with `hosts` hosts (10 per project).
pub fn fleet_sim(hosts: usize) -> Simulator {
    Simulator::start(SimConfig {
        projects: hosts.div_ceil(10),
        hosts_per_project: hosts.min(10),
        worker_threads: 1,
        log_requests: false,
        ..SimConfig::default()
    })
    .expect("simulator starts")
}

/// `(group_id, host_id)` of the first `n` hosts.
pub fn host_targets(sim: &Simulator, n: usize) -> Vec<(String, String)> {
    sim.world()
        .hosts
        .iter()
        .take(n)
        .map(|h| (h.group_id.clone(), h.id.clone()))
        .collect()
}

/// The request target of the host measurements of one host, as the client sends it.
pub fn measurements_target(group: &str, host: &str) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("granularity", "PT1M");
    q.append_pair("start", START);
    q.append_pair("end", END);
    for m in METRICS {
        q.append_pair("m", m);
    }
    format!(
        "/api/public/v1.0/groups/{group}/hosts/{host}/measurements?{}",
        q.finish()
    )
}

/// A plain reqwest client with a Digest session of its own: the floor the client is
/// measured against.
pub struct RawClient {
    pub http: reqwest::Client,
    pub base: String,
    pub session: DigestSession,
}

impl RawClient {
    pub fn new(sim: &Simulator) -> Self {
        Self {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(16)
                .tcp_nodelay(true)
                .no_proxy()
                .build()
                .unwrap(),
            base: sim.base_url(),
            session: DigestSession::new(Credentials::new(sim.public_key(), sim.private_key())),
        }
    }

    /// GET `target`, signed; answers a challenge once.
    pub async fn get(&self, target: &str) -> Bytes {
        let url = format!("{}{target}", self.base);
        for _ in 0..2 {
            let mut rb = self.http.get(&url);
            if let Some(s) = self.session.sign("GET", target) {
                rb = rb.header("authorization", s.header);
            }
            let resp = rb.send().await.expect("request");
            if resp.status() == 401 {
                let h = resp.headers()["www-authenticate"]
                    .to_str()
                    .unwrap()
                    .to_string();
                self.session.update(Challenge::parse(&h).unwrap());
                let _ = resp.bytes().await;
                continue;
            }
            assert!(resp.status().is_success(), "{}", resp.status());
            return resp.bytes().await.expect("body");
        }
        panic!("not authorized")
    }

    /// Every target with `concurrency` requests in flight; bodies read and dropped.
    pub async fn floor(&self, targets: &[String], concurrency: usize) -> usize {
        stream::iter(targets)
            .map(|t| async move { self.get(t).await.len() })
            .buffered(concurrency)
            .fold(0, |acc, n| async move { acc + n })
            .await
    }
}

/// A global allocator that counts live and peak bytes.
pub struct Counting;

pub static LIVE: AtomicUsize = AtomicUsize::new(0);
pub static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Resets the peak to the live bytes and returns them.
pub fn reset_peak() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// The median of `runs` timings of `f`, in seconds.
pub fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = std::time::Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// The memory floor: `bytes` of fresh memory written once, on 2 threads, and freed. Every
/// client that hands over a frame of that size pays it (page faults and the first write of
/// each page) on top of the network.
pub fn fresh_memory(bytes: usize) {
    std::thread::scope(|s| {
        let half = bytes / 2;
        let other = s.spawn(move || std::hint::black_box(vec![1u8; half]).len());
        let mine = std::hint::black_box(vec![1u8; bytes - half]).len();
        std::hint::black_box(mine + other.join().unwrap());
    });
}

/// The bytes a frame's columns occupy as laid out: a 16-byte view per string, 8 bytes per
/// number, a validity bit per row where there are nulls (polars' `estimated_size` also counts
/// the length of every string each view points at, which is far more than is stored here).
pub fn physical_bytes(df: &polars::prelude::DataFrame) -> usize {
    use polars::prelude::DataType;
    df.columns()
        .iter()
        .map(|c| {
            let per_row = if *c.dtype() == DataType::String {
                16
            } else {
                8
            };
            let validity = if c.null_count() > 0 {
                c.len().div_ceil(8)
            } else {
                0
            };
            c.len() * per_row + validity
        })
        .sum()
}
