//! The crate's promises that hold across every resource, one module each: the decode rules
//! (`decode_rules`), the documented payloads (`fixtures`), the fuzz targets' findings replayed
//! (`fuzz_regressions`), measurement frames and fleet pulls (`frame`), no secret in any log
//! line (`secrets`) and TLS as on-premise servers use it (`tls`).
//!
//! One test binary rather than six: each links the library and polars (a few hundred MB in a
//! debug build), once per feature set that `make test` checks. nextest still runs every test
//! in a process of its own, so `secrets`' global logger sees only its own test.

mod decode_rules;
mod fixtures;
mod frame;
mod fuzz_regressions;
mod secrets;
mod tls;
