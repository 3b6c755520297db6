//! A fleet pull (100 hosts x 20 metrics x 1 day at PT1M, about 2.88 M data points) against
//! the simulator, against the raw-bytes floor: the same requests over the same kind of
//! connections, bodies read and discarded. Targets: <= 1.3x the floor; peak memory <= 2x the
//! final frame's size.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use opsapi::frame::{FleetOptions, Target};
use opsapi::{Client, Granularity, MeasurementsQuery};

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

const HOSTS: usize = 100;
const CONCURRENCY: usize = 8;

fn fleet(c: &mut Criterion) {
    let sim = common::fleet_sim(HOSTS);
    let hosts = common::host_targets(&sim, HOSTS);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .max_concurrency(CONCURRENCY)
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let targets: Vec<Target> = hosts.iter().map(|(g, h)| Target::host(g, h)).collect();
    let start = opsapi::query::parse_timestamp("start", common::START).unwrap();
    let end = opsapi::query::parse_timestamp("end", common::END).unwrap();
    let query = MeasurementsQuery::range(Granularity::PT1M, start, end).metrics(common::METRICS);
    let raw = common::RawClient::new(&sim);
    let raw_targets: Vec<String> = hosts
        .iter()
        .map(|(g, h)| common::measurements_target(g, h))
        .collect();

    // Warm up: the simulator renders and caches every body once.
    let bytes = rt.block_on(raw.floor(&raw_targets, CONCURRENCY));
    let pull = || {
        rt.block_on(
            client
                .measurements()
                .fleet(&targets, &query, &FleetOptions::new()),
        )
        .unwrap()
        .frame
    };
    let rows = pull().height();

    let mut group = c.benchmark_group("fleet_100_hosts");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("raw_bytes_floor", |b| {
        b.iter(|| black_box(rt.block_on(raw.floor(&raw_targets, CONCURRENCY))))
    });
    group.bench_function("opsapi_fleet_long", |b| b.iter(|| black_box(pull())));
    group.finish();

    let floor = common::median_secs(5, || {
        black_box(rt.block_on(raw.floor(&raw_targets, CONCURRENCY)));
    });
    let ours = common::median_secs(5, || {
        black_box(pull());
    });
    let before = common::reset_peak();
    let frame = pull();
    let peak = common::PEAK.load(std::sync::atomic::Ordering::Relaxed) - before;
    let size = common::physical_bytes(&frame);
    drop(frame);
    let memory = common::median_secs(5, || common::fresh_memory(size));
    println!(
        "\nsummary: {HOSTS} hosts, {:.0} MB of JSON, {rows} rows",
        bytes as f64 / 1e6
    );
    println!("  raw-bytes floor     {floor:>7.3} s");
    println!(
        "  opsapi fleet (long) {ours:>7.3} s  = {:.2}x the floor (target <= 1.3x)",
        ours / floor
    );
    println!(
        "  memory floor        {memory:>7.3} s  (the frame's {:.0} MB written to fresh memory on 2 threads)",
        size as f64 / 1e6
    );
    println!(
        "  opsapi / (floor + memory floor) = {:.2}x",
        ours / (floor + memory)
    );
    println!(
        "  peak memory         {:>7.0} MB  = {:.2}x the final frame's {:.0} MB of columns (target <= 2x)",
        peak as f64 / 1e6,
        peak as f64 / size as f64,
        size as f64 / 1e6
    );
}

criterion_group!(benches, fleet);
criterion_main!(benches);
