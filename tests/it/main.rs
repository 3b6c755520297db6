//! Integration tests of the client against the built-in simulator: the exact requests that go
//! out and the results that come back.
//!
//! One module per resource, named as `src/api/<resource>.rs` (`access_list`, `alert_configs`,
//! `alerts` with `alerts_context`, `databases`, `events`, `global_alerts`, `groups`, `hosts`,
//! `measurements`, `metric_names`, `performance_advisor`), and one per
//! rule of the one send path (`src/client/`): `arguments`, `errors`, `digest`, `retries`,
//! `time_budget`, `body_cap`, `redirects`, `decode`, `paging`, `rate_limit`; `flavours` (one
//! client for Ops Manager, Cloud Manager and Atlas) and `oauth` (service accounts). Shared helpers
//! live in `common`; the loopback servers for what the simulator cannot do in `loopback`.

#![cfg(feature = "sim")] // against the simulator

mod common;
mod loopback;

mod access_list;
mod alert_configs;
mod alerts;
#[cfg(feature = "frames")] // AlertContext::frame
mod alerts_context;
mod clusters;
mod databases;
mod events;
mod flavours;
mod global_alerts;
mod groups;
mod hosts;
mod measurements;
#[cfg(feature = "frames")] // fleet pulls (`opsapi::fleet`)
mod metric_names;
mod performance_advisor;
#[cfg(feature = "frames")] // the measurement store (`opsapi::store`)
mod store;
#[cfg(feature = "frames")]
mod store_history;
#[cfg(feature = "frames")]
mod store_integrity;

mod arguments;
mod body_cap;
mod decode;
mod digest;
mod errors;
mod oauth;
mod paging;
#[cfg(feature = "frames")] // fleet pulls (`opsapi::fleet`)
mod rate_limit;
mod redirects;
mod retries;
mod time_budget;

/// Every file of this folder is a module of this binary (above): a file forgotten there
/// compiles into nothing, and its tests never run.
#[test]
fn every_file_of_the_folder_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") else {
            continue;
        };
        files += 1;
        assert!(
            main.contains(&format!("mod {module};")),
            "tests/it/{name} is no module of tests/it/main.rs: add `mod {module};`"
        );
    }
    assert!(files > 20, "{files}");
}
