//! Decode throughput: measurement JSON into columns and into a long DataFrame, and a page of
//! 500 global alerts into typed models that keep their text, each against `serde_json::Value`
//! parsing of the same bytes in the same run. Target (measurements): >= 500 MB/s.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opsapi::frame::Shape;
use opsapi::sim::{SimConfig, Simulator};
use opsapi::{decode_model, Alert, Measurements};

fn body() -> bytes::Bytes {
    let sim = common::fleet_sim(1);
    let (g, h) = common::host_targets(&sim, 1).remove(0);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let raw = common::RawClient::new(&sim);
    rt.block_on(raw.get(&common::measurements_target(&g, &h)))
}

fn decode(c: &mut Criterion) {
    let body = body();
    let mb = body.len() as f64 / 1e6;
    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("serde_json_value", |b| {
        b.iter(|| black_box(serde_json::from_slice::<serde_json::Value>(&body).unwrap()))
    });
    group.bench_function("opsapi_measurements", |b| {
        b.iter(|| black_box(decode_model::<Measurements>(&body).unwrap()))
    });
    group.bench_function("opsapi_long_frame", |b| {
        b.iter(|| {
            let m = decode_model::<Measurements>(&body).unwrap();
            black_box(m.to_frame(Shape::Long).unwrap())
        })
    });
    group.finish();

    // The same three, timed side by side, as ratios.
    let value = common::median_secs(21, || {
        black_box(serde_json::from_slice::<serde_json::Value>(&body).unwrap());
    });
    let cols = common::median_secs(21, || {
        black_box(decode_model::<Measurements>(&body).unwrap());
    });
    let frame = common::median_secs(21, || {
        let m = decode_model::<Measurements>(&body).unwrap();
        black_box(m.to_frame(Shape::Long).unwrap());
    });
    println!("\nsummary (body {mb:.2} MB, {} data points):", {
        decode_model::<Measurements>(&body)
            .unwrap()
            .data_point_count()
    });
    println!("  serde_json::Value   {:>7.0} MB/s", mb / value);
    println!(
        "  opsapi columns      {:>7.0} MB/s  ({:.2}x serde_json::Value)",
        mb / cols,
        value / cols
    );
    println!(
        "  opsapi long frame   {:>7.0} MB/s  ({:.2}x serde_json::Value; target >= 500 MB/s)",
        mb / frame,
        value / frame
    );
}

/// A page of 500 global alerts as the simulator sends it, and its items' texts.
fn alerts_page() -> (bytes::Bytes, Vec<String>) {
    let sim = Simulator::start(SimConfig {
        global_alerts: 500,
        worker_threads: 1,
        log_requests: false,
        ..SimConfig::default()
    })
    .expect("simulator starts");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let raw = common::RawClient::new(&sim);
    let body = rt.block_on(raw.get("/api/public/v1.0/globalAlerts?itemsPerPage=500&pageNum=1"));
    #[derive(serde::Deserialize)]
    struct Page<'a> {
        #[serde(borrow)]
        results: Vec<&'a serde_json::value::RawValue>,
    }
    let items = serde_json::from_slice::<Page<'_>>(&body)
        .unwrap()
        .results
        .iter()
        .map(|r| r.get().to_string())
        .collect();
    (body, items)
}

/// Alerts: what paging does with each item's text (typed fields plus the kept text), against
/// `serde_json::Value` of the whole page.
fn alerts(c: &mut Criterion) {
    let (body, items) = alerts_page();
    let mb = body.len() as f64 / 1e6;
    let typed = || {
        for item in &items {
            black_box(decode_model::<Alert>(item.as_bytes()).unwrap());
        }
    };
    // The whole page as a listing decodes it (the alert page scanner, src/decode/alerts.rs).
    let page = || {
        black_box(opsapi::fuzzing::decode_page::<Alert>(&body).unwrap());
    };
    let mut group = c.benchmark_group("decode_alerts");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("serde_json_value", |b| {
        b.iter(|| black_box(serde_json::from_slice::<serde_json::Value>(&body).unwrap()))
    });
    group.bench_function("opsapi_alerts", |b| b.iter(typed));
    group.bench_function("opsapi_alert_page", |b| b.iter(page));
    group.finish();

    let value = common::median_secs(21, || {
        black_box(serde_json::from_slice::<serde_json::Value>(&body).unwrap());
    });
    let models = common::median_secs(21, typed);
    let pages = common::median_secs(21, page);
    println!("\nsummary (a page of {} alerts, {mb:.2} MB):", items.len());
    println!("  serde_json::Value   {:>7.0} MB/s", mb / value);
    println!(
        "  opsapi alerts       {:>7.0} MB/s  ({:.2}x serde_json::Value; one by one, by serde)",
        mb / models,
        value / models
    );
    println!(
        "  opsapi alert page   {:>7.0} MB/s  ({:.2}x serde_json::Value; as a listing reads it)",
        mb / pages,
        value / pages
    );
}

criterion_group!(benches, decode, alerts);
criterion_main!(benches);
