//! Integration tests against the built-in simulator, one module per resource (the same names
//! as `src/api/<resource>.rs`): the exact requests that go out and the results that come back.

#![cfg(feature = "sim")] // against the simulator

mod common;
mod databases;
mod global_alerts;
mod rate_limit;
